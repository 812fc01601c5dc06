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
	"testing"
	"time"

	"github.com/uptrace/bun"

	"storeadmin/internal/app/apitest"
	"storeadmin/internal/auth"
	"storeadmin/internal/base/apperr"
	"storeadmin/models"
)

// The fields of the spec's discount views, exactly.
var (
	dcViewKeys = []string{"applies_to", "buy_quantity", "class", "code", "enabled", "ends_at", "get_quantity", "get_value",
		"get_value_type", "id", "minimum_subtotal_cents", "once_per_customer", "per_customer_limit", "starts_at", "type",
		"usage_limit", "used_count", "value", "value_type"}
	dcIDLists     = []string{"buy_collection_ids", "buy_product_ids", "collection_ids", "get_collection_ids", "get_product_ids", "product_ids"}
	dcDetailKeys  = dcSorted(append(slices.Clone(dcViewKeys), dcIDLists...))
	dcIntKeys     = []string{"buy_quantity", "get_quantity", "get_value", "id", "minimum_subtotal_cents", "used_count", "value"}
	dcStringKeys  = []string{"applies_to", "class", "code", "get_value_type", "type", "value_type"}
	dcNullIntKeys = []string{"per_customer_limit", "usage_limit"}
)

func dcSorted(s []string) []string { slices.Sort(s); return s }

func dcPath(id int64) string { return "/store/discounts/" + strconv.FormatInt(id, 10) }

// dcCheck checks v against a discount view with keys and returns it.
func dcCheck(t *testing.T, v any, keys []string) map[string]any {
	t.Helper()
	m := objectWithKeys(t, "discount", v, keys)
	for _, k := range dcIntKeys {
		wholeNumber(t, m[k])
	}
	for _, k := range dcStringKeys {
		stringField(t, m, k)
	}
	for _, k := range dcNullIntKeys {
		if m[k] != nil {
			wholeNumber(t, m[k])
		}
	}
	for _, k := range []string{"starts_at", "ends_at"} {
		if m[k] != nil {
			if _, err := time.Parse(time.RFC3339, stringField(t, m, k)); err != nil {
				t.Fatalf("%s = %v, want RFC 3339", k, m[k])
			}
		}
	}
	boolField(t, m, "enabled")
	boolField(t, m, "once_per_customer")
	if len(keys) == len(dcDetailKeys) {
		for _, k := range dcIDLists {
			wholeNumbers(t, m[k])
		}
	}
	return m
}

// dcDiscounts is the REST resource of discounts; a read answers the
// detail view, which adds the id lists.
var dcDiscounts = crudResource{
	path: "/store/discounts", item: dcPath, one: "discount", many: "discounts",
	view: func(t *testing.T, v any) map[string]any {
		t.Helper()
		return dcCheck(t, v, dcViewKeys)
	},
	detail: func(t *testing.T, v any) map[string]any {
		t.Helper()
		return dcCheck(t, v, dcDetailKeys)
	},
}

// dcCodes is the codes of rows, in order.
func dcCodes(rows []map[string]any) []string {
	var out []string
	for _, r := range rows {
		out = append(out, r["code"].(string))
	}
	return out
}

// dcView is the view fields of a detail view.
func dcView(detail map[string]any) map[string]any {
	out := map[string]any{}
	for _, k := range dcViewKeys {
		out[k] = detail[k]
	}
	return out
}

// insertDiscount stores a discount straight through the models.
func insertDiscount(t testing.TB, e *apitest.Env, d *models.Discount) *models.Discount {
	t.Helper()
	if d.Class == "" {
		d.Class = models.DiscountCode
	}
	if d.ValueType == "" {
		d.ValueType = models.DiscountPercentage
	}
	if d.AppliesTo == "" {
		d.AppliesTo = models.AppliesToAll
	}
	if d.GetValueType == "" {
		d.GetValueType = models.DiscountPercentage
	}
	if err := models.InsertDiscount(context.Background(), e.DB, d); err != nil {
		t.Fatalf("insert discount: %v", err)
	}
	return d
}

