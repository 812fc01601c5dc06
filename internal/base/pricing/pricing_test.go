package pricing

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// want is what a case expects; nil slices are not checked.
type want struct {
	sub, disc, ship, shipDisc, tax, total, weight int64
	lineDisc, lineTax                             []int64
	applied                                       []Applied
	skipped                                       map[int64]string // discount id → part of the reason
}

func pct(id int64, value int64, appliesTo string) Discount {
	return Discount{ID: id, Class: "automatic", Type: TypePercentage, Value: value, ValueType: TypePercentage, AppliesTo: appliesTo}
}

func fixed(id int64, value int64, appliesTo string) Discount {
	return Discount{ID: id, Class: "automatic", Type: TypeFixedAmount, Value: value, ValueType: TypeFixedAmount, AppliesTo: appliesTo}
}

func freeShip(id int64, minimum int64) Discount {
	return Discount{ID: id, Class: "automatic", Type: TypeFreeShipping, AppliesTo: AppliesToAll, MinimumSubtotalCents: minimum}
}

func bxgy(id, buy, get, getValue int64, getValueType string) Discount {
	return Discount{ID: id, Class: "automatic", Type: TypeBuyXGetY, BuyQuantity: buy, GetQuantity: get, GetValue: getValue, GetValueType: getValueType}
}

func code(d Discount, c string) *Discount {
	d.Class, d.Code = "code", c
	return &d
}

func with(d Discount, f func(*Discount)) Discount {
	f(&d)
	return d
}

func ln(key, product, price, qty int64) Line {
	return Line{Key: key, ProductID: product, PriceCents: price, Quantity: qty, Taxable: true, RequiresShipping: true}
}

func inCollections(l Line, ids ...int64) Line {
	l.CollectionIDs = ids
	return l
}

func untaxed(l Line) Line {
	l.Taxable = false
	return l
}

func ship(price int64) *Shipping { return &Shipping{RateID: 1, Title: "Standard", PriceCents: price} }

