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
	"sync/atomic"
	"testing"

	"storeadmin/internal/app/apitest"
	"storeadmin/internal/auth"
	"storeadmin/models"
)

// The fields of the spec's views, exactly.
var (
	czbBaseKeys      = []string{"id", "name"}
	czbMockupKeys    = []string{"id", "image_height", "image_src", "image_width", "name", "position", "product_base_id"}
	czbPrintAreaKeys = []string{"h", "id", "mockup_id", "name", "position", "rotation_deg", "w", "x", "y"}
)

const czbBases = "/store/customizer/product-bases"

func czbBasePath(id int64) string   { return czbBases + "/" + strconv.FormatInt(id, 10) }
func czbMockupPath(id int64) string { return "/store/customizer/mockups/" + strconv.FormatInt(id, 10) }
func czbAreaPath(id int64) string {
	return "/store/customizer/print-areas/" + strconv.FormatInt(id, 10)
}

// czbView checks v against a view's keys and returns it.
func czbView(what string, keys []string) viewCheck {
	return func(t *testing.T, v any) map[string]any {
		t.Helper()
		m := objectWithKeys(t, what, v, keys)
		if idOf(t, m) <= 0 {
			t.Fatalf("%s id %v", what, m["id"])
		}
		return m
	}
}

var (
	czbBaseView   = czbView("product base", czbBaseKeys)
	czbMockupView = czbView("mockup", czbMockupKeys)
	czbAreaView   = czbView("print area", czbPrintAreaKeys)
	// czbBaseRes is the REST resource of product bases (its list has no
	// total: the spec's payload is product_bases alone).
	czbBaseRes = crudResource{path: czbBases, item: czbBasePath, one: "product_base", many: "product_bases", view: czbBaseView}
)

// czbMockupRes is the REST resource of a base's mockups.
func czbMockupRes(baseID int64) crudResource {
	return crudResource{path: czbBasePath(baseID) + "/mockups", item: czbMockupPath, one: "mockup", many: "mockups", view: czbMockupView}
}

// czbAreaRes is the REST resource of a mockup's print areas.
func czbAreaRes(mockupID int64) crudResource {
	return crudResource{path: czbMockupPath(mockupID) + "/print-areas", item: czbAreaPath, one: "print_area", many: "print_areas", view: czbAreaView}
}

// czbList reads a list route whose payload is exactly {many} and returns
// its rows, checked by view.
func czbList(t *testing.T, e *apitest.Env, key, path, many string, view viewCheck) ([]map[string]any, *apitest.Response) {
	t.Helper()
	r := e.Do(http.MethodGet, path, key, nil).Expect(t, 200)
	expectPayload(t, r, many)
	out := []map[string]any{}
	for _, v := range r.List(many) {
		out = append(out, view(t, v))
	}
	return out, r
}

var czbPhotos atomic.Int64

// czbPhoto records an uploaded image of w×h pixels for the store, as
// POST /store/uploads/finalize does once it has read the image, and
// returns its src.
func czbPhoto(t *testing.T, e *apitest.Env, storeID, w, h int64) string {
	t.Helper()
	n := czbPhotos.Add(1)
	m := &models.Media{StoreID: storeID, Key: fmt.Sprintf("uploads/czb-%d.png", n), Src: fmt.Sprintf("%s/files/uploads/czb-%d.png", e.URL, n),
		Filename: "mockup.png", ContentType: "image/png", Width: w, Height: h, Bytes: 100}
	if err := models.InsertMedia(context.Background(), e.DB, m); err != nil {
		t.Fatal(err)
	}
	return m.Src
}

// czbMockupPut sends PUT …/mockups/{id}, expects 200 and the payload
// {mockup, print_areas}, and returns both checked.
func czbMockupPut(t *testing.T, e *apitest.Env, key string, id int64, body any) (map[string]any, []map[string]any, *apitest.Response) {
	t.Helper()
	r := e.Do(http.MethodPut, czbMockupPath(id), key, body).Expect(t, 200)
	expectPayload(t, r, "mockup", "print_areas")
	var areas []map[string]any
	for _, v := range r.List("print_areas") {
		areas = append(areas, czbAreaView(t, v))
	}
	return czbMockupView(t, r.Body["mockup"]), areas, r
}

// czbExpectField fails unless the GraphQL query answers BAD_USER_INPUT
// with extensions.field naming field.
func czbExpectField(t *testing.T, e *apitest.Env, key, field string, vars map[string]any, query string) {
	t.Helper()
	g := e.GraphQL(key, query, vars)
	errs, _ := g.Body["errors"].([]any)
	if g.ErrorCode() != "BAD_USER_INPUT" || len(errs) == 0 {
		t.Fatalf("%s: want BAD_USER_INPUT, got %s", query, g.Raw)
	}
	ext, _ := errs[0].(map[string]any)["extensions"].(map[string]any)
	if ext["field"] != field {
		t.Fatalf("%s: field %v, want %s: %s", query, ext["field"], field, g.Raw)
	}
}