// TestDiscountsCreateEveryType: each type and class is created with the
// defaults of a create, reads back the same on both surfaces, and lists.
func TestDiscountsCreateEveryType(t *testing.T) {
	e, s, admin := newAcme(t)
	reader := e.Key(s.ID, auth.RoleStaff, "discounts:read")
	p1, p2, p3 := insertProduct(t, e, s.ID, "p1"), insertProduct(t, e, s.ID, "p2"), insertProduct(t, e, s.ID, "p3")
	c1, c2 := insertCollection(t, e, s.ID, "c1"), insertCollection(t, e, s.ID, "c2")

	// A percentage code with nothing but what it needs: the defaults.
	pct := dcDiscounts.create(t, e, admin, map[string]any{"code": "Welcome10", "type": "percentage", "value": 10})
	want := map[string]any{"id": pct["id"], "class": "code", "code": "Welcome10", "type": "percentage", "value": float64(10),
		"value_type": "percentage", "applies_to": "all", "minimum_subtotal_cents": float64(0), "starts_at": nil, "ends_at": nil,
		"enabled": true, "usage_limit": nil, "used_count": float64(0), "once_per_customer": false, "per_customer_limit": nil,
		"buy_quantity": float64(0), "get_quantity": float64(0), "get_value": float64(0), "get_value_type": "percentage"}
	if !reflect.DeepEqual(pct, want) {
		t.Fatalf("percentage defaults:\n got  %v\n want %v", pct, want)
	}
	pctID := wholeNumber(t, pct["id"])
	got, get := dcDiscounts.get(t, e, reader, pctID)
	if !reflect.DeepEqual(dcView(got), pct) {
		t.Fatalf("GET %v\nPOST %v", got, pct)
	}
	for _, k := range dcIDLists {
		if ids := wholeNumbers(t, got[k]); len(ids) != 0 {
			t.Fatalf("%s = %v, want []", k, ids)
		}
	}
	e.SameOnGraphQL(t, get, reader, "GetDiscount", map[string]any{"id": pctID})

	// Every field of a fixed amount on products.
	starts, ends := "2026-01-01T00:00:00Z", "2027-01-01T00:00:00Z"
	fixed := dcDiscounts.create(t, e, admin, map[string]any{"class": "code", "code": "VIP-50_off", "type": "fixed_amount", "value": 5000,
		"value_type": "fixed_amount", "applies_to": "products", "product_ids": []int64{p2, p1, p2}, "minimum_subtotal_cents": 20000,
		"starts_at": starts, "ends_at": ends, "enabled": false, "usage_limit": 100, "once_per_customer": false, "per_customer_limit": 3})
	if fixed["value"] != float64(5000) || fixed["value_type"] != "fixed_amount" || fixed["applies_to"] != "products" ||
		fixed["minimum_subtotal_cents"] != float64(20000) || fixed["starts_at"] != starts || fixed["ends_at"] != ends ||
		fixed["enabled"] != false || fixed["usage_limit"] != float64(100) || fixed["per_customer_limit"] != float64(3) {
		t.Fatalf("fixed_amount: %v", fixed)
	}
	fixedID := wholeNumber(t, fixed["id"])
	got, _ = dcDiscounts.get(t, e, admin, fixedID)
	if ids := wholeNumbers(t, got["product_ids"]); !slices.Equal(ids, []int64{p1, p2}) {
		t.Fatalf("product_ids %v, want %v (distinct, by id)", ids, []int64{p1, p2})
	}

	// Free shipping: value 0, percentage by type.
	ship := dcDiscounts.create(t, e, admin, map[string]any{"code": "FREESHIP", "type": "free_shipping", "minimum_subtotal_cents": 5000, "once_per_customer": true})
	if ship["value"] != float64(0) || ship["value_type"] != "percentage" || ship["applies_to"] != "all" || ship["once_per_customer"] != true {
		t.Fatalf("free_shipping: %v", ship)
	}

	// Buy two from a product, get one from a collection free.
	bx := dcDiscounts.create(t, e, admin, map[string]any{"code": "BUY2GET1", "type": "buy_x_get_y", "buy_quantity": 2, "get_quantity": 1,
		"get_value": 100, "buy_product_ids": []int64{p3}, "buy_collection_ids": []int64{c1}, "get_collection_ids": []int64{c2}, "get_product_ids": []int64{p1}})
	if bx["buy_quantity"] != float64(2) || bx["get_quantity"] != float64(1) || bx["get_value"] != float64(100) ||
		bx["get_value_type"] != "percentage" || bx["value"] != float64(0) {
		t.Fatalf("buy_x_get_y: %v", bx)
	}
	got, _ = dcDiscounts.get(t, e, admin, wholeNumber(t, bx["id"]))
	for k, ids := range map[string][]int64{"buy_product_ids": {p3}, "buy_collection_ids": {c1}, "get_collection_ids": {c2},
		"get_product_ids": {p1}, "product_ids": {}, "collection_ids": {}} {
		if g := wholeNumbers(t, got[k]); !slices.Equal(g, ids) {
			t.Fatalf("%s = %v, want %v", k, g, ids)
		}
	}
	bxFixed := dcDiscounts.create(t, e, admin, map[string]any{"code": "BUY3SAVE5", "type": "buy_x_get_y", "buy_quantity": 3, "get_quantity": 1,
		"get_value": 500, "get_value_type": "fixed_amount"})
	if bxFixed["get_value_type"] != "fixed_amount" || bxFixed["get_value"] != float64(500) {
		t.Fatalf("buy_x_get_y fixed: %v", bxFixed)
	}

	// An automatic discount: its code is its title, any text, trimmed.
	auto := dcDiscounts.create(t, e, admin, map[string]any{"class": "automatic", "code": "  10% off the Layering System  ", "type": "percentage",
		"value": 10, "applies_to": "collections", "collection_ids": []int64{c2, c1}})
	if auto["class"] != "automatic" || auto["code"] != "10% off the Layering System" || auto["applies_to"] != "collections" {
		t.Fatalf("automatic: %v", auto)
	}
	autoID := wholeNumber(t, auto["id"])
	got, _ = dcDiscounts.get(t, e, admin, autoID)
	if ids := wholeNumbers(t, got["collection_ids"]); !slices.Equal(ids, []int64{c1, c2}) {
		t.Fatalf("collection_ids %v", ids)
	}

	// The list: newest first, all of them, the same on GraphQL.
	rows, total, list := dcDiscounts.list(t, e, reader, "")
	if total != 6 || !slices.Equal(dcCodes(rows), []string{"10% off the Layering System", "BUY3SAVE5", "BUY2GET1", "FREESHIP", "VIP-50_off", "Welcome10"}) {
		t.Fatalf("list: %s", list.Raw)
	}
	if !reflect.DeepEqual(rows[5], pct) {
		t.Fatalf("listed %v\ncreated %v", rows[5], pct)
	}
	e.SameOnGraphQL(t, list, reader, "ListDiscounts", nil)

	// GraphQL relations: products and collections of the id lists, in
	// order, skipping a product deleted since.
	g := e.GraphQL(admin, `query($id: Int!) { discount(id: $id) { products { id handle } collections { id handle } } }`, map[string]any{"id": fixedID})
	gd, _ := g.Data()["discount"].(map[string]any)
	if g.Body["errors"] != nil || !reflect.DeepEqual(gd["products"], []any{map[string]any{"id": float64(p1), "handle": "p1"}, map[string]any{"id": float64(p2), "handle": "p2"}}) ||
		!reflect.DeepEqual(gd["collections"], []any{}) {
		t.Fatalf("relations: %s", g.Raw)
	}
	if _, err := e.DB.NewDelete().TableExpr("products").Where("id = ?", p1).Exec(context.Background()); err != nil {
		t.Fatal(err)
	}
	g = e.GraphQL(admin, `query($id: Int!) { discount(id: $id) { products { id } } }`, map[string]any{"id": fixedID})
	if !reflect.DeepEqual(g.Data()["discount"], map[string]any{"products": []any{map[string]any{"id": float64(p2)}}}) {
		t.Fatalf("a deleted product must be skipped: %s", g.Raw)
	}
	g = e.GraphQL(admin, `query($id: Int!) { discount(id: $id) { collections { handle } } }`, map[string]any{"id": autoID})
	if !reflect.DeepEqual(g.Data()["discount"], map[string]any{"collections": []any{map[string]any{"handle": "c1"}, map[string]any{"handle": "c2"}}}) {
		t.Fatalf("collections: %s", g.Raw)
	}

	// The create names the discount in the audit log.
	expectAuditRecord(t, e, admin, "action=createDiscount&limit=1", "discount", autoID)
}

