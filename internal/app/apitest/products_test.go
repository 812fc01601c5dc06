package apitest_test

import (
	"context"
	"net/http"
	"net/url"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"storeadmin/internal/app/apitest"
	"storeadmin/internal/auth"
	"storeadmin/models"
)

// The fields of the spec's catalogue views, exactly, with their JSON types:
// s string, s? string or null, i integer, i? integer or null, b boolean,
// ts RFC 3339 time in UTC, s[] and i[] arrays, obj an object, list an array
// (checked by the caller), any whatever is there.
var (
	pdViewSpec = map[string]string{
		"adplatform_category_id": "i", "body_html": "s", "collection_ids": "i[]", "handle": "s", "id": "i",
		"images": "list", "options": "list", "product_type": "s", "rating_avg": "i", "rating_count": "i",
		"seo": "obj", "status": "s", "tags": "s[]", "title": "s", "updated_at": "ts", "variants": "list", "vendor": "s",
	}
	pdImageSpec   = map[string]string{"alt": "s", "height": "i", "id": "i", "position": "i", "src": "s", "thumbhash": "s", "width": "i"}
	pdOptionSpec  = map[string]string{"name": "s", "position": "i", "values": "s[]"}
	pdVariantSpec = map[string]string{
		"barcode": "s", "compare_at_price_cents": "i?", "cost_cents": "i?", "id": "i", "image_id": "i?",
		"inventory_policy": "s", "inventory_quantity": "i", "option1": "s", "option2": "s", "option3": "s",
		"position": "i", "price_cents": "i", "requires_shipping": "b", "sku": "s", "taxable": "b", "title": "s",
		"track_inventory": "b", "weight_grams": "i",
	}
	pdListSpec = map[string]string{
		"handle": "s", "id": "i", "image_src": "s?", "price_cents": "i?", "product_type": "s", "rating_avg": "i",
		"rating_count": "i", "status": "s", "tags": "s[]", "title": "s", "updated_at": "ts", "vendor": "s",
	}
	pdPickerSpec = map[string]string{"handle": "s", "id": "i", "image_src": "s", "status": "s", "title": "s"}
)

// pdView checks v against ProductView, nested views included.
func pdView(t *testing.T, v any) map[string]any {
	t.Helper()
	m := checkObject(t, "product", v, pdViewSpec)
	checkObjects(t, "product.images", m["images"], pdImageSpec)
	checkObjects(t, "product.options", m["options"], pdOptionSpec)
	checkObjects(t, "product.variants", m["variants"], pdVariantSpec)
	return m
}

func productVariants(m map[string]any) []map[string]any { return objectsOf(m["variants"]) }
func productImages(m map[string]any) []map[string]any   { return objectsOf(m["images"]) }
func pdOptions(m map[string]any) []map[string]any       { return objectsOf(m["options"]) }

func pdStrings(v any) []string {
	l, _ := v.([]any)
	out := []string{}
	for _, e := range l {
		s, _ := e.(string)
		out = append(out, s)
	}
	return out
}

func productPath(id int64, rest ...string) string {
	return "/store/products/" + strconv.FormatInt(id, 10) + strings.Join(rest, "")
}

// createProduct creates a product over REST and returns its view.
func createProduct(t *testing.T, e *apitest.Env, key string, body any) map[string]any {
	t.Helper()
	r := e.Do(http.MethodPost, "/store/products", key, body).Expect(t, 201)
	if keys := sortedKeys(r.Body); !reflect.DeepEqual(keys, []string{"product", "status"}) {
		t.Fatalf("POST /store/products payload keys %v: %s", keys, r.Raw)
	}
	return pdView(t, r.Body["product"])
}

// createSimpleProduct creates a product with one variant of price cents and returns
// its id.
func createSimpleProduct(t *testing.T, e *apitest.Env, key, title string, cents int64, extra map[string]any) int64 {
	t.Helper()
	body := map[string]any{"title": title, "variants": []any{map[string]any{"price_cents": cents}}}
	for k, v := range extra {
		body[k] = v
	}
	return idOf(t, createProduct(t, e, key, body))
}

// getProduct reads one product over REST.
func getProduct(t *testing.T, e *apitest.Env, key string, id int64) (map[string]any, *apitest.Response) {
	t.Helper()
	r := e.Do(http.MethodGet, productPath(id), key, nil).Expect(t, 200)
	if keys := sortedKeys(r.Body); !reflect.DeepEqual(keys, []string{"product", "status"}) {
		t.Fatalf("GET product payload keys %v: %s", keys, r.Raw)
	}
	return pdView(t, r.Body["product"]), r
}

// putProduct updates one product over REST.
func putProduct(t *testing.T, e *apitest.Env, key string, id int64, body any) map[string]any {
	t.Helper()
	r := e.Do(http.MethodPut, productPath(id), key, body).Expect(t, 200)
	if keys := sortedKeys(r.Body); !reflect.DeepEqual(keys, []string{"product", "status"}) {
		t.Fatalf("PUT product payload keys %v: %s", keys, r.Raw)
	}
	return pdView(t, r.Body["product"])
}

// pdList reads GET /store/products?query and returns the rows and total.
func pdList(t *testing.T, e *apitest.Env, key, query string) ([]map[string]any, int64, *apitest.Response) {
	t.Helper()
	path := "/store/products"
	if query != "" {
		path += "?" + query
	}
	r := e.Do(http.MethodGet, path, key, nil).Expect(t, 200)
	if keys := sortedKeys(r.Body); !reflect.DeepEqual(keys, []string{"next_cursor", "products", "status", "total"}) {
		t.Fatalf("GET %s payload keys %v: %s", path, keys, r.Raw)
	}
	var rows []map[string]any
	if r.Body["products"] != nil {
		rows = checkObjects(t, "products", r.Body["products"], pdListSpec)
	}
	return rows, wholeNumber(t, r.Body["total"]), r
}

// countProducts counts the rows of table (products, product_variants,
// product_images ...) of the store.
func countProducts(t *testing.T, e *apitest.Env, table string, storeID int64) int {
	t.Helper()
	n, err := e.DB.NewSelect().TableExpr(table).Where("store_id = ?", storeID).Count(context.Background())
	if err != nil {
		t.Fatalf("count %s: %v", table, err)
	}
	return int(n)
}

