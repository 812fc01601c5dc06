package models

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/uptrace/bun"

	"storeadmin/internal/base/apperr"
)

// CheckoutPage is the design of a checkout (checkout_pages, migration
// 20261124180000): its sections, and whether it is the store's default.
type CheckoutPage struct {
	bun.BaseModel `bun:"table:checkout_pages,alias:cp"`

	ID        int64     `bun:"id,pk,autoincrement" json:"id"`
	StoreID   int64     `bun:"store_id" json:"-"`
	Name      string    `bun:"name" json:"name"`
	IsDefault bool      `bun:"is_default" json:"is_default"`
	Sections  any       `bun:"sections,type:jsonb" json:"sections"`
	CreatedAt time.Time `bun:"created_at,nullzero,default:now()" json:"-"`
	UpdatedAt time.Time `bun:"updated_at,nullzero,default:now()" json:"updated_at"`
}

// The store's default page: a store that has pages has exactly one default
// (the partial unique index checkout_pages_default_idx allows no second).
// Every write that can change which page it is (InsertCheckoutPage,
// SetDefaultCheckoutPage, DeleteCheckoutPage) takes the store's lock first
// (lockStore), so they take turns: two first pages added at once, a move
// and a delete, never leave two defaults or none.

// InsertCheckoutPage stores a new page row. The store's first page (a
// store with no default) becomes its default; p.IsDefault says whether it
// did. db should be a transaction: the lock it takes lasts until it ends.
func InsertCheckoutPage(ctx context.Context, db bun.IDB, p *CheckoutPage) error {
	if err := lockStore(ctx, db, p.StoreID); err != nil {
		return err
	}
	hasDefault, err := db.NewSelect().Model((*CheckoutPage)(nil)).Where("store_id = ? AND is_default", p.StoreID).Exists(ctx)
	if err != nil {
		return err
	}
	p.IsDefault = !hasDefault
	_, err = db.NewInsert().Model(p).Returning("id, created_at, updated_at").Exec(ctx)
	return classify(err, "the checkout page")
}

// ListCheckoutPages lists a store's pages by id (the order they were made).
func ListCheckoutPages(ctx context.Context, db bun.IDB, storeID int64, p Paging) ([]CheckoutPage, error) {
	var out []CheckoutPage
	q := db.NewSelect().Model(&out).Apply(p.Columns.Apply).Where("cp.store_id = ?", storeID).Order("cp.id")
	err := scanRows(ctx, db, p.Apply(q), &out)
	return out, err
}

// CountCheckoutPages counts a store's pages.
func CountCheckoutPages(ctx context.Context, db bun.IDB, storeID int64) (int64, error) {
	return db.NewSelect().Model((*CheckoutPage)(nil)).Where("store_id = ?", storeID).Count(ctx)
}

// GetCheckoutPage reads one page of the store.
func GetCheckoutPage(ctx context.Context, db bun.IDB, storeID, id int64) (*CheckoutPage, error) {
	p := new(CheckoutPage)
	err := db.NewSelect().Model(p).Where("cp.store_id = ? AND cp.id = ?", storeID, id).Scan(ctx)
	return p, classify(err, "the checkout page")
}

// CheckoutPagesByID loads pages of the store by id, for a dataloader (a
// funnel's page).
func CheckoutPagesByID(ctx context.Context, db bun.IDB, storeID int64, ids []int64, cols Columns) ([]CheckoutPage, error) {
	out := make([]CheckoutPage, 0, len(ids)) // at most one row per id
	err := scanRows(ctx, db, db.NewSelect().Model(&out).Apply(cols.Apply).Where("cp.store_id = ? AND cp.id IN (?)", storeID, bun.List(ids)), &out)
	return out, err
}

// UpdateCheckoutPage writes the page's name and sections and bumps
// updated_at, which p gets back.
func UpdateCheckoutPage(ctx context.Context, db bun.IDB, p *CheckoutPage) error {
	res, err := db.NewUpdate().Model(p).Column("name", "sections").Set("updated_at = now()").
		Where("store_id = ? AND id = ?", p.StoreID, p.ID).Returning("is_default, updated_at").Exec(ctx)
	return notFoundIfNone(res, err, "the checkout page")
}