// TestDiscountsUpdate: an update is the stored discount with the sent
// fields merged in, checked as a create is; null clears a nullable field.
func TestDiscountsUpdate(t *testing.T) {
	e, s, admin := newAcme(t)
	p1, p2 := insertProduct(t, e, s.ID, "p1"), insertProduct(t, e, s.ID, "p2")
	c1 := insertCollection(t, e, s.ID, "c1")

	d := dcDiscounts.create(t, e, admin, map[string]any{"code": "SUMMER25", "type": "percentage", "value": 25, "usage_limit": 50,
		"starts_at": "2026-06-01T00:00:00Z", "ends_at": "2026-09-01T00:00:00Z", "applies_to": "products", "product_ids": []int64{p1}})
	id := wholeNumber(t, d["id"])

	// Left out: unchanged; an empty body changes nothing.
	u, _ := dcDiscounts.put(t, e, admin, id, map[string]any{})
	if !reflect.DeepEqual(u, d) {
		t.Fatalf("empty update:\n got  %v\n want %v", u, d)
	}
	u, _ = dcDiscounts.put(t, e, admin, id, map[string]any{"value": 30})
	d["value"] = float64(30)
	if !reflect.DeepEqual(u, d) {
		t.Fatalf("value only:\n got  %v\n want %v", u, d)
	}
	// What was read can be sent back as it is.
	detail, _ := dcDiscounts.get(t, e, admin, id)
	if u, _ = dcDiscounts.put(t, e, admin, id, detail); !reflect.DeepEqual(u, d) {
		t.Fatalf("read and sent back:\n got  %v\n want %v", u, d)
	}
	// The same code in another case is the discount's own.
	u, _ = dcDiscounts.put(t, e, admin, id, map[string]any{"code": "summer25"})
	if u["code"] != "summer25" {
		t.Fatalf("code: %v", u)
	}
	// null clears usage_limit and the window; the other fields stay.
	u, put := dcDiscounts.put(t, e, admin, id, map[string]any{"usage_limit": nil, "ends_at": nil, "starts_at": nil, "per_customer_limit": nil})
	if u["usage_limit"] != nil || u["ends_at"] != nil || u["starts_at"] != nil || u["value"] != float64(30) || u["applies_to"] != "products" {
		t.Fatalf("nulls: %v", u)
	}
	e.SameOnGraphQL(t, put, admin, "UpdateDiscount", map[string]any{"id": id, "input": map[string]any{"usage_limit": nil}})
	g := e.GraphQL(admin, `mutation($id: Int!) { updateDiscount(id: $id, input: {usage_limit: 5, ends_at: "2030-01-01T00:00:00Z"}) { usage_limit ends_at } }`, map[string]any{"id": id})
	if !reflect.DeepEqual(g.Data()["updateDiscount"], map[string]any{"usage_limit": float64(5), "ends_at": "2030-01-01T00:00:00Z"}) {
		t.Fatalf("GraphQL set: %s", g.Raw)
	}
	g = e.GraphQL(admin, `mutation($id: Int!) { updateDiscount(id: $id, input: {usage_limit: null}) { usage_limit ends_at } }`, map[string]any{"id": id})
	if !reflect.DeepEqual(g.Data()["updateDiscount"], map[string]any{"usage_limit": nil, "ends_at": "2030-01-01T00:00:00Z"}) {
		t.Fatalf("GraphQL null literal: %s", g.Raw)
	}

	// Lists, when sent, replace.
	dcDiscounts.put(t, e, admin, id, map[string]any{"product_ids": []int64{p2, p1}})
	if got, _ := dcDiscounts.get(t, e, admin, id); !slices.Equal(wholeNumbers(t, got["product_ids"]), []int64{p1, p2}) {
		t.Fatalf("product_ids: %v", got["product_ids"])
	}
	// Moving to collections empties product_ids.
	dcDiscounts.put(t, e, admin, id, map[string]any{"applies_to": "collections", "collection_ids": []int64{c1}})
	if got, _ := dcDiscounts.get(t, e, admin, id); len(wholeNumbers(t, got["product_ids"])) != 0 || !slices.Equal(wholeNumbers(t, got["collection_ids"]), []int64{c1}) {
		t.Fatalf("to collections: %v", got)
	}
	// A new type resets what belongs to the old one: value_type follows,
	// applies_to becomes all for free shipping, and so on.
	u, _ = dcDiscounts.put(t, e, admin, id, map[string]any{"type": "fixed_amount", "value": 750})
	if u["value_type"] != "fixed_amount" || u["value"] != float64(750) {
		t.Fatalf("to fixed_amount: %v", u)
	}
	u, _ = dcDiscounts.put(t, e, admin, id, map[string]any{"type": "free_shipping"})
	if u["value"] != float64(0) || u["value_type"] != "percentage" || u["applies_to"] != "all" {
		t.Fatalf("to free_shipping: %v", u)
	}
	if got, _ := dcDiscounts.get(t, e, admin, id); len(wholeNumbers(t, got["collection_ids"])) != 0 {
		t.Fatalf("free shipping kept collection_ids: %v", got)
	}
	u, _ = dcDiscounts.put(t, e, admin, id, map[string]any{"type": "buy_x_get_y", "buy_quantity": 1, "get_quantity": 1, "get_value": 50, "get_product_ids": []int64{p2}})
	if u["buy_quantity"] != float64(1) || u["get_value"] != float64(50) {
		t.Fatalf("to buy_x_get_y: %v", u)
	}
	u, _ = dcDiscounts.put(t, e, admin, id, map[string]any{"type": "percentage", "value": 15})
	if u["buy_quantity"] != float64(0) || u["get_quantity"] != float64(0) || u["get_value"] != float64(0) || u["value"] != float64(15) {
		t.Fatalf("back to percentage: %v", u)
	}
	if got, _ := dcDiscounts.get(t, e, admin, id); len(wholeNumbers(t, got["get_product_ids"])) != 0 {
		t.Fatalf("percentage kept get_product_ids: %v", got)
	}
	// To automatic: the code is now a title.
	u, _ = dcDiscounts.put(t, e, admin, id, map[string]any{"class": "automatic", "code": "Summer sale: 15% off"})
	if u["class"] != "automatic" || u["code"] != "Summer sale: 15% off" {
		t.Fatalf("to automatic: %v", u)
	}
	// Back to a code: the title is not a code.
	r := e.Do(http.MethodPut, dcPath(id), admin, map[string]any{"class": "code"}).Expect(t, 400)
	if !strings.Contains(r.Message(), "code must be") {
		t.Fatalf("message %q", r.Message())
	}
	dcDiscounts.put(t, e, admin, id, map[string]any{"class": "code", "code": "SUMMER15"})

	expectAuditRecord(t, e, admin, "action=updateDiscount&limit=1", "discount", id)
}

// TestDiscountsDelete: delete answers the bare envelope, takes the
// redemptions with it, and the discount is gone on both surfaces.
func TestDiscountsDelete(t *testing.T) {
	e, s, admin := newAcme(t)
	d := dcDiscounts.create(t, e, admin, map[string]any{"code": "GONE", "type": "percentage", "value": 5})
	id := wholeNumber(t, d["id"])
	o := createOrder(t, e, s.ID, orderSpec{})
	if err := models.RedeemDiscount(context.Background(), e.DB, s.ID, id, o.Email, o.ID, time.Now()); err != nil {
		t.Fatal(err)
	}
	expectBareDelete(t, e, admin, dcPath(id))
	e.Do(http.MethodGet, dcPath(id), admin, nil).Expect(t, 404)
	e.Do(http.MethodDelete, dcPath(id), admin, nil).Expect(t, 404)
	e.Do(http.MethodPut, dcPath(id), admin, map[string]any{"value": 6}).Expect(t, 404)
	if n, err := e.DB.NewSelect().TableExpr("discount_redemptions").Where("discount_id = ?", id).Count(context.Background()); err != nil || n != 0 {
		t.Fatalf("%d redemptions left (%v)", n, err)
	}
	expectGraphQLCode(t, e, admin, "NOT_FOUND", map[string]any{"id": id}, `mutation($id: Int!) { deleteDiscount(id: $id) }`)
	// The code is free again.
	dcDiscounts.create(t, e, admin, map[string]any{"code": "gone", "type": "percentage", "value": 5})
	expectAuditRecord(t, e, admin, "action=deleteDiscount&status_code=200&limit=1", "discount", id)
}

