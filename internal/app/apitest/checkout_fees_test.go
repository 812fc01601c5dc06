package apitest_test

import (
	"context"
	"fmt"
	"net/http"
	"reflect"
	"strings"
	"testing"

	"storeadmin/internal/app/apitest"
	"storeadmin/internal/auth"
	"storeadmin/models"
)

// The handling surcharge (pp15) and tipping: the store's configs, what the
// platform allows, a funnel's overrides, and both on a storefront checkout
// through to the order, awaiting capture and the analytics overview.
// Helpers of this file start with fees.

// feesPP15Spec and feesTippingSpec are the JSON types of the records.
var (
	feesPP15Spec     = map[string]string{"active": "b", "value_bps": "i", "cap_cents": "i"}
	feesPlatformSpec = map[string]string{"pp15_enabled": "b", "post_upsell_enabled": "b"}
	feesTippingSpec  = map[string]string{"enabled": "b", "mode": "s?", "label": "s?", "description": "s?", "presets": "i[]",
		"default_preset": "i?", "allow_custom": "b", "max_percent": "i?"}
)

// feesPP15 reads GET /store/pp15, checking its shape.
func feesPP15(t *testing.T, e *apitest.Env, key string) (config, platform map[string]any, r *apitest.Response) {
	t.Helper()
	r = e.Do(http.MethodGet, "/store/pp15", key, nil).Expect(t, http.StatusOK)
	expectPayload(t, r, "config", "platform")
	return checkObject(t, "config", r.Body["config"], feesPP15Spec), checkObject(t, "platform", r.Body["platform"], feesPlatformSpec), r
}

// feesTipping reads the tipping of an answer, checking its shape.
func feesTipping(t *testing.T, r *apitest.Response) map[string]any {
	t.Helper()
	expectPayload(t, r, "tipping")
	return checkObject(t, "tipping", r.Body["tipping"], feesTippingSpec)
}

// feesFunnel makes an upsell funnel of the store (the funnels' API is
// another area's) and answers its id.
func feesFunnel(t *testing.T, e *apitest.Env, storeID int64, name string) int64 {
	t.Helper()
	var id int64
	if err := e.DB.NewRaw(`INSERT INTO upsell_funnels (store_id, name, timeout_seconds) VALUES (?, ?, 600) RETURNING id`,
		storeID, name).Scan(context.Background(), &id); err != nil {
		t.Fatal(err)
	}
	return id
}

// feesProvider adds a payment provider of kind to the store, enabled or
// not.
func feesProvider(t *testing.T, e *apitest.Env, storeID int64, kind string, enabled bool) {
	t.Helper()
	ctx := context.Background()
	p := &models.PaymentProvider{StoreID: storeID, Provider: kind, DisplayName: kind, Mode: models.PaymentModeTest}
	if err := models.InsertPaymentProvider(ctx, e.DB, p); err != nil {
		t.Fatal(err)
	}
	if err := models.SetPaymentProviderEnabled(ctx, e.DB, storeID, p.ID, enabled); err != nil {
		t.Fatal(err)
	}
}

