package apitest_test

import (
	"context"
	"fmt"
	"net/http"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"storeadmin/internal/app/apitest"
	"storeadmin/internal/auth"
	"storeadmin/models"
)

// The fields of the spec's checkout zone views, exactly.
var (
	ckZoneSpec       = map[string]string{"catch_all": "b", "countries": "s[]", "funnels": "list", "id": "i", "name": "s", "position": "i", "region_warning": "s?"}
	ckZoneFunnelSpec = map[string]string{"enabled": "b", "funnel_id": "i", "funnel_name": "s", "position": "i", "weight": "i"}
)

func ckZonePath(id int64) string { return "/store/checkout-zones/" + strconv.FormatInt(id, 10) }

// ckZone checks v against CheckoutZoneView and returns it.
func ckZone(t *testing.T, v any) map[string]any {
	t.Helper()
	z := checkObject(t, "zone", v, ckZoneSpec)
	checkObjects(t, "zone.funnels", z["funnels"], ckZoneFunnelSpec)
	return z
}

// ckZones is the REST resource of checkout zones.
var ckZones = crudResource{path: "/store/checkout-zones", item: ckZonePath, one: "zone", many: "zones", view: ckZone}

// ckFunnel is a zone's funnel as the view answers it.
func ckFunnel(id int64, name string, weight, position int64, enabled bool) map[string]any {
	return map[string]any{"funnel_id": float64(id), "funnel_name": name, "weight": float64(weight), "position": float64(position), "enabled": enabled}
}

