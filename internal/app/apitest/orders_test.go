package apitest_test

import (
	"context"
	"fmt"
	"net/http"
	"reflect"
	"strings"
	"testing"
	"time"

	"storeadmin/internal/app/apitest"
	"storeadmin/internal/auth"
	"storeadmin/models"
)

// The fields of the spec's order views, exactly.
var (
	orSummaryKeys   = []string{"created_at", "currency", "email", "financial_status", "fulfillment_status", "id", "order_number", "order_number_display", "status", "system_tags", "tags", "total_cents"}
	orderDetailKeys = []string{"attribution", "billing_address", "cancel_reason", "cancelled_at", "checkout_started_at", "created_at", "currency", "customer", "discount_cents", "discount_code", "email", "financial_status", "fulfillment_status", "id", "line_items", "note", "order_number", "order_number_display", "paid_at", "shipping_address", "shipping_cents", "shipping_line", "status", "subtotal_cents", "system_tags", "tags", "tax_cents", "tip_cents", "token", "total_cents", "transactions", "upsell"}
	orLineKeys      = []string{"bundle_group", "bundle_title", "id", "image_src", "image_thumbhash", "original_price_cents", "price_cents", "properties", "quantity", "refunded_quantity", "requires_shipping", "sku", "source", "title", "variant_title"}
	orTxKeys        = []string{"amount_cents", "created_at", "currency", "error", "external_id", "id", "kind", "payment_method", "provider", "status"}
	orCustKeys      = []string{"accepts_marketing", "created_at", "email", "first_name", "id", "last_name", "orders_count", "phone"}
	orRefundKeys    = []string{"amount_cents", "currency", "id", "order_financial_status", "status"}
	orFulfilKeys    = []string{"carrier", "created_at", "id", "items", "note", "order_id", "status", "tracking_number", "tracking_url"}
)

func TestOrdersListDetailAndFilters(t *testing.T) {
	e := apitest.New(t)
	s := e.Store("shop")
	key := e.Key(s.ID, auth.RoleStaff, "orders:read")
	old := createOrder(t, e, s.ID, orderSpec{email: "old@example.com", createdAt: time.Now().UTC().Add(-72 * time.Hour), tags: []string{"vip"}})
	auth := createOrder(t, e, s.ID, orderSpec{email: "auth@example.com", payment: "authorized", lines: []orderLine{{sku: "HAT-RED", price: 3000, quantity: 1}}})
	pending := createOrder(t, e, s.ID, orderSpec{email: "pending@example.com", payment: "pending", shipping: 500, tax: 200})

	r := e.Do(http.MethodGet, "/store/orders", key, nil).Expect(t, http.StatusOK)
	if total := wholeNumber(t, r.Body["total"]); total != 3 {
		t.Fatalf("total = %d, want 3", total)
	}
	rows := r.List("orders")
	first := objectWithKeys(t, "order row", rows[0], orSummaryKeys)
	if wholeNumber(t, first["id"]) != pending.ID {
		t.Fatalf("newest first: first row %v, want order %d", first["id"], pending.ID)
	}
	if first["order_number_display"] != fmt.Sprintf("#%d", pending.OrderNumber) || first["financial_status"] != "pending" {
		t.Fatalf("row = %v", first)
	}
	e.SameOnGraphQL(t, r, key, "ListOrders", nil)

	filters := map[string][]int64{
		"status=open":                            {pending.ID, auth.ID, old.ID},
		"financial_status=authorized":            {auth.ID},
		"financial_status=paid":                  {old.ID},
		"fulfillment_status=unfulfilled":         {pending.ID, auth.ID, old.ID},
		"tag=vip":                                {old.ID},
		"email=AUTH@example.com":                 {auth.ID},
		"q=hat-red":                              {auth.ID},
		"q=old@":                                 {old.ID},
		fmt.Sprintf("q=%%23%d", old.OrderNumber): {old.ID},
		"created_at_min=" + time.Now().UTC().Add(-24*time.Hour).Format(time.RFC3339): {pending.ID, auth.ID},
		"sort=total":       {auth.ID, old.ID, pending.ID},
		"sort=-total":      {pending.ID, old.ID, auth.ID},
		"limit=1&offset=1": {auth.ID},
	}
	for q, want := range filters {
		r := e.Do(http.MethodGet, "/store/orders?"+q, key, nil).Expect(t, http.StatusOK)
		var got []int64
		for _, row := range r.List("orders") {
			got = append(got, wholeNumber(t, row.(map[string]any)["id"]))
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: orders %v, want %v", q, got, want)
		}
	}
	for _, q := range []string{"status=closed", "financial_status=free", "sort=price", "limit=0", "created_at_min=yesterday", "created_at_min=2026-02-01T00:00:00Z&created_at_max=2026-01-01T00:00:00Z"} {
		e.Do(http.MethodGet, "/store/orders?"+q, key, nil).Expect(t, http.StatusBadRequest)
	}

	d := e.Do(http.MethodGet, orderPath(pending.ID), key, nil).Expect(t, http.StatusOK)
	o := objectWithKeys(t, "order", d.Obj("order"), orderDetailKeys)
	if wholeNumber(t, o["subtotal_cents"]) != 6200 || wholeNumber(t, o["total_cents"]) != 6900 || wholeNumber(t, o["shipping_cents"]) != 500 {
		t.Fatalf("money = %v", o)
	}
	objectWithKeys(t, "customer", o["customer"], orCustKeys)
	lines := o["line_items"].([]any)
	if len(lines) != 2 {
		t.Fatalf("lines = %v", lines)
	}
	objectWithKeys(t, "line", lines[0], orLineKeys)
	if o["transactions"] == nil || len(o["transactions"].([]any)) != 0 {
		t.Fatalf("pending order transactions = %v", o["transactions"])
	}
	a := e.Do(http.MethodGet, orderPath(auth.ID), key, nil).Expect(t, http.StatusOK).Obj("order")
	objectWithKeys(t, "transaction", a["transactions"].([]any)[0], orTxKeys)
	if attr := a["attribution"].(map[string]any); attr["utm_source"] != "google" || attr["click_ids"].(map[string]any)["gclid"] != "abc" {
		t.Fatalf("attribution = %v", attr)
	}
	e.SameOnGraphQL(t, d, key, "GetOrder", map[string]any{"id": pending.ID})

	// The customer's orders_count counts the customer's orders.
	createOrder(t, e, s.ID, orderSpec{email: "old@example.com"})
	c := e.Do(http.MethodGet, orderPath(old.ID), key, nil).Expect(t, http.StatusOK).Obj("order")["customer"].(map[string]any)
	if wholeNumber(t, c["orders_count"]) != 2 {
		t.Fatalf("orders_count = %v, want 2", c["orders_count"])
	}
}

