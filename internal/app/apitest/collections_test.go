package apitest_test

import (
	"context"
	"net/http"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"storeadmin/graph"
	"storeadmin/internal/app/apitest"
	"storeadmin/internal/auth"
	"storeadmin/models"
	"storeadmin/rest"
)

// The fields of the spec's collection views, exactly, with their types (see
// checkObject).
var (
	coViewSpec = map[string]string{
		"collection_type": "s", "created_at": "ts", "description": "s", "disjunctive": "b", "handle": "s", "id": "i",
		"image_src": "s", "published": "b", "rules": "list", "seo": "obj", "sort_order": "s", "title": "s", "updated_at": "ts",
	}
	coMemberSpec = map[string]string{"handle": "s", "id": "i", "image_src": "s", "position": "i", "price_cents": "i", "status": "s", "title": "s"}
	coPickerSpec = map[string]string{"handle": "s", "id": "i", "image_src": "s", "published": "b", "title": "s"}
	coRuleSpec   = map[string]string{"column": "s", "condition": "s", "relation": "s"}
)

func coListSpec() map[string]string {
	m := map[string]string{"products_count": "i"}
	for k, v := range coViewSpec {
		m[k] = v
	}
	return m
}

func coPreviewSpec() map[string]string {
	m := map[string]string{"position": "i", "price_cents": "i", "products": "list", "products_count": "i", "status": "b"}
	for k, v := range coViewSpec {
		m[k] = v
	}
	return m
}

func coPath(id int64, rest ...string) string {
	return "/store/collections/" + strconv.FormatInt(id, 10) + strings.Join(rest, "")
}

// coView checks v against CollectionView (spec) and its rules.
func coView(t *testing.T, v any, spec map[string]string) map[string]any {
	t.Helper()
	m := checkObject(t, "collection", v, spec)
	checkObjects(t, "collection.rules", m["rules"], coRuleSpec)
	return m
}

func coCreate(t *testing.T, e *apitest.Env, key string, body any) map[string]any {
	t.Helper()
	r := e.Do(http.MethodPost, "/store/collections", key, body).Expect(t, 201)
	if keys := sortedKeys(r.Body); !reflect.DeepEqual(keys, []string{"collection", "status"}) {
		t.Fatalf("POST /store/collections payload keys %v: %s", keys, r.Raw)
	}
	return coView(t, r.Body["collection"], coViewSpec)
}

// coSmart creates a smart collection with rules (column, relation,
// condition triples) and returns its id.
func coSmart(t *testing.T, e *apitest.Env, key, title string, disjunctive bool, rules ...string) int64 {
	t.Helper()
	return idOf(t, coCreate(t, e, key, map[string]any{"title": title, "collection_type": "smart", "disjunctive": disjunctive, "rules": coRules(rules...)}))
}

func coRules(rules ...string) []any {
	out := []any{}
	for i := 0; i+2 < len(rules); i += 3 {
		out = append(out, map[string]any{"column": rules[i], "relation": rules[i+1], "condition": rules[i+2]})
	}
	return out
}

func coGet(t *testing.T, e *apitest.Env, key string, id int64) (map[string]any, *apitest.Response) {
	t.Helper()
	r := e.Do(http.MethodGet, coPath(id), key, nil).Expect(t, 200)
	if keys := sortedKeys(r.Body); !reflect.DeepEqual(keys, []string{"collection", "status"}) {
		t.Fatalf("GET collection payload keys %v: %s", keys, r.Raw)
	}
	return coView(t, r.Body["collection"], coViewSpec), r
}

func coPut(t *testing.T, e *apitest.Env, key string, id int64, body any) map[string]any {
	t.Helper()
	r := e.Do(http.MethodPut, coPath(id), key, body).Expect(t, 200)
	if keys := sortedKeys(r.Body); !reflect.DeepEqual(keys, []string{"collection", "status"}) {
		t.Fatalf("PUT collection payload keys %v: %s", keys, r.Raw)
	}
	return coView(t, r.Body["collection"], coViewSpec)
}

func coList(t *testing.T, e *apitest.Env, key, query string) ([]map[string]any, int64, *apitest.Response) {
	t.Helper()
	path := "/store/collections"
	if query != "" {
		path += "?" + query
	}
	r := e.Do(http.MethodGet, path, key, nil).Expect(t, 200)
	if keys := sortedKeys(r.Body); !reflect.DeepEqual(keys, []string{"collections", "status", "total"}) {
		t.Fatalf("GET %s payload keys %v: %s", path, keys, r.Raw)
	}
	var rows []map[string]any
	if r.Body["collections"] != nil {
		l, _ := r.Body["collections"].([]any)
		for _, v := range l {
			rows = append(rows, coView(t, v, coListSpec()))
		}
	}
	return rows, wholeNumber(t, r.Body["total"]), r
}

// coMembers reads GET /store/collections/{id}/products?query.
func coMembers(t *testing.T, e *apitest.Env, key string, id int64, query string) ([]map[string]any, int64, *apitest.Response) {
	t.Helper()
	path := coPath(id, "/products")
	if query != "" {
		path += "?" + query
	}
	r := e.Do(http.MethodGet, path, key, nil).Expect(t, 200)
	if keys := sortedKeys(r.Body); !reflect.DeepEqual(keys, []string{"products", "status", "total"}) {
		t.Fatalf("GET %s payload keys %v: %s", path, keys, r.Raw)
	}
	var rows []map[string]any
	if r.Body["products"] != nil {
		rows = checkObjects(t, "members", r.Body["products"], coMemberSpec)
	}
	return rows, wholeNumber(t, r.Body["total"]), r
}

// coMemberIDs is the ids of a collection's members, in order, checking
// that total agrees.
func coMemberIDs(t *testing.T, e *apitest.Env, key string, id int64) []int64 {
	t.Helper()
	rows, total, r := coMembers(t, e, key, id, "")
	if total != int64(len(rows)) {
		t.Fatalf("collection %d: %d members listed, total %d: %s", id, len(rows), total, r.Raw)
	}
	return rowIDs(rows)
}

func coBare(t *testing.T, r *apitest.Response) {
	t.Helper()
	if !reflect.DeepEqual(r.Body, map[string]any{"status": true}) {
		t.Fatalf("want the bare envelope, got %s", r.Raw)
	}
}

// coProductCollections reads product(id){collection_ids collections{id}}
// on GraphQL and checks that the two agree.
func coProductCollections(t *testing.T, e *apitest.Env, key string, id int64) []int64 {
	t.Helper()
	g := e.GraphQL(key, `query($id: Int!) { product(id: $id) { collection_ids collections { id } } }`, map[string]any{"id": id})
	if g.Status != 200 || g.Body["errors"] != nil {
		t.Fatalf("product collections: %s", g.Raw)
	}
	p := g.Data()["product"].(map[string]any)
	ids := wholeNumbersOrNull(t, p["collection_ids"])
	var via []int64
	for _, c := range objectsOf(p["collections"]) {
		via = append(via, wholeNumber(t, c["id"]))
	}
	if !slices.Equal(slices.Sorted(slices.Values(via)), slices.Sorted(slices.Values(ids))) {
		t.Fatalf("product %d: collection_ids %v, collections %v", id, ids, via)
	}
	return slices.Sorted(slices.Values(ids))
}

