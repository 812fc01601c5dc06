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

// The fields of the spec's TaxRateView, exactly.
var txrKeys = []string{"country", "id", "name", "position", "province", "rate_bps", "region_warning"}

func txrPath(id int64) string { return "/store/tax/rates/" + strconv.FormatInt(id, 10) }

// txrRate checks v against TaxRateView and returns it.
func txrRate(t *testing.T, v any) map[string]any {
	t.Helper()
	m := objectWithKeys(t, "tax rate", v, txrKeys)
	if id := wholeNumber(t, m["id"]); id <= 0 {
		t.Fatalf("tax rate id %d", id)
	}
	wholeNumber(t, m["position"])
	wholeNumber(t, m["rate_bps"])
	for _, k := range []string{"country", "name", "province"} {
		stringField(t, m, k)
	}
	if m["region_warning"] != nil {
		stringField(t, m, "region_warning")
	}
	return m
}

// txrRates is the REST resource of tax rates.
var txrRates = crudResource{path: "/store/tax/rates", item: txrPath, one: "rate", many: "rates", view: txrRate}

// TestTaxRates: the life of tax rates over REST, with the same answers on
// GraphQL.
func TestTaxRates(t *testing.T) {
	e, s, admin := newAcme(t)
	reader := e.Key(s.ID, auth.RoleStaff, "tax:read")

	// Codes are trimmed and upper-cased; the position follows the last.
	on := txrRates.create(t, e, admin, map[string]any{"name": " Ontario HST ", "country": "ca", "province": " on ", "rate_bps": 800})
	onID := idOf(t, on)
	want := map[string]any{"id": float64(onID), "name": "Ontario HST", "country": "CA", "province": "ON", "rate_bps": float64(800),
		"position": float64(0), "region_warning": nil}
	if !reflect.DeepEqual(on, want) {
		t.Fatalf("created %v\nwant %v", on, want)
	}
	gst := txrRates.create(t, e, admin, map[string]any{"name": "GST", "country": "CA", "rate_bps": 500})
	gstID := idOf(t, gst)
	if gst["province"] != "" || gst["position"] != float64(1) {
		t.Fatalf("whole-country rate: %v", gst)
	}
	vat := txrRates.create(t, e, admin, map[string]any{"name": "VAT", "country": "DE", "rate_bps": 1900, "position": 9})
	vatID := idOf(t, vat)
	// A field the input does not take is refused, naming it, not dropped.
	r := e.Do(http.MethodPost, "/store/tax/rates", admin, map[string]any{"name": "New York", "country": "US", "province": "NY", "rate_bps": 400, "province_ignored": true}).Expect(t, 400)
	if r.Body["field"] != "province_ignored" || r.Message() != "province_ignored is not a field this input takes" {
		t.Fatalf("an unknown field: %s", r.Raw)
	}
	ny := txrRates.create(t, e, admin, map[string]any{"name": "New York", "country": "US", "province": "NY", "rate_bps": 400})
	nyID := idOf(t, ny)
	if ny["position"] != float64(10) || vat["position"] != float64(9) {
		t.Fatalf("positions: vat %v, ny %v", vat["position"], ny["position"])
	}

	// The list: by country, province (the whole country first), position.
	rates, total, list := txrRates.list(t, e, reader, "")
	if ids := rowIDs(rates); total != 4 || !slices.Equal(ids, []int64{gstID, onID, vatID, nyID}) {
		t.Fatalf("list %v (total %d), want %v", ids, total, []int64{gstID, onID, vatID, nyID})
	}
	e.SameOnGraphQL(t, list, reader, "ListTaxRates", nil)
	_, _, page := txrRates.list(t, e, reader, "limit=2&offset=1")
	if rows := page.List("rates"); len(rows) != 2 || page.Body["total"] != float64(4) {
		t.Fatalf("page: %s", page.Raw)
	}
	e.SameOnGraphQL(t, page, reader, "ListTaxRates", map[string]any{"limit": 2, "offset": 1})

	// Updates merge; an empty province makes the rate the whole country's.
	u, _ := txrRates.put(t, e, admin, nyID, map[string]any{"rate_bps": 450})
	if u["rate_bps"] != float64(450) || u["name"] != "New York" || u["province"] != "NY" || u["country"] != "US" || u["position"] != float64(10) {
		t.Fatalf("rate only: %v", u)
	}
	u, _ = txrRates.put(t, e, admin, nyID, map[string]any{})
	if !reflect.DeepEqual(u, txrRates.byID(t, e, admin, nyID)) || u["rate_bps"] != float64(450) {
		t.Fatalf("an empty update: %v", u)
	}
	u, put := txrRates.put(t, e, admin, nyID, map[string]any{"name": "US federal", "province": "", "country": "us", "position": 2})
	if u["province"] != "" || u["country"] != "US" || u["name"] != "US federal" || u["position"] != float64(2) {
		t.Fatalf("to the whole country: %v", u)
	}
	e.SameOnGraphQL(t, put, admin, "UpdateTaxRate", map[string]any{"id": nyID, "input": map[string]any{"position": 2}})

	// GraphQL creates answer the REST shape.
	g := e.GraphQL(admin, `mutation { createTaxRate(input: {name: "QST", country: "CA", province: "qc", rate_bps: 998}) { country province rate_bps position region_warning } }`, nil)
	if gr, _ := g.Data()["createTaxRate"].(map[string]any); g.Body["errors"] != nil || gr["province"] != "QC" || gr["position"] != float64(10) || gr["region_warning"] != nil {
		t.Fatalf("GraphQL createTaxRate: %s", g.Raw)
	}
	if g := e.GraphQL(reader, `{ taxRatesCount }`, nil); g.Data()["taxRatesCount"] != float64(5) {
		t.Fatalf("taxRatesCount: %s", g.Raw)
	}

	// Writes name the rate in the audit log.
	expectAuditRecord(t, e, admin, "action=updateTaxRate&limit=1", "tax_rate", nyID)

	// Delete answers the bare envelope.
	expectBareDelete(t, e, admin, txrPath(vatID))
	e.Do(http.MethodPut, txrPath(vatID), admin, map[string]any{"name": "x"}).Expect(t, 404)
	e.Do(http.MethodDelete, txrPath(vatID), admin, nil).Expect(t, 404)
	expectGraphQLCode(t, e, admin, "NOT_FOUND", map[string]any{"id": vatID}, `mutation($id: Int!) { deleteTaxRate(id: $id) }`)
	if _, total, _ := txrRates.list(t, e, admin, ""); total != 4 {
		t.Fatalf("after delete: total %d", total)
	}
}

