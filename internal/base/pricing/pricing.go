// Package pricing computes the money of a draft order or a checkout: its
// subtotal, the one product or order discount it gets, free shipping, tax,
// the handling surcharge, the shopper's tip and the total. It is a
// pure function of its input (no database, no I/O, no clock); the draft keeps
// what it answers, and an order created from the draft copies it, so the draft
// and its order always agree. Amounts are int64 minor units (cents).
//
// # Lines
//
// A line's total is price × quantity; the subtotal is the sum of the line
// totals. Negative prices and quantities count as 0, and a line of quantity 0
// contributes nothing (it is eligible for no discount). The weight is Σ weight
// × quantity over the lines that require shipping (negative weights count as
// 0). A custom line has ProductID 0: it matches applies_to all, and for buy X
// get Y an empty target list, never a product or collection list.
//
// # Eligibility and minimum
//
// A percentage or fixed_amount discount applies to the lines its applies_to
// names: all, every line of quantity > 0; products, the lines whose ProductID
// is in ProductIDs; collections, the lines in any of CollectionIDs. Another
// applies_to makes the discount not apply. MinimumSubtotalCents (of every
// type) compares the whole subtotal, before any discount: a subtotal equal to
// the minimum meets it. Type decides how Value is read; ValueType is not
// consulted for these two types. Class is not read either: Input.Code is the
// code, Input.Automatic the automatic discounts.
//
// # Percentage and fixed amount
//
// percentage takes round-half-up(eligible subtotal × Value / 100) off, Value a
// whole percent clamped to 0..100; fixed_amount takes min(Value, eligible
// subtotal). The amount is shared among the eligible lines in proportion to
// their line totals by the largest-remainder method: each line gets the floor
// of its exact share, and the cents left over go one each to the lines with the
// largest remainders (equal remainders: the earlier line). The shares sum to
// the amount exactly and no line gets more than its total.
//
// # Buy X get Y
//
// The buy side is the lines matching BuyProductIDs or BuyCollectionIDs (both
// empty: every line), the get side the lines matching GetProductIDs or
// GetCollectionIDs (both empty: every line); a line may be on both sides. Think
// of each line as Quantity units of its price. A set is BuyQuantity units
// bought plus GetQuantity units got, every unit in at most one set and on one
// side only. The discount takes as many complete sets as the units allow (k),
// then discounts the k × GetQuantity cheapest get-side units that still leave
// k × BuyQuantity buy-side units to pay: the most expensive units pay, the
// cheapest get the discount. Equal prices: the earlier line's units get the
// discount first. Each discounted unit gets GetValue percent off
// (GetValueType percentage, clamped to 0..100, 100 = free, rounded half up per
// unit) or GetValue minor units off (fixed_amount, capped at the unit's price).
// A line's discount is the sum over its discounted units. GetQuantity must be
// at least 1; a BuyQuantity of 0 or less needs nothing bought. Value,
// AppliesTo, ProductIDs and CollectionIDs are not read for this type.
//
// # Free shipping
//
// free_shipping takes the whole shipping price off, when the minimum is met and
// the input has shipping with a price above 0. It goes to
// ShippingDiscountCents, never DiscountCents; its applies_to and value are not
// read. One free-shipping discount applies at most (the code, else the lowest
// ID); the others are skipped.
//
// # Stacking
//
// At most one product or order discount (percentage, fixed_amount,
// buy_x_get_y) applies: of the code and the automatic discounts, the one that
// saves the most; ties go to the code, then to the lower ID. A free-shipping
// discount, code or automatic, combines with it. Every discount of the input
// that does not apply (minimum not met, no eligible line, no complete set,
// saves nothing, another saves more, unknown type...) is listed in
// Result.Skipped with a reason for a person, code first, then the automatic
// discounts in input order. Result.Applied lists the product or order discount,
// then the free shipping.
//
// # Shipping, tax and total
//
// ShippingCents is what the shopper pays for shipping: the rate's price less
// ShippingDiscountCents. DiscountCents is the product or order discount only.
// The tax base of a taxable line is its total less its discount share; the tax
// is round-half-up((Σ taxable bases + ShippingCents if TaxShipping) × TaxBps /
// 10000), rounded once per order, not per line. It is then shared among the
// taxable lines and the shipping by the same largest-remainder method, in
// proportion to their bases; LineResult.TaxCents carries the lines' parts and
// the shipping's part stays unallocated, so Σ line tax ≤ TaxCents.
// TotalCents = SubtotalCents − DiscountCents + ShippingCents + TaxCents +
// SurchargeCents + TipCents; it is never negative since a discount never
// exceeds what it applies to.
//
// # Surcharge and tip
//
// Both are shares of the goods: SubtotalCents − DiscountCents, what the
// lines cost after the product or order discount (shipping and tax are not
// goods). The handling surcharge (Input.Surcharge) is round-half-up(goods ×
// Bps / 10000), Bps clamped to 0..10000, and at most CapCents (a cap of 0
// charges nothing). The tip (Input.Tip) is round-half-up(goods × Percent /
// 100) for a percentage (clamped to 0..100), else AmountCents; a tip with
// MaxPercent above 0 (a custom one) is at most round-down(goods ×
// MaxPercent / 100). Neither is taxed,
// discounted or shared among the lines: each is its own figure of the
// result and enters the total once.
//
// # Range
//
// Every amount is exact while the subtotal and the shipping price each stay
// within MaxCents (2^53 − 1, the largest integer a JSON client reading numbers
// as doubles keeps exactly), the order holds at most MaxCents units and TaxBps
// is at most MaxTaxBps. Price refuses nothing and never panics: beyond the
// range it clamps (a line whose total would take the subtotal past MaxCents
// keeps only the units that fit, the shipping price and weight stop at
// MaxCents, TaxBps at MaxTaxBps, a surcharge's cap and a tip's amount at
// MaxCents), so the results keep every identity above but
// are no longer meaningful. Callers validate inputs.
package pricing