// czbSetup makes a base with one 1000×800 mockup: the start of the mockup
// and print area tests.
func czbSetup(t *testing.T, e *apitest.Env, storeID int64, key string) (baseID, mockupID int64) {
	t.Helper()
	baseID = idOf(t, czbBaseRes.create(t, e, key, map[string]any{"name": "Mug"}))
	src := czbPhoto(t, e, storeID, 1000, 800)
	mockupID = idOf(t, czbMockupRes(baseID).create(t, e, key, map[string]any{"name": "Front", "image_src": src}))
	return baseID, mockupID
}

// TestCzBaseLifecycle: product bases over REST, with the same answers on
// GraphQL: names trimmed, listed by name with paging, renamed, deleted
// with their mockups and print areas.
func TestCzBaseLifecycle(t *testing.T) {
	e, s, admin := newAcme(t)
	reader := e.Key(s.ID, auth.RoleStaff, "customizer:read")

	mug := czbBaseRes.create(t, e, admin, map[string]any{"name": "  Mug  "})
	if mug["name"] != "Mug" {
		t.Fatalf("created %v", mug)
	}
	mugID := idOf(t, mug)
	tee := idOf(t, czbBaseRes.create(t, e, admin, map[string]any{"name": "T-shirt"}))
	bag := idOf(t, czbBaseRes.create(t, e, admin, map[string]any{"name": "Bag"}))

	rows, list := czbList(t, e, reader, czbBases, "product_bases", czbBaseView)
	if ids := rowIDs(rows); !slices.Equal(ids, []int64{bag, mugID, tee}) {
		t.Fatalf("list %v, want by name %v", ids, []int64{bag, mugID, tee})
	}
	e.SameOnGraphQL(t, list, reader, "ListCzProductBases", nil)
	rows, page := czbList(t, e, reader, czbBases+"?limit=1&offset=1", "product_bases", czbBaseView)
	if ids := rowIDs(rows); !slices.Equal(ids, []int64{mugID}) {
		t.Fatalf("page %v", ids)
	}
	e.SameOnGraphQL(t, page, reader, "ListCzProductBases", map[string]any{"limit": 1, "offset": 1})
	e.Do(http.MethodGet, czbBases+"?limit=251", reader, nil).Expect(t, 400)
	e.Do(http.MethodGet, czbBases+"?offset=-1", reader, nil).Expect(t, 400)

	got, get := czbBaseRes.get(t, e, reader, mugID)
	if !reflect.DeepEqual(got, mug) {
		t.Fatalf("get %v, want %v", got, mug)
	}
	e.SameOnGraphQL(t, get, reader, "GetCzProductBase", map[string]any{"id": mugID})

	// An empty update changes nothing; a rename trims.
	if u, _ := czbBaseRes.put(t, e, admin, mugID, map[string]any{}); !reflect.DeepEqual(u, mug) {
		t.Fatalf("empty update %v", u)
	}
	u, put := czbBaseRes.put(t, e, admin, mugID, map[string]any{"name": " Travel mug "})
	if u["name"] != "Travel mug" {
		t.Fatalf("renamed %v", u)
	}
	e.SameOnGraphQL(t, put, admin, "UpdateCzProductBase", map[string]any{"id": mugID, "input": map[string]any{"name": "Travel mug"}})
	expectAuditRecord(t, e, admin, "action=updateCzProductBase&limit=1", "cz_product_base", mugID)

	// Deleting a base takes its mockups and their print areas along.
	mockup := idOf(t, czbMockupRes(mugID).create(t, e, admin, map[string]any{"name": "Front", "image_src": czbPhoto(t, e, s.ID, 100, 100)}))
	czbAreaRes(mockup).create(t, e, admin, map[string]any{"name": "Wrap", "x": 0, "y": 0, "w": 50, "h": 50})
	expectBareDelete(t, e, admin, czbBasePath(mugID))
	for _, table := range []any{(*models.CzMockup)(nil), (*models.CzPrintArea)(nil)} {
		if n, err := e.DB.NewSelect().Model(table).Where("store_id = ?", s.ID).Count(context.Background()); err != nil || n != 0 {
			t.Fatalf("%T left after the base's delete: %d %v", table, n, err)
		}
	}
	e.Do(http.MethodGet, czbBasePath(mugID), admin, nil).Expect(t, 404)
	e.Do(http.MethodDelete, czbBasePath(mugID), admin, nil).Expect(t, 404)
	expectGraphQLCode(t, e, admin, "NOT_FOUND", map[string]any{"id": mugID},
		`mutation($id: Int!) { deleteCzProductBase(id: $id) }`, `query($id: Int!) { czProductBase(id: $id) { id } }`)
}

