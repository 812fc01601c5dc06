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

func czoSetPath(id int64) string    { return "/store/customizer/option-sets/" + strconv.FormatInt(id, 10) }
func czoOptionPath(id int64) string { return "/store/customizer/options/" + strconv.FormatInt(id, 10) }
func czoValuePath(id int64) string {
	return "/store/customizer/option-values/" + strconv.FormatInt(id, 10)
}

// czoSet checks v against CzOptionSetView.
func czoSet(t *testing.T, v any) map[string]any {
	t.Helper()
	return checkObject(t, "option set", v, map[string]string{"id": "i", "name": "s"})
}

// czoOption checks v against CzOptionView, its validation and conditions
// included.
func czoOption(t *testing.T, v any) map[string]any {
	t.Helper()
	m := checkObject(t, "option", v, map[string]string{"conditions": "list", "help_text": "s", "id": "i", "label": "s", "option_set_id": "i",
		"position": "i", "price_per_char_cents": "i", "required": "b", "section": "s", "settings": "obj", "type": "s", "validation": "obj"})
	checkObject(t, "option validation", m["validation"], map[string]string{"chars_per_line": "i", "max_length": "i", "max_lines": "i", "mode": "s", "pattern": "s"})
	checkObjects(t, "option conditions", m["conditions"], map[string]string{"op": "s", "option_id": "i", "value": "s?", "values": "s[]?"})
	return m
}

// czoValue checks v against CzOptionValueView, its functions included.
func czoValue(t *testing.T, v any) map[string]any {
	t.Helper()
	m := checkObject(t, "option value", v, map[string]string{"functions": "list", "id": "i", "label": "s", "option_id": "i", "position": "i",
		"price_delta_cents": "i", "swatch_hex": "s", "thumbnail_url": "s", "value": "s"})
	checkObjects(t, "value functions", m["functions"], map[string]string{"element_key": "s?", "group_key": "s?", "property": "s", "value": "s"})
	return m
}

// czoSets is the REST resource of option sets.
var czoSets = crudResource{path: "/store/customizer/option-sets", item: czoSetPath, one: "option_set", many: "option_sets", view: czoSet}

// czoOptions is the options of option set id as a REST resource.
func czoOptions(setID int64) crudResource {
	return crudResource{path: czoSetPath(setID) + "/options", item: czoOptionPath, one: "option", many: "options", view: czoOption}
}

// czoValues is the values of option id as a REST resource.
func czoValues(optionID int64) crudResource {
	return crudResource{path: czoOptionPath(optionID) + "/values", item: czoValuePath, one: "value", many: "values", view: czoValue}
}

// czoNewSet creates an option set over REST: its id.
func czoNewSet(t *testing.T, e *apitest.Env, key, name string) int64 {
	t.Helper()
	return idOf(t, czoSets.create(t, e, key, map[string]any{"name": name}))
}

// czoNewOption creates an option of set over REST: its id.
func czoNewOption(t *testing.T, e *apitest.Env, key string, set int64, body map[string]any) int64 {
	t.Helper()
	return idOf(t, czoOptions(set).create(t, e, key, body))
}

// czoNewValue creates a value of option over REST: its id.
func czoNewValue(t *testing.T, e *apitest.Env, key string, option int64, label, slug string) int64 {
	t.Helper()
	return idOf(t, czoValues(option).create(t, e, key, map[string]any{"label": label, "value": slug}))
}

// czoList reads GET path, which answers the whole list under many (no
// total), the same on GraphQL through op with id: the rows checked by
// view.
func czoList(t *testing.T, e *apitest.Env, key, path, many, op string, id int64, view viewCheck) []map[string]any {
	t.Helper()
	r := e.Do(http.MethodGet, path, key, nil).Expect(t, 200)
	expectPayload(t, r, many)
	e.SameOnGraphQL(t, r, key, op, map[string]any{"id": id})
	var out []map[string]any
	for _, v := range r.List(many) {
		out = append(out, view(t, v))
	}
	return out
}

func czoOptionList(t *testing.T, e *apitest.Env, key string, set int64) []map[string]any {
	t.Helper()
	return czoList(t, e, key, czoSetPath(set)+"/options", "options", "ListCzOptions", set, czoOption)
}

func czoValueList(t *testing.T, e *apitest.Env, key string, option int64) []map[string]any {
	t.Helper()
	return czoList(t, e, key, czoOptionPath(option)+"/values", "values", "ListCzOptionValues", option, czoValue)
}

// czoBad is a refused request: its body and the field the 400 names.
type czoBad struct {
	body  any
	field string
}

// czoExpect400 sends every body of cases to method path and fails unless
// each is a 400 naming its field: in the envelope's field, or, for a
// refusal of the resolver's (which the REST adapter does not carry into
// field), at the start of its message.
func czoExpect400(t *testing.T, e *apitest.Env, key, method, path string, cases map[string]czoBad) {
	t.Helper()
	for name, c := range cases {
		r := e.Do(method, path, key, c.body)
		named := r.Body["field"] == c.field || r.Body["field"] == nil && strings.HasPrefix(r.Message(), c.field+" ")
		if r.Status != 400 || !named {
			t.Fatalf("%s %s, %s: status %d field %v, want 400 naming %s: %s", method, path, name, r.Status, r.Body["field"], c.field, r.Raw)
		}
		r.Expect(t, 400)
	}
}

// czoExpect409 fails unless the call is a 409 whose message holds want.
func czoExpect409(t *testing.T, e *apitest.Env, key, method, path string, body any, want string) {
	t.Helper()
	r := e.Do(method, path, key, body).Expect(t, 409)
	if !strings.Contains(r.Message(), want) {
		t.Fatalf("%s %s: 409 %q, want it to say %q", method, path, r.Message(), want)
	}
}

// czoOrder puts records in a new order through path (a reorder route).
func czoOrder(t *testing.T, e *apitest.Env, key, path string, ids ...int64) {
	t.Helper()
	if ids == nil {
		ids = []int64{} // not null
	}
	if r := e.Do(http.MethodPut, path, key, map[string]any{"ids": ids}).Expect(t, 200); string(r.Raw) != `{"status":true}` {
		t.Fatalf("PUT %s answered %s", path, r.Raw)
	}
}

// czoBinding makes a product binding of the store use the option set,
// written through the models (bindings are another part's API): its id.
func czoBinding(t *testing.T, e *apitest.Env, storeID, setID, productID int64) int64 {
	t.Helper()
	ctx := context.Background()
	d := &models.CzDesign{StoreID: storeID, Name: "Mug", WidthPx: 100, HeightPx: 100}
	b := &models.CzProductBase{StoreID: storeID, Name: "Mug"}
	for _, m := range []any{d, b} {
		if _, err := e.DB.NewInsert().Model(m).Exec(ctx); err != nil {
			t.Fatal(err)
		}
	}
	tpl := &models.CzTemplate{StoreID: storeID, Name: "Mug", DesignID: d.ID, ProductBaseID: b.ID, ExportFormat: "png", PPI: 300}
	if _, err := e.DB.NewInsert().Model(tpl).Exec(ctx); err != nil {
		t.Fatal(err)
	}
	pb := &models.CzProductBinding{StoreID: storeID, ProductID: productID, TemplateID: tpl.ID, OptionSetID: setID, DefaultSelections: map[string]any{}}
	if _, err := e.DB.NewInsert().Model(pb).Exec(ctx); err != nil {
		t.Fatal(err)
	}
	return pb.ID
}

// czoUpload records an image uploaded to the store: its src.
func czoUpload(t *testing.T, e *apitest.Env, storeID int64, name string) string {
	t.Helper()
	src := fmt.Sprintf("https://cdn.example/%d/%s", storeID, name)
	m := &models.Media{StoreID: storeID, Key: fmt.Sprintf("%d/%s", storeID, name), Src: src, Filename: name, ContentType: "image/png", Width: 10, Height: 10, Bytes: 100}
	if err := models.InsertMedia(context.Background(), e.DB, m); err != nil {
		t.Fatal(err)
	}
	return src
}

