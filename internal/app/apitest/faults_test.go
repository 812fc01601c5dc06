package apitest_test

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"storeadmin/internal/app/apitest"
	"storeadmin/internal/auth"
	"storeadmin/internal/base/database"
	"storeadmin/internal/base/pgembed"
	"storeadmin/internal/testkit/testlog"
	"storeadmin/migrations"
)

// TestAbandonedRequests hangs up 300 heavy requests at every stage of their
// work: nothing panics, at most a handful of lines are logged above debug,
// and the requests that follow are served normally.
func TestAbandonedRequests(t *testing.T) {
	logs := &testlog.Records{}
	e := apitest.New(t, apitest.WithLog(logs))
	s := e.Store("Hangups")
	key := e.Key(s.ID, auth.RoleAdmin)
	seedProducts(t, e, s.ID, 120)
	for i := range 120 {
		createOrder(t, e, s.ID, orderSpec{email: fmt.Sprintf("c%d@example.com", i%30)})
	}
	heavy := []func(ctx context.Context) *http.Request{
		func(ctx context.Context) *http.Request {
			r, _ := http.NewRequestWithContext(ctx, http.MethodGet, e.URL+"/api/v1/store/products?limit=100", nil)
			return r
		},
		func(ctx context.Context) *http.Request {
			r, _ := http.NewRequestWithContext(ctx, http.MethodGet, e.URL+"/api/v1/store/orders?limit=100", nil)
			return r
		},
		func(ctx context.Context) *http.Request {
			q := `{"query":"{ orders(limit: 100) { id line_items { id variant { id sku product { id title variants { id sku } } } } customer { id orders { id total_cents } } } products(limit: 100) { id variants { id } images { id } } }"}`
			r, _ := http.NewRequestWithContext(ctx, http.MethodPost, e.URL+"/graphql", strings.NewReader(q))
			r.Header.Set("Content-Type", "application/json")
			return r
		},
	}
	client := &http.Client{}
	var wg sync.WaitGroup
	sem := make(chan struct{}, 8)
	for i := range 300 {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			// Hang up at every stage: before the request is read, while
			// its resolvers run, while the answer is written.
			ctx, cancel := context.WithTimeout(context.Background(), time.Duration(i%25)*time.Millisecond)
			defer cancel()
			req := heavy[i%len(heavy)](ctx)
			req.Header.Set("Authorization", "Bearer "+key)
			if resp, err := client.Do(req); err == nil {
				var sink bytes.Buffer
				sink.ReadFrom(resp.Body) //nolint:errcheck // cut short on purpose
				resp.Body.Close()
			}
		}()
	}
	wg.Wait()

	// The requests after are served normally, on a healthy pool.
	for i := range 30 {
		e.Do(http.MethodGet, "/store/orders?limit=100", key, nil).Expect(t, http.StatusOK)
		r := e.GraphQL(key, `{ products(limit: 100) { id variants { id } } }`, nil)
		if r.Status != http.StatusOK || r.Body["errors"] != nil {
			t.Fatalf("request %d after the hang-ups: %s", i, r.Raw)
		}
	}
	for _, l := range logs.Lines(slog.LevelDebug) {
		if strings.Contains(l, "panic") {
			t.Fatalf("a hang-up made the service panic: %s", l)
		}
	}
	if loud := logs.Lines(slog.LevelWarn); len(loud) > 5 {
		t.Fatalf("300 hang-ups logged %d lines above debug, first: %s", len(loud), strings.Join(loud[:5], "\n"))
	}
	if n := e.DB.Stats().OpenConnections; n > 20 {
		t.Fatalf("%d open connections after the hang-ups", n)
	}
}

// TestDatabaseOutage stops the database under a running service and starts
// it again: while it is out every request answers 503 with Retry-After on
// both surfaces (never 500), the log says so once, and afterwards the
// service serves again by itself and delivers every event of its outbox,
// those committed before the outage included.
func TestDatabaseOutage(t *testing.T) {
	ctx := context.Background()
	dir, err := os.MkdirTemp("", "storeadmin-outage-")
	if err != nil {
		t.Fatal(err)
	}
	os.Chmod(dir, 0o755) //nolint:errcheck // the postgres user must reach the data folder
	t.Cleanup(func() { os.RemoveAll(dir) })
	cfg := pgembed.Config{DataDir: filepath.Join(dir, "pg"), Fast: true}
	pg, err := pgembed.Start(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { pg.Stop() }) //nolint:errcheck // best effort at the end
	cfg.Port = pg.Port()
	db, err := database.Open(ctx, pg.URL("postgres"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	if err := migrations.Migrate(ctx, db); err != nil {
		t.Fatal(err)
	}

	logs := &testlog.Records{}
	e := apitest.New(t, apitest.WithDatabase(db), apitest.WithLog(logs))
	s := e.Store("Outage")
	key := e.Key(s.ID, auth.RoleAdmin)
	hook := newWebhookReceiver(t)
	createWebhook(t, e, key, map[string]any{"url": hook.URL, "topics": []string{"order.cancelled"}})
	var orders []int64
	for i := range 10 {
		orders = append(orders, createOrder(t, e, s.ID, orderSpec{email: fmt.Sprintf("o%d@example.com", i)}).ID)
	}
	// Half the events are committed just before the outage.
	for _, id := range orders[:5] {
		e.Do(http.MethodPost, orderPath(id, "/cancel"), key, map[string]any{"reason": "customer"}).Expect(t, http.StatusOK)
	}

	if err := pg.Stop(); err != nil {
		t.Fatal(err)
	}
	for i := range 30 {
		var r *apitest.Response
		switch i % 3 {
		case 0:
			r = e.Do(http.MethodGet, "/store/orders", key, nil)
		case 1:
			r = e.Do(http.MethodPost, orderPath(orders[5], "/cancel"), key, map[string]any{"reason": "customer"})
		default:
			r = e.GraphQL(key, `{ orders(limit: 5) { id } }`, nil)
			if r.ErrorCode() != "SERVICE_UNAVAILABLE" {
				t.Fatalf("GraphQL during the outage: %s", r.Raw)
			}
		}
		if r.Status != http.StatusServiceUnavailable || r.Header.Get("Retry-After") == "" {
			t.Fatalf("request %d during the outage: %d (Retry-After %q) %s", i, r.Status, r.Header.Get("Retry-After"), r.Raw)
		}
	}

	if pg, err = pgembed.Start(ctx, cfg); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(time.Minute)
	for e.Do(http.MethodGet, "/store/orders", key, nil).Status != http.StatusOK {
		if time.Now().After(deadline) {
			t.Fatal("the service did not recover within a minute of the database's return")
		}
		time.Sleep(50 * time.Millisecond)
	}
	for _, id := range orders[5:] {
		e.Do(http.MethodPost, orderPath(id, "/cancel"), key, map[string]any{"reason": "customer"}).Expect(t, http.StatusOK)
	}
	seen := map[string]bool{}
	for len(seen) < 10 {
		seen[hook.next(t).header.Get("Webhook-Id")] = true
	}
	if errs := logs.Lines(slog.LevelError); len(errs) > 0 {
		t.Fatalf("the outage logged %d errors, first: %s", len(errs), errs[0])
	}
	if warns := logs.Lines(slog.LevelWarn); len(warns) > 3 {
		t.Fatalf("the outage logged %d warnings:\n%s", len(warns), strings.Join(warns, "\n"))
	}
}