// TestCzBaseInUse: a base a template prints on is kept, 409 naming the
// template; once the template is gone it can go.
func TestCzBaseInUse(t *testing.T) {
	e, s, admin := newAcme(t)
	ctx := context.Background()
	base := idOf(t, czbBaseRes.create(t, e, admin, map[string]any{"name": "Mug"}))
	design := &models.CzDesign{StoreID: s.ID, Name: "Logo", WidthPx: 100, HeightPx: 100}
	if _, err := e.DB.NewInsert().Model(design).Exec(ctx); err != nil {
		t.Fatal(err)
	}
	tpl := &models.CzTemplate{StoreID: s.ID, Name: "Mug logo", DesignID: design.ID, ProductBaseID: base, ExportFormat: "png", PPI: 300}
	if _, err := e.DB.NewInsert().Model(tpl).Exec(ctx); err != nil {
		t.Fatal(err)
	}
	r := e.Do(http.MethodDelete, czbBasePath(base), admin, nil).Expect(t, 409)
	if want := fmt.Sprintf(`template "Mug logo" (%d)`, tpl.ID); !strings.Contains(r.Message(), want) {
		t.Fatalf("409 message %q does not name %s", r.Message(), want)
	}
	expectGraphQLCode(t, e, admin, "CONFLICT", map[string]any{"id": base}, `mutation($id: Int!) { deleteCzProductBase(id: $id) }`)
	czbBaseRes.get(t, e, admin, base)
	if _, err := e.DB.NewDelete().Model(tpl).WherePK().Exec(ctx); err != nil {
		t.Fatal(err)
	}
	expectBareDelete(t, e, admin, czbBasePath(base))
}

// TestCzMockupLifecycle: mockups take their photo's size from the upload,
// keep gapless positions as they are added, moved and deleted, and answer
// the same on both surfaces.
func TestCzMockupLifecycle(t *testing.T) {
	e, s, admin := newAcme(t)
	reader := e.Key(s.ID, auth.RoleStaff, "customizer:read")
	base := idOf(t, czbBaseRes.create(t, e, admin, map[string]any{"name": "Mug"}))
	res := czbMockupRes(base)
	src := czbPhoto(t, e, s.ID, 1200, 900)

	front := res.create(t, e, admin, map[string]any{"name": " Front ", "image_src": src})
	want := map[string]any{"id": front["id"], "name": "Front", "image_src": src, "image_width": float64(1200), "image_height": float64(900),
		"position": float64(0), "product_base_id": float64(base)}
	if !reflect.DeepEqual(front, want) {
		t.Fatalf("created %v\nwant %v", front, want)
	}
	frontID := idOf(t, front)
	backID := idOf(t, res.create(t, e, admin, map[string]any{"name": "Back", "image_src": src}))
	// At a position: the others shift; past the end: last.
	sideID := idOf(t, res.create(t, e, admin, map[string]any{"name": "Side", "image_src": src, "position": 0}))
	lastID := idOf(t, res.create(t, e, admin, map[string]any{"name": "Top", "image_src": src, "position": 99}))
	expectOrder := func(want ...int64) *apitest.Response {
		t.Helper()
		rows, r := czbList(t, e, reader, res.path, "mockups", czbMockupView)
		if ids := rowIDs(rows); !slices.Equal(ids, want) {
			t.Fatalf("mockups %v, want %v", ids, want)
		}
		for i, m := range rows {
			if m["position"] != float64(i) {
				t.Fatalf("mockup %v at position %v, want %d", m["id"], m["position"], i)
			}
		}
		return r
	}
	list := expectOrder(sideID, frontID, backID, lastID)
	e.SameOnGraphQL(t, list, reader, "ListCzMockups", map[string]any{"id": base})

	// Move: down, up, and past the end.
	czbMockupPut(t, e, admin, sideID, map[string]any{"position": 2})
	expectOrder(frontID, backID, sideID, lastID)
	m, _, put := czbMockupPut(t, e, admin, lastID, map[string]any{"position": 0, "name": "Top view"})
	if m["name"] != "Top view" || m["position"] != float64(0) {
		t.Fatalf("moved %v", m)
	}
	expectOrder(lastID, frontID, backID, sideID)
	e.SameOnGraphQL(t, put, admin, "UpdateCzMockup", map[string]any{"id": lastID, "input": map[string]any{"position": 0}})
	czbMockupPut(t, e, admin, lastID, map[string]any{"position": 1000})
	expectOrder(frontID, backID, sideID, lastID)

	// Delete closes the gap.
	expectBareDelete(t, e, admin, czbMockupPath(backID))
	expectAuditRecord(t, e, admin, "action=deleteCzMockup&limit=1", "cz_mockup", backID)
	expectOrder(frontID, sideID, lastID)
	e.Do(http.MethodDelete, czbMockupPath(backID), admin, nil).Expect(t, 404)

	// 20 per base: the 21st is a 409 naming the cap.
	for range 17 {
		res.create(t, e, admin, map[string]any{"name": "More", "image_src": src})
	}
	r := e.Do(http.MethodPost, res.path, admin, map[string]any{"name": "One too many", "image_src": src}).Expect(t, 409)
	if !strings.Contains(r.Message(), "at most 20 mockups") {
		t.Fatalf("cap message %q", r.Message())
	}
}

