package apitest_test

import (
	"context"
	"fmt"
	"net/http"
	"testing"

	"storeadmin/internal/app/apitest"
	"storeadmin/internal/auth"
)

// Relations of records a loader made load for the whole load, three levels
// down and through a join (a product's collections are read from its
// memberships): 100 products cost the statements 5 do.
func TestNestedRelationsStatementsDoNotGrowWithRows(t *testing.T) {
	e := apitest.New(t)
	s := e.Store("nested")
	key := e.Key(s.ID, auth.RoleAdmin)
	seedProducts(t, e, s.ID, 100)
	e.Do(http.MethodGet, "/store", key, nil).Expect(t, http.StatusOK) // records the key's last use
	count := countStatements(e)
	query := `query($limit: Int) { products(limit: $limit) { id collections { id products_count
		products(limit: 3) { id product { id variants { id } } } } } }`
	statements := map[int]int64{}
	for _, n := range []int{5, 100} {
		statements[n] = count(func() {
			r := e.GraphQL(key, query, map[string]any{"limit": n})
			products, _ := r.Data()["products"].([]any)
			if len(products) != n {
				t.Fatalf("listed %d products, want %d: %v", len(products), n, r.Body)
			}
			collections := products[n-1].(map[string]any)["collections"].([]any)
			if len(collections) != 2 || collections[0].(map[string]any)["products_count"].(float64) != 100 {
				t.Fatalf("collections %v", collections)
			}
		})
	}
	if statements[5] != statements[100] {
		t.Fatalf("5 products cost %d statements, 100 cost %d", statements[5], statements[100])
	}
	t.Logf("%d statements", statements[100])
}

// A relation of a load's records loads for the whole load whichever field
// made the load: fulfilled reads the same lines as line_items, and the
// lines' variants still load in one statement, not one per order.
func TestRelationStatementsDoNotDependOnWhichFieldLoaded(t *testing.T) {
	e := apitest.New(t)
	s := e.Store("first")
	key := e.Key(s.ID, auth.RoleAdmin)
	seedProducts(t, e, s.ID, 3)
	var variants []int64
	if err := e.DB.NewSelect().Table("product_variants").Column("id").Where("store_id = ?", s.ID).Order("id").Scan(context.Background(), &variants); err != nil {
		t.Fatal(err)
	}
	for i := range 100 {
		createOrder(t, e, s.ID, orderSpec{email: fmt.Sprintf("c%d@example.com", i), lines: []orderLine{
			{sku: "A", price: 1000, quantity: 2, variantID: &variants[i%len(variants)]},
			{sku: "B", price: 500, quantity: 1, variantID: &variants[(i+1)%len(variants)]},
		}})
	}
	e.Do(http.MethodGet, "/store", key, nil).Expect(t, http.StatusOK) // records the key's last use
	count := countStatements(e)
	query := `query($limit: Int) { orders(limit: $limit) { fulfilled { quantity } line_items { variant { id } } } }`
	statements := map[int]int64{}
	for _, n := range []int{5, 100} {
		statements[n] = count(func() {
			r := e.GraphQL(key, query, map[string]any{"limit": n})
			if orders, _ := r.Data()["orders"].([]any); len(orders) != n {
				t.Fatalf("listed %d orders, want %d: %v", len(orders), n, r.Body)
			}
		})
	}
	if statements[5] != statements[100] {
		t.Fatalf("5 orders cost %d statements, 100 cost %d", statements[5], statements[100])
	}
}
