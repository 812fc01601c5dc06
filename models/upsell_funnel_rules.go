package models

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/pgdialect"

	"storeadmin/internal/base/apperr"
)

// The rules of an upsell funnel, which every writer (the API, the seed)
// goes through SaveUpsellFunnel for: its fields' bounds, its steps as a
// graph, and their offers against the catalogue.

// Step types: what a step offers, relative to what was bought. The type
// tells the storefront's page how to word the offer; the run-time treats
// them alike.
const (
	// StepUpsell offers more of, or a better version of, what was bought.
	StepUpsell = "upsell"
	// StepDownsell offers something cheaper, usually after a decline.
	StepDownsell = "downsell"
	// StepCrossSell offers something that goes with what was bought.
	StepCrossSell = "cross_sell"
)

// FunnelStepTypes lists the step types.
var FunnelStepTypes = []string{StepUpsell, StepDownsell, StepCrossSell}

// Discount types of an offer.
const (
	OfferPercentage  = "percentage"
	OfferFixedAmount = "fixed_amount"
)

// Bounds of a funnel.
const (
	// MaxFunnelSteps bounds a funnel's steps: a shopper sees at most this
	// many offers after paying.
	MaxFunnelSteps = 10
	// MinFunnelTimeout and MaxFunnelTimeout bound timeout_seconds, how
	// long a run waits for the shopper before the authorization is
	// captured: a minute to a day (authorizations outlive a day).
	MinFunnelTimeout = 60
	MaxFunnelTimeout = 86_400
	// DefaultFunnelTimeout is the timeout of a funnel created without one.
	DefaultFunnelTimeout = 900
	// MaxOfferQuantity bounds the quantity an offer adds.
	MaxOfferQuantity = 100
	// MaxUpsellPageBytes bounds an upsell page design, as JSON.
	MaxUpsellPageBytes = 64 << 10
	// maxFunnelName bounds a funnel's and a step's name, in characters.
	maxFunnelName = 255
)

// ParseFunnelOffer reads a step's config as a client sent it (field names
// it in errors, e.g. offers[1].config): an object with product_id or
// variant_id (or both), quantity (1 to MaxOfferQuantity, 1 when left out)
// and discount (null, or {"type": "percentage" | "fixed_amount",
// "value"}). available and unavailable_reason, which the view adds, are
// ignored, so a step read can be sent back.
func ParseFunnelOffer(field string, v any) (FunnelOffer, error) {
	var o FunnelOffer
	m, ok := v.(map[string]any)
	if !ok {
		return o, apperr.InvalidField(field, `must be an object such as {"product_id": 12, "quantity": 1, "discount": {"type": "percentage", "value": 20}}`)
	}
	for k := range m {
		switch k {
		case "product_id", "variant_id", "quantity", "discount", "available", "unavailable_reason":
		default:
			return o, apperr.InvalidField(field+"."+k, "is not a field of an offer; it has product_id, variant_id, quantity and discount")
		}
	}
	var productID, variantID *int64
	for _, f := range []struct {
		name string
		out  **int64
	}{{"product_id", &productID}, {"variant_id", &variantID}} {
		if raw := m[f.name]; raw != nil {
			n, ok := wholeJSON(raw)
			if !ok || n < 1 {
				return o, apperr.InvalidField(field+"."+f.name, "must be the id of a record, a whole number from 1")
			}
			*f.out = &n
		}
	}
	if productID == nil && variantID == nil {
		return o, apperr.InvalidField(field, "must name what it offers: product_id, variant_id, or both")
	}
	if productID != nil {
		o.ProductID = *productID
	}
	o.VariantID = variantID
	o.Quantity = 1
	if raw := m["quantity"]; raw != nil {
		n, ok := wholeJSON(raw)
		if !ok || n < 1 || n > MaxOfferQuantity {
			return o, apperr.InvalidField(field+".quantity", "must be a whole number from 1 to %d", MaxOfferQuantity)
		}
		o.Quantity = n
	}
	if raw := m["discount"]; raw != nil {
		d, err := parseOfferDiscount(field+".discount", raw)
		if err != nil {
			return o, err
		}
		o.Discount = d
	}
	return o, nil
}