// TestCzMockupRescale: replacing a mockup's photo with one of another size
// rescales its print areas in the same write (x and w by the width's ratio,
// y and h by the height's), and the answer shows them; a photo of the same
// size leaves them.
func TestCzMockupRescale(t *testing.T) {
	e, s, admin := newAcme(t)
	_, mockup := czbSetup(t, e, s.ID, admin)
	areas := czbAreaRes(mockup)
	a := idOf(t, areas.create(t, e, admin, map[string]any{"name": "Logo", "x": 100, "y": 200, "w": 300, "h": 400, "rotation_deg": 15}))
	edge := idOf(t, areas.create(t, e, admin, map[string]any{"name": "Edge", "x": 0.1, "y": 0.3, "w": 999.9, "h": 799.7}))

	same := czbPhoto(t, e, s.ID, 1000, 800)
	m, got, _ := czbMockupPut(t, e, admin, mockup, map[string]any{"image_src": same})
	if m["image_src"] != same || got[0]["x"] != float64(100) || got[0]["w"] != float64(300) {
		t.Fatalf("same size: %v %v", m, got)
	}

	half := czbPhoto(t, e, s.ID, 500, 1600)
	m, got, put := czbMockupPut(t, e, admin, mockup, map[string]any{"image_src": half})
	if m["image_width"] != float64(500) || m["image_height"] != float64(1600) {
		t.Fatalf("new photo %v", m)
	}
	if ids := rowIDs(got); !slices.Equal(ids, []int64{a, edge}) {
		t.Fatalf("print areas %v", ids)
	}
	want := map[string]any{"id": float64(a), "mockup_id": float64(mockup), "name": "Logo", "position": float64(0),
		"x": float64(50), "w": float64(150), "y": float64(400), "h": float64(800), "rotation_deg": float64(15)}
	if !reflect.DeepEqual(got[0], want) {
		t.Fatalf("rescaled %v\nwant %v", got[0], want)
	}
	// Rounding never puts an area past the photo's edge.
	e2 := got[1]
	if e2["x"].(float64)+e2["w"].(float64) > 500 || e2["y"].(float64)+e2["h"].(float64) > 1600 {
		t.Fatalf("edge area past the photo: %v", e2)
	}
	e.SameOnGraphQL(t, put, admin, "UpdateCzMockup", map[string]any{"id": mockup, "input": map[string]any{"image_src": half}})
	// ... so the stored areas stay writable.
	areas.put(t, e, admin, edge, map[string]any{"name": "Edge 2"})
	rows, _ := czbList(t, e, admin, areas.path, "print_areas", czbAreaView)
	if !reflect.DeepEqual(rows[0], want) {
		t.Fatalf("stored %v", rows[0])
	}
}

