package apitest_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"storeadmin/internal/analytics"
	"storeadmin/internal/app/apitest"
	"storeadmin/internal/funnelruns"
	"storeadmin/models"
)

// Post-purchase funnels at run time, through the storefront surface: a
// checkout paid by an authorization enters the funnel its zone picks, the
// shopper answers its offers, accepted ones re-price the order, and the
// run's end captures. Fixtures: frShop (newDraftOrderStore's tee at 25.00,
// French VAT 20%, Standard rate 5.00; socks in two sizes at 10.00 and
// 12.00; a mug at 15.00) and its funnels. Helpers of this file start with
// fr.

// frShop is the fixture: the store, its catalogue's ids, and two funnels:
// "Socks then mug" (1: the socks, 20% off, then 2: the mug, 3.00 off,
// whatever the answer) and "Mug only".
type frShop struct {
	draftOrderStore
	pub                    string
	socksID, mugID         int64   // products
	socksVariants          []int64 // 10.00 and 12.00
	mugVariant             int64
	socksFunnel, mugFunnel int64
}

func frStore(t *testing.T, e *apitest.Env, name string) frShop {
	t.Helper()
	f := frShop{draftOrderStore: scStore(t, e, name)}
	f.pub = e.PublishableKey(f.store.ID)
	ctx := context.Background()
	if _, err := e.DB.NewRaw(`UPDATE product_variants SET inventory_quantity = 1000 WHERE id = ?`, f.variantID).Exec(ctx); err != nil {
		t.Fatal(err)
	}
	socks := e.Do(http.MethodPost, "/store/products", f.admin, map[string]any{"title": "Socks", "status": "active",
		"options": []any{map[string]any{"name": "Size"}}, "variants": []any{
			map[string]any{"sku": "SOCK-M", "option1": "M", "price_cents": 1000, "inventory_quantity": 500, "weight_grams": 50},
			map[string]any{"sku": "SOCK-L", "option1": "L", "price_cents": 1200, "inventory_quantity": 500, "weight_grams": 50},
		}}).Expect(t, http.StatusCreated).Obj("product")
	f.socksID = wholeNumber(t, socks["id"])
	for _, v := range socks["variants"].([]any) {
		f.socksVariants = append(f.socksVariants, wholeNumber(t, v.(map[string]any)["id"]))
	}
	mug := e.Do(http.MethodPost, "/store/products", f.admin, map[string]any{"title": "Mug", "status": "active", "variants": []any{
		map[string]any{"sku": "MUG", "price_cents": 1500, "inventory_quantity": 500, "weight_grams": 300},
	}}).Expect(t, http.StatusCreated).Obj("product")
	f.mugID = wholeNumber(t, mug["id"])
	f.mugVariant = wholeNumber(t, mug["variants"].([]any)[0].(map[string]any)["id"])
	one := int64(2)
	f.socksFunnel = idOf(t, fnCreate(t, e, f.admin, map[string]any{"name": "Socks then mug", "timeout_seconds": 600, "offers": []any{
		fnOffer(1, "upsell", map[string]any{"product_id": f.socksID, "discount": map[string]any{"type": "percentage", "value": 20}}, one, one),
		fnOffer(2, "cross_sell", map[string]any{"variant_id": f.mugVariant, "discount": map[string]any{"type": "fixed_amount", "value": 300}}, nil, nil),
	}}))
	f.mugFunnel = idOf(t, fnCreate(t, e, f.admin, map[string]any{"name": "Mug only", "timeout_seconds": 600, "offers": []any{
		fnOffer(1, "cross_sell", map[string]any{"variant_id": f.mugVariant}, nil, nil),
	}}))
	return f
}

// frZone routes France to funnels, {funnel_id: weight}, in that order.
func frZone(t *testing.T, e *apitest.Env, f frShop, funnels ...[2]int64) {
	t.Helper()
	var list []any
	for _, fw := range funnels {
		list = append(list, map[string]any{"funnel_id": fw[0], "weight": fw[1]})
	}
	e.Do(http.MethodPost, "/store/checkout-zones", f.admin, map[string]any{"name": "France", "countries": []string{"FR"}, "funnels": list}).
		Expect(t, http.StatusCreated)
}

// frCheckout is a checkout of qty tees to Paris at the Standard rate.
func frCheckout(t *testing.T, e *apitest.Env, f frShop, qty int, extra map[string]any) map[string]any {
	t.Helper()
	co := scCheckout(t, e, f.draftOrderStore, f.pub, qty, "ana@example.com")
	if extra != nil {
		co = e.Storefront(http.MethodPut, "/checkouts/"+co["token"].(string), f.pub, extra, nil).Expect(t, http.StatusOK).Obj("checkout")
	}
	return co
}

