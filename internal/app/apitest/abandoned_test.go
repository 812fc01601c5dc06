package apitest_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"storeadmin/internal/abandonment"
	"storeadmin/internal/app/apitest"
	"storeadmin/internal/auth"
)

// Abandoned carts and checkouts. The storefront's cart and checkout calls
// write these tables; here a fixture writes them with SQL (abCart,
// abCheckout), and the abandonment job is run with the test's clock
// (abandonment.Run), as its River worker runs it every minute.

// The fields of the spec's rows and details, exactly.
var (
	abCartRowKeys     = []string{"abandoned_at", "currency", "email", "item_count", "recovered", "recovered_at", "recovery_emails", "subtotal_cents", "token"}
	abCheckoutRowKeys = []string{"abandoned_at", "attempts", "created_at", "currency", "email", "item_count", "payment_error", "payment_status",
		"recovered", "recovered_at", "recovery_emails", "state", "token", "total_cents"}
	abStatsKeys      = []string{"recovered", "recovered_cents", "recovery_rate", "total"}
	abCartDetailKeys = []string{"abandoned_at", "activity", "checkout_token", "created_at", "currency", "email", "first_name", "item_count",
		"last_name", "lines", "marketing_consent", "phone", "recovered_at", "recovery_emails", "session", "subtotal_cents", "token",
		"updated_at", "visitor_identified_at", "visitor_last_seen_at"}
	abCheckoutDetailKeys = []string{"abandoned_at", "activity", "attempts", "billing_address", "created_at", "currency", "discount_cents",
		"discount_code", "email", "expires_at", "lines", "marketing_consent", "phone", "recovered_at", "recovery_emails", "session",
		"shipping_address", "shipping_cents", "shipping_line", "state", "subtotal_cents", "surcharge_cents", "tax_cents", "timeline",
		"tip_cents", "token", "total_cents", "tracking", "updated_at", "utm"}
)

// abFixture writes storefront records of one store straight into the
// tables their writers own.
type abFixture struct {
	t       *testing.T
	e       *apitest.Env
	storeID int64
}

func (f abFixture) id(query string, args ...any) int64 {
	f.t.Helper()
	var id int64
	if err := f.e.DB.NewRaw(query+" RETURNING id", args...).Scan(context.Background(), &id); err != nil {
		f.t.Fatalf("fixture: %v\n%s", err, query)
	}
	return id
}

func (f abFixture) exec(query string, args ...any) {
	f.t.Helper()
	if _, err := f.e.DB.ExecContext(context.Background(), query, args...); err != nil {
		f.t.Fatalf("fixture: %v\n%s", err, query)
	}
}

// session makes a visitor and its session, with a page view and an add to
// cart; the checkout token, when given, gets a checkout step too.
func (f abFixture) session(key string, at time.Time, checkoutToken string) (visitorID, sessionID int64) {
	visitorID = f.id(`INSERT INTO visitors (store_id, anon_id, email, identified_at, first_seen_at, last_seen_at)
		VALUES (?, ?, 'ana@example.com', ?, ?, ?)`, f.storeID, "anon-"+key, at.Add(-20*time.Minute), at.Add(-30*time.Minute), at)
	sessionID = f.id(`INSERT INTO storefront_sessions (store_id, session_key, visitor_id, first_seen_at, last_seen_at, landing_path,
		browser, os, device, country, ip, screen_w, screen_h, page_views, events)
		VALUES (?, ?, ?, ?, ?, '/products/tee', 'Firefox', 'Linux', 'desktop', 'DE', '192.0.2.7', 1920, 1080, 1, 3)`,
		f.storeID, key, visitorID, at.Add(-30*time.Minute), at)
	f.exec(`INSERT INTO storefront_events (store_id, session_id, visitor_id, client_event_id, name, occurred_at, path, dwell_ms, scroll_pct)
		VALUES (?, ?, ?, ?, 'page_view', ?, '/products/tee', 4200, 80)`, f.storeID, sessionID, visitorID, key+"-1", at.Add(-30*time.Minute))
	f.exec(`INSERT INTO storefront_events (store_id, session_id, visitor_id, client_event_id, name, occurred_at, path, product_id, value_cents, currency)
		VALUES (?, ?, ?, ?, 'add_to_cart', ?, '/products/tee', 77, 2500, 'EUR')`, f.storeID, sessionID, visitorID, key+"-2", at.Add(-25*time.Minute))
	if checkoutToken != "" {
		f.exec(`INSERT INTO storefront_events (store_id, session_id, visitor_id, client_event_id, name, occurred_at, path, step, checkout_token)
			VALUES (?, ?, ?, ?, 'checkout_step', ?, '/checkout', 'shipping', ?)`, f.storeID, sessionID, visitorID, key+"-3", at.Add(-21*time.Minute), checkoutToken)
	}
	return visitorID, sessionID
}

