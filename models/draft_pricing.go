package models

import (
	"context"
	"slices"
	"strings"
	"time"

	"github.com/uptrace/bun"

	"storeadmin/internal/base/apperr"
	"storeadmin/internal/base/pricing"
)

// A draft's money is the pricing engine's (internal/base/pricing), over what is
// stored: its lines with their products' collections, its code, the
// store's automatic discounts, its shipping rate and the tax of its
// address. RepriceDraft is the one way a draft's totals are written, by the
// API and the seed alike.

// DraftRegion is the country and province a draft ships to (else bills
// to): the address's country_code (or a two-letter country) and
// province_code.
func DraftRegion(d *DraftOrder) (country, province string) {
	for _, a := range []any{d.ShippingAddress, d.BillingAddress} {
		obj, _ := a.(map[string]any)
		country, _ = obj["country_code"].(string)
		if c, _ := obj["country"].(string); country == "" && len(c) == 2 {
			country = strings.ToUpper(c)
		}
		if country != "" {
			province, _ = obj["province_code"].(string)
			return country, province
		}
	}
	return "", ""
}

// DraftRates lists the shipping rates the draft can take now: those of the
// zone of its country whose bounds hold its weight and subtotal, cheapest
// first.
func DraftRates(ctx context.Context, db bun.IDB, d *DraftOrder, lines []DraftOrderLine) ([]ShippingRate, error) {
	country, _ := DraftRegion(d)
	return RatesFor(ctx, db, d.StoreID, country, draftPricingLines(lines))
}

// RatesFor lists the shipping rates lines shipped to country can take: those
// of the country's zone whose bounds hold the weight and subtotal of the
// lines that need shipping, cheapest first; none without a country.
func RatesFor(ctx context.Context, db bun.IDB, storeID int64, country string, lines []pricing.Line) ([]ShippingRate, error) {
	if country == "" {
		return nil, nil
	}
	var weight, subtotal int64
	for _, l := range lines {
		subtotal += l.PriceCents * l.Quantity
		if l.RequiresShipping {
			weight += l.WeightGrams * l.Quantity
		}
	}
	return MatchingShippingRates(ctx, db, storeID, country, weight, subtotal)
}

// DefaultDraftRate is the rate a draft without one gets: its zone's
// default when that matches, else the cheapest that matches; nil when none
// does.
func DefaultDraftRate(ctx context.Context, db bun.IDB, d *DraftOrder, lines []DraftOrderLine) (*ShippingRate, error) {
	rates, err := DraftRates(ctx, db, d, lines)
	if err != nil || len(rates) == 0 {
		return nil, err
	}
	def, err := ZoneDefaultRateID(ctx, db, d.StoreID, rates[0].ZoneID)
	return DefaultShippingRate(rates, def), err
}

// RepriceDraft runs the pricing engine over the draft as stored and writes
// its totals and its lines' shares. A rate that no longer matches the
// draft is dropped; a code that no longer applies stays on the draft but
// takes nothing off.
func RepriceDraft(ctx context.Context, tx bun.IDB, d *DraftOrder, lines []DraftOrderLine, now time.Time) (pricing.Result, error) {
	in, err := draftPricingInput(ctx, tx, d, lines, now)
	if err != nil {
		return pricing.Result{}, err
	}
	res := pricing.Price(in)
	d.SubtotalCents, d.DiscountCents, d.ShippingCents = res.SubtotalCents, res.DiscountCents, res.ShippingCents
	d.TaxCents, d.TotalCents, d.WeightGrams = res.TaxCents, res.TotalCents, res.WeightGrams
	d.RequiresShipping = false
	for i := range lines {
		lines[i].LineTotalCents = res.Lines[i].LineTotalCents
		lines[i].DiscountCents = res.Lines[i].DiscountCents
		d.RequiresShipping = d.RequiresShipping || lines[i].RequiresShipping
	}
	d.UpdatedAt = now
	if err := SaveDraftOrder(ctx, tx, d); err != nil {
		return res, err
	}
	return res, SaveDraftLinePricing(ctx, tx, lines)
}

// draftPricingLines are the engine's lines of a draft's lines.
func draftPricingLines(lines []DraftOrderLine) []pricing.Line {
	out := make([]pricing.Line, len(lines))
	for i, l := range lines {
		out[i] = pricing.Line{Key: l.ID, PriceCents: l.PriceCents, Quantity: l.Quantity, WeightGrams: l.WeightGrams,
			Taxable: l.Taxable, RequiresShipping: l.RequiresShipping}
		if l.ProductID != nil {
			out[i].ProductID = *l.ProductID
		}
	}
	return out
}

// draftPricingInput gathers what the engine needs for the draft, and drops
// from it a code or rate that no longer applies.
func draftPricingInput(ctx context.Context, db bun.IDB, d *DraftOrder, lines []DraftOrderLine, now time.Time) (pricing.Input, error) {
	country, province := DraftRegion(d)
	in, found, err := gatherPricing(ctx, db, PricingAsk{StoreID: d.StoreID, Lines: draftPricingLines(lines),
		Code: d.DiscountCode, RateID: d.ShippingRateID, Country: country, Province: province}, now)
	if err != nil {
		return in, err
	}
	d.DiscountID = found.DiscountID // nil when deleted or no longer active: it takes nothing off
	if d.ShippingRateID != 0 {
		d.ShippingRateID, d.ShippingTitle = 0, "" // the draft changed under it
		if found.Rate != nil {
			d.ShippingRateID, d.ShippingTitle = found.Rate.ID, found.Rate.Name
		}
	}
	return in, nil
}