// TestPP15Settings: the default surcharge (off) and the platform's
// switches, post_upsell_enabled true only with an enabled provider of a
// kind that charges upsells; PUT stores the config whole and answers the
// bare envelope; out-of-range values are 400s naming the field; REST =
// GraphQL; scope checkout, writes for admins.
func TestPP15Settings(t *testing.T) {
	e, s, key := newAcme(t)
	config, platform, r := feesPP15(t, e, key)
	if !reflect.DeepEqual(config, map[string]any{"active": false, "value_bps": float64(0), "cap_cents": float64(0)}) ||
		!reflect.DeepEqual(platform, map[string]any{"pp15_enabled": true, "post_upsell_enabled": false}) {
		t.Fatalf("defaults: %s", r.Raw)
	}
	e.SameOnGraphQL(t, r, key, "GetPP15", nil)

	// Post-purchase upsells need an enabled provider that can charge them:
	// manual payments cannot, a disabled card provider does not.
	feesProvider(t, e, s.ID, models.PaymentManual, true)
	feesProvider(t, e, s.ID, models.PaymentCard, false)
	if _, platform, _ := feesPP15(t, e, key); platform["post_upsell_enabled"] != false {
		t.Fatalf("without an enabled card provider: %v", platform)
	}
	if _, err := e.DB.NewRaw(`UPDATE payment_providers SET enabled = true WHERE store_id = ?`, s.ID).Exec(context.Background()); err != nil {
		t.Fatal(err)
	}
	if _, platform, _ := feesPP15(t, e, key); platform["post_upsell_enabled"] != true {
		t.Fatalf("with an enabled card provider: %v", platform)
	}

	put := e.Do(http.MethodPut, "/store/pp15", key, map[string]any{"active": true, "value_bps": 250, "cap_cents": 1500}).Expect(t, http.StatusOK)
	if string(put.Raw) != `{"status":true}` {
		t.Fatalf("PUT answered %s", put.Raw)
	}
	expectAuditRecord(t, e, key, "action=updatePP15&limit=1", "checkout_settings", s.ID)
	want := map[string]any{"active": true, "value_bps": float64(250), "cap_cents": float64(1500)}
	config, _, r = feesPP15(t, e, key)
	if !reflect.DeepEqual(config, want) {
		t.Fatalf("after PUT: %v", config)
	}
	e.SameOnGraphQL(t, r, key, "GetPP15", nil)
	if g := e.GraphQL(key, `mutation { updatePP15(input: {active: true, value_bps: 10000, cap_cents: 0}) }`, nil); g.Body["errors"] != nil {
		t.Fatalf("GraphQL PUT: %s", g.Raw)
	}
	e.Do(http.MethodPut, "/store/pp15", key, want).Expect(t, http.StatusOK) // the bounds are inclusive

	for name, c := range map[string]struct {
		body  map[string]any
		field string
	}{
		"bps negative":  {map[string]any{"active": true, "value_bps": -1, "cap_cents": 100}, "value_bps"},
		"bps over 100%": {map[string]any{"active": true, "value_bps": 10001, "cap_cents": 100}, "value_bps"},
		"cap negative":  {map[string]any{"active": true, "value_bps": 100, "cap_cents": -1}, "cap_cents"},
		"cap too large": {map[string]any{"active": true, "value_bps": 100, "cap_cents": models.MaxSurchargeCapCents + 1}, "cap_cents"},
		"cap left out":  {map[string]any{"active": true, "value_bps": 100}, "cap_cents"},
		"bps a string":  {map[string]any{"active": true, "value_bps": "1%", "cap_cents": 100}, "value_bps"},
		"unknown field": {map[string]any{"active": true, "value_bps": 100, "cap_cents": 100, "currency": "EUR"}, "currency"},
	} {
		r := e.Do(http.MethodPut, "/store/pp15", key, c.body).Expect(t, http.StatusBadRequest)
		if !strings.HasPrefix(r.Message(), c.field+" ") || r.Body["field"] != c.field {
			t.Errorf("%s: %s, want a message and a field naming %s", name, r.Raw, c.field)
		}
	}
	expectGraphQLCode(t, e, key, "BAD_USER_INPUT", nil, `mutation { updatePP15(input: {active: true, value_bps: 20000, cap_cents: 0}) }`)
	if config, _, _ := feesPP15(t, e, key); !reflect.DeepEqual(config, want) {
		t.Fatalf("a refused PUT changed the config: %v", config)
	}

	checkAccess(t, e, s.ID, "checkout", map[string]string{"other scope": e.Key(s.ID, auth.RoleAdmin, "orders:write", "store:write")},
		[]apitest.Call{{Method: http.MethodGet, Path: "/store/pp15"}},
		[]apitest.Call{{Method: http.MethodPut, Path: "/store/pp15", Body: map[string]any{"active": false, "value_bps": 0, "cap_cents": 0}}})
	// Another store's is its own.
	other := e.Store("Bolt")
	if config, platform, _ := feesPP15(t, e, e.Key(other.ID, auth.RoleAdmin)); config["active"] != false || platform["post_upsell_enabled"] != false {
		t.Fatalf("another store's: %v %v", config, platform)
	}
}