// TestCzOptionSets: the life of option sets over REST, the same on
// GraphQL; deleting one a binding uses is a 409 naming it, otherwise its
// options and values go with it.
func TestCzOptionSets(t *testing.T) {
	e, s, admin := newAcme(t)
	reader := e.Key(s.ID, auth.RoleStaff, "customizer:read")
	gifts := czoSets.create(t, e, admin, map[string]any{"name": "  Gifts "})
	giftsID := idOf(t, gifts)
	if gifts["name"] != "Gifts" {
		t.Fatalf("created %v", gifts)
	}
	mugs := czoNewSet(t, e, admin, "Mugs")
	shirts := czoNewSet(t, e, admin, "Shirts")

	r := e.Do(http.MethodGet, czoSets.path, reader, nil).Expect(t, 200)
	expectPayload(t, r, "option_sets")
	if rows := checkObjects(t, "option sets", r.Body["option_sets"], map[string]string{"id": "i", "name": "s"}); !slices.Equal(rowIDs(rows), []int64{giftsID, mugs, shirts}) {
		t.Fatalf("list %v", rows)
	}
	e.SameOnGraphQL(t, r, reader, "ListCzOptionSets", nil)
	r = e.Do(http.MethodGet, czoSets.path+"?limit=1&offset=1", reader, nil).Expect(t, 200)
	if rows := objectsOf(r.Body["option_sets"]); len(rows) != 1 || idOf(t, rows[0]) != mugs {
		t.Fatalf("page: %s", r.Raw)
	}
	e.SameOnGraphQL(t, r, reader, "ListCzOptionSets", map[string]any{"limit": 1, "offset": 1})
	e.Do(http.MethodGet, czoSets.path+"?limit=251", reader, nil).Expect(t, 400)
	e.Do(http.MethodGet, czoSets.path+"?limit=0", reader, nil).Expect(t, 400)
	e.Do(http.MethodGet, czoSets.path+"?offset=-1", reader, nil).Expect(t, 400)

	got, get := czoSets.get(t, e, reader, giftsID)
	if !reflect.DeepEqual(got, gifts) {
		t.Fatalf("get %v, want %v", got, gifts)
	}
	e.SameOnGraphQL(t, get, reader, "GetCzOptionSet", map[string]any{"id": giftsID})
	u, put := czoSets.put(t, e, admin, giftsID, map[string]any{"name": "Presents"})
	if u["name"] != "Presents" {
		t.Fatalf("renamed %v", u)
	}
	e.SameOnGraphQL(t, put, admin, "UpdateCzOptionSet", map[string]any{"id": giftsID, "input": map[string]any{"name": "Presents"}})
	if u, _ := czoSets.put(t, e, admin, giftsID, map[string]any{}); u["name"] != "Presents" {
		t.Fatalf("an empty update: %v", u)
	}
	// A record read can be sent back: its id is a read-only field.
	if u, _ := czoSets.put(t, e, admin, giftsID, u); u["name"] != "Presents" {
		t.Fatalf("sent back: %v", u)
	}
	expectAuditRecord(t, e, admin, "action=updateCzOptionSet&limit=1", "cz_option_set", giftsID)

	// Bad names; nothing is written.
	for _, path := range []string{czoSets.path, czoSetPath(giftsID)} {
		method := http.MethodPut
		if path == czoSets.path {
			method = http.MethodPost
		}
		czoExpect400(t, e, admin, method, path, map[string]czoBad{
			"blank":        {map[string]any{"name": "  "}, "name"},
			"too long":     {map[string]any{"name": strings.Repeat("é", 256)}, "name"},
			"control":      {map[string]any{"name": "a\x07b"}, "name"},
			"not a string": {map[string]any{"name": 5}, "name"},
			"unknown":      {map[string]any{"name": "x", "title": "y"}, "title"},
		})
	}
	czoExpect400(t, e, admin, http.MethodPost, czoSets.path, map[string]czoBad{"no name": {map[string]any{}, "name"}})
	if got, _ := czoSets.get(t, e, reader, giftsID); got["name"] != "Presents" {
		t.Fatalf("a refused update was written: %v", got)
	}
	czoSets.create(t, e, admin, map[string]any{"name": strings.Repeat("é", 255)})

	// In use by a binding: 409 naming it; its options stay.
	opt := czoNewOption(t, e, admin, mugs, map[string]any{"label": "Colour", "type": "select"})
	czoNewValue(t, e, admin, opt, "Red", "red")
	binding := czoBinding(t, e, s.ID, mugs, 4242)
	czoExpect409(t, e, admin, http.MethodDelete, czoSetPath(mugs), nil, fmt.Sprintf("product binding %d (product 4242)", binding))
	expectGraphQLCode(t, e, admin, "CONFLICT", map[string]any{"id": mugs}, `mutation($id: Int!) { deleteCzOptionSet(id: $id) }`)
	if len(czoOptionList(t, e, admin, mugs)) != 1 {
		t.Fatal("a refused delete deleted the options")
	}
	if _, err := e.DB.NewDelete().Model((*models.CzProductBinding)(nil)).Where("id = ?", binding).Exec(context.Background()); err != nil {
		t.Fatal(err)
	}
	expectBareDelete(t, e, admin, czoSetPath(mugs))
	e.Do(http.MethodGet, czoSetPath(mugs), admin, nil).Expect(t, 404)
	e.Do(http.MethodGet, czoOptionPath(opt)+"/values", admin, nil).Expect(t, 404)
	if n, err := e.DB.NewSelect().Model((*models.CzOptionValue)(nil)).Where("store_id = ?", s.ID).Count(context.Background()); err != nil || n != 0 {
		t.Fatalf("values left after their set: %d, %v", n, err)
	}
	expectAuditRecord(t, e, admin, "action=deleteCzOptionSet&limit=1", "cz_option_set", mugs)
	e.Do(http.MethodDelete, czoSetPath(mugs), admin, nil).Expect(t, 404)
}

