package apitest_test

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/url"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/pgdialect"

	"storeadmin/internal/analytics"
	"storeadmin/internal/app/apitest"
	"storeadmin/internal/app/benchdata"
	"storeadmin/internal/auth"
	"storeadmin/models"
)

// The upsell reports' tests (GET /store/analytics/upsell and
// /store/analytics/upsell/report). Helpers are prefixed up.
//
// The fixture writes the rows the run time will write (funnel runs, their
// offers in every state, the checkouts' routes, orders with upsell lines)
// straight into the tables, as the reports read them whoever wrote them.

// upStart and upDays: the runs spread over two weeks around the
// 2026-11-01 change of clocks in New York.
var (
	upStart = time.Date(2026, 10, 25, 0, 0, 0, 0, time.UTC)
	upDays  = 14
	upUTMs  = []*models.OrderAttribution{nil,
		{UTMSource: "google", UTMMedium: "cpc", UTMCampaign: "autumn", UTMTerm: "tee", UTMContent: "a"},
		{UTMSource: "google", UTMMedium: "cpc", UTMCampaign: "autumn", UTMTerm: "tee", UTMContent: "b"},
		{UTMSource: "facebook", UTMMedium: "social", UTMCampaign: "autumn"},
		{UTMSource: "newsletter", UTMMedium: "email"},
		{UTMCampaign: "orphan"}, {}}
)

// upFixture is one store's funnels, zones and products, and what it made.
type upFixture struct {
	t        testing.TB
	e        *apitest.Env
	store    int64
	rng      *rand.Rand
	funnels  []int64
	names    []string // the funnels' names when their runs entered
	zones    []int64
	products []int64
	tokens   int // checkouts made
}

func (f *upFixture) exec(q string, args ...any) {
	f.t.Helper()
	if _, err := f.e.DB.NewRaw(q, args...).Exec(context.Background()); err != nil {
		f.t.Fatalf("%s: %v", q, err)
	}
}

func (f *upFixture) ids(q string, args ...any) []int64 {
	f.t.Helper()
	var out []int64
	if err := f.e.DB.NewRaw(q, args...).Scan(context.Background(), &out); err != nil {
		f.t.Fatalf("%s: %v", q, err)
	}
	return out
}

// newUpFixture makes a store's three funnels, three zones and four
// products.
func newUpFixture(t testing.TB, e *apitest.Env, storeID int64, seed uint64) *upFixture {
	t.Helper()
	f := &upFixture{t: t, e: e, store: storeID, rng: rand.New(rand.NewPCG(seed, 18))}
	f.names = []string{"Summer", "Bundle builder", "Last chance"}
	f.funnels = f.ids(`INSERT INTO upsell_funnels (store_id, name, timeout_seconds) SELECT ?, n, 900 FROM unnest(?::text[]) AS n RETURNING id`,
		storeID, pgdialect.Array(f.names))
	slices.Sort(f.funnels) // in the order of names: unnest keeps it
	f.zones = f.ids(`INSERT INTO checkout_zones (store_id, name, position) SELECT ?, 'Zone ' || g, g FROM generate_series(1, 3) AS g RETURNING id`, storeID)
	slices.Sort(f.zones)
	f.products = f.ids(`INSERT INTO products (store_id, title, handle) SELECT ?, 'Offer ' || chr(64 + g), 'offer-' || g || '-' || ?
		FROM generate_series(1, 4) AS g RETURNING id`, storeID, storeID)
	slices.Sort(f.products)
	return f
}

// at is a random instant of the fixture's days.
func (f *upFixture) at() time.Time {
	return upStart.Add(time.Duration(f.rng.Int64N(int64(upDays) * int64(24*time.Hour)))).Truncate(time.Second)
}