// TestTaxRegionWarning: two rates of one region warn, naming each other
// and the one that applies; the warning goes once the overlap is fixed.
func TestTaxRegionWarning(t *testing.T) {
	e, _, admin := newAcme(t)
	first := idOf(t, txrRates.create(t, e, admin, map[string]any{"name": "HST", "country": "CA", "province": "ON", "rate_bps": 800}))
	gst := idOf(t, txrRates.create(t, e, admin, map[string]any{"name": "GST", "country": "CA", "rate_bps": 500}))
	second := txrRates.create(t, e, admin, map[string]any{"name": "HST old", "country": "CA", "province": "ON", "rate_bps": 1300})
	secondID := idOf(t, second)
	if want := fmt.Sprintf("CA-ON is also covered by rate HST (%d); only rate HST (%d), the first by position, applies", first, first); second["region_warning"] != want {
		t.Fatalf("created rate's warning %q\nwant %q", second["region_warning"], want)
	}
	third := idOf(t, txrRates.create(t, e, admin, map[string]any{"name": "Typo", "country": "CA", "province": "ON", "rate_bps": 1, "position": 0}))
	// Another region, another store: no warning.
	txrRates.create(t, e, admin, map[string]any{"name": "QST", "country": "CA", "province": "QC", "rate_bps": 998})
	o := e.Store("Other")
	txrRates.create(t, e, e.Key(o.ID, auth.RoleAdmin), map[string]any{"name": "Theirs", "country": "CA", "rate_bps": 1})

	rates, _, list := txrRates.list(t, e, admin, "")
	want := map[int64]string{
		// third sits at position 0 with the highest id; first at 0 too,
		// with a lower id: first comes first.
		first:    fmt.Sprintf("CA-ON is also covered by rate Typo (%d) and rate HST old (%d); only this rate, the first by position, applies", third, secondID),
		third:    fmt.Sprintf("CA-ON is also covered by rate HST (%d) and rate HST old (%d); only rate HST (%d), the first by position, applies", first, secondID, first),
		secondID: fmt.Sprintf("CA-ON is also covered by rate HST (%d) and rate Typo (%d); only rate HST (%d), the first by position, applies", first, third, first),
	}
	for _, r := range rates {
		id := idOf(t, r)
		if w, ok := want[id]; ok && r["region_warning"] != w {
			t.Fatalf("rate %v: warning %q\nwant %q", r["name"], r["region_warning"], w)
		} else if !ok && r["region_warning"] != nil {
			t.Fatalf("rate %v: warning %q, want none", r["name"], r["region_warning"])
		}
	}
	e.SameOnGraphQL(t, list, admin, "ListTaxRates", nil)
	// The whole country's rates warn too.
	g2 := txrRates.create(t, e, admin, map[string]any{"name": "GST 2", "country": "CA", "province": "", "rate_bps": 500})
	if w := fmt.Sprintf("CA is also covered by rate GST (%d); only rate GST (%d), the first by position, applies", gst, gst); g2["region_warning"] != w {
		t.Fatalf("whole-country warning %q\nwant %q", g2["region_warning"], w)
	}
	e.Do(http.MethodDelete, txrPath(idOf(t, g2)), admin, nil).Expect(t, 200)

	// Moving the typo to another province and deleting the old rate fixes
	// the region.
	u, _ := txrRates.put(t, e, admin, third, map[string]any{"province": "BC"})
	if u["region_warning"] != nil {
		t.Fatalf("moved rate still warns: %v", u["region_warning"])
	}
	e.Do(http.MethodDelete, txrPath(secondID), admin, nil).Expect(t, 200)
	rates, _, _ = txrRates.list(t, e, admin, "")
	for _, r := range rates {
		if r["region_warning"] != nil {
			t.Fatalf("rate %v still warns %q", r["name"], r["region_warning"])
		}
	}
}

