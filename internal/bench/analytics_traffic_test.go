package bench_test

import (
	"context"
	"flag"
	"net/http"
	"testing"
	"time"

	"storeadmin/internal/app/apitest"
	"storeadmin/internal/app/benchdata"
	"storeadmin/internal/auth"
	"storeadmin/internal/testkit/testdb"
)

// trafficSessions is the store the traffic benchmark reads: the issue's
// 5,000,000 sessions (a smaller one to try the benchmark quickly).
var trafficSessions = flag.Int("traffic-sessions", 5_000_000, "sessions of the traffic benchmark's store")

// BenchmarkAnalyticsTraffic reads the traffic report and the landing
// pages (50 rows) of the last 90 days, on REST, of a store filled with
// bench-data's sessions (and orders, a fifth of them bought in sessions).
// Target: traffic under 300 ms (README "Benchmarks").
func BenchmarkAnalyticsTraffic(b *testing.B) {
	db, _ := testdb.New(b)
	e := apitest.New(b, apitest.WithDatabase(db), apitest.WithoutEventWorkers(), apitest.WithRateLimit(1<<30))
	s := e.Store("Traffic bench")
	key := e.Key(s.ID, auth.RoleAdmin)
	now := time.Now()
	sizes := benchdata.Sizes{Products: 2000, Customers: 20_000, Orders: *trafficSessions / 25, Sessions: *trafficSessions}
	start := time.Now()
	if err := benchdata.Fill(context.Background(), e.DB, s.ID, sizes, now, nil); err != nil {
		b.Fatal(err)
	}
	b.Logf("filled %d sessions and %d orders in %s", sizes.Sessions, sizes.Orders, time.Since(start).Round(time.Second))
	to := now.UTC().Format(time.DateOnly)
	from := now.UTC().AddDate(0, 0, -89).Format(time.DateOnly)
	for _, r := range []struct{ name, path string }{
		{"traffic_90d", "/store/analytics/traffic"},
		{"landing_pages_90d", "/store/analytics/landing-pages"},
		{"landing_pages_products_90d", "/store/analytics/landing-pages?type=product&limit=50&"},
	} {
		path := r.path + "?"
		if r.path[len(r.path)-1] == '&' {
			path = r.path
		}
		path += "from=" + from + "&to=" + to
		e.Do(http.MethodGet, path, key, nil).Expect(b, http.StatusOK) // warm
		b.Run(r.name, func(b *testing.B) {
			for b.Loop() {
				if res := e.Do(http.MethodGet, path, key, nil); res.Status != http.StatusOK {
					b.Fatalf("%s: %d %s", path, res.Status, res.Raw)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Milliseconds())/float64(b.N), "ms/op")
		})
	}
}
