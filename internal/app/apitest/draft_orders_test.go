package apitest_test

import (
	"context"
	"fmt"
	"net/http"
	"reflect"
	"sync"
	"testing"

	"storeadmin/internal/app/apitest"
	"storeadmin/internal/auth"
	"storeadmin/models"
)

// The fields of the spec's draft order views, exactly.
var (
	doKeys     = []string{"billing_address", "currency", "discount_cents", "email", "id", "invoice_sent_at", "lines", "name", "note", "order_id", "requires_shipping", "shipping_address", "shipping_cents", "shipping_rate_id", "shipping_title", "status", "subtotal_cents", "tags", "tax_cents", "token", "total_cents"}
	doLineKeys = []string{"custom", "id", "line_total_cents", "price_cents", "quantity", "sku", "title", "variant_id", "variant_title"}
)

// draftOrderStore is a store with what drafts price against: a tee (25.00, 200 g,
// 10 in stock), a zone for France and Germany with a standard (5.00, up to
// 5 kg) and an express (15.00) rate, 20% French VAT, and the 10% code
// SAVE10.
type draftOrderStore struct {
	store                 *models.Store
	admin                 string
	variantID             int64
	standardID, expressID int64
	discountID            int64
}

func newDraftOrderStore(t *testing.T, e *apitest.Env, name string) draftOrderStore {
	t.Helper()
	s := e.Store(name)
	ds := draftOrderStore{store: s, admin: e.Key(s.ID, auth.RoleAdmin)}
	p := e.Do(http.MethodPost, "/store/products", ds.admin, map[string]any{"title": "Tee", "variants": []any{
		map[string]any{"sku": "TEE-" + name, "price_cents": 2500, "inventory_quantity": 10, "weight_grams": 200},
	}}).Expect(t, http.StatusCreated)
	ds.variantID = wholeNumber(t, p.Obj("product")["variants"].([]any)[0].(map[string]any)["id"])
	_, rates := insertShippingZone(t, e, s.ID, "Europe", 0, []string{"FR", "DE"},
		models.ShippingRate{Name: "Standard", PriceCents: 500, MaxWeightGrams: int64Ptr(5000)},
		models.ShippingRate{Name: "Express", PriceCents: 1500, Position: 1})
	ds.standardID, ds.expressID = rates[0], rates[1]
	if err := models.InsertTaxRate(context.Background(), e.DB, &models.TaxRate{StoreID: s.ID, Name: "TVA", Country: "FR", RateBps: 2000}); err != nil {
		t.Fatal(err)
	}
	ds.discountID = insertDiscount(t, e, &models.Discount{StoreID: s.ID, Code: "SAVE10", Type: models.DiscountPercentage, Value: 10, Enabled: true}).ID
	return ds
}

// createDraftOrder creates a draft order over REST and returns its id.
func createDraftOrder(t *testing.T, e *apitest.Env, key string, body any) int64 {
	t.Helper()
	return wholeNumber(t, e.Do(http.MethodPost, "/store/draft-orders", key, body).Expect(t, http.StatusCreated).Obj("draft_order")["id"])
}

func draftOrderPath(id int64, rest ...string) string {
	p := fmt.Sprintf("/store/draft-orders/%d", id)
	for _, r := range rest {
		p += r
	}
	return p
}

var parisAddress = map[string]any{"first_name": "Ada", "last_name": "Lovelace", "address1": "1 rue de Rivoli", "city": "Paris", "zip": "75001", "country_code": "fr"}

