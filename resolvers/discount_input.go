package resolvers

import (
	"context"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/uptrace/bun"

	"storeadmin/graph"
	"storeadmin/internal/base/apperr"
	"storeadmin/models"
)

// Bounds of a discount's numbers and lists: far above any real offer, well
// inside the columns.
const (
	maxDiscountCents    = 100_000_000_000
	maxDiscountQuantity = 100_000
	maxDiscountTargets  = 500
)

// discountCodeRe is what a code shoppers type may hold: ASCII letters,
// digits, - and _, so that it reads the same in any case and any font.
var discountCodeRe = regexp.MustCompile(`^[A-Za-z0-9_-]{1,255}$`)

// newDiscount is a discount of the store with the defaults of a create.
func newDiscount(storeID int64) *models.Discount {
	return &models.Discount{
		StoreID: storeID, Class: models.DiscountCode, ValueType: models.DiscountPercentage, AppliesTo: models.AppliesToAll,
		Enabled: true, GetValueType: models.DiscountPercentage,
		ProductIDs: []int64{}, CollectionIDs: []int64{}, BuyProductIDs: []int64{}, BuyCollectionIDs: []int64{},
		GetProductIDs: []int64{}, GetCollectionIDs: []int64{},
	}
}

// discountValueType is the value_type a type takes: fixed_amount for
// fixed_amount, percentage for the others (free_shipping and buy_x_get_y
// carry no value of their own).
func discountValueType(typ string) string {
	if typ == models.DiscountFixedAmount {
		return models.DiscountFixedAmount
	}
	return models.DiscountPercentage
}

// applyDiscountInput merges in onto d (the stored discount, or newDiscount
// on create) and checks the result as a whole, so that create and update
// obey the same rules. nulls names the fields sent as null: starts_at,
// ends_at, usage_limit and per_customer_limit are cleared by one.
//
// Fields that do not apply to the discount's type or applies_to are reset
// when left out (so that changing the type needs no clean-up) and refused
// when sent with a value. Ids are checked against the store by
// checkDiscountTargets, uniqueness of the code by saveDiscount.
func applyDiscountInput(d *models.Discount, in graph.DiscountInput, nulls map[string]bool, create bool) error {
	var err error
	if create && in.Type == nil {
		return apperr.Invalidf("type is required: one of %s", strings.Join(models.DiscountTypes, ", "))
	}
	if in.Type != nil {
		if d.Type, err = oneOf("type", *in.Type, models.DiscountTypes...); err != nil {
			return err
		}
	}
	if in.Class != nil {
		if d.Class, err = oneOf("class", *in.Class, models.DiscountClasses...); err != nil {
			return err
		}
	}
	if in.Code != nil {
		d.Code = *in.Code
	}
	if err := checkDiscountCode(d); err != nil {
		return err
	}

	// Plain fields.
	for _, f := range []struct {
		in  *int64
		out *int64
	}{
		{in.Value, &d.Value}, {in.MinimumSubtotalCents, &d.MinimumSubtotalCents}, {in.BuyQuantity, &d.BuyQuantity},
		{in.GetQuantity, &d.GetQuantity}, {in.GetValue, &d.GetValue},
	} {
		if f.in != nil {
			*f.out = *f.in
		}
	}
	for _, f := range []struct {
		in  *bool
		out *bool
	}{{in.Enabled, &d.Enabled}, {in.OncePerCustomer, &d.OncePerCustomer}} {
		if f.in != nil {
			*f.out = *f.in
		}
	}
	for _, f := range []struct {
		name string
		in   *int64
		out  **int64
	}{{"usage_limit", in.UsageLimit, &d.UsageLimit}, {"per_customer_limit", in.PerCustomerLimit, &d.PerCustomerLimit}} {
		switch {
		case f.in != nil:
			v := *f.in
			*f.out = &v
		case nulls[f.name]:
			*f.out = nil
		}
	}
	if in.StartsAt != nil || nulls["starts_at"] {
		d.StartsAt = in.StartsAt
	}
	if in.EndsAt != nil || nulls["ends_at"] {
		d.EndsAt = in.EndsAt
	}
	if in.AppliesTo != nil {
		if d.AppliesTo, err = oneOf("applies_to", *in.AppliesTo, models.DiscountAppliesTo...); err != nil {
			return err
		}
	}
	if in.GetValueType != nil {
		if d.GetValueType, err = oneOf("get_value_type", *in.GetValueType, models.DiscountValueTypes...); err != nil {
			return err
		}
	}
	for _, l := range []struct {
		name string
		in   []int64
		out  *[]int64
	}{
		{"product_ids", in.ProductIds, &d.ProductIDs}, {"collection_ids", in.CollectionIds, &d.CollectionIDs},
		{"buy_product_ids", in.BuyProductIds, &d.BuyProductIDs}, {"buy_collection_ids", in.BuyCollectionIds, &d.BuyCollectionIDs},
		{"get_product_ids", in.GetProductIds, &d.GetProductIDs}, {"get_collection_ids", in.GetCollectionIds, &d.GetCollectionIDs},
	} {
		if l.in == nil {
			continue
		}
		ids := distinctIDs(l.in)
		if len(ids) > maxDiscountTargets {
			return apperr.Invalidf("%s may list at most %d ids", l.name, maxDiscountTargets)
		}
		slices.Sort(ids)
		*l.out = ids
	}

	// value_type follows the type.
	want := discountValueType(d.Type)
	if in.ValueType != nil {
		if _, err := oneOf("value_type", *in.ValueType, models.DiscountValueTypes...); err != nil {
			return err
		}
		if *in.ValueType != want {
			return apperr.Invalidf("value_type must be %s for a %s discount, not %q", want, d.Type, *in.ValueType)
		}
	}
	d.ValueType = want

	if err := checkDiscountType(d, in); err != nil {
		return err
	}
	if err := checkDiscountTargets(d, in); err != nil {
		return err
	}
	return checkDiscountLimits(d)
}