// TestProductCreateView: a create answers 201 with the whole ProductView,
// each field of the spec's type, with the values sent and the defaults; a
// read answers the same, on both surfaces.
func TestProductCreateView(t *testing.T) {
	e := apitest.New(t)
	s := e.Store("Acme")
	admin := e.Key(s.ID, auth.RoleAdmin)

	p := createProduct(t, e, admin, map[string]any{
		"title":                  "Blue Cotton Shirt",
		"body_html":              "<p>Soft.</p>",
		"vendor":                 "Acme",
		"product_type":           "Shirts",
		"status":                 "active",
		"tags":                   []string{"summer", " cotton ", "Summer", ""},
		"seo":                    map[string]any{"title": "Blue shirt", "description": "A blue shirt"},
		"adplatform_category_id": 212,
		"rating_avg":             5, // read-only: ignored
		"id":                     999999,
		"options":                []any{map[string]any{"name": "Size", "values": []string{"M", "S"}}, map[string]any{"name": "Color"}},
		"variants": []any{
			map[string]any{"option1": "S", "option2": "Blue", "sku": "BCS-S", "barcode": "0001", "price_cents": 2500,
				"compare_at_price_cents": 3000, "cost_cents": 1200, "weight_grams": 200, "inventory_quantity": 5,
				"inventory_policy": "continue", "track_inventory": false, "taxable": false, "requires_shipping": false,
				"image_src": "https://cdn.example.com/blue-front.jpg"},
			map[string]any{"option1": "M", "option2": "Blue", "sku": "BCS-M", "price_cents": 2700},
		},
		"images": []any{
			map[string]any{"src": "https://cdn.example.com/blue-front.jpg", "alt": "Front"},
			map[string]any{"src": "https://cdn.example.com/blue-back.jpg"},
		},
	})
	id := idOf(t, p)
	if id == 999999 {
		t.Fatal("the id was taken from the body")
	}
	for k, want := range map[string]any{
		"title": "Blue Cotton Shirt", "handle": "blue-cotton-shirt", "body_html": "<p>Soft.</p>", "vendor": "Acme",
		"product_type": "Shirts", "status": "active", "adplatform_category_id": float64(212), "rating_avg": float64(0), "rating_count": float64(0),
	} {
		if p[k] != want {
			t.Fatalf("%s = %#v, want %#v", k, p[k], want)
		}
	}
	if got := pdStrings(p["tags"]); !slices.Equal(got, []string{"summer", "cotton"}) {
		t.Fatalf("tags %v", got)
	}
	if !reflect.DeepEqual(p["seo"], map[string]any{"title": "Blue shirt", "description": "A blue shirt"}) {
		t.Fatalf("seo %v", p["seo"])
	}
	if ids := wholeNumbersOrNull(t, p["collection_ids"]); len(ids) != 0 {
		t.Fatalf("collection_ids %v", ids)
	}
	opts := pdOptions(p)
	if len(opts) != 2 || opts[0]["name"] != "Size" || opts[0]["position"] != float64(1) || !slices.Equal(pdStrings(opts[0]["values"]), []string{"M", "S"}) ||
		opts[1]["name"] != "Color" || opts[1]["position"] != float64(2) || !slices.Equal(pdStrings(opts[1]["values"]), []string{"Blue"}) {
		t.Fatalf("options %v", p["options"])
	}
	imgs := productImages(p)
	if len(imgs) != 2 {
		t.Fatalf("images %v", p["images"])
	}
	for i, want := range []struct{ src, alt string }{{"https://cdn.example.com/blue-front.jpg", "Front"}, {"https://cdn.example.com/blue-back.jpg", ""}} {
		img := imgs[i]
		if img["src"] != want.src || img["alt"] != want.alt || img["position"] != float64(i+1) || img["width"] != float64(0) || img["height"] != float64(0) || img["thumbhash"] != "" {
			t.Fatalf("images[%d] = %v", i, img)
		}
	}
	vs := productVariants(p)
	if len(vs) != 2 {
		t.Fatalf("variants %v", p["variants"])
	}
	front := idOf(t, imgs[0])
	want0 := map[string]any{"barcode": "0001", "compare_at_price_cents": float64(3000), "cost_cents": float64(1200), "image_id": float64(front),
		"inventory_policy": "continue", "inventory_quantity": float64(5), "option1": "S", "option2": "Blue", "option3": "", "position": float64(1),
		"price_cents": float64(2500), "requires_shipping": false, "sku": "BCS-S", "taxable": false, "title": "S / Blue", "track_inventory": false, "weight_grams": float64(200)}
	want1 := map[string]any{"barcode": "", "compare_at_price_cents": nil, "cost_cents": nil, "image_id": nil,
		"inventory_policy": "deny", "inventory_quantity": float64(0), "option1": "M", "option2": "Blue", "option3": "", "position": float64(2),
		"price_cents": float64(2700), "requires_shipping": true, "sku": "BCS-M", "taxable": true, "title": "M / Blue", "track_inventory": true, "weight_grams": float64(0)}
	for i, want := range []map[string]any{want0, want1} {
		got := map[string]any{}
		for k, v := range vs[i] {
			if k != "id" {
				got[k] = v
			}
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("variants[%d]:\n got  %v\n want %v", i, got, want)
		}
	}
	if idOf(t, vs[0]) == idOf(t, vs[1]) {
		t.Fatal("two variants share an id")
	}

	// A read answers the very same view, and GraphQL agrees.
	got, r := getProduct(t, e, admin, id)
	if !reflect.DeepEqual(got, p) {
		t.Fatalf("GET differs from the create answer:\n create %v\n get    %v", p, got)
	}
	e.SameOnGraphQL(t, r, admin, "GetProduct", map[string]any{"id": id})
	if n := countProducts(t, e, "products", s.ID); n != 1 {
		t.Fatalf("%d products stored", n)
	}

	// Bad values are 400s naming the field; nothing is stored.
	for _, body := range []any{
		map[string]any{},
		map[string]any{"title": "   "},
		map[string]any{"title": 5},
		map[string]any{"title": "X", "status": "deleted"},
		map[string]any{"title": "X", "tags": []any{1}},
		map[string]any{"title": "X", "seo": map[string]any{"keywords": "x"}},
		map[string]any{"title": "X", "seo": "text"},
		map[string]any{"title": "X", "adplatform_category_id": -1},
		map[string]any{"title": "X", "images": []any{map[string]any{"src": "not a url"}}},
		map[string]any{"title": "X", "images": []any{map[string]any{"src": "ftp://example.com/a.png"}}},
		map[string]any{"title": "X", "images": []any{map[string]any{"src": "https://example.com/a.png"}, map[string]any{"src": "https://example.com/a.png"}}},
		"[]",
		"{",
	} {
		e.Do(http.MethodPost, "/store/products", admin, body).Expect(t, 400)
	}
	if n := countProducts(t, e, "products", s.ID); n != 1 {
		t.Fatalf("%d products stored after refused creates", n)
	}
}

// TestProductDefaultVariant: a product created without variants has the
// one option Title and one Default Title variant with the defaults.
func TestProductDefaultVariant(t *testing.T) {
	e := apitest.New(t)
	s := e.Store("Acme")
	admin := e.Key(s.ID, auth.RoleAdmin)

	p := createProduct(t, e, admin, map[string]any{"title": "Gift Card"})
	if p["status"] != "draft" || p["vendor"] != "" || p["product_type"] != "" || p["body_html"] != "" ||
		!reflect.DeepEqual(p["seo"], map[string]any{}) || len(pdStrings(p["tags"])) != 0 || len(productImages(p)) != 0 || p["adplatform_category_id"] != float64(0) {
		t.Fatalf("defaults: %v", p)
	}
	opts := pdOptions(p)
	if len(opts) != 1 || opts[0]["name"] != "Title" || opts[0]["position"] != float64(1) || !slices.Equal(pdStrings(opts[0]["values"]), []string{"Default Title"}) {
		t.Fatalf("options %v", p["options"])
	}
	vs := productVariants(p)
	if len(vs) != 1 {
		t.Fatalf("variants %v", p["variants"])
	}
	v := vs[0]
	for k, want := range map[string]any{"title": "Default Title", "option1": "Default Title", "option2": "", "option3": "", "position": float64(1),
		"price_cents": float64(0), "sku": "", "barcode": "", "compare_at_price_cents": nil, "cost_cents": nil, "image_id": nil,
		"inventory_policy": "deny", "inventory_quantity": float64(0), "track_inventory": true, "taxable": true, "requires_shipping": true, "weight_grams": float64(0)} {
		if v[k] != want {
			t.Fatalf("default variant %s = %#v, want %#v", k, v[k], want)
		}
	}
	// A single variant sent without options is the default variant too.
	p2 := createProduct(t, e, admin, map[string]any{"title": "Poster", "variants": []any{map[string]any{"price_cents": 1500, "sku": "POSTER"}}})
	v2 := productVariants(p2)
	if len(v2) != 1 || v2[0]["title"] != "Default Title" || v2[0]["option1"] != "Default Title" || v2[0]["price_cents"] != float64(1500) || v2[0]["sku"] != "POSTER" {
		t.Fatalf("single variant: %v", p2["variants"])
	}
	// Changing the price keeps the one variant (its id) when it is named.
	vid := idOf(t, v2[0])
	p3 := putProduct(t, e, admin, idOf(t, p2), map[string]any{"variants": []any{map[string]any{"id": vid, "price_cents": 1700}}})
	if v3 := productVariants(p3); len(v3) != 1 || idOf(t, v3[0]) != vid || v3[0]["price_cents"] != float64(1700) || v3[0]["sku"] != "POSTER" {
		t.Fatalf("updated single variant: %v", p3["variants"])
	}
}

