package apitest_test

import (
	"context"
	"encoding/json"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/uptrace/bun"

	"storeadmin/internal/app/apitest"
	"storeadmin/models"
)

// Storefront carts, checkouts, payment attempts and completion (the
// storefront surface, /storefront/v1), driven as a browser drives them.
// Fixtures: newDraftOrderStore (a tee at 25.00 with 10 in stock, FR and DE
// rates Standard 5.00 and Express 15.00, French VAT 20%, code SAVE10).
// Helpers of this file start with sc.

// scStore is newDraftOrderStore with its tee on sale (active).
func scStore(t *testing.T, e *apitest.Env, name string) draftOrderStore {
	t.Helper()
	ds := newDraftOrderStore(t, e, name)
	if _, err := e.DB.NewRaw(`UPDATE products SET status = 'active' WHERE store_id = ?`, ds.store.ID).Exec(context.Background()); err != nil {
		t.Fatal(err)
	}
	return ds
}

// scVisit records a visitor and its session as ingestion would, with the
// landing's UTM and click ids, and answers the session's id.
func scVisit(t *testing.T, e *apitest.Env, storeID int64, anonID, clientSession string) int64 {
	t.Helper()
	ctx := context.Background()
	now := time.Now().UTC()
	var visitorID, sessionID int64
	if err := e.DB.NewRaw(`INSERT INTO visitors (store_id, anon_id, first_seen_at, last_seen_at) VALUES (?, ?, ?, ?) RETURNING id`,
		storeID, anonID, now, now).Scan(ctx, &visitorID); err != nil {
		t.Fatal(err)
	}
	if err := e.DB.NewRaw(`INSERT INTO storefront_sessions (store_id, session_key, visitor_id, client_session_id, first_seen_at, last_seen_at,
		landing_path, referrer, utm, click_ids) VALUES (?, ?, ?, ?, ?, ?, '/', 'https://news.example/', ?, ?) RETURNING id`,
		storeID, "sess-"+anonID, visitorID, clientSession, now, now,
		`{"utm_source": "newsletter", "utm_medium": "email", "utm_campaign": "autumn"}`, `{"fbclid": "fb-123"}`).Scan(ctx, &sessionID); err != nil {
		t.Fatal(err)
	}
	return sessionID
}

// scCheckout is a checkout of the fixture's tee, quantity qty, with an
// email and a French address and the Standard rate, as the browser sees it.
func scCheckout(t *testing.T, e *apitest.Env, ds draftOrderStore, pub string, qty int, email string) map[string]any {
	t.Helper()
	c := e.Storefront(http.MethodPost, "/checkouts", pub, map[string]any{
		"lines": []any{map[string]any{"variant_id": ds.variantID, "quantity": qty}}, "email": email,
		"shipping_address": map[string]any{"first_name": "Ana", "address1": "1 rue de Rivoli", "city": "Paris", "zip": "75001", "country_code": "fr"},
	}, nil).Expect(t, http.StatusCreated).Obj("checkout")
	return e.Storefront(http.MethodPut, "/checkouts/"+c["token"].(string), pub, map[string]any{"shipping_rate_id": ds.standardID},
		nil).Expect(t, http.StatusOK).Obj("checkout")
}

// scPay reports a payment attempt of the checkout.
func scPay(t *testing.T, e *apitest.Env, pub string, co map[string]any, status string, amount int64) *apitest.Response {
	t.Helper()
	body := map[string]any{"provider": "stripe", "payment_method": "card", "amount_cents": amount, "currency": co["currency"], "status": status}
	if status == models.AttemptFailure {
		body["error_code"], body["error_message"] = "card_declined", "Your card was declined."
	}
	return e.Storefront(http.MethodPost, "/checkouts/"+co["token"].(string)+"/payment-attempts", pub, body, nil)
}

