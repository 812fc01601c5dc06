package apitest_test

import (
	"fmt"
	"net/http"
	"reflect"
	"slices"
	"strings"
	"testing"

	"storeadmin/internal/app/apitest"
	"storeadmin/internal/auth"
	"storeadmin/models"
)

// naFixture is a store with a product whose variant has a cost and stock, a
// discount on that product, and an order placed from a draft for it (so its
// line leads to the variant and the product).
type naFixture struct {
	e                    *apitest.Env
	store                *models.Store
	admin                string
	productID, variantID int64
	draftID, orderID     int64
}

func naSetup(t *testing.T) naFixture {
	t.Helper()
	e := apitest.New(t)
	f := naFixture{e: e, store: e.Store("Acme")}
	f.admin = e.Key(f.store.ID, auth.RoleAdmin)
	p := createProduct(t, e, f.admin, map[string]any{"title": "Trail Tee", "variants": []any{
		map[string]any{"sku": "TT-1", "price_cents": 2500, "cost_cents": 1100, "inventory_quantity": 7},
	}})
	f.productID, f.variantID = idOf(t, p), idOf(t, productVariants(p)[0])
	insertDiscount(t, e, &models.Discount{StoreID: f.store.ID, Code: "TEE10", Type: models.DiscountPercentage, Value: 10, Enabled: true,
		AppliesTo: models.AppliesToProducts, ProductIDs: []int64{f.productID}})
	f.draftID = createDraftOrder(t, e, f.admin, map[string]any{"email": "ada@example.com", "lines": []any{map[string]any{"variant_id": f.variantID, "quantity": 1}}})
	paid := e.Do(http.MethodPost, draftOrderPath(f.draftID, "/mark-as-paid"), f.admin, nil).Expect(t, http.StatusOK)
	f.orderID = wholeNumber(t, paid.Body["order_id"])
	return f
}

// naGraphQL sends a GraphQL request and fails unless it answers 200.
func naGraphQL(t *testing.T, e *apitest.Env, key, query string, vars map[string]any) *apitest.Response {
	t.Helper()
	r := e.GraphQL(key, query, vars)
	if r.Status != http.StatusOK {
		t.Fatalf("GraphQL status %d: %s", r.Status, r.Raw)
	}
	return r
}

// naErrors are the paths of a GraphQL answer's errors, each checked to be
// a FORBIDDEN naming the missing scope.
func naErrors(t *testing.T, r *apitest.Response) []string {
	t.Helper()
	errs, _ := r.Body["errors"].([]any)
	var paths []string
	for _, raw := range errs {
		e := raw.(map[string]any)
		ext, _ := e["extensions"].(map[string]any)
		msg, _ := e["message"].(string)
		if ext["code"] != "FORBIDDEN" || !strings.HasPrefix(msg, "this key lacks the ") {
			t.Fatalf("error %v, want FORBIDDEN for a missing scope; answer %s", e, r.Raw)
		}
		var parts []string
		for _, p := range e["path"].([]any) {
			parts = append(parts, fmt.Sprint(p))
		}
		paths = append(paths, strings.Join(parts, ".")+": "+strings.TrimPrefix(msg, "this key lacks the "))
	}
	slices.Sort(paths)
	return paths
}

// naProbe is the read of issue 11: an orders:read key reached products,
// their variants' costs and stock through the order's lines.
const naProbe = `{ orders { id order_number line_items { sku product { title variants { cost_cents inventory_quantity } } variant { cost_cents inventory_quantity } } } }`

