package apitest_test

import (
	"context"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"

	"storeadmin/internal/app/apitest"
	"storeadmin/internal/auth"
	"storeadmin/models"
)

// The fields of the spec's template and quantity tier views, exactly.
var (
	czTemplateKeys = []string{"design_id", "export_format", "id", "included_colors", "included_elements", "name", "ppi",
		"price_per_extra_color_cents", "price_per_extra_element_cents", "product_base_id"}
	czTierKeys = []string{"id", "min_qty", "position", "price_cents", "template_id"}
)

func czTemplatePath(id int64) string {
	return "/store/customizer/templates/" + strconv.FormatInt(id, 10)
}
func czTiersPath(templateID int64) string { return czTemplatePath(templateID) + "/quantity-tiers" }
func czTierPath(id int64) string {
	return "/store/customizer/quantity-tiers/" + strconv.FormatInt(id, 10)
}

// czTemplates is the template resource of the REST API.
var czTemplates = crudResource{
	path: "/store/customizer/templates", item: czTemplatePath, one: "template", many: "templates",
	view: func(t *testing.T, v any) map[string]any { return objectWithKeys(t, "template", v, czTemplateKeys) },
}

// czTemplateFixture is what a store's templates are made of, inserted
// straight into the tables (the other parts' endpoints are not on this
// branch): a design with n elements (the first an artwork slot), a base
// with n mockups of n print areas each, and an option set of n options of
// n values each (the first option an artwork picker), plus a plain option
// set without artwork.
type czTemplateFixture struct {
	design, base, optionSet, plainSet int64
	elements, mockups, options        []int64
}

// newCzTemplateFixture inserts a czTemplateFixture of size n for the store.
func newCzTemplateFixture(t *testing.T, e *apitest.Env, storeID int64, n int) czTemplateFixture {
	t.Helper()
	ctx := context.Background()
	insert := func(what string, model any) {
		t.Helper()
		if _, err := e.DB.NewInsert().Model(model).Exec(ctx); err != nil {
			t.Fatalf("insert %s: %v", what, err)
		}
	}
	var f czTemplateFixture
	d := &models.CzDesign{StoreID: storeID, Name: "Mug front", WidthPx: 2000, HeightPx: 1000}
	insert("design", d)
	f.design = d.ID
	elements := make([]models.CzElement, n)
	for i := range elements {
		typ := "text"
		if i == 0 {
			typ = "artwork"
		}
		elements[i] = models.CzElement{StoreID: storeID, DesignID: d.ID, ElementKey: fmt.Sprintf("el-%d", i), Type: typ,
			X: float64(i), Y: 2, W: 100, H: 50, ZIndex: int64(n - i), Settings: map[string]any{"n": i}}
	}
	insert("elements", &elements)
	// Paint order is z_index: the last inserted is drawn first.
	for i := len(elements) - 1; i >= 0; i-- {
		f.elements = append(f.elements, elements[i].ID)
	}
	b := &models.CzProductBase{StoreID: storeID, Name: "Mug"}
	insert("base", b)
	f.base = b.ID
	mockups := make([]models.CzMockup, n)
	for i := range mockups {
		mockups[i] = models.CzMockup{StoreID: storeID, ProductBaseID: b.ID, Name: fmt.Sprintf("Side %d", i), Position: int64(i),
			ImageSrc: fmt.Sprintf("https://cdn.example/m%d.png", i), ImageWidth: 800, ImageHeight: 600}
	}
	insert("mockups", &mockups)
	var areas []models.CzPrintArea
	for _, m := range mockups {
		f.mockups = append(f.mockups, m.ID)
		for j := range n {
			areas = append(areas, models.CzPrintArea{StoreID: storeID, MockupID: m.ID, Name: fmt.Sprintf("Area %d", j), Position: int64(j), X: 10, Y: 10, W: 200, H: 100})
		}
	}
	insert("print areas", &areas)
	f.optionSet = czInsertOptionSet(t, e, storeID, "Engraving", n, "artwork")
	f.plainSet = czInsertOptionSet(t, e, storeID, "Plain", 1, "text")
	options := []models.CzOption{}
	if err := e.DB.NewSelect().Model(&options).Where("option_set_id = ?", f.optionSet).Order("position").Scan(ctx); err != nil {
		t.Fatal(err)
	}
	for _, o := range options {
		f.options = append(f.options, o.ID)
	}
	return f
}