// TestDiscountsListFilters: class, type, enabled and q narrow the list and
// its total; paging; a bad filter is a 400.
func TestDiscountsListFilters(t *testing.T) {
	e, s, admin := newAcme(t)
	p := insertProduct(t, e, s.ID, "p")
	for _, body := range []map[string]any{
		{"code": "WELCOME10", "type": "percentage", "value": 10},
		{"code": "SUMMER25", "type": "percentage", "value": 25, "enabled": false},
		{"code": "FREESHIP", "type": "free_shipping"},
		{"code": "BUY2GET1", "type": "buy_x_get_y", "buy_quantity": 2, "get_quantity": 1, "get_value": 100},
		{"code": "VIP50", "type": "fixed_amount", "value": 5000},
		{"class": "automatic", "code": "Welcome 100% off socks", "type": "percentage", "value": 100, "applies_to": "products", "product_ids": []int64{p}},
	} {
		dcDiscounts.create(t, e, admin, body)
	}
	all := []string{"Welcome 100% off socks", "VIP50", "BUY2GET1", "FREESHIP", "SUMMER25", "WELCOME10"}
	for _, c := range []struct {
		query string
		want  []string
	}{
		{"", all},
		{"class=code", all[1:]},
		{"class=automatic", all[:1]},
		{"type=percentage", []string{"Welcome 100% off socks", "SUMMER25", "WELCOME10"}},
		{"type=buy_x_get_y", []string{"BUY2GET1"}},
		{"enabled=false", []string{"SUMMER25"}},
		{"enabled=true&type=percentage", []string{"Welcome 100% off socks", "WELCOME10"}},
		{"q=welcome", []string{"Welcome 100% off socks", "WELCOME10"}},
		{"q=" + "%25", []string{"Welcome 100% off socks"}}, // % is a character, not a wildcard
		{"q=_", nil},
		{"q=vip&class=automatic", nil},
		{"limit=2&offset=1", all[1:3]},
	} {
		rows, total, r := dcDiscounts.list(t, e, admin, c.query)
		wantTotal := int64(len(c.want))
		if c.query == "limit=2&offset=1" {
			wantTotal = int64(len(all))
		}
		if !slices.Equal(dcCodes(rows), c.want) || total != wantTotal {
			t.Fatalf("?%s: %v total %d, want %v total %d", c.query, dcCodes(rows), total, c.want, wantTotal)
		}
		if c.query == "enabled=true&type=percentage" {
			e.SameOnGraphQL(t, r, admin, "ListDiscounts", map[string]any{"filter": map[string]any{"enabled": true, "type": "percentage"}})
		}
	}
	for _, q := range []string{"class=manual", "type=bogo", "enabled=maybe", "limit=0", "limit=251", "offset=-1", "limit=x"} {
		e.Do(http.MethodGet, "/store/discounts?"+q, admin, nil).Expect(t, 400)
	}
	expectGraphQLCode(t, e, admin, "BAD_USER_INPUT", nil, `{ discountsCount(filter: {type: "nope"}) }`)
}

// TestDiscountsAccess: 401 without a valid key; 403 without the scope, and
// for staff on every write (the spec's "w" is the write scope and the
// admin role); reads are open to any role with the read scope.
func TestDiscountsAccess(t *testing.T) {
	e, s, admin := newAcme(t)
	id := wholeNumber(t, dcDiscounts.create(t, e, admin, map[string]any{"code": "A", "type": "percentage", "value": 5})["id"])
	reads := []apitest.Call{{Method: http.MethodGet, Path: "/store/discounts"}, {Method: http.MethodGet, Path: dcPath(id)}}
	writes := []apitest.Call{
		{Method: http.MethodPost, Path: "/store/discounts", Body: map[string]any{"code": "B", "type": "percentage", "value": 5}},
		{Method: http.MethodPut, Path: dcPath(id), Body: map[string]any{"value": 6}},
		{Method: http.MethodDelete, Path: dcPath(id)},
	}
	// Bodies that would be 400s still answer 401 and 403 first.
	bad := []apitest.Call{
		{Method: http.MethodPost, Path: "/store/discounts", Body: map[string]any{"type": "nope"}},
		{Method: http.MethodPut, Path: dcPath(id), Body: `{"value":`},
	}
	k := checkAccess(t, e, s.ID, "discounts", map[string]string{
		"admin without the scope": e.Key(s.ID, auth.RoleAdmin, "products:write"),
		"staff without the scope": e.Key(s.ID, auth.RoleStaff, "orders:read"),
	}, reads, append(writes, bad...))
	// GraphQL runs the same gates.
	expectGraphQLCode(t, e, k.staffWrite, "FORBIDDEN", map[string]any{"id": id}, `mutation($id: Int!) { deleteDiscount(id: $id) }`)
	expectGraphQLCode(t, e, e.Key(s.ID, auth.RoleAdmin, "orders:read"), "FORBIDDEN", nil, `{ discounts { id } }`)
	if got, _ := dcDiscounts.get(t, e, admin, id); got["value"] != float64(5) {
		t.Fatalf("a refused write was applied: %v", got)
	}
}

// TestDiscountsOtherStore: another store's discount is a 404 everywhere,
// never listed, and stays as it was; another store's products and
// collections cannot be named.
func TestDiscountsOtherStore(t *testing.T) {
	e := apitest.New(t)
	a, b := e.Store("Acme"), e.Store("Bolt")
	aKey, bKey := e.Key(a.ID, auth.RoleAdmin), e.Key(b.ID, auth.RoleAdmin)
	bp, bc := insertProduct(t, e, b.ID, "theirs"), insertCollection(t, e, b.ID, "theirs")
	theirs := dcDiscounts.create(t, e, bKey, map[string]any{"code": "THEIRS", "type": "percentage", "value": 10, "applies_to": "products", "product_ids": []int64{bp}})
	bID := wholeNumber(t, theirs["id"])
	theirDetail, _ := dcDiscounts.get(t, e, bKey, bID)
	mine := dcDiscounts.create(t, e, aKey, map[string]any{"code": "MINE", "type": "percentage", "value": 10})
	mineID := wholeNumber(t, mine["id"])

	for _, id := range []int64{bID, 987654321} {
		e.ExpectEach(t, 404, map[string]string{"this store's key": aKey}, []apitest.Call{
			{Method: http.MethodGet, Path: dcPath(id)},
			{Method: http.MethodPut, Path: dcPath(id), Body: map[string]any{"value": 99, "enabled": false}},
			{Method: http.MethodPut, Path: dcPath(id), Body: map[string]any{}},
			{Method: http.MethodDelete, Path: dcPath(id)},
		})
		expectGraphQLCode(t, e, aKey, "NOT_FOUND", map[string]any{"id": id},
			`query($id: Int!) { discount(id: $id) { id } }`,
			`mutation($id: Int!) { updateDiscount(id: $id, input: {value: 1}) { id } }`,
			`mutation($id: Int!) { deleteDiscount(id: $id) }`)
	}
	e.Do(http.MethodGet, "/store/discounts/abc", aKey, nil).Expect(t, 400)
	if rows, total, _ := dcDiscounts.list(t, e, aKey, ""); total != 1 || wholeNumber(t, rows[0]["id"]) != mineID {
		t.Fatalf("store A lists %v (total %d)", rows, total)
	}
	if got, _ := dcDiscounts.get(t, e, bKey, bID); !reflect.DeepEqual(got, theirDetail) {
		t.Fatalf("store B's discount changed:\n got  %v\n want %v", got, theirDetail)
	}
	// Codes are per store: store A may use store B's.
	dcDiscounts.create(t, e, aKey, map[string]any{"code": "theirs", "type": "percentage", "value": 10})

	// Another store's product or collection is a 400 naming the id.
	for _, c := range []struct {
		body map[string]any
		id   int64
	}{
		{map[string]any{"code": "X1", "type": "percentage", "value": 10, "applies_to": "products", "product_ids": []int64{bp}}, bp},
		{map[string]any{"code": "X2", "type": "percentage", "value": 10, "applies_to": "collections", "collection_ids": []int64{bc}}, bc},
		{map[string]any{"code": "X3", "type": "buy_x_get_y", "buy_quantity": 1, "get_quantity": 1, "get_value": 10, "buy_product_ids": []int64{bp}}, bp},
		{map[string]any{"code": "X4", "type": "buy_x_get_y", "buy_quantity": 1, "get_quantity": 1, "get_value": 10, "get_collection_ids": []int64{bc}}, bc},
	} {
		r := e.Do(http.MethodPost, "/store/discounts", aKey, c.body).Expect(t, 400)
		if !strings.Contains(r.Message(), strconv.FormatInt(c.id, 10)) {
			t.Fatalf("message %q does not name %d", r.Message(), c.id)
		}
	}
	r := e.Do(http.MethodPut, dcPath(mineID), aKey, map[string]any{"applies_to": "products", "product_ids": []int64{bp}}).Expect(t, 400)
	if !strings.Contains(r.Message(), strconv.FormatInt(bp, 10)) {
		t.Fatalf("message %q does not name %d", r.Message(), bp)
	}
	// Redeeming another store's discount is not found.
	o := createOrder(t, e, a.ID, orderSpec{})
	if err := models.RedeemDiscount(context.Background(), e.DB, a.ID, bID, o.Email, o.ID, time.Now()); apperr.CodeOf(err) != apperr.NotFound {
		t.Fatalf("redeeming another store's discount: %v", err)
	}
	if _, err := models.DiscountByCode(context.Background(), e.DB, a.ID, "MINE"); err != nil {
		t.Fatal(err)
	}
}

