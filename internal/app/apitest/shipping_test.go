package apitest_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"storeadmin/internal/app/apitest"
	"storeadmin/internal/auth"
	"storeadmin/internal/base/apperr"
	"storeadmin/models"
)

// The fields of the spec's shipping views, exactly.
var (
	shpZoneKeys = []string{"countries", "default_rate_id", "id", "name", "position", "rates", "region_warning"}
	shpRateKeys = []string{"id", "max_subtotal_cents", "max_weight_grams", "min_subtotal_cents", "min_weight_grams", "name", "position", "price_cents", "zone_id"}
)

func shpZonePath(id int64) string { return "/store/shipping/zones/" + strconv.FormatInt(id, 10) }
func shpRatePath(id int64) string { return "/store/shipping/rates/" + strconv.FormatInt(id, 10) }
func shpRatesPath(zoneID int64) string {
	return "/store/shipping/zones/" + strconv.FormatInt(zoneID, 10) + "/rates"
}

// shpNullableWhole checks that m[k] is null or a whole number.
func shpNullableWhole(t *testing.T, m map[string]any, k string) {
	t.Helper()
	if v, ok := m[k]; !ok {
		t.Fatalf("%s missing from %v", k, m)
	} else if v != nil {
		wholeNumber(t, v)
	}
}

// shpRate checks v against ShippingRateView and returns it.
func shpRate(t *testing.T, v any) map[string]any {
	t.Helper()
	m := objectWithKeys(t, "rate", v, shpRateKeys)
	for _, k := range []string{"id", "zone_id", "position", "price_cents"} {
		wholeNumber(t, m[k])
	}
	for _, k := range []string{"min_weight_grams", "max_weight_grams", "min_subtotal_cents", "max_subtotal_cents"} {
		shpNullableWhole(t, m, k)
	}
	stringField(t, m, "name")
	return m
}

// shpZone checks v against ShippingZoneView and returns it.
func shpZone(t *testing.T, v any) map[string]any {
	t.Helper()
	m := objectWithKeys(t, "zone", v, shpZoneKeys)
	if id := wholeNumber(t, m["id"]); id <= 0 {
		t.Fatalf("zone id %d", id)
	}
	wholeNumber(t, m["position"])
	shpNullableWhole(t, m, "default_rate_id")
	stringField(t, m, "name")
	if w := m["region_warning"]; w != nil {
		stringField(t, m, "region_warning")
	}
	countries, ok := m["countries"].([]any)
	if !ok || len(countries) == 0 {
		t.Fatalf("countries = %#v", m["countries"])
	}
	for _, c := range countries {
		if _, ok := c.(string); !ok {
			t.Fatalf("country %#v is not a string", c)
		}
	}
	rates, ok := m["rates"].([]any)
	if !ok {
		t.Fatalf("rates = %#v", m["rates"])
	}
	for _, r := range rates {
		if shpRate(t, r)["zone_id"] != m["id"] {
			t.Fatalf("zone %v lists a rate of zone %v", m["id"], r.(map[string]any)["zone_id"])
		}
	}
	return m
}

// The REST resources of shipping: zones, and the rates of a zone.
var (
	shpZones = crudResource{path: "/store/shipping/zones", item: shpZonePath, one: "zone", many: "zones", view: shpZone}
	shpRates = crudResource{path: "/store/shipping/rates", item: shpRatePath, one: "rate", view: shpRate}
)

// shpCreateRate adds a rate to a zone over REST and returns the view.
func shpCreateRate(t *testing.T, e *apitest.Env, key string, zoneID int64, body any) map[string]any {
	t.Helper()
	r, _ := shpRates.send(t, e, key, http.MethodPost, shpRatesPath(zoneID), body, 201, shpRate)
	return r
}

func shpStrings(v any) []string {
	out := []string{}
	for _, x := range v.([]any) {
		out = append(out, x.(string))
	}
	return out
}

func shpRateIDs(t *testing.T, z map[string]any) []int64 {
	t.Helper()
	out := []int64{}
	for _, r := range z["rates"].([]any) {
		out = append(out, wholeNumber(t, r.(map[string]any)["id"]))
	}
	return out
}

