package apitest_test

import (
	"context"
	"net/http"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"storeadmin/internal/app/apitest"
	"storeadmin/internal/auth"
	"storeadmin/models"
)

// The fields of the spec's CzLibraryView, CzLibraryItemView and
// CzLibraryCatalogueView, exactly.
var (
	czlLibraryKeys   = []string{"group_key", "id", "kind", "name", "scope_value"}
	czlItemKeys      = []string{"id", "library_id", "position", "value"}
	czlCatalogueKeys = []string{"finishes", "group_key", "holes", "items"}
)

const czlLibrariesPath = "/store/customizer/libraries"

func czlLibraryPath(id int64) string { return czlLibrariesPath + "/" + strconv.FormatInt(id, 10) }
func czlItemsPath(id int64) string   { return czlLibraryPath(id) + "/items" }
func czlItemPath(id int64) string {
	return "/store/customizer/library-items/" + strconv.FormatInt(id, 10)
}

// czlLibrary checks v against CzLibraryView and returns it.
func czlLibrary(t *testing.T, v any) map[string]any {
	t.Helper()
	m := objectWithKeys(t, "library", v, czlLibraryKeys)
	wholeNumber(t, m["id"])
	for _, k := range []string{"group_key", "kind", "name", "scope_value"} {
		stringField(t, m, k)
	}
	return m
}

// czlItem checks v against CzLibraryItemView and returns it.
func czlItem(t *testing.T, v any) map[string]any {
	t.Helper()
	m := objectWithKeys(t, "library item", v, czlItemKeys)
	for _, k := range []string{"id", "library_id", "position"} {
		wholeNumber(t, m[k])
	}
	if _, ok := m["value"].(map[string]any); !ok {
		t.Fatalf("item value %#v is not an object", m["value"])
	}
	return m
}

// czlLibraries is the REST resource of libraries (no GET of one: the
// spec has none).
var czlLibraries = crudResource{path: czlLibrariesPath, item: czlLibraryPath, one: "library", many: "libraries", view: czlLibrary}

// czlNewLibrary creates a library over REST and returns its id.
func czlNewLibrary(t *testing.T, e *apitest.Env, key, kind, group, scope string) int64 {
	t.Helper()
	return idOf(t, czlLibraries.create(t, e, key, map[string]any{"name": kind + " " + group, "kind": kind, "group_key": group, "scope_value": scope}))
}

// czlAdd appends an item of value to a library over REST and returns it.
func czlAdd(t *testing.T, e *apitest.Env, key string, libraryID int64, value map[string]any) map[string]any {
	t.Helper()
	r := e.Do(http.MethodPost, czlItemsPath(libraryID), key, map[string]any{"value": value}).Expect(t, 201)
	expectPayload(t, r, "item")
	return czlItem(t, r.Body["item"])
}

// czlPlace puts an item at a position over REST and returns it.
func czlPlace(t *testing.T, e *apitest.Env, key string, libraryID int64, body map[string]any) (map[string]any, *apitest.Response) {
	t.Helper()
	r := e.Do(http.MethodPut, czlItemsPath(libraryID), key, body).Expect(t, 200)
	expectPayload(t, r, "item")
	return czlItem(t, r.Body["item"]), r
}

// czlItems reads a library's items over REST: exactly {status, items}.
func czlItems(t *testing.T, e *apitest.Env, key string, libraryID int64) ([]map[string]any, *apitest.Response) {
	t.Helper()
	r := e.Do(http.MethodGet, czlItemsPath(libraryID), key, nil).Expect(t, 200)
	expectPayload(t, r, "items")
	var out []map[string]any
	for _, v := range r.List("items") {
		out = append(out, czlItem(t, v))
	}
	return out, r
}

// czlExpectOrder fails unless the library's items are ids, at positions
// 0..n-1.
func czlExpectOrder(t *testing.T, e *apitest.Env, key string, libraryID int64, ids ...int64) {
	t.Helper()
	items, _ := czlItems(t, e, key, libraryID)
	got := rowIDs(items)
	for i, it := range items {
		if it["position"] != float64(i) {
			t.Fatalf("positions are not 0..n-1: %v", items)
		}
	}
	if !reflect.DeepEqual(got, ids) {
		t.Fatalf("items %v, want %v", got, ids)
	}
}