// TestStorefrontCheckoutLifecycle: a visit, a cart priced by the service
// (a forged price is refused), a checkout from it with a code, an address,
// a rate and a tip priced by the engine, a failed then a successful
// payment, and completion: an order placed as mark-as-paid places one
// (stock, the code's use, order.paid delivered), linked to its checkout,
// session and attribution, which GET /store/orders/{id} shows. Completing
// twice is a 409.
func TestStorefrontCheckoutLifecycle(t *testing.T) {
	e := apitest.New(t)
	ds := scStore(t, e, "Shop")
	pub := e.PublishableKey(ds.store.ID)
	rcv := newWebhookReceiver(t)
	sub := createWebhook(t, e, ds.admin, map[string]any{"url": rcv.URL, "topics": []string{"order.paid"}})
	sessionID := scVisit(t, e, ds.store.ID, "visitor-1", "client-session-1")
	line := func(qty int) []any { return []any{map[string]any{"variant_id": ds.variantID, "quantity": qty}} }

	// The cart: the service's price, never the client's.
	forged := e.Storefront(http.MethodPost, "/carts", pub, map[string]any{"lines": []any{
		map[string]any{"variant_id": ds.variantID, "quantity": 2, "price_cents": 1}}}, nil).Expect(t, http.StatusBadRequest)
	if forged.Message() == "" {
		t.Fatalf("a forged price: %s", forged.Raw)
	}
	cart := e.Storefront(http.MethodPost, "/carts", pub, map[string]any{"lines": line(2), "email": "ana@example.com",
		"visitor_id": "visitor-1", "session_id": "client-session-1"}, nil).Expect(t, http.StatusCreated).Obj("cart")
	token, _ := cart["token"].(string)
	if !regexp.MustCompile(`^[0-9a-f]{32}$`).MatchString(token) || cart["subtotal_cents"] != float64(5000) || cart["item_count"] != float64(2) {
		t.Fatalf("cart: %v", cart)
	}
	if l := cart["lines"].([]any)[0].(map[string]any); l["price_cents"] != float64(2500) || l["line_total_cents"] != float64(5000) || l["title"] != "Tee" {
		t.Fatalf("cart line: %v", l)
	}
	cart = e.Storefront(http.MethodPut, "/carts/"+token, pub, map[string]any{"lines": line(3), "first_name": "Ana"}, nil).Expect(t, http.StatusOK).Obj("cart")
	if cart["subtotal_cents"] != float64(7500) || cart["first_name"] != "Ana" || cart["email"] != "ana@example.com" {
		t.Fatalf("cart after PUT: %v", cart)
	}
	if got := e.Storefront(http.MethodGet, "/carts/"+token, pub, nil, nil).Expect(t, http.StatusOK).Obj("cart"); got["subtotal_cents"] != float64(7500) {
		t.Fatalf("GET cart: %v", got)
	}
	var cartSession int64
	if err := e.DB.NewRaw(`SELECT session_id FROM carts WHERE token = ?`, token).Scan(context.Background(), &cartSession); err != nil || cartSession != sessionID {
		t.Fatalf("the cart's session: %d, want %d (%v)", cartSession, sessionID, err)
	}

	// The checkout, from the cart.
	co := e.Storefront(http.MethodPost, "/checkouts", pub, map[string]any{"cart_token": token}, nil).Expect(t, http.StatusCreated).Obj("checkout")
	ct := co["token"].(string)
	if co["email"] != "ana@example.com" || co["subtotal_cents"] != float64(7500) || co["state"] != "open" || co["shipping_line"] != nil {
		t.Fatalf("checkout from the cart: %v", co)
	}
	path := "/checkouts/" + ct
	// Checking out the cart again takes up the same checkout.
	if again := e.Storefront(http.MethodPost, "/checkouts", pub, map[string]any{"cart_token": token}, nil).Expect(t, http.StatusOK).Obj("checkout"); again["token"] != ct {
		t.Fatalf("the cart's second checkout %v, want %s", again["token"], ct)
	}
	e.Storefront(http.MethodPost, path+"/complete", pub, nil, nil).Expect(t, http.StatusConflict) // no address yet
	co = e.Storefront(http.MethodPut, path, pub, map[string]any{
		"shipping_address": map[string]any{"first_name": "Ana", "address1": "1 rue de Rivoli", "city": "Paris", "country_code": "FR"},
		"discount_code":    "save10", "step": "shipping", "marketing_consent": true,
		"tracking": map[string]any{"fbp": "fb.1.1700000000.1"},
	}, map[string]string{"User-Agent": "Mozilla/5.0 (test)"}).Expect(t, http.StatusOK).Obj("checkout")
	if co["discount_code"] != "SAVE10" || co["discount_cents"] != float64(750) || co["step"] != "shipping" {
		t.Fatalf("checkout with a code: %v", co)
	}
	rates := e.Storefront(http.MethodGet, path+"/shipping-rates", pub, nil, nil).Expect(t, http.StatusOK).List("shipping_rates")
	if len(rates) != 2 || rates[0].(map[string]any)["price_cents"] != float64(500) {
		t.Fatalf("rates: %v", rates)
	}
	e.Storefront(http.MethodPost, path+"/complete", pub, nil, nil).Expect(t, http.StatusConflict) // no rate chosen
	amounts := models.TipAmount
	if _, err := models.SetStoreTipping(context.Background(), e.DB, ds.store.ID, models.TippingConfig{Enabled: true,
		Mode: &amounts, Presets: []int64{300, 500}}); err != nil {
		t.Fatal(err)
	}
	co = e.Storefront(http.MethodPut, path, pub, map[string]any{"shipping_rate_id": ds.standardID, "tip": map[string]any{"preset": 300}, "step": "contact"},
		nil).Expect(t, http.StatusOK).Obj("checkout")
	// Tax: 20% of the discounted lines (6,750); shipping is not taxed.
	if co["shipping_cents"] != float64(500) || co["tax_cents"] != float64(1350) || co["tip_cents"] != float64(300) ||
		co["surcharge_cents"] != float64(0) || co["total_cents"] != float64(7500-750+500+1350+300) || co["step"] != "shipping" {
		t.Fatalf("checkout priced: %v", co)
	}
	total := int64(co["total_cents"].(float64))

	// Payment: none, a declined card, then a success.
	if r := e.Storefront(http.MethodPost, path+"/complete", pub, nil, nil).Expect(t, http.StatusConflict); r.Message() == "" {
		t.Fatal("no message")
	}
	scPay(t, e, pub, co, models.AttemptFailure, total).Expect(t, http.StatusCreated)
	e.Storefront(http.MethodPost, path+"/complete", pub, nil, nil).Expect(t, http.StatusConflict)
	scPay(t, e, pub, co, models.AttemptSuccess, total-1).Expect(t, http.StatusCreated)
	e.Storefront(http.MethodPost, path+"/complete", pub, nil, nil).Expect(t, http.StatusConflict) // does not pay the total
	paid := scPay(t, e, pub, co, models.AttemptSuccess, total).Expect(t, http.StatusCreated).Obj("payment_attempt")
	if paid["status"] != "success" || paid["provider"] != "stripe" {
		t.Fatalf("attempt: %v", paid)
	}
	done := e.Storefront(http.MethodPost, path+"/complete", pub, nil, nil).Expect(t, http.StatusCreated)
	placed := done.Obj("order")
	if done.Obj("checkout")["state"] != "completed" || placed["total_cents"] != float64(total) {
		t.Fatalf("completion: %s", done.Raw)
	}
	orderID := wholeNumber(t, placed["id"])

	// The order, as the admin API reads it.
	o := e.Do(http.MethodGet, orderPath(orderID), ds.admin, nil).Expect(t, http.StatusOK).Obj("order")
	if o["financial_status"] != "paid" || wholeNumber(t, o["total_cents"]) != total || wholeNumber(t, o["tip_cents"]) != 300 ||
		o["discount_code"] != "SAVE10" || o["email"] != "ana@example.com" || o["checkout_started_at"] == nil {
		t.Fatalf("order: %v", o)
	}
	attr, _ := o["attribution"].(map[string]any)
	if attr["utm_source"] != "newsletter" || attr["utm_campaign"] != "autumn" || attr["ad_source"] != "meta" ||
		attr["referrer"] != "https://news.example/" || attr["click_ids"].(map[string]any)["fbclid"] != "fb-123" {
		t.Fatalf("attribution: %v", o["attribution"])
	}
	ctx := context.Background()
	var link struct {
		CheckoutID, SessionID, CheckoutOrder, Transaction, Used, Stock int64
		Tracking                                                       map[string]any
	}
	if err := e.DB.NewRaw(`SELECT o.checkout_id, o.session_id, c.order_id AS checkout_order,
		(SELECT transaction_id FROM checkout_payment_attempts WHERE checkout_id = c.id AND status = 'success' ORDER BY id DESC LIMIT 1) AS transaction,
		(SELECT used_count FROM discounts WHERE id = ?) AS used,
		(SELECT inventory_quantity FROM product_variants WHERE id = ?) AS stock, c.tracking
		FROM orders o JOIN checkouts c ON c.id = o.checkout_id WHERE o.id = ?`, ds.discountID, ds.variantID, orderID).Scan(ctx,
		&link.CheckoutID, &link.SessionID, &link.CheckoutOrder, &link.Transaction, &link.Used, &link.Stock, &link.Tracking); err != nil {
		t.Fatal(err)
	}
	if link.SessionID != sessionID || link.CheckoutOrder != orderID || link.Transaction == 0 || link.Used != 1 || link.Stock != 7 {
		t.Fatalf("links: %+v", link)
	}
	if link.Tracking["fbp"] != "fb.1.1700000000.1" || link.Tracking["user_agent"] == nil || link.Tracking["client_ip"] != "127.0.0.0" {
		t.Fatalf("tracking: %v", link.Tracking)
	}
	ev := decodeOrderEvent(t, ds.store.ID, sub["secret"].(string), rcv.next(t))
	if ev.topic != "order.paid" || wholeNumber(t, ev.order["id"]) != orderID {
		t.Fatalf("event: %s %v", ev.topic, ev.order["id"])
	}

	// Once only.
	e.Storefront(http.MethodPost, path+"/complete", pub, nil, nil).Expect(t, http.StatusConflict)
	e.Storefront(http.MethodPut, path, pub, map[string]any{"tip": nil}, nil).Expect(t, http.StatusConflict)
	scPay(t, e, pub, co, models.AttemptSuccess, total).Expect(t, http.StatusConflict)
}