// TestShippingZonesAndRates: the life of zones and rates over REST, with
// the same answers on GraphQL.
func TestShippingZonesAndRates(t *testing.T) {
	e, s, admin := newAcme(t)
	reader := e.Key(s.ID, auth.RoleStaff, "shipping:read")

	// Countries are trimmed, upper-cased and de-duplicated; the first zone
	// sits at position 0, the next after it.
	eu := shpZones.create(t, e, admin, map[string]any{"name": "  Europe ", "countries": []string{" fr", "de", "FR", "It"}})
	euID := idOf(t, eu)
	want := map[string]any{"id": float64(euID), "name": "Europe", "countries": []any{"FR", "DE", "IT"}, "position": float64(0),
		"default_rate_id": nil, "rates": []any{}, "region_warning": nil}
	if !reflect.DeepEqual(eu, want) {
		t.Fatalf("created %v\nwant %v", eu, want)
	}
	world := shpZones.create(t, e, admin, map[string]any{"name": "Rest of world", "countries": []string{"*"}})
	worldID := idOf(t, world)
	if world["position"] != float64(1) || !slices.Equal(shpStrings(world["countries"]), []string{"*"}) {
		t.Fatalf("second zone: %v", world)
	}
	us := shpZones.create(t, e, admin, map[string]any{"name": "Domestic", "countries": []string{"US"}, "position": 0})
	usID := idOf(t, us)

	// Rates: positions follow the zone's last; bounds left out are null.
	std := shpCreateRate(t, e, admin, euID, map[string]any{"name": " Standard ", "price_cents": 900, "max_weight_grams": 2000})
	stdID := idOf(t, std)
	wantRate := map[string]any{"id": float64(stdID), "zone_id": float64(euID), "name": "Standard", "price_cents": float64(900), "position": float64(0),
		"min_weight_grams": nil, "max_weight_grams": float64(2000), "min_subtotal_cents": nil, "max_subtotal_cents": nil}
	if !reflect.DeepEqual(std, wantRate) {
		t.Fatalf("rate %v\nwant %v", std, wantRate)
	}
	express := shpCreateRate(t, e, admin, euID, map[string]any{"name": "Express", "price_cents": 2500})
	expressID := idOf(t, express)
	free := shpCreateRate(t, e, admin, euID, map[string]any{"name": "Free over 100", "price_cents": 0, "min_subtotal_cents": 10000,
		"min_weight_grams": 0, "max_weight_grams": 0, "position": 7})
	freeID := idOf(t, free)
	if express["position"] != float64(1) || free["position"] != float64(7) || free["min_weight_grams"] != float64(0) || free["max_weight_grams"] != float64(0) {
		t.Fatalf("express %v, free %v", express, free)
	}
	next := shpCreateRate(t, e, admin, euID, map[string]any{"name": "Economy", "price_cents": 500})
	if next["position"] != float64(8) {
		t.Fatalf("a rate after position 7 got %v", next["position"])
	}
	e.Do(http.MethodDelete, shpRatePath(idOf(t, next)), admin, nil).Expect(t, 200)
	usRate := shpCreateRate(t, e, admin, usID, map[string]any{"name": "Ground", "price_cents": 700})
	if usRate["position"] != float64(0) {
		t.Fatalf("the first rate of another zone got position %v", usRate["position"])
	}

	// The list: by position then id, each zone with its rates by position.
	zones, total, list := shpZones.list(t, e, reader, "")
	if total != 3 || !slices.Equal(rowIDs(zones), []int64{euID, usID, worldID}) {
		t.Fatalf("list %v (total %d), want [%d %d %d]", rowIDs(zones), total, euID, usID, worldID)
	}
	if got := shpRateIDs(t, zones[0]); !slices.Equal(got, []int64{stdID, expressID, freeID}) {
		t.Fatalf("Europe's rates %v, want %v", got, []int64{stdID, expressID, freeID})
	}
	e.SameOnGraphQL(t, list, reader, "ListShippingZones", nil)
	_, _, page := shpZones.list(t, e, reader, "limit=1&offset=1")
	if rows := page.List("zones"); len(rows) != 1 || wholeNumber(t, rows[0].(map[string]any)["id"]) != usID || page.Body["total"] != float64(3) {
		t.Fatalf("page: %s", page.Raw)
	}
	e.SameOnGraphQL(t, page, reader, "ListShippingZones", map[string]any{"limit": 1, "offset": 1})

	// GraphQL reads one zone too.
	g := e.GraphQL(reader, `query($id: Int!) { shippingZone(id: $id) { id name rates { id } } }`, map[string]any{"id": euID})
	if gz, _ := g.Data()["shippingZone"].(map[string]any); g.Body["errors"] != nil || gz["name"] != "Europe" || len(gz["rates"].([]any)) != 3 {
		t.Fatalf("shippingZone: %s", g.Raw)
	}

	// Zone updates merge: what is left out stays.
	u, _ := shpZones.put(t, e, admin, euID, map[string]any{"name": "EU"})
	eu = shpZones.byID(t, e, admin, euID)
	if u["name"] != "EU" || !slices.Equal(shpStrings(u["countries"]), []string{"FR", "DE", "IT"}) || !reflect.DeepEqual(u, eu) {
		t.Fatalf("rename: %v\nlisted %v", u, eu)
	}
	u, _ = shpZones.put(t, e, admin, euID, map[string]any{})
	if !reflect.DeepEqual(u, eu) {
		t.Fatalf("an empty update changed the zone:\n got  %v\n want %v", u, eu)
	}
	u, put := shpZones.put(t, e, admin, euID, map[string]any{"countries": []string{"es", "pt"}, "position": 5, "default_rate_id": expressID})
	if !slices.Equal(shpStrings(u["countries"]), []string{"ES", "PT"}) || u["position"] != float64(5) || u["default_rate_id"] != float64(expressID) || u["name"] != "EU" {
		t.Fatalf("update: %v", u)
	}
	e.SameOnGraphQL(t, put, admin, "UpdateShippingZone", map[string]any{"id": euID, "input": map[string]any{"default_rate_id": expressID}})
	// default_rate_id must name a rate of this zone.
	for _, bad := range []int64{idOf(t, usRate), 987654} {
		r := e.Do(http.MethodPut, shpZonePath(euID), admin, map[string]any{"default_rate_id": bad}).Expect(t, 400)
		if !strings.Contains(r.Message(), "default_rate_id") || !strings.Contains(r.Message(), strconv.FormatInt(bad, 10)) {
			t.Fatalf("message %q", r.Message())
		}
	}
	// Left out keeps the default; null clears it.
	if u, _ = shpZones.put(t, e, admin, euID, map[string]any{"name": "Europe"}); u["default_rate_id"] != float64(expressID) {
		t.Fatalf("default_rate_id left out: %v", u["default_rate_id"])
	}
	if u, _ = shpZones.put(t, e, admin, euID, map[string]any{"default_rate_id": nil}); u["default_rate_id"] != nil {
		t.Fatalf("default_rate_id null: %v", u["default_rate_id"])
	}
	// Deleting the default rate leaves the zone without a default.
	shpZones.put(t, e, admin, euID, map[string]any{"default_rate_id": expressID})
	expectBareDelete(t, e, admin, shpRatePath(expressID))
	eu = shpZones.byID(t, e, admin, euID)
	if eu["default_rate_id"] != nil || !slices.Equal(shpRateIDs(t, eu), []int64{stdID, freeID}) {
		t.Fatalf("after deleting the default rate: %v", eu)
	}
	e.Do(http.MethodPut, shpRatePath(expressID), admin, map[string]any{"name": "x"}).Expect(t, 404)
	e.Do(http.MethodDelete, shpRatePath(expressID), admin, nil).Expect(t, 404)

	// Rate updates merge; null clears a bound, left out keeps it.
	r, _ := shpRates.put(t, e, admin, stdID, map[string]any{"price_cents": 950, "min_weight_grams": 100})
	if r["price_cents"] != float64(950) || r["name"] != "Standard" || r["min_weight_grams"] != float64(100) || r["max_weight_grams"] != float64(2000) || r["position"] != float64(0) {
		t.Fatalf("rate update: %v", r)
	}
	r, _ = shpRates.put(t, e, admin, stdID, map[string]any{"max_weight_grams": nil, "min_subtotal_cents": 1000, "max_subtotal_cents": 1000})
	if r["max_weight_grams"] != nil || r["min_weight_grams"] != float64(100) || r["min_subtotal_cents"] != float64(1000) || r["max_subtotal_cents"] != float64(1000) {
		t.Fatalf("null clears max_weight_grams: %v", r)
	}
	r, putRate := shpRates.put(t, e, admin, stdID, map[string]any{"name": "Standard", "position": 3})
	if r["min_subtotal_cents"] != float64(1000) || r["position"] != float64(3) {
		t.Fatalf("left out keeps: %v", r)
	}
	e.SameOnGraphQL(t, putRate, admin, "UpdateShippingRate", map[string]any{"id": stdID, "input": map[string]any{"position": 3}})
	// On GraphQL a literal null clears too, and a variable null as well.
	g = e.GraphQL(admin, `mutation($id: Int!) { updateShippingRate(id: $id, input: {min_subtotal_cents: null, name: "Std"}) { name min_subtotal_cents max_subtotal_cents } }`,
		map[string]any{"id": stdID})
	if gr, _ := g.Data()["updateShippingRate"].(map[string]any); g.Body["errors"] != nil || gr["name"] != "Std" || gr["min_subtotal_cents"] != nil || gr["max_subtotal_cents"] != float64(1000) {
		t.Fatalf("GraphQL literal null: %s", g.Raw)
	}
	g = e.GraphQL(admin, `mutation($id: Int!, $input: ShippingRateInput!) { updateShippingRate(id: $id, input: $input) { max_subtotal_cents min_weight_grams } }`,
		map[string]any{"id": stdID, "input": map[string]any{"max_subtotal_cents": nil}})
	if gr, _ := g.Data()["updateShippingRate"].(map[string]any); g.Body["errors"] != nil || gr["max_subtotal_cents"] != nil || gr["min_weight_grams"] != float64(100) {
		t.Fatalf("GraphQL variable null: %s", g.Raw)
	}
	g = e.GraphQL(admin, `mutation($id: Int!, $d: Int) { updateShippingZone(id: $id, input: {default_rate_id: $d}) { default_rate_id } }`,
		map[string]any{"id": euID, "d": stdID})
	if gz, _ := g.Data()["updateShippingZone"].(map[string]any); g.Body["errors"] != nil || gz["default_rate_id"] != float64(stdID) {
		t.Fatalf("GraphQL default_rate_id: %s", g.Raw)
	}
	g = e.GraphQL(admin, `mutation($id: Int!, $d: Int) { updateShippingZone(id: $id, input: {default_rate_id: $d}) { default_rate_id } }`,
		map[string]any{"id": euID, "d": nil})
	if gz, _ := g.Data()["updateShippingZone"].(map[string]any); g.Body["errors"] != nil || gz["default_rate_id"] != nil {
		t.Fatalf("GraphQL default_rate_id through a null variable: %s", g.Raw)
	}

	// A create through GraphQL answers what REST does.
	g = e.GraphQL(admin, `mutation($z: Int!) { createShippingRate(zoneId: $z, input: {name: "Pickup", price_cents: 0}) { zone_id position min_weight_grams } }`,
		map[string]any{"z": usID})
	if gr, _ := g.Data()["createShippingRate"].(map[string]any); g.Body["errors"] != nil || gr["zone_id"] != float64(usID) || gr["position"] != float64(1) || gr["min_weight_grams"] != nil {
		t.Fatalf("GraphQL createShippingRate: %s", g.Raw)
	}

	// The writes name their records in the audit log.
	expectAuditRecord(t, e, admin, "action=updateShippingZone&limit=1", "shipping_zone", euID)
	expectAuditRecord(t, e, admin, "action=updateShippingRate&limit=1", "shipping_rate", stdID)

	// Deleting a zone deletes its rates, its default rate too.
	shpZones.put(t, e, admin, euID, map[string]any{"default_rate_id": stdID})
	expectBareDelete(t, e, admin, shpZonePath(euID))
	if n, err := e.DB.NewSelect().TableExpr("shipping_rates").Where("zone_id = ?", euID).Count(context.Background()); err != nil || n != 0 {
		t.Fatalf("%d rates of the deleted zone remain (%v)", n, err)
	}
	e.Do(http.MethodPut, shpRatePath(stdID), admin, map[string]any{"name": "x"}).Expect(t, 404)
	e.Do(http.MethodPut, shpZonePath(euID), admin, map[string]any{"name": "x"}).Expect(t, 404)
	e.Do(http.MethodDelete, shpZonePath(euID), admin, nil).Expect(t, 404)
	e.Do(http.MethodPost, shpRatesPath(euID), admin, map[string]any{"name": "x", "price_cents": 1}).Expect(t, 404)
	expectGraphQLCode(t, e, admin, "NOT_FOUND", map[string]any{"id": euID}, `query($id: Int!) { shippingZone(id: $id) { id } }`)
	if zones, total, _ := shpZones.list(t, e, admin, ""); total != 2 || !slices.Equal(rowIDs(zones), []int64{usID, worldID}) {
		t.Fatalf("after delete: %v (total %d)", rowIDs(zones), total)
	}
}

