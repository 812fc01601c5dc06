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

// Product bindings (README "Product customizer / Bindings"). Fixtures: a
// customizer of one store inserted with bun (czFixture): the other parts'
// endpoints are not needed to bind and price. Helpers of this file and
// customizer_pricing_test.go start with cz.

// The fields of the spec's CzProductBindingView, exactly.
var czBindingKeys = []string{"default_selections", "id", "library_scope", "option_name", "option_set_id", "option_value", "product_id", "template_id"}

func czBindingsPath(productID int64, rest ...int64) string {
	p := fmt.Sprintf("/store/customizer/bindings/%d", productID)
	for _, id := range rest {
		p += fmt.Sprintf("/%d", id)
	}
	return p
}

// czFixture is one store's customizer: a design (elements name, logo and
// the group bg of bg1 and bg2), a base, a template of them (no colour or
// element included, 50 per extra colour, 100 per extra element; from 5
// units 20.00) and an option set:
//   - colour (select, required): red (+1.00; sets group bg's colour) and
//     blue (+0; sets logo's colour and makes name visible);
//   - name (text, required, 10 per character, at most 10 characters of
//     letters and spaces);
//   - gift (checkbox);
//   - message (textarea, required, shown only when gift equals true, at
//     most 2 lines of 12 characters);
//   - count (number from 1 to 10);
//   - art (artwork: items of the store's unscoped library, or of its
//     "gold" scope).
type czFixture struct {
	storeID                                 int64
	templateID, optionSetID, designID       int64
	colour, name, gift, message, count, art int64
	red, blue                               int64
	artItem, goldItem, scopedOtherItem      int64
	otherGroupItem, otherKindItem           int64
	otherOptionSetID, otherTemplateID       int64 // a second set whose function aims at a key the design lacks
}

func czInsert(t *testing.T, e *apitest.Env, records ...any) {
	t.Helper()
	for _, r := range records {
		if _, err := e.DB.NewInsert().Model(r).Returning("id").Exec(context.Background()); err != nil {
			t.Fatalf("insert %T: %v", r, err)
		}
	}
}

func czKey(k string) *string { return &k }

