package apitest_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"mime/multipart"
	"net/http"
	"os"
	"reflect"
	"sort"
	"strings"
	"testing"

	"storeadmin/internal/app/apitest"
	"storeadmin/internal/auth"
	"storeadmin/models"
)

// seedProducts stores n products of the store, each with three variants,
// two images and two collections, straight through the models.
func seedProducts(t testing.TB, e *apitest.Env, storeID int64, n int) {
	t.Helper()
	ctx := context.Background()
	var cols []int64
	for i := 0; i < 2; i++ {
		c := &models.Collection{StoreID: storeID, Handle: fmt.Sprintf("col-%d", i), Title: fmt.Sprintf("Col %d", i),
			CollectionType: models.CollectionManual, SortOrder: "manual", Published: true, SEO: map[string]any{}}
		if err := models.InsertCollection(ctx, e.DB, c); err != nil {
			t.Fatal(err)
		}
		cols = append(cols, c.ID)
	}
	for i := 0; i < n; i++ {
		p := &models.Product{StoreID: storeID, Handle: fmt.Sprintf("p-%d", i), Title: fmt.Sprintf("Product %d", i),
			Status: models.ProductActive, Tags: []string{}, SEO: map[string]any{},
			Options: []models.ProductOption{{Name: "Size", Position: 1, Values: []string{"S", "M", "L"}}}}
		if err := models.InsertProduct(ctx, e.DB, p); err != nil {
			t.Fatal(err)
		}
		imgs := []models.ProductImage{{Src: fmt.Sprintf("https://cdn.example/%d-a.png", i)}, {Src: fmt.Sprintf("https://cdn.example/%d-b.png", i)}}
		if err := models.SaveImages(ctx, e.DB, storeID, p.ID, imgs); err != nil {
			t.Fatal(err)
		}
		var vs []models.ProductVariant
		for k, size := range []string{"S", "M", "L"} {
			vs = append(vs, models.ProductVariant{Title: size, Option1: size, SKU: fmt.Sprintf("SKU-%d-%d", i, k),
				PriceCents: int64(1000 + k), InventoryPolicy: models.InventoryDeny, TrackInventory: true, Taxable: true, RequiresShipping: true})
		}
		if err := models.SaveVariants(ctx, e.DB, storeID, p.ID, vs, imgs); err != nil {
			t.Fatal(err)
		}
		for _, c := range cols {
			if _, err := models.AddCollectionProducts(ctx, e.DB, storeID, c, []int64{p.ID}); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// TestProductListStatementsDoNotGrowWithRows shows that every relation of
// a product list goes through a dataloader: 100 products with variants,
// images and collections cost as many statements as 5.
func TestProductListStatementsDoNotGrowWithRows(t *testing.T) {
	e := apitest.New(t)
	s := e.Store("loaders")
	key := e.Key(s.ID, auth.RoleAdmin)
	seedProducts(t, e, s.ID, 100)
	// A first request records the key's last use, a write later ones skip.
	e.Do(http.MethodGet, "/store", key, nil).Expect(t, http.StatusOK)
	count := countStatements(e)

	query := `query($limit: Int) { products(limit: $limit) { id price_cents image_src collection_ids
		variants { id sku } images { id src } collections { id title } } }`
	statements := map[int]int64{}
	for _, n := range []int{5, 100} {
		statements[n] = count(func() {
			r := e.GraphQL(key, query, map[string]any{"limit": n})
			if got := len(r.Data()["products"].([]any)); got != n {
				t.Fatalf("listed %d products, want %d", got, n)
			}
		})
	}
	if statements[5] != statements[100] {
		t.Fatalf("GraphQL: 5 products cost %d statements, 100 cost %d", statements[5], statements[100])
	}
	rest := map[int]int64{}
	for _, n := range []int{5, 100} {
		rest[n] = count(func() {
			e.Do(http.MethodGet, fmt.Sprintf("/store/products?limit=%d", n), key, nil).Expect(t, http.StatusOK)
		})
	}
	if rest[5] != rest[100] {
		t.Fatalf("REST: 5 products cost %d statements, 100 cost %d", rest[5], rest[100])
	}
	t.Logf("statements per list: GraphQL %d, REST %d", statements[100], rest[100])
}

// catProducts reads every product of the store in detail, without the
// fields that differ between stores (ids, times), sorted by handle.
func catProducts(t *testing.T, e *apitest.Env, key string) []map[string]any {
	t.Helper()
	list := e.Do(http.MethodGet, "/store/products?limit=250&sort=title", key, nil).Expect(t, http.StatusOK).List("products")
	var out []map[string]any
	for _, item := range list {
		id := int64(item.(map[string]any)["id"].(float64))
		p := e.Do(http.MethodGet, fmt.Sprintf("/store/products/%d", id), key, nil).Expect(t, http.StatusOK).Obj("product")
		delete(p, "id")
		delete(p, "updated_at")
		delete(p, "collection_ids")
		imageSrc := map[float64]string{}
		for _, img := range p["images"].([]any) {
			m := img.(map[string]any)
			imageSrc[m["id"].(float64)] = m["src"].(string)
			delete(m, "id")
		}
		for _, v := range p["variants"].([]any) {
			m := v.(map[string]any)
			delete(m, "id")
			if id, ok := m["image_id"].(float64); ok {
				m["image_id"] = imageSrc[id]
			}
		}
		out = append(out, p)
	}
	sort.Slice(out, func(i, j int) bool { return out[i]["handle"].(string) < out[j]["handle"].(string) })
	return out
}

// catCreateCatalogue creates a few varied products through the API.
func catCreateCatalogue(t *testing.T, e *apitest.Env, key string) {
	t.Helper()
	e.Do(http.MethodPost, "/store/products", key, map[string]any{
		"title": "Trail Shirt", "body_html": "<p>Light, <b>quick-dry</b>.</p>", "vendor": "Northwind", "product_type": "Shirts",
		"status": "active", "tags": []string{"summer", "hiking"}, "seo": map[string]any{"title": "Trail Shirt", "description": "A shirt"},
		"adplatform_category_id": 1604,
		"options":                []any{map[string]any{"name": "Size"}, map[string]any{"name": "Color"}},
		"images": []any{map[string]any{"src": "https://cdn.example/shirt-blue.png", "alt": "Blue"},
			map[string]any{"src": "https://cdn.example/shirt-red.png", "alt": "Red"}},
		"variants": []any{
			map[string]any{"option1": "S", "option2": "Blue", "sku": "TS-S-BL", "price_cents": 2500, "compare_at_price_cents": 3000, "cost_cents": 1100, "weight_grams": 180, "inventory_quantity": 4, "image_src": "https://cdn.example/shirt-blue.png"},
			map[string]any{"option1": "M", "option2": "Blue", "sku": "TS-M-BL", "price_cents": 2500, "weight_grams": 200, "inventory_quantity": 0, "inventory_policy": "continue"},
			map[string]any{"option1": "M", "option2": "Red", "sku": "TS-M-RD", "price_cents": 2700, "barcode": "0123456789012", "taxable": false, "image_src": "https://cdn.example/shirt-red.png"},
		},
	}).Expect(t, http.StatusCreated)
	e.Do(http.MethodPost, "/store/products", key, map[string]any{
		"title": "Gift Card", "status": "draft", "variants": []any{map[string]any{"price_cents": 5000, "requires_shipping": false, "track_inventory": false}},
	}).Expect(t, http.StatusCreated)
	e.Do(http.MethodPost, "/store/products", key, map[string]any{
		"title": "Café Crème Mug", "status": "archived", "vendor": "Ünïcode & Co", "tags": []string{"kitchen"},
	}).Expect(t, http.StatusCreated)
}

// TestProductSheetRoundTrip: a sheet exported here re-imports into an
// empty store as the same products, variants, images and prices, in CSV
// and in XLSX.
func TestProductSheetRoundTrip(t *testing.T) {
	e := apitest.New(t)
	from := e.Store("sheet-from")
	fromKey := e.Key(from.ID, auth.RoleAdmin)
	catCreateCatalogue(t, e, fromKey)
	want := catProducts(t, e, fromKey)
	if len(want) != 3 {
		t.Fatalf("created %d products", len(want))
	}
	for _, format := range []string{"csv", "xlsx"} {
		t.Run(format, func(t *testing.T) {
			file := e.Do(http.MethodGet, "/store/products/export?format="+format, fromKey, nil).Expect(t, http.StatusOK)
			if cd := file.Header.Get("Content-Disposition"); !strings.Contains(cd, "attachment") || !strings.Contains(cd, "."+format) {
				t.Fatalf("Content-Disposition = %q", cd)
			}
			to := e.Store("sheet-to-" + format)
			toKey := e.Key(to.ID, auth.RoleAdmin)
			// The format is read from the content: the name says nothing.
			rep := e.DoHeaders(http.MethodPost, "/store/products/import?filename=upload.bin", toKey, file.Raw,
				map[string]string{"Content-Type": "application/octet-stream"}).Expect(t, http.StatusOK)
			if rep.Body["created"].(float64) != 3 || rep.Body["updated"].(float64) != 0 || len(rep.Body["errors"].([]any)) != 0 {
				t.Fatalf("import report: %s", rep.Raw)
			}
			got := catProducts(t, e, toKey)
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("round trip changed the products:\n got %v\nwant %v", got, want)
			}
			// Importing again updates by handle and creates nothing.
			rep = e.DoHeaders(http.MethodPost, "/store/products/import", toKey, file.Raw, map[string]string{"Content-Type": "text/csv"}).Expect(t, http.StatusOK)
			if rep.Body["created"].(float64) != 0 || rep.Body["updated"].(float64) != 3 {
				t.Fatalf("second import: %s", rep.Raw)
			}
			if got := catProducts(t, e, toKey); !reflect.DeepEqual(got, want) {
				t.Fatalf("re-import changed the products")
			}
		})
	}
}

// TestProductSheetImportsPlatformTemplate imports a sheet in the hosted
// platform's current template layout, as a multipart upload on REST and on
// GraphQL.
func TestProductSheetImportsPlatformTemplate(t *testing.T) {
	sample, err := os.ReadFile("../../base/sheets/productsheet/testdata/current_template.csv")
	if err != nil {
		t.Fatal(err)
	}
	e := apitest.New(t)
	s := e.Store("template")
	key := e.Key(s.ID, auth.RoleAdmin, "products:write")

	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	fw, _ := mw.CreateFormFile("file", "products_export.csv")
	fw.Write(sample)
	mw.Close()
	rep := e.DoHeaders(http.MethodPost, "/store/products/import", key, body.Bytes(), map[string]string{"Content-Type": mw.FormDataContentType()}).Expect(t, http.StatusOK)
	if len(rep.Body["errors"].([]any)) != 0 || rep.Body["created"].(float64) == 0 {
		t.Fatalf("import of the platform's template: %s", rep.Raw)
	}
	for _, k := range []string{"cleaned_cells", "created", "errors", "renamed_skus", "skipped", "status", "updated"} {
		if _, ok := rep.Body[k]; !ok {
			t.Fatalf("import report lacks %s: %s", k, rep.Raw)
		}
	}

	// GraphQL multipart request spec: operations, map, then the file.
	body.Reset()
	mw = multipart.NewWriter(&body)
	mw.WriteField("operations", `{"query":"mutation($file: Upload!) { importProducts(file: $file) { created updated errors } }","variables":{"file":null}}`)
	mw.WriteField("map", `{"0":["variables.file"]}`)
	fw, _ = mw.CreateFormFile("0", "products.csv")
	fw.Write(sample)
	mw.Close()
	req, _ := http.NewRequest(http.MethodPost, e.URL+"/graphql", &body)
	req.Header.Set("Content-Type", mw.FormDataContentType())
	req.Header.Set("Authorization", "Bearer "+key)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out struct {
		Data struct {
			ImportProducts struct {
				Created, Updated int
				Errors           []any
			} `json:"importProducts"`
		}
		Errors []any
	}
	if err := jsonDecode(resp.Body, &out); err != nil || len(out.Errors) > 0 {
		t.Fatalf("GraphQL import: %v %v", err, out.Errors)
	}
	if out.Data.ImportProducts.Created != 0 || out.Data.ImportProducts.Updated == 0 {
		t.Fatalf("GraphQL re-import: %+v", out.Data.ImportProducts)
	}
}

func jsonDecode(r interface{ Read([]byte) (int, error) }, v any) error {
	return json.NewDecoder(r).Decode(v)
}

// TestMutationsReadTheirOwnWrites: loaders cache per request, and are
// emptied before each mutation, so the second of two writes in one document
// answers what it wrote.
func TestMutationsReadTheirOwnWrites(t *testing.T) {
	e := apitest.New(t)
	s := e.Store("fresh-reads")
	key := e.Key(s.ID, auth.RoleAdmin)
	id := int64(e.Do(http.MethodPost, "/store/products", key, map[string]any{"title": "Mug"}).Expect(t, http.StatusCreated).Obj("product")["id"].(float64))
	r := e.GraphQL(key, `mutation($id: Int!) {
		a: updateProduct(id: $id, input: {variants: [{price_cents: 100}]}) { variants { price_cents } }
		b: updateProduct(id: $id, input: {variants: [{price_cents: 200}]}) { variants { price_cents } }
	}`, map[string]any{"id": id})
	for alias, want := range map[string]float64{"a": 100, "b": 200} {
		vs := r.Data()[alias].(map[string]any)["variants"].([]any)
		if got := vs[0].(map[string]any)["price_cents"]; got != want {
			t.Fatalf("%s answered price %v, want %v: %s", alias, got, want, r.Raw)
		}
	}
}

// TestIntsAreNumbers: a number sent as a string is a 400, not a guess.
func TestIntsAreNumbers(t *testing.T) {
	e := apitest.New(t)
	s := e.Store("strict-ints")
	key := e.Key(s.ID, auth.RoleAdmin)
	for body, says := range map[string]string{`{"ids":"5"}`: "ids must be a list, not a string", `{"ids":["5"]}`: "ids[0] must be an integer, not a string"} {
		r := e.Do(http.MethodPost, "/store/products/bulk-delete", key, body).Expect(t, http.StatusBadRequest)
		if r.Message() != says {
			t.Fatalf("message %q, want %q", r.Message(), says)
		}
	}
	e.Do(http.MethodPost, "/store/products", key, map[string]any{"title": "Mug", "variants": []any{map[string]any{"price_cents": "12"}}}).Expect(t, http.StatusBadRequest)
	if g := e.GraphQL(key, `query($n: Int) { products(limit: $n) { id } }`, map[string]any{"n": "5"}); g.ErrorCode() != "BAD_USER_INPUT" {
		t.Fatalf("GraphQL Int variable as a string: %s", g.Raw)
	}
	e.Do(http.MethodGet, "/store/products?limit=5", key, nil).Expect(t, http.StatusOK) // query strings are text by nature
}
