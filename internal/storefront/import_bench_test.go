package storefront_test

import (
	"bytes"
	"context"
	"fmt"
	"testing"
	"time"

	"storeadmin/internal/storefront"
	"storeadmin/internal/testkit/testdb"
	"storeadmin/models"
)

// importLines writes n events of an analytics export: 200,000 visitors
// over 90 days, visits of 5 events a minute apart, a few user agents and
// addresses, as a backfill carries them.
func importLines(n int, now time.Time) *bytes.Buffer {
	agents := []string{
		"Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36",
		"Mozilla/5.0 (iPhone; CPU iPhone OS 17_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.1 Mobile/15E148 Safari/604.1",
		"Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.1 Safari/605.1.15",
		"Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)",
	}
	var buf bytes.Buffer
	buf.Grow(n * 260)
	start := now.Add(-90 * 24 * time.Hour)
	for i := range n {
		visit, step := i/5, i%5
		visitor := visit % 200_000
		t := start.Add(time.Duration(visit)*(90*24*time.Hour)/time.Duration(n/5+1) + time.Duration(step)*time.Minute)
		if step == 2 {
			fmt.Fprintf(&buf, `{"id":"e%d","name":"product_view","visitor_id":"v%d","session_id":"s%d","time":%q,"product_id":%d,"ip":"198.51.%d.%d","user_agent":%q}`+"\n",
				i, visitor, visit, t.Format(time.RFC3339), 1+i%500, visitor%250, visitor%200, agents[visitor%len(agents)])
			continue
		}
		fmt.Fprintf(&buf, `{"id":"e%d","name":"page_view","visitor_id":"v%d","session_id":"s%d","time":%q,"path":"/products/p-%d","referrer":"https://www.google.com/","utm":{"source":"google","medium":"cpc"},"ip":"198.51.%d.%d","user_agent":%q}`+"\n",
			i, visitor, visit, t.Format(time.RFC3339), i%500, visitor%250, visitor%200, agents[visitor%len(agents)])
	}
	return &buf
}

// BenchmarkImportMillion imports 1,000,000 events (storeadmin events
// import's path: checks, COPY, the sessionising statement) into an empty
// store. The goal is under 60 s on the 2-core machine:
//
//	go test ./internal/storefront/ -run '^$' -bench ImportMillion -benchtime 1x
func BenchmarkImportMillion(b *testing.B) {
	const n = 1_000_000
	db, _ := testdb.New(b)
	ctx := context.Background()
	now := time.Now()
	for i := 0; b.Loop(); i++ {
		b.StopTimer()
		s := &models.Store{Handle: fmt.Sprintf("import-%d", i), Name: "Import"}
		if err := models.CreateStore(ctx, db, s); err != nil {
			b.Fatal(err)
		}
		lines := importLines(n, now)
		b.StartTimer()
		start := time.Now()
		rep, err := storefront.Import(ctx, db, s.ID, lines, storefront.ImportConfig{Now: now})
		if err != nil {
			b.Fatal(err)
		}
		took := time.Since(start)
		if rep.Stored != n || rep.Skipped != 0 {
			b.Fatalf("report: %+v", rep)
		}
		b.ReportMetric(float64(n)/took.Seconds(), "events/s")
		b.ReportMetric(float64(rep.NewSessions), "sessions")
	}
}