// TestCzOptionTypes: each option type with its settings, validation for
// text types only, merges on update, a new type resetting what it does not
// take, and 400s naming the field for every rule.
func TestCzOptionTypes(t *testing.T) {
	e, _, admin := newAcme(t)
	set := czoNewSet(t, e, admin, "Everything")
	opts := czoOptions(set)

	name := opts.create(t, e, admin, map[string]any{"label": " Name ", "type": "text", "required": true, "section": "Text", "help_text": "Up to 12 letters",
		"settings": map[string]any{"placeholder": " Your name "}, "price_per_char_cents": 25,
		"validation": map[string]any{"max_length": 12, "max_lines": 1, "pattern": "[A-Za-z ]+", "mode": "letters"}})
	want := map[string]any{"id": name["id"], "option_set_id": float64(set), "label": "Name", "type": "text", "position": float64(0), "required": true,
		"section": "Text", "help_text": "Up to 12 letters", "settings": map[string]any{"placeholder": "Your name"}, "price_per_char_cents": float64(25),
		"validation": map[string]any{"max_length": float64(12), "max_lines": float64(1), "chars_per_line": float64(0), "pattern": "[A-Za-z ]+", "mode": "letters"},
		"conditions": []any{}}
	if !reflect.DeepEqual(name, want) {
		t.Fatalf("created %v\nwant %v", name, want)
	}
	for i, body := range []map[string]any{
		{"label": "Message", "type": "textarea", "settings": map[string]any{"rows": 4}, "validation": map[string]any{"max_lines": 3, "chars_per_line": 20, "mode": "upper"}},
		{"label": "Colour", "type": "select", "settings": map[string]any{"placeholder": "Pick one"}},
		{"label": "Finish", "type": "swatch", "settings": map[string]any{"shape": "circle"}},
		{"label": "Motif", "type": "image_choice", "settings": map[string]any{"columns": 3}},
		{"label": "Artwork", "type": "artwork", "settings": map[string]any{"group_key": "stars"}},
		{"label": "Gift wrap", "type": "checkbox", "settings": map[string]any{"label": "Wrap it"}},
		{"label": "Age", "type": "number", "settings": map[string]any{"min": 0, "max": 120.5, "step": 0.5}},
		{"label": "Plain", "type": "number"},
	} {
		o := opts.create(t, e, admin, body)
		if o["position"] != float64(i+1) || o["type"] != body["type"] || o["required"] != false {
			t.Fatalf("created %v", o)
		}
		if s, ok := body["settings"]; ok && fmt.Sprint(o["settings"]) != fmt.Sprint(s) {
			t.Fatalf("settings %v, want %v", o["settings"], s)
		}
	}
	list := czoOptionList(t, e, admin, set)
	if len(list) != 9 || !reflect.DeepEqual(list[0], name) {
		t.Fatalf("list %v", list)
	}
	for i, o := range list {
		if o["position"] != float64(i) {
			t.Fatalf("positions: %v", list)
		}
	}

	// Updates merge; a new type resets what the input does not send.
	nameID := idOf(t, name)
	u, put := opts.put(t, e, admin, nameID, map[string]any{"help_text": ""})
	want["help_text"] = ""
	if !reflect.DeepEqual(u, want) {
		t.Fatalf("merged %v\nwant %v", u, want)
	}
	e.SameOnGraphQL(t, put, admin, "UpdateCzOption", map[string]any{"id": nameID, "input": map[string]any{"help_text": ""}})
	u, _ = opts.put(t, e, admin, nameID, map[string]any{"type": "textarea", "settings": map[string]any{"rows": 2}})
	if fmt.Sprint(u["settings"]) != "map[rows:2]" || u["price_per_char_cents"] != float64(0) || u["validation"].(map[string]any)["max_length"] != float64(0) || u["label"] != "Name" {
		t.Fatalf("a new type: %v", u)
	}
	u, _ = opts.put(t, e, admin, nameID, map[string]any{"type": "checkbox"})
	if fmt.Sprint(u["settings"]) != "map[]" || u["type"] != "checkbox" {
		t.Fatalf("to a checkbox: %v", u)
	}
	expectAuditRecord(t, e, admin, "action=updateCzOption&limit=1", "cz_option", nameID)

	// GraphQL: settings and validation as literals.
	g := e.GraphQL(admin, `mutation($id: Int!) { createCzOption(id: $id, input: {label: "Initials", type: "text", validation: {max_length: 3, mode: "upper"}, settings: {placeholder: "ABC"}}) { position settings validation { max_length mode } } }`, map[string]any{"id": set})
	if g.Body["errors"] != nil || fmt.Sprint(g.Data()["createCzOption"]) != "map[position:9 settings:map[placeholder:ABC] validation:map[max_length:3 mode:upper]]" {
		t.Fatalf("GraphQL create: %s", g.Raw)
	}

	text := func(extra map[string]any) map[string]any {
		b := map[string]any{"label": "x", "type": "text"}
		for k, v := range extra {
			b[k] = v
		}
		return b
	}
	bad := map[string]czoBad{
		"no label":             {map[string]any{"type": "text"}, "label"},
		"blank label":          {text(map[string]any{"label": " "}), "label"},
		"long label":           {text(map[string]any{"label": strings.Repeat("a", 256)}), "label"},
		"no type":              {map[string]any{"label": "x"}, "type"},
		"unknown type":         {text(map[string]any{"type": "radio"}), "type"},
		"long section":         {text(map[string]any{"section": strings.Repeat("a", 101)}), "section"},
		"long help":            {text(map[string]any{"help_text": strings.Repeat("a", 1001)}), "help_text"},
		"settings not object":  {text(map[string]any{"settings": []any{1}}), "settings"},
		"unknown setting":      {text(map[string]any{"settings": map[string]any{"rows": 3}}), "settings.rows"},
		"placeholder number":   {text(map[string]any{"settings": map[string]any{"placeholder": 3}}), "settings.placeholder"},
		"long placeholder":     {text(map[string]any{"settings": map[string]any{"placeholder": strings.Repeat("a", 256)}}), "settings.placeholder"},
		"rows zero":            {map[string]any{"label": "x", "type": "textarea", "settings": map[string]any{"rows": 0}}, "settings.rows"},
		"rows fraction":        {map[string]any{"label": "x", "type": "textarea", "settings": map[string]any{"rows": 1.5}}, "settings.rows"},
		"bad shape":            {map[string]any{"label": "x", "type": "swatch", "settings": map[string]any{"shape": "star"}}, "settings.shape"},
		"columns 7":            {map[string]any{"label": "x", "type": "image_choice", "settings": map[string]any{"columns": 7}}, "settings.columns"},
		"artwork no group":     {map[string]any{"label": "x", "type": "artwork"}, "settings.group_key"},
		"artwork bad group":    {map[string]any{"label": "x", "type": "artwork", "settings": map[string]any{"group_key": "Stars!"}}, "settings.group_key"},
		"checkbox label num":   {map[string]any{"label": "x", "type": "checkbox", "settings": map[string]any{"label": true}}, "settings.label"},
		"number min > max":     {map[string]any{"label": "x", "type": "number", "settings": map[string]any{"min": 5, "max": 1}}, "settings.max"},
		"number step 0":        {map[string]any{"label": "x", "type": "number", "settings": map[string]any{"step": 0}}, "settings.step"},
		"number huge":          {map[string]any{"label": "x", "type": "number", "settings": map[string]any{"max": 1e10}}, "settings.max"},
		"number not a number":  {map[string]any{"label": "x", "type": "number", "settings": map[string]any{"min": "1"}}, "settings.min"},
		"validation on select": {map[string]any{"label": "x", "type": "select", "validation": map[string]any{"max_length": 3}}, "validation"},
		"price on checkbox":    {map[string]any{"label": "x", "type": "checkbox", "price_per_char_cents": 1}, "price_per_char_cents"},
		"negative price":       {text(map[string]any{"price_per_char_cents": -1}), "price_per_char_cents"},
		"huge price":           {text(map[string]any{"price_per_char_cents": 100000001}), "price_per_char_cents"},
		"max_length 10001":     {text(map[string]any{"validation": map[string]any{"max_length": 10001}}), "validation.max_length"},
		"negative lines":       {map[string]any{"label": "x", "type": "textarea", "validation": map[string]any{"max_lines": -1}}, "validation.max_lines"},
		"text two lines":       {text(map[string]any{"validation": map[string]any{"max_lines": 2}}), "validation.max_lines"},
		"chars_per_line 10001": {text(map[string]any{"validation": map[string]any{"chars_per_line": 10001}}), "validation.chars_per_line"},
		"bad pattern":          {text(map[string]any{"validation": map[string]any{"pattern": "(a"}}), "validation.pattern"},
		"perl pattern":         {text(map[string]any{"validation": map[string]any{"pattern": `(?=a)b`}}), "validation.pattern"},
		"long pattern":         {text(map[string]any{"validation": map[string]any{"pattern": strings.Repeat("a", 501)}}), "validation.pattern"},
		"unknown mode":         {text(map[string]any{"validation": map[string]any{"mode": "emoji"}}), "validation.mode"},
		"unknown validation":   {text(map[string]any{"validation": map[string]any{"min_length": 1}}), "validation.min_length"},
		"required not bool":    {text(map[string]any{"required": "yes"}), "required"},
		"price fraction":       {text(map[string]any{"price_per_char_cents": 1.5}), "price_per_char_cents"},
	}
	czoExpect400(t, e, admin, http.MethodPost, opts.path, bad)
	if n := len(czoOptionList(t, e, admin, set)); n != 10 {
		t.Fatalf("a refused create was written: %d options", n)
	}
	// On update, the same rules apply to the merged option.
	msg := idOf(t, list[1])
	czoExpect400(t, e, admin, http.MethodPut, czoOptionPath(msg), map[string]czoBad{
		"blank label":     {map[string]any{"label": ""}, "label"},
		"unknown type":    {map[string]any{"type": "radio"}, "type"},
		"unknown setting": {map[string]any{"settings": map[string]any{"columns": 2}}, "settings.columns"},
		"bad mode":        {map[string]any{"validation": map[string]any{"mode": "lower"}}, "validation.mode"},
		"validation away": {map[string]any{"type": "select", "validation": map[string]any{"max_length": 3}}, "validation"},
	})
	if got := czoOptionList(t, e, admin, set)[1]; !reflect.DeepEqual(got, list[1]) {
		t.Fatalf("a refused update was written: %v\nwant %v", got, list[1])
	}
	// Bounds are inclusive.
	opts.create(t, e, admin, map[string]any{"label": strings.Repeat("é", 255), "type": "textarea", "price_per_char_cents": 100000000, "section": strings.Repeat("s", 100),
		"help_text": strings.Repeat("h", 1000), "validation": map[string]any{"max_length": 10000, "max_lines": 10000, "chars_per_line": 10000, "pattern": strings.Repeat("a", 500)},
		"settings": map[string]any{"rows": 50}})
}