// seed places n orders through models.PlaceOrders (an authorization each,
// some with an upsell line or two), routes checkouts to them and to carts
// that never became orders, and runs most orders through a funnel with
// offers in every state.
func (f *upFixture) seed(n int) {
	f.t.Helper()
	ctx := context.Background()
	type plan struct {
		at      time.Time
		zone    int // index in zones, -1: none
		funnel  int
		upsells int // upsell lines on the order
		run     bool
	}
	plans := make([]plan, n)
	ps := make([]models.OrderPlacement, n)
	for i := range plans {
		p := plan{at: f.at(), zone: f.rng.IntN(4) - 1, funnel: f.rng.IntN(3), upsells: f.rng.IntN(3), run: f.rng.IntN(8) > 0}
		plans[i] = p
		lines := []models.OrderLineItem{{Title: "Tee", PriceCents: 2000 + int64(f.rng.IntN(900)), Quantity: 1 + int64(f.rng.IntN(2)),
			RequiresShipping: true, Source: "checkout"}}
		for u := range p.upsells {
			product := f.products[f.rng.IntN(len(f.products))]
			lines = append(lines, models.OrderLineItem{Title: fmt.Sprintf("Upsell %d", u), ProductID: &product,
				PriceCents: 500 + int64(f.rng.IntN(500)), Quantity: 1 + int64(f.rng.IntN(3)), RequiresShipping: true, Source: "upsell"})
		}
		var subtotal int64
		for _, l := range lines {
			subtotal += l.PriceCents * l.Quantity
		}
		surcharge := int64(f.rng.IntN(4) * 25)
		o := &models.Order{StoreID: f.store, Email: fmt.Sprintf("up%d@example.com", f.rng.IntN(40)), Currency: "EUR",
			SubtotalCents: subtotal, SurchargeCents: surcharge, TotalCents: subtotal + surcharge, Tags: []string{}, SystemTags: []string{},
			Source: "web", Attribution: upUTMs[f.rng.IntN(len(upUTMs))]}
		ps[i] = models.OrderPlacement{Order: o, Lines: lines, Now: p.at, Actor: "checkout",
			Payment: models.Payment{Kind: models.PaymentAuthorization, Provider: "stripe", Method: "card"}}
	}
	err := f.e.DB.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		_, err := models.PlaceOrders(ctx, tx, ps)
		return err
	})
	if err != nil {
		f.t.Fatal(err)
	}

	// Checkouts: one per order, created a few minutes before it, routed
	// as planned (some to a funnel with no zone, some to none); and carts
	// that never became orders.
	var values []string
	add := func(zone, funnel int, orderID int64, at time.Time) {
		z, fn, o := "NULL", "NULL", "NULL"
		if zone >= 0 {
			z = fmt.Sprint(f.zones[zone])
		}
		if funnel >= 0 {
			fn = fmt.Sprint(f.funnels[funnel])
		}
		if orderID != 0 {
			o = fmt.Sprint(orderID)
		}
		f.tokens++
		values = append(values, fmt.Sprintf("(%d, 'up-%d-%d', 'EUR', %s, %s, %s, '%s', '%s')", f.store, f.store, f.tokens,
			z, fn, o, at.Format(time.RFC3339Nano), at.Add(24*time.Hour).Format(time.RFC3339Nano)))
	}
	for i, p := range plans {
		funnel := p.funnel
		if f.rng.IntN(10) == 0 {
			funnel = -1
		}
		add(p.zone, funnel, ps[i].Order.ID, p.at.Add(-time.Duration(1+f.rng.IntN(30))*time.Minute))
	}
	for range n {
		add(f.rng.IntN(4)-1, f.rng.IntN(3), 0, f.at())
	}
	checkouts := f.ids(`INSERT INTO checkouts (store_id, token, currency, checkout_zone_id, upsell_funnel_id, order_id, created_at, expires_at)
		VALUES ` + strings.Join(values, ", ") + ` RETURNING id`)

	// Runs and their offers.
	var runs []models.FunnelRun
	var runPlans []int
	for i, p := range plans {
		if !p.run {
			continue
		}
		var tx int64
		if err := f.e.DB.NewRaw(`SELECT id FROM order_transactions WHERE order_id = ? ORDER BY id LIMIT 1`, ps[i].Order.ID).Scan(ctx, &tx); err != nil {
			f.t.Fatal(err)
		}
		entered := p.at.Add(time.Duration(f.rng.IntN(90)) * time.Second)
		r := models.FunnelRun{StoreID: f.store, OrderID: ps[i].Order.ID, CheckoutID: &checkouts[i], TransactionID: tx,
			FunnelID: &f.funnels[p.funnel], FunnelName: f.names[p.funnel], ZoneName: "", Status: models.RunCompleted,
			EnteredAt: entered, ExpiresAt: entered.Add(15 * time.Minute), SurchargeCents: ps[i].Order.SurchargeCents}
		if p.zone >= 0 {
			r.ZoneID, r.ZoneName = &f.zones[p.zone], fmt.Sprintf("Zone %d", p.zone+1)
		}
		switch f.rng.IntN(5) {
		case 0:
			r.Status = models.RunTimedOut
		case 1:
			r.Status = models.RunCancelled
		case 2:
			r.Status, r.CurrentPosition = models.RunRunning, int64Ptr(1)
		}
		runs = append(runs, r)
		runPlans = append(runPlans, i)
	}
	if _, err := f.e.DB.NewInsert().Model(&runs).Exec(ctx); err != nil {
		f.t.Fatal(err)
	}
	var offers []models.FunnelRunOffer
	for k, r := range runs {
		i := runPlans[k]
		upsellLines := ps[i].Lines[1:]
		states := []string{models.OfferPending, models.OfferShown, models.OfferDeclined, models.OfferUnavailable}
		positions := 1 + f.rng.IntN(3)
		if len(upsellLines) > positions {
			positions = len(upsellLines)
		}
		accepts := f.rng.Perm(positions)[:len(upsellLines)] // the positions whose accept added each upsell line
		for pos := 1; pos <= positions; pos++ {
			reached := r.EnteredAt.Add(time.Duration(pos) * time.Minute)
			product := f.products[(pos+int(r.OrderID))%len(f.products)]
			o := models.FunnelRunOffer{StoreID: f.store, RunID: r.ID, Position: int64(pos), StepName: fmt.Sprintf("Step %d", pos),
				ProductID: &product, Status: states[f.rng.IntN(len(states))], ReachedAt: reached}
			if f.rng.IntN(2) == 0 {
				o.VariantID = int64Ptr(int64(1000 + pos))
			}
			if at := slices.Index(accepts, pos-1); at >= 0 {
				l := upsellLines[at]
				o.Status, o.LineItemID, o.Quantity, o.AmountCents = models.OfferAccepted, &l.ID, l.Quantity, l.PriceCents*l.Quantity
				o.ProductID = l.ProductID
				if f.rng.IntN(2) == 0 {
					o.ChargedAt = &reached
				}
			}
			if o.Status != models.OfferPending && o.Status != models.OfferUnavailable {
				o.ShownAt = &reached
			}
			if o.Status == models.OfferAccepted || o.Status == models.OfferDeclined {
				o.DecidedAt = &reached
			}
			offers = append(offers, o)
		}
	}
	if _, err := f.e.DB.NewInsert().Model(&offers).Exec(ctx); err != nil {
		f.t.Fatal(err)
	}
	// Orders cancelled before money was taken are in no figure of money;
	// an accepted offer whose line was later removed adds none.
	f.exec(`UPDATE orders SET status = 'cancelled', financial_status = 'voided'
		WHERE id IN (SELECT order_id FROM funnel_runs WHERE store_id = ? AND status = ? AND id % 2 = 0)`, f.store, models.RunCancelled)
	f.exec(`UPDATE funnel_offers SET line_item_id = NULL WHERE id IN (SELECT id FROM funnel_offers WHERE store_id = ? AND status = ? AND id % 9 = 0)`,
		f.store, models.OfferAccepted)
}