// abCart is a cart to write; lines are made up to match item_count.
type abCart struct {
	token, email string
	items        int64
	subtotal     int64
	updated      time.Time
	visitorID    *int64
	sessionID    *int64
	lines        int
}

func (f abFixture) cart(c abCart) int64 {
	f.t.Helper()
	id := f.id(`INSERT INTO carts (store_id, token, visitor_id, session_id, currency, email, phone, first_name, item_count, subtotal_cents,
		created_at, updated_at) VALUES (?, ?, ?, ?, 'EUR', ?, '', 'Ana', ?, ?, ?, ?)`,
		f.storeID, c.token, c.visitorID, c.sessionID, c.email, c.items, c.subtotal, c.updated.Add(-time.Hour), c.updated)
	for i := range c.lines {
		f.exec(`INSERT INTO cart_lines (store_id, cart_id, position, title, variant_title, handle, price_cents, quantity)
			VALUES (?, ?, ?, ?, 'M', 'tee', 100, 1)`, f.storeID, id, i, fmt.Sprintf("Tee %d", i))
	}
	return id
}

// abCheckout is a checkout to write.
type abCheckout struct {
	token, email, state string
	cartID              *int64
	sessionID           *int64
	items, total        int64
	updated             time.Time
	lines               int
}

func (f abFixture) checkout(c abCheckout) int64 {
	f.t.Helper()
	if c.state == "" {
		c.state = "open"
	}
	id := f.id(`INSERT INTO checkouts (store_id, token, cart_id, session_id, state, currency, email, phone, item_count, subtotal_cents,
		shipping_cents, total_cents, step, utm, tracking, shipping_address, expires_at, created_at, updated_at)
		VALUES (?, ?, ?, ?, ?, 'EUR', ?, '+4912345', ?, ?, 0, ?, 'payment', '{"utm_source":"newsletter"}', '{"fbp":"fb.1.1.2","client_ip":"192.0.2.7"}',
		'{"city":"Berlin","country":"DE"}', ?, ?, ?)`,
		f.storeID, c.token, c.cartID, c.sessionID, c.state, c.email, c.items, c.total, c.total, c.updated.Add(48*time.Hour), c.updated.Add(-time.Hour), c.updated)
	for i := range c.lines {
		f.exec(`INSERT INTO checkout_lines (store_id, checkout_id, position, title, sku, price_cents, quantity, properties)
			VALUES (?, ?, ?, ?, 'TEE', 100, 1, '{"engraving":"A"}')`, f.storeID, id, i, fmt.Sprintf("Tee %d", i))
	}
	return id
}

func (f abFixture) attempt(checkoutID int64, status, code, message string, at time.Time) {
	f.exec(`INSERT INTO checkout_payment_attempts (store_id, checkout_id, provider, payment_method, amount_cents, currency, status,
		error_code, error_message, created_at) VALUES (?, ?, 'stripe', 'visa', 9900, 'EUR', ?, nullif(?, ''), nullif(?, ''), ?)`,
		f.storeID, checkoutID, status, code, message, at)
}

// abRun runs the abandonment job as of now through the service's events
// engine.
func abRun(t *testing.T, e *apitest.Env, now time.Time) abandonment.Flagged {
	t.Helper()
	n, err := abandonment.Run(context.Background(), e.DB, e.Events, now)
	if err != nil {
		t.Fatalf("abandonment.Run: %v", err)
	}
	return n
}

// abList is GET path?query: its rows' tokens, its stats and total.
func abList(t *testing.T, e *apitest.Env, key, path, query string, rowKeys []string) ([]string, map[string]any, int64, *apitest.Response) {
	t.Helper()
	r := e.Do(http.MethodGet, path+"?"+query, key, nil).Expect(t, http.StatusOK)
	expectPayload(t, r, "abandoned", "next_cursor", "stats", "total")
	var tokens []string
	for _, v := range r.List("abandoned") {
		tokens = append(tokens, objectWithKeys(t, "row", v, rowKeys)["token"].(string))
	}
	stats := objectWithKeys(t, "stats", r.Body["stats"], abStatsKeys)
	return tokens, stats, wholeNumber(t, r.Body["total"]), r
}