func newCzFixture(t *testing.T, e *apitest.Env, storeID int64) czFixture {
	t.Helper()
	f := czFixture{storeID: storeID}
	d := &models.CzDesign{StoreID: storeID, Name: "Mug", WidthPx: 1000, HeightPx: 500}
	czInsert(t, e, d)
	f.designID = d.ID
	for i, k := range []struct{ key, group string }{{"name", ""}, {"logo", ""}, {"bg1", "bg"}, {"bg2", "bg"}} {
		czInsert(t, e, &models.CzElement{StoreID: storeID, DesignID: d.ID, ElementKey: k.key, GroupKey: k.group, Type: "text",
			W: 10, H: 10, ZIndex: int64(i), Settings: map[string]any{}})
	}
	base := &models.CzProductBase{StoreID: storeID, Name: "Mug 11oz"}
	czInsert(t, e, base)
	tpl := &models.CzTemplate{StoreID: storeID, Name: "Mug", DesignID: d.ID, ProductBaseID: base.ID, ExportFormat: "png", PPI: 300,
		PricePerExtraColorCents: 50, PricePerExtraElementCents: 100}
	czInsert(t, e, tpl)
	f.templateID = tpl.ID
	czInsert(t, e, &models.CzQuantityTier{StoreID: storeID, TemplateID: tpl.ID, MinQty: 5, PriceCents: 2000},
		&models.CzQuantityTier{StoreID: storeID, TemplateID: tpl.ID, MinQty: 50, Position: 1, PriceCents: 1500})
	set := &models.CzOptionSet{StoreID: storeID, Name: "Mug options"}
	czInsert(t, e, set)
	f.optionSetID = set.ID
	option := func(pos int64, label, typ string, required bool, o models.CzOption) int64 {
		o.StoreID, o.OptionSetID, o.Label, o.Type, o.Position, o.Required = storeID, set.ID, label, typ, pos, required
		if o.Settings == nil {
			o.Settings = map[string]any{}
		}
		if o.Conditions == nil {
			o.Conditions = []models.CustomizerCondition{}
		}
		czInsert(t, e, &o)
		return o.ID
	}
	f.colour = option(0, "Colour", models.CzOptionSelect, true, models.CzOption{})
	f.name = option(1, "Name", models.CzOptionText, true, models.CzOption{PricePerCharCents: 10,
		Validation: models.CzTextValidation{MaxLength: 10, Mode: "letters"}})
	f.gift = option(2, "Gift", models.CzOptionCheckbox, false, models.CzOption{})
	f.message = option(3, "Message", models.CzOptionTextarea, true, models.CzOption{
		Validation: models.CzTextValidation{MaxLines: 2, CharsPerLine: 12, Pattern: `[^#]*`},
		Conditions: []models.CustomizerCondition{{Op: "equals", OptionID: f.gift, Value: czKey("true")}}})
	f.count = option(4, "Count", models.CzOptionNumber, false, models.CzOption{Settings: map[string]any{"min": 1, "max": 10, "step": 0.5}})
	f.art = option(5, "Art", models.CzOptionArtwork, false, models.CzOption{Settings: map[string]any{"group_key": "clipart"}})
	red := &models.CzOptionValue{StoreID: storeID, OptionID: f.colour, Label: "Red", Value: "red", PriceDeltaCents: 100,
		Functions: []models.CustomizerFunction{{GroupKey: czKey("bg"), Property: "color", Value: "#ff0000"}}}
	blue := &models.CzOptionValue{StoreID: storeID, OptionID: f.colour, Label: "Blue", Value: "blue", Position: 1,
		Functions: []models.CustomizerFunction{{ElementKey: czKey("logo"), Property: "color", Value: "#0000ff"},
			{ElementKey: czKey("name"), Property: "visibility", Value: "visible"}}}
	czInsert(t, e, red, blue)
	f.red, f.blue = red.ID, blue.ID
	lib := &models.CzLibrary{StoreID: storeID, Name: "Clip art", Kind: "artwork", GroupKey: "clipart"}
	gold := &models.CzLibrary{StoreID: storeID, Name: "Gold", Kind: "artwork", GroupKey: "clipart", ScopeValue: "gold"}
	silver := &models.CzLibrary{StoreID: storeID, Name: "Silver", Kind: "artwork", GroupKey: "clipart", ScopeValue: "silver"}
	czInsert(t, e, lib, gold, silver)
	items := []*models.CzLibraryItem{{StoreID: storeID, LibraryID: lib.ID, Value: map[string]any{}},
		{StoreID: storeID, LibraryID: gold.ID, Value: map[string]any{}}, {StoreID: storeID, LibraryID: silver.ID, Value: map[string]any{}}}
	czInsert(t, e, items[0], items[1], items[2])
	f.artItem, f.goldItem, f.scopedOtherItem = items[0].ID, items[1].ID, items[2].ID
	// Items the art option does not offer: an unscoped artwork library of
	// another group, and an unscoped library of another kind in its group.
	frames := &models.CzLibrary{StoreID: storeID, Name: "Frames", Kind: "artwork", GroupKey: "frames"}
	finish := &models.CzLibrary{StoreID: storeID, Name: "Finishes", Kind: "finish", GroupKey: "clipart"}
	czInsert(t, e, frames, finish)
	other := []*models.CzLibraryItem{{StoreID: storeID, LibraryID: frames.ID, Value: map[string]any{}}, {StoreID: storeID, LibraryID: finish.ID, Value: map[string]any{}}}
	czInsert(t, e, other[0], other[1])
	f.otherGroupItem, f.otherKindItem = other[0].ID, other[1].ID

	broken := &models.CzOptionSet{StoreID: storeID, Name: "Broken"}
	czInsert(t, e, broken)
	f.otherOptionSetID = broken.ID
	bo := &models.CzOption{StoreID: storeID, OptionSetID: broken.ID, Label: "Frame", Type: models.CzOptionSelect,
		Settings: map[string]any{}, Conditions: []models.CustomizerCondition{}}
	czInsert(t, e, bo)
	czInsert(t, e, &models.CzOptionValue{StoreID: storeID, OptionID: bo.ID, Label: "Oak", Value: "oak",
		Functions: []models.CustomizerFunction{{ElementKey: czKey("frame"), Property: "image", Value: "oak.png"}}})
	tpl2 := &models.CzTemplate{StoreID: storeID, Name: "Mug 2", DesignID: d.ID, ProductBaseID: base.ID, ExportFormat: "jpeg", PPI: 150}
	czInsert(t, e, tpl2)
	f.otherTemplateID = tpl2.ID
	return f
}

