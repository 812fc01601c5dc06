package apitest_test

import (
	"context"
	"fmt"
	"net/http"
	"strconv"
	"testing"

	"storeadmin/internal/app/apitest"
	"storeadmin/internal/auth"
	"storeadmin/models"
)

// The fields of the spec's views of the store-wide bindings and the
// preview, exactly.
var (
	czStoreBindingView = map[string]string{"id": "i", "library_scope": "s", "option_name": "s", "option_set_id": "i", "option_set_name": "s",
		"option_value": "s", "product_handle": "s", "product_id": "i", "product_status": "s", "product_title": "s", "template_id": "i",
		"template_name": "s", "uses_artwork_refs": "b"}
	czPreviewBindingView = map[string]string{"default_selections": "obj", "id": "i", "library_scope": "s", "option_name": "s", "option_set_id": "i",
		"option_set_name": "s", "option_value": "s", "product_handle": "s", "product_id": "i", "product_title": "s", "template_id": "i"}
	czPreviewKeys = []string{"base", "binding", "bindings", "design", "elements", "mockups", "option_set", "quantity_tiers", "template"}
	czOptionView  = map[string]string{"conditions": "list", "help_text": "s", "id": "i", "label": "s", "option_set_id": "i", "position": "i",
		"price_per_char_cents": "i", "required": "b", "section": "s", "settings": "any", "type": "s", "validation": "obj", "values": "list"}
	czValueView = map[string]string{"functions": "list", "id": "i", "label": "s", "option_id": "i", "position": "i", "price_delta_cents": "i",
		"swatch_hex": "s", "thumbnail_url": "s", "value": "s"}
	czMockupView = map[string]string{"id": "i", "image_height": "i", "image_src": "s", "image_width": "i", "name": "s", "position": "i",
		"print_areas": "list", "product_base_id": "i"}
)

func czPreviewPath(templateID int64) string { return czTemplatePath(templateID) + "/preview" }

// czStoreBindings is GET /store/customizer/product-bindings?query, the same
// on GraphQL, each row checked against the view.
func czStoreBindings(t *testing.T, e *apitest.Env, key, query string, vars map[string]any) []map[string]any {
	t.Helper()
	r := e.Do(http.MethodGet, "/store/customizer/product-bindings?"+query, key, nil).Expect(t, 200)
	expectPayload(t, r, "bindings")
	e.SameOnGraphQL(t, r, key, "ListCzStoreBindings", vars)
	return checkObjects(t, "binding", r.Body["bindings"], czStoreBindingView)
}

// czPreview is GET …/templates/{id}/preview (with binding_id unless 0), the
// same on GraphQL, checked against the view.
func czPreview(t *testing.T, e *apitest.Env, key string, templateID, bindingID int64) map[string]any {
	t.Helper()
	path, vars := czPreviewPath(templateID), map[string]any{"id": templateID}
	if bindingID != 0 {
		path += "?binding_id=" + strconv.FormatInt(bindingID, 10)
		vars["binding_id"] = bindingID
	}
	r := e.Do(http.MethodGet, path, key, nil).Expect(t, 200)
	expectPayload(t, r, "preview")
	e.SameOnGraphQL(t, r, key, "GetCzTemplatePreview", vars)
	p := objectWithKeys(t, "preview", r.Body["preview"], czPreviewKeys)
	objectWithKeys(t, "template", p["template"], czTemplateKeys)
	checkObject(t, "base", p["base"], map[string]string{"id": "i", "name": "s"})
	checkObject(t, "design", p["design"], map[string]string{"height_px": "i", "id": "i", "name": "s", "width_px": "i"})
	checkObjects(t, "bindings", p["bindings"], czPreviewBindingView)
	if p["binding"] != nil {
		checkObject(t, "binding", p["binding"], czPreviewBindingView)
	}
	for _, m := range checkObjects(t, "mockups", p["mockups"], czMockupView) {
		checkObjects(t, "print areas", m["print_areas"], map[string]string{"h": "any", "id": "i", "mockup_id": "i", "name": "s", "position": "i",
			"rotation_deg": "any", "w": "any", "x": "any", "y": "any"})
	}
	checkObjects(t, "quantity tiers", p["quantity_tiers"], map[string]string{"id": "i", "min_qty": "i", "position": "i", "price_cents": "i", "template_id": "i"})
	if p["option_set"] != nil {
		s := checkObject(t, "option set", p["option_set"], map[string]string{"id": "i", "name": "s", "options": "list"})
		for _, o := range checkObjects(t, "options", s["options"], czOptionView) {
			checkObjects(t, "values", o["values"], czValueView)
		}
	}
	return p
}

