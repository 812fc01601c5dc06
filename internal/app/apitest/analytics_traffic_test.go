package apitest_test

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"net/http"
	"net/url"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/xuri/excelize/v2"

	"storeadmin/internal/analytics"
	"storeadmin/internal/app/apitest"
	"storeadmin/internal/auth"
	"storeadmin/internal/base/sheets"
	"storeadmin/internal/retention"
	"storeadmin/internal/storefront"
	"storeadmin/models"
)

// trafficVisit is one session of a traffic fixture, written with SQL as the
// storefront's writers leave the rows; the steps come from the rows the
// triggers read (events, carts, checkouts, orders).
type trafficVisit struct {
	anon    string
	at      time.Time
	landing *string
	bot     bool
	// steps
	addToCart, checkoutStep bool
	cartItems               int64 // a cart with this many items; -1 for none
	checkout                bool
	orderCents              int64 // an order of this total linked to the session; 0 for none
}

func trafficPath(p string) *string { return &p }

// addTrafficVisit stores v and answers the session's id.
func addTrafficVisit(t testing.TB, e *apitest.Env, storeID int64, v trafficVisit) int64 {
	t.Helper()
	ctx := context.Background()
	scan := func(q string, args ...any) int64 {
		t.Helper()
		var id int64
		if err := e.DB.NewRaw(q, args...).Scan(ctx, &id); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		return id
	}
	visitor := scan(`INSERT INTO visitors (store_id, anon_id, first_seen_at, last_seen_at) VALUES (?, ?, ?, ?)
		ON CONFLICT (store_id, anon_id) DO UPDATE SET last_seen_at = excluded.last_seen_at RETURNING id`, storeID, v.anon, v.at, v.at)
	session := scan(`INSERT INTO storefront_sessions (store_id, session_key, visitor_id, first_seen_at, last_seen_at, landing_path, is_bot, page_views, events)
		VALUES (?, 's_' || md5(random()::text), ?, ?, ?, ?, ?, 1, 1) RETURNING id`, storeID, visitor, v.at, v.at.Add(time.Minute), v.landing, v.bot)
	event := func(name string) {
		scan(`INSERT INTO storefront_events (store_id, session_id, visitor_id, client_event_id, name, occurred_at)
			VALUES (?, ?, ?, md5(random()::text), ?, ?) RETURNING id`, storeID, session, visitor, name, v.at.Add(time.Minute))
	}
	event("page_view")
	if v.addToCart {
		event("add_to_cart")
	}
	if v.checkoutStep {
		event("checkout_step")
	}
	if v.cartItems >= 0 {
		scan(`INSERT INTO carts (store_id, token, visitor_id, session_id, currency, item_count) VALUES (?, md5(random()::text), ?, ?, 'EUR', ?) RETURNING id`,
			storeID, visitor, session, v.cartItems)
	}
	if v.checkout {
		scan(`INSERT INTO checkouts (store_id, token, visitor_id, session_id, currency, expires_at) VALUES (?, md5(random()::text), ?, ?, 'EUR', ?) RETURNING id`,
			storeID, visitor, session, v.at.Add(24*time.Hour))
	}
	if v.orderCents > 0 {
		o := createOrder(t, e, storeID, orderSpec{createdAt: v.at.Add(5 * time.Minute), lines: []orderLine{{sku: "TEE", price: v.orderCents, quantity: 1}}})
		scan(`UPDATE orders SET session_id = ? WHERE id = ? RETURNING id`, session, o.ID)
	}
	return session
}

// trafficRandomVisits stores n random visits between from and to, of
// about n/3 visitors (some return), on every kind of landing page.
func trafficRandomVisits(t testing.TB, e *apitest.Env, storeID int64, rng *rand.Rand, n int, from, to time.Time) {
	t.Helper()
	paths := []*string{nil, trafficPath(""), trafficPath("/"), trafficPath("/products/linen-shirt"), trafficPath("/products/mug"),
		trafficPath("/products/cap"), trafficPath("/collections/summer"), trafficPath("/pages/about"), trafficPath("/blog/news/hello"),
		trafficPath("/search"), trafficPath("/cart"), trafficPath("/blog")}
	span := to.Sub(from)
	for i := range n {
		v := trafficVisit{
			anon:      fmt.Sprintf("v%d", rng.IntN(n/3+1)),
			at:        from.Add(time.Duration(rng.Int64N(int64(span)))).Truncate(time.Second),
			landing:   paths[rng.IntN(len(paths))],
			bot:       rng.IntN(10) == 0,
			cartItems: -1,
		}
		v.addToCart = rng.IntN(3) == 0
		v.checkoutStep = rng.IntN(8) == 0
		switch rng.IntN(6) {
		case 0:
			v.cartItems = 0
		case 1:
			v.cartItems = 2
		}
		v.checkout = rng.IntN(7) == 0
		if rng.IntN(6) == 0 {
			v.orderCents = 1000 + rng.Int64N(9000)
		}
		_ = i
		addTrafficVisit(t, e, storeID, v)
	}
}