// frComplete authorizes the checkout's total through provider (capture
// model manual) and completes it; it answers the completion.
func frComplete(t *testing.T, e *apitest.Env, f frShop, co map[string]any, provider string) *apitest.Response {
	t.Helper()
	path := "/checkouts/" + co["token"].(string)
	e.Storefront(http.MethodPost, path+"/payment-attempts", f.pub, map[string]any{"provider": provider, "payment_method": "card",
		"capture_model": "manual", "amount_cents": co["total_cents"], "currency": co["currency"], "status": "success"}, nil).
		Expect(t, http.StatusCreated)
	return e.Storefront(http.MethodPost, path+"/complete", f.pub, nil, nil).Expect(t, http.StatusCreated)
}

// frAnswer posts an answer (shown, accept, decline) to the offer at
// position of the checkout's run.
func frAnswer(e *apitest.Env, f frShop, token string, position, verb string, body any) *apitest.Response {
	return e.Storefront(http.MethodPost, "/checkouts/"+token+"/upsell/"+position+"/"+verb, f.pub, body, nil)
}

// frCheckoutRoute is the zone and funnel the checkout's last pricing
// recorded.
func frCheckoutRoute(t *testing.T, e *apitest.Env, token string) (zone, funnel *int64) {
	t.Helper()
	if err := e.DB.NewRaw(`SELECT checkout_zone_id, upsell_funnel_id FROM checkouts WHERE token = ?`, token).Scan(context.Background(), &zone, &funnel); err != nil {
		t.Fatal(err)
	}
	return zone, funnel
}

// frMoney is the order's transactions as kind:amount, oldest first, and
// its financial status.
func frMoney(t *testing.T, e *apitest.Env, f frShop, orderID int64) ([]string, string, map[string]any) {
	t.Helper()
	o := e.Do(http.MethodGet, orderPath(orderID), f.admin, nil).Expect(t, http.StatusOK).Obj("order")
	var out []string
	for _, x := range o["transactions"].([]any) {
		tx := x.(map[string]any)
		if tx["status"] == "success" {
			out = append(out, fmt.Sprintf("%s:%d", tx["kind"], wholeNumber(t, tx["amount_cents"])))
		}
	}
	return out, o["financial_status"].(string), o
}

// frCount counts rows of a query.
func frCount(t *testing.T, e *apitest.Env, query string, args ...any) int {
	t.Helper()
	var n int
	if err := e.DB.NewRaw(query, args...).Scan(context.Background(), &n); err != nil {
		t.Fatal(err)
	}
	return n
}