// TestShippingRegionWarning: a zone that shares countries with another says
// so, naming the other zone and which comes first; the warning goes once
// the overlap is fixed.
func TestShippingRegionWarning(t *testing.T) {
	e, _, admin := newAcme(t)
	a := idOf(t, shpZones.create(t, e, admin, map[string]any{"name": "Europe", "countries": []string{"FR", "DE", "IT"}}))
	b := shpZones.create(t, e, admin, map[string]any{"name": "EU core", "countries": []string{"DE", "FR", "BE"}})
	bID := idOf(t, b)
	if want := fmt.Sprintf("DE and FR are also in zone Europe (%d), which comes first", a); b["region_warning"] != want {
		t.Fatalf("created zone's warning %q, want %q", b["region_warning"], want)
	}
	c := idOf(t, shpZones.create(t, e, admin, map[string]any{"name": "South", "countries": []string{"IT", "ES", "PT", "*"}}))
	shpZones.create(t, e, admin, map[string]any{"name": "Alone", "countries": []string{"JP"}})
	w := idOf(t, shpZones.create(t, e, admin, map[string]any{"name": "World", "countries": []string{"*"}}))

	zones, _, list := shpZones.list(t, e, admin, "")
	warnings := map[int64]any{}
	for _, z := range zones {
		warnings[idOf(t, z)] = z["region_warning"]
	}
	want := map[int64]string{
		a:   fmt.Sprintf("FR and DE are also in zone EU core (%d), which comes later; IT is also in zone South (%d), which comes later", bID, c),
		bID: fmt.Sprintf("DE and FR are also in zone Europe (%d), which comes first", a),
		c:   fmt.Sprintf("IT is also in zone Europe (%d), which comes first; * is also in zone World (%d), which comes later", a, w),
		w:   fmt.Sprintf("* is also in zone South (%d), which comes first", c),
	}
	for _, z := range zones {
		id := idOf(t, z)
		if wt, ok := want[id]; ok && z["region_warning"] != wt {
			t.Fatalf("zone %v: warning %q\nwant %q", z["name"], z["region_warning"], wt)
		} else if !ok && z["region_warning"] != nil {
			t.Fatalf("zone %v: warning %q, want none", z["name"], z["region_warning"])
		}
	}
	e.SameOnGraphQL(t, list, admin, "ListShippingZones", nil)
	// Moving a zone behind the others flips "first" and "later" (equal
	// positions go by id).
	u, _ := shpZones.put(t, e, admin, a, map[string]any{"position": 9})
	if want := fmt.Sprintf("FR and DE are also in zone EU core (%d), which comes first; IT is also in zone South (%d), which comes first", bID, c); u["region_warning"] != want {
		t.Fatalf("moved last: %q\nwant %q", u["region_warning"], want)
	}
	if z := shpZones.byID(t, e, admin, bID); z["region_warning"] != fmt.Sprintf("DE and FR are also in zone Europe (%d), which comes later", a) {
		t.Fatalf("the other zone after the move: %v", z["region_warning"])
	}
	// Fixing the overlaps clears the warnings, on the zone written and on
	// the others.
	u, _ = shpZones.put(t, e, admin, bID, map[string]any{"countries": []string{"BE", "NL"}, "position": 1})
	if u["region_warning"] != nil {
		t.Fatalf("after the fix: %v", u["region_warning"])
	}
	shpZones.put(t, e, admin, c, map[string]any{"countries": []string{"ES", "PT"}})
	for _, z := range func() []map[string]any { z, _, _ := shpZones.list(t, e, admin, ""); return z }() {
		if z["region_warning"] != nil {
			t.Fatalf("zone %v still warns %q", z["name"], z["region_warning"])
		}
	}
	// A deleted zone warns no more either.
	shpZones.put(t, e, admin, c, map[string]any{"countries": []string{"ES", "FR"}})
	if z := shpZones.byID(t, e, admin, a); z["region_warning"] == nil {
		t.Fatal("no warning for FR in two zones")
	}
	e.Do(http.MethodDelete, shpZonePath(c), admin, nil).Expect(t, 200)
	if z := shpZones.byID(t, e, admin, a); z["region_warning"] != nil {
		t.Fatalf("warning after the other zone was deleted: %v", z["region_warning"])
	}
	// Another store's zones never count.
	o := e.Store("Other")
	shpZones.create(t, e, e.Key(o.ID, auth.RoleAdmin), map[string]any{"name": "Theirs", "countries": []string{"FR", "DE", "IT", "*"}})
	if z := shpZones.byID(t, e, admin, a); z["region_warning"] != nil {
		t.Fatalf("another store's zone makes a warning: %v", z["region_warning"])
	}
}