// TestCzOptionConditions: conditions test earlier options only (a later
// one, itself, another set's or store's is 400 naming the option_id, so a
// cycle cannot be made), by the tested option's answers; a reorder that
// puts an option before what it tests is 400; deleting a tested option,
// or deleting or renaming a value slug a condition names, is 409.
func TestCzOptionConditions(t *testing.T) {
	e, s, admin := newAcme(t)
	set := czoNewSet(t, e, admin, "Gifts")
	opts := czoOptions(set)
	colour := czoNewOption(t, e, admin, set, map[string]any{"label": "Colour", "type": "select"})
	red := czoNewValue(t, e, admin, colour, "Red", "red")
	czoNewValue(t, e, admin, colour, "Blue", "blue")
	wrap := czoNewOption(t, e, admin, set, map[string]any{"label": "Wrap", "type": "checkbox"})
	age := czoNewOption(t, e, admin, set, map[string]any{"label": "Age", "type": "number"})
	name := czoNewOption(t, e, admin, set, map[string]any{"label": "Name", "type": "text"})
	art := czoNewOption(t, e, admin, set, map[string]any{"label": "Art", "type": "artwork", "settings": map[string]any{"group_key": "stars"}})
	other := czoNewSet(t, e, admin, "Other")
	otherOption := czoNewOption(t, e, admin, other, map[string]any{"label": "Theirs", "type": "text"})
	bolt := e.Store("Bolt")
	boltKey := e.Key(bolt.ID, auth.RoleAdmin)
	foreign := czoNewOption(t, e, boltKey, czoNewSet(t, e, boltKey, "Bolt"), map[string]any{"label": "Bolt's", "type": "text"})

	conds := []any{
		map[string]any{"op": "equals", "option_id": colour, "value": "red"},
		map[string]any{"op": "not_in", "option_id": colour, "values": []any{"blue"}},
		map[string]any{"op": "equals", "option_id": wrap, "value": "true"},
		map[string]any{"op": "not_equals", "option_id": age, "value": "12.5"},
		map[string]any{"op": "in", "option_id": name, "values": []any{"Ana", " Bo "}},
		map[string]any{"op": "filled", "option_id": art},
		map[string]any{"op": "empty", "option_id": name},
	}
	msg := opts.create(t, e, admin, map[string]any{"label": "Message", "type": "textarea", "conditions": conds})
	msgID := idOf(t, msg)
	wantConds := []any{
		map[string]any{"op": "equals", "option_id": float64(colour), "value": "red", "values": nil},
		map[string]any{"op": "not_in", "option_id": float64(colour), "value": nil, "values": []any{"blue"}},
		map[string]any{"op": "equals", "option_id": float64(wrap), "value": "true", "values": nil},
		map[string]any{"op": "not_equals", "option_id": float64(age), "value": "12.5", "values": nil},
		map[string]any{"op": "in", "option_id": float64(name), "value": nil, "values": []any{"Ana", "Bo"}},
		map[string]any{"op": "filled", "option_id": float64(art), "value": nil, "values": nil},
		map[string]any{"op": "empty", "option_id": float64(name), "value": nil, "values": nil},
	}
	if !reflect.DeepEqual(msg["conditions"], wantConds) {
		t.Fatalf("conditions %v\nwant %v", msg["conditions"], wantConds)
	}
	r := e.Do(http.MethodGet, opts.path, admin, nil).Expect(t, 200)
	e.SameOnGraphQL(t, r, admin, "ListCzOptions", map[string]any{"id": set})

	cond := func(c map[string]any) map[string]any {
		return map[string]any{"label": "x", "type": "text", "conditions": []any{c}}
	}
	czoExpect400(t, e, admin, http.MethodPost, opts.path, map[string]czoBad{
		"another set's option":   {cond(map[string]any{"op": "filled", "option_id": otherOption}), "conditions[0].option_id"},
		"another store's option": {cond(map[string]any{"op": "filled", "option_id": foreign}), "conditions[0].option_id"},
		"no such option":         {cond(map[string]any{"op": "filled", "option_id": 987654}), "conditions[0].option_id"},
		"unknown op":             {cond(map[string]any{"op": "contains", "option_id": name}), "conditions[0].op"},
		"equals without value":   {cond(map[string]any{"op": "equals", "option_id": name}), "conditions[0].value"},
		"equals with values":     {cond(map[string]any{"op": "equals", "option_id": name, "value": "a", "values": []any{"a"}}), "conditions[0].values"},
		"in without values":      {cond(map[string]any{"op": "in", "option_id": colour}), "conditions[0].values"},
		"in with empty values":   {cond(map[string]any{"op": "in", "option_id": colour, "values": []any{}}), "conditions[0].values"},
		"in with value":          {cond(map[string]any{"op": "in", "option_id": colour, "value": "red", "values": []any{"red"}}), "conditions[0].value"},
		"filled with value":      {cond(map[string]any{"op": "filled", "option_id": name, "value": "a"}), "conditions[0].value"},
		"empty with values":      {cond(map[string]any{"op": "empty", "option_id": name, "values": []any{"a"}}), "conditions[0].values"},
		"unknown slug":           {cond(map[string]any{"op": "equals", "option_id": colour, "value": "green"}), "conditions[0].value"},
		"unknown slug in list":   {cond(map[string]any{"op": "in", "option_id": colour, "values": []any{"red", "Red"}}), "conditions[0].values[1]"},
		"checkbox yes":           {cond(map[string]any{"op": "equals", "option_id": wrap, "value": "yes"}), "conditions[0].value"},
		"number text":            {cond(map[string]any{"op": "equals", "option_id": age, "value": "old"}), "conditions[0].value"},
		"blank text":             {cond(map[string]any{"op": "equals", "option_id": name, "value": " "}), "conditions[0].value"},
		"artwork equals":         {cond(map[string]any{"op": "equals", "option_id": art, "value": "x"}), "conditions[0].op"},
		"too many values":        {cond(map[string]any{"op": "in", "option_id": name, "values": slices.Repeat([]any{"a"}, 51)}), "conditions[0].values"},
		"second bad":             {map[string]any{"label": "x", "type": "text", "conditions": []any{conds[0], map[string]any{"op": "filled", "option_id": 0}}}, "conditions[1].option_id"},
		"too many":               {map[string]any{"label": "x", "type": "text", "conditions": slices.Repeat([]any{conds[0]}, 21)}, "conditions"},
	})

	// Only earlier options: itself and a later one are refused on update,
	// so a cycle (colour tests message, which tests colour) cannot be made.
	czoExpect400(t, e, admin, http.MethodPut, czoOptionPath(msgID), map[string]czoBad{
		"itself": {map[string]any{"conditions": []any{map[string]any{"op": "filled", "option_id": msgID}}}, "conditions[0].option_id"},
	})
	czoExpect400(t, e, admin, http.MethodPut, czoOptionPath(colour), map[string]czoBad{
		"a cycle": {map[string]any{"conditions": []any{map[string]any{"op": "filled", "option_id": msgID}}}, "conditions[0].option_id"},
		"later":   {map[string]any{"conditions": []any{map[string]any{"op": "filled", "option_id": wrap}}}, "conditions[0].option_id"},
	})
	g := e.GraphQL(admin, `mutation($id: Int!, $m: Int!) { updateCzOption(id: $id, input: {conditions: [{op: "filled", option_id: $m}]}) { id } }`,
		map[string]any{"id": colour, "m": msgID})
	if errs, _ := g.Body["errors"].([]any); len(errs) != 1 || fmt.Sprint(errs[0].(map[string]any)["extensions"].(map[string]any)["field"]) != "conditions[0].option_id" || g.ErrorCode() != "BAD_USER_INPUT" {
		t.Fatalf("GraphQL names the field: %s", g.Raw)
	}
	// A later option may test an earlier one; conditions not sent stay.
	u, _ := opts.put(t, e, admin, wrap, map[string]any{"conditions": []any{map[string]any{"op": "equals", "option_id": colour, "value": "blue"}}})
	if len(u["conditions"].([]any)) != 1 {
		t.Fatalf("wrap's conditions: %v", u)
	}
	if u, _ := opts.put(t, e, admin, msgID, map[string]any{"label": "Note"}); !reflect.DeepEqual(u["conditions"], wantConds) {
		t.Fatalf("conditions not sent changed: %v", u["conditions"])
	}

	// Reorders: the whole list, and no option before what it tests.
	ids := []int64{colour, wrap, age, name, art, msgID}
	orderPath := czoSetPath(set) + "/option-order"
	czoExpect400(t, e, admin, http.MethodPut, orderPath, map[string]czoBad{
		"before its tested":  {map[string]any{"ids": []int64{colour, age, name, art, msgID, wrap}}, "ids[4]"},
		"tested moved after": {map[string]any{"ids": []int64{wrap, colour, age, name, art, msgID}}, "ids[0]"},
		"partial":            {map[string]any{"ids": ids[:5]}, "ids"},
		"duplicated":         {map[string]any{"ids": append(slices.Clone(ids[:5]), colour)}, "ids[5]"},
		"foreign":            {map[string]any{"ids": append(slices.Clone(ids[:5]), otherOption)}, "ids[5]"},
		"another store's":    {map[string]any{"ids": append(slices.Clone(ids[:5]), foreign)}, "ids[5]"},
		"too many":           {map[string]any{"ids": append(slices.Clone(ids), 987654)}, "ids[6]"},
		"no ids":             {map[string]any{}, "ids"},
	})
	if got := rowIDs(czoOptionList(t, e, admin, set)); !slices.Equal(got, ids) {
		t.Fatalf("a refused reorder was written: %v", got)
	}
	czoOrder(t, e, admin, orderPath, art, name, age, colour, wrap, msgID)
	list := czoOptionList(t, e, admin, set)
	if got := rowIDs(list); !slices.Equal(got, []int64{art, name, age, colour, wrap, msgID}) {
		t.Fatalf("after reorder: %v", got)
	}
	for i, o := range list {
		if o["position"] != float64(i) {
			t.Fatalf("positions after reorder: %v", list)
		}
	}
	expectAuditRecord(t, e, admin, "action=setCzOptionOrder&limit=1", "cz_option_set", set)
	empty := czoNewSet(t, e, admin, "Empty")
	czoOrder(t, e, admin, czoSetPath(empty)+"/option-order")

	// What conditions name stays: the option, its value slugs, its type.
	czoExpect409(t, e, admin, http.MethodDelete, czoOptionPath(colour), nil, fmt.Sprintf(`"Wrap" (%d), "Note" (%d)`, wrap, msgID))
	czoExpect409(t, e, admin, http.MethodDelete, czoValuePath(red), nil, `the value "red" cannot be deleted`)
	czoExpect409(t, e, admin, http.MethodPut, czoValuePath(red), map[string]any{"value": "crimson"}, `the value "red" cannot be renamed`)
	czoExpect409(t, e, admin, http.MethodPut, czoOptionPath(wrap), map[string]any{"type": "text"}, fmt.Sprintf(`"Note" (%d)`, msgID))
	czoExpect409(t, e, admin, http.MethodPut, czoOptionPath(colour)+"/values", map[string]any{"values": []any{map[string]any{"label": "Blue", "value": "blue"}}, "prune": true}, `the value "red" cannot be pruned`)
	expectGraphQLCode(t, e, admin, "CONFLICT", map[string]any{"id": colour}, `mutation($id: Int!) { deleteCzOption(id: $id) }`)
	// A choice type for another keeps the slugs; a label is no slug.
	opts.put(t, e, admin, colour, map[string]any{"type": "swatch"})
	czoValues(colour).put(t, e, admin, red, map[string]any{"label": "Crimson"})
	// Once nothing names them, they go.
	opts.put(t, e, admin, msgID, map[string]any{"conditions": []any{}})
	opts.put(t, e, admin, wrap, map[string]any{"conditions": []any{}})
	czoValues(colour).put(t, e, admin, red, map[string]any{"value": "crimson"})
	expectBareDelete(t, e, admin, czoValuePath(red))
	expectBareDelete(t, e, admin, czoOptionPath(colour))
	expectAuditRecord(t, e, admin, "action=deleteCzOption&limit=1", "cz_option", colour)
	list = czoOptionList(t, e, admin, set)
	if got := rowIDs(list); !slices.Equal(got, []int64{art, name, age, wrap, msgID}) || list[3]["position"] != float64(3) || list[4]["position"] != float64(4) {
		t.Fatalf("after delete, the positions close up: %v", list)
	}
	e.Do(http.MethodDelete, czoOptionPath(colour), admin, nil).Expect(t, 404)
	_ = s
}