// TestCheckoutZones: the life of checkout zones over REST, with the same
// answers on GraphQL: countries, the catch-all, the weighted funnels.
func TestCheckoutZones(t *testing.T) {
	e, s, admin := newAcme(t)
	reader := e.Key(s.ID, auth.RoleStaff, "checkout:read")
	summer := ckInsertFunnel(t, e, s.ID, "Summer upsell", 0, true)
	bundle := ckInsertFunnel(t, e, s.ID, "Bundle builder", 0, true)
	quiet := ckInsertFunnel(t, e, s.ID, "Quiet", 0, false)

	// Countries are trimmed, upper-cased and de-duplicated; funnels take
	// their place in the list unless they send one, and are enabled unless
	// sent false.
	eu := ckZones.create(t, e, admin, map[string]any{"name": " Europe ", "countries": []string{" fr", "de", "FR"},
		"funnels": []any{
			map[string]any{"funnel_id": summer, "weight": 7000},
			map[string]any{"funnel_id": bundle, "weight": 3000, "enabled": false},
			map[string]any{"funnel_id": quiet, "weight": 0, "position": 9},
		}})
	euID := idOf(t, eu)
	want := map[string]any{"id": float64(euID), "name": "Europe", "countries": []any{"FR", "DE"}, "catch_all": false, "position": float64(0),
		"region_warning": nil, "funnels": []any{
			ckFunnel(summer, "Summer upsell", 7000, 0, true), ckFunnel(bundle, "Bundle builder", 3000, 1, false), ckFunnel(quiet, "Quiet", 0, 9, true),
		}}
	if !reflect.DeepEqual(eu, want) {
		t.Fatalf("created %v\nwant %v", eu, want)
	}
	// The catch-all lists no countries; a zone left without funnels has none.
	world := ckZones.create(t, e, admin, map[string]any{"name": "Rest of world", "catch_all": true, "countries": []string{}})
	worldID := idOf(t, world)
	if world["catch_all"] != true || len(world["countries"].([]any)) != 0 || world["position"] != float64(1) || len(world["funnels"].([]any)) != 0 {
		t.Fatalf("catch-all %v", world)
	}
	us := ckZones.create(t, e, admin, map[string]any{"name": "Domestic", "countries": []string{"US"}, "position": 0,
		"funnels": []any{map[string]any{"funnel_id": bundle, "weight": 1}}})
	usID := idOf(t, us)

	// The list: by position, then id, each zone with its funnels.
	zones, total, list := ckZones.list(t, e, reader, "")
	if total != 3 || !slices.Equal(rowIDs(zones), []int64{euID, usID, worldID}) {
		t.Fatalf("list %v (total %d)", rowIDs(zones), total)
	}
	e.SameOnGraphQL(t, list, reader, "ListCheckoutZones", nil)
	_, _, page := ckZones.list(t, e, reader, "limit=1&offset=1")
	if rows := page.List("zones"); len(rows) != 1 || rows[0].(map[string]any)["id"] != float64(usID) {
		t.Fatalf("page 2: %s", page.Raw)
	}
	got, one := ckZones.get(t, e, reader, euID)
	if !reflect.DeepEqual(got, eu) {
		t.Fatalf("GET %v\nwant %v", got, eu)
	}
	e.SameOnGraphQL(t, one, reader, "GetCheckoutZone", map[string]any{"id": euID})
	// A zone read can be sent back as it is: what is read-only is dropped.
	if back, _ := ckZones.put(t, e, admin, euID, got); !reflect.DeepEqual(back, eu) {
		t.Fatalf("PUT of the GET %v\nwant %v", back, eu)
	}

	// Updates merge; funnels sent replace the list whole, null empties it.
	u, put := ckZones.put(t, e, admin, euID, map[string]any{"name": "EU"})
	if u["name"] != "EU" || !reflect.DeepEqual(u["funnels"], eu["funnels"]) || !reflect.DeepEqual(u["countries"], eu["countries"]) {
		t.Fatalf("rename %v", u)
	}
	e.SameOnGraphQL(t, put, admin, "UpdateCheckoutZone", map[string]any{"id": euID, "input": map[string]any{"name": "EU"}})
	u, _ = ckZones.put(t, e, admin, euID, map[string]any{"funnels": []any{map[string]any{"funnel_id": quiet, "weight": 10000, "enabled": true}}})
	if !reflect.DeepEqual(u["funnels"], []any{ckFunnel(quiet, "Quiet", 10000, 0, true)}) {
		t.Fatalf("replaced funnels %v", u["funnels"])
	}
	if u, _ = ckZones.put(t, e, admin, euID, map[string]any{"funnels": nil}); len(u["funnels"].([]any)) != 0 {
		t.Fatalf("null funnels %v", u["funnels"])
	}
	// A zone becomes the catch-all by dropping its countries, and back.
	ckZones.put(t, e, admin, worldID, map[string]any{"catch_all": false, "countries": []string{"JP"}})
	u, _ = ckZones.put(t, e, admin, usID, map[string]any{"catch_all": true, "countries": []string{}})
	if u["catch_all"] != true || len(u["countries"].([]any)) != 0 {
		t.Fatalf("now the catch-all: %v", u)
	}
	// A second catch-all is a conflict naming the first, on create and update.
	for _, c := range []apitest.Call{
		{Method: http.MethodPost, Path: "/store/checkout-zones", Body: map[string]any{"name": "Also world", "catch_all": true}},
		{Method: http.MethodPut, Path: ckZonePath(worldID), Body: map[string]any{"catch_all": true, "countries": []string{}}},
	} {
		r := e.Do(c.Method, c.Path, admin, c.Body).Expect(t, 409)
		if want := fmt.Sprintf("already has a catch-all checkout zone, Domestic (%d)", usID); !strings.Contains(r.Message(), want) {
			t.Fatalf("%s %s: %q", c.Method, c.Path, r.Message())
		}
	}
	expectGraphQLCode(t, e, admin, "CONFLICT", nil, `mutation { createCheckoutZone(input: {name: "w", catch_all: true}) { id } }`)

	// Deleting a zone leaves its funnels; deleting a funnel leaves the zone.
	ckZones.put(t, e, admin, euID, map[string]any{"funnels": []any{map[string]any{"funnel_id": summer, "weight": 1}, map[string]any{"funnel_id": bundle, "weight": 1}}})
	if _, err := e.DB.ExecContext(context.Background(), `DELETE FROM upsell_funnels WHERE id = ?`, summer); err != nil {
		t.Fatal(err)
	}
	if z, _ := ckZones.get(t, e, admin, euID); !reflect.DeepEqual(z["funnels"], []any{ckFunnel(bundle, "Bundle builder", 1, 1, true)}) {
		t.Fatalf("after its funnel went: %v", z["funnels"])
	}
	expectBareDelete(t, e, admin, ckZonePath(euID))
	expectAuditRecord(t, e, admin, "action=deleteCheckoutZone&limit=1", "checkout_zone", euID)
	e.Do(http.MethodGet, ckZonePath(euID), admin, nil).Expect(t, 404)
	e.Do(http.MethodDelete, ckZonePath(euID), admin, nil).Expect(t, 404)
	if n, err := e.DB.NewSelect().Table("upsell_funnels").Where("id = ?", bundle).Count(context.Background()); err != nil || n != 1 {
		t.Fatalf("the funnel went with the zone: %d, %v", n, err)
	}
	expectAuditRecord(t, e, admin, "action=updateCheckoutZone&limit=1", "checkout_zone", euID)
}

