package seed

import (
	"context"
	"slices"
	"strings"
	"time"

	"github.com/uptrace/bun"

	"storeadmin/internal/base/geo"
	"storeadmin/models"
)

// shipZone is a demo shipping zone with its rates.
type shipZone struct {
	name      string
	countries []string
	rates     []shipRate
	// defaultRate names the rate a draft gets when none is chosen; empty:
	// the cheapest that matches.
	defaultRate string
}

// shipRate is a demo rate; a zero bound is no bound.
type shipRate struct {
	name                     string
	price                    int64
	minGrams, maxGrams       int64
	minSubtotal, maxSubtotal int64
}

// Countries of the demo zones. The store's own country is taken out of
// whichever lists it: it has its own zone, first.
var (
	shipEurope = []string{"AT", "BE", "BG", "HR", "CY", "CZ", "DK", "EE", "FI", "FR", "DE", "GR", "HU", "IE", "IT", "LV", "LT",
		"LU", "MT", "NL", "PL", "PT", "RO", "SK", "SI", "ES", "SE", "GB", "CH", "NO", "IS", "LI", "MC", "AD", "SM"}
	shipNorthAmerica = []string{"US", "CA", "MX", "PR"}
	shipAsiaPacific  = []string{"AU", "NZ", "JP", "KR", "CN", "HK", "TW", "SG", "MY", "TH", "PH", "ID", "VN", "IN"}
)

// shipZones are the demo zones for a store in country home, by position:
// domestic first, the rest of the world last.
func shipZones(home string) []shipZone {
	without := func(list []string) []string {
		return slices.DeleteFunc(slices.Clone(list), func(c string) bool { return c == home })
	}
	return []shipZone{
		{
			name: "Domestic", countries: []string{home},
			rates: []shipRate{
				{name: "Standard", price: 595, maxGrams: 1000},
				{name: "Standard", price: 995, minGrams: 1001, maxGrams: 5000},
				{name: "Standard (heavy)", price: 1995, minGrams: 5001},
				{name: "Free standard shipping", price: 0, minSubtotal: 7500, maxGrams: 20000},
				{name: "Express (1-2 business days)", price: 2495, maxGrams: 10000},
				{name: "Overnight", price: 4495, maxGrams: 5000},
			},
		},
		{
			name: "North America", countries: without(shipNorthAmerica),
			rates: []shipRate{
				{name: "Standard International", price: 1495, maxGrams: 2000},
				{name: "Standard International", price: 2495, minGrams: 2001, maxGrams: 10000},
				{name: "Free international shipping", price: 0, minSubtotal: 15000, maxGrams: 10000},
				{name: "Express International", price: 3995, maxGrams: 10000},
			},
		},
		{
			// Drafts default to tracked parcels, not the cheaper untracked
			// letter post.
			name: "Europe", countries: without(shipEurope), defaultRate: "Tracked",
			rates: []shipRate{
				{name: "Economy (untracked)", price: 995, maxGrams: 2000},
				{name: "Tracked", price: 1995, maxGrams: 15000},
				{name: "Free tracked shipping", price: 0, minSubtotal: 20000, maxGrams: 15000},
				{name: "DHL Express", price: 4995, maxGrams: 15000},
			},
		},
		{
			name: "Asia-Pacific", countries: without(shipAsiaPacific),
			rates: []shipRate{
				{name: "Tracked", price: 2495, maxGrams: 2000},
				{name: "Tracked", price: 4495, minGrams: 2001, maxGrams: 15000},
				{name: "Express", price: 5995, maxGrams: 15000},
			},
		},
		{
			name: "Rest of world", countries: []string{models.WorldCountry},
			rates: []shipRate{
				{name: "International Economy (10-20 business days)", price: 2995, maxGrams: 5000},
				{name: "International Express", price: 6995, maxGrams: 10000},
			},
		},
	}
}

// shipTaxRate is a demo tax rate.
type shipTaxRate struct {
	name, country, province string
	bps                     int64
}