func TestOrdersAccess(t *testing.T) {
	e := apitest.New(t)
	s := e.Store("shop")
	other := e.Store("other")
	mine := createOrder(t, e, s.ID, orderSpec{})
	theirs := createOrder(t, e, other.ID, orderSpec{})
	admin := e.Key(s.ID, auth.RoleAdmin)
	staffWriter := e.Key(s.ID, auth.RoleStaff, "orders:write", "fulfillments:write")
	reader := e.Key(s.ID, auth.RoleAdmin, "orders:read")
	stranger := e.Key(s.ID, auth.RoleAdmin, "products:read")

	reads := []string{"/store/orders", "/store/orders/awaiting-capture", orderPath(mine.ID), orderPath(mine.ID, "/activity"), orderPath(mine.ID, "/fulfillments")}
	for _, p := range reads {
		e.Do(http.MethodGet, p, "", nil).Expect(t, http.StatusUnauthorized)
		e.Do(http.MethodGet, p, stranger, nil).Expect(t, http.StatusForbidden)
		e.Do(http.MethodGet, p, reader, nil).Expect(t, http.StatusOK)
	}
	// Export is read scope with the admin role.
	e.Do(http.MethodGet, "/store/orders/export", e.Key(s.ID, auth.RoleStaff, "orders:read"), nil).Expect(t, http.StatusForbidden)

	writes := []struct {
		method, path string
		body         any
	}{
		{http.MethodPut, orderPath(mine.ID), map[string]any{"note": "x"}},
		{http.MethodPost, orderPath(mine.ID, "/archive"), nil},
		{http.MethodPost, orderPath(mine.ID, "/cancel"), map[string]any{}},
		{http.MethodPost, orderPath(mine.ID, "/fulfillments"), map[string]any{}},
		{http.MethodPost, orderPath(mine.ID, "/refund"), map[string]any{"amount_cents": 1}},
		{http.MethodPost, "/store/fulfillments/1/cancel", nil},
	}
	for _, w := range writes {
		e.Do(w.method, w.path, "", w.body).Expect(t, http.StatusUnauthorized)
		e.Do(w.method, w.path, reader, w.body).Expect(t, http.StatusForbidden)      // scope
		e.Do(w.method, w.path, staffWriter, w.body).Expect(t, http.StatusForbidden) // role
	}
	// Another store's order is not there.
	for _, p := range []string{orderPath(theirs.ID), orderPath(theirs.ID, "/activity"), orderPath(theirs.ID, "/fulfillments"), orderPath(999999)} {
		e.Do(http.MethodGet, p, admin, nil).Expect(t, http.StatusNotFound)
	}
	for _, w := range writes[:5] {
		path := orderPath(theirs.ID) + w.path[len(orderPath(mine.ID)):]
		e.Do(w.method, path, admin, w.body).Expect(t, http.StatusNotFound)
	}
	e.Do(http.MethodGet, "/store/orders/abc", admin, nil).Expect(t, http.StatusBadRequest)
	e.Do(http.MethodPost, "/store/fulfillments/abc/cancel", admin, nil).Expect(t, http.StatusBadRequest)
	e.Do(http.MethodPost, "/store/fulfillments/999999/cancel", admin, nil).Expect(t, http.StatusNotFound)
}