// TestFunnelRunEndToEnd is the "Done when": a checkout through the
// storefront surface, its funnel picked by zone and weight (the pick
// models.PickFunnel makes, the same on every reload) whose surcharge
// override prices it, an authorization, the offer of socks accepted and
// the mug declined, the order re-priced with its surcharge and tip (the
// figures by hand below), the capture of the new total, upsell.accepted
// delivered once with a valid signature, and awaiting-capture along the
// way. The analytics rollups see the new line and totals once.
func TestFunnelRunEndToEnd(t *testing.T) {
	e := apitest.New(t)
	f := frStore(t, e, "Shop")
	ctx := context.Background()
	rcv := newWebhookReceiver(t)
	sub := createWebhook(t, e, f.admin, map[string]any{"url": rcv.URL, "topics": []string{"upsell.accepted"}})
	e.Do(http.MethodPut, "/store/pp15", f.admin, map[string]any{"active": true, "value_bps": 250, "cap_cents": 1000}).Expect(t, http.StatusOK)
	e.Do(http.MethodPut, "/store/tipping", f.admin, map[string]any{"enabled": true, "mode": "percentage", "presets": []int{10, 15}, "allow_custom": false}).Expect(t, http.StatusOK)
	e.Do(http.MethodPut, fnPath(f.socksFunnel)+"/pp15", f.admin, map[string]any{"active": true, "value_bps": 500, "cap_cents": 2000}).Expect(t, http.StatusOK)
	frZone(t, e, f, [2]int64{f.socksFunnel, 3}, [2]int64{f.mugFunnel, 1})
	route, err := models.CheckoutZoneFor(ctx, e.DB, f.store.ID, "FR")
	if err != nil || route == nil || len(route.Funnels) != 2 {
		t.Fatalf("route: %+v, %v", route, err)
	}

	// Checkouts share the zone's funnels by weight, each the pick of its
	// token, again on a reload; the one to the socks funnel is ours.
	var co map[string]any
	for i := 0; co == nil; i++ {
		if i == 20 {
			t.Fatal("20 checkouts, none picked the funnel of weight 3 in 4")
		}
		c := frCheckout(t, e, f, 2, map[string]any{"tip": map[string]any{"preset": 10}})
		token := c["token"].(string)
		zone, funnel := frCheckoutRoute(t, e, token)
		want := models.PickFunnel(route, token)
		if zone == nil || *zone != route.Zone.ID || funnel == nil || *funnel != want.FunnelID {
			t.Fatalf("checkout %s: zone %v funnel %v, want %d and %d", token, zone, funnel, route.Zone.ID, want.FunnelID)
		}
		e.Storefront(http.MethodGet, "/checkouts/"+token, f.pub, nil, nil).Expect(t, http.StatusOK)
		e.Storefront(http.MethodPut, "/checkouts/"+token, f.pub, map[string]any{"step": "payment"}, nil).Expect(t, http.StatusOK)
		if _, again := frCheckoutRoute(t, e, token); *again != *funnel {
			t.Fatalf("checkout %s: funnel %d, then %d on a reload", token, *funnel, *again)
		}
		if *funnel == f.socksFunnel {
			co = c
		}
	}
	// Two tees (5,000), 5.00 shipping, VAT 20% of the goods (1,000), the
	// funnel's surcharge of 5% (250, not the store's 2.5%) and a 10% tip.
	token := co["token"].(string)
	if co["surcharge_cents"] != float64(250) || co["tip_cents"] != float64(500) || co["tax_cents"] != float64(1000) || co["total_cents"] != float64(7250) {
		t.Fatalf("the checkout: %v", co)
	}

	done := frComplete(t, e, f, co, "card")
	orderID := wholeNumber(t, done.Obj("order")["id"])
	run := done.Obj("upsell")
	offer, _ := run["offer"].(map[string]any)
	if run["status"] != "running" || run["current_position"] != float64(1) || wholeNumber(t, run["funnel_id"]) != f.socksFunnel || offer == nil ||
		offer["name"] != "Step 1" || offer["choose_variant"] != true || len(offer["variants"].([]any)) != 2 {
		t.Fatalf("the completion's upsell: %v", run)
	}
	if v := offer["variants"].([]any)[1].(map[string]any); v["price_cents"] != float64(1200) || v["offer_price_cents"] != float64(960) || v["available"] != true {
		t.Fatalf("the offer's second variant: %v", v)
	}
	got := e.Storefront(http.MethodGet, "/checkouts/"+token+"/upsell", f.pub, nil, nil).Expect(t, http.StatusOK).Obj("upsell")
	if got["status"] != "running" || got["current_position"] != float64(1) || got["order"].(map[string]any)["total_cents"] != float64(7250) {
		t.Fatalf("GET upsell: %v", got)
	}
	awaiting := func() []map[string]any {
		t.Helper()
		return objectsOf(e.Do(http.MethodGet, "/store/orders/awaiting-capture", f.admin, nil).Expect(t, http.StatusOK).Body["awaiting"])
	}
	if rows := awaiting(); len(rows) != 1 || rows[0]["total_cents"] != float64(7250) || rows[0]["amount_cents"] != float64(7250) ||
		rows[0]["has_funnel"] != true || wholeNumber(t, rows[0]["funnel_id"]) != f.socksFunnel || rows[0]["funnel_name"] != "Socks then mug" ||
		rows[0]["current_position"] != float64(1) || rows[0]["offer_count"] != float64(1) || rows[0]["surcharge_cents"] != float64(250) {
		t.Fatalf("awaiting capture while the run runs: %v", rows)
	}

	// Shown, then accepted: the socks need a size; L at 12.00 less 20%.
	frAnswer(e, f, token, "1", "shown", nil).Expect(t, http.StatusOK)
	if r := frAnswer(e, f, token, "1", "accept", nil).Expect(t, http.StatusBadRequest); r.Body["field"] != "variant_id" {
		t.Fatalf("accept without a size: %s", r.Raw)
	}
	if r := frAnswer(e, f, token, "1", "accept", map[string]any{"variant_id": f.mugVariant}).Expect(t, http.StatusBadRequest); r.Body["field"] != "variant_id" {
		t.Fatalf("accept of another product's variant: %s", r.Raw)
	}
	acc := frAnswer(e, f, token, "1", "accept", map[string]any{"variant_id": f.socksVariants[1]}).Expect(t, http.StatusOK)
	// Goods 5,000 + 960 = 5,960; VAT 1,192; surcharge 5% 298; the tip
	// stays the 500 the shopper chose; shipping 500: 8,450.
	totals := acc.Obj("upsell")["order"].(map[string]any)
	if acc.Obj("answer")["status"] != "accepted" || acc.Obj("answer")["changed"] != true || acc.Obj("upsell")["current_position"] != float64(2) ||
		totals["subtotal_cents"] != float64(5960) || totals["tax_cents"] != float64(1192) || totals["surcharge_cents"] != float64(298) ||
		totals["tip_cents"] != float64(500) || totals["shipping_cents"] != float64(500) || totals["total_cents"] != float64(8450) {
		t.Fatalf("accepted: %s", acc.Raw)
	}
	// The same answer again changes nothing; a contradicting one, or one
	// for a position the shopper is not at, is a 409.
	again := frAnswer(e, f, token, "1", "accept", map[string]any{"variant_id": f.socksVariants[1]}).Expect(t, http.StatusOK)
	if again.Obj("answer")["changed"] != false || again.Obj("upsell")["order"].(map[string]any)["total_cents"] != float64(8450) {
		t.Fatalf("accepted again: %s", again.Raw)
	}
	frAnswer(e, f, token, "1", "decline", nil).Expect(t, http.StatusConflict)
	frAnswer(e, f, token, "3", "accept", nil).Expect(t, http.StatusConflict)
	if rows := awaiting(); len(rows) != 1 || rows[0]["total_cents"] != float64(8450) || rows[0]["amount_cents"] != float64(7250) ||
		rows[0]["current_position"] != float64(2) || rows[0]["offer_count"] != float64(2) || rows[0]["surcharge_cents"] != float64(298) {
		t.Fatalf("awaiting capture after the accept: %v", rows)
	}

	// upsell.accepted, signed, names the offer and the order after it.
	w := rcv.next(t)
	verifySignature(t, sub["secret"].(string), w)
	var body struct {
		Topic string `json:"topic"`
		Data  struct {
			Upsell map[string]any `json:"upsell"`
			Order  map[string]any `json:"order"`
		} `json:"data"`
	}
	if err := json.Unmarshal(w.body, &body); err != nil {
		t.Fatal(err)
	}
	if u := body.Data.Upsell; body.Topic != "upsell.accepted" || u["position"] != float64(1) || u["amount_cents"] != float64(960) ||
		u["variant_id"] != float64(f.socksVariants[1]) || u["funnel_name"] != "Socks then mug" || u["order_total_cents"] != float64(8450) ||
		body.Data.Order["total_cents"] != float64(8450) || wholeNumber(t, body.Data.Order["id"]) != orderID {
		t.Fatalf("upsell.accepted: %s", w.body)
	}

	// The mug declined: the funnel ends, the new total is captured.
	end := frAnswer(e, f, token, "2", "decline", nil).Expect(t, http.StatusOK).Obj("upsell")
	if end["status"] != "completed" || end["current_position"] != nil || end["offer"] != nil {
		t.Fatalf("the run's end: %v", end)
	}
	money, status, order := frMoney(t, e, f, orderID)
	if !slices.Equal(money, []string{"authorization:7250", "capture:8450"}) || status != "paid" {
		t.Fatalf("the order's money: %v, %s", money, status)
	}
	if up := order["upsell"].(map[string]any); up["status"] != "completed" || up["funnel_name"] != "Socks then mug" ||
		!slices.Contains(order["system_tags"].([]any), any("upsell")) || len(order["line_items"].([]any)) != 2 {
		t.Fatalf("the order: %v", order)
	}
	if rows := awaiting(); len(rows) != 0 {
		t.Fatalf("awaiting capture after the capture: %v", rows)
	}
	frAnswer(e, f, token, "2", "accept", nil).Expect(t, http.StatusConflict)
	if n := frCount(t, e, `SELECT count(*) FROM funnel_offers WHERE status = 'accepted' AND charged_at IS NOT NULL AND amount_cents = 960 AND quantity = 1
		AND line_item_id IS NOT NULL`); n != 1 {
		t.Fatalf("%d accepted offers charged", n)
	}
	if n := frCount(t, e, `SELECT count(*) FROM events WHERE topic = 'upsell.accepted'`); n != 1 {
		t.Fatalf("%d upsell.accepted events, want 1", n)
	}

	// The rollups hold the order as the raw rows say: once.
	if diffs, err := analytics.CheckOrderRollups(ctx, e.DB, f.store.ID, analytics.AllTime); err != nil || len(diffs) != 0 {
		t.Fatalf("order rollups: %v, %v", diffs, err)
	}
	if diffs, err := analytics.CheckSalesRollups(ctx, e.DB, f.store.ID, analytics.AllTime); err != nil || len(diffs) != 0 {
		t.Fatalf("sales rollups: %v, %v", diffs, err)
	}
	m := e.Do(http.MethodGet, "/store/analytics", f.admin, nil).Expect(t, http.StatusOK).Obj("analytics")["metrics"].(map[string]any)
	if m["order_count"] != float64(1) || m["gross_cents"] != float64(5960) || m["tip_cents"] != float64(500) || m["tax_cents"] != float64(1192) {
		t.Fatalf("overview metrics: %v", m)
	}

	// The graph's Order → funnel run answers what the run time recorded.
	g := e.GraphQL(f.admin, `query($id: Int!) { order(id: $id) { funnel_run { `+frRunFields+` } } }`, map[string]any{"id": orderID})
	fr, _ := g.Data()["order"].(map[string]any)["funnel_run"].(map[string]any)
	if fr == nil || fr["status"] != "completed" || fr["funnel_name"] != "Socks then mug" || fr["surcharge_cents"] != float64(298) {
		t.Fatalf("order → funnel_run: %s", g.Raw)
	}
	if offers := objectsOf(fr["offers"]); len(offers) != 2 || offers[0]["status"] != "accepted" || offers[0]["line_item"].(map[string]any)["source"] != "upsell" ||
		wholeNumber(t, offers[0]["variant_id"]) != f.socksVariants[1] || offers[0]["charged_at"] == nil || offers[1]["status"] != "declined" || offers[1]["shown_at"] == nil {
		t.Fatalf("order → funnel_run's offers: %s", g.Raw)
	}

	// Both upsell reports trace the run: one entered and completed, two
	// offers shown (the decline marks its offer shown), the socks' line.
	up := e.Do(http.MethodGet, "/store/analytics/upsell", f.admin, nil).Expect(t, http.StatusOK).Obj("upsell")
	for k, want := range map[string]float64{"entered": 1, "completed": 1, "offers_shown": 2, "accepted": 1, "declined": 1, "other": 0,
		"take_rate": 0.5, "upsell_lines": 1, "upsell_orders": 1, "upsell_revenue_cents": 960, "surcharge_cents": 298} {
		if up[k] != want {
			t.Fatalf("upsell report %s: %v, want %v (%v)", k, up[k], want, up)
		}
	}
	deep := e.Do(http.MethodGet, "/store/analytics/upsell/report", f.admin, nil).Expect(t, http.StatusOK).Obj("report")
	steps := objectsOf(deep["by_step"])
	if len(steps) != 2 || steps[0]["position"] != float64(1) || steps[0]["accepted"] != float64(1) || steps[0]["charged"] != float64(1) ||
		steps[0]["sales_cents"] != float64(960) || steps[1]["declined"] != float64(1) || steps[1]["shown"] != float64(1) {
		t.Fatalf("upsell deep report's steps: %v", steps)
	}
}