// insertShippingZone stores a zone with its rates straight through the models.
func insertShippingZone(t *testing.T, e *apitest.Env, storeID int64, name string, position int64, countries []string, rates ...models.ShippingRate) (int64, []int64) {
	t.Helper()
	ctx := context.Background()
	z := &models.ShippingZone{StoreID: storeID, Name: name, Countries: countries, Position: position}
	if err := models.InsertShippingZone(ctx, e.DB, z); err != nil {
		t.Fatal(err)
	}
	var ids []int64
	for i := range rates {
		rates[i].StoreID, rates[i].ZoneID = storeID, z.ID
		if err := models.InsertShippingRate(ctx, e.DB, &rates[i]); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, rates[i].ID)
	}
	return z.ID, ids
}

// TestShippingMatchingRates: the zone of a country is the first by
// position that lists it, else the first that lists "*"; its rates whose
// inclusive bounds hold the weight and the subtotal match, cheapest first.
func TestShippingMatchingRates(t *testing.T) {
	e := apitest.New(t)
	ctx := context.Background()
	s := e.Store("Acme")
	// The world zone comes first: a zone that names the country still wins.
	_, worldRates := insertShippingZone(t, e, s.ID, "World", 0, []string{"*"},
		models.ShippingRate{Name: "International", PriceCents: 3000})
	_, usRates := insertShippingZone(t, e, s.ID, "Domestic", 1, []string{"US", "PR"},
		models.ShippingRate{Name: "Standard", PriceCents: 500, Position: 0, MaxWeightGrams: int64Ptr(1000)},
		models.ShippingRate{Name: "Heavy", PriceCents: 900, Position: 1, MinWeightGrams: int64Ptr(1001)},
		models.ShippingRate{Name: "Express", PriceCents: 1500, Position: 2},
		models.ShippingRate{Name: "Free", PriceCents: 0, Position: 3, MinSubtotalCents: int64Ptr(7500)},
		models.ShippingRate{Name: "Small orders", PriceCents: 500, Position: 4, MaxSubtotalCents: int64Ptr(2000), MinSubtotalCents: int64Ptr(0)},
	)
	std, heavy, express, free, small := usRates[0], usRates[1], usRates[2], usRates[3], usRates[4]
	// A later zone listing the US never serves it.
	_, lateRates := insertShippingZone(t, e, s.ID, "Late US", 2, []string{"US", "FR"}, models.ShippingRate{Name: "Never for the US", PriceCents: 1})
	_, euRates := insertShippingZone(t, e, s.ID, "Europe", 3, []string{"DE", "AT"},
		models.ShippingRate{Name: "EU", PriceCents: 1200, MinWeightGrams: int64Ptr(10), MaxWeightGrams: int64Ptr(10)})
	// Another store's zones are not this store's.
	o := e.Store("Other")
	insertShippingZone(t, e, o.ID, "Theirs", 0, []string{"JP", "CA"}, models.ShippingRate{Name: "Theirs", PriceCents: 1})

	match := func(country string, weight, subtotal int64) []int64 {
		t.Helper()
		rates, err := models.MatchingShippingRates(ctx, e.DB, s.ID, country, weight, subtotal)
		if err != nil {
			t.Fatal(err)
		}
		ids := []int64{}
		for _, r := range rates {
			if r.StoreID != s.ID {
				t.Fatalf("rate %d of store %d", r.ID, r.StoreID)
			}
			ids = append(ids, r.ID)
		}
		return ids
	}
	for _, c := range []struct {
		name             string
		country          string
		weight, subtotal int64
		want             []int64
	}{
		{"light, small order: cheapest first, then by position", "US", 500, 1500, []int64{std, small, express}},
		{"the weight bound is inclusive", "US", 1000, 5000, []int64{std, express}},
		{"one gram over", "US", 1001, 5000, []int64{heavy, express}},
		{"the subtotal bound is inclusive", "us", 1001, 7500, []int64{free, heavy, express}},
		{"max subtotal inclusive", " Us ", 0, 2000, []int64{std, small, express}},
		{"another country of the zone", "PR", 0, 2001, []int64{std, express}},
		{"a zone listing the country beats an earlier *", "FR", 0, 0, []int64{lateRates[0]}},
		{"a country no zone lists goes to *", "JP", 0, 0, []int64{worldRates[0]}},
		{"exact bounds, min = max", "DE", 10, 0, []int64{euRates[0]}},
		{"outside them", "AT", 11, 0, []int64{}},
		{"no country", "", 0, 0, []int64{}},
		{"* is no country", "*", 0, 0, []int64{}},
	} {
		if got := match(c.country, c.weight, c.subtotal); !slices.Equal(got, c.want) {
			t.Errorf("%s: %s %dg %d¢ matched %v, want %v", c.name, c.country, c.weight, c.subtotal, got, c.want)
		}
	}
	// Without a "*" zone, a country no zone lists matches nothing.
	if err := models.DeleteShippingZone(ctx, e.DB, s.ID, mustZoneOf(t, e, worldRates[0])); err != nil {
		t.Fatal(err)
	}
	if got := match("JP", 0, 0); len(got) != 0 {
		t.Errorf("JP without a world zone matched %v", got)
	}
	if got := match("FR", 0, 0); !slices.Equal(got, lateRates) {
		t.Errorf("FR still goes to the zone listing it: %v", got)
	}

	// GetShippingRate is scoped to the store.
	r, err := models.GetShippingRate(ctx, e.DB, s.ID, std)
	if err != nil || r.Name != "Standard" || *r.MaxWeightGrams != 1000 {
		t.Fatalf("GetShippingRate: %+v, %v", r, err)
	}
	if _, err := models.GetShippingRate(ctx, e.DB, o.ID, std); !isNotFound(err) {
		t.Fatalf("another store's rate: %v", err)
	}
	// The zone's default rate, and the pick a draft gets.
	zoneID := mustZoneOf(t, e, std)
	if def, err := models.ZoneDefaultRateID(ctx, e.DB, s.ID, zoneID); err != nil || def != nil {
		t.Fatalf("no default: %v, %v", def, err)
	}
	if _, err := e.DB.NewUpdate().Table("shipping_zones").Set("default_rate_id = ?", express).Where("id = ?", zoneID).Exec(ctx); err != nil {
		t.Fatal(err)
	}
	def, err := models.ZoneDefaultRateID(ctx, e.DB, s.ID, zoneID)
	if err != nil || def == nil || *def != express {
		t.Fatalf("default: %v, %v", def, err)
	}
	if def, err := models.ZoneDefaultRateID(ctx, e.DB, o.ID, zoneID); err != nil || def != nil {
		t.Fatalf("another store's zone: %v, %v", def, err)
	}
	rates, _ := models.MatchingShippingRates(ctx, e.DB, s.ID, "US", 100, 100)
	if p := models.DefaultShippingRate(rates, def); p == nil || p.ID != express {
		t.Fatalf("default pick %+v", p)
	}
	if p := models.DefaultShippingRate(rates, int64Ptr(heavy)); p == nil || p.ID != std {
		t.Fatalf("a default that does not match falls back to the cheapest: %+v", p)
	}
	if p := models.DefaultShippingRate(nil, def); p != nil {
		t.Fatalf("no rates: %+v", p)
	}
}