// TestDiscountsValidation: every rule of a create and of an update is a
// 400, and nothing is written.
func TestDiscountsValidation(t *testing.T) {
	e, s, admin := newAcme(t)
	p1 := insertProduct(t, e, s.ID, "p1")
	c1 := insertCollection(t, e, s.ID, "c1")
	pct := func(extra map[string]any) map[string]any {
		m := map[string]any{"code": "CODE", "type": "percentage", "value": 10}
		for k, v := range extra {
			m[k] = v
		}
		return m
	}
	bx := func(extra map[string]any) map[string]any {
		m := map[string]any{"code": "CODE", "type": "buy_x_get_y", "buy_quantity": 2, "get_quantity": 1, "get_value": 100}
		for k, v := range extra {
			m[k] = v
		}
		return m
	}
	create := map[string]struct {
		body any
		says string // part of the message ("" for type errors, worded by the scalars)
	}{
		"no body":                      {nil, "body"},
		"empty object":                 {map[string]any{}, "type"},
		"missing type":                 {map[string]any{"code": "X", "value": 10}, "type"},
		"unknown type":                 {pct(map[string]any{"type": "bogo"}), "type"},
		"unknown class":                {pct(map[string]any{"class": "manual"}), "class"},
		"missing code":                 {map[string]any{"type": "percentage", "value": 10}, "code"},
		"empty code":                   {pct(map[string]any{"code": ""}), "code"},
		"code with a space":            {pct(map[string]any{"code": "SUMMER 25"}), "code"},
		"code with a dot":              {pct(map[string]any{"code": "A.B"}), "code"},
		"code with an accent":          {pct(map[string]any{"code": "ÉTÉ"}), "code"},
		"code too long":                {pct(map[string]any{"code": strings.Repeat("A", 256)}), "code"},
		"code not a string":            {pct(map[string]any{"code": 25}), ""},
		"blank automatic title":        {pct(map[string]any{"class": "automatic", "code": "   "}), "code"},
		"long automatic title":         {pct(map[string]any{"class": "automatic", "code": strings.Repeat("é", 256)}), "code"},
		"percentage 0":                 {pct(map[string]any{"value": 0}), "value"},
		"percentage missing value":     {map[string]any{"code": "X", "type": "percentage"}, "value"},
		"percentage 101":               {pct(map[string]any{"value": 101}), "value"},
		"percentage negative":          {pct(map[string]any{"value": -5}), "value"},
		"percentage, fixed value_type": {pct(map[string]any{"value_type": "fixed_amount"}), "value_type"},
		"unknown value_type":           {pct(map[string]any{"value_type": "ratio"}), "value_type"},
		"fixed 0":                      {map[string]any{"code": "X", "type": "fixed_amount", "value": 0}, "value"},
		"fixed negative":               {map[string]any{"code": "X", "type": "fixed_amount", "value": -100}, "value"},
		"fixed, percentage value_type": {map[string]any{"code": "X", "type": "fixed_amount", "value": 500, "value_type": "percentage"}, "value_type"},
		"free shipping with a value":   {map[string]any{"code": "X", "type": "free_shipping", "value": 10}, "value"},
		"free shipping for products":   {map[string]any{"code": "X", "type": "free_shipping", "applies_to": "products", "product_ids": []int64{p1}}, "applies_to"},
		"bxgy without buy_quantity":    {map[string]any{"code": "X", "type": "buy_x_get_y", "get_quantity": 1, "get_value": 100}, "buy_quantity"},
		"bxgy buy_quantity 0":          {bx(map[string]any{"buy_quantity": 0}), "buy_quantity"},
		"bxgy get_quantity 0":          {bx(map[string]any{"get_quantity": 0}), "get_quantity"},
		"bxgy without get_value":       {map[string]any{"code": "X", "type": "buy_x_get_y", "buy_quantity": 1, "get_quantity": 1}, "get_value"},
		"bxgy get_value 101%":          {bx(map[string]any{"get_value": 101}), "get_value"},
		"bxgy fixed get_value 0":       {bx(map[string]any{"get_value_type": "fixed_amount", "get_value": 0}), "get_value"},
		"bxgy unknown get_value_type":  {bx(map[string]any{"get_value_type": "free"}), "get_value_type"},
		"bxgy with a value":            {bx(map[string]any{"value": 10}), "value"},
		"bxgy with product_ids":        {bx(map[string]any{"product_ids": []int64{p1}}), "product_ids"},
		"buy_quantity on a percentage": {pct(map[string]any{"buy_quantity": 2}), "buy_quantity"},
		"get_value on a percentage":    {pct(map[string]any{"get_value": 2}), "get_value"},
		"get ids on a percentage":      {pct(map[string]any{"get_product_ids": []int64{p1}}), "get_product_ids"},
		"fixed get_value_type on pct":  {pct(map[string]any{"get_value_type": "fixed_amount"}), "get_value_type"},
		"unknown applies_to":           {pct(map[string]any{"applies_to": "variants"}), "applies_to"},
		"products without ids":         {pct(map[string]any{"applies_to": "products"}), "product_ids"},
		"products with empty ids":      {pct(map[string]any{"applies_to": "products", "product_ids": []int64{}}), "product_ids"},
		"collections without ids":      {pct(map[string]any{"applies_to": "collections", "product_ids": []int64{p1}}), "ids"},
		"product_ids for all":          {pct(map[string]any{"product_ids": []int64{p1}}), "product_ids"},
		"collection_ids for products":  {pct(map[string]any{"applies_to": "products", "product_ids": []int64{p1}, "collection_ids": []int64{c1}}), "collection_ids"},
		"missing product":              {pct(map[string]any{"applies_to": "products", "product_ids": []int64{p1, 987654, 987653}}), "987653, 987654"},
		"missing collection":           {pct(map[string]any{"applies_to": "collections", "collection_ids": []int64{987655}}), "987655"},
		"missing buy product":          {bx(map[string]any{"buy_product_ids": []int64{987656}}), "987656"},
		"missing get collection":       {bx(map[string]any{"get_collection_ids": []int64{987657}}), "987657"},
		"ids not numbers":              {pct(map[string]any{"applies_to": "products", "product_ids": []any{"1"}}), ""},
		"ends before starts":           {pct(map[string]any{"starts_at": "2026-06-01T00:00:00Z", "ends_at": "2026-05-01T00:00:00Z"}), "ends_at"},
		"ends at starts":               {pct(map[string]any{"starts_at": "2026-06-01T00:00:00Z", "ends_at": "2026-06-01T00:00:00Z"}), "ends_at"},
		"bad starts_at":                {pct(map[string]any{"starts_at": "tomorrow"}), "RFC 3339"},
		"usage_limit 0":                {pct(map[string]any{"usage_limit": 0}), "usage_limit"},
		"usage_limit negative":         {pct(map[string]any{"usage_limit": -1}), "usage_limit"},
		"per_customer_limit 0":         {pct(map[string]any{"per_customer_limit": 0}), "per_customer_limit"},
		"once and a limit of 2":        {pct(map[string]any{"once_per_customer": true, "per_customer_limit": 2}), "per_customer_limit"},
		"negative minimum subtotal":    {pct(map[string]any{"minimum_subtotal_cents": -1}), "minimum_subtotal_cents"},
		"value not a number":           {pct(map[string]any{"value": "10"}), ""},
		"fractional value":             {pct(map[string]any{"value": 10.5}), ""},
		"enabled not a boolean":        {pct(map[string]any{"enabled": "yes"}), ""},
		"malformed JSON":               {`{"code": `, "JSON"},
		"array body":                   {`[1]`, "object"},
	}
	for name, c := range create {
		r := e.Do(http.MethodPost, "/store/discounts", admin, c.body)
		if r.Status != 400 {
			t.Fatalf("create, %s: status %d, want 400: %s", name, r.Status, r.Raw)
		}
		r.Expect(t, 400)
		if !strings.Contains(r.Message(), c.says) {
			t.Fatalf("create, %s: message %q does not mention %q", name, r.Message(), c.says)
		}
	}
	if _, total, _ := dcDiscounts.list(t, e, admin, ""); total != 0 {
		t.Fatalf("a refused create was written: total %d", total)
	}
	expectGraphQLCode(t, e, admin, "BAD_USER_INPUT", nil, `mutation { createDiscount(input: {code: "X", type: "percentage", value: 0}) { id } }`)

	// Bounds are inclusive.
	for _, body := range []map[string]any{
		pct(map[string]any{"code": strings.Repeat("a", 255), "value": 100, "usage_limit": 1, "per_customer_limit": 1, "once_per_customer": true}),
		pct(map[string]any{"code": "ONE", "value": 1, "minimum_subtotal_cents": 0}),
		{"code": "FIX1", "type": "fixed_amount", "value": 1},
		bx(map[string]any{"code": "BX1", "buy_quantity": 1, "get_quantity": 1, "get_value": 1}),
		bx(map[string]any{"code": "BXFIX1", "get_value_type": "fixed_amount", "get_value": 1}),
		{"class": "automatic", "code": strings.Repeat("é", 255), "type": "free_shipping"},
	} {
		dcDiscounts.create(t, e, admin, body)
	}

	d := dcDiscounts.create(t, e, admin, pct(map[string]any{"code": "UPD", "applies_to": "products", "product_ids": []int64{p1}}))
	id := wholeNumber(t, d["id"])
	before, _ := dcDiscounts.get(t, e, admin, id)
	update := map[string]map[string]any{
		"empty code":           {"code": ""},
		"bad code":             {"code": "a b"},
		"unknown type":         {"type": "nope"},
		"value 0":              {"value": 0},
		"value 101":            {"value": 101},
		"to fixed, value_type": {"type": "fixed_amount", "value": 10, "value_type": "percentage"},
		"to bxgy bare":         {"type": "buy_x_get_y"},
		"clear products":       {"product_ids": []int64{}},
		"to collections bare":  {"applies_to": "collections"},
		"missing product":      {"product_ids": []int64{p1, 987654}},
		"window backwards":     {"starts_at": "2026-06-01T00:00:00Z", "ends_at": "2026-01-01T00:00:00Z"},
		"usage_limit 0":        {"usage_limit": 0},
		"once and a limit":     {"once_per_customer": true, "per_customer_limit": 5},
		"buy_quantity on pct":  {"buy_quantity": 3},
		"free ship, products":  {"type": "free_shipping", "applies_to": "products"},
		"negative subtotal":    {"minimum_subtotal_cents": -10},
		"code not a string":    {"code": false},
	}
	expectEach400(t, e, admin, "update", http.MethodPut, dcPath(id), update)
	if got, _ := dcDiscounts.get(t, e, admin, id); !reflect.DeepEqual(got, before) {
		t.Fatalf("a refused update was written:\n got  %v\n want %v", got, before)
	}
	// A stored per_customer_limit of 5 and once_per_customer contradict:
	// the update must clear the limit too.
	dcDiscounts.put(t, e, admin, id, map[string]any{"per_customer_limit": 5})
	e.Do(http.MethodPut, dcPath(id), admin, map[string]any{"once_per_customer": true}).Expect(t, 400)
	if u, _ := dcDiscounts.put(t, e, admin, id, map[string]any{"once_per_customer": true, "per_customer_limit": nil}); u["per_customer_limit"] != nil || u["once_per_customer"] != true {
		t.Fatalf("once per customer: %v", u)
	}
}

