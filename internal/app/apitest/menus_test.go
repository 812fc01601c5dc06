package apitest_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"reflect"
	"slices"
	"strings"
	"testing"

	"storeadmin/internal/app/apitest"
	"storeadmin/internal/auth"
)

// mnItem is a menu item as a client sends it.
func mnItem(title, typ string, link any, children ...map[string]any) map[string]any {
	m := map[string]any{"title": title, "type": typ}
	switch l := link.(type) {
	case string:
		m["url"] = l
	case int64:
		m["resource_id"] = l
	}
	if children != nil {
		m["items"] = children
	}
	return m
}

// mnView is a menu item as the API reads it.
func mnView(title, typ string, url, resourceID, handle any, broken bool, children ...any) map[string]any {
	if children == nil {
		children = []any{}
	}
	return map[string]any{"title": title, "type": typ, "url": url, "resource_id": resourceID, "handle": handle,
		"broken": broken, "items": children}
}

// mnGet reads a menu over REST and checks the view: exactly {handle,
// items, title}.
func mnGet(t *testing.T, e *apitest.Env, key, handle string) (map[string]any, *apitest.Response) {
	t.Helper()
	r := e.Do(http.MethodGet, "/store/menus/"+handle, key, nil).Expect(t, 200)
	expectPayload(t, r, "menu")
	return checkObject(t, "menu", r.Body["menu"], map[string]string{"handle": "s", "items": "list", "title": "s"}), r
}

// mnPut puts a menu over REST and returns its view.
func mnPut(t *testing.T, e *apitest.Env, key, handle string, body any) map[string]any {
	t.Helper()
	r := e.Do(http.MethodPut, "/store/menus/"+handle, key, body).Expect(t, 200)
	expectPayload(t, r, "menu")
	return checkObject(t, "menu", r.Body["menu"], map[string]string{"handle": "s", "items": "list", "title": "s"})
}

// mnList reads the menus over REST: MenuRefView rows and total.
func mnList(t *testing.T, e *apitest.Env, key, query string) ([]map[string]any, int64, *apitest.Response) {
	t.Helper()
	r := e.Do(http.MethodGet, "/store/menus?"+query, key, nil).Expect(t, 200)
	expectPayload(t, r, "menus", "total")
	return checkObjects(t, "menus", r.Body["menus"], map[string]string{"handle": "s", "title": "s"}), wholeNumber(t, r.Body["total"]), r
}

// mnSame fails unless got and want are the same JSON.
func mnSame(t *testing.T, what string, got, want any) {
	t.Helper()
	g, _ := json.Marshal(got)
	w, _ := json.Marshal(want)
	if string(g) != string(w) {
		t.Fatalf("%s:\n got %s\nwant %s", what, g, w)
	}
}