// TestTaxBpsFor: a province's rate adds to its country's; only the first
// rate by position of a region counts; a store's shipping is taxed only
// when its setting says so.
func TestTaxBpsFor(t *testing.T) {
	e := apitest.New(t)
	ctx := context.Background()
	s := e.Store("Acme")
	o := e.Store("Other")
	add := func(storeID int64, name, country, province string, bps, position int64) {
		t.Helper()
		r := &models.TaxRate{StoreID: storeID, Name: name, Country: country, Province: province, RateBps: bps, Position: position}
		if err := models.InsertTaxRate(ctx, e.DB, r); err != nil {
			t.Fatal(err)
		}
	}
	add(s.ID, "GST", "CA", "", 500, 0)
	add(s.ID, "PST", "CA", "BC", 700, 1)
	add(s.ID, "HST", "CA", "ON", 800, 2)
	add(s.ID, "HST later", "CA", "ON", 1300, 3) // flagged, ignored
	add(s.ID, "NY", "US", "NY", 400, 0)
	add(s.ID, "VAT", "DE", "", 1900, 5)
	add(s.ID, "VAT first", "FR", "", 2000, 1)
	add(s.ID, "VAT second", "FR", "", 550, 0) // position 0 comes first
	add(o.ID, "Theirs", "JP", "", 1000, 0)
	add(o.ID, "Theirs", "CA", "", 9999, 0)

	for _, c := range []struct {
		country, province string
		want              int64
	}{
		{"CA", "BC", 1200},   // GST + PST
		{"ca", " on ", 1300}, // GST + the first HST only
		{"CA", "", 500},      // the country alone
		{"CA", "QC", 500},    // a province without its own rate
		{"US", "NY", 400},    // a province without a country rate
		{"US", "CA", 0},
		{"US", "", 0},
		{"DE", "BY", 1900},
		{"FR", "", 550}, // the first by position
		{"JP", "", 0},   // another store's
		{"", "", 0},
	} {
		got, err := models.TaxBpsFor(ctx, e.DB, s.ID, c.country, c.province)
		if err != nil {
			t.Fatal(err)
		}
		if got != c.want {
			t.Errorf("TaxBpsFor(%q, %q) = %d, want %d", c.country, c.province, got, c.want)
		}
	}

	// charge_on_shipping: false unless the setting is true.
	charge := func() bool {
		t.Helper()
		on, err := models.ChargeTaxOnShipping(ctx, e.DB, s.ID)
		if err != nil {
			t.Fatal(err)
		}
		return on
	}
	if charge() {
		t.Fatal("charge_on_shipping without the setting")
	}
	admin := e.Key(s.ID, auth.RoleAdmin)
	for _, c := range []struct {
		value any
		want  bool
	}{{true, true}, {false, false}, {"true", false}, {1, false}, {map[string]any{"enabled": true}, false}, {true, true}} {
		e.Do(http.MethodPut, "/store/settings", admin, map[string]any{"namespace": "tax", "key": "charge_on_shipping", "value": c.value}).Expect(t, 200)
		if got := charge(); got != c.want {
			t.Errorf("charge_on_shipping %v: %v, want %v", c.value, got, c.want)
		}
	}
	// Another store's setting is not this store's.
	if on, err := models.ChargeTaxOnShipping(ctx, e.DB, o.ID); err != nil || on {
		t.Fatalf("another store: %v, %v", on, err)
	}
}