func TestDraftOrderLifecycle(t *testing.T) {
	e := apitest.New(t)
	ds := newDraftOrderStore(t, e, "shop")
	key := ds.admin

	r := e.Do(http.MethodPost, "/store/draft-orders", key, map[string]any{
		"email": "ada@example.com", "shipping_address": parisAddress, "note": "phone order", "tags": "phone, vip",
		"lines": []any{
			map[string]any{"variant_id": ds.variantID, "quantity": 2},
			map[string]any{"title": "Gift wrap", "price_cents": 300, "quantity": 1, "requires_shipping": false},
		},
	}).Expect(t, http.StatusCreated)
	d := objectWithKeys(t, "draft", r.Obj("draft_order"), doKeys)
	id := wholeNumber(t, d["id"])
	lines := d["lines"].([]any)
	objectWithKeys(t, "line", lines[0], doLineKeys)
	// 2 × 25.00 + 3.00 = 53.00; standard shipping (the cheapest) 5.00; 20%
	// VAT on the goods only: 10.60; total 68.60.
	want := map[string]int64{"subtotal_cents": 5300, "discount_cents": 0, "shipping_cents": 500, "tax_cents": 1060, "total_cents": 6860, "shipping_rate_id": ds.standardID}
	for k, v := range want {
		if wholeNumber(t, d[k]) != v {
			t.Fatalf("%s = %v, want %d (draft %v)", k, d[k], v, d)
		}
	}
	if d["name"] != "#D1" || d["status"] != "open" || d["shipping_title"] != "Standard" || d["requires_shipping"] != true ||
		!reflect.DeepEqual(d["tags"], []any{"phone", "vip"}) || d["shipping_address"].(map[string]any)["country_code"] != "FR" {
		t.Fatalf("draft %v", d)
	}
	e.SameOnGraphQL(t, e.Do(http.MethodGet, draftOrderPath(id), key, nil).Expect(t, http.StatusOK), key, "GetDraftOrder", map[string]any{"id": id})

	// Rates that match, cheapest first; choosing express; the code.
	rates := e.Do(http.MethodGet, draftOrderPath(id, "/shipping-rates"), key, nil).Expect(t, http.StatusOK).List("rates")
	if len(rates) != 2 || wholeNumber(t, rates[0].(map[string]any)["rate_id"]) != ds.standardID || rates[1].(map[string]any)["name"] != "Express" {
		t.Fatalf("rates %v", rates)
	}
	d = e.Do(http.MethodPut, draftOrderPath(id, "/shipping-rate"), key, map[string]any{"rate_id": ds.expressID}).Expect(t, http.StatusOK).Obj("draft_order")
	if wholeNumber(t, d["shipping_cents"]) != 1500 || d["shipping_title"] != "Express" {
		t.Fatalf("express: %v", d)
	}
	d = e.Do(http.MethodPut, draftOrderPath(id, "/discount"), key, map[string]any{"code": "save10"}).Expect(t, http.StatusOK).Obj("draft_order")
	// 10% of 53.00 = 5.30; VAT on 47.70 = 9.54; total 47.70 + 15.00 + 9.54 = 72.24.
	if wholeNumber(t, d["discount_cents"]) != 530 || wholeNumber(t, d["tax_cents"]) != 954 || wholeNumber(t, d["total_cents"]) != 7224 {
		t.Fatalf("with SAVE10: %v", d)
	}
	e.Do(http.MethodPut, draftOrderPath(id, "/discount"), key, map[string]any{"code": "NOPE"}).Expect(t, http.StatusBadRequest)
	e.Do(http.MethodPut, draftOrderPath(id, "/shipping-rate"), key, map[string]any{"rate_id": 999999}).Expect(t, http.StatusBadRequest)

	// Lines come and go; totals follow.
	d = e.Do(http.MethodPost, draftOrderPath(id, "/line-items"), key, map[string]any{"title": "Engraving", "price_cents": 1000, "quantity": 1}).Expect(t, http.StatusOK).Obj("draft_order")
	added := wholeNumber(t, d["lines"].([]any)[2].(map[string]any)["id"])
	if wholeNumber(t, d["subtotal_cents"]) != 6300 {
		t.Fatalf("after adding: %v", d["subtotal_cents"])
	}
	d = e.Do(http.MethodDelete, draftOrderPath(id, fmt.Sprintf("/line-items/%d", added)), key, nil).Expect(t, http.StatusOK).Obj("draft_order")
	if wholeNumber(t, d["subtotal_cents"]) != 5300 || len(d["lines"].([]any)) != 2 {
		t.Fatalf("after removing: %v", d)
	}
	e.Do(http.MethodDelete, draftOrderPath(id, fmt.Sprintf("/line-items/%d", added)), key, nil).Expect(t, http.StatusNotFound)
	e.Do(http.MethodPut, draftOrderPath(id, "/contact"), key, map[string]any{"email": "not-an-email"}).Expect(t, http.StatusBadRequest)
	e.Do(http.MethodPut, draftOrderPath(id, "/contact"), key, map[string]any{"shipping_address": map[string]any{"country_code": "France"}}).Expect(t, http.StatusBadRequest)

	// Paid: the order carries the draft's totals, the stock went down, the
	// code was used once.
	draft := e.Do(http.MethodGet, draftOrderPath(id), key, nil).Expect(t, http.StatusOK).Obj("draft_order")
	paid := e.Do(http.MethodPost, draftOrderPath(id, "/mark-as-paid"), key, map[string]any{"provider": "bank_transfer"}).Expect(t, http.StatusOK)
	if keys := sortedKeys(paid.Body); !reflect.DeepEqual(keys, []string{"id", "lines", "order_id", "order_number", "order_number_display", "status"}) {
		t.Fatalf("mark-as-paid answer %v", paid.Body)
	}
	orderID := wholeNumber(t, paid.Body["order_id"])
	o := e.Do(http.MethodGet, orderPath(orderID), key, nil).Expect(t, http.StatusOK).Obj("order")
	for _, k := range []string{"subtotal_cents", "discount_cents", "shipping_cents", "tax_cents", "total_cents"} {
		if wholeNumber(t, o[k]) != wholeNumber(t, draft[k]) {
			t.Fatalf("order %s = %v, draft %v", k, o[k], draft[k])
		}
	}
	if o["financial_status"] != "paid" || o["discount_code"] != "SAVE10" || len(o["line_items"].([]any)) != 2 || o["email"] != "ada@example.com" {
		t.Fatalf("order %v", o)
	}
	d = e.Do(http.MethodGet, draftOrderPath(id), key, nil).Expect(t, http.StatusOK).Obj("draft_order")
	if d["status"] != "completed" || wholeNumber(t, d["order_id"]) != orderID {
		t.Fatalf("draft after paying: %v", d)
	}
	var stock int64
	if err := e.DB.NewSelect().Table("product_variants").Column("inventory_quantity").Where("id = ?", ds.variantID).Scan(context.Background(), &stock); err != nil {
		t.Fatal(err)
	}
	if used, _ := discountUsage(t, e, ds.discountID); stock != 8 || used != 1 {
		t.Fatalf("stock %d used_count %d, want 8 and 1", stock, used)
	}
	// A completed draft is final.
	e.Do(http.MethodPost, draftOrderPath(id, "/mark-as-paid"), key, nil).Expect(t, http.StatusConflict)
	e.Do(http.MethodPost, draftOrderPath(id, "/line-items"), key, map[string]any{"title": "x", "price_cents": 1, "quantity": 1}).Expect(t, http.StatusConflict)

	// The list.
	l := e.Do(http.MethodGet, "/store/draft-orders?status=completed", key, nil).Expect(t, http.StatusOK)
	if wholeNumber(t, l.Body["total"]) != 1 {
		t.Fatalf("completed drafts %v", l.Body["total"])
	}
	e.SameOnGraphQL(t, l, key, "ListDraftOrders", map[string]any{"filter": map[string]any{"status": "completed"}})
	e.Do(http.MethodGet, "/store/draft-orders?status=paid", key, nil).Expect(t, http.StatusBadRequest)
}