func TestOrderNoteAndTags(t *testing.T) {
	e := apitest.New(t)
	s := e.Store("shop")
	o := createOrder(t, e, s.ID, orderSpec{})
	key := e.Key(s.ID, auth.RoleAdmin, "orders:write")

	r := e.Do(http.MethodPut, orderPath(o.ID), key, map[string]any{"note": " call before delivery ", "tags": "vip, gift,vip"}).Expect(t, http.StatusOK)
	if r.Body["note"] != "call before delivery" || !reflect.DeepEqual(r.Body["tags"], []any{"vip", "gift"}) {
		t.Fatalf("answer = %v", r.Body)
	}
	r = e.Do(http.MethodPut, orderPath(o.ID), key, map[string]any{"tags": []string{"wholesale"}}).Expect(t, http.StatusOK)
	if r.Body["note"] != "call before delivery" || !reflect.DeepEqual(r.Body["tags"], []any{"wholesale"}) {
		t.Fatalf("tags only: %v", r.Body)
	}
	for _, bad := range []any{map[string]any{}, map[string]any{"tags": 5}, map[string]any{"tags": []any{1}}, map[string]any{"note": 5}} {
		e.Do(http.MethodPut, orderPath(o.ID), key, bad).Expect(t, http.StatusBadRequest)
	}
	g := e.GraphQL(key, `mutation($id: Int!) { updateOrder(id: $id, input: {tags: ["a"]}) { tags note } }`, map[string]any{"id": o.ID})
	if got := g.Data()["updateOrder"].(map[string]any); !reflect.DeepEqual(got["tags"], []any{"a"}) {
		t.Fatalf("graphql = %v", got)
	}
	names := orTimeline(t, e, key, o.ID)
	if !reflect.DeepEqual(names, []string{"created", "paid", "note_updated", "tags_updated", "tags_updated", "tags_updated"}) {
		t.Fatalf("timeline %v", names)
	}
}

// orTimeline lists the event names of an order's activity.
func orTimeline(t *testing.T, e *apitest.Env, key string, id int64) []string {
	t.Helper()
	r := e.Do(http.MethodGet, orderPath(id, "/activity"), key, nil).Expect(t, http.StatusOK)
	var names []string
	for _, ev := range r.Obj("activity")["events"].([]any) {
		names = append(names, ev.(map[string]any)["name"].(string))
	}
	return names
}

func TestOrderRefunds(t *testing.T) {
	e := apitest.New(t)
	s := e.Store("shop")
	key := e.Key(s.ID, auth.RoleAdmin, "orders:write")
	// 2 × 25.00 + 1 × 12.00 = 62.00, less 6.20 discount, plus 5.00 shipping and 5.58 tax = 66.38.
	o := createOrder(t, e, s.ID, orderSpec{discount: 620, shipping: 500, tax: 558})
	lines := orderLines(t, e, o)

	r := e.Do(http.MethodPost, orderPath(o.ID, "/refund"), key, map[string]any{
		"line_items": []any{map[string]any{"line_item_id": lines[0].ID, "quantity": 1}}, "reason": "too small",
	}).Expect(t, http.StatusOK)
	ref := objectWithKeys(t, "refund", r.Obj("refund"), orRefundKeys)
	// One 25.00 tee's share: 25.00 × (62.00 − 6.20 + 5.58) / 62.00 = 24.75.
	if wholeNumber(t, ref["amount_cents"]) != 2475 || ref["order_financial_status"] != "partially_refunded" || ref["status"] != "success" || ref["currency"] != "EUR" {
		t.Fatalf("refund = %v", ref)
	}
	if got := orderLines(t, e, o)[0].RefundedQuantity; got != 1 {
		t.Fatalf("refunded_quantity = %d, want 1", got)
	}
	// More than the line has left, more money than is refundable, nothing at all.
	e.Do(http.MethodPost, orderPath(o.ID, "/refund"), key, map[string]any{
		"line_items": []any{map[string]any{"line_item_id": lines[0].ID, "quantity": 2}},
	}).Expect(t, http.StatusConflict)
	e.Do(http.MethodPost, orderPath(o.ID, "/refund"), key, map[string]any{"amount_cents": 6638}).Expect(t, http.StatusConflict)
	for _, bad := range []any{
		map[string]any{},
		map[string]any{"amount_cents": -1},
		map[string]any{"amount_cents": "5"},
		map[string]any{"line_items": []any{map[string]any{"line_item_id": 999999, "quantity": 1}}},
		map[string]any{"line_items": []any{map[string]any{"line_item_id": lines[1].ID, "quantity": 0}}},
	} {
		e.Do(http.MethodPost, orderPath(o.ID, "/refund"), key, bad).Expect(t, http.StatusBadRequest)
	}
	// The rest, by amount: the order is refunded, and then nothing is left.
	r = e.Do(http.MethodPost, orderPath(o.ID, "/refund"), key, map[string]any{"amount_cents": 6638 - 2475}).Expect(t, http.StatusOK)
	if r.Obj("refund")["order_financial_status"] != "refunded" {
		t.Fatalf("full refund: %v", r.Obj("refund"))
	}
	e.Do(http.MethodPost, orderPath(o.ID, "/refund"), key, map[string]any{"amount_cents": 1}).Expect(t, http.StatusConflict)
	g := e.GraphQL(key, `mutation($id: Int!) { refundOrder(id: $id, input: {refund_shipping: true}) { id } }`, map[string]any{"id": o.ID})
	if g.ErrorCode() != "CONFLICT" {
		t.Fatalf("graphql refund of a refunded order: %v", g.Body)
	}
	d := e.Do(http.MethodGet, orderPath(o.ID), key, nil).Expect(t, http.StatusOK).Obj("order")
	var refunded int64
	for _, tx := range d["transactions"].([]any) {
		if m := tx.(map[string]any); m["kind"] == "refund" {
			refunded += wholeNumber(t, m["amount_cents"])
		}
	}
	if refunded != 6638 || d["financial_status"] != "refunded" {
		t.Fatalf("refund transactions sum to %d, status %v", refunded, d["financial_status"])
	}

	// A pending order has nothing captured: a line can be refunded for 0
	// (and restocked), money cannot.
	p := createOrder(t, e, s.ID, orderSpec{payment: "pending"})
	e.Do(http.MethodPost, orderPath(p.ID, "/refund"), key, map[string]any{"amount_cents": 100}).Expect(t, http.StatusConflict)
	r = e.Do(http.MethodPost, orderPath(p.ID, "/refund"), key, map[string]any{
		"line_items": []any{map[string]any{"line_item_id": orderLines(t, e, p)[1].ID, "quantity": 1}},
	}).Expect(t, http.StatusOK)
	if wholeNumber(t, r.Obj("refund")["amount_cents"]) != 0 || r.Obj("refund")["order_financial_status"] != "pending" {
		t.Fatalf("refund of an unpaid line: %v", r.Obj("refund"))
	}
}