// czInsertOptionSet inserts an option set named name with n options of n
// values each, the first option of type firstType and the others select,
// and returns its id.
func czInsertOptionSet(t *testing.T, e *apitest.Env, storeID int64, name string, n int, firstType string) int64 {
	t.Helper()
	ctx := context.Background()
	s := &models.CzOptionSet{StoreID: storeID, Name: name}
	if _, err := e.DB.NewInsert().Model(s).Exec(ctx); err != nil {
		t.Fatalf("insert option set: %v", err)
	}
	options := make([]models.CzOption, n)
	for i := range options {
		typ := "select"
		if i == 0 {
			typ = firstType
		}
		options[i] = models.CzOption{StoreID: storeID, OptionSetID: s.ID, Label: fmt.Sprintf("Option %d", i), Type: typ, Position: int64(i),
			Settings: map[string]any{}, Validation: models.CzTextValidation{MaxLength: 20, Mode: ""}, Conditions: []models.CustomizerCondition{}}
	}
	if _, err := e.DB.NewInsert().Model(&options).Exec(ctx); err != nil {
		t.Fatalf("insert options: %v", err)
	}
	var values []models.CzOptionValue
	for _, o := range options {
		for j := range n {
			key := "el-0"
			values = append(values, models.CzOptionValue{StoreID: storeID, OptionID: o.ID, Label: fmt.Sprintf("Value %d", j), Value: fmt.Sprintf("v%d", j),
				Position: int64(j), PriceDeltaCents: int64(j * 100), Functions: []models.CustomizerFunction{{ElementKey: &key, Property: "text", Value: "x"}}})
		}
	}
	if _, err := e.DB.NewInsert().Model(&values).Exec(ctx); err != nil {
		t.Fatalf("insert values: %v", err)
	}
	return s.ID
}

// czInsertBinding binds a template and an option set to a product,
// straight into the table, and returns the binding's id.
func czInsertBinding(t *testing.T, e *apitest.Env, storeID, productID, templateID, optionSetID int64, optionName, optionValue string) int64 {
	t.Helper()
	b := &models.CzProductBinding{StoreID: storeID, ProductID: productID, TemplateID: templateID, OptionSetID: optionSetID,
		OptionName: optionName, OptionValue: optionValue, LibraryScope: optionValue, DefaultSelections: map[string]any{"note": optionValue}}
	if _, err := e.DB.NewInsert().Model(b).Exec(context.Background()); err != nil {
		t.Fatalf("insert binding: %v", err)
	}
	return b.ID
}

// czCreateTemplate creates a template of the fixture's design and base over
// REST and returns its id.
func czCreateTemplate(t *testing.T, e *apitest.Env, key string, f czTemplateFixture, name string) int64 {
	t.Helper()
	return idOf(t, czTemplates.create(t, e, key, map[string]any{"name": name, "design_id": f.design, "product_base_id": f.base}))
}

// czExpectField fails unless r is a 400 whose message names field first.
// (The REST envelope's own "field" is kept for errors met while the
// variables are read; a resolver's check names the field in its message,
// and in extensions.field on GraphQL: czExpectGraphQLField.)
func czExpectField(t *testing.T, what string, r *apitest.Response, field string) {
	t.Helper()
	r.Expect(t, 400)
	if !strings.HasPrefix(r.Message(), field+" ") {
		t.Fatalf("%s: want a 400 naming %s, got %s", what, field, r.Raw)
	}
}

