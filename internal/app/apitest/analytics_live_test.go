package apitest_test

import (
	"context"
	"encoding/json"
	"math"
	"net/http"
	"reflect"
	"slices"
	"testing"
	"time"

	"storeadmin/internal/analytics"
	"storeadmin/internal/app/apitest"
	"storeadmin/internal/app/benchdata"
	"storeadmin/internal/auth"
	"storeadmin/internal/base/geoip"
	"storeadmin/internal/base/geoip/geoiptest"
	"storeadmin/internal/storefront"
)

// The live view (GET /store/analytics/live): visits ingested through the
// storefront surface from addresses a tiny geo database places, carts,
// checkouts and orders made there, all at instants a fixed clock gives.
// Helpers of this file start with live.

// The places of the tests' geo database: Berlin and Paris with
// coordinates, New York by name only.
var (
	liveBerlin  = geoip.Place{Country: "DE", Region: "Berlin", City: "Berlin", Located: true, Lat: 52.52, Lon: 13.405}
	liveParis   = geoip.Place{Country: "FR", Region: "Île-de-France", City: "Paris", Located: true, Lat: 48.8566, Lon: 2.3522}
	liveNewYork = geoip.Place{Country: "US", Region: "New York", City: "New York"}
)

const (
	liveBerlinIP  = "203.0.113.7"
	liveParisIP   = "198.51.100.7"
	liveNewYorkIP = "192.0.2.7"
)

// liveEnv is a service whose geo database is places (none: nil) and
// whose clock the test sets.
func liveEnv(t *testing.T, places map[string]geoip.Place) (*apitest.Env, *apitest.Clock) {
	t.Helper()
	var geo *geoip.DB
	if places != nil {
		db, err := geoip.Open(geoiptest.Write(t, places))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		geo = db
	}
	clock := apitest.NewClock(time.Now())
	e := apitest.New(t, apitest.WithClock(clock.Now), apitest.WithClientIPHeader("X-Forwarded-For"),
		apitest.WithStorefront(0, nil, geo, storefront.IPTruncated))
	return e, clock
}

// liveVisit posts a page view of visitor at each of times, from ip with
// user agent ua, the clock set to each; one visit when they are less than
// 30 minutes apart.
func liveVisit(t *testing.T, e *apitest.Env, clock *apitest.Clock, pub, visitor, ip, ua string, times ...time.Time) {
	t.Helper()
	for _, at := range times {
		clock.Set(at)
		e.Storefront(http.MethodPost, "/events", pub, sfBatch(sfEvent(visitor+at.UTC().Format(time.RFC3339), "page_view", visitor, at, nil)),
			map[string]string{"User-Agent": ua, "X-Forwarded-For": ip}).Expect(t, http.StatusOK)
	}
}

// liveBuy places an order of one tee at at, through a checkout of
// visitor's visit: email, a French address, the Standard rate, paid.
func liveBuy(t *testing.T, e *apitest.Env, clock *apitest.Clock, ds draftOrderStore, pub, visitor, email string, at time.Time) {
	t.Helper()
	clock.Set(at)
	co := e.Storefront(http.MethodPost, "/checkouts", pub, map[string]any{
		"lines": []any{map[string]any{"variant_id": ds.variantID, "quantity": 1}}, "email": email,
		"visitor_id": visitor, "session_id": "cs-" + visitor, "shipping_address": parisAddress,
	}, nil).Expect(t, http.StatusCreated).Obj("checkout")
	co = e.Storefront(http.MethodPut, "/checkouts/"+co["token"].(string), pub, map[string]any{"shipping_rate_id": ds.standardID},
		nil).Expect(t, http.StatusOK).Obj("checkout")
	scPay(t, e, pub, co, "success", wholeNumber(t, co["total_cents"])).Expect(t, http.StatusCreated)
	e.Storefront(http.MethodPost, "/checkouts/"+co["token"].(string)+"/complete", pub, nil, nil).Expect(t, http.StatusCreated)
}

// liveRead reads the live view on REST, checks GraphQL answers the same,
// and decodes it.
func liveRead(t *testing.T, e *apitest.Env, key string) analytics.LiveviewView {
	t.Helper()
	r := e.Do(http.MethodGet, "/store/analytics/live", key, nil).Expect(t, http.StatusOK)
	e.SameOnGraphQL(t, r, key, "AnalyticsLive", nil)
	var v analytics.LiveviewView
	liveDecode(t, r.Body["live"], &v)
	return v
}