// trafficTruth is a session as its rows say, read plainly.
type trafficTruth struct {
	visitor   int64
	at        time.Time
	path      string
	carted    bool
	checkout  bool
	converted bool
	revenue   int64
}

// trafficRead reads the store's human sessions and what they did, each
// table on its own, and joins them in Go: the brute force the reports are
// compared with.
func trafficRead(t testing.TB, e *apitest.Env, storeID int64) []trafficTruth {
	t.Helper()
	ctx := context.Background()
	var sessions []struct {
		ID          int64     `bun:"id"`
		VisitorID   int64     `bun:"visitor_id"`
		FirstSeenAt time.Time `bun:"first_seen_at"`
		LandingPath *string   `bun:"landing_path"`
	}
	var events []struct {
		SessionID int64  `bun:"session_id"`
		Name      string `bun:"name"`
	}
	var carts []struct {
		SessionID *int64 `bun:"session_id"`
		ItemCount int64  `bun:"item_count"`
	}
	var checkouts []struct {
		SessionID *int64 `bun:"session_id"`
	}
	var orders []struct {
		SessionID  *int64 `bun:"session_id"`
		TotalCents int64  `bun:"total_cents"`
	}
	for q, dst := range map[string]any{
		"SELECT id, visitor_id, first_seen_at, landing_path FROM storefront_sessions WHERE store_id = ? AND NOT is_bot": &sessions,
		"SELECT session_id, name FROM storefront_events WHERE store_id = ?":                                             &events,
		"SELECT session_id, item_count FROM carts WHERE store_id = ?":                                                   &carts,
		"SELECT session_id FROM checkouts WHERE store_id = ?":                                                           &checkouts,
		"SELECT session_id, total_cents FROM orders WHERE store_id = ?":                                                 &orders,
	} {
		if err := e.DB.NewRaw(q, storeID).Scan(ctx, dst); err != nil && !strings.Contains(err.Error(), "no rows") {
			t.Fatalf("%s: %v", q, err)
		}
	}
	byID := map[int64]*trafficTruth{}
	out := make([]*trafficTruth, len(sessions))
	for i, s := range sessions {
		out[i] = &trafficTruth{visitor: s.VisitorID, at: s.FirstSeenAt}
		if s.LandingPath != nil {
			out[i].path = *s.LandingPath
		}
		byID[s.ID] = out[i]
	}
	for _, ev := range events {
		if s := byID[ev.SessionID]; s != nil {
			s.carted = s.carted || ev.Name == "add_to_cart"
			s.checkout = s.checkout || ev.Name == "checkout_step"
		}
	}
	for _, c := range carts {
		if c.SessionID != nil && byID[*c.SessionID] != nil && c.ItemCount > 0 {
			byID[*c.SessionID].carted = true
		}
	}
	for _, c := range checkouts {
		if c.SessionID != nil && byID[*c.SessionID] != nil {
			byID[*c.SessionID].checkout = true
		}
	}
	for _, o := range orders {
		if o.SessionID != nil && byID[*o.SessionID] != nil {
			s := byID[*o.SessionID]
			s.converted, s.revenue = true, s.revenue+o.TotalCents
		}
	}
	flat := make([]trafficTruth, len(out))
	for i, s := range out {
		flat[i] = *s
	}
	return flat
}

// trafficTypeOf is a landing page's type, as the README defines it.
func trafficTypeOf(path string) string {
	switch {
	case path == "/":
		return "home"
	case strings.HasPrefix(path, "/products/"):
		return "product"
	case strings.HasPrefix(path, "/collections/"):
		return "collection"
	case strings.HasPrefix(path, "/pages/"):
		return "page"
	case strings.HasPrefix(path, "/blog/"):
		return "article"
	case strings.HasPrefix(path, "/search"):
		return "search"
	}
	return "other"
}