func TestDraftOrderInputAndAccess(t *testing.T) {
	e := apitest.New(t)
	ds := newDraftOrderStore(t, e, "shop")
	other := newDraftOrderStore(t, e, "other")
	key := ds.admin
	mine := createDraftOrder(t, e, key, map[string]any{"lines": []any{map[string]any{"variant_id": ds.variantID, "quantity": 1}}})
	theirs := createDraftOrder(t, e, other.admin, map[string]any{})

	for _, bad := range []any{
		map[string]any{"lines": []any{map[string]any{"variant_id": other.variantID, "quantity": 1}}}, // another store's variant
		map[string]any{"lines": []any{map[string]any{"variant_id": ds.variantID, "quantity": 0}}},
		map[string]any{"lines": []any{map[string]any{"title": "Custom", "quantity": 1}}},
		map[string]any{"lines": []any{map[string]any{"title": "Custom", "price_cents": -1, "quantity": 1}}},
		map[string]any{"email": "nope"},
		map[string]any{"shipping_address": "Paris"},
		map[string]any{"discount_code": "UNKNOWN"},
		map[string]any{"tags": 3},
	} {
		e.Do(http.MethodPost, "/store/draft-orders", key, bad).Expect(t, http.StatusBadRequest)
	}
	// An empty draft has nothing to pay.
	empty := createDraftOrder(t, e, key, map[string]any{})
	e.Do(http.MethodPost, draftOrderPath(empty, "/mark-as-paid"), key, nil).Expect(t, http.StatusConflict)

	reads := []apitest.Call{
		{Method: http.MethodGet, Path: "/store/draft-orders"},
		{Method: http.MethodGet, Path: draftOrderPath(mine)},
		{Method: http.MethodGet, Path: draftOrderPath(mine, "/shipping-rates")},
	}
	writes := []apitest.Call{
		{Method: http.MethodPost, Path: "/store/draft-orders", Body: map[string]any{}},
		{Method: http.MethodPut, Path: draftOrderPath(mine, "/contact"), Body: map[string]any{"note": "x"}},
		{Method: http.MethodPost, Path: draftOrderPath(mine, "/line-items"), Body: map[string]any{"title": "x", "price_cents": 1, "quantity": 1}},
		{Method: http.MethodDelete, Path: draftOrderPath(mine, "/line-items/1")},
		{Method: http.MethodPut, Path: draftOrderPath(mine, "/shipping-rate"), Body: map[string]any{"rate_id": 0}},
		{Method: http.MethodPost, Path: draftOrderPath(mine, "/mark-as-paid")},
	}
	checkAccess(t, e, ds.store.ID, "draft-orders", map[string]string{"other scope": e.Key(ds.store.ID, auth.RoleAdmin, "orders:read")}, reads, writes)
	for _, w := range writes[1:] {
		path := draftOrderPath(theirs) + w.Path[len(draftOrderPath(mine)):]
		e.Do(w.Method, path, key, w.Body).Expect(t, http.StatusNotFound)
	}
	e.Do(http.MethodGet, draftOrderPath(theirs), key, nil).Expect(t, http.StatusNotFound)
	e.Do(http.MethodGet, draftOrderPath(theirs, "/shipping-rates"), key, nil).Expect(t, http.StatusNotFound)
	e.Do(http.MethodGet, "/store/draft-orders/abc", key, nil).Expect(t, http.StatusBadRequest)
}