import (
	"cmp"
	"fmt"
	"slices"
)

// Discount types, classes of eligibility and value types, as models.Discount
// stores them.
const (
	TypePercentage   = "percentage"
	TypeFixedAmount  = "fixed_amount"
	TypeFreeShipping = "free_shipping"
	TypeBuyXGetY     = "buy_x_get_y"

	AppliesToAll         = "all"
	AppliesToProducts    = "products"
	AppliesToCollections = "collections"
)

// Range of exact results (see the package comment).
const (
	// MaxCents bounds the subtotal, the shipping price, the weight and the
	// number of units of an order.
	MaxCents = 1<<53 - 1
	// MaxTaxBps bounds the tax rate: 10,000%.
	MaxTaxBps = 1_000_000
)

// Line is one line of a draft order.
type Line struct {
	Key              int64   // the caller's id for the line (echoed in results)
	ProductID        int64   // 0 for a custom line
	CollectionIDs    []int64 // collections the product is in
	PriceCents       int64   // unit price, >= 0
	Quantity         int64   // >= 0 (0 contributes nothing)
	WeightGrams      int64   // per unit
	Taxable          bool
	RequiresShipping bool
}

// Discount mirrors models.Discount: the fields pricing reads.
type Discount struct {
	ID                   int64
	Class                string // "code" | "automatic" (not read: Input says which)
	Code                 string // the code; for automatic discounts, their title
	Type                 string // percentage | fixed_amount | free_shipping | buy_x_get_y
	Value                int64  // percentage: whole percent 0..100; fixed_amount: minor units
	ValueType            string // percentage | fixed_amount
	AppliesTo            string // all | products | collections
	ProductIDs           []int64
	CollectionIDs        []int64
	MinimumSubtotalCents int64
	BuyQuantity          int64
	GetQuantity          int64
	GetValue             int64
	GetValueType         string // percentage | fixed_amount
	BuyProductIDs        []int64
	BuyCollectionIDs     []int64
	GetProductIDs        []int64
	GetCollectionIDs     []int64
}