// czBinding checks v against CzProductBindingView and returns it.
func czBinding(t *testing.T, v any) map[string]any {
	t.Helper()
	m := objectWithKeys(t, "binding", v, czBindingKeys)
	for _, k := range []string{"id", "option_set_id", "product_id", "template_id"} {
		wholeNumber(t, m[k])
	}
	for _, k := range []string{"library_scope", "option_name", "option_value"} {
		stringField(t, m, k)
	}
	if _, ok := m["default_selections"].(map[string]any); !ok {
		t.Fatalf("default_selections is not an object: %v", m)
	}
	return m
}

// czPutBinding binds over REST and returns the binding.
func czPutBinding(t *testing.T, e *apitest.Env, key string, productID int64, body map[string]any) map[string]any {
	t.Helper()
	r := e.Do(http.MethodPut, czBindingsPath(productID), key, body).Expect(t, http.StatusOK)
	expectPayload(t, r, "binding")
	return czBinding(t, r.Body["binding"])
}

func czOpt(id int64) string { return fmt.Sprint(id) }

// TestCzBindingLifecycle: bind a product for every variant and for one
// option value, upsert by scope, list (REST = GraphQL), defaults checked,
// deletes, and a deleted product's bindings still read and deleted by its
// id.
func TestCzBindingLifecycle(t *testing.T) {
	e, s, admin := newAcme(t)
	f := newCzFixture(t, e, s.ID)
	p := createProduct(t, e, admin, func() map[string]any { b := pdSizeColor("MUG"); b["title"] = "Mug"; return b }())
	pid := idOf(t, p)

	every := czPutBinding(t, e, admin, pid, map[string]any{"template_id": f.templateID, "option_set_id": f.optionSetID,
		"library_scope": " gold ", "default_selections": map[string]any{czOpt(f.colour): "red", czOpt(f.count): 3}})
	want := map[string]any{"id": every["id"], "product_id": float64(pid), "template_id": float64(f.templateID), "option_set_id": float64(f.optionSetID),
		"option_name": "", "option_value": "", "library_scope": "gold", "default_selections": map[string]any{czOpt(f.colour): "red", czOpt(f.count): float64(3)}}
	if !reflect.DeepEqual(every, want) {
		t.Fatalf("binding %v\nwant %v", every, want)
	}
	blue := czPutBinding(t, e, admin, pid, map[string]any{"template_id": f.otherTemplateID, "option_set_id": f.optionSetID,
		"option_name": "Color", "option_value": "Blue"})
	if blue["option_name"] != "Color" || blue["option_value"] != "Blue" || blue["id"] == every["id"] || !reflect.DeepEqual(blue["default_selections"], map[string]any{}) {
		t.Fatalf("scoped binding: %v", blue)
	}
	// The same scope again replaces the binding, keeping its id.
	again := czPutBinding(t, e, admin, pid, map[string]any{"template_id": f.templateID, "option_set_id": f.optionSetID,
		"option_name": "Color", "option_value": "Blue", "library_scope": "silver"})
	if again["id"] != blue["id"] || again["template_id"] != float64(f.templateID) || again["library_scope"] != "silver" {
		t.Fatalf("upsert: %v, was %v", again, blue)
	}
	e.SameOnGraphQL(t, e.Do(http.MethodPut, czBindingsPath(pid), admin, map[string]any{"template_id": f.templateID, "option_set_id": f.optionSetID,
		"option_name": "Color", "option_value": "Blue", "library_scope": "silver"}).Expect(t, http.StatusOK), admin, "PutCzProductBinding",
		map[string]any{"productId": pid, "input": map[string]any{"template_id": f.templateID, "option_set_id": f.optionSetID,
			"option_name": "Color", "option_value": "Blue", "library_scope": "silver"}})
	expectAuditRecord(t, e, admin, "action=putCzProductBinding&limit=1", "cz_product_binding", idOf(t, again))

	list := e.Do(http.MethodGet, czBindingsPath(pid), admin, nil).Expect(t, http.StatusOK)
	expectPayload(t, list, "bindings")
	rows := objectsOf(list.Body["bindings"])
	if len(rows) != 2 || rows[0]["id"] != every["id"] || rows[1]["id"] != again["id"] {
		t.Fatalf("list: %s", list.Raw)
	}
	czBinding(t, rows[0])
	e.SameOnGraphQL(t, list, admin, "ListCzProductBindings", map[string]any{"productId": pid})

	// One binding, then every one.
	expectBareDelete(t, e, admin, czBindingsPath(pid, idOf(t, again)))
	e.Do(http.MethodDelete, czBindingsPath(pid, idOf(t, again)), admin, nil).Expect(t, http.StatusNotFound)
	if rows := e.Do(http.MethodGet, czBindingsPath(pid), admin, nil).Expect(t, http.StatusOK).List("bindings"); len(rows) != 1 {
		t.Fatalf("after deleting one: %v", rows)
	}
	expectBareDelete(t, e, admin, czBindingsPath(pid))
	if rows := e.Do(http.MethodGet, czBindingsPath(pid), admin, nil).Expect(t, http.StatusOK).List("bindings"); len(rows) != 0 {
		t.Fatalf("after deleting all: %v", rows)
	}
	expectBareDelete(t, e, admin, czBindingsPath(pid)) // none left is no failure while the product exists

	// A deleted product's bindings stay, read and deleted by its id; with
	// none left, its id is not found.
	orphan := czPutBinding(t, e, admin, pid, map[string]any{"template_id": f.templateID, "option_set_id": f.optionSetID})
	e.Do(http.MethodDelete, productPath(pid), admin, nil).Expect(t, http.StatusOK)
	if rows := e.Do(http.MethodGet, czBindingsPath(pid), admin, nil).Expect(t, http.StatusOK).List("bindings"); len(rows) != 1 {
		t.Fatalf("orphaned bindings: %v", rows)
	}
	e.Do(http.MethodPut, czBindingsPath(pid), admin, map[string]any{"template_id": f.templateID, "option_set_id": f.optionSetID}).Expect(t, http.StatusNotFound)
	expectBareDelete(t, e, admin, czBindingsPath(pid, idOf(t, orphan)))
	e.Do(http.MethodGet, czBindingsPath(pid), admin, nil).Expect(t, http.StatusNotFound)
	e.Do(http.MethodDelete, czBindingsPath(pid), admin, nil).Expect(t, http.StatusNotFound)
}

