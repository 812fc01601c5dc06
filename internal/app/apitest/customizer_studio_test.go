package apitest_test

import (
	"context"
	"net/http"
	"reflect"
	"slices"
	"strconv"
	"testing"

	"storeadmin/internal/app/apitest"
	"storeadmin/internal/auth"
	"storeadmin/models"
)

func czsStudioPath(designID int64) string {
	return "/store/customizer/designs/" + strconv.FormatInt(designID, 10) + "/studio"
}

// czsInsert writes records straight to the database: the designs,
// templates, option sets and bindings the studio and usage read belong to
// other parts of the customizer, whose routes these tests do not lean on.
func czsInsert(t *testing.T, e *apitest.Env, records ...any) {
	t.Helper()
	for _, r := range records {
		if _, err := e.DB.NewInsert().Model(r).Exec(context.Background()); err != nil {
			t.Fatalf("insert %T: %v", r, err)
		}
	}
}

func czsStr(s string) *string { return &s }

// czsWorld is a store's customizer: two designs, three bases, templates,
// option sets with functions, and bindings (one of a deleted product).
type czsWorld struct {
	design, otherDesign       *models.CzDesign
	name, photo, logo, bg     *models.CzElement
	mug, tee, bag             *models.CzProductBase
	front, back               *models.CzMockup
	alpha, beta, gamma        *models.CzTemplate
	bound, unbound, elsewhere *models.CzOptionSet
	p1, p2, p3                int64
}

// czsSetup builds a czsWorld in the store.
func czsSetup(t *testing.T, e *apitest.Env, storeID int64) *czsWorld {
	t.Helper()
	w := &czsWorld{}
	w.design = &models.CzDesign{StoreID: storeID, Name: "Name mug", WidthPx: 1000, HeightPx: 500}
	w.otherDesign = &models.CzDesign{StoreID: storeID, Name: "Other", WidthPx: 10, HeightPx: 10}
	czsInsert(t, e, w.design, w.otherDesign)
	element := func(key, group string, z int64) *models.CzElement {
		return &models.CzElement{StoreID: storeID, DesignID: w.design.ID, ElementKey: key, GroupKey: group, Type: "text",
			X: 1, Y: 2, W: 30, H: 40, RotationDeg: 5, ZIndex: z, Settings: map[string]any{"font_size": 12.0}}
	}
	w.name, w.photo, w.logo, w.bg = element("name", "", 3), element("photo", "pics", 2), element("logo", "pics", 1), element("bg", "", 0)
	czsInsert(t, e, w.name, w.photo, w.logo, w.bg)
	w.mug = &models.CzProductBase{StoreID: storeID, Name: "Mug"}
	w.tee = &models.CzProductBase{StoreID: storeID, Name: "Tee"}
	w.bag = &models.CzProductBase{StoreID: storeID, Name: "Bag"}
	czsInsert(t, e, w.mug, w.tee, w.bag)
	w.front = &models.CzMockup{StoreID: storeID, ProductBaseID: w.mug.ID, Name: "Front", Position: 0, ImageSrc: "/files/a.png", ImageWidth: 100, ImageHeight: 80}
	w.back = &models.CzMockup{StoreID: storeID, ProductBaseID: w.mug.ID, Name: "Back", Position: 1, ImageSrc: "/files/b.png", ImageWidth: 100, ImageHeight: 80}
	czsInsert(t, e, w.back, w.front)
	czsInsert(t, e,
		&models.CzPrintArea{StoreID: storeID, MockupID: w.front.ID, Name: "Wrap", Position: 0, X: 1, Y: 1, W: 10, H: 10},
		&models.CzPrintArea{StoreID: storeID, MockupID: w.front.ID, Name: "Side", Position: 1, X: 2, Y: 2, W: 10, H: 10, RotationDeg: 45})
	template := func(name string, design *models.CzDesign, base *models.CzProductBase) *models.CzTemplate {
		return &models.CzTemplate{StoreID: storeID, Name: name, DesignID: design.ID, ProductBaseID: base.ID, ExportFormat: "png", PPI: 300}
	}
	w.beta, w.alpha, w.gamma = template("Beta", w.design, w.tee), template("Alpha", w.design, w.mug), template("Gamma", w.otherDesign, w.mug)
	czsInsert(t, e, w.beta, w.alpha, w.gamma)

	// Functions of the bound set target name twice, and the pics group
	// once; the other sets' functions do not count for the design.
	set := func(name string, functions ...[]models.CustomizerFunction) *models.CzOptionSet {
		s := &models.CzOptionSet{StoreID: storeID, Name: name}
		czsInsert(t, e, s)
		o := &models.CzOption{StoreID: storeID, OptionSetID: s.ID, Label: "Pick", Type: "select", Settings: map[string]any{},
			Conditions: []models.CustomizerCondition{}}
		czsInsert(t, e, o)
		for i, fs := range functions {
			czsInsert(t, e, &models.CzOptionValue{StoreID: storeID, OptionID: o.ID, Label: "v", Value: "v" + strconv.Itoa(i), Position: int64(i), Functions: fs})
		}
		return s
	}
	w.bound = set("Bound",
		[]models.CustomizerFunction{{ElementKey: czsStr("name"), Property: "text", Value: "Ana"}, {GroupKey: czsStr("pics"), Property: "visibility", Value: "hidden"}},
		[]models.CustomizerFunction{{ElementKey: czsStr("name"), Property: "font", Value: "Lora"}, {ElementKey: czsStr("ghost"), Property: "text", Value: "x"}},
		[]models.CustomizerFunction{})
	w.unbound = set("Unbound", []models.CustomizerFunction{{ElementKey: czsStr("bg"), Property: "color", Value: "#000000"}})
	w.elsewhere = set("Elsewhere", []models.CustomizerFunction{{ElementKey: czsStr("bg"), Property: "color", Value: "#ffffff"}})

	handle := "czs-" + strconv.FormatInt(w.design.ID, 10) + "-"
	w.p1, w.p2, w.p3 = insertProduct(t, e, storeID, handle+"1"), insertProduct(t, e, storeID, handle+"2"), insertProduct(t, e, storeID, handle+"3")
	binding := func(product int64, tpl *models.CzTemplate, s *models.CzOptionSet) *models.CzProductBinding {
		return &models.CzProductBinding{StoreID: storeID, ProductID: product, TemplateID: tpl.ID, OptionSetID: s.ID, DefaultSelections: map[string]any{}}
	}
	czsInsert(t, e, binding(w.p1, w.alpha, w.bound), binding(w.p2, w.beta, w.bound), binding(w.p3, w.gamma, w.elsewhere),
		binding(987654+w.design.ID, w.alpha, w.bound)) // a deleted product's
	return w
}