// PricingAsk is what is to be priced, whoever holds it (a draft, a
// checkout): its lines, the code it carries, its chosen rate and where it
// ships (else bills) to.
type PricingAsk struct {
	StoreID int64
	// Lines with Key and ProductID set; gatherPricing fills CollectionIDs.
	Lines             []pricing.Line
	Code              string // "" for none
	RateID            int64  // 0 for none
	Country, Province string
	// Arms are the shopper's arms of running price and shipping tests
	// (the lines' prices carry the price ones already); zero for none.
	Arms MoneyArms
}

// pricingFound is what gathering found of the ask's code and rate.
type pricingFound struct {
	// DiscountID is the code's discount when it is a code active now; nil
	// otherwise (deleted or inactive: it takes nothing off).
	DiscountID *int64
	// Rate is the chosen rate when it still matches the lines; nil otherwise.
	Rate *ShippingRate
}

// gatherPricing gathers what the engine needs to price ask as of now: the
// lines' collections, the code, the store's automatic discounts, the
// chosen rate when it still matches and the tax of the region. It is the
// one way anything priced finds its discounts, shipping and tax.
func gatherPricing(ctx context.Context, db bun.IDB, ask PricingAsk, now time.Time) (pricing.Input, pricingFound, error) {
	var in pricing.Input
	var found pricingFound
	var productIDs []int64
	needsShipping := false
	for _, l := range ask.Lines {
		if l.ProductID != 0 {
			productIDs = append(productIDs, l.ProductID)
		}
		needsShipping = needsShipping || l.RequiresShipping
	}
	collections, err := CollectionIDsOf(ctx, db, ask.StoreID, productIDs)
	if err != nil {
		return in, found, err
	}
	in.Lines = make([]pricing.Line, len(ask.Lines))
	for i, l := range ask.Lines {
		if l.ProductID != 0 {
			l.CollectionIDs = collections[l.ProductID]
		}
		in.Lines[i] = l
	}
	if ask.Code != "" {
		disc, err := DiscountByCode(ctx, db, ask.StoreID, ask.Code)
		switch {
		case err == nil && disc.ActiveAt(now) && disc.Class == DiscountCode:
			pd := disc.Pricing()
			in.Code, found.DiscountID = &pd, &disc.ID
		case err == nil, apperr.CodeOf(err) == apperr.NotFound:
		default:
			return in, found, err
		}
	}
	automatic, err := AutomaticDiscounts(ctx, db, ask.StoreID, now)
	if err != nil {
		return in, found, err
	}
	for _, a := range automatic {
		in.Automatic = append(in.Automatic, a.Pricing())
	}
	if ask.RateID != 0 && needsShipping {
		rates, err := RatesFor(ctx, db, ask.StoreID, ask.Country, in.Lines)
		if err != nil {
			return in, found, err
		}
		ask.Arms.Rates(rates)
		if i := slices.IndexFunc(rates, func(r ShippingRate) bool { return r.ID == ask.RateID }); i >= 0 {
			found.Rate = &rates[i]
			in.Shipping = &pricing.Shipping{RateID: rates[i].ID, Title: rates[i].Name, PriceCents: rates[i].PriceCents}
		}
	}
	if ask.Country != "" {
		if in.TaxBps, err = TaxBpsFor(ctx, db, ask.StoreID, ask.Country, ask.Province); err != nil {
			return in, found, err
		}
		if in.TaxShipping, err = ChargeTaxOnShipping(ctx, db, ask.StoreID); err != nil {
			return in, found, err
		}
	}
	return in, found, nil
}

// UsableCode is the discount a shopper or merchant may apply by code now:
// a code (not an automatic discount), active, with uses left. The one
// check of a code entered on a draft or a checkout.
func UsableCode(ctx context.Context, db bun.IDB, storeID int64, code string, now time.Time) (*Discount, error) {
	disc, err := DiscountByCode(ctx, db, storeID, code)
	if apperr.CodeOf(err) == apperr.NotFound {
		return nil, apperr.Invalidf("no discount has the code %q", code)
	}
	if err != nil {
		return nil, err
	}
	if disc.Class != DiscountCode {
		return nil, apperr.Invalidf("%q is an automatic discount; it applies by itself", code)
	}
	if !disc.ActiveAt(now) {
		return nil, apperr.Conflictf("discount code %s is not active now", disc.Code)
	}
	if disc.UsageLimit != nil && disc.UsedCount >= *disc.UsageLimit {
		return nil, apperr.Conflictf("discount code %s has reached its usage limit of %d", disc.Code, *disc.UsageLimit)
	}
	return disc, nil
}

// Pricing is what the pricing engine needs of the discount.
func (d Discount) Pricing() pricing.Discount {
	return pricing.Discount{
		ID: d.ID, Class: d.Class, Code: d.Code, Type: d.Type, Value: d.Value, ValueType: d.ValueType,
		AppliesTo: d.AppliesTo, ProductIDs: d.ProductIDs, CollectionIDs: d.CollectionIDs,
		MinimumSubtotalCents: d.MinimumSubtotalCents, BuyQuantity: d.BuyQuantity, GetQuantity: d.GetQuantity,
		GetValue: d.GetValue, GetValueType: d.GetValueType, BuyProductIDs: d.BuyProductIDs,
		BuyCollectionIDs: d.BuyCollectionIDs, GetProductIDs: d.GetProductIDs, GetCollectionIDs: d.GetCollectionIDs,
	}
}
