package apitest_test

import (
	"context"
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

// The fields of the spec's bundle views, exactly.
var (
	bdSummaryKeys = []string{"applies_to", "collection_count", "enabled", "id", "include_plain_items", "product_count", "tier_count", "title"}
	bdOfferKeys   = []string{"applies_to", "collection_ids", "enabled", "id", "include_plain_items", "product_ids", "tiers", "title", "variant_selectors", "variant_selectors_single"}
	bdTierKeys    = []string{"benefit_label", "caption", "discount_bps", "discount_display", "free_shipping", "id", "label", "preselected", "quantity", "title"}
)

func bdPath(id int64) string { return "/store/bundles/" + strconv.FormatInt(id, 10) }

// bdTier checks v against BundleOfferTierView and returns it.
func bdTier(t *testing.T, v any) map[string]any {
	t.Helper()
	m, ok := v.(map[string]any)
	if !ok {
		t.Fatalf("tier is not an object: %#v", v)
	}
	if keys := sortedKeys(m); !reflect.DeepEqual(keys, bdTierKeys) {
		t.Fatalf("tier fields %v, want %v", keys, bdTierKeys)
	}
	for _, k := range []string{"id", "quantity", "discount_bps"} {
		wholeNumber(t, m[k])
	}
	for _, k := range []string{"benefit_label", "caption", "discount_display", "label", "title"} {
		stringField(t, m, k)
	}
	boolField(t, m, "free_shipping")
	boolField(t, m, "preselected")
	return m
}

// bdOffer checks v against BundleOfferView and returns it.
func bdOffer(t *testing.T, v any) map[string]any {
	t.Helper()
	m, ok := v.(map[string]any)
	if !ok {
		t.Fatalf("bundle is not an object: %#v", v)
	}
	if keys := sortedKeys(m); !reflect.DeepEqual(keys, bdOfferKeys) {
		t.Fatalf("bundle fields %v, want %v", keys, bdOfferKeys)
	}
	if id := wholeNumber(t, m["id"]); id <= 0 {
		t.Fatalf("bundle id %d", id)
	}
	stringField(t, m, "title")
	stringField(t, m, "applies_to")
	for _, k := range []string{"enabled", "include_plain_items", "variant_selectors", "variant_selectors_single"} {
		boolField(t, m, k)
	}
	wholeNumbers(t, m["product_ids"])
	wholeNumbers(t, m["collection_ids"])
	tiers, ok := m["tiers"].([]any)
	if !ok {
		t.Fatalf("tiers = %#v", m["tiers"])
	}
	for _, tr := range tiers {
		bdTier(t, tr)
	}
	return m
}

// bdSummary checks v against BundleSummaryView and returns it.
func bdSummary(t *testing.T, v any) map[string]any {
	t.Helper()
	m, ok := v.(map[string]any)
	if !ok {
		t.Fatalf("bundle is not an object: %#v", v)
	}
	if keys := sortedKeys(m); !reflect.DeepEqual(keys, bdSummaryKeys) {
		t.Fatalf("bundle summary fields %v, want %v", keys, bdSummaryKeys)
	}
	for _, k := range []string{"id", "collection_count", "product_count", "tier_count"} {
		wholeNumber(t, m[k])
	}
	stringField(t, m, "title")
	stringField(t, m, "applies_to")
	boolField(t, m, "enabled")
	boolField(t, m, "include_plain_items")
	return m
}

func bdTiers(t *testing.T, m map[string]any) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, v := range m["tiers"].([]any) {
		out = append(out, v.(map[string]any))
	}
	return out
}

func bdQuantities(t *testing.T, m map[string]any) []int64 {
	t.Helper()
	var out []int64
	for _, tr := range bdTiers(t, m) {
		out = append(out, wholeNumber(t, tr["quantity"]))
	}
	return out
}

// bdCreate creates a bundle over REST and returns the view.
func bdCreate(t *testing.T, e *apitest.Env, key string, body any) map[string]any {
	t.Helper()
	r := e.Do(http.MethodPost, "/store/bundles", key, body).Expect(t, 201)
	if keys := sortedKeys(r.Body); !reflect.DeepEqual(keys, []string{"bundle", "status"}) {
		t.Fatalf("POST /store/bundles payload keys %v: %s", keys, r.Raw)
	}
	return bdOffer(t, r.Body["bundle"])
}

// bdGet reads one bundle over REST.
func bdGet(t *testing.T, e *apitest.Env, key string, id int64) (map[string]any, *apitest.Response) {
	t.Helper()
	r := e.Do(http.MethodGet, bdPath(id), key, nil).Expect(t, 200)
	if keys := sortedKeys(r.Body); !reflect.DeepEqual(keys, []string{"bundle", "status"}) {
		t.Fatalf("GET bundle payload keys %v: %s", keys, r.Raw)
	}
	return bdOffer(t, r.Body["bundle"]), r
}