// Fifty drafts carry a code limited to ten uses and are paid at once:
// exactly ten orders get the discount, the rest are refused whole.
func TestDraftDiscountUsageLimitUnderConcurrency(t *testing.T) {
	e := apitest.New(t)
	ds := newDraftOrderStore(t, e, "shop")
	if _, err := e.DB.NewUpdate().Table("discounts").Set("usage_limit = 10").Where("id = ?", ds.discountID).Exec(context.Background()); err != nil {
		t.Fatal(err)
	}
	var ids []int64
	for i := 0; i < 50; i++ {
		ids = append(ids, createDraftOrder(t, e, ds.admin, map[string]any{
			"email": fmt.Sprintf("c%d@example.com", i), "discount_code": "SAVE10",
			"lines": []any{map[string]any{"title": "Gift card", "price_cents": 1000, "quantity": 1, "requires_shipping": false}},
		}))
	}
	var wg sync.WaitGroup
	answers := make([]*apitest.Response, len(ids))
	for i, id := range ids {
		wg.Add(1)
		go func() {
			defer wg.Done()
			answers[i] = e.Do(http.MethodPost, draftOrderPath(id, "/mark-as-paid"), ds.admin, nil)
		}()
	}
	wg.Wait()
	count := map[int]int{}
	var odd []string
	for _, a := range answers {
		count[a.Status]++
		if a.Status != http.StatusOK && a.Status != http.StatusConflict {
			odd = append(odd, fmt.Sprintf("%d %s", a.Status, a.Raw))
		}
	}
	if count[http.StatusOK] != 10 || count[http.StatusConflict] != 40 {
		t.Fatalf("answers %v, want 10 × 200 and 40 × 409; the others: %v", count, odd)
	}
	var discounted int64
	if err := e.DB.NewSelect().Table("orders").ColumnExpr("count(*)").Where("store_id = ? AND discount_code = 'SAVE10' AND discount_cents > 0", ds.store.ID).Scan(context.Background(), &discounted); err != nil {
		t.Fatal(err)
	}
	if used, _ := discountUsage(t, e, ds.discountID); discounted != 10 || used != 10 {
		t.Fatalf("%d discounted orders, used_count %d; want 10 and 10", discounted, used)
	}
}