// upRows are a store's rows the reports read, read plainly.
type upRows struct {
	runs []struct {
		ID, OrderID          int64
		FunnelID, ZoneID     *int64
		FunnelName, ZoneName string
		Status               string
		EnteredAt            time.Time
	}
	offers []struct {
		ID, RunID, Position              int64
		StepName, Status                 string
		ProductID, VariantID, LineItemID *int64
		Quantity, AmountCents            int64
		ReachedAt                        time.Time
		ShownAt, ChargedAt               *time.Time
	}
	orders []struct {
		ID, Subtotal, Total, Surcharge int64
		Status, Financial              string
		Attribution                    *models.OrderAttribution
	}
	checkouts []struct {
		ZoneID, FunnelID, OrderID *int64
		CreatedAt                 time.Time
	}
	products, zones, funnels map[int64]string
}

func upRead(t testing.TB, e *apitest.Env, storeID int64) upRows {
	t.Helper()
	var r upRows
	scan := func(dest any, q string) {
		if err := e.DB.NewRaw(q, storeID).Scan(context.Background(), dest); err != nil {
			t.Fatal(err)
		}
	}
	scan(&r.runs, `SELECT id, order_id, funnel_id, zone_id, funnel_name, zone_name, status, entered_at FROM funnel_runs WHERE store_id = ?`)
	scan(&r.offers, `SELECT id, run_id, position, step_name, status, product_id, variant_id, line_item_id, quantity, amount_cents,
		reached_at, shown_at, charged_at FROM funnel_offers WHERE store_id = ?`)
	scan(&r.orders, `SELECT id, subtotal_cents AS subtotal, total_cents AS total, surcharge_cents AS surcharge, status,
		financial_status AS financial, attribution FROM orders WHERE store_id = ?`)
	scan(&r.checkouts, `SELECT checkout_zone_id AS zone_id, upsell_funnel_id AS funnel_id, order_id, created_at FROM checkouts WHERE store_id = ?`)
	names := func(q string) map[int64]string {
		var rows []struct {
			ID   int64
			Name string
		}
		scan(&rows, q)
		m := map[int64]string{}
		for _, row := range rows {
			m[row.ID] = row.Name
		}
		return m
	}
	r.products = names(`SELECT id, title AS name FROM products WHERE store_id = ?`)
	r.zones = names(`SELECT id, name FROM checkout_zones WHERE store_id = ?`)
	r.funnels = names(`SELECT id, name FROM upsell_funnels WHERE store_id = ?`)
	return r
}

