package migrations_test

import (
	"context"
	"os"
	"slices"
	"strings"
	"testing"

	"storeadmin/internal/base/pricing"
	"storeadmin/internal/testkit/testdb"
)

// TestLineSharesBackfillIsTheEnginesRule: migration 20261124170000 gives
// the lines of orders placed before it their shares of the order's discount
// and tax by the pricing engine's rule (pricing.Allocate: largest
// remainder, the earlier line on a tie), so they sum to the order's figures
// exactly, as models.PlaceOrders shares them for orders placed after.
func TestLineSharesBackfillIsTheEnginesRule(t *testing.T) {
	ctx := context.Background()
	db, _ := testdb.New(t)
	up, err := os.ReadFile("20261124170000_line_shares.up.sql")
	if err != nil {
		t.Fatal(err)
	}
	backfill := string(up[strings.Index(string(up), "WITH weights"):])

	var storeID int64
	if err := db.NewRaw("INSERT INTO stores (handle, name) VALUES ('shares', 'Shares') RETURNING id").Scan(ctx, &storeID); err != nil {
		t.Fatal(err)
	}
	orders := []struct {
		discount, tax int64
		prices, qtys  []int64
	}{
		{101, 37, []int64{333, 333, 334}, []int64{1, 1, 1}},
		{7, 0, []int64{100, 250}, []int64{3, 1}},
		{0, 19, []int64{999}, []int64{2}},
		{500, 41, []int64{1200, 0, 800}, []int64{1, 5, 2}},
		{3, 3, []int64{1, 1, 1, 1}, []int64{1, 1, 1, 1}},
	}
	for k, o := range orders {
		var subtotal int64
		for i := range o.prices {
			subtotal += o.prices[i] * o.qtys[i]
		}
		var orderID int64
		err := db.NewRaw(`INSERT INTO orders (store_id, order_number, order_number_display, token, currency, subtotal_cents, discount_cents, tax_cents, total_cents)
			VALUES (?, ?, ?, ?, 'USD', ?, ?, ?, ?) RETURNING id`, storeID, k+1, "#1", "tok"+string(rune('a'+k)),
			subtotal, o.discount, o.tax, subtotal-o.discount+o.tax).Scan(ctx, &orderID)
		if err != nil {
			t.Fatal(err)
		}
		for i := range o.prices {
			if _, err := db.ExecContext(ctx, `INSERT INTO order_line_items (store_id, order_id, position, title, price_cents, quantity)
				VALUES (?, ?, ?, 'Line', ?, ?)`, storeID, orderID, i, o.prices[i], o.qtys[i]); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := db.ExecContext(ctx, backfill); err != nil {
			t.Fatal(err)
		}
		var discounts, taxes []int64
		if err := db.NewRaw("SELECT discount_cents FROM order_line_items WHERE order_id = ? ORDER BY position", orderID).Scan(ctx, &discounts); err != nil {
			t.Fatal(err)
		}
		if err := db.NewRaw("SELECT tax_cents FROM order_line_items WHERE order_id = ? ORDER BY position", orderID).Scan(ctx, &taxes); err != nil {
			t.Fatal(err)
		}
		totals := make([]int64, len(o.prices))
		for i := range o.prices {
			totals[i] = o.prices[i] * o.qtys[i]
		}
		wantDiscounts := pricing.Allocate(o.discount, totals)
		bases := make([]int64, len(totals))
		for i := range totals {
			bases[i] = totals[i] - wantDiscounts[i]
		}
		wantTaxes := pricing.Allocate(o.tax, bases)
		if !slices.Equal(discounts, wantDiscounts) || !slices.Equal(taxes, wantTaxes) {
			t.Errorf("order %d: discounts %v taxes %v; want %v %v", k, discounts, taxes, wantDiscounts, wantTaxes)
		}
	}
}
