package apitest_test

import (
	"context"
	"fmt"
	"maps"
	"net/http"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"

	"storeadmin/internal/app/apitest"
	"storeadmin/internal/auth"
	"storeadmin/models"
)

// The fields of the spec's CzDesignView and CzElementView, exactly.
var (
	czdDesignKeys  = []string{"height_px", "id", "name", "width_px"}
	czdElementKeys = []string{"design_id", "element_key", "group_key", "h", "id", "rotation_deg", "settings", "type", "w", "x", "y", "z_index"}
)

func czdDesignPath(id int64) string { return "/store/customizer/designs/" + strconv.FormatInt(id, 10) }
func czdElementPath(id int64) string {
	return "/store/customizer/elements/" + strconv.FormatInt(id, 10)
}
func czdElementsPath(designID int64) string {
	return czdDesignPath(designID) + "/elements"
}

// czdDesign checks v against CzDesignView and returns it.
func czdDesign(t *testing.T, v any) map[string]any {
	t.Helper()
	m := objectWithKeys(t, "design", v, czdDesignKeys)
	for _, k := range []string{"id", "width_px", "height_px"} {
		wholeNumber(t, m[k])
	}
	stringField(t, m, "name")
	return m
}

// czdElement checks v against CzElementView and returns it.
func czdElement(t *testing.T, v any) map[string]any {
	t.Helper()
	m := objectWithKeys(t, "element", v, czdElementKeys)
	for _, k := range []string{"id", "design_id", "z_index"} {
		wholeNumber(t, m[k])
	}
	for _, k := range []string{"element_key", "group_key", "type"} {
		stringField(t, m, k)
	}
	if _, ok := m["settings"].(map[string]any); !ok {
		t.Fatalf("element settings %#v is not an object", m["settings"])
	}
	return m
}

// czdDesigns is the REST resource of designs.
var czdDesigns = crudResource{path: "/store/customizer/designs", item: czdDesignPath, one: "design", many: "designs", view: czdDesign}

// czdElements is the REST resource of one design's elements.
func czdElements(designID int64) crudResource {
	return crudResource{path: czdElementsPath(designID), item: czdElementPath, one: "element", many: "elements", view: czdElement}
}

// czdNewDesign creates a design over REST and returns its id.
func czdNewDesign(t *testing.T, e *apitest.Env, key, name string) int64 {
	t.Helper()
	return idOf(t, czdDesigns.create(t, e, key, map[string]any{"name": name, "width_px": 1200, "height_px": 800}))
}

// czdNewElement creates a text element key of a design over REST and
// returns it.
func czdNewElement(t *testing.T, e *apitest.Env, key string, designID int64, body map[string]any) map[string]any {
	t.Helper()
	return czdElements(designID).create(t, e, key, body)
}

// czdText is the body of a text element named key.
func czdText(key string) map[string]any {
	return map[string]any{"element_key": key, "type": "text", "x": 10, "y": 20, "w": 300, "h": 60}
}

// czdElementList reads a design's elements over REST: exactly
// {status, elements}.
func czdElementList(t *testing.T, e *apitest.Env, key string, designID int64) ([]map[string]any, *apitest.Response) {
	t.Helper()
	r := e.Do(http.MethodGet, czdElementsPath(designID), key, nil).Expect(t, 200)
	expectPayload(t, r, "elements")
	var out []map[string]any
	for _, v := range r.List("elements") {
		out = append(out, czdElement(t, v))
	}
	return out, r
}

// fieldError is a request that must be refused with 400 naming field.
type fieldError struct {
	body  any
	field string
}

// expectFieldErrors sends each named body to method path and fails unless
// each is a 400 envelope whose message leads with its field.
func expectFieldErrors(t *testing.T, e *apitest.Env, key, method, path string, cases map[string]fieldError) {
	t.Helper()
	for name, c := range cases {
		r := e.Do(method, path, key, c.body)
		if r.Status != 400 || !strings.HasPrefix(r.Message(), c.field+" ") {
			t.Fatalf("%s: want 400 naming %s, got %d %s", name, c.field, r.Status, r.Raw)
		}
		r.Expect(t, 400)
	}
}

// withChanges is a copy of body with change applied: a nil value removes
// its key, any other sets it (one bad field of a valid body at a time).
func withChanges(body, change map[string]any) map[string]any {
	out := maps.Clone(body)
	for k, v := range change {
		if v == nil {
			delete(out, k)
		} else {
			out[k] = v
		}
	}
	return out
}