func mustZoneOf(t *testing.T, e *apitest.Env, rateID int64) int64 {
	t.Helper()
	var z int64
	if err := e.DB.NewSelect().Table("shipping_rates").Column("zone_id").Where("id = ?", rateID).Scan(context.Background(), &z); err != nil {
		t.Fatal(err)
	}
	return z
}

func isNotFound(err error) bool {
	var ae *apperr.Error
	return errors.As(err, &ae) && ae.Code == apperr.NotFound
}

// TestShippingAccess: reads are shipping:read (any role), writes are
// shipping:write and admin; no key is 401.
func TestShippingAccess(t *testing.T) {
	e, s, admin := newAcme(t)
	zoneID := idOf(t, shpZones.create(t, e, admin, map[string]any{"name": "Z", "countries": []string{"US"}}))
	rateID := idOf(t, shpCreateRate(t, e, admin, zoneID, map[string]any{"name": "R", "price_cents": 100}))

	otherScope := e.Key(s.ID, auth.RoleAdmin, "tax:read", "tax:write")

	reads := []apitest.Call{{Method: http.MethodGet, Path: "/store/shipping/zones"}}
	writes := []apitest.Call{
		{Method: http.MethodPost, Path: "/store/shipping/zones", Body: map[string]any{"name": "Z2", "countries": []string{"CA"}}},
		{Method: http.MethodPut, Path: shpZonePath(zoneID), Body: map[string]any{"name": "x"}},
		{Method: http.MethodPost, Path: shpRatesPath(zoneID), Body: map[string]any{"name": "R2", "price_cents": 1}},
		{Method: http.MethodPut, Path: shpRatePath(rateID), Body: map[string]any{"name": "x"}},
		{Method: http.MethodDelete, Path: shpRatePath(rateID)},
		{Method: http.MethodDelete, Path: shpZonePath(zoneID)},
	}
	k := checkAccess(t, e, s.ID, "shipping", map[string]string{"other scope": otherScope}, reads, writes)
	// Access is checked before the body is read.
	e.Do(http.MethodPost, "/store/shipping/zones", k.readOnly, `{"name": `).Expect(t, 403)
	e.Do(http.MethodPost, "/store/shipping/zones", "", `{"name": `).Expect(t, 401)
	e.Do(http.MethodPut, shpRatePath(rateID), k.staffWrite, `{"price_cents": -1}`).Expect(t, 403)
	expectGraphQLCode(t, e, k.readOnly, "FORBIDDEN", nil, `mutation { createShippingZone(input: {name: "x", countries: ["US"]}) { id } }`)
	expectGraphQLCode(t, e, k.staffWrite, "FORBIDDEN", nil, `mutation { deleteShippingRate(id: 1) }`)
	expectGraphQLCode(t, e, otherScope, "FORBIDDEN", nil, `{ shippingZones { id } }`)
	expectGraphQLCode(t, e, "", "UNAUTHENTICATED", nil, `{ shippingZonesCount }`)
	if zones, total, _ := shpZones.list(t, e, admin, ""); total != 1 || zones[0]["name"] != "Z" || len(zones[0]["rates"].([]any)) != 1 {
		t.Fatalf("a refused write was written: %v", zones)
	}
	// The write scope holds the read; the writer may write.
	e.Do(http.MethodPut, shpRatePath(rateID), k.writer, map[string]any{"name": "x"}).Expect(t, 200)
	e.Do(http.MethodPost, shpRatesPath(zoneID), k.writer, map[string]any{"name": "R2", "price_cents": 1}).Expect(t, 201)
	e.Do(http.MethodDelete, shpRatePath(rateID), k.writer, nil).Expect(t, 200)
	e.Do(http.MethodDelete, shpZonePath(zoneID), k.writer, nil).Expect(t, 200)
	e.Do(http.MethodPost, "/store/shipping/zones", k.writer, map[string]any{"name": "Z2", "countries": []string{"CA"}}).Expect(t, 201)

	// Missing and malformed ids.
	e.ExpectEach(t, 404, map[string]string{"admin": admin}, []apitest.Call{
		{Method: http.MethodPut, Path: shpZonePath(987654), Body: map[string]any{"name": "x"}},
		{Method: http.MethodDelete, Path: shpZonePath(987654)},
		{Method: http.MethodPost, Path: shpRatesPath(987654), Body: map[string]any{"name": "x", "price_cents": 1}},
		{Method: http.MethodPut, Path: shpRatePath(987654), Body: map[string]any{"name": "x"}},
		{Method: http.MethodDelete, Path: shpRatePath(987654)},
	})
	e.Do(http.MethodPut, "/store/shipping/zones/abc", admin, map[string]any{"name": "x"}).Expect(t, 400)
	e.Do(http.MethodPost, "/store/shipping/zones/1.5/rates", admin, map[string]any{"name": "x", "price_cents": 1}).Expect(t, 400)
	e.Do(http.MethodDelete, "/store/shipping/rates/x", admin, nil).Expect(t, 400)
}

