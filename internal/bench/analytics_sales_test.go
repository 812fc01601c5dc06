package bench_test

import (
	"context"
	"flag"
	"net/http"
	"testing"
	"time"

	"storeadmin/internal/analytics"
	"storeadmin/internal/app/apitest"
	"storeadmin/internal/app/benchdata"
	"storeadmin/internal/auth"
	"storeadmin/internal/testkit/testdb"
)

var salesOrders = flag.Int("sales-orders", 1_000_000, "orders of BenchmarkSalesByProduct's store")

// BenchmarkSalesByProduct reads sales by product for the last 90 days of a
// store of 1,000,000 orders (bench-data's filler: 2,000 products of three
// variants, 100,000 customers, orders over two years, denser recently)
// over HTTP, by product and by SKU, and once from the raw rows alone for
// comparison, and the report's basis alone (analytics.OrderMetrics). The goal is under 500 ms a report on the 2-core machine; the
// fill takes minutes, so run it alone:
//
//	go test ./internal/bench -run '^$' -bench SalesByProduct -benchtime 10x
func BenchmarkSalesByProduct(b *testing.B) {
	db, _ := testdb.New(b)
	e := apitest.New(b, apitest.WithDatabase(db), apitest.WithoutEventWorkers(), apitest.WithRateLimit(1<<30))
	s := e.Store("Sales")
	key := e.Key(s.ID, auth.RoleAdmin)
	ctx := context.Background()
	now := time.Now()
	start := time.Now()
	if err := benchdata.Fill(ctx, e.DB, s.ID, benchdata.Sizes{Products: 2000, Customers: 100_000, Orders: *salesOrders}, now, nil); err != nil {
		b.Fatal(err)
	}
	b.Logf("filled %d orders in %s", *salesOrders, time.Since(start).Round(time.Second))
	from := now.AddDate(0, 0, -89).Format(time.DateOnly)
	for _, grain := range []string{analytics.GrainProduct, analytics.GrainSKU} {
		b.Run(grain, func(b *testing.B) {
			path := "/store/analytics/sales-by-product?limit=50&grain=" + grain + "&from=" + from
			for b.Loop() {
				r := e.Do(http.MethodGet, path, key, nil)
				if r.Status != http.StatusOK {
					b.Fatalf("%d %s", r.Status, r.Raw)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Milliseconds())/float64(b.N), "ms/report")
		})
	}
	w, err := analytics.ParseWindow(analytics.WindowArgs{From: &from}, now, time.Local)
	if err != nil {
		b.Fatal(err)
	}
	// The basis alone: analytics.OrderMetrics over the window, which the
	// report calls for the orders' own figures.
	b.Run("basis", func(b *testing.B) {
		for b.Loop() {
			if _, err := analytics.OrderMetrics(ctx, e.DB, s.ID, w.Span); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(b.Elapsed().Milliseconds())/float64(b.N), "ms/report")
	})
	b.Run("raw", func(b *testing.B) {
		for b.Loop() {
			if _, err := analytics.SalesByProductFromRaw(ctx, e.DB, s.ID, w, analytics.SalesQuery{Grain: analytics.GrainProduct, Limit: 50}); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(b.Elapsed().Milliseconds())/float64(b.N), "ms/report")
	})
}