// SetDefaultCheckoutPage makes the store's page id its default, in tx, and
// returns it: the old default stops being one in the same transaction,
// under the store's lock. Making the default its default again changes
// nothing.
func SetDefaultCheckoutPage(ctx context.Context, tx bun.IDB, storeID, id int64) (*CheckoutPage, error) {
	if err := lockStore(ctx, tx, storeID); err != nil {
		return nil, err
	}
	p, err := GetCheckoutPage(ctx, tx, storeID, id)
	if err != nil || p.IsDefault {
		return p, err
	}
	// Two statements: a unique index is checked row by row, so one UPDATE
	// flipping both rows could meet the new default before the old.
	if _, err := tx.NewUpdate().Model((*CheckoutPage)(nil)).Set("is_default = false, updated_at = now()").
		Where("store_id = ? AND is_default", storeID).Exec(ctx); err != nil {
		return nil, err
	}
	res, err := tx.NewUpdate().Model(p).Set("is_default = true, updated_at = now()").
		Where("store_id = ? AND id = ?", storeID, id).Returning("is_default, updated_at").Exec(ctx)
	return p, notFoundIfNone(res, err, "the checkout page")
}

// FunnelRef names an upsell funnel for people: its name and id.
type FunnelRef struct {
	ID   int64  `bun:"id"`
	Name string `bun:"name"`
}

func (f FunnelRef) String() string { return fmt.Sprintf("%s (%d)", f.Name, f.ID) }

// DeleteCheckoutPage removes a page of the store, in tx. A page an upsell
// funnel uses is a conflict naming the funnels; so is the default while
// the store has other pages (another becomes the default first, so a store
// with pages always has one). The last page goes, default or not.
func DeleteCheckoutPage(ctx context.Context, tx bun.IDB, storeID, id int64) error {
	if err := lockStore(ctx, tx, storeID); err != nil {
		return err
	}
	// The page's row lock waits for funnels being pointed at it (their
	// foreign key check shares it) and keeps new ones off until the end.
	p := new(CheckoutPage)
	if err := tx.NewSelect().Model(p).Column("id", "name", "is_default").
		Where("cp.store_id = ? AND cp.id = ?", storeID, id).For("UPDATE").Scan(ctx); err != nil {
		return classify(err, "the checkout page")
	}
	var users []FunnelRef
	if err := tx.NewSelect().TableExpr("upsell_funnels").Column("id", "name").
		Where("store_id = ? AND checkout_page_id = ?", storeID, id).Order("id").Scan(ctx, &users); err != nil {
		return err
	}
	if len(users) > 0 {
		names := make([]string, len(users))
		for i, f := range users {
			names[i] = f.String()
		}
		noun := "funnel"
		if len(users) > 1 {
			noun = "funnels"
		}
		return apperr.Conflictf("the checkout page %q is used by the upsell %s %s: give them another page first",
			p.Name, noun, strings.Join(names, ", "))
	}
	if p.IsDefault {
		others, err := tx.NewSelect().Model((*CheckoutPage)(nil)).Where("store_id = ? AND id <> ?", storeID, id).Count(ctx)
		if err != nil {
			return err
		}
		if others > 0 {
			return apperr.Conflictf("the checkout page %q is the store's default: make another page the default first (PUT /store/checkout-pages/{id}/default)", p.Name)
		}
	}
	res, err := tx.NewDelete().Model((*CheckoutPage)(nil)).Where("store_id = ? AND id = ?", storeID, id).Exec(ctx)
	return notFoundIfNone(res, err, "the checkout page")
}

// CheckoutPageFunnelCount is how many upsell funnels use a page.
type CheckoutPageFunnelCount struct {
	PageID int64 `bun:"checkout_page_id"`
	Count  int64 `bun:"count"`
}

// FunnelCountsByCheckoutPage counts the funnels that use several pages,
// for a dataloader; a page no funnel uses has no row.
func FunnelCountsByCheckoutPage(ctx context.Context, db bun.IDB, storeID int64, ids []int64, _ Columns) ([]CheckoutPageFunnelCount, error) {
	out := make([]CheckoutPageFunnelCount, 0, len(ids)) // at most one row per id
	err := db.NewSelect().TableExpr("upsell_funnels").ColumnExpr("checkout_page_id, count(*) AS count").
		Where("store_id = ? AND checkout_page_id IN (?)", storeID, bun.List(ids)).Group("checkout_page_id").Scan(ctx, &out)
	return out, err
}
