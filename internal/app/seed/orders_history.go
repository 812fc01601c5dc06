package seed

import (
	"fmt"
	"math"
	"slices"
	"time"

	"storeadmin/models"
)

// ordHourWeights is when people shop, by local hour.
var ordHourWeights = []float64{0.6, 0.35, 0.2, 0.15, 0.15, 0.25, 0.5, 0.9, 1.2, 1.4, 1.5, 1.55,
	1.6, 1.5, 1.4, 1.4, 1.45, 1.6, 1.8, 2.0, 2.1, 1.9, 1.5, 1.0}

// ordWeekdayFactor scales a day's orders: Sunday evenings and Mondays sell
// best, Fridays worst.
var ordWeekdayFactor = map[time.Weekday]float64{
	time.Sunday: 1.25, time.Monday: 1.1, time.Tuesday: 0.95, time.Wednesday: 0.95, time.Thursday: 1.0,
	time.Friday: 0.85, time.Saturday: 1.1,
}

// slots are the times orders were placed, oldest first.
func (g *ordGen) slots() []time.Time {
	start := g.now.Add(-ordDays * 24 * time.Hour)
	first := g.localDay(start)
	var out []time.Time
	for day := first; day.Before(g.now); day = day.AddDate(0, 0, 1) {
		frac := float64(day.Sub(first)) / float64(ordDays*24*time.Hour)
		mean := ordPerDay * (0.85 + 0.35*frac) * ordWeekdayFactor[day.Weekday()] * (1 + 0.12*g.rng.NormFloat64())
		if !day.Before(g.promo[0]) && day.Before(g.promo[1]) {
			mean *= 1.8
		}
		for range int(math.Round(max(mean, 3))) {
			h := g.weighted(ordHourWeights...)
			at := time.Date(day.Year(), day.Month(), day.Day(), h, g.rng.IntN(60), g.rng.IntN(60), 0, g.loc)
			if at.After(start) && at.Before(g.now.Add(-time.Minute)) {
				out = append(out, at.UTC())
			}
		}
	}
	slices.SortFunc(out, func(a, b time.Time) int { return a.Compare(b) })
	return out
}

func (g *ordGen) generate() {
	slots := g.slots()
	owners := make([]*ordCustomer, len(slots))
	var open []int
	for i := range slots {
		if g.rng.Float64() >= 0.05 { // a few guest checkouts
			open = append(open, i)
		}
	}
	var pool []*ordCustomer
	for len(pool) < len(open) {
		c := g.person()
		c.orders = min(g.orderCount(), len(open)-len(pool))
		if c.orders >= 4 && g.rng.Float64() < 0.05 {
			c.wholesale = true
			c.company = ordCompanies[len(g.customers)%len(ordCompanies)]
			c.c.AcceptsMarketing = true
			for _, a := range []map[string]any{c.shipping, c.billing} {
				a["company"], a["address2"] = c.company, "Receiving dock"
			}
		}
		g.customers = append(g.customers, c)
		for range c.orders {
			pool = append(pool, c)
		}
	}
	g.rng.Shuffle(len(pool), func(i, j int) { pool[i], pool[j] = pool[j], pool[i] })
	for k, i := range open {
		owners[i] = pool[k]
	}
	for i, at := range slots {
		g.build(at, owners[i])
	}
}