// coGraphQLMembers reads collection(id){products{id} products_count} and
// checks it against the REST member list.
func coGraphQLMembers(t *testing.T, e *apitest.Env, key string, id int64) []int64 {
	t.Helper()
	g := e.GraphQL(key, `query($id: Int!) { collection(id: $id) { products_count products { id position product { id } } } }`, map[string]any{"id": id})
	if g.Status != 200 || g.Body["errors"] != nil {
		t.Fatalf("collection products: %s", g.Raw)
	}
	c := g.Data()["collection"].(map[string]any)
	var ids []int64
	for _, m := range objectsOf(c["products"]) {
		mid := wholeNumber(t, m["id"])
		if pid := wholeNumber(t, m["product"].(map[string]any)["id"]); pid != mid {
			t.Fatalf("member %d has product %d", mid, pid)
		}
		ids = append(ids, mid)
	}
	if rest := coMemberIDs(t, e, key, id); !slices.Equal(ids, rest) || wholeNumber(t, c["products_count"]) != int64(len(ids)) {
		t.Fatalf("collection %d: GraphQL members %v (count %v), REST %v", id, ids, c["products_count"], rest)
	}
	return ids
}

func coCount(t *testing.T, e *apitest.Env, storeID int64) int {
	t.Helper()
	return countProducts(t, e, "collections", storeID)
}

// TestCollectionManual: a manual collection's members are chosen and
// ordered by hand: create with product_ids, add, remove, reorder.
func TestCollectionManual(t *testing.T) {
	e := apitest.New(t)
	s, other := e.Store("Acme"), e.Store("Bolt")
	key, otherKey := e.Key(s.ID, auth.RoleAdmin), e.Key(other.ID, auth.RoleAdmin)
	apple := createSimpleProduct(t, e, key, "Apple", 300, nil)
	banana := createSimpleProduct(t, e, key, "Banana", 100, map[string]any{"status": "active", "images": []any{map[string]any{"src": "https://cdn.example.com/banana.png"}}})
	cherry := createSimpleProduct(t, e, key, "Cherry", 200, nil)
	date := createSimpleProduct(t, e, key, "Date", 400, nil)
	theirs := createSimpleProduct(t, e, otherKey, "Theirs", 1, nil)
	theirColl := idOf(t, coCreate(t, e, otherKey, map[string]any{"title": "Theirs", "product_ids": []int64{theirs}}))

	c := coCreate(t, e, key, map[string]any{"title": "Fruit", "product_ids": []int64{cherry, apple, banana}, "description": "<p>Fresh</p>",
		"seo": map[string]any{"title": "Fruit"}, "image_src": "https://cdn.example.com/fruit.png"})
	id := idOf(t, c)
	for k, want := range map[string]any{"title": "Fruit", "handle": "fruit", "description": "<p>Fresh</p>", "collection_type": "manual", "disjunctive": false,
		"sort_order": "manual", "published": true, "image_src": "https://cdn.example.com/fruit.png"} {
		if c[k] != want {
			t.Fatalf("%s = %#v, want %#v", k, c[k], want)
		}
	}
	if len(objectsOf(c["rules"])) != 0 || !reflect.DeepEqual(c["seo"], map[string]any{"title": "Fruit"}) || c["created_at"] != c["updated_at"] {
		t.Fatalf("created %v", c)
	}

	rows, total, r := coMembers(t, e, key, id, "")
	if total != 3 || !slices.Equal(rowIDs(rows), []int64{cherry, apple, banana}) {
		t.Fatalf("members %v total %d", rowIDs(rows), total)
	}
	e.SameOnGraphQL(t, r, key, "ListCollectionProducts", map[string]any{"id": id})
	want := []map[string]any{
		{"id": float64(cherry), "title": "Cherry", "handle": "cherry", "status": "draft", "image_src": "", "price_cents": float64(200), "position": float64(1)},
		{"id": float64(apple), "title": "Apple", "handle": "apple", "status": "draft", "image_src": "", "price_cents": float64(300), "position": float64(2)},
		{"id": float64(banana), "title": "Banana", "handle": "banana", "status": "active", "image_src": "https://cdn.example.com/banana.png", "price_cents": float64(100), "position": float64(3)},
	}
	if !reflect.DeepEqual(rows, want) {
		t.Fatalf("members:\n got  %v\n want %v", rows, want)
	}
	rows, total, r = coMembers(t, e, key, id, "limit=1&offset=1")
	if total != 3 || !slices.Equal(rowIDs(rows), []int64{apple}) {
		t.Fatalf("paged members %v total %d", rowIDs(rows), total)
	}
	e.SameOnGraphQL(t, r, key, "ListCollectionProducts", map[string]any{"id": id, "limit": 1, "offset": 1})
	for _, q := range []string{"limit=0", "limit=251", "offset=-1"} {
		e.Do(http.MethodGet, coPath(id, "/products?"+q), key, nil).Expect(t, 400)
	}
	if got := coProductCollections(t, e, key, apple); !slices.Equal(got, []int64{id}) {
		t.Fatalf("apple's collections %v", got)
	}
	if got := coProductCollections(t, e, key, date); len(got) != 0 {
		t.Fatalf("date's collections %v", got)
	}

	// Add: to the end; twice is a conflict; another store's product or
	// collection is a 404; a smart collection's members follow its rules.
	coBare(t, e.Do(http.MethodPost, coPath(id, "/products"), key, map[string]any{"product_id": date}).Expect(t, 200))
	if got := coGraphQLMembers(t, e, key, id); !slices.Equal(got, []int64{cherry, apple, banana, date}) {
		t.Fatalf("after add: %v", got)
	}
	e.Do(http.MethodPost, coPath(id, "/products"), key, map[string]any{"product_id": date}).Expect(t, 409)
	e.Do(http.MethodPost, coPath(id, "/products"), key, map[string]any{"product_id": theirs}).Expect(t, 404)
	e.Do(http.MethodPost, coPath(id, "/products"), key, map[string]any{"product_id": 999999}).Expect(t, 404)
	e.Do(http.MethodPost, coPath(theirColl, "/products"), key, map[string]any{"product_id": apple}).Expect(t, 404)
	e.Do(http.MethodPost, coPath(id, "/products"), key, map[string]any{}).Expect(t, 400)
	e.Do(http.MethodPost, coPath(id, "/products"), key, map[string]any{"product_id": "x"}).Expect(t, 400)
	smart := coSmart(t, e, key, "Cheap", false, "variant_price", "less_than", "1000")
	e.Do(http.MethodPost, coPath(smart, "/products"), key, map[string]any{"product_id": apple}).Expect(t, 409)
	e.Do(http.MethodDelete, coPath(smart, "/products/", strconv.FormatInt(apple, 10)), key, nil).Expect(t, 409)
	if got := coMemberIDs(t, e, key, smart); len(got) != 4 {
		t.Fatalf("smart members %v", got)
	}
	if got := coMemberIDs(t, e, otherKey, theirColl); !slices.Equal(got, []int64{theirs}) {
		t.Fatalf("the other store's collection holds %v", got)
	}

	// Remove: bare; not a member is a 404.
	coBare(t, e.Do(http.MethodDelete, coPath(id, "/products/", strconv.FormatInt(apple, 10)), key, nil).Expect(t, 200))
	rows, _, _ = coMembers(t, e, key, id, "")
	if !slices.Equal(rowIDs(rows), []int64{cherry, banana, date}) {
		t.Fatalf("after remove: %v", rowIDs(rows))
	}
	for i, row := range rows {
		if row["position"] != float64(i+1) {
			t.Fatalf("after remove, member %v has position %v, want %d", row["id"], row["position"], i+1)
		}
	}
	e.Do(http.MethodDelete, coPath(id, "/products/", strconv.FormatInt(apple, 10)), key, nil).Expect(t, 404)
	e.Do(http.MethodDelete, coPath(id, "/products/", strconv.FormatInt(theirs, 10)), key, nil).Expect(t, 404)
	e.Do(http.MethodDelete, coPath(theirColl, "/products/", strconv.FormatInt(theirs, 10)), key, nil).Expect(t, 404)
	if got := coMemberIDs(t, e, otherKey, theirColl); !slices.Equal(got, []int64{theirs}) {
		t.Fatalf("the other store's collection holds %v", got)
	}

	// Reorder: the listed members first, the others after in their order.
	coBare(t, e.Do(http.MethodPut, coPath(id, "/products/reorder"), key, map[string]any{"product_ids": []int64{date, cherry}}).Expect(t, 200))
	rows, _, r = coMembers(t, e, key, id, "")
	if !slices.Equal(rowIDs(rows), []int64{date, cherry, banana}) {
		t.Fatalf("after reorder: %v", rowIDs(rows))
	}
	for i, row := range rows {
		if row["position"] != float64(i+1) {
			t.Fatalf("after reorder, member %v has position %v", row["id"], row["position"])
		}
	}
	e.SameOnGraphQL(t, r, key, "ListCollectionProducts", map[string]any{"id": id})
	for _, body := range []any{
		map[string]any{"product_ids": []int64{apple}},
		map[string]any{"product_ids": []int64{theirs}},
		map[string]any{"product_ids": []int64{date, date}},
		map[string]any{"product_ids": []int64{}},
		map[string]any{},
	} {
		e.Do(http.MethodPut, coPath(id, "/products/reorder"), key, body).Expect(t, 400)
	}
	e.Do(http.MethodPut, coPath(theirColl, "/products/reorder"), key, map[string]any{"product_ids": []int64{theirs}}).Expect(t, 404)
	if got := coMemberIDs(t, e, key, id); !slices.Equal(got, []int64{date, cherry, banana}) {
		t.Fatalf("refused reorders changed the order: %v", got)
	}

	// A collection sorted otherwise lists in that order and cannot be
	// ordered by hand.
	coPut(t, e, key, id, map[string]any{"sort_order": "alpha-asc"})
	if got := coGraphQLMembers(t, e, key, id); !slices.Equal(got, []int64{banana, cherry, date}) {
		t.Fatalf("alpha-asc: %v", got)
	}
	e.Do(http.MethodPut, coPath(id, "/products/reorder"), key, map[string]any{"product_ids": []int64{date}}).Expect(t, 409)
	coPut(t, e, key, id, map[string]any{"sort_order": "price-desc"})
	if got := coGraphQLMembers(t, e, key, id); !slices.Equal(got, []int64{date, cherry, banana}) {
		t.Fatalf("price-desc: %v", got)
	}
	coPut(t, e, key, id, map[string]any{"sort_order": "manual"})
	if got := coMemberIDs(t, e, key, id); !slices.Equal(got, []int64{date, cherry, banana}) {
		t.Fatalf("back to manual: %v", got)
	}

	// product_ids must name products of the store.
	n := coCount(t, e, s.ID)
	e.Do(http.MethodPost, "/store/collections", key, map[string]any{"title": "Bad", "product_ids": []int64{apple, theirs}}).Expect(t, 400)
	e.Do(http.MethodPost, "/store/collections", key, map[string]any{"title": "Bad", "product_ids": []int64{999999}}).Expect(t, 400)
	if got := coCount(t, e, s.ID); got != n {
		t.Fatalf("refused creates stored collections: %d, want %d", got, n)
	}
}