// TestCzLibraries: the life of libraries over REST, with the same answers
// on GraphQL: a rename keeps kind, group and scope.
func TestCzLibraries(t *testing.T) {
	e, s, admin := newAcme(t)
	reader := e.Key(s.ID, auth.RoleStaff, "customizer:read")

	flowers := czlLibraries.create(t, e, admin, map[string]any{"name": " Flowers ", "kind": "artwork", "group_key": "flowers"})
	fid := idOf(t, flowers)
	if want := map[string]any{"id": float64(fid), "name": "Flowers", "kind": "artwork", "group_key": "flowers", "scope_value": ""}; !reflect.DeepEqual(flowers, want) {
		t.Fatalf("created %v, want %v", flowers, want)
	}
	gold := czlNewLibrary(t, e, admin, "finish", "flowers", "Gold")
	holes := czlNewLibrary(t, e, admin, "hole", "charms", "")

	r := e.Do(http.MethodGet, czlLibrariesPath, reader, nil).Expect(t, 200)
	expectPayload(t, r, "libraries")
	if ids := rowIDs(objectsOf(r.Body["libraries"])); !reflect.DeepEqual(ids, []int64{holes, fid, gold}) {
		t.Fatalf("listed %v: by group_key, scope_value, id", ids)
	}
	e.SameOnGraphQL(t, r, reader, "ListCzLibraries", map[string]any{})
	r = e.Do(http.MethodGet, czlLibrariesPath+"?limit=1&offset=2", reader, nil).Expect(t, 200)
	if ids := rowIDs(objectsOf(r.Body["libraries"])); !reflect.DeepEqual(ids, []int64{gold}) {
		t.Fatalf("page 3 of 1: %v", ids)
	}

	// A rename; the library read can be sent back, and kind, group and
	// scope stay what they are.
	renamed, r := czlLibraries.put(t, e, admin, fid, map[string]any{"name": "Spring flowers", "kind": "artwork", "group_key": "flowers", "scope_value": ""})
	if renamed["name"] != "Spring flowers" || renamed["kind"] != "artwork" {
		t.Fatalf("renamed %v", renamed)
	}
	e.SameOnGraphQL(t, r, admin, "UpdateCzLibrary", map[string]any{"id": fid, "input": map[string]any{"name": "Spring flowers"}})
	expectFieldErrors(t, e, admin, http.MethodPut, czlLibraryPath(fid), map[string]fieldError{
		"kind":        {map[string]any{"kind": "finish"}, "kind"},
		"group":       {map[string]any{"group_key": "roses"}, "group_key"},
		"scope":       {map[string]any{"scope_value": "Red"}, "scope_value"},
		"blank name":  {map[string]any{"name": " "}, "name"},
		"unknown key": {map[string]any{"colour": "red"}, "colour"},
	})

	// Deleting a library takes its items along.
	item := czlAdd(t, e, admin, holes, map[string]any{"x": 5, "y": 5, "diameter": 3})
	expectBareDelete(t, e, admin, czlLibraryPath(holes))
	e.Do(http.MethodDelete, czlItemPath(idOf(t, item)), admin, nil).Expect(t, 404)
	e.Do(http.MethodGet, czlItemsPath(holes), admin, nil).Expect(t, 404)
	e.Do(http.MethodDelete, czlLibraryPath(holes), admin, nil).Expect(t, 404)
	e.Do(http.MethodPut, czlLibraryPath(holes), admin, map[string]any{"name": "x"}).Expect(t, 404)
}

// TestCzLibraryValidation: each bad value of a library is a 400 naming it.
func TestCzLibraryValidation(t *testing.T) {
	e, _, admin := newAcme(t)
	body := func(change map[string]any) map[string]any {
		return withChanges(map[string]any{"name": "Flowers", "kind": "artwork", "group_key": "flowers"}, change)
	}
	expectFieldErrors(t, e, admin, http.MethodPost, czlLibrariesPath, map[string]fieldError{
		"no name":      {body(map[string]any{"name": nil}), "name"},
		"long name":    {body(map[string]any{"name": strings.Repeat("n", 256)}), "name"},
		"no kind":      {body(map[string]any{"kind": nil}), "kind"},
		"bad kind":     {body(map[string]any{"kind": "sticker"}), "kind"},
		"no group":     {body(map[string]any{"group_key": nil}), "group_key"},
		"bad group":    {body(map[string]any{"group_key": "Flowers"}), "group_key"},
		"long scope":   {body(map[string]any{"scope_value": strings.Repeat("s", 256)}), "scope_value"},
		"scope tab":    {body(map[string]any{"scope_value": "a\tb"}), "scope_value"},
		"unknown":      {body(map[string]any{"items": []any{}}), "items"},
		"kind integer": {body(map[string]any{"kind": 1}), "kind"},
	})
	if r := e.Do(http.MethodGet, czlLibrariesPath, admin, nil).Expect(t, 200); len(r.List("libraries")) != 0 {
		t.Fatalf("refusals wrote: %s", r.Raw)
	}
}