// upExpect computes both reports by brute force from rows, written from
// README "Upsell" without the reports' SQL.
func upExpect(r upRows, from, to time.Time, interval string, loc *time.Location, limit int) (analytics.AnalyticsUpsellReport, analytics.AnalyticsUpsellDeepReport) {
	in := func(t time.Time) bool { return !t.Before(from) && t.Before(to) }
	type order struct {
		total, subtotal, surcharge int64
		counts                     bool
		utm                        analytics.AnalyticsUTMStat
	}
	orders := map[int64]order{}
	for _, o := range r.orders {
		cancelledUnpaid := o.Status == "cancelled" && slices.Contains([]string{"pending", "authorized", "voided"}, o.Financial)
		u := analytics.AnalyticsUTMStat{Source: "(direct)"}
		if a := o.Attribution; a != nil {
			u = analytics.AnalyticsUTMStat{Source: cmp.Or(a.UTMSource, "(direct)"), Medium: a.UTMMedium, Campaign: a.UTMCampaign, Term: a.UTMTerm, Content: a.UTMContent}
		}
		orders[o.ID] = order{o.Total, o.Subtotal, o.Surcharge, !cancelledUnpaid, u}
	}
	type offer = struct {
		ID, RunID, Position              int64
		StepName, Status                 string
		ProductID, VariantID, LineItemID *int64
		Quantity, AmountCents            int64
		ReachedAt                        time.Time
		ShownAt, ChargedAt               *time.Time
	}
	byRun := map[int64][]offer{}
	for _, o := range r.offers {
		byRun[o.RunID] = append(byRun[o.RunID], o)
	}
	orderRun := map[int64]int64{}
	for _, run := range r.runs {
		orderRun[run.OrderID] = run.ID
	}
	// A run's upsell lines: its accepted offers with a line, when its order counts.
	isLine := func(o offer, ord order) bool {
		return o.Status == models.OfferAccepted && o.LineItemID != nil && ord.counts
	}
	pick := func(v *int64) int64 {
		if v == nil {
			return 0
		}
		return *v
	}
	key := func(id *int64, name string) string {
		if id != nil {
			return fmt.Sprint(*id)
		}
		return "deleted " + name
	}

	rep := analytics.AnalyticsUpsellReport{From: from.In(loc).Format(time.RFC3339), To: to.In(loc).Format(time.RFC3339)}
	deep := analytics.AnalyticsUpsellDeepReport{From: rep.From, To: rep.To, Interval: interval}
	labels := ovLabels(from, to, interval, loc)
	series := map[string]*analytics.AnalyticsUpsellSeriesPoint{}
	for _, l := range labels {
		series[l] = &analytics.AnalyticsUpsellSeriesPoint{Bucket: l}
	}
	type named struct {
		stat     *analytics.AnalyticsFunnelStat
		latest   time.Time
		latestID int64
	}
	funnels := map[string]*named{}
	type step struct {
		stat            *analytics.AnalyticsStepStat
		runAt, offerAt  time.Time
		runID, offerID  int64
		zoneN, funnelN  string
		stepN           string
		product, varint int64
	}
	steps := map[string]*step{}
	utm := map[analytics.AnalyticsUTMStat]*analytics.AnalyticsUTMStat{}
	k := &deep.KPIs
	for _, run := range r.runs {
		if !in(run.EnteredAt) {
			continue
		}
		ord := orders[run.OrderID]
		p := series[ovLabel(run.EnteredAt, interval, loc)]
		rep.Entered++
		p.Entered++
		if run.Status == models.RunCompleted {
			rep.Completed++
		}
		var accepted, lines, revenue int64
		for _, o := range byRun[run.ID] {
			shown := o.ShownAt != nil
			sk := fmt.Sprintf("%s|%s|%d", key(run.ZoneID, run.ZoneName), key(run.FunnelID, run.FunnelName), o.Position)
			s := steps[sk]
			if s == nil {
				s = &step{stat: &analytics.AnalyticsStepStat{ZoneID: pick(run.ZoneID), FunnelID: pick(run.FunnelID), Position: o.Position}}
				steps[sk] = s
			}
			if run.EnteredAt.After(s.runAt) || run.EnteredAt.Equal(s.runAt) && run.ID > s.runID {
				s.runAt, s.runID, s.zoneN, s.funnelN = run.EnteredAt, run.ID, run.ZoneName, run.FunnelName
			}
			if o.ReachedAt.After(s.offerAt) || o.ReachedAt.Equal(s.offerAt) && o.ID > s.offerID {
				s.offerAt, s.offerID, s.stepN, s.product, s.varint = o.ReachedAt, o.ID, o.StepName, pick(o.ProductID), pick(o.VariantID)
			}
			if shown {
				rep.OffersShown++
				p.Shown++
				s.stat.Shown++
			}
			switch o.Status {
			case models.OfferAccepted:
				accepted++
				s.stat.Accepted++
				if o.ChargedAt != nil {
					s.stat.Charged++
				}
			case models.OfferDeclined:
				rep.Declined++
				s.stat.Declined++
			case models.OfferUnavailable:
				k.Unavailable++
				s.stat.Unavailable++
			case models.OfferShown:
				k.Undecided++
				s.stat.Undecided++
			}
			if shown && o.Status != models.OfferAccepted && o.Status != models.OfferDeclined {
				rep.Other++
			}
			if isLine(o, ord) {
				lines++
				revenue += o.AmountCents
				s.stat.Units += o.Quantity
				s.stat.SalesCents += o.AmountCents
			}
		}
		rep.Accepted += accepted
		p.Accepted += accepted
		rep.UpsellLines += lines
		rep.UpsellRevenueCents += revenue
		p.UpsellRevenueCents += revenue
		if lines > 0 {
			rep.UpsellOrders++
			p.UpsellOrders++
		}
		if ord.counts {
			rep.SurchargeCents += ord.surcharge
			k.CohortOrders++
			k.CohortRevenueCents += ord.total
			p.CohortOrders++
			u := ord.utm
			if utm[u] == nil {
				c := u
				utm[u] = &c
			}
			utm[u].OrderCount++
			utm[u].GrossCents += ord.subtotal
			deep.UTMTotalOrders++
			deep.UTMTotalGrossCents += ord.subtotal
		}
		fk := key(run.FunnelID, run.FunnelName)
		fn := funnels[fk]
		if fn == nil {
			fn = &named{stat: &analytics.AnalyticsFunnelStat{FunnelID: pick(run.FunnelID)}}
			funnels[fk] = fn
		}
		if run.EnteredAt.After(fn.latest) || run.EnteredAt.Equal(fn.latest) && run.ID > fn.latestID {
			fn.latest, fn.latestID, fn.stat.Name = run.EnteredAt, run.ID, run.FunnelName
		}
		fn.stat.Entered++
		fn.stat.Accepted += accepted
		fn.stat.RevenueCents += revenue
	}
	rep.TakeRate = analytics.Ratio(rep.Accepted, rep.OffersShown)
	rep.ByFunnel = []analytics.AnalyticsFunnelStat{}
	for _, fn := range funnels {
		fn.stat.AcceptsPerEntry = analytics.Ratio(fn.stat.Accepted, fn.stat.Entered)
		rep.ByFunnel = append(rep.ByFunnel, *fn.stat)
	}
	slices.SortFunc(rep.ByFunnel, func(a, b analytics.AnalyticsFunnelStat) int {
		return cmp.Or(cmp.Compare(b.Entered, a.Entered), strings.Compare(a.Name, b.Name), cmp.Compare(a.FunnelID, b.FunnelID))
	})

	// The routed checkouts, by zone and funnel.
	zf := map[[2]int64]*analytics.AnalyticsZoneFunnelStat{}
	for _, c := range r.checkouts {
		if !in(c.CreatedAt) || c.FunnelID == nil {
			continue
		}
		zk := [2]int64{pick(c.ZoneID), *c.FunnelID}
		s := zf[zk]
		if s == nil {
			s = &analytics.AnalyticsZoneFunnelStat{ZoneID: zk[0], ZoneName: r.zones[zk[0]], FunnelID: zk[1], FunnelName: r.funnels[zk[1]]}
			zf[zk] = s
		}
		p := series[ovLabel(c.CreatedAt, interval, loc)]
		s.Carts++
		p.Carts++
		if c.OrderID == nil || !orders[*c.OrderID].counts {
			continue
		}
		ord := orders[*c.OrderID]
		s.Orders++
		s.RevenueCents += ord.total
		p.Orders++
		p.RevenueCents += ord.total
		var lines, revenue int64
		if run, ok := orderRun[*c.OrderID]; ok {
			for _, o := range byRun[run] {
				if isLine(o, ord) {
					lines++
					revenue += o.AmountCents
				}
			}
		}
		if lines > 0 {
			s.UpsellOrders++
			s.UpsellRevenueCents += revenue
		}
	}
	deep.ByZoneFunnel = []analytics.AnalyticsZoneFunnelStat{}
	for _, s := range zf {
		s.OrderCR = analytics.Ratio(s.Orders, s.Carts)
		s.AOVCents = analytics.DivRound(s.RevenueCents, s.Orders)
		k.Carts += s.Carts
		k.Orders += s.Orders
		k.RevenueCents += s.RevenueCents
		deep.ByZoneFunnel = append(deep.ByZoneFunnel, *s)
	}
	slices.SortFunc(deep.ByZoneFunnel, func(a, b analytics.AnalyticsZoneFunnelStat) int {
		return cmp.Or(strings.Compare(a.ZoneName, b.ZoneName), cmp.Compare(a.ZoneID, b.ZoneID),
			strings.Compare(a.FunnelName, b.FunnelName), cmp.Compare(a.FunnelID, b.FunnelID))
	})

	deep.ByStep = []analytics.AnalyticsStepStat{}
	for _, s := range steps {
		st := *s.stat
		st.ZoneName, st.FunnelName, st.StepName, st.ProductID, st.VariantID = s.zoneN, s.funnelN, s.stepN, s.product, s.varint
		st.ProductTitle = r.products[st.ProductID]
		st.AddRate = analytics.Ratio(st.Accepted, st.Shown)
		deep.ByStep = append(deep.ByStep, st)
	}
	slices.SortFunc(deep.ByStep, func(a, b analytics.AnalyticsStepStat) int {
		return cmp.Or(strings.Compare(a.ZoneName, b.ZoneName), cmp.Compare(a.ZoneID, b.ZoneID), strings.Compare(a.FunnelName, b.FunnelName),
			cmp.Compare(a.FunnelID, b.FunnelID), cmp.Compare(a.Position, b.Position))
	})

	deep.UTM = []analytics.AnalyticsUTMStat{}
	for _, u := range utm {
		deep.UTM = append(deep.UTM, *u)
	}
	slices.SortFunc(deep.UTM, func(a, b analytics.AnalyticsUTMStat) int {
		return cmp.Or(cmp.Compare(b.GrossCents, a.GrossCents), cmp.Compare(b.OrderCount, a.OrderCount), strings.Compare(a.Source, b.Source),
			strings.Compare(a.Medium, b.Medium), strings.Compare(a.Campaign, b.Campaign), strings.Compare(a.Term, b.Term),
			strings.Compare(a.Content, b.Content))
	})
	deep.UTM = deep.UTM[:min(limit, len(deep.UTM))]

	for _, l := range labels {
		p := series[l]
		p.UpsellCR = analytics.Ratio(p.Accepted, p.Shown)
		p.OrderCR = analytics.Ratio(p.Orders, p.Carts)
		deep.Series = append(deep.Series, *p)
	}
	k.Entered, k.Completed, k.OffersShown, k.Accepted, k.Declined = rep.Entered, rep.Completed, rep.OffersShown, rep.Accepted, rep.Declined
	k.UpsellOrders, k.UpsellRevenueCents, k.SurchargeCents = rep.UpsellOrders, rep.UpsellRevenueCents, rep.SurchargeCents
	k.UpsellCR = analytics.Ratio(k.Accepted, k.OffersShown)
	k.UpsellOrderCR = analytics.Ratio(k.UpsellOrders, k.CohortOrders)
	k.OrderCR = analytics.Ratio(k.Orders, k.Carts)
	k.AOVCents = analytics.DivRound(k.RevenueCents, k.Orders)
	return rep, deep
}