// TestCheckoutZoneRegionWarning: a country in two zones is warned about
// on both, as in shipping; the catch-all shares none.
func TestCheckoutZoneRegionWarning(t *testing.T) {
	e, _, admin := newAcme(t)
	a := idOf(t, ckZones.create(t, e, admin, map[string]any{"name": "Europe", "countries": []string{"FR", "DE", "IT"}}))
	b := ckZones.create(t, e, admin, map[string]any{"name": "EU core", "countries": []string{"DE", "FR", "BE"}})
	bID := idOf(t, b)
	if want := fmt.Sprintf("DE and FR are also in zone Europe (%d), which comes first", a); b["region_warning"] != want {
		t.Fatalf("warning %q, want %q", b["region_warning"], want)
	}
	w := ckZones.create(t, e, admin, map[string]any{"name": "World", "catch_all": true})
	if w["region_warning"] != nil {
		t.Fatalf("catch-all warns %v", w["region_warning"])
	}
	if z, _ := ckZones.get(t, e, admin, a); z["region_warning"] != fmt.Sprintf("FR and DE are also in zone EU core (%d), which comes later", bID) {
		t.Fatalf("first zone's warning %v", z["region_warning"])
	}
	ckZones.put(t, e, admin, bID, map[string]any{"countries": []string{"BE"}})
	if z, _ := ckZones.get(t, e, admin, a); z["region_warning"] != nil {
		t.Fatalf("warning after the fix %v", z["region_warning"])
	}
	// Another store's zones never count.
	o := e.Store("Other")
	ckZones.create(t, e, e.Key(o.ID, auth.RoleAdmin), map[string]any{"name": "Theirs", "countries": []string{"FR"}})
	if z, _ := ckZones.get(t, e, admin, a); z["region_warning"] != nil {
		t.Fatalf("another store's zone warns: %v", z["region_warning"])
	}
}