// trafficBrute is the totals and landing pages of the sessions begun in
// [from, to).
func trafficBrute(all []trafficTruth, from, to time.Time, typ string) (analytics.AnalyticsTrafficTotals, []analytics.AnalyticsLandingPageStat) {
	var tot analytics.AnalyticsTrafficTotals
	visitors := map[int64]bool{}
	pages := map[string]*analytics.AnalyticsLandingPageStat{}
	pageVisitors := map[string]map[int64]bool{}
	for _, s := range all {
		if s.at.Before(from) || !s.at.Before(to) {
			continue
		}
		b2i := func(b bool) int64 {
			if b {
				return 1
			}
			return 0
		}
		tot.Sessions++
		visitors[s.visitor] = true
		tot.CartedSessions += b2i(s.carted)
		tot.CheckoutSessions += b2i(s.checkout)
		tot.ConvertedSessions += b2i(s.converted)
		tot.NotSetSessions += b2i(s.path == "")
		tot.RevenueCents += s.revenue
		if typ != "" && trafficTypeOf(s.path) != typ {
			continue
		}
		p := pages[s.path]
		if p == nil {
			p = &analytics.AnalyticsLandingPageStat{Path: s.path, Type: trafficTypeOf(s.path)}
			pages[s.path], pageVisitors[s.path] = p, map[int64]bool{}
		}
		p.Sessions++
		pageVisitors[s.path][s.visitor] = true
		p.CartedSessions += b2i(s.carted)
		p.CheckoutSessions += b2i(s.checkout)
		p.ConvertedSessions += b2i(s.converted)
		p.RevenueCents += s.revenue
	}
	tot.Visitors = int64(len(visitors))
	tot.ConversionRate = trafficRate(tot.ConvertedSessions, tot.Sessions)
	rows := []analytics.AnalyticsLandingPageStat{}
	for path, p := range pages {
		p.Visitors = int64(len(pageVisitors[path]))
		p.ConversionRate = trafficRate(p.ConvertedSessions, p.Sessions)
		rows = append(rows, *p)
	}
	slices.SortFunc(rows, func(a, b analytics.AnalyticsLandingPageStat) int {
		return cmp.Or(cmp.Compare(b.Sessions, a.Sessions), cmp.Compare(a.Path, b.Path))
	})
	return tot, rows
}

func trafficRate(n, d int64) float64 {
	if d == 0 {
		return 0
	}
	return math.Round(float64(n)/float64(d)*10000) / 10000
}

// trafficGet calls a report on REST and decodes it.
func trafficGet[T any](t testing.TB, e *apitest.Env, key, path, field string, q url.Values) T {
	t.Helper()
	r := e.Do(http.MethodGet, path+"?"+q.Encode(), key, nil).Expect(t, http.StatusOK)
	var body map[string]json.RawMessage
	if err := json.Unmarshal(r.Raw, &body); err != nil {
		t.Fatal(err)
	}
	var out T
	if err := json.Unmarshal(body[field], &out); err != nil {
		t.Fatalf("%s: %v", r.Raw, err)
	}
	return out
}