// build makes one order placed at created, by c (nil: a guest), and plans
// what of its life is decided at checkout.
func (g *ordGen) build(created time.Time, c *ordCustomer) {
	oo := &ordOrder{cust: c, last: created}
	g.orders = append(g.orders, oo)
	buyer := c
	if buyer == nil {
		buyer = g.person()
	}
	oo.country, oo.region = buyer.country, buyer.region
	domestic := buyer.country.currency == g.currency
	o := &oo.o
	*o = models.Order{
		StoreID: g.storeID, Currency: g.currency, Email: buyer.c.Email,
		Source: "web", CreatedAt: created, Tags: []string{}, SystemTags: []string{},
	}
	switch {
	case c != nil && c.wholesale:
		o.Source = "draft_order"
	case domestic && buyer.country.code == "US" && g.rng.Float64() < 0.05:
		o.Source = "pos"
	case g.rng.Float64() < 0.025:
		o.Source = "draft_order"
	}
	pos := o.Source == "pos"
	if c == nil && pos && g.rng.Float64() < 0.5 {
		o.Email = "" // a walk-in who gave no email
	}
	if !pos {
		o.ShippingAddress, o.BillingAddress = buyer.shipping, buyer.billing
	} else if o.Email != "" {
		o.BillingAddress = buyer.billing
	}
	if o.Source == "web" {
		t := created.Add(-g.dur(90*time.Second, 25*time.Minute)).Truncate(time.Second)
		o.CheckoutStartedAt = &t
		o.Attribution = g.attribution(created)
	}
	if c != nil {
		if c.placed >= 4 {
			o.Tags = append(o.Tags, "vip")
		}
		if c.wholesale {
			o.Tags = append(o.Tags, "wholesale")
			o.Note = fmt.Sprintf("PO #%d. Net 30 on the balance.", 4000+g.rng.IntN(6000))
		}
	}
	if o.Source != "web" {
		o.SystemTags = append(o.SystemTags, o.Source)
	}

	g.lines(oo, buyer)

	// Money.
	var sub int64
	for _, l := range oo.lines {
		sub += l.PriceCents * l.Quantity
	}
	o.SubtotalCents = sub
	g.shipping(oo, domestic)
	g.discount(oo, c)
	if domestic && (c == nil || !c.wholesale) { // wholesale buys for resale, tax exempt
		oo.o.TaxCents = int64(math.Round(float64(sub-o.DiscountCents) * buyer.region.tax))
	}
	if o.Source == "web" && g.rng.Float64() < 0.04 {
		o.TipCents = sub * []int64{10, 15, 20}[g.rng.IntN(3)] / 100
	}
	o.TotalCents = sub - o.DiscountCents + o.ShippingCents + o.TaxCents + o.TipCents

	if o.Source == "web" && o.Note == "" {
		switch r := g.rng.Float64(); {
		case r < 0.05:
			o.Note = ordGiftNotes[g.rng.IntN(len(ordGiftNotes))]
			o.Tags = append(o.Tags, "gift")
			o.SystemTags = append(o.SystemTags, "gift")
		case r < 0.08:
			o.Note = ordDeliveryNotes[g.rng.IntN(len(ordDeliveryNotes))]
		}
	}
	for _, l := range oo.lines {
		if l.BundleGroup != nil {
			o.SystemTags = append(o.SystemTags, "bundle")
			break
		}
	}

	oo.actor = map[string]string{"web": "checkout", "draft_order": "admin", "pos": "api"}[o.Source]
	oo.pay = g.payment(o.Source, c != nil && c.wholesale)
	g.planCancel(oo)
	if o.Note == "" && g.rng.Float64() < 0.03 {
		oo.note = &ordNote{at: created.Add(g.dur(time.Hour, 3*24*time.Hour)), text: ordAdminNotes[g.rng.IntN(len(ordAdminNotes))]}
	}
	if c != nil {
		c.placed++
	}
}

// lines fills the order's lines from the catalogue: popular products more
// often, quantities mostly one.
func (g *ordGen) lines(oo *ordOrder, buyer *ordCustomer) {
	o := &oo.o
	recent := g.now.Sub(o.CreatedAt) < 30*24*time.Hour
	n := 1 + g.weighted(45, 28, 15, 8, 4)
	if o.Source == "draft_order" && buyer.wholesale {
		n = 3 + g.rng.IntN(3)
	}
	used := map[int64]bool{}
	add := func(p *ordProduct, v ordVariant, qty, price int64, original *int64, group, title *string) {
		l := models.OrderLineItem{
			VariantID: &v.id, ProductID: &v.productID, Title: p.title, VariantTitle: v.title, SKU: v.sku,
			PriceCents: price, OriginalPriceCents: original, Quantity: qty, RequiresShipping: o.Source != "pos",
			ImageSrc: v.imageSrc, ImageThumbhash: v.thumbhash, BundleGroup: group, BundleTitle: title, Source: "checkout",
		}
		if original == nil && v.compareAt != nil && *v.compareAt > price {
			ca := *v.compareAt
			l.OriginalPriceCents = &ca
		}
		switch {
		case p.engrave && g.rng.Float64() < 0.35:
			text := ordEngravings[g.rng.IntN(len(ordEngravings))]
			if g.rng.Float64() < 0.5 {
				text = fmt.Sprintf("%c.%c.", buyer.c.FirstName[0], buyer.c.LastName[0])
			}
			l.Properties = map[string]any{"Engraving": text}
		case g.rng.Float64() < 0.015:
			l.Properties = map[string]any{"Gift wrap": "Yes"}
		}
		used[v.id] = true
		oo.lines = append(oo.lines, l)
	}
	pick := func(from []int) (*ordProduct, ordVariant, bool) {
		for range 20 {
			var p *ordProduct
			if from != nil {
				p = &g.products[from[g.rng.IntN(len(from))]]
			} else {
				// Squaring skews towards the front: a few products sell most.
				p = &g.products[int(float64(len(g.products))*math.Pow(g.rng.Float64(), 2.2))]
			}
			if p.archived && recent {
				continue
			}
			v := p.variants[g.rng.IntN(len(p.variants))]
			if !used[v.id] {
				return p, v, true
			}
		}
		return nil, ordVariant{}, false
	}

	// A bundle offer taken at checkout: its lines share a group and the
	// tier's discount.
	if o.Source == "web" && g.rng.Float64() < 0.06 {
		offers := []struct {
			title string
			from  []int
			tiers [][2]int64 // quantity, discount in basis points
		}{
			{"Buy more, save more", nil, [][2]int64{{2, 500}, {3, 1000}}},
			{"Sock drawer refresh", g.socks, [][2]int64{{3, 1000}, {5, 1500}}},
			{"Base layer multipack", g.bases, [][2]int64{{2, 500}, {3, 1000}}},
		}
		offer := offers[g.rng.IntN(len(offers))]
		if offer.from == nil || len(offer.from) > 0 {
			tier := offer.tiers[g.rng.IntN(len(offer.tiers))]
			group := "bndl_" + g.chars("0123456789abcdef", 10)
			title := offer.title
			for left := tier[0]; left > 0; {
				p, v, ok := pick(offer.from)
				if !ok {
					break
				}
				q := min(left, 1+g.rng.Int64N(2))
				left -= q
				orig := v.price
				add(p, v, q, v.price*(10000-tier[1])/10000, &orig, &group, &title)
			}
		}
	}
	for len(oo.lines) < n {
		p, v, ok := pick(nil)
		if !ok {
			break
		}
		qty := int64(1 + g.weighted(76, 17, 5, 1, 1))
		if o.Source == "draft_order" && buyer.wholesale {
			qty = 6 + g.rng.Int64N(19)
		} else if p.sock && g.rng.Float64() < 0.5 {
			qty = 2 + g.rng.Int64N(2)
		}
		add(p, v, qty, v.price, nil, nil, nil)
	}
	if len(oo.lines) == 0 { // every pick collided: take the first variant
		p := &g.products[0]
		add(p, p.variants[0], 1, p.variants[0].price, nil, nil, nil)
	}
}