// TestAnalyticsLive: a store in New York the day after clocks fell back
// (yesterday had 25 hours). Visitors now are counted by who they are and
// where, bots left out; today's figures, hours and places are exact, and
// equal a computation from the rows read plainly; yesterday runs from its
// midnight (EDT) to the same wall-clock time (EST); read at that time
// yesterday, the view's today is this view's yesterday, over 12 hours.
func TestAnalyticsLive(t *testing.T) {
	e, clock := liveEnv(t, map[string]geoip.Place{"203.0.113.0/24": liveBerlin, "198.51.100.0/24": liveParis, "192.0.2.0/24": liveNewYork})
	ds := scStore(t, e, "Live")
	ctx := context.Background()
	if _, err := e.DB.NewRaw(`UPDATE stores SET timezone = 'America/New_York', currency = 'EUR' WHERE id = ?`, ds.store.ID).Exec(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := e.DB.NewRaw(`UPDATE product_variants SET inventory_quantity = 100 WHERE store_id = ?`, ds.store.ID).Exec(ctx); err != nil {
		t.Fatal(err)
	}
	pub := e.PublishableKey(ds.store.ID)
	key := e.Key(ds.store.ID, auth.RoleAdmin, "analytics:read")
	ny, err := time.LoadLocation("America/New_York")
	if err != nil {
		t.Fatal(err)
	}
	at := func(day, h, m int) time.Time { return time.Date(2026, 11, day, h, m, 0, 0, ny) } // 01:xx on the 1st: EDT, the first
	visit := func(visitor, ip string, times ...time.Time) {
		liveVisit(t, e, clock, pub, visitor, ip, chromeUA, times...)
	}

	// Yesterday, November 1st: 00:00 EDT (04:00 UTC) to 10:30 EST (15:30 UTC).
	visit("y-early", liveParisIP, at(1, 0, 30))
	liveBuy(t, e, clock, ds, pub, "y-early", "early@example.com", at(1, 0, 35))
	visit("y-night", liveBerlinIP, at(1, 1, 30).Add(time.Hour)) // 01:30 EST, the second one
	liveVisit(t, e, clock, pub, "y-bot", liveBerlinIP, googlebotUA, at(1, 9, 0))
	visit("y-morning", liveBerlinIP, at(1, 10, 0))
	liveBuy(t, e, clock, ds, pub, "y-morning", "ana@example.com", at(1, 10, 5))
	visit("y-late", liveParisIP, at(1, 10, 45)) // after 10:30: not in yesterday's figures
	liveBuy(t, e, clock, ds, pub, "y-late", "late@example.com", at(1, 10, 50))

	// Today, November 2nd, up to 10:30 EST.
	visit("t-owl", liveNewYorkIP, at(2, 0, 10))
	liveBuy(t, e, clock, ds, pub, "t-owl", "owl@example.com", at(2, 0, 20))
	visit("t-ana", liveParisIP, at(2, 8, 10))
	liveBuy(t, e, clock, ds, pub, "t-ana", "ana@example.com", at(2, 8, 15)) // returning
	visit("t-bo", liveParisIP, at(2, 8, 40))
	liveBuy(t, e, clock, ds, pub, "t-bo", "bo@example.com", at(2, 8, 45))
	// Now: four visitors (and a bot) in the last five minutes.
	visit("p-berlin", liveBerlinIP, at(2, 10, 20), at(2, 10, 27))
	e.Storefront(http.MethodPost, "/carts", pub, map[string]any{"lines": []any{map[string]any{"variant_id": ds.variantID, "quantity": 2}},
		"visitor_id": "p-berlin", "session_id": "cs-p-berlin"}, nil).Expect(t, http.StatusCreated)
	visit("p-paris", liveParisIP, at(2, 10, 28))
	e.Storefront(http.MethodPost, "/checkouts", pub, map[string]any{"lines": []any{map[string]any{"variant_id": ds.variantID, "quantity": 1}},
		"email": "open@example.com", "visitor_id": "p-paris", "session_id": "cs-p-paris"}, nil).Expect(t, http.StatusCreated)
	visit("p-ny", liveNewYorkIP, at(2, 10, 29))
	visit("p-buyer", liveBerlinIP, at(2, 10, 26))
	liveBuy(t, e, clock, ds, pub, "p-buyer", "buyer@example.com", at(2, 10, 28))
	liveVisit(t, e, clock, pub, "p-bot", liveBerlinIP, googlebotUA, at(2, 10, 29))

	clock.Set(at(2, 10, 30))
	v := liveRead(t, e, key)

	// What the figures must be, counted by hand.
	if v.Now != "2026-11-02T10:30:00-05:00" || v.Timezone != "America/New_York" || v.Currency != "EUR" || !v.GeoEnabled ||
		v.Today.From != "2026-11-02T00:00:00-05:00" || v.Today.To != v.Now {
		t.Fatalf("view: now %s zone %s currency %s geo %v today %s..%s", v.Now, v.Timezone, v.Currency, v.GeoEnabled, v.Today.From, v.Today.To)
	}
	p := v.Presence
	if p.WindowSeconds != 300 || p.VisitorsNow != 4 || p.Behavior != (analytics.LiveviewBehavior{WindowSeconds: 300, ActiveCarts: 1, CheckingOut: 1, Purchased: 1}) {
		t.Fatalf("presence: %+v", p)
	}
	wantPins := []analytics.LiveviewPin{livePin("visitor", liveBerlin, 2, nil), livePin("visitor", liveParis, 1, nil)}
	if !reflect.DeepEqual(p.Pins, wantPins) {
		t.Fatalf("visitor pins: %s", liveJSON(p.Pins))
	}
	sparkline := func(h0, h8, h10 int64) []int64 { s := make([]int64, 11); s[0], s[8], s[10] = h0, h8, h10; return s }
	today := v.Today
	for name, c := range map[string]struct {
		got  analytics.LiveviewMetric
		want analytics.LiveviewMetric
	}{
		"sessions": {today.Sessions, analytics.LiveviewMetric{Value: 7, Yesterday: 3, DeltaPct: livePtr(133.33), Sparkline: sparkline(1, 2, 4)}},
		"orders":   {today.Orders, analytics.LiveviewMetric{Value: 4, Yesterday: 2, DeltaPct: livePtr(100.0), Sparkline: sparkline(1, 2, 1)}},
		"sales":    {today.Sales, analytics.LiveviewMetric{Value: 10000, Yesterday: 5000, DeltaPct: livePtr(100.0), Sparkline: sparkline(2500, 5000, 2500)}},
	} {
		if !reflect.DeepEqual(c.got, c.want) {
			t.Errorf("%s: %s, want %s", name, liveJSON(c.got), liveJSON(c.want))
		}
	}
	if today.Customers != (analytics.AnalyticsCustomers{New: 3, Returning: 1, ReturningRate: 0.25}) {
		t.Errorf("customers: %+v", today.Customers)
	}
	if len(today.TopProducts) != 1 || today.TopProducts[0].Title != "Tee" || today.TopProducts[0].Units != 4 || today.TopProducts[0].RevenueCents != 10000 {
		t.Errorf("top products: %+v", today.TopProducts)
	}
	wantLocations := []analytics.LiveviewLocationStat{liveLocation(liveParis, 3), liveLocation(liveBerlin, 2), liveLocation(liveNewYork, 2)}
	if !reflect.DeepEqual(today.Locations, wantLocations) {
		t.Errorf("locations: %s", liveJSON(today.Locations))
	}
	wantOrderPins := []analytics.LiveviewPin{livePin("order", liveParis, 2, livePtr(int64(7000))), livePin("order", liveBerlin, 1, livePtr(int64(3500)))}
	if !reflect.DeepEqual(today.OrderPins, wantOrderPins) {
		t.Errorf("order pins: %s", liveJSON(today.OrderPins))
	}

	// The same from the rows, read plainly.
	rows := liveRowsOf(t, e, ds.store.ID)
	if got, want := liveFigures(v), rows.figures(at(2, 10, 30), ny); !reflect.DeepEqual(got, want) {
		t.Errorf("figures from the report:\n%s\nfrom the rows:\n%s", liveJSON(got), liveJSON(want))
	}

	// At 10:30 yesterday, today is this view's yesterday: the 25-hour day
	// has 12 hours by 10:30 (two of them 01:00).
	clock.Set(at(1, 10, 30))
	y := liveRead(t, e, key)
	if y.Today.From != "2026-11-01T00:00:00-04:00" || y.Today.To != "2026-11-01T10:30:00-05:00" {
		t.Fatalf("yesterday's today: %s .. %s", y.Today.From, y.Today.To)
	}
	for name, m := range map[string][2]analytics.LiveviewMetric{"sessions": {y.Today.Sessions, today.Sessions},
		"orders": {y.Today.Orders, today.Orders}, "sales": {y.Today.Sales, today.Sales}} {
		if len(m[0].Sparkline) != 12 || m[0].Value != m[1].Yesterday || m[0].Yesterday != 0 || m[0].DeltaPct != nil || liveSum(m[0].Sparkline) != m[0].Value {
			t.Errorf("%s at 10:30 yesterday: %s (today's yesterday %d)", name, liveJSON(m[0]), m[1].Yesterday)
		}
	}
	if got, want := liveFigures(y), rows.figures(at(1, 10, 30), ny); !reflect.DeepEqual(got, want) {
		t.Errorf("yesterday, from the report:\n%s\nfrom the rows:\n%s", liveJSON(got), liveJSON(want))
	}

	// As many statements whatever the rows: yesterday morning had none of
	// today's.
	count := countStatements(e)
	clock.Set(at(1, 10, 30))
	before := count(func() { e.Do(http.MethodGet, "/store/analytics/live", key, nil).Expect(t, http.StatusOK) })
	clock.Set(at(2, 10, 30))
	after := count(func() { e.Do(http.MethodGet, "/store/analytics/live", key, nil).Expect(t, http.StatusOK) })
	if before != after {
		t.Errorf("statements: %d for yesterday morning, %d for today", before, after)
	}
}

// Without a geo database, or with one that names places but gives no
// coordinates, geo_enabled is false and no pin is made up; the places are
// still counted.
func TestAnalyticsLiveWithoutCoordinates(t *testing.T) {
	for name, places := range map[string]map[string]geoip.Place{
		"no database":    nil,
		"names only":     {"203.0.113.0/24": {Country: "DE", Region: "Berlin", City: "Berlin"}},
		"wrong networks": {"10.0.0.0/8": liveBerlin},
	} {
		t.Run(name, func(t *testing.T) {
			e, clock := liveEnv(t, places)
			ds := scStore(t, e, "Live")
			pub := e.PublishableKey(ds.store.ID)
			key := e.Key(ds.store.ID, auth.RoleAdmin, "analytics:read")
			now := time.Now().UTC().Truncate(time.Second)
			liveVisit(t, e, clock, pub, "v1", liveBerlinIP, chromeUA, now.Add(-time.Minute))
			liveBuy(t, e, clock, ds, pub, "v1", "v1@example.com", now.Add(-30*time.Second))
			clock.Set(now)
			v := liveRead(t, e, key)
			wantGeo := name == "wrong networks" // it has coordinates, for other addresses
			if v.GeoEnabled != wantGeo || len(v.Presence.Pins) != 0 || len(v.Today.OrderPins) != 0 || v.Presence.VisitorsNow != 1 ||
				v.Presence.Behavior.Purchased != 1 || v.Today.Orders.Value != 1 {
				t.Fatalf("view: %s", liveJSON(v))
			}
			if name == "names only" && (len(v.Today.Locations) != 1 || v.Today.Locations[0].Country != "DE" || v.Today.Locations[0].Sessions != 1) {
				t.Fatalf("locations: %s", liveJSON(v.Today.Locations))
			}
		})
	}
}

// The live view needs the analytics scope (401 without a key, 403 with
// another scope) and takes no arguments (400 naming what it takes).
func TestAnalyticsLiveAccess(t *testing.T) {
	// A still clock: REST and GraphQL read "now" a moment apart, which on
	// a loaded machine can be a second apart.
	clock := apitest.NewClock(time.Now().UTC().Truncate(time.Second))
	e := apitest.New(t, apitest.WithClock(clock.Now))
	s := e.Store("Live")
	reads := []apitest.Call{{Method: http.MethodGet, Path: "/store/analytics/live"}}
	checkAccess(t, e, s.ID, "analytics", map[string]string{"other scope": e.Key(s.ID, auth.RoleAdmin, "orders:read")}, reads, nil)
	key := e.Key(s.ID, auth.RoleAdmin, "analytics:read")
	if r := e.Do(http.MethodGet, "/store/analytics/live?window=60", key, nil).Expect(t, http.StatusBadRequest); r.Message() == "" {
		t.Fatal("no message")
	}
	v := liveRead(t, e, key)
	if v.GeoEnabled || v.Presence.VisitorsNow != 0 || len(v.Today.Sessions.Sparkline) == 0 || v.Today.TopProducts == nil || v.Today.Locations == nil {
		t.Fatalf("an empty store: %s", liveJSON(v))
	}
	e.ExpectEach(t, http.StatusUnauthorized, map[string]string{"no key": ""}, reads)
	if g := e.GraphQL("", `{ analyticsLive { now } }`, nil); g.Status != http.StatusUnauthorized {
		t.Fatalf("GraphQL without a key: %d %s", g.Status, g.Raw)
	}
	expectGraphQLCode(t, e, e.Key(s.ID, auth.RoleAdmin, "orders:read"), "FORBIDDEN", nil, `{ analyticsLive { now } }`)
}

func livePin(kind string, p geoip.Place, count int64, total *int64) analytics.LiveviewPin {
	return analytics.LiveviewPin{Kind: kind, Lat: p.Lat, Lon: p.Lon, Country: &p.Country, Region: &p.Region, City: &p.City, Count: count, TotalCents: total}
}

func liveLocation(p geoip.Place, sessions int64) analytics.LiveviewLocationStat {
	return analytics.LiveviewLocationStat{Country: p.Country, Region: &p.Region, City: &p.City, Sessions: sessions}
}

// livePtr points at v.
func livePtr[T any](v T) *T { return &v }

// liveJSON is v as JSON, for failure messages.
func liveJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// liveDecode decodes a JSON value read from an answer into out.
func liveDecode(t *testing.T, v any, out any) {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, out); err != nil {
		t.Fatalf("decode %s: %v", b, err)
	}
}