// czExpectGraphQLField fails unless the query answers BAD_USER_INPUT with
// extensions.field field.
func czExpectGraphQLField(t *testing.T, e *apitest.Env, key, query string, vars map[string]any, field string) {
	t.Helper()
	g := e.GraphQL(key, query, vars)
	errs, _ := g.Body["errors"].([]any)
	if g.ErrorCode() != "BAD_USER_INPUT" || len(errs) != 1 {
		t.Fatalf("%s: want BAD_USER_INPUT, got %s", query, g.Raw)
	}
	if ext, _ := errs[0].(map[string]any)["extensions"].(map[string]any); ext["field"] != field {
		t.Fatalf("%s: want extensions.field %s, got %s", query, field, g.Raw)
	}
}

// TestCzTemplates: a template's life over REST, the same on GraphQL: create
// with its defaults, read, list with paging, update as a merge, every
// validation rule a 400 naming its field with nothing written, another
// store's records 404 (or 400 for a reference in the input), and deleting a
// bound template a 409 naming the products.
func TestCzTemplates(t *testing.T) {
	e, s, admin := newAcme(t)
	f := newCzTemplateFixture(t, e, s.ID, 2)

	full := map[string]any{"name": " Mug wrap ", "design_id": f.design, "product_base_id": f.base, "export_format": "jpeg", "ppi": 600,
		"included_colors": 2, "included_elements": 3, "price_per_extra_color_cents": 150, "price_per_extra_element_cents": 75}
	tpl := czTemplates.create(t, e, admin, full)
	id := idOf(t, tpl)
	want := map[string]any{"id": float64(id), "name": "Mug wrap", "design_id": float64(f.design), "product_base_id": float64(f.base), "export_format": "jpeg",
		"ppi": float64(600), "included_colors": float64(2), "included_elements": float64(3), "price_per_extra_color_cents": float64(150), "price_per_extra_element_cents": float64(75)}
	if fmt.Sprint(tpl) != fmt.Sprint(want) {
		t.Fatalf("created %v\nwant %v", tpl, want)
	}
	plain := czTemplates.create(t, e, admin, map[string]any{"name": "Plain", "design_id": f.design, "product_base_id": f.base})
	if plain["export_format"] != "png" || plain["ppi"] != float64(300) || plain["included_colors"] != float64(0) || plain["price_per_extra_element_cents"] != float64(0) {
		t.Fatalf("defaults: %v", plain)
	}
	got, r := czTemplates.get(t, e, admin, id)
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("read %v", got)
	}
	e.SameOnGraphQL(t, r, admin, "GetCzTemplate", map[string]any{"id": id})

	r = e.Do(http.MethodGet, "/store/customizer/templates", admin, nil).Expect(t, 200)
	expectPayload(t, r, "templates")
	if ids := rowIDs(objectsOf(r.Body["templates"])); fmt.Sprint(ids) != fmt.Sprint([]int64{id, idOf(t, plain)}) {
		t.Fatalf("list: %s", r.Raw)
	}
	e.SameOnGraphQL(t, r, admin, "ListCzTemplates", nil)
	r = e.Do(http.MethodGet, "/store/customizer/templates?limit=1&offset=1", admin, nil).Expect(t, 200)
	if ids := rowIDs(objectsOf(r.Body["templates"])); fmt.Sprint(ids) != fmt.Sprint([]int64{idOf(t, plain)}) {
		t.Fatalf("second page: %s", r.Raw)
	}
	e.SameOnGraphQL(t, r, admin, "ListCzTemplates", map[string]any{"limit": 1, "offset": 1})
	e.Do(http.MethodGet, "/store/customizer/templates?limit=251", admin, nil).Expect(t, 400)

	// An update is a merge: what is left out stays.
	design2 := newCzTemplateFixture(t, e, s.ID, 1).design
	upd, _ := czTemplates.put(t, e, admin, id, map[string]any{"ppi": 72, "design_id": design2, "export_format": "png"})
	want["ppi"], want["design_id"], want["export_format"] = float64(72), float64(design2), "png"
	if fmt.Sprint(upd) != fmt.Sprint(want) {
		t.Fatalf("updated %v\nwant %v", upd, want)
	}

	// Every rule, on create and update: a 400 naming the field.
	other := e.Store("Other")
	otherKey := e.Key(other.ID, auth.RoleAdmin)
	of := newCzTemplateFixture(t, e, other.ID, 1)
	bad := map[string]struct {
		change map[string]any
		field  string
	}{
		"empty name":                  {map[string]any{"name": "  "}, "name"},
		"long name":                   {map[string]any{"name": strings.Repeat("n", 256)}, "name"},
		"another store's design":      {map[string]any{"design_id": of.design}, "design_id"},
		"no such design":              {map[string]any{"design_id": 0}, "design_id"},
		"another store's base":        {map[string]any{"product_base_id": of.base}, "product_base_id"},
		"export format":               {map[string]any{"export_format": "gif"}, "export_format"},
		"ppi too low":                 {map[string]any{"ppi": 71}, "ppi"},
		"ppi too high":                {map[string]any{"ppi": 1201}, "ppi"},
		"negative colours":            {map[string]any{"included_colors": -1}, "included_colors"},
		"too many colours":            {map[string]any{"included_colors": 1001}, "included_colors"},
		"negative elements":           {map[string]any{"included_elements": -1}, "included_elements"},
		"too many elements":           {map[string]any{"included_elements": 1001}, "included_elements"},
		"negative colour price":       {map[string]any{"price_per_extra_color_cents": -1}, "price_per_extra_color_cents"},
		"colour price past the bound": {map[string]any{"price_per_extra_color_cents": 100_000_001}, "price_per_extra_color_cents"},
		"element price past int32":    {map[string]any{"price_per_extra_element_cents": int64(1) << 40}, "price_per_extra_element_cents"},
	}
	for name, c := range bad {
		body := map[string]any{"name": "T", "design_id": f.design, "product_base_id": f.base}
		for k, v := range c.change {
			body[k] = v
		}
		czExpectField(t, "create, "+name, e.Do(http.MethodPost, "/store/customizer/templates", admin, body), c.field)
		czExpectField(t, "update, "+name, e.Do(http.MethodPut, czTemplatePath(id), admin, c.change), c.field)
	}
	for _, missing := range []string{"name", "design_id", "product_base_id"} {
		body := map[string]any{"name": "T", "design_id": f.design, "product_base_id": f.base}
		delete(body, missing)
		czExpectField(t, "create without "+missing, e.Do(http.MethodPost, "/store/customizer/templates", admin, body), missing)
	}
	e.Do(http.MethodPost, "/store/customizer/templates", admin, map[string]any{"name": "T", "design_id": f.design, "product_base_id": f.base, "colour": 1}).Expect(t, 400)
	czExpectGraphQLField(t, e, admin, `mutation($id: Int!) { updateCzTemplate(id: $id, input: {ppi: 5000}) { id } }`, map[string]any{"id": id}, "ppi")
	czExpectGraphQLField(t, e, admin, `mutation($d: Int!) { createCzTemplate(input: {name: "T", design_id: $d, product_base_id: 0}) { id } }`,
		map[string]any{"d": f.design}, "product_base_id")
	if got, _ := czTemplates.get(t, e, admin, id); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("a refused update was written: %v", got)
	}
	if rows := objectsOf(e.Do(http.MethodGet, "/store/customizer/templates", admin, nil).Expect(t, 200).Body["templates"]); len(rows) != 2 {
		t.Fatalf("a refused create was written: %v", rows)
	}

	// Another store's template, and none at all: 404 on both surfaces.
	otherTpl := czCreateTemplate(t, e, otherKey, of, "Theirs")
	for _, tid := range []int64{otherTpl, 999999} {
		e.Do(http.MethodGet, czTemplatePath(tid), admin, nil).Expect(t, 404)
		e.Do(http.MethodPut, czTemplatePath(tid), admin, map[string]any{"name": "Mine"}).Expect(t, 404)
		e.Do(http.MethodDelete, czTemplatePath(tid), admin, nil).Expect(t, 404)
		expectGraphQLCode(t, e, admin, "NOT_FOUND", map[string]any{"id": tid},
			`query($id: Int!) { czTemplate(id: $id) { id } }`,
			`mutation($id: Int!) { updateCzTemplate(id: $id, input: {name: "Mine"}) { id } }`,
			`mutation($id: Int!) { deleteCzTemplate(id: $id) }`)
	}
	if got, _ := czTemplates.get(t, e, otherKey, otherTpl); got["name"] != "Theirs" {
		t.Fatalf("another store's template changed: %v", got)
	}

	// A bound template is kept: 409 naming its products, a deleted one too.
	mugs := insertProduct(t, e, s.ID, "mugs")
	czInsertBinding(t, e, s.ID, mugs, id, f.optionSet, "", "")
	czInsertBinding(t, e, s.ID, 424242, id, f.plainSet, "", "")
	r = e.Do(http.MethodDelete, czTemplatePath(id), admin, nil).Expect(t, 409)
	if msg := r.Message(); !strings.Contains(msg, `"Product mugs" (`+strconv.FormatInt(mugs, 10)+")") || !strings.Contains(msg, "product 424242 (deleted)") {
		t.Fatalf("409 names the products: %s", r.Raw)
	}
	expectGraphQLCode(t, e, admin, "CONFLICT", map[string]any{"id": id}, `mutation($id: Int!) { deleteCzTemplate(id: $id) }`)
	czTemplates.get(t, e, admin, id)

	// Unbound, it goes with its tiers.
	pid := idOf(t, plain)
	tier := idOf(t, czCreateTier(t, e, admin, pid, 5, 900))
	expectBareDelete(t, e, admin, czTemplatePath(pid))
	e.Do(http.MethodGet, czTemplatePath(pid), admin, nil).Expect(t, 404)
	e.Do(http.MethodPut, czTierPath(tier), admin, map[string]any{"price_cents": 1}).Expect(t, 404)
	var tiers int
	if err := e.DB.NewRaw("SELECT count(*) FROM cz_quantity_tiers WHERE template_id = ?", pid).Scan(context.Background(), &tiers); err != nil || tiers != 0 {
		t.Fatalf("the template's tiers: %d, %v", tiers, err)
	}
	expectAuditRecord(t, e, admin, "action=deleteCzTemplate", "cz_template", pid)
}