// TestCzLibraryItems: items of each kind, their values as stored (an
// artwork's size from its upload), appended, put at a position, moved and
// deleted with positions 0..n-1 throughout; REST = GraphQL.
func TestCzLibraryItems(t *testing.T) {
	e, s, admin := newAcme(t)
	rose := insertStoreUpload(t, e, s.ID, "rose.png", 400, 300)
	tulip := insertStoreUpload(t, e, s.ID, "tulip.png", 120, 80)
	brushed := insertStoreUpload(t, e, s.ID, "brushed.png", 64, 64)
	art := czlNewLibrary(t, e, admin, "artwork", "flowers", "")

	a := czlAdd(t, e, admin, art, map[string]any{"src": rose, "name": " Rose "})
	if want := map[string]any{"src": rose, "name": "Rose", "width": float64(400), "height": float64(300)}; !reflect.DeepEqual(a["value"], want) ||
		a["position"] != float64(0) || a["library_id"] != float64(art) {
		t.Fatalf("artwork item %v", a)
	}
	// A size sent is the upload's all the same.
	b := czlAdd(t, e, admin, art, map[string]any{"src": tulip, "width": 1, "height": 1})
	if want := map[string]any{"src": tulip, "width": float64(120), "height": float64(80)}; !reflect.DeepEqual(b["value"], want) || b["position"] != float64(1) {
		t.Fatalf("artwork item %v", b)
	}
	c := czlAdd(t, e, admin, art, map[string]any{"src": rose})
	aID, bID, cID := idOf(t, a), idOf(t, b), idOf(t, c)

	// A new item at a position; beyond the end is last; a move.
	d, _ := czlPlace(t, e, admin, art, map[string]any{"value": map[string]any{"src": tulip}, "position": 1})
	dID := idOf(t, d)
	if d["position"] != float64(1) {
		t.Fatalf("placed %v", d)
	}
	czlExpectOrder(t, e, admin, art, aID, dID, bID, cID)
	moved, _ := czlPlace(t, e, admin, art, map[string]any{"item_id": aID, "position": 99})
	if moved["position"] != float64(3) || !reflect.DeepEqual(moved["value"], a["value"]) {
		t.Fatalf("moved past the end: %v", moved)
	}
	czlExpectOrder(t, e, admin, art, dID, bID, cID, aID)
	czlPlace(t, e, admin, art, map[string]any{"item_id": cID, "position": 0})
	czlExpectOrder(t, e, admin, art, cID, dID, bID, aID)
	r := e.Do(http.MethodPut, czlItemsPath(art), admin, map[string]any{"item_id": bID, "position": 1}).Expect(t, 200)
	e.SameOnGraphQL(t, r, admin, "PlaceCzLibraryItem", map[string]any{"id": art, "input": map[string]any{"item_id": bID, "position": 1}})
	czlExpectOrder(t, e, admin, art, cID, bID, dID, aID)
	expectAuditRecord(t, e, admin, "action=placeCzLibraryItem&limit=1", "cz_library_item", bID)

	// Deleting closes the gap.
	expectBareDelete(t, e, admin, czlItemPath(bID))
	czlExpectOrder(t, e, admin, art, cID, dID, aID)
	e.Do(http.MethodDelete, czlItemPath(bID), admin, nil).Expect(t, 404)
	_, r = czlItems(t, e, admin, art)
	e.SameOnGraphQL(t, r, admin, "ListCzLibraryItems", map[string]any{"id": art})

	// Finishes and holes.
	fin := czlNewLibrary(t, e, admin, "finish", "flowers", "Gold")
	if v := czlAdd(t, e, admin, fin, map[string]any{"name": "Gold", "hex": "#D4AF37"})["value"]; !reflect.DeepEqual(v, map[string]any{"name": "Gold", "hex": "#d4af37"}) {
		t.Fatalf("finish %v", v)
	}
	if v := czlAdd(t, e, admin, fin, map[string]any{"name": "Brushed", "src": brushed})["value"]; !reflect.DeepEqual(v, map[string]any{"name": "Brushed", "src": brushed}) {
		t.Fatalf("finish %v", v)
	}
	if v := czlAdd(t, e, admin, fin, map[string]any{"name": "Matte"})["value"]; !reflect.DeepEqual(v, map[string]any{"name": "Matte"}) {
		t.Fatalf("finish %v", v)
	}
	hole := czlNewLibrary(t, e, admin, "hole", "charms", "")
	if v := czlAdd(t, e, admin, hole, map[string]any{"x": 12.5, "y": 0, "diameter": 4})["value"]; !reflect.DeepEqual(v, map[string]any{"x": 12.5, "y": float64(0), "diameter": float64(4)}) {
		t.Fatalf("hole %v", v)
	}
}