// TestShippingOtherStore: another store's zones and rates are 404s
// everywhere, never listed, and stay as they were.
func TestShippingOtherStore(t *testing.T) {
	e := apitest.New(t)
	a, b := e.Store("Acme"), e.Store("Bolt")
	aKey, bKey := e.Key(a.ID, auth.RoleAdmin), e.Key(b.ID, auth.RoleAdmin)
	theirZone := idOf(t, shpZones.create(t, e, bKey, map[string]any{"name": "Theirs", "countries": []string{"US"}}))
	theirRate := idOf(t, shpCreateRate(t, e, bKey, theirZone, map[string]any{"name": "Theirs", "price_cents": 100}))
	shpZones.put(t, e, bKey, theirZone, map[string]any{"default_rate_id": theirRate})
	theirs, _, _ := shpZones.list(t, e, bKey, "")
	mine := idOf(t, shpZones.create(t, e, aKey, map[string]any{"name": "Mine", "countries": []string{"US"}}))

	e.ExpectEach(t, 404, map[string]string{"this store's key": aKey}, []apitest.Call{
		{Method: http.MethodPut, Path: shpZonePath(theirZone), Body: map[string]any{"name": "Hijacked"}},
		{Method: http.MethodPut, Path: shpZonePath(theirZone), Body: map[string]any{}},
		{Method: http.MethodDelete, Path: shpZonePath(theirZone)},
		{Method: http.MethodPost, Path: shpRatesPath(theirZone), Body: map[string]any{"name": "Sneaky", "price_cents": 1}},
		{Method: http.MethodPut, Path: shpRatePath(theirRate), Body: map[string]any{"price_cents": 1}},
		{Method: http.MethodDelete, Path: shpRatePath(theirRate)},
	})
	expectGraphQLCode(t, e, aKey, "NOT_FOUND", map[string]any{"id": theirZone},
		`query($id: Int!) { shippingZone(id: $id) { id } }`,
		`mutation($id: Int!) { updateShippingZone(id: $id, input: {name: "x"}) { id } }`,
		`mutation($id: Int!) { deleteShippingZone(id: $id) }`,
		`mutation($id: Int!) { createShippingRate(zoneId: $id, input: {name: "x", price_cents: 1}) { id } }`)
	expectGraphQLCode(t, e, aKey, "NOT_FOUND", map[string]any{"id": theirRate},
		`mutation($id: Int!) { updateShippingRate(id: $id, input: {name: "x"}) { id } }`,
		`mutation($id: Int!) { deleteShippingRate(id: $id) }`)
	// Another store's rate cannot be this store's default.
	e.Do(http.MethodPut, shpZonePath(mine), aKey, map[string]any{"default_rate_id": theirRate}).Expect(t, 400)
	if zones, total, _ := shpZones.list(t, e, aKey, ""); total != 1 || idOf(t, zones[0]) != mine || zones[0]["region_warning"] != nil ||
		len(zones[0]["rates"].([]any)) != 0 || zones[0]["default_rate_id"] != nil {
		t.Fatalf("store A lists %v (total %d)", zones, total)
	}
	if got, _, _ := shpZones.list(t, e, bKey, ""); !reflect.DeepEqual(got, theirs) {
		t.Fatalf("store B's zones changed:\n got  %v\n want %v", got, theirs)
	}
}