func parseOfferDiscount(field string, v any) (*OfferDiscount, error) {
	m, ok := v.(map[string]any)
	if !ok {
		return nil, apperr.InvalidField(field, `must be null or an object such as {"type": "percentage", "value": 20}`)
	}
	for k := range m {
		if k != "type" && k != "value" {
			return nil, apperr.InvalidField(field+"."+k, "is not a field of a discount; it has type and value")
		}
	}
	t, _ := m["type"].(string)
	if t != OfferPercentage && t != OfferFixedAmount {
		return nil, apperr.InvalidField(field+".type", "must be %s or %s", OfferPercentage, OfferFixedAmount)
	}
	n, ok := wholeJSON(m["value"])
	if !ok || n < 0 {
		return nil, apperr.InvalidField(field+".value", "must be a whole number, 0 or more (percent for percentage, minor units for fixed_amount)")
	}
	if t == OfferPercentage && n > 100 {
		return nil, apperr.InvalidField(field+".value", "must be between 0 and 100 for a percentage, not %d", n)
	}
	return &OfferDiscount{Type: t, Value: n}, nil
}

// CheckUpsellPage checks a design (the funnel's, or a step's): a JSON
// object of at most MaxUpsellPageBytes.
func CheckUpsellPage(v any) (map[string]any, error) {
	m, ok := v.(map[string]any)
	if !ok {
		return nil, apperr.Invalidf("an upsell page must be a JSON object")
	}
	b, err := json.Marshal(m)
	if err != nil {
		return nil, apperr.Invalidf("an upsell page must be JSON")
	}
	if len(b) > MaxUpsellPageBytes {
		return nil, apperr.Invalidf("an upsell page must be at most %d bytes of JSON, not %d", MaxUpsellPageBytes, len(b))
	}
	return m, nil
}

// checkFunnel checks a funnel's own fields and its steps as a graph, and
// trims the names. Steps come in the order the client sent them (field
// names offers[i]); on success they are sorted by position.
func checkFunnel(f *UpsellFunnel, steps []FunnelStep) error {
	f.Name = strings.TrimSpace(f.Name)
	if n := utf8.RuneCountInString(f.Name); n == 0 || n > maxFunnelName {
		return apperr.InvalidField("name", "must be 1 to %d characters", maxFunnelName)
	}
	if f.TimeoutSeconds < MinFunnelTimeout || f.TimeoutSeconds > MaxFunnelTimeout {
		return apperr.InvalidField("timeout_seconds", "must be between %d (a minute) and %d (a day), not %d", MinFunnelTimeout, MaxFunnelTimeout, f.TimeoutSeconds)
	}
	if len(steps) == 0 || len(steps) > MaxFunnelSteps {
		return apperr.InvalidField("offers", "must hold 1 to %d steps, not %d", MaxFunnelSteps, len(steps))
	}
	// Positions: each step one of 1..n, none twice, so all of them.
	at := make([]int, len(steps)+1) // position → index in steps, +1
	for i := range steps {
		s := &steps[i]
		field := fmt.Sprintf("offers[%d]", i)
		s.Name = strings.TrimSpace(s.Name)
		if n := utf8.RuneCountInString(s.Name); n == 0 || n > maxFunnelName {
			return apperr.InvalidField(field+".name", "must be 1 to %d characters", maxFunnelName)
		}
		if !slices.Contains(FunnelStepTypes, s.Type) {
			return apperr.InvalidField(field+".type", "must be one of %s, not %q", strings.Join(FunnelStepTypes, ", "), s.Type)
		}
		if s.Position < 1 || s.Position > int64(len(steps)) {
			return apperr.InvalidField(field+".position", "must be between 1 and %d: the %d steps take the positions 1 to %d, one each, not %d",
				len(steps), len(steps), len(steps), s.Position)
		}
		if j := at[s.Position]; j != 0 {
			return apperr.InvalidField(field+".position", "is %d, which offers[%d] has too: each step has a position of its own", s.Position, j-1)
		}
		at[s.Position] = i + 1
	}
	// Branches go forward, to an existing position, or end the funnel:
	// no cycle is possible, and each step is reached from an earlier one.
	reached := make([]bool, len(steps)+1)
	reached[1] = true
	for p := 1; p <= len(steps); p++ {
		i := at[p] - 1
		s := &steps[i]
		field := fmt.Sprintf("offers[%d]", i)
		if !reached[p] {
			return apperr.InvalidField(field, "(position %d) cannot be reached: no earlier step's accept_next_position or decline_next_position leads to it", p)
		}
		for _, b := range []struct {
			name string
			to   *int64
		}{{"accept_next_position", s.AcceptNextPosition}, {"decline_next_position", s.DeclineNextPosition}} {
			if b.to == nil {
				continue
			}
			switch {
			case *b.to <= int64(p):
				return apperr.InvalidField(field+"."+b.name, "is %d, not after the step's own position %d: branches only go forward (null ends the funnel)", *b.to, p)
			case *b.to > int64(len(steps)):
				return apperr.InvalidField(field+"."+b.name, "is %d, but the funnel has no step at that position (its last is %d; null ends the funnel)", *b.to, len(steps))
			}
			reached[*b.to] = true
		}
	}
	slices.SortFunc(steps, func(a, b FunnelStep) int { return int(a.Position - b.Position) })
	return nil
}