// insertStoreUpload records an uploaded image of the store, w×h pixels,
// and returns its src.
func insertStoreUpload(t *testing.T, e *apitest.Env, storeID int64, name string, w, h int64) string {
	t.Helper()
	src := fmt.Sprintf("https://cdn.example/%d/%s", storeID, name)
	m := &models.Media{StoreID: storeID, Key: fmt.Sprintf("%d/%s", storeID, name), Src: src, Filename: name,
		ContentType: "image/png", Width: w, Height: h, Bytes: 100}
	if err := models.InsertMedia(context.Background(), e.DB, m); err != nil {
		t.Fatal(err)
	}
	return src
}

// TestCzDesigns: the life of designs over REST, with the same answers on
// GraphQL.
func TestCzDesigns(t *testing.T) {
	e, s, admin := newAcme(t)
	reader := e.Key(s.ID, auth.RoleStaff, "customizer:read")

	mug := czdDesigns.create(t, e, admin, map[string]any{"name": " Mug wrap ", "width_px": 2400, "height_px": 1000})
	mugID := idOf(t, mug)
	if want := map[string]any{"id": float64(mugID), "name": "Mug wrap", "width_px": float64(2400), "height_px": float64(1000)}; !reflect.DeepEqual(mug, want) {
		t.Fatalf("created %v, want %v", mug, want)
	}
	tee := czdNewDesign(t, e, admin, "Tee front")
	got, r := czdDesigns.get(t, e, reader, mugID)
	if !reflect.DeepEqual(got, mug) {
		t.Fatalf("read %v, want %v", got, mug)
	}
	e.SameOnGraphQL(t, r, reader, "GetCzDesign", map[string]any{"id": mugID})
	expectAuditRecord(t, e, admin, "action=createCzDesign&limit=1", "cz_design", tee)

	// An update changes the fields sent; the others stay.
	put, r := czdDesigns.put(t, e, admin, mugID, map[string]any{"height_px": 900})
	if put["height_px"] != float64(900) || put["width_px"] != float64(2400) || put["name"] != "Mug wrap" {
		t.Fatalf("updated %v", put)
	}
	e.SameOnGraphQL(t, r, admin, "UpdateCzDesign", map[string]any{"id": mugID, "input": map[string]any{"height_px": 900}})
	r = e.Do(http.MethodGet, czdDesigns.path, reader, nil).Expect(t, 200)
	expectPayload(t, r, "designs")
	if ids := rowIDs(objectsOf(r.Body["designs"])); !reflect.DeepEqual(ids, []int64{mugID, tee}) {
		t.Fatalf("listed %v", ids)
	}
	e.SameOnGraphQL(t, r, reader, "ListCzDesigns", map[string]any{})
	r = e.Do(http.MethodGet, czdDesigns.path+"?limit=1&offset=1", reader, nil).Expect(t, 200)
	if ids := rowIDs(objectsOf(r.Body["designs"])); !reflect.DeepEqual(ids, []int64{tee}) {
		t.Fatalf("page 2 of 1: %v", ids)
	}
	e.SameOnGraphQL(t, r, reader, "ListCzDesigns", map[string]any{"limit": 1, "offset": 1})
	for _, q := range []string{"limit=0", "limit=251", "offset=-1"} {
		e.Do(http.MethodGet, czdDesigns.path+"?"+q, reader, nil).Expect(t, 400)
	}

	// Deleting a design takes its elements along.
	czdNewElement(t, e, admin, tee, czdText("title"))
	expectBareDelete(t, e, admin, czdDesignPath(tee))
	e.Do(http.MethodGet, czdDesignPath(tee), reader, nil).Expect(t, 404)
	var left int
	if err := e.DB.NewSelect().Model((*models.CzElement)(nil)).ColumnExpr("count(*)").Where("design_id = ?", tee).Scan(context.Background(), &left); err != nil || left != 0 {
		t.Fatalf("elements left of a deleted design: %d %v", left, err)
	}
	e.Do(http.MethodDelete, czdDesignPath(tee), admin, nil).Expect(t, 404)
}