// TestShippingValidation: bad bodies are 400 on create and update, and
// nothing is written.
func TestShippingValidation(t *testing.T) {
	e, _, admin := newAcme(t)
	long := strings.Repeat("é", 256)
	us := []string{"US"}

	zoneCreate := map[string]any{
		"no body":                    nil,
		"empty object":               map[string]any{},
		"missing name":               map[string]any{"countries": us},
		"blank name":                 map[string]any{"name": "  ", "countries": us},
		"long name":                  map[string]any{"name": long, "countries": us},
		"name not a string":          map[string]any{"name": 5, "countries": us},
		"missing countries":          map[string]any{"name": "x"},
		"null countries":             map[string]any{"name": "x", "countries": nil},
		"no countries":               map[string]any{"name": "x", "countries": []string{}},
		"unknown country":            map[string]any{"name": "x", "countries": []string{"US", "XX"}},
		"UK is not ISO":              map[string]any{"name": "x", "countries": []string{"UK"}},
		"alpha-3":                    map[string]any{"name": "x", "countries": []string{"FRA"}},
		"empty country":              map[string]any{"name": "x", "countries": []string{"US", " "}},
		"a region, not a country":    map[string]any{"name": "x", "countries": []string{"EU"}},
		"countries not strings":      map[string]any{"name": "x", "countries": []any{1}},
		"negative position":          map[string]any{"name": "x", "countries": us, "position": -1},
		"huge position":              map[string]any{"name": "x", "countries": us, "position": 1000001},
		"position not whole":         map[string]any{"name": "x", "countries": us, "position": 1.5},
		"a default rate of nothing":  map[string]any{"name": "x", "countries": us, "default_rate_id": 1},
		"default_rate_id not number": map[string]any{"name": "x", "countries": us, "default_rate_id": "1"},
		"malformed JSON":             `{"name": `,
		"array body":                 `[1]`,
	}
	expectEach400(t, e, admin, "zone create", http.MethodPost, "/store/shipping/zones", zoneCreate)
	if r := e.Do(http.MethodPost, "/store/shipping/zones", admin, zoneCreate["unknown country"]).Expect(t, 400); !strings.Contains(r.Message(), `"XX"`) || !strings.Contains(r.Message(), "countries[1]") {
		t.Fatalf("unknown country message %q", r.Message())
	}
	if _, total, _ := shpZones.list(t, e, admin, ""); total != 0 {
		t.Fatalf("a refused create was written: total %d", total)
	}
	expectGraphQLCode(t, e, admin, "BAD_USER_INPUT", nil, `mutation { createShippingZone(input: {name: "x", countries: ["ZZ"]}) { id } }`)

	// Bounds are inclusive: 255 characters, position 0 and 1000000.
	z := shpZones.create(t, e, admin, map[string]any{"name": strings.Repeat("é", 255), "countries": []string{"*", "us"}, "position": 1000000})
	if !slices.Equal(shpStrings(z["countries"]), []string{"*", "US"}) {
		t.Fatalf("countries %v", z["countries"])
	}
	zoneID := idOf(t, z)
	zoneUpdate := map[string]any{
		"blank name":        map[string]any{"name": ""},
		"long name":         map[string]any{"name": long},
		"no countries":      map[string]any{"countries": []string{}},
		"unknown country":   map[string]any{"countries": []string{"QQ"}},
		"negative position": map[string]any{"position": -5},
		"unknown rate":      map[string]any{"default_rate_id": 987654},
		"malformed JSON":    `{"name"`,
	}
	expectEach400(t, e, admin, "zone update", http.MethodPut, shpZonePath(zoneID), zoneUpdate)
	if got := shpZones.byID(t, e, admin, zoneID); !reflect.DeepEqual(got, z) {
		t.Fatalf("a refused update was written:\n got  %v\n want %v", got, z)
	}

	rateCreate := map[string]any{
		"no body":               nil,
		"empty object":          map[string]any{},
		"missing name":          map[string]any{"price_cents": 100},
		"blank name":            map[string]any{"name": " ", "price_cents": 100},
		"long name":             map[string]any{"name": long, "price_cents": 100},
		"missing price":         map[string]any{"name": "x"},
		"null price":            map[string]any{"name": "x", "price_cents": nil},
		"negative price":        map[string]any{"name": "x", "price_cents": -1},
		"price not a number":    map[string]any{"name": "x", "price_cents": "100"},
		"fractional price":      map[string]any{"name": "x", "price_cents": 9.99},
		"negative min weight":   map[string]any{"name": "x", "price_cents": 1, "min_weight_grams": -1},
		"negative max weight":   map[string]any{"name": "x", "price_cents": 1, "max_weight_grams": -1},
		"negative min subtotal": map[string]any{"name": "x", "price_cents": 1, "min_subtotal_cents": -1},
		"negative max subtotal": map[string]any{"name": "x", "price_cents": 1, "max_subtotal_cents": -1},
		"min weight over max":   map[string]any{"name": "x", "price_cents": 1, "min_weight_grams": 501, "max_weight_grams": 500},
		"min subtotal over max": map[string]any{"name": "x", "price_cents": 1, "min_subtotal_cents": 2, "max_subtotal_cents": 1},
		"negative position":     map[string]any{"name": "x", "price_cents": 1, "position": -1},
		"bound not a number":    map[string]any{"name": "x", "price_cents": 1, "max_weight_grams": "heavy"},
		"malformed JSON":        `{"name": "x", `,
	}
	expectEach400(t, e, admin, "rate create", http.MethodPost, shpRatesPath(zoneID), rateCreate)
	if r := e.Do(http.MethodPost, shpRatesPath(zoneID), admin, rateCreate["min weight over max"]).Expect(t, 400); !strings.Contains(r.Message(), "min_weight_grams (501)") || !strings.Contains(r.Message(), "max_weight_grams (500)") {
		t.Fatalf("bounds message %q", r.Message())
	}
	if got := shpZones.byID(t, e, admin, zoneID); len(got["rates"].([]any)) != 0 {
		t.Fatalf("a refused rate was written: %v", got["rates"])
	}

	// Updates are checked as merged with what is stored.
	rate := shpCreateRate(t, e, admin, zoneID, map[string]any{"name": "R", "price_cents": 0, "min_weight_grams": 100, "max_weight_grams": 100,
		"min_subtotal_cents": 0, "max_subtotal_cents": 5000})
	rateID := idOf(t, rate)
	rateUpdate := map[string]any{
		"min weight over stored max":    map[string]any{"min_weight_grams": 101},
		"max weight under stored min":   map[string]any{"max_weight_grams": 99},
		"max subtotal under stored min": map[string]any{"min_subtotal_cents": 5001},
		"negative price":                map[string]any{"price_cents": -5},
		"blank name":                    map[string]any{"name": ""},
		"negative bound":                map[string]any{"max_subtotal_cents": -1},
		"huge position":                 map[string]any{"position": 99999999999},
	}
	expectEach400(t, e, admin, "rate update", http.MethodPut, shpRatePath(rateID), rateUpdate)
	expectGraphQLCode(t, e, admin, "BAD_USER_INPUT", map[string]any{"id": rateID}, `mutation($id: Int!) { updateShippingRate(id: $id, input: {min_subtotal_cents: 6000}) { id } }`)
	got := shpZones.byID(t, e, admin, zoneID)["rates"].([]any)[0]
	if !reflect.DeepEqual(got, rate) {
		t.Fatalf("a refused rate update was written:\n got  %v\n want %v", got, rate)
	}
	// Both bounds move together; clearing one lifts the check.
	r, _ := shpRates.put(t, e, admin, rateID, map[string]any{"min_weight_grams": 200, "max_weight_grams": 300})
	if r["min_weight_grams"] != float64(200) || r["max_weight_grams"] != float64(300) {
		t.Fatalf("both bounds: %v", r)
	}
	if r, _ = shpRates.put(t, e, admin, rateID, map[string]any{"max_weight_grams": nil, "min_weight_grams": 5000}); r["max_weight_grams"] != nil || r["min_weight_grams"] != float64(5000) {
		t.Fatalf("cleared max: %v", r)
	}
}