func TestPrice(t *testing.T) {
	tests := []struct {
		name string
		in   Input
		want want
	}{
		{name: "empty input", in: Input{}, want: want{lineDisc: []int64{}, lineTax: []int64{}}},
		{
			name: "the README example",
			in: Input{
				Lines:     []Line{ln(1, 1, 1200, 2), ln(2, 0, 500, 1)},
				Code:      code(pct(7, 10, AppliesToAll), "WELCOME10"),
				Automatic: []Discount{freeShip(3, 5000)},
				Shipping:  ship(600), TaxBps: 825, TaxShipping: true,
			},
			want: want{sub: 2900, disc: 290, ship: 600, tax: 265, total: 3475, lineDisc: []int64{240, 50}, lineTax: []int64{178, 37},
				applied: []Applied{{DiscountID: 7, Code: "WELCOME10", Type: TypePercentage, AmountCents: 290}},
				skipped: map[int64]string{3: "the subtotal 2900 is below the minimum 5000"}},
		},
		{
			name: "subtotal and weight over lines that require shipping",
			in: Input{Lines: []Line{
				{Key: 1, ProductID: 10, PriceCents: 1000, Quantity: 2, WeightGrams: 500, RequiresShipping: true},
				{Key: 2, ProductID: 11, PriceCents: 250, Quantity: 3, WeightGrams: 100},
				{Key: 3, ProductID: 0, PriceCents: 999, Quantity: 1, WeightGrams: 200, RequiresShipping: true}, // custom
			}},
			want: want{sub: 3749, total: 3749, weight: 1200, lineDisc: []int64{0, 0, 0}},
		},
		{
			name: "zero and negative quantities and prices count as 0",
			in: Input{
				Lines:     []Line{ln(1, 10, 500, 0), ln(2, 11, -100, 3), ln(3, 12, 100, -2)},
				Automatic: []Discount{pct(1, 10, AppliesToAll)},
				Shipping:  ship(-50), TaxBps: -10,
			},
			want: want{lineDisc: []int64{0, 0, 0}, lineTax: []int64{0, 0, 0},
				skipped: map[int64]string{1: "takes nothing off"}},
		},
		{
			name: "a zero-quantity line is not eligible",
			in: Input{
				Lines:     []Line{ln(1, 10, 1000, 1), ln(2, 11, 500, 0)},
				Automatic: []Discount{fixed(1, 600, AppliesToAll)},
			},
			want: want{sub: 1000, disc: 600, total: 400, lineDisc: []int64{600, 0}},
		},
		{
			name: "percentage rounds half up, shares by largest remainder",
			in: Input{
				Lines: []Line{ln(1, 10, 333, 1), ln(2, 11, 333, 1), ln(3, 12, 344, 1)},
				Code:  code(pct(5, 15, AppliesToAll), "SAVE15"), // 15% of 1010 = 151.5
			},
			want: want{sub: 1010, disc: 152, total: 858, lineDisc: []int64{50, 50, 52},
				applied: []Applied{{DiscountID: 5, Code: "SAVE15", Type: TypePercentage, AmountCents: 152}}},
		},
		{
			name: "percentage below a half rounds down",
			in:   Input{Lines: []Line{ln(1, 10, 1003, 1)}, Code: code(pct(5, 15, AppliesToAll), "SAVE15")}, // 150.45
			want: want{sub: 1003, disc: 150, total: 853, lineDisc: []int64{150}},
		},
		{
			name: "percentage over 100 takes the eligible subtotal",
			in:   Input{Lines: []Line{ln(1, 10, 700, 2)}, Automatic: []Discount{pct(1, 250, AppliesToAll)}},
			want: want{sub: 1400, disc: 1400, total: 0, lineDisc: []int64{1400}},
		},
		{
			name: "equal remainders go to the earlier line",
			in: Input{
				Lines:     []Line{ln(1, 10, 100, 1), ln(2, 11, 100, 1), ln(3, 12, 100, 1)},
				Automatic: []Discount{fixed(1, 2, AppliesToAll)},
			},
			want: want{sub: 300, disc: 2, total: 298, lineDisc: []int64{1, 1, 0}},
		},
		{
			name: "fixed amount is capped at the eligible subtotal",
			in: Input{
				Lines:     []Line{ln(1, 7, 1200, 2), ln(2, 8, 1000, 1)},
				Automatic: []Discount{with(fixed(1, 5000, AppliesToProducts), func(d *Discount) { d.ProductIDs = []int64{7} })},
			},
			want: want{sub: 3400, disc: 2400, total: 1000, lineDisc: []int64{2400, 0}},
		},
		{
			name: "applies to products: listed products only, never a custom line",
			in: Input{
				Lines: []Line{ln(1, 7, 1000, 1), ln(2, 0, 1000, 1), ln(3, 9, 3000, 1), ln(4, 8, 500, 1)},
				Automatic: []Discount{with(fixed(1, 300, AppliesToProducts), func(d *Discount) {
					d.ProductIDs = []int64{0, 7, 9}
				})},
			},
			want: want{sub: 5500, disc: 300, total: 5200, lineDisc: []int64{75, 0, 225, 0}},
		},
		{
			name: "applies to collections: lines in any listed collection",
			in: Input{
				Lines: []Line{inCollections(ln(1, 7, 1000, 1), 3, 4), inCollections(ln(2, 8, 1000, 1), 5), ln(3, 0, 1000, 1), inCollections(ln(4, 9, 2000, 1), 4)},
				Code: code(with(pct(2, 10, AppliesToCollections), func(d *Discount) {
					d.CollectionIDs = []int64{4, 6}
				}), "COLL"),
			},
			want: want{sub: 5000, disc: 300, total: 4700, lineDisc: []int64{100, 0, 0, 200}},
		},
		{
			name: "long id lists",
			in: Input{
				Lines: []Line{ln(1, 70, 1000, 1), inCollections(ln(2, 1, 1000, 1), 77), ln(3, 2, 1000, 1)},
				Automatic: []Discount{
					with(fixed(1, 100, AppliesToProducts), func(d *Discount) {
						for id := range int64(40) {
							d.ProductIDs = append(d.ProductIDs, 100-id)
						}
					}),
					with(fixed(2, 200, AppliesToCollections), func(d *Discount) {
						for id := range int64(40) {
							d.CollectionIDs = append(d.CollectionIDs, 60+id)
						}
					}),
				},
			},
			want: want{sub: 3000, disc: 200, total: 2800, lineDisc: []int64{0, 200, 0}, skipped: map[int64]string{1: "saves more"}},
		},
		{
			name: "a reason lists ten ids at most",
			in: Input{
				Lines: []Line{ln(1, 1, 1000, 1)},
				Automatic: []Discount{with(fixed(1, 100, AppliesToProducts), func(d *Discount) {
					d.ProductIDs = []int64{2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13}
				})},
			},
			want: want{sub: 1000, total: 1000, skipped: map[int64]string{1: "no line is eligible (applies to products [2 3 4 5 6 7 8 9 10 11] and 2 more)"}},
		},
		{
			name: "no eligible line",
			in: Input{
				Lines:     []Line{ln(1, 7, 1000, 1)},
				Automatic: []Discount{with(pct(1, 10, AppliesToProducts), func(d *Discount) { d.ProductIDs = []int64{8} })},
			},
			want: want{sub: 1000, total: 1000, skipped: map[int64]string{1: "no line is eligible (applies to products [8])"}},
		},
		{
			name: "minimum subtotal not met, and met exactly",
			in: Input{
				Lines: []Line{ln(1, 7, 1000, 3)},
				Code:  code(with(pct(1, 10, AppliesToAll), func(d *Discount) { d.MinimumSubtotalCents = 5000 }), "BIG"),
				Automatic: []Discount{
					with(fixed(2, 100, AppliesToAll), func(d *Discount) { d.MinimumSubtotalCents = 3000 }),
				},
			},
			want: want{sub: 3000, disc: 100, total: 2900,
				applied: []Applied{{DiscountID: 2, Type: TypeFixedAmount, AmountCents: 100}},
				skipped: map[int64]string{1: "the subtotal 3000 is below the minimum 5000"}},
		},
		{
			name: "minimum compares the subtotal before discounts",
			in: Input{
				Lines:     []Line{ln(1, 7, 5000, 1)},
				Code:      code(fixed(1, 4000, AppliesToAll), "BIG"),
				Automatic: []Discount{freeShip(2, 5000)},
				Shipping:  ship(700),
			},
			want: want{sub: 5000, disc: 4000, ship: 0, shipDisc: 700, total: 1000,
				applied: []Applied{{DiscountID: 1, Code: "BIG", Type: TypeFixedAmount, AmountCents: 4000}, {DiscountID: 2, Type: TypeFreeShipping, AmountCents: 700}}},
		},
		{
			name: "unknown type and applies_to are skipped",
			in: Input{
				Lines:     []Line{ln(1, 7, 1000, 1)},
				Automatic: []Discount{{ID: 1, Type: "bogus", AppliesTo: AppliesToAll}, pct(2, 10, "")},
			},
			want: want{sub: 1000, total: 1000, skipped: map[int64]string{1: `unknown discount type "bogus"`, 2: `unknown applies_to ""`}},
		},
		{
			name: "free shipping takes the shipping off, not the discount",
			in:   Input{Lines: []Line{ln(1, 7, 1000, 1)}, Code: code(freeShip(1, 0), "SHIPFREE"), Shipping: ship(800)},
			want: want{sub: 1000, ship: 0, shipDisc: 800, total: 1000, lineDisc: []int64{0},
				applied: []Applied{{DiscountID: 1, Code: "SHIPFREE", Type: TypeFreeShipping, AmountCents: 800}}},
		},
		{
			name: "free shipping without shipping, with free shipping, under its minimum",
			in: Input{Lines: []Line{ln(1, 7, 1000, 1)}, Code: code(freeShip(1, 0), "SHIPFREE"),
				Automatic: []Discount{freeShip(2, 2000)}},
			want: want{sub: 1000, total: 1000, skipped: map[int64]string{
				1: "there is no shipping to take off", 2: "the subtotal 1000 is below the minimum 2000"}},
		},
		{
			name: "free shipping on a free rate saves nothing",
			in:   Input{Lines: []Line{ln(1, 7, 1000, 1)}, Automatic: []Discount{freeShip(2, 0)}, Shipping: ship(0)},
			want: want{sub: 1000, total: 1000, skipped: map[int64]string{2: "already free"}},
		},
		{
			name: "one free shipping applies: the code before automatic ones, then the lower id",
			in: Input{Lines: []Line{ln(1, 7, 1000, 1)}, Code: code(freeShip(9, 0), "SHIPFREE"),
				Automatic: []Discount{freeShip(4, 0), freeShip(3, 0)}, Shipping: ship(500)},
			want: want{sub: 1000, shipDisc: 500, total: 1000,
				applied: []Applied{{DiscountID: 9, Code: "SHIPFREE", Type: TypeFreeShipping, AmountCents: 500}},
				skipped: map[int64]string{4: `already free through "SHIPFREE"`, 3: `already free through "SHIPFREE"`}},
		},
		{
			name: "stacking: the best product or order discount wins, free shipping combines",
			in: Input{
				Lines:     []Line{ln(1, 7, 1000, 3)},
				Code:      code(pct(1, 10, AppliesToAll), "TEN"), // 300
				Automatic: []Discount{fixed(2, 500, AppliesToAll), freeShip(3, 0), fixed(4, 200, AppliesToAll)},
				Shipping:  ship(650),
			},
			want: want{sub: 3000, disc: 500, ship: 0, shipDisc: 650, total: 2500, lineDisc: []int64{500},
				applied: []Applied{{DiscountID: 2, Type: TypeFixedAmount, AmountCents: 500}, {DiscountID: 3, Type: TypeFreeShipping, AmountCents: 650}},
				skipped: map[int64]string{1: "saves more (500, against 300)", 4: "saves more (500, against 200)"}},
		},
		{
			name: "stacking tie: the code wins",
			in: Input{
				Lines:     []Line{ln(1, 7, 1000, 3)},
				Code:      code(fixed(8, 300, AppliesToAll), "THREE"),
				Automatic: []Discount{pct(2, 10, AppliesToAll)},
			},
			want: want{sub: 3000, disc: 300, total: 2700,
				applied: []Applied{{DiscountID: 8, Code: "THREE", Type: TypeFixedAmount, AmountCents: 300}},
				skipped: map[int64]string{2: `"THREE" saves as much (300) and comes first`}},
		},
		{
			name: "stacking tie between automatic discounts: the lower id wins",
			in: Input{
				Lines:     []Line{ln(1, 7, 1000, 3)},
				Automatic: []Discount{fixed(9, 300, AppliesToAll), pct(4, 10, AppliesToAll)},
			},
			want: want{sub: 3000, disc: 300, total: 2700,
				applied: []Applied{{DiscountID: 4, Type: TypePercentage, AmountCents: 300}},
				skipped: map[int64]string{9: "discount 4 saves as much"}},
		},
		{
			name: "a free-shipping code combines with an automatic discount",
			in: Input{
				Lines:     []Line{ln(1, 7, 2000, 1)},
				Code:      code(freeShip(1, 0), "SHIP"),
				Automatic: []Discount{pct(2, 25, AppliesToAll)},
				Shipping:  ship(400), TaxBps: 1000, TaxShipping: true,
			},
			want: want{sub: 2000, disc: 500, ship: 0, shipDisc: 400, tax: 150, total: 1650, lineTax: []int64{150}},
		},
		{
			name: "buy x get y, disjoint targets: the cheapest get units are free",
			in: Input{
				Lines: []Line{ln(1, 1, 2000, 2), ln(2, 2, 600, 1), ln(3, 2, 500, 2)},
				Automatic: []Discount{with(bxgy(1, 1, 1, 100, TypePercentage), func(d *Discount) {
					d.BuyProductIDs, d.GetProductIDs = []int64{1}, []int64{2}
				})},
			},
			// 2 buy units, 3 get units: 2 sets; the two 500 units are free.
			want: want{sub: 5600, disc: 1000, total: 4600, lineDisc: []int64{0, 0, 1000},
				applied: []Applied{{DiscountID: 1, Type: TypeBuyXGetY, AmountCents: 1000}}},
		},
		{
			name: "buy x get y, percentage rounds half up per unit",
			in: Input{
				Lines: []Line{ln(1, 1, 2000, 2), ln(2, 2, 333, 3)},
				Automatic: []Discount{with(bxgy(1, 1, 1, 50, TypePercentage), func(d *Discount) {
					d.BuyProductIDs, d.GetProductIDs = []int64{1}, []int64{2}
				})},
			},
			want: want{sub: 4999, disc: 334, total: 4665, lineDisc: []int64{0, 334}}, // 2 × round(166.5)
		},
		{
			name: "buy x get y, fixed amount per unit, capped at the unit price",
			in: Input{
				Lines: []Line{ln(1, 1, 2000, 2), ln(2, 2, 300, 1), ln(3, 3, 500, 1)},
				Automatic: []Discount{with(bxgy(1, 1, 1, 400, TypeFixedAmount), func(d *Discount) {
					d.BuyProductIDs, d.GetProductIDs = []int64{1}, []int64{2, 3}
				})},
			},
			want: want{sub: 4800, disc: 700, total: 4100, lineDisc: []int64{0, 300, 400}},
		},
		{
			name: "buy x get y, same targets (any product): the most expensive pay, the cheapest are free",
			in: Input{
				Lines:     []Line{ln(1, 1, 1000, 2), ln(2, 2, 300, 1), ln(3, 3, 700, 1), ln(4, 4, 300, 2)},
				Automatic: []Discount{bxgy(1, 2, 1, 100, TypePercentage)},
			},
			// 6 units, sets of 3: 2 sets; the free units are the two cheapest, 300 each, earlier line first.
			want: want{sub: 3600, disc: 600, total: 3000, lineDisc: []int64{0, 300, 0, 300}},
		},
		{
			name: "buy x get y, overlapping targets: a unit counts on one side only",
			in: Input{
				Lines: []Line{inCollections(ln(1, 1, 1000, 2), 5), ln(2, 2, 2000, 1)},
				Automatic: []Discount{with(bxgy(1, 1, 1, 100, TypePercentage), func(d *Discount) {
					d.GetCollectionIDs = []int64{5} // buy: any line
				})},
			},
			// 3 units, sets of 2: 1 set; one 1000 unit is free.
			want: want{sub: 4000, disc: 1000, total: 3000, lineDisc: []int64{1000, 0}},
		},
		{
			name: "buy x get y: a cheap unit needed on the buy side is not the free one",
			in: Input{
				Lines: []Line{inCollections(ln(1, 1, 100, 1), 5), ln(2, 2, 5000, 1)},
				Automatic: []Discount{with(bxgy(1, 1, 1, 100, TypePercentage), func(d *Discount) {
					d.BuyCollectionIDs = []int64{5} // get: any line
				})},
			},
			want: want{sub: 5100, disc: 5000, total: 100, lineDisc: []int64{0, 5000}},
		},
		{
			name: "buy x get y, custom lines match empty targets only",
			in: Input{
				Lines: []Line{ln(1, 0, 1000, 1), ln(2, 0, 400, 1)},
				Automatic: []Discount{
					bxgy(1, 1, 1, 100, TypePercentage),
					with(bxgy(2, 1, 1, 100, TypePercentage), func(d *Discount) { d.GetProductIDs = []int64{0} }),
				},
			},
			want: want{sub: 1400, disc: 400, total: 1000, lineDisc: []int64{0, 400},
				skipped: map[int64]string{2: "no complete set: it needs 1 units bought and 1 got; the order has 2 units only on the buy side, 0 only on the get side and 0 on both"}},
		},
		{
			name: "buy x get y, no complete set, no get quantity, unknown get value type",
			in: Input{
				Lines: []Line{ln(1, 1, 1000, 2)},
				Automatic: []Discount{
					bxgy(1, 2, 1, 100, TypePercentage),
					bxgy(2, 1, 0, 100, TypePercentage),
					bxgy(3, 1, 1, 100, "free"),
				},
			},
			want: want{sub: 2000, total: 2000, skipped: map[int64]string{
				1: "no complete set", 2: "at least 1 is needed", 3: `unknown get_value_type "free"`}},
		},
		{
			name: "buy x get y competes with other discounts",
			in: Input{
				Lines:     []Line{ln(1, 1, 1000, 4)},
				Code:      code(bxgy(1, 3, 1, 100, TypePercentage), "B3G1"), // 1000
				Automatic: []Discount{pct(2, 20, AppliesToAll)},             // 800
			},
			want: want{sub: 4000, disc: 1000, total: 3000, skipped: map[int64]string{2: "saves more (1000, against 800)"}},
		},
		{
			name: "tax on taxable lines only, shipping untaxed",
			in: Input{
				Lines:    []Line{ln(1, 1, 1000, 1), untaxed(ln(2, 2, 500, 1))},
				Shipping: ship(800), TaxBps: 825, // 82.5
			},
			want: want{sub: 1500, ship: 800, tax: 83, total: 2383, lineTax: []int64{83, 0}},
		},
		{
			name: "tax on shipping too: the shipping part stays unallocated",
			in: Input{
				Lines:    []Line{ln(1, 1, 1000, 1), untaxed(ln(2, 2, 500, 1))},
				Shipping: ship(800), TaxBps: 825, TaxShipping: true, // 1800 × 8.25% = 148.5
			},
			want: want{sub: 1500, ship: 800, tax: 149, total: 2449, lineTax: []int64{83, 0}}, // shipping's part: 66
		},
		{
			name: "tax is rounded once per order, not per line",
			in: Input{
				Lines:  []Line{ln(1, 1, 10, 1), ln(2, 2, 10, 1), ln(3, 3, 10, 1)},
				TaxBps: 500, // 0.5 each; 1.5 in all
			},
			want: want{sub: 30, tax: 2, total: 32, lineTax: []int64{1, 1, 0}},
		},
		{
			name: "tax is on the lines after their discount share",
			in: Input{
				Lines:     []Line{ln(1, 1, 1000, 1), ln(2, 2, 1000, 1)},
				Code:      code(with(pct(1, 50, AppliesToProducts), func(d *Discount) { d.ProductIDs = []int64{1} }), "HALF"),
				Shipping:  ship(1000),
				TaxBps:    2000,
				Automatic: []Discount{freeShip(2, 0)},
				// TaxShipping, but the shipping is free: 1500 × 20%
				TaxShipping: true,
			},
			want: want{sub: 2000, disc: 500, ship: 0, shipDisc: 1000, tax: 300, total: 1800,
				lineDisc: []int64{500, 0}, lineTax: []int64{100, 200}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Price(tt.in)
			checkInvariants(t, tt.in, got)
			w := tt.want
			for _, f := range []struct {
				name      string
				got, want int64
			}{
				{"SubtotalCents", got.SubtotalCents, w.sub}, {"DiscountCents", got.DiscountCents, w.disc},
				{"ShippingCents", got.ShippingCents, w.ship}, {"ShippingDiscountCents", got.ShippingDiscountCents, w.shipDisc},
				{"TaxCents", got.TaxCents, w.tax}, {"TotalCents", got.TotalCents, w.total}, {"WeightGrams", got.WeightGrams, w.weight},
			} {
				if f.got != f.want {
					t.Errorf("%s = %d, want %d", f.name, f.got, f.want)
				}
			}
			var lineDisc, lineTax []int64
			for i, l := range got.Lines {
				if l.Key != tt.in.Lines[i].Key {
					t.Errorf("line %d has key %d, want %d", i, l.Key, tt.in.Lines[i].Key)
				}
				lineDisc, lineTax = append(lineDisc, l.DiscountCents), append(lineTax, l.TaxCents)
			}
			if w.lineDisc != nil && !slices.Equal(lineDisc, w.lineDisc) {
				t.Errorf("line discounts = %v, want %v", lineDisc, w.lineDisc)
			}
			if w.lineTax != nil && !slices.Equal(lineTax, w.lineTax) {
				t.Errorf("line taxes = %v, want %v", lineTax, w.lineTax)
			}
			if w.applied != nil && !slices.Equal(got.Applied, w.applied) {
				t.Errorf("Applied = %+v, want %+v", got.Applied, w.applied)
			}
			if len(got.Skipped) != len(w.skipped) {
				t.Errorf("Skipped = %+v, want %d", got.Skipped, len(w.skipped))
			}
			for _, s := range got.Skipped {
				if part, ok := w.skipped[s.DiscountID]; !ok || !strings.Contains(s.Reason, part) {
					t.Errorf("skipped %d: %q, want it to contain %q", s.DiscountID, s.Reason, part)
				}
			}
		})
	}
}