// TestTippingSettings: the default tipping (off); PUT stores it whole and
// answers it tidied; every bad value is a 400 naming its field and stores
// nothing; REST = GraphQL; scope checkout.
func TestTippingSettings(t *testing.T) {
	e, s, key := newAcme(t)
	r := e.Do(http.MethodGet, "/store/tipping", key, nil).Expect(t, http.StatusOK)
	def := map[string]any{"enabled": false, "mode": nil, "label": nil, "description": nil, "presets": []any{},
		"default_preset": nil, "allow_custom": false, "max_percent": nil}
	if got := feesTipping(t, r); !reflect.DeepEqual(got, def) {
		t.Fatalf("default: %v", got)
	}
	e.SameOnGraphQL(t, r, key, "GetTipping", nil)

	body := map[string]any{"enabled": true, "mode": "percentage", "label": "  Thank the team  ", "description": "",
		"presets": []int{10, 15, 20}, "default_preset": 15, "allow_custom": true, "max_percent": 25}
	r = e.Do(http.MethodPut, "/store/tipping", key, body).Expect(t, http.StatusOK)
	want := map[string]any{"enabled": true, "mode": "percentage", "label": "Thank the team", "description": nil,
		"presets": []any{float64(10), float64(15), float64(20)}, "default_preset": float64(15), "allow_custom": true, "max_percent": float64(25)}
	if got := feesTipping(t, r); !reflect.DeepEqual(got, want) {
		t.Fatalf("PUT answered %v", got)
	}
	expectAuditRecord(t, e, key, "action=updateTipping&limit=1", "checkout_settings", s.ID)
	r = e.Do(http.MethodGet, "/store/tipping", key, nil).Expect(t, http.StatusOK)
	if got := feesTipping(t, r); !reflect.DeepEqual(got, want) {
		t.Fatalf("GET after PUT: %v", got)
	}
	e.SameOnGraphQL(t, e.Do(http.MethodPut, "/store/tipping", key, body).Expect(t, http.StatusOK), key, "UpdateTipping",
		map[string]any{"input": body})
	// The surcharge and tipping share a row: writing one keeps the other.
	e.Do(http.MethodPut, "/store/pp15", key, map[string]any{"active": true, "value_bps": 100, "cap_cents": 100}).Expect(t, http.StatusOK)
	if got := feesTipping(t, e.Do(http.MethodGet, "/store/tipping", key, nil).Expect(t, http.StatusOK)); !reflect.DeepEqual(got, want) {
		t.Fatalf("tipping after a PUT of pp15: %v", got)
	}
	// Amounts, and tipping switched off keeping its design.
	amounts := map[string]any{"enabled": false, "mode": "amount", "presets": []int{100, 250, 500, 1000, 2500}, "allow_custom": false}
	if got := feesTipping(t, e.Do(http.MethodPut, "/store/tipping", key, amounts).Expect(t, http.StatusOK)); got["presets"].([]any)[4] != float64(2500) || got["max_percent"] != nil {
		t.Fatalf("amounts: %v", got)
	}
	e.Do(http.MethodPut, "/store/tipping", key, map[string]any{"enabled": false, "presets": []int{}, "allow_custom": false}).Expect(t, http.StatusOK)

	with := func(change map[string]any) map[string]any {
		m := map[string]any{}
		for k, v := range body {
			m[k] = v
		}
		for k, v := range change {
			if v == nil {
				delete(m, k)
			} else {
				m[k] = v
			}
		}
		return m
	}
	for name, c := range map[string]struct {
		body  map[string]any
		field string
	}{
		"unknown mode":             {with(map[string]any{"mode": "round_up"}), "mode"},
		"no mode when enabled":     {with(map[string]any{"mode": nil}), "mode"},
		"no presets when enabled":  {with(map[string]any{"presets": []int{}, "default_preset": nil}), "presets"},
		"six presets":              {with(map[string]any{"presets": []int{1, 2, 3, 4, 5, 6}, "default_preset": nil}), "presets"},
		"a percent of 0":           {with(map[string]any{"presets": []int{0, 10}, "default_preset": nil}), "presets[0]"},
		"a percent over 100":       {with(map[string]any{"presets": []int{10, 101}, "default_preset": nil}), "presets[1]"},
		"an amount of 0":           {with(map[string]any{"mode": "amount", "presets": []int{0}, "default_preset": nil}), "presets[0]"},
		"an amount too large":      {with(map[string]any{"mode": "amount", "presets": []int{models.MaxTipCents + 1}, "default_preset": nil}), "presets[0]"},
		"presets not increasing":   {with(map[string]any{"presets": []int{10, 20, 20}, "default_preset": nil}), "presets[2]"},
		"presets decreasing":       {with(map[string]any{"presets": []int{20, 10}, "default_preset": nil}), "presets[1]"},
		"default not a preset":     {with(map[string]any{"default_preset": 12}), "default_preset"},
		"custom without a maximum": {with(map[string]any{"max_percent": nil}), "max_percent"},
		"max percent 0":            {with(map[string]any{"max_percent": 0}), "max_percent"},
		"max percent over 100":     {with(map[string]any{"max_percent": 101}), "max_percent"},
		"label too long":           {with(map[string]any{"label": strings.Repeat("t", models.MaxTipLabel+1)}), "label"},
		"description too long":     {with(map[string]any{"description": strings.Repeat("d", models.MaxTipDescription+1)}), "description"},
		"presets left out":         {with(map[string]any{"presets": nil}), "presets"},
		"a preset not a number":    {with(map[string]any{"presets": []any{"ten"}}), "presets[0]"},
	} {
		r := e.Do(http.MethodPut, "/store/tipping", key, c.body).Expect(t, http.StatusBadRequest)
		if !strings.HasPrefix(r.Message(), c.field+" ") {
			t.Errorf("%s: %s, want a message naming %s", name, r.Raw, c.field)
		}
	}
	expectGraphQLCode(t, e, key, "BAD_USER_INPUT", nil,
		`mutation { updateTipping(input: {enabled: true, mode: "percentage", presets: [20, 10], allow_custom: false}) { enabled } }`)
	if got := feesTipping(t, e.Do(http.MethodGet, "/store/tipping", key, nil).Expect(t, http.StatusOK)); got["enabled"] != false || len(got["presets"].([]any)) != 0 {
		t.Fatalf("a refused PUT changed the tipping: %v", got)
	}

	checkAccess(t, e, s.ID, "checkout", map[string]string{"other scope": e.Key(s.ID, auth.RoleAdmin, "orders:write", "store:write")},
		[]apitest.Call{{Method: http.MethodGet, Path: "/store/tipping"}},
		[]apitest.Call{{Method: http.MethodPut, Path: "/store/tipping", Body: map[string]any{"enabled": false, "presets": []int{}, "allow_custom": false}}})
}