// TestAnalyticsTrafficReconciles: for random windows (dates and ragged
// date-times) in two zones, one with a DST change inside, every traffic
// and landing page figure on REST equals a brute force over the rows read
// plainly, the rollups equal the raw-only path, and the check finds
// nothing, also after sessions, carts and orders change and go.
func TestAnalyticsTrafficReconciles(t *testing.T) {
	e := apitest.New(t, apitest.WithStorefront(0, nil, nil, storefront.IPTruncated))
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(17, 3))
	start := time.Date(2026, 10, 20, 0, 0, 0, 0, time.UTC)
	end := time.Date(2026, 11, 12, 0, 0, 0, 0, time.UTC)
	for _, zone := range []string{"UTC", "America/New_York"} {
		t.Run(zone, func(t *testing.T) {
			loc, err := time.LoadLocation(zone)
			if err != nil {
				t.Fatal(err)
			}
			s := e.Store("traffic " + zone)
			s.Timezone = zone
			if err := models.UpdateStore(ctx, e.DB, s, "timezone"); err != nil {
				t.Fatal(err)
			}
			key := e.Key(s.ID, auth.RoleAdmin, "analytics:read")
			trafficRandomVisits(t, e, s.ID, rng, 160, start, end)
			// Sessions through the real ingestion, carts and checkout calls.
			trafficIngest(t, e, s.ID)

			check := func(t *testing.T, round string) {
				all := trafficRead(t, e, s.ID)
				var seen int64
				for i := range 10 {
					q := url.Values{}
					fromDay := start.AddDate(0, 0, rng.IntN(18))
					toDay := fromDay.AddDate(0, 0, rng.IntN(8))
					q.Set("from", fromDay.Format(time.DateOnly))
					q.Set("to", toDay.Format(time.DateOnly))
					if i%3 == 2 { // ragged: date-times off the quarter hours
						q.Set("from", fromDay.Add(time.Duration(rng.IntN(86400))*time.Second).Format("2006-01-02T15:04:05"))
						q.Set("to", toDay.Add(time.Duration(86400+rng.IntN(86400))*time.Second).Format("2006-01-02T15:04:05"))
					}
					if i == 0 { // the night clocks fall back in New York
						q.Set("from", "2026-10-25")
						q.Set("to", "2026-11-07")
					}
					today := time.Now().In(loc).Format(time.DateOnly)
					if i == 1 { // the visits made through the storefront
						q.Set("from", time.Now().In(loc).AddDate(0, 0, -1).Format(time.DateOnly))
						q.Set("to", today)
					}
					from, to := q.Get("from"), q.Get("to")
					w, err := analytics.ParseWindow(analytics.WindowArgs{From: &from, To: &to}, time.Now(), loc)
					if err != nil {
						t.Fatal(err)
					}
					prev := w.Previous()
					wantTot, wantRows := trafficBrute(all, w.From, w.To, "")
					wantPrev, _ := trafficBrute(all, prev.From, prev.To, "")

					got := trafficGet[analytics.AnalyticsTrafficSummary](t, e, key, "/store/analytics/traffic", "traffic", q)
					if got.Totals != wantTot || got.Previous != wantPrev {
						t.Fatalf("%s %v: traffic\n got %+v prev %+v\nwant %+v prev %+v", round, q, got.Totals, got.Previous, wantTot, wantPrev)
					}
					if i == 1 && (got.Totals.Sessions != 1 || got.Totals.CartedSessions != 1 || got.Totals.CheckoutSessions != 1) {
						t.Fatalf("%s: the storefront's visits: %+v", round, got.Totals)
					}
					seen += got.Totals.Sessions
					q.Set("limit", "1000")
					lp := trafficGet[analytics.AnalyticsLandingPageReport](t, e, key, "/store/analytics/landing-pages", "report", q)
					if !reflect.DeepEqual(lp.LandingPages, wantRows) || lp.LandingPageCount != int64(len(wantRows)) || lp.Totals != wantTot {
						t.Fatalf("%s %v: landing pages\n got %d %+v\nwant %d %+v", round, q, lp.LandingPageCount, lp.LandingPages, len(wantRows), wantRows)
					}
					typ := analytics.PageTypes[rng.IntN(len(analytics.PageTypes))]
					q.Set("type", typ)
					q.Set("limit", "2")
					lp = trafficGet[analytics.AnalyticsLandingPageReport](t, e, key, "/store/analytics/landing-pages", "report", q)
					_, typed := trafficBrute(all, w.From, w.To, typ)
					if lp.LandingPageCount != int64(len(typed)) || !reflect.DeepEqual(lp.LandingPages, typed[:min(2, len(typed))]) {
						t.Fatalf("%s %v: %s pages\n got %d %+v\nwant %d %+v", round, q, typ, lp.LandingPageCount, lp.LandingPages, len(typed), typed)
					}
					raw, err := analytics.LandingPagesFromRaw(ctx, e.DB, s.ID, w, analytics.LandingPageQuery{})
					if err != nil {
						t.Fatal(err)
					}
					if !reflect.DeepEqual(raw.LandingPages, wantRows) || raw.Totals != wantTot {
						t.Fatalf("%s %v: the raw path disagrees:\n got %+v\nwant %+v", round, q, raw.LandingPages, wantRows)
					}
				}
				if seen < 100 {
					t.Fatalf("%s: the windows held %d sessions in all", round, seen)
				}
				problems, err := analytics.CheckTrafficRollups(ctx, e.DB, s.ID, analytics.Span{From: start.AddDate(0, 0, -1), To: time.Now().Add(time.Hour)})
				if err != nil || len(problems) > 0 {
					t.Fatalf("%s: check: %v %v", round, err, problems)
				}
			}
			check(t, "as written")
			// Changes: sessions go, an order's total changes and another
			// moves to another session, carts empty, a session turns out
			// to be a bot and another gets a landing page.
			for _, q := range []string{
				"DELETE FROM storefront_sessions WHERE id IN (SELECT id FROM storefront_sessions WHERE store_id = ?0 ORDER BY id LIMIT 7)",
				"UPDATE orders SET total_cents = total_cents + 101 WHERE id IN (SELECT id FROM orders WHERE store_id = ?0 AND session_id IS NOT NULL ORDER BY id LIMIT 3)",
				`UPDATE orders SET session_id = (SELECT max(id) FROM storefront_sessions WHERE store_id = ?0)
					WHERE id = (SELECT max(id) FROM orders WHERE store_id = ?0 AND session_id IS NOT NULL)`,
				"UPDATE carts SET item_count = 0 WHERE store_id = ?0 AND item_count > 0",
				"UPDATE storefront_sessions SET is_bot = true WHERE id = (SELECT min(id) FROM storefront_sessions WHERE store_id = ?0 AND NOT is_bot)",
				"UPDATE storefront_sessions SET landing_path = '/pages/moved' WHERE id = (SELECT max(id) FROM storefront_sessions WHERE store_id = ?0 AND landing_path IS NULL)",
				"DELETE FROM checkouts WHERE id IN (SELECT id FROM checkouts WHERE store_id = ?0 ORDER BY id LIMIT 2)",
			} {
				if _, err := e.DB.ExecContext(ctx, q, s.ID); err != nil {
					t.Fatalf("%s: %v", q, err)
				}
			}
			check(t, "after changes")
			// A rebuild leaves the rollups as they are.
			if err := analytics.RebuildTrafficRollups(ctx, e.DB, s.ID); err != nil {
				t.Fatal(err)
			}
			check(t, "after a rebuild")
			// The check finds a rollup or a step that is not as the rows say.
			for _, q := range []string{
				"UPDATE traffic_slots SET sessions = sessions + 1 WHERE (store_id, slot) = (SELECT store_id, min(slot) FROM traffic_slots WHERE store_id = ?0 GROUP BY 1)",
				"UPDATE storefront_sessions SET carted = NOT carted WHERE id = (SELECT min(id) FROM storefront_sessions WHERE store_id = ?0 AND NOT is_bot)",
			} {
				if _, err := e.DB.ExecContext(ctx, q, s.ID); err != nil {
					t.Fatalf("%s: %v", q, err)
				}
			}
			problems, err := analytics.CheckTrafficRollups(ctx, e.DB, s.ID, analytics.Span{From: start.AddDate(0, 0, -1), To: time.Now().Add(time.Hour)})
			if err != nil || len(problems) != 2 || !strings.Contains(problems[0], ": carted is ") || !strings.HasPrefix(problems[1], "traffic_slots ") {
				t.Fatalf("check after damage: %v %q", err, problems)
			}
		})
	}
}