// newFRClock is a server clock the test moves: an hour ahead of the
// machine's, so that the periodic timeout job (on the machine's clock)
// never ends a run of the test before the test does.
func newFRClock() *apitest.Clock {
	return apitest.NewClock(time.Now().UTC().Add(time.Hour).Truncate(time.Second))
}

// TestFunnelRunSecondChargeAndTimeout: a provider kind without
// features.upsell (wallet) cannot capture more than it authorized: the run
// that times out (no answer within the funnel's 600 s after the accept)
// captures the authorization and records a second charge for the accepted
// offer, a successful sale of its own with its timeline entry. The offer
// the shopper was at stays pending (undecided).
func TestFunnelRunSecondChargeAndTimeout(t *testing.T) {
	clock := newFRClock()
	e := apitest.New(t, apitest.WithClock(clock.Now))
	f := frStore(t, e, "Shop")
	frZone(t, e, f, [2]int64{f.socksFunnel, 1})
	ctx := context.Background()

	// Two tees, 5.00 shipping, VAT 1,000: 6,500 authorized.
	co := frCheckout(t, e, f, 2, nil)
	token := co["token"].(string)
	done := frComplete(t, e, f, co, "wallet")
	orderID := wholeNumber(t, done.Obj("order")["id"])
	if done.Obj("order")["total_cents"] != float64(6500) || done.Obj("upsell")["status"] != "running" {
		t.Fatalf("completed: %s", done.Raw)
	}
	// Socks M at 10.00 less 20% (800): goods 5,800, VAT 1,160, 7,460.
	acc := frAnswer(e, f, token, "1", "accept", map[string]any{"variant_id": f.socksVariants[0]}).Expect(t, http.StatusOK).Obj("upsell")
	if acc["order"].(map[string]any)["total_cents"] != float64(7460) || acc["current_position"] != float64(2) {
		t.Fatalf("accepted: %v", acc)
	}
	if n, err := funnelruns.TimeOut(ctx, e.DB, clock.After(599*time.Second)); err != nil || n != 0 {
		t.Fatalf("before the timeout (moved by the accept): %d ended, %v", n, err)
	}
	if n, err := funnelruns.TimeOut(ctx, e.DB, clock.After(600*time.Second)); err != nil || n != 1 {
		t.Fatalf("at the timeout: %d ended, %v", n, err)
	}
	if n, err := funnelruns.TimeOut(ctx, e.DB, clock.After(time.Hour)); err != nil || n != 0 {
		t.Fatalf("after: %d ended, %v", n, err)
	}
	got := e.Storefront(http.MethodGet, "/checkouts/"+token+"/upsell", f.pub, nil, nil).Expect(t, http.StatusOK).Obj("upsell")
	if got["status"] != "timed_out" || got["offer"] != nil || got["ended_at"] == nil {
		t.Fatalf("timed out: %v", got)
	}
	money, status, order := frMoney(t, e, f, orderID)
	if !slices.Equal(money, []string{"authorization:6500", "capture:6500", "sale:960"}) || status != "paid" ||
		order["upsell"].(map[string]any)["status"] != "timed_out" {
		t.Fatalf("the order's money: %v, %s, %v", money, status, order["upsell"])
	}
	if n := frCount(t, e, `SELECT count(*) FROM order_events WHERE order_id = ? AND name = 'paid' AND source = 'system' AND amount_cents = 960`, orderID); n != 1 {
		t.Fatalf("%d timeline entries of the second charge", n)
	}
	if n := frCount(t, e, `SELECT count(*) FROM funnel_offers WHERE (position = 1 AND status = 'accepted' AND charged_at IS NOT NULL)
		OR (position = 2 AND status = 'pending' AND decided_at IS NULL)`); n != 2 {
		t.Fatalf("the offers after the timeout: %d of 2 as expected", n)
	}
	frAnswer(e, f, token, "2", "decline", nil).Expect(t, http.StatusConflict)
}