// TestFunnelFeeOverrides: a funnel's surcharge and tipping override the
// store's (models.EffectiveFees), null (the JSON body null, or GraphQL's)
// inherits the store's again; another store's funnel is a 404 and writes
// nothing; bad bodies are 400s; scope checkout, writes for admins.
func TestFunnelFeeOverrides(t *testing.T) {
	e, s, key := newAcme(t)
	ctx := context.Background()
	funnel, plain := feesFunnel(t, e, s.ID, "Summer"), feesFunnel(t, e, s.ID, "Plain")
	other := e.Store("Bolt")
	theirs := feesFunnel(t, e, other.ID, "Theirs")
	fees := func(funnelID *int64) (models.PP15Config, models.TippingConfig) {
		t.Helper()
		p, tp, err := models.EffectiveFees(ctx, e.DB, s.ID, funnelID)
		if err != nil {
			t.Fatal(err)
		}
		return p, tp
	}
	// Nothing set anywhere: the defaults.
	if p, tp := fees(&funnel); p != models.DefaultPP15() || !reflect.DeepEqual(tp, models.DefaultTipping()) {
		t.Fatalf("defaults: %+v %+v", p, tp)
	}
	store := map[string]any{"active": true, "value_bps": 200, "cap_cents": 500}
	e.Do(http.MethodPut, "/store/pp15", key, store).Expect(t, http.StatusOK)
	e.Do(http.MethodPut, "/store/tipping", key, map[string]any{"enabled": true, "mode": "percentage", "presets": []int{10, 15}, "allow_custom": false}).Expect(t, http.StatusOK)
	storePP15 := models.PP15Config{Active: true, ValueBps: 200, CapCents: 500}

	pp15Path, tippingPath := fmt.Sprintf("/store/upsell-funnels/%d/pp15", funnel), fmt.Sprintf("/store/upsell-funnels/%d/tipping", funnel)
	put := e.Do(http.MethodPut, pp15Path, key, map[string]any{"active": true, "value_bps": 500, "cap_cents": 900}).Expect(t, http.StatusOK)
	if string(put.Raw) != `{"status":true}` {
		t.Fatalf("PUT answered %s", put.Raw)
	}
	expectAuditRecord(t, e, key, "action=setUpsellFunnelPP15&limit=1", "upsell_funnel", funnel)
	e.Do(http.MethodPut, tippingPath, key, map[string]any{"enabled": true, "mode": "amount", "label": " Tip the crew ", "presets": []int{200, 500},
		"default_preset": 200, "allow_custom": true, "max_percent": 30}).Expect(t, http.StatusOK)
	p, tp := fees(&funnel)
	if p != (models.PP15Config{Active: true, ValueBps: 500, CapCents: 900}) || *tp.Mode != models.TipAmount || *tp.Label != "Tip the crew" ||
		!reflect.DeepEqual(tp.Presets, []int64{200, 500}) || *tp.MaxPercent != 30 {
		t.Fatalf("the funnel's: %+v %+v", p, tp)
	}
	// Another funnel, and the store without a funnel, keep the store's.
	for _, id := range []*int64{&plain, nil} {
		if p, tp := fees(id); p != storePP15 || *tp.Mode != models.TipPercentage {
			t.Fatalf("funnel %v: %+v %+v", id, p, tp)
		}
	}
	// One override inherited again, the other kept: the JSON body null,
	// then GraphQL's null.
	if r := e.Do(http.MethodPut, pp15Path, key, "null").Expect(t, http.StatusOK); string(r.Raw) != `{"status":true}` {
		t.Fatalf("PUT null answered %s", r.Raw)
	}
	if p, tp := fees(&funnel); p != storePP15 || *tp.Mode != models.TipAmount {
		t.Fatalf("after pp15 null: %+v %+v", p, tp)
	}
	if g := e.GraphQL(key, `mutation($id: Int!) { setUpsellFunnelTipping(id: $id, input: null) }`, map[string]any{"id": funnel}); g.Body["errors"] != nil {
		t.Fatalf("GraphQL null: %s", g.Raw)
	}
	if _, tp := fees(&funnel); *tp.Mode != models.TipPercentage {
		t.Fatalf("after tipping null: %+v", tp)
	}
	// No body is null too.
	e.Do(http.MethodPut, pp15Path, key, map[string]any{"active": false, "value_bps": 1, "cap_cents": 1}).Expect(t, http.StatusOK)
	e.Do(http.MethodPut, pp15Path, key, nil).Expect(t, http.StatusOK)
	var stored struct{ PP15, Tipping *string }
	if err := e.DB.NewRaw(`SELECT pp15::text, tipping::text FROM upsell_funnels WHERE id = ?`, funnel).Scan(ctx, &stored.PP15, &stored.Tipping); err != nil ||
		stored.PP15 != nil || stored.Tipping != nil {
		t.Fatalf("overrides left after null: %+v %v", stored, err)
	}

	// Another store's funnel, or none: 404 on both surfaces, nothing written.
	for _, id := range []int64{theirs, 999999999} {
		e.Do(http.MethodPut, fmt.Sprintf("/store/upsell-funnels/%d/pp15", id), key, store).Expect(t, http.StatusNotFound)
		e.Do(http.MethodPut, fmt.Sprintf("/store/upsell-funnels/%d/tipping", id), key, "null").Expect(t, http.StatusNotFound)
		expectGraphQLNotFound(t, e, key, `mutation($id: Int!) { setUpsellFunnelPP15(id: $id, input: null) }`, map[string]any{"id": id})
	}
	if _, _, err := models.EffectiveFees(ctx, e.DB, s.ID, &theirs); err == nil {
		t.Fatal("EffectiveFees read another store's funnel")
	}
	if p, _, err := models.EffectiveFees(ctx, e.DB, other.ID, &theirs); err != nil || p != models.DefaultPP15() {
		t.Fatalf("their funnel: %+v %v", p, err)
	}
	// Bad bodies: the store's checks.
	e.Do(http.MethodPut, pp15Path, key, map[string]any{"active": true, "value_bps": 10001, "cap_cents": 1}).Expect(t, http.StatusBadRequest)
	e.Do(http.MethodPut, tippingPath, key, map[string]any{"enabled": true, "mode": "percentage", "presets": []int{5, 5}, "allow_custom": false}).Expect(t, http.StatusBadRequest)
	e.Do(http.MethodPut, tippingPath, key, "[]").Expect(t, http.StatusBadRequest)
	e.Do(http.MethodPut, fmt.Sprintf("/store/upsell-funnels/%s/pp15", "abc"), key, store).Expect(t, http.StatusBadRequest)

	checkAccess(t, e, s.ID, "checkout", map[string]string{"other scope": e.Key(s.ID, auth.RoleAdmin, "orders:write", "store:write")}, nil,
		[]apitest.Call{{Method: http.MethodPut, Path: pp15Path, Body: store}, {Method: http.MethodPut, Path: tippingPath, Body: map[string]any{
			"enabled": false, "presets": []int{}, "allow_custom": false}}})
	if p, _ := fees(&funnel); p != storePP15 {
		t.Fatalf("a refused PUT wrote the override: %+v", p)
	}
}

