package apitest_test

import (
	"context"
	"fmt"
	"net/http"
	"reflect"
	"slices"
	"strconv"
	"testing"

	"storeadmin/internal/app/apitest"
	"storeadmin/internal/auth"
)

// The fields of the spec's funnel views, exactly.
var (
	fnSummaryKeys = []string{"checkout_page_id", "enabled", "id", "name", "timeout_seconds"}
	fnViewKeys    = []string{"checkout_page_id", "enabled", "id", "name", "offers", "pp15", "timeout_seconds", "tipping", "upsell_page"}
	fnStepKeys    = []string{"accept_next_position", "config", "decline_next_position", "id", "name", "position", "type", "upsell_page"}
	fnConfigKeys  = []string{"available", "discount", "product_id", "quantity", "unavailable_reason", "variant_id"}
)

func fnPath(id int64) string { return "/store/upsell-funnels/" + strconv.FormatInt(id, 10) }
func fnStepPagePath(id, stepID int64) string {
	return fnPath(id) + "/steps/" + strconv.FormatInt(stepID, 10) + "/upsell-page"
}

// fnStep checks v against FunnelStepView and returns it.
func fnStep(t *testing.T, v any) map[string]any {
	t.Helper()
	m := objectWithKeys(t, "step", v, fnStepKeys)
	for _, k := range []string{"id", "position"} {
		wholeNumber(t, m[k])
	}
	for _, k := range []string{"accept_next_position", "decline_next_position"} {
		shpNullableWhole(t, m, k)
	}
	stringField(t, m, "name")
	stringField(t, m, "type")
	c := objectWithKeys(t, "config", m["config"], fnConfigKeys)
	wholeNumber(t, c["product_id"])
	wholeNumber(t, c["quantity"])
	shpNullableWhole(t, c, "variant_id")
	if boolField(t, c, "available") == (c["unavailable_reason"] != nil) {
		t.Fatalf("config %v: available and unavailable_reason disagree", c)
	}
	return m
}

// fnView checks v against FunnelView and returns it.
func fnView(t *testing.T, v any) map[string]any {
	t.Helper()
	m := objectWithKeys(t, "funnel", v, fnViewKeys)
	fnSummaryFields(t, m)
	if _, ok := m["upsell_page"].(map[string]any); !ok {
		t.Fatalf("upsell_page %#v is not an object", m["upsell_page"])
	}
	offers, ok := m["offers"].([]any)
	if !ok || len(offers) == 0 {
		t.Fatalf("offers = %#v", m["offers"])
	}
	for i, s := range offers {
		if fnStep(t, s)["position"] != float64(i+1) {
			t.Fatalf("offers out of position order: %v", offers)
		}
	}
	return m
}

// fnSummary checks v against FunnelSummaryView and returns it.
func fnSummary(t *testing.T, v any) map[string]any {
	t.Helper()
	m := objectWithKeys(t, "funnel", v, fnSummaryKeys)
	fnSummaryFields(t, m)
	return m
}

func fnSummaryFields(t *testing.T, m map[string]any) {
	t.Helper()
	if id := wholeNumber(t, m["id"]); id <= 0 {
		t.Fatalf("funnel id %d", id)
	}
	stringField(t, m, "name")
	boolField(t, m, "enabled")
	wholeNumber(t, m["timeout_seconds"])
	shpNullableWhole(t, m, "checkout_page_id")
}

// fnFunnels is the funnels' REST resource.
var fnFunnels = crudResource{path: "/store/upsell-funnels", item: fnPath, one: "funnel", many: "funnels", view: fnSummary, detail: fnView}

// fnCreate creates a funnel over REST and returns its view.
func fnCreate(t *testing.T, e *apitest.Env, key string, body any) map[string]any {
	t.Helper()
	m, _ := fnFunnels.send(t, e, key, http.MethodPost, fnFunnels.path, body, 201, fnView)
	return m
}

// fnPut saves a funnel over REST and returns its view and the answer.
func fnPut(t *testing.T, e *apitest.Env, key string, id int64, body any) (map[string]any, *apitest.Response) {
	t.Helper()
	return fnFunnels.send(t, e, key, http.MethodPut, fnPath(id), body, 200, fnView)
}

// fnProduct creates an active product with a variant of each price and
// returns its id and its variants' ids.
func fnProduct(t *testing.T, e *apitest.Env, key, title string, prices ...int64) (int64, []int64) {
	t.Helper()
	var variants []any
	for i, p := range prices {
		variants = append(variants, map[string]any{"price_cents": p, "option1": fmt.Sprintf("V%d", i), "inventory_quantity": 10})
	}
	body := map[string]any{"title": title, "status": "active", "variants": variants}
	if len(prices) > 1 {
		var values []string
		for i := range prices {
			values = append(values, fmt.Sprintf("V%d", i))
		}
		body["options"] = []any{map[string]any{"name": "Size", "values": values}}
	}
	p := createProduct(t, e, key, body)
	var ids []int64
	for _, v := range p["variants"].([]any) {
		ids = append(ids, idOf(t, v.(map[string]any)))
	}
	return idOf(t, p), ids
}

