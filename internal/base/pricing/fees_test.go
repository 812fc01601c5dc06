package pricing

import "testing"

// TestSurchargeAndTip: the handling surcharge and the tip are shares of the
// goods (the subtotal less the product or order discount), rounded half up,
// the surcharge capped, a custom tip bounded; neither is taxed, and each
// enters the total once.
func TestSurchargeAndTip(t *testing.T) {
	tenPercentOff := []Discount{fixed(1, 1000, AppliesToAll)}
	for _, c := range []struct {
		name                  string
		in                    Input
		surcharge, tip, total int64
	}{
		{
			name: "both, after the discount, untaxed",
			in: Input{Lines: []Line{ln(1, 1, 5500, 2)}, Automatic: tenPercentOff, Shipping: ship(500), TaxBps: 2000, TaxShipping: true,
				Surcharge: Surcharge{Bps: 250, CapCents: 1000}, Tip: Tip{Percent: 15}},
			// goods 10,000; tax 20% of 10,000 + 500 = 2,100
			surcharge: 250, tip: 1500, total: 11000 - 1000 + 500 + 2100 + 250 + 1500,
		},
		{
			name:      "half a cent rounds up",
			in:        Input{Lines: []Line{ln(1, 1, 1010, 1)}, Surcharge: Surcharge{Bps: 150, CapCents: 100}, Tip: Tip{Percent: 5}},
			surcharge: 15, tip: 51, total: 1010 + 15 + 51, // 15.15 and 50.5
		},
		{
			name:      "below a half rounds down",
			in:        Input{Lines: []Line{ln(1, 1, 1030, 1)}, Surcharge: Surcharge{Bps: 150, CapCents: 100}},
			surcharge: 15, total: 1030 + 15, // 15.45
		},
		{
			name:      "the cap",
			in:        Input{Lines: []Line{ln(1, 1, 100000, 1)}, Surcharge: Surcharge{Bps: 1000, CapCents: 2500}},
			surcharge: 2500, total: 102500,
		},
		{
			name:  "a cap of 0 charges nothing",
			in:    Input{Lines: []Line{ln(1, 1, 100000, 1)}, Surcharge: Surcharge{Bps: 1000}},
			total: 100000,
		},
		{
			name:      "bps beyond 10,000 is the whole goods",
			in:        Input{Lines: []Line{ln(1, 1, 800, 1)}, Surcharge: Surcharge{Bps: 50000, CapCents: 5000}},
			surcharge: 800, total: 1600,
		},
		{
			name: "a custom tip within its bound",
			in:   Input{Lines: []Line{ln(1, 1, 10000, 1)}, Tip: Tip{AmountCents: 1999, MaxPercent: 20}},
			tip:  1999, total: 11999,
		},
		{
			name: "a custom tip above its bound stops at it, rounded down",
			in:   Input{Lines: []Line{ln(1, 1, 10005, 1)}, Tip: Tip{AmountCents: 3000, MaxPercent: 20}},
			tip:  2001, total: 12006, // 20% of 10,005 is 2,001
		},
		{
			name: "an amount without a bound is taken whole",
			in:   Input{Lines: []Line{ln(1, 1, 1000, 1)}, Tip: Tip{AmountCents: 5000}},
			tip:  5000, total: 6000,
		},
		{
			name: "a fully discounted order has no goods to share",
			in: Input{Lines: []Line{ln(1, 1, 700, 1)}, Automatic: []Discount{pct(1, 100, AppliesToAll)}, Shipping: ship(300),
				Surcharge: Surcharge{Bps: 500, CapCents: 500}, Tip: Tip{Percent: 10}},
			total: 300,
		},
	} {
		got := Price(c.in)
		checkInvariants(t, c.in, got)
		if got.SurchargeCents != c.surcharge || got.TipCents != c.tip || got.TotalCents != c.total {
			t.Errorf("%s: surcharge %d, tip %d, total %d; want %d, %d, %d", c.name, got.SurchargeCents, got.TipCents, got.TotalCents,
				c.surcharge, c.tip, c.total)
		}
	}
	// Neither changes the tax or the lines' shares.
	base := Input{Lines: []Line{ln(1, 1, 5500, 2)}, Automatic: tenPercentOff, Shipping: ship(500), TaxBps: 2000, TaxShipping: true}
	with := base
	with.Surcharge, with.Tip = Surcharge{Bps: 250, CapCents: 1000}, Tip{Percent: 15}
	a, b := Price(base), Price(with)
	if a.TaxCents != b.TaxCents || a.Lines[0] != b.Lines[0] || b.TotalCents-a.TotalCents != b.SurchargeCents+b.TipCents {
		t.Errorf("without %+v, with %+v", a, b)
	}
}