// TestCzDesignValidation: each bad value of a design is a 400 naming it,
// and nothing is written.
func TestCzDesignValidation(t *testing.T) {
	e, _, admin := newAcme(t)
	good := func(change map[string]any) map[string]any {
		return withChanges(map[string]any{"name": "Card", "width_px": 100, "height_px": 100}, change)
	}
	bad := map[string]fieldError{
		"no name":        {good(map[string]any{"name": nil}), "name"},
		"blank name":     {good(map[string]any{"name": "  "}), "name"},
		"long name":      {good(map[string]any{"name": strings.Repeat("n", 256)}), "name"},
		"no width":       {good(map[string]any{"width_px": nil}), "width_px"},
		"zero width":     {good(map[string]any{"width_px": 0}), "width_px"},
		"wide":           {good(map[string]any{"width_px": 20001}), "width_px"},
		"no height":      {good(map[string]any{"height_px": nil}), "height_px"},
		"huge height":    {good(map[string]any{"height_px": int64(1) << 40}), "height_px"},
		"negative":       {good(map[string]any{"height_px": -5}), "height_px"},
		"unknown field":  {good(map[string]any{"depth_px": 3}), "depth_px"},
		"fraction width": {good(map[string]any{"width_px": 10.5}), "width_px"},
	}
	expectFieldErrors(t, e, admin, http.MethodPost, czdDesigns.path, bad)
	id := czdNewDesign(t, e, admin, "Card")
	expectFieldErrors(t, e, admin, http.MethodPut, czdDesignPath(id), map[string]fieldError{
		"blank name": {map[string]any{"name": ""}, "name"},
		"zero width": {map[string]any{"width_px": 0}, "width_px"},
	})
	r := e.Do(http.MethodGet, czdDesigns.path, admin, nil).Expect(t, 200)
	if n := len(r.List("designs")); n != 1 {
		t.Fatalf("%d designs after refusals, want 1", n)
	}
}

// TestCzDesignAccess: the access matrix of every design and element call,
// and another store's designs and elements are not found, at every level.
func TestCzDesignAccess(t *testing.T) {
	e, s, admin := newAcme(t)
	id := czdNewDesign(t, e, admin, "Card")
	el := idOf(t, czdNewElement(t, e, admin, id, czdText("title")))
	reads := []apitest.Call{
		{Method: http.MethodGet, Path: czdDesigns.path},
		{Method: http.MethodGet, Path: czdDesignPath(id)},
		{Method: http.MethodGet, Path: czdElementsPath(id)},
	}
	writes := []apitest.Call{
		{Method: http.MethodPost, Path: czdDesigns.path, Body: map[string]any{"name": "X", "width_px": 1, "height_px": 1}},
		{Method: http.MethodPut, Path: czdDesignPath(id), Body: map[string]any{"name": "Y"}},
		{Method: http.MethodPut, Path: czdDesignPath(id) + "/element-order", Body: map[string]any{"ids": []int64{el}}},
		{Method: http.MethodPost, Path: czdElementsPath(id), Body: czdText("other")},
		{Method: http.MethodPut, Path: czdElementPath(el), Body: map[string]any{"x": 1}},
		{Method: http.MethodDelete, Path: czdElementPath(el)},
		{Method: http.MethodDelete, Path: czdDesignPath(id)},
	}
	checkAccess(t, e, s.ID, "customizer", map[string]string{"other scope": e.Key(s.ID, auth.RoleAdmin, "themes:write")}, reads, writes)
	if d, _ := czdDesigns.get(t, e, admin, id); d["name"] != "Card" {
		t.Fatalf("a refused write changed the design: %v", d)
	}

	// Another store sees none of them: not its design, not its element.
	other := e.Store("Bolt")
	bolt := e.Key(other.ID, auth.RoleAdmin)
	e.ExpectEach(t, 404, map[string]string{"another store": bolt}, append(reads[1:], writes[1:]...))
	for _, q := range []string{
		`query($id: Int!) { czDesign(id: $id) { id } }`,
		`query($id: Int!) { czDesignElements(design_id: $id) { id } }`,
		`mutation($id: Int!) { updateCzElement(id: $id, input: {x: 1}) { id } }`,
		`mutation($id: Int!) { deleteCzElement(id: $id) }`,
		`mutation($id: Int!) { setCzElementOrder(design_id: $id, ids: []) }`,
	} {
		vars := map[string]any{"id": id}
		if strings.Contains(q, "Element(") {
			vars["id"] = el
		}
		expectGraphQLNotFound(t, e, bolt, q, vars)
	}
	// Bolt's own design cannot take Acme's element in its order.
	boltDesign := czdNewDesign(t, e, bolt, "Bolt card")
	r := e.Do(http.MethodPut, czdDesignPath(boltDesign)+"/element-order", bolt, map[string]any{"ids": []int64{el}}).Expect(t, 400)
	if !strings.HasPrefix(r.Message(), "ids[0] ") {
		t.Fatalf("a foreign element in an order: %s", r.Raw)
	}
	if list, _ := czdElementList(t, e, admin, id); len(list) != 1 || list[0]["x"] != float64(10) {
		t.Fatalf("another store changed the element: %v", list)
	}
}