// abVars is the GraphQL variables of a list's query string.
func abVars(t *testing.T, query string) map[string]any {
	t.Helper()
	q, err := url.ParseQuery(query)
	if err != nil {
		t.Fatal(err)
	}
	filter := map[string]any{}
	vars := map[string]any{}
	for k, v := range q {
		switch k {
		case "limit":
			vars[k] = json.Number(v[0])
		case "cursor":
			vars[k] = v[0]
		case "min_cents", "max_cents":
			filter[k] = json.Number(v[0])
		case "recovered":
			filter[k] = v[0] == "true"
		default:
			filter[k] = v[0]
		}
	}
	if len(filter) > 0 {
		vars["filter"] = filter
	}
	return vars
}

// TestAbandonedCartsAndCheckouts: the job flags what the policy says is
// abandoned, once, and says so to subscribers; the lists, their filters
// and stats, and the details answer what the fixture holds.
func TestAbandonedCartsAndCheckouts(t *testing.T) {
	e, s, admin := newAcme(t)
	reader := e.Key(s.ID, auth.RoleStaff, "abandoned:read")
	f := abFixture{t, e, s.ID}
	base := time.Now().UTC().Truncate(time.Second)
	hooks := newWebhookReceiver(t)
	sub := e.Do(http.MethodPost, "/store/webhooks", admin, map[string]any{"url": hooks.URL,
		"topics": []string{"cart.abandoned", "checkout.abandoned"}}).Expect(t, http.StatusCreated).Obj("webhook")
	subID := wholeNumber(t, sub["id"])

	// The store's policy is the default: 60 idle minutes on both surfaces.
	visitor, session := f.session("sess-1", base.Add(-2*time.Hour), "co-1")
	f.cart(abCart{token: "cart-1", email: "ana@example.com", items: 2, subtotal: 5000, updated: base.Add(-2 * time.Hour),
		visitorID: &visitor, sessionID: &session, lines: 2})
	f.cart(abCart{token: "cart-2", email: "Ben@Example.com", items: 1, subtotal: 1500, updated: base.Add(-90 * time.Minute), lines: 1})
	f.cart(abCart{token: "cart-3", email: "cy@example.com", items: 1, subtotal: 2500, updated: base.Add(-30 * time.Minute), lines: 1})
	f.cart(abCart{token: "cart-no-email", items: 1, subtotal: 100, updated: base.Add(-3 * time.Hour), lines: 1})
	f.cart(abCart{token: "cart-empty", email: "dee@example.com", updated: base.Add(-3 * time.Hour)})
	went := f.cart(abCart{token: "cart-went-on", email: "eve@example.com", items: 1, subtotal: 9900, updated: base.Add(-3 * time.Hour), lines: 1})
	co1 := f.checkout(abCheckout{token: "co-1", email: "eve@example.com", cartID: &went, sessionID: &session, items: 1, total: 9900,
		updated: base.Add(-2 * time.Hour), lines: 1})
	f.attempt(co1, "failure", "card_declined", "Your card was declined.", base.Add(-125*time.Minute))
	co2 := f.checkout(abCheckout{token: "co-2", email: "fay@example.com", items: 1, total: 3000, updated: base.Add(-2 * time.Hour), lines: 1})
	f.checkout(abCheckout{token: "co-done", email: "gus@example.com", state: "completed", items: 1, total: 100, updated: base.Add(-5 * time.Hour), lines: 1})
	f.checkout(abCheckout{token: "co-recent", email: "hal@example.com", items: 1, total: 100, updated: base.Add(-10 * time.Minute), lines: 1})
	// Another store whose policy flags carts after 30 minutes.
	o := e.Store("Other")
	of := abFixture{t, e, o.ID}
	of.exec(`INSERT INTO recovery_settings (store_id, policy) VALUES (?, ?)`, o.ID,
		`{"cart":{"mode":"off","idle_minutes":30,"delays_minutes":[]},"checkout":{"mode":"email","idle_minutes":60,"delays_minutes":[60]}}`)
	of.cart(abCart{token: "cart-other", email: "ida@example.com", items: 1, subtotal: 700, updated: base.Add(-45 * time.Minute), lines: 1})

	if n := abRun(t, e, base); n != (abandonment.Flagged{Carts: 3, Checkouts: 2}) {
		t.Fatalf("first run flagged %+v, want 3 carts (2 of Acme, Other's after its 30 minutes) and 2 checkouts", n)
	}
	// Once: a second run at the same time flags nothing more.
	if n := abRun(t, e, base); n != (abandonment.Flagged{}) {
		t.Fatalf("second run flagged %+v", n)
	}
	// cart-3 is due 60 minutes after its last change.
	if n := abRun(t, e, base.Add(29*time.Minute)); n != (abandonment.Flagged{}) {
		t.Fatalf("before cart-3 is due: flagged %+v", n)
	}
	if n := abRun(t, e, base.Add(31*time.Minute)); n != (abandonment.Flagged{Carts: 1}) {
		t.Fatalf("after cart-3 is due: flagged %+v", n)
	}

	// The shopper comes back to cart-1 and leaves again: it stays abandoned
	// as first flagged, and nothing is sent again.
	f.exec(`UPDATE carts SET updated_at = ?, item_count = 3 WHERE token = 'cart-1'`, base.Add(time.Hour))
	f.exec(`UPDATE checkouts SET updated_at = ? WHERE token = 'co-recent'`, base.Add(4*time.Hour)) // still at it
	if n := abRun(t, e, base.Add(4*time.Hour)); n != (abandonment.Flagged{}) {
		t.Fatalf("after the shopper's return: flagged %+v", n)
	}

	// Each flag reached the subscriber once, carrying the record's row.
	ds := settledDeliveries(t, e, admin, subID, 5)
	topics := map[string]int{}
	for range ds {
		got := hooks.next(t)
		var body struct {
			Topic string                    `json:"topic"`
			Data  map[string]map[string]any `json:"data"`
		}
		if err := json.Unmarshal(got.body, &body); err != nil {
			t.Fatal(err)
		}
		topics[body.Topic]++
		if body.Topic == "checkout.abandoned" && body.Data["checkout"]["token"] == "co-1" {
			row := objectWithKeys(t, "checkout.abandoned data.checkout", body.Data["checkout"], abCheckoutRowKeys)
			if row["state"] != "payment_failed" || row["attempts"] != float64(1) || row["payment_error"] != "Your card was declined." {
				t.Fatalf("checkout.abandoned of co-1: %v", row)
			}
		}
		if body.Topic == "cart.abandoned" {
			objectWithKeys(t, "cart.abandoned data.cart", body.Data["cart"], abCartRowKeys)
		}
	}
	expectNoMoreDeliveries(t, hooks)
	if !reflect.DeepEqual(topics, map[string]int{"cart.abandoned": 3, "checkout.abandoned": 2}) {
		t.Fatalf("topics delivered: %v", topics)
	}

	// Recovery (the checkout area's, simulated): cart-2 with an order no
	// longer known, co-2 with an order whose total counts.
	order := createOrder(t, e, s.ID, orderSpec{})
	f.exec(`UPDATE carts SET recovered_at = ? WHERE token = 'cart-2'`, base.Add(40*time.Minute))
	f.exec(`UPDATE checkouts SET recovered_at = ?, recovered_order_id = ?, state = 'completed' WHERE id = ?`, base.Add(50*time.Minute), order.ID, co2)
	f.exec(`INSERT INTO recovery_messages (store_id, checkout_id, step, status, to_email, subject, sent_at, created_at, sequence_at)
		VALUES (?, ?, 1, 'sent', 'eve@example.com', 'You left something', ?, ?, ?)`, s.ID, co1, base.Add(61*time.Minute), base.Add(60*time.Minute), base)
	f.exec(`UPDATE checkouts SET recovery_emails = 1 WHERE id = ?`, co1)

	// The carts: the latest abandoned first.
	carts := func(query string) ([]string, map[string]any, int64) {
		t.Helper()
		tokens, stats, total, r := abList(t, e, reader, "/store/abandoned-carts", query, abCartRowKeys)
		e.SameOnGraphQL(t, r, reader, "ListAbandonedCarts", abVars(t, query))
		return tokens, stats, total
	}
	tokens, stats, total := carts("")
	if !slices.Equal(tokens, []string{"cart-3", "cart-2", "cart-1"}) || total != 3 {
		t.Fatalf("carts %v, total %d", tokens, total)
	}
	if want := map[string]any{"total": 3.0, "recovered": 1.0, "recovered_cents": 1500.0, "recovery_rate": 1.0 / 3}; !reflect.DeepEqual(stats, want) {
		t.Fatalf("cart stats %v, want %v", stats, want)
	}
	rows := e.Do(http.MethodGet, "/store/abandoned-carts", reader, nil).Expect(t, 200).List("abandoned")
	if want := map[string]any{"abandoned_at": base.Add(31 * time.Minute).Format(time.RFC3339), "currency": "EUR", "email": "cy@example.com",
		"item_count": 1.0, "recovered": false, "recovered_at": nil, "recovery_emails": 0.0, "subtotal_cents": 2500.0, "token": "cart-3"}; !reflect.DeepEqual(rows[0], want) {
		t.Fatalf("cart-3's row %v\nwant %v", rows[0], want)
	}
	for query, want := range map[string][]string{
		"recovered=false":               {"cart-3", "cart-1"},
		"recovered=true":                {"cart-2"},
		"email=BEN%40example.com":       {"cart-2"},
		"min_cents=2000":                {"cart-3", "cart-1"},
		"max_cents=2500":                {"cart-3", "cart-2"},
		"min_cents=1500&max_cents=2500": {"cart-3", "cart-2"},
		"from=" + url.QueryEscape(base.Add(time.Minute).Format(time.RFC3339)): {"cart-3"},
		"to=" + url.QueryEscape(base.Add(time.Minute).Format(time.RFC3339)):   {"cart-2", "cart-1"},
	} {
		if got, _, total := carts(query); !slices.Equal(got, want) || total != int64(len(want)) {
			t.Fatalf("carts ?%s: %v (total %d), want %v", query, got, total, want)
		}
	}
	// Stats follow the filter.
	if _, stats, _ := carts("max_cents=2500"); !reflect.DeepEqual(stats, map[string]any{"total": 2.0, "recovered": 1.0, "recovered_cents": 1500.0, "recovery_rate": 0.5}) {
		t.Fatalf("stats under max_cents=2500: %v", stats)
	}
	// Paging by cursor.
	r := e.Do(http.MethodGet, "/store/abandoned-carts?limit=2", reader, nil).Expect(t, 200)
	next, _ := r.Body["next_cursor"].(string)
	if len(r.List("abandoned")) != 2 || next == "" {
		t.Fatalf("first page: %s", r.Raw)
	}
	if got, _, total := carts("limit=2&cursor=" + url.QueryEscape(next)); !slices.Equal(got, []string{"cart-1"}) || total != 3 {
		t.Fatalf("second page %v, total %d", got, total)
	}

	// The checkouts.
	checkouts := func(query string) ([]string, map[string]any, int64) {
		t.Helper()
		tokens, stats, total, r := abList(t, e, reader, "/store/abandoned-checkouts", query, abCheckoutRowKeys)
		e.SameOnGraphQL(t, r, reader, "ListAbandonedCheckouts", abVars(t, query))
		return tokens, stats, total
	}
	tokens, stats, total = checkouts("")
	if !slices.Equal(tokens, []string{"co-2", "co-1"}) || total != 2 {
		t.Fatalf("checkouts %v, total %d", tokens, total)
	}
	if want := map[string]any{"total": 2.0, "recovered": 1.0, "recovered_cents": float64(order.TotalCents), "recovery_rate": 0.5}; !reflect.DeepEqual(stats, want) {
		t.Fatalf("checkout stats %v, want %v", stats, want)
	}
	rows = e.Do(http.MethodGet, "/store/abandoned-checkouts", reader, nil).Expect(t, 200).List("abandoned")
	if want := map[string]any{"abandoned_at": base.Format(time.RFC3339), "attempts": 1.0, "created_at": base.Add(-3 * time.Hour).Format(time.RFC3339),
		"currency": "EUR", "email": "eve@example.com", "item_count": 1.0, "payment_error": "Your card was declined.", "payment_status": "failure",
		"recovered": false, "recovered_at": nil, "recovery_emails": 1.0, "state": "payment_failed", "token": "co-1", "total_cents": 9900.0}; !reflect.DeepEqual(rows[1], want) {
		t.Fatalf("co-1's row %v\nwant %v", rows[1], want)
	}
	if rows[0].(map[string]any)["state"] != "recovered" || rows[0].(map[string]any)["payment_status"] != nil || rows[0].(map[string]any)["attempts"] != 0.0 {
		t.Fatalf("co-2's row %v", rows[0])
	}
	for query, want := range map[string][]string{
		"state=payment_failed":    {"co-1"},
		"state=recovered":         {"co-2"},
		"state=abandoned":         nil,
		"recovered=false":         {"co-1"},
		"min_cents=5000":          {"co-1"},
		"email=FAY%40example.com": {"co-2"},
	} {
		if got, _, total := checkouts(query); !slices.Equal(got, want) || total != int64(len(want)) {
			t.Fatalf("checkouts ?%s: %v (total %d), want %v", query, got, total, want)
		}
	}

	// A cart's detail: lines, session, its browsing, the visitor.
	cr := e.Do(http.MethodGet, "/store/abandoned-carts/cart-1", reader, nil).Expect(t, 200)
	e.SameOnGraphQL(t, cr, reader, "GetAbandonedCart", map[string]any{"token": "cart-1"})
	cart := objectWithKeys(t, "cart", cr.Body["cart"], abCartDetailKeys)
	lines := objectsOf(cart["lines"])
	if len(lines) != 2 || !reflect.DeepEqual(lines[0], map[string]any{"handle": "tee", "image_src": nil, "price_cents": 100.0, "quantity": 1.0,
		"title": "Tee 0", "variant_title": "M"}) {
		t.Fatalf("cart lines %v", cart["lines"])
	}
	sess, _ := cart["session"].(map[string]any)
	activity := objectsOf(cart["activity"])
	if sess["session_id"] != "sess-1" || sess["browser"] != "Firefox" || sess["ip"] != "192.0.2.7" || sess["screen_w"] != 1920.0 ||
		len(activity) != 3 || activity[0]["name"] != "page_view" || activity[0]["dwell_ms"] != 4200.0 || activity[1]["product_id"] != 77.0 {
		t.Fatalf("cart session %v\nactivity %v", sess, activity)
	}
	if cart["first_name"] != "Ana" || cart["last_name"] != nil || cart["phone"] != nil || cart["checkout_token"] != nil ||
		cart["visitor_identified_at"] != base.Add(-140*time.Minute).Format(time.RFC3339) || cart["visitor_last_seen_at"] != base.Add(-2*time.Hour).Format(time.RFC3339) {
		t.Fatalf("cart detail %v", cart)
	}
	// A checkout's detail: lines, attempts, the timeline, session,
	// tracking, utm.
	kr := e.Do(http.MethodGet, "/store/abandoned-checkouts/co-1", reader, nil).Expect(t, 200)
	e.SameOnGraphQL(t, kr, reader, "GetAbandonedCheckout", map[string]any{"token": "co-1"})
	co := objectWithKeys(t, "checkout", kr.Body["checkout"], abCheckoutDetailKeys)
	var names []string
	for _, ev := range objectsOf(co["timeline"]) {
		names = append(names, ev["name"].(string))
	}
	if !slices.Equal(names, []string{"created", "checkout_step", "payment_failed", "abandoned", "recovery_email"}) {
		t.Fatalf("timeline %v", co["timeline"])
	}
	failed := objectsOf(co["timeline"])[2]
	if failed["error_code"] != "card_declined" || failed["provider"] != "stripe" || failed["amount_cents"] != 9900.0 {
		t.Fatalf("payment_failed entry %v", failed)
	}
	attempts := objectsOf(co["attempts"])
	if len(attempts) != 1 || attempts[0]["status"] != "failure" || attempts[0]["error"] != "Your card was declined." || attempts[0]["transaction_id"] != 0.0 {
		t.Fatalf("attempts %v", co["attempts"])
	}
	tracking, _ := co["tracking"].(map[string]any)
	utm, _ := co["utm"].(map[string]any)
	if co["state"] != "payment_failed" || tracking["fbp"] != "fb.1.1.2" || utm["utm_source"] != "newsletter" ||
		co["recovery_emails"] != 1.0 || len(objectsOf(co["lines"])) != 1 || co["session"].(map[string]any)["session_id"] != "sess-1" {
		t.Fatalf("checkout detail %v", co)
	}

	// Not found: a cart never flagged, one that went on to a checkout,
	// another store's, an unknown token.
	for _, path := range []string{"/store/abandoned-carts/cart-no-email", "/store/abandoned-carts/cart-went-on",
		"/store/abandoned-carts/cart-other", "/store/abandoned-carts/nope", "/store/abandoned-checkouts/co-recent",
		"/store/abandoned-checkouts/co-done", "/store/abandoned-checkouts/cart-1"} {
		e.Do(http.MethodGet, path, reader, nil).Expect(t, http.StatusNotFound)
	}
	expectGraphQLCode(t, e, reader, "NOT_FOUND", map[string]any{"token": "cart-other"}, `query($token: String!) { abandonedCart(token: $token) { token } }`)
	// The other store sees its own.
	otherKey := e.Key(o.ID, auth.RoleStaff, "abandoned:read")
	if tokens, _, _, _ := abList(t, e, otherKey, "/store/abandoned-carts", "", abCartRowKeys); !slices.Equal(tokens, []string{"cart-other"}) {
		t.Fatalf("Other's carts %v", tokens)
	}
}

