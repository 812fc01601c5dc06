package seed

import (
	"context"
	"slices"
	"time"

	"github.com/uptrace/bun"

	"storeadmin/models"
)

// seedCheckoutPage is a demo checkout page: its name and its sections, as
// a client would send them.
type seedCheckoutPage struct {
	name     string
	sections []any
}

// seedCheckoutPages are the demo pages; the first becomes the default.
var seedCheckoutPages = []seedCheckoutPage{
	{"Standard checkout", []any{
		map[string]any{"type": "contact", "settings": map[string]any{"marketing_opt_in": true, "show_login_link": true}},
		map[string]any{"type": "delivery", "settings": map[string]any{"phone": "optional", "show_address_line2": true}},
		map[string]any{"type": "shipping_method", "settings": map[string]any{"show_delivery_estimates": true}},
		map[string]any{"type": "payment", "settings": map[string]any{"show_payment_icons": true, "billing_same_as_shipping": true}},
		map[string]any{"type": "order_summary", "settings": map[string]any{"show_images": true, "show_discount_field": true}},
		map[string]any{"type": "trust_badges", "settings": map[string]any{"badges": []any{"secure_checkout", "free_returns", "support"}}},
	}},
	{"One-page express", []any{
		map[string]any{"type": "countdown", "settings": map[string]any{"heading": "Your cart is reserved", "minutes": 15}},
		map[string]any{"type": "contact", "settings": map[string]any{"heading": "Contact"}},
		map[string]any{"type": "delivery", "settings": map[string]any{"phone": "required"}},
		map[string]any{"type": "payment", "settings": map[string]any{"heading": "Pay securely"}},
		map[string]any{"type": "tip", "settings": map[string]any{"heading": "Support our team"}},
		map[string]any{"type": "order_summary", "settings": map[string]any{"collapsed_on_mobile": true}},
		map[string]any{"type": "testimonial", "settings": map[string]any{"quote": "Arrived in two days and fits perfectly.", "author": "Dana K.", "rating": 5}},
	}},
}

// checkoutPages seeds the demo checkout pages when the store has none,
// through the checks and the insert the API uses.
func checkoutPages(ctx context.Context, tx bun.Tx, storeID int64, _ time.Time) error {
	n, err := models.CountCheckoutPages(ctx, tx, storeID)
	if err != nil || n > 0 {
		return err
	}
	for _, sp := range seedCheckoutPages {
		sections, err := models.CheckCheckoutSections("sections", sp.sections)
		if err != nil {
			return err
		}
		if err := models.InsertCheckoutPage(ctx, tx, &models.CheckoutPage{StoreID: storeID, Name: sp.name, Sections: sections}); err != nil {
			return err
		}
	}
	return nil
}

// checkoutZones seeds the demo checkout zones when the store has none:
// the store's country, Europe (less it) and the catch-all rest of the
// world, routing to the store's upsell funnels when it has some (another
// area makes them): domestic checkouts split between the first two,
// Europe among the others with one switched off, the rest of the world to
// the last alone.
func checkoutZones(ctx context.Context, tx bun.Tx, storeID int64, _ time.Time) error {
	n, err := models.CountCheckoutZones(ctx, tx, storeID)
	if err != nil || n > 0 {
		return err
	}
	home, err := homeCountry(ctx, tx, storeID)
	if err != nil {
		return err
	}
	funnels, err := models.ListUpsellFunnels(ctx, tx, storeID, models.Paging{Limit: 100})
	if err != nil {
		return err
	}
	// route gives the zone funnels the store has of picks (indexes into its
	// funnels, repeats skipped), with their weights.
	route := func(picks []int, weights []int64, enabled func(i int) bool) []models.CheckoutZoneFunnel {
		out := []models.CheckoutZoneFunnel{}
		if len(funnels) == 0 {
			return out
		}
		for i, p := range picks {
			id := funnels[p%len(funnels)].ID
			if slices.ContainsFunc(out, func(f models.CheckoutZoneFunnel) bool { return f.FunnelID == id }) {
				continue
			}
			out = append(out, models.CheckoutZoneFunnel{FunnelID: id, Weight: weights[i], Enabled: enabled(i), Position: int64(len(out))})
		}
		return out
	}
	always := func(int) bool { return true }
	last := len(funnels) - 1
	zones := []struct {
		zone    models.CheckoutZone
		funnels []models.CheckoutZoneFunnel
	}{
		{models.CheckoutZone{Name: "Domestic", Countries: []string{home}}, route([]int{0, 1}, []int64{7000, 3000}, always)},
		{models.CheckoutZone{Name: "Europe", Countries: slices.DeleteFunc(slices.Clone(shipEurope), func(c string) bool { return c == home })},
			route([]int{1, 2, 3}, []int64{5000, 5000, 2000}, func(i int) bool { return i != 2 })},
		{models.CheckoutZone{Name: "Rest of world", CatchAll: true}, route([]int{max(last, 0)}, []int64{10000}, always)},
	}
	for i, z := range zones {
		z.zone.StoreID, z.zone.Position = storeID, int64(i)
		if err := models.InsertCheckoutZone(ctx, tx, &z.zone); err != nil {
			return err
		}
		if err := models.SetCheckoutZoneFunnels(ctx, tx, storeID, z.zone.ID, z.funnels); err != nil {
			return err
		}
	}
	return nil
}