// TestPP15PlatformOff: where the deployment allows no surcharges (serve
// --surcharges=false), the platform says so, switching a surcharge on is a
// 409 (the store's and a funnel's) while off is taken, and checkouts of a
// store whose config is active carry none.
func TestPP15PlatformOff(t *testing.T) {
	e := apitest.New(t, apitest.WithPlatform(models.Platform{SurchargesOff: true}))
	ds := scStore(t, e, "Shop")
	key := ds.admin
	if _, platform, _ := feesPP15(t, e, key); platform["pp15_enabled"] != false {
		t.Fatalf("platform: %v", platform)
	}
	on := map[string]any{"active": true, "value_bps": 500, "cap_cents": 1000}
	if r := e.Do(http.MethodPut, "/store/pp15", key, on).Expect(t, http.StatusConflict); !strings.Contains(r.Message(), "pp15_enabled") {
		t.Fatalf("409: %s", r.Raw)
	}
	expectGraphQLCode(t, e, key, "CONFLICT", nil, `mutation { updatePP15(input: {active: true, value_bps: 1, cap_cents: 1}) }`)
	funnel := feesFunnel(t, e, ds.store.ID, "Summer")
	e.Do(http.MethodPut, fmt.Sprintf("/store/upsell-funnels/%d/pp15", funnel), key, on).Expect(t, http.StatusConflict)
	e.Do(http.MethodPut, "/store/pp15", key, map[string]any{"active": false, "value_bps": 500, "cap_cents": 1000}).Expect(t, http.StatusOK)
	// A config made active while the platform allowed it (the seed's,
	// another deployment's) charges nothing here.
	if err := models.SetStorePP15(context.Background(), e.DB, ds.store.ID, models.PP15Config{Active: true, ValueBps: 500, CapCents: 1000}, models.Platform{}); err != nil {
		t.Fatal(err)
	}
	co := scCheckout(t, e, ds, e.PublishableKey(ds.store.ID), 2, "ana@example.com")
	if co["surcharge_cents"] != float64(0) || co["total_cents"] != float64(5000+500+1000) {
		t.Fatalf("checkout: %v", co)
	}
}