// TestCzMockupValidation: bad bodies are 400s naming the field, and
// nothing is written.
func TestCzMockupValidation(t *testing.T) {
	e, s, admin := newAcme(t)
	base, mockup := czbSetup(t, e, s.ID, admin)
	src := czbPhoto(t, e, s.ID, 10, 10)
	o := e.Store("Other")
	theirs := czbPhoto(t, e, o.ID, 10, 10)
	long := strings.Repeat("é", 256)
	create := map[string]any{
		"no name":           map[string]any{"image_src": src},
		"blank name":        map[string]any{"name": " ", "image_src": src},
		"long name":         map[string]any{"name": long, "image_src": src},
		"null name":         map[string]any{"name": nil, "image_src": src},
		"no photo":          map[string]any{"name": "x"},
		"empty photo":       map[string]any{"name": "x", "image_src": ""},
		"not an upload":     map[string]any{"name": "x", "image_src": "https://example.com/a.png"},
		"another's upload":  map[string]any{"name": "x", "image_src": theirs},
		"negative position": map[string]any{"name": "x", "image_src": src, "position": -1},
		"huge position":     map[string]any{"name": "x", "image_src": src, "position": models.MaxPosition + 1},
		"photo not text":    map[string]any{"name": "x", "image_src": 5},
		"unknown field":     map[string]any{"name": "x", "image_src": src, "width": 5},
		"malformed":         `{"name": `,
	}
	expectEach400(t, e, admin, "create mockup", http.MethodPost, czbMockupRes(base).path, create)
	if r := e.Do(http.MethodPost, czbMockupRes(base).path, admin, create["another's upload"]).Expect(t, 400); !strings.HasPrefix(r.Message(), "image_src must be") {
		t.Fatalf("another store's upload: %s", r.Raw)
	}
	czbExpectField(t, e, admin, "image_src", map[string]any{"id": base, "src": theirs},
		`mutation($id: Int!, $src: String!) { createCzMockup(id: $id, input: {name: "x", image_src: $src}) { id } }`)
	expectGraphQLCode(t, e, admin, "BAD_USER_INPUT", map[string]any{"id": base},
		`mutation($id: Int!) { createCzMockup(id: $id, input: {name: "x", image_src: "nope"}) { id } }`)
	update := map[string]any{
		"blank name":    map[string]any{"name": ""},
		"null photo":    map[string]any{"image_src": nil},
		"not an upload": map[string]any{"image_src": "/files/none.png"},
		"bad position":  map[string]any{"position": -1},
	}
	expectEach400(t, e, admin, "update mockup", http.MethodPut, czbMockupPath(mockup), update)
	rows, _ := czbList(t, e, admin, czbMockupRes(base).path, "mockups", czbMockupView)
	if len(rows) != 1 || rows[0]["name"] != "Front" || rows[0]["image_width"] != float64(1000) {
		t.Fatalf("a refused write was written: %v", rows)
	}
	expectEach400(t, e, admin, "create base", http.MethodPost, czbBases, map[string]any{
		"no name": map[string]any{}, "blank": map[string]any{"name": "  "}, "long": map[string]any{"name": long},
		"null": map[string]any{"name": nil}, "number": map[string]any{"name": 5},
	})
	expectEach400(t, e, admin, "update base", http.MethodPut, czbBasePath(base), map[string]any{
		"blank": map[string]any{"name": ""}, "null": map[string]any{"name": nil},
	})
}