// TestCzStudio: a design's studio shows its elements in paint order with
// how many functions of bound option sets target each, and every template
// with its base and the base's mockups and print areas, in a constant
// number of statements.
func TestCzStudio(t *testing.T) {
	e, s, _ := newAcme(t)
	reader := e.Key(s.ID, auth.RoleStaff, "customizer:read")
	w := czsSetup(t, e, s.ID)

	r := e.Do(http.MethodGet, czsStudioPath(w.design.ID), reader, nil).Expect(t, 200)
	expectPayload(t, r, "studio")
	studio := objectWithKeys(t, "studio", r.Body["studio"], []string{"design", "elements", "placements"})
	if want := map[string]any{"id": float64(w.design.ID), "name": "Name mug", "width_px": float64(1000), "height_px": float64(500)}; !reflect.DeepEqual(studio["design"], want) {
		t.Fatalf("design %v", studio["design"])
	}
	elements := objectsOf(studio["elements"])
	wantRefs := []struct {
		id   int64
		refs float64
	}{{w.bg.ID, 0}, {w.logo.ID, 1}, {w.photo.ID, 1}, {w.name.ID, 2}}
	if len(elements) != len(wantRefs) {
		t.Fatalf("elements %v", elements)
	}
	for i, want := range wantRefs {
		el := objectWithKeys(t, "element", elements[i], []string{"design_id", "element_key", "group_key", "h", "id", "referenced_by",
			"rotation_deg", "settings", "type", "w", "x", "y", "z_index"})
		if idOf(t, el) != want.id || el["referenced_by"] != want.refs {
			t.Fatalf("element %d: %v, want id %d referenced_by %v", i, el, want.id, want.refs)
		}
	}
	if el := elements[3]; el["settings"].(map[string]any)["font_size"] != float64(12) || el["x"] != float64(1) || el["rotation_deg"] != float64(5) {
		t.Fatalf("element fields %v", el)
	}

	placements := objectsOf(studio["placements"])
	if len(placements) != 2 {
		t.Fatalf("placements %v", placements)
	}
	alpha := objectWithKeys(t, "placement", placements[0], []string{"base", "mockups", "template"})
	if idOf(t, alpha["template"].(map[string]any)) != w.alpha.ID || idOf(t, alpha["base"].(map[string]any)) != w.mug.ID {
		t.Fatalf("first placement %v", alpha)
	}
	objectWithKeys(t, "base", alpha["base"], czbBaseKeys)
	mockups := objectsOf(alpha["mockups"])
	if ids := rowIDs(mockups); !slices.Equal(ids, []int64{w.front.ID, w.back.ID}) {
		t.Fatalf("mockups %v", ids)
	}
	studioMockupKeys := append(slices.Clone(czbMockupKeys), "print_areas")
	slices.Sort(studioMockupKeys)
	front := objectWithKeys(t, "mockup", mockups[0], studioMockupKeys)
	if areas := objectsOf(front["print_areas"]); len(areas) != 2 || areas[1]["name"] != "Side" || areas[1]["rotation_deg"] != float64(45) {
		t.Fatalf("print areas %v", front["print_areas"])
	}
	if areas := objectsOf(mockups[1]["print_areas"]); len(areas) != 0 || mockups[1]["print_areas"] == nil {
		t.Fatalf("back's print areas %v", mockups[1]["print_areas"])
	}
	beta := placements[1]
	if idOf(t, beta["template"].(map[string]any)) != w.beta.ID || len(objectsOf(beta["mockups"])) != 0 || beta["mockups"] == nil {
		t.Fatalf("second placement %v", beta)
	}
	e.SameOnGraphQL(t, r, reader, "GetCzStudio", map[string]any{"id": w.design.ID})

	// The other design: no elements, and gamma on the mug.
	r = e.Do(http.MethodGet, czsStudioPath(w.otherDesign.ID), reader, nil).Expect(t, 200)
	if other := r.Obj("studio"); len(objectsOf(other["elements"])) != 0 || len(objectsOf(other["placements"])) != 1 {
		t.Fatalf("other design's studio %v", other)
	}

	// The statement count does not grow with templates, mockups, print
	// areas or elements.
	count := countStatements(e)
	before := count(func() { e.Do(http.MethodGet, czsStudioPath(w.design.ID), reader, nil).Expect(t, 200) })
	for i := range 3 {
		base := &models.CzProductBase{StoreID: s.ID, Name: "More " + strconv.Itoa(i)}
		czsInsert(t, e, base)
		for j := range 3 {
			m := &models.CzMockup{StoreID: s.ID, ProductBaseID: base.ID, Name: "m", Position: int64(j), ImageSrc: "/files/m.png", ImageWidth: 10, ImageHeight: 10}
			czsInsert(t, e, m)
			czsInsert(t, e, &models.CzPrintArea{StoreID: s.ID, MockupID: m.ID, Name: "p", X: 0, Y: 0, W: 1, H: 1})
		}
		czsInsert(t, e, &models.CzTemplate{StoreID: s.ID, Name: "T" + strconv.Itoa(i), DesignID: w.design.ID, ProductBaseID: base.ID, ExportFormat: "jpeg", PPI: 72},
			&models.CzElement{StoreID: s.ID, DesignID: w.design.ID, ElementKey: "extra-" + strconv.Itoa(i), Type: "shape", W: 1, H: 1, Settings: map[string]any{}})
	}
	var grown *apitest.Response
	after := count(func() { grown = e.Do(http.MethodGet, czsStudioPath(w.design.ID), reader, nil).Expect(t, 200) })
	if len(objectsOf(grown.Obj("studio")["placements"])) != 5 {
		t.Fatalf("placements after growth: %s", grown.Raw)
	}
	if after != before {
		t.Fatalf("the studio took %d statements, then %d with more templates, mockups and elements", before, after)
	}
}