// TestSkippedOrder: the code first, then the automatic discounts in input
// order, with their codes.
func TestSkippedOrder(t *testing.T) {
	got := Price(Input{
		Lines:     []Line{ln(1, 1, 100, 1)},
		Code:      code(pct(7, 10, AppliesToProducts), "NOPE"),
		Automatic: []Discount{fixed(5, 0, AppliesToAll), with(fixed(3, 10, AppliesToAll), func(d *Discount) { d.Code = "Spring sale" })},
	})
	want := []Skip{
		{DiscountID: 7, Code: "NOPE", Reason: "no line is eligible (applies to products [])"},
		{DiscountID: 5, Reason: "it takes nothing off this order"},
	}
	if !slices.Equal(got.Skipped, want) {
		t.Errorf("Skipped = %+v, want %+v", got.Skipped, want)
	}
	if len(got.Applied) != 1 || got.Applied[0].Code != "Spring sale" || got.Applied[0].AmountCents != 10 {
		t.Errorf("Applied = %+v", got.Applied)
	}
}

// TestExtremeInputs: no panic, no overflow, identities kept, values clamped
// to the documented range.
func TestExtremeInputs(t *testing.T) {
	big := int64(math.MaxInt64)
	everything := []Discount{
		pct(1, big, AppliesToAll), fixed(2, big, AppliesToAll), freeShip(3, math.MinInt64),
		bxgy(4, big, big, big, TypePercentage),
		bxgy(5, 1, 1, big, TypeFixedAmount), bxgy(6, math.MinInt64, 1, math.MinInt64, TypePercentage),
	}
	for _, in := range []Input{
		{Lines: []Line{{PriceCents: big, Quantity: big, WeightGrams: big, Taxable: true, RequiresShipping: true}},
			Automatic: everything, Shipping: ship(big), TaxBps: big, TaxShipping: true},
		{Lines: []Line{ln(1, 1, MaxCents, 1), ln(2, 2, MaxCents, 1), ln(3, 3, 0, big), ln(4, 4, 1, big)},
			Automatic: everything, Shipping: ship(MaxCents), TaxBps: MaxTaxBps, TaxShipping: true},
		{Lines: []Line{ln(1, 1, math.MinInt64, math.MinInt64)}, Automatic: everything, Shipping: ship(math.MinInt64), TaxBps: math.MinInt64},
	} {
		got := Price(in)
		checkInvariants(t, in, got)
		if got.SubtotalCents > MaxCents || got.WeightGrams > MaxCents || got.ShippingCents+got.ShippingDiscountCents > MaxCents {
			t.Errorf("out of range: %+v", got)
		}
	}
	// Beyond the range, a line keeps the units that fit.
	got := Price(Input{Lines: []Line{ln(1, 1, MaxCents-10, 1), ln(2, 2, 4, 5)}})
	if got.SubtotalCents != MaxCents-2 || got.Lines[1].LineTotalCents != 8 {
		t.Errorf("subtotal %d, line 2 %d", got.SubtotalCents, got.Lines[1].LineTotalCents)
	}
}