// TestNestedProductsNeedProductsScope: a key with orders:read alone reads
// its orders and their lines, but a line's product and variant are null,
// each with a FORBIDDEN error naming products:read, and no cost or stock is
// in the answer; with products:read as well the same read answers them.
func TestNestedProductsNeedProductsScope(t *testing.T) {
	f := naSetup(t)
	ordersOnly := f.e.Key(f.store.ID, auth.RoleStaff, "orders:read")
	r := naGraphQL(t, f.e, ordersOnly, naProbe, nil)
	if got, want := naErrors(t, r), []string{
		"orders.0.line_items.0.product: products:read scope",
		"orders.0.line_items.0.variant: products:read scope",
	}; !reflect.DeepEqual(got, want) {
		t.Fatalf("errors %v, want %v", got, want)
	}
	line := r.Data()["orders"].([]any)[0].(map[string]any)["line_items"].([]any)[0].(map[string]any)
	if line["sku"] != "TT-1" || line["product"] != nil || line["variant"] != nil {
		t.Fatalf("line %v, want its own fields and a null product and variant", line)
	}
	for _, leaked := range []string{"cost_cents", "inventory_quantity", "Trail Tee", "1100"} {
		if strings.Contains(string(r.Raw), leaked) {
			t.Fatalf("the answer to an orders:read key holds %q: %s", leaked, r.Raw)
		}
	}

	both := f.e.Key(f.store.ID, auth.RoleStaff, "orders:read", "products:read")
	r = naGraphQL(t, f.e, both, naProbe, nil)
	if r.Body["errors"] != nil {
		t.Fatalf("orders:read and products:read: %s", r.Raw)
	}
	line = r.Data()["orders"].([]any)[0].(map[string]any)["line_items"].([]any)[0].(map[string]any)
	variant := line["product"].(map[string]any)["variants"].([]any)[0].(map[string]any)
	if line["product"].(map[string]any)["title"] != "Trail Tee" || wholeNumber(t, variant["cost_cents"]) != 1100 ||
		wholeNumber(t, line["variant"].(map[string]any)["cost_cents"]) != 1100 {
		t.Fatalf("with products:read: %s", r.Raw)
	}
}

// TestNestedOrderDetailOverREST: the REST order detail selects no record of
// another resource (the spec's OrderDetailView has no product), so an
// orders:read key gets the whole of it, with no cost or stock anywhere, and
// GraphQL answers the same key the same data.
func TestNestedOrderDetailOverREST(t *testing.T) {
	f := naSetup(t)
	ordersOnly := f.e.Key(f.store.ID, auth.RoleStaff, "orders:read")
	r := f.e.Do(http.MethodGet, orderPath(f.orderID), ordersOnly, nil).Expect(t, http.StatusOK)
	if lines := r.Obj("order")["line_items"].([]any); len(lines) != 1 || lines[0].(map[string]any)["sku"] != "TT-1" {
		t.Fatalf("order detail lines %v", lines)
	}
	for _, leaked := range []string{`"product"`, `"variant"`, `"variants"`, "cost_cents", "inventory_quantity"} {
		if strings.Contains(string(r.Raw), leaked) {
			t.Fatalf("GET /store/orders/{id} holds %s: %s", leaked, r.Raw)
		}
	}
	f.e.SameOnGraphQL(t, r, ordersOnly, "GetOrder", map[string]any{"id": f.orderID})
}

// TestNestedRecordsOfOtherResources: every relation from one resource's
// records to another's answers null with a FORBIDDEN error to a key
// without the other resource's read scope, the rest of the answer intact;
// with the scope it answers.
func TestNestedRecordsOfOtherResources(t *testing.T) {
	f := naSetup(t)
	tests := []struct {
		scope, extra string
		query        string
		forbidden    []string
	}{
		{"draft-orders:read", "products:read", `{ draftOrders { id lines { sku variant { cost_cents } product { id } } } }`, []string{
			"draftOrders.0.lines.0.product: products:read scope",
			"draftOrders.0.lines.0.variant: products:read scope",
		}},
		{"draft-orders:read", "orders:read", `{ draftOrders { id order { total_cents } } }`, []string{
			"draftOrders.0.order: orders:read scope",
		}},
		{"discounts:read", "products:read", `{ discounts { code products { id variants { cost_cents } } } }`, []string{
			"discounts.0.products: products:read scope",
		}},
		{"products:read", "collections:read", `{ products { title collections { id } } }`, []string{
			"products.0.collections: collections:read scope",
		}},
		{"products:read", "reviews:read", `{ products { title reviews { id } } }`, []string{
			"products.0.reviews: reviews:read scope",
		}},
		{"products:read", "bundles:read", `{ products { title bundles { id } } }`, []string{
			"products.0.bundles: bundles:read scope",
		}},
	}
	for _, tt := range tests {
		t.Run(tt.scope+" "+tt.extra, func(t *testing.T) {
			narrow := f.e.Key(f.store.ID, auth.RoleStaff, tt.scope)
			r := naGraphQL(t, f.e, narrow, tt.query, nil)
			if got := naErrors(t, r); !reflect.DeepEqual(got, tt.forbidden) {
				t.Fatalf("errors %v, want %v; answer %s", got, tt.forbidden, r.Raw)
			}
			for _, list := range r.Data() {
				if items, _ := list.([]any); len(items) == 0 {
					t.Fatalf("the key's own records are missing: %s", r.Raw)
				}
			}
			wide := f.e.Key(f.store.ID, auth.RoleStaff, tt.scope, tt.extra)
			if r := naGraphQL(t, f.e, wide, tt.query, nil); r.Body["errors"] != nil {
				t.Fatalf("with %s too: %s", tt.extra, r.Raw)
			}
		})
	}
}

