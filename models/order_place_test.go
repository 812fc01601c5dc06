package models

import (
	"context"
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/uptrace/bun"

	"storeadmin/internal/base/apperr"
	"storeadmin/internal/testkit/testdb"
)

func TestMain(m *testing.M) { testdb.Main(m) }

// placeFixture makes a store selling one tracked variant (10 in stock, not
// to be oversold) with a code, and returns the placements of three orders:
// two by one customer (the first with the code), one free.
func placeFixture(t *testing.T, db bun.IDB, handle string, now time.Time) (storeID, variantID int64, ps []OrderPlacement) {
	t.Helper()
	ctx := context.Background()
	s := &Store{Handle: handle, Name: handle}
	if err := CreateStore(ctx, db, s); err != nil {
		t.Fatal(err)
	}
	p := &Product{StoreID: s.ID, Handle: "mug", Title: "Mug", Status: ProductActive, Tags: []string{}}
	if err := InsertProduct(ctx, db, p); err != nil {
		t.Fatal(err)
	}
	v := ProductVariant{Title: "Default Title", SKU: "MUG", PriceCents: 1000, InventoryQuantity: 10,
		InventoryPolicy: "deny", TrackInventory: true, RequiresShipping: true}
	if err := SaveVariants(ctx, db, s.ID, p.ID, []ProductVariant{v}, nil); err != nil {
		t.Fatal(err)
	}
	if err := db.NewSelect().Table("product_variants").Column("id").Where("product_id = ?", p.ID).Scan(ctx, &variantID); err != nil {
		t.Fatal(err)
	}
	d := &Discount{StoreID: s.ID, Class: DiscountCode, Code: "TEN", Type: DiscountPercentage, Value: 10,
		ValueType: DiscountPercentage, GetValueType: DiscountPercentage, AppliesTo: AppliesToAll, Enabled: true, OncePerCustomer: true}
	if err := InsertDiscount(ctx, db, d); err != nil {
		t.Fatal(err)
	}
	order := func(email string, qty, total int64, at time.Time) OrderPlacement {
		addr := map[string]any{"first_name": "Ada", "last_name": "Lovelace", "phone": "+1 555 0100"}
		return OrderPlacement{
			Order: &Order{StoreID: s.ID, Email: email, Currency: "USD", SubtotalCents: total, TotalCents: total,
				BillingAddress: addr, ShippingAddress: addr, Tags: []string{}, SystemTags: []string{}, Source: "web"},
			Lines: []OrderLineItem{{VariantID: &variantID, ProductID: &p.ID, Title: "Mug", SKU: "MUG",
				PriceCents: 1000, Quantity: qty, RequiresShipping: true, Source: "checkout"}},
			Payment: Payment{Provider: "manual", Method: "cash", Reference: "ref-" + email},
			Actor:   "api", Created: map[string]any{"source": "web"}, Now: at,
		}
	}
	ps = []OrderPlacement{
		order("ada@example.com", 2, 1800, now.Add(-3*time.Hour)),
		order("ADA@example.com", 1, 1000, now.Add(-2*time.Hour)),
		order("", 3, 0, now.Add(-time.Hour)),
	}
	ps[0].DiscountID = &d.ID
	return s.ID, variantID, ps
}