func TestAllocate(t *testing.T) {
	for _, tt := range []struct {
		amount  int64
		weights []int64
		want    []int64
	}{
		{0, []int64{1, 2}, []int64{0, 0}},
		{5, []int64{0, 0}, []int64{0, 0}},
		{1, []int64{1, 1, 1}, []int64{1, 0, 0}},
		{2, []int64{1, 1, 1}, []int64{1, 1, 0}},
		{10, []int64{1, 2, 3, 4}, []int64{1, 2, 3, 4}},
		{7, []int64{1, 1, 4}, []int64{1, 1, 5}}, // 1.17, 1.17, 4.67
		{100, []int64{1, 0, 2}, []int64{33, 0, 67}},
		{MaxCents, []int64{MaxCents, MaxCents}, []int64{(MaxCents + 1) / 2, MaxCents / 2}},
	} {
		if got := Allocate(tt.amount, tt.weights); !slices.Equal(got, tt.want) {
			t.Errorf("Allocate(%d, %v) = %v, want %v", tt.amount, tt.weights, got, tt.want)
		}
	}
}

// TestBuyXGetYMatchesBruteForce compares buy X get Y with a search over every
// way of choosing the get units: the most sets, and of those the cheapest get
// units (their price sum, with 100% off).
func TestBuyXGetYMatchesBruteForce(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	discounted := 0
	for c := range 3000 {
		var lines []Line
		for i := range 1 + r.IntN(5) { // at most 15 units
			l := ln(int64(i), int64(1+r.IntN(3)), int64(r.IntN(6))*100, int64(r.IntN(4)))
			if r.IntN(2) == 0 {
				l.CollectionIDs = []int64{int64(1 + r.IntN(2))}
			}
			lines = append(lines, l)
		}
		d := bxgy(1, int64(r.IntN(4)), int64(1+r.IntN(3)), 100, TypePercentage)
		pick := func() []int64 {
			if r.IntN(2) == 0 {
				return nil
			}
			return []int64{int64(1 + r.IntN(3))}
		}
		d.BuyProductIDs, d.GetProductIDs = pick(), pick()
		if r.IntN(3) == 0 {
			d.BuyCollectionIDs = []int64{1}
		}
		if r.IntN(3) == 0 {
			d.GetCollectionIDs = []int64{2}
		}
		in := Input{Lines: lines, Automatic: []Discount{d}}
		got := Price(in)
		checkInvariants(t, in, got)
		want := bruteForceFree(d, lines)
		if got.DiscountCents != want {
			t.Fatalf("case %d: discount %d, brute force %d\nlines %+v\ndiscount %+v", c, got.DiscountCents, want, lines, d)
		}
		if want > 0 {
			discounted++
		}
	}
	if discounted < 900 {
		t.Errorf("only %d of 3000 cases got a discount: the cases test little", discounted)
	}
	t.Logf("%d of 3000 cases got a discount", discounted)
}