// TestNestedRuleInMutationAnswer: a write's answer follows the same rule.
// A draft-orders:write key pays a draft; the order it became is null in the
// answer, with a FORBIDDEN error, and was made all the same.
func TestNestedRuleInMutationAnswer(t *testing.T) {
	f := naSetup(t)
	draft := createDraftOrder(t, f.e, f.admin, map[string]any{"email": "bo@example.com", "lines": []any{map[string]any{"variant_id": f.variantID, "quantity": 1}}})
	writer := f.e.Key(f.store.ID, auth.RoleAdmin, "draft-orders:write")
	r := naGraphQL(t, f.e, writer, `mutation($id: Int!) { markDraftOrderPaid(id: $id) { order_id order { total_cents } } }`, map[string]any{"id": draft})
	if got := naErrors(t, r); !reflect.DeepEqual(got, []string{"markDraftOrderPaid.order: orders:read scope"}) {
		t.Fatalf("errors %v; answer %s", got, r.Raw)
	}
	paid := r.Data()["markDraftOrderPaid"].(map[string]any)
	if paid["order"] != nil {
		t.Fatalf("answer %s", r.Raw)
	}
	f.e.Do(http.MethodGet, orderPath(wholeNumber(t, paid["order_id"])), f.admin, nil).Expect(t, http.StatusOK)
}

// TestCancelledShipmentAnswersTheOrderOnlyToOrderReaders: cancelling a
// shipment needs fulfillments:write alone, which must not make the whole
// order (its customer, its money) readable; with orders:read it is.
func TestCancelledShipmentAnswersTheOrderOnlyToOrderReaders(t *testing.T) {
	f := naSetup(t)
	const cancel = `mutation($id: Int!) { cancelFulfillment(id: $id) { fulfillment_status order { id email customer { email } } } }`
	for _, scopes := range [][]string{{"fulfillments:write"}, {"fulfillments:write", "orders:read"}} {
		ship := f.e.Do(http.MethodPost, orderPath(f.orderID, "/fulfillments"), f.admin, map[string]any{}).Expect(t, http.StatusCreated)
		shipment := ship.Obj("fulfillment")
		key := f.e.Key(f.store.ID, auth.RoleAdmin, scopes...)
		r := naGraphQL(t, f.e, key, cancel, map[string]any{"id": wholeNumber(t, shipment["id"])})
		answer := r.Data()["cancelFulfillment"].(map[string]any)
		if answer["fulfillment_status"] == nil {
			t.Fatalf("%v: answer %s", scopes, r.Raw)
		}
		readsOrders := len(scopes) == 2
		if got := naErrors(t, r); readsOrders != (len(got) == 0) || (!readsOrders && !reflect.DeepEqual(got, []string{"cancelFulfillment.order: orders:read scope"})) {
			t.Fatalf("%v: errors %v; answer %s", scopes, got, r.Raw)
		}
		if (answer["order"] != nil) != readsOrders {
			t.Fatalf("%v: the order was answered %v: %s", scopes, answer["order"] != nil, r.Raw)
		}
		// REST answers the fulfilment status alone, as the spec says.
		ship = f.e.Do(http.MethodPost, orderPath(f.orderID, "/fulfillments"), f.admin, map[string]any{}).Expect(t, http.StatusCreated)
		rest := f.e.Do(http.MethodPost, "/store/fulfillments/"+fmt.Sprint(wholeNumber(t, ship.Obj("fulfillment")["id"]))+"/cancel", key, nil).Expect(t, http.StatusOK)
		if keys := sortedKeys(rest.Body); !reflect.DeepEqual(keys, []string{"fulfillment_status", "status"}) {
			t.Fatalf("REST cancel answered %v", keys)
		}
	}
}