// TestTaxAccess: reads are tax:read (any role), writes are tax:write and
// admin; no key is 401.
func TestTaxAccess(t *testing.T) {
	e, s, admin := newAcme(t)
	id := idOf(t, txrRates.create(t, e, admin, map[string]any{"name": "VAT", "country": "DE", "rate_bps": 1900}))
	body := map[string]any{"name": "VAT", "country": "FR", "rate_bps": 2000}

	otherScope := e.Key(s.ID, auth.RoleAdmin, "shipping:read", "shipping:write")

	reads := []apitest.Call{{Method: http.MethodGet, Path: "/store/tax/rates"}}
	writes := []apitest.Call{
		{Method: http.MethodPost, Path: "/store/tax/rates", Body: body},
		{Method: http.MethodPut, Path: txrPath(id), Body: map[string]any{"name": "x"}},
		{Method: http.MethodDelete, Path: txrPath(id)},
	}
	k := checkAccess(t, e, s.ID, "tax", map[string]string{"other scope": otherScope}, reads, writes)
	e.Do(http.MethodPost, "/store/tax/rates", k.readOnly, `{"name": `).Expect(t, 403)
	e.Do(http.MethodPost, "/store/tax/rates", "", `{"name": `).Expect(t, 401)
	expectGraphQLCode(t, e, k.staffWrite, "FORBIDDEN", nil, `mutation { createTaxRate(input: {name: "x", country: "US", rate_bps: 1}) { id } }`)
	expectGraphQLCode(t, e, otherScope, "FORBIDDEN", nil, `{ taxRates { id } }`)
	if rates, total, _ := txrRates.list(t, e, admin, ""); total != 1 || rates[0]["name"] != "VAT" || rates[0]["country"] != "DE" {
		t.Fatalf("a refused write was written: %v", rates)
	}
	e.Do(http.MethodPost, "/store/tax/rates", k.writer, body).Expect(t, 201)
	e.Do(http.MethodPut, txrPath(id), k.writer, map[string]any{"name": "x"}).Expect(t, 200)
	e.Do(http.MethodDelete, txrPath(id), k.writer, nil).Expect(t, 200)

	e.ExpectEach(t, 404, map[string]string{"admin": admin}, []apitest.Call{
		{Method: http.MethodPut, Path: txrPath(987654), Body: map[string]any{"name": "x"}},
		{Method: http.MethodDelete, Path: txrPath(987654)},
	})
	e.Do(http.MethodPut, "/store/tax/rates/abc", admin, map[string]any{"name": "x"}).Expect(t, 400)
	e.Do(http.MethodDelete, "/store/tax/rates/1.5", admin, nil).Expect(t, 400)
}

// TestTaxOtherStore: another store's rates are 404s and never listed.
func TestTaxOtherStore(t *testing.T) {
	e := apitest.New(t)
	a, b := e.Store("Acme"), e.Store("Bolt")
	aKey, bKey := e.Key(a.ID, auth.RoleAdmin), e.Key(b.ID, auth.RoleAdmin)
	theirs := txrRates.create(t, e, bKey, map[string]any{"name": "Theirs", "country": "DE", "rate_bps": 1900})
	theirID := idOf(t, theirs)
	mine := txrRates.create(t, e, aKey, map[string]any{"name": "Mine", "country": "DE", "rate_bps": 1900})
	e.ExpectEach(t, 404, map[string]string{"this store's key": aKey}, []apitest.Call{
		{Method: http.MethodPut, Path: txrPath(theirID), Body: map[string]any{"rate_bps": 0}},
		{Method: http.MethodPut, Path: txrPath(theirID), Body: map[string]any{}},
		{Method: http.MethodDelete, Path: txrPath(theirID)},
	})
	expectGraphQLCode(t, e, aKey, "NOT_FOUND", map[string]any{"id": theirID},
		`mutation($id: Int!) { updateTaxRate(id: $id, input: {name: "x"}) { id } }`,
		`mutation($id: Int!) { deleteTaxRate(id: $id) }`)
	if rates, total, _ := txrRates.list(t, e, aKey, ""); total != 1 || !reflect.DeepEqual(rates[0], mine) || mine["region_warning"] != nil {
		t.Fatalf("store A lists %v (total %d)", rates, total)
	}
	if rates, _, _ := txrRates.list(t, e, bKey, ""); !reflect.DeepEqual(rates[0], theirs) {
		t.Fatalf("store B's rate changed: %v", rates[0])
	}
}

