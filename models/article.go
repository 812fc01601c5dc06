package models

import (
	"context"
	"strings"
	"time"

	"github.com/uptrace/bun"
)

// Article is a post of the store's blog, at the storefront path
// ArticlePath(Handle). Published is not stored: it is
// IsPublished(PublishedAt). ImageSrc is one of the store's uploaded media
// (or empty), ImageThumbhash that upload's ThumbHash.
type Article struct {
	bun.BaseModel `bun:"table:articles,alias:article"`

	ID             int64      `bun:"id,pk,autoincrement" json:"id"`
	StoreID        int64      `bun:"store_id" json:"-"`
	Handle         string     `bun:"handle" json:"handle"`
	Title          string     `bun:"title" json:"title"`
	BodyHTML       string     `bun:"body_html" json:"body_html"`
	Author         string     `bun:"author" json:"author"`
	Tags           []string   `bun:"tags,array" json:"tags"`
	Excerpt        string     `bun:"excerpt" json:"excerpt"`
	ImageSrc       string     `bun:"image_src" json:"image_src"`
	ImageThumbhash string     `bun:"image_thumbhash" json:"image_thumbhash"`
	PublishedAt    *time.Time `bun:"published_at" json:"published_at"`
	SEO            any        `bun:"seo,type:jsonb" json:"seo"`
	CreatedAt      time.Time  `bun:"created_at,nullzero,default:now()" json:"created_at"`
	UpdatedAt      time.Time  `bun:"updated_at,nullzero,default:now()" json:"updated_at"`
}

// ArticleFilter narrows a list of articles; each field left out narrows
// nothing.
type ArticleFilter struct {
	Published *bool   `json:"published"`
	Tag       *string `json:"tag"`
	Author    *string `json:"author"`
	Q         *string `json:"q"`
}

// Check refuses nothing: every value of the filter's fields can be run.
func (f ArticleFilter) Check() error { return nil }

func (f ArticleFilter) apply(q *bun.SelectQuery) *bun.SelectQuery {
	if f.Published != nil {
		q = wherePublished(q, "article", *f.Published)
	}
	if f.Tag != nil {
		// @>, not = ANY: the tags' GIN index answers only the former.
		q = q.Where("article.tags @> ARRAY[?]::text[]", strings.TrimSpace(*f.Tag))
	}
	if f.Author != nil {
		q = q.Where("lower(article.author) = lower(?)", strings.TrimSpace(*f.Author))
	}
	if f.Q != nil && strings.TrimSpace(*f.Q) != "" {
		like := containsPattern(*f.Q)
		q = q.WhereGroup(" AND ", func(q *bun.SelectQuery) *bun.SelectQuery {
			return q.Where("lower(article.title) LIKE ?", like).WhereOr("article.handle LIKE ?", like).
				WhereOr("lower(article.author) LIKE ?", like)
		})
	}
	return q
}

// ListArticles lists a store's articles, newest first: drafts, then
// scheduled and published ones by published_at, latest first (the order of
// the index articles_store_published_idx).
func ListArticles(ctx context.Context, db bun.IDB, storeID int64, f ArticleFilter, p Paging) ([]Article, error) {
	var out []Article
	q := db.NewSelect().Model(&out).Apply(p.Columns.Apply).Where("article.store_id = ?", storeID).Apply(f.apply).
		OrderExpr("article.published_at DESC NULLS FIRST, article.id DESC")
	err := scanRows(ctx, db, p.Apply(q), &out)
	return out, err
}

// CountArticles counts what ListArticles would list without paging.
func CountArticles(ctx context.Context, db bun.IDB, storeID int64, f ArticleFilter) (int64, error) {
	return db.NewSelect().Model((*Article)(nil)).Where("article.store_id = ?", storeID).Apply(f.apply).Count(ctx)
}

// GetArticle reads one article of the store.
func GetArticle(ctx context.Context, db bun.IDB, storeID, id int64) (*Article, error) {
	a := new(Article)
	err := db.NewSelect().Model(a).Where("store_id = ? AND id = ?", storeID, id).Scan(ctx)
	return a, classify(err, "the article")
}

// ArticleHandleTaken reports whether another article than exceptID has the
// handle.
func ArticleHandleTaken(ctx context.Context, db bun.IDB, storeID int64, handle string, exceptID int64) (bool, error) {
	return db.NewSelect().Model((*Article)(nil)).
		Where("store_id = ? AND handle = ? AND id <> ?", storeID, handle, exceptID).Exists(ctx)
}

// InsertArticle stores a new article row; it receives its id and times.
func InsertArticle(ctx context.Context, db bun.IDB, a *Article) error {
	articles := []Article{*a}
	err := InsertArticles(ctx, db, articles)
	*a = articles[0]
	return err
}

// InsertArticles stores new article rows of one store in one statement (a
// blog at once, as the seed writes it); each receives its id and times. An
// article without an excerpt gets its body's (Excerpt).
func InsertArticles(ctx context.Context, db bun.IDB, articles []Article) error {
	if len(articles) == 0 {
		return nil
	}
	for i := range articles {
		if articles[i].Excerpt == "" {
			articles[i].Excerpt = Excerpt(articles[i].BodyHTML)
		}
	}
	_, err := db.NewInsert().Model(&articles).Returning("id, created_at, updated_at").Exec(ctx)
	if len(articles) == 1 {
		return handleConflict(err, "article", articles[0].Handle)
	}
	return classify(err, "an article with this handle")
}

// UpdateArticle writes the article row and bumps updated_at. A changed
// handle leaves a redirect from the old storefront path to the new
// (RedirectMovedPath).
func UpdateArticle(ctx context.Context, db bun.IDB, a *Article) error {
	var previousHandle string
	old := db.NewSelect().Model((*Article)(nil)).Column("id", "handle").
		Where("store_id = ? AND id = ?", a.StoreID, a.ID).For("UPDATE")
	err := db.NewUpdate().Model(a).
		Column("handle", "title", "body_html", "author", "tags", "excerpt", "image_src", "image_thumbhash", "published_at", "seo").
		Set("updated_at = now()").TableExpr("(?) AS old", old).Where("article.id = old.id").
		Returning("old.handle, article.updated_at").Scan(ctx, &previousHandle, &a.UpdatedAt)
	if err != nil {
		return handleConflict(err, "article", a.Handle)
	}
	return RedirectMovedPath(ctx, db, a.StoreID, ArticlePath(previousHandle), ArticlePath(a.Handle))
}

// DeleteArticle removes an article. Menu items that link to it stay,
// flagged broken when read.
func DeleteArticle(ctx context.Context, db bun.IDB, storeID, id int64) error {
	res, err := db.NewDelete().Model((*Article)(nil)).Where("store_id = ? AND id = ?", storeID, id).Exec(ctx)
	return notFoundIfNone(res, err, "the article")
}