// TestCzDesignElements: elements of each type, their defaults and
// normalised settings, paint order on creation, updates, REST = GraphQL.
func TestCzDesignElements(t *testing.T) {
	e, s, admin := newAcme(t)
	id := czdNewDesign(t, e, admin, "Card")
	photo := insertStoreUpload(t, e, s.ID, "photo.png", 640, 480)

	text := czdNewElement(t, e, admin, id, map[string]any{"element_key": "title", "group_key": "names", "type": "text",
		"w": 300, "h": 60, "settings": map[string]any{"text": "Happy birthday", "color": "#FFAA00", "font_size": 36}})
	wantText := map[string]any{"text": "Happy birthday", "font_family": "Helvetica", "font_size": float64(36), "color": "#ffaa00", "align": "center", "curve": float64(0)}
	if !reflect.DeepEqual(text["settings"], wantText) || text["z_index"] != float64(0) || text["x"] != float64(0) || text["rotation_deg"] != float64(0) {
		t.Fatalf("text element %v", text)
	}
	image := czdNewElement(t, e, admin, id, map[string]any{"element_key": "photo", "type": "image", "x": 5.5, "y": -3, "w": 200, "h": 150,
		"rotation_deg": -45, "settings": map[string]any{"src": photo, "fit": "cover"}})
	if !reflect.DeepEqual(image["settings"], map[string]any{"src": photo, "fit": "cover"}) || image["z_index"] != float64(1) || image["x"] != 5.5 {
		t.Fatalf("image element %v", image)
	}
	placeholder := czdNewElement(t, e, admin, id, map[string]any{"element_key": "upload", "type": "image", "w": 10, "h": 10})
	if !reflect.DeepEqual(placeholder["settings"], map[string]any{"src": "", "fit": "contain"}) {
		t.Fatalf("an image without src: %v", placeholder)
	}
	art := czdNewElement(t, e, admin, id, map[string]any{"element_key": "motif", "type": "artwork", "w": 100, "h": 100,
		"settings": map[string]any{"library_group_key": "flowers"}})
	if !reflect.DeepEqual(art["settings"], map[string]any{"library_group_key": "flowers", "fit": "contain"}) {
		t.Fatalf("artwork element %v", art)
	}
	shape := czdNewElement(t, e, admin, id, map[string]any{"element_key": "frame", "type": "shape", "w": 100, "h": 100,
		"settings": map[string]any{"shape": "ellipse", "stroke": "#000000", "stroke_width": 2.5}})
	if !reflect.DeepEqual(shape["settings"], map[string]any{"shape": "ellipse", "fill": "#cccccc", "stroke": "#000000", "stroke_width": 2.5}) {
		t.Fatalf("shape element %v", shape)
	}

	list, r := czdElementList(t, e, admin, id)
	if ids := rowIDs(list); !reflect.DeepEqual(ids, []int64{idOf(t, text), idOf(t, image), idOf(t, placeholder), idOf(t, art), idOf(t, shape)}) {
		t.Fatalf("paint order %v", ids)
	}
	if !reflect.DeepEqual(list[0], text) {
		t.Fatalf("listed %v, created %v", list[0], text)
	}
	e.SameOnGraphQL(t, r, admin, "ListCzElements", map[string]any{"id": id})

	// An update changes what is sent; settings sent replace the stored
	// ones (missing ones take their defaults); a new type without settings
	// starts from its defaults.
	upd, r := czdElements(id).put(t, e, admin, idOf(t, text), map[string]any{"x": 50, "settings": map[string]any{"text": "Hi", "align": "left"}})
	if upd["x"] != float64(50) || upd["w"] != float64(300) || upd["group_key"] != "names" ||
		!reflect.DeepEqual(upd["settings"], map[string]any{"text": "Hi", "font_family": "Helvetica", "font_size": float64(24), "color": "#000000", "align": "left", "curve": float64(0)}) {
		t.Fatalf("updated %v", upd)
	}
	e.SameOnGraphQL(t, r, admin, "UpdateCzElement", map[string]any{"id": idOf(t, text), "input": map[string]any{"x": 50}})
	upd, _ = czdElements(id).put(t, e, admin, idOf(t, text), map[string]any{"type": "shape"})
	if upd["type"] != "shape" || !reflect.DeepEqual(upd["settings"], map[string]any{"shape": "rect", "fill": "#cccccc", "stroke": "", "stroke_width": float64(0)}) {
		t.Fatalf("type changed: %v", upd)
	}
	// element_key is unique in its design (409 naming it), not across
	// designs.
	r = e.Do(http.MethodPost, czdElementsPath(id), admin, czdText("title")).Expect(t, 409)
	if !strings.Contains(r.Message(), `"title"`) {
		t.Fatalf("a duplicate key: %s", r.Raw)
	}
	r = e.Do(http.MethodPut, czdElementPath(idOf(t, image)), admin, map[string]any{"element_key": "motif"}).Expect(t, 409)
	if !strings.Contains(r.Message(), `"motif"`) {
		t.Fatalf("a key changed to a taken one: %s", r.Raw)
	}
	czdNewElement(t, e, admin, czdNewDesign(t, e, admin, "Other"), czdText("title"))

	// Deleting an element; a design that is gone has no elements to add to.
	expectBareDelete(t, e, admin, czdElementPath(idOf(t, placeholder)))
	e.Do(http.MethodDelete, czdElementPath(idOf(t, placeholder)), admin, nil).Expect(t, 404)
	e.Do(http.MethodPost, czdElementsPath(id+1000), admin, czdText("x")).Expect(t, 404)
	e.Do(http.MethodGet, czdElementsPath(id+1000), admin, nil).Expect(t, 404)
}

