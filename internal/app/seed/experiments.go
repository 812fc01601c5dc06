package seed

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"sort"
	"time"

	"github.com/uptrace/bun"

	"storeadmin/internal/base/apperr"
	"storeadmin/internal/experiments"
	"storeadmin/internal/storefront"
	"storeadmin/models"
)

// The A/B tests (README "A/B tests"), one of each life: a running theme
// test with a real winner, a running price test, a paused content test,
// an ended theme test whose report named its winner, a draft shipping
// test, and the store in a pooled platform test. Written as the API
// writes them (internal/experiments, models' transitions), and their
// traffic sent as the storefront sends it: each visitor is given the arm
// the server's assignment gives it (LiveExperiment.Assign), sees the
// tested surface (an experiment_view event, through storefront.Ingest,
// which records the exposure), and then adds to cart, reaches checkout
// and orders with the chances its arm's truth says (abRates), its order
// placed through the checkout's own functions (scBasket: a price test's
// arm price is what the order is charged). So every report's truth is
// known: abTests says it.

// abRates is the truth an arm's exposed visitors are drawn from: the
// chance that one adds to cart, reaches checkout and orders, nested (one
// draw decides all three: an order is a checkout is an add).
type abRates struct{ add, checkout, order float64 }

// abPause is a pause of a test's life: from, and resumed at to (zero:
// still paused).
type abPause struct {
	from, to time.Time
	reason   string
}

// abTest is a seeded test: what it tests, the truth of each arm, its life
// and how many visitors arrive while it runs.
type abTest struct {
	name, kind, metric string
	surface            any
	arms               []models.ExperimentArmSpec
	truth              []abRates
	pool               string // the pool the store joins for it ("": its own test)
	start, end         time.Time
	pauses             []abPause
	visitors           int
	path               string // where the surface is seen
	// product is what its visitors look at and buy (nil: what shoppers
	// buy, never the price test's product, whose price depends on the
	// price test's own life).
	product *models.CatalogueVariant
}

// abPoolKey is the platform's pooled test the seeded store joins.
const abPoolKey = "faq-sizing-first"

// abSessionReturn is the chance an exposed visitor comes back, one to six
// days later.
const abSessionReturn = 0.3

// abConsent is the chance a visitor accepts the consent banner.
const abConsent = 0.8

// experimentTests seeds the store's A/B tests, unless it has some.
func experimentTests(ctx context.Context, tx bun.Tx, storeID int64, now time.Time) error {
	existing, err := models.ListExperiments(ctx, tx, storeID)
	if err != nil || len(existing) > 0 {
		return err
	}
	shop, err := scShopOf(ctx, tx, storeID)
	if err != nil || shop == nil {
		return err
	}
	tests, err := abTests(ctx, tx, storeID, shop, now)
	if err != nil || tests == nil {
		return err
	}
	if err := models.SetMoneyOptIn(ctx, tx, storeID, true, now.AddDate(0, 0, -70)); err != nil {
		return err
	}
	if err := abPool(ctx, tx, now); err != nil {
		return err
	}
	s := &abSeeder{shop: shop, rng: rand.New(rand.NewPCG(uint64(storeID), 20)), limit: now.Add(-time.Hour)}
	for _, t := range tests {
		if t.product != nil {
			s.priced = t.product.ProductID
		}
	}
	for _, t := range tests {
		if err := s.run(ctx, tx, t); err != nil {
			return fmt.Errorf("%s: %w", t.name, err)
		}
	}
	return nil
}

