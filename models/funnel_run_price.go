package models

import (
	"context"
	"strconv"
	"strings"
	"time"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/pgdialect"

	"storeadmin/internal/base/apperr"
	"storeadmin/internal/base/pricing"
)

// OfferPrice is the unit price of an offer of a variant at price: less
// the offer's discount (percent off, rounded half up, or a fixed amount
// off each item), never below 0.
func OfferPrice(price int64, d *OfferDiscount) int64 {
	if d == nil {
		return price
	}
	switch d.Type {
	case OfferPercentage:
		return max(0, price-(price*d.Value+50)/100)
	case OfferFixedAmount:
		return max(0, price-d.Value)
	}
	return price
}

// repriceUpsellOrder prices order o again over lines, all its lines (an
// accepted offer's new line among them, at its offer price), through the
// pricing engine and the gathering checkouts use (gatherPricing): the
// order's code and the store's automatic discounts as they stood when the
// order was placed (a code that ended since still counts), its shipping
// rate when it still matches (else the shipping it was charged), the tax
// of its region and the handling surcharge of funnel funnelID (its
// override, else the store's; the platform p allowing). The tip stays the
// amount the shopper chose at checkout: an offer accepted after paying
// does not raise it. It writes the order's totals and each line's share
// of the discount and tax (ShareTotals' rule).
func repriceUpsellOrder(ctx context.Context, tx bun.IDB, o *Order, lines []OrderLineItem, funnelID *int64, p Platform, now time.Time) error {
	var ids []int64
	for _, l := range lines {
		if l.VariantID != nil {
			ids = append(ids, *l.VariantID)
		}
	}
	variants, err := CatalogueVariants(ctx, tx, o.StoreID, ids)
	if err != nil {
		return err
	}
	pl := make([]pricing.Line, len(lines))
	for i, l := range lines {
		pl[i] = pricing.Line{Key: int64(i), PriceCents: l.PriceCents, Quantity: l.Quantity, Taxable: true, RequiresShipping: l.RequiresShipping}
		if l.ProductID != nil {
			pl[i].ProductID = *l.ProductID
		}
		if l.VariantID != nil {
			if v, ok := variants[*l.VariantID]; ok {
				pl[i].WeightGrams, pl[i].Taxable = v.WeightGrams, v.Taxable
			}
		}
	}
	country, province := DraftRegion(&DraftOrder{ShippingAddress: o.ShippingAddress, BillingAddress: o.BillingAddress})
	ask := PricingAsk{StoreID: o.StoreID, Lines: pl, Code: o.DiscountCode, Country: country, Province: province}
	shipping, _ := o.ShippingLine.(map[string]any)
	if code, _ := shipping["code"].(string); strings.HasPrefix(code, "rate-") {
		ask.RateID, _ = strconv.ParseInt(strings.TrimPrefix(code, "rate-"), 10, 64)
	}
	// The discounts as they stood when the order was paid: a code that
	// ended since must not take back what the shopper was given.
	in, found, err := gatherPricing(ctx, tx, ask, o.CreatedAt)
	if err != nil {
		return err
	}
	if found.Rate == nil && o.ShippingCents > 0 { // the rate changed since: keep what the shipping cost
		title, _ := shipping["title"].(string)
		in.Shipping = &pricing.Shipping{RateID: ask.RateID, Title: title, PriceCents: o.ShippingCents}
	}
	pp15, _, err := EffectiveFees(ctx, tx, o.StoreID, funnelID)
	if apperr.CodeOf(err) == apperr.NotFound { // the funnel was deleted meanwhile: the store's
		pp15, _, err = EffectiveFees(ctx, tx, o.StoreID, nil)
	}
	if err != nil {
		return err
	}
	in.Surcharge, in.Tip = pp15.PricingSurcharge(p), pricing.Tip{AmountCents: o.TipCents}
	res := pricing.Price(in)
	o.SubtotalCents, o.DiscountCents, o.ShippingCents, o.TaxCents = res.SubtotalCents, res.DiscountCents, res.ShippingCents, res.TaxCents
	o.SurchargeCents, o.TipCents, o.TotalCents = res.SurchargeCents, res.TipCents, min(res.TotalCents, pricing.MaxCents)
	if shipping != nil {
		shipping["price_cents"] = res.ShippingCents
	}
	for i := range lines {
		lines[i].DiscountCents, lines[i].TaxCents = res.Lines[i].DiscountCents, res.Lines[i].TaxCents
	}
	ShareTotals(o, lines)
	_, err = tx.NewUpdate().Model(o).Column("subtotal_cents", "discount_cents", "shipping_cents", "tax_cents", "tip_cents",
		"surcharge_cents", "total_cents", "shipping_line", "system_tags").Set("updated_at = ?", now).
		Where("store_id = ? AND id = ?", o.StoreID, o.ID).Exec(ctx)
	if err != nil {
		return err
	}
	lineIDs, discounts, taxes := make([]int64, len(lines)), make([]int64, len(lines)), make([]int64, len(lines))
	for i, l := range lines {
		lineIDs[i], discounts[i], taxes[i] = l.ID, l.DiscountCents, l.TaxCents
	}
	_, err = tx.NewRaw(`UPDATE order_line_items AS li SET discount_cents = v.discount, tax_cents = v.tax
		FROM unnest(?::bigint[], ?::bigint[], ?::bigint[]) AS v(id, discount, tax)
		WHERE li.store_id = ? AND li.order_id = ? AND li.id = v.id AND (li.discount_cents, li.tax_cents) IS DISTINCT FROM (v.discount, v.tax)`,
		pgdialect.Array(lineIDs), pgdialect.Array(discounts), pgdialect.Array(taxes), o.StoreID, o.ID).Exec(ctx)
	return err
}