// Shipping is the chosen shipping rate.
type Shipping struct {
	RateID     int64
	Title      string
	PriceCents int64
}

// Surcharge is the handling surcharge: Bps of the goods, at most CapCents.
// The zero value charges nothing.
type Surcharge struct {
	Bps      int64 // basis points of the goods, 0..10000 (100 = 1%)
	CapCents int64 // the most it adds
}

// Tip is what the shopper tips: Percent of the goods when above 0, else
// AmountCents; at most MaxPercent of the goods when MaxPercent is above 0.
// The zero value tips nothing.
type Tip struct {
	Percent     int64 // whole percent of the goods (a percentage preset)
	AmountCents int64 // minor units (an amount preset, or a custom tip)
	MaxPercent  int64 // the bound of a custom tip, whole percent of the goods; 0: none
}

// Input is what Price prices.
type Input struct {
	Lines       []Line
	Code        *Discount  // the code the draft carries, if any
	Automatic   []Discount // the store's active automatic discounts
	Shipping    *Shipping  // the chosen rate; nil: no shipping
	TaxBps      int64      // the combined tax rate of the shipping address (country + province), basis points
	TaxShipping bool       // shipping is taxed too
	Surcharge   Surcharge  // the handling surcharge; zero: none
	Tip         Tip        // the shopper's tip; zero: none
}

// LineResult is the money of one line.
type LineResult struct {
	Key            int64
	LineTotalCents int64 // price × quantity
	DiscountCents  int64 // the line's share of Result.DiscountCents
	TaxCents       int64 // the line's share of Result.TaxCents
}

// Applied is what one applied discount took off.
type Applied struct {
	DiscountID  int64
	Code        string
	Type        string
	AmountCents int64
}

// Skip says why a discount of the input did not apply, for a person.
type Skip struct {
	DiscountID int64
	Code       string
	Reason     string
}

// Result is the money of a draft order.
type Result struct {
	SubtotalCents         int64
	DiscountCents         int64 // the product or order discount
	ShippingCents         int64 // what the shopper pays for shipping
	ShippingDiscountCents int64 // what free shipping took off
	TaxCents              int64
	SurchargeCents        int64 // the handling surcharge
	TipCents              int64 // the shopper's tip
	TotalCents            int64
	WeightGrams           int64
	Lines                 []LineResult // same order as Input.Lines
	Applied               []Applied
	// Why a discount the input named did not apply (minimum not met, no
	// eligible lines, ...), for messages.
	Skipped []Skip
}

// item is a line after clamping to the supported range.
type item struct {
	price, qty, total int64
}

// outcome is what one discount of the input came to.
type outcome struct {
	d      *Discount
	code   bool
	pos    int     // position: the code 0, automatic discounts 1...
	amount int64   // what it takes off
	shares []int64 // per line (product and order discounts)
	reason string  // non-empty: skipped
	won    bool
}