// TestDiscountsCodeClash: codes are unique per store in any case, across
// classes; a clash is a 409 naming the code, on create and on update.
func TestDiscountsCodeClash(t *testing.T) {
	e, s, admin := newAcme(t)
	dcDiscounts.create(t, e, admin, map[string]any{"code": "SUMMER", "type": "percentage", "value": 10})
	other := wholeNumber(t, dcDiscounts.create(t, e, admin, map[string]any{"code": "WINTER", "type": "percentage", "value": 10})["id"])

	r := e.Do(http.MethodPost, "/store/discounts", admin, map[string]any{"code": "summer", "type": "percentage", "value": 20}).Expect(t, 409)
	if r.Message() != "a discount with code summer already exists" {
		t.Fatalf("message %q", r.Message())
	}
	r = e.Do(http.MethodPut, dcPath(other), admin, map[string]any{"code": "Summer"}).Expect(t, 409)
	if r.Message() != "a discount with code Summer already exists" {
		t.Fatalf("message %q", r.Message())
	}
	e.Do(http.MethodPost, "/store/discounts", admin, map[string]any{"class": "automatic", "code": "sUMMER", "type": "free_shipping"}).Expect(t, 409)
	expectGraphQLCode(t, e, admin, "CONFLICT", nil, `mutation { createDiscount(input: {code: "SuMmEr", type: "free_shipping"}) { id } }`)
	// A 400 comes before the 409.
	e.Do(http.MethodPost, "/store/discounts", admin, map[string]any{"code": "summer", "type": "percentage", "value": 200}).Expect(t, 400)
	if _, total, _ := dcDiscounts.list(t, e, admin, ""); total != 2 {
		t.Fatalf("total %d after clashes", total)
	}
	// The database's index is the last word, for writers that skip the
	// check (and for races between two creates).
	err := models.InsertDiscount(context.Background(), e.DB, &models.Discount{StoreID: s.ID, Class: models.DiscountCode, Code: "sumMER",
		Type: models.DiscountPercentage, Value: 5, ValueType: models.DiscountPercentage, AppliesTo: models.AppliesToAll, GetValueType: models.DiscountPercentage})
	if apperr.CodeOf(err) != apperr.Conflict || err.Error() != "a discount with code sumMER already exists" {
		t.Fatalf("insert of a clashing code: %v", err)
	}
}