func TestOrderRefundRestocks(t *testing.T) {
	e := apitest.New(t)
	s := e.Store("shop")
	key := e.Key(s.ID, auth.RoleAdmin)
	pr := e.Do(http.MethodPost, "/store/products", key, map[string]any{"title": "Tee", "variants": []any{
		map[string]any{"sku": "TEE-1", "price_cents": 2500, "inventory_quantity": 10},
	}}).Expect(t, http.StatusCreated)
	variantID := wholeNumber(t, pr.Obj("product")["variants"].([]any)[0].(map[string]any)["id"])
	o := createOrder(t, e, s.ID, orderSpec{lines: []orderLine{{sku: "TEE-1", price: 2500, quantity: 3, variantID: &variantID}}})
	e.Do(http.MethodPost, orderPath(o.ID, "/refund"), key, map[string]any{
		"line_items": []any{map[string]any{"line_item_id": orderLines(t, e, o)[0].ID, "quantity": 2}}, "restock": true,
	}).Expect(t, http.StatusOK)
	var qty int64
	if err := e.DB.NewSelect().Table("product_variants").Column("inventory_quantity").Where("id = ?", variantID).Scan(context.Background(), &qty); err != nil {
		t.Fatal(err)
	}
	if qty != 12 {
		t.Fatalf("inventory = %d, want 12", qty)
	}
}

func TestOrderCancelAndArchive(t *testing.T) {
	e := apitest.New(t)
	s := e.Store("shop")
	key := e.Key(s.ID, auth.RoleAdmin, "orders:write")

	// Cancelling an authorized order voids the authorization.
	a := createOrder(t, e, s.ID, orderSpec{payment: "authorized"})
	r := e.Do(http.MethodPost, orderPath(a.ID, "/cancel"), key, map[string]any{"reason": "customer"}).Expect(t, http.StatusOK)
	if keys := sortedKeys(r.Body); !reflect.DeepEqual(keys, []string{"order_status", "status"}) || r.Body["order_status"] != "cancelled" {
		t.Fatalf("cancel answer %v", r.Body)
	}
	d := e.Do(http.MethodGet, orderPath(a.ID), key, nil).Expect(t, http.StatusOK).Obj("order")
	if d["financial_status"] != "voided" || d["cancel_reason"] != "customer" || d["cancelled_at"] == nil {
		t.Fatalf("cancelled order %v %v %v", d["financial_status"], d["cancel_reason"], d["cancelled_at"])
	}
	e.Do(http.MethodPost, orderPath(a.ID, "/cancel"), key, nil).Expect(t, http.StatusConflict)
	e.Do(http.MethodPost, orderPath(a.ID, "/archive"), key, nil).Expect(t, http.StatusConflict)
	e.Do(http.MethodPost, orderPath(a.ID, "/fulfillments"), key, nil).Expect(t, http.StatusConflict)

	// With refund: everything captured goes back.
	p := createOrder(t, e, s.ID, orderSpec{})
	e.Do(http.MethodPost, orderPath(p.ID, "/cancel"), key, map[string]any{"reason": "fraud", "refund": true, "restock": true}).Expect(t, http.StatusOK)
	d = e.Do(http.MethodGet, orderPath(p.ID), key, nil).Expect(t, http.StatusOK).Obj("order")
	if d["financial_status"] != "refunded" || d["fulfillment_status"] != "restocked" || d["status"] != "cancelled" {
		t.Fatalf("cancel with refund: %v %v %v", d["financial_status"], d["fulfillment_status"], d["status"])
	}
	e.Do(http.MethodPost, orderPath(p.ID, "/cancel"), key, map[string]any{"reason": "boredom"}).Expect(t, http.StatusBadRequest)

	// Archive: open → archived, once.
	o := createOrder(t, e, s.ID, orderSpec{})
	r = e.Do(http.MethodPost, orderPath(o.ID, "/archive"), key, nil).Expect(t, http.StatusOK)
	if r.Body["order_status"] != "archived" {
		t.Fatalf("archive answer %v", r.Body)
	}
	e.Do(http.MethodPost, orderPath(o.ID, "/archive"), key, nil).Expect(t, http.StatusConflict)
	// An archived order can still be cancelled, but not one with shipments.
	f := createOrder(t, e, s.ID, orderSpec{})
	e.Do(http.MethodPost, orderPath(f.ID, "/fulfillments"), key, nil).Expect(t, http.StatusCreated)
	e.Do(http.MethodPost, orderPath(f.ID, "/cancel"), key, nil).Expect(t, http.StatusConflict)
	e.Do(http.MethodPost, orderPath(o.ID, "/cancel"), key, nil).Expect(t, http.StatusOK)
	g := e.GraphQL(key, `mutation($id: Int!) { cancelOrder(id: $id) { status } }`, map[string]any{"id": o.ID})
	if g.ErrorCode() != "CONFLICT" {
		t.Fatalf("graphql second cancel: %v", g.Body)
	}
}