// placedState is what placing left in a store, without ids and tokens.
func placedState(t *testing.T, db bun.IDB, storeID, variantID int64) []string {
	t.Helper()
	ctx := context.Background()
	var out []string
	read := func(what, query string, args ...any) {
		rows, err := db.QueryContext(ctx, query, args...)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		cols, _ := rows.Columns()
		for rows.Next() {
			vals := make([]any, len(cols))
			ptrs := make([]any, len(cols))
			for i := range vals {
				ptrs[i] = &vals[i]
			}
			if err := rows.Scan(ptrs...); err != nil {
				t.Fatal(err)
			}
			for i, v := range vals {
				if b, ok := v.([]byte); ok {
					vals[i] = string(b)
				}
			}
			out = append(out, fmt.Sprint(what, vals))
		}
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
	}
	read("order", `SELECT o.order_number, o.order_number_display, c.email, c.first_name, o.status, o.financial_status,
			o.fulfillment_status, o.paid_at, o.created_at, o.updated_at, o.total_cents
		FROM orders o LEFT JOIN customers c ON c.id = o.customer_id WHERE o.store_id = ? ORDER BY o.order_number`, storeID)
	read("line", `SELECT o.order_number, l.position, l.quantity FROM order_line_items l JOIN orders o ON o.id = l.order_id
		WHERE o.store_id = ? ORDER BY o.order_number, l.position`, storeID)
	read("tx", `SELECT o.order_number, x.kind, x.status, x.amount_cents, x.provider, x.external_id, x.payment_method, x.created_at
		FROM order_transactions x JOIN orders o ON o.id = x.order_id WHERE o.store_id = ? ORDER BY o.order_number`, storeID)
	read("event", `SELECT o.order_number, e.name, e.source, e.amount_cents, e.detail, e.at, e.transaction_id IS NOT NULL
		FROM order_events e JOIN orders o ON o.id = e.order_id WHERE o.store_id = ? ORDER BY o.order_number, e.id`, storeID)
	read("redemption", `SELECT o.order_number, r.email, d.used_count FROM discount_redemptions r
		JOIN discounts d ON d.id = r.discount_id JOIN orders o ON o.id = r.order_id WHERE r.store_id = ?`, storeID)
	read("customers", `SELECT count(*) FROM customers WHERE store_id = ?`, storeID)
	read("stock", `SELECT inventory_quantity FROM product_variants WHERE id = ?`, variantID)
	read("numbers", `SELECT last_order_number FROM stores WHERE id = ?`, storeID)
	return out
}

// Placing orders together stores exactly what placing them one by one
// does: numbers in order, one customer per email (named from the first
// order), the code's use, stock, sales, timelines and statuses.
func TestPlaceOrdersIsPlaceOrderInBulk(t *testing.T) {
	db, _ := testdb.New(t)
	ctx := context.Background()
	now := time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)
	oneStore, oneVariant, one := placeFixture(t, db, "one-by-one", now)
	for _, p := range one {
		if _, err := PlaceOrder(ctx, db, p); err != nil {
			t.Fatal(err)
		}
	}
	bulkStore, bulkVariant, bulk := placeFixture(t, db, "in-bulk", now)
	orders, err := PlaceOrders(ctx, db, bulk)
	if err != nil {
		t.Fatal(err)
	}
	if len(orders) != 3 || orders[2].OrderNumber != orders[0].OrderNumber+2 || orders[1].CustomerID == nil ||
		*orders[1].CustomerID != *orders[0].CustomerID || orders[2].CustomerID != nil {
		t.Fatalf("placed %+v", orders)
	}
	want, got := placedState(t, db, oneStore, oneVariant), placedState(t, db, bulkStore, bulkVariant)
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("in bulk:\n%v\none by one:\n%v", got, want)
	}
	if len(want) == 0 || want[len(want)-2] != "stock[4]" {
		t.Fatalf("state %v", want)
	}
}

// A refusal of any order of a batch fails the batch: the caller rolls
// back.
func TestPlaceOrdersRefusesTheBatch(t *testing.T) {
	db, _ := testdb.New(t)
	ctx := context.Background()
	now := time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)
	_, _, ps := placeFixture(t, db, "oversold", now)
	ps[2].Lines[0].Quantity = 8 // 2 + 1 + 8 of 10
	err := db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		_, err := PlaceOrders(ctx, tx, ps)
		return err
	})
	if apperr.CodeOf(err) != apperr.Conflict {
		t.Fatalf("oversold batch: %v", err)
	}
	_, _, again := placeFixture(t, db, "code-twice", now)
	again[1].DiscountID = again[0].DiscountID // once per customer
	if _, err := PlaceOrders(ctx, db, again); apperr.CodeOf(err) != apperr.Conflict {
		t.Fatalf("code used twice: %v", err)
	}
}