// upGet reads a report over REST and decodes its payload key into out.
func upGet(t *testing.T, e *apitest.Env, key, path, payload string, query url.Values, out any) *apitest.Response {
	t.Helper()
	r := e.Do(http.MethodGet, path+"?"+query.Encode(), key, nil).Expect(t, http.StatusOK)
	expectPayload(t, r, payload)
	raw, _ := json.Marshal(r.Body[payload])
	if err := json.Unmarshal(raw, out); err != nil {
		t.Fatal(err)
	}
	return r
}

// upWindows are random windows of dates and date-times around the
// fixture's days, some running past them.
func upWindows(rng *rand.Rand, loc *time.Location, maxDays int) []ovWindow {
	var out []ovWindow
	first := time.Date(upStart.Year(), upStart.Month(), upStart.Day(), 0, 0, 0, 0, loc).AddDate(0, 0, -1)
	for i := range 4 {
		start := first.AddDate(0, 0, rng.IntN(upDays+2-maxDays))
		days := 1 + rng.IntN(maxDays)
		if i%2 == 0 {
			end := start.AddDate(0, 0, days-1)
			out = append(out, ovWindow{url.Values{"from": {start.Format(time.DateOnly)}, "to": {end.Format(time.DateOnly)}}, start, end.AddDate(0, 0, 1)})
			continue
		}
		from := start.Add(time.Duration(rng.Int64N(int64(24 * time.Hour)))).Truncate(time.Second)
		to := from.Add(time.Duration(days)*24*time.Hour - time.Duration(rng.Int64N(int64(20*time.Hour)))).Truncate(time.Second)
		out = append(out, ovWindow{url.Values{"from": {from.Format(time.RFC3339)}, "to": {to.UTC().Format(time.RFC3339)}}, from, to})
	}
	return out
}