// TestCzOptionValues: values of choice options only, their fields and
// functions, slugs unique per option, reorder, and 400s naming the field.
func TestCzOptionValues(t *testing.T) {
	e, s, admin := newAcme(t)
	set := czoNewSet(t, e, admin, "Mugs")
	colour := czoNewOption(t, e, admin, set, map[string]any{"label": "Colour", "type": "swatch"})
	vals := czoValues(colour)
	thumb := czoUpload(t, e, s.ID, "red.png")
	motif := czoUpload(t, e, s.ID, "motif.png")
	red := vals.create(t, e, admin, map[string]any{"label": " Red ", "value": "red", "price_delta_cents": -150, "swatch_hex": "#FF0000", "thumbnail_url": thumb,
		"functions": []any{
			map[string]any{"element_key": "title", "property": "color", "value": "#AA0000"},
			map[string]any{"group_key": "stars", "property": "visibility", "value": "hidden"},
			map[string]any{"element_key": "photo", "property": "image", "value": motif},
			map[string]any{"element_key": "title", "property": "font", "value": " Playfair Display "},
			map[string]any{"group_key": "captions", "property": "text", "value": "Happy birthday"},
		}})
	redID := idOf(t, red)
	want := map[string]any{"id": float64(redID), "option_id": float64(colour), "label": "Red", "value": "red", "position": float64(0), "price_delta_cents": float64(-150),
		"swatch_hex": "#ff0000", "thumbnail_url": thumb, "functions": []any{
			map[string]any{"element_key": "title", "group_key": nil, "property": "color", "value": "#aa0000"},
			map[string]any{"element_key": nil, "group_key": "stars", "property": "visibility", "value": "hidden"},
			map[string]any{"element_key": "photo", "group_key": nil, "property": "image", "value": motif},
			map[string]any{"element_key": "title", "group_key": nil, "property": "font", "value": "Playfair Display"},
			map[string]any{"element_key": nil, "group_key": "captions", "property": "text", "value": "Happy birthday"},
		}}
	if !reflect.DeepEqual(red, want) {
		t.Fatalf("created %v\nwant %v", red, want)
	}
	blue := czoNewValue(t, e, admin, colour, "Blue", "blue")
	green := czoNewValue(t, e, admin, colour, "Green", "green")
	list := czoValueList(t, e, admin, colour)
	if !slices.Equal(rowIDs(list), []int64{redID, blue, green}) || !reflect.DeepEqual(list[0], red) || list[2]["position"] != float64(2) ||
		list[1]["swatch_hex"] != "" || list[1]["thumbnail_url"] != "" || !reflect.DeepEqual(list[1]["functions"], []any{}) {
		t.Fatalf("list %v", list)
	}

	// Updates merge; the slug is unique in its option, not across options.
	u, put := vals.put(t, e, admin, blue, map[string]any{"price_delta_cents": 300, "swatch_hex": "#0000ff"})
	if u["price_delta_cents"] != float64(300) || u["label"] != "Blue" || u["swatch_hex"] != "#0000ff" {
		t.Fatalf("merged %v", u)
	}
	e.SameOnGraphQL(t, put, admin, "UpdateCzOptionValue", map[string]any{"id": blue, "input": map[string]any{"price_delta_cents": 300}})
	expectAuditRecord(t, e, admin, "action=updateCzOptionValue&limit=1", "cz_option_value", blue)
	czoExpect409(t, e, admin, http.MethodPost, vals.path, map[string]any{"label": "Red again", "value": "red"}, "already exists")
	czoExpect409(t, e, admin, http.MethodPut, czoValuePath(blue), map[string]any{"value": "red"}, "already exists")
	size := czoNewOption(t, e, admin, set, map[string]any{"label": "Size", "type": "select"})
	czoNewValue(t, e, admin, size, "Red", "red")

	// Reorder: the whole list of the option's values.
	orderPath := czoOptionPath(colour) + "/value-order"
	czoExpect400(t, e, admin, http.MethodPut, orderPath, map[string]czoBad{
		"partial":    {map[string]any{"ids": []int64{green, blue}}, "ids"},
		"duplicated": {map[string]any{"ids": []int64{green, blue, blue}}, "ids[2]"},
		"foreign":    {map[string]any{"ids": []int64{green, blue, idOf(t, czoValueList(t, e, admin, size)[0])}}, "ids[2]"},
		"not ids":    {map[string]any{"ids": []any{"a"}}, "ids[0]"},
	})
	czoOrder(t, e, admin, orderPath, green, redID, blue)
	list = czoValueList(t, e, admin, colour)
	if !slices.Equal(rowIDs(list), []int64{green, redID, blue}) || list[0]["position"] != float64(0) || list[2]["position"] != float64(2) {
		t.Fatalf("after reorder %v", list)
	}
	expectAuditRecord(t, e, admin, "action=setCzOptionValueOrder&limit=1", "cz_option", colour)

	// Values are for choice options only.
	name := czoNewOption(t, e, admin, set, map[string]any{"label": "Name", "type": "text"})
	czoExpect400(t, e, admin, http.MethodPost, czoOptionPath(name)+"/values", map[string]czoBad{"a text option": {map[string]any{"label": "A", "value": "a"}, "id"}})
	czoExpect400(t, e, admin, http.MethodPut, czoOptionPath(name)+"/values", map[string]czoBad{"a text option": {map[string]any{"values": []any{}}, "id"}})
	if vs := czoValueList(t, e, admin, name); len(vs) != 0 {
		t.Fatalf("a text option's values: %v", vs)
	}
	// An option with values keeps a choice type.
	czoExpect409(t, e, admin, http.MethodPut, czoOptionPath(colour), map[string]any{"type": "text"}, "the option has 3 values")

	fn := func(f map[string]any) map[string]any {
		return map[string]any{"label": "x", "value": "x", "functions": []any{f}}
	}
	other := e.Store("Bolt")
	theirs := czoUpload(t, e, other.ID, "theirs.png")
	czoExpect400(t, e, admin, http.MethodPost, vals.path, map[string]czoBad{
		"no label":             {map[string]any{"value": "x"}, "label"},
		"long label":           {map[string]any{"label": strings.Repeat("a", 256), "value": "x"}, "label"},
		"no slug":              {map[string]any{"label": "x"}, "value"},
		"upper slug":           {map[string]any{"label": "x", "value": "Red"}, "value"},
		"spaced slug":          {map[string]any{"label": "x", "value": "dark red"}, "value"},
		"long slug":            {map[string]any{"label": "x", "value": strings.Repeat("a", 65)}, "value"},
		"leading dash":         {map[string]any{"label": "x", "value": "-a"}, "value"},
		"price low":            {map[string]any{"label": "x", "value": "x", "price_delta_cents": -100000001}, "price_delta_cents"},
		"price high":           {map[string]any{"label": "x", "value": "x", "price_delta_cents": 100000001}, "price_delta_cents"},
		"price fraction":       {map[string]any{"label": "x", "value": "x", "price_delta_cents": 1.5}, "price_delta_cents"},
		"short hex":            {map[string]any{"label": "x", "value": "x", "swatch_hex": "#fff"}, "swatch_hex"},
		"named colour":         {map[string]any{"label": "x", "value": "x", "swatch_hex": "red"}, "swatch_hex"},
		"thumbnail elsewhere":  {map[string]any{"label": "x", "value": "x", "thumbnail_url": "https://elsewhere.example/a.png"}, "thumbnail_url"},
		"thumbnail theirs":     {map[string]any{"label": "x", "value": "x", "thumbnail_url": theirs}, "thumbnail_url"},
		"long thumbnail":       {map[string]any{"label": "x", "value": "x", "thumbnail_url": strings.Repeat("a", 2049)}, "thumbnail_url"},
		"both keys":            {fn(map[string]any{"element_key": "a", "group_key": "b", "property": "text", "value": "x"}), "functions[0].element_key"},
		"no key":               {fn(map[string]any{"property": "text", "value": "x"}), "functions[0].element_key"},
		"bad element key":      {fn(map[string]any{"element_key": "A b", "property": "text", "value": "x"}), "functions[0].element_key"},
		"bad group key":        {fn(map[string]any{"group_key": "", "property": "text", "value": "x"}), "functions[0].group_key"},
		"unknown property":     {fn(map[string]any{"element_key": "a", "property": "size", "value": "x"}), "functions[0].property"},
		"bad colour":           {fn(map[string]any{"element_key": "a", "property": "color", "value": "blue"}), "functions[0].value"},
		"visibility true":      {fn(map[string]any{"element_key": "a", "property": "visibility", "value": "true"}), "functions[0].value"},
		"image elsewhere":      {fn(map[string]any{"element_key": "a", "property": "image", "value": "https://elsewhere.example/a.png"}), "functions[0].value"},
		"image theirs":         {fn(map[string]any{"element_key": "a", "property": "image", "value": theirs}), "functions[0].value"},
		"image empty":          {fn(map[string]any{"element_key": "a", "property": "image", "value": ""}), "functions[0].value"},
		"font empty":           {fn(map[string]any{"element_key": "a", "property": "font", "value": " "}), "functions[0].value"},
		"font long":            {fn(map[string]any{"element_key": "a", "property": "font", "value": strings.Repeat("f", 101)}), "functions[0].value"},
		"text long":            {fn(map[string]any{"element_key": "a", "property": "text", "value": strings.Repeat("t", 1001)}), "functions[0].value"},
		"no property":          {fn(map[string]any{"element_key": "a", "value": "x"}), "functions[0].property"},
		"too many functions":   {map[string]any{"label": "x", "value": "x", "functions": slices.Repeat([]any{map[string]any{"element_key": "a", "property": "text", "value": "x"}}, 21)}, "functions"},
		"unknown value field":  {map[string]any{"label": "x", "value": "x", "colour": "red"}, "colour"},
		"functions not a list": {map[string]any{"label": "x", "value": "x", "functions": "none"}, "functions"},
	})
	czoExpect400(t, e, admin, http.MethodPut, czoValuePath(blue), map[string]czoBad{
		"blank label": {map[string]any{"label": ""}, "label"},
		"bad slug":    {map[string]any{"value": "Blue"}, "value"},
		"bad hex":     {map[string]any{"swatch_hex": "#12345g"}, "swatch_hex"},
		"bad image":   {map[string]any{"functions": []any{map[string]any{"element_key": "a", "property": "image", "value": theirs}}}, "functions[0].value"},
	})
	if got := czoValueList(t, e, admin, colour); !reflect.DeepEqual(got, list) {
		t.Fatalf("a refused write was written:\n%v\nwant %v", got, list)
	}
	// Bounds are inclusive.
	vals.create(t, e, admin, map[string]any{"label": strings.Repeat("é", 255), "value": strings.Repeat("a", 64), "price_delta_cents": -100000000,
		"functions": slices.Repeat([]any{map[string]any{"element_key": "a", "property": "text", "value": strings.Repeat("t", 1000)}}, 20)})

	expectBareDelete(t, e, admin, czoValuePath(green))
	if got := czoValueList(t, e, admin, colour); len(got) != 3 || got[0]["position"] != float64(0) || idOf(t, got[0]) != redID {
		t.Fatalf("after delete, the positions close up: %v", got)
	}
	expectAuditRecord(t, e, admin, "action=deleteCzOptionValue&limit=1", "cz_option_value", green)
	e.Do(http.MethodDelete, czoValuePath(green), admin, nil).Expect(t, 404)
}