// TestTaxValidation: bad bodies are 400 on create and update, and nothing
// is written.
func TestTaxValidation(t *testing.T) {
	e, _, admin := newAcme(t)
	long := strings.Repeat("é", 256)
	create := map[string]any{
		"no body":               nil,
		"empty object":          map[string]any{},
		"missing name":          map[string]any{"country": "US", "rate_bps": 1},
		"blank name":            map[string]any{"name": " ", "country": "US", "rate_bps": 1},
		"long name":             map[string]any{"name": long, "country": "US", "rate_bps": 1},
		"name not a string":     map[string]any{"name": true, "country": "US", "rate_bps": 1},
		"missing country":       map[string]any{"name": "x", "rate_bps": 1},
		"empty country":         map[string]any{"name": "x", "country": "", "rate_bps": 1},
		"unknown country":       map[string]any{"name": "x", "country": "XX", "rate_bps": 1},
		"alpha-3 country":       map[string]any{"name": "x", "country": "USA", "rate_bps": 1},
		"rest of world":         map[string]any{"name": "x", "country": "*", "rate_bps": 1},
		"country not a string":  map[string]any{"name": "x", "country": 840, "rate_bps": 1},
		"province with country": map[string]any{"name": "x", "country": "CA", "province": "CA-ON", "rate_bps": 1},
		"province too long":     map[string]any{"name": "x", "country": "CA", "province": "ABCDEFGHIJK", "rate_bps": 1},
		"province with a space": map[string]any{"name": "x", "country": "US", "province": "N Y", "rate_bps": 1},
		"province not a string": map[string]any{"name": "x", "country": "US", "province": 5, "rate_bps": 1},
		"missing rate":          map[string]any{"name": "x", "country": "US"},
		"null rate":             map[string]any{"name": "x", "country": "US", "rate_bps": nil},
		"negative rate":         map[string]any{"name": "x", "country": "US", "rate_bps": -1},
		"rate over 100%":        map[string]any{"name": "x", "country": "US", "rate_bps": 10001},
		"fractional rate":       map[string]any{"name": "x", "country": "US", "rate_bps": 8.25},
		"rate as a string":      map[string]any{"name": "x", "country": "US", "rate_bps": "825"},
		"negative position":     map[string]any{"name": "x", "country": "US", "rate_bps": 1, "position": -1},
		"huge position":         map[string]any{"name": "x", "country": "US", "rate_bps": 1, "position": 1000001},
		"malformed JSON":        `{"name": `,
		"array body":            `[1]`,
	}
	expectEach400(t, e, admin, "create", http.MethodPost, "/store/tax/rates", create)
	if _, total, _ := txrRates.list(t, e, admin, ""); total != 0 {
		t.Fatalf("a refused create was written: total %d", total)
	}
	if r := e.Do(http.MethodPost, "/store/tax/rates", admin, create["province with country"]).Expect(t, 400); !strings.Contains(r.Message(), "ON, not CA-ON") {
		t.Fatalf("province message %q", r.Message())
	}
	expectGraphQLCode(t, e, admin, "BAD_USER_INPUT", nil, `mutation { createTaxRate(input: {name: "x", country: "US", rate_bps: 20000}) { id } }`)

	// Bounds are inclusive: 255 characters, 0 and 10000 bps, 10-character
	// provinces.
	r := txrRates.create(t, e, admin, map[string]any{"name": strings.Repeat("é", 255), "country": "fr", "province": "abcde12345", "rate_bps": 10000, "position": 1000000})
	if r["province"] != "ABCDE12345" || r["rate_bps"] != float64(10000) {
		t.Fatalf("bounds: %v", r)
	}
	id := idOf(t, r)
	txrRates.create(t, e, admin, map[string]any{"name": "zero", "country": "US", "rate_bps": 0})
	update := map[string]any{
		"blank name":      map[string]any{"name": ""},
		"unknown country": map[string]any{"country": "ZZ"},
		"empty country":   map[string]any{"country": " "},
		"bad province":    map[string]any{"province": "Île"},
		"rate over 100%":  map[string]any{"rate_bps": 10001},
		"negative rate":   map[string]any{"rate_bps": -1},
		"bad position":    map[string]any{"position": -1},
		"malformed JSON":  `{"name"`,
	}
	expectEach400(t, e, admin, "update", http.MethodPut, txrPath(id), update)
	if got := txrRates.byID(t, e, admin, id); !reflect.DeepEqual(got, r) {
		t.Fatalf("a refused update was written:\n got  %v\n want %v", got, r)
	}
}