// Price prices a draft order. See the package comment for the rules.
func Price(in Input) Result {
	res := Result{Lines: make([]LineResult, len(in.Lines))}

	// Lines, within the supported range.
	items := make([]item, len(in.Lines))
	var units int64
	for i, l := range in.Lines {
		p := clamp(l.PriceCents, 0, MaxCents)
		q := clamp(l.Quantity, 0, MaxCents-units)
		if p > 0 {
			q = min(q, (MaxCents-res.SubtotalCents)/p)
		}
		it := item{price: p, qty: q, total: p * q}
		items[i] = it
		units += q
		res.SubtotalCents += it.total
		if l.RequiresShipping {
			res.WeightGrams = min(MaxCents, res.WeightGrams+satMul(clamp(l.WeightGrams, 0, MaxCents), q))
		}
		res.Lines[i] = LineResult{Key: l.Key, LineTotalCents: it.total}
	}

	// Every discount of the input, the code first.
	var outs []*outcome
	if in.Code != nil {
		outs = append(outs, &outcome{d: in.Code, code: true})
	}
	for i := range in.Automatic {
		outs = append(outs, &outcome{d: &in.Automatic[i], pos: i + 1})
	}
	var orderOuts, shipOuts []*outcome
	for _, o := range outs {
		d := o.d
		switch {
		case d.Type == TypeFreeShipping:
			shipOuts = append(shipOuts, o)
			continue
		case d.Type != TypePercentage && d.Type != TypeFixedAmount && d.Type != TypeBuyXGetY:
			o.reason = fmt.Sprintf("unknown discount type %q", d.Type)
			continue
		case res.SubtotalCents < d.MinimumSubtotalCents:
			o.reason = belowMinimum(res.SubtotalCents, d.MinimumSubtotalCents)
			continue
		}
		if d.Type == TypeBuyXGetY {
			o.amount, o.shares, o.reason = buyXGetY(d, in.Lines, items)
		} else {
			o.amount, o.shares, o.reason = amountOff(d, in.Lines, items)
		}
		if o.reason == "" && o.amount == 0 {
			o.reason = "it takes nothing off this order"
		}
		if o.reason == "" {
			orderOuts = append(orderOuts, o)
		}
	}

	// The one product or order discount: the largest saving; the code, then
	// the lower ID, on a tie.
	var applied []Applied
	shares := make([]int64, len(items))
	if len(orderOuts) > 0 {
		best := slices.MinFunc(orderOuts, func(a, b *outcome) int {
			return cmp.Or(cmp.Compare(b.amount, a.amount), precedence(a, b))
		})
		best.won = true
		copy(shares, best.shares)
		res.DiscountCents = best.amount
		applied = append(applied, appliedOf(best))
		for _, o := range orderOuts {
			if o == best {
				continue
			}
			if o.amount == best.amount {
				o.reason = fmt.Sprintf("only one product or order discount applies: %s saves as much (%d) and comes first (the code, then the lower id)", label(best.d), best.amount)
			} else {
				o.reason = fmt.Sprintf("only one product or order discount applies: %s saves more (%d, against %d)", label(best.d), best.amount, o.amount)
			}
		}
	}

	// Free shipping: the code, else the lowest ID.
	var shipPrice int64
	if in.Shipping != nil {
		shipPrice = clamp(in.Shipping.PriceCents, 0, MaxCents)
	}
	slices.SortStableFunc(shipOuts, precedence)
	var freeBy *outcome
	for _, o := range shipOuts {
		switch {
		case res.SubtotalCents < o.d.MinimumSubtotalCents:
			o.reason = belowMinimum(res.SubtotalCents, o.d.MinimumSubtotalCents)
		case in.Shipping == nil:
			o.reason = "there is no shipping to take off"
		case shipPrice == 0:
			o.reason = "the shipping is already free"
		case freeBy != nil:
			o.reason = fmt.Sprintf("the shipping is already free through %s", label(freeBy.d))
		default:
			freeBy, o.won, o.amount = o, true, shipPrice
			res.ShippingDiscountCents = shipPrice
			applied = append(applied, appliedOf(o))
		}
	}
	res.ShippingCents = shipPrice - res.ShippingDiscountCents

	// Tax, rounded once on the whole base, then shared.
	bases := make([]int64, len(items)+1)
	var base int64
	for i, l := range in.Lines {
		if l.Taxable {
			bases[i] = items[i].total - shares[i]
			base += bases[i]
		}
		res.Lines[i].DiscountCents = shares[i]
	}
	if in.TaxShipping {
		bases[len(items)] = res.ShippingCents
		base += res.ShippingCents
	}
	if bps := clamp(in.TaxBps, 0, MaxTaxBps); base > 0 && bps > 0 {
		res.TaxCents = mulDivRound(base, bps, 10_000)
		for i, t := range Allocate(res.TaxCents, bases)[:len(items)] {
			res.Lines[i].TaxCents = t
		}
	}

	// The surcharge and the tip, shares of the goods, untaxed.
	goods := res.SubtotalCents - res.DiscountCents
	res.SurchargeCents = surcharge(in.Surcharge, goods)
	res.TipCents = tip(in.Tip, goods)

	res.TotalCents = res.SubtotalCents - res.DiscountCents + res.ShippingCents + res.TaxCents + res.SurchargeCents + res.TipCents
	res.Applied = applied
	for _, o := range outs {
		if !o.won {
			res.Skipped = append(res.Skipped, Skip{DiscountID: o.d.ID, Code: o.d.Code, Reason: o.reason})
		}
	}
	return res
}