// TestCzDesignElementValidation: each bad value of an element is a 400
// naming its field (settings.font_size), and nothing is written.
func TestCzDesignElementValidation(t *testing.T) {
	e, s, admin := newAcme(t)
	id := czdNewDesign(t, e, admin, "Card")
	foreign := insertStoreUpload(t, e, e.Store("Bolt").ID, "theirs.png", 10, 10)
	insertStoreUpload(t, e, s.ID, "ours.png", 10, 10)
	with := func(typ string, change map[string]any) map[string]any {
		return withChanges(map[string]any{"element_key": "k", "type": typ, "w": 10, "h": 10}, change)
	}
	settings := func(typ string, s map[string]any) map[string]any { return with(typ, map[string]any{"settings": s}) }
	bad := map[string]fieldError{
		"no key":                  {with("text", map[string]any{"element_key": nil}), "element_key"},
		"upper-case key":          {with("text", map[string]any{"element_key": "Title"}), "element_key"},
		"long key":                {with("text", map[string]any{"element_key": strings.Repeat("k", 65)}), "element_key"},
		"spaced group":            {with("text", map[string]any{"group_key": "my group"}), "group_key"},
		"no type":                 {with("text", map[string]any{"type": nil}), "type"},
		"unknown type":            {with("video", nil), "type"},
		"no w":                    {with("text", map[string]any{"w": nil}), "w"},
		"zero w":                  {with("text", map[string]any{"w": 0}), "w"},
		"negative h":              {with("text", map[string]any{"h": -1}), "h"},
		"huge h":                  {with("text", map[string]any{"h": 1e9}), "h"},
		"far x":                   {with("text", map[string]any{"x": 100001}), "x"},
		"far y":                   {with("text", map[string]any{"y": -1e300}), "y"},
		"rotation 360":            {with("text", map[string]any{"rotation_deg": 360}), "rotation_deg"},
		"rotation -360":           {with("text", map[string]any{"rotation_deg": -360}), "rotation_deg"},
		"settings list":           {with("text", map[string]any{"settings": []any{1}}), "settings"},
		"unknown setting":         {settings("text", map[string]any{"font_weight": "bold"}), "settings.font_weight"},
		"setting of another type": {settings("text", map[string]any{"fill": "#000000"}), "settings.fill"},
		"font size 0":             {settings("text", map[string]any{"font_size": 0}), "settings.font_size"},
		"font size text":          {settings("text", map[string]any{"font_size": "12"}), "settings.font_size"},
		"font size huge":          {settings("text", map[string]any{"font_size": 2001}), "settings.font_size"},
		"colour name":             {settings("text", map[string]any{"color": "red"}), "settings.color"},
		"short colour":            {settings("text", map[string]any{"color": "#fff"}), "settings.color"},
		"align justify":           {settings("text", map[string]any{"align": "justify"}), "settings.align"},
		"curve 361":               {settings("text", map[string]any{"curve": 361}), "settings.curve"},
		"long text":               {settings("text", map[string]any{"text": strings.Repeat("a", 1001)}), "settings.text"},
		"control text":            {settings("text", map[string]any{"text": "a\tb"}), "settings.text"},
		"long font":               {settings("text", map[string]any{"font_family": strings.Repeat("f", 101)}), "settings.font_family"},
		"foreign upload":          {settings("image", map[string]any{"src": foreign}), "settings.src"},
		"unknown src":             {settings("image", map[string]any{"src": "https://elsewhere.example/x.png"}), "settings.src"},
		"src number":              {settings("image", map[string]any{"src": 5}), "settings.src"},
		"fit stretch":             {settings("image", map[string]any{"fit": "stretch"}), "settings.fit"},
		"artwork no group":        {settings("artwork", map[string]any{}), "settings.library_group_key"},
		"artwork bad group":       {settings("artwork", map[string]any{"library_group_key": "Big Flowers"}), "settings.library_group_key"},
		"shape star":              {settings("shape", map[string]any{"shape": "star"}), "settings.shape"},
		"fill name":               {settings("shape", map[string]any{"fill": "blue"}), "settings.fill"},
		"stroke width -1":         {settings("shape", map[string]any{"stroke_width": -1}), "settings.stroke_width"},
		"unknown field":           {with("text", map[string]any{"opacity": 1}), "opacity"},
	}
	expectFieldErrors(t, e, admin, http.MethodPost, czdElementsPath(id), bad)
	el := idOf(t, czdNewElement(t, e, admin, id, czdText("title")))
	expectFieldErrors(t, e, admin, http.MethodPut, czdElementPath(el), map[string]fieldError{
		"bad key":     {map[string]any{"element_key": "-x"}, "element_key"},
		"bad setting": {map[string]any{"settings": map[string]any{"color": "#12345g"}}, "settings.color"},
		"zero h":      {map[string]any{"h": 0}, "h"},
	})
	if list, _ := czdElementList(t, e, admin, id); len(list) != 1 || list[0]["element_key"] != "title" || list[0]["h"] != float64(60) {
		t.Fatalf("refusals wrote: %v", list)
	}
	r := e.GraphQL(admin, `mutation($id: Int!) { createCzElement(design_id: $id, input: {element_key: "k", type: "text", w: 1, h: 1, settings: {font_size: -1}}) { id } }`, map[string]any{"id": id})
	if r.ErrorCode() != "BAD_USER_INPUT" || !strings.Contains(string(r.Raw), "settings.font_size") {
		t.Fatalf("GraphQL: a bad setting: %s", r.Raw)
	}
}