// TestAnalyticsUpsellReconciles: a store with runs in three funnels and
// three zones (and none), offers in every state, orders with upsell lines
// and UTMs, some cancelled unpaid, accepted offers whose line was removed,
// checkouts routed or not and carts that never became orders, around the
// change of clocks in New York; a funnel renamed and another deleted, a
// zone deleted, a product gone. For random windows of dates and
// date-times, every interval, in UTC and New York, every figure of both
// reports equals a brute force over the rows. A second store's runs are in
// the same windows and never counted.
func TestAnalyticsUpsellReconciles(t *testing.T) {
	e, s, _ := newAcme(t)
	key := e.Key(s.ID, auth.RoleStaff, "analytics:read")
	f := newUpFixture(t, e, s.ID, 1)
	f.seed(150)
	other := newUpFixture(t, e, e.Store("Other").ID, 2)
	other.seed(60)
	// Renamed: the later runs of the first funnel kept its new name.
	f.exec(`UPDATE upsell_funnels SET name = 'Summer v2' WHERE id = ?`, f.funnels[0])
	f.exec(`UPDATE funnel_runs SET funnel_name = 'Summer v2' WHERE funnel_id = ? AND entered_at > ?`, f.funnels[0], upStart.AddDate(0, 0, upDays/2))

	reconcile := func(zone string, rng *rand.Rand) {
		t.Helper()
		f.exec(`UPDATE stores SET timezone = ? WHERE id = ?`, zone, s.ID)
		loc, _ := time.LoadLocation(zone)
		rows := upRead(t, e, s.ID)
		for _, interval := range []string{"hour", "day", "week", "month"} {
			maxDays := 10
			if interval == "hour" {
				maxDays = 3
			}
			for i, w := range upWindows(rng, loc, maxDays) {
				what := fmt.Sprintf("%s %s %s", zone, interval, w.query.Encode())
				wantReport, wantDeep := upExpect(rows, w.from, w.to, interval, loc, []int{50, 3}[i%2])
				var report analytics.AnalyticsUpsellReport
				upGet(t, e, key, "/store/analytics/upsell", "upsell", w.query, &report)
				if !reflect.DeepEqual(report, wantReport) {
					t.Fatalf("%s: upsell\n got  %+v\n want %+v", what, report, wantReport)
				}
				q := url.Values{"interval": {interval}}
				for k, v := range w.query {
					q[k] = v
				}
				if i%2 == 1 {
					q.Set("limit", "3")
				}
				var deep analytics.AnalyticsUpsellDeepReport
				upGet(t, e, key, "/store/analytics/upsell/report", "report", q, &deep)
				for name, pair := range map[string][2]any{"kpis": {deep.KPIs, wantDeep.KPIs}, "series": {deep.Series, wantDeep.Series},
					"by_step": {deep.ByStep, wantDeep.ByStep}, "by_zone_funnel": {deep.ByZoneFunnel, wantDeep.ByZoneFunnel},
					"utm": {deep.UTM, wantDeep.UTM}} {
					if !reflect.DeepEqual(pair[0], pair[1]) {
						t.Fatalf("%s: %s\n got  %+v\n want %+v", what, name, pair[0], pair[1])
					}
				}
				if !reflect.DeepEqual(deep, wantDeep) {
					t.Fatalf("%s: report\n got  %+v\n want %+v", what, deep, wantDeep)
				}
			}
		}
	}
	rng := rand.New(rand.NewPCG(18, 6))
	reconcile("America/New_York", rng)
	reconcile("UTC", rng)

	// Deleted: a funnel (its runs keep its name, its checkouts lose their
	// route), a zone (its runs keep its name, its checkouts go to zone 0),
	// an offered product (its title goes).
	f.exec(`DELETE FROM upsell_funnels WHERE id = ?`, f.funnels[2])
	f.exec(`DELETE FROM checkout_zones WHERE id = ?`, f.zones[1])
	f.exec(`DELETE FROM products WHERE id = ?`, f.products[0])
	reconcile("America/New_York", rng)

	// The whole fixture in one window: every state and kind of row is in
	// the figures.
	loc, _ := time.LoadLocation("America/New_York")
	whole := url.Values{"from": {"2026-10-20"}, "to": {"2026-11-12"}, "interval": {"week"}}
	var deep analytics.AnalyticsUpsellDeepReport
	upGet(t, e, key, "/store/analytics/upsell/report", "report", whole, &deep)
	_, want := upExpect(upRead(t, e, s.ID), time.Date(2026, 10, 20, 0, 0, 0, 0, loc), time.Date(2026, 11, 13, 0, 0, 0, 0, loc), "week", loc, 50)
	if !reflect.DeepEqual(deep, want) {
		t.Fatalf("whole fixture\n got  %+v\n want %+v", deep, want)
	}
	k := deep.KPIs
	deleted := 0
	for _, st := range deep.ByStep {
		if st.FunnelID == 0 && st.FunnelName == "Last chance" {
			deleted++
		}
	}
	if k.Entered == 0 || k.Completed == 0 || k.Accepted == 0 || k.Declined == 0 || k.Unavailable == 0 || k.Undecided == 0 ||
		k.UpsellOrders == 0 || k.CohortOrders == k.Entered || k.Carts == 0 || k.Orders == 0 || k.SurchargeCents == 0 || deleted == 0 ||
		len(deep.UTM) < 5 || !slices.ContainsFunc(deep.ByZoneFunnel, func(z analytics.AnalyticsZoneFunnelStat) bool { return z.ZoneID == 0 }) {
		t.Fatalf("the fixture misses a kind of row: %+v, %d steps of the deleted funnel, %d UTM rows", k, deleted, len(deep.UTM))
	}
	t.Logf("the whole fixture: %+v; %d steps, %d zone-funnel rows, %d UTM rows", k, len(deep.ByStep), len(deep.ByZoneFunnel), len(deep.UTM))
}