// abTests are the store's tests as of now; nil when the store has no live
// theme with two published versions, no shipping page or no product for
// the price test.
func abTests(ctx context.Context, tx bun.IDB, storeID int64, shop *scShop, now time.Time) ([]abTest, error) {
	themeID, version, _, _, err := models.LiveThemeTestBase(ctx, tx, storeID)
	if err != nil || version < 2 {
		return nil, missing(err)
	}
	shippingPage, err := models.PageIDByHandle(ctx, tx, storeID, "shipping-policy")
	if err != nil {
		return nil, missing(err)
	}
	var rate models.ShippingRate
	if err := tx.NewSelect().Model(&rate).Where("store_id = ? AND price_cents > 0", storeID).Order("price_cents DESC", "id").Limit(1).Scan(ctx); err != nil {
		return nil, err
	}
	beanie := abPriceProduct(shop)
	if beanie == nil {
		return nil, nil
	}
	days := func(n int) time.Time { return now.AddDate(0, 0, -n) }
	control := models.ExperimentArmSpec{Name: "Control", Payload: map[string]any{}, SplitPct: 50}
	arm := func(name string, payload map[string]any) models.ExperimentArmSpec {
		return models.ExperimentArmSpec{Name: name, Payload: payload, SplitPct: 50}
	}
	settings := func(group string, values map[string]any) map[string]any {
		return map[string]any{"settings": map[string]any{group: values}}
	}
	return []abTest{
		{
			// Ended five weeks ago; its report found the three-column grid
			// the winner, and the ending recorded it.
			name: "Product grid: three columns", kind: models.ExperimentKindTheme, metric: models.MetricAddToCart,
			surface: map[string]any{"theme_id": themeID, "version": version - 1},
			arms:    []models.ExperimentArmSpec{control, arm("Three columns", settings("product_grid", map[string]any{"columns": 3}))},
			truth:   []abRates{{0.08, 0.03, 0.008}, {0.12, 0.04, 0.01}},
			start:   days(63), end: days(35), visitors: 2000, path: "/collections/all",
		},
		{
			// Paused four days ago while legal reviews the promise.
			name: "Shipping page: lead with the free-shipping promise", kind: models.ExperimentKindContent, metric: models.MetricCheckout,
			surface: map[string]any{"page_id": shippingPage},
			arms: []models.ExperimentArmSpec{control, arm("Promise first", map[string]any{
				"title": "Free shipping over $75, out the door today"})},
			truth: []abRates{{0.06, 0.03, 0}, {0.065, 0.034, 0}},
			start: days(30), pauses: []abPause{{from: days(4), reason: "Legal is reviewing the same-day promise"}},
			visitors: 800, path: "/pages/shipping-policy",
		},
		{
			// Running: a tenth more for the beanie. Orders pay the arm's price.
			name: "Beanie price: ten percent more", kind: models.ExperimentKindPrice, metric: models.MetricConversion,
			surface: map[string]any{"product_ids": []any{beanie.ProductID}},
			arms: []models.ExperimentArmSpec{{Name: "Catalogue price", Payload: map[string]any{"price_change_pct": 0}, SplitPct: 50},
				arm("Ten percent more", map[string]any{"price_change_pct": 10})},
			truth: []abRates{{0.12, 0.07, 0.045}, {0.11, 0.06, 0.038}},
			start: days(12), visitors: 1200, path: "/products/" + beanie.ProductHandle, product: beanie,
		},
		{
			// Running, paused for a day to fix the bar, with a real
			// winner: the announcement bar lifts adds to cart by half.
			name: "Announcement bar: free shipping over $75", kind: models.ExperimentKindTheme, metric: models.MetricAddToCart,
			surface: map[string]any{"theme_id": themeID, "version": version},
			arms: []models.ExperimentArmSpec{control, arm("Free-shipping bar", settings("announcement", map[string]any{
				"enabled": true, "text": "Free shipping on orders over $75"}))},
			truth:    []abRates{{0.09, 0.035, 0.01}, {0.1215, 0.045, 0.013}},
			start:    days(21),
			pauses:   []abPause{{from: days(13), to: days(12), reason: "The bar covered the menu on small phones"}},
			visitors: 3000, path: "/",
		},
		{
			// The platform's pooled test the store joined.
			name: "FAQ: sizing first", pool: abPoolKey, metric: models.MetricAddToCart,
			truth: []abRates{{0.05, 0.02, 0}, {0.055, 0.022, 0}},
			start: days(18), visitors: 800, path: "/pages/faq",
		},
		{
			// A draft: a dollar off the store's dearest rate.
			name: "Express shipping a dollar cheaper", kind: models.ExperimentKindShipping, metric: models.MetricConversion,
			surface: map[string]any{"shipping_rate_id": rate.ID},
			arms:    []models.ExperimentArmSpec{control, arm("A dollar off", map[string]any{"price_cents": max(rate.PriceCents-100, 0)})},
			start:   time.Time{},
		},
	}, nil
}

// missing is err, but nil for the 409 of what the store does not have
// (models' LiveThemeTestBase, PageIDByHandle): the store has no tests then.
func missing(err error) error {
	if apperr.CodeOf(err) == apperr.Conflict {
		return nil
	}
	return err
}