// TestCzBindingRefusals: 400 for each rule of the body, naming the field
// (another store's template or option set included); 404 for another
// store's product and binding.
func TestCzBindingRefusals(t *testing.T) {
	e, s, admin := newAcme(t)
	f := newCzFixture(t, e, s.ID)
	pid := idOf(t, createProduct(t, e, admin, func() map[string]any { b := pdSizeColor("MUG"); b["title"] = "Mug"; return b }()))
	body := func(extra map[string]any) map[string]any {
		b := map[string]any{"template_id": f.templateID, "option_set_id": f.optionSetID}
		for k, v := range extra {
			b[k] = v
		}
		return b
	}
	for name, c := range map[string]struct {
		extra       map[string]any
		field, says string
	}{
		"a name without a value":      {map[string]any{"option_name": "Color"}, "option_value", "is needed"},
		"a value without a name":      {map[string]any{"option_value": "Blue"}, "option_name", "is needed"},
		"an option of no product":     {map[string]any{"option_name": "Finish", "option_value": "Matte"}, "option_name", `"Finish" is not an option`},
		"a value the option lacks":    {map[string]any{"option_name": "Color", "option_value": "Green"}, "option_value", `"Green" is not a value`},
		"a long library scope":        {map[string]any{"library_scope": strings.Repeat("g", 256)}, "library_scope", "at most 255"},
		"a two-line library scope":    {map[string]any{"library_scope": "a\nb"}, "library_scope", "control characters"},
		"defaults not an object":      {map[string]any{"default_selections": []any{"red"}}, "default_selections", "must be an object"},
		"a default of no option":      {map[string]any{"default_selections": map[string]any{"999999": "red"}}, "default_selections.999999", "is not an option"},
		"a default value not listed":  {map[string]any{"default_selections": map[string]any{czOpt(f.colour): "green"}}, "default_selections." + czOpt(f.colour), `"green" is not a value of option "Colour"`},
		"a default text too long":     {map[string]any{"default_selections": map[string]any{czOpt(f.name): "Bartholomew Jr"}}, "default_selections." + czOpt(f.name), "at most 10 characters"},
		"a default number too big":    {map[string]any{"default_selections": map[string]any{czOpt(f.count): 11}}, "default_selections." + czOpt(f.count), "at most 10"},
		"a function aimed at nothing": {map[string]any{"option_set_id": f.otherOptionSetID}, "option_set_id", `value "oak"`},
	} {
		r := e.Do(http.MethodPut, czBindingsPath(pid), admin, body(c.extra)).Expect(t, http.StatusBadRequest)
		if !strings.HasPrefix(r.Message(), c.field+" ") || !strings.Contains(r.Message(), c.says) {
			t.Fatalf("%s: %s, want field %s saying %q", name, r.Raw, c.field, c.says)
		}
	}
	r := e.Do(http.MethodPut, czBindingsPath(pid), admin, body(map[string]any{"option_set_id": f.otherOptionSetID})).Expect(t, http.StatusBadRequest)
	if !strings.Contains(r.Message(), `sets element_key "frame"`) {
		t.Fatalf("the missing key is named: %s", r.Raw)
	}
	// Defaults are stored as checked: 3.0 is 3, text trimmed, nulls dropped.
	got := czPutBinding(t, e, admin, pid, body(map[string]any{"default_selections": map[string]any{czOpt(f.count): 3.0, czOpt(f.name): " Ada ", czOpt(f.gift): nil}}))
	if d := got["default_selections"].(map[string]any); len(d) != 2 || d[czOpt(f.count)] != float64(3) || d[czOpt(f.name)] != "Ada" {
		t.Fatalf("defaults stored as sent: %v", d)
	}
	// Any scope a library's scope_value can hold, a binding can name.
	if got := czPutBinding(t, e, admin, pid, body(map[string]any{"library_scope": strings.Repeat("g", 255)}))["library_scope"]; got != strings.Repeat("g", 255) {
		t.Fatalf("a library scope of 255 characters: %v", got)
	}
	// Defaults need not answer required options nor keep to conditions.
	czPutBinding(t, e, admin, pid, body(map[string]any{"default_selections": map[string]any{czOpt(f.message): "Hello"}}))

	// Another store's product, template, option set, binding: 404.
	o := e.Store("Other")
	oAdmin := e.Key(o.ID, auth.RoleAdmin)
	of := newCzFixture(t, e, o.ID)
	opid := createSimpleProduct(t, e, oAdmin, "Theirs", 1000, nil)
	obinding := czPutBinding(t, e, oAdmin, opid, map[string]any{"template_id": of.templateID, "option_set_id": of.optionSetID})
	e.Do(http.MethodPut, czBindingsPath(opid), admin, body(nil)).Expect(t, http.StatusNotFound)
	e.Do(http.MethodGet, czBindingsPath(opid), admin, nil).Expect(t, http.StatusNotFound)
	e.Do(http.MethodDelete, czBindingsPath(opid), admin, nil).Expect(t, http.StatusNotFound)
	e.Do(http.MethodDelete, czBindingsPath(opid, idOf(t, obinding)), admin, nil).Expect(t, http.StatusNotFound)
	// A record of another store named in the body is a 400 naming the field,
	// as every reference sent in an input is.
	for field, id := range map[string]int64{"template_id": of.templateID, "option_set_id": of.optionSetID} {
		r := e.Do(http.MethodPut, czBindingsPath(pid), admin, body(map[string]any{field: id})).Expect(t, http.StatusBadRequest)
		if !strings.HasPrefix(r.Message(), field+" must be ") {
			t.Fatalf("another store's %s: %s", field, r.Raw)
		}
	}
	e.Do(http.MethodPut, czBindingsPath(999999), admin, body(nil)).Expect(t, http.StatusNotFound)
	mine := czPutBinding(t, e, admin, pid, body(nil))
	e.Do(http.MethodDelete, czBindingsPath(opid, idOf(t, mine)), admin, nil).Expect(t, http.StatusNotFound) // not that product's
	expectGraphQLCode(t, e, admin, "NOT_FOUND", map[string]any{"p": opid}, `query($p: Int!) { czProductBindings(productId: $p) { id } }`,
		`mutation($p: Int!) { deleteCzProductBindings(productId: $p) }`)
	if rows := e.Do(http.MethodGet, czBindingsPath(opid), oAdmin, nil).Expect(t, http.StatusOK).List("bindings"); len(rows) != 1 {
		t.Fatalf("the other store's binding was touched: %v", rows)
	}
	// A template or option set a binding uses cannot be deleted (409).
	if _, err := e.DB.NewDelete().Model((*models.CzTemplate)(nil)).Where("id = ?", f.templateID).Exec(context.Background()); err == nil {
		t.Fatal("a bound template was deleted")
	}
}