// TestStorefrontCheckoutRefusals: no key or a secret key 401; another
// store's tokens 404; bad input 400 with a message, and nothing written.
func TestStorefrontCheckoutRefusals(t *testing.T) {
	e := apitest.New(t)
	ds := scStore(t, e, "Shop")
	other := scStore(t, e, "Other")
	pub, otherPub := e.PublishableKey(ds.store.ID), e.PublishableKey(other.store.ID)
	co := scCheckout(t, e, ds, pub, 1, "ana@example.com")
	path := "/checkouts/" + co["token"].(string)
	cart := e.Storefront(http.MethodPost, "/carts", pub, map[string]any{}, nil).Expect(t, http.StatusCreated).Obj("cart")
	cartPath := "/carts/" + cart["token"].(string)

	for _, key := range []string{"", ds.admin, "sa_pub_madeup"} {
		e.Storefront(http.MethodPost, "/carts", key, map[string]any{}, nil).Expect(t, http.StatusUnauthorized)
		e.Storefront(http.MethodGet, path, key, nil, nil).Expect(t, http.StatusUnauthorized)
		e.Storefront(http.MethodPost, path+"/complete", key, nil, nil).Expect(t, http.StatusUnauthorized)
	}
	for _, c := range []struct{ method, path string }{
		{http.MethodGet, cartPath}, {http.MethodPut, cartPath}, {http.MethodGet, path}, {http.MethodPut, path},
		{http.MethodGet, path + "/shipping-rates"}, {http.MethodPost, path + "/payment-attempts"}, {http.MethodPost, path + "/complete"},
		{http.MethodGet, "/checkouts/not-a-token"},
	} {
		e.Storefront(c.method, c.path, otherPub, map[string]any{}, nil).Expect(t, http.StatusNotFound)
	}
	e.Storefront(http.MethodPost, "/checkouts", otherPub, map[string]any{"cart_token": cart["token"]}, nil).Expect(t, http.StatusNotFound)

	line := func(variant any, qty any) map[string]any {
		return map[string]any{"lines": []any{map[string]any{"variant_id": variant, "quantity": qty}}}
	}
	for name, body := range map[string]map[string]any{
		"quantity 0":            line(ds.variantID, 0),
		"quantity too large":    line(ds.variantID, 1001),
		"another store's":       line(other.variantID, 1),
		"unknown variant":       line(999999999, 1),
		"not an email":          {"email": "ana"},
		"unknown field":         {"total_cents": 1},
		"quantity not a number": line(ds.variantID, "two"),
	} {
		if r := e.Storefront(http.MethodPut, cartPath, pub, body, nil).Expect(t, http.StatusBadRequest); r.Message() == "" {
			t.Errorf("%s: no message: %s", name, r.Raw)
		}
	}
	e.Storefront(http.MethodPut, cartPath, pub, line(ds.variantID, 11), nil).Expect(t, http.StatusConflict) // 10 in stock
	for name, body := range map[string]map[string]any{
		"country":       {"shipping_address": map[string]any{"country_code": "XX"}},
		"address":       {"billing_address": "Paris"},
		"code":          {"discount_code": "NOPE"},
		"rate":          {"shipping_rate_id": 999999999},
		"tip":           {"tip": map[string]any{"amount_cents": 100}}, // the store takes no tips
		"step":          {"step": "dancing"},
		"utm":           {"utm": map[string]any{"utm_colour": "red"}},
		"tracking":      {"tracking": map[string]any{"client_ip": "1.2.3.4"}},
		"no lines":      {"lines": []any{}},
		"cart token":    {"cart_token": cart["token"]},
		"another rate":  {"shipping_rate_id": other.standardID},
		"forged totals": {"total_cents": 1},
	} {
		if r := e.Storefront(http.MethodPut, path, pub, body, nil).Expect(t, http.StatusBadRequest); r.Message() == "" {
			t.Errorf("%s: no message: %s", name, r.Raw)
		}
	}
	e.Storefront(http.MethodPost, "/checkouts", pub, map[string]any{}, nil).Expect(t, http.StatusBadRequest)
	for name, body := range map[string]map[string]any{
		"no provider": {"amount_cents": 1, "currency": "EUR", "status": "success"},
		"status":      {"provider": "stripe", "amount_cents": 1, "currency": "EUR", "status": "great"},
		"currency":    {"provider": "stripe", "amount_cents": 1, "currency": "euro", "status": "success"},
		"amount":      {"provider": "stripe", "amount_cents": -1, "currency": "EUR", "status": "success"},
		"capture":     {"provider": "stripe", "amount_cents": 1, "currency": "EUR", "status": "success", "capture_model": "later"},
	} {
		if r := e.Storefront(http.MethodPost, path+"/payment-attempts", pub, body, nil).Expect(t, http.StatusBadRequest); r.Message() == "" {
			t.Errorf("%s: no message: %s", name, r.Raw)
		}
	}
	// Nothing of the refusals was written.
	got := e.Storefront(http.MethodGet, path, pub, nil, nil).Expect(t, http.StatusOK).Obj("checkout")
	if got["total_cents"] != co["total_cents"] || got["discount_code"] != "" || got["tip_cents"] != float64(0) || len(got["lines"].([]any)) != 1 {
		t.Fatalf("after refusals: %v", got)
	}
	var attempts int
	if err := e.DB.NewRaw(`SELECT count(*) FROM checkout_payment_attempts`).Scan(context.Background(), &attempts); err != nil || attempts != 0 {
		t.Fatalf("%d attempts stored (%v)", attempts, err)
	}
}