// czCreateTier creates a quantity tier over REST and returns its view.
func czCreateTier(t *testing.T, e *apitest.Env, key string, templateID, minQty, priceCents int64) map[string]any {
	t.Helper()
	r := e.Do(http.MethodPost, czTiersPath(templateID), key, map[string]any{"min_qty": minQty, "price_cents": priceCents}).Expect(t, 201)
	expectPayload(t, r, "quantity_tier")
	return objectWithKeys(t, "quantity tier", r.Body["quantity_tier"], czTierKeys)
}

// czTierList is GET …/quantity-tiers, the same on GraphQL: "min_qty:price
// @position" per tier, in order.
func czTierList(t *testing.T, e *apitest.Env, key string, templateID int64) string {
	t.Helper()
	r := e.Do(http.MethodGet, czTiersPath(templateID), key, nil).Expect(t, 200)
	expectPayload(t, r, "quantity_tiers")
	e.SameOnGraphQL(t, r, key, "ListCzQuantityTiers", map[string]any{"id": templateID})
	var out []string
	for _, v := range r.List("quantity_tiers") {
		q := objectWithKeys(t, "quantity tier", v, czTierKeys)
		if q["template_id"] != float64(templateID) {
			t.Fatalf("tier of another template: %v", q)
		}
		out = append(out, fmt.Sprintf("%v:%v@%v", q["min_qty"], q["price_cents"], q["position"]))
	}
	return strings.Join(out, " ")
}