// TestProductHandles: handles come from the title (with -2, -3 when
// taken), must be well formed, and are unique per store; handle-available
// says so.
func TestProductHandles(t *testing.T) {
	e := apitest.New(t)
	s := e.Store("Acme")
	other := e.Store("Bolt")
	admin := e.Key(s.ID, auth.RoleAdmin)
	otherKey := e.Key(other.ID, auth.RoleAdmin)

	first := createProduct(t, e, admin, map[string]any{"title": "Blue Shirt"})
	second := createProduct(t, e, admin, map[string]any{"title": "Blue Shirt"})
	third := createProduct(t, e, admin, map[string]any{"title": "  blue   SHIRT! "})
	if first["handle"] != "blue-shirt" || second["handle"] != "blue-shirt-2" || third["handle"] != "blue-shirt-3" {
		t.Fatalf("generated handles %v, %v, %v", first["handle"], second["handle"], third["handle"])
	}
	if h := createProduct(t, e, admin, map[string]any{"title": "Crème Brûlée 2"})["handle"]; h != "creme-brulee-2" {
		t.Fatalf("accented title gives %v", h)
	}
	if h := createProduct(t, e, admin, map[string]any{"title": "Chosen", "handle": " my-own-handle "})["handle"]; h != "my-own-handle" {
		t.Fatalf("explicit handle %v", h)
	}
	// Another store has its own handles.
	if h := createProduct(t, e, otherKey, map[string]any{"title": "Blue Shirt"})["handle"]; h != "blue-shirt" {
		t.Fatalf("other store's handle %v", h)
	}

	n := countProducts(t, e, "products", s.ID)
	e.Do(http.MethodPost, "/store/products", admin, map[string]any{"title": "X", "handle": "blue-shirt"}).Expect(t, 409)
	e.Do(http.MethodPost, "/store/products", admin, map[string]any{"title": "X", "handle": "blue-shirt-2"}).Expect(t, 409)
	for _, h := range []string{"Blue-Shirt", "blue shirt", "blue--shirt", "-blue", "blue-", "blue_shirt", "bluë", "", strings.Repeat("a", 256)} {
		e.Do(http.MethodPost, "/store/products", admin, map[string]any{"title": "X", "handle": h}).Expect(t, 400)
	}
	if got := countProducts(t, e, "products", s.ID); got != n {
		t.Fatalf("refused creates stored products: %d, want %d", got, n)
	}

	// Updates: a taken handle is a 409, a bad one a 400, its own is fine.
	id2 := idOf(t, second)
	e.Do(http.MethodPut, productPath(id2), admin, map[string]any{"handle": "blue-shirt"}).Expect(t, 409)
	e.Do(http.MethodPut, productPath(id2), admin, map[string]any{"handle": "Blue Shirt"}).Expect(t, 400)
	if h := putProduct(t, e, admin, id2, map[string]any{"handle": "blue-shirt-2", "title": "Renamed"})["handle"]; h != "blue-shirt-2" {
		t.Fatalf("a title change moved the handle to %v", h)
	}
	if h := putProduct(t, e, admin, id2, map[string]any{"handle": "navy-shirt"})["handle"]; h != "navy-shirt" {
		t.Fatalf("renamed handle %v", h)
	}

	// handle-available, with id excluding the product being edited.
	avail := func(query string) bool {
		t.Helper()
		r := e.Do(http.MethodGet, "/store/products/handle-available?"+query, admin, nil).Expect(t, 200)
		if keys := sortedKeys(r.Body); !reflect.DeepEqual(keys, []string{"available", "status"}) {
			t.Fatalf("handle-available payload keys %v", keys)
		}
		b, ok := r.Body["available"].(bool)
		if !ok {
			t.Fatalf("available = %#v", r.Body["available"])
		}
		return b
	}
	id1 := idOf(t, first)
	for _, c := range []struct {
		query string
		want  bool
	}{
		{"handle=blue-shirt", false},
		{"handle=navy-shirt", false},
		{"handle=blue-shirt-2", true}, // freed by the rename
		{"handle=brand-new", true},
		{"handle=blue-shirt&id=" + strconv.FormatInt(id1, 10), true},
		{"handle=blue-shirt&id=" + strconv.FormatInt(id2, 10), false},
		{"handle=" + url.QueryEscape("Blue Shirt"), false},
		{"handle=" + url.QueryEscape(" brand-new "), true},
	} {
		if got := avail(c.query); got != c.want {
			t.Fatalf("handle-available?%s = %v, want %v", c.query, got, c.want)
		}
	}
	r := e.Do(http.MethodGet, "/store/products/handle-available?handle=blue-shirt&id="+strconv.FormatInt(id1, 10), admin, nil).Expect(t, 200)
	e.SameOnGraphQL(t, r, admin, "ProductHandleAvailable", map[string]any{"handle": "blue-shirt", "id": id1})
	e.Do(http.MethodGet, "/store/products/handle-available", admin, nil).Expect(t, 400)
	e.Do(http.MethodGet, "/store/products/handle-available?handle=x&id=abc", admin, nil).Expect(t, 400)
}

// pdSizeColor is the options and variants of a product in sizes S and M
// and colours Red and Blue.
func pdSizeColor(prefix string) map[string]any {
	var vs []any
	for _, size := range []string{"S", "M"} {
		for i, color := range []string{"Red", "Blue"} {
			vs = append(vs, map[string]any{"option1": size, "option2": color, "sku": prefix + "-" + size + "-" + color, "price_cents": 1000 + 100*i})
		}
	}
	return map[string]any{
		"options":  []any{map[string]any{"name": "Size", "values": []string{"S", "M"}}, map[string]any{"name": "Color", "values": []string{"Red", "Blue"}}},
		"variants": vs,
	}
}