// TestStorefrontCheckoutExpires: past its lifetime a checkout reads as
// expired and cannot be changed or completed (409).
func TestStorefrontCheckoutExpires(t *testing.T) {
	e := apitest.New(t)
	ds := scStore(t, e, "Shop")
	pub := e.PublishableKey(ds.store.ID)
	co := scCheckout(t, e, ds, pub, 1, "ana@example.com")
	scPay(t, e, pub, co, models.AttemptSuccess, int64(co["total_cents"].(float64))).Expect(t, http.StatusCreated)
	if _, err := e.DB.NewRaw(`UPDATE checkouts SET expires_at = now() - interval '1 minute' WHERE token = ?`, co["token"]).Exec(context.Background()); err != nil {
		t.Fatal(err)
	}
	path := "/checkouts/" + co["token"].(string)
	if got := e.Storefront(http.MethodGet, path, pub, nil, nil).Expect(t, http.StatusOK).Obj("checkout"); got["state"] != "expired" {
		t.Fatalf("state %v", got["state"])
	}
	e.Storefront(http.MethodPut, path, pub, map[string]any{"tip": nil}, nil).Expect(t, http.StatusConflict)
	if r := e.Storefront(http.MethodPost, path+"/complete", pub, nil, nil).Expect(t, http.StatusConflict); r.Message() == "" {
		t.Fatal("no message")
	}
}

