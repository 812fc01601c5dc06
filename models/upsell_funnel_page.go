package models

import (
	"context"

	"github.com/uptrace/bun"
)

// EnsureFunnelCheckoutPage answers the funnel's checkout page, creating
// and linking one when it has none: named after the funnel, with the
// sections of the store's default page (null when the store has none),
// and the store's default when it has no default yet (its first page).
// It locks the funnel's row first, so two calls at once make one page:
// the second waits, then finds the first's. created says whether this
// call made it. Run it in a transaction.
func EnsureFunnelCheckoutPage(ctx context.Context, tx bun.IDB, storeID, funnelID int64) (page *CheckoutPage, created bool, err error) {
	f, err := LockUpsellFunnel(ctx, tx, storeID, funnelID)
	if err != nil {
		return nil, false, err
	}
	if f.CheckoutPageID != nil {
		page = new(CheckoutPage)
		err = tx.NewSelect().Model(page).Where("store_id = ? AND id = ?", storeID, *f.CheckoutPageID).Scan(ctx)
		return page, false, classify(err, "the checkout page")
	}
	var defaults []CheckoutPage
	if err := tx.NewSelect().Model(&defaults).Column("sections").Where("store_id = ? AND is_default", storeID).Scan(ctx); err != nil {
		return nil, false, err
	}
	page = &CheckoutPage{StoreID: storeID, Name: f.Name, IsDefault: len(defaults) == 0}
	if len(defaults) > 0 {
		page.Sections = defaults[0].Sections
	}
	if err := InsertCheckoutPage(ctx, tx, page); err != nil {
		return nil, false, err
	}
	_, err = tx.NewUpdate().Model((*UpsellFunnel)(nil)).Set("checkout_page_id = ?", page.ID).Set("updated_at = now()").
		Where("store_id = ? AND id = ?", storeID, funnelID).Exec(ctx)
	return page, true, err
}