// optionSetID is the id of a preview's option set, 0 for none.
func czPreviewSetID(t *testing.T, p map[string]any) int64 {
	t.Helper()
	if p["option_set"] == nil {
		return 0
	}
	return idOf(t, p["option_set"].(map[string]any))
}

// TestCzStoreBindings: every binding of the store, by product then id, with
// its product, template and option set; a binding of a deleted product is
// listed with an empty title, handle and status; uses_artwork_refs says
// whether the option set or the design draws on artwork; another store's
// bindings are not listed; limit and offset page the list.
func TestCzStoreBindings(t *testing.T) {
	e, s, admin := newAcme(t)
	f := newCzTemplateFixture(t, e, s.ID, 2)
	tpl := czCreateTemplate(t, e, admin, f, "Mug")
	// A design without artwork elements, for a template whose only artwork
	// could come from its option set.
	plainDesign := &models.CzDesign{StoreID: s.ID, Name: "Plain", WidthPx: 10, HeightPx: 10}
	if _, err := e.DB.NewInsert().Model(plainDesign).Exec(context.Background()); err != nil {
		t.Fatal(err)
	}
	plainTpl := idOf(t, czTemplates.create(t, e, admin, map[string]any{"name": "Plain", "design_id": plainDesign.ID, "product_base_id": f.base}))

	mugs := insertProduct(t, e, s.ID, "mugs")
	cups := insertProduct(t, e, s.ID, "cups")
	gone := cups + 1000
	bMugsRed := czInsertBinding(t, e, s.ID, mugs, tpl, f.optionSet, "Colour", "red")
	bMugsAll := czInsertBinding(t, e, s.ID, mugs, plainTpl, f.plainSet, "", "")
	bCups := czInsertBinding(t, e, s.ID, cups, plainTpl, f.optionSet, "", "")
	bGone := czInsertBinding(t, e, s.ID, gone, tpl, f.plainSet, "", "")
	other := e.Store("Other")
	of := newCzTemplateFixture(t, e, other.ID, 1)
	czInsertBinding(t, e, other.ID, insertProduct(t, e, other.ID, "theirs"), czCreateTemplate(t, e, e.Key(other.ID, auth.RoleAdmin), of, "Theirs"), of.optionSet, "", "")

	rows := czStoreBindings(t, e, admin, "", nil)
	if fmt.Sprint(rowIDs(rows)) != fmt.Sprint([]int64{bMugsRed, bMugsAll, bCups, bGone}) {
		t.Fatalf("bindings %v", rows)
	}
	want := []string{
		fmt.Sprintf("%d Product mugs mugs active %d Mug %d Engraving Colour red red true", mugs, tpl, f.optionSet),
		fmt.Sprintf("%d Product mugs mugs active %d Plain %d Plain    false", mugs, plainTpl, f.plainSet),
		fmt.Sprintf("%d Product cups cups active %d Plain %d Engraving    true", cups, plainTpl, f.optionSet),
		fmt.Sprintf("%d    %d Mug %d Plain    true", gone, tpl, f.plainSet),
	}
	for i, r := range rows {
		got := fmt.Sprintf("%v %v %v %v %v %v %v %v %v %v %v %v", r["product_id"], r["product_title"], r["product_handle"], r["product_status"],
			r["template_id"], r["template_name"], r["option_set_id"], r["option_set_name"], r["option_name"], r["option_value"], r["library_scope"], r["uses_artwork_refs"])
		if got != want[i] {
			t.Errorf("binding %d: %s\nwant       %s", i, got, want[i])
		}
	}
	if page := czStoreBindings(t, e, admin, "limit=2&offset=1", map[string]any{"limit": 2, "offset": 1}); fmt.Sprint(rowIDs(page)) != fmt.Sprint([]int64{bMugsAll, bCups}) {
		t.Fatalf("page %v", page)
	}
	e.Do(http.MethodGet, "/store/customizer/product-bindings?limit=0", admin, nil).Expect(t, 400)
	e.Do(http.MethodGet, "/store/customizer/product-bindings?offset=-1", admin, nil).Expect(t, 400)
	e.Do(http.MethodGet, "/store/customizer/product-bindings?product=1", admin, nil).Expect(t, 400)
}