// TestStorefrontCheckoutStatements: reading and completing a checkout
// costs the same statements for 1 line as for 20.
func TestStorefrontCheckoutStatements(t *testing.T) {
	e := apitest.New(t)
	ds := scStore(t, e, "Shop")
	pub := e.PublishableKey(ds.store.ID)
	count := countStatements(e)
	var reads, completes []int64
	for _, n := range []int{1, 20} {
		lines := make([]any, n)
		for i := range lines {
			lines[i] = map[string]any{"variant_id": ds.variantID, "quantity": 1, "properties": map[string]any{"n": string(rune('a' + i))}}
		}
		if n > 10 {
			if _, err := e.DB.NewRaw(`UPDATE product_variants SET inventory_quantity = 100 WHERE id = ?`, ds.variantID).Exec(context.Background()); err != nil {
				t.Fatal(err)
			}
		}
		c := e.Storefront(http.MethodPost, "/checkouts", pub, map[string]any{"lines": lines, "email": "ana@example.com",
			"shipping_address": map[string]any{"country_code": "FR"}, "shipping_rate_id": ds.standardID}, nil).Expect(t, http.StatusCreated).Obj("checkout")
		path := "/checkouts/" + c["token"].(string)
		reads = append(reads, count(func() { e.Storefront(http.MethodGet, path, pub, nil, nil).Expect(t, http.StatusOK) }))
		scPay(t, e, pub, c, models.AttemptSuccess, int64(c["total_cents"].(float64))).Expect(t, http.StatusCreated)
		completes = append(completes, count(func() { e.Storefront(http.MethodPost, path+"/complete", pub, nil, nil).Expect(t, http.StatusCreated) }))
	}
	t.Logf("statements for 1 and 20 lines: reads %v, completions %v", reads, completes)
	if reads[0] != reads[1] || completes[0] != completes[1] {
		t.Fatalf("statements for 1 and 20 lines: reads %v, completions %v", reads, completes)
	}
}