func liveSum(s []int64) int64 {
	var n int64
	for _, v := range s {
		n += v
	}
	return n
}

// liveNumbers are the view's figures the rows are checked against.
type liveNumbers struct {
	VisitorsNow, ActiveCarts, CheckingOut, Purchased int64
	Sessions, Orders, Sales                          [2]int64 // today, yesterday
	SessionHours, OrderHours, SalesHours             []int64
	Locations                                        map[string]int64
	OrderPins                                        map[string][2]int64 // count, total
}

func liveFigures(v analytics.LiveviewView) liveNumbers {
	n := liveNumbers{VisitorsNow: v.Presence.VisitorsNow, ActiveCarts: v.Presence.Behavior.ActiveCarts,
		CheckingOut: v.Presence.Behavior.CheckingOut, Purchased: v.Presence.Behavior.Purchased,
		Sessions: [2]int64{v.Today.Sessions.Value, v.Today.Sessions.Yesterday}, Orders: [2]int64{v.Today.Orders.Value, v.Today.Orders.Yesterday},
		Sales: [2]int64{v.Today.Sales.Value, v.Today.Sales.Yesterday}, SessionHours: v.Today.Sessions.Sparkline,
		OrderHours: v.Today.Orders.Sparkline, SalesHours: v.Today.Sales.Sparkline, Locations: map[string]int64{}, OrderPins: map[string][2]int64{}}
	for _, l := range v.Today.Locations {
		n.Locations[l.Country+"/"+liveDeref(l.Region)+"/"+liveDeref(l.City)] = l.Sessions
	}
	for _, p := range v.Today.OrderPins {
		n.OrderPins[liveDeref(p.City)] = [2]int64{p.Count, liveDeref(p.TotalCents)}
	}
	return n
}

