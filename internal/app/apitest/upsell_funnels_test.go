package apitest_test

import (
	"context"
	"fmt"
	"net/http"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"storeadmin/internal/app/apitest"
	"storeadmin/internal/auth"
	"storeadmin/models"
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
func fnOffer(position int64, typ string, config any, accept, decline any) map[string]any {
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

// TestUpsellFunnelsInvalid: a funnel that is not a forward graph of 1 to
// 10 steps, with offers of the store's catalogue and bounded fields, is a
// 400 naming the step and the field, on create and on save, and nothing
// is written.
func TestUpsellFunnelsInvalid(t *testing.T) {
	e, _, admin := newAcme(t)
	o := e.Store("Other")
	mug, mugVariants := fnProduct(t, e, admin, "Mug", 1500, 1800)
	_, capVariants := fnProduct(t, e, admin, "Cap", 2500)
	theirs, theirVariants := fnProduct(t, e, e.Key(o.ID, auth.RoleAdmin), "Theirs", 100)
	offer := map[string]any{"product_id": mug}
	step := func(position int64, accept, decline any) map[string]any {
		return fnOffer(position, "upsell", offer, accept, decline)
	}
	funnel := func(steps ...any) map[string]any {
		return map[string]any{"name": "F", "offers": append([]any{}, steps...)}
	}
	withConfig := func(config any) map[string]any { return funnel(fnOffer(1, "upsell", config, nil, nil)) }
	many := make([]any, 11)
	for i := range many {
		many[i] = step(int64(i+1), int64(i+2), nil)
	}
	many[10] = step(11, nil, nil)

	cases := []struct {
		name, want string
		body       map[string]any
	}{
		{"a cycle", "offers[1].accept_next_position is 1, not after the step's own position 2", funnel(step(1, 2, nil), step(2, 1, nil))},
		{"a backward branch", "offers[2].decline_next_position is 2, not after the step's own position 3", funnel(step(1, 2, 3), step(2, 3, nil), step(3, nil, 2))},
		{"a branch to itself", "offers[0].accept_next_position is 1, not after", funnel(step(1, 1, nil))},
		{"a branch past the last step", "offers[0].decline_next_position is 3, but the funnel has no step at that position", funnel(step(1, 2, 3), step(2, nil, nil))},
		{"a gap", "offers[1].position must be between 1 and 2", funnel(step(1, 3, nil), step(3, nil, nil))},
		{"a position twice", "offers[1].position is 1, which offers[0] has too", funnel(step(1, nil, nil), step(1, nil, nil))},
		{"position 0", "offers[0].position must be between 1 and 1", funnel(step(0, nil, nil))},
		{"an unreachable step", "offers[2] (position 3) cannot be reached", funnel(step(1, 2, nil), step(2, nil, nil), step(3, nil, nil))},
		{"unreachable behind an end", "offers[1] (position 2) cannot be reached", funnel(step(1, nil, nil), step(2, nil, nil))},
		{"no steps", "offers must hold 1 to 10 steps, not 0", funnel()},
		{"eleven steps", "offers must hold 1 to 10 steps, not 11", funnel(many...)},
		{"an unknown type", "offers[0].type must be one of upsell, downsell, cross_sell", funnel(fnOffer(1, "bundle", offer, nil, nil))},
		{"a step without a name", "offers[0].name must be 1 to 255 characters", funnel(map[string]any{"position": 1, "name": " ", "type": "upsell", "config": offer})},
		{"no name", "name must be 1 to 255 characters", map[string]any{"name": "  ", "offers": []any{step(1, nil, nil)}}},
		{"a long name", "name must be 1 to 255 characters", map[string]any{"name": strings.Repeat("n", 256), "offers": []any{step(1, nil, nil)}}},
		{"a short timeout", "timeout_seconds must be between 60 (a minute) and 86400 (a day), not 59", map[string]any{"name": "F", "timeout_seconds": 59, "offers": []any{step(1, nil, nil)}}},
		{"a long timeout", "timeout_seconds must be between 60", map[string]any{"name": "F", "timeout_seconds": 86401, "offers": []any{step(1, nil, nil)}}},
		{"a config that is no object", "offers[0].config must be an object", withConfig("mug")},
		{"nothing offered", "offers[0].config must name what it offers", withConfig(map[string]any{"quantity": 1})},
		{"an unknown config field", "offers[0].config.price is not a field of an offer", withConfig(map[string]any{"product_id": mug, "price": 1})},
		{"quantity 0", "offers[0].config.quantity must be a whole number from 1 to 100", withConfig(map[string]any{"product_id": mug, "quantity": 0})},
		{"quantity 101", "offers[0].config.quantity must be a whole number from 1 to 100", withConfig(map[string]any{"product_id": mug, "quantity": 101})},
		{"a fractional id", "offers[0].config.product_id must be the id of a record", withConfig(map[string]any{"product_id": 1.5})},
		{"a percentage over 100", "offers[0].config.discount.value must be between 0 and 100 for a percentage, not 101",
			withConfig(map[string]any{"product_id": mug, "discount": map[string]any{"type": "percentage", "value": 101}})},
		{"a negative discount", "offers[0].config.discount.value must be a whole number, 0 or more",
			withConfig(map[string]any{"product_id": mug, "discount": map[string]any{"type": "fixed_amount", "value": -1}})},
		{"an unknown discount type", "offers[0].config.discount.type must be percentage or fixed_amount",
			withConfig(map[string]any{"product_id": mug, "discount": map[string]any{"type": "bogo", "value": 1}})},
		{"a discount field", "offers[0].config.discount.code is not a field of a discount",
			withConfig(map[string]any{"product_id": mug, "discount": map[string]any{"type": "percentage", "value": 1, "code": "X"}})},
		// The product's cheapest variant is 15.00; the variant's price 18.00.
		{"a fixed amount over the product's price", "offers[0].config.discount.value is 1501, more than the price it comes off (1500)",
			withConfig(map[string]any{"product_id": mug, "discount": map[string]any{"type": "fixed_amount", "value": 1501}})},
		{"a fixed amount over the variant's price", "offers[0].config.discount.value is 1801, more than the price it comes off (1800)",
			withConfig(map[string]any{"variant_id": mugVariants[1], "discount": map[string]any{"type": "fixed_amount", "value": 1801}})},
		{"another store's product", fmt.Sprintf("offers[0].config.product_id names no product of this store: %d", theirs), withConfig(map[string]any{"product_id": theirs})},
		{"another store's variant", fmt.Sprintf("offers[0].config.variant_id names no variant of this store: %d", theirVariants[0]),
			withConfig(map[string]any{"variant_id": theirVariants[0]})},
		{"a variant of another product", fmt.Sprintf("offers[0].config.variant_id is variant %d of product", capVariants[0]),
			withConfig(map[string]any{"product_id": mug, "variant_id": capVariants[0]})},
		{"a page of no store's", "checkout_page_id names no checkout page of this store: 987654",
			map[string]any{"name": "F", "checkout_page_id": 987654, "offers": []any{step(1, nil, nil)}}},
	}
	f := fnCreate(t, e, admin, funnel(step(1, nil, nil)))
	id := idOf(t, f)
	for _, c := range cases {
		for _, call := range []struct{ method, path string }{{http.MethodPost, fnFunnels.path}, {http.MethodPut, fnPath(id)}} {
			r := e.Do(call.method, call.path, admin, c.body)
			if r.Status != 400 || !strings.Contains(r.Message(), c.want) {
				t.Errorf("%s, %s: %d %q, want 400 with %q", c.name, call.method, r.Status, r.Message(), c.want)
				continue
			}
			r.Expect(t, 400)
		}
	}
	// A fixed amount equal to the price is the whole price off: allowed.
	fnPut(t, e, admin, id, withConfig(map[string]any{"product_id": mug, "discount": map[string]any{"type": "fixed_amount", "value": 1500}}))
	after, _ := fnFunnels.get(t, e, admin, id)
	if _, total, _ := fnFunnels.list(t, e, admin, ""); total != 1 || after["offers"].([]any)[0].(map[string]any)["config"].(map[string]any)["discount"] == nil {
		t.Fatalf("refused writes were written: total %d, %v", total, after)
	}
	// GraphQL names the field under input.
	g := e.GraphQL(admin, `mutation($input: UpsellFunnelInput!) { createUpsellFunnel(input: $input) { id } }`,
		map[string]any{"input": funnel(step(1, 2, nil), step(2, 1, nil))})
	if errs, _ := g.Body["errors"].([]any); g.ErrorCode() != "BAD_USER_INPUT" || len(errs) == 0 || !strings.Contains(fmt.Sprint(errs[0]), "offers[1].accept_next_position") {
		t.Fatalf("GraphQL cycle: %s", g.Raw)
	}
}

// TestUpsellFunnelOfferAvailability: an offer the catalogue can no longer
// sell shows as unavailable, with the reason, and the funnel still reads;
// it shows as available again once the catalogue can.
func TestUpsellFunnelOfferAvailability(t *testing.T) {
	e, _, admin := newAcme(t)
	ctx := context.Background()
	mug, mugVariants := fnProduct(t, e, admin, "Mug", 1500, 1800)
	hat, _ := fnProduct(t, e, admin, "Hat", 900)
	scarf, _ := fnProduct(t, e, admin, "Scarf", 900)
	f := fnCreate(t, e, admin, map[string]any{"name": "F", "offers": []any{
		fnOffer(1, "upsell", map[string]any{"product_id": mug, "quantity": 3}, 2, nil),
		fnOffer(2, "upsell", map[string]any{"variant_id": mugVariants[1]}, 3, nil),
		fnOffer(3, "cross_sell", map[string]any{"product_id": hat}, 4, nil),
		fnOffer(4, "downsell", map[string]any{"product_id": scarf}, nil, nil),
	}})
	id := idOf(t, f)
	exec := func(q string, args ...any) {
		t.Helper()
		if _, err := e.DB.NewRaw(q, args...).Exec(ctx); err != nil {
			t.Fatal(err)
		}
	}
	reasons := func() []any {
		t.Helper()
		got, _ := fnFunnels.get(t, e, admin, id)
		var out []any
		for _, s := range got["offers"].([]any) {
			out = append(out, s.(map[string]any)["config"].(map[string]any)["unavailable_reason"])
		}
		return out
	}
	if r := reasons(); !reflect.DeepEqual(r, []any{nil, nil, nil, nil}) {
		t.Fatalf("all in stock: %v", r)
	}
	// Mug: 2 of one variant, none of the other: fewer than the 3 offered.
	exec(`UPDATE product_variants SET inventory_quantity = CASE WHEN id = ? THEN 2 ELSE 0 END WHERE product_id = ?`, mugVariants[0], mug)
	exec(`UPDATE products SET status = 'archived' WHERE id = ?`, hat)
	exec(`UPDATE products SET status = 'draft' WHERE id = ?`, scarf)
	if r := reasons(); !reflect.DeepEqual(r, []any{"out_of_stock", "out_of_stock", "product_archived", "product_draft"}) {
		t.Fatalf("reasons %v", r)
	}
	// Overselling allowed, or stock not tracked: available.
	exec(`UPDATE product_variants SET inventory_policy = 'continue' WHERE id = ?`, mugVariants[0])
	exec(`UPDATE product_variants SET track_inventory = false WHERE id = ?`, mugVariants[1])
	if r := reasons(); !reflect.DeepEqual(r[:2], []any{nil, nil}) {
		t.Fatalf("oversold or untracked: %v", r)
	}
	// A deleted variant, a deleted product.
	exec(`DELETE FROM product_variants WHERE id = ?`, mugVariants[1])
	expectBareDelete(t, e, admin, productPath(hat))
	got, get := fnFunnels.get(t, e, admin, id)
	if r := reasons(); !reflect.DeepEqual(r, []any{nil, "variant_deleted", "product_deleted", "product_draft"}) {
		t.Fatalf("deleted: %v", r)
	}
	if c := got["offers"].([]any)[2].(map[string]any)["config"].(map[string]any); c["available"] != false || c["product_id"] != float64(hat) {
		t.Fatalf("a deleted product's offer: %v", c)
	}
	e.SameOnGraphQL(t, get, admin, "GetUpsellFunnel", map[string]any{"id": id})
	// The graph: the offered product and variant, null once deleted.
	g := e.GraphQL(admin, `query($id: Int!) { upsellFunnel(id: $id) { offers { product { id title } variant { id } } } }`, map[string]any{"id": id})
	want := []any{
		map[string]any{"product": map[string]any{"id": float64(mug), "title": "Mug"}, "variant": nil},
		map[string]any{"product": map[string]any{"id": float64(mug), "title": "Mug"}, "variant": nil},
		map[string]any{"product": nil, "variant": nil},
		map[string]any{"product": map[string]any{"id": float64(scarf), "title": "Scarf"}, "variant": nil},
	}
	if d, _ := g.Data()["upsellFunnel"].(map[string]any); g.Body["errors"] != nil || !reflect.DeepEqual(d["offers"], want) {
		t.Fatalf("offers' products: %s", g.Raw)
	}
	// Saving it again with the deleted product is refused, naming it.
	r := e.Do(http.MethodPut, fnPath(id), admin, got).Expect(t, 400)
	if !strings.Contains(r.Message(), "offers[1].config.variant_id names no variant of this store") {
		t.Fatalf("save with deleted offers: %q", r.Message())
	}
}

// TestUpsellFunnelsAccess: the checkout scope, reads for staff, writes for
// admins only; another store's funnel and another funnel's step are 404s
// everywhere, and stay as they were.
func TestUpsellFunnelsAccess(t *testing.T) {
	e, s, admin := newAcme(t)
	mug, _ := fnProduct(t, e, admin, "Mug", 1500)
	body := map[string]any{"name": "F", "offers": []any{fnOffer(1, "upsell", map[string]any{"product_id": mug}, nil, nil)}}
	f := fnCreate(t, e, admin, body)
	id, step := idOf(t, f), fnStepIDs(t, f)[0]
	page := map[string]any{"upsell_page": map[string]any{"headline": "Wait"}}
	reads := []apitest.Call{{Method: http.MethodGet, Path: fnFunnels.path}, {Method: http.MethodGet, Path: fnPath(id)}}
	writes := []apitest.Call{
		{Method: http.MethodPost, Path: fnFunnels.path, Body: body},
		{Method: http.MethodPut, Path: fnPath(id), Body: body},
		{Method: http.MethodPost, Path: fnPath(id) + "/checkout-page"},
		{Method: http.MethodPut, Path: fnPath(id) + "/upsell-page", Body: page},
		{Method: http.MethodPut, Path: fnStepPagePath(id, step), Body: page},
		{Method: http.MethodDelete, Path: fnStepPagePath(id, step)},
		{Method: http.MethodDelete, Path: fnPath(id)},
	}
	checkAccess(t, e, s.ID, "checkout", map[string]string{"other scope": e.Key(s.ID, auth.RoleAdmin, "products:write", "shipping:write")}, reads, writes)
	if after, _ := fnFunnels.get(t, e, admin, id); !reflect.DeepEqual(after, f) {
		t.Fatalf("a refused write was written: %v", after)
	}
	for _, q := range []string{`{ upsellFunnels { id } }`, `mutation { deleteUpsellFunnel(id: 1) }`} {
		if g := e.GraphQL(e.Key(s.ID, auth.RoleAdmin, "products:read"), q, nil); g.ErrorCode() != "FORBIDDEN" {
			t.Fatalf("%s without the scope: %s", q, g.Raw)
		}
	}
	// A key without products:read reads the funnel, not the products.
	g := e.GraphQL(e.Key(s.ID, auth.RoleStaff, "checkout:read"), `query($id: Int!) { upsellFunnel(id: $id) { name offers { product { id } } } }`, map[string]any{"id": id})
	if d, _ := g.Data()["upsellFunnel"].(map[string]any); g.ErrorCode() != "FORBIDDEN" || d["name"] != "F" {
		t.Fatalf("products without products:read: %s", g.Raw)
	}

	// Another store: its funnel and steps are not found.
	o := e.Store("Other")
	oKey := e.Key(o.ID, auth.RoleAdmin)
	cap, _ := fnProduct(t, e, oKey, "Cap", 900)
	theirs := fnCreate(t, e, oKey, map[string]any{"name": "Theirs", "offers": []any{fnOffer(1, "upsell", map[string]any{"product_id": cap}, nil, nil)}})
	tID, tStep := idOf(t, theirs), fnStepIDs(t, theirs)[0]
	second := fnCreate(t, e, admin, body)
	for _, c := range []apitest.Call{
		{Method: http.MethodGet, Path: fnPath(tID)},
		{Method: http.MethodPut, Path: fnPath(tID), Body: body},
		{Method: http.MethodDelete, Path: fnPath(tID)},
		{Method: http.MethodPost, Path: fnPath(tID) + "/checkout-page"},
		{Method: http.MethodPut, Path: fnPath(tID) + "/upsell-page", Body: page},
		{Method: http.MethodPut, Path: fnStepPagePath(tID, tStep), Body: page},
		{Method: http.MethodDelete, Path: fnStepPagePath(tID, tStep)},
		// Another store's step under my funnel; my step under my other funnel.
		{Method: http.MethodPut, Path: fnStepPagePath(id, tStep), Body: page},
		{Method: http.MethodPut, Path: fnStepPagePath(idOf(t, second), step), Body: page},
		{Method: http.MethodDelete, Path: fnStepPagePath(idOf(t, second), step)},
		{Method: http.MethodGet, Path: fnPath(987654)},
	} {
		e.Do(c.Method, c.Path, admin, c.Body).Expect(t, 404)
	}
	for _, q := range []string{
		`query($id: Int!) { upsellFunnel(id: $id) { id } }`,
		`mutation($id: Int!) { ensureUpsellFunnelCheckoutPage(id: $id) { id } }`,
		`mutation($id: Int!) { setUpsellFunnelPage(id: $id, upsell_page: {}) }`,
		`mutation($id: Int!) { deleteUpsellFunnel(id: $id) }`,
	} {
		expectGraphQLNotFound(t, e, admin, q, map[string]any{"id": tID})
	}
	if after, _ := fnFunnels.get(t, e, oKey, tID); !reflect.DeepEqual(after, theirs) {
		t.Fatalf("another store's funnel changed: %v", after)
	}
	e.Do(http.MethodGet, fnFunnels.path+"/abc", admin, nil).Expect(t, 400)
	e.Do(http.MethodPut, fnPath(id)+"/steps/x/upsell-page", admin, page).Expect(t, 400)
}

// TestUpsellFunnelCheckoutPage: POST …/checkout-page answers the funnel's
// page, creating one when it has none (named after the funnel, with the
// default page's sections; the store's default when it has none) and
// linking it; again, it answers the same page.
func TestUpsellFunnelCheckoutPage(t *testing.T) {
	e, s, admin := newAcme(t)
	ctx := context.Background()
	mug, _ := fnProduct(t, e, admin, "Mug", 1500)
	body := func(name string) map[string]any {
		return map[string]any{"name": name, "offers": []any{fnOffer(1, "upsell", map[string]any{"product_id": mug}, nil, nil)}}
	}
	ensure := func(id int64) (map[string]any, *apitest.Response) {
		t.Helper()
		r := e.Do(http.MethodPost, fnPath(id)+"/checkout-page", admin, nil).Expect(t, 200)
		expectPayload(t, r, "page")
		return objectWithKeys(t, "page", r.Body["page"], []string{"id", "is_default", "name"}), r
	}
	pageRow := func(id int64) models.CheckoutPage {
		t.Helper()
		var p models.CheckoutPage
		if err := e.DB.NewSelect().Model(&p).Where("id = ?", id).Scan(ctx); err != nil {
			t.Fatal(err)
		}
		return p
	}

	// A store without pages: the new page is its default, with no sections.
	first := idOf(t, fnCreate(t, e, admin, body("Summer")))
	p, r := ensure(first)
	pID := idOf(t, p)
	if !reflect.DeepEqual(p, map[string]any{"id": float64(pID), "is_default": true, "name": "Summer"}) || pageRow(pID).Sections != nil {
		t.Fatalf("first page %v, sections %v", p, pageRow(pID).Sections)
	}
	e.SameOnGraphQL(t, r, admin, "EnsureUpsellFunnelCheckoutPage", map[string]any{"id": first})
	if again, _ := ensure(first); !reflect.DeepEqual(again, p) {
		t.Fatalf("again: %v, want %v", again, p)
	}
	got, _ := fnFunnels.get(t, e, admin, first)
	if got["checkout_page_id"] != float64(pID) {
		t.Fatalf("the funnel's page: %v", got["checkout_page_id"])
	}
	// The audit log of the call that made the page (the oldest of three)
	// names the funnel and the page; the others name none.
	logs, _, _ := listAuditLogs(t, e, admin, "action=ensureUpsellFunnelCheckoutPage")
	wantRecords := []any{map[string]any{"type": "upsell_funnel", "id": float64(first)}, map[string]any{"type": "checkout_page", "id": float64(pID)}}
	if len(logs) != 3 || !reflect.DeepEqual(metadataOf(logs[2])["records"], wantRecords) || metadataOf(logs[0])["records"] != nil {
		t.Fatalf("audit logs %v", logs)
	}

	// The default page has sections: a new page copies them, and is not
	// the default.
	sections := []any{map[string]any{"type": "contact", "settings": map[string]any{}}}
	if _, err := e.DB.NewUpdate().Model((*models.CheckoutPage)(nil)).Set("sections = ?", `[{"type": "contact", "settings": {}}]`).Where("id = ?", pID).Exec(ctx); err != nil {
		t.Fatal(err)
	}
	second := idOf(t, fnCreate(t, e, admin, body("Winter")))
	q, _ := ensure(second)
	if q["is_default"] != false || q["name"] != "Winter" || idOf(t, q) == pID || !reflect.DeepEqual(pageRow(idOf(t, q)).Sections, sections) {
		t.Fatalf("second page %v, sections %v", q, pageRow(idOf(t, q)).Sections)
	}

	// The graph: the funnel's page, and the funnels of a store's list.
	g := e.GraphQL(admin, `{ upsellFunnels { id checkout_page { id name is_default } } }`, nil)
	want := []any{
		map[string]any{"id": float64(first), "checkout_page": map[string]any{"id": float64(pID), "name": "Summer", "is_default": true}},
		map[string]any{"id": float64(second), "checkout_page": map[string]any{"id": q["id"], "name": "Winter", "is_default": false}},
	}
	if g.Body["errors"] != nil || !reflect.DeepEqual(g.Data()["upsellFunnels"], want) {
		t.Fatalf("checkout pages: %s", g.Raw)
	}
	// A funnel names a page of its store: its own, or none.
	u, _ := fnPut(t, e, admin, second, map[string]any{"name": "Winter", "checkout_page_id": pID, "offers": body("")["offers"]})
	if u["checkout_page_id"] != float64(pID) {
		t.Fatalf("checkout_page_id: %v", u)
	}
	if u, _ = fnPut(t, e, admin, second, map[string]any{"name": "Winter", "checkout_page_id": nil, "offers": body("")["offers"]}); u["checkout_page_id"] != nil {
		t.Fatalf("checkout_page_id null: %v", u)
	}
	o := e.Store("Other")
	var theirs int64
	if err := e.DB.NewRaw(`INSERT INTO checkout_pages (store_id, name) VALUES (?, 'Theirs') RETURNING id`, o.ID).Scan(ctx, &theirs); err != nil {
		t.Fatal(err)
	}
	e.Do(http.MethodPut, fnPath(second), admin, map[string]any{"name": "W", "checkout_page_id": theirs, "offers": body("")["offers"]}).Expect(t, 400)
	_ = s
}

// TestUpsellFunnelCheckoutPageRace: calls at once for a funnel without a
// page make one page, and every call answers it.
func TestUpsellFunnelCheckoutPageRace(t *testing.T) {
	e, s, admin := newAcme(t)
	mug, _ := fnProduct(t, e, admin, "Mug", 1500)
	id := idOf(t, fnCreate(t, e, admin, map[string]any{"name": "F", "offers": []any{fnOffer(1, "upsell", map[string]any{"product_id": mug}, nil, nil)}}))
	const calls = 6
	var wg sync.WaitGroup
	answers := make([]*apitest.Response, calls)
	for i := range calls {
		wg.Add(1)
		go func() {
			defer wg.Done()
			answers[i] = e.Do(http.MethodPost, fnPath(id)+"/checkout-page", admin, nil)
		}()
	}
	wg.Wait()
	var ids []int64
	for _, r := range answers {
		r.Expect(t, 200)
		ids = append(ids, idOf(t, r.Obj("page")))
	}
	if len(slices.Compact(slices.Clone(ids))) != 1 {
		t.Fatalf("pages answered: %v", ids)
	}
	if n, err := e.DB.NewSelect().TableExpr("checkout_pages").Where("store_id = ?", s.ID).Count(context.Background()); err != nil || n != 1 {
		t.Fatalf("%d pages made (%v)", n, err)
	}
}

// TestUpsellFunnelDesigns: the funnel's design and a step's own, set and
// cleared; a design is a bounded JSON object.
func TestUpsellFunnelDesigns(t *testing.T) {
	e, _, admin := newAcme(t)
	mug, _ := fnProduct(t, e, admin, "Mug", 1500)
	f := fnCreate(t, e, admin, map[string]any{"name": "F", "offers": []any{
		fnOffer(1, "upsell", map[string]any{"product_id": mug}, 2, nil), fnOffer(2, "upsell", map[string]any{"product_id": mug}, nil, nil)}})
	id, steps := idOf(t, f), fnStepIDs(t, f)
	design := map[string]any{"headline": "Add this", "colors": map[string]any{"accent": "#f60"}, "blocks": []any{"timer", "offer"}}
	for _, c := range []struct {
		method, path string
		body         any
	}{
		{http.MethodPut, fnPath(id) + "/upsell-page", map[string]any{"upsell_page": design}},
		{http.MethodPut, fnStepPagePath(id, steps[1]), map[string]any{"upsell_page": map[string]any{"headline": "Last chance"}}},
	} {
		if r := e.Do(c.method, c.path, admin, c.body).Expect(t, 200); string(r.Raw) != `{"status":true}` {
			t.Fatalf("%s %s answered %s", c.method, c.path, r.Raw)
		}
	}
	got, _ := fnFunnels.get(t, e, admin, id)
	offers := got["offers"].([]any)
	if !reflect.DeepEqual(got["upsell_page"], design) || offers[0].(map[string]any)["upsell_page"] != nil ||
		!reflect.DeepEqual(offers[1].(map[string]any)["upsell_page"], map[string]any{"headline": "Last chance"}) {
		t.Fatalf("designs: %v", got)
	}
	expectAuditRecord(t, e, admin, "action=setFunnelStepUpsellPage&limit=1", "upsell_funnel", id)
	// Clearing a step's design: it inherits the funnel's again (null).
	if r := e.Do(http.MethodDelete, fnStepPagePath(id, steps[1]), admin, nil).Expect(t, 200); string(r.Raw) != `{"status":true}` {
		t.Fatalf("DELETE answered %s", r.Raw)
	}
	if got, _ = fnFunnels.get(t, e, admin, id); got["offers"].([]any)[1].(map[string]any)["upsell_page"] != nil {
		t.Fatalf("cleared: %v", got)
	}
	// GraphQL sets the same.
	g := e.GraphQL(admin, `mutation($id: Int!, $s: Int!) { setFunnelStepUpsellPage(id: $id, stepId: $s, upsell_page: {headline: "G"}) }`,
		map[string]any{"id": id, "s": steps[0]})
	if g.Body["errors"] != nil || g.Data()["setFunnelStepUpsellPage"] != true {
		t.Fatalf("GraphQL: %s", g.Raw)
	}
	// Not an object, too large, or left out: 400, nothing written.
	big := map[string]any{"text": strings.Repeat("x", 64<<10)}
	for name, body := range map[string]any{
		"an array":  map[string]any{"upsell_page": []any{1}},
		"a string":  map[string]any{"upsell_page": "red"},
		"null":      map[string]any{"upsell_page": nil},
		"left out":  map[string]any{},
		"too large": map[string]any{"upsell_page": big},
		"a stray":   map[string]any{"upsell_page": map[string]any{}, "color": "red"},
	} {
		for _, path := range []string{fnPath(id) + "/upsell-page", fnStepPagePath(id, steps[0])} {
			if r := e.Do(http.MethodPut, path, admin, body); r.Status != 400 {
				t.Fatalf("%s to %s: %d %s", name, path, r.Status, r.Raw)
			}
		}
	}
	if after, _ := fnFunnels.get(t, e, admin, id); !reflect.DeepEqual(after["upsell_page"], design) ||
		!reflect.DeepEqual(after["offers"].([]any)[0].(map[string]any)["upsell_page"], map[string]any{"headline": "G"}) {
		t.Fatalf("a refused design was written: %v", after)
	}
}

// fnInsert saves a funnel of n steps straight through the models: a
// chain, its steps offering a variant and the product in turn, with a checkout page and a zone routing to it.
func fnInsert(t *testing.T, e *apitest.Env, storeID int64, name string, n int, productID int64, variants []int64) int64 {
	t.Helper()
	ctx := context.Background()
	var page, zone int64
	if err := e.DB.NewRaw(`INSERT INTO checkout_pages (store_id, name) VALUES (?, ?) RETURNING id`, storeID, name).Scan(ctx, &page); err != nil {
		t.Fatal(err)
	}
	if err := e.DB.NewRaw(`INSERT INTO checkout_zones (store_id, name, countries) VALUES (?, ?, '{FR}') RETURNING id`, storeID, name).Scan(ctx, &zone); err != nil {
		t.Fatal(err)
	}
	f := &models.UpsellFunnel{StoreID: storeID, Name: name, Enabled: true, TimeoutSeconds: 600, CheckoutPageID: &page}
	steps := make([]models.FunnelStep, n)
	for i := range steps {
		offer := models.FunnelOffer{ProductID: productID, Quantity: 1}
		if i%2 == 0 {
			offer.VariantID = &variants[i%len(variants)]
		}
		steps[i] = models.FunnelStep{Position: int64(i + 1), Name: fmt.Sprintf("S%d", i+1), Type: models.StepUpsell, Offer: offer}
		if i+1 < n {
			steps[i].AcceptNextPosition = int64Ptr(int64(i + 2))
		}
	}
	if err := models.SaveUpsellFunnel(ctx, e.DB, f, steps); err != nil {
		t.Fatal(err)
	}
	if _, err := e.DB.NewRaw(`INSERT INTO checkout_zone_funnels (store_id, zone_id, funnel_id, weight, position) VALUES (?, ?, ?, 1, 0)`, storeID, zone, f.ID).Exec(ctx); err != nil {
		t.Fatal(err)
	}
	return f.ID
}

// TestUpsellFunnelStatementsDoNotGrowWithRows: a list of funnels with
// their steps, the steps' products and variants, the checkout pages and
// the zones costs as many statements for 40 funnels as for 5, and one
// funnel of 10 steps as many as one of a step, on both surfaces.
func TestUpsellFunnelStatementsDoNotGrowWithRows(t *testing.T) {
	e, s, admin := newAcme(t)
	mug, variants := fnProduct(t, e, admin, "Mug", 1500, 1800, 2100)
	var one, ten int64
	for i := range 40 {
		n := 1 + i%10
		id := fnInsert(t, e, s.ID, fmt.Sprintf("F%d", i), n, mug, variants)
		switch n {
		case 1:
			one = id
		case 10:
			ten = id
		}
	}
	e.Do(http.MethodGet, "/store", admin, nil).Expect(t, 200) // records the key's last use
	count := countStatements(e)
	const graph = `offers { id config product { id title } variant { id price_cents } } checkout_page { id name } zones { zone_id zone_name weight }`
	list := map[int]int64{}
	for _, n := range []int{5, 40} {
		list[n] = count(func() {
			g := e.GraphQL(admin, `query($n: Int) { upsellFunnels(limit: $n) { id `+graph+` } }`, map[string]any{"n": n})
			rows, _ := g.Data()["upsellFunnels"].([]any)
			if g.Body["errors"] != nil || len(rows) != n {
				t.Fatalf("listed %d, want %d: %s", len(rows), n, g.Raw)
			}
			last := rows[n-1].(map[string]any)
			if last["checkout_page"] == nil || len(last["zones"].([]any)) != 1 || last["offers"].([]any)[0].(map[string]any)["product"] == nil {
				t.Fatalf("funnel %v", last)
			}
		})
	}
	rest := map[int]int64{}
	for _, n := range []int{5, 40} {
		rest[n] = count(func() {
			if rows, _, _ := fnFunnels.list(t, e, admin, "limit="+strconv.Itoa(n)); len(rows) != n {
				t.Fatalf("REST list of %d: %d", n, len(rows))
			}
		})
	}
	one1 := map[int64]int64{}
	for _, id := range []int64{one, ten} {
		one1[id] = count(func() {
			g := e.GraphQL(admin, `query($id: Int!) { upsellFunnel(id: $id) { `+graph+` } }`, map[string]any{"id": id})
			if g.Body["errors"] != nil {
				t.Fatalf("funnel: %s", g.Raw)
			}
		})
	}
	restOne := map[int64]int64{}
	for _, id := range []int64{one, ten} {
		restOne[id] = count(func() {
			if f, _ := fnFunnels.get(t, e, admin, id); len(f["offers"].([]any)) == 0 {
				t.Fatal("no offers")
			}
		})
	}
	t.Logf("statements: GraphQL list 5 → %d, 40 → %d; REST list 5 → %d, 40 → %d; GraphQL funnel of 1 step → %d, 10 → %d; REST → %d, %d",
		list[5], list[40], rest[5], rest[40], one1[one], one1[ten], restOne[one], restOne[ten])
	if list[5] != list[40] || rest[5] != rest[40] || one1[one] != one1[ten] || restOne[one] != restOne[ten] {
		t.Fatal("statements grow with rows")
	}
}