// checkDiscountCode checks d.Code by class: a code shoppers type is 1 to
// 255 letters, digits, - and _, kept as sent; an automatic discount's code
// is its title, any text of 1 to 255 characters, trimmed.
func checkDiscountCode(d *models.Discount) error {
	if d.Class == models.DiscountAutomatic {
		title, err := text("code", d.Code, 255, true)
		if err != nil {
			return apperr.Invalidf("code (the title of an automatic discount): %s", strings.TrimPrefix(err.Error(), "code "))
		}
		d.Code = title
		return nil
	}
	if !discountCodeRe.MatchString(d.Code) {
		if d.Code == "" {
			return apperr.Invalidf("code must not be empty")
		}
		return apperr.Invalidf("code must be 1 to 255 characters, each a letter A-Z, a digit, - or _, not %q", d.Code)
	}
	return nil
}

// checkDiscountType checks the amounts of d's type, resetting those of
// other types that in left out.
func checkDiscountType(d *models.Discount, in graph.DiscountInput) error {
	bxgy := d.Type == models.DiscountBuyXGetY
	switch d.Type {
	case models.DiscountPercentage:
		if d.Value < 1 || d.Value > 100 {
			return apperr.Invalidf("value must be between 1 and 100 (whole percent) for a percentage discount, not %d", d.Value)
		}
	case models.DiscountFixedAmount:
		if d.Value < 1 || d.Value > maxDiscountCents {
			return apperr.Invalidf("value must be between 1 and %d (minor units) for a fixed_amount discount, not %d", int64(maxDiscountCents), d.Value)
		}
	default: // free_shipping, buy_x_get_y: no value of their own, and for all lines
		if err := resetOrRefuse("value", in.Value != nil && *in.Value != 0, &d.Value, 0, "must be 0 for a "+d.Type+" discount"); err != nil {
			return err
		}
		if err := resetOrRefuse("applies_to", in.AppliesTo != nil && *in.AppliesTo != models.AppliesToAll, &d.AppliesTo, models.AppliesToAll,
			"must be all for a "+d.Type+" discount"); err != nil {
			return err
		}
	}
	if !bxgy {
		only := "applies only to buy_x_get_y discounts"
		for _, f := range []struct {
			name string
			sent bool
			out  *int64
		}{
			{"buy_quantity", in.BuyQuantity != nil && *in.BuyQuantity != 0, &d.BuyQuantity},
			{"get_quantity", in.GetQuantity != nil && *in.GetQuantity != 0, &d.GetQuantity},
			{"get_value", in.GetValue != nil && *in.GetValue != 0, &d.GetValue},
		} {
			if err := resetOrRefuse(f.name, f.sent, f.out, 0, only); err != nil {
				return err
			}
		}
		if err := resetOrRefuse("get_value_type", in.GetValueType != nil && *in.GetValueType != models.DiscountPercentage, &d.GetValueType,
			models.DiscountPercentage, only); err != nil {
			return err
		}
		for _, l := range []struct {
			name string
			in   []int64
			out  *[]int64
		}{
			{"buy_product_ids", in.BuyProductIds, &d.BuyProductIDs}, {"buy_collection_ids", in.BuyCollectionIds, &d.BuyCollectionIDs},
			{"get_product_ids", in.GetProductIds, &d.GetProductIDs}, {"get_collection_ids", in.GetCollectionIds, &d.GetCollectionIDs},
		} {
			if err := resetOrRefuse(l.name, len(l.in) > 0, l.out, []int64{}, only); err != nil {
				return err
			}
		}
		return nil
	}
	if d.BuyQuantity < 1 || d.BuyQuantity > maxDiscountQuantity {
		return apperr.Invalidf("buy_quantity must be between 1 and %d for a buy_x_get_y discount, not %d", maxDiscountQuantity, d.BuyQuantity)
	}
	if d.GetQuantity < 1 || d.GetQuantity > maxDiscountQuantity {
		return apperr.Invalidf("get_quantity must be between 1 and %d for a buy_x_get_y discount, not %d", maxDiscountQuantity, d.GetQuantity)
	}
	if d.GetValueType == models.DiscountPercentage && (d.GetValue < 1 || d.GetValue > 100) {
		return apperr.Invalidf("get_value must be between 1 and 100 (percent off each get unit, 100 = free) when get_value_type is percentage, not %d", d.GetValue)
	}
	if d.GetValueType == models.DiscountFixedAmount && (d.GetValue < 1 || d.GetValue > maxDiscountCents) {
		return apperr.Invalidf("get_value must be between 1 and %d (minor units off each get unit) when get_value_type is fixed_amount, not %d",
			int64(maxDiscountCents), d.GetValue)
	}
	return nil
}