func liveDeref[T any](p *T) T {
	var zero T
	if p == nil {
		return zero
	}
	return *p
}

// liveRows are a store's sessions, orders, carts and checkouts, as stored.
type liveRows struct {
	sessions []struct {
		ID, VisitorID           int64
		FirstSeenAt, LastSeenAt time.Time
		IsBot                   bool
		Country, Region, City   *string
		Latitude                *float64
	}
	orders []struct {
		CreatedAt                 time.Time
		Status, FinancialStatus   string
		SubtotalCents, TotalCents int64
		SessionID                 *int64
	}
	carts     map[int64]int64  // session -> items
	checkouts map[int64]string // session -> state
}

func liveRowsOf(t *testing.T, e *apitest.Env, storeID int64) liveRows {
	t.Helper()
	ctx := context.Background()
	var r liveRows
	if err := e.DB.NewRaw(`SELECT id, visitor_id, first_seen_at, last_seen_at, is_bot, country, region, city, latitude
		FROM storefront_sessions WHERE store_id = ?`, storeID).Scan(ctx, &r.sessions); err != nil {
		t.Fatal(err)
	}
	if err := e.DB.NewRaw(`SELECT created_at, status, financial_status, subtotal_cents, total_cents, session_id FROM orders WHERE store_id = ?`,
		storeID).Scan(ctx, &r.orders); err != nil {
		t.Fatal(err)
	}
	var baskets []struct {
		SessionID int64
		Items     int64
		State     string
	}
	if err := e.DB.NewRaw(`SELECT session_id, item_count AS items, '' AS state FROM carts WHERE store_id = ?0 AND session_id IS NOT NULL
		UNION ALL SELECT session_id, 0, state FROM checkouts WHERE store_id = ?0 AND session_id IS NOT NULL`, storeID).Scan(ctx, &baskets); err != nil {
		t.Fatal(err)
	}
	r.carts, r.checkouts = map[int64]int64{}, map[int64]string{}
	for _, b := range baskets {
		if b.State == "" {
			r.carts[b.SessionID] += b.Items
		} else if b.State == "open" || r.checkouts[b.SessionID] == "" {
			r.checkouts[b.SessionID] = b.State
		}
	}
	return r
}

