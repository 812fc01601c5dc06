package apitest_test

import (
	"context"
	"net/http"
	"strconv"
	"testing"

	"storeadmin/internal/app/apitest"
	"storeadmin/internal/auth"
	"storeadmin/models"
)

// TestExperimentMoneySwitchOff: a running price test and a running
// shipping test charge their arms; the same database served with the
// platform's switch off (serve --money-experiments=false) charges the
// catalogue's prices in the cart, the rates, the checkout (one begun at
// the arms' prices included) and the order, and GET /experiments leaves
// both tests out, previewed or not. The tests stay running: served with
// the switch on again, they charge their arms.
func TestExperimentMoneySwitchOff(t *testing.T) {
	e := apitest.New(t)
	ds := scStore(t, e, "Acme")
	sid := ds.store.ID
	pub, admin := e.PublishableKey(sid), e.Key(sid, auth.RoleAdmin)
	ctx := context.Background()
	var productID int64
	if err := e.DB.NewRaw("SELECT product_id FROM product_variants WHERE id = ?", ds.variantID).Scan(ctx, &productID); err != nil {
		t.Fatal(err)
	}
	e.Do(http.MethodPut, "/store/experiments/money-opt-in", admin, map[string]any{"enabled": true}).Expect(t, 200)
	price := createExperiment(t, e, admin, experimentBody("Tee price", models.ExperimentKindPrice,
		map[string]any{"product_ids": []int64{productID}}, map[string]any{"price_change_pct": -20}))
	ship := createExperiment(t, e, admin, experimentBody("Ship price", models.ExperimentKindShipping,
		map[string]any{"shipping_rate_id": ds.standardID}, map[string]any{"price_cents": 199}))
	for _, x := range []map[string]any{price, ship} {
		experimentAction(t, e, admin, idOf(t, x), "start", nil, 200)
	}
	priceKey, shipKey := price["key"].(string), ship["key"].(string)

	// A visitor in arm b of both tests.
	anon := ""
	for i := 0; anon == ""; i++ {
		v := "buyer-" + strconv.Itoa(i)
		arms := []models.ExperimentVariant{{Position: 1, SplitPct: 50}, {Position: 2, SplitPct: 50}}
		if models.AssignVariant(priceKey, v, arms).Position == 2 && models.AssignVariant(shipKey, v, arms).Position == 2 {
			anon = v
		}
	}
	scVisit(t, e, sid, anon, "cs-"+anon)
	cart := func(env *apitest.Env) map[string]any {
		t.Helper()
		return env.Storefront(http.MethodPost, "/carts", pub, map[string]any{"visitor_id": anon,
			"lines": []any{map[string]any{"variant_id": ds.variantID, "quantity": 2}}}, nil).Expect(t, http.StatusCreated).Obj("cart")
	}
	standardAt := func(env *apitest.Env, path string) int64 {
		t.Helper()
		for _, r := range env.Storefront(http.MethodGet, path+"/shipping-rates", pub, nil, nil).Expect(t, http.StatusOK).List("shipping_rates") {
			if r := r.(map[string]any); wholeNumber(t, r["id"]) == ds.standardID {
				return wholeNumber(t, r["price_cents"])
			}
		}
		t.Fatalf("no Standard rate at %s", path)
		return 0
	}

	// Switch on: the arms are shown and charged, to a checkout begun here.
	if views := xsArms(t, e, pub, anon); views[priceKey] == nil || views[shipKey] == nil {
		t.Fatalf("the running money tests with the switch on: %v", views)
	}
	onCart := cart(e)
	if got := wholeNumber(t, onCart["subtotal_cents"]); got != 2*2000 {
		t.Fatalf("the cart at arm b: %d, want 2 × 20.00", got)
	}
	co := e.Storefront(http.MethodPost, "/checkouts", pub, map[string]any{"cart_token": onCart["token"], "email": anon + "@example.com",
		"shipping_address": map[string]any{"first_name": "Ana", "address1": "1 rue de Rivoli", "city": "Paris", "zip": "75001", "country_code": "fr"},
	}, nil).Expect(t, http.StatusCreated).Obj("checkout")
	path := "/checkouts/" + co["token"].(string)
	if got, rate := wholeNumber(t, co["subtotal_cents"]), standardAt(e, path); got != 2*2000 || rate != 199 {
		t.Fatalf("the checkout at arm b: subtotal %d, Standard at %d", got, rate)
	}

	// Switch off, on the same database: nothing shows or charges an arm.
	off := apitest.New(t, apitest.WithDatabase(e.DB), apitest.WithPlatform(models.Platform{MoneyExperimentsOff: true}))
	if views := xsArms(t, off, pub, anon); len(views) != 0 {
		t.Fatalf("money tests listed with the switch off: %v", views)
	}
	token := off.Do(http.MethodPost, xsPreviewPath(idOf(t, price)), admin, map[string]any{"position": 2}).Expect(t, http.StatusOK).Body["token"].(string)
	if views := xsArms(t, off, pub, anon, "preview", token); len(views) != 0 {
		t.Fatalf("a previewed price arm listed with the switch off: %v", views)
	}
	if got := wholeNumber(t, cart(off)["subtotal_cents"]); got != 2*2500 {
		t.Fatalf("the cart with the switch off: %d, want the catalogue's 2 × 25.00", got)
	}
	if rate := standardAt(off, path); rate != 500 {
		t.Fatalf("Standard with the switch off: %d, want the rate's own 5.00", rate)
	}
	co = off.Storefront(http.MethodPut, path, pub, map[string]any{"shipping_rate_id": ds.standardID}, nil).Expect(t, http.StatusOK).Obj("checkout")
	if got, shipping := wholeNumber(t, co["subtotal_cents"]), wholeNumber(t, co["shipping_cents"]); got != 2*2500 || shipping != 500 {
		t.Fatalf("the checkout repriced with the switch off: subtotal %d, shipping %d", got, shipping)
	}
	scPay(t, off, pub, co, models.AttemptSuccess, wholeNumber(t, co["total_cents"])).Expect(t, http.StatusCreated)
	order := off.Storefront(http.MethodPost, path+"/complete", pub, nil, nil).Expect(t, http.StatusCreated).Obj("order")
	var line, shipping int64
	if err := e.DB.NewRaw(`SELECT li.price_cents, o.shipping_cents FROM order_line_items li JOIN orders o ON o.id = li.order_id
		WHERE o.id = ?`, wholeNumber(t, order["id"])).Scan(ctx, &line, &shipping); err != nil {
		t.Fatal(err)
	}
	if line != 2500 || shipping != 500 {
		t.Fatalf("the order with the switch off: line %d, shipping %d", line, shipping)
	}

	// The tests still run: the switch on again charges their arms.
	for _, x := range []map[string]any{price, ship} {
		if got, _ := getExperiment(t, off, admin, idOf(t, x)); got["status"] != models.ExperimentRunning {
			t.Fatalf("%s after the switch went off: %v", x["name"], got["status"])
		}
	}
	if got := wholeNumber(t, cart(e)["subtotal_cents"]); got != 2*2000 {
		t.Fatalf("the cart with the switch on again: %d", got)
	}
}

