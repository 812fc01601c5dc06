package models

import (
	"context"
	"strings"
	"time"

	"github.com/uptrace/bun"

	"storeadmin/internal/base/apperr"
)

// ContentPage is a page of the online store (About us, a shipping policy),
// at the storefront path PagePath(Handle). Published is not stored: it is
// IsPublished(PublishedAt).
type ContentPage struct {
	bun.BaseModel `bun:"table:pages,alias:page"`

	ID          int64      `bun:"id,pk,autoincrement" json:"id"`
	StoreID     int64      `bun:"store_id" json:"-"`
	Handle      string     `bun:"handle" json:"handle"`
	Title       string     `bun:"title" json:"title"`
	BodyHTML    string     `bun:"body_html" json:"body_html"`
	PublishedAt *time.Time `bun:"published_at" json:"published_at"`
	SEO         any        `bun:"seo,type:jsonb" json:"seo"`
	CreatedAt   time.Time  `bun:"created_at,nullzero,default:now()" json:"created_at"`
	UpdatedAt   time.Time  `bun:"updated_at,nullzero,default:now()" json:"updated_at"`
}

// ContentPageFilter narrows a list of pages; each field left out narrows
// nothing.
type ContentPageFilter struct {
	Published *bool   `json:"published"`
	Q         *string `json:"q"`
}

// Check refuses nothing: every value of the filter's fields can be run.
func (f ContentPageFilter) Check() error { return nil }

func (f ContentPageFilter) apply(q *bun.SelectQuery) *bun.SelectQuery {
	if f.Published != nil {
		q = wherePublished(q, "page", *f.Published)
	}
	if f.Q != nil && strings.TrimSpace(*f.Q) != "" {
		like := containsPattern(*f.Q)
		q = q.WhereGroup(" AND ", func(q *bun.SelectQuery) *bun.SelectQuery {
			return q.Where("lower(page.title) LIKE ?", like).WhereOr("page.handle LIKE ?", like)
		})
	}
	return q
}

// ListContentPages lists a store's pages by title.
func ListContentPages(ctx context.Context, db bun.IDB, storeID int64, f ContentPageFilter, p Paging) ([]ContentPage, error) {
	var out []ContentPage
	q := db.NewSelect().Model(&out).Apply(p.Columns.Apply).Where("page.store_id = ?", storeID).Apply(f.apply).
		OrderExpr("lower(page.title), page.id")
	err := scanRows(ctx, db, p.Apply(q), &out)
	return out, err
}

// GetContentPage reads one page of the store.
func GetContentPage(ctx context.Context, db bun.IDB, storeID, id int64) (*ContentPage, error) {
	p := new(ContentPage)
	err := db.NewSelect().Model(p).Where("store_id = ? AND id = ?", storeID, id).Scan(ctx)
	return p, classify(err, "the page")
}

// ContentPageHandleTaken reports whether another page than exceptID has
// the handle.
func ContentPageHandleTaken(ctx context.Context, db bun.IDB, storeID int64, handle string, exceptID int64) (bool, error) {
	return db.NewSelect().Model((*ContentPage)(nil)).
		Where("store_id = ? AND handle = ? AND id <> ?", storeID, handle, exceptID).Exists(ctx)
}

// InsertContentPage stores a new page row; it receives its id and times.
func InsertContentPage(ctx context.Context, db bun.IDB, p *ContentPage) error {
	_, err := db.NewInsert().Model(p).Returning("id, created_at, updated_at").Exec(ctx)
	return handleConflict(err, "page", p.Handle)
}

// UpdateContentPage writes the page row and bumps updated_at. A changed
// handle leaves a redirect from the old storefront path to the new
// (RedirectMovedPath).
func UpdateContentPage(ctx context.Context, db bun.IDB, p *ContentPage) error {
	var previousHandle string
	old := db.NewSelect().Model((*ContentPage)(nil)).Column("id", "handle").
		Where("store_id = ? AND id = ?", p.StoreID, p.ID).For("UPDATE")
	err := db.NewUpdate().Model(p).Column("handle", "title", "body_html", "published_at", "seo").
		Set("updated_at = now()").TableExpr("(?) AS old", old).Where("page.id = old.id").
		Returning("old.handle, page.updated_at").Scan(ctx, &previousHandle, &p.UpdatedAt)
	if err != nil {
		return handleConflict(err, "page", p.Handle)
	}
	return RedirectMovedPath(ctx, db, p.StoreID, PagePath(previousHandle), PagePath(p.Handle))
}

// DeleteContentPage removes a page. Menu items that link to it stay,
// flagged broken when read.
func DeleteContentPage(ctx context.Context, db bun.IDB, storeID, id int64) error {
	res, err := db.NewDelete().Model((*ContentPage)(nil)).Where("store_id = ? AND id = ?", storeID, id).Exec(ctx)
	return notFoundIfNone(res, err, "the page")
}

// handleConflict words a write refused for a taken handle (a conflict on
// the table's unique store and handle) for people, naming the handle; any
// other error is left as it is.
func handleConflict(err error, what, handle string) error {
	if err == nil {
		return nil
	}
	if err = classify(err, "the "+what); apperr.CodeOf(err) == apperr.Conflict {
		return apperr.Conflictf("another %s already has the handle %q", what, handle)
	}
	return err
}