// TestFunnelRunUnavailableOffers: an offer that cannot be sold when the
// run reaches it is recorded unavailable and the run goes on as on a
// decline; one that stops being sold while shown is recorded unavailable
// when accepted, the answer says why, nothing is added and the run ends
// capturing what was authorized. A run with no offer it can sell
// completes, and captures, as it starts.
func TestFunnelRunUnavailableOffers(t *testing.T) {
	e := apitest.New(t)
	f := frStore(t, e, "Shop")
	two := int64(2)
	funnel := idOf(t, fnCreate(t, e, f.admin, map[string]any{"name": "Mug then socks", "offers": []any{
		fnOffer(1, "cross_sell", map[string]any{"variant_id": f.mugVariant}, nil, two),
		fnOffer(2, "upsell", map[string]any{"variant_id": f.socksVariants[1]}, nil, nil),
	}}))
	frZone(t, e, f, [2]int64{funnel, 1})
	ctx := context.Background()
	if _, err := e.DB.NewRaw(`UPDATE product_variants SET inventory_quantity = 0 WHERE id = ?`, f.mugVariant).Exec(ctx); err != nil {
		t.Fatal(err)
	}
	co := frCheckout(t, e, f, 1, nil)
	token := co["token"].(string)
	done := frComplete(t, e, f, co, "card")
	run := done.Obj("upsell")
	if run["current_position"] != float64(2) || run["offer"].(map[string]any)["name"] != "Step 2" {
		t.Fatalf("the mug out of stock is skipped: %v", run)
	}
	if _, err := e.DB.NewRaw(`UPDATE product_variants SET inventory_quantity = 0 WHERE id = ?`, f.socksVariants[1]).Exec(ctx); err != nil {
		t.Fatal(err)
	}
	acc := frAnswer(e, f, token, "2", "accept", nil).Expect(t, http.StatusOK)
	if a := acc.Obj("answer"); a["status"] != "unavailable" || a["unavailable_reason"] != models.OfferOutOfStock || acc.Obj("upsell")["status"] != "completed" {
		t.Fatalf("accepting what sold out: %s", acc.Raw)
	}
	frAnswer(e, f, token, "2", "accept", nil).Expect(t, http.StatusOK) // the same answer again
	orderID := wholeNumber(t, done.Obj("order")["id"])
	money, status, order := frMoney(t, e, f, orderID)
	if !slices.Equal(money, []string{"authorization:3500", "capture:3500"}) || status != "paid" || len(order["line_items"].([]any)) != 1 {
		t.Fatalf("the order: %v, %s, %v", money, status, order["line_items"])
	}
	if n := frCount(t, e, `SELECT count(*) FROM funnel_offers WHERE status = 'unavailable' AND decided_at IS NOT NULL AND line_item_id IS NULL`); n != 2 {
		t.Fatalf("%d offers recorded unavailable, want 2", n)
	}

	// With every offer sold out, the run completes as it starts, and
	// captures at once.
	next := frComplete(t, e, f, frCheckout(t, e, f, 1, nil), "card")
	if run := next.Obj("upsell"); run["status"] != "completed" || run["offer"] != nil || run["ended_at"] == nil {
		t.Fatalf("a run with nothing to offer: %v", run)
	}
	money, status, _ = frMoney(t, e, f, wholeNumber(t, next.Obj("order")["id"]))
	if !slices.Equal(money, []string{"authorization:3500", "capture:3500"}) || status != "paid" {
		t.Fatalf("the order of a run with nothing to offer: %v, %s", money, status)
	}
}