// bdPut updates a bundle over REST and returns the view.
func bdPut(t *testing.T, e *apitest.Env, key string, id int64, body any) (map[string]any, *apitest.Response) {
	t.Helper()
	r := e.Do(http.MethodPut, bdPath(id), key, body).Expect(t, 200)
	if keys := sortedKeys(r.Body); !reflect.DeepEqual(keys, []string{"bundle", "status"}) {
		t.Fatalf("PUT bundle payload keys %v: %s", keys, r.Raw)
	}
	return bdOffer(t, r.Body["bundle"]), r
}

// bdList reads GET /store/bundles?query.
func bdList(t *testing.T, e *apitest.Env, key, query string) ([]map[string]any, int64, *apitest.Response) {
	t.Helper()
	path := "/store/bundles"
	if query != "" {
		path += "?" + query
	}
	r := e.Do(http.MethodGet, path, key, nil).Expect(t, 200)
	if keys := sortedKeys(r.Body); !reflect.DeepEqual(keys, []string{"bundles", "status", "total"}) {
		t.Fatalf("GET %s payload keys %v: %s", path, keys, r.Raw)
	}
	var out []map[string]any
	for _, v := range r.List("bundles") {
		out = append(out, bdSummary(t, v))
	}
	return out, wholeNumber(t, r.Body["total"]), r
}