// TestCollectionSmart: a smart collection holds the products its rules
// match, and follows them as products are created, changed and deleted.
func TestCollectionSmart(t *testing.T) {
	e := apitest.New(t)
	s, other := e.Store("Acme"), e.Store("Bolt")
	key, otherKey := e.Key(s.ID, auth.RoleAdmin), e.Key(other.ID, auth.RoleAdmin)
	acmeTee := createSimpleProduct(t, e, key, "Acme Tee", 500, map[string]any{"vendor": "Acme", "tags": []string{"sale"}})
	acmeHoodie := createSimpleProduct(t, e, key, "Acme Hoodie", 4000, map[string]any{"vendor": "Acme"})
	boltCap := createSimpleProduct(t, e, key, "Bolt Cap", 800, map[string]any{"vendor": "Bolt", "tags": []string{"Sale"}})
	boltBag := createSimpleProduct(t, e, key, "Bolt Bag", 6000, map[string]any{"vendor": "Bolt", "product_type": "Bags"})
	createSimpleProduct(t, e, otherKey, "Acme Tee", 500, map[string]any{"vendor": "Acme", "tags": []string{"sale"}})

	byVendor := coSmart(t, e, key, "Acme", false, "vendor", "equals", "acme")
	byTag := coSmart(t, e, key, "On sale", false, "tag", "equals", "SALE")
	cheap := coSmart(t, e, key, "Cheap", false, "variant_price", "less_than", "1000")
	cheapAcme := coSmart(t, e, key, "Cheap Acme", false, "vendor", "equals", "Acme", "variant_price", "less_than", "1000")
	boltOrSale := coSmart(t, e, key, "Bolt or sale", true, "vendor", "equals", "bolt", "tag", "equals", "sale")
	hood := coSmart(t, e, key, "Hoods", false, "title", "contains", "HOOD")
	bags := coSmart(t, e, key, "Bags", false, "type", "equals", "bags", "title", "ends_with", "bag")
	notAcme := coSmart(t, e, key, "Not Acme", false, "vendor", "not_equals", "acme")

	members := func(id int64) []int64 { t.Helper(); return coGraphQLMembers(t, e, key, id) }
	check := func(what string, want map[int64][]int64) {
		t.Helper()
		for id, w := range want {
			if got := members(id); !slices.Equal(got, w) {
				t.Fatalf("%s: collection %d holds %v, want %v", what, id, got, w)
			}
		}
	}
	check("created", map[int64][]int64{
		byVendor:   {acmeTee, acmeHoodie},
		byTag:      {acmeTee, boltCap},
		cheap:      {acmeTee, boltCap},
		cheapAcme:  {acmeTee},
		boltOrSale: {acmeTee, boltCap, boltBag},
		hood:       {acmeHoodie},
		bags:       {boltBag},
		notAcme:    {boltCap, boltBag},
	})
	rows, _, r := coMembers(t, e, key, cheap, "")
	if rows[0]["price_cents"] != float64(500) || rows[1]["price_cents"] != float64(800) || rows[0]["position"] != float64(1) || rows[1]["position"] != float64(2) {
		t.Fatalf("smart members %v", rows)
	}
	e.SameOnGraphQL(t, r, key, "ListCollectionProducts", map[string]any{"id": cheap})
	if got := coProductCollections(t, e, key, acmeTee); !slices.Equal(got, []int64{byVendor, byTag, cheap, cheapAcme, boltOrSale}) {
		t.Fatalf("acme tee's collections %v", got)
	}
	c, _ := coGet(t, e, key, cheapAcme)
	if c["collection_type"] != "smart" || c["disjunctive"] != false || !reflect.DeepEqual(c["rules"], []any{
		map[string]any{"column": "vendor", "relation": "equals", "condition": "Acme"},
		map[string]any{"column": "variant_price", "relation": "less_than", "condition": "1000"},
	}) {
		t.Fatalf("smart collection %v", c)
	}

	// A new product that matches joins at the end, and its view says so.
	socks := createProduct(t, e, key, map[string]any{"title": "Acme Socks", "vendor": "ACME", "variants": []any{map[string]any{"price_cents": 300}}})
	socksID := idOf(t, socks)
	if got := wholeNumbersOrNull(t, socks["collection_ids"]); !slices.Equal(got, []int64{byVendor, cheap, cheapAcme}) {
		t.Fatalf("new product's collection_ids %v", got)
	}
	check("product created", map[int64][]int64{byVendor: {acmeTee, acmeHoodie, socksID}, cheap: {acmeTee, boltCap, socksID}, cheapAcme: {acmeTee, socksID}, notAcme: {boltCap, boltBag}})

	// Changes: the hoodie gets cheap, the tee changes vendor, the cap
	// loses its tag.
	hv, _ := getProduct(t, e, key, acmeHoodie)
	putProduct(t, e, key, acmeHoodie, map[string]any{"variants": []any{map[string]any{"id": idOf(t, productVariants(hv)[0]), "price_cents": 900}}})
	putProduct(t, e, key, acmeTee, map[string]any{"vendor": "Bolt"})
	cp := putProduct(t, e, key, boltCap, map[string]any{"tags": []string{}})
	if got := wholeNumbersOrNull(t, cp["collection_ids"]); !slices.Equal(got, []int64{cheap, boltOrSale, notAcme}) {
		t.Fatalf("cap's collection_ids after the change %v", got)
	}
	check("products changed", map[int64][]int64{
		byVendor:   {acmeHoodie, socksID},
		byTag:      {acmeTee},
		cheap:      {acmeTee, boltCap, socksID, acmeHoodie},
		cheapAcme:  {socksID, acmeHoodie},
		boltOrSale: {acmeTee, boltCap, boltBag},
		notAcme:    {boltCap, boltBag, acmeTee},
	})

	// Deleting a product takes it out.
	e.Do(http.MethodDelete, productPath(socksID), key, nil).Expect(t, 200)
	check("product deleted", map[int64][]int64{byVendor: {acmeHoodie}, cheap: {acmeTee, boltCap, acmeHoodie}, cheapAcme: {acmeHoodie}})

	// Changing the rules or the junction recomputes the members.
	u := coPut(t, e, key, byVendor, map[string]any{"rules": coRules("vendor", "equals", "Bolt")})
	if !reflect.DeepEqual(u["rules"], []any{map[string]any{"column": "vendor", "relation": "equals", "condition": "Bolt"}}) {
		t.Fatalf("updated rules %v", u["rules"])
	}
	coPut(t, e, key, cheapAcme, map[string]any{"disjunctive": true})
	coPut(t, e, key, hood, map[string]any{"title": "Hooded things"}) // rules kept
	check("rules changed", map[int64][]int64{
		byVendor:  {acmeTee, boltCap, boltBag},
		cheapAcme: {acmeHoodie, acmeTee, boltCap}, // joiners follow, in id order
		hood:      {acmeHoodie},
	})
	rows, total, _ := coList(t, e, key, "collection_type=smart&sort=title")
	if total != 8 || len(rows) != 8 {
		t.Fatalf("%d smart collections", total)
	}
	counts := map[int64]int64{}
	for _, row := range rows {
		counts[idOf(t, row)] = wholeNumber(t, row["products_count"])
	}
	if counts[byVendor] != 3 || counts[byTag] != 1 || counts[cheap] != 3 || counts[bags] != 1 {
		t.Fatalf("products_count %v", counts)
	}
}