// TestCzStudioOtherStore: another store's design is a 404 on both
// surfaces; its templates never show in this store's studio.
func TestCzStudioOtherStore(t *testing.T) {
	e := apitest.New(t)
	a, b := e.Store("Acme"), e.Store("Bolt")
	aKey := e.Key(a.ID, auth.RoleAdmin)
	theirs := czsSetup(t, e, b.ID)
	e.Do(http.MethodGet, czsStudioPath(theirs.design.ID), aKey, nil).Expect(t, 404)
	e.Do(http.MethodGet, czsStudioPath(987654), aKey, nil).Expect(t, 404)
	expectGraphQLCode(t, e, aKey, "NOT_FOUND", map[string]any{"id": theirs.design.ID}, `query($id: Int!) { czStudio(id: $id) { design { id } } }`)
	e.Do(http.MethodGet, "/store/customizer/designs/x/studio", aKey, nil).Expect(t, 400)
}

// TestCzUsage: every design, option set and product base of the store,
// zeros included, with its templates and the distinct existing products
// bound through them, in a constant number of statements.
func TestCzUsage(t *testing.T) {
	e, s, _ := newAcme(t)
	reader := e.Key(s.ID, auth.RoleStaff, "customizer:read")
	w := czsSetup(t, e, s.ID)
	czsSetup(t, e, e.Store("Other").ID)

	r := e.Do(http.MethodGet, "/store/customizer/usage", reader, nil).Expect(t, 200)
	expectPayload(t, r, "usage")
	usage := objectWithKeys(t, "usage", r.Body["usage"], []string{"designs", "option_sets", "product_bases"})
	u := func(products, templates float64) map[string]any {
		return map[string]any{"product_count": products, "template_count": templates}
	}
	id := func(v int64) string { return strconv.FormatInt(v, 10) }
	want := map[string]any{
		"designs": map[string]any{id(w.design.ID): u(2, 2), id(w.otherDesign.ID): u(1, 1)},
		// An option set's templates are those of its bindings; the deleted
		// product's binding is on alpha, counted once, and binds nothing.
		"option_sets":   map[string]any{id(w.bound.ID): u(2, 2), id(w.unbound.ID): u(0, 0), id(w.elsewhere.ID): u(1, 1)},
		"product_bases": map[string]any{id(w.mug.ID): u(2, 2), id(w.tee.ID): u(1, 1), id(w.bag.ID): u(0, 0)},
	}
	if !reflect.DeepEqual(usage, want) {
		t.Fatalf("usage %v\nwant %v", usage, want)
	}
	e.SameOnGraphQL(t, r, reader, "GetCzUsage", nil)

	count := countStatements(e)
	before := count(func() { e.Do(http.MethodGet, "/store/customizer/usage", reader, nil).Expect(t, 200) })
	czsSetup(t, e, s.ID)
	after := count(func() { e.Do(http.MethodGet, "/store/customizer/usage", reader, nil).Expect(t, 200) })
	if after != before || before > 3 {
		t.Fatalf("usage took %d statements, then %d with twice the records", before, after)
	}

	// A store without a customizer answers empty objects.
	empty := e.Key(e.Store("Empty").ID, auth.RoleAdmin)
	r = e.Do(http.MethodGet, "/store/customizer/usage", empty, nil).Expect(t, 200)
	if want := map[string]any{"designs": map[string]any{}, "option_sets": map[string]any{}, "product_bases": map[string]any{}}; !reflect.DeepEqual(r.Obj("usage"), want) {
		t.Fatalf("empty store's usage %s", r.Raw)
	}
}