// TestCzMockupPrintAreas: print areas are rectangles inside their photo,
// ordered, capped at 20 per mockup, checked whole on update.
func TestCzMockupPrintAreas(t *testing.T) {
	e, s, admin := newAcme(t)
	reader := e.Key(s.ID, auth.RoleStaff, "customizer:read")
	_, mockup := czbSetup(t, e, s.ID, admin) // 1000×800
	res := czbAreaRes(mockup)

	full := res.create(t, e, admin, map[string]any{"name": " Full ", "x": 0, "y": 0, "w": 1000, "h": 800, "rotation_deg": -359.5})
	want := map[string]any{"id": full["id"], "mockup_id": float64(mockup), "name": "Full", "position": float64(0),
		"x": float64(0), "y": float64(0), "w": float64(1000), "h": float64(800), "rotation_deg": -359.5}
	if !reflect.DeepEqual(full, want) {
		t.Fatalf("created %v\nwant %v", full, want)
	}
	fullID := idOf(t, full)
	small := res.create(t, e, admin, map[string]any{"name": "Small", "x": 10.5, "y": 20.25, "w": 5, "h": 5, "position": 0})
	smallID := idOf(t, small)
	if small["rotation_deg"] != float64(0) || small["position"] != float64(0) {
		t.Fatalf("small %v", small)
	}
	rows, list := czbList(t, e, reader, res.path, "print_areas", czbAreaView)
	if ids := rowIDs(rows); !slices.Equal(ids, []int64{smallID, fullID}) || rows[1]["position"] != float64(1) {
		t.Fatalf("list %v", rows)
	}
	e.SameOnGraphQL(t, list, reader, "ListCzPrintAreas", map[string]any{"id": mockup})

	// Updates merge and are checked whole: moving the full-width area right
	// is refused naming x; shrinking it first makes room.
	r := e.Do(http.MethodPut, czbAreaPath(fullID), admin, map[string]any{"x": 1}).Expect(t, 400)
	if !strings.HasPrefix(r.Message(), "x puts the print area past the photo's right edge") {
		t.Fatalf("past the edge: %s", r.Raw)
	}
	u, put := res.put(t, e, admin, fullID, map[string]any{"x": 1, "w": 999, "position": 0})
	if u["x"] != float64(1) || u["w"] != float64(999) || u["h"] != float64(800) || u["name"] != "Full" || u["position"] != float64(0) {
		t.Fatalf("updated %v", u)
	}
	e.SameOnGraphQL(t, put, admin, "UpdateCzPrintArea", map[string]any{"id": fullID, "input": map[string]any{"x": 1}})
	rows, _ = czbList(t, e, reader, res.path, "print_areas", czbAreaView)
	if ids := rowIDs(rows); !slices.Equal(ids, []int64{fullID, smallID}) {
		t.Fatalf("after the move %v", ids)
	}

	bad := map[string]any{
		"no name":           map[string]any{"x": 0, "y": 0, "w": 1, "h": 1},
		"no x":              map[string]any{"name": "a", "y": 0, "w": 1, "h": 1},
		"no h":              map[string]any{"name": "a", "x": 0, "y": 0, "w": 1},
		"negative x":        map[string]any{"name": "a", "x": -0.5, "y": 0, "w": 1, "h": 1},
		"negative y":        map[string]any{"name": "a", "x": 0, "y": -1, "w": 1, "h": 1},
		"zero width":        map[string]any{"name": "a", "x": 0, "y": 0, "w": 0, "h": 1},
		"negative height":   map[string]any{"name": "a", "x": 0, "y": 0, "w": 1, "h": -1},
		"past the right":    map[string]any{"name": "a", "x": 500, "y": 0, "w": 500.5, "h": 1},
		"past the bottom":   map[string]any{"name": "a", "x": 0, "y": 1, "w": 1, "h": 800},
		"rotation 360":      map[string]any{"name": "a", "x": 0, "y": 0, "w": 1, "h": 1, "rotation_deg": 360},
		"rotation -360":     map[string]any{"name": "a", "x": 0, "y": 0, "w": 1, "h": 1, "rotation_deg": -360},
		"huge x":            map[string]any{"name": "a", "x": 1e308, "y": 0, "w": 1, "h": 1},
		"x as text":         map[string]any{"name": "a", "x": "1", "y": 0, "w": 1, "h": 1},
		"null rotation":     map[string]any{"name": "a", "x": 0, "y": 0, "w": 1, "h": 1, "rotation_deg": nil},
		"negative position": map[string]any{"name": "a", "x": 0, "y": 0, "w": 1, "h": 1, "position": -1},
	}
	expectEach400(t, e, admin, "create print area", http.MethodPost, res.path, bad)
	expectEach400(t, e, admin, "update print area", http.MethodPut, czbAreaPath(smallID), map[string]any{
		"w to the edge": map[string]any{"w": 990}, "zero h": map[string]any{"h": 0}, "rotation": map[string]any{"rotation_deg": 400},
		"blank name": map[string]any{"name": " "}, "null x": map[string]any{"x": nil},
	})
	if r := e.Do(http.MethodPost, res.path, admin, bad["past the bottom"]).Expect(t, 400); !strings.HasPrefix(r.Message(), "h puts") {
		t.Fatalf("past the bottom: %s", r.Raw)
	}
	czbExpectField(t, e, admin, "rotation_deg", map[string]any{"id": smallID}, `mutation($id: Int!) { updateCzPrintArea(id: $id, input: {rotation_deg: 360}) { id } }`)
	expectGraphQLCode(t, e, admin, "BAD_USER_INPUT", map[string]any{"id": mockup},
		`mutation($id: Int!) { createCzPrintArea(id: $id, input: {name: "a", x: 0, y: 0, w: 2000, h: 1}) { id } }`)
	if rows, _ := czbList(t, e, reader, res.path, "print_areas", czbAreaView); len(rows) != 2 || rows[1]["name"] != "Small" || rows[1]["w"] != float64(5) || rows[1]["h"] != float64(5) {
		t.Fatalf("a refused write was written: %v", rows)
	}

	// Delete closes the gap; 20 per mockup, then 409.
	expectBareDelete(t, e, admin, czbAreaPath(fullID))
	rows, _ = czbList(t, e, reader, res.path, "print_areas", czbAreaView)
	if len(rows) != 1 || rows[0]["position"] != float64(0) {
		t.Fatalf("after delete %v", rows)
	}
	expectAuditRecord(t, e, admin, "action=deleteCzPrintArea&limit=1", "cz_print_area", fullID)
	for range 19 {
		res.create(t, e, admin, map[string]any{"name": "a", "x": 0, "y": 0, "w": 1, "h": 1})
	}
	if r := e.Do(http.MethodPost, res.path, admin, map[string]any{"name": "a", "x": 0, "y": 0, "w": 1, "h": 1}).Expect(t, 409); !strings.Contains(r.Message(), "at most 20 print areas") {
		t.Fatalf("cap message %q", r.Message())
	}
}