// TestCzDesignElementCap: a design holds at most 200 elements; the next
// is a 409 naming the cap.
func TestCzDesignElementCap(t *testing.T) {
	e, s, admin := newAcme(t)
	id := czdNewDesign(t, e, admin, "Busy")
	rows := make([]models.CzElement, 200)
	for i := range rows {
		rows[i] = models.CzElement{StoreID: s.ID, DesignID: id, ElementKey: fmt.Sprintf("e%d", i), Type: "shape", W: 1, H: 1, ZIndex: int64(i), Settings: map[string]any{}}
	}
	if _, err := e.DB.NewInsert().Model(&rows).Exec(context.Background()); err != nil {
		t.Fatal(err)
	}
	r := e.Do(http.MethodPost, czdElementsPath(id), admin, czdText("one-more")).Expect(t, 409)
	if !strings.Contains(r.Message(), "200") {
		t.Fatalf("over the cap: %s", r.Raw)
	}
	expectBareDelete(t, e, admin, czdElementPath(rows[0].ID))
	if el := czdNewElement(t, e, admin, id, czdText("one-more")); el["z_index"] != float64(200) {
		t.Fatalf("a new element goes on top: %v", el)
	}
}

// TestCzDesignElementOrder: the paint order takes every element once and
// assigns z_index 0..n-1 in one statement; partial, repeated and foreign
// lists are refused.
func TestCzDesignElementOrder(t *testing.T) {
	e, _, admin := newAcme(t)
	id := czdNewDesign(t, e, admin, "Card")
	var ids []int64
	for _, k := range []string{"a", "b", "c", "d"} {
		ids = append(ids, idOf(t, czdNewElement(t, e, admin, id, czdText(k))))
	}
	otherDesign := czdNewDesign(t, e, admin, "Other")
	stranger := idOf(t, czdNewElement(t, e, admin, otherDesign, czdText("a")))
	order := czdDesignPath(id) + "/element-order"
	want := []int64{ids[2], ids[0], ids[3], ids[1]}
	statements := countStatements(e)
	n := statements(func() {
		if r := e.Do(http.MethodPut, order, admin, map[string]any{"ids": want}).Expect(t, 200); string(r.Raw) != `{"status":true}` {
			t.Fatalf("order answered %s", r.Raw)
		}
	})
	expectAuditRecord(t, e, admin, "action=setCzElementOrder&limit=1", "cz_design", id)
	list, _ := czdElementList(t, e, admin, id)
	for i, el := range list {
		if idOf(t, el) != want[i] || el["z_index"] != float64(i) {
			t.Fatalf("after the order %v: %v", want, list)
		}
	}
	// The same order of eight elements costs the same statements.
	for _, k := range []string{"e", "f", "g", "h"} {
		want = append(want, idOf(t, czdNewElement(t, e, admin, id, czdText(k))))
	}
	if n8 := statements(func() { e.Do(http.MethodPut, order, admin, map[string]any{"ids": want}).Expect(t, 200) }); n8 != n {
		t.Fatalf("ordering 8 elements took %d statements, 4 took %d", n8, n)
	}
	expectFieldErrors(t, e, admin, http.MethodPut, order, map[string]fieldError{
		"partial":  {map[string]any{"ids": want[1:]}, "ids"},
		"empty":    {map[string]any{"ids": []int64{}}, "ids"},
		"repeated": {map[string]any{"ids": append([]int64{want[0]}, want...)}, "ids[1]"},
		"foreign":  {map[string]any{"ids": append(want[1:], stranger)}, "ids[7]"},
		"no ids":   {map[string]any{}, "ids"},
	})
	e.Do(http.MethodPut, czdDesignPath(id+1000)+"/element-order", admin, map[string]any{"ids": []int64{}}).Expect(t, 404)
	if list, _ := czdElementList(t, e, admin, id); idOf(t, list[0]) != want[0] || list[0]["z_index"] != float64(0) {
		t.Fatalf("a refused order wrote: %v", list)
	}
	g := e.GraphQL(admin, `mutation($id: Int!, $ids: [Int!]!) { setCzElementOrder(design_id: $id, ids: $ids) }`, map[string]any{"id": id, "ids": want})
	if g.Data()["setCzElementOrder"] != true {
		t.Fatalf("GraphQL order: %s", g.Raw)
	}
}