// resetOrRefuse handles a field that does not apply: sent with a value, it
// is a 400 (field, then why); left out, it takes its neutral value.
func resetOrRefuse[T any](field string, sent bool, out *T, neutral T, why string) error {
	if sent {
		return apperr.Invalidf("%s %s", field, why)
	}
	*out = neutral
	return nil
}

// checkDiscountTargets checks product_ids and collection_ids against
// applies_to: the list applies_to names must name something; the other
// list is refused when sent, emptied when left out.
func checkDiscountTargets(d *models.Discount, in graph.DiscountInput) error {
	for _, t := range []struct {
		field, noun, appliesTo string
		in                     []int64
		ids                    *[]int64
	}{
		{"product_ids", "product", models.AppliesToProducts, in.ProductIds, &d.ProductIDs},
		{"collection_ids", "collection", models.AppliesToCollections, in.CollectionIds, &d.CollectionIDs},
	} {
		if d.AppliesTo != t.appliesTo {
			if err := resetOrRefuse(t.field, len(t.in) > 0, t.ids, []int64{}, "applies only when applies_to is "+t.appliesTo); err != nil {
				return err
			}
			continue
		}
		if len(*t.ids) == 0 {
			return apperr.Invalidf("%s must name at least one %s when applies_to is %s", t.field, t.noun, t.appliesTo)
		}
	}
	return nil
}

// checkDiscountLimits checks the subtotal, the window and the usage
// limits.
func checkDiscountLimits(d *models.Discount) error {
	if d.MinimumSubtotalCents < 0 || d.MinimumSubtotalCents > maxDiscountCents {
		return apperr.Invalidf("minimum_subtotal_cents must be between 0 and %d, not %d", int64(maxDiscountCents), d.MinimumSubtotalCents)
	}
	if d.StartsAt != nil && d.EndsAt != nil && !d.EndsAt.After(*d.StartsAt) {
		return apperr.Invalidf("ends_at must be after starts_at")
	}
	if d.UsageLimit != nil && *d.UsageLimit < 1 {
		return apperr.Invalidf("usage_limit must be at least 1, or null for no limit")
	}
	if d.PerCustomerLimit != nil && *d.PerCustomerLimit < 1 {
		return apperr.Invalidf("per_customer_limit must be at least 1, or null for no limit")
	}
	if d.OncePerCustomer && d.PerCustomerLimit != nil && *d.PerCustomerLimit > 1 {
		return apperr.Invalidf("once_per_customer allows one use per customer, per_customer_limit %d: send one of them (per_customer_limit null)",
			*d.PerCustomerLimit)
	}
	return nil
}

// checkDiscountRefs checks, inside the write's transaction, that the id
// lists in sent name products and collections of the store (lists left out
// keep what is stored, unchecked: a product deleted since simply stops
// matching), and that no other discount has the code in any case.
func checkDiscountRefs(ctx context.Context, tx bun.IDB, d *models.Discount, in graph.DiscountInput) error {
	for _, l := range []struct {
		field, table, noun string
		sent               bool
		ids                []int64
	}{
		{"product_ids", "products", "product", in.ProductIds != nil, d.ProductIDs},
		{"collection_ids", "collections", "collection", in.CollectionIds != nil, d.CollectionIDs},
		{"buy_product_ids", "products", "product", in.BuyProductIds != nil, d.BuyProductIDs},
		{"buy_collection_ids", "collections", "collection", in.BuyCollectionIds != nil, d.BuyCollectionIDs},
		{"get_product_ids", "products", "product", in.GetProductIds != nil, d.GetProductIDs},
		{"get_collection_ids", "collections", "collection", in.GetCollectionIds != nil, d.GetCollectionIDs},
	} {
		if !l.sent || len(l.ids) == 0 {
			continue
		}
		found, err := models.ExistingIDs(ctx, tx, l.table, d.StoreID, l.ids)
		if err != nil {
			return err
		}
		var missing []string
		for _, id := range l.ids {
			if !found[id] {
				missing = append(missing, strconv.FormatInt(id, 10))
			}
		}
		if len(missing) == 1 {
			return apperr.Invalidf("%s: no %s of this store has the id %s", l.field, l.noun, missing[0])
		}
		if len(missing) > 1 {
			return apperr.Invalidf("%s: no %s of this store has the ids %s", l.field, l.noun, strings.Join(missing, ", "))
		}
	}
	taken, err := models.DiscountCodeTaken(ctx, tx, d.StoreID, d.Code, d.ID)
	if err != nil {
		return err
	}
	if taken {
		return apperr.Conflictf("a discount with code %s already exists", d.Code)
	}
	return nil
}