// TestCheckoutZonesValidation: bad bodies are 400 naming the field, on
// create and update, and nothing is written.
func TestCheckoutZonesValidation(t *testing.T) {
	e, s, admin := newAcme(t)
	f := ckInsertFunnel(t, e, s.ID, "F", 0, true)
	o := e.Store("Other")
	theirs := ckInsertFunnel(t, e, o.ID, "Theirs", 0, true)
	us := []string{"US"}
	fn := func(fields ...any) []any {
		m := map[string]any{"funnel_id": f, "weight": 1}
		for i := 0; i < len(fields); i += 2 {
			m[fields[i].(string)] = fields[i+1]
		}
		return []any{m}
	}
	cases := []struct {
		name string
		body any
		says string
	}{
		{"missing name", map[string]any{"countries": us}, "name must not be empty"},
		{"long name", map[string]any{"name": strings.Repeat("é", 256), "countries": us}, "name must be at most 255 characters"},
		{"no countries", map[string]any{"name": "x"}, "countries must list at least one country code"},
		{"empty countries", map[string]any{"name": "x", "countries": []string{}}, "countries must list at least one country code"},
		{"unknown country", map[string]any{"name": "x", "countries": []string{"US", "XX"}}, `countries[1]: "XX" is not an ISO 3166-1 alpha-2 country code`},
		{"* is not a country here", map[string]any{"name": "x", "countries": []string{"*"}}, `countries[0]: "*" is not an ISO 3166-1 alpha-2 country code`},
		{"alpha-3", map[string]any{"name": "x", "countries": []string{"FRA"}}, `countries[0]: "FRA"`},
		{"catch-all with countries", map[string]any{"name": "x", "catch_all": true, "countries": us}, "countries: the catch-all zone lists none"},
		{"negative position", map[string]any{"name": "x", "countries": us, "position": -1}, "position must be between 0 and 1000000"},
		{"negative weight", map[string]any{"name": "x", "countries": us, "funnels": fn("weight", -1)}, "funnels[0].weight must be between 0 and 10000, not -1"},
		{"weight too big", map[string]any{"name": "x", "countries": us, "funnels": fn("weight", 10001)}, "funnels[0].weight must be between 0 and 10000, not 10001"},
		{"weight missing", map[string]any{"name": "x", "countries": us, "funnels": []any{map[string]any{"funnel_id": f}}}, "weight"},
		{"funnel twice", map[string]any{"name": "x", "countries": us, "funnels": append(fn(), fn("weight", 2)...)},
			fmt.Sprintf("funnels[1].funnel_id: funnel %d is listed twice", f)},
		{"unknown funnel", map[string]any{"name": "x", "countries": us, "funnels": fn("funnel_id", 987654)},
			"funnels[0].funnel_id: the store has no upsell funnel with the id 987654"},
		{"another store's funnel", map[string]any{"name": "x", "countries": us, "funnels": fn("funnel_id", theirs)},
			fmt.Sprintf("funnels[0].funnel_id: the store has no upsell funnel with the id %d", theirs)},
		{"bad funnel position", map[string]any{"name": "x", "countries": us, "funnels": fn("position", -3)}, "funnels[0].position must be between 0 and 1000000"},
		{"enabled not a bool", map[string]any{"name": "x", "countries": us, "funnels": fn("enabled", "yes")}, "funnels[0].enabled"},
		{"unknown field", map[string]any{"name": "x", "countries": us, "colour": "red"}, "colour"},
	}
	for _, c := range cases {
		r := e.Do(http.MethodPost, "/store/checkout-zones", admin, c.body)
		if r.Status != 400 || !strings.Contains(r.Message(), c.says) {
			t.Fatalf("%s: %d %q, want 400 saying %q", c.name, r.Status, r.Message(), c.says)
		}
		r.Expect(t, 400)
	}
	if _, total, _ := ckZones.list(t, e, admin, ""); total != 0 {
		t.Fatalf("a refused create was written: %d zones", total)
	}
	expectGraphQLCode(t, e, admin, "BAD_USER_INPUT", nil, `mutation { createCheckoutZone(input: {name: "x", countries: ["ZZ"]}) { id } }`)

	z := ckZones.create(t, e, admin, map[string]any{"name": "Z", "countries": us, "funnels": fn()})
	zID := idOf(t, z)
	expectEach400(t, e, admin, "zone update", http.MethodPut, ckZonePath(zID), map[string]any{
		"blank name":              map[string]any{"name": ""},
		"catch-all, countries":    map[string]any{"catch_all": true},
		"no countries":            map[string]any{"countries": []string{}},
		"null countries":          map[string]any{"countries": nil},
		"another store's funnel":  map[string]any{"funnels": fn("funnel_id", theirs)},
		"negative weight":         map[string]any{"funnels": fn("weight", -5)},
		"malformed JSON":          `{"name": `,
		"countries not a list":    map[string]any{"countries": "US"},
		"huge position":           map[string]any{"position": 1000001},
		"funnel id not a number":  map[string]any{"funnels": []any{map[string]any{"funnel_id": "1", "weight": 1}}},
		"funnels not objects":     map[string]any{"funnels": []any{1}},
		"a funnel without its id": map[string]any{"funnels": []any{map[string]any{"weight": 1}}},
	})
	if got, _ := ckZones.get(t, e, admin, zID); !reflect.DeepEqual(got, z) {
		t.Fatalf("a refused update was written:\n got  %v\n want %v", got, z)
	}
	// Bounds are inclusive.
	ok := ckZones.create(t, e, admin, map[string]any{"name": strings.Repeat("é", 255), "countries": []string{"xk"}, "position": 1000000,
		"funnels": fn("weight", 10000)})
	if !reflect.DeepEqual(ok["countries"], []any{"XK"}) || ok["funnels"].([]any)[0].(map[string]any)["weight"] != float64(10000) {
		t.Fatalf("bounds: %v", ok)
	}
}