// TestCzBindingAccess: 401, 403 by scope and role on every call.
func TestCzBindingAccess(t *testing.T) {
	e, s, admin := newAcme(t)
	f := newCzFixture(t, e, s.ID)
	pid := createSimpleProduct(t, e, admin, "Mug", 1000, nil)
	b := czPutBinding(t, e, admin, pid, map[string]any{"template_id": f.templateID, "option_set_id": f.optionSetID})
	put := map[string]any{"template_id": f.templateID, "option_set_id": f.optionSetID}
	checkAccess(t, e, s.ID, "customizer", map[string]string{"products only": e.Key(s.ID, auth.RoleAdmin, "products:write")},
		[]apitest.Call{{Method: http.MethodGet, Path: czBindingsPath(pid)}},
		[]apitest.Call{{Method: http.MethodPut, Path: czBindingsPath(pid), Body: put},
			{Method: http.MethodDelete, Path: czBindingsPath(pid, idOf(t, b))},
			{Method: http.MethodDelete, Path: czBindingsPath(pid)}})
	if rows := e.Do(http.MethodGet, czBindingsPath(pid), admin, nil).Expect(t, http.StatusOK).List("bindings"); len(rows) != 1 {
		t.Fatalf("a refused write changed the bindings: %v", rows)
	}
}

