package apitest_test

import (
	"context"
	"log/slog"
	"net/http"
	"slices"
	"testing"
	"time"

	"storeadmin/internal/app/apitest"
	"storeadmin/internal/auth"
	"storeadmin/internal/retention"
)

// activityNames lists a log's entries as name/origin.
func activityNames(t *testing.T, log map[string]any) []string {
	t.Helper()
	var out []string
	for _, ev := range objectsOf(log["events"]) {
		out = append(out, ev["name"].(string)+"/"+ev["origin"].(string))
	}
	return out
}

func eventNamed(t *testing.T, log map[string]any, name string) map[string]any {
	t.Helper()
	for _, ev := range objectsOf(log["events"]) {
		if ev["name"] == name {
			return ev
		}
	}
	t.Fatalf("no %s in %v", name, activityNames(t, log))
	return nil
}

func TestSessionActivity(t *testing.T) {
	e := apitest.New(t)
	s := e.Store("shop")
	f := newSessionsFixture(t, e, s.ID)
	key := e.Key(s.ID, auth.RoleStaff, "analytics:read")

	r := e.Do(http.MethodGet, "/store/sessions/s_buyer/activity", key, nil).Expect(t, http.StatusOK)
	log := r.Obj("activity")
	want := []string{"page_view/browsing", "cart_created/cart", "product_view/browsing", "add_to_cart/browsing", "cart_updated/cart",
		"checkout_started/checkout", "checkout_step/browsing", "checkout_abandoned/checkout", "payment_attempt_failure/payment",
		"payment_attempt_success/payment", "checkout_completed/checkout", "checkout_recovered/checkout", "created/order", "paid/payment"}
	// The order was made by createOrder before the visit's fixture times,
	// so its own entries sort first.
	got := activityNames(t, log)
	if len(got) != len(want) {
		t.Fatalf("entries %v", got)
	}
	for _, w := range want {
		if !slices.Contains(got, w) {
			t.Fatalf("entries %v lack %s", got, w)
		}
	}
	if a := log["anchor"].(map[string]any); a["kind"] != "session" || a["label"] != "s_buyer" || wholeNumber(t, a["id"]) != f.sessions["buyer"] {
		t.Fatalf("anchor %v", a)
	}
	cov := log["coverage"].(map[string]any)
	if cov["browsing"] != true || cov["browsing_collapsed"] != true || cov["session_scoped"] != true || cov["purged"] != false || cov["events_truncated"] != false {
		t.Fatalf("coverage %v", cov)
	}
	pv := eventNamed(t, log, "page_view")
	if pv["detail"].(map[string]any)["repeated"] != 2.0 || pv["anchor"] != true || pv["path"] != "/" || wholeNumber(t, pv["page_dwell_ms"]) != 1500 {
		t.Fatalf("folded page views %v", pv)
	}
	failed := eventNamed(t, log, "payment_attempt_failure")
	if failed["error_code"] != "card_declined" || wholeNumber(t, failed["attempt"]) != 1 || failed["provider"] != "stripe" || wholeNumber(t, failed["amount_cents"]) != 6200 {
		t.Fatalf("failed attempt %v", failed)
	}
	if a := eventNamed(t, log, "payment_attempt_success"); wholeNumber(t, a["attempt"]) != 2 {
		t.Fatalf("second attempt %v", a)
	}
	sum := log["summary"].(map[string]any)
	if wholeNumber(t, sum["page_views"]) != 2 || wholeNumber(t, sum["product_views"]) != 1 || wholeNumber(t, sum["cart_adds"]) != 1 ||
		wholeNumber(t, sum["checkout_steps"]) != 1 || wholeNumber(t, sum["failed_payments"]) != 1 || sum["visit_basis"] != "session" {
		t.Fatalf("summary %v", sum)
	}
	if sess := log["session"].(map[string]any); sess["session_id"] != "s_buyer" || sess["ip"] != "203.0.113.9" || sess["country"] != "US" {
		t.Fatalf("session %v", sess)
	}
	e.SameOnGraphQL(t, r, key, "SessionActivity", map[string]any{"session": "s_buyer"})
}