// scAbandon flags a cart or checkout abandoned an hour ago, as the
// abandonment job does.
func scAbandon(t *testing.T, e *apitest.Env, table, token string) {
	t.Helper()
	if _, err := e.DB.NewRaw(`UPDATE ? SET abandoned_at = now() - interval '1 hour' WHERE token = ?`, bun.Ident(table), token).Exec(context.Background()); err != nil {
		t.Fatal(err)
	}
}

// scRecovered is checkout.recovered's data, checked as a subscriber would.
func scRecovered(t *testing.T, secret string, r receivedWebhook) (recovered, order map[string]any) {
	t.Helper()
	verifySignature(t, secret, r)
	var body struct {
		Topic string `json:"topic"`
		Data  struct {
			Recovered map[string]any `json:"recovered"`
			Order     map[string]any `json:"order"`
		} `json:"data"`
	}
	if err := json.Unmarshal(r.body, &body); err != nil || body.Topic != "checkout.recovered" {
		t.Fatalf("checkout.recovered: %v %s", err, r.body)
	}
	return body.Data.Recovered, objectWithKeys(t, "data.order", body.Data.Order, orderDetailKeys)
}

// TestOrderPlacementMarksRecovered: every placement path marks what the
// order recovers, once, and announces it: a storefront checkout flagged
// abandoned and then completed, and a cart flagged abandoned whose email
// later orders through a draft marked as paid. A checkout never abandoned,
// and a second order of a recovered email, mark and announce nothing.
func TestOrderPlacementMarksRecovered(t *testing.T) {
	e := apitest.New(t)
	ds := scStore(t, e, "Shop")
	pub := e.PublishableKey(ds.store.ID)
	rcv := newWebhookReceiver(t)
	sub := createWebhook(t, e, ds.admin, map[string]any{"url": rcv.URL, "topics": []string{"checkout.recovered"}})
	secret := sub["secret"].(string)
	ctx := context.Background()
	complete := func(co map[string]any) int64 {
		t.Helper()
		scPay(t, e, pub, co, models.AttemptSuccess, int64(co["total_cents"].(float64))).Expect(t, http.StatusCreated)
		return wholeNumber(t, e.Storefront(http.MethodPost, "/checkouts/"+co["token"].(string)+"/complete", pub, nil, nil).Expect(t, http.StatusCreated).Obj("order")["id"])
	}
	recoveredBy := func(table, token string) (orderID *int64) {
		t.Helper()
		if err := e.DB.NewRaw(`SELECT recovered_order_id FROM ? WHERE token = ? AND (recovered_at IS NULL) = (recovered_order_id IS NULL)`,
			bun.Ident(table), token).Scan(ctx, &orderID); err != nil {
			t.Fatalf("%s %s: %v", table, token, err)
		}
		return orderID
	}

	// A checkout abandoned, then completed: recovered by its own order.
	ana := scCheckout(t, e, ds, pub, 1, "ana@example.com")
	scAbandon(t, e, "checkouts", ana["token"].(string))
	anaOrder := complete(ana)
	if got := recoveredBy("checkouts", ana["token"].(string)); got == nil || *got != anaOrder {
		t.Fatalf("ana's checkout recovered by %v, want %d", got, anaOrder)
	}
	rec, order := scRecovered(t, secret, rcv.next(t))
	if rec["resource"] != "checkout" || rec["token"] != ana["token"] || rec["email"] != "ana@example.com" || rec["abandoned_at"] == nil ||
		wholeNumber(t, order["id"]) != anaOrder {
		t.Fatalf("recovered %v, order %v", rec, order["id"])
	}

	// A cart abandoned; its email orders through a draft marked as paid.
	cart := e.Storefront(http.MethodPost, "/carts", pub, map[string]any{"email": "Bob@Example.com",
		"lines": []any{map[string]any{"variant_id": ds.variantID, "quantity": 1}}}, nil).Expect(t, http.StatusCreated).Obj("cart")
	scAbandon(t, e, "carts", cart["token"].(string))
	draft := createDraftOrder(t, e, ds.admin, map[string]any{"email": "bob@example.com", "lines": []any{map[string]any{"variant_id": ds.variantID, "quantity": 1}}})
	bobOrder := wholeNumber(t, e.Do(http.MethodPost, draftOrderPath(draft, "/mark-as-paid"), ds.admin, map[string]any{}).Expect(t, http.StatusOK).Body["order_id"])
	if got := recoveredBy("carts", cart["token"].(string)); got == nil || *got != bobOrder {
		t.Fatalf("bob's cart recovered by %v, want %d", got, bobOrder)
	}
	rec, order = scRecovered(t, secret, rcv.next(t))
	if rec["resource"] != "cart" || rec["token"] != cart["token"] || wholeNumber(t, order["id"]) != bobOrder {
		t.Fatalf("recovered %v, order %v", rec, order["id"])
	}

	// Never abandoned: nothing. Ana again: recovered already, nothing.
	carol := scCheckout(t, e, ds, pub, 1, "carol@example.com")
	complete(carol)
	if got := recoveredBy("checkouts", carol["token"].(string)); got != nil {
		t.Fatalf("carol's checkout, never abandoned, recovered by %d", *got)
	}
	complete(scCheckout(t, e, ds, pub, 1, "ana@example.com"))
	settledDeliveries(t, e, ds.admin, wholeNumber(t, sub["id"]), 2)
	expectNoMoreDeliveries(t, rcv)
}