// fnOffer is a step of a request body.
func fnOffer(position int64, typ string, config map[string]any, accept, decline any) map[string]any {
	return map[string]any{"position": position, "name": fmt.Sprintf("Step %d", position), "type": typ, "config": config,
		"accept_next_position": accept, "decline_next_position": decline}
}

// fnStepIDs is the step ids of a funnel view, by position.
func fnStepIDs(t *testing.T, f map[string]any) []int64 {
	t.Helper()
	var out []int64
	for _, s := range f["offers"].([]any) {
		out = append(out, idOf(t, s.(map[string]any)))
	}
	return out
}

// fnBody is a three-step funnel: step 1 offers two of product p at 20%
// off (accept: step 2, decline: step 3), step 2 the variant cv of another
// product, step 3 the variant pv of p at 5.00 off; steps 2 and 3 end it.
func fnBody(name string, p, pv, cv int64) map[string]any {
	return map[string]any{"name": name, "timeout_seconds": 600, "offers": []any{
		fnOffer(1, "upsell", map[string]any{"product_id": p, "quantity": 2, "discount": map[string]any{"type": "percentage", "value": 20}}, 2, 3),
		fnOffer(2, "cross_sell", map[string]any{"variant_id": cv}, nil, nil),
		fnOffer(3, "downsell", map[string]any{"product_id": p, "variant_id": pv, "discount": map[string]any{"type": "fixed_amount", "value": 500}}, nil, nil),
	}}
}

// fnConfig is a step's config as the view answers it, available.
func fnConfig(product int64, variant any, quantity int64, discount any) map[string]any {
	return map[string]any{"product_id": float64(product), "variant_id": variant, "quantity": float64(quantity),
		"discount": discount, "available": true, "unavailable_reason": nil}
}