// TestCollectionRulesValidation: bad rules are 400s naming the rule, and
// nothing is stored or changed.
func TestCollectionRulesValidation(t *testing.T) {
	e := apitest.New(t)
	s := e.Store("Acme")
	key := e.Key(s.ID, auth.RoleAdmin)
	p := createSimpleProduct(t, e, key, "Thing", 100, map[string]any{"vendor": "Acme"})

	smart := func(rules any) map[string]any {
		b := map[string]any{"title": "Bad", "collection_type": "smart"}
		if rules != nil {
			b["rules"] = rules
		}
		return b
	}
	for _, body := range []map[string]any{
		smart(coRules("colour", "equals", "red")),
		smart(coRules("", "equals", "red")),
		smart(coRules("tag", "contains", "sale")),
		smart(coRules("tag", "starts_with", "sale")),
		smart(coRules("variant_price", "starts_with", "10")),
		smart(coRules("variant_price", "contains", "10")),
		smart(coRules("title", "greater_than", "a")),
		smart(coRules("vendor", "is", "acme")),
		smart(coRules("variant_price", "less_than", "ten")),
		smart(coRules("variant_price", "less_than", "10.50")),
		smart(coRules("variant_weight", "greater_than", "1kg")),
		smart(coRules("title", "equals", "  ")),
		smart(coRules("vendor", "equals", strings.Repeat("a", 256))),
		smart(append(coRules("vendor", "equals", "acme"), map[string]any{"column": "title", "relation": "equals"})),
		smart([]any{}),
		smart(nil),
		smart("vendor=acme"),
		{"title": "Bad", "rules": coRules("vendor", "equals", "acme")}, // rules on a manual collection
		{"title": "Bad", "collection_type": "smart", "rules": coRules("vendor", "equals", "acme"), "product_ids": []int64{p}},
		{"title": "Bad", "collection_type": "auto"},
		{"title": "Bad", "sort_order": "random"},
		{"title": "Bad", "image_src": "not a url"},
		{"title": "", "collection_type": "smart", "rules": coRules("vendor", "equals", "acme")},
	} {
		e.Do(http.MethodPost, "/store/collections", key, body).Expect(t, 400)
	}
	if n := coCount(t, e, s.ID); n != 0 {
		t.Fatalf("refused creates stored %d collections", n)
	}

	// Names are normalised: trimmed and lowercased.
	c := coCreate(t, e, key, map[string]any{"title": "Acme", "collection_type": "smart", "rules": coRules(" Vendor ", "EQUALS", " Acme ")})
	if !reflect.DeepEqual(c["rules"], []any{map[string]any{"column": "vendor", "relation": "equals", "condition": "Acme"}}) {
		t.Fatalf("normalised rules %v", c["rules"])
	}
	id := idOf(t, c)
	for _, body := range []map[string]any{
		{"rules": []any{}},
		{"rules": coRules("colour", "equals", "red")},
		{"rules": coRules("variant_inventory", "less_than", "few")},
		{"collection_type": "manual"},
		{"product_ids": []int64{p}},
	} {
		e.Do(http.MethodPut, coPath(id), key, body).Expect(t, 400)
	}
	got, _ := coGet(t, e, key, id)
	if !reflect.DeepEqual(got, c) {
		t.Fatalf("refused updates changed the collection:\n was %v\n now %v", c, got)
	}
	if m := coMemberIDs(t, e, key, id); !slices.Equal(m, []int64{p}) {
		t.Fatalf("members %v", m)
	}
	// Every column accepts its relations.
	for _, r := range [][3]string{
		{"title", "starts_with", "th"}, {"title", "not_contains", "x"}, {"type", "not_equals", "x"}, {"tag", "not_equals", "x"},
		{"variant_title", "equals", "default title"}, {"variant_price", "greater_than", "-1"}, {"variant_compare_at_price", "equals", "5"},
		{"variant_weight", "not_equals", "7"}, {"variant_inventory", "greater_than", "-5"},
	} {
		coCreate(t, e, key, map[string]any{"title": "Ok " + r[0] + " " + r[1], "collection_type": "smart", "rules": coRules(r[0], r[1], r[2])})
	}
}