// TestCheckoutZonesAccess: reads are checkout:read (any role), writes
// checkout:write and admin; no key is 401; another store's zone is 404.
func TestCheckoutZonesAccess(t *testing.T) {
	e, s, admin := newAcme(t)
	zoneID := idOf(t, ckZones.create(t, e, admin, map[string]any{"name": "Z", "countries": []string{"US"}}))
	otherScope := e.Key(s.ID, auth.RoleAdmin, "shipping:read", "shipping:write")
	reads := []apitest.Call{{Method: http.MethodGet, Path: "/store/checkout-zones"}, {Method: http.MethodGet, Path: ckZonePath(zoneID)}}
	writes := []apitest.Call{
		{Method: http.MethodPost, Path: "/store/checkout-zones", Body: map[string]any{"name": "Z2", "countries": []string{"CA"}}},
		{Method: http.MethodPut, Path: ckZonePath(zoneID), Body: map[string]any{"name": "x"}},
		{Method: http.MethodDelete, Path: ckZonePath(zoneID)},
	}
	k := checkAccess(t, e, s.ID, "checkout", map[string]string{"other scope": otherScope}, reads, writes)
	expectGraphQLCode(t, e, k.readOnly, "FORBIDDEN", nil, `mutation { createCheckoutZone(input: {name: "x", countries: ["US"]}) { id } }`)
	expectGraphQLCode(t, e, otherScope, "FORBIDDEN", nil, `{ checkoutZones { id } }`)
	expectGraphQLCode(t, e, "", "UNAUTHENTICATED", nil, `{ checkoutZonesCount }`)
	if zones, total, _ := ckZones.list(t, e, admin, ""); total != 1 || zones[0]["name"] != "Z" {
		t.Fatalf("a refused write was written: %v", zones)
	}
	e.Do(http.MethodPut, ckZonePath(zoneID), k.writer, map[string]any{"name": "W"}).Expect(t, 200)

	o := e.Store("Other")
	oKey := e.Key(o.ID, auth.RoleAdmin)
	theirFunnel := ckInsertFunnel(t, e, o.ID, "Theirs", 0, true)
	theirs := ckZones.create(t, e, oKey, map[string]any{"name": "Theirs", "countries": []string{"US"},
		"funnels": []any{map[string]any{"funnel_id": theirFunnel, "weight": 5}}})
	theirID := idOf(t, theirs)
	e.ExpectEach(t, 404, map[string]string{"this store's key": admin}, []apitest.Call{
		{Method: http.MethodGet, Path: ckZonePath(theirID)},
		{Method: http.MethodPut, Path: ckZonePath(theirID), Body: map[string]any{"name": "Hijacked"}},
		{Method: http.MethodPut, Path: ckZonePath(theirID), Body: map[string]any{}},
		{Method: http.MethodDelete, Path: ckZonePath(theirID)},
		{Method: http.MethodGet, Path: ckZonePath(987654)},
	})
	expectGraphQLCode(t, e, admin, "NOT_FOUND", map[string]any{"id": theirID},
		`query($id: Int!) { checkoutZone(id: $id) { id } }`,
		`mutation($id: Int!) { updateCheckoutZone(id: $id, input: {name: "x"}) { id } }`,
		`mutation($id: Int!) { deleteCheckoutZone(id: $id) }`)
	if got, _ := ckZones.get(t, e, oKey, theirID); !reflect.DeepEqual(got, theirs) {
		t.Fatalf("their zone changed: %v", got)
	}
	e.Do(http.MethodGet, "/store/checkout-zones/abc", admin, nil).Expect(t, 400)
	e.Do(http.MethodDelete, "/store/checkout-zones/1.5", admin, nil).Expect(t, 400)
}

// TestCheckoutZonesListStatementsDoNotGrowWithRows: the funnels of a zone
// list load for the whole list at once: 40 zones cost as many statements
// as 5.
func TestCheckoutZonesListStatementsDoNotGrowWithRows(t *testing.T) {
	e, s, key := newAcme(t)
	a := ckInsertFunnel(t, e, s.ID, "A", 0, true)
	b := ckInsertFunnel(t, e, s.ID, "B", 0, true)
	for i := range 40 {
		ckZones.create(t, e, key, map[string]any{"name": "Z" + strconv.Itoa(i), "countries": []string{"US", "CA"},
			"funnels": []any{map[string]any{"funnel_id": a, "weight": 1}, map[string]any{"funnel_id": b, "weight": 2}}})
	}
	count := countStatements(e)
	gql, rest := map[int]int64{}, map[int]int64{}
	for _, n := range []int{5, 40} {
		gql[n] = count(func() {
			// Zone → funnels → funnel → steps and checkout page, the graph
			// of a zone.
			g := e.GraphQL(key, `query($n: Int) { checkoutZones(limit: $n) { id region_warning
				funnels { funnel_id funnel_name funnel { id name offers { position } checkout_page { id } } } } }`, map[string]any{"n": n})
			rows, _ := g.Data()["checkoutZones"].([]any)
			if len(rows) != n || len(rows[n-1].(map[string]any)["funnels"].([]any)) != 2 ||
				rows[n-1].(map[string]any)["funnels"].([]any)[1].(map[string]any)["funnel"].(map[string]any)["name"] != "B" {
				t.Fatalf("listed %d zones: %s", len(rows), g.Raw)
			}
		})
		rest[n] = count(func() {
			zones, _, _ := ckZones.list(t, e, key, "limit="+strconv.Itoa(n))
			if len(zones) != n || len(zones[n-1]["funnels"].([]any)) != 2 || zones[0]["region_warning"] == nil {
				t.Fatalf("REST list of %d: %v", n, zones)
			}
		})
	}
	t.Logf("statements: GraphQL %d, REST %d, for 5 rows as for 40", gql[40], rest[40])
	if gql[5] != gql[40] || rest[5] != rest[40] {
		t.Fatalf("statements: GraphQL 5 → %d, 40 → %d; REST 5 → %d, 40 → %d", gql[5], gql[40], rest[5], rest[40])
	}
}