func TestFulfillments(t *testing.T) {
	e := apitest.New(t)
	s := e.Store("shop")
	key := e.Key(s.ID, auth.RoleAdmin, "orders:write", "fulfillments:write")
	o := createOrder(t, e, s.ID, orderSpec{})
	lines := orderLines(t, e, o) // 2 tees, 1 mug

	r := e.Do(http.MethodPost, orderPath(o.ID, "/fulfillments"), key, map[string]any{
		"line_items": []any{map[string]any{"line_item_id": lines[0].ID, "quantity": 1}},
		"carrier":    "UPS", "tracking_number": "1Z999",
	}).Expect(t, http.StatusCreated)
	if r.Body["fulfillment_status"] != "partial" {
		t.Fatalf("answer %v", r.Body)
	}
	f := objectWithKeys(t, "fulfillment", r.Obj("fulfillment"), orFulfilKeys)
	if f["tracking_url"] != "https://www.ups.com/track?tracknum=1Z999" || f["status"] != "success" {
		t.Fatalf("fulfillment %v", f)
	}
	items := f["items"].([]any)
	if len(items) != 1 || items[0].(map[string]any)["title"] != "Item TEE-S" || wholeNumber(t, items[0].(map[string]any)["quantity"]) != 1 {
		t.Fatalf("items %v", items)
	}
	fid := wholeNumber(t, f["id"])

	// Never more than is left to ship; bad input is a 400.
	e.Do(http.MethodPost, orderPath(o.ID, "/fulfillments"), key, map[string]any{
		"line_items": []any{map[string]any{"line_item_id": lines[0].ID, "quantity": 2}},
	}).Expect(t, http.StatusConflict)
	for _, bad := range []any{
		map[string]any{"tracking_url": "ftp://x"},
		map[string]any{"line_items": []any{map[string]any{"line_item_id": 12345678, "quantity": 1}}},
		map[string]any{"line_items": []any{map[string]any{"line_item_id": lines[1].ID, "quantity": -1}}},
		map[string]any{"line_items": "all"},
	} {
		e.Do(http.MethodPost, orderPath(o.ID, "/fulfillments"), key, bad).Expect(t, http.StatusBadRequest)
	}

	g := e.Do(http.MethodGet, orderPath(o.ID, "/fulfillments"), key, nil).Expect(t, http.StatusOK)
	want := []any{map[string]any{"line_item_id": float64(lines[0].ID), "quantity": float64(1)}, map[string]any{"line_item_id": float64(lines[1].ID), "quantity": float64(0)}}
	if !reflect.DeepEqual(g.List("fulfilled"), want) || len(g.List("fulfillments")) != 1 {
		t.Fatalf("fulfilled %v fulfillments %v", g.List("fulfilled"), g.List("fulfillments"))
	}
	e.SameOnGraphQL(t, g, key, "ListOrderFulfillments", map[string]any{"id": o.ID})

	// Cancelling the shipment returns its quantities.
	c := e.Do(http.MethodPost, fmt.Sprintf("/store/fulfillments/%d/cancel", fid), key, nil).Expect(t, http.StatusOK)
	if !reflect.DeepEqual(c.Body, map[string]any{"status": true, "fulfillment_status": "unfulfilled"}) {
		t.Fatalf("cancel answer %v", c.Body)
	}
	e.Do(http.MethodPost, fmt.Sprintf("/store/fulfillments/%d/cancel", fid), key, nil).Expect(t, http.StatusConflict)

	// Everything left, then nothing.
	r = e.Do(http.MethodPost, orderPath(o.ID, "/fulfillments"), key, nil).Expect(t, http.StatusCreated)
	if r.Body["fulfillment_status"] != "fulfilled" || len(r.Obj("fulfillment")["items"].([]any)) != 2 {
		t.Fatalf("fulfil all: %v", r.Body)
	}
	e.Do(http.MethodPost, orderPath(o.ID, "/fulfillments"), key, nil).Expect(t, http.StatusConflict)

	// Another store's fulfillment is not there.
	other := e.Store("other")
	e.Do(http.MethodPost, fmt.Sprintf("/store/fulfillments/%d/cancel", fid), e.Key(other.ID, auth.RoleAdmin), nil).Expect(t, http.StatusNotFound)
	// The fulfillments scope alone cancels shipments.
	fk := e.Key(s.ID, auth.RoleAdmin, "fulfillments:write")
	id := wholeNumber(t, r.Obj("fulfillment")["id"])
	e.Do(http.MethodPost, fmt.Sprintf("/store/fulfillments/%d/cancel", id), fk, nil).Expect(t, http.StatusOK)
}