// TestProductOptionsVariants: options and variants, and the 400s and 409s
// of bad combinations, prices and SKUs.
func TestProductOptionsVariants(t *testing.T) {
	e := apitest.New(t)
	s := e.Store("Acme")
	other := e.Store("Bolt")
	admin := e.Key(s.ID, auth.RoleAdmin)
	otherKey := e.Key(other.ID, auth.RoleAdmin)

	body := pdSizeColor("TEE")
	body["title"] = "Tee"
	p := createProduct(t, e, admin, body)
	opts := pdOptions(p)
	if len(opts) != 2 || opts[0]["name"] != "Size" || !slices.Equal(pdStrings(opts[0]["values"]), []string{"S", "M"}) ||
		opts[1]["name"] != "Color" || !slices.Equal(pdStrings(opts[1]["values"]), []string{"Red", "Blue"}) {
		t.Fatalf("options %v", p["options"])
	}
	var titles []string
	for i, v := range productVariants(p) {
		titles = append(titles, v["title"].(string))
		if v["position"] != float64(i+1) || v["option3"] != "" {
			t.Fatalf("variants[%d] = %v", i, v)
		}
	}
	if !slices.Equal(titles, []string{"S / Red", "S / Blue", "M / Red", "M / Blue"}) {
		t.Fatalf("variant titles %v", titles)
	}

	// Values left out of options come from the variants, in their order;
	// values no variant uses are dropped.
	p2 := createProduct(t, e, admin, map[string]any{"title": "Cap", "options": []any{map[string]any{"name": "Size", "values": []string{"XL", "M"}}},
		"variants": []any{map[string]any{"option1": "L", "price_cents": 1}, map[string]any{"option1": "M", "price_cents": 2}}})
	if got := pdStrings(pdOptions(p2)[0]["values"]); !slices.Equal(got, []string{"M", "L"}) {
		t.Fatalf("derived values %v", got)
	}

	n := countProducts(t, e, "products", s.ID)
	bad := func(opts []any, vs ...map[string]any) {
		t.Helper()
		list := make([]any, len(vs))
		for i, v := range vs {
			list[i] = v
		}
		body := map[string]any{"title": "Bad", "variants": list}
		if opts != nil {
			body["options"] = opts
		}
		e.Do(http.MethodPost, "/store/products", admin, body).Expect(t, 400)
	}
	size := []any{map[string]any{"name": "Size"}}
	sizeColor := []any{map[string]any{"name": "Size"}, map[string]any{"name": "Color"}}
	v := func(kv ...any) map[string]any {
		m := map[string]any{"price_cents": 100}
		for i := 0; i < len(kv); i += 2 {
			m[kv[i].(string)] = kv[i+1]
		}
		return m
	}
	bad(sizeColor, v("option1", "S", "option2", "Red"), v("option1", "S", "option2", "Red"))   // duplicate combination
	bad(sizeColor, v("option1", "S", "option2", "Red"), v("option1", "s", "option2", " RED ")) // the same, case and spaces aside
	bad(size, v("option1", "S", "price_cents", -1))
	bad(size, v("option1", "S", "compare_at_price_cents", -1))
	bad(size, v("option1", "S", "cost_cents", -5))
	bad(size, v("option1", "S", "weight_grams", -5))
	bad(size, v("option1", "S", "inventory_policy", "sometimes"))
	bad(size, v("option1", "S", "price_cents", "12.50"))
	bad(size, map[string]any{"option1": "S"}) // price_cents is required
	bad(sizeColor, v("option1", "S"))         // no value for Color
	bad(size, v("option1", "S", "option2", "Red"))
	bad(size, v())
	bad(nil, v(), v("sku", "B"))                                                // two variants, no options to tell them apart
	bad(size, v("option1", "S", "sku", "DUP"), v("option1", "M", "sku", "dup")) // one SKU twice
	bad(size)                                                                   // no variants at all
	bad([]any{map[string]any{"name": "Size"}, map[string]any{"name": "size"}}, v("option1", "S", "option2", "M"))
	bad([]any{map[string]any{"name": "A"}, map[string]any{"name": "B"}, map[string]any{"name": "C"}, map[string]any{"name": "D"}}, v("option1", "a", "option2", "b", "option3", "c"))
	bad(size, v("option1", "S", "image_src", "https://cdn.example.com/nope.png"))
	e.Do(http.MethodPost, "/store/products", admin, map[string]any{"title": "Bad", "variants": []any{map[string]any{"id": idOf(t, productVariants(p)[0]), "price_cents": 1}}}).Expect(t, 400)

	// A SKU of another product is a conflict, whatever its case; another
	// store's SKUs are not.
	e.Do(http.MethodPost, "/store/products", admin, map[string]any{"title": "Bad", "variants": []any{v("sku", "TEE-S-Red")}}).Expect(t, 409)
	e.Do(http.MethodPost, "/store/products", admin, map[string]any{"title": "Bad", "variants": []any{v("sku", "tee-s-red")}}).Expect(t, 409)
	if got := countProducts(t, e, "products", s.ID); got != n {
		t.Fatalf("refused creates stored products: %d, want %d", got, n)
	}
	createProduct(t, e, otherKey, map[string]any{"title": "Theirs", "variants": []any{v("sku", "TEE-S-Red")}})
	capID := idOf(t, p2)
	e.Do(http.MethodPut, productPath(capID), admin, map[string]any{"variants": []any{v("option1", "L", "sku", "TEE-M-Blue")}}).Expect(t, 409)

	// A product keeps its own SKUs across an update, even when they move
	// between its variants.
	vs := productVariants(p)
	swap := []any{}
	for i, vv := range vs {
		j := len(vs) - 1 - i
		swap = append(swap, map[string]any{"id": idOf(t, vv), "price_cents": 500, "sku": vs[j]["sku"]})
	}
	up := putProduct(t, e, admin, idOf(t, p), map[string]any{"variants": swap})
	for i, vv := range productVariants(up) {
		if idOf(t, vv) != idOf(t, vs[i]) || vv["sku"] != vs[len(vs)-1-i]["sku"] || vv["option1"] != vs[i]["option1"] || vv["option2"] != vs[i]["option2"] {
			t.Fatalf("swapped SKUs: variants[%d] = %v", i, vv)
		}
	}
}