// TestExperimentShippingRateHeld: a shipping test holds its rate while it
// runs or is paused, as a price test holds its products: a second start
// on the rate is a 409 naming the rate and the test holding it, nothing
// changed; of two starts at once one wins; ending the holder frees the
// rate; a test of another rate starts beside it.
func TestExperimentShippingRateHeld(t *testing.T) {
	e := apitest.New(t)
	f := newExperimentFixture(t, e, "Acme")
	admin, ctx := f.admin, context.Background()
	e.Do(http.MethodPut, "/store/experiments/money-opt-in", admin, map[string]any{"enabled": true}).Expect(t, 200)
	shipBody := func(name string, rate, cents int64) map[string]any {
		return experimentBody(name, models.ExperimentKindShipping, map[string]any{"shipping_rate_id": rate}, map[string]any{"price_cents": cents})
	}
	first := idOf(t, createExperiment(t, e, admin, shipBody("Ship one", f.rate, 0)))
	second := idOf(t, createExperiment(t, e, admin, shipBody("Ship two", f.rate, 250)))
	third := idOf(t, createExperiment(t, e, admin, shipBody("Ship three", f.rate, 350)))
	var otherRate int64
	if err := e.DB.NewRaw(`INSERT INTO shipping_rates (store_id, zone_id, name, price_cents)
		SELECT store_id, zone_id, 'Express', 900 FROM shipping_rates WHERE id = ? RETURNING id`, f.rate).Scan(ctx, &otherRate); err != nil {
		t.Fatal(err)
	}
	express := idOf(t, createExperiment(t, e, admin, shipBody("Express", otherRate, 500)))

	rate, firstID := strconv.FormatInt(f.rate, 10), strconv.FormatInt(first, 10)
	experimentAction(t, e, admin, first, "start", nil, 200)
	if r := experimentAction(t, e, admin, second, "start", nil, 409); r.Message() !=
		"shipping rate "+rate+" is already in another running or paused shipping test, Ship one (id "+firstID+", running): end that test first" {
		t.Fatalf("a second start on the rate: %s", r.Raw)
	}
	if x, _ := getExperiment(t, e, admin, second); x["status"] != models.ExperimentDraft || x["started_at"] != nil {
		t.Fatalf("after a refused start: %v", x)
	}
	experimentAction(t, e, admin, express, "start", nil, 200) // another rate
	experimentAction(t, e, admin, first, "pause", nil, 200)
	if r := experimentAction(t, e, admin, second, "start", nil, 409); r.Message() !=
		"shipping rate "+rate+" is already in another running or paused shipping test, Ship one (id "+firstID+", paused): end that test first" {
		t.Fatalf("a start on a rate a paused test holds: %s", r.Raw)
	}
	experimentAction(t, e, admin, first, "end", nil, 200)

	// Freed: two drafts on it start at once, one wins.
	startOneOf(t, e, admin, second, third)
	var running int
	if err := e.DB.NewRaw(`SELECT count(*) FROM experiments WHERE store_id = ? AND kind = 'shipping' AND status = 'running'
		AND surface ->> 'shipping_rate_id' = ?`, f.store.ID, rate).Scan(ctx, &running); err != nil || running != 1 {
		t.Fatalf("%d running shipping tests on the rate, %v", running, err)
	}
}