// TestCzBindingSetEdits: a write to a bound option set is checked against
// its bindings: a value aimed at a key the bound design lacks is a 400 on
// functions, and deleting, renaming or retyping what a binding's defaults
// name is a 409 naming the binding and its product; nothing is written.
func TestCzBindingSetEdits(t *testing.T) {
	e, s, admin := newAcme(t)
	f := newCzFixture(t, e, s.ID)
	pid := idOf(t, createProduct(t, e, admin, func() map[string]any { b := pdSizeColor("MUG"); b["title"] = "Mug"; return b }()))
	b := czPutBinding(t, e, admin, pid, map[string]any{"template_id": f.templateID, "option_set_id": f.optionSetID,
		"default_selections": map[string]any{czOpt(f.colour): "red", czOpt(f.count): 3}})
	names := fmt.Sprintf("binding %v of product %d", b["id"], pid)

	r := e.Do(http.MethodPost, czoOptionPath(f.colour)+"/values", admin, map[string]any{"label": "Gold", "value": "gold",
		"functions": []any{map[string]any{"element_key": "nope", "property": "color", "value": "#ffd700"}}}).Expect(t, http.StatusBadRequest)
	if !strings.HasPrefix(r.Message(), "functions "+names) || !strings.Contains(r.Message(), `element_key "nope"`) {
		t.Fatalf("a value aimed at a key the design lacks: %s", r.Raw)
	}
	for name, c := range map[string]struct {
		method, path string
		body         any
	}{
		"the default value deleted":  {http.MethodDelete, czoValuePath(f.red), nil},
		"the default value renamed":  {http.MethodPut, czoValuePath(f.red), map[string]any{"label": "Red", "value": "crimson"}},
		"the default value pruned":   {http.MethodPut, czoOptionPath(f.colour) + "/values", map[string]any{"values": []any{map[string]any{"label": "Blue", "value": "blue"}}, "prune": true}},
		"the default option deleted": {http.MethodDelete, czoOptionPath(f.count), nil},
		"the default out of bounds":  {http.MethodPut, czoOptionPath(f.count), map[string]any{"settings": map[string]any{"min": 5, "max": 10}}},
		"the default option retyped": {http.MethodPut, czoOptionPath(f.count), map[string]any{"type": "text"}},
	} {
		r := e.Do(c.method, c.path, admin, c.body).Expect(t, http.StatusConflict)
		if !strings.Contains(r.Message(), "the default_selections of "+names) {
			t.Fatalf("%s: %s", name, r.Raw)
		}
	}
	if vs := e.Do(http.MethodGet, czoOptionPath(f.colour)+"/values", admin, nil).Expect(t, http.StatusOK).List("values"); len(vs) != 2 {
		t.Fatalf("a refused write wrote: %v", vs)
	}
	// A write the defaults still fit goes through.
	e.Do(http.MethodPost, czoOptionPath(f.colour)+"/values", admin, map[string]any{"label": "Green", "value": "green"}).Expect(t, http.StatusCreated)
}