func TestAwaitingCapture(t *testing.T) {
	e := apitest.New(t)
	s := e.Store("shop")
	key := e.Key(s.ID, auth.RoleStaff, "orders:read")
	soon := time.Now().UTC().Add(10 * time.Hour)
	fresh := createOrder(t, e, s.ID, orderSpec{payment: "authorized", email: "fresh@example.com"})
	expiring := createOrder(t, e, s.ID, orderSpec{payment: "authorized", authExpiry: &soon, createdAt: time.Now().UTC().Add(-6 * 24 * time.Hour)})
	createOrder(t, e, s.ID, orderSpec{}) // paid: not awaiting

	r := e.Do(http.MethodGet, "/store/orders/awaiting-capture", key, nil).Expect(t, http.StatusOK)
	if wholeNumber(t, r.Body["attention"]) != 1 || wholeNumber(t, r.Body["total"]) != 2 {
		t.Fatalf("attention %v total %v", r.Body["attention"], r.Body["total"])
	}
	rows := r.List("awaiting")
	first := rows[0].(map[string]any)
	if first["needs_attention"] != true {
		t.Fatalf("oldest first: %v", first)
	}
	if first["state"] != "expiring" || first["capture_model"] != "manual" || wholeNumber(t, first["item_count"]) != 3 {
		t.Fatalf("expiring row %v", first)
	}
	e.SameOnGraphQL(t, r, key, "ListAwaitingCapture", nil)

	txID := wholeNumber(t, rows[1].(map[string]any)["transaction_id"])
	d := e.Do(http.MethodGet, fmt.Sprintf("/store/orders/awaiting-capture/%d", txID), key, nil).Expect(t, http.StatusOK)
	if d.Obj("capture")["email"] != "fresh@example.com" || d.Obj("capture")["needs_attention"] != false {
		t.Fatalf("capture %v", d.Obj("capture"))
	}
	act := e.Do(http.MethodGet, fmt.Sprintf("/store/orders/awaiting-capture/%d/activity", txID), key, nil).Expect(t, http.StatusOK).Obj("activity")
	if anchor := act["anchor"].(map[string]any); wholeNumber(t, anchor["id"]) != txID || anchor["kind"] != "awaiting_capture" {
		t.Fatalf("anchor %v", anchor)
	}
	e.Do(http.MethodGet, "/store/orders/awaiting-capture/999999", key, nil).Expect(t, http.StatusNotFound)
	e.Do(http.MethodGet, "/store/orders/awaiting-capture/999999/activity", key, nil).Expect(t, http.StatusNotFound)

	// Cancelling voids it; it is no longer awaiting.
	e.Do(http.MethodPost, orderPath(expiring.ID, "/cancel"), e.Key(s.ID, auth.RoleAdmin), nil).Expect(t, http.StatusOK)
	r = e.Do(http.MethodGet, "/store/orders/awaiting-capture", key, nil).Expect(t, http.StatusOK)
	if wholeNumber(t, r.Body["total"]) != 1 || wholeNumber(t, r.Body["attention"]) != 0 || r.List("awaiting")[0].(map[string]any)["email"] != fresh.Email {
		t.Fatalf("after cancel: %v", r.Body)
	}
	// Another store's payment is not there.
	other := e.Store("other")
	e.Do(http.MethodGet, fmt.Sprintf("/store/orders/awaiting-capture/%d", txID), e.Key(other.ID, auth.RoleAdmin), nil).Expect(t, http.StatusNotFound)
}

func TestOrderActivity(t *testing.T) {
	e := apitest.New(t)
	s := e.Store("shop")
	key := e.Key(s.ID, auth.RoleAdmin)
	o := createOrder(t, e, s.ID, orderSpec{})
	e.Do(http.MethodPost, orderPath(o.ID, "/fulfillments"), key, map[string]any{"carrier": "DHL"}).Expect(t, http.StatusCreated)
	e.Do(http.MethodPost, orderPath(o.ID, "/refund"), key, map[string]any{"amount_cents": 100}).Expect(t, http.StatusOK)
	r := e.Do(http.MethodGet, orderPath(o.ID, "/activity"), key, nil).Expect(t, http.StatusOK)
	log := objectWithKeys(t, "activity", r.Obj("activity"), []string{"anchor", "coverage", "events", "session", "summary"})
	if a := log["anchor"].(map[string]any); a["kind"] != "order" || a["label"] != o.OrderNumberDisplay || wholeNumber(t, a["id"]) != o.ID {
		t.Fatalf("anchor %v", a)
	}
	var names []string
	for _, ev := range log["events"].([]any) {
		m := ev.(map[string]any)
		names = append(names, m["name"].(string))
		if m["name"] == "refunded" && (wholeNumber(t, m["amount_cents"]) != 100 || m["origin"] != "payment" || m["source"] != "api" || m["currency"] != "EUR") {
			t.Fatalf("refund event %v", m)
		}
	}
	if !reflect.DeepEqual(names, []string{"created", "paid", "fulfilled", "refunded"}) {
		t.Fatalf("events %v", names)
	}
	if log["session"] != nil || log["coverage"].(map[string]any)["browsing"] != false {
		t.Fatalf("session %v coverage %v", log["session"], log["coverage"])
	}
	e.SameOnGraphQL(t, r, key, "OrderActivity", map[string]any{"id": o.ID})
}

