package seed

import (
	"context"
	"maps"
	"slices"
	"testing"
	"time"

	"github.com/uptrace/bun"

	"storeadmin/models"
)

func TestShippingAndTax(t *testing.T) {
	ctx := context.Background()
	// The demo store: in the US, by its profile.
	db, _, usID := newSeedStore(t)
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
		return tableCounts(storeCounter(t, db, storeID), "shipping_zones", "shipping_rates", "tax_rates", "store_settings")
	}

	run(usID, profile, shippingAndTax)
	first := counts(usID)
	t.Logf("counts: %v", first)
	if first["shipping_zones"] != 5 || first["shipping_rates"] < 15 || first["tax_rates"] < 50 || first["store_settings"] != 1 {
		t.Errorf("counts %v", first)
	}

	zones, err := models.ListShippingZones(ctx, db, usID, models.Paging{Limit: 250})
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
	if !slices.Equal(names, []string{"Domestic", "North America", "Europe", "Asia-Pacific", "Rest of world"}) {
		t.Errorf("zones %v", names)
	}
	if !slices.Equal(zones[0].Countries, []string{"US"}) || slices.Contains(zones[1].Countries, "US") || !slices.Equal(zones[4].Countries, []string{"*"}) {
		t.Errorf("countries: domestic %v, north america %v, world %v", zones[0].Countries, zones[1].Countries, zones[4].Countries)
	}
	if zones[0].DefaultRateID != nil || zones[2].DefaultRateID == nil || zones[1].DefaultRateID != nil {
		t.Errorf("default rates: %v %v %v", zones[0].DefaultRateID, zones[1].DefaultRateID, zones[2].DefaultRateID)
	}

	// Every destination gets rates, from its zone: weight tiers, free
	// shipping over a subtotal, express.
	for _, c := range []struct {
		country          string
		grams, subtotal  int64
		want             []string
		defaultRateIndex int
	}{
		{"US", 800, 3000, []string{"Standard", "Express (1-2 business days)", "Overnight"}, 0},
		{"US", 3000, 9000, []string{"Free standard shipping", "Standard", "Express (1-2 business days)", "Overnight"}, 0},
		{"US", 12000, 3000, []string{"Standard (heavy)"}, 0},
		{"CA", 1500, 5000, []string{"Standard International", "Express International"}, 0},
		{"fr", 1500, 25000, []string{"Free tracked shipping", "Economy (untracked)", "Tracked", "DHL Express"}, 2},
		{"DE", 3000, 5000, []string{"Tracked", "DHL Express"}, 0},
		{"JP", 3000, 5000, []string{"Tracked", "Express"}, 0},
		{"BR", 1000, 5000, []string{"International Economy (10-20 business days)", "International Express"}, 0},
	} {
		rates, err := models.MatchingShippingRates(ctx, db, usID, c.country, c.grams, c.subtotal)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, r := range rates {
			got = append(got, r.Name)
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("%s %dg %d¢: %v, want %v", c.country, c.grams, c.subtotal, got, c.want)
			continue
		}
		def, err := models.ZoneDefaultRateID(ctx, db, usID, rates[0].ZoneID)
		if err != nil {
			t.Fatal(err)
		}
		if pick := models.DefaultShippingRate(rates, def); pick.ID != rates[c.defaultRateIndex].ID {
			t.Errorf("%s: the default pick is %s, want %s", c.country, pick.Name, rates[c.defaultRateIndex].Name)
		}
	}

	// Tax: state rates, GST plus the province's share, VAT.
	taxes, err := models.ListTaxRates(ctx, db, usID, models.Paging{Limit: 250})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range taxes {
		if r.RegionWarning != nil {
			t.Errorf("tax rate %s warns: %s", r.Name, *r.RegionWarning)
		}
	}
	for _, c := range []struct {
		country, province string
		want              int64
	}{{"US", "CA", 725}, {"US", "OR", 0}, {"CA", "BC", 1200}, {"CA", "ON", 1300}, {"CA", "AB", 500}, {"DE", "", 1900}, {"FR", "", 2000}, {"AU", "NSW", 1000}} {
		bps, err := models.TaxBpsFor(ctx, db, usID, c.country, c.province)
		if err != nil {
			t.Fatal(err)
		}
		if bps != c.want {
			t.Errorf("tax %s-%s: %d bps, want %d", c.country, c.province, bps, c.want)
		}
	}
	if on, err := models.ChargeTaxOnShipping(ctx, db, usID); err != nil || on {
		t.Errorf("charge_on_shipping: %v, %v", on, err)
	}

	// A second run adds nothing.
	run(usID, shippingAndTax)
	if second := counts(usID); !maps.Equal(second, first) {
		t.Errorf("second run: %v, first %v", second, first)
	}

	// A store elsewhere gets its own country as Domestic, taken out of the
	// zone that lists it; a store whose shipping a person set up keeps it.
	de := &models.Store{Handle: "berlin", Name: "Berlin", Address: map[string]any{"country": "de"}}
	if err := models.CreateStore(ctx, db, de); err != nil {
		t.Fatal(err)
	}
	run(de.ID, shippingAndTax)
	zones, err = models.ListShippingZones(ctx, db, de.ID, models.Paging{Limit: 250})
	if err != nil {
		t.Fatal(err)
	}
	if len(zones) != 5 || !slices.Equal(zones[0].Countries, []string{"DE"}) || slices.Contains(zones[2].Countries, "DE") || !slices.Contains(zones[1].Countries, "US") {
		t.Errorf("zones of a German store: %+v", zones)
	}
	for _, z := range zones {
		if z.RegionWarning != nil {
			t.Errorf("zone %s of a German store warns: %s", z.Name, *z.RegionWarning)
		}
	}
	mine := &models.Store{Handle: "mine", Name: "Mine"}
	if err := models.CreateStore(ctx, db, mine); err != nil {
		t.Fatal(err)
	}
	if err := models.InsertShippingZone(ctx, db, &models.ShippingZone{StoreID: mine.ID, Name: "Mine", Countries: []string{"FR"}}); err != nil {
		t.Fatal(err)
	}
	run(mine.ID, shippingAndTax)
	if c := counts(mine.ID); c["shipping_zones"] != 1 || c["tax_rates"] == 0 {
		t.Errorf("a store with its own zone: %v", c)
	}
}