// shipping picks the shipping method by country and basket.
func (g *ordGen) shipping(oo *ordOrder, domestic bool) {
	o := &oo.o
	if o.Source == "pos" {
		return
	}
	var title, code, carrier string
	var price int64
	switch {
	case !domestic:
		if g.rng.Float64() < 0.7 {
			title, code, price, carrier = "International Standard", "intl_standard", 1995, "DHL"
		} else {
			title, code, price, carrier = "International Express", "intl_express", 3495, []string{"DHL", "FedEx"}[g.rng.IntN(2)]
		}
	case oo.country.code == "PR":
		title, code, price, carrier = "Standard Shipping", "standard", 995, "USPS"
	default:
		switch g.weighted(84, 13, 3) {
		case 0:
			title, code, price, carrier = "Standard Shipping", "standard", 695, []string{"USPS", "UPS"}[g.rng.IntN(2)]
			if o.SubtotalCents >= 7500 {
				title, code, price = "Free Standard Shipping", "free_standard", 0
			}
		case 1:
			title, code, price, carrier = "2-Day Expedited", "expedited", 1495, []string{"UPS", "FedEx"}[g.rng.IntN(2)]
			o.Tags = append(o.Tags, "priority")
		default:
			title, code, price, carrier = "Overnight", "overnight", 2995, "FedEx"
			o.Tags = append(o.Tags, "priority")
		}
	}
	if o.Source == "draft_order" && oo.cust != nil && oo.cust.wholesale {
		title, code, price, carrier = "Freight (LTL)", "freight", 4500, "UPS"
	}
	oo.carrier = carrier
	o.ShippingCents = price
	o.ShippingLine = map[string]any{"title": title, "code": code, "price_cents": price, "carrier": carrier}
}

// discount applies a discount code to about one order in seven (most during
// the flash sale).
func (g *ordGen) discount(oo *ordOrder, c *ordCustomer) {
	o := &oo.o
	if o.Source == "pos" {
		return
	}
	inPromo := !o.CreatedAt.Before(g.promo[0]) && o.CreatedAt.Before(g.promo[1])
	switch {
	case inPromo && g.rng.Float64() < 0.45:
		o.DiscountCode, o.DiscountCents = "FLASH20", o.SubtotalCents*20/100
	case g.rng.Float64() < 0.15:
		switch g.weighted(35, 20, 15, 10, 10) {
		case 0:
			if c == nil || c.placed == 0 {
				o.DiscountCode, o.DiscountCents = "WELCOME10", o.SubtotalCents*10/100
			}
		case 1:
			o.DiscountCode, o.DiscountCents = "TRAIL15", o.SubtotalCents*15/100
		case 2:
			if o.SubtotalCents >= 15000 {
				o.DiscountCode, o.DiscountCents = "SAVE25", 2500
			}
		case 3:
			if o.ShippingCents > 0 {
				o.DiscountCode, o.DiscountCents = "FREESHIP", min(o.ShippingCents, o.SubtotalCents)
			}
		default:
			if c != nil && c.placed >= 2 {
				o.DiscountCode, o.DiscountCents = "VIP20", o.SubtotalCents*20/100
			}
		}
	}
}