// offerCheck is what the catalogue says of one offer.
type offerCheck struct {
	Step int64 `bun:"step"`
	// ProductID is the offered product when the store has it; a variant
	// offer that did not name its product offers the variant's.
	ProductID *int64 `bun:"product_id"`
	// VariantProduct is the product of the offered variant when the store
	// has the variant.
	VariantProduct *int64 `bun:"variant_product"`
	// MinPrice is the lowest price of what the offer may sell: the
	// variant's, or the product's cheapest variant's.
	MinPrice *int64 `bun:"min_price"`
}

// checkOffers checks each step's offer against the store's catalogue in
// one statement: the product is the store's, the variant is the store's
// and the product's (and names the product when the offer did not), and
// a fixed amount off is at most the price. Steps must be sorted by
// position; index says which offers[i] the client sent each as.
func checkOffers(ctx context.Context, db bun.IDB, storeID int64, steps []FunnelStep, index map[int64]int) error {
	n := len(steps)
	products, variants := make([]int64, n), make([]int64, n)
	for i, s := range steps {
		products[i] = s.Offer.ProductID
		if s.Offer.VariantID != nil {
			variants[i] = *s.Offer.VariantID
		}
	}
	var rows []offerCheck
	err := db.NewRaw(`SELECT o.step, p.id AS product_id, v.product_id AS variant_product,
			CASE WHEN o.variant = 0 THEN (SELECT min(pv.price_cents) FROM product_variants pv WHERE pv.product_id = p.id)
				ELSE v.price_cents END AS min_price
		FROM unnest(?::bigint[], ?::bigint[]) WITH ORDINALITY AS o(product, variant, step)
		LEFT JOIN product_variants v ON v.store_id = ? AND v.id = o.variant
		LEFT JOIN products p ON p.store_id = ? AND p.id = CASE WHEN o.product = 0 THEN v.product_id ELSE o.product END
		ORDER BY o.step`, pgdialect.Array(products), pgdialect.Array(variants), storeID, storeID).Scan(ctx, &rows)
	if err != nil {
		return err
	}
	for i, r := range rows {
		s := &steps[i]
		field := fmt.Sprintf("offers[%d].config", index[s.Position])
		o := &s.Offer
		switch {
		case o.VariantID != nil && r.VariantProduct == nil:
			return apperr.InvalidField(field+".variant_id", "names no variant of this store: %d", *o.VariantID)
		case r.ProductID == nil:
			return apperr.InvalidField(field+".product_id", "names no product of this store: %d", o.ProductID)
		case o.VariantID != nil && *r.VariantProduct != *r.ProductID:
			return apperr.InvalidField(field+".variant_id", "is variant %d of product %d, not of product %d", *o.VariantID, *r.VariantProduct, *r.ProductID)
		}
		o.ProductID = *r.ProductID
		if d := o.Discount; d != nil && d.Type == OfferFixedAmount && r.MinPrice != nil && d.Value > *r.MinPrice {
			return apperr.InvalidField(field+".discount.value", "is %d, more than the price it comes off (%d): a fixed amount off is at most the price",
				d.Value, *r.MinPrice)
		}
	}
	return nil
}