// TestCzOptionReplaceValues: PUT …/values upserts by slug in the list's
// order, counts what it created, changed and deleted, keeps unnamed values
// after the named ones unless prune is set, and writes nothing on a 400.
func TestCzOptionReplaceValues(t *testing.T) {
	e, _, admin := newAcme(t)
	set := czoNewSet(t, e, admin, "Shirts")
	size := czoNewOption(t, e, admin, set, map[string]any{"label": "Size", "type": "select"})
	path := czoOptionPath(size) + "/values"
	small := czoNewValue(t, e, admin, size, "Small", "s")
	medium := czoNewValue(t, e, admin, size, "Medium", "m")
	large := czoNewValue(t, e, admin, size, "Large", "l")

	replace := func(body map[string]any) (map[string]any, []map[string]any) {
		t.Helper()
		r := e.Do(http.MethodPut, path, admin, body).Expect(t, 200)
		expectPayload(t, r, "result")
		res := checkObject(t, "result", r.Body["result"], map[string]string{"created": "i", "updated": "i", "deleted": "i", "values": "list"})
		var values []map[string]any
		for _, v := range res["values"].([]any) {
			values = append(values, czoValue(t, v))
		}
		if !reflect.DeepEqual(values, czoValueList(t, e, admin, size)) {
			t.Fatalf("the result's values are not the option's: %v", values)
		}
		return res, values
	}
	counts := func(res map[string]any) string {
		return fmt.Sprintf("%v/%v/%v", res["created"], res["updated"], res["deleted"])
	}

	// Without prune: medium changes, xl is new, both lead; s and l follow.
	body := map[string]any{"values": []any{
		map[string]any{"label": "Medium", "value": "m", "price_delta_cents": 100},
		map[string]any{"label": "Extra large", "value": "xl", "price_delta_cents": 300},
	}}
	res, values := replace(body)
	if counts(res) != "1/1/0" {
		t.Fatalf("counts %s", counts(res))
	}
	xl := idOf(t, values[1])
	if !slices.Equal(rowIDs(values), []int64{medium, xl, small, large}) || values[0]["price_delta_cents"] != float64(100) {
		t.Fatalf("values %v", values)
	}
	for i, v := range values {
		if v["position"] != float64(i) {
			t.Fatalf("positions %v", values)
		}
	}
	r := e.Do(http.MethodPut, path, admin, body).Expect(t, 200)
	if fmt.Sprint(r.Obj("result")["created"], r.Obj("result")["updated"], r.Obj("result")["deleted"]) != "0 0 0" {
		t.Fatalf("the same list again changes nothing: %s", r.Raw)
	}
	e.SameOnGraphQL(t, r, admin, "ReplaceCzOptionValues", map[string]any{"id": size, "input": body})
	expectAuditRecord(t, e, admin, "action=replaceCzOptionValues&limit=1", "cz_option", size)

	// A value sent whole: what is left out takes its default; a new order
	// counts as a change.
	res, values = replace(map[string]any{"values": []any{
		map[string]any{"label": "XL", "value": "xl"},
		map[string]any{"label": "Medium", "value": "m", "price_delta_cents": 100},
	}})
	if counts(res) != "0/2/0" || values[0]["price_delta_cents"] != float64(0) || values[0]["label"] != "XL" || !slices.Equal(rowIDs(values), []int64{xl, medium, small, large}) {
		t.Fatalf("%s %v", counts(res), values)
	}

	// With prune: the others go.
	res, values = replace(map[string]any{"prune": true, "values": []any{
		map[string]any{"label": "Small", "value": "s"},
		map[string]any{"label": "Medium", "value": "m", "price_delta_cents": 100},
	}})
	if counts(res) != "0/1/2" || !slices.Equal(rowIDs(values), []int64{small, medium}) { // m is unchanged
		t.Fatalf("%s %v", counts(res), values)
	}
	res, values = replace(map[string]any{"prune": true, "values": []any{}})
	if counts(res) != "0/0/2" || len(values) != 0 {
		t.Fatalf("prune all: %s %v", counts(res), values)
	}

	// 400s name the value at fault; nothing is written.
	res, _ = replace(map[string]any{"values": []any{map[string]any{"label": "One", "value": "one"}}})
	before := czoValueList(t, e, admin, size)
	ok := map[string]any{"label": "Two", "value": "two"}
	czoExpect400(t, e, admin, http.MethodPut, path, map[string]czoBad{
		"duplicate slug": {map[string]any{"values": []any{ok, map[string]any{"label": "Two again", "value": "two"}}}, "values[1].value"},
		"bad slug":       {map[string]any{"values": []any{ok, map[string]any{"label": "x", "value": "X"}}}, "values[1].value"},
		"no label":       {map[string]any{"values": []any{map[string]any{"value": "x"}}}, "values[0].label"},
		"bad function":   {map[string]any{"values": []any{ok, map[string]any{"label": "x", "value": "x", "functions": []any{map[string]any{"element_key": "a", "property": "color", "value": "red"}}}}}, "values[1].functions[0].value"},
		"bad thumbnail":  {map[string]any{"values": []any{ok, map[string]any{"label": "x", "value": "x", "thumbnail_url": "https://elsewhere.example/x.png"}}}, "values[1].thumbnail_url"},
		"no values":      {map[string]any{"prune": true}, "values"},
		"too many":       {map[string]any{"values": slices.Repeat([]any{ok}, 201)}, "values"},
		"prune not bool": {map[string]any{"values": []any{}, "prune": "yes"}, "prune"},
	})
	if got := czoValueList(t, e, admin, size); !reflect.DeepEqual(got, before) {
		t.Fatalf("a refused replace was written: %v", got)
	}
	_ = res
}