// TestMenus: every store has main-menu and footer; a menu's items are a
// tree of links that read with their records' current handles and paths,
// flagged broken when their record is gone.
func TestMenus(t *testing.T) {
	e, s, admin := newAcme(t)

	// The default menus come with the store.
	rows, total, list := mnList(t, e, admin, "")
	if total != 2 || !reflect.DeepEqual(rows, []map[string]any{{"handle": "main-menu", "title": "Main menu"}, {"handle": "footer", "title": "Footer menu"}}) {
		t.Fatalf("default menus %v (total %d)", rows, total)
	}
	e.SameOnGraphQL(t, list, admin, "ListMenus", nil)
	if m, _ := mnGet(t, e, admin, "footer"); len(m["items"].([]any)) != 0 || m["title"] != "Footer menu" {
		t.Fatalf("footer %v", m)
	}

	product := createSimpleProduct(t, e, admin, "Socks", 900, nil)
	collection := insertCollection(t, e, s.ID, "winter")
	page := idOf(t, ctPages.create(t, e, admin, map[string]any{"title": "Sock care"}))
	article := idOf(t, ctArticles.create(t, e, admin, map[string]any{"title": "Knitting", "handle": "knitting"}))
	items := []map[string]any{
		mnItem("Shop", "collection", collection,
			mnItem("Socks", "product", product, mnItem("Care", "page", page)),
			mnItem("Everything", "url", "/collections/all")),
		mnItem("Journal", "blog", nil, mnItem("Knitting", "article", article)),
		mnItem("Help", "url", "https://help.example.com/faq?x=1"),
	}
	m := mnPut(t, e, admin, "main-menu", map[string]any{"title": "Header", "items": items})
	want := []any{
		mnView("Shop", "collection", "/collections/winter", float64(collection), "winter", false,
			mnView("Socks", "product", "/products/socks", float64(product), "socks", false,
				mnView("Care", "page", "/pages/sock-care", float64(page), "sock-care", false)),
			mnView("Everything", "url", "/collections/all", nil, nil, false)),
		mnView("Journal", "blog", "/blog", nil, nil, false,
			mnView("Knitting", "article", "/blog/knitting", float64(article), "knitting", false)),
		mnView("Help", "url", "https://help.example.com/faq?x=1", nil, nil, false),
	}
	if m["title"] != "Header" || m["handle"] != "main-menu" {
		t.Fatalf("put %v", m)
	}
	mnSame(t, "items", m["items"], want)
	got, get := mnGet(t, e, admin, "main-menu")
	mnSame(t, "read", got, m)
	e.SameOnGraphQL(t, get, admin, "GetMenu", map[string]any{"handle": "main-menu"})
	expectAuditRecord(t, e, admin, "action=putMenu&limit=1", "menu", keyMenuID(t, e, s.ID, "main-menu"))

	// References follow their records: a new handle reads at once.
	putProduct(t, e, admin, product, map[string]any{"handle": "wool-socks"})
	ctPages.put(t, e, admin, page, map[string]any{"handle": "care"})
	got, _ = mnGet(t, e, admin, "main-menu")
	socks := got["items"].([]any)[0].(map[string]any)["items"].([]any)[0].(map[string]any)
	if socks["url"] != "/products/wool-socks" || socks["handle"] != "wool-socks" ||
		socks["items"].([]any)[0].(map[string]any)["url"] != "/pages/care" {
		t.Fatalf("after renames: %v", socks)
	}
	// A deleted record's item stays, flagged.
	e.Do(http.MethodDelete, ctPagePath(page), admin, nil).Expect(t, 200)
	e.Do(http.MethodDelete, ctArticlePath(article), admin, nil).Expect(t, 200)
	got, get = mnGet(t, e, admin, "main-menu")
	gi := got["items"].([]any)
	mnSame(t, "broken page", gi[0].(map[string]any)["items"].([]any)[0].(map[string]any)["items"],
		[]any{mnView("Care", "page", nil, float64(page), nil, true)})
	mnSame(t, "broken article", gi[1].(map[string]any)["items"], []any{mnView("Knitting", "article", nil, float64(article), nil, true)})
	e.SameOnGraphQL(t, get, admin, "GetMenu", map[string]any{"handle": "main-menu"})

	// A title alone keeps the items (broken ones too); items alone keep
	// the title.
	if m = mnPut(t, e, admin, "main-menu", map[string]any{"title": "Main menu"}); !reflect.DeepEqual(m["items"], got["items"]) {
		t.Fatalf("title only: %v", m)
	}
	if m = mnPut(t, e, admin, "main-menu", map[string]any{"items": []any{}}); m["title"] != "Main menu" || len(m["items"].([]any)) != 0 {
		t.Fatalf("emptied: %v", m)
	}
	// A read menu can be sent back: its handle is dropped (the path names
	// the menu).
	mnPut(t, e, admin, "main-menu", m)

	// Other menus are made by PUT (a title required), listed after the
	// default ones and deleted; the default ones cannot be.
	r := e.Do(http.MethodPut, "/store/menus/summer-sale", admin, map[string]any{"items": []any{}}).Expect(t, 400)
	if !strings.Contains(r.Message(), "title is required") {
		t.Fatalf("new menu without title: %s", r.Raw)
	}
	m = mnPut(t, e, admin, "summer-sale", map[string]any{"title": "Summer sale", "items": []any{mnItem("Sale", "collection", collection)}})
	if m["handle"] != "summer-sale" || len(m["items"].([]any)) != 1 {
		t.Fatalf("new menu %v", m)
	}
	g := e.GraphQL(admin, `mutation { putMenu(handle: "lookbook", input: {title: "Lookbook"}) { handle title items } }`, nil)
	if gm, _ := g.Data()["putMenu"].(map[string]any); gm["handle"] != "lookbook" || !reflect.DeepEqual(gm["items"], []any{}) {
		t.Fatalf("GraphQL putMenu: %s", g.Raw)
	}
	rows, total, list = mnList(t, e, admin, "limit=2&offset=1")
	if total != 4 || !slices.Equal(ctHandles(rows), []string{"footer", "summer-sale"}) {
		t.Fatalf("list page %v (total %d)", ctHandles(rows), total)
	}
	e.SameOnGraphQL(t, list, admin, "ListMenus", map[string]any{"limit": 2, "offset": 1})
	expectBareDelete(t, e, admin, "/store/menus/summer-sale")
	e.Do(http.MethodGet, "/store/menus/summer-sale", admin, nil).Expect(t, 404)
	e.Do(http.MethodDelete, "/store/menus/summer-sale", admin, nil).Expect(t, 404)
	for _, h := range []string{"main-menu", "footer"} {
		r := e.Do(http.MethodDelete, "/store/menus/"+h, admin, nil).Expect(t, 409)
		if !strings.Contains(r.Message(), "cannot be deleted") {
			t.Fatalf("delete %s: %s", h, r.Raw)
		}
	}
	expectGraphQLCode(t, e, admin, "CONFLICT", nil, `mutation { deleteMenu(handle: "footer") }`)
	if _, total, _ := mnList(t, e, admin, ""); total != 3 {
		t.Fatalf("menus after deletes: %d", total)
	}

	// Another store has its own default menus and none of ours; our
	// records are not theirs to link to.
	o := e.Store("Other")
	oKey := e.Key(o.ID, auth.RoleAdmin)
	if rows, total, _ := mnList(t, e, oKey, ""); total != 2 || !slices.Equal(ctHandles(rows), []string{"main-menu", "footer"}) {
		t.Fatalf("other store's menus %v", rows)
	}
	e.Do(http.MethodGet, "/store/menus/lookbook", oKey, nil).Expect(t, 404)
	e.Do(http.MethodDelete, "/store/menus/lookbook", oKey, nil).Expect(t, 404)
	expectGraphQLNotFound(t, e, oKey, `{ menu(handle: "lookbook") { title } }`, nil)
	r = e.Do(http.MethodPut, "/store/menus/main-menu", oKey, map[string]any{"items": []any{mnItem("Ours", "product", product)}}).Expect(t, 400)
	if r.Message() != fmt.Sprintf("items[0].resource_id names no product of this store (%d)", product) {
		t.Fatalf("another store's product: %s", r.Raw)
	}
	if m, _ := mnGet(t, e, oKey, "main-menu"); len(m["items"].([]any)) != 0 {
		t.Fatalf("a refused put changed the menu: %v", m)
	}
}