// czdBinding makes design designID's elements targets of functions: a
// template of the design, a binding of an option set whose one option has
// a value "Gold" with functions, answering the value's id.
func czdBinding(t *testing.T, e *apitest.Env, storeID, designID int64, functions []models.CustomizerFunction) int64 {
	t.Helper()
	ctx := context.Background()
	base := &models.CzProductBase{StoreID: storeID, Name: "Mug"}
	set := &models.CzOptionSet{StoreID: storeID, Name: "Mug options"}
	for _, m := range []any{base, set} {
		if _, err := e.DB.NewInsert().Model(m).Exec(ctx); err != nil {
			t.Fatal(err)
		}
	}
	tpl := &models.CzTemplate{StoreID: storeID, Name: "Mug print", DesignID: designID, ProductBaseID: base.ID, ExportFormat: "png", PPI: 300}
	opt := &models.CzOption{StoreID: storeID, OptionSetID: set.ID, Label: "Colour", Type: "select", Settings: map[string]any{}, Conditions: []models.CustomizerCondition{}}
	for _, m := range []any{tpl, opt} {
		if _, err := e.DB.NewInsert().Model(m).Exec(ctx); err != nil {
			t.Fatal(err)
		}
	}
	val := &models.CzOptionValue{StoreID: storeID, OptionID: opt.ID, Label: "Gold", Value: "gold", Functions: functions}
	bind := &models.CzProductBinding{StoreID: storeID, ProductID: 999, TemplateID: tpl.ID, OptionSetID: set.ID, DefaultSelections: map[string]any{}}
	for _, m := range []any{val, bind} {
		if _, err := e.DB.NewInsert().Model(m).Exec(ctx); err != nil {
			t.Fatal(err)
		}
	}
	return val.ID
}