// An order's activity now includes the browsing of the session it came
// from.
func TestOrderActivityIncludesBrowsing(t *testing.T) {
	e := apitest.New(t)
	s := e.Store("shop")
	f := newSessionsFixture(t, e, s.ID)
	key := e.Key(s.ID, auth.RoleStaff, "orders:read")
	r := e.Do(http.MethodGet, orderPath(f.order.ID, "/activity"), key, nil).Expect(t, http.StatusOK)
	log := r.Obj("activity")
	if log["session"].(map[string]any)["session_id"] != "s_buyer" || log["coverage"].(map[string]any)["browsing"] != true {
		t.Fatalf("session %v coverage %v", log["session"], log["coverage"])
	}
	names := activityNames(t, log)
	for _, w := range []string{"product_view/browsing", "payment_attempt_failure/payment", "checkout_completed/checkout", "created/order"} {
		if !slices.Contains(names, w) {
			t.Fatalf("order activity %v lacks %s", names, w)
		}
	}
	if created := eventNamed(t, log, "created"); created["anchor"] != true {
		t.Fatalf("the order's own entries are the anchor's: %v", created)
	}
	if pv := eventNamed(t, log, "product_view"); pv["anchor"] != nil {
		t.Fatalf("browsing is not the order's own: %v", pv)
	}
	sum := log["summary"].(map[string]any)
	if sum["visit_basis"] != "session" || wholeNumber(t, sum["product_views"]) != 1 {
		t.Fatalf("summary %v", sum)
	}
	e.SameOnGraphQL(t, r, key, "OrderActivity", map[string]any{"id": f.order.ID})
}

func TestAbandonedActivity(t *testing.T) {
	e := apitest.New(t)
	s := e.Store("shop")
	newSessionsFixture(t, e, s.ID)
	key := e.Key(s.ID, auth.RoleStaff, "abandoned:read")

	r := e.Do(http.MethodGet, "/store/abandoned-carts/cart_abandoned/activity", key, nil).Expect(t, http.StatusOK)
	log := r.Obj("activity")
	if a := log["anchor"].(map[string]any); a["kind"] != "cart" || a["token"] != "cart_abandoned" || a["label"] != "ben@example.com" {
		t.Fatalf("anchor %v", a)
	}
	names := activityNames(t, log)
	if !slices.Equal(names[len(names)-2:], []string{"cart_abandoned/cart", "recovery_email_sent/recovery"}) || !slices.Contains(names, "add_to_cart/browsing") {
		t.Fatalf("cart activity %v", names)
	}
	if mail := eventNamed(t, log, "recovery_email_sent"); mail["anchor"] != true || mail["detail"].(map[string]any)["subject"] != "You left something behind" {
		t.Fatalf("reminder %v", mail)
	}
	sum := log["summary"].(map[string]any)
	if wholeNumber(t, sum["recovery_emails"]) != 1 || sum["visit_basis"] != "session" || log["session"].(map[string]any)["session_id"] != "s_carted" {
		t.Fatalf("summary %v session %v", sum, log["session"])
	}
	e.SameOnGraphQL(t, r, key, "AbandonedCartActivity", map[string]any{"token": "cart_abandoned"})

	r = e.Do(http.MethodGet, "/store/abandoned-checkouts/chk_buyer/activity", key, nil).Expect(t, http.StatusOK)
	log = r.Obj("activity")
	if a := log["anchor"].(map[string]any); a["kind"] != "checkout" || a["token"] != "chk_buyer" {
		t.Fatalf("anchor %v", a)
	}
	if started := eventNamed(t, log, "checkout_started"); started["anchor"] != true {
		t.Fatalf("checkout entries are the anchor's: %v", started)
	}
	if cart := eventNamed(t, log, "cart_created"); cart["anchor"] != nil {
		t.Fatalf("the checkout's cart is not the anchor: %v", cart)
	}
	if !slices.Contains(activityNames(t, log), "paid/payment") {
		t.Fatalf("the order the checkout became: %v", activityNames(t, log))
	}
	e.SameOnGraphQL(t, r, key, "AbandonedCheckoutActivity", map[string]any{"token": "chk_buyer"})
}