// TestCzLibraryItemValidation: each bad item is a 400 naming its field
// (value.src), and nothing is written; another library's item is not
// found in this one.
func TestCzLibraryItemValidation(t *testing.T) {
	e, s, admin := newAcme(t)
	ours := insertStoreUpload(t, e, s.ID, "ours.png", 10, 10)
	theirs := insertStoreUpload(t, e, e.Store("Bolt").ID, "theirs.png", 10, 10)
	art := czlNewLibrary(t, e, admin, "artwork", "flowers", "")
	fin := czlNewLibrary(t, e, admin, "finish", "flowers", "")
	hole := czlNewLibrary(t, e, admin, "hole", "charms", "")
	value := func(v any) map[string]any { return map[string]any{"value": v} }
	for path, cases := range map[string]map[string]fieldError{
		czlItemsPath(art): {
			"no src":         {value(map[string]any{"name": "x"}), "value.src"},
			"foreign upload": {value(map[string]any{"src": theirs}), "value.src"},
			"unknown src":    {value(map[string]any{"src": "https://elsewhere.example/a.png"}), "value.src"},
			"unknown key":    {value(map[string]any{"src": ours, "alt": "x"}), "value.alt"},
			"long name":      {value(map[string]any{"src": ours, "name": strings.Repeat("n", 256)}), "value.name"},
			"not an object":  {value("rose"), "value"},
			"null":           {value(nil), "value"},
			"no value":       {map[string]any{}, "value"},
		},
		czlItemsPath(fin): {
			"no name":       {value(map[string]any{"hex": "#ffffff"}), "value.name"},
			"blank name":    {value(map[string]any{"name": " "}), "value.name"},
			"bad hex":       {value(map[string]any{"name": "Gold", "hex": "gold"}), "value.hex"},
			"hex and image": {value(map[string]any{"name": "Gold", "hex": "#ffffff", "src": ours}), "value.src"},
			"foreign image": {value(map[string]any{"name": "Gold", "src": theirs}), "value.src"},
		},
		czlItemsPath(hole): {
			"no x":            {value(map[string]any{"y": 1, "diameter": 1}), "value.x"},
			"negative y":      {value(map[string]any{"x": 1, "y": -1, "diameter": 1}), "value.y"},
			"far x":           {value(map[string]any{"x": 10001, "y": 1, "diameter": 1}), "value.x"},
			"zero diameter":   {value(map[string]any{"x": 1, "y": 1, "diameter": 0}), "value.diameter"},
			"huge diameter":   {value(map[string]any{"x": 1, "y": 1, "diameter": 1001}), "value.diameter"},
			"text diameter":   {value(map[string]any{"x": 1, "y": 1, "diameter": "3"}), "value.diameter"},
			"artwork in hole": {value(map[string]any{"src": ours}), "value.src"},
		},
	} {
		expectFieldErrors(t, e, admin, http.MethodPost, path, cases)
	}
	item := idOf(t, czlAdd(t, e, admin, art, map[string]any{"src": ours}))
	expectFieldErrors(t, e, admin, http.MethodPut, czlItemsPath(art), map[string]fieldError{
		"both":          {map[string]any{"item_id": item, "value": map[string]any{"src": ours}, "position": 0}, "value"},
		"neither":       {map[string]any{"position": 0}, "item_id"},
		"negative":      {map[string]any{"item_id": item, "position": -1}, "position"},
		"no position":   {map[string]any{"item_id": item}, "position"},
		"bad new value": {map[string]any{"value": map[string]any{"src": theirs}, "position": 0}, "value.src"},
		"huge position": {map[string]any{"item_id": item, "position": 1 << 40}, "position"},
		"fraction":      {map[string]any{"item_id": item, "position": 0.5}, "position"},
	})
	for _, lib := range []int64{art, fin, hole} {
		if items, _ := czlItems(t, e, admin, lib); len(items) != map[int64]int{art: 1}[lib] {
			t.Fatalf("refusals wrote items: %v", items)
		}
	}
	// An item of another library is not found in this one.
	r := e.Do(http.MethodPut, czlItemsPath(fin), admin, map[string]any{"item_id": item, "position": 0}).Expect(t, 404)
	if !strings.Contains(r.Message(), "not found in this library") {
		t.Fatalf("another library's item: %s", r.Raw)
	}
}