// TestCollectionPreview: POST /store/collections/preview evaluates rules
// without saving anything.
func TestCollectionPreview(t *testing.T) {
	e := apitest.New(t)
	s, other := e.Store("Acme"), e.Store("Bolt")
	key, otherKey := e.Key(s.ID, auth.RoleAdmin), e.Key(other.ID, auth.RoleAdmin)
	a := createSimpleProduct(t, e, key, "Alpha", 700, map[string]any{"images": []any{map[string]any{"src": "https://cdn.example.com/alpha.png"}}})
	b := createSimpleProduct(t, e, key, "Bravo", 300, nil)
	createSimpleProduct(t, e, key, "Charlie", 5000, nil)
	createSimpleProduct(t, e, otherKey, "Delta", 1, nil)
	coCreate(t, e, key, map[string]any{"title": "Existing"})
	before := coCount(t, e, s.ID)
	_, listTotal, _ := coList(t, e, key, "")

	preview := func(query string, body any) map[string]any {
		t.Helper()
		path := "/store/collections/preview"
		if query != "" {
			path += "?" + query
		}
		r := e.Do(http.MethodPost, path, key, body).Expect(t, 200)
		m := coView(t, r.Body, coPreviewSpec())
		checkObjects(t, "preview.products", m["products"], coMemberSpec)
		return m
	}
	body := map[string]any{"title": "Cheap things", "rules": coRules("variant_price", "less_than", "1000")}
	p := preview("", body)
	for k, want := range map[string]any{"status": true, "id": float64(0), "position": float64(0), "title": "Cheap things", "handle": "cheap-things", "collection_type": "smart",
		"disjunctive": false, "published": true, "sort_order": "manual", "description": "", "image_src": "", "products_count": float64(2), "price_cents": float64(300)} {
		if p[k] != want {
			t.Fatalf("preview %s = %#v, want %#v", k, p[k], want)
		}
	}
	if !reflect.DeepEqual(p["seo"], map[string]any{}) || !reflect.DeepEqual(p["rules"], []any{map[string]any{"column": "variant_price", "relation": "less_than", "condition": "1000"}}) {
		t.Fatalf("preview %v", p)
	}
	wantMembers := []any{
		map[string]any{"id": float64(a), "title": "Alpha", "handle": "alpha", "status": "draft", "image_src": "https://cdn.example.com/alpha.png", "price_cents": float64(700), "position": float64(1)},
		map[string]any{"id": float64(b), "title": "Bravo", "handle": "bravo", "status": "draft", "image_src": "", "price_cents": float64(300), "position": float64(2)},
	}
	if !reflect.DeepEqual(p["products"], wantMembers) {
		t.Fatalf("preview products:\n got  %v\n want %v", p["products"], wantMembers)
	}

	// GraphQL answers the same, times aside.
	g := e.GraphQL(key, coPreviewOp(t), map[string]any{"input": body})
	if g.Body["errors"] != nil {
		t.Fatalf("GraphQL preview: %s", g.Raw)
	}
	gp := g.Data()["preview"].(map[string]any)
	for _, m := range []map[string]any{gp, p} {
		delete(m, "created_at")
		delete(m, "updated_at")
		delete(m, "status")
	}
	if !reflect.DeepEqual(gp, p) {
		t.Fatalf("GraphQL preview:\n got  %v\n REST %v", gp, p)
	}

	// limit bounds the products, not the count; sort_order orders them.
	p = preview("limit=1", map[string]any{"rules": coRules("variant_price", "less_than", "1000"), "sort_order": "price-asc"})
	if ids := rowIDs(objectsOf(p["products"])); !slices.Equal(ids, []int64{b}) || p["products_count"] != float64(2) || p["title"] != "Preview" || p["handle"] != "preview" {
		t.Fatalf("limited preview %v", p)
	}
	p = preview("", map[string]any{"title": "X", "disjunctive": true, "rules": coRules("title", "equals", "charlie", "title", "starts_with", "al")})
	if ids := rowIDs(objectsOf(p["products"])); len(ids) != 2 || ids[0] != a || p["products_count"] != float64(2) || p["price_cents"] != float64(700) {
		t.Fatalf("disjunctive preview %v", p)
	}
	p = preview("", map[string]any{"rules": coRules("vendor", "equals", "nobody")})
	if l, _ := p["products"].([]any); len(l) != 0 || p["products_count"] != float64(0) || p["price_cents"] != float64(0) {
		t.Fatalf("empty preview %v", p)
	}

	for _, c := range []struct {
		query string
		body  any
	}{
		{"", map[string]any{"collection_type": "manual", "rules": coRules("vendor", "equals", "x")}},
		{"", map[string]any{"rules": coRules("colour", "equals", "x")}},
		{"", map[string]any{"rules": []any{}}},
		{"", map[string]any{}},
		{"limit=0", body},
		{"limit=251", body},
	} {
		path := "/store/collections/preview"
		if c.query != "" {
			path += "?" + c.query
		}
		e.Do(http.MethodPost, path, key, c.body).Expect(t, 400)
	}

	// Nothing was saved.
	if n := coCount(t, e, s.ID); n != before {
		t.Fatalf("previews stored collections: %d, want %d", n, before)
	}
	if _, total, _ := coList(t, e, key, ""); total != listTotal {
		t.Fatalf("collections total %d, want %d", total, listTotal)
	}
	// A preview needs collections:write.
	e.Do(http.MethodPost, "/store/collections/preview", e.Key(s.ID, auth.RoleAdmin, "collections:read"), body).Expect(t, 403)
	e.Do(http.MethodPost, "/store/collections/preview", "", body).Expect(t, 401)
}

// coPreviewOp is the text of the persisted PreviewCollection operation.
func coPreviewOp(t *testing.T) string {
	t.Helper()
	text, err := rest.OperationText(graph.Schema(), "PreviewCollection")
	if err != nil {
		t.Fatal(err)
	}
	return text
}