// TestAbandonmentRunsConcurrentlyFlagOnce: replicas running the job at the
// same time flag each cart and checkout once, and record its event once.
func TestAbandonmentRunsConcurrentlyFlagOnce(t *testing.T) {
	e, s, _ := newAcme(t)
	f := abFixture{t, e, s.ID}
	base := time.Now().UTC().Truncate(time.Second)
	for i := range 60 {
		f.cart(abCart{token: fmt.Sprintf("cart-%d", i), email: "ana@example.com", items: 1, subtotal: 100, updated: base.Add(-2 * time.Hour), lines: 1})
		f.checkout(abCheckout{token: fmt.Sprintf("co-%d", i), email: "ana@example.com", items: 1, total: 100, updated: base.Add(-2 * time.Hour), lines: 1})
	}
	var (
		wg    sync.WaitGroup
		mu    sync.Mutex
		total abandonment.Flagged
	)
	for range 4 {
		wg.Go(func() {
			n, err := abandonment.Run(context.Background(), e.DB, e.Events, base)
			if err != nil {
				t.Errorf("abandonment.Run: %v", err)
			}
			mu.Lock()
			total.Carts += n.Carts
			total.Checkouts += n.Checkouts
			mu.Unlock()
		})
	}
	wg.Wait()
	if total != (abandonment.Flagged{Carts: 60, Checkouts: 60}) {
		t.Fatalf("the runs flagged %+v together, want 60 of each", total)
	}
	var events []struct {
		Topic string `bun:"topic"`
		N     int    `bun:"n"`
	}
	if err := e.DB.NewRaw(`SELECT topic, count(DISTINCT resource_id) AS n FROM events WHERE store_id = ? GROUP BY topic ORDER BY topic`, s.ID).
		Scan(context.Background(), &events); err != nil {
		t.Fatal(err)
	}
	var all int
	if err := e.DB.NewRaw(`SELECT count(*) FROM events WHERE store_id = ?`, s.ID).Scan(context.Background(), &all); err != nil {
		t.Fatal(err)
	}
	if all != 120 || len(events) != 2 || events[0].Topic != "cart.abandoned" || events[0].N != 60 || events[1].Topic != "checkout.abandoned" || events[1].N != 60 {
		t.Fatalf("events recorded: %+v", events)
	}
}