// TestProductUpdate: a partial update keeps what it does not name;
// variants sent with ids keep them, variants left out go; images are
// matched by src.
func TestProductUpdate(t *testing.T) {
	e := apitest.New(t)
	s := e.Store("Acme")
	admin := e.Key(s.ID, auth.RoleAdmin)

	img := func(name string) string { return "https://cdn.example.com/" + name + ".png" }
	p := createProduct(t, e, admin, map[string]any{
		"title": "Hoodie", "vendor": "Acme", "tags": []string{"warm"},
		"options": []any{map[string]any{"name": "Size"}},
		"variants": []any{
			map[string]any{"option1": "S", "sku": "H-S", "price_cents": 4000},
			map[string]any{"option1": "M", "sku": "H-M", "price_cents": 4200, "cost_cents": 2000, "image_src": img("b")},
			map[string]any{"option1": "L", "sku": "H-L", "price_cents": 4400},
		},
		"images": []any{map[string]any{"src": img("a"), "alt": "A"}, map[string]any{"src": img("b"), "alt": "B"}},
	})
	id := idOf(t, p)
	vs, imgs := productVariants(p), productImages(p)
	vS, vM, vL := idOf(t, vs[0]), idOf(t, vs[1]), idOf(t, vs[2])
	imgA, imgB := idOf(t, imgs[0]), idOf(t, imgs[1])
	if vs[1]["image_id"] != float64(imgB) {
		t.Fatalf("variant M image_id %v, want %d", vs[1]["image_id"], imgB)
	}

	// A partial update changes only what it names.
	time.Sleep(5 * time.Millisecond)
	u := putProduct(t, e, admin, id, map[string]any{"title": "Zip Hoodie", "status": "active"})
	if u["title"] != "Zip Hoodie" || u["status"] != "active" || u["handle"] != "hoodie" || u["vendor"] != "Acme" ||
		!reflect.DeepEqual(u["variants"], p["variants"]) || !reflect.DeepEqual(u["images"], p["images"]) || !reflect.DeepEqual(u["tags"], p["tags"]) {
		t.Fatalf("partial update:\n before %v\n after  %v", p, u)
	}
	before, _ := time.Parse(time.RFC3339Nano, p["updated_at"].(string))
	after, _ := time.Parse(time.RFC3339Nano, u["updated_at"].(string))
	if !after.After(before) {
		t.Fatalf("updated_at %v did not move past %v", after, before)
	}

	// Variants: M kept (id and unsent fields), XL new, S and L removed.
	// Images: b kept (id), c new, a removed; positions follow the list.
	u = putProduct(t, e, admin, id, map[string]any{
		"variants": []any{
			map[string]any{"id": vM, "option1": "M", "price_cents": 3900, "image_src": img("c")},
			map[string]any{"option1": "XL", "sku": "H-XL", "price_cents": 4600},
		},
		"images": []any{map[string]any{"src": img("b"), "alt": "B2"}, map[string]any{"src": img("c")}},
	})
	vs, imgs = productVariants(u), productImages(u)
	if len(vs) != 2 || len(imgs) != 2 {
		t.Fatalf("after update: %v", u)
	}
	if idOf(t, imgs[0]) != imgB || imgs[0]["alt"] != "B2" || imgs[0]["position"] != float64(1) || imgs[1]["src"] != img("c") || imgs[1]["position"] != float64(2) {
		t.Fatalf("images %v", u["images"])
	}
	imgC := idOf(t, imgs[1])
	if imgC == imgA || imgC == imgB {
		t.Fatalf("new image reuses id %d", imgC)
	}
	m, xl := vs[0], vs[1]
	if idOf(t, m) != vM || m["price_cents"] != float64(3900) || m["sku"] != "H-M" || m["cost_cents"] != float64(2000) || m["position"] != float64(1) || m["image_id"] != float64(imgC) {
		t.Fatalf("kept variant %v", m)
	}
	if x := idOf(t, xl); x == vS || x == vM || x == vL || xl["title"] != "XL" || xl["sku"] != "H-XL" || xl["position"] != float64(2) {
		t.Fatalf("new variant %v", xl)
	}
	if got := pdStrings(pdOptions(u)[0]["values"]); !slices.Equal(got, []string{"M", "XL"}) {
		t.Fatalf("option values %v", got)
	}
	if n := countProducts(t, e, "product_variants", s.ID); n != 2 {
		t.Fatalf("%d variants stored, want 2", n)
	}
	if n := countProducts(t, e, "product_images", s.ID); n != 2 {
		t.Fatalf("%d images stored, want 2", n)
	}
	got, r := getProduct(t, e, admin, id)
	if !reflect.DeepEqual(got, u) {
		t.Fatalf("GET after PUT:\n put %v\n get %v", u, got)
	}
	e.SameOnGraphQL(t, r, admin, "GetProduct", map[string]any{"id": id})
	// The SKUs of removed variants are free again.
	createProduct(t, e, admin, map[string]any{"title": "Other", "variants": []any{map[string]any{"sku": "H-S", "price_cents": 1}}})

	// Sending back the object read changes nothing but updated_at: a
	// variant sent without image_src keeps its image.
	back := putProduct(t, e, admin, id, got)
	delete(back, "updated_at")
	delete(got, "updated_at")
	if !reflect.DeepEqual(back, got) {
		t.Fatalf("sending the product back changed it:\n sent %v\n got  %v", got, back)
	}
	// A variant may name only one of the product's images, whether the
	// images are sent or not.
	e.Do(http.MethodPut, productPath(id), admin, map[string]any{"variants": []any{map[string]any{"id": vM, "option1": "M", "price_cents": 1, "image_src": img("a")}}}).Expect(t, 400)
	e.Do(http.MethodPut, productPath(id), admin, map[string]any{"images": []any{map[string]any{"src": img("b")}},
		"variants": []any{map[string]any{"id": vM, "option1": "M", "price_cents": 1, "image_src": img("c")}}}).Expect(t, 400)
	u = putProduct(t, e, admin, id, map[string]any{"variants": []any{
		map[string]any{"id": vM, "option1": "M", "price_cents": 3900, "image_src": " " + img("b") + " "},
		map[string]any{"id": idOf(t, xl), "option1": "XL", "price_cents": 4600},
	}})
	if vs := productVariants(u); vs[0]["image_id"] != float64(imgB) || vs[1]["image_id"] != nil || !reflect.DeepEqual(u["images"], got["images"]) {
		t.Fatalf("variant linked to an existing image: %v", u)
	}
	// Left out, image_src keeps the link; empty, it removes it.
	u = putProduct(t, e, admin, id, map[string]any{"variants": []any{
		map[string]any{"id": vM, "option1": "M", "price_cents": 3900},
		map[string]any{"id": idOf(t, xl), "option1": "XL", "price_cents": 4600},
	}})
	if vs := productVariants(u); vs[0]["image_id"] != float64(imgB) {
		t.Fatalf("a variant sent without image_src lost its image: %v", vs[0])
	}
	u = putProduct(t, e, admin, id, map[string]any{"variants": []any{
		map[string]any{"id": vM, "option1": "M", "price_cents": 3900, "image_src": ""},
		map[string]any{"id": idOf(t, xl), "option1": "XL", "price_cents": 4600},
	}})
	if vs := productVariants(u); vs[0]["image_id"] != nil {
		t.Fatalf("image_src \"\" must remove the variant's image: %v", vs[0])
	}
	u = putProduct(t, e, admin, id, map[string]any{"variants": []any{
		map[string]any{"id": vM, "option1": "M", "price_cents": 3900, "image_src": img("b")},
		map[string]any{"id": idOf(t, xl), "option1": "XL", "price_cents": 4600},
	}})
	if vs := productVariants(u); vs[0]["image_id"] == nil {
		t.Fatalf("image_src must link the variant to its image again: %v", vs[0])
	}

	// Changing only the images keeps the variants; a link to a removed
	// image goes.
	u = putProduct(t, e, admin, id, map[string]any{"images": []any{map[string]any{"src": img("c")}}})
	if vs := productVariants(u); len(vs) != 2 || idOf(t, vs[0]) != vM || vs[0]["image_id"] != nil || idOf(t, productImages(u)[0]) != imgC {
		t.Fatalf("variants after an image change: %v", u["variants"])
	}
	u = putProduct(t, e, admin, id, map[string]any{"images": []any{}})
	if len(productImages(u)) != 0 || len(productVariants(u)) != 2 {
		t.Fatalf("after removing the images: %v", u)
	}

	// Options need variants on update; unknown variant ids are refused.
	e.Do(http.MethodPut, productPath(id), admin, map[string]any{"options": []any{map[string]any{"name": "Colour"}}}).Expect(t, 400)
	e.Do(http.MethodPut, productPath(id), admin, map[string]any{"variants": []any{map[string]any{"id": vS, "price_cents": 1}}}).Expect(t, 400)
	e.Do(http.MethodPut, productPath(id), admin, map[string]any{"variants": []any{}}).Expect(t, 400)
	e.Do(http.MethodPut, productPath(id), admin, map[string]any{"title": ""}).Expect(t, 400)
	// Options can be renamed and added with the variants.
	u = putProduct(t, e, admin, id, map[string]any{
		"options":  []any{map[string]any{"name": "Size"}, map[string]any{"name": "Fit"}},
		"variants": []any{map[string]any{"id": vM, "option1": "M", "option2": "Slim", "price_cents": 3900}},
	})
	if vs := productVariants(u); len(vs) != 1 || idOf(t, vs[0]) != vM || vs[0]["title"] != "M / Slim" || len(pdOptions(u)) != 2 {
		t.Fatalf("after adding an option: %v", u)
	}
}

// pdFixture is a store with four products and a manual collection, and
// another store with one product.
type pdFixture struct {
	e                      *apitest.Env
	s, other               *models.Store
	key, otherKey          string
	alpha, beta, gamma, dl int64
	theirs, coll           int64
}

