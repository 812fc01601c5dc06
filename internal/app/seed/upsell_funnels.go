package seed

import (
	"context"
	"time"

	"github.com/uptrace/bun"

	"storeadmin/models"
)

// seedOffer is a product a demo funnel may offer: the catalogue's active
// products that can be sold now, cheapest first.
type seedOffer struct {
	ProductID int64 `bun:"product_id"`
	VariantID int64 `bun:"variant_id"`
	Price     int64 `bun:"price_cents"`
}

// upsellFunnels seeds four post-purchase funnels with branching steps on
// the catalogue's products, when the store has none, through
// models.SaveUpsellFunnel as the API does; the first gets its checkout
// page through models.EnsureFunnelCheckoutPage (a page named after it,
// with the default page's sections).
func upsellFunnels(ctx context.Context, tx bun.Tx, storeID int64, _ time.Time) error {
	n, err := models.CountUpsellFunnels(ctx, tx, storeID)
	if err != nil || n > 0 {
		return err
	}
	// Each active product once, by its cheapest variant that has stock.
	var offers []seedOffer
	err = tx.NewRaw(`SELECT DISTINCT ON (p.id) p.id AS product_id, v.id AS variant_id, v.price_cents
		FROM products p JOIN product_variants v ON v.product_id = p.id
		WHERE p.store_id = ? AND p.status = ? AND v.price_cents >= 500
			AND (NOT v.track_inventory OR v.inventory_policy = ? OR v.inventory_quantity >= 5)
		ORDER BY p.id, v.price_cents, v.id`, storeID, models.ProductActive, models.InventoryContinue).Scan(ctx, &offers)
	if err != nil || len(offers) < 8 {
		return err // a catalogue too small to offer from
	}
	// Spread the picks over the catalogue, by id.
	pick := func(i int) seedOffer { return offers[i*len(offers)/8] }
	at := func(p int64) *int64 { return &p }
	product := func(o seedOffer, quantity int64, discount *models.OfferDiscount) models.FunnelOffer {
		return models.FunnelOffer{ProductID: o.ProductID, Quantity: quantity, Discount: discount}
	}
	variant := func(o seedOffer, discount *models.OfferDiscount) models.FunnelOffer {
		return models.FunnelOffer{ProductID: o.ProductID, VariantID: &o.VariantID, Quantity: 1, Discount: discount}
	}
	pct := func(v int64) *models.OfferDiscount {
		return &models.OfferDiscount{Type: models.OfferPercentage, Value: v}
	}
	off := func(o seedOffer, share int64) *models.OfferDiscount { // share percent of its price, as a fixed amount
		return &models.OfferDiscount{Type: models.OfferFixedAmount, Value: o.Price * share / 100}
	}
	type funnel struct {
		f     models.UpsellFunnel
		steps []models.FunnelStep
		page  bool
	}
	funnels := []funnel{
		{ // accept → a cross-sell; decline → a cheaper downsell
			f: models.UpsellFunnel{Name: "Thank-you upsell", Enabled: true, TimeoutSeconds: 900}, page: true,
			steps: []models.FunnelStep{
				{Position: 1, Name: "One more, 20% off", Type: models.StepUpsell, Offer: product(pick(0), 1, pct(20)), AcceptNextPosition: at(2), DeclineNextPosition: at(3)},
				{Position: 2, Name: "Goes well with it", Type: models.StepCrossSell, Offer: product(pick(1), 1, pct(10))},
				{Position: 3, Name: "A smaller treat", Type: models.StepDownsell, Offer: variant(pick(2), off(pick(2), 25))},
			},
		},
		{ // a pair at 15% off; decline → one at 10% off
			f: models.UpsellFunnel{Name: "Stock up", Enabled: true, TimeoutSeconds: 600},
			steps: []models.FunnelStep{
				{Position: 1, Name: "Two for the road", Type: models.StepUpsell, Offer: product(pick(3), 2, pct(15)), DeclineNextPosition: at(2)},
				{Position: 2, Name: "Just one then", Type: models.StepDownsell, Offer: product(pick(3), 1, pct(10))},
			},
		},
		{ // three cross-sells whichever the answer, the last on a decline only
			f: models.UpsellFunnel{Name: "Complete the kit", Enabled: true, TimeoutSeconds: 1200},
			steps: []models.FunnelStep{
				{Position: 1, Name: "Add the essentials", Type: models.StepCrossSell, Offer: variant(pick(4), pct(10)), AcceptNextPosition: at(2), DeclineNextPosition: at(2)},
				{Position: 2, Name: "And this", Type: models.StepCrossSell, Offer: product(pick(5), 1, nil), DeclineNextPosition: at(3)},
				{Position: 3, Name: "Last offer", Type: models.StepDownsell, Offer: product(pick(6), 1, off(pick(6), 30))},
			},
		},
		{ // off: kept for a later campaign
			f: models.UpsellFunnel{Name: "Holiday gift add-on", Enabled: false, TimeoutSeconds: 300},
			steps: []models.FunnelStep{
				{Position: 1, Name: "Gift it", Type: models.StepCrossSell, Offer: product(pick(7), 1, pct(5))},
			},
		},
	}
	for _, fn := range funnels {
		fn.f.StoreID = storeID
		if err := models.SaveUpsellFunnel(ctx, tx, &fn.f, fn.steps); err != nil {
			return err
		}
		if fn.page {
			if _, _, err := models.EnsureFunnelCheckoutPage(ctx, tx, storeID, fn.f.ID); err != nil {
				return err
			}
		}
	}
	return nil
}