// TestAbandonedAccessAndBadInput: 401 and 403, and every bad parameter is
// a 400 naming it.
func TestAbandonedAccessAndBadInput(t *testing.T) {
	e, s, _ := newAcme(t)
	f := abFixture{t, e, s.ID}
	base := time.Now().UTC().Truncate(time.Second)
	f.cart(abCart{token: "cart-1", email: "ana@example.com", items: 1, subtotal: 100, updated: base.Add(-2 * time.Hour), lines: 1})
	f.checkout(abCheckout{token: "co-1", email: "ana@example.com", items: 1, total: 100, updated: base.Add(-2 * time.Hour), lines: 1})
	abRun(t, e, base)
	reads := []apitest.Call{
		{Method: http.MethodGet, Path: "/store/abandoned-carts"},
		{Method: http.MethodGet, Path: "/store/abandoned-carts/cart-1"},
		{Method: http.MethodGet, Path: "/store/abandoned-checkouts"},
		{Method: http.MethodGet, Path: "/store/abandoned-checkouts/co-1"},
	}
	checkAccess(t, e, s.ID, "abandoned", map[string]string{"orders only": e.Key(s.ID, auth.RoleAdmin, "orders:read")}, reads, nil)
	e.ExpectEach(t, http.StatusUnauthorized, map[string]string{"storefront key": e.PublishableKey(s.ID)}, reads)

	reader := e.Key(s.ID, auth.RoleStaff, "abandoned:read")
	for _, path := range []string{"/store/abandoned-carts", "/store/abandoned-checkouts"} {
		for query, want := range map[string]string{
			"from=yesterday":              `from "yesterday" is not a time`,
			"to=2026-13-01T00:00:00Z":     `to "2026-13-01T00:00:00Z" is not a time`,
			"min_cents=-1":                "min_cents must be 0 or more, not -1",
			"max_cents=ten":               "max_cents must be",
			"min_cents=500&max_cents=100": "min_cents must be at most max_cents",
			"recovered=maybe":             "recovered must be",
			"from=2026-02-01T00:00:00Z&to=2026-01-01T00:00:00Z": "from must be before to",
			"limit=0":      "limit must be",
			"cursor=bogus": "cursor is not one this list gave",
			"color=red":    "color is not",
		} {
			r := e.Do(http.MethodGet, path+"?"+query, reader, nil).Expect(t, http.StatusBadRequest)
			if !strings.HasPrefix(r.Message(), want) {
				t.Fatalf("%s?%s: %q, want it to start %q", path, query, r.Message(), want)
			}
		}
	}
	r := e.Do(http.MethodGet, "/store/abandoned-checkouts?state=lost", reader, nil).Expect(t, http.StatusBadRequest)
	if r.Message() != `state must be one of abandoned, payment_failed, expired, recovered, not "lost"` {
		t.Fatalf("a bad state: %s", r.Raw)
	}
	// Carts have no state.
	e.Do(http.MethodGet, "/store/abandoned-carts?state=recovered", reader, nil).Expect(t, http.StatusBadRequest)
}