// figures computes the live view at now in loc from the rows: hours by
// walking the clock an hour at a time from midnight, yesterday by the
// calendar.
func (r liveRows) figures(now time.Time, loc *time.Location) liveNumbers {
	now = now.In(loc)
	y, m, d := now.Date()
	midnight := time.Date(y, m, d, 0, 0, 0, 0, loc)
	yFrom, yTo := time.Date(y, m, d-1, 0, 0, 0, 0, loc), time.Date(y, m, d-1, now.Hour(), now.Minute(), now.Second(), 0, loc)
	since := now.Add(-5 * time.Minute)
	in := func(t, from, to time.Time) bool { return !t.Before(from) && t.Before(to) }
	hours := int(math.Ceil(now.Sub(midnight).Hours()))
	hourOf := func(t time.Time) int { return int(t.Sub(midnight) / time.Hour) } // the zone is whole hours from UTC
	n := liveNumbers{SessionHours: make([]int64, hours), OrderHours: make([]int64, hours), SalesHours: make([]int64, hours),
		Locations: map[string]int64{}, OrderPins: map[string][2]int64{}}
	visitors := map[int64]bool{}
	place := map[int64]string{}
	located := map[int64]bool{}
	for _, s := range r.sessions {
		place[s.ID], located[s.ID] = liveDeref(s.City), s.Latitude != nil
		if s.IsBot {
			continue
		}
		if !s.LastSeenAt.Before(since) {
			visitors[s.VisitorID] = true
			if r.carts[s.ID] > 0 {
				n.ActiveCarts++
			}
			if r.checkouts[s.ID] == "open" {
				n.CheckingOut++
			}
		}
		switch {
		case in(s.FirstSeenAt, midnight, now):
			n.Sessions[0]++
			n.SessionHours[hourOf(s.FirstSeenAt)]++
			if s.Country != nil {
				n.Locations[*s.Country+"/"+liveDeref(s.Region)+"/"+liveDeref(s.City)]++
			}
		case in(s.FirstSeenAt, yFrom, yTo):
			n.Sessions[1]++
		}
	}
	n.VisitorsNow = int64(len(visitors))
	for _, o := range r.orders {
		if o.Status == "cancelled" && slices.Contains([]string{"pending", "authorized", "voided"}, o.FinancialStatus) {
			continue
		}
		if in(o.CreatedAt, since, now) {
			n.Purchased++
		}
		switch {
		case in(o.CreatedAt, midnight, now):
			n.Orders[0]++
			n.Sales[0] += o.SubtotalCents
			n.OrderHours[hourOf(o.CreatedAt)]++
			n.SalesHours[hourOf(o.CreatedAt)] += o.SubtotalCents
			if o.SessionID != nil && located[*o.SessionID] {
				p := n.OrderPins[place[*o.SessionID]]
				n.OrderPins[place[*o.SessionID]] = [2]int64{p[0] + 1, p[1] + o.TotalCents}
			}
		case in(o.CreatedAt, yFrom, yTo):
			n.Orders[1]++
			n.Sales[1] += o.SubtotalCents
		}
	}
	return n
}