// TestTippedSurchargedOrder: a storefront checkout carries the store's
// surcharge and the tip its shopper chose, both shares of the goods after
// the code, untaxed; a tip the store does not offer, or a custom one above
// max_percent, is a 400 that writes nothing; a percentage follows the
// goods when the lines change. Placed with an authorization, the order's
// total holds each once, awaiting capture answers the order's surcharge,
// and the analytics overview counts the tip once.
func TestTippedSurchargedOrder(t *testing.T) {
	e := apitest.New(t)
	ds := scStore(t, e, "Shop")
	key, pub := ds.admin, e.PublishableKey(ds.store.ID)
	e.Do(http.MethodPut, "/store/pp15", key, map[string]any{"active": true, "value_bps": 250, "cap_cents": 1000}).Expect(t, http.StatusOK)
	e.Do(http.MethodPut, "/store/tipping", key, map[string]any{"enabled": true, "mode": "percentage", "label": "Tip the team",
		"presets": []int{10, 15, 20}, "default_preset": 15, "allow_custom": true, "max_percent": 25}).Expect(t, http.StatusOK)

	// Three tees (7,500) to France: the surcharge is 2.5% of the goods.
	co := scCheckout(t, e, ds, pub, 3, "ana@example.com")
	path := "/checkouts/" + co["token"].(string)
	if co["surcharge_cents"] != float64(188) || co["tip_cents"] != float64(0) || co["tip"] != nil || co["total_cents"] != float64(7500+500+1500+188) {
		t.Fatalf("surcharged: %v", co)
	}
	if tp, _ := co["tipping"].(map[string]any); tp["mode"] != "percentage" || len(tp["presets"].([]any)) != 3 || tp["max_percent"] != float64(25) {
		t.Fatalf("the tipping offered: %v", co["tipping"])
	}
	// The code takes 10% off: goods 6,750; surcharge 168.75 → 169, tip
	// 15% 1,012.50 → 1,013; tax 20% of the goods only.
	co = e.Storefront(http.MethodPut, path, pub, map[string]any{"discount_code": "SAVE10", "tip": map[string]any{"preset": 15}}, nil).Expect(t, http.StatusOK).Obj("checkout")
	if co["surcharge_cents"] != float64(169) || co["tip_cents"] != float64(1013) || co["tax_cents"] != float64(1350) ||
		co["total_cents"] != float64(7500-750+500+1350+169+1013) || !reflect.DeepEqual(co["tip"], map[string]any{"preset": float64(15)}) {
		t.Fatalf("tipped: %v", co)
	}
	// A custom tip up to 25% of 6,750 (1,687.50): 1,687 is taken.
	if got := e.Storefront(http.MethodPut, path, pub, map[string]any{"tip": map[string]any{"amount_cents": 1687}}, nil).Expect(t, http.StatusOK).Obj("checkout"); got["tip_cents"] != float64(1687) {
		t.Fatalf("custom tip: %v", got)
	}
	for name, c := range map[string]struct {
		tip   any
		field string
	}{
		"not a preset":         {map[string]any{"preset": 12}, "tip.preset"},
		"above max_percent":    {map[string]any{"amount_cents": 1688}, "tip.amount_cents"},
		"a custom tip of 0":    {map[string]any{"amount_cents": 0}, "tip.amount_cents"},
		"both":                 {map[string]any{"preset": 15, "amount_cents": 100}, "tip"},
		"neither":              {map[string]any{}, "tip"},
		"an unknown field":     {map[string]any{"percent": 5}, "tip"},
		"not an object":        {"15%", "tip"},
		"a preset not a whole": {map[string]any{"preset": 15.5}, "tip"},
	} {
		r := e.Storefront(http.MethodPut, path, pub, map[string]any{"tip": c.tip}, nil).Expect(t, http.StatusBadRequest)
		if r.Body["field"] != c.field || r.Message() == "" {
			t.Errorf("%s: %s, want field %s", name, r.Raw, c.field)
		}
	}
	got := e.Storefront(http.MethodGet, path, pub, nil, nil).Expect(t, http.StatusOK).Obj("checkout")
	if got["tip_cents"] != float64(1687) || got["tipping"] == nil {
		t.Fatalf("after refusals: %v", got)
	}
	// Back to 15%, on two tees: goods 4,500, surcharge 112.50 → 113, tip 675.
	co = e.Storefront(http.MethodPut, path, pub, map[string]any{"tip": map[string]any{"preset": 15},
		"lines": []any{map[string]any{"variant_id": ds.variantID, "quantity": 2}}}, nil).Expect(t, http.StatusOK).Obj("checkout")
	total := int64(5000 - 500 + 500 + 900 + 113 + 675)
	if co["surcharge_cents"] != float64(113) || co["tip_cents"] != float64(675) || co["total_cents"] != float64(total) {
		t.Fatalf("repriced: %v", co)
	}

	// Authorized for the total, then placed.
	e.Storefront(http.MethodPost, path+"/payment-attempts", pub, map[string]any{"provider": "stripe", "payment_method": "card",
		"capture_model": "manual", "amount_cents": total, "currency": co["currency"], "status": "success"}, nil).Expect(t, http.StatusCreated)
	placed := e.Storefront(http.MethodPost, path+"/complete", pub, nil, nil).Expect(t, http.StatusCreated).Obj("order")
	orderID := wholeNumber(t, placed["id"])
	o := e.Do(http.MethodGet, orderPath(orderID), key, nil).Expect(t, http.StatusOK).Obj("order")
	if o["financial_status"] != "authorized" || wholeNumber(t, o["total_cents"]) != total || wholeNumber(t, o["tip_cents"]) != 675 ||
		wholeNumber(t, o["subtotal_cents"]) != 5000 || wholeNumber(t, o["discount_cents"]) != 500 || wholeNumber(t, o["tax_cents"]) != 900 {
		t.Fatalf("order: %v", o)
	}
	var surcharge int64
	if err := e.DB.NewRaw(`SELECT surcharge_cents FROM orders WHERE id = ?`, orderID).Scan(context.Background(), &surcharge); err != nil || surcharge != 113 {
		t.Fatalf("the order's surcharge: %d (%v)", surcharge, err)
	}

	// Awaiting capture answers the order's surcharge, list and detail.
	r := e.Do(http.MethodGet, "/store/orders/awaiting-capture", key, nil).Expect(t, http.StatusOK)
	rows := objectsOf(r.Body["awaiting"])
	if len(rows) != 1 || rows[0]["surcharge_cents"] != float64(113) || rows[0]["total_cents"] != float64(total) || rows[0]["amount_cents"] != float64(total) {
		t.Fatalf("awaiting capture: %s", r.Raw)
	}
	e.SameOnGraphQL(t, r, key, "ListAwaitingCapture", nil)
	id := wholeNumber(t, rows[0]["transaction_id"])
	d := e.Do(http.MethodGet, fmt.Sprintf("/store/orders/awaiting-capture/%d", id), key, nil).Expect(t, http.StatusOK)
	if d.Obj("capture")["surcharge_cents"] != float64(113) || d.Obj("checkout")["surcharge_cents"] != float64(113) ||
		d.Obj("checkout")["tip_cents"] != float64(675) || d.Obj("checkout")["total_cents"] != float64(total) {
		t.Fatalf("awaiting capture detail: %s", d.Raw)
	}

	// The overview counts the tip once.
	m := e.Do(http.MethodGet, "/store/analytics", key, nil).Expect(t, http.StatusOK).Obj("analytics")["metrics"].(map[string]any)
	if m["tip_cents"] != float64(675) || m["order_count"] != float64(1) || m["gross_cents"] != float64(5000) || m["tax_cents"] != float64(900) {
		t.Fatalf("overview metrics: %v", m)
	}
}