// TestFunnelRunRefusals: no key 401; another store's checkout token, an
// unknown one, or a checkout with no run (paid by a sale, which starts
// none) 404; a bad position, an unknown field or a bad variant 400; an
// order cancelled while its run runs ends the run (cancelled, on the order
// too), which then takes no answer (409).
func TestFunnelRunRefusals(t *testing.T) {
	e := apitest.New(t)
	f := frStore(t, e, "Shop")
	frZone(t, e, f, [2]int64{f.mugFunnel, 1})
	other := frStore(t, e, "Other")

	co := frCheckout(t, e, f, 1, nil)
	token := co["token"].(string)
	done := frComplete(t, e, f, co, "card")
	orderID := wholeNumber(t, done.Obj("order")["id"])
	path := "/checkouts/" + token + "/upsell"
	for _, c := range []struct{ method, path string }{{http.MethodGet, path}, {http.MethodPost, path + "/1/accept"}, {http.MethodPost, path + "/1/shown"}} {
		e.Storefront(c.method, c.path, "", nil, nil).Expect(t, http.StatusUnauthorized)
		e.Storefront(c.method, c.path, other.pub, nil, nil).Expect(t, http.StatusNotFound)
		e.Storefront(c.method, "/checkouts/"+strings.Repeat("ab", 16)+"/upsell"+strings.TrimPrefix(c.path, path), f.pub, nil, nil).Expect(t, http.StatusNotFound)
	}
	sale := frCheckout(t, e, f, 1, nil)
	e.Storefront(http.MethodPost, "/checkouts/"+sale["token"].(string)+"/payment-attempts", f.pub, map[string]any{"provider": "card",
		"amount_cents": sale["total_cents"], "currency": sale["currency"], "status": "success"}, nil).Expect(t, http.StatusCreated)
	if r := e.Storefront(http.MethodPost, "/checkouts/"+sale["token"].(string)+"/complete", f.pub, nil, nil).Expect(t, http.StatusCreated); r.Body["upsell"] != nil {
		t.Fatalf("a sale starts no run: %s", r.Raw)
	}
	e.Storefront(http.MethodGet, "/checkouts/"+sale["token"].(string)+"/upsell", f.pub, nil, nil).Expect(t, http.StatusNotFound)

	for name, c := range map[string]struct {
		position, verb string
		body           any
		field          string
	}{
		"a position that is no number": {"one", "accept", nil, ""},
		"position 0":                   {"0", "shown", nil, ""},
		"an unknown field":             {"1", "accept", map[string]any{"price_cents": 1}, ""},
		"a body on decline":            {"1", "decline", map[string]any{"variant_id": 1}, ""},
		"variant_id 0":                 {"1", "accept", map[string]any{"variant_id": 0}, "variant_id"},
		"another product's variant":    {"1", "accept", map[string]any{"variant_id": f.variantID}, "variant_id"},
	} {
		r := frAnswer(e, f, token, c.position, c.verb, c.body).Expect(t, http.StatusBadRequest)
		if r.Body["field"] != nil && r.Body["field"] != c.field || c.field != "" && r.Body["field"] != c.field {
			t.Errorf("%s: %s, want field %q", name, r.Raw, c.field)
		}
	}
	frAnswer(e, f, token, "2", "shown", nil).Expect(t, http.StatusConflict)

	e.Do(http.MethodPost, orderPath(orderID, "/cancel"), f.admin, map[string]any{"reason": "customer"}).Expect(t, http.StatusOK)
	got := e.Storefront(http.MethodGet, path, f.pub, nil, nil).Expect(t, http.StatusOK).Obj("upsell")
	if got["status"] != "cancelled" || got["offer"] != nil {
		t.Fatalf("the run of a cancelled order: %v", got)
	}
	r := frAnswer(e, f, token, "1", "accept", nil).Expect(t, http.StatusConflict)
	if !strings.Contains(r.Message(), "ended (cancelled)") {
		t.Fatalf("answering a cancelled run: %s", r.Raw)
	}
	money, status, order := frMoney(t, e, f, orderID)
	if !slices.Equal(money, []string{"authorization:3500", "void:3500"}) || status != "voided" || order["upsell"].(map[string]any)["status"] != "cancelled" {
		t.Fatalf("the cancelled order: %v, %s, %v", money, status, order["upsell"])
	}
}