// TestCzOptionCaps: 100 options per set and 200 values per option; one
// more is a 409 naming the cap.
func TestCzOptionCaps(t *testing.T) {
	e, s, admin := newAcme(t)
	ctx := context.Background()
	set := czoNewSet(t, e, admin, "Big")
	colour := czoNewOption(t, e, admin, set, map[string]any{"label": "Colour", "type": "select"})
	for i := 1; i < 100; i++ {
		o := &models.CzOption{StoreID: s.ID, OptionSetID: set, Label: fmt.Sprint("Option ", i), Type: "text", Settings: map[string]any{}, Conditions: []models.CustomizerCondition{}}
		if err := models.InsertCzOption(ctx, e.DB, o); err != nil {
			t.Fatal(err)
		}
	}
	czoExpect409(t, e, admin, http.MethodPost, czoSetPath(set)+"/options", map[string]any{"label": "One more", "type": "text"}, "100 options, the most a set may have")
	values := make([]any, 200)
	for i := range values {
		values[i] = map[string]any{"label": fmt.Sprint("V", i), "value": fmt.Sprint("v", i)}
	}
	r := e.Do(http.MethodPut, czoOptionPath(colour)+"/values", admin, map[string]any{"values": values}).Expect(t, 200)
	if r.Obj("result")["created"] != float64(200) {
		t.Fatalf("200 values: %v", r.Obj("result")["created"])
	}
	czoExpect409(t, e, admin, http.MethodPost, czoOptionPath(colour)+"/values", map[string]any{"label": "One more", "value": "more"}, "200 values, the most an option may have")
	czoExpect409(t, e, admin, http.MethodPut, czoOptionPath(colour)+"/values", map[string]any{"values": []any{map[string]any{"label": "New", "value": "new"}}}, "201 values")
	// With prune the list replaces them all.
	r = e.Do(http.MethodPut, czoOptionPath(colour)+"/values", admin, map[string]any{"prune": true, "values": []any{map[string]any{"label": "New", "value": "new"}}}).Expect(t, 200)
	if r.Obj("result")["deleted"] != float64(200) || len(r.Obj("result")["values"].([]any)) != 1 {
		t.Fatalf("pruned: %s", r.Raw)
	}
}