// TestCollectionList: the list rows are CollectionListView with
// products_count; filters and paging, on both surfaces.
func TestCollectionList(t *testing.T) {
	e := apitest.New(t)
	s, other := e.Store("Acme"), e.Store("Bolt")
	key, otherKey := e.Key(s.ID, auth.RoleAdmin), e.Key(other.ID, auth.RoleAdmin)
	p1 := createSimpleProduct(t, e, key, "One", 100, map[string]any{"vendor": "Acme"})
	p2 := createSimpleProduct(t, e, key, "Two", 200, nil)
	summer := idOf(t, coCreate(t, e, key, map[string]any{"title": "Summer", "product_ids": []int64{p1, p2}}))
	winter := idOf(t, coCreate(t, e, key, map[string]any{"title": "Winter", "published": false}))
	sale := idOf(t, coCreate(t, e, key, map[string]any{"title": "Acme picks", "handle": "sale", "collection_type": "smart", "rules": coRules("vendor", "equals", "acme")}))
	theirs := idOf(t, coCreate(t, e, otherKey, map[string]any{"title": "Summer"}))

	rows, total, r := coList(t, e, key, "")
	if total != 3 || !slices.Equal(rowIDs(rows), []int64{sale, winter, summer}) {
		t.Fatalf("list %v total %d", rowIDs(rows), total)
	}
	e.SameOnGraphQL(t, r, key, "ListCollections", nil)
	for _, row := range rows {
		id := idOf(t, row)
		got, _ := coGet(t, e, key, id)
		want := map[string]any{}
		for k, v := range row {
			if k != "products_count" {
				want[k] = v
			}
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("list row %v, collection %v", row, got)
		}
		if n := map[int64]float64{summer: 2, winter: 0, sale: 1}[id]; row["products_count"] != n {
			t.Fatalf("collection %d products_count %v, want %v", id, row["products_count"], n)
		}
	}
	for _, c := range []struct {
		query string
		want  []int64
		total int64
	}{
		{"sort=title", []int64{sale, summer, winter}, 3},
		{"sort=-title", []int64{winter, summer, sale}, 3},
		{"sort=created_at", []int64{summer, winter, sale}, 3},
		{"collection_type=smart", []int64{sale}, 1},
		{"collection_type=manual&sort=title", []int64{summer, winter}, 2},
		{"published=false", []int64{winter}, 1},
		{"published=true&sort=title", []int64{sale, summer}, 2},
		{"q=SUMM", []int64{summer}, 1},
		{"q=sale", []int64{sale}, 1}, // the handle
		{"q=picks", []int64{sale}, 1},
		{"q=nothing", []int64{}, 0},
		{"collection_type=manual&published=true", []int64{summer}, 1},
		{"sort=title&limit=1&offset=1", []int64{summer}, 3},
		{"offset=3", []int64{}, 3},
	} {
		rows, total, _ := coList(t, e, key, c.query)
		if got := rowIDs(rows); !slices.Equal(got, c.want) || total != c.total {
			t.Fatalf("?%s: %v total %d, want %v total %d", c.query, got, total, c.want, c.total)
		}
	}
	_, _, r = coList(t, e, key, "collection_type=manual&published=true&q=s&limit=5")
	e.SameOnGraphQL(t, r, key, "ListCollections", map[string]any{"filter": map[string]any{"collection_type": "manual", "published": true, "q": "s"}, "limit": 5})
	for _, q := range []string{"collection_type=auto", "published=maybe", "sort=random", "limit=0", "limit=251", "offset=-1"} {
		e.Do(http.MethodGet, "/store/collections?"+q, key, nil).Expect(t, 400)
	}
	rows, total, _ = coList(t, e, otherKey, "")
	if total != 1 || !slices.Equal(rowIDs(rows), []int64{theirs}) {
		t.Fatalf("other store lists %v", rowIDs(rows))
	}
}

// TestCollectionGetUpdateDelete: one collection's life, its handles, and
// the options picker.
func TestCollectionGetUpdateDelete(t *testing.T) {
	e := apitest.New(t)
	s := e.Store("Acme")
	key := e.Key(s.ID, auth.RoleAdmin)
	p := createSimpleProduct(t, e, key, "Thing", 100, nil)

	c := coCreate(t, e, key, map[string]any{"title": "Summer Sale", "description": "Hot", "sort_order": "alpha-asc", "published": false,
		"image_src": "https://cdn.example.com/summer.png", "seo": map[string]any{"description": "Sun"}, "product_ids": []int64{p}})
	id := idOf(t, c)
	if c["handle"] != "summer-sale" || c["sort_order"] != "alpha-asc" || c["published"] != false || c["description"] != "Hot" {
		t.Fatalf("created %v", c)
	}
	got, r := coGet(t, e, key, id)
	if !reflect.DeepEqual(got, c) {
		t.Fatalf("GET differs from the create answer:\n create %v\n get    %v", c, got)
	}
	e.SameOnGraphQL(t, r, key, "GetCollection", map[string]any{"id": id})

	time.Sleep(5 * time.Millisecond)
	u := coPut(t, e, key, id, map[string]any{"title": "Big Summer Sale", "collection_type": "manual", "published": true})
	if u["title"] != "Big Summer Sale" || u["handle"] != "summer-sale" || u["published"] != true || u["description"] != "Hot" || u["sort_order"] != "alpha-asc" ||
		u["image_src"] != c["image_src"] || !reflect.DeepEqual(u["seo"], c["seo"]) || u["created_at"] != c["created_at"] || u["updated_at"] == c["updated_at"] {
		t.Fatalf("partial update:\n before %v\n after  %v", c, u)
	}
	u = coPut(t, e, key, id, map[string]any{"image_src": "", "description": ""})
	if u["image_src"] != "" || u["description"] != "" {
		t.Fatalf("cleared %v", u)
	}
	got, _ = coGet(t, e, key, id)
	if !reflect.DeepEqual(got, u) {
		t.Fatalf("GET after PUT:\n put %v\n get %v", u, got)
	}
	e.Do(http.MethodPut, coPath(id), key, map[string]any{"collection_type": "smart", "rules": coRules("vendor", "equals", "x")}).Expect(t, 400)
	e.Do(http.MethodPut, coPath(id), key, map[string]any{"sort_order": "newest"}).Expect(t, 400)
	e.Do(http.MethodPut, coPath(id), key, map[string]any{"title": " "}).Expect(t, 400)
	e.Do(http.MethodPut, coPath(id), key, map[string]any{"published": "yes"}).Expect(t, 400)
	smart := coSmart(t, e, key, "Smart", false, "title", "contains", "thing")
	e.Do(http.MethodPut, coPath(smart), key, map[string]any{"collection_type": "manual"}).Expect(t, 400)
	coPut(t, e, key, smart, map[string]any{"collection_type": "smart", "title": "Still smart"})

	// Handles.
	if h := coCreate(t, e, key, map[string]any{"title": "Summer Sale"})["handle"]; h != "summer-sale-2" {
		t.Fatalf("second handle %v", h)
	}
	n := coCount(t, e, s.ID)
	e.Do(http.MethodPost, "/store/collections", key, map[string]any{"title": "X", "handle": "summer-sale"}).Expect(t, 409)
	for _, h := range []string{"Summer Sale", "summer_sale", "summer--sale", "-x", ""} {
		e.Do(http.MethodPost, "/store/collections", key, map[string]any{"title": "X", "handle": h}).Expect(t, 400)
	}
	if got := coCount(t, e, s.ID); got != n {
		t.Fatalf("refused creates stored collections")
	}
	e.Do(http.MethodPut, coPath(smart), key, map[string]any{"handle": "summer-sale"}).Expect(t, 409)
	avail := func(query string) bool {
		t.Helper()
		r := e.Do(http.MethodGet, "/store/collections/handle-available?"+query, key, nil).Expect(t, 200)
		if keys := sortedKeys(r.Body); !reflect.DeepEqual(keys, []string{"available", "status"}) {
			t.Fatalf("handle-available payload keys %v", keys)
		}
		return r.Body["available"].(bool)
	}
	for _, c := range []struct {
		query string
		want  bool
	}{
		{"handle=summer-sale", false}, {"handle=summer-sale-2", false}, {"handle=winter", true},
		{"handle=summer-sale&id=" + strconv.FormatInt(id, 10), true}, {"handle=summer-sale&id=" + strconv.FormatInt(smart, 10), false},
		{"handle=Summer%20Sale", false},
	} {
		if got := avail(c.query); got != c.want {
			t.Fatalf("handle-available?%s = %v, want %v", c.query, got, c.want)
		}
	}
	r = e.Do(http.MethodGet, "/store/collections/handle-available?handle=summer-sale", key, nil).Expect(t, 200)
	e.SameOnGraphQL(t, r, key, "CollectionHandleAvailable", map[string]any{"handle": "summer-sale"})
	e.Do(http.MethodGet, "/store/collections/handle-available", key, nil).Expect(t, 400)
	// A product's handle does not take a collection's.
	if avail("handle=thing") != true {
		t.Fatal("a product handle blocks a collection handle")
	}

	// Delete: bare; the products stay, without the membership.
	coBare(t, e.Do(http.MethodDelete, coPath(id), key, nil).Expect(t, 200))
	e.Do(http.MethodGet, coPath(id), key, nil).Expect(t, 404)
	e.Do(http.MethodDelete, coPath(id), key, nil).Expect(t, 404)
	e.Do(http.MethodGet, coPath(id, "/products"), key, nil).Expect(t, 404)
	if got := coProductCollections(t, e, key, p); !slices.Equal(got, []int64{smart}) {
		t.Fatalf("product's collections after delete %v", got)
	}
	getProduct(t, e, key, p)
	if g := e.GraphQL(key, `mutation($id: Int!) { deleteCollection(id: $id) }`, map[string]any{"id": smart}); g.Body["errors"] != nil || g.Data()["deleteCollection"] != true {
		t.Fatalf("GraphQL deleteCollection: %s", g.Raw)
	}
}