// TestDiscountsLookups: DiscountByCode in any case, ActiveAt, and the
// automatic discounts active at a time, for the pricing of orders.
func TestDiscountsLookups(t *testing.T) {
	e := apitest.New(t)
	s, other := e.Store("Acme"), e.Store("Bolt")
	ctx := context.Background()
	now := time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)
	past, future := now.Add(-time.Hour), now.Add(time.Hour)
	code := insertDiscount(t, e, &models.Discount{StoreID: s.ID, Code: "Welcome10", Type: models.DiscountPercentage, Value: 10, Enabled: true})
	insertDiscount(t, e, &models.Discount{StoreID: other.ID, Code: "THEIRS", Type: models.DiscountPercentage, Value: 10, Enabled: true})

	d, err := models.DiscountByCode(ctx, e.DB, s.ID, "WELCOME10")
	if err != nil || d.ID != code.ID || d.Code != "Welcome10" || d.ProductIDs == nil {
		t.Fatalf("by code: %+v, %v", d, err)
	}
	if _, err := models.DiscountByCode(ctx, e.DB, s.ID, "NOPE"); apperr.CodeOf(err) != apperr.NotFound || err.Error() != "no discount has code NOPE" {
		t.Fatalf("unknown code: %v", err)
	}
	if _, err := models.DiscountByCode(ctx, e.DB, s.ID, "theirs"); apperr.CodeOf(err) != apperr.NotFound {
		t.Fatalf("another store's code: %v", err)
	}
	if _, err := models.DiscountByCode(ctx, e.DB, s.ID, "%"); apperr.CodeOf(err) != apperr.NotFound {
		t.Fatalf("a pattern is not a code: %v", err)
	}

	for _, c := range []struct {
		d    models.Discount
		want bool
	}{
		{models.Discount{Enabled: true}, true},
		{models.Discount{Enabled: false}, false},
		{models.Discount{Enabled: true, StartsAt: &past}, true},
		{models.Discount{Enabled: true, StartsAt: &now}, true},
		{models.Discount{Enabled: true, StartsAt: &future}, false},
		{models.Discount{Enabled: true, EndsAt: &future}, true},
		{models.Discount{Enabled: true, EndsAt: &now}, false},
		{models.Discount{Enabled: true, EndsAt: &past}, false},
		{models.Discount{Enabled: true, StartsAt: &past, EndsAt: &future}, true},
		{models.Discount{Enabled: false, StartsAt: &past, EndsAt: &future}, false},
	} {
		if got := c.d.ActiveAt(now); got != c.want {
			t.Errorf("ActiveAt(%v) of enabled %v, %v..%v = %v", now, c.d.Enabled, c.d.StartsAt, c.d.EndsAt, got)
		}
	}

	auto := func(title string, enabled bool, starts, ends *time.Time) int64 {
		return insertDiscount(t, e, &models.Discount{StoreID: s.ID, Class: models.DiscountAutomatic, Code: title, Type: models.DiscountPercentage,
			Value: 10, Enabled: enabled, StartsAt: starts, EndsAt: ends}).ID
	}
	always := auto("Always", true, nil, nil)
	window := auto("Now", true, &past, &future)
	auto("Disabled", false, nil, nil)
	auto("Later", true, &future, nil)
	auto("Over", true, nil, &now)
	insertDiscount(t, e, &models.Discount{StoreID: other.ID, Class: models.DiscountAutomatic, Code: "Their automatic", Type: models.DiscountFreeShipping, Enabled: true})
	got, err := models.AutomaticDiscounts(ctx, e.DB, s.ID, now)
	if err != nil {
		t.Fatal(err)
	}
	var ids []int64
	for _, a := range got {
		ids = append(ids, a.ID)
		if a.Class != models.DiscountAutomatic || !a.ActiveAt(now) || a.CollectionIDs == nil {
			t.Errorf("automatic discount %+v", a)
		}
	}
	if !slices.Equal(ids, []int64{always, window}) {
		t.Fatalf("automatic discounts %v, want %v", ids, []int64{always, window})
	}
	none, err := models.AutomaticDiscounts(ctx, e.DB, e.Store("Empty").ID, now)
	if err != nil || none == nil || len(none) != 0 {
		t.Fatalf("no automatic discounts: %v, %v", none, err)
	}
}

// dcRedeem redeems discountID for order o in a transaction of its own, as
// the order's placement would.
func dcRedeem(e *apitest.Env, storeID, discountID int64, email string, orderID int64, now time.Time) error {
	return e.DB.RunInTx(context.Background(), nil, func(ctx context.Context, tx bun.Tx) error {
		return models.RedeemDiscount(ctx, tx, storeID, discountID, email, orderID, now)
	})
}

// discountUsage reads used_count straight from the database.
func discountUsage(t *testing.T, e *apitest.Env, id int64) (used, redemptions int64) {
	t.Helper()
	ctx := context.Background()
	if err := e.DB.NewSelect().TableExpr("discounts").Column("used_count").Where("id = ?", id).Scan(ctx, &used); err != nil {
		t.Fatal(err)
	}
	n, err := e.DB.NewSelect().TableExpr("discount_redemptions").Where("discount_id = ?", id).Count(ctx)
	if err != nil {
		t.Fatal(err)
	}
	return used, int64(n)
}

// TestDiscountRedeemConcurrently: 50 orders redeem a code limited to 10
// at once; exactly 10 get it, used_count is exactly 10, and the others
// hear why.
func TestDiscountRedeemConcurrently(t *testing.T) {
	e, s, admin := newAcme(t)
	d := dcDiscounts.create(t, e, admin, map[string]any{"code": "LIMITED10", "type": "percentage", "value": 10, "usage_limit": 10})
	id := wholeNumber(t, d["id"])
	const n = 50
	orders := make([]*models.Order, n)
	for i := range orders {
		orders[i] = createOrder(t, e, s.ID, orderSpec{email: fmt.Sprintf("shopper%d@example.com", i)})
	}
	now := time.Now()
	var wg sync.WaitGroup
	start := make(chan struct{})
	errs := make([]error, n)
	for i, o := range orders {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			errs[i] = dcRedeem(e, s.ID, id, o.Email, o.ID, now)
		}()
	}
	close(start)
	wg.Wait()
	ok := 0
	for i, err := range errs {
		switch {
		case err == nil:
			ok++
		case apperr.CodeOf(err) == apperr.Conflict && err.Error() == "discount code LIMITED10 has reached its usage limit of 10":
		default:
			t.Errorf("redemption %d: %v", i, err)
		}
	}
	if ok != 10 {
		t.Fatalf("%d redemptions succeeded, want exactly 10", ok)
	}
	if used, rows := discountUsage(t, e, id); used != 10 || rows != 10 {
		t.Fatalf("used_count %d with %d redemptions, want 10 and 10", used, rows)
	}
	got, _ := dcDiscounts.get(t, e, admin, id)
	if got["used_count"] != float64(10) || got["usage_limit"] != float64(10) {
		t.Fatalf("GET after the rush: %v", got)
	}
	// Every redemption row names its order and email.
	var rows []models.DiscountRedemption
	if err := e.DB.NewSelect().Model(&rows).Where("discount_id = ?", id).Scan(context.Background()); err != nil {
		t.Fatal(err)
	}
	for _, r := range rows {
		if r.OrderID == nil || r.StoreID != s.ID || !strings.HasSuffix(r.Email, "@example.com") {
			t.Fatalf("redemption %+v", r)
		}
	}
	// An update of the discount leaves used_count alone; raising the limit
	// lets more orders in.
	u, _ := dcDiscounts.put(t, e, admin, id, map[string]any{"usage_limit": 11, "used_count": 0})
	if u["used_count"] != float64(10) {
		t.Fatalf("an update moved used_count: %v", u)
	}
	if err := dcRedeem(e, s.ID, id, "late@example.com", orders[0].ID, now); err != nil {
		t.Fatal(err)
	}
	if err := dcRedeem(e, s.ID, id, "later@example.com", orders[1].ID, now); apperr.CodeOf(err) != apperr.Conflict {
		t.Fatalf("twelfth redemption: %v", err)
	}
	if used, _ := discountUsage(t, e, id); used != 11 {
		t.Fatalf("used_count %d, want 11", used)
	}
}