// czsSameStatus fails unless GraphQL's czStatus says enabled, as REST
// does (SameOnGraphQL cannot tell a spread of one field from a field).
func czsSameStatus(t *testing.T, e *apitest.Env, key string, enabled bool) {
	t.Helper()
	g := e.GraphQL(key, `{ czStatus { platform_enabled } }`, nil)
	if want := map[string]any{"czStatus": map[string]any{"platform_enabled": enabled}}; !reflect.DeepEqual(g.Data(), want) {
		t.Fatalf("GraphQL czStatus %s, want platform_enabled %v", g.Raw, enabled)
	}
}

// TestCzStatus: platform_enabled follows the deployment's switch (serve
// --customizer), on by default.
func TestCzStatus(t *testing.T) {
	e, _, admin := newAcme(t)
	r := e.Do(http.MethodGet, "/store/customizer/status", admin, nil).Expect(t, 200)
	if !reflect.DeepEqual(r.Body, map[string]any{"status": true, "platform_enabled": true}) {
		t.Fatalf("status %s", r.Raw)
	}
	czsSameStatus(t, e, admin, true)

	off := apitest.New(t, apitest.WithPlatform(models.Platform{CustomizerOff: true}))
	o := off.Store("Off")
	key := off.Key(o.ID, auth.RoleStaff, "customizer:read")
	r = off.Do(http.MethodGet, "/store/customizer/status", key, nil).Expect(t, 200)
	if !reflect.DeepEqual(r.Body, map[string]any{"status": true, "platform_enabled": false}) {
		t.Fatalf("status with the customizer off %s", r.Raw)
	}
	czsSameStatus(t, off, key, false)
}

// TestCzStudioAccess: the studio, usage and status are customizer:read, for
// any role; no key is 401.
func TestCzStudioAccess(t *testing.T) {
	e, s, _ := newAcme(t)
	w := czsSetup(t, e, s.ID)
	otherScope := e.Key(s.ID, auth.RoleAdmin, "products:read", "products:write")
	reads := []apitest.Call{
		{Method: http.MethodGet, Path: czsStudioPath(w.design.ID)},
		{Method: http.MethodGet, Path: "/store/customizer/usage"},
		{Method: http.MethodGet, Path: "/store/customizer/status"},
	}
	checkAccess(t, e, s.ID, "customizer", map[string]string{"other scope": otherScope}, reads, nil)
	expectGraphQLCode(t, e, otherScope, "FORBIDDEN", nil, `{ czUsage { designs } }`, `{ czStatus { platform_enabled } }`)
}