// Events past the retention horizon are purged by the periodic job, and
// the log of a session that began before the horizon says so.
func TestEventsRetention(t *testing.T) {
	horizon := 35 * 24 * time.Hour
	// The job runs when an engine's River client becomes leader: the
	// service's engine stays idle, and one with the retention work starts
	// once the events are there.
	e := apitest.New(t, apitest.WithEventsRetention(horizon), apitest.WithoutEventWorkers())
	s := e.Store("shop")
	f := newSessionsFixture(t, e, s.ID)
	key := e.Key(s.ID, auth.RoleAdmin)
	e.StartEventWorkers(retention.Work(e.DB, horizon, time.Now, slog.New(slog.DiscardHandler)))
	count := func(session int64) int64 {
		n, err := e.DB.NewSelect().Table("storefront_events").Where("session_id = ?", session).Count(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		return int64(n)
	}
	// Wait for the job; the bound only turns a job that never runs into a
	// failure instead of a hang.
	for deadline := time.Now().Add(2 * time.Minute); count(f.sessions["old"]) != 0; time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the retention job did not purge the old events")
		}
	}
	if n := count(f.sessions["buyer"]); n != 5 {
		t.Fatalf("recent events kept: %d", n)
	}
	old := e.Do(http.MethodGet, "/store/sessions/s_old/activity", key, nil).Expect(t, http.StatusOK).Obj("activity")
	if cov := old["coverage"].(map[string]any); cov["purged"] != true || cov["browsing"] != true || len(objectsOf(old["events"])) != 0 {
		t.Fatalf("old session %v", old)
	}
	recent := e.Do(http.MethodGet, "/store/sessions/s_buyer/activity", key, nil).Expect(t, http.StatusOK).Obj("activity")
	if recent["coverage"].(map[string]any)["purged"] != false {
		t.Fatalf("recent session %v", recent["coverage"])
	}
}

// The graph of sessions: listing orders with their sessions, and each
// session's events, visitor and orders, costs the same statements for 2
// orders as for 6; so do the sessions list and a session's activity.
func TestSessionGraphStatementsDoNotGrowWithRows(t *testing.T) {
	e := apitest.New(t)
	s := e.Store("shop")
	key := e.Key(s.ID, auth.RoleAdmin)
	statements := countStatements(e)
	query := `{ orders(limit: 50) { id session { session_id events(limit: 5) { name path } visitor { email } orders { id } } } }`
	now := time.Now().UTC().Truncate(time.Second)
	add := func(i int) {
		o := createOrder(t, e, s.ID, orderSpec{email: "shopper@example.com"})
		addVisit(t, e, s.ID, visit{key: "s" + string(rune('a'+i)), anon: "v" + string(rune('a'+i)), email: "shopper@example.com",
			country: "US", device: "desktop", at: now.Add(-time.Duration(i+1) * time.Hour),
			events:    []visitEvent{{name: "page_view", path: "/"}, {name: "page_view", path: "/about", after: time.Minute}},
			checkouts: []visitCheckout{{token: "k" + string(rune('a'+i)), attempts: []string{"failure", "success"}, order: o}}})
	}
	measure := func() (graphQL, list, activity int64) {
		graphQL = statements(func() {
			r := e.GraphQL(key, query, nil)
			if r.Body["errors"] != nil {
				t.Fatalf("%s", r.Raw)
			}
			for _, o := range objectsOf(r.Data()["orders"]) {
				if o["session"] == nil || len(objectsOf(o["session"].(map[string]any)["events"])) != 2 {
					t.Fatalf("order %v", o)
				}
			}
		})
		list = statements(func() { e.Do(http.MethodGet, "/store/sessions", key, nil).Expect(t, http.StatusOK) })
		activity = statements(func() { e.Do(http.MethodGet, "/store/sessions/sa/activity", key, nil).Expect(t, http.StatusOK) })
		return
	}
	for i := 0; i < 2; i++ {
		add(i)
	}
	measure() // the key's first use reads and touches it
	g2, l2, a2 := measure()
	for i := 2; i < 6; i++ {
		add(i)
	}
	g6, l6, a6 := measure()
	if g2 != g6 || l2 != l6 || a2 != a6 {
		t.Fatalf("statements for 2 rows: graph %d, list %d, activity %d; for 6: %d, %d, %d", g2, l2, a2, g6, l6, a6)
	}
	t.Logf("statements: graph %d, sessions list %d, session activity %d", g6, l6, a6)
}