// TestCzTiers: a template's quantity tiers are ordered by min_qty, their
// positions renumbered on every write; min_qty is unique (409 naming it),
// the numbers bounded (400 naming the field), the list capped (409 naming
// the cap), and another store's tiers and templates are 404.
func TestCzTiers(t *testing.T) {
	e, s, admin := newAcme(t)
	f := newCzTemplateFixture(t, e, s.ID, 1)
	tpl := czCreateTemplate(t, e, admin, f, "Mug")

	ten := czCreateTier(t, e, admin, tpl, 10, 800)
	if ten["min_qty"] != float64(10) || ten["price_cents"] != float64(800) || ten["position"] != float64(0) || ten["template_id"] != float64(tpl) {
		t.Fatalf("created %v", ten)
	}
	one := czCreateTier(t, e, admin, tpl, 1, 1000)
	if one["position"] != float64(0) {
		t.Fatalf("the lowest min_qty is first: %v", one)
	}
	five := idOf(t, czCreateTier(t, e, admin, tpl, 5, 900))
	if got := czTierList(t, e, admin, tpl); got != "1:1000@0 5:900@1 10:800@2" {
		t.Fatalf("tiers %s", got)
	}

	r := e.Do(http.MethodPost, czTiersPath(tpl), admin, map[string]any{"min_qty": 5, "price_cents": 1}).Expect(t, 409)
	if !strings.HasPrefix(r.Message(), "min_qty 5: ") {
		t.Fatalf("a duplicate min_qty: %s", r.Raw)
	}
	r = e.Do(http.MethodPut, czTierPath(five), admin, map[string]any{"min_qty": 10}).Expect(t, 409)
	if !strings.HasPrefix(r.Message(), "min_qty 10: ") {
		t.Fatalf("a duplicate min_qty on update: %s", r.Raw)
	}

	// Moving a tier past another renumbers them; a merge keeps the price.
	r = e.Do(http.MethodPut, czTierPath(five), admin, map[string]any{"min_qty": 20}).Expect(t, 200)
	expectPayload(t, r, "quantity_tier")
	if q := objectWithKeys(t, "quantity tier", r.Body["quantity_tier"], czTierKeys); q["position"] != float64(2) || q["price_cents"] != float64(900) {
		t.Fatalf("moved %v", q)
	}
	if got := czTierList(t, e, admin, tpl); got != "1:1000@0 10:800@1 20:900@2" {
		t.Fatalf("after the move: %s", got)
	}

	bad := map[string]struct {
		field string
		value int64
	}{
		"min_qty 0":          {"min_qty", 0},
		"min_qty past bound": {"min_qty", 1_000_001},
		"negative price":     {"price_cents", -1},
		"price past bound":   {"price_cents", 100_000_001},
		"price past int32":   {"price_cents", int64(1) << 33},
	}
	for name, c := range bad {
		body := map[string]any{"min_qty": 2, "price_cents": 1, c.field: c.value}
		czExpectField(t, "create, "+name, e.Do(http.MethodPost, czTiersPath(tpl), admin, body), c.field)
		czExpectField(t, "update, "+name, e.Do(http.MethodPut, czTierPath(five), admin, map[string]any{c.field: c.value}), c.field)
	}
	for _, missing := range []string{"min_qty", "price_cents"} {
		body := map[string]any{"min_qty": 2, "price_cents": 1}
		delete(body, missing)
		czExpectField(t, "create without "+missing, e.Do(http.MethodPost, czTiersPath(tpl), admin, body), missing)
	}
	czExpectGraphQLField(t, e, admin, `mutation($id: Int!) { createCzQuantityTier(template_id: $id, input: {min_qty: 0, price_cents: 1}) { id } }`,
		map[string]any{"id": tpl}, "min_qty")
	if got := czTierList(t, e, admin, tpl); got != "1:1000@0 10:800@1 20:900@2" {
		t.Fatalf("a refused write was written: %s", got)
	}

	// Delete renumbers the others.
	expectBareDelete(t, e, admin, czTierPath(idOf(t, one)))
	if got := czTierList(t, e, admin, tpl); got != "10:800@0 20:900@1" {
		t.Fatalf("after a delete: %s", got)
	}
	expectAuditRecord(t, e, admin, "action=deleteCzQuantityTier", "cz_quantity_tier", idOf(t, one))

	// Another store's tiers and template, and none at all: 404.
	other := e.Store("Other")
	otherKey := e.Key(other.ID, auth.RoleAdmin)
	otherTpl := czCreateTemplate(t, e, otherKey, newCzTemplateFixture(t, e, other.ID, 1), "Theirs")
	theirs := idOf(t, czCreateTier(t, e, otherKey, otherTpl, 3, 300))
	for _, c := range []apitest.Call{
		{Method: http.MethodGet, Path: czTiersPath(otherTpl)},
		{Method: http.MethodPost, Path: czTiersPath(otherTpl), Body: map[string]any{"min_qty": 7, "price_cents": 1}},
		{Method: http.MethodPost, Path: czTiersPath(999999), Body: map[string]any{"min_qty": 7, "price_cents": 1}},
		{Method: http.MethodPut, Path: czTierPath(theirs), Body: map[string]any{"price_cents": 1}},
		{Method: http.MethodDelete, Path: czTierPath(theirs)},
		{Method: http.MethodDelete, Path: czTierPath(999999)},
	} {
		e.Do(c.Method, c.Path, admin, c.Body).Expect(t, 404)
	}
	expectGraphQLCode(t, e, admin, "NOT_FOUND", map[string]any{"id": otherTpl, "tier": theirs},
		`query($id: Int!) { czQuantityTiers(template_id: $id) { id } }`,
		`mutation($tier: Int!) { updateCzQuantityTier(id: $tier, input: {price_cents: 1}) { id } }`,
		`mutation($tier: Int!) { deleteCzQuantityTier(id: $tier) }`)
	if got := czTierList(t, e, otherKey, otherTpl); got != "3:300@0" {
		t.Fatalf("another store's tiers changed: %s", got)
	}

	// The cap: the 21st tier is a 409 naming it.
	for q := int64(100); czTierCount(t, e, tpl) < models.MaxCzQuantityTiers; q++ {
		czCreateTier(t, e, admin, tpl, q, 500)
	}
	r = e.Do(http.MethodPost, czTiersPath(tpl), admin, map[string]any{"min_qty": 2, "price_cents": 1}).Expect(t, 409)
	if !strings.Contains(r.Message(), "(20)") {
		t.Fatalf("past the cap: %s", r.Raw)
	}
}