// TestUpsellFunnels: the life of a funnel over REST, with the same answers
// on GraphQL: create, read, list, save whole (steps keep their ids at the
// positions that stay), and delete (the zones routing to it lose it).
func TestUpsellFunnels(t *testing.T) {
	e, s, admin := newAcme(t)
	reader := e.Key(s.ID, auth.RoleStaff, "checkout:read")
	mug, mugVariants := fnProduct(t, e, admin, "Mug", 1500, 1800)
	capID, capVariants := fnProduct(t, e, admin, "Cap", 2500)

	f := fnCreate(t, e, admin, fnBody("  After checkout ", mug, mugVariants[1], capVariants[0]))
	id := idOf(t, f)
	steps := fnStepIDs(t, f)
	pct20 := map[string]any{"type": "percentage", "value": float64(20)}
	want := map[string]any{
		"id": float64(id), "name": "After checkout", "enabled": true, "timeout_seconds": float64(600), "checkout_page_id": nil,
		"pp15": nil, "tipping": nil, "upsell_page": map[string]any{},
		"offers": []any{
			map[string]any{"id": float64(steps[0]), "position": float64(1), "name": "Step 1", "type": "upsell",
				"accept_next_position": float64(2), "decline_next_position": float64(3), "upsell_page": nil,
				"config": fnConfig(mug, nil, 2, pct20)},
			map[string]any{"id": float64(steps[1]), "position": float64(2), "name": "Step 2", "type": "cross_sell",
				"accept_next_position": nil, "decline_next_position": nil, "upsell_page": nil,
				"config": fnConfig(capID, float64(capVariants[0]), 1, nil)},
			map[string]any{"id": float64(steps[2]), "position": float64(3), "name": "Step 3", "type": "downsell",
				"accept_next_position": nil, "decline_next_position": nil, "upsell_page": nil,
				"config": fnConfig(mug, float64(mugVariants[1]), 1, map[string]any{"type": "fixed_amount", "value": float64(500)})},
		},
	}
	if !reflect.DeepEqual(f, want) {
		t.Fatalf("created %v\nwant    %v", f, want)
	}
	got, get := fnFunnels.get(t, e, reader, id)
	if !reflect.DeepEqual(got, f) {
		t.Fatalf("GET %v\nPOST %v", got, f)
	}
	e.SameOnGraphQL(t, get, reader, "GetUpsellFunnel", map[string]any{"id": id})

	// Left out: enabled, a 900-second timeout, no page.
	second := fnCreate(t, e, admin, map[string]any{"name": "Small", "offers": []any{fnOffer(1, "upsell", map[string]any{"product_id": capID}, nil, nil)}})
	if second["enabled"] != true || second["timeout_seconds"] != float64(900) || second["checkout_page_id"] != nil {
		t.Fatalf("defaults: %v", second)
	}
	rows, total, list := fnFunnels.list(t, e, reader, "")
	if total != 2 || !slices.Equal(rowIDs(rows), []int64{id, idOf(t, second)}) {
		t.Fatalf("list %v (total %d)", rowIDs(rows), total)
	}
	if !reflect.DeepEqual(rows[0], map[string]any{"id": float64(id), "name": "After checkout", "enabled": true, "timeout_seconds": float64(600), "checkout_page_id": nil}) {
		t.Fatalf("summary %v", rows[0])
	}
	e.SameOnGraphQL(t, list, reader, "ListUpsellFunnels", nil)
	_, _, page := fnFunnels.list(t, e, reader, "limit=1&offset=1")
	if rows := page.List("funnels"); len(rows) != 1 || page.Body["total"] != float64(2) {
		t.Fatalf("page: %s", page.Raw)
	}

	// A step's own design stays with its position through a save.
	e.Do(http.MethodPut, fnStepPagePath(id, steps[1]), admin, map[string]any{"upsell_page": map[string]any{"headline": "One more?"}}).Expect(t, 200)

	// Saving whole: a read sent back changes nothing (its read-only fields
	// are dropped), and the steps keep their ids.
	back, put := fnPut(t, e, admin, id, got)
	if fnStepIDs(t, back)[0] != steps[0] || back["offers"].([]any)[1].(map[string]any)["upsell_page"] == nil {
		t.Fatalf("a read sent back: %v", back)
	}
	e.SameOnGraphQL(t, put, admin, "GetUpsellFunnel", map[string]any{"id": id})

	// Two steps now, reordered offers: positions 1 and 2 keep their ids,
	// position 3 goes; the fields left out keep their values.
	body := map[string]any{"name": "Renamed", "enabled": false, "offers": []any{
		fnOffer(2, "downsell", map[string]any{"product_id": capID, "quantity": 3}, nil, nil),
		fnOffer(1, "upsell", map[string]any{"variant_id": mugVariants[0], "discount": nil}, nil, 2),
	}}
	u, _ := fnPut(t, e, admin, id, body)
	if !slices.Equal(fnStepIDs(t, u), steps[:2]) || u["name"] != "Renamed" || u["enabled"] != false || u["timeout_seconds"] != float64(600) {
		t.Fatalf("saved: %v", u)
	}
	offers := u["offers"].([]any)
	if c := offers[0].(map[string]any)["config"]; !reflect.DeepEqual(c, fnConfig(mug, float64(mugVariants[0]), 1, nil)) {
		t.Fatalf("step 1 config %v", c)
	}
	if s2 := offers[1].(map[string]any); s2["type"] != "downsell" || s2["upsell_page"] == nil {
		t.Fatalf("step 2 %v", s2)
	}
	if n, err := e.DB.NewSelect().TableExpr("funnel_steps").Where("funnel_id = ?", id).Count(context.Background()); err != nil || n != 2 {
		t.Fatalf("%d steps stored (%v)", n, err)
	}
	e.Do(http.MethodPut, fnStepPagePath(id, steps[2]), admin, map[string]any{"upsell_page": map[string]any{}}).Expect(t, 404)
	expectAuditRecord(t, e, admin, "action=updateUpsellFunnel&limit=1", "upsell_funnel", id)

	// GraphQL: the same save, and a literal null clears the page.
	g := e.GraphQL(admin, `mutation($id: Int!) { updateUpsellFunnel(id: $id, input: {name: "G", checkout_page_id: null,
		offers: [{position: 1, name: "Only", type: "cross_sell", config: {product_id: `+strconv.FormatInt(capID, 10)+`}}]}) { name offers { id config } } }`,
		map[string]any{"id": id})
	if d, _ := g.Data()["updateUpsellFunnel"].(map[string]any); g.Body["errors"] != nil || d["name"] != "G" || len(d["offers"].([]any)) != 1 {
		t.Fatalf("GraphQL update: %s", g.Raw)
	}

	// Delete: the zones routing to it lose it; then it is gone.
	ctx := context.Background()
	var zoneID int64
	if err := e.DB.NewRaw(`INSERT INTO checkout_zones (store_id, name, countries) VALUES (?, 'EU', '{FR}') RETURNING id`, s.ID).Scan(ctx, &zoneID); err != nil {
		t.Fatal(err)
	}
	if _, err := e.DB.NewRaw(`INSERT INTO checkout_zone_funnels (store_id, zone_id, funnel_id, weight, position) VALUES (?, ?, ?, 1, 0), (?, ?, ?, 3, 1)`,
		s.ID, zoneID, id, s.ID, zoneID, idOf(t, second)).Exec(ctx); err != nil {
		t.Fatal(err)
	}
	expectBareDelete(t, e, admin, fnPath(id))
	var left []int64
	if err := e.DB.NewSelect().TableExpr("checkout_zone_funnels").Column("funnel_id").Where("zone_id = ?", zoneID).Scan(ctx, &left); err != nil || !slices.Equal(left, []int64{idOf(t, second)}) {
		t.Fatalf("the zone routes to %v (%v)", left, err)
	}
	e.Do(http.MethodGet, fnPath(id), admin, nil).Expect(t, 404)
	e.Do(http.MethodPut, fnPath(id), admin, body).Expect(t, 404)
	e.Do(http.MethodDelete, fnPath(id), admin, nil).Expect(t, 404)
	expectGraphQLNotFound(t, e, admin, `query($id: Int!) { upsellFunnel(id: $id) { id } }`, map[string]any{"id": id})
	if _, total, _ := fnFunnels.list(t, e, admin, ""); total != 1 {
		t.Fatalf("after delete: total %d", total)
	}
}