// TestAbandonedStatementsDoNotGrowWithRows: a list is the same statements
// for 2 rows and 40, and a detail the same for 1 line and 20.
func TestAbandonedStatementsDoNotGrowWithRows(t *testing.T) {
	e, s, _ := newAcme(t)
	reader := e.Key(s.ID, auth.RoleStaff, "abandoned:read")
	f := abFixture{t, e, s.ID}
	count := countStatements(e)
	base := time.Now().UTC().Truncate(time.Second)
	add := func(from, to, lines int) {
		for i := from; i < to; i++ {
			_, session := f.session(fmt.Sprintf("s-%d", i), base.Add(-2*time.Hour), fmt.Sprintf("co-%d", i))
			f.cart(abCart{token: fmt.Sprintf("cart-%d", i), email: "ana@example.com", items: int64(lines), subtotal: 100, updated: base.Add(-2 * time.Hour), sessionID: &session, lines: lines})
			id := f.checkout(abCheckout{token: fmt.Sprintf("co-%d", i), email: "ana@example.com", items: int64(lines), total: 100, sessionID: &session, updated: base.Add(-2 * time.Hour), lines: lines})
			for range lines {
				f.attempt(id, "failure", "declined", "", base.Add(-100*time.Minute))
			}
		}
		abRun(t, e, base)
	}
	read := func() int64 {
		return count(func() {
			e.Do(http.MethodGet, "/store/abandoned-carts", reader, nil).Expect(t, 200)
			e.Do(http.MethodGet, "/store/abandoned-checkouts", reader, nil).Expect(t, 200)
		})
	}
	details := func(i int) int64 {
		return count(func() {
			e.Do(http.MethodGet, fmt.Sprintf("/store/abandoned-carts/cart-%d", i), reader, nil).Expect(t, 200)
			e.Do(http.MethodGet, fmt.Sprintf("/store/abandoned-checkouts/co-%d", i), reader, nil).Expect(t, 200)
		})
	}
	add(0, 2, 1)
	read() // the key's first use reads and touches it
	few, small := read(), details(0)
	add(2, 40, 20)
	if many, big := read(), details(30); few != many || small != big {
		t.Fatalf("lists: %d statements for 2 rows, %d for 40; details: %d for 1 line, %d for 20", few, many, small, big)
	}
}
