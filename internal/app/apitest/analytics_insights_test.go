package apitest_test

import (
	"context"
	"fmt"
	"log/slog"
	"math"
	"net/http"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/uptrace/bun"

	"storeadmin/internal/analytics"
	"storeadmin/internal/app/apitest"
	"storeadmin/internal/app/benchdata"
	"storeadmin/internal/auth"
	"storeadmin/internal/insights"
	"storeadmin/models"
)

// The insights tests craft a store's last weeks so that each kind of
// finding fires once, beside subjects that must not fire: an effect too
// small, a sample too small, an effect that is noise, and bots that would
// make a finding if they counted. The days are placed well inside their
// windows (3 and 10 days before yesterday), so a run that starts after the
// store's midnight passed computes the same findings.

// insVisit is one storefront visit of the fixture: a landing page view, or
// a product view (and an add to cart of it).
type insVisit struct {
	anon, path string
	at         time.Time
	bot        bool
	product    int64
	carted     bool
}

// insIngest stores visits through the storefront's sessionising statement
// (models.IngestEvents), one visitor each, and returns their sessions' ids
// by visitor.
func insIngest(t testing.TB, e *apitest.Env, storeID int64, visits []insVisit) map[string]int64 {
	t.Helper()
	ctx := context.Background()
	var evs []models.StagedEvent
	add := func(v insVisit, name string, at time.Time) {
		ev := models.StagedEvent{Ord: len(evs), ClientEventID: fmt.Sprintf("%s-%d", v.anon, len(evs)), AnonID: v.anon, Name: name,
			OccurredAt: at, IsBot: v.bot}
		if v.path != "" {
			ev.Path = &v.path
		}
		if v.product != 0 {
			title := fmt.Sprintf("Product %d", v.product)
			ev.ProductID, ev.ProductTitle = &v.product, &title
		}
		evs = append(evs, ev)
	}
	for _, v := range visits {
		if v.product == 0 {
			add(v, "page_view", v.at)
			continue
		}
		add(v, "product_view", v.at)
		if v.carted {
			add(v, "add_to_cart", v.at.Add(time.Minute))
		}
	}
	err := e.DB.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		_, err := models.IngestEvents(ctx, tx, storeID, evs, 30*time.Minute)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	var rows []struct {
		Anon string
		ID   int64
	}
	if err := e.DB.NewRaw(`SELECT v.anon_id AS anon, s.id FROM storefront_sessions AS s JOIN visitors AS v ON v.id = s.visitor_id
		WHERE s.store_id = ?`, storeID).Scan(ctx, &rows); err != nil {
		t.Fatal(err)
	}
	out := map[string]int64{}
	for _, r := range rows {
		out[r.Anon] = r.ID
	}
	return out
}

// insOrder is one order of the fixture.
type insOrder struct {
	email, code string // no email: a guest
	session     int64
	at          time.Time
}