// TestCollectionOptionsPicker: GET /store/collections/options lists
// CatalogCollectionOption by title, filtered by q.
func TestCollectionOptionsPicker(t *testing.T) {
	e := apitest.New(t)
	s, other := e.Store("Acme"), e.Store("Bolt")
	key := e.Key(s.ID, auth.RoleAdmin)
	winter := idOf(t, coCreate(t, e, key, map[string]any{"title": "Winter", "published": false, "image_src": "https://cdn.example.com/w.png"}))
	autumn := idOf(t, coCreate(t, e, key, map[string]any{"title": "autumn"}))
	summer := idOf(t, coCreate(t, e, key, map[string]any{"title": "Summer", "handle": "hot-days"}))
	coCreate(t, e, e.Key(other.ID, auth.RoleAdmin), map[string]any{"title": "Spring"})

	get := func(query string) ([]map[string]any, int64, *apitest.Response) {
		t.Helper()
		path := "/store/collections/options"
		if query != "" {
			path += "?" + query
		}
		r := e.Do(http.MethodGet, path, key, nil).Expect(t, 200)
		if keys := sortedKeys(r.Body); !reflect.DeepEqual(keys, []string{"collections", "status", "total"}) {
			t.Fatalf("options payload keys %v", keys)
		}
		var rows []map[string]any
		if r.Body["collections"] != nil {
			rows = checkObjects(t, "options", r.Body["collections"], coPickerSpec)
		}
		return rows, wholeNumber(t, r.Body["total"]), r
	}
	rows, total, r := get("")
	if total != 3 || !slices.Equal(rowIDs(rows), []int64{autumn, summer, winter}) {
		t.Fatalf("options %v total %d", rowIDs(rows), total)
	}
	e.SameOnGraphQL(t, r, key, "ListCollectionOptions", nil)
	if w := rows[2]; w["title"] != "Winter" || w["handle"] != "winter" || w["published"] != false || w["image_src"] != "https://cdn.example.com/w.png" {
		t.Fatalf("winter option %v", w)
	}
	for _, c := range []struct {
		query string
		want  []int64
		total int64
	}{
		{"q=SUM", []int64{summer}, 1},
		{"q=hot", []int64{summer}, 1},
		{"q=er", []int64{summer, winter}, 2},
		{"q=er&limit=1&offset=1", []int64{winter}, 2},
		{"q=zzz", []int64{}, 0},
	} {
		rows, total, _ := get(c.query)
		if got := rowIDs(rows); !slices.Equal(got, c.want) || total != c.total {
			t.Fatalf("options?%s: %v total %d, want %v total %d", c.query, got, total, c.want, c.total)
		}
	}
	_, _, r = get("q=er&limit=1&offset=1")
	e.SameOnGraphQL(t, r, key, "ListCollectionOptions", map[string]any{"q": "er", "limit": 1, "offset": 1})
	e.Do(http.MethodGet, "/store/collections/options?limit=0", key, nil).Expect(t, 400)
}

// TestCollectionBulkDelete: bulk-delete removes the caller's store's
// collections among ids and says which.
func TestCollectionBulkDelete(t *testing.T) {
	e := apitest.New(t)
	a, b := e.Store("Acme"), e.Store("Bolt")
	aKey, bKey := e.Key(a.ID, auth.RoleAdmin), e.Key(b.ID, auth.RoleAdmin)
	p := createSimpleProduct(t, e, aKey, "P", 1, nil)
	var mine []int64
	for i := range 3 {
		mine = append(mine, idOf(t, coCreate(t, e, aKey, map[string]any{"title": "C" + strconv.Itoa(i), "product_ids": []int64{p}})))
	}
	theirs := idOf(t, coCreate(t, e, bKey, map[string]any{"title": "Theirs"}))
	r := e.Do(http.MethodPost, "/store/collections/bulk-delete", aKey, map[string]any{"ids": []int64{mine[0], mine[2], theirs, 999999}}).Expect(t, 200)
	if keys := sortedKeys(r.Body); !reflect.DeepEqual(keys, []string{"deleted", "ids", "status"}) {
		t.Fatalf("bulk-delete payload %s", r.Raw)
	}
	if got := wholeNumbersOrNull(t, r.Body["ids"]); !slices.Equal(slices.Sorted(slices.Values(got)), []int64{mine[0], mine[2]}) || wholeNumber(t, r.Body["deleted"]) != 2 {
		t.Fatalf("bulk-delete answered %s", r.Raw)
	}
	rows, total, _ := coList(t, e, aKey, "")
	if total != 1 || !slices.Equal(rowIDs(rows), []int64{mine[1]}) {
		t.Fatalf("left %v", rowIDs(rows))
	}
	coGet(t, e, bKey, theirs)
	if got := coProductCollections(t, e, aKey, p); !slices.Equal(got, []int64{mine[1]}) {
		t.Fatalf("product's collections %v", got)
	}
	for _, body := range []any{map[string]any{"ids": []int64{}}, map[string]any{}, map[string]any{"ids": "x"}} {
		e.Do(http.MethodPost, "/store/collections/bulk-delete", aKey, body).Expect(t, 400)
	}
	e.Do(http.MethodPost, "/store/collections/bulk-delete", e.Key(a.ID, auth.RoleAdmin, "collections:read"), map[string]any{"ids": []int64{mine[1]}}).Expect(t, 403)
	if n := coCount(t, e, a.ID); n != 1 {
		t.Fatalf("%d collections left", n)
	}
}