// The graph: listing 100 orders with their lines, customer, fulfilments and
// transactions costs the same statements as listing 5.
func TestOrderListStatementsDoNotGrowWithRows(t *testing.T) {
	e := apitest.New(t)
	s := e.Store("shop")
	key := e.Key(s.ID, auth.RoleAdmin)
	seedProducts(t, e, s.ID, 3)
	var variants []int64
	if err := e.DB.NewSelect().Table("product_variants").Column("id").Where("store_id = ?", s.ID).Order("id").Scan(context.Background(), &variants); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 100; i++ {
		o := createOrder(t, e, s.ID, orderSpec{email: fmt.Sprintf("c%d@example.com", i%30), lines: []orderLine{
			{sku: "A", price: 1000, quantity: 2, variantID: &variants[i%len(variants)]},
			{sku: "B", price: 500, quantity: 1, variantID: &variants[(i+1)%len(variants)]},
		}})
		if i%2 == 0 {
			lines := orderLines(t, e, o)
			f := &models.Fulfillment{StoreID: s.ID, OrderID: o.ID, Status: models.ShipmentSuccess}
			if err := models.InsertFulfillment(context.Background(), e.DB, f, []models.FulfillmentItem{{LineItemID: lines[0].ID, Quantity: 1}, {LineItemID: lines[1].ID, Quantity: 1}}); err != nil {
				t.Fatal(err)
			}
		}
	}
	e.Do(http.MethodGet, "/store/orders?limit=1", key, nil).Expect(t, http.StatusOK) // warm up: last_used_at
	count := countStatements(e)
	query := `query($limit: Int) { orders(limit: $limit) { id line_items { id sku variant { id sku } product { id title } } customer { id email orders_count orders { id } }
		fulfillments { id items { line_item_id title } } transactions { id kind } refunds { id order_financial_status } fulfilled { quantity } } }`
	statements := map[int]int64{}
	for _, n := range []int{5, 100} {
		statements[n] = count(func() {
			r := e.GraphQL(key, query, map[string]any{"limit": n})
			if got := len(r.Data()["orders"].([]any)); got != n {
				t.Fatalf("listed %d orders, want %d: %v", got, n, r.Body)
			}
		})
	}
	if statements[5] != statements[100] {
		t.Fatalf("GraphQL: 5 orders cost %d statements, 100 cost %d", statements[5], statements[100])
	}
	t.Logf("GraphQL orders with lines, customer, fulfilments: %d statements", statements[100])
	rest := map[int]int64{}
	for _, n := range []int{5, 100} {
		rest[n] = count(func() {
			e.Do(http.MethodGet, fmt.Sprintf("/store/orders?limit=%d", n), key, nil).Expect(t, http.StatusOK)
		})
	}
	if rest[5] != rest[100] {
		t.Fatalf("REST: 5 orders cost %d statements, 100 cost %d", rest[5], rest[100])
	}
}