// insPlace places orders through models.PlaceOrders, as checkouts do.
func insPlace(t testing.TB, e *apitest.Env, storeID int64, orders []insOrder) {
	t.Helper()
	ps := make([]models.OrderPlacement, len(orders))
	for i, o := range orders {
		order := &models.Order{StoreID: storeID, Email: o.email, Currency: "EUR", SubtotalCents: 2000, TotalCents: 2000,
			DiscountCode: o.code, Tags: []string{}, SystemTags: []string{}, Source: "web"}
		if o.code != "" {
			order.DiscountCents, order.TotalCents = 200, 1800
		}
		if o.session != 0 {
			order.SessionID = &o.session
		}
		ps[i] = models.OrderPlacement{Order: order, Guest: o.email == "", Now: o.at, Actor: "checkout",
			Lines:   []models.OrderLineItem{{Title: "Tee", VariantTitle: "M", PriceCents: 2000, Quantity: 1, RequiresShipping: true, Source: "checkout"}},
			Payment: models.Payment{Provider: "stripe", Method: "card"}}
	}
	err := e.DB.RunInTx(context.Background(), nil, func(ctx context.Context, tx bun.Tx) error {
		_, err := models.PlaceOrders(ctx, tx, ps)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}

// insExec runs a statement of the fixture.
func insExec(t testing.TB, e *apitest.Env, q string, args ...any) {
	t.Helper()
	if _, err := e.DB.NewRaw(q, args...).Exec(context.Background()); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
}

// insLanding adds n visits landing on path at day's offset (bots when bot),
// the first converted of them placing an order each.
func insLanding(path string, n, converted int, at time.Time, bot bool) (visits []insVisit, orders func(map[string]int64) []insOrder) {
	for i := range n {
		visits = append(visits, insVisit{anon: fmt.Sprintf("lp%s-%d-%t-%d", path, at.Unix(), bot, i), path: path, at: at.Add(time.Duration(i) * time.Minute), bot: bot})
	}
	return visits, func(sessions map[string]int64) []insOrder {
		var out []insOrder
		for _, v := range visits[:converted] {
			out = append(out, insOrder{session: sessions[v.anon], at: v.at.Add(10 * time.Minute)})
		}
		return out
	}
}

// insProduct adds n visits viewing product at at, the first carted of them
// adding it to a cart.
func insProduct(product int64, n, carted int, at time.Time) []insVisit {
	var out []insVisit
	for i := range n {
		out = append(out, insVisit{anon: fmt.Sprintf("pv%d-%d", product, i), product: product, at: at.Add(time.Duration(i) * time.Minute), carted: i < carted})
	}
	return out
}

// insAttempts adds n payment attempts of method at at to a checkout of the
// store, failed of them failing (every third of those an error rather than
// a decline).
func insAttempts(t testing.TB, e *apitest.Env, storeID int64, method string, n, failed int, at time.Time) {
	t.Helper()
	insExec(t, e, `INSERT INTO checkout_payment_attempts (store_id, checkout_id, provider, payment_method, amount_cents, currency, status, created_at)
		SELECT ?0, (SELECT id FROM checkouts WHERE store_id = ?0 ORDER BY id LIMIT 1), 'stripe', ?1, 2000, 'EUR',
			CASE WHEN i > ?3 THEN 'success' WHEN i % 3 = 0 THEN 'error' ELSE 'failure' END, ?4::timestamptz + i * interval '1 minute'
		FROM generate_series(1, ?2) AS i`, storeID, method, n, failed, at)
}

// insCustomers places the first orders of n customers with code at first,
// the first back of them ordering again, without a code, at back.
func insCustomers(prefix, code string, n, back int, first, again time.Time) []insOrder {
	var out []insOrder
	for i := range n {
		email := fmt.Sprintf("%s-%d@example.com", prefix, i)
		out = append(out, insOrder{email: email, code: code, at: first.Add(time.Duration(i) * time.Minute)})
		if i < back {
			out = append(out, insOrder{email: email, at: again.Add(time.Duration(i) * time.Minute)})
		}
	}
	return out
}

// insFixture crafts the store's data around day (its local yesterday at
// the test's start) and says what each finding must hold.
func insFixture(t testing.TB, e *apitest.Env, storeID int64, day time.Time) {
	t.Helper()
	cur, prev := day.AddDate(0, 0, -3).Add(9*time.Hour), day.AddDate(0, 0, -10).Add(9*time.Hour)
	var visits []insVisit
	var orderers []func(map[string]int64) []insOrder
	landing := func(path string, n, converted int, at time.Time, bot bool) {
		v, o := insLanding(path, n, converted, at, bot)
		visits, orderers = append(visits, v...), append(orderers, o)
	}
	// Fires: 30 of 300 (10%) the week before, 9 of 300 (3%) last week.
	landing("/pages/spring", 300, 30, prev, false)
	landing("/pages/spring", 300, 9, cur, false)
	// Too small an effect: 10% then 9%.
	landing("/pages/steady", 300, 30, prev, false)
	landing("/pages/steady", 300, 27, cur, false)
	// A large effect on too few visits: 20% then 2% of 150; 100 bots each
	// week, who never buy, would make it 250 visits and a finding if bots
	// counted.
	landing("/pages/small", 150, 30, prev, false)
	landing("/pages/small", 150, 3, cur, false)
	landing("/pages/small", 100, 0, prev, true)
	landing("/pages/small", 100, 0, cur, true)
	// Noise: 3% then 1.5% of 200 (p = 0.16).
	landing("/pages/noise", 200, 6, prev, false)
	landing("/pages/noise", 200, 3, cur, false)
	// Products, last week: 101 fires (9 of 300 viewers carted it, against
	// 129 of 1,050 for the others); 102 and 103 convert above the rest; 104
	// never carts, on too few viewers.
	visits = append(visits, insProduct(101, 300, 9, cur)...)
	visits = append(visits, insProduct(102, 600, 90, cur)...)
	visits = append(visits, insProduct(103, 300, 39, cur)...)
	visits = append(visits, insProduct(104, 150, 0, cur)...)
	sessions := insIngest(t, e, storeID, visits)
	var orders []insOrder
	for _, o := range orderers {
		orders = append(orders, o(sessions)...)
	}
	// Discounts, over 90 days: 2 of WELCOME50's 40 customers came back,
	// against 54 of the 160 others; LOYAL10's 14 of 40 is above the rest;
	// TINY's 0 of 20 is too few customers.
	first, again := day.AddDate(0, 0, -60), day.AddDate(0, 0, -30)
	orders = append(orders, insCustomers("welcome", "WELCOME50", 40, 2, first, again)...)
	orders = append(orders, insCustomers("loyal", "loyal10", 40, 14, first, again)...)
	orders = append(orders, insCustomers("tiny", "TINY", 20, 0, first, again)...)
	orders = append(orders, insCustomers("plain", "", 100, 40, first, again)...)
	insPlace(t, e, storeID, orders)
	insExec(t, e, `INSERT INTO discounts (store_id, code, type, value) VALUES (?, 'WELCOME50', 'percentage', 50)`, storeID)
	// Payment attempts: card failures rise from 5% to 15% of 300; paypal's
	// from 5% to 5.7%; klarna's from 2% to 30% of only 100.
	insExec(t, e, `INSERT INTO checkouts (store_id, token, currency, expires_at) VALUES (?, 'chk-insights', 'EUR', now() + interval '1 day')`, storeID)
	insAttempts(t, e, storeID, "card", 300, 15, prev)
	insAttempts(t, e, storeID, "card", 300, 45, cur)
	insAttempts(t, e, storeID, "paypal", 300, 15, prev)
	insAttempts(t, e, storeID, "paypal", 300, 17, cur)
	insAttempts(t, e, storeID, "klarna", 100, 2, prev)
	insAttempts(t, e, storeID, "klarna", 100, 30, cur)
}

// insZ is the pooled two-proportion z of x1/n1 against x2/n2, worked out
// here apart from the service's.
func insZ(x1, n1, x2, n2 float64) float64 {
	p := (x1 + x2) / (n1 + n2)
	return (x1/n1 - x2/n2) / math.Sqrt(p*(1-p)*(1/n1+1/n2))
}

// insWant is a finding the fixture makes.
type insWant struct {
	kind, subject string
	subjectID     bool
	sample        int64
	counts        map[string]int64
	z             float64
	evidence      string
}

// TestInsights: the daily job, run by River, finds exactly the crafted
// effects; both surfaces answer them strongest first; older days stay but
// are not current; a rerun of the day replaces its findings.
func TestInsights(t *testing.T) {
	// The job runs when an engine's River client becomes leader (and at
	// once then): the service's engine stays idle, one with the insights
	// work starts once the data is there.
	e := apitest.New(t, apitest.WithoutEventWorkers())
	s := e.Store("Insights")
	ctx := context.Background()
	insExec(t, e, "UPDATE stores SET timezone = 'Europe/Paris' WHERE id = ?", s.ID)
	loc, _ := time.LoadLocation("Europe/Paris")
	now := time.Now().In(loc)
	day := time.Date(now.Year(), now.Month(), now.Day()-1, 0, 0, 0, 0, loc)
	insFixture(t, e, s.ID, day)
	// A finding of an older day: history, not current.
	old := day.AddDate(0, 0, -20).Format(time.DateOnly)
	insExec(t, e, "INSERT INTO insight_runs (store_id, day, findings) VALUES (?, ?, 1)", s.ID, old)
	insExec(t, e, `INSERT INTO insights (store_id, day, kind, subject_key, headline, metrics, sample_size, z)
		VALUES (?, ?, 'landing_page_conversion_drop', '/old', 'old', '{}', 500, -9)`, s.ID, old)

	if _, err := analytics.ComputeInsights(ctx, e.DB, s.ID, time.Now()); err != nil {
		t.Fatal(err)
	}
	e.StartEventWorkers(insights.Work(e.DB, time.Now, slog.New(slog.DiscardHandler)))
	runs := func() (n int) {
		t.Helper()
		if err := e.DB.NewRaw("SELECT count(*) FROM insight_runs WHERE store_id = ? AND day > ?", s.ID, old).Scan(ctx, &n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	// Wait for the job; the bound only turns a job that never runs into a
	// failure instead of a hang.
	for deadline := time.Now().Add(2 * time.Minute); runs() == 0; time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the insights job did not run")
		}
	}

	key := e.Key(s.ID, auth.RoleStaff, "analytics:read")
	r := e.Do(http.MethodGet, "/store/insights", key, nil).Expect(t, http.StatusOK)
	got := objectsOf(r.Body["insights"])
	wants := []insWant{
		{kind: analytics.InsightLandingPageConversionDrop, subject: "/pages/spring", sample: 600,
			counts: map[string]int64{"sessions": 300, "converted_sessions": 9, "previous_sessions": 300, "previous_converted_sessions": 30},
			z:      insZ(9, 300, 30, 300), evidence: "/api/v1/store/sessions?from=%[1]s&landing_path=%%2Fpages%%2Fspring&to=%[2]s"},
		{kind: analytics.InsightProductViewsWithoutCarts, subject: "Product 101", subjectID: true, sample: 300,
			counts: map[string]int64{"viewing_sessions": 300, "carting_sessions": 9, "other_products_viewing_sessions": 1050, "other_products_carting_sessions": 129},
			z:      insZ(9, 300, 129, 1050), evidence: "/api/v1/store/sessions?from=%[3]s&group_by=product&to=%[2]s"},
		{kind: analytics.InsightPaymentMethodFailureRising, subject: "card", sample: 600,
			counts: map[string]int64{"attempts": 300, "failed_attempts": 45, "previous_attempts": 300, "previous_failed_attempts": 15},
			z:      insZ(45, 300, 15, 300), evidence: "/api/v1/store/abandoned-checkouts?from=%[3]s&state=payment_failed&to=%[4]s"},
		{kind: analytics.InsightDiscountOneTimeBuyers, subject: "WELCOME50", subjectID: true, sample: 40,
			counts: map[string]int64{"customers": 40, "returning_customers": 2, "other_customers": 160, "other_returning_customers": 54},
			z:      insZ(2, 40, 54, 160), evidence: "/api/v1/store/analytics?from=%[5]s&to=%[2]s"},
	}
	if len(got) != len(wants) {
		t.Fatalf("%d findings, want %d: %s", len(got), len(wants), r.Raw)
	}
	dayText := stringField(t, got[0], "day")
	d, _ := time.ParseInLocation(time.DateOnly, dayText, loc)
	if dayText != day.Format(time.DateOnly) && dayText != day.AddDate(0, 0, 1).Format(time.DateOnly) {
		t.Fatalf("the findings' day %s, want the store's yesterday %s", dayText, day.Format(time.DateOnly))
	}
	date := func(n int) string { return d.AddDate(0, 0, n).Format(time.DateOnly) }
	for _, w := range wants {
		var f map[string]any
		for _, g := range got {
			if g["kind"] == w.kind {
				f = g
			}
		}
		if f == nil {
			t.Fatalf("no %s finding: %s", w.kind, r.Raw)
		}
		m := f["metrics"].(map[string]any)
		for k, n := range w.counts {
			if wholeNumber(t, m[k]) != n {
				t.Errorf("%s: metrics.%s %v, want %d", w.kind, k, m[k], n)
			}
		}
		if z := m["z"].(float64); math.Abs(z-w.z) > 0.001 {
			t.Errorf("%s: z %v, want %.3f", w.kind, z, w.z)
		}
		if p := m["p"].(float64); p <= 0 || p >= analytics.InsightsAlpha {
			t.Errorf("%s: p %v", w.kind, p)
		}
		if f["subject_label"] != w.subject || f["day"] != dayText || wholeNumber(t, f["sample_size"]) != w.sample ||
			(f["subject_id"] != nil) != w.subjectID || stringField(t, f, "headline") == "" || stringField(t, f, "detail") == "" || stringField(t, f, "action") == "" {
			t.Errorf("%s: %v", w.kind, f)
		}
		evidence := fmt.Sprintf(w.evidence, date(-13), date(0), date(-6), date(1), date(-89))
		if f["evidence_url"] != evidence {
			t.Errorf("%s: evidence %v, want %s", w.kind, f["evidence_url"], evidence)
		}
		// The evidence is a call that answers (the overview's is another
		// report's, checked by its own tests).
		if w.kind != analytics.InsightDiscountOneTimeBuyers {
			e.Do(http.MethodGet, strings.TrimPrefix(evidence, "/api/v1"), e.Key(s.ID, auth.RoleAdmin), nil).Expect(t, http.StatusOK)
		}
	}
	for i := 1; i < len(got); i++ {
		if math.Abs(got[i]["metrics"].(map[string]any)["z"].(float64)) > math.Abs(got[i-1]["metrics"].(map[string]any)["z"].(float64)) {
			t.Fatalf("not strongest first: %s", r.Raw)
		}
	}
	e.SameOnGraphQL(t, r, key, "ListInsights", nil)

	// A rerun of the day (as storeadmin insights run does) replaces its
	// findings: no duplicates; with the card's failures gone, its finding
	// is gone; the older day's finding stays as history.
	count := func() (n int) {
		t.Helper()
		if err := e.DB.NewRaw("SELECT count(*) FROM insights WHERE store_id = ?", s.ID).Scan(ctx, &n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	if n := count(); n != len(wants)+1 {
		t.Fatalf("%d insight rows", n)
	}
	rerun := func() analytics.InsightsRun {
		t.Helper()
		run, err := analytics.ComputeInsights(ctx, e.DB, s.ID, time.Now())
		if err != nil {
			t.Fatal(err)
		}
		return run
	}
	if run := rerun(); run.Findings != len(wants) || count() != len(wants)+1 {
		t.Fatalf("a rerun: %+v, %d rows", run, count())
	}
	insExec(t, e, "UPDATE checkout_payment_attempts SET status = 'success' WHERE store_id = ? AND payment_method = 'card' AND created_at >= ?", s.ID, day.AddDate(0, 0, -5))
	if run := rerun(); run.Findings != len(wants)-1 || count() != len(wants) {
		t.Fatalf("a rerun after the failures went: %+v, %d rows", run, count())
	}
	after := objectsOf(e.Do(http.MethodGet, "/store/insights", key, nil).Expect(t, http.StatusOK).Body["insights"])
	if len(after) != len(wants)-1 {
		t.Fatalf("after the rerun: %v", after)
	}
	for _, f := range after {
		if f["kind"] == analytics.InsightPaymentMethodFailureRising {
			t.Fatalf("the card's finding stayed: %v", f)
		}
	}
	if runs() != 1 {
		t.Fatalf("%d runs of the day", runs())
	}
}

// TestInsightsAccess: GET /store/insights needs the analytics scope, on
// both surfaces; a store without a computed day answers none; unknown
// parameters are 400s.
func TestInsightsAccess(t *testing.T) {
	e := apitest.New(t)
	s := e.Store("Insights")
	reads := []apitest.Call{{Method: http.MethodGet, Path: "/store/insights"}}
	other := e.Key(s.ID, auth.RoleAdmin, "orders:read")
	checkAccess(t, e, s.ID, "analytics", map[string]string{"other scope": other}, reads, nil)
	expectUnauthorized(t, e, s.ID, http.MethodGet, "/store/insights", nil)
	expectGraphQLCode(t, e, other, "FORBIDDEN", nil, `{ insights { kind } }`)
	key := e.Key(s.ID, auth.RoleAdmin, "analytics:read")
	r := e.Do(http.MethodGet, "/store/insights", key, nil).Expect(t, http.StatusOK)
	if got := objectsOf(r.Body["insights"]); r.Body["insights"] == nil || len(got) != 0 {
		t.Fatalf("no day computed: %s", r.Raw)
	}
	e.SameOnGraphQL(t, r, key, "ListInsights", nil)
	e.Do(http.MethodGet, "/store/insights?day=2026-01-01", key, nil).Expect(t, http.StatusBadRequest)
	// Another store's findings are not this one's.
	o := e.Store("Other")
	if _, err := analytics.ComputeInsights(context.Background(), e.DB, o.ID, time.Now()); err != nil {
		t.Fatal(err)
	}
	insExec(t, e, `INSERT INTO insights (store_id, day, kind, subject_key, headline, metrics, sample_size, z)
		SELECT store_id, day, 'landing_page_conversion_drop', '/theirs', 'theirs', '{}', 500, -9 FROM insight_runs WHERE store_id = ?`, o.ID)
	if got := objectsOf(e.Do(http.MethodGet, "/store/insights", key, nil).Expect(t, http.StatusOK).Body["insights"]); len(got) != 0 {
		t.Fatalf("another store's findings: %v", got)
	}
}

// BenchmarkInsights measures one store's run of the finders and the
// storing of its day (analytics.ComputeInsights, at most seven statements): on the
// crafted store of TestInsights (3,450 visits, 394 orders, 1,400 payment
// attempts), and on a bench-data store (INSIGHTS_BENCH_ORDERS orders over
// two years, 100,000 by default, with a tenth as many customers).
func BenchmarkInsights(b *testing.B) {
	ctx := context.Background()
	run := func(b *testing.B, e *apitest.Env, storeID int64) {
		for b.Loop() {
			if _, err := analytics.ComputeInsights(ctx, e.DB, storeID, time.Now()); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.Run("crafted", func(b *testing.B) {
		e := apitest.New(b, apitest.WithoutEventWorkers())
		s := e.Store("Insights")
		now := time.Now().UTC()
		insFixture(b, e, s.ID, time.Date(now.Year(), now.Month(), now.Day()-1, 0, 0, 0, 0, time.UTC))
		run(b, e, s.ID)
	})
	b.Run("bench-data", func(b *testing.B) {
		orders := 100_000
		if v := os.Getenv("INSIGHTS_BENCH_ORDERS"); v != "" {
			orders, _ = strconv.Atoi(v)
		}
		e := apitest.New(b, apitest.WithoutEventWorkers())
		s := e.Store("Bench")
		if err := benchdata.Fill(ctx, e.DB, s.ID, benchdata.Sizes{Products: 1000, Customers: orders / 10, Orders: orders}, time.Now(), nil); err != nil {
			b.Fatal(err)
		}
		run(b, e, s.ID)
	})
}