// liveBenchSessions adds ?1 visitors and ?2 sessions of theirs to the store
// ?0, spread evenly over the two years up to ?3 (so a few in the last
// minutes), one in 50 a bot, at five places (four of them located).
const liveBenchSessions = `
WITH v AS (
    INSERT INTO visitors (store_id, anon_id, first_seen_at, last_seen_at)
    SELECT ?0, 'bench-' || g, ?3::timestamptz - interval '730 days', ?3::timestamptz FROM generate_series(1, ?1) AS g
    RETURNING id
), lo AS (SELECT min(id) AS id FROM v)
INSERT INTO storefront_sessions (store_id, session_key, visitor_id, first_seen_at, last_seen_at, is_bot,
    country, region, city, latitude, longitude, page_views, events)
SELECT ?0, 'bench-' || g, lo.id + g % ?1, t.at, t.at + (g % 1800) * interval '1 second', g % 50 = 0,
    (ARRAY['DE', 'FR', 'US', 'GB', 'JP'])[1 + g % 5], (ARRAY['Berlin', 'Île-de-France', 'New York', 'England', 'Tokyo'])[1 + g % 5],
    (ARRAY['Berlin', 'Paris', 'New York', 'London', 'Tokyo'])[1 + g % 5],
    (ARRAY[52.52, 48.8566, 40.7128, 51.5074, NULL])[1 + g % 5], (ARRAY[13.405, 2.3522, -74.006, -0.1278, NULL])[1 + g % 5], 3, 5
FROM generate_series(0, ?2 - 1) AS g, lo,
    LATERAL (SELECT ?3::timestamptz - (g::float8 / ?2) * interval '730 days' AS at) AS t`