// surcharge is the handling surcharge s of goods (see the package comment).
func surcharge(s Surcharge, goods int64) int64 {
	return min(mulDivRound(goods, clamp(s.Bps, 0, 10_000), 10_000), clamp(s.CapCents, 0, MaxCents))
}

// tip is the tip t of goods (see the package comment).
func tip(t Tip, goods int64) int64 {
	amount := clamp(t.AmountCents, 0, MaxCents)
	if t.Percent > 0 {
		amount = mulDivRound(goods, clamp(t.Percent, 0, 100), 100)
	}
	if t.MaxPercent > 0 {
		most, _ := mulDiv(goods, clamp(t.MaxPercent, 0, 100), 100)
		amount = min(amount, most)
	}
	return amount
}

// precedence orders discounts of equal saving: the code, then the lower ID,
// then the earlier in the input.
func precedence(a, b *outcome) int {
	if a.code != b.code {
		if a.code {
			return -1
		}
		return 1
	}
	return cmp.Or(cmp.Compare(a.d.ID, b.d.ID), cmp.Compare(a.pos, b.pos))
}

func appliedOf(o *outcome) Applied {
	return Applied{DiscountID: o.d.ID, Code: o.d.Code, Type: o.d.Type, AmountCents: o.amount}
}

// label names a discount in a reason.
func label(d *Discount) string {
	if d.Code != "" {
		return fmt.Sprintf("%q", d.Code)
	}
	return fmt.Sprintf("discount %d", d.ID)
}

func belowMinimum(subtotal, minimum int64) string {
	return fmt.Sprintf("the subtotal %d is below the minimum %d", subtotal, minimum)
}

// amountOff prices a percentage or fixed_amount discount: its amount and
// each line's share, or why it does not apply.
func amountOff(d *Discount, lines []Line, items []item) (int64, []int64, string) {
	var match func(Line) bool
	switch d.AppliesTo {
	case AppliesToAll:
		match = func(Line) bool { return true }
	case AppliesToProducts:
		products := newIDSet(d.ProductIDs)
		match = func(l Line) bool { return l.ProductID != 0 && products.has(l.ProductID) }
	case AppliesToCollections:
		collections := newIDSet(d.CollectionIDs)
		match = func(l Line) bool { return collections.hasAny(l.CollectionIDs) }
	default:
		return 0, nil, fmt.Sprintf("unknown applies_to %q", d.AppliesTo)
	}
	weights := make([]int64, len(items))
	var eligible int64
	found := false
	for i, l := range lines {
		if items[i].qty > 0 && match(l) {
			weights[i] = items[i].total
			eligible += items[i].total
			found = true
		}
	}
	if !found {
		return 0, nil, fmt.Sprintf("no line is eligible (applies to %s)", describeTargets(d.AppliesTo, d.ProductIDs, d.CollectionIDs))
	}
	var amount int64
	if d.Type == TypePercentage {
		amount = mulDivRound(eligible, clamp(d.Value, 0, 100), 100)
	} else {
		amount = clamp(d.Value, 0, eligible)
	}
	return amount, Allocate(amount, weights), ""
}

