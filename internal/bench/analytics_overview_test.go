package bench_test

import (
	"context"
	"flag"
	"io"
	"net/http"
	"testing"
	"time"

	"storeadmin/internal/app/apitest"
	"storeadmin/internal/app/benchdata"
	"storeadmin/internal/auth"
	"storeadmin/internal/testkit/testdb"
)

// overviewOrders is the store of BenchmarkAnalyticsOverview: the issue's
// million orders by default (minutes to fill), fewer to try it.
var overviewOrders = flag.Int("overview-orders", 1_000_000, "orders of BenchmarkAnalyticsOverview's store")

// BenchmarkAnalyticsOverview reads GET /api/v1/store/analytics for the last
// 90 days, by day, over loopback, on a store filled as storeadmin
// bench-data fills one (--products 100000 --customers 200000 --orders
// 1000000: the rollups are kept by their triggers during the COPY). One op
// is one request; README "Benchmarks" has the figures.
func BenchmarkAnalyticsOverview(b *testing.B) {
	db, _ := testdb.New(b)
	e := apitest.New(b, apitest.WithDatabase(db), apitest.WithoutEventWorkers(), apitest.WithRateLimit(1<<30))
	s := e.Store("Bench")
	key := e.Key(s.ID, auth.RoleStaff, "analytics:read")
	n := benchdata.Sizes{Products: max(1, *overviewOrders/10), Customers: max(1, *overviewOrders/5), Orders: *overviewOrders}
	start := time.Now()
	if err := benchdata.Fill(context.Background(), e.DB, s.ID, n, start, nil); err != nil {
		b.Fatal(err)
	}
	b.Logf("filled %d orders in %s", n.Orders, time.Since(start).Round(time.Second))
	today := start.UTC()
	path := "/api/v1/store/analytics?interval=day&from=" + today.AddDate(0, 0, -89).Format(time.DateOnly) + "&to=" + today.Format(time.DateOnly)
	client := &http.Client{}
	get := func() {
		req, _ := http.NewRequest(http.MethodGet, e.URL+path, nil)
		req.Header.Set("Authorization", "Bearer "+key)
		resp, err := client.Do(req)
		if err != nil {
			b.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			b.Fatalf("status %d", resp.StatusCode)
		}
	}
	get() // the key's first use, and warm caches
	b.ResetTimer()
	for b.Loop() {
		get()
	}
}
