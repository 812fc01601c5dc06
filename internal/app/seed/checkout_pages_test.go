package seed

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/uptrace/bun"

	"storeadmin/models"
)

// TestCheckoutPagesAndZones: two pages, the first the default, and three
// zones (the store's country, Europe, the catch-all) routing to the
// store's funnels when it has some; a second run adds nothing.
func TestCheckoutPagesAndZones(t *testing.T) {
	ctx := context.Background()
	db, _, storeID := newSeedStore(t)
	run := func(storeID int64, fills ...func(context.Context, bun.Tx, int64, time.Time) error) {
		t.Helper()
		for _, fill := range fills {
			if err := db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error { return fill(ctx, tx, storeID, seedNow) }); err != nil {
				t.Fatal(err)
			}
		}
	}
	counts := func(storeID int64) map[string]int64 {
		t.Helper()
		return tableCounts(storeCounter(t, db, storeID), "checkout_pages", "checkout_zones", "checkout_zone_funnels")
	}

	// Without funnels the zones route nowhere yet.
	run(storeID, profile, checkoutPages, checkoutZones)
	if c := counts(storeID); c["checkout_pages"] != 2 || c["checkout_zones"] != 3 || c["checkout_zone_funnels"] != 0 {
		t.Fatalf("counts %v", c)
	}
	pages, err := models.ListCheckoutPages(ctx, db, storeID, models.Paging{Limit: 250})
	if err != nil {
		t.Fatal(err)
	}
	if len(pages) != 2 || !pages[0].IsDefault || pages[1].IsDefault || pages[0].Sections == nil {
		t.Fatalf("pages %+v", pages)
	}

	// A store whose funnels another area made routes to them.
	other := &models.Store{Handle: "funnel-outfitters", Name: "Funnel Outfitters"}
	if err := models.CreateStore(ctx, db, other); err != nil {
		t.Fatal(err)
	}
	var funnels []int64
	for _, name := range []string{"Summer upsell", "Bundle builder", "Accessories", "Warranty"} {
		var id int64
		if err := db.QueryRowContext(ctx, `INSERT INTO upsell_funnels (store_id, name, timeout_seconds) VALUES (?, ?, 600) RETURNING id`,
			other.ID, name).Scan(&id); err != nil {
			t.Fatal(err)
		}
		funnels = append(funnels, id)
	}
	run(other.ID, profile, checkoutPages, checkoutZones)
	first := counts(other.ID)
	zones, err := models.ListCheckoutZones(ctx, db, other.ID, models.Paging{Limit: 250})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, z := range zones {
		names = append(names, z.Name)
		if z.RegionWarning != nil {
			t.Errorf("zone %s warns: %s", z.Name, *z.RegionWarning)
		}
	}
	if !slices.Equal(names, []string{"Domestic", "Europe", "Rest of world"}) || !zones[2].CatchAll || len(zones[2].Countries) != 0 {
		t.Fatalf("zones %+v", zones)
	}
	for _, c := range []struct {
		country string
		zone    string
		funnels []int64
	}{
		{"US", "Domestic", []int64{funnels[0], funnels[1]}},
		{"FR", "Europe", []int64{funnels[1], funnels[2]}}, // the third is switched off
		{"BR", "Rest of world", []int64{funnels[3]}},
	} {
		r, err := models.CheckoutZoneFor(ctx, db, other.ID, c.country)
		if err != nil || r == nil {
			t.Fatalf("%s: %v, %v", c.country, r, err)
		}
		var got []int64
		for _, f := range r.Funnels {
			got = append(got, f.FunnelID)
		}
		if r.Zone.Name != c.zone || !slices.Equal(got, c.funnels) {
			t.Errorf("%s routes to %s %v, want %s %v", c.country, r.Zone.Name, got, c.zone, c.funnels)
		}
	}

	run(other.ID, checkoutPages, checkoutZones)
	expectSameCounts(t, first, counts(other.ID))
}