// abPriceProduct is the price test's product: the first active product
// whose variant sells for $20 or more and goes on selling out of stock
// (so that the test's orders never run it out).
func abPriceProduct(shop *scShop) *models.CatalogueVariant {
	for _, id := range shop.variantIDs {
		v := shop.variants[id]
		if v.ProductStatus == models.ProductActive && v.PriceCents >= 2000 && v.InventoryPolicy == models.InventoryContinue {
			return &v
		}
	}
	return nil
}

// abPool creates the platform's pooled test the store joins, through what
// the operators' CLI runs, unless it exists (another store's seed made it).
func abPool(ctx context.Context, tx bun.Tx, now time.Time) error {
	_, _, err := models.LockPool(ctx, tx, abPoolKey)
	if apperr.CodeOf(err) != apperr.NotFound {
		return err
	}
	floor, stores := int64(100), int64(5)
	_, err = experiments.CreatePool(ctx, tx, experiments.PoolDefinition{
		Key: abPoolKey, Name: "FAQ: sizing first", Kind: models.ExperimentKindContent, Metric: models.MetricAddToCart,
		Surface: map[string]any{"page_handle": "faq"}, StoreFloor: &floor, MinStores: &stores,
		Arms: []models.ExperimentArmSpec{
			{Name: "Control", Payload: map[string]any{}, SplitPct: 50},
			{Name: "Sizing first", Payload: map[string]any{"title": "Sizing, changes and repairs: your questions answered"}, SplitPct: 50},
		},
	}, now.AddDate(0, 0, -30))
	return err
}

// abSeeder plays the tests' lives and traffic.
type abSeeder struct {
	shop   *scShop
	rng    *rand.Rand
	limit  time.Time // traffic ends an hour ago
	n      int       // visitors drawn so far, for their ids
	priced int64     // the price test's product
}

// abVisit is a visitor's session of a test's traffic: its events, and the
// cart it orders when it orders.
type abVisit struct {
	at     time.Time
	events []models.StagedEvent
	order  []models.LineAsk
}

// run creates t, starts it and plays its life, sending its traffic in time
// order: the visits before each transition are stored before it (an
// exposure is recorded only while the test runs).
func (s *abSeeder) run(ctx context.Context, tx bun.Tx, t abTest) error {
	sid := s.shop.store.ID
	var e *models.Experiment
	var err error
	if t.pool != "" {
		if e, err = experiments.Join(ctx, tx, sid, t.pool, t.start); err != nil {
			return err
		}
	} else {
		sh, err := experiments.Shape(ctx, tx, sid, models.Platform{}, t.kind, t.metric, t.surface, t.arms)
		if err != nil {
			return err
		}
		created := s.limit.AddDate(0, 0, -2)
		if !t.start.IsZero() {
			created = t.start.AddDate(0, 0, -2)
		}
		if e, err = models.CreateExperiment(ctx, tx, sid, t.name, sh, nil, created); err != nil {
			return err
		}
		if t.start.IsZero() {
			return nil // a draft
		}
		if err := s.change(ctx, tx, e.ID, func(e *models.Experiment) error {
			return experiments.Start(ctx, tx, e, models.Platform{}, t.start)
		}); err != nil {
			return err
		}
	}
	live, err := models.LiveExperimentOf(ctx, tx, sid, e.ID)
	if err != nil {
		return err
	}
	visits := s.traffic(live, t)

	// The transitions, in time order, each after the visits before it.
	type step struct {
		at time.Time
		do func(e *models.Experiment) error
	}
	var steps []step
	for _, p := range t.pauses {
		steps = append(steps, step{p.from, func(e *models.Experiment) error { return models.PauseExperiment(ctx, tx, e, p.reason, p.from) }})
		if !p.to.IsZero() {
			steps = append(steps, step{p.to, func(e *models.Experiment) error { return models.ResumeExperiment(ctx, tx, e, p.to) }})
		}
	}
	if !t.end.IsZero() {
		steps = append(steps, step{t.end, func(e *models.Experiment) error { return experiments.End(ctx, tx, e, nil, t.end) }})
	}
	steps = append(steps, step{s.limit, nil})
	for _, st := range steps {
		n := sort.Search(len(visits), func(i int) bool { return !visits[i].at.Before(st.at) })
		if err := s.send(ctx, tx, visits[:n]); err != nil {
			return err
		}
		visits = visits[n:]
		if st.do != nil {
			if err := s.change(ctx, tx, e.ID, st.do); err != nil {
				return err
			}
		}
	}
	return nil
}