// TestStorefrontForms: storefront forms become submissions of the Form
// submissions area (read through GET /store/form-submissions); the
// honeypot's robots are answered as if received and stored nowhere; bad
// input is a 400.
func TestStorefrontForms(t *testing.T) {
	e := apitest.New(t)
	ds := scStore(t, e, "Shop")
	pub := e.PublishableKey(ds.store.ID)
	e.Storefront(http.MethodPost, "/forms/contact", pub, map[string]any{"name": "Ana", "email": "ana@example.com", "message": "Do you ship to Lyon?"},
		map[string]string{"Referer": "https://shop.example/pages/contact"}).Expect(t, http.StatusCreated)
	e.Storefront(http.MethodPost, "/forms/newsletter", pub, map[string]any{"email": "bob@example.com"}, nil).Expect(t, http.StatusCreated)
	e.Storefront(http.MethodPost, "/forms/wholesale", pub, map[string]any{"name": "Carol", "message": "100 tees"}, nil).Expect(t, http.StatusCreated)
	if r := e.Storefront(http.MethodPost, "/forms/newsletter", pub, map[string]any{"email": "robot@example.com", "website": "http://spam.example"}, nil).Expect(t, http.StatusCreated); r.Body["received"] != true {
		t.Fatalf("honeypot: %s", r.Raw)
	}
	for name, c := range map[string]struct {
		path string
		body map[string]any
	}{
		"newsletter without email": {"/forms/newsletter", map[string]any{"name": "Ana"}},
		"contact without message":  {"/forms/contact", map[string]any{"email": "ana@example.com"}},
		"not an email":             {"/forms/contact", map[string]any{"email": "ana", "message": "hi"}},
		"bad type":                 {"/forms/Not%20A%20Type", map[string]any{"email": "ana@example.com"}},
		"empty":                    {"/forms/custom", map[string]any{}},
		"unknown field":            {"/forms/contact", map[string]any{"email": "ana@example.com", "message": "hi", "phone": "1"}},
		"too long":                 {"/forms/contact", map[string]any{"email": "ana@example.com", "message": strings.Repeat("x", 10_001)}},
	} {
		if r := e.Storefront(http.MethodPost, c.path, pub, c.body, nil).Expect(t, http.StatusBadRequest); r.Message() == "" {
			t.Errorf("%s: no message: %s", name, r.Raw)
		}
	}
	e.Storefront(http.MethodPost, "/forms/contact", "", map[string]any{"email": "ana@example.com", "message": "hi"}, nil).Expect(t, http.StatusUnauthorized)

	rows := e.Do(http.MethodGet, "/store/form-submissions", ds.admin, nil).Expect(t, http.StatusOK)
	var got []string
	for _, v := range rows.List("submissions") {
		f := v.(map[string]any)
		got = append(got, f["type"].(string)+" "+f["email"].(string)+" "+f["source_url"].(string))
	}
	slices.Sort(got)
	want := []string{"contact ana@example.com https://shop.example/pages/contact", "newsletter bob@example.com ", "wholesale  "}
	if !slices.Equal(got, want) {
		t.Fatalf("submissions %q, want %q", got, want)
	}
}