// keyMenuID is the id of the store's menu with handle (ids are not part
// of the view; the audit log names them).
func keyMenuID(t *testing.T, e *apitest.Env, storeID int64, handle string) int64 {
	t.Helper()
	var id int64
	if err := e.DB.NewSelect().Table("menus").Column("id").Where("store_id = ? AND handle = ?", storeID, handle).Scan(t.Context(), &id); err != nil {
		t.Fatal(err)
	}
	return id
}

// TestMenuValidation: each rule of a menu's items is a 400 naming the
// field at fault, and changes nothing; a fourth level is refused.
func TestMenuValidation(t *testing.T) {
	e, s, admin := newAcme(t)
	product := insertProduct(t, e, s.ID, "socks")
	leaf := mnItem("Leaf", "url", "/a")
	deep := []map[string]any{mnItem("1", "url", "/1", mnItem("2", "url", "/2", mnItem("3", "url", "/3", leaf)))}
	r := e.Do(http.MethodPut, "/store/menus/main-menu", admin, map[string]any{"items": deep}).Expect(t, 400)
	if !strings.HasPrefix(r.Message(), "items[0].items[0].items[0].items nests a level too deep: a menu has at most 3 levels") {
		t.Fatalf("4 levels: %s", r.Raw)
	}
	g := e.GraphQL(admin, `mutation($items: [MenuItemInput!]) { putMenu(handle: "main-menu", input: {items: $items}) { handle } }`, map[string]any{"items": deep})
	if g.ErrorCode() != "BAD_USER_INPUT" || !strings.Contains(string(g.Raw), `"field":"items[0].items[0].items[0].items"`) {
		t.Fatalf("4 levels on GraphQL: %s", g.Raw)
	}
	// Three levels are fine.
	mnPut(t, e, admin, "footer", map[string]any{"items": []map[string]any{mnItem("1", "url", "/1", mnItem("2", "url", "/2", mnItem("3", "product", product)))}})

	many := make([]map[string]any, 251)
	for i := range many {
		many[i] = mnItem(fmt.Sprint(i), "blog", nil)
	}
	for body, field := range map[string]string{
		`{"items": [{"title": "x", "type": "link", "url": "/x"}]}`:                                "items[0].type",
		`{"items": [{"title": "x", "type": "url"}]}`:                                              "items[0].url",
		`{"items": [{"title": "x", "type": "url", "url": "javascript:alert(1)"}]}`:                "items[0].url",
		`{"items": [{"title": "x", "type": "url", "url": "//evil.example/x"}]}`:                   "items[0].url",
		`{"items": [{"title": "x", "type": "url", "url": "/a b"}]}`:                               "items[0].url",
		`{"items": [{"title": "x", "type": "url", "url": "/x", "resource_id": 1}]}`:               "items[0].resource_id",
		`{"items": [{"title": "x", "type": "product"}]}`:                                          "items[0].resource_id",
		`{"items": [{"title": "x", "type": "product", "resource_id": 0}]}`:                        "items[0].resource_id",
		`{"items": [{"title": "x", "type": "product", "url": "/products/x"}]}`:                    "items[0].url",
		`{"items": [{"title": "x", "type": "blog", "resource_id": 1}]}`:                           "items[0].resource_id",
		`{"items": [{"title": "x", "type": "page", "resource_id": 999999}]}`:                      "items[0].resource_id",
		`{"items": [{"title": "x", "type": "collection", "resource_id": 999999}]}`:                "items[0].resource_id",
		`{"items": [{"title": "ok", "type": "blog", "items": [{"title": " ", "type": "blog"}]}]}`: "items[0].items[0].title",
		`{"items": [{"type": "blog"}]}`:                                                           "items[0].title",
		`{"items": [{"title": "x", "type": "blog", "handle": "x"}]}`:                              "items[0].handle",
		`{"items": {"title": "x", "type": "blog"}}`:                                               "items",
		`{"title": ""}`: "",
		`{"title": 5}`:  "title",
	} {
		r := e.Do(http.MethodPut, "/store/menus/main-menu", admin, body).Expect(t, 400)
		if field != "" && !strings.HasPrefix(r.Message(), field+" ") {
			t.Fatalf("%s: want a message about %s, got %s", body, field, r.Raw)
		}
	}
	r = e.Do(http.MethodPut, "/store/menus/main-menu", admin, map[string]any{"items": many}).Expect(t, 400)
	if !strings.HasPrefix(r.Message(), "items[250] is one item too many") {
		t.Fatalf("251 items: %s", r.Raw)
	}
	for _, h := range []string{"Main-Menu", "a--b", "-x", strings.Repeat("m", 256)} {
		e.Do(http.MethodPut, "/store/menus/"+h, admin, map[string]any{"title": "x"}).Expect(t, 400)
	}
	if m, _ := mnGet(t, e, admin, "main-menu"); len(m["items"].([]any)) != 0 {
		t.Fatalf("refusals changed the menu: %v", m)
	}
	if _, total, _ := mnList(t, e, admin, ""); total != 2 {
		t.Fatalf("refusals made menus: %d", total)
	}
}