// change runs a transition on the experiment id, its row locked, as the
// API's transitions do.
func (s *abSeeder) change(ctx context.Context, tx bun.Tx, id int64, do func(e *models.Experiment) error) error {
	e, err := models.LockExperiment(ctx, tx, s.shop.store.ID, id)
	if err != nil {
		return err
	}
	return do(e)
}

// traffic draws t's visitors: each arrives while the test runs (its
// windows between start, pauses and end), sees the surface in its first
// session and acts by its arm's truth; some are bots (never exposures);
// some come back later. Visits in time order.
func (s *abSeeder) traffic(live *models.LiveExperiment, t abTest) []abVisit {
	stop := s.limit
	if !t.end.IsZero() {
		stop = t.end
	}
	type window struct{ from, to time.Time }
	var windows []window
	from := t.start
	for _, p := range t.pauses {
		windows = append(windows, window{from, p.from})
		from = p.to
		if p.to.IsZero() {
			from = stop
		}
	}
	if from.Before(stop) {
		windows = append(windows, window{from, stop})
	}
	var total time.Duration
	for _, w := range windows {
		total += w.to.Sub(w.from)
	}
	arrive := func() time.Time {
		d := time.Duration(s.rng.Float64() * float64(total))
		for _, w := range windows {
			if span := w.to.Sub(w.from); d < span {
				return w.from.Add(d)
			} else {
				d -= span
			}
		}
		return windows[len(windows)-1].to.Add(-time.Second)
	}

	var visits []abVisit
	for range t.visitors {
		s.n++
		anon := fmt.Sprintf("seed-ab-v%d", s.n)
		agent := trafficAgents[weighted(s.rng, len(trafficAgents), func(i int) float64 { return trafficAgents[i].weight })]
		place := trafficPlaces[weighted(s.rng, len(trafficPlaces), func(i int) float64 { return trafficPlaces[i].weight })]
		utm, referrer := trafficLanding(s.rng)
		consent := s.rng.Float64() < abConsent
		at := arrive()
		arm := live.Assign(anon)
		u := s.rng.Float64()
		truth := t.truth[arm.Position-1]

		v := abVisit{at: at}
		event := func(name string, set func(e *models.StagedEvent)) {
			e := models.StagedEvent{Ord: len(v.events), ClientEventID: fmt.Sprintf("%s-1-%d", anon, len(v.events)), AnonID: anon,
				ClientSessionID: anon + "-1", Name: name, OccurredAt: at.Add(time.Duration(len(v.events)*30) * time.Second).UTC()}
			if set != nil {
				set(&e)
			}
			v.events = append(v.events, e)
		}
		event(storefront.EventPageView, func(e *models.StagedEvent) {
			e.Path, e.UTM, e.Referrer, e.Consent = ptr(t.path), utm, referrer, &consent
		})
		event(storefront.EventExperimentView, func(e *models.StagedEvent) { e.Experiment = live.Key })
		product := t.product
		if product == nil {
			p := s.shop.variants[s.shop.variantIDs[s.rng.IntN(len(s.shop.variantIDs))]]
			product = &p
		}
		event(storefront.EventProductView, func(e *models.StagedEvent) {
			e.ProductID, e.ProductTitle = &product.ProductID, &product.ProductTitle
		})
		if u < truth.order {
			v.order = s.basket(t)
		}
		switch {
		case v.order != nil:
		case u < truth.add:
			event(storefront.EventAddToCart, func(e *models.StagedEvent) { e.ProductID, e.Quantity = &product.ProductID, ptr(int64(1)) })
			if u < truth.checkout {
				event(storefront.EventCheckoutStep, func(e *models.StagedEvent) { e.Step = ptr("contact") })
			}
		}
		ip := fmt.Sprintf(place.ip, 1+s.n%250)
		storefront.EnrichAt(v.events, storefront.Client{UserAgent: agent.ua, IP: ip}, place.place, storefront.IPTruncated)
		if v.events[0].IsBot {
			v.events, v.order = v.events[:2], nil // a crawler looks and leaves
		}
		visits = append(visits, v)

		if back := at.Add(time.Duration(24+s.rng.IntN(5*24)) * time.Hour); !v.events[0].IsBot && s.rng.Float64() < abSessionReturn && back.Before(s.limit) {
			r := abVisit{at: back}
			for i, name := range []string{storefront.EventPageView, storefront.EventProductView} {
				e := models.StagedEvent{Ord: i, ClientEventID: fmt.Sprintf("%s-2-%d", anon, i), AnonID: anon, ClientSessionID: anon + "-2",
					Name: name, OccurredAt: back.Add(time.Duration(i*45) * time.Second).UTC()}
				if i == 0 {
					e.Path, e.Consent = ptr("/"), &consent // the browser remembers the answer
				} else {
					e.ProductID, e.ProductTitle = &product.ProductID, &product.ProductTitle
				}
				r.events = append(r.events, e)
			}
			storefront.EnrichAt(r.events, storefront.Client{UserAgent: agent.ua, IP: ip}, place.place, storefront.IPTruncated)
			visits = append(visits, r)
		}
	}
	slices.SortStableFunc(visits, func(a, b abVisit) int { return a.at.Compare(b.at) })
	return visits
}