// shipTaxRates are the demo tax rates: state sales taxes (state rates only,
// no local ones), Canada's GST with each province's PST, RST or HST share,
// VAT in Europe and GST in Asia-Pacific.
var shipTaxRates = func() []shipTaxRate {
	var out []shipTaxRate
	for _, s := range []struct {
		code string
		bps  int64
	}{
		{"AZ", 560}, {"CA", 725}, {"CO", 290}, {"FL", 600}, {"GA", 400}, {"IL", 625}, {"IN", 700}, {"MA", 625},
		{"MI", 600}, {"NC", 475}, {"NV", 685}, {"NY", 400}, {"OH", 575}, {"PA", 600}, {"TN", 700}, {"TX", 625},
		{"UT", 610}, {"VA", 530}, {"WA", 650}, {"WI", 500},
	} {
		out = append(out, shipTaxRate{s.code + " state sales tax", "US", s.code, s.bps})
	}
	out = append(out,
		shipTaxRate{"GST", "CA", "", 500},
		shipTaxRate{"BC PST", "CA", "BC", 700},
		shipTaxRate{"MB RST", "CA", "MB", 700},
		shipTaxRate{"SK PST", "CA", "SK", 600},
		shipTaxRate{"ON HST (provincial part)", "CA", "ON", 800},
		shipTaxRate{"NS HST (provincial part)", "CA", "NS", 900},
		shipTaxRate{"NB HST (provincial part)", "CA", "NB", 1000},
		shipTaxRate{"NL HST (provincial part)", "CA", "NL", 1000},
		shipTaxRate{"PE HST (provincial part)", "CA", "PE", 1000},
	)
	for _, v := range []struct {
		country string
		bps     int64
	}{
		{"AT", 2000}, {"BE", 2100}, {"BG", 2000}, {"HR", 2500}, {"CY", 1900}, {"CZ", 2100}, {"DK", 2500}, {"EE", 2400},
		{"FI", 2550}, {"FR", 2000}, {"DE", 1900}, {"GR", 2400}, {"HU", 2700}, {"IE", 2300}, {"IT", 2200}, {"LV", 2100},
		{"LT", 2100}, {"LU", 1700}, {"MT", 1800}, {"NL", 2100}, {"PL", 2300}, {"PT", 2300}, {"RO", 2100}, {"SK", 2300},
		{"SI", 2200}, {"ES", 2100}, {"SE", 2500}, {"GB", 2000}, {"NO", 2500}, {"CH", 810},
	} {
		out = append(out, shipTaxRate{v.country + " VAT", v.country, "", v.bps})
	}
	out = append(out,
		shipTaxRate{"AU GST", "AU", "", 1000},
		shipTaxRate{"NZ GST", "NZ", "", 1500},
		shipTaxRate{"JP consumption tax", "JP", "", 1000},
		shipTaxRate{"SG GST", "SG", "", 900},
	)
	return out
}()

// shippingAndTax seeds shipping zones with their rates and tax rates, and
// the tax/charge_on_shipping setting (off). Zones are seeded when the
// store has none, tax rates when it has none: an area a person started is
// left alone.
func shippingAndTax(ctx context.Context, tx bun.Tx, storeID int64, _ time.Time) error {
	if err := seedShipping(ctx, tx, storeID); err != nil {
		return err
	}
	if err := seedTax(ctx, tx, storeID); err != nil {
		return err
	}
	return putMissingSettings(ctx, tx, storeID, models.StoreSetting{StoreID: storeID,
		Namespace: models.TaxSettingNamespace, Key: models.TaxSettingChargeOnShipping, Value: false})
}

// homeCountry is the store's country by its address; US when it has none.
func homeCountry(ctx context.Context, tx bun.Tx, storeID int64) (string, error) {
	s, err := models.GetStore(ctx, tx, storeID)
	if err != nil {
		return "", err
	}
	if addr, ok := s.Address.(map[string]any); ok {
		if c, ok := addr["country"].(string); ok && geo.IsCountry(strings.ToUpper(c)) {
			return strings.ToUpper(c), nil
		}
	}
	return "US", nil
}

func seedShipping(ctx context.Context, tx bun.Tx, storeID int64) error {
	n, err := models.CountShippingZones(ctx, tx, storeID)
	if err != nil || n > 0 {
		return err
	}
	home, err := homeCountry(ctx, tx, storeID)
	if err != nil {
		return err
	}
	bound := func(v int64) *int64 {
		if v == 0 {
			return nil
		}
		return &v
	}
	for i, sz := range shipZones(home) {
		if len(sz.countries) == 0 {
			continue // the store's country was the zone's only one
		}
		z := &models.ShippingZone{StoreID: storeID, Name: sz.name, Countries: sz.countries, Position: int64(i)}
		if err := models.InsertShippingZone(ctx, tx, z); err != nil {
			return err
		}
		for j, sr := range sz.rates {
			r := &models.ShippingRate{StoreID: storeID, ZoneID: z.ID, Name: sr.name, PriceCents: sr.price, Position: int64(j),
				MinWeightGrams: bound(sr.minGrams), MaxWeightGrams: bound(sr.maxGrams),
				MinSubtotalCents: bound(sr.minSubtotal), MaxSubtotalCents: bound(sr.maxSubtotal)}
			if err := models.InsertShippingRate(ctx, tx, r); err != nil {
				return err
			}
			if sr.name == sz.defaultRate && z.DefaultRateID == nil {
				z.DefaultRateID = &r.ID
			}
		}
		if z.DefaultRateID != nil {
			if err := models.UpdateShippingZone(ctx, tx, z); err != nil {
				return err
			}
		}
	}
	return nil
}

func seedTax(ctx context.Context, tx bun.Tx, storeID int64) error {
	n, err := models.CountTaxRates(ctx, tx, storeID)
	if err != nil || n > 0 {
		return err
	}
	rates := make([]models.TaxRate, len(shipTaxRates))
	for i, r := range shipTaxRates {
		rates[i] = models.TaxRate{StoreID: storeID, Name: r.name, Country: r.country, Province: r.province, RateBps: r.bps, Position: int64(i)}
	}
	return models.InsertTaxRates(ctx, tx, rates)
}