func describeTargets(appliesTo string, products, collections []int64) string {
	list := func(ids []int64) string {
		if len(ids) > 10 {
			return fmt.Sprintf("%v and %d more", ids[:10], len(ids)-10)
		}
		return fmt.Sprint(ids)
	}
	switch appliesTo {
	case AppliesToProducts:
		return "products " + list(products)
	case AppliesToCollections:
		return "collections " + list(collections)
	}
	return appliesTo
}

// Buy X get Y sides.
const (
	sideBuy = 1 << iota
	sideGet
)

// run is the units of one line in buy X get Y.
type run struct {
	line  int
	price int64
	qty   int64
	side  int
}

// buyXGetY prices a buy_x_get_y discount (see the package comment).
func buyXGetY(d *Discount, lines []Line, items []item) (int64, []int64, string) {
	x, y := max(d.BuyQuantity, 0), d.GetQuantity
	if y < 1 {
		return 0, nil, fmt.Sprintf("it gets %d units: at least 1 is needed", y)
	}
	var perUnit func(price int64) int64
	switch d.GetValueType {
	case TypePercentage:
		pct := clamp(d.GetValue, 0, 100)
		perUnit = func(price int64) int64 { return mulDivRound(price, pct, 100) }
	case TypeFixedAmount:
		off := max(d.GetValue, 0)
		perUnit = func(price int64) int64 { return min(off, price) }
	default:
		return 0, nil, fmt.Sprintf("unknown get_value_type %q", d.GetValueType)
	}
	buyP, buyC := newIDSet(d.BuyProductIDs), newIDSet(d.BuyCollectionIDs)
	getP, getC := newIDSet(d.GetProductIDs), newIDSet(d.GetCollectionIDs)
	var runs []run
	var nBuy, nGet, nBoth int64 // units on the buy side only, the get side only, both
	for i, l := range lines {
		if items[i].qty == 0 {
			continue
		}
		side := 0
		if targets(buyP, buyC, l) {
			side |= sideBuy
		}
		if targets(getP, getC, l) {
			side |= sideGet
		}
		switch side {
		case sideBuy:
			nBuy += items[i].qty
		case sideGet:
			nGet += items[i].qty
		case sideBuy | sideGet:
			nBoth += items[i].qty
		}
		if side&sideGet != 0 {
			runs = append(runs, run{line: i, price: items[i].price, qty: items[i].qty, side: side})
		}
	}
	// The most sets: kx ≤ buy-side units, ky ≤ get-side units, k(x+y) ≤ all
	// units of either side (counts stay within MaxCents, so no sum overflows).
	k := (nGet + nBoth) / y
	if x > 0 {
		k = min(k, (nBuy+nBoth)/x, (nBuy+nGet+nBoth)/satAdd(x, y))
	}
	if k == 0 {
		return 0, nil, fmt.Sprintf("no complete set: it needs %d units bought and %d got; the order has %d units only on the buy side, %d only on the get side and %d on both",
			x, y, nBuy, nGet, nBoth)
	}
	// The cheapest get-side units, using at most `spare` units that are on
	// both sides, so that k×x units are left to buy.
	want := k * y // ≤ nGet+nBoth
	spare := nBuy + nBoth - k*x
	slices.SortStableFunc(runs, func(a, b run) int { return cmp.Compare(a.price, b.price) })
	shares := make([]int64, len(items))
	var amount int64
	for _, r := range runs {
		if want == 0 {
			break
		}
		n := min(want, r.qty)
		if r.side&sideBuy != 0 {
			n = min(n, spare)
			spare -= n
		}
		want -= n
		shares[r.line] = n * perUnit(r.price)
		amount += shares[r.line]
	}
	return amount, shares, ""
}

// targets says whether a buy X get Y side (its products and collections)
// takes the line: both lists empty take every line.
func targets(products, collections idSet, l Line) bool {
	if products.empty() && collections.empty() {
		return true
	}
	return (l.ProductID != 0 && products.has(l.ProductID)) || collections.hasAny(l.CollectionIDs)
}