// bdCount counts rows of a bundle's table in the database.
func bdCount(t *testing.T, e *apitest.Env, table string, bundleID int64) int64 {
	t.Helper()
	n, err := e.DB.NewSelect().TableExpr(table).Where("bundle_id = ?", bundleID).Count(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func bdTier2() []map[string]any {
	return []map[string]any{{"quantity": 2, "discount_bps": 1000}}
}

// TestBundlesCreateGetUpdateDelete: the life of a bundle over REST, with
// the same answers on GraphQL.
func TestBundlesCreateGetUpdateDelete(t *testing.T) {
	e := apitest.New(t)
	s := e.Store("Acme")
	admin := e.Key(s.ID, auth.RoleAdmin)
	reader := e.Key(s.ID, auth.RoleStaff, "bundles:read")
	p1, p2, p3 := insertProduct(t, e, s.ID, "p1"), insertProduct(t, e, s.ID, "p2"), insertProduct(t, e, s.ID, "p3")
	c1, c2 := insertCollection(t, e, s.ID, "c1"), insertCollection(t, e, s.ID, "c2")

	b := bdCreate(t, e, admin, map[string]any{
		"title":       "  Buy more, save more  ",
		"applies_to":  "products",
		"product_ids": []int64{p2, p1, p2},
		"tiers": []map[string]any{
			{"quantity": 3, "discount_bps": 1250, "label": " Best value ", "title": "Three", "caption": "per item", "benefit_label": "Free shipping", "free_shipping": true, "preselected": true},
			{"quantity": 1},
			{"quantity": 2, "discount_bps": 1000},
		},
	})
	id := wholeNumber(t, b["id"])
	if b["title"] != "Buy more, save more" || b["applies_to"] != "products" || b["enabled"] != true || b["include_plain_items"] != false ||
		b["variant_selectors"] != true || b["variant_selectors_single"] != false {
		t.Fatalf("created: %v", b)
	}
	if ids := wholeNumbers(t, b["product_ids"]); !slices.Equal(ids, []int64{p1, p2}) {
		t.Fatalf("product_ids %v, want %v (distinct, by id)", ids, []int64{p1, p2})
	}
	if ids := wholeNumbers(t, b["collection_ids"]); len(ids) != 0 {
		t.Fatalf("collection_ids %v", ids)
	}
	if q := bdQuantities(t, b); !slices.Equal(q, []int64{1, 2, 3}) {
		t.Fatalf("tiers by quantity %v, want [1 2 3]", q)
	}
	tiers := bdTiers(t, b)
	if tr := tiers[0]; tr["discount_bps"] != float64(0) || tr["discount_display"] != "" || tr["free_shipping"] != false || tr["label"] != "" ||
		tr["title"] != "" || tr["caption"] != "" || tr["benefit_label"] != "" || tr["preselected"] != false {
		t.Fatalf("tier defaults: %v", tr)
	}
	if tr := tiers[1]; tr["discount_bps"] != float64(1000) || tr["discount_display"] != "10% off" {
		t.Fatalf("tier 2: %v", tr)
	}
	if tr := tiers[2]; tr["discount_bps"] != float64(1250) || tr["discount_display"] != "12.5% off" || tr["free_shipping"] != true || tr["label"] != "Best value" ||
		tr["title"] != "Three" || tr["caption"] != "per item" || tr["benefit_label"] != "Free shipping" || tr["preselected"] != true {
		t.Fatalf("tier 3: %v", tr)
	}

	// The read answers what the create did, for a read-only staff key too.
	got, get := bdGet(t, e, reader, id)
	if !reflect.DeepEqual(got, b) {
		t.Fatalf("GET %v\nPOST %v", got, b)
	}
	e.SameOnGraphQL(t, get, reader, "GetBundle", map[string]any{"id": id})

	// A second bundle for collections; the list shows the counts.
	b2 := bdCreate(t, e, admin, map[string]any{"title": "Collections deal", "applies_to": "collections", "collection_ids": []int64{c1, c2},
		"enabled": false, "include_plain_items": true, "variant_selectors": false, "variant_selectors_single": true, "tiers": bdTier2()})
	id2 := wholeNumber(t, b2["id"])
	if b2["enabled"] != false || b2["include_plain_items"] != true || b2["variant_selectors"] != false || b2["variant_selectors_single"] != true ||
		!slices.Equal(wholeNumbers(t, b2["collection_ids"]), []int64{c1, c2}) || len(wholeNumbers(t, b2["product_ids"])) != 0 {
		t.Fatalf("second bundle: %v", b2)
	}
	rows, total, list := bdList(t, e, reader, "")
	if total != 2 || len(rows) != 2 || wholeNumber(t, rows[0]["id"]) != id2 || wholeNumber(t, rows[1]["id"]) != id {
		t.Fatalf("list (newest first): %s", list.Raw)
	}
	want := map[string]any{"id": float64(id), "title": "Buy more, save more", "applies_to": "products", "enabled": true, "include_plain_items": false,
		"product_count": float64(2), "collection_count": float64(0), "tier_count": float64(3)}
	if !reflect.DeepEqual(rows[1], want) {
		t.Fatalf("summary %v\nwant %v", rows[1], want)
	}
	want2 := map[string]any{"id": float64(id2), "title": "Collections deal", "applies_to": "collections", "enabled": false, "include_plain_items": true,
		"product_count": float64(0), "collection_count": float64(2), "tier_count": float64(1)}
	if !reflect.DeepEqual(rows[0], want2) {
		t.Fatalf("summary %v\nwant %v", rows[0], want2)
	}
	e.SameOnGraphQL(t, list, reader, "ListBundles", nil)

	// Partial updates keep what they leave out.
	u, _ := bdPut(t, e, admin, id, map[string]any{"title": "Renamed"})
	b["title"] = "Renamed"
	if !reflect.DeepEqual(u, b) {
		t.Fatalf("title only:\n got  %v\n want %v", u, b)
	}
	u, _ = bdPut(t, e, admin, id, map[string]any{})
	if !reflect.DeepEqual(u, b) {
		t.Fatalf("empty update changed the bundle:\n got  %v\n want %v", u, b)
	}
	u, _ = bdPut(t, e, admin, id, map[string]any{"enabled": false, "include_plain_items": true})
	if u["enabled"] != false || u["include_plain_items"] != true || u["title"] != "Renamed" || len(bdTiers(t, u)) != 3 || !slices.Equal(wholeNumbers(t, u["product_ids"]), []int64{p1, p2}) {
		t.Fatalf("flags: %v", u)
	}
	// Tiers, when sent, replace the tiers.
	u, _ = bdPut(t, e, admin, id, map[string]any{"tiers": []map[string]any{{"quantity": 5, "discount_bps": 2000, "preselected": true}, {"quantity": 4, "discount_bps": 1}}})
	if q := bdQuantities(t, u); !slices.Equal(q, []int64{4, 5}) || bdTiers(t, u)[0]["discount_display"] != "0.01% off" || bdTiers(t, u)[1]["discount_display"] != "20% off" {
		t.Fatalf("tiers replaced: %v", u["tiers"])
	}
	if n := bdCount(t, e, "bundle_tiers", id); n != 2 {
		t.Fatalf("%d tier rows after replacing, want 2", n)
	}
	// Lists, when sent, replace; the other list stays.
	u, _ = bdPut(t, e, admin, id, map[string]any{"product_ids": []int64{p3}})
	if !slices.Equal(wholeNumbers(t, u["product_ids"]), []int64{p3}) || u["applies_to"] != "products" {
		t.Fatalf("product_ids replaced: %v", u)
	}
	u, _ = bdPut(t, e, admin, id, map[string]any{"applies_to": "collections", "collection_ids": []int64{c2}, "product_ids": []int64{}})
	if u["applies_to"] != "collections" || !slices.Equal(wholeNumbers(t, u["collection_ids"]), []int64{c2}) || len(wholeNumbers(t, u["product_ids"])) != 0 {
		t.Fatalf("to collections: %v", u)
	}
	// applies_to all keeps the lists it is sent, checked.
	u, put := bdPut(t, e, admin, id, map[string]any{"applies_to": "all", "product_ids": []int64{p1}})
	if u["applies_to"] != "all" || !slices.Equal(wholeNumbers(t, u["product_ids"]), []int64{p1}) || !slices.Equal(wholeNumbers(t, u["collection_ids"]), []int64{c2}) {
		t.Fatalf("to all: %v", u)
	}
	e.SameOnGraphQL(t, put, admin, "UpdateBundle", map[string]any{"id": id, "input": map[string]any{"applies_to": "all", "product_ids": []int64{p1}}})
	if got, _ := bdGet(t, e, admin, id); !reflect.DeepEqual(got, u) {
		t.Fatalf("GET after updates %v\nPUT %v", got, u)
	}

	// GraphQL relations: products and collections, with the counts.
	g := e.GraphQL(admin, `query($id: Int!) { bundle(id: $id) { products { id handle } collections { id handle } product_count collection_count tier_count } }`, map[string]any{"id": id})
	gb, _ := g.Data()["bundle"].(map[string]any)
	if g.Body["errors"] != nil || !reflect.DeepEqual(gb["products"], []any{map[string]any{"id": float64(p1), "handle": "p1"}}) ||
		!reflect.DeepEqual(gb["collections"], []any{map[string]any{"id": float64(c2), "handle": "c2"}}) ||
		gb["product_count"] != float64(1) || gb["collection_count"] != float64(1) || gb["tier_count"] != float64(2) {
		t.Fatalf("relations: %s", g.Raw)
	}

	// The writes name the bundle in the audit log.
	logs, _, _ := listAuditLogs(t, e, admin, "action=updateBundle&limit=1")
	if m := metadataOf(logs[0]); !reflect.DeepEqual(m["records"], []any{map[string]any{"type": "bundle", "id": float64(id)}}) {
		t.Fatalf("updateBundle audit metadata: %v", m)
	}

	// Delete answers the bare envelope and removes tiers and links.
	del := e.Do(http.MethodDelete, bdPath(id), admin, nil).Expect(t, 200)
	if string(del.Raw) != `{"status":true}` {
		t.Fatalf("DELETE answered %s", del.Raw)
	}
	for _, table := range []string{"bundle_tiers", "bundle_products", "bundle_collections"} {
		if n := bdCount(t, e, table, id); n != 0 {
			t.Fatalf("%d rows of %s remain", n, table)
		}
	}
	e.Do(http.MethodGet, bdPath(id), admin, nil).Expect(t, 404)
	e.Do(http.MethodPut, bdPath(id), admin, map[string]any{"title": "x"}).Expect(t, 404)
	e.Do(http.MethodDelete, bdPath(id), admin, nil).Expect(t, 404)
	if g := e.GraphQL(admin, `mutation($id: Int!) { deleteBundle(id: $id) }`, map[string]any{"id": id}); g.ErrorCode() != "NOT_FOUND" {
		t.Fatalf("deleteBundle twice: %s", g.Raw)
	}
	if rows, total, _ := bdList(t, e, admin, ""); total != 1 || wholeNumber(t, rows[0]["id"]) != id2 {
		t.Fatalf("after delete: %v (total %d)", rows, total)
	}
	// A GraphQL create answers the REST shape.
	g = e.GraphQL(admin, `mutation { createBundle(input: {title: "G", tiers: [{quantity: 2}]}) { id applies_to tiers { quantity } product_count } }`, nil)
	if gb, _ := g.Data()["createBundle"].(map[string]any); g.Body["errors"] != nil || gb["applies_to"] != "all" || gb["product_count"] != float64(0) {
		t.Fatalf("GraphQL createBundle: %s", g.Raw)
	}
}

// TestBundlesLinkedRecordsGone: a deleted product or collection drops out
// of the bundle's lists and counts.
func TestBundlesLinkedRecordsGone(t *testing.T) {
	e := apitest.New(t)
	s := e.Store("Acme")
	admin := e.Key(s.ID, auth.RoleAdmin)
	p1, p2 := insertProduct(t, e, s.ID, "p1"), insertProduct(t, e, s.ID, "p2")
	id := wholeNumber(t, bdCreate(t, e, admin, map[string]any{"title": "B", "applies_to": "products", "product_ids": []int64{p1, p2}, "tiers": bdTier2()})["id"])
	if _, err := e.DB.NewDelete().Model((*models.Product)(nil)).Where("id = ?", p2).Exec(context.Background()); err != nil {
		t.Fatal(err)
	}
	if b, _ := bdGet(t, e, admin, id); !slices.Equal(wholeNumbers(t, b["product_ids"]), []int64{p1}) {
		t.Fatalf("product_ids after a product was deleted: %v", b["product_ids"])
	}
	if rows, _, _ := bdList(t, e, admin, ""); rows[0]["product_count"] != float64(1) {
		t.Fatalf("product_count after a product was deleted: %v", rows[0])
	}
}

// TestBundlesAccess: reads are bundles:read (any role), writes are
// bundles:write and admin; no key is 401.
func TestBundlesAccess(t *testing.T) {
	e := apitest.New(t)
	s := e.Store("Acme")
	admin := e.Key(s.ID, auth.RoleAdmin)
	id := wholeNumber(t, bdCreate(t, e, admin, map[string]any{"title": "B", "tiers": bdTier2()})["id"])
	body := map[string]any{"title": "B2", "tiers": bdTier2()}

	staff := e.Key(s.ID, auth.RoleStaff)
	staffRead := e.Key(s.ID, auth.RoleStaff, "bundles:read")
	readOnly := e.Key(s.ID, auth.RoleAdmin, "bundles:read")
	writer := e.Key(s.ID, auth.RoleAdmin, "bundles:write")
	otherScope := e.Key(s.ID, auth.RoleAdmin, "reviews:read", "reviews:write")

	reads := []apitest.Call{{Method: http.MethodGet, Path: "/store/bundles"}, {Method: http.MethodGet, Path: bdPath(id)}}
	writes := []apitest.Call{
		{Method: http.MethodPost, Path: "/store/bundles", Body: body},
		{Method: http.MethodPut, Path: bdPath(id), Body: map[string]any{"title": "x"}},
		{Method: http.MethodDelete, Path: bdPath(id)},
	}
	all := append(slices.Clone(reads), writes...)
	e.ExpectEach(t, 401, map[string]string{"no key": "", "unknown key": "sa_api_nope"}, all)
	e.ExpectEach(t, 403, map[string]string{"other scope": otherScope}, all)
	e.ExpectEach(t, 403, map[string]string{"staff read": staffRead, "read only": readOnly}, writes)
	e.ExpectEach(t, 200, map[string]string{"staff": staff, "staff read": staffRead, "read only": readOnly, "writer": writer}, reads)
	// Access is checked before the body is read.
	e.Do(http.MethodPost, "/store/bundles", readOnly, `{"title": `).Expect(t, 403)
	e.Do(http.MethodPost, "/store/bundles", "", `{"title": `).Expect(t, 401)
	if g := e.GraphQL(readOnly, `mutation { createBundle(input: {title: "x", tiers: [{quantity: 2}]}) { id } }`, nil); g.ErrorCode() != "FORBIDDEN" {
		t.Fatalf("read-only createBundle: %s", g.Raw)
	}
	if g := e.GraphQL(otherScope, `{ bundles { id } }`, nil); g.ErrorCode() != "FORBIDDEN" {
		t.Fatalf("bundles without the scope: %s", g.Raw)
	}
	if _, total, _ := bdList(t, e, admin, ""); total != 1 {
		t.Fatalf("a refused write was written: total %d", total)
	}
	// The write scope holds the read; the writer may write.
	e.Do(http.MethodPost, "/store/bundles", writer, body).Expect(t, 201)
	e.Do(http.MethodPut, bdPath(id), writer, map[string]any{"title": "x"}).Expect(t, 200)
	e.Do(http.MethodDelete, bdPath(id), writer, nil).Expect(t, 200)

	// Missing and malformed ids.
	for _, c := range []apitest.Call{{Method: http.MethodGet, Path: bdPath(987654)}, {Method: http.MethodPut, Path: bdPath(987654), Body: map[string]any{"title": "x"}}, {Method: http.MethodDelete, Path: bdPath(987654)}} {
		e.Do(c.Method, c.Path, admin, c.Body).Expect(t, 404)
	}
	e.Do(http.MethodGet, "/store/bundles/abc", admin, nil).Expect(t, 400)
	e.Do(http.MethodPut, "/store/bundles/1.5", admin, map[string]any{"title": "x"}).Expect(t, 400)
	e.Do(http.MethodDelete, "/store/bundles/x", admin, nil).Expect(t, 400)
}

// TestBundlesStaffWritesRefused: the spec's "w" is the write scope and the
// admin role, so staff keys may not write bundles.
func TestBundlesStaffWritesRefused(t *testing.T) {
	e := apitest.New(t)
	s := e.Store("Acme")
	id := wholeNumber(t, bdCreate(t, e, e.Key(s.ID, auth.RoleAdmin), map[string]any{"title": "B", "tiers": bdTier2()})["id"])
	e.ExpectEach(t, 403, map[string]string{"staff": e.Key(s.ID, auth.RoleStaff), "staff write": e.Key(s.ID, auth.RoleStaff, "bundles:write")}, []apitest.Call{
		{Method: http.MethodPost, Path: "/store/bundles", Body: map[string]any{"title": "B2", "tiers": bdTier2()}},
		{Method: http.MethodPut, Path: bdPath(id), Body: map[string]any{"title": "x"}},
		{Method: http.MethodDelete, Path: bdPath(id)},
	})
}

// TestBundlesOtherStore: another store's bundle is a 404 everywhere, never
// listed, and stays as it was; another store's products and collections
// cannot be linked.
func TestBundlesOtherStore(t *testing.T) {
	e := apitest.New(t)
	a, b := e.Store("Acme"), e.Store("Bolt")
	aKey, bKey := e.Key(a.ID, auth.RoleAdmin), e.Key(b.ID, auth.RoleAdmin)
	bp := insertProduct(t, e, b.ID, "theirs")
	bc := insertCollection(t, e, b.ID, "theirs")
	theirs := bdCreate(t, e, bKey, map[string]any{"title": "Theirs", "applies_to": "products", "product_ids": []int64{bp}, "tiers": bdTier2()})
	bID := wholeNumber(t, theirs["id"])
	mine := bdCreate(t, e, aKey, map[string]any{"title": "Mine", "tiers": bdTier2()})

	e.Do(http.MethodGet, bdPath(bID), aKey, nil).Expect(t, 404)
	e.Do(http.MethodPut, bdPath(bID), aKey, map[string]any{"title": "Hijacked", "enabled": false}).Expect(t, 404)
	e.Do(http.MethodPut, bdPath(bID), aKey, map[string]any{}).Expect(t, 404)
	e.Do(http.MethodDelete, bdPath(bID), aKey, nil).Expect(t, 404)
	for _, q := range []string{
		`query($id: Int!) { bundle(id: $id) { id } }`,
		`mutation($id: Int!) { updateBundle(id: $id, input: {title: "x"}) { id } }`,
		`mutation($id: Int!) { deleteBundle(id: $id) }`,
	} {
		if g := e.GraphQL(aKey, q, map[string]any{"id": bID}); g.ErrorCode() != "NOT_FOUND" {
			t.Fatalf("%s on another store's id: %s", q, g.Raw)
		}
	}
	if rows, total, _ := bdList(t, e, aKey, ""); total != 1 || wholeNumber(t, rows[0]["id"]) != wholeNumber(t, mine["id"]) {
		t.Fatalf("store A lists %v (total %d)", rows, total)
	}
	if got, _ := bdGet(t, e, bKey, bID); !reflect.DeepEqual(got, theirs) {
		t.Fatalf("store B's bundle changed:\n got  %v\n want %v", got, theirs)
	}

	// Another store's product or collection is a 400 naming the id.
	mineID := wholeNumber(t, mine["id"])
	r := e.Do(http.MethodPost, "/store/bundles", aKey, map[string]any{"title": "x", "applies_to": "products", "product_ids": []int64{bp}, "tiers": bdTier2()}).Expect(t, 400)
	if !strings.Contains(r.Message(), strconv.FormatInt(bp, 10)) {
		t.Fatalf("message %q does not name the product %d", r.Message(), bp)
	}
	r = e.Do(http.MethodPut, bdPath(mineID), aKey, map[string]any{"collection_ids": []int64{bc}}).Expect(t, 400)
	if !strings.Contains(r.Message(), strconv.FormatInt(bc, 10)) {
		t.Fatalf("message %q does not name the collection %d", r.Message(), bc)
	}
	if got, _ := bdGet(t, e, aKey, mineID); !reflect.DeepEqual(got, mine) {
		t.Fatalf("a refused update was written: %v", got)
	}
	// The GraphQL relations of store B's bundle hold its own product only.
	g := e.GraphQL(bKey, `query($id: Int!) { bundle(id: $id) { products { id } } }`, map[string]any{"id": bID})
	if !reflect.DeepEqual(g.Data()["bundle"], map[string]any{"products": []any{map[string]any{"id": float64(bp)}}}) {
		t.Fatalf("store B products: %s", g.Raw)
	}
}

// TestBundlesValidation: bad bodies are 400 on create and update, and
// nothing is written.
func TestBundlesValidation(t *testing.T) {
	e := apitest.New(t)
	s := e.Store("Acme")
	admin := e.Key(s.ID, auth.RoleAdmin)
	p1 := insertProduct(t, e, s.ID, "p1")
	c1 := insertCollection(t, e, s.ID, "c1")
	tiers := bdTier2()
	long := strings.Repeat("é", 256)
	elevenTiers := []map[string]any{}
	for i := range 11 {
		elevenTiers = append(elevenTiers, map[string]any{"quantity": i + 1})
	}

	create := map[string]any{
		"no body":                    nil,
		"empty object":               map[string]any{},
		"missing title":              map[string]any{"tiers": tiers},
		"blank title":                map[string]any{"title": "   ", "tiers": tiers},
		"long title":                 map[string]any{"title": long, "tiers": tiers},
		"title not a string":         map[string]any{"title": 7, "tiers": tiers},
		"missing tiers":              map[string]any{"title": "x"},
		"no tiers":                   map[string]any{"title": "x", "tiers": []any{}},
		"eleven tiers":               map[string]any{"title": "x", "tiers": elevenTiers},
		"tier without quantity":      map[string]any{"title": "x", "tiers": []map[string]any{{"discount_bps": 100}}},
		"zero quantity":              map[string]any{"title": "x", "tiers": []map[string]any{{"quantity": 0}}},
		"negative quantity":          map[string]any{"title": "x", "tiers": []map[string]any{{"quantity": -2}}},
		"huge quantity":              map[string]any{"title": "x", "tiers": []map[string]any{{"quantity": 3000000000}}},
		"fractional quantity":        map[string]any{"title": "x", "tiers": []map[string]any{{"quantity": 1.5}}},
		"duplicate quantity":         map[string]any{"title": "x", "tiers": []map[string]any{{"quantity": 2}, {"quantity": 3}, {"quantity": 2, "discount_bps": 500}}},
		"negative discount":          map[string]any{"title": "x", "tiers": []map[string]any{{"quantity": 2, "discount_bps": -1}}},
		"discount over 100%":         map[string]any{"title": "x", "tiers": []map[string]any{{"quantity": 2, "discount_bps": 10001}}},
		"two preselected":            map[string]any{"title": "x", "tiers": []map[string]any{{"quantity": 2, "preselected": true}, {"quantity": 3, "preselected": true}}},
		"long tier label":            map[string]any{"title": "x", "tiers": []map[string]any{{"quantity": 2, "label": long}}},
		"long tier title":            map[string]any{"title": "x", "tiers": []map[string]any{{"quantity": 2, "title": long}}},
		"long tier caption":          map[string]any{"title": "x", "tiers": []map[string]any{{"quantity": 2, "caption": long}}},
		"long tier benefit_label":    map[string]any{"title": "x", "tiers": []map[string]any{{"quantity": 2, "benefit_label": long}}},
		"tier label not a string":    map[string]any{"title": "x", "tiers": []map[string]any{{"quantity": 2, "label": 5}}},
		"unknown applies_to":         map[string]any{"title": "x", "applies_to": "variants", "tiers": tiers},
		"applies_to case":            map[string]any{"title": "x", "applies_to": "ALL", "tiers": tiers},
		"products without ids":       map[string]any{"title": "x", "applies_to": "products", "tiers": tiers},
		"products with empty ids":    map[string]any{"title": "x", "applies_to": "products", "product_ids": []int64{}, "tiers": tiers},
		"collections without ids":    map[string]any{"title": "x", "applies_to": "collections", "product_ids": []int64{p1}, "tiers": tiers},
		"missing product":            map[string]any{"title": "x", "applies_to": "products", "product_ids": []int64{p1, 987654}, "tiers": tiers},
		"missing collection":         map[string]any{"title": "x", "applies_to": "collections", "collection_ids": []int64{987655}, "tiers": tiers},
		"missing product for all":    map[string]any{"title": "x", "product_ids": []int64{987656}, "tiers": tiers},
		"product id not a number":    map[string]any{"title": "x", "product_ids": []any{"abc"}, "tiers": tiers},
		"enabled not a boolean":      map[string]any{"title": "x", "enabled": "yes", "tiers": tiers},
		"free_shipping not boolean":  map[string]any{"title": "x", "tiers": []map[string]any{{"quantity": 2, "free_shipping": 1}}},
		"tiers not a list of object": map[string]any{"title": "x", "tiers": []any{2}},
		"malformed JSON":             `{"title": `,
		"array body":                 `[1]`,
	}
	for name, body := range create {
		r := e.Do(http.MethodPost, "/store/bundles", admin, body)
		if r.Status != 400 {
			t.Fatalf("create, %s: status %d, want 400: %s", name, r.Status, r.Raw)
		}
		r.Expect(t, 400)
	}
	if _, total, _ := bdList(t, e, admin, ""); total != 0 {
		t.Fatalf("a refused create was written: total %d", total)
	}
	r := e.Do(http.MethodPost, "/store/bundles", admin, create["missing product"]).Expect(t, 400)
	if !strings.Contains(r.Message(), "987654") || strings.Contains(r.Message(), strconv.FormatInt(p1, 10)+",") {
		t.Fatalf("missing product message %q must name 987654 only", r.Message())
	}
	if g := e.GraphQL(admin, `mutation { createBundle(input: {title: "x", tiers: [{quantity: 2}, {quantity: 2}]}) { id } }`, nil); g.ErrorCode() != "BAD_USER_INPUT" {
		t.Fatalf("GraphQL duplicate quantity: %s", g.Raw)
	}

	// Bounds are inclusive: 255 characters, 10 tiers, 0 and 10000 bps.
	ten := elevenTiers[:10]
	ten[0] = map[string]any{"quantity": 1, "discount_bps": 0, "label": strings.Repeat("é", 255)}
	ten[9] = map[string]any{"quantity": 10, "discount_bps": 10000, "preselected": true}
	b := bdCreate(t, e, admin, map[string]any{"title": strings.Repeat("é", 255), "applies_to": "products", "product_ids": []int64{p1}, "tiers": ten})
	if len(bdTiers(t, b)) != 10 || bdTiers(t, b)[9]["discount_display"] != "100% off" {
		t.Fatalf("bounds: %v", b["tiers"])
	}
	id := wholeNumber(t, b["id"])

	update := map[string]any{
		"blank title":          map[string]any{"title": ""},
		"long title":           map[string]any{"title": long},
		"no tiers":             map[string]any{"tiers": []any{}},
		"duplicate quantity":   map[string]any{"tiers": []map[string]any{{"quantity": 4}, {"quantity": 4}}},
		"discount over 100%":   map[string]any{"tiers": []map[string]any{{"quantity": 4, "discount_bps": 20000}}},
		"two preselected":      map[string]any{"tiers": []map[string]any{{"quantity": 2, "preselected": true}, {"quantity": 3, "preselected": true}}},
		"unknown applies_to":   map[string]any{"applies_to": "everything"},
		"clear products":       map[string]any{"product_ids": []int64{}},
		"to collections bare":  map[string]any{"applies_to": "collections"},
		"missing product":      map[string]any{"product_ids": []int64{p1, 987654}},
		"missing collection":   map[string]any{"applies_to": "collections", "collection_ids": []int64{987655}},
		"title not a string":   map[string]any{"title": false},
		"malformed JSON":       `{"title"`,
		"tiers with a bad one": map[string]any{"tiers": []map[string]any{{"quantity": 2}, {"quantity": 0}}},
	}
	for name, body := range update {
		r := e.Do(http.MethodPut, bdPath(id), admin, body)
		if r.Status != 400 {
			t.Fatalf("update, %s: status %d, want 400: %s", name, r.Status, r.Raw)
		}
		r.Expect(t, 400)
	}
	if got, _ := bdGet(t, e, admin, id); !reflect.DeepEqual(got, b) {
		t.Fatalf("a refused update was written:\n got  %v\n want %v", got, b)
	}
	// Moving to collections with collections (and clearing products) is fine.
	u, _ := bdPut(t, e, admin, id, map[string]any{"applies_to": "collections", "collection_ids": []int64{c1}, "product_ids": []int64{}})
	if u["applies_to"] != "collections" || len(wholeNumbers(t, u["product_ids"])) != 0 {
		t.Fatalf("to collections: %v", u)
	}
}

// TestBundlesListPaging: limit, offset and total, newest first, on both
// surfaces.
func TestBundlesListPaging(t *testing.T) {
	e := apitest.New(t)
	s := e.Store("Acme")
	admin := e.Key(s.ID, auth.RoleAdmin)
	var ids []int64
	for i := range 5 {
		ids = append(ids, wholeNumber(t, bdCreate(t, e, admin, map[string]any{"title": "B" + strconv.Itoa(i), "tiers": bdTier2()})["id"]))
	}
	slices.Reverse(ids)
	all, total, _ := bdList(t, e, admin, "")
	if total != 5 || !slices.Equal(rowIDs(all), ids) {
		t.Fatalf("list %v total %d, want %v", rowIDs(all), total, ids)
	}
	for _, c := range []struct {
		query  string
		lo, hi int
	}{{"limit=2", 0, 2}, {"limit=2&offset=2", 2, 4}, {"limit=2&offset=4", 4, 5}, {"offset=5", 5, 5}, {"offset=1", 1, 5}} {
		rows, total, r := bdList(t, e, admin, c.query)
		if got := rowIDs(rows); total != 5 || !slices.Equal(got, ids[c.lo:c.hi]) {
			t.Fatalf("?%s: ids %v total %d, want %v total 5", c.query, got, total, ids[c.lo:c.hi])
		}
		if c.query == "limit=2&offset=2" {
			e.SameOnGraphQL(t, r, admin, "ListBundles", map[string]any{"limit": 2, "offset": 2})
		}
	}
	for _, q := range []string{"limit=0", "limit=251", "limit=x", "offset=-1"} {
		e.Do(http.MethodGet, "/store/bundles?"+q, admin, nil).Expect(t, 400)
	}
}

// TestBundleListStatementsDoNotGrowWithRows: the counts, ids and tiers of a
// bundle list load through dataloaders: 40 bundles cost as many statements
// as 5, on both surfaces.
func TestBundleListStatementsDoNotGrowWithRows(t *testing.T) {
	e := apitest.New(t)
	s := e.Store("Acme")
	key := e.Key(s.ID, auth.RoleAdmin)
	ctx := context.Background()
	p1, p2 := insertProduct(t, e, s.ID, "p1"), insertProduct(t, e, s.ID, "p2")
	c1 := insertCollection(t, e, s.ID, "c1")
	for i := range 40 {
		b := &models.BundleOffer{StoreID: s.ID, Title: "B" + strconv.Itoa(i), Enabled: true, AppliesTo: models.BundleProducts}
		if err := models.InsertBundle(ctx, e.DB, b); err != nil {
			t.Fatal(err)
		}
		tiers := []models.BundleOfferTier{{Quantity: 2, DiscountBps: 500}, {Quantity: 3, DiscountBps: 1000}}
		if err := models.SaveBundleTiers(ctx, e.DB, s.ID, b.ID, tiers); err != nil {
			t.Fatal(err)
		}
		if err := models.SaveBundleTargets(ctx, e.DB, s.ID, b.ID, []int64{p1, p2}, []int64{c1}); err != nil {
			t.Fatal(err)
		}
	}
	e.Do(http.MethodGet, "/store", key, nil).Expect(t, 200) // records the key's last use
	count := countStatements(e)
	query := `query($limit: Int) { bundles(limit: $limit) { id product_ids collection_ids tiers { id quantity discount_display }
		product_count collection_count tier_count } }`
	gql, rest := map[int]int64{}, map[int]int64{}
	for _, n := range []int{5, 40} {
		gql[n] = count(func() {
			g := e.GraphQL(key, query, map[string]any{"limit": n})
			rows, _ := g.Data()["bundles"].([]any)
			if len(rows) != n {
				t.Fatalf("listed %d bundles, want %d: %s", len(rows), n, g.Raw)
			}
			for _, v := range rows {
				m := v.(map[string]any)
				if m["product_count"] != float64(2) || m["collection_count"] != float64(1) || m["tier_count"] != float64(2) || len(m["tiers"].([]any)) != 2 {
					t.Fatalf("bundle %v", m)
				}
			}
		})
		rest[n] = count(func() {
			rows, _, _ := bdList(t, e, key, "limit="+strconv.Itoa(n))
			if len(rows) != n || rows[n-1]["product_count"] != float64(2) || rows[n-1]["tier_count"] != float64(2) {
				t.Fatalf("REST list of %d: %v", n, rows)
			}
		})
	}
	if gql[5] != gql[40] || rest[5] != rest[40] {
		t.Fatalf("statements: GraphQL 5 → %d, 40 → %d; REST 5 → %d, 40 → %d", gql[5], gql[40], rest[5], rest[40])
	}
}