// TestCzBaseAccess: reads are customizer:read (any role), writes
// customizer:write and admin; no key is 401.
func TestCzBaseAccess(t *testing.T) {
	e, s, admin := newAcme(t)
	base, mockup := czbSetup(t, e, s.ID, admin)
	area := idOf(t, czbAreaRes(mockup).create(t, e, admin, map[string]any{"name": "a", "x": 0, "y": 0, "w": 1, "h": 1}))
	src := czbPhoto(t, e, s.ID, 10, 10)
	otherScope := e.Key(s.ID, auth.RoleAdmin, "products:read", "products:write")

	reads := []apitest.Call{
		{Method: http.MethodGet, Path: czbBases},
		{Method: http.MethodGet, Path: czbBasePath(base)},
		{Method: http.MethodGet, Path: czbMockupRes(base).path},
		{Method: http.MethodGet, Path: czbAreaRes(mockup).path},
	}
	writes := []apitest.Call{
		{Method: http.MethodPost, Path: czbBases, Body: map[string]any{"name": "x"}},
		{Method: http.MethodPut, Path: czbBasePath(base), Body: map[string]any{"name": "x"}},
		{Method: http.MethodPost, Path: czbMockupRes(base).path, Body: map[string]any{"name": "x", "image_src": src}},
		{Method: http.MethodPut, Path: czbMockupPath(mockup), Body: map[string]any{"name": "x"}},
		{Method: http.MethodPost, Path: czbAreaRes(mockup).path, Body: map[string]any{"name": "x", "x": 0, "y": 0, "w": 1, "h": 1}},
		{Method: http.MethodPut, Path: czbAreaPath(area), Body: map[string]any{"name": "x"}},
		{Method: http.MethodDelete, Path: czbAreaPath(area)},
		{Method: http.MethodDelete, Path: czbMockupPath(mockup)},
		{Method: http.MethodDelete, Path: czbBasePath(base)},
	}
	k := checkAccess(t, e, s.ID, "customizer", map[string]string{"other scope": otherScope}, reads, writes)
	expectGraphQLCode(t, e, k.staffWrite, "FORBIDDEN", nil, `mutation { createCzProductBase(input: {name: "x"}) { id } }`)
	expectGraphQLCode(t, e, otherScope, "FORBIDDEN", nil, `{ czProductBases { id } }`)
	if rows, _ := czbList(t, e, admin, czbBases, "product_bases", czbBaseView); len(rows) != 1 || rows[0]["name"] != "Mug" {
		t.Fatalf("a refused write was written: %v", rows)
	}
	for _, c := range writes {
		status := 200
		if c.Method == http.MethodPost {
			status = 201
		}
		e.Do(c.Method, c.Path, k.writer, c.Body).Expect(t, status)
	}
	e.Do(http.MethodGet, "/store/customizer/product-bases/abc", admin, nil).Expect(t, 400)
}

// TestCzBaseOtherStore: another store's bases, mockups and print areas
// are 404s at every level, on both surfaces, and never listed.
func TestCzBaseOtherStore(t *testing.T) {
	e := apitest.New(t)
	a, b := e.Store("Acme"), e.Store("Bolt")
	aKey, bKey := e.Key(a.ID, auth.RoleAdmin), e.Key(b.ID, auth.RoleAdmin)
	base, mockup := czbSetup(t, e, b.ID, bKey)
	area := idOf(t, czbAreaRes(mockup).create(t, e, bKey, map[string]any{"name": "a", "x": 0, "y": 0, "w": 1, "h": 1}))
	mine, _ := czbSetup(t, e, a.ID, aKey)
	src := czbPhoto(t, e, a.ID, 10, 10)

	e.ExpectEach(t, 404, map[string]string{"this store's key": aKey}, []apitest.Call{
		{Method: http.MethodGet, Path: czbBasePath(base)},
		{Method: http.MethodPut, Path: czbBasePath(base), Body: map[string]any{"name": "x"}},
		{Method: http.MethodDelete, Path: czbBasePath(base)},
		{Method: http.MethodGet, Path: czbMockupRes(base).path},
		{Method: http.MethodPost, Path: czbMockupRes(base).path, Body: map[string]any{"name": "x", "image_src": src}},
		{Method: http.MethodPut, Path: czbMockupPath(mockup), Body: map[string]any{"name": "x"}},
		{Method: http.MethodDelete, Path: czbMockupPath(mockup)},
		{Method: http.MethodGet, Path: czbAreaRes(mockup).path},
		{Method: http.MethodPost, Path: czbAreaRes(mockup).path, Body: map[string]any{"name": "x", "x": 0, "y": 0, "w": 1, "h": 1}},
		{Method: http.MethodPut, Path: czbAreaPath(area), Body: map[string]any{"name": "x"}},
		{Method: http.MethodDelete, Path: czbAreaPath(area)},
		{Method: http.MethodGet, Path: czbBasePath(987654)},
	})
	expectGraphQLCode(t, e, aKey, "NOT_FOUND", map[string]any{"id": mockup},
		`mutation($id: Int!) { updateCzMockup(id: $id, input: {name: "x"}) { mockup { id } } }`,
		`query($id: Int!) { czPrintAreas(id: $id) { id } }`)
	expectGraphQLCode(t, e, aKey, "NOT_FOUND", map[string]any{"id": area}, `mutation($id: Int!) { deleteCzPrintArea(id: $id) }`)
	if rows, _ := czbList(t, e, aKey, czbBases, "product_bases", czbBaseView); len(rows) != 1 || idOf(t, rows[0]) != mine {
		t.Fatalf("store A lists %v", rows)
	}
	rows, _ := czbList(t, e, bKey, czbAreaRes(mockup).path, "print_areas", czbAreaView)
	if len(rows) != 1 || rows[0]["name"] != "a" {
		t.Fatalf("store B's print areas changed: %v", rows)
	}
}