// TestCheckoutZoneFor: a checkout's zone is the first by position that
// lists its country, else the catch-all (for no country too); it may be
// given the zone's enabled funnels that are enabled themselves, of weight
// above 0, by position.
func TestCheckoutZoneFor(t *testing.T) {
	e, s, admin := newAcme(t)
	ctx := context.Background()
	on := ckInsertFunnel(t, e, s.ID, "On", 0, true)
	off := ckInsertFunnel(t, e, s.ID, "Off", 0, false)
	other := ckInsertFunnel(t, e, s.ID, "Other", 0, true)
	zero := ckInsertFunnel(t, e, s.ID, "Zero", 0, true)
	create := func(body map[string]any) int64 { return idOf(t, ckZones.create(t, e, admin, body)) }
	// The catch-all comes first by position: a zone that lists the
	// country still wins.
	world := create(map[string]any{"name": "World", "catch_all": true, "position": 0,
		"funnels": []any{map[string]any{"funnel_id": other, "weight": 1}}})
	eu := create(map[string]any{"name": "Europe", "countries": []string{"FR", "DE"}, "position": 1, "funnels": []any{
		map[string]any{"funnel_id": other, "weight": 5, "position": 2},
		map[string]any{"funnel_id": on, "weight": 30, "position": 1},
		map[string]any{"funnel_id": off, "weight": 50},
		map[string]any{"funnel_id": zero, "weight": 0},
	}})
	late := create(map[string]any{"name": "Late", "countries": []string{"FR", "JP"}, "position": 2,
		"funnels": []any{map[string]any{"funnel_id": on, "weight": 1, "enabled": false}}})
	o := e.Store("Other")
	ckZones.create(t, e, e.Key(o.ID, auth.RoleAdmin), map[string]any{"name": "Theirs", "countries": []string{"US"}})

	route := func(country string) (int64, []string) {
		t.Helper()
		r, err := models.CheckoutZoneFor(ctx, e.DB, s.ID, country)
		if err != nil {
			t.Fatal(err)
		}
		if r == nil {
			return 0, nil
		}
		fs := []string{}
		for _, f := range r.Funnels {
			fs = append(fs, fmt.Sprintf("%s:%d", f.FunnelName, f.Weight))
		}
		return r.Zone.ID, fs
	}
	for _, c := range []struct {
		country string
		zone    int64
		funnels []string
	}{
		{"FR", eu, []string{"On:30", "Other:5"}},
		{" de ", eu, []string{"On:30", "Other:5"}},
		{"JP", late, []string{}},
		{"US", world, []string{"Other:1"}},
		{"", world, []string{"Other:1"}},
	} {
		if zone, fs := route(c.country); zone != c.zone || !slices.Equal(fs, c.funnels) {
			t.Errorf("%q: zone %d %v, want %d %v", c.country, zone, fs, c.zone, c.funnels)
		}
	}
	// Without a catch-all, a country no zone lists goes nowhere.
	e.Do(http.MethodDelete, ckZonePath(world), admin, nil).Expect(t, 200)
	if zone, _ := route("US"); zone != 0 {
		t.Errorf("US without a catch-all: zone %d", zone)
	}
	if r, err := models.CheckoutZoneFor(ctx, e.DB, o.ID, "FR"); err != nil || r != nil {
		t.Errorf("another store's route for FR: %v, %v", r, err)
	}
}