// bruteForceFree is the price sum of the cheapest get units of the most sets,
// by trying every subset of units as the get units.
func bruteForceFree(d Discount, lines []Line) int64 {
	type unit struct {
		price    int64
		buy, get bool
	}
	var units []unit
	for _, l := range lines {
		b, g := targets(newIDSet(d.BuyProductIDs), newIDSet(d.BuyCollectionIDs), l), targets(newIDSet(d.GetProductIDs), newIDSet(d.GetCollectionIDs), l)
		for range l.Quantity {
			units = append(units, unit{l.PriceCents, b, g})
		}
	}
	bestK, bestSum := int64(0), int64(0)
	for mask := 0; mask < 1<<len(units); mask++ {
		var gets, buys, sum int64
		ok := true
		for i, u := range units {
			if mask&(1<<i) != 0 {
				ok = ok && u.get
				gets++
				sum += u.price
			} else if u.buy {
				buys++
			}
		}
		if !ok || gets%d.GetQuantity != 0 {
			continue
		}
		k := gets / d.GetQuantity
		if k*d.BuyQuantity > buys {
			continue
		}
		if k > bestK || (k == bestK && sum < bestSum) {
			bestK, bestSum = k, sum
		}
	}
	return bestSum
}

// checkInvariants asserts what holds for every input.
func checkInvariants(t *testing.T, in Input, got Result) {
	t.Helper()
	fail := func(format string, args ...any) {
		t.Helper()
		t.Fatalf("%s\ninput %+v\nresult %+v", fmt.Sprintf(format, args...), in, got)
	}
	for name, v := range map[string]int64{
		"SubtotalCents": got.SubtotalCents, "DiscountCents": got.DiscountCents, "ShippingCents": got.ShippingCents,
		"ShippingDiscountCents": got.ShippingDiscountCents, "TaxCents": got.TaxCents, "TotalCents": got.TotalCents,
		"WeightGrams": got.WeightGrams, "SurchargeCents": got.SurchargeCents, "TipCents": got.TipCents,
	} {
		if v < 0 {
			fail("%s is negative", name)
		}
	}
	if got.TotalCents != got.SubtotalCents-got.DiscountCents+got.ShippingCents+got.TaxCents+got.SurchargeCents+got.TipCents {
		fail("total is not subtotal − discount + shipping + tax + surcharge + tip")
	}
	goods := got.SubtotalCents - got.DiscountCents
	if got.SurchargeCents > max(in.Surcharge.CapCents, 0) || got.SurchargeCents > goods {
		fail("the surcharge exceeds its cap or the goods")
	}
	if in.Tip.MaxPercent > 0 && got.TipCents*100 > goods*min(in.Tip.MaxPercent, 100) {
		fail("the tip exceeds its bound")
	}
	if got.DiscountCents > got.SubtotalCents {
		fail("the discount exceeds the subtotal")
	}
	var price int64
	if in.Shipping != nil {
		price = in.Shipping.PriceCents
	}
	if got.ShippingDiscountCents > max(price, 0) || got.ShippingCents+got.ShippingDiscountCents > max(price, 0) {
		fail("the shipping discount exceeds the shipping price")
	}
	if len(got.Lines) != len(in.Lines) {
		fail("%d line results for %d lines", len(got.Lines), len(in.Lines))
	}
	var totals, discounts, taxes int64
	for i, l := range got.Lines {
		if l.Key != in.Lines[i].Key {
			fail("line %d has key %d", i, l.Key)
		}
		if l.LineTotalCents < 0 || l.DiscountCents < 0 || l.TaxCents < 0 || l.DiscountCents > l.LineTotalCents {
			fail("line %d out of bounds", i)
		}
		if !in.Lines[i].Taxable && l.TaxCents != 0 {
			fail("untaxed line %d carries tax", i)
		}
		totals += l.LineTotalCents
		discounts += l.DiscountCents
		taxes += l.TaxCents
	}
	if totals != got.SubtotalCents {
		fail("line totals sum to %d, not the subtotal", totals)
	}
	if discounts != got.DiscountCents {
		fail("line discounts sum to %d, not the discount", discounts)
	}
	if taxes > got.TaxCents {
		fail("line taxes sum to %d, more than the tax", taxes)
	}
	var applied int64
	for _, a := range got.Applied {
		if a.AmountCents <= 0 {
			fail("applied %d takes %d off", a.DiscountID, a.AmountCents)
		}
		applied += a.AmountCents
	}
	if applied != got.DiscountCents+got.ShippingDiscountCents {
		fail("applied amounts sum to %d", applied)
	}
	named := len(in.Automatic)
	if in.Code != nil {
		named++
	}
	if len(got.Applied)+len(got.Skipped) != named {
		fail("%d applied and %d skipped of %d discounts", len(got.Applied), len(got.Skipped), named)
	}
	for _, s := range got.Skipped {
		if s.Reason == "" {
			fail("discount %d skipped without a reason", s.DiscountID)
		}
	}
}

func BenchmarkPrice(b *testing.B) {
	in := Input{
		Code:     code(pct(10, 15, AppliesToCollections), "SAVE15"),
		Shipping: ship(900), TaxBps: 825, TaxShipping: true,
		Automatic: []Discount{
			with(fixed(1, 2500, AppliesToProducts), func(d *Discount) { d.ProductIDs = []int64{3, 7, 11, 19, 23} }),
			with(bxgy(2, 2, 1, 50, TypePercentage), func(d *Discount) { d.GetCollectionIDs = []int64{2} }),
			freeShip(3, 10000),
		},
	}
	in.Code.CollectionIDs = []int64{1, 4}
	for i := range 50 {
		in.Lines = append(in.Lines, inCollections(ln(int64(i), int64(i+1), int64(199+i*137%5000), int64(1+i%4)), int64(i%5)))
	}
	b.ReportAllocs()
	for b.Loop() {
		Price(in)
	}
}