// SaveUpsellFunnel checks f and its steps (in the order the client sent
// them) and stores them: a new funnel when f.ID is 0, else the store's
// funnel f.ID (which the caller read with LockUpsellFunnel), whose steps
// the new ones replace.
// A step keeps its id, and its own upsell page, when a step stays at its
// position; the steps past the new last position go. pp15, tipping and
// the funnel's upsell page are not written. f.CheckoutPageID must name a
// page of the store (or be nil). Run it in a transaction: it writes
// several statements.
func SaveUpsellFunnel(ctx context.Context, tx bun.IDB, f *UpsellFunnel, steps []FunnelStep) error {
	index := make(map[int64]int, len(steps)) // position → offers[i]
	for i, s := range steps {
		index[s.Position] = i
	}
	if err := checkFunnel(f, steps); err != nil {
		return err
	}
	if err := checkOffers(ctx, tx, f.StoreID, steps, index); err != nil {
		return err
	}
	if f.CheckoutPageID != nil {
		ok, err := tx.NewSelect().Model((*CheckoutPage)(nil)).Where("store_id = ? AND id = ?", f.StoreID, *f.CheckoutPageID).Exists(ctx)
		if err != nil {
			return err
		}
		if !ok {
			return apperr.InvalidField("checkout_page_id", "names no checkout page of this store: %d", *f.CheckoutPageID)
		}
	}
	if f.ID == 0 {
		f.UpsellPage = nil // the column's default, {}, read back
		if _, err := tx.NewInsert().Model(f).ExcludeColumn("upsell_page", "pp15", "tipping").
			Returning("id, upsell_page, created_at, updated_at").Exec(ctx); err != nil {
			return classify(err, "the upsell funnel")
		}
	} else {
		if _, err := tx.NewUpdate().Model(f).Column("name", "enabled", "timeout_seconds", "checkout_page_id").Set("updated_at = now()").
			Where("store_id = ? AND id = ?", f.StoreID, f.ID).Returning("updated_at").Exec(ctx); err != nil {
			return classify(err, "the upsell funnel")
		}
	}
	for i := range steps {
		steps[i].StoreID, steps[i].FunnelID = f.StoreID, f.ID
	}
	if _, err := tx.NewDelete().Model((*FunnelStep)(nil)).Where("funnel_id = ? AND position > ?", f.ID, len(steps)).Exec(ctx); err != nil {
		return err
	}
	_, err := tx.NewInsert().Model(&steps).ExcludeColumn("upsell_page").
		On("CONFLICT (funnel_id, position) DO UPDATE").
		Set("name = EXCLUDED.name, type = EXCLUDED.type, config = EXCLUDED.config").
		Set("accept_next_position = EXCLUDED.accept_next_position, decline_next_position = EXCLUDED.decline_next_position").
		Returning("id").Exec(ctx)
	return classify(err, "the funnel step")
}
