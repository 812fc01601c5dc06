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
	return MatchingShippingRates(ctx, db, d.StoreID, country, weight, subtotal)
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

// draftPricingInput gathers what the engine needs.
func draftPricingInput(ctx context.Context, db bun.IDB, d *DraftOrder, lines []DraftOrderLine, now time.Time) (pricing.Input, error) {
	var in pricing.Input
	var productIDs []int64
	needsShipping := false
	for _, l := range lines {
		if l.ProductID != nil {
			productIDs = append(productIDs, *l.ProductID)
		}
		needsShipping = needsShipping || l.RequiresShipping
	}
	collections, err := CollectionIDsOf(ctx, db, d.StoreID, productIDs)
	if err != nil {
		return in, err
	}
	for _, l := range lines {
		pl := pricing.Line{Key: l.ID, PriceCents: l.PriceCents, Quantity: l.Quantity, WeightGrams: l.WeightGrams,
			Taxable: l.Taxable, RequiresShipping: l.RequiresShipping}
		if l.ProductID != nil {
			pl.ProductID, pl.CollectionIDs = *l.ProductID, collections[*l.ProductID]
		}
		in.Lines = append(in.Lines, pl)
	}
	if d.DiscountCode != "" {
		disc, err := DiscountByCode(ctx, db, d.StoreID, d.DiscountCode)
		switch {
		case err == nil && disc.ActiveAt(now) && disc.Class == DiscountCode:
			pd := disc.Pricing()
			in.Code, d.DiscountID = &pd, &disc.ID
		case err == nil, apperr.CodeOf(err) == apperr.NotFound:
			d.DiscountID = nil // deleted or no longer active: it takes nothing off
		default:
			return in, err
		}
	}
	automatic, err := AutomaticDiscounts(ctx, db, d.StoreID, now)
	if err != nil {
		return in, err
	}
	for _, a := range automatic {
		in.Automatic = append(in.Automatic, a.Pricing())
	}
	if d.ShippingRateID != 0 {
		rates, err := DraftRates(ctx, db, d, lines)
		if err != nil {
			return in, err
		}
		i := slices.IndexFunc(rates, func(r ShippingRate) bool { return r.ID == d.ShippingRateID })
		if !needsShipping || i < 0 {
			d.ShippingRateID, d.ShippingTitle = 0, "" // the draft changed under it
		} else {
			d.ShippingTitle = rates[i].Name
			in.Shipping = &pricing.Shipping{RateID: rates[i].ID, Title: rates[i].Name, PriceCents: rates[i].PriceCents}
		}
	}
	if country, province := DraftRegion(d); country != "" {
		if in.TaxBps, err = TaxBpsFor(ctx, db, d.StoreID, country, province); err != nil {
			return in, err
		}
		if in.TaxShipping, err = ChargeTaxOnShipping(ctx, db, d.StoreID); err != nil {
			return in, err
		}
	}
	return in, nil
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