// TestCzPreview: a template's preview has everything the storefront draws:
// template, base, design, elements in paint order, mockups with their print
// areas, tiers by min_qty, every binding and, chosen, one binding and its
// option set with options and values. Another template's or store's
// binding, and another store's template, are 404.
func TestCzPreview(t *testing.T) {
	e, s, admin := newAcme(t)
	f := newCzTemplateFixture(t, e, s.ID, 2)
	tpl := czCreateTemplate(t, e, admin, f, "Mug")
	tier := idOf(t, czCreateTier(t, e, admin, tpl, 10, 700))
	czCreateTier(t, e, admin, tpl, 1, 900)

	// No binding: no option set.
	p := czPreview(t, e, admin, tpl, 0)
	if p["binding"] != nil || len(objectsOf(p["bindings"])) != 0 || p["option_set"] != nil {
		t.Fatalf("unbound: %v", p)
	}
	if idOf(t, p["template"].(map[string]any)) != tpl || idOf(t, p["base"].(map[string]any)) != f.base || idOf(t, p["design"].(map[string]any)) != f.design {
		t.Fatalf("records: %v", p)
	}
	if got := rowIDs(objectsOf(p["elements"])); fmt.Sprint(got) != fmt.Sprint(f.elements) {
		t.Fatalf("elements %v, want paint order %v", got, f.elements)
	}
	mockups := objectsOf(p["mockups"])
	if got := rowIDs(mockups); fmt.Sprint(got) != fmt.Sprint(f.mockups) || len(objectsOf(mockups[1]["print_areas"])) != 2 ||
		objectsOf(mockups[1]["print_areas"])[0]["mockup_id"] != float64(f.mockups[1]) {
		t.Fatalf("mockups %v", mockups)
	}
	if tiers := objectsOf(p["quantity_tiers"]); len(tiers) != 2 || tiers[0]["min_qty"] != float64(1) || idOf(t, tiers[1]) != tier {
		t.Fatalf("tiers %v", tiers)
	}

	// Every binding with one option set: that one.
	mugs := insertProduct(t, e, s.ID, "mugs")
	red := czInsertBinding(t, e, s.ID, mugs, tpl, f.optionSet, "Colour", "red")
	blue := czInsertBinding(t, e, s.ID, mugs, tpl, f.optionSet, "Colour", "blue")
	p = czPreview(t, e, admin, tpl, 0)
	if czPreviewSetID(t, p) != f.optionSet || p["binding"] != nil || fmt.Sprint(rowIDs(objectsOf(p["bindings"]))) != fmt.Sprint([]int64{red, blue}) {
		t.Fatalf("one option set: %v", p)
	}
	set := p["option_set"].(map[string]any)
	options := objectsOf(set["options"])
	if set["name"] != "Engraving" || fmt.Sprint(rowIDs(options)) != fmt.Sprint(f.options) {
		t.Fatalf("option set %v", set)
	}
	for _, o := range options {
		values := objectsOf(o["values"])
		if len(values) != 2 || values[1]["option_id"] != o["id"] || values[1]["value"] != "v1" || values[1]["price_delta_cents"] != float64(100) {
			t.Fatalf("values of %v: %v", o["id"], values)
		}
	}
	b := objectsOf(p["bindings"])[0]
	if b["product_title"] != "Product mugs" || b["product_handle"] != "mugs" || b["option_set_name"] != "Engraving" ||
		fmt.Sprint(b["default_selections"]) != "map[note:red]" || b["library_scope"] != "red" || b["option_value"] != "red" {
		t.Fatalf("binding %v", b)
	}

	// Bindings with several option sets: none, unless one binding is asked for.
	plain := czInsertBinding(t, e, s.ID, mugs+1000, tpl, f.plainSet, "", "")
	if p = czPreview(t, e, admin, tpl, 0); p["option_set"] != nil || len(objectsOf(p["bindings"])) != 3 {
		t.Fatalf("several option sets: %v", p)
	}
	p = czPreview(t, e, admin, tpl, plain)
	if idOf(t, p["binding"].(map[string]any)) != plain || czPreviewSetID(t, p) != f.plainSet || p["binding"].(map[string]any)["product_title"] != "" {
		t.Fatalf("the orphaned binding: %v", p)
	}
	if p = czPreview(t, e, admin, tpl, blue); czPreviewSetID(t, p) != f.optionSet {
		t.Fatalf("binding blue: %v", p)
	}

	// Another template's binding, another store's, none: 404; another
	// store's template: 404.
	otherTpl := czCreateTemplate(t, e, admin, f, "Other")
	elsewhere := czInsertBinding(t, e, s.ID, mugs+2000, otherTpl, f.optionSet, "", "")
	other := e.Store("Other")
	of := newCzTemplateFixture(t, e, other.ID, 1)
	theirTpl := czCreateTemplate(t, e, e.Key(other.ID, auth.RoleAdmin), of, "Theirs")
	theirs := czInsertBinding(t, e, other.ID, mugs, theirTpl, of.optionSet, "", "")
	for _, path := range []string{
		czPreviewPath(tpl) + "?binding_id=" + strconv.FormatInt(elsewhere, 10),
		czPreviewPath(tpl) + "?binding_id=" + strconv.FormatInt(theirs, 10),
		czPreviewPath(tpl) + "?binding_id=999999",
		czPreviewPath(theirTpl),
		czPreviewPath(999999),
	} {
		e.Do(http.MethodGet, path, admin, nil).Expect(t, 404)
	}
	expectGraphQLCode(t, e, admin, "NOT_FOUND", map[string]any{"id": tpl, "b": theirs},
		`query($id: Int!, $b: Int) { czTemplatePreview(id: $id, binding_id: $b) { template { id } } }`)
	e.Do(http.MethodGet, czPreviewPath(tpl)+"?binding_id=x", admin, nil).Expect(t, 400)
	e.Do(http.MethodGet, czPreviewPath(tpl)+"?binding=1", admin, nil).Expect(t, 400)
}