// TestCzOptionAccess: reads are customizer:read, writes customizer:write
// and admin; no key is 401; another store's records are 404 at every
// level and never touched.
func TestCzOptionAccess(t *testing.T) {
	e, s, admin := newAcme(t)
	set := czoNewSet(t, e, admin, "Mine")
	option := czoNewOption(t, e, admin, set, map[string]any{"label": "Colour", "type": "select"})
	value := czoNewValue(t, e, admin, option, "Red", "red")
	valueBody := map[string]any{"label": "Blue", "value": "blue"}

	reads := []apitest.Call{
		{Method: http.MethodGet, Path: czoSets.path},
		{Method: http.MethodGet, Path: czoSetPath(set)},
		{Method: http.MethodGet, Path: czoSetPath(set) + "/options"},
		{Method: http.MethodGet, Path: czoOptionPath(option) + "/values"},
	}
	writes := []apitest.Call{
		{Method: http.MethodPost, Path: czoSets.path, Body: map[string]any{"name": "x"}},
		{Method: http.MethodPut, Path: czoSetPath(set), Body: map[string]any{"name": "x"}},
		{Method: http.MethodPut, Path: czoSetPath(set) + "/option-order", Body: map[string]any{"ids": []int64{option}}},
		{Method: http.MethodPost, Path: czoSetPath(set) + "/options", Body: map[string]any{"label": "x", "type": "text"}},
		{Method: http.MethodPut, Path: czoOptionPath(option), Body: map[string]any{"label": "x"}},
		{Method: http.MethodPut, Path: czoOptionPath(option) + "/value-order", Body: map[string]any{"ids": []int64{value}}},
		{Method: http.MethodPost, Path: czoOptionPath(option) + "/values", Body: valueBody},
		{Method: http.MethodPut, Path: czoOptionPath(option) + "/values", Body: map[string]any{"values": []any{valueBody}}},
		{Method: http.MethodPut, Path: czoValuePath(value), Body: map[string]any{"label": "x"}},
		{Method: http.MethodDelete, Path: czoValuePath(value)},
		{Method: http.MethodDelete, Path: czoOptionPath(option)},
		{Method: http.MethodDelete, Path: czoSetPath(set)},
	}
	otherScope := e.Key(s.ID, auth.RoleAdmin, "themes:read", "themes:write")
	k := checkAccess(t, e, s.ID, "customizer", map[string]string{"other scope": otherScope}, reads, writes)
	expectGraphQLCode(t, e, k.readOnly, "FORBIDDEN", nil, `mutation { createCzOptionSet(input: {name: "x"}) { id } }`)
	expectGraphQLCode(t, e, otherScope, "FORBIDDEN", map[string]any{"id": set}, `query($id: Int!) { czOptions(id: $id) { id } }`)
	expectUnauthorized(t, e, s.ID, http.MethodPut, czoOptionPath(option)+"/values", map[string]any{"values": []any{}})
	if sets := objectsOf(e.Do(http.MethodGet, czoSets.path, admin, nil).Expect(t, 200).Body["option_sets"]); len(sets) != 1 || sets[0]["name"] != "Mine" {
		t.Fatalf("a refused write was written: %v", sets)
	}
	if vs := czoValueList(t, e, admin, option); len(vs) != 1 || vs[0]["label"] != "Red" {
		t.Fatalf("a refused write was written: %v", vs)
	}
	// The writer does them all, in order.
	for _, c := range writes {
		want := 200
		if c.Method == http.MethodPost {
			want = 201
		}
		e.Do(c.Method, c.Path, k.writer, c.Body).Expect(t, want)
	}

	// Another store's records, at every level: 404, untouched.
	bolt := e.Store("Bolt")
	boltKey := e.Key(bolt.ID, auth.RoleAdmin)
	theirSet := czoNewSet(t, e, boltKey, "Theirs")
	theirOption := czoNewOption(t, e, boltKey, theirSet, map[string]any{"label": "Colour", "type": "select"})
	theirValue := czoNewValue(t, e, boltKey, theirOption, "Red", "red")
	mine := czoNewSet(t, e, admin, "Mine again")
	e.ExpectEach(t, 404, map[string]string{"this store's key": admin}, []apitest.Call{
		{Method: http.MethodGet, Path: czoSetPath(theirSet)},
		{Method: http.MethodPut, Path: czoSetPath(theirSet), Body: map[string]any{"name": "x"}},
		{Method: http.MethodDelete, Path: czoSetPath(theirSet)},
		{Method: http.MethodPut, Path: czoSetPath(theirSet) + "/option-order", Body: map[string]any{"ids": []int64{theirOption}}},
		{Method: http.MethodGet, Path: czoSetPath(theirSet) + "/options"},
		{Method: http.MethodPost, Path: czoSetPath(theirSet) + "/options", Body: map[string]any{"label": "x", "type": "text"}},
		{Method: http.MethodPut, Path: czoOptionPath(theirOption), Body: map[string]any{"label": "x"}},
		{Method: http.MethodDelete, Path: czoOptionPath(theirOption)},
		{Method: http.MethodPut, Path: czoOptionPath(theirOption) + "/value-order", Body: map[string]any{"ids": []int64{theirValue}}},
		{Method: http.MethodGet, Path: czoOptionPath(theirOption) + "/values"},
		{Method: http.MethodPost, Path: czoOptionPath(theirOption) + "/values", Body: valueBody},
		{Method: http.MethodPut, Path: czoOptionPath(theirOption) + "/values", Body: map[string]any{"values": []any{valueBody}, "prune": true}},
		{Method: http.MethodPut, Path: czoValuePath(theirValue), Body: map[string]any{"label": "x"}},
		{Method: http.MethodDelete, Path: czoValuePath(theirValue)},
		{Method: http.MethodGet, Path: czoSetPath(987654)},
		{Method: http.MethodPut, Path: czoOptionPath(987654), Body: map[string]any{"label": "x"}},
		{Method: http.MethodDelete, Path: czoValuePath(987654)},
	})
	expectGraphQLCode(t, e, admin, "NOT_FOUND", map[string]any{"id": theirOption},
		`query($id: Int!) { czOptionValues(id: $id) { id } }`,
		`mutation($id: Int!) { deleteCzOption(id: $id) }`,
		`mutation($id: Int!) { replaceCzOptionValues(id: $id, input: {values: [], prune: true}) { deleted } }`)
	// Their option in my set's order is 400, as any foreign id.
	czoExpect400(t, e, admin, http.MethodPut, czoSetPath(mine)+"/option-order", map[string]czoBad{"their option": {map[string]any{"ids": []int64{theirOption}}, "ids[0]"}})
	if vs := czoValueList(t, e, boltKey, theirOption); len(vs) != 1 || vs[0]["label"] != "Red" {
		t.Fatalf("another store's values changed: %v", vs)
	}
	if o := czoOptionList(t, e, boltKey, theirSet); len(o) != 1 || o[0]["label"] != "Colour" {
		t.Fatalf("another store's options changed: %v", o)
	}
	e.Do(http.MethodPut, "/store/customizer/options/abc", admin, map[string]any{"label": "x"}).Expect(t, 400)
}

// TestCzOptionListStatements: the lists of options and values read a
// constant number of statements, whatever their length.
func TestCzOptionListStatements(t *testing.T) {
	e, _, admin := newAcme(t)
	count := countStatements(e)
	small, big := czoNewSet(t, e, admin, "Small"), czoNewSet(t, e, admin, "Big")
	var smallOption, bigOption int64
	for i := range 12 {
		o := czoNewOption(t, e, admin, big, map[string]any{"label": fmt.Sprint("Option ", i), "type": "select"})
		czoNewValue(t, e, admin, o, "A", "a")
		czoNewValue(t, e, admin, o, "B", "b")
		bigOption = o
	}
	smallOption = czoNewOption(t, e, admin, small, map[string]any{"label": "Only", "type": "select"})
	czoNewValue(t, e, admin, smallOption, "A", "a")
	read := func(path string) int64 {
		return count(func() { e.Do(http.MethodGet, path, admin, nil).Expect(t, 200) })
	}
	read(czoSetPath(small) + "/options") // the key is cached from here on
	if a, b := read(czoSetPath(small)+"/options"), read(czoSetPath(big)+"/options"); a != b || a > 3 {
		t.Fatalf("options of 1: %d statements, of 12: %d", a, b)
	}
	if a, b := read(czoOptionPath(smallOption)+"/values"), read(czoOptionPath(bigOption)+"/values"); a != b || a > 3 {
		t.Fatalf("values of 1: %d statements, of 2: %d", a, b)
	}
}