func pdListFixture(t *testing.T) *pdFixture {
	t.Helper()
	e := apitest.New(t)
	f := &pdFixture{e: e, s: e.Store("Acme"), other: e.Store("Bolt")}
	f.key = e.Key(f.s.ID, auth.RoleAdmin)
	f.otherKey = e.Key(f.other.ID, auth.RoleAdmin)
	f.alpha = idOf(t, createProduct(t, e, f.key, map[string]any{"title": "Alpha Shirt", "vendor": "Acme", "product_type": "Shirts", "tags": []string{"summer", "cotton"}, "status": "active",
		"options":  []any{map[string]any{"name": "Size"}},
		"variants": []any{map[string]any{"option1": "S", "sku": "ALPHA-S", "price_cents": 2500}, map[string]any{"option1": "M", "sku": "ALPHA-M", "price_cents": 1500}},
		"images":   []any{map[string]any{"src": "https://cdn.example.com/alpha.png"}, map[string]any{"src": "https://cdn.example.com/alpha-2.png"}}}))
	f.beta = createSimpleProduct(t, e, f.key, "Beta Mug", 900, map[string]any{"vendor": "Bolt", "product_type": "Mugs", "tags": []string{"kitchen"}})
	f.gamma = createSimpleProduct(t, e, f.key, "Gamma Hat", 3000, map[string]any{"vendor": "ACME", "product_type": "Hats", "tags": []string{"summer"}, "status": "archived",
		"variants": []any{map[string]any{"sku": "HAT-9", "price_cents": 3000}}})
	f.dl = createSimpleProduct(t, e, f.key, "Delta Socks", 1500, map[string]any{"vendor": "Cobalt", "product_type": "Socks", "status": "active"})
	f.theirs = createSimpleProduct(t, e, f.otherKey, "Alpha Shirt", 100, map[string]any{"vendor": "Acme", "status": "active"})
	r := e.Do(http.MethodPost, "/store/collections", f.key, map[string]any{"title": "Picks", "product_ids": []int64{f.dl, f.beta}}).Expect(t, 201)
	f.coll = wholeNumber(t, r.Obj("collection")["id"])
	return f
}

// TestProductList: the list rows are ProductListView with the first
// image's src and the lowest variant price; filters, sorts and paging, on
// both surfaces.
func TestProductList(t *testing.T) {
	f := pdListFixture(t)
	e := f.e

	rows, total, r := pdList(t, e, f.key, "")
	if total != 4 || !slices.Equal(rowIDs(rows), []int64{f.dl, f.gamma, f.beta, f.alpha}) {
		t.Fatalf("default list (newest change first): ids %v total %d", rowIDs(rows), total)
	}
	e.SameOnGraphQL(t, r, f.key, "ListProducts", nil)
	byID := map[int64]map[string]any{}
	for _, row := range rows {
		byID[idOf(t, row)] = row
	}
	a := byID[f.alpha]
	if a["title"] != "Alpha Shirt" || a["handle"] != "alpha-shirt" || a["vendor"] != "Acme" || a["product_type"] != "Shirts" || a["status"] != "active" ||
		!slices.Equal(pdStrings(a["tags"]), []string{"summer", "cotton"}) || a["image_src"] != "https://cdn.example.com/alpha.png" ||
		a["price_cents"] != float64(1500) || a["rating_avg"] != float64(0) || a["rating_count"] != float64(0) {
		t.Fatalf("alpha row %v", a)
	}
	full, _ := getProduct(t, e, f.key, f.alpha)
	if a["updated_at"] != full["updated_at"] {
		t.Fatalf("list updated_at %v, product %v", a["updated_at"], full["updated_at"])
	}
	if b := byID[f.beta]; b["image_src"] != nil || b["price_cents"] != float64(900) || b["status"] != "draft" {
		t.Fatalf("beta row %v", b)
	}

	ids := func(q string) ([]int64, int64) {
		t.Helper()
		rows, total, _ := pdList(t, e, f.key, q)
		return rowIDs(rows), total
	}
	for _, c := range []struct {
		query string
		want  []int64
		total int64
	}{
		{"sort=title", []int64{f.alpha, f.beta, f.dl, f.gamma}, 4},
		{"sort=-title", []int64{f.gamma, f.dl, f.beta, f.alpha}, 4},
		{"sort=price", []int64{f.beta, f.alpha, f.dl, f.gamma}, 4},
		{"sort=-price", []int64{f.gamma, f.dl, f.alpha, f.beta}, 4},
		{"status=active&sort=title", []int64{f.alpha, f.dl}, 2},
		{"status=archived", []int64{f.gamma}, 1},
		{"status=draft", []int64{f.beta}, 1},
		{"vendor=acme&sort=title", []int64{f.alpha, f.gamma}, 2},
		{"vendor=Bolt", []int64{f.beta}, 1},
		{"product_type=shirts", []int64{f.alpha}, 1},
		{"tag=summer&sort=title", []int64{f.alpha, f.gamma}, 2},
		{"tag=kitchen", []int64{f.beta}, 1},
		{"tag=none", []int64{}, 0},
		{"collection_id=" + strconv.FormatInt(f.coll, 10) + "&sort=title", []int64{f.beta, f.dl}, 2},
		{"q=mug", []int64{f.beta}, 1},
		{"q=GAMMA-hat", []int64{f.gamma}, 1}, // the handle
		{"q=alpha-m", []int64{f.alpha}, 1},   // a SKU
		{"q=hat-9", []int64{f.gamma}, 1},
		{"q=shirt&sort=title", []int64{f.alpha}, 1},
		{"q=%25", []int64{}, 0}, // LIKE's wildcards are literal
		{"vendor=acme&status=active", []int64{f.alpha}, 1},
		{"sort=title&limit=2&offset=1", []int64{f.beta, f.dl}, 4},
		{"sort=title&offset=4", []int64{}, 4},
	} {
		got, total := ids(c.query)
		if !slices.Equal(got, c.want) || total != c.total {
			t.Fatalf("?%s: ids %v total %d, want %v total %d", c.query, got, total, c.want, c.total)
		}
	}
	_, _, r = pdList(t, e, f.key, "status=active&sort=-price&limit=1")
	e.SameOnGraphQL(t, r, f.key, "ListProducts", map[string]any{"filter": map[string]any{"status": "active", "sort": "-price"}, "limit": 1})
	_, _, r = pdList(t, e, f.key, "q=alpha&collection_id="+strconv.FormatInt(f.coll, 10))
	e.SameOnGraphQL(t, r, f.key, "ListProducts", map[string]any{"filter": map[string]any{"q": "alpha", "collection_id": f.coll}})

	for _, q := range []string{"sort=cheapest", "sort=PRICE", "status=deleted", "status=", "limit=0", "limit=251", "limit=x", "offset=-1", "collection_id=abc"} {
		e.Do(http.MethodGet, "/store/products?"+q, f.key, nil).Expect(t, 400)
	}
	if _, total, _ := pdList(t, e, f.key, "limit=250"); total != 4 {
		t.Fatalf("limit=250: total %d", total)
	}
	// The other store sees only its own.
	rows, total, _ = pdList(t, e, f.otherKey, "")
	if total != 1 || !slices.Equal(rowIDs(rows), []int64{f.theirs}) {
		t.Fatalf("other store lists %v", rowIDs(rows))
	}
	// Another store's collection filters to nothing.
	if got, total := ids("collection_id=" + strconv.FormatInt(f.coll, 10)); len(got) != 2 || total != 2 {
		t.Fatalf("collection filter %v", got)
	}
	if rows, total, _ := pdList(t, e, f.otherKey, "collection_id="+strconv.FormatInt(f.coll, 10)); len(rows) != 0 || total != 0 {
		t.Fatalf("another store's collection filter lists %v", rowIDs(rows))
	}
}

