package apitest_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"storeadmin/internal/abandonment"
	"storeadmin/internal/app/apitest"
	"storeadmin/internal/auth"
	"storeadmin/internal/testkit/testsmtp"
)

// TestStorefrontEndToEnd drives the storefront surface as browsers would,
// then reads what the admin API learnt. One visitor lands from a campaign,
// views the tee, adds it to a cart, checks out, fails a payment, pays and
// completes: the order carries its session and attribution, and its
// activity shows the browsing. Another visitor's cart is left: the
// abandonment job flags it (cart.abandoned), its reminder goes out over
// SMTP, the link in it brings the shopper back to the cart, which then
// converts (checkout.recovered). The webhook receiver hears cart.abandoned
// before checkout.recovered.
func TestStorefrontEndToEnd(t *testing.T) {
	mailbox := testsmtp.Start(t, "shop", "s3cret")
	e := apitest.New(t, apitest.WithSMTP(mailbox.URL()))
	ds := scStore(t, e, "Shop")
	pub := e.PublishableKey(ds.store.ID)
	rcv := newWebhookReceiver(t)
	createWebhook(t, e, ds.admin, map[string]any{"url": rcv.URL, "topics": []string{"cart.abandoned", "checkout.recovered"}})
	var productID int64
	if err := e.DB.NewRaw(`SELECT product_id FROM product_variants WHERE id = ?`, ds.variantID).Scan(context.Background(), &productID); err != nil {
		t.Fatal(err)
	}
	now := time.Now().UTC().Truncate(time.Second)
	ev := func(id, name, visitor string, at time.Time, fields map[string]any) map[string]any {
		out := map[string]any{"id": id, "name": name, "visitor_id": visitor, "session_id": "tab-" + visitor, "time": at.Format(time.RFC3339)}
		for k, v := range fields {
			out[k] = v
		}
		return out
	}
	browse := func(visitor string, at time.Time) {
		t.Helper()
		e.Storefront(http.MethodPost, "/events", pub, map[string]any{"events": []any{
			ev(visitor+"-1", "page_view", visitor, at, map[string]any{"path": "/?utm_source=newsletter", "referrer": "https://news.example/",
				"utm": map[string]any{"source": "newsletter", "medium": "email", "campaign": "autumn"}}),
			ev(visitor+"-2", "product_view", visitor, at.Add(20*time.Second), map[string]any{"path": "/products/tee", "product_id": productID}),
			ev(visitor+"-3", "add_to_cart", visitor, at.Add(40*time.Second), map[string]any{"path": "/products/tee", "variant_id": ds.variantID, "quantity": 1}),
		}}, map[string]string{"User-Agent": "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0 Safari/537.36"}).
			Expect(t, http.StatusOK)
	}
	address := map[string]any{"first_name": "Ana", "address1": "1 rue de Rivoli", "city": "Paris", "zip": "75001", "country_code": "FR"}
	checkoutCart := func(cartToken string) map[string]any {
		t.Helper()
		co := e.Storefront(http.MethodPost, "/checkouts", pub, map[string]any{"cart_token": cartToken}, nil).Obj("checkout")
		return e.Storefront(http.MethodPut, "/checkouts/"+co["token"].(string), pub,
			map[string]any{"shipping_address": address, "shipping_rate_id": ds.standardID, "step": "payment"}, nil).Expect(t, http.StatusOK).Obj("checkout")
	}
	complete := func(co map[string]any) int64 {
		t.Helper()
		total := int64(co["total_cents"].(float64))
		scPay(t, e, pub, co, "success", total).Expect(t, http.StatusCreated)
		done := e.Storefront(http.MethodPost, "/checkouts/"+co["token"].(string)+"/complete", pub, nil, nil).Expect(t, http.StatusCreated)
		return int64(done.Obj("order")["id"].(float64))
	}

	// The first visitor buys.
	browse("ana", now.Add(-5*time.Minute))
	cart := e.Storefront(http.MethodPost, "/carts", pub, map[string]any{"lines": []any{map[string]any{"variant_id": ds.variantID, "quantity": 1}},
		"email": "ana@example.com", "visitor_id": "ana", "session_id": "tab-ana"}, nil).Expect(t, http.StatusCreated).Obj("cart")
	co := checkoutCart(cart["token"].(string))
	scPay(t, e, pub, co, "failure", int64(co["total_cents"].(float64))).Expect(t, http.StatusCreated)
	orderID := complete(co)

	order := e.Do(http.MethodGet, "/store/orders/"+strconv.FormatInt(orderID, 10), ds.admin, nil).Expect(t, http.StatusOK).Obj("order")
	if a, _ := order["attribution"].(map[string]any); a == nil || a["utm_source"] != "newsletter" || a["utm_campaign"] != "autumn" {
		t.Fatalf("the order's attribution: %v", order["attribution"])
	}
	g := e.GraphQL(ds.admin, `query($id: Int!) { order(id: $id) { session { session_id landing_path browser } } }`, map[string]any{"id": orderID})
	s, _ := g.Data()["order"].(map[string]any)["session"].(map[string]any)
	if s == nil || !strings.HasPrefix(s["session_id"].(string), "ss_") || s["landing_path"] != "/?utm_source=newsletter" || s["browser"] != "Chrome" {
		t.Fatalf("the order's session: %s", g.Raw)
	}
	activity := e.Do(http.MethodGet, "/store/orders/"+strconv.FormatInt(orderID, 10)+"/activity", ds.admin, nil).Expect(t, http.StatusOK).Obj("activity")
	if cov := activity["coverage"].(map[string]any); cov["browsing"] != true {
		t.Fatalf("the order's activity covers no browsing: %v", cov)
	}
	if sum := activity["summary"].(map[string]any); sum["page_views"] != float64(1) || sum["product_views"] != float64(1) || sum["failed_payments"] != float64(1) {
		t.Fatalf("the order's activity summary: %v", sum)
	}

	// The second visitor leaves a cart, which the job flags after the
	// policy's idle hour.
	browse("bea", now.Add(-3*time.Minute))
	left := e.Storefront(http.MethodPost, "/carts", pub, map[string]any{"lines": []any{map[string]any{"variant_id": ds.variantID, "quantity": 2}},
		"email": "bea@example.com", "first_name": "Bea", "visitor_id": "bea", "session_id": "tab-bea"}, nil).Expect(t, http.StatusCreated).Obj("cart")
	leftToken := left["token"].(string)
	abandonedAt := now.Add(61 * time.Minute)
	if n, err := abandonment.Run(context.Background(), e.DB, e.Events, abandonedAt); err != nil || n.Carts != 1 {
		t.Fatalf("abandonment: %+v, %v", n, err)
	}
	if topic := webhookTopic(t, rcv.next(t)); topic != "cart.abandoned" {
		t.Fatalf("first webhook: %s, want cart.abandoned", topic)
	}
	listed := e.Do(http.MethodGet, "/store/abandoned-carts", ds.admin, nil).Expect(t, http.StatusOK)
	if rows := listed.List("abandoned"); len(rows) != 1 || rows[0].(map[string]any)["token"] != leftToken {
		t.Fatalf("abandoned carts: %s", listed.Raw)
	}

	// Its first reminder goes out over SMTP an hour later; its link leads
	// the shopper back to the cart.
	if n := runDue(t, e, abandonedAt.Add(61*time.Minute)); n != 1 {
		t.Fatalf("%d reminders recorded, want 1", n)
	}
	msgs := mailbox.Messages()
	if len(msgs) != 1 || msgs[0].To != "bea@example.com" {
		t.Fatalf("mail: %+v", msgs)
	}
	link := recoverLinkRe.FindString(msgs[0].Text)
	if link == "" {
		t.Fatalf("no recovery link in:\n%s", msgs[0].Text)
	}
	back := follow(t, http.MethodGet, link)
	if back.StatusCode != http.StatusFound || !strings.Contains(back.Header.Get("Location"), leftToken) {
		t.Fatalf("the recovery link: %d to %q", back.StatusCode, back.Header.Get("Location"))
	}

	// The shopper pays: the cart is recovered, and the receiver hears it.
	recoveredOrder := complete(checkoutCart(leftToken))
	w := rcv.next(t)
	if topic := webhookTopic(t, w); topic != "checkout.recovered" {
		t.Fatalf("second webhook: %s, want checkout.recovered", topic)
	}
	detail := e.Do(http.MethodGet, "/store/abandoned-carts/"+leftToken, ds.admin, nil).Expect(t, http.StatusOK).Obj("cart")
	if detail["recovered_at"] == nil || detail["recovery_emails"] != float64(1) || detail["session"] == nil {
		t.Fatalf("the recovered cart: %v", detail)
	}
	var recoveredBy int64
	if err := e.DB.NewRaw(`SELECT recovered_order_id FROM carts WHERE token = ?`, leftToken).Scan(context.Background(), &recoveredBy); err != nil || recoveredBy != recoveredOrder {
		t.Fatalf("the cart was recovered by order %d, want %d (%v)", recoveredBy, recoveredOrder, err)
	}
}