// TestAnswersReadWhatTheirFieldsNeed: a page and a relation's records are
// read without the columns the operation does not use (graph.AnswerColumns),
// so every way of asking for a field (the field, an alias, a fragment, an
// inline fragment) must still read it, and so must a field whose
// resolution reads another column (an order's customer reads customer_id,
// a line's variant its variant_id, a product's variants are filed by their
// product_id, a page's cursor holds its sort keys), none of them selected.
func TestAnswersReadWhatTheirFieldsNeed(t *testing.T) {
	e := apitest.New(t)
	s := e.Store("Unread")
	key := e.Key(s.ID, auth.RoleAdmin)
	seedProducts(t, e, s.ID, 3)
	var variant models.ProductVariant
	if err := e.DB.NewSelect().Model(&variant).Where("store_id = ?", s.ID).Order("id").Limit(1).Scan(context.Background()); err != nil {
		t.Fatal(err)
	}
	createOrder(t, e, s.ID, orderSpec{email: "reader@example.com", lines: []orderLine{{sku: "LINKED", price: 900, quantity: 1, variantID: &variant.ID}}})
	for name, query := range map[string]string{
		"field":    `{ orders { shipping_address attribution { utm_source } } }`,
		"alias":    `{ orders { where: shipping_address attribution { utm_source } } }`,
		"fragment": `{ orders { ...A } } fragment A on Order { shipping_address attribution { utm_source } }`,
		"inline":   `{ orders { ... on Order { shipping_address attribution { utm_source } } } }`,
	} {
		r := e.GraphQL(key, query, nil)
		if r.Status != http.StatusOK || r.Body["errors"] != nil {
			t.Fatalf("%s: %d %s", name, r.Status, r.Raw)
		}
		o := r.Data()["orders"].([]any)[0].(map[string]any)
		addr := o["shipping_address"]
		if name == "alias" {
			addr = o["where"]
		}
		if city, _ := addr.(map[string]any)["city"].(string); city != "Paris" {
			t.Errorf("%s: shipping_address %v, want the stored address", name, addr)
		}
		if src, _ := o["attribution"].(map[string]any)["utm_source"].(string); src != "google" {
			t.Errorf("%s: attribution %v, want the stored one", name, o["attribution"])
		}
	}

	// Two aliases of one list reading different fields are two reads.
	r := e.GraphQL(key, `{ a: orders { id } b: orders { shipping_address } }`, nil)
	if b, _ := r.Data()["b"].([]any)[0].(map[string]any)["shipping_address"].(map[string]any); b["city"] != "Paris" {
		t.Errorf("the second alias of a list: %s", r.Raw)
	}

	r = e.GraphQL(key, `{ orders { customer { email } line_items { variant { sku } } } }`, nil)
	o := r.Data()["orders"].([]any)[0].(map[string]any)
	if c, _ := o["customer"].(map[string]any); c["email"] != "reader@example.com" {
		t.Errorf("an order's customer, customer_id not asked: %s", r.Raw)
	}
	if v, _ := o["line_items"].([]any)[0].(map[string]any)["variant"].(map[string]any); v["sku"] != variant.SKU {
		t.Errorf("a line's variant, variant_id not asked: %s (want sku %q)", r.Raw, variant.SKU)
	}

	r = e.GraphQL(key, `{ products { variants { sku } } }`, nil)
	for _, p := range r.Data()["products"].([]any) {
		if vs := p.(map[string]any)["variants"].([]any); len(vs) != 3 || vs[0].(map[string]any)["sku"] == "" {
			t.Errorf("a product's variants, product_id not asked: %s", r.Raw)
		}
	}

	// Titles "Product 0" to "Product 2": the cursor after the first by
	// title holds the title, which the page does not ask for.
	first := e.GraphQL(key, `{ products(limit: 1, filter: {sort: "title"}) { id } productsNextCursor(limit: 1, filter: {sort: "title"}) }`, nil)
	next := e.GraphQL(key, `query($c: String) { products(limit: 1, filter: {sort: "title"}, cursor: $c) { title } }`,
		map[string]any{"c": first.Data()["productsNextCursor"]})
	if got := next.Data()["products"].([]any); len(got) != 1 || got[0].(map[string]any)["title"] != "Product 1" {
		t.Errorf("the page after a cursor whose sort key was not asked: %s", next.Raw)
	}

	if r := e.GraphQL(key, `{ orders { id total_cents } }`, nil); len(r.Data()["orders"].([]any)) != 1 {
		t.Fatalf("a page of a few columns: %s", r.Raw)
	}
	e.Do(http.MethodGet, "/store/orders", key, nil).Expect(t, http.StatusOK)
}

// TestOrderPageReadsItsCustomersWithIt: a page of orders asking for each
// order's customer reads them in its own statement (models.OrderBuyer) and
// primes the customer relation, so the page, its customers and the count
// asked after it are one statement; the customers so read are a group for
// their own relations (their orders load once, not per customer), and a
// page read without them (offset, cursor) answers the same.
func TestOrderPageReadsItsCustomersWithIt(t *testing.T) {
	e := apitest.New(t)
	s := e.Store("Buyers")
	key := e.Key(s.ID, auth.RoleAdmin)
	for i := range 12 {
		createOrder(t, e, s.ID, orderSpec{email: fmt.Sprintf("buyer%d@example.com", i%4)})
	}
	e.GraphQL(key, `{ currentStoreId }`, nil) // the key, cached
	count := countStatements(e)
	var r *apitest.Response
	n := count(func() {
		r = e.GraphQL(key, `{ orders(limit: 10) { id email customer { id email } } ordersCount }`, nil)
	})
	if r.Status != http.StatusOK || r.Body["errors"] != nil {
		t.Fatalf("%d %s", r.Status, r.Raw)
	}
	if n != 1 {
		t.Fatalf("a page of orders with their customers and its count: %d statements, want 1", n)
	}
	for _, o := range r.Data()["orders"].([]any) {
		o := o.(map[string]any)
		if c := o["customer"].(map[string]any); c["email"] != o["email"] {
			t.Fatalf("order %v has customer %v", o["id"], c)
		}
	}
	deeper := `{ orders(limit: 10) { id customer { id orders_count orders { id } } } }`
	n5, n10 := count(func() { e.GraphQL(key, strings.Replace(deeper, "10", "5", 1), nil) }), count(func() { e.GraphQL(key, deeper, nil) })
	if n5 != n10 {
		t.Fatalf("customers' own relations: 5 orders cost %d statements, 10 cost %d", n5, n10)
	}
	byOffset := e.GraphQL(key, `{ orders(limit: 5, offset: 5) { id customer { id email } } }`, nil)
	if byOffset.Body["errors"] != nil || len(byOffset.Data()["orders"].([]any)) != 5 {
		t.Fatalf("a later page with customers: %s", byOffset.Raw)
	}
}