// TestCzDesignInUse: a design a template uses is kept (409 naming the
// template); an element an option-value function of a bound option set
// targets is kept, and keeps its key and (as its group's last) its group
// (409 naming the value).
func TestCzDesignInUse(t *testing.T) {
	e, s, admin := newAcme(t)
	id := czdNewDesign(t, e, admin, "Mug wrap")
	title := czdNewElement(t, e, admin, id, map[string]any{"element_key": "title", "type": "text", "w": 10, "h": 10})
	left := czdNewElement(t, e, admin, id, map[string]any{"element_key": "left", "group_key": "sides", "type": "shape", "w": 10, "h": 10})
	right := czdNewElement(t, e, admin, id, map[string]any{"element_key": "right", "group_key": "sides", "type": "shape", "w": 10, "h": 10})
	free := czdNewElement(t, e, admin, id, map[string]any{"element_key": "free", "type": "shape", "w": 10, "h": 10})
	key, group := "title", "sides"
	czdBinding(t, e, s.ID, id, []models.CustomizerFunction{
		{ElementKey: &key, Property: "color", Value: "#d4af37"},
		{GroupKey: &group, Property: "color", Value: "#d4af37"},
	})

	r := e.Do(http.MethodDelete, czdDesignPath(id), admin, nil).Expect(t, 409)
	// Worded as a product base in use (templateNames): each template by
	// name and id, up to three.
	if !regexp.MustCompile(`^the design is used by template "Mug print" \(\d+\); `).MatchString(r.Message()) {
		t.Fatalf("a design in use: %s", r.Raw)
	}
	for name, call := range map[string]apitest.Call{
		"delete":            {Method: http.MethodDelete, Path: czdElementPath(idOf(t, title))},
		"change key":        {Method: http.MethodPut, Path: czdElementPath(idOf(t, title)), Body: map[string]any{"element_key": "heading"}},
		"change key in GQL": {},
	} {
		if call.Method == "" {
			g := e.GraphQL(admin, `mutation($id: Int!) { updateCzElement(id: $id, input: {element_key: "heading"}) { id } }`, map[string]any{"id": idOf(t, title)})
			if g.ErrorCode() != "CONFLICT" || !strings.Contains(string(g.Raw), `option value \"Gold\"`) {
				t.Fatalf("%s: %s", name, g.Raw)
			}
			continue
		}
		r := e.Do(call.Method, call.Path, admin, call.Body).Expect(t, 409)
		if !strings.Contains(r.Message(), `option value "Gold"`) || !strings.Contains(r.Message(), `element "title"`) {
			t.Fatalf("%s: %s", name, r.Raw)
		}
	}
	// One of a group's two elements may leave it; the last may not.
	expectBareDelete(t, e, admin, czdElementPath(idOf(t, left)))
	r = e.Do(http.MethodPut, czdElementPath(idOf(t, right)), admin, map[string]any{"group_key": ""}).Expect(t, 409)
	if !strings.Contains(r.Message(), `group "sides"`) {
		t.Fatalf("the group's last element: %s", r.Raw)
	}
	e.Do(http.MethodDelete, czdElementPath(idOf(t, right)), admin, nil).Expect(t, 409)
	// What no function targets changes freely; the rest of an update
	// of a targeted element too.
	czdElements(id).put(t, e, admin, idOf(t, free), map[string]any{"element_key": "loose"})
	czdElements(id).put(t, e, admin, idOf(t, title), map[string]any{"x": 99, "element_key": "title"})
	expectBareDelete(t, e, admin, czdElementPath(idOf(t, free)))

	// Functions of an option set bound with another design are no concern.
	other := czdNewDesign(t, e, admin, "Other")
	same := czdNewElement(t, e, admin, other, map[string]any{"element_key": "title", "type": "text", "w": 10, "h": 10})
	expectBareDelete(t, e, admin, czdElementPath(idOf(t, same)))
}

// TestCzDesignElementConcurrentUpdates: two PUTs of one element, each of
// another field, both land: each reads the element under its design's lock,
// not a copy another writer is about to replace.
func TestCzDesignElementConcurrentUpdates(t *testing.T) {
	e, _, admin := newAcme(t)
	id := czdNewDesign(t, e, admin, "Card")
	for round := range 16 {
		el := idOf(t, czdNewElement(t, e, admin, id, czdText(fmt.Sprintf("t%d", round))))
		var wg sync.WaitGroup
		for _, body := range []map[string]any{{"x": 7}, {"y": 9}} {
			wg.Add(1)
			go func() {
				defer wg.Done()
				e.Do(http.MethodPut, czdElementPath(el), admin, body).Expect(t, 200)
			}()
		}
		wg.Wait()
		list, _ := czdElementList(t, e, admin, id)
		got := list[len(list)-1]
		if idOf(t, got) != el || got["x"] != float64(7) || got["y"] != float64(9) {
			t.Fatalf("round %d: element %v lost an update (want %d at x 7, y 9)", round, got, el)
		}
	}
}