// TestFunnelRunStatements: reading a run costs the same statements
// whether the offered product has 2 variants or 8, and accepting its offer
// (which adds a line, prices the order again and captures) the same for an
// order of 1 line or 3.
func TestFunnelRunStatements(t *testing.T) {
	e := apitest.New(t)
	f := frStore(t, e, "Shop")
	variants := make([]any, 8)
	for i := range variants {
		variants[i] = map[string]any{"sku": fmt.Sprintf("CAP-%d", i), "option1": fmt.Sprintf("S%d", i), "price_cents": 900 + 100*i, "inventory_quantity": 50}
	}
	caps := e.Do(http.MethodPost, "/store/products", f.admin, map[string]any{"title": "Cap", "status": "active",
		"options": []any{map[string]any{"name": "Size"}}, "variants": variants}).Expect(t, http.StatusCreated).Obj("product")
	capVariant := wholeNumber(t, caps["variants"].([]any)[7].(map[string]any)["id"])
	capFunnel := idOf(t, fnCreate(t, e, f.admin, map[string]any{"name": "Caps", "offers": []any{
		fnOffer(1, "upsell", map[string]any{"product_id": wholeNumber(t, caps["id"])}, nil, nil),
	}}))
	count := countStatements(e)
	var reads, accepts []int64
	for _, c := range []struct {
		funnel, variant int64
		lines           []any
	}{
		{f.socksFunnel, f.socksVariants[0], []any{map[string]any{"variant_id": f.variantID, "quantity": 1}}},
		{capFunnel, capVariant, []any{map[string]any{"variant_id": f.variantID, "quantity": 1}}},
		{capFunnel, capVariant, []any{map[string]any{"variant_id": f.variantID, "quantity": 1, "properties": map[string]any{"n": "a"}},
			map[string]any{"variant_id": f.variantID, "quantity": 1, "properties": map[string]any{"n": "b"}},
			map[string]any{"variant_id": f.mugVariant, "quantity": 2}}},
	} {
		if _, err := e.DB.NewRaw(`DELETE FROM checkout_zones WHERE store_id = ?`, f.store.ID).Exec(context.Background()); err != nil {
			t.Fatal(err)
		}
		frZone(t, e, f, [2]int64{c.funnel, 1})
		co := frCheckout(t, e, f, 1, map[string]any{"lines": c.lines})
		token := co["token"].(string)
		frComplete(t, e, f, co, "card")
		reads = append(reads, count(func() {
			e.Storefront(http.MethodGet, "/checkouts/"+token+"/upsell", f.pub, nil, nil).Expect(t, http.StatusOK)
		}))
		accepts = append(accepts, count(func() {
			frAnswer(e, f, token, "1", "accept", map[string]any{"variant_id": c.variant}).Expect(t, http.StatusOK)
		}))
	}
	t.Logf("statements for 2, 8 and 8 variants (1, 1 and 3 lines): reads %v, accepts %v", reads, accepts)
	if reads[0] != reads[1] || reads[1] != reads[2] {
		t.Fatalf("statements of a read for 2 and 8 variants: %v", reads)
	}
	if accepts[1] != accepts[2] {
		t.Fatalf("statements of an accept for 1 and 3 lines: %v", accepts)
	}
}