// trafficIngest makes two visits of one visitor through the storefront
// surface: one that lands on a product, adds to a cart and opens a
// checkout, and a bot's.
func trafficIngest(t testing.TB, e *apitest.Env, storeID int64) {
	t.Helper()
	key := e.PublishableKey(storeID)
	t0 := time.Now().Add(-2 * time.Hour).Truncate(time.Second)
	batch := sfBatch(
		sfEvent("t1", "page_view", "iv1", t0, map[string]any{"path": "/products/linen-shirt"}),
		sfEvent("t2", "add_to_cart", "iv1", t0.Add(time.Minute), map[string]any{"variant_id": 7, "quantity": 1, "value_cents": 2500, "currency": "EUR", "cart_token": "c1"}),
		sfEvent("t3", "checkout_step", "iv1", t0.Add(2*time.Minute), map[string]any{"step": "shipping", "checkout_token": "k1"}),
	)
	e.Storefront(http.MethodPost, "/events", key, batch, map[string]string{"User-Agent": chromeUA}).Expect(t, http.StatusOK)
	bot := sfBatch(sfEvent("t4", "page_view", "iv2", t0, map[string]any{"path": "/"}))
	e.Storefront(http.MethodPost, "/events", key, bot, map[string]string{"User-Agent": "Googlebot/2.1 (+http://www.google.com/bot.html)"}).Expect(t, http.StatusOK)
}