// TestCzMockupConcurrentWrites: mockups added and print areas moved at the
// same time still number their lists 0, 1, … without gaps or twins, and
// the cap holds (each writer holds the parent).
func TestCzMockupConcurrentWrites(t *testing.T) {
	e, s, admin := newAcme(t)
	base, mockup := czbSetup(t, e, s.ID, admin)
	src := czbPhoto(t, e, s.ID, 10, 10)
	areas := czbAreaRes(mockup)
	var areaIDs []int64
	for range 5 {
		areaIDs = append(areaIDs, idOf(t, areas.create(t, e, admin, map[string]any{"name": "a", "x": 0, "y": 0, "w": 1, "h": 1})))
	}
	statuses := make(chan int, 30)
	var wg sync.WaitGroup
	for i := range 25 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			statuses <- e.Do(http.MethodPost, czbMockupRes(base).path, admin, map[string]any{"name": "m", "image_src": src, "position": i % 3}).Status
		}()
	}
	for i, id := range areaIDs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			statuses <- e.Do(http.MethodPut, czbAreaPath(id), admin, map[string]any{"position": 4 - i}).Status
		}()
	}
	wg.Wait()
	close(statuses)
	counts := map[int]int{}
	for st := range statuses {
		counts[st]++
	}
	if counts[201] != 19 || counts[409] != 6 || counts[200] != 5 {
		t.Fatalf("statuses %v: want 19 created, 6 past the cap, 5 moved", counts)
	}
	for _, res := range []crudResource{czbMockupRes(base), areas} {
		rows, _ := czbList(t, e, admin, res.path, res.many, res.view)
		for i, r := range rows {
			if r["position"] != float64(i) {
				t.Fatalf("%s: row %d at position %v", res.path, i, r["position"])
			}
		}
	}
}

// TestCzPrintAreaMinimumSize: a print area thinner than a pixel is a 400
// naming the field, and a smaller photo never rescales one below a pixel
// (the table refuses 0: it was a 500) nor past the photo's edge.
func TestCzPrintAreaMinimumSize(t *testing.T) {
	e, s, admin := newAcme(t)
	_, mockup := czbSetup(t, e, s.ID, admin)
	areas := czbAreaRes(mockup)
	for field, body := range map[string]map[string]any{
		"w": {"name": "a", "x": 0, "y": 0, "w": 1e-13, "h": 10},
		"h": {"name": "a", "x": 0, "y": 0, "w": 10, "h": 0.5},
	} {
		if r := e.Do(http.MethodPost, areas.path, admin, body).Expect(t, 400); !strings.HasPrefix(r.Message(), field+" must be at least 1 pixel") {
			t.Fatalf("%s: %s", field, r.Raw)
		}
	}
	areas.create(t, e, admin, map[string]any{"name": "edge", "x": 999, "y": 799, "w": 1, "h": 1})
	_, got, _ := czbMockupPut(t, e, admin, mockup, map[string]any{"image_src": czbPhoto(t, e, s.ID, 2, 1)})
	if a := got[0]; a["w"] != float64(1) || a["h"] != float64(1) || a["x"].(float64)+1 > 2 || a["y"] != float64(0) {
		t.Fatalf("rescaled area %v: want 1×1 inside a 2×1 photo", a)
	}
}