// TestDiscountRedeemPerCustomer: once_per_customer and per_customer_limit
// count a customer's redemptions by email in any case, also under
// concurrency; a refusal leaves used_count as it was; inactive discounts
// are refused.
func TestDiscountRedeemPerCustomer(t *testing.T) {
	e, s, admin := newAcme(t)
	ctx := context.Background()
	now := time.Now()
	o := createOrder(t, e, s.ID, orderSpec{email: "ana@example.com"})
	once := wholeNumber(t, dcDiscounts.create(t, e, admin, map[string]any{"code": "WELCOME10", "type": "percentage", "value": 10, "once_per_customer": true})["id"])

	if err := dcRedeem(e, s.ID, once, "ana@example.com", o.ID, now); err != nil {
		t.Fatal(err)
	}
	err := dcRedeem(e, s.ID, once, "  ANA@Example.com ", o.ID, now)
	if apperr.CodeOf(err) != apperr.Conflict || err.Error() != "discount code WELCOME10 has already been used by ANA@Example.com" {
		t.Fatalf("second use by the same customer: %v", err)
	}
	// Without rolling back, the refusal still took nothing.
	err = e.DB.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		if err := models.RedeemDiscount(ctx, tx, s.ID, once, "ana@example.com", o.ID, now); apperr.CodeOf(err) != apperr.Conflict {
			return fmt.Errorf("in a transaction that goes on: %v", err)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if used, rows := discountUsage(t, e, once); used != 1 || rows != 1 {
		t.Fatalf("used_count %d with %d redemptions after refusals, want 1 and 1", used, rows)
	}
	if err := dcRedeem(e, s.ID, once, "ben@example.com", o.ID, now); err != nil {
		t.Fatalf("another customer: %v", err)
	}
	if err := dcRedeem(e, s.ID, once, "", o.ID, now); apperr.CodeOf(err) != apperr.Invalid {
		t.Fatalf("a per-customer discount without an email: %v", err)
	}

	// Twenty orders of one customer at once: one gets it.
	var wg sync.WaitGroup
	var mu sync.Mutex
	wins := 0
	for i := range 20 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			err := dcRedeem(e, s.ID, once, fmt.Sprintf("Cleo@Example.com%s", strings.Repeat(" ", i%2)), o.ID, now)
			mu.Lock()
			defer mu.Unlock()
			if err == nil {
				wins++
			} else if apperr.CodeOf(err) != apperr.Conflict {
				t.Errorf("concurrent redemption: %v", err)
			}
		}()
	}
	wg.Wait()
	if used, _ := discountUsage(t, e, once); wins != 1 || used != 3 {
		t.Fatalf("%d of 20 concurrent redemptions by one customer succeeded (used_count %d), want 1 (3)", wins, used)
	}

	// per_customer_limit 2: the third use by one customer is refused.
	two := wholeNumber(t, dcDiscounts.create(t, e, admin, map[string]any{"code": "TWICE", "type": "free_shipping", "per_customer_limit": 2})["id"])
	for i := range 2 {
		if err := dcRedeem(e, s.ID, two, "dee@example.com", o.ID, now); err != nil {
			t.Fatalf("use %d: %v", i+1, err)
		}
	}
	err = dcRedeem(e, s.ID, two, "DEE@example.com", o.ID, now)
	if apperr.CodeOf(err) != apperr.Conflict || !strings.Contains(err.Error(), "TWICE has already been used 2 times by DEE@example.com") {
		t.Fatalf("third use: %v", err)
	}
	if used, _ := discountUsage(t, e, two); used != 2 {
		t.Fatalf("used_count %d, want 2", used)
	}

	// Not active: disabled, not started, ended.
	for name, body := range map[string]map[string]any{
		"disabled":    {"code": "OFF", "type": "percentage", "value": 10, "enabled": false},
		"not started": {"code": "LATER", "type": "percentage", "value": 10, "starts_at": now.Add(time.Hour).UTC().Format(time.RFC3339)},
		"ended":       {"code": "OVER", "type": "percentage", "value": 10, "ends_at": now.Add(-time.Hour).UTC().Format(time.RFC3339)},
	} {
		id := wholeNumber(t, dcDiscounts.create(t, e, admin, body)["id"])
		err := dcRedeem(e, s.ID, id, "ana@example.com", o.ID, now)
		if apperr.CodeOf(err) != apperr.Conflict || err.Error() != "discount code "+body["code"].(string)+" is not active now" {
			t.Fatalf("%s: %v", name, err)
		}
		if used, rows := discountUsage(t, e, id); used != 0 || rows != 0 {
			t.Fatalf("%s: used_count %d, %d redemptions", name, used, rows)
		}
	}
	if err := dcRedeem(e, s.ID, 987654321, "ana@example.com", o.ID, now); apperr.CodeOf(err) != apperr.NotFound {
		t.Fatalf("unknown discount: %v", err)
	}
}

// TestDiscountListStatementsDoNotGrowWithRows: the products and
// collections of a discount list load through dataloaders: 40 discounts
// cost as many statements as 5.
func TestDiscountListStatementsDoNotGrowWithRows(t *testing.T) {
	e, s, key := newAcme(t)
	var ps, cs []int64
	for i := range 6 {
		ps = append(ps, insertProduct(t, e, s.ID, "p"+strconv.Itoa(i)))
		cs = append(cs, insertCollection(t, e, s.ID, "c"+strconv.Itoa(i)))
	}
	for i := range 40 {
		insertDiscount(t, e, &models.Discount{StoreID: s.ID, Code: "D" + strconv.Itoa(i), Type: models.DiscountPercentage, Value: 10, Enabled: true,
			AppliesTo: models.AppliesToProducts, ProductIDs: []int64{ps[i%6], ps[(i+1)%6]}, CollectionIDs: []int64{cs[i%6]}})
	}
	e.Do(http.MethodGet, "/store", key, nil).Expect(t, 200) // records the key's last use
	count := countStatements(e)
	query := `query($limit: Int) { discounts(limit: $limit) { id products { id } collections { id } } }`
	gql := map[int]int64{}
	for _, n := range []int{5, 40} {
		gql[n] = count(func() {
			g := e.GraphQL(key, query, map[string]any{"limit": n})
			rows, _ := g.Data()["discounts"].([]any)
			if len(rows) != n {
				t.Fatalf("listed %d discounts, want %d: %s", len(rows), n, g.Raw)
			}
			for _, v := range rows {
				m := v.(map[string]any)
				if len(m["products"].([]any)) != 2 || len(m["collections"].([]any)) != 1 {
					t.Fatalf("discount %v", m)
				}
			}
		})
	}
	if gql[5] != gql[40] {
		t.Fatalf("statements: 5 discounts → %d, 40 → %d", gql[5], gql[40])
	}
}