// TestAnalyticsTraffic: a small store's traffic and landing pages on both
// surfaces, the exports holding the JSON report's rows, access, bad input
// and statement counts that do not grow with the sessions.
func TestAnalyticsTraffic(t *testing.T) {
	e := apitest.New(t)
	s := e.Store("traffic")
	key := e.Key(s.ID, auth.RoleAdmin, "analytics:read")
	day := time.Date(2026, 11, 10, 9, 7, 0, 0, time.UTC)
	addTrafficVisit(t, e, s.ID, trafficVisit{anon: "a", at: day, landing: trafficPath("/products/crème-brûlée 🍮"), addToCart: true, cartItems: -1, checkout: true, orderCents: 4250})
	addTrafficVisit(t, e, s.ID, trafficVisit{anon: "a", at: day.Add(3 * time.Hour), landing: trafficPath("/"), cartItems: 1})
	addTrafficVisit(t, e, s.ID, trafficVisit{anon: "b", at: day.Add(4 * time.Hour), landing: trafficPath("/"), cartItems: -1})
	addTrafficVisit(t, e, s.ID, trafficVisit{anon: "c", at: day.Add(5 * time.Hour), cartItems: -1})
	addTrafficVisit(t, e, s.ID, trafficVisit{anon: "d", at: day.Add(6 * time.Hour), landing: trafficPath("/"), bot: true, cartItems: -1})
	addTrafficVisit(t, e, s.ID, trafficVisit{anon: "a", at: day.AddDate(0, 0, -1), landing: trafficPath("/"), cartItems: -1, orderCents: 1000})

	q := "?from=2026-11-10&to=2026-11-10"
	r := e.Do(http.MethodGet, "/store/analytics/traffic"+q, key, nil).Expect(t, http.StatusOK)
	e.SameOnGraphQL(t, r, key, "AnalyticsTraffic", map[string]any{"from": "2026-11-10", "to": "2026-11-10"})
	got := trafficGet[analytics.AnalyticsTrafficSummary](t, e, key, "/store/analytics/traffic", "traffic", url.Values{"from": {"2026-11-10"}, "to": {"2026-11-10"}})
	want := analytics.AnalyticsTrafficTotals{Sessions: 4, Visitors: 3, CartedSessions: 2, CheckoutSessions: 1, ConvertedSessions: 1,
		NotSetSessions: 1, ConversionRate: 0.25, RevenueCents: 4250}
	if got.Totals != want || got.Previous.Sessions != 1 || got.Previous.RevenueCents != 1000 || got.From != "2026-11-10T00:00:00Z" || got.To != "2026-11-11T00:00:00Z" {
		t.Fatalf("traffic: %+v", got)
	}
	if got.Deltas.SessionsPct == nil || *got.Deltas.SessionsPct != 300 || got.Deltas.ConversionPct == nil || *got.Deltas.ConversionPct != -75 {
		t.Fatalf("deltas: %+v", got.Deltas)
	}

	r = e.Do(http.MethodGet, "/store/analytics/landing-pages"+q, key, nil).Expect(t, http.StatusOK)
	e.SameOnGraphQL(t, r, key, "AnalyticsLandingPages", map[string]any{"from": "2026-11-10", "to": "2026-11-10"})
	lp := trafficGet[analytics.AnalyticsLandingPageReport](t, e, key, "/store/analytics/landing-pages", "report", url.Values{"from": {"2026-11-10"}, "to": {"2026-11-10"}})
	if lp.Limit != 50 || lp.LandingPageCount != 3 || len(lp.LandingPages) != 3 {
		t.Fatalf("landing pages: %+v", lp)
	}
	home := analytics.AnalyticsLandingPageStat{Path: "/", Type: "home", Sessions: 2, Visitors: 2, CartedSessions: 1, ConversionRate: 0}
	if lp.LandingPages[0] != home || lp.LandingPages[1].Path != "" || lp.LandingPages[2].Type != "product" || lp.LandingPages[2].RevenueCents != 4250 {
		t.Fatalf("landing pages: %+v", lp.LandingPages)
	}
	one := trafficGet[analytics.AnalyticsLandingPageReport](t, e, key, "/store/analytics/landing-pages", "report",
		url.Values{"from": {"2026-11-10"}, "to": {"2026-11-10"}, "type": {"product"}, "limit": {"1"}})
	if one.LandingPageCount != 1 || len(one.LandingPages) != 1 || one.LandingPages[0] != lp.LandingPages[2] {
		t.Fatalf("product pages: %+v", one)
	}

	// The exports hold the JSON report's rows, every one.
	csv := e.Do(http.MethodGet, "/store/analytics/landing-pages/export.csv"+q, key, nil).Expect(t, http.StatusOK).Raw
	if !bytes.HasPrefix(csv, []byte("\uFEFF")) {
		t.Fatalf("the CSV has no byte order mark: %q", csv[:min(20, len(csv))])
	}
	tbl, err := sheets.Read(bytes.NewReader(csv), 32<<20)
	if err != nil || tbl.Format != "csv" || tbl.Header[0] != "Landing page" || len(tbl.Rows) != len(lp.LandingPages) {
		t.Fatalf("CSV: %v %+v", err, tbl)
	}
	for i, p := range lp.LandingPages {
		want := []string{p.Path, p.Type, strconv.FormatInt(p.Sessions, 10), strconv.FormatInt(p.Visitors, 10), strconv.FormatInt(p.CartedSessions, 10),
			strconv.FormatInt(p.CheckoutSessions, 10), strconv.FormatInt(p.ConvertedSessions, 10), strconv.FormatFloat(p.ConversionRate, 'f', -1, 64),
			fmt.Sprintf("%d.%02d", p.RevenueCents/100, p.RevenueCents%100)}
		if !slices.Equal(tbl.Rows[i], want) {
			t.Fatalf("CSV row %d: %q, want %q", i, tbl.Rows[i], want)
		}
	}
	xlsx := e.Do(http.MethodGet, "/store/analytics/landing-pages/export.xlsx"+q, key, nil).Expect(t, http.StatusOK).Raw
	f, err := excelize.OpenReader(bytes.NewReader(xlsx))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sheet := f.GetSheetName(0)
	if dim, _ := f.GetSheetDimension(sheet); dim != fmt.Sprintf("A1:I%d", len(lp.LandingPages)+1) {
		t.Fatalf("dimension %q", dim)
	}
	rows, err := f.Rows(sheet) // the streaming reader
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for rows.Next() {
		cols, err := rows.Columns(excelize.Options{RawCellValue: true})
		if err != nil {
			t.Fatal(err)
		}
		if n > 0 {
			p := lp.LandingPages[n-1]
			if cols[0] != p.Path || cols[2] != strconv.FormatInt(p.Sessions, 10) || cols[8] != strconv.FormatFloat(float64(p.RevenueCents)/100, 'f', -1, 64) {
				t.Fatalf("XLSX row %d: %q for %+v", n, cols, p)
			}
			cell, _ := excelize.CoordinatesToCellName(8, n+1)
			if typ, _ := f.GetCellType(sheet, cell); typ == excelize.CellTypeSharedString || typ == excelize.CellTypeInlineString {
				t.Fatalf("the rate %s is text", cell)
			}
			style, _ := f.GetCellStyle(sheet, cell)
			st, _ := f.GetStyle(style)
			if st == nil || st.CustomNumFmt == nil || !strings.Contains(*st.CustomNumFmt, "%") {
				t.Fatalf("the rate %s has no percentage format: %+v", cell, st)
			}
			money, _ := excelize.CoordinatesToCellName(9, n+1)
			style, _ = f.GetCellStyle(sheet, money)
			if st, _ = f.GetStyle(style); st == nil || st.CustomNumFmt == nil || !strings.Contains(*st.CustomNumFmt, "$") {
				t.Fatalf("the revenue %s has no currency format: %+v", money, st)
			}
		}
		n++
	}
	if n != len(lp.LandingPages)+1 {
		t.Fatalf("the streaming reader saw %d rows", n)
	}

	// Access: 401, 403 without the analytics scope.
	reads := []apitest.Call{{Method: http.MethodGet, Path: "/store/analytics/traffic" + q}, {Method: http.MethodGet, Path: "/store/analytics/landing-pages" + q},
		{Method: http.MethodGet, Path: "/store/analytics/landing-pages/export.csv" + q}, {Method: http.MethodGet, Path: "/store/analytics/landing-pages/export.xlsx" + q}}
	checkAccess(t, e, s.ID, "analytics", map[string]string{"orders only": e.Key(s.ID, auth.RoleAdmin, "orders:read")}, reads, nil)

	// Bad input: a 400 naming the argument.
	for path, field := range map[string]string{
		"/store/analytics/traffic?from=yesterday":                       "from",
		"/store/analytics/traffic?from=2026-11-10&to=2026-11-01":        "from",
		"/store/analytics/traffic?from=2020-01-01&to=2026-11-01":        "from",
		"/store/analytics/landing-pages?type=blog":                      "type",
		"/store/analytics/landing-pages?limit=0":                        "limit",
		"/store/analytics/landing-pages?limit=1001":                     "limit",
		"/store/analytics/landing-pages/export.csv?type=products":       "type",
		"/store/analytics/landing-pages/export.xlsx?to=2026-13-01":      "to",
		"/store/analytics/landing-pages?from=2026-11-10&to=2026-11-01x": "to",
	} {
		r := e.Do(http.MethodGet, path, key, nil).Expect(t, http.StatusBadRequest)
		if !strings.Contains(string(r.Raw), field) {
			t.Fatalf("%s: %s does not name %s", path, r.Raw, field)
		}
	}

	// Statements do not grow with the sessions.
	count := countStatements(e)
	calls := func() int64 {
		return count(func() {
			e.Do(http.MethodGet, "/store/analytics/traffic"+q, key, nil).Expect(t, http.StatusOK)
			e.Do(http.MethodGet, "/store/analytics/landing-pages"+q, key, nil).Expect(t, http.StatusOK)
		})
	}
	before := calls()
	trafficRandomVisits(t, e, s.ID, rand.New(rand.NewPCG(1, 2)), 60, day, day.Add(20*time.Hour))
	if after := calls(); after != before {
		t.Fatalf("statements grew with the sessions: %d, then %d", before, after)
	}
}

