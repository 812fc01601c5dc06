package bench_test

import (
	"context"
	"flag"
	"io"
	"net/http"
	"testing"
	"time"

	"storeadmin/internal/analytics"
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
	// The store at rest, as autovacuum leaves it a while after a bulk
	// fill: the visibility map set, so index-only scans read no heap.
	if _, err := e.DB.ExecContext(context.Background(), "VACUUM (ANALYZE) orders, analytics_order_slots, analytics_source_slots, "+
		"analytics_discount_slots, analytics_product_slots, analytics_first_orders"); err != nil {
		b.Fatal(err)
	}
	today := start.UTC()
	// Where the time goes: each part of the overview once, straight on the
	// database.
	w, err := analytics.ParseWindow(analytics.WindowArgs{From: ptr(today.AddDate(0, 0, -89).Format(time.DateOnly)),
		To: ptr(today.Format(time.DateOnly))}, today, time.UTC)
	if err != nil {
		b.Fatal(err)
	}
	for name, part := range map[string]func() error{
		"metrics":   func() error { _, err := analytics.OrderMetrics(context.Background(), e.DB, s.ID, w.Span); return err },
		"customers": func() error { _, err := analytics.Customers(context.Background(), e.DB, s.ID, w.Span); return err },
		"top products": func() error {
			_, err := analytics.TopProducts(context.Background(), e.DB, s.ID, w.Span, 10)
			return err
		},
		"overview": func() error { _, err := analytics.Overview(context.Background(), e.DB, s.ID, w); return err },
	} {
		t := time.Now()
		if err := part(); err != nil {
			b.Fatal(err)
		}
		b.Logf("%s: %s", name, time.Since(t).Round(time.Millisecond))
	}
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

func ptr[T any](v T) *T { return &v }