// TestCzLibraryItemCap: a library holds at most 1000 items; appending or
// inserting one more is a 409 naming the cap, moving one is not.
func TestCzLibraryItemCap(t *testing.T) {
	e, s, admin := newAcme(t)
	lib := czlNewLibrary(t, e, admin, "hole", "charms", "")
	rows := make([]models.CzLibraryItem, 1000)
	for i := range rows {
		rows[i] = models.CzLibraryItem{StoreID: s.ID, LibraryID: lib, Position: int64(i), Value: map[string]any{"x": i, "y": 0, "diameter": 1}}
	}
	if _, err := e.DB.NewInsert().Model(&rows).Exec(context.Background()); err != nil {
		t.Fatal(err)
	}
	hole := map[string]any{"x": 1, "y": 1, "diameter": 1}
	for _, r := range []*apitest.Response{
		e.Do(http.MethodPost, czlItemsPath(lib), admin, map[string]any{"value": hole}),
		e.Do(http.MethodPut, czlItemsPath(lib), admin, map[string]any{"value": hole, "position": 0}),
	} {
		if r.Expect(t, 409); !strings.Contains(r.Message(), "1000") {
			t.Fatalf("over the cap: %s", r.Raw)
		}
	}
	if moved, _ := czlPlace(t, e, admin, lib, map[string]any{"item_id": rows[999].ID, "position": 0}); moved["position"] != float64(0) {
		t.Fatalf("a move at the cap: %v", moved)
	}
	items, _ := czlItems(t, e, admin, lib)
	if len(items) != 1000 || idOf(t, items[0]) != rows[999].ID || idOf(t, items[1]) != rows[0].ID || items[999]["position"] != float64(999) {
		t.Fatalf("after the move: %d items, first %v", len(items), items[:2])
	}
}

// TestCzLibraryCatalogues: one row per group_key with each kind's items in
// all its libraries, whatever their scope; another store's are not
// counted.
func TestCzLibraryCatalogues(t *testing.T) {
	e, s, admin := newAcme(t)
	rose := insertStoreUpload(t, e, s.ID, "rose.png", 10, 10)
	spring := czlNewLibrary(t, e, admin, "artwork", "flowers", "")
	red := czlNewLibrary(t, e, admin, "artwork", "flowers", "Red")
	finishes := czlNewLibrary(t, e, admin, "finish", "flowers", "")
	holes := czlNewLibrary(t, e, admin, "hole", "flowers", "Red")
	czlNewLibrary(t, e, admin, "artwork", "animals", "")
	for _, lib := range []int64{spring, spring, red} {
		czlAdd(t, e, admin, lib, map[string]any{"src": rose})
	}
	czlAdd(t, e, admin, finishes, map[string]any{"name": "Gold"})
	for range 2 {
		czlAdd(t, e, admin, holes, map[string]any{"x": 1, "y": 1, "diameter": 1})
	}
	bolt := e.Store("Bolt")
	boltKey := e.Key(bolt.ID, auth.RoleAdmin)
	czlAdd(t, e, boltKey, czlNewLibrary(t, e, boltKey, "hole", "flowers", ""), map[string]any{"x": 1, "y": 1, "diameter": 1})

	r := e.Do(http.MethodGet, "/store/customizer/library-catalogues", admin, nil).Expect(t, 200)
	expectPayload(t, r, "catalogues")
	var got []map[string]any
	for _, v := range r.List("catalogues") {
		got = append(got, objectWithKeys(t, "catalogue", v, czlCatalogueKeys))
	}
	want := []map[string]any{
		{"group_key": "animals", "items": float64(0), "finishes": float64(0), "holes": float64(0)},
		{"group_key": "flowers", "items": float64(3), "finishes": float64(1), "holes": float64(2)},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("catalogues %v, want %v", got, want)
	}
	e.SameOnGraphQL(t, r, admin, "ListCzLibraryCatalogues", map[string]any{})
	r = e.Do(http.MethodGet, "/store/customizer/library-catalogues?offset=1", admin, nil).Expect(t, 200)
	if l := objectsOf(r.Body["catalogues"]); len(l) != 1 || l[0]["group_key"] != "flowers" {
		t.Fatalf("page from 1: %s", r.Raw)
	}
}