// TestTrafficKeepsStepsWhenEventsArePurged: the retention job's purge of a
// session's events leaves what they made of it (a product view, an
// add-to-cart, a checkout step), in the session's row, the traffic report
// and the check, also when a later change of the session's carts
// recomputes its steps.
func TestTrafficKeepsStepsWhenEventsArePurged(t *testing.T) {
	e := apitest.New(t)
	ctx := context.Background()
	s := e.Store("purged")
	key := e.Key(s.ID, auth.RoleAdmin, "analytics:read")
	day := time.Now().UTC().AddDate(0, 0, -3).Truncate(24 * time.Hour).Add(9 * time.Hour)
	session := addTrafficVisit(t, e, s.ID, trafficVisit{anon: "p", at: day, landing: trafficPath("/products/tee"), addToCart: true, checkoutStep: true, cartItems: -1})
	if _, err := e.DB.ExecContext(ctx, `INSERT INTO storefront_events (store_id, session_id, visitor_id, client_event_id, name, occurred_at)
		SELECT store_id, id, visitor_id, 'pv-1', 'product_view', first_seen_at FROM storefront_sessions WHERE id = ?`, session); err != nil {
		t.Fatal(err)
	}
	q := url.Values{"from": {day.Format(time.DateOnly)}, "to": {day.Format(time.DateOnly)}}
	before := trafficGet[analytics.AnalyticsTrafficSummary](t, e, key, "/store/analytics/traffic", "traffic", q)
	if before.Totals.Sessions != 1 || before.Totals.CartedSessions != 1 || before.Totals.CheckoutSessions != 1 {
		t.Fatalf("before the purge: %+v", before.Totals)
	}
	steps := func(stage string) {
		t.Helper()
		var viewed, carted, reached bool
		if err := e.DB.NewRaw(`SELECT viewed_product, carted, reached_checkout FROM storefront_sessions WHERE id = ?`, session).
			Scan(ctx, &viewed, &carted, &reached); err != nil || !viewed || !carted || !reached {
			t.Fatalf("%s: viewed %v, carted %v, reached checkout %v (%v)", stage, viewed, carted, reached, err)
		}
		if got := trafficGet[analytics.AnalyticsTrafficSummary](t, e, key, "/store/analytics/traffic", "traffic", q); got.Totals != before.Totals {
			t.Fatalf("%s: traffic %+v, was %+v", stage, got.Totals, before.Totals)
		}
		problems, err := analytics.CheckTrafficRollups(ctx, e.DB, s.ID, analytics.Span{From: day.AddDate(0, 0, -1), To: day.AddDate(0, 0, 1)})
		if err != nil || len(problems) > 0 {
			t.Fatalf("%s: check: %v %q", stage, err, problems)
		}
	}
	n, err := retention.Purge(ctx, e.DB, 24*time.Hour, time.Now())
	if err != nil || n != 4 {
		t.Fatalf("purged %d events: %v", n, err)
	}
	steps("after the purge")
	// A cart of the session, empty: its trigger recomputes the steps.
	if _, err := e.DB.ExecContext(ctx, `INSERT INTO carts (store_id, token, visitor_id, session_id, currency, item_count)
		SELECT store_id, 'purged-cart', visitor_id, id, 'EUR', 0 FROM storefront_sessions WHERE id = ?`, session); err != nil {
		t.Fatal(err)
	}
	steps("after a cart of the session")
}