// TestProductOptionsPicker: GET /store/products/options lists
// CatalogProductOption by title, filtered by q over title and handle.
func TestProductOptionsPicker(t *testing.T) {
	f := pdListFixture(t)
	e := f.e
	get := func(query string) ([]map[string]any, int64, *apitest.Response) {
		t.Helper()
		path := "/store/products/options"
		if query != "" {
			path += "?" + query
		}
		r := e.Do(http.MethodGet, path, f.key, nil).Expect(t, 200)
		if keys := sortedKeys(r.Body); !reflect.DeepEqual(keys, []string{"products", "status", "total"}) {
			t.Fatalf("options payload keys %v", keys)
		}
		var rows []map[string]any
		if r.Body["products"] != nil {
			rows = checkObjects(t, "options", r.Body["products"], pdPickerSpec)
		}
		return rows, wholeNumber(t, r.Body["total"]), r
	}
	rows, total, r := get("")
	if total != 4 || !slices.Equal(rowIDs(rows), []int64{f.alpha, f.beta, f.dl, f.gamma}) {
		t.Fatalf("options %v total %d", rowIDs(rows), total)
	}
	e.SameOnGraphQL(t, r, f.key, "ListProductOptions", nil)
	if rows[0]["image_src"] != "https://cdn.example.com/alpha.png" || rows[0]["title"] != "Alpha Shirt" || rows[0]["handle"] != "alpha-shirt" || rows[0]["status"] != "active" {
		t.Fatalf("alpha option %v", rows[0])
	}
	if rows[1]["image_src"] != "" || rows[1]["status"] != "draft" {
		t.Fatalf("beta option %v", rows[1])
	}
	for _, c := range []struct {
		query string
		want  []int64
		total int64
	}{
		{"q=SHIRT", []int64{f.alpha}, 1},
		{"q=delta-socks", []int64{f.dl}, 1},
		{"q=a", []int64{f.alpha, f.beta, f.dl, f.gamma}, 4},
		{"q=a&limit=2&offset=1", []int64{f.beta, f.dl}, 4},
		{"q=zzz", []int64{}, 0},
	} {
		rows, total, _ := get(c.query)
		if got := rowIDs(rows); !slices.Equal(got, c.want) || total != c.total {
			t.Fatalf("options?%s: %v total %d, want %v total %d", c.query, got, total, c.want, c.total)
		}
	}
	_, _, r = get("q=a&limit=2&offset=1")
	e.SameOnGraphQL(t, r, f.key, "ListProductOptions", map[string]any{"q": "a", "limit": 2, "offset": 1})
	e.Do(http.MethodGet, "/store/products/options?limit=0", f.key, nil).Expect(t, 400)
	e.Do(http.MethodGet, "/store/products/options?limit=251", f.key, nil).Expect(t, 400)
}

// TestProductNotFound: a missing product and another store's product are
// the same 404 on every route and on GraphQL, and the other store's product
// stays as it was.
func TestProductNotFound(t *testing.T) {
	e := apitest.New(t)
	a, b := e.Store("Acme"), e.Store("Bolt")
	aKey, bKey := e.Key(a.ID, auth.RoleAdmin), e.Key(b.ID, auth.RoleAdmin)
	theirs := createProduct(t, e, bKey, map[string]any{"title": "Theirs", "variants": []any{map[string]any{"price_cents": 100}}})
	bID := idOf(t, theirs)
	for _, id := range []int64{bID, bID + 1000} {
		e.Do(http.MethodGet, productPath(id), aKey, nil).Expect(t, 404)
		e.Do(http.MethodPut, productPath(id), aKey, map[string]any{"title": "Mine now"}).Expect(t, 404)
		e.Do(http.MethodPut, productPath(id), aKey, map[string]any{}).Expect(t, 404)
		e.Do(http.MethodDelete, productPath(id), aKey, nil).Expect(t, 404)
		vars := map[string]any{"id": id}
		expectGraphQLNotFound(t, e, aKey, `query($id: Int!) { product(id: $id) { id } }`, vars)
		expectGraphQLNotFound(t, e, aKey, `mutation($id: Int!) { updateProduct(id: $id, input: {title: "x"}) { id } }`, vars)
		expectGraphQLNotFound(t, e, aKey, `mutation($id: Int!) { deleteProduct(id: $id) }`, vars)
	}
	e.Do(http.MethodGet, "/store/products/abc", aKey, nil).Expect(t, 400)
	got, _ := getProduct(t, e, bKey, bID)
	if !reflect.DeepEqual(got, theirs) {
		t.Fatalf("the other store's product changed:\n was %v\n now %v", theirs, got)
	}
}

// TestProductDelete: DELETE answers the bare envelope and takes the
// product, its variants and images and memberships away.
func TestProductDelete(t *testing.T) {
	e := apitest.New(t)
	s := e.Store("Acme")
	admin := e.Key(s.ID, auth.RoleAdmin)
	p := createProduct(t, e, admin, map[string]any{"title": "Doomed", "images": []any{map[string]any{"src": "https://cdn.example.com/d.png"}}})
	id := idOf(t, p)
	keep := createSimpleProduct(t, e, admin, "Kept", 100, nil)
	e.Do(http.MethodPost, "/store/collections", admin, map[string]any{"title": "C", "product_ids": []int64{id, keep}}).Expect(t, 201)

	r := e.Do(http.MethodDelete, productPath(id), admin, nil).Expect(t, 200)
	if !reflect.DeepEqual(r.Body, map[string]any{"status": true}) {
		t.Fatalf("DELETE answered %s", r.Raw)
	}
	e.Do(http.MethodGet, productPath(id), admin, nil).Expect(t, 404)
	e.Do(http.MethodDelete, productPath(id), admin, nil).Expect(t, 404)
	for table, want := range map[string]int{"products": 1, "product_variants": 1, "product_images": 0, "collection_products": 1} {
		if n := countProducts(t, e, table, s.ID); n != want {
			t.Fatalf("%d rows in %s, want %d", n, table, want)
		}
	}
	if g := e.GraphQL(admin, `mutation($id: Int!) { deleteProduct(id: $id) }`, map[string]any{"id": keep}); g.Body["errors"] != nil || g.Data()["deleteProduct"] != true {
		t.Fatalf("GraphQL deleteProduct: %s", g.Raw)
	}
}