// basket is what a visitor of t who orders buys: t's product, or what
// shoppers buy without the price test's product; nil when the catalogue
// has nothing else in stock.
func (s *abSeeder) basket(t abTest) []models.LineAsk {
	if t.product != nil {
		return []models.LineAsk{{VariantID: t.product.ID, Quantity: 1}}
	}
	for range 20 {
		asks := slices.DeleteFunc(s.shop.asks(s.rng), func(a models.LineAsk) bool {
			return s.shop.variants[a.VariantID].ProductID == s.priced
		})
		if len(asks) > 0 {
			return asks
		}
	}
	return nil // a catalogue of little but the price test's product: no order
}

// send stores visits' events as the storefront's POST /events does, then
// places the orders of those who order, in their sessions, through the
// checkout (scBasket).
func (s *abSeeder) send(ctx context.Context, tx bun.Tx, visits []abVisit) error {
	if len(visits) == 0 {
		return nil
	}
	sid := s.shop.store.ID
	var events []models.StagedEvent
	var ordering []string
	for _, v := range visits {
		events = append(events, v.events...)
		if v.order != nil {
			ordering = append(ordering, v.events[0].ClientSessionID)
		}
	}
	// The events in bulk (no foreign-key checks: every reference the
	// ingestion writes is to a row it wrote or looked up a moment before),
	// the orders not.
	if err := models.PrepareBulkIngest(ctx, tx); err != nil {
		return err
	}
	for len(events) > 0 {
		n := min(len(events), trafficChunk)
		if _, err := storefront.Ingest(ctx, tx, sid, events[:n]); err != nil {
			return err
		}
		events = events[n:]
	}
	if err := models.EndBulkIngest(ctx, tx); err != nil {
		return err
	}
	if len(ordering) == 0 {
		return nil
	}
	var sessions []struct {
		ID              int64  `bun:"id"`
		VisitorID       int64  `bun:"visitor_id"`
		ClientSessionID string `bun:"client_session_id"`
	}
	if err := tx.NewSelect().Table("storefront_sessions").Column("id", "visitor_id", "client_session_id").
		Where("store_id = ? AND client_session_id IN (?)", sid, bun.List(ordering)).Scan(ctx, &sessions); err != nil {
		return err
	}
	byClient := map[string]int{}
	for i, ss := range sessions {
		byClient[ss.ClientSessionID] = i
	}
	for _, v := range visits {
		if v.order == nil {
			continue
		}
		ss := sessions[byClient[v.events[0].ClientSessionID]]
		buyer := s.shop.buyers[s.rng.IntN(len(s.shop.buyers))]
		for buyer.ShippingAddress == nil { // a checkout without an address is never completed
			buyer = s.shop.buyers[s.rng.IntN(len(s.shop.buyers))]
		}
		c := &models.Cart{StoreID: sid, Currency: s.shop.store.Currency, VisitorID: &ss.VisitorID, SessionID: &ss.ID}
		c.Email, c.MarketingConsent = buyer.Email, s.rng.IntN(3) > 0
		if err := scBasket(ctx, tx, s.shop, c, buyer, v.order, scCompleted, s.rng, v.events[len(v.events)-1].OccurredAt.Add(time.Minute)); err != nil {
			return err
		}
	}
	return nil
}