// TestShippingListStatementsDoNotGrowWithRows: the rates of a zone list
// load through a dataloader: 40 zones cost as many statements as 5.
func TestShippingListStatementsDoNotGrowWithRows(t *testing.T) {
	e, s, key := newAcme(t)
	for i := range 40 {
		insertShippingZone(t, e, s.ID, "Z"+strconv.Itoa(i), int64(i), []string{"US", "CA"},
			models.ShippingRate{Name: "A", PriceCents: 100}, models.ShippingRate{Name: "B", PriceCents: 200, Position: 1})
	}
	e.Do(http.MethodGet, "/store", key, nil).Expect(t, 200) // records the key's last use
	count := countStatements(e)
	gql, rest := map[int]int64{}, map[int]int64{}
	for _, n := range []int{5, 40} {
		gql[n] = count(func() {
			g := e.GraphQL(key, `query($n: Int) { shippingZones(limit: $n) { id region_warning rates { id } } }`, map[string]any{"n": n})
			rows, _ := g.Data()["shippingZones"].([]any)
			if len(rows) != n || len(rows[n-1].(map[string]any)["rates"].([]any)) != 2 {
				t.Fatalf("listed %d zones: %s", len(rows), g.Raw)
			}
		})
		rest[n] = count(func() {
			zones, _, _ := shpZones.list(t, e, key, "limit="+strconv.Itoa(n))
			if len(zones) != n || len(zones[n-1]["rates"].([]any)) != 2 || zones[0]["region_warning"] == nil {
				t.Fatalf("REST list of %d: %v", n, zones)
			}
		})
	}
	if gql[5] != gql[40] || rest[5] != rest[40] {
		t.Fatalf("statements: GraphQL 5 → %d, 40 → %d; REST 5 → %d, 40 → %d", gql[5], gql[40], rest[5], rest[40])
	}
}
