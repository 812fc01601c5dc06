package models

import (
	"context"

	"github.com/uptrace/bun"

	"storeadmin/internal/base/apperr"
)

// RunPage is what the storefront shows of a run: the run, its order's
// totals and, while it runs, the offer it is at with the step that makes
// it, the design to show and the variants it may sell.
type RunPage struct {
	Run   *FunnelRun
	Order *Order
	// Offer is the offer the run is at; nil once it ended.
	Offer *FunnelRunOffer
	// Step is the offer's step as the funnel has it now, with its
	// availability; nil once the run ended (or the step left the funnel).
	Step *FunnelStep
	// Design is the step's own upsell page, else the funnel's.
	Design any
	// Variants are those the offer may sell, with their products
	// (OfferVariants); SellableVariants tells which can be sold now.
	Variants []CatalogueVariant
}

// ReadRunPage reads run's page, in a fixed number of statements.
func ReadRunPage(ctx context.Context, db bun.IDB, run *FunnelRun) (*RunPage, error) {
	o, err := GetOrder(ctx, db, run.StoreID, run.OrderID)
	if err != nil {
		return nil, err
	}
	page := &RunPage{Run: run, Order: o}
	if run.Status != RunRunning || run.CurrentPosition == nil {
		return page, nil
	}
	offer := new(FunnelRunOffer)
	if err := db.NewSelect().Model(offer).Where("store_id = ? AND run_id = ? AND position = ?", run.StoreID, run.ID, *run.CurrentPosition).
		Scan(ctx); err != nil {
		return nil, classify(err, "the funnel offer")
	}
	page.Offer = offer
	if run.FunnelID == nil {
		return page, nil
	}
	f, err := GetUpsellFunnel(ctx, db, run.StoreID, *run.FunnelID)
	if apperr.CodeOf(err) == apperr.NotFound {
		return page, nil
	}
	if err != nil {
		return nil, err
	}
	steps, err := FunnelSteps(ctx, db, run.StoreID, f.ID)
	if err != nil {
		return nil, err
	}
	w := runWalk{steps: steps}
	if page.Step = w.step(offer.Position); page.Step == nil {
		return page, nil
	}
	page.Design = f.UpsellPage
	if page.Step.UpsellPage != nil {
		page.Design = page.Step.UpsellPage
	}
	page.Variants, err = OfferVariants(ctx, db, run.StoreID, page.Step.Offer)
	return page, err
}