// TestCzLibraryAccess: the access matrix of every library call, and
// another store's libraries and items are not found.
func TestCzLibraryAccess(t *testing.T) {
	e, s, admin := newAcme(t)
	lib := czlNewLibrary(t, e, admin, "hole", "charms", "")
	item := idOf(t, czlAdd(t, e, admin, lib, map[string]any{"x": 1, "y": 1, "diameter": 1}))
	hole := map[string]any{"x": 2, "y": 2, "diameter": 2}
	reads := []apitest.Call{
		{Method: http.MethodGet, Path: czlLibrariesPath},
		{Method: http.MethodGet, Path: "/store/customizer/library-catalogues"},
		{Method: http.MethodGet, Path: czlItemsPath(lib)},
	}
	writes := []apitest.Call{
		{Method: http.MethodPost, Path: czlLibrariesPath, Body: map[string]any{"name": "X", "kind": "hole", "group_key": "x"}},
		{Method: http.MethodPut, Path: czlLibraryPath(lib), Body: map[string]any{"name": "Y"}},
		{Method: http.MethodPost, Path: czlItemsPath(lib), Body: map[string]any{"value": hole}},
		{Method: http.MethodPut, Path: czlItemsPath(lib), Body: map[string]any{"item_id": item, "position": 0}},
		{Method: http.MethodDelete, Path: czlItemPath(item)},
		{Method: http.MethodDelete, Path: czlLibraryPath(lib)},
	}
	checkAccess(t, e, s.ID, "customizer", map[string]string{"other scope": e.Key(s.ID, auth.RoleAdmin, "themes:write")}, reads, writes)

	other := e.Store("Bolt")
	bolt := e.Key(other.ID, auth.RoleAdmin)
	e.ExpectEach(t, 404, map[string]string{"another store": bolt}, append(reads[2:], writes[1:]...))
	for _, q := range []string{
		`query($id: Int!) { czLibraryItems(library_id: $id) { id } }`,
		`mutation($id: Int!) { updateCzLibrary(id: $id, input: {name: "Mine"}) { id } }`,
		`mutation($id: Int!) { createCzLibraryItem(library_id: $id, input: {value: {x: 1, y: 1, diameter: 1}}) { id } }`,
		`mutation($id: Int!) { deleteCzLibrary(id: $id) }`,
	} {
		expectGraphQLNotFound(t, e, bolt, q, map[string]any{"id": lib})
	}
	expectGraphQLNotFound(t, e, bolt, `mutation($id: Int!) { deleteCzLibraryItem(id: $id) }`, map[string]any{"id": item})
	// Bolt's own library cannot take Acme's item.
	boltLib := czlNewLibrary(t, e, bolt, "hole", "charms", "")
	e.Do(http.MethodPut, czlItemsPath(boltLib), bolt, map[string]any{"item_id": item, "position": 0}).Expect(t, 404)
	for _, r := range []*apitest.Response{
		e.Do(http.MethodGet, czlLibrariesPath, bolt, nil).Expect(t, 200),
		e.Do(http.MethodGet, "/store/customizer/library-catalogues", bolt, nil),
	} {
		if strings.Contains(string(r.Raw), `"id":`+strconv.FormatInt(lib, 10)+`,`) {
			t.Fatalf("another store's library listed: %s", r.Raw)
		}
	}
	czlExpectOrder(t, e, admin, lib, item)
}