// TestAnalyticsUpsellSurfaces: both reports answer the same on REST and
// GraphQL; only keys with the analytics scope read them; a bad window,
// interval or limit is a 400 that names the argument.
func TestAnalyticsUpsellSurfaces(t *testing.T) {
	e, s, _ := newAcme(t)
	f := newUpFixture(t, e, s.ID, 3)
	f.seed(30)
	key := e.Key(s.ID, auth.RoleStaff, "analytics:read")
	r := e.Do(http.MethodGet, "/store/analytics/upsell?from=2026-10-20&to=2026-11-10", key, nil).Expect(t, http.StatusOK)
	expectPayload(t, r, "upsell")
	objectWithKeys(t, "upsell", r.Body["upsell"], []string{"accepted", "by_funnel", "completed", "declined", "entered", "from",
		"offers_shown", "other", "surcharge_cents", "take_rate", "to", "upsell_lines", "upsell_orders", "upsell_revenue_cents"})
	if r.Obj("upsell")["from"] != "2026-10-20T00:00:00Z" || wholeNumber(t, r.Obj("upsell")["entered"]) == 0 {
		t.Fatalf("upsell: %v", r.Body)
	}
	e.SameOnGraphQL(t, r, key, "AnalyticsUpsell", map[string]any{"from": "2026-10-20", "to": "2026-11-10"})
	r = e.Do(http.MethodGet, "/store/analytics/upsell/report?from=2026-10-20&to=2026-11-10&interval=week&limit=2", key, nil).Expect(t, http.StatusOK)
	expectPayload(t, r, "report")
	objectWithKeys(t, "report", r.Body["report"], []string{"by_step", "by_zone_funnel", "from", "interval", "kpis", "series", "to", "utm",
		"utm_total_gross_cents", "utm_total_orders"})
	if len(r.Obj("report")["series"].([]any)) != 4 || len(r.Obj("report")["utm"].([]any)) != 2 {
		t.Fatalf("report: %v", r.Body)
	}
	e.SameOnGraphQL(t, r, key, "AnalyticsUpsellReport", map[string]any{"from": "2026-10-20", "to": "2026-11-10", "interval": "week", "limit": 2})
	r = e.Do(http.MethodGet, "/store/analytics/upsell/report?from=2026-10-30T10:07:00Z&to=2026-11-02T03:00:00-05:00&interval=hour", key, nil).Expect(t, http.StatusOK)
	e.SameOnGraphQL(t, r, key, "AnalyticsUpsellReport", map[string]any{"from": "2026-10-30T10:07:00Z", "to": "2026-11-02T03:00:00-05:00", "interval": "hour"})

	reads := []apitest.Call{{Method: http.MethodGet, Path: "/store/analytics/upsell"}, {Method: http.MethodGet, Path: "/store/analytics/upsell/report"}}
	checkAccess(t, e, s.ID, "analytics", map[string]string{"checkout only": e.Key(s.ID, auth.RoleAdmin, "checkout:read")}, reads, nil)
	e.ExpectEach(t, http.StatusUnauthorized, map[string]string{"storefront key": e.PublishableKey(s.ID)}, reads)
	for _, q := range []string{`{ analyticsUpsell { entered } }`, `{ analyticsUpsellReport { kpis { entered } } }`} {
		if g := e.GraphQL(e.Key(s.ID, auth.RoleAdmin, "checkout:read"), q, nil); g.ErrorCode() != "FORBIDDEN" {
			t.Fatalf("graphql without the scope: %s", g.Raw)
		}
	}

	for path, cases := range map[string]map[string]string{
		"/store/analytics/upsell": {
			"from=yesterday":                `from must be a date such as 2026-11-01 or a date-time such as 2026-11-01T09:00:00Z, not "yesterday"`,
			"from=2026-11-05&to=2026-11-01": "from must be before to",
			"from=2024-01-01&to=2026-11-01": "from the window is too long: at most 731 days by day",
			"interval=day":                  "interval",
		},
		"/store/analytics/upsell/report": {
			"to=2026-13-01":   "to must be a date",
			"interval=minute": `interval must be one of hour, day, week, month, not "minute"`,
			"limit=0":         "limit must be between 1 and 1000, not 0",
			"limit=many":      "limit",
			"from=2026-01-01&to=2026-03-01&interval=hour": "from the window is too long: at most 31 days by hour",
		},
	} {
		for q, want := range cases {
			r := e.Do(http.MethodGet, path+"?"+q, key, nil).Expect(t, http.StatusBadRequest)
			if !strings.Contains(r.Message(), want) {
				t.Fatalf("%s?%s: %q, want it to hold %q", path, q, r.Message(), want)
			}
		}
	}
	g := e.GraphQL(key, `query($interval: String) { analyticsUpsellReport(interval: $interval) { from } }`, map[string]any{"interval": "minute"})
	if g.ErrorCode() != "BAD_USER_INPUT" {
		t.Fatalf("graphql bad interval: %s", g.Raw)
	}
}

// TestAnalyticsUpsellStatementsDoNotGrowWithRows: each report is the same
// number of statements for a few runs and for many.
func TestAnalyticsUpsellStatementsDoNotGrowWithRows(t *testing.T) {
	e, s, _ := newAcme(t)
	f := newUpFixture(t, e, s.ID, 4)
	key := e.Key(s.ID, auth.RoleStaff, "analytics:read")
	count := countStatements(e)
	read := func() (int64, int64) {
		return count(func() {
				e.Do(http.MethodGet, "/store/analytics/upsell?from=2026-10-20T10:07:00Z&to=2026-11-20T03:01:00Z", key, nil).Expect(t, http.StatusOK)
			}), count(func() {
				e.Do(http.MethodGet, "/store/analytics/upsell/report?from=2026-10-20T10:07:00Z&to=2026-11-20T03:01:00Z", key, nil).Expect(t, http.StatusOK)
			})
	}
	f.seed(5)
	read() // the key's first use reads and touches it
	fewReport, fewDeep := read()
	f.seed(200)
	manyReport, manyDeep := read()
	if fewReport != manyReport || fewDeep != manyDeep || manyReport > 3 || manyDeep > 6 {
		t.Fatalf("%d and %d statements for 5 orders, %d and %d for 205", fewReport, fewDeep, manyReport, manyDeep)
	}
	t.Logf("%d statements for the upsell report, %d for the deep report", manyReport, manyDeep)
}

