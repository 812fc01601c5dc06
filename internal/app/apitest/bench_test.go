package apitest_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"storeadmin/internal/app/apitest"
	"storeadmin/internal/auth"
	"storeadmin/models"
)

// BenchmarkStoreRead measures one read of the store profile three ways, so
// that the REST adapter's and the executor's overhead are known numbers:
//
//	rest:    GET /api/v1/store over HTTP (auth, rate limit, audit, adapter, executor)
//	graphql: the same operation posted to /graphql over HTTP
//	sql:     the hand-written floor: the key lookup and the store row, encoded as JSON
func BenchmarkStoreRead(b *testing.B) {
	e := apitest.New(b)
	s := e.Store("Bench")
	key := e.Key(s.ID, auth.RoleAdmin)
	client := &http.Client{}
	call := func(b *testing.B, req func() *http.Request) { benchmarkRequests(b, client, req) }
	b.Run("rest", func(b *testing.B) {
		call(b, func() *http.Request {
			r, _ := http.NewRequest(http.MethodGet, e.URL+"/api/v1/store", nil)
			r.Header.Set("Authorization", "Bearer "+key)
			return r
		})
	})
	const query = `{"query":"{ role: currentRole store { address contact_email contact_phone currency handle id locale name order_number_prefix order_number_suffix status storefront_enabled timezone weight_unit } store_id: currentStoreId }"}`
	b.Run("graphql", func(b *testing.B) {
		call(b, func() *http.Request {
			r, _ := http.NewRequest(http.MethodPost, e.URL+"/graphql", strings.NewReader(query))
			r.Header.Set("Authorization", "Bearer "+key)
			r.Header.Set("Content-Type", "application/json")
			return r
		})
	})
	b.Run("sql", func(b *testing.B) {
		ctx := context.Background()
		for b.Loop() {
			k, err := models.APIKeyBySecretHash(ctx, e.DB, auth.HashSecret(key))
			if err != nil {
				b.Fatal(err)
			}
			st, err := models.GetStore(ctx, e.DB, k.StoreID)
			if err != nil {
				b.Fatal(err)
			}
			if _, err := json.Marshal(map[string]any{"status": true, "role": k.Role, "store": st, "store_id": st.ID}); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// benchmarkRequests sends req's requests in a benchmark loop, expecting 200.
func benchmarkRequests(b *testing.B, client *http.Client, req func() *http.Request) {
	for b.Loop() {
		resp, err := client.Do(req())
		if err != nil {
			b.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 {
			b.Fatalf("status %d", resp.StatusCode)
		}
	}
}

// BenchmarkProductImport imports a sheet of 1,000 products with five
// variants each (5,000 variant rows) into an empty store, over REST.
func BenchmarkProductImport(b *testing.B) {
	e := apitest.New(b)
	var sheet strings.Builder
	sheet.WriteString("Handle,Title,Vendor,Type,Tags,Option1 Name,Option1 Value,Variant SKU,Variant Price,Variant Grams,Variant Inventory Qty,Image Src,Status\n")
	for p := range 1000 {
		for v, size := range []string{"XS", "S", "M", "L", "XL"} {
			if v == 0 {
				fmt.Fprintf(&sheet, "tee-%d,Tee %d,Northwind,Shirts,\"summer, cotton\",Size,%s,TEE-%d-%s,19.90,180,5,https://cdn.example/tee-%d.png,active\n", p, p, size, p, size, p)
				continue
			}
			fmt.Fprintf(&sheet, "tee-%d,,,,,,%s,TEE-%d-%s,19.90,180,5,,\n", p, size, p, size)
		}
	}
	body := []byte(sheet.String())
	i := 0
	for b.Loop() {
		i++
		s := e.Store(fmt.Sprintf("import-%d", i))
		key := e.Key(s.ID, auth.RoleAdmin)
		r := e.DoHeaders(http.MethodPost, "/store/products/import", key, body, map[string]string{"Content-Type": "text/csv"})
		if r.Status != http.StatusOK || r.Body["created"].(float64) != 1000 {
			b.Fatalf("import: %d %.300s", r.Status, r.Raw)
		}
	}
}