// TestFunnelRunKeepsTheOrdersDiscounts: an accept prices the order with
// the discounts as they stood when it was paid, so a code that ended
// since still takes its share off the goods bought at checkout (and off
// the offer's line with them), and accepting never raises what the
// shopper was charged for those.
func TestFunnelRunKeepsTheOrdersDiscounts(t *testing.T) {
	clock := newFRClock()
	e := apitest.New(t, apitest.WithClock(clock.Now))
	f := frStore(t, e, "Shop")
	frZone(t, e, f, [2]int64{f.socksFunnel, 1})
	e.Do(http.MethodPost, "/store/discounts", f.admin, map[string]any{"code": "TEN", "type": "percentage", "value": 10,
		"ends_at": clock.After(time.Minute).Format(time.RFC3339)}).Expect(t, http.StatusCreated)

	// Two tees (5,000) less 10% (500), 5.00 shipping, VAT 900: 5,900.
	co := frCheckout(t, e, f, 2, map[string]any{"discount_code": "TEN"})
	done := frComplete(t, e, f, co, "card")
	if co["discount_cents"] != float64(500) || done.Obj("order")["total_cents"] != float64(5900) {
		t.Fatalf("checkout %v, completed %s", co, done.Raw)
	}
	// The code ends; an hour later the shopper accepts socks M (800).
	clock.Set(clock.After(time.Hour))
	acc := frAnswer(e, f, co["token"].(string), "1", "accept", map[string]any{"variant_id": f.socksVariants[0]}).Expect(t, http.StatusOK)
	// Goods 5,800 less 10% (580): 5,220; VAT 1,044; shipping 500: 6,764.
	if o := acc.Obj("upsell")["order"].(map[string]any); o["discount_cents"] != float64(580) || o["total_cents"] != float64(6764) {
		t.Fatalf("accepted after the code ended: %v", o)
	}
}