// TestCollectionAccess: the scope and role gates, and another store's
// collections as 404s.
func TestCollectionAccess(t *testing.T) {
	e := apitest.New(t)
	s, other := e.Store("Acme"), e.Store("Bolt")
	admin, otherKey := e.Key(s.ID, auth.RoleAdmin), e.Key(other.ID, auth.RoleAdmin)
	p := createSimpleProduct(t, e, admin, "P", 1, nil)
	id := idOf(t, coCreate(t, e, admin, map[string]any{"title": "Mine", "product_ids": []int64{p}}))
	pid := strconv.FormatInt(p, 10)

	reads := []apitest.Call{
		{Method: http.MethodGet, Path: "/store/collections"},
		{Method: http.MethodGet, Path: coPath(id)},
		{Method: http.MethodGet, Path: coPath(id, "/products")},
		{Method: http.MethodGet, Path: "/store/collections/options"},
		{Method: http.MethodGet, Path: "/store/collections/handle-available?handle=x"},
	}
	writes := []apitest.Call{
		{Method: http.MethodPost, Path: "/store/collections", Body: map[string]any{"title": "New"}},
		{Method: http.MethodPost, Path: "/store/collections", Body: "{bad"},
		{Method: http.MethodPut, Path: coPath(id), Body: map[string]any{"title": "Changed"}},
		{Method: http.MethodPost, Path: "/store/collections/preview", Body: map[string]any{"rules": coRules("title", "contains", "p")}},
		{Method: http.MethodPost, Path: coPath(id, "/products"), Body: map[string]any{"product_id": p}},
		{Method: http.MethodPut, Path: coPath(id, "/products/reorder"), Body: map[string]any{"product_ids": []int64{p}}},
		{Method: http.MethodDelete, Path: coPath(id, "/products/", pid)},
		{Method: http.MethodPost, Path: "/store/collections/bulk-delete", Body: map[string]any{"ids": []int64{id}}},
		{Method: http.MethodDelete, Path: coPath(id)},
	}
	all := append(slices.Clone(reads), writes...)
	e.ExpectEach(t, 401, map[string]string{"no key": "", "unknown key": "sa_api_unknown"}, all)
	e.ExpectEach(t, 403, map[string]string{
		"products:read":  e.Key(s.ID, auth.RoleAdmin, "products:read"),
		"products:write": e.Key(s.ID, auth.RoleStaff, "products:write"),
	}, all)
	readKey := e.Key(s.ID, auth.RoleAdmin, "collections:read")
	e.ExpectEach(t, 200, map[string]string{"collections:read": readKey, "staff collections:read": e.Key(s.ID, auth.RoleStaff, "collections:read")}, reads)
	e.ExpectEach(t, 403, map[string]string{"collections:read": readKey}, writes)
	if g := e.GraphQL(readKey, `mutation { createCollection(input: {title: "x"}) { id } }`, nil); g.ErrorCode() != "FORBIDDEN" {
		t.Fatalf("GraphQL create with a read key: %s", g.Raw)
	}
	if n := coCount(t, e, s.ID); n != 1 {
		t.Fatalf("refused writes left %d collections", n)
	}
	if got := coMemberIDs(t, e, admin, id); !slices.Equal(got, []int64{p}) {
		t.Fatalf("refused writes changed the members: %v", got)
	}

	// Writes need the admin role (w in the spec); staff may read.
	staff := e.Key(s.ID, auth.RoleStaff)
	e.Do(http.MethodGet, coPath(id), staff, nil).Expect(t, 200)
	e.Do(http.MethodPost, "/store/collections", staff, map[string]any{"title": "Staff's"}).Expect(t, 403)
	e.Do(http.MethodPost, coPath(id, "/products"), staff, map[string]any{"product_id": p}).Expect(t, 403)
	e.Do(http.MethodPost, "/store/collections/preview", staff, map[string]any{"rules": coRules("title", "contains", "p")}).Expect(t, 403)

	// Another store's collection is a 404 everywhere, like a missing one.
	theirP := createSimpleProduct(t, e, otherKey, "Theirs", 1, nil)
	theirs := idOf(t, coCreate(t, e, otherKey, map[string]any{"title": "Theirs", "product_ids": []int64{theirP}}))
	before, _ := coGet(t, e, otherKey, theirs)
	for _, cid := range []int64{theirs, 999999} {
		e.ExpectEach(t, 404, map[string]string{"admin": admin}, []apitest.Call{
			{Method: http.MethodGet, Path: coPath(cid)},
			{Method: http.MethodPut, Path: coPath(cid), Body: map[string]any{"title": "Mine now"}},
			{Method: http.MethodGet, Path: coPath(cid, "/products")},
			{Method: http.MethodPost, Path: coPath(cid, "/products"), Body: map[string]any{"product_id": p}},
			{Method: http.MethodDelete, Path: coPath(cid, "/products/", strconv.FormatInt(theirP, 10))},
			{Method: http.MethodPut, Path: coPath(cid, "/products/reorder"), Body: map[string]any{"product_ids": []int64{theirP}}},
			{Method: http.MethodDelete, Path: coPath(cid)},
		})
		for _, q := range []string{
			`query($id: Int!) { collection(id: $id) { id } }`,
			`query($id: Int!) { collectionProducts(id: $id) { id } }`,
			`query($id: Int!) { collectionProductsCount(id: $id) }`,
			`mutation($id: Int!) { updateCollection(id: $id, input: {title: "x"}) { id } }`,
			`mutation($id: Int!) { deleteCollection(id: $id) }`,
		} {
			expectGraphQLNotFound(t, e, admin, q, map[string]any{"id": cid})
		}
	}
	after, _ := coGet(t, e, otherKey, theirs)
	if !reflect.DeepEqual(after, before) {
		t.Fatalf("the other store's collection changed")
	}
	if got := coMemberIDs(t, e, otherKey, theirs); !slices.Equal(got, []int64{theirP}) {
		t.Fatalf("the other store's members changed: %v", got)
	}
	// The other store's membership is intact.
	n, err := e.DB.NewSelect().TableExpr("collection_products").Where("collection_id = ?", theirs).Count(context.Background())
	if err != nil || n != 1 {
		t.Fatalf("%d members of the other store's collection (%v)", n, err)
	}
}

// insertCollection inserts a manual collection of the store and returns its id.
func insertCollection(t *testing.T, e *apitest.Env, storeID int64, handle string) int64 {
	t.Helper()
	c := &models.Collection{StoreID: storeID, Handle: handle, Title: "Collection " + handle, CollectionType: "manual", SortOrder: "manual"}
	if _, err := e.DB.NewInsert().Model(c).Column("store_id", "handle", "title", "collection_type", "sort_order").Returning("id").Exec(context.Background()); err != nil {
		t.Fatalf("insert collection: %v", err)
	}
	return c.ID
}