// BenchmarkAnalyticsLive reads the live view over REST from a store of
// 20,000 orders and 100,000 sessions over two years (README "Live view"
// has the figure at 1,000,000 orders).
func BenchmarkAnalyticsLive(b *testing.B) {
	geo, err := geoip.Open(geoiptest.Write(b, map[string]geoip.Place{"203.0.113.0/24": liveBerlin}))
	if err != nil {
		b.Fatal(err)
	}
	defer geo.Close()
	e := apitest.New(b, apitest.WithStorefront(0, nil, geo, storefront.IPTruncated))
	s := e.Store("Live bench")
	ctx, now := context.Background(), time.Now()
	if err := benchdata.Fill(ctx, e.DB, s.ID, benchdata.Sizes{Products: 200, Customers: 5000, Orders: 20_000}, now, nil); err != nil {
		b.Fatal(err)
	}
	if _, err := e.DB.NewRaw(liveBenchSessions, s.ID, 50_000, 100_000, now).Exec(ctx); err != nil {
		b.Fatal(err)
	}
	if _, err := e.DB.NewRaw(`ANALYZE visitors; ANALYZE storefront_sessions`).Exec(ctx); err != nil {
		b.Fatal(err)
	}
	key := e.Key(s.ID, auth.RoleAdmin, "analytics:read")
	benchmarkRequests(b, &http.Client{}, func() *http.Request {
		r, _ := http.NewRequest(http.MethodGet, e.URL+"/api/v1/store/analytics/live", nil)
		r.Header.Set("Authorization", "Bearer "+key)
		return r
	})
}