// TestCzPreviewStatementsDoNotGrowWithRows: a preview costs the same
// statements for 1 element, mockup, print area, option and value as for 8
// of each (64 print areas, 64 values), with a binding or without.
func TestCzPreviewStatementsDoNotGrowWithRows(t *testing.T) {
	e, s, admin := newAcme(t)
	count := countStatements(e)
	cost := func(n int) (without, with int64) {
		f := newCzTemplateFixture(t, e, s.ID, n)
		tpl := czCreateTemplate(t, e, admin, f, fmt.Sprintf("T%d", n))
		for q := range n {
			czCreateTier(t, e, admin, tpl, int64(q+1), 100)
		}
		b := czInsertBinding(t, e, s.ID, insertProduct(t, e, s.ID, fmt.Sprintf("p%d", n)), tpl, f.optionSet, "", "")
		without = count(func() {
			p := czPreview(t, e, admin, tpl, 0)
			if n > 1 && len(objectsOf(objectsOf(p["mockups"])[n-1]["print_areas"])) != n {
				t.Fatalf("the preview of %d: %v", n, p)
			}
		})
		with = count(func() { czPreview(t, e, admin, tpl, b) })
		return without, with
	}
	smallWithout, smallWith := cost(1)
	largeWithout, largeWith := cost(8)
	t.Logf("a preview over REST and again over GraphQL: %d statements without a binding, %d with one", smallWithout, smallWith)
	if smallWithout != largeWithout || smallWith != largeWith {
		t.Fatalf("statements: %d and %d for 1 of each, %d and %d for 8", smallWithout, smallWith, largeWithout, largeWith)
	}
}

// TestCzPreviewAccess: the bindings list and the preview are
// customizer:read (any role); no key is 401, another scope 403.
func TestCzPreviewAccess(t *testing.T) {
	e, s, admin := newAcme(t)
	f := newCzTemplateFixture(t, e, s.ID, 1)
	tpl := czCreateTemplate(t, e, admin, f, "Mug")
	otherScope := e.Key(s.ID, auth.RoleAdmin, "tax:read", "tax:write")
	reads := []apitest.Call{
		{Method: http.MethodGet, Path: "/store/customizer/product-bindings"},
		{Method: http.MethodGet, Path: czPreviewPath(tpl)},
	}
	checkAccess(t, e, s.ID, "customizer", map[string]string{"other scope": otherScope}, reads, nil)
	expectGraphQLCode(t, e, otherScope, "FORBIDDEN", map[string]any{"id": tpl},
		`{ czStoreBindings { id } }`, `query($id: Int!) { czTemplatePreview(id: $id) { template { id } } }`)
}