// czTierCount counts a template's tiers in the table.
func czTierCount(t *testing.T, e *apitest.Env, templateID int64) int64 {
	t.Helper()
	n, err := e.DB.NewSelect().Model((*models.CzQuantityTier)(nil)).Where("template_id = ?", templateID).Count(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return int64(n)
}

// TestCzTemplateAccess: reads are customizer:read (any role), writes are
// customizer:write and admin; no key is 401.
func TestCzTemplateAccess(t *testing.T) {
	e, s, admin := newAcme(t)
	f := newCzTemplateFixture(t, e, s.ID, 1)
	tpl := czCreateTemplate(t, e, admin, f, "Mug")
	tier := idOf(t, czCreateTier(t, e, admin, tpl, 2, 100))
	otherScope := e.Key(s.ID, auth.RoleAdmin, "tax:read", "tax:write")
	reads := []apitest.Call{
		{Method: http.MethodGet, Path: "/store/customizer/templates"},
		{Method: http.MethodGet, Path: czTemplatePath(tpl)},
		{Method: http.MethodGet, Path: czTiersPath(tpl)},
	}
	writes := []apitest.Call{
		{Method: http.MethodPost, Path: "/store/customizer/templates", Body: map[string]any{"name": "T", "design_id": f.design, "product_base_id": f.base}},
		{Method: http.MethodPut, Path: czTemplatePath(tpl), Body: map[string]any{"name": "x"}},
		{Method: http.MethodDelete, Path: czTemplatePath(tpl)},
		{Method: http.MethodPost, Path: czTiersPath(tpl), Body: map[string]any{"min_qty": 3, "price_cents": 1}},
		{Method: http.MethodPut, Path: czTierPath(tier), Body: map[string]any{"price_cents": 1}},
		{Method: http.MethodDelete, Path: czTierPath(tier)},
	}
	k := checkAccess(t, e, s.ID, "customizer", map[string]string{"other scope": otherScope}, reads, writes)
	expectGraphQLCode(t, e, k.staffWrite, "FORBIDDEN", map[string]any{"id": tpl}, `mutation($id: Int!) { deleteCzTemplate(id: $id) }`)
	expectGraphQLCode(t, e, otherScope, "FORBIDDEN", nil, `{ czTemplates { id } }`)
	if got := czTierList(t, e, admin, tpl); got != "2:100@0" {
		t.Fatalf("a refused write was written: %s", got)
	}
	if got, _ := czTemplates.get(t, e, admin, tpl); got["name"] != "Mug" {
		t.Fatalf("a refused write was written: %v", got)
	}
	czCreateTier(t, e, k.writer, tpl, 3, 1)
}

// TestCzTierConcurrentUpdates: two PUTs of one tier, one of min_qty and one
// of price_cents, both land: each reads the tier under its template's lock.
func TestCzTierConcurrentUpdates(t *testing.T) {
	e, s, admin := newAcme(t)
	tpl := czCreateTemplate(t, e, admin, newCzTemplateFixture(t, e, s.ID, 1), "Mug")
	for round := range 16 {
		tier := idOf(t, czCreateTier(t, e, admin, tpl, int64(100*round+1), 500))
		var wg sync.WaitGroup
		for _, body := range []map[string]any{{"min_qty": 100*round + 2}, {"price_cents": 400}} {
			wg.Add(1)
			go func() {
				defer wg.Done()
				e.Do(http.MethodPut, czTierPath(tier), admin, body).Expect(t, 200)
			}()
		}
		wg.Wait()
		want := fmt.Sprintf("%d:400@%d", 100*round+2, round)
		if got := czTierList(t, e, admin, tpl); !strings.HasSuffix(got, want) {
			t.Fatalf("round %d: tiers %s, want the last %s (an update was lost)", round, got, want)
		}
	}
}

// TestCzTemplateDesignSwap: a bound template's design changes only to one
// its bindings still fit; one lacking a key a bound function targets is a
// 409 naming the binding, the product and the key, and nothing is written.
func TestCzTemplateDesignSwap(t *testing.T) {
	e, s, admin := newAcme(t)
	ctx := context.Background()
	f := newCzTemplateFixture(t, e, s.ID, 1)
	tpl := czCreateTemplate(t, e, admin, f, "Mug")
	mugs := insertProduct(t, e, s.ID, "mugs")
	binding := czInsertBinding(t, e, s.ID, mugs, tpl, f.optionSet, "", "")
	if _, err := e.DB.NewRaw("UPDATE cz_product_bindings SET default_selections = '{}' WHERE id = ?", binding).Exec(ctx); err != nil {
		t.Fatal(err)
	}
	bare := &models.CzDesign{StoreID: s.ID, Name: "Bare", WidthPx: 100, HeightPx: 100}
	if _, err := e.DB.NewInsert().Model(bare).Exec(ctx); err != nil {
		t.Fatal(err)
	}
	r := e.Do(http.MethodPut, czTemplatePath(tpl), admin, map[string]any{"design_id": bare.ID, "name": "Renamed"}).Expect(t, 409)
	if msg := r.Message(); !strings.Contains(msg, fmt.Sprintf("binding %d of product %d", binding, mugs)) || !strings.Contains(msg, `"el-0"`) {
		t.Fatalf("409 names the binding, product and key: %s", r.Raw)
	}
	if got, _ := czTemplates.get(t, e, admin, tpl); got["design_id"] != float64(f.design) || got["name"] != "Mug" {
		t.Fatalf("a refused swap wrote %v", got)
	}
	// The same design keeps fitting: a rename is no swap.
	e.Do(http.MethodPut, czTemplatePath(tpl), admin, map[string]any{"design_id": f.design, "name": "Renamed"}).Expect(t, 200)
}