// webhookTopic is the topic of a delivered webhook.
func webhookTopic(t *testing.T, w receivedWebhook) string {
	t.Helper()
	var body struct {
		Topic string `json:"topic"`
	}
	if err := json.Unmarshal(w.body, &body); err != nil {
		t.Fatalf("webhook body: %v\n%s", err, w.body)
	}
	return body.Topic
}

// TestStorefrontGraph: a visit leads to its carts and checkouts, and they
// to their lines (and the lines' variants), their visit, a cart's
// checkouts and a checkout's order, each relation loaded once for all its
// parents: a page of orders whose visits made one cart costs the
// statements of one whose visits made four. Without the abandoned scope
// the carts and checkouts are null.
func TestStorefrontGraph(t *testing.T) {
	e := apitest.New(t)
	ds := scStore(t, e, "Shop")
	pub := e.PublishableKey(ds.store.ID)
	buy := func(visitor string, carts int) {
		t.Helper()
		scVisit(t, e, ds.store.ID, visitor, "tab-"+visitor)
		for i := range carts {
			c := e.Storefront(http.MethodPost, "/carts", pub, map[string]any{"lines": []any{map[string]any{"variant_id": ds.variantID, "quantity": 1}},
				"email": visitor + "@example.com", "visitor_id": visitor, "session_id": "tab-" + visitor}, nil).Expect(t, http.StatusCreated).Obj("cart")
			co := e.Storefront(http.MethodPost, "/checkouts", pub, map[string]any{"cart_token": c["token"]}, nil).Obj("checkout")
			co = e.Storefront(http.MethodPut, "/checkouts/"+co["token"].(string), pub, map[string]any{"shipping_rate_id": ds.standardID,
				"shipping_address": map[string]any{"first_name": "Ana", "address1": "1 rue de Rivoli", "city": "Paris", "zip": "75001", "country_code": "FR"}},
				nil).Expect(t, http.StatusOK).Obj("checkout")
			if i == 0 {
				scPay(t, e, pub, co, "success", int64(co["total_cents"].(float64))).Expect(t, http.StatusCreated)
				e.Storefront(http.MethodPost, "/checkouts/"+co["token"].(string)+"/complete", pub, nil, nil).Expect(t, http.StatusCreated)
			}
		}
	}
	const query = `{ orders(limit: 50) { id session { session_id
		carts { token item_count lines { sku quantity price_cents variant { id sku } } session { session_id } checkouts { token state } }
		checkouts { token state total_cents lines { sku variant { id } } session { session_id } order { id } } } } }`
	count := countStatements(e)
	buy("ana", 1)
	var small int64
	var r *apitest.Response
	if small = count(func() { r = e.GraphQL(ds.admin, query, nil) }); r.Status != http.StatusOK || r.Body["errors"] != nil {
		t.Fatalf("the graph: %s", r.Raw)
	}
	orders := r.Data()["orders"].([]any)
	s := orders[0].(map[string]any)["session"].(map[string]any)
	carts, checkouts := s["carts"].([]any), s["checkouts"].([]any)
	if len(carts) != 1 || len(checkouts) != 1 {
		t.Fatalf("ana's visit: %v", s)
	}
	cart, co := carts[0].(map[string]any), checkouts[0].(map[string]any)
	line := cart["lines"].([]any)[0].(map[string]any)
	if line["quantity"] != float64(1) || line["variant"].(map[string]any)["id"] != float64(ds.variantID) ||
		cart["session"].(map[string]any)["session_id"] != s["session_id"] || cart["checkouts"].([]any)[0].(map[string]any)["token"] != co["token"] {
		t.Fatalf("ana's cart: %v", cart)
	}
	if co["state"] != "completed" || co["order"].(map[string]any)["id"] != orders[0].(map[string]any)["id"] {
		t.Fatalf("ana's checkout: %v", co)
	}

	buy("bea", 4)
	big := count(func() { r = e.GraphQL(ds.admin, query, nil) })
	if r.Body["errors"] != nil || len(r.Data()["orders"].([]any)) != 2 {
		t.Fatalf("the graph with bea: %s", r.Raw)
	}
	if big != small {
		t.Fatalf("one cart cost %d statements, five cost %d", small, big)
	}

	// Without the abandoned scope, the carts and checkouts are null.
	key := e.Key(ds.store.ID, auth.RoleAdmin, "orders:read", "analytics:read")
	r = e.GraphQL(key, `{ orders(limit: 1) { session { session_id carts { token } checkouts { token } } } }`, nil)
	s = r.Data()["orders"].([]any)[0].(map[string]any)["session"].(map[string]any)
	if s["carts"] != nil || s["checkouts"] != nil || s["session_id"] == nil {
		t.Fatalf("without the abandoned scope: %s", r.Raw)
	}
}