// TestProductBulk: bulk-delete and bulk-adplatform-category touch only the
// caller's store's products and say which.
func TestProductBulk(t *testing.T) {
	e := apitest.New(t)
	a, b := e.Store("Acme"), e.Store("Bolt")
	aKey, bKey := e.Key(a.ID, auth.RoleAdmin), e.Key(b.ID, auth.RoleAdmin)
	var mine []int64
	for i := range 4 {
		mine = append(mine, createSimpleProduct(t, e, aKey, "P"+strconv.Itoa(i), int64(100*i), nil))
	}
	theirs := createSimpleProduct(t, e, bKey, "Theirs", 100, nil)

	// bulk-adplatform-category: {ids, updated}.
	body := map[string]any{"ids": []int64{mine[0], mine[1], theirs, 999999}, "adplatform_category_id": 5181}
	r := e.Do(http.MethodPost, "/store/products/bulk-adplatform-category", aKey, body).Expect(t, 200)
	if keys := sortedKeys(r.Body); !reflect.DeepEqual(keys, []string{"ids", "status", "updated"}) {
		t.Fatalf("bulk-adplatform-category payload %s", r.Raw)
	}
	if got := wholeNumbersOrNull(t, r.Body["ids"]); !slices.Equal(slices.Sorted(slices.Values(got)), mine[:2]) || wholeNumber(t, r.Body["updated"]) != 2 {
		t.Fatalf("bulk-adplatform-category answered %s", r.Raw)
	}
	e.SameOnGraphQL(t, r, aKey, "BulkSetAdplatformCategory", map[string]any{"input": body})
	for i, id := range mine {
		p, _ := getProduct(t, e, aKey, id)
		want := float64(0)
		if i < 2 {
			want = 5181
		}
		if p["adplatform_category_id"] != want {
			t.Fatalf("product %d adplatform_category_id %v, want %v", id, p["adplatform_category_id"], want)
		}
	}
	if p, _ := getProduct(t, e, bKey, theirs); p["adplatform_category_id"] != float64(0) {
		t.Fatalf("the other store's product was changed: %v", p)
	}
	for _, body := range []any{
		map[string]any{"ids": []int64{}, "adplatform_category_id": 1},
		map[string]any{"ids": []int64{mine[0]}, "adplatform_category_id": -1},
		map[string]any{"ids": []int64{mine[0]}},
		map[string]any{"adplatform_category_id": 1},
		map[string]any{"ids": "1,2", "adplatform_category_id": 1},
	} {
		e.Do(http.MethodPost, "/store/products/bulk-adplatform-category", aKey, body).Expect(t, 400)
	}

	// bulk-delete: {deleted, ids}.
	r = e.Do(http.MethodPost, "/store/products/bulk-delete", aKey, map[string]any{"ids": []int64{mine[1], mine[2], theirs, 999999, mine[1]}}).Expect(t, 200)
	if keys := sortedKeys(r.Body); !reflect.DeepEqual(keys, []string{"deleted", "ids", "status"}) {
		t.Fatalf("bulk-delete payload %s", r.Raw)
	}
	if got := wholeNumbersOrNull(t, r.Body["ids"]); !slices.Equal(slices.Sorted(slices.Values(got)), mine[1:3]) || wholeNumber(t, r.Body["deleted"]) != 2 {
		t.Fatalf("bulk-delete answered %s", r.Raw)
	}
	rows, total, _ := pdList(t, e, aKey, "sort=title")
	if total != 2 || !slices.Equal(rowIDs(rows), []int64{mine[0], mine[3]}) {
		t.Fatalf("left %v", rowIDs(rows))
	}
	getProduct(t, e, bKey, theirs)
	r = e.Do(http.MethodPost, "/store/products/bulk-delete", aKey, map[string]any{"ids": []int64{theirs}}).Expect(t, 200)
	if wholeNumber(t, r.Body["deleted"]) != 0 || len(wholeNumbersOrNull(t, r.Body["ids"])) != 0 {
		t.Fatalf("deleting only another store's id answered %s", r.Raw)
	}
	for _, body := range []any{map[string]any{"ids": []int64{}}, map[string]any{}, map[string]any{"ids": []string{"a"}}, nil} {
		e.Do(http.MethodPost, "/store/products/bulk-delete", aKey, body).Expect(t, 400)
	}
	if n := countProducts(t, e, "products", a.ID); n != 2 {
		t.Fatalf("%d products left", n)
	}
}

// TestProductAccess: the scope and role gates of the products routes.
func TestProductAccess(t *testing.T) {
	e := apitest.New(t)
	s := e.Store("Acme")
	admin := e.Key(s.ID, auth.RoleAdmin)
	id := createSimpleProduct(t, e, admin, "Existing", 100, nil)
	p := productPath(id)
	newBody := map[string]any{"title": "New"}

	reads := []apitest.Call{
		{Method: http.MethodGet, Path: "/store/products"},
		{Method: http.MethodGet, Path: p},
		{Method: http.MethodGet, Path: "/store/products/options"},
		{Method: http.MethodGet, Path: "/store/products/handle-available?handle=x"},
	}
	writes := []apitest.Call{
		{Method: http.MethodPost, Path: "/store/products", Body: newBody},
		{Method: http.MethodPost, Path: "/store/products", Body: "{not json"}, // 403 before 400
		{Method: http.MethodPut, Path: p, Body: map[string]any{"title": "Changed"}},
		{Method: http.MethodDelete, Path: p},
		{Method: http.MethodPost, Path: "/store/products/bulk-delete", Body: map[string]any{"ids": []int64{id}}},
		{Method: http.MethodPost, Path: "/store/products/bulk-adplatform-category", Body: map[string]any{"ids": []int64{id}, "adplatform_category_id": 1}},
	}
	e.ExpectEach(t, 401, map[string]string{"no key": "", "unknown key": "sa_api_nope"}, append(slices.Clone(reads), writes...))
	e.ExpectEach(t, 403, map[string]string{
		"collections:read":  e.Key(s.ID, auth.RoleAdmin, "collections:read"),
		"collections:write": e.Key(s.ID, auth.RoleAdmin, "collections:write"),
	}, append(slices.Clone(reads), writes...))
	readKey := e.Key(s.ID, auth.RoleAdmin, "products:read")
	e.ExpectEach(t, 200, map[string]string{"products:read": readKey, "staff products:read": e.Key(s.ID, auth.RoleStaff, "products:read")}, reads)
	e.ExpectEach(t, 403, map[string]string{"products:read": readKey}, writes)
	if g := e.GraphQL(readKey, `mutation { createProduct(input: {title: "x"}) { id } }`, nil); g.ErrorCode() != "FORBIDDEN" {
		t.Fatalf("GraphQL create with a read key: %s", g.Raw)
	}
	if n := countProducts(t, e, "products", s.ID); n != 1 {
		t.Fatalf("refused writes left %d products", n)
	}

	// Writes need the admin role (w in the spec): staff may read, with or
	// without scopes, and is refused every write.
	for _, staff := range []string{e.Key(s.ID, auth.RoleStaff), e.Key(s.ID, auth.RoleStaff, "products:write")} {
		e.Do(http.MethodGet, "/store/products", staff, nil).Expect(t, 200)
		e.Do(http.MethodPost, "/store/products", staff, newBody).Expect(t, 403)
		e.Do(http.MethodPost, "/store/products/bulk-adplatform-category", staff, map[string]any{"ids": []int64{1}, "adplatform_category_id": 7}).Expect(t, 403)
	}

	// The export and template need admin.
	sheets := []apitest.Call{{Method: http.MethodGet, Path: "/store/products/export"}, {Method: http.MethodGet, Path: "/store/products/import/template"}}
	e.ExpectEach(t, 403, map[string]string{
		"staff products:read": e.Key(s.ID, auth.RoleStaff, "products:read"),
		"staff":               e.Key(s.ID, auth.RoleStaff),
		"admin orders:read":   e.Key(s.ID, auth.RoleAdmin, "orders:read"),
	}, sheets)
	e.ExpectEach(t, 401, map[string]string{"no key": ""}, sheets)
	if r := e.Do(http.MethodGet, "/store/products/export", readKey, nil); r.Status != 200 {
		t.Fatalf("export with an admin products:read key: %d %s", r.Status, r.Raw)
	}
}

// insertProduct inserts a product of the store straight into the database and
// returns its id (the products API is tested elsewhere).
func insertProduct(t *testing.T, e *apitest.Env, storeID int64, handle string) int64 {
	t.Helper()
	p := &models.Product{StoreID: storeID, Handle: handle, Title: "Product " + handle, Status: "active"}
	if _, err := e.DB.NewInsert().Model(p).Column("store_id", "handle", "title", "status").Returning("id").Exec(context.Background()); err != nil {
		t.Fatalf("insert product: %v", err)
	}
	return p.ID
}
