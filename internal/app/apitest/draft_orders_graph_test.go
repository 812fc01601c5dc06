package apitest_test

import (
	"context"
	"fmt"
	"net/http"
	"testing"

	"storeadmin/internal/app/apitest"
)

// The draft graph: listing 60 drafts with their lines, variants, products,
// shipping rates, discounts and orders costs the same statements as 5.
func TestDraftListStatementsDoNotGrowWithRows(t *testing.T) {
	e := apitest.New(t)
	ds := newDraftOrderStore(t, e, "shop")
	if _, err := e.DB.NewUpdate().Table("product_variants").Set("inventory_quantity = 1000").Where("id = ?", ds.variantID).Exec(context.Background()); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 60; i++ {
		body := map[string]any{"shipping_address": parisAddress, "discount_code": "SAVE10", "lines": []any{
			map[string]any{"variant_id": ds.variantID, "quantity": 1},
			map[string]any{"title": "Gift wrap", "price_cents": 300, "quantity": 1},
		}}
		id := wholeNumber(t, e.Do(http.MethodPost, "/store/draft-orders", ds.admin, body).Expect(t, http.StatusCreated).Obj("draft_order")["id"])
		if i%3 == 0 {
			e.Do(http.MethodPost, draftOrderPath(id, "/mark-as-paid"), ds.admin, nil).Expect(t, http.StatusOK)
		}
	}
	count := countStatements(e)
	query := `query($limit: Int) { draftOrders(limit: $limit) { id total_cents lines { id variant { id sku } product { id title } }
		shipping_rate { id name } discount { id code products { id } } order { id order_number_display } } }`
	statements := map[int]int64{}
	for _, n := range []int{5, 60} {
		statements[n] = count(func() {
			r := e.GraphQL(ds.admin, query, map[string]any{"limit": n})
			if got := len(r.Data()["draftOrders"].([]any)); got != n {
				t.Fatalf("listed %d drafts, want %d: %v", got, n, r.Body)
			}
		})
	}
	if statements[5] != statements[60] {
		t.Fatalf("5 drafts cost %d statements, 60 cost %d", statements[5], statements[60])
	}
	rest := map[int]int64{}
	for _, n := range []int{5, 60} {
		rest[n] = count(func() {
			e.Do(http.MethodGet, fmt.Sprintf("/store/draft-orders?limit=%d", n), ds.admin, nil).Expect(t, http.StatusOK)
		})
	}
	if rest[5] != rest[60] {
		t.Fatalf("REST: 5 drafts cost %d statements, 60 cost %d", rest[5], rest[60])
	}
}