// TestMenuAccess: the scope and role gates of the menus (navigation).
func TestMenuAccess(t *testing.T) {
	e, s, _ := newAcme(t)
	body := map[string]any{"title": "Sale", "items": []any{}}
	checkAccess(t, e, s.ID, "navigation", map[string]string{"pages:write": e.Key(s.ID, auth.RoleAdmin, "pages:write")},
		[]apitest.Call{{Method: http.MethodGet, Path: "/store/menus"}, {Method: http.MethodGet, Path: "/store/menus/main-menu"}},
		[]apitest.Call{{Method: http.MethodPut, Path: "/store/menus/sale", Body: body}, {Method: http.MethodPut, Path: "/store/menus/footer", Body: body},
			{Method: http.MethodDelete, Path: "/store/menus/sale"}})
	if _, total, _ := mnList(t, e, e.Key(s.ID, auth.RoleStaff, "navigation:read"), ""); total != 2 {
		t.Fatalf("refused writes made menus: %d", total)
	}
	expectUnauthorized(t, e, s.ID, http.MethodPut, "/store/menus/sale", body)
}

// TestMenuListStatements: menus read with their items cost the same
// statements for 2 menus and for 12: the references of a page of menus are
// read in one statement.
func TestMenuListStatements(t *testing.T) {
	e, s, admin := newAcme(t)
	count := countStatements(e)
	product := insertProduct(t, e, s.ID, "socks")
	collection := insertCollection(t, e, s.ID, "winter")
	items := []map[string]any{mnItem("Shop", "collection", collection, mnItem("Socks", "product", product)), mnItem("Blog", "blog", nil)}
	mnPut(t, e, admin, "main-menu", map[string]any{"items": items})
	q := `{ menus(limit: 50) { handle title items } menusCount }`
	few := count(func() { e.GraphQL(admin, q, nil) })
	one := count(func() { mnGet(t, e, admin, "main-menu") })
	for i := range 10 {
		mnPut(t, e, admin, fmt.Sprintf("menu-%d", i), map[string]any{"title": "M", "items": items})
	}
	var g *apitest.Response
	many := count(func() { g = e.GraphQL(admin, q, nil) })
	if few != many {
		t.Fatalf("statements: %d for 2 menus, %d for 12", few, many)
	}
	// One menu's references are one statement however many there are.
	var more []map[string]any
	for i := range 20 {
		more = append(more, mnItem(fmt.Sprint(i), "product", insertProduct(t, e, s.ID, fmt.Sprintf("p-%d", i)),
			mnItem("c", "collection", collection), mnItem("b", "blog", nil)))
	}
	mnPut(t, e, admin, "main-menu", map[string]any{"items": more})
	if n := count(func() { mnGet(t, e, admin, "main-menu") }); n != one {
		t.Fatalf("GET /store/menus/main-menu: %d statements with 2 references, %d with 40", one, n)
	}
	if rows := objectsOf(g.Data()["menus"]); len(rows) != 12 || len(rows[11]["items"].([]any)) != 2 {
		t.Fatalf("menus %s", g.Raw)
	}
}