// Marking a draft paid emits order.paid once, carrying the new order.
func TestDraftPaidEmitsOrderPaid(t *testing.T) {
	e := apitest.New(t)
	ds := newDraftOrderStore(t, e, "shop")
	rcv := newWebhookReceiver(t)
	sub := createWebhook(t, e, ds.admin, map[string]any{"url": rcv.URL, "topics": []string{"order.paid"}})
	id := createDraftOrder(t, e, ds.admin, map[string]any{
		"lines": []any{map[string]any{"variant_id": ds.variantID, "quantity": 1}}, "shipping_address": parisAddress,
	})
	paid := e.Do(http.MethodPost, draftOrderPath(id, "/mark-as-paid"), ds.admin, nil).Expect(t, http.StatusOK)
	ev := decodeOrderEvent(t, ds.store.ID, sub["secret"].(string), rcv.next(t))
	if ev.topic != "order.paid" || wholeNumber(t, ev.order["id"]) != wholeNumber(t, paid.Body["order_id"]) || ev.order["financial_status"] != "paid" {
		t.Fatalf("event %s order %v", ev.topic, ev.order)
	}
	settledDeliveries(t, e, ds.admin, wholeNumber(t, sub["id"]), 1)
	expectNoMoreDeliveries(t, rcv)
}

// TestDraftShippingRatesPage: the rates a draft could ship with are a list
// like any other: limit and offset apply (they were ignored).
func TestDraftShippingRatesPage(t *testing.T) {
	e := apitest.New(t)
	ds := newDraftOrderStore(t, e, "shop")
	id := createDraftOrder(t, e, ds.admin, map[string]any{"shipping_address": parisAddress, "lines": []any{map[string]any{"variant_id": ds.variantID, "quantity": 1}}})
	page := func(query string) []any {
		return e.Do(http.MethodGet, draftOrderPath(id, "/shipping-rates"+query), ds.admin, nil).Expect(t, http.StatusOK).List("rates")
	}
	if all := page(""); len(all) != 2 {
		t.Fatalf("rates %v", all)
	}
	if first := page("?limit=1"); len(first) != 1 || wholeNumber(t, first[0].(map[string]any)["rate_id"]) != ds.standardID {
		t.Fatalf("limit=1: %v", first)
	}
	if second := page("?limit=1&offset=1"); len(second) != 1 || wholeNumber(t, second[0].(map[string]any)["rate_id"]) != ds.expressID {
		t.Fatalf("limit=1&offset=1: %v", second)
	}
	if none := page("?offset=5"); len(none) != 0 {
		t.Fatalf("offset=5: %v", none)
	}
	e.Do(http.MethodGet, draftOrderPath(id, "/shipping-rates?limit=0"), ds.admin, nil).Expect(t, http.StatusBadRequest)
	e.Do(http.MethodGet, draftOrderPath(id, "/shipping-rates?limit=251"), ds.admin, nil).Expect(t, http.StatusBadRequest)
}