// upBenchFill runs every order of the store through one of four funnels in
// three zones: a routed checkout per order and as many carts that never
// became orders, a run entered when the order was placed, and three offers
// a run in every state, the accepted ones naming the order's first line.
const upBenchFill = `
INSERT INTO upsell_funnels (store_id, name, timeout_seconds) SELECT ?0, 'Funnel ' || g, 900 FROM generate_series(1, 4) AS g;
INSERT INTO checkout_zones (store_id, name, position) SELECT ?0, 'Zone ' || g, g FROM generate_series(1, 3) AS g;
WITH f AS (SELECT array_agg(id ORDER BY id) AS ids FROM upsell_funnels WHERE store_id = ?0),
	z AS (SELECT array_agg(id ORDER BY id) AS ids FROM checkout_zones WHERE store_id = ?0)
INSERT INTO checkouts (store_id, token, currency, checkout_zone_id, upsell_funnel_id, order_id, created_at, expires_at)
SELECT o.store_id, 'bench-' || o.id || '-' || k, 'EUR', z.ids[1 + o.id % 3], f.ids[1 + o.id % 4], CASE WHEN k = 1 THEN o.id END,
	o.created_at - k * interval '7 minutes', o.created_at + interval '1 day'
FROM orders AS o, f, z, generate_series(1, 2) AS k WHERE o.store_id = ?0;
INSERT INTO funnel_runs (store_id, order_id, checkout_id, transaction_id, funnel_id, funnel_name, zone_id, zone_name, status,
	entered_at, expires_at, surcharge_cents)
SELECT c.store_id, c.order_id, c.id, t.id, c.upsell_funnel_id, 'Funnel', c.checkout_zone_id, 'Zone',
	(ARRAY['running', 'completed', 'completed', 'timed_out', 'cancelled'])[1 + c.order_id % 5],
	o.created_at, o.created_at + interval '15 minutes', o.surcharge_cents
FROM checkouts AS c JOIN orders AS o ON o.id = c.order_id
CROSS JOIN LATERAL (SELECT id FROM order_transactions WHERE order_id = o.id ORDER BY id LIMIT 1) AS t
WHERE c.store_id = ?0;
INSERT INTO funnel_offers (store_id, run_id, position, step_name, product_id, status, reached_at, shown_at, line_item_id,
	quantity, amount_cents, charged_at)
SELECT r.store_id, r.id, g, 'Step ' || g, NULL, s.status, r.entered_at + g * interval '1 minute',
	CASE WHEN s.status IN ('shown', 'accepted', 'declined') THEN r.entered_at + g * interval '1 minute' END,
	CASE WHEN s.status = 'accepted' THEN (SELECT min(id) FROM order_line_items WHERE order_id = r.order_id) END,
	CASE WHEN s.status = 'accepted' THEN 1 ELSE 0 END, CASE WHEN s.status = 'accepted' THEN 1500 ELSE 0 END,
	CASE WHEN s.status = 'accepted' AND r.id % 2 = 0 THEN r.entered_at + interval '20 minutes' END
FROM funnel_runs AS r, generate_series(1, 3) AS g,
	LATERAL (SELECT (ARRAY['pending', 'shown', 'accepted', 'declined', 'unavailable'])[1 + (r.id * 7 + g) % 5] AS status) AS s
WHERE r.store_id = ?0;
ANALYZE checkouts; ANALYZE funnel_runs; ANALYZE funnel_offers;`

// BenchmarkAnalyticsUpsell reads both upsell reports over REST from a
// store of 50,000 orders over two years, each run through a funnel (three
// offers a run, two routed checkouts an order): the default window (the
// last 30 days) and a window of every run (README "Upsell" has the
// figures).
func BenchmarkAnalyticsUpsell(b *testing.B) {
	e := apitest.New(b)
	s := e.Store("Upsell bench")
	ctx, now := context.Background(), time.Now()
	if err := benchdata.Fill(ctx, e.DB, s.ID, benchdata.Sizes{Products: 200, Customers: 5000, Orders: 50_000}, now, nil); err != nil {
		b.Fatal(err)
	}
	if _, err := e.DB.NewRaw(upBenchFill, s.ID).Exec(ctx); err != nil {
		b.Fatal(err)
	}
	var runs int64
	if err := e.DB.NewRaw(`SELECT count(*) FROM funnel_runs WHERE store_id = ?`, s.ID).Scan(ctx, &runs); err != nil {
		b.Fatal(err)
	}
	b.Logf("%d runs", runs)
	key := e.Key(s.ID, auth.RoleAdmin, "analytics:read")
	all := url.Values{"from": {now.AddDate(-2, 0, 0).Format(time.DateOnly)}, "to": {now.Format(time.DateOnly)}, "interval": {"month"}}.Encode()
	for _, c := range []struct{ name, path string }{
		{"upsell/30d", "/store/analytics/upsell"},
		{"upsell/all", "/store/analytics/upsell?" + url.Values{"from": {now.AddDate(-2, 0, 0).Format(time.DateOnly)}}.Encode()},
		{"report/30d", "/store/analytics/upsell/report"},
		{"report/all", "/store/analytics/upsell/report?" + all},
	} {
		b.Run(c.name, func(b *testing.B) {
			benchmarkRequests(b, &http.Client{}, func() *http.Request {
				r, _ := http.NewRequest(http.MethodGet, e.URL+"/api/v1"+c.path, nil)
				r.Header.Set("Authorization", "Bearer "+key)
				return r
			})
		})
	}
}
