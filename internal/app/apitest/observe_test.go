package apitest_test

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	"github.com/uptrace/bun"

	"storeadmin/internal/app/apitest"
	"storeadmin/internal/auth"
	"storeadmin/internal/testkit/testdb"
	"storeadmin/internal/testkit/testlog"
)

// TestAccessLogOneJSONLinePerRequest: with the JSON log every request writes
// exactly one line that parses, naming the method, the route's pattern (not
// the path), the status, the duration, the key (when there is one) and the
// request id.
func TestAccessLogOneJSONLinePerRequest(t *testing.T) {
	var out testlog.Buffer
	e := apitest.New(t, apitest.WithLog(slog.NewJSONHandler(&out, &slog.HandlerOptions{Level: slog.LevelDebug})))
	s := e.Store("Logs")
	key := e.Key(s.ID, auth.RoleAdmin)
	id := keyID(t, e, s.ID, key)
	o := createOrder(t, e, s.ID, orderSpec{})
	before := len(out.JSONLines(t))

	e.Do(http.MethodGet, orderPath(o.ID), key, nil).Expect(t, http.StatusOK)
	e.Do(http.MethodGet, "/store/webhooks", "", nil).Expect(t, http.StatusUnauthorized)
	e.Do(http.MethodGet, "/no/such/route", key, nil)
	e.GraphQL(key, `{ store { name } }`, nil)

	var lines []map[string]any
	for _, rec := range out.JSONLines(t)[before:] {
		if rec["msg"] == "request" {
			lines = append(lines, rec)
		}
	}
	want := []struct {
		method, route string
		status        float64
		key           bool
	}{
		{"GET", "/api/v1/store/orders/{id}", 200, true},
		{"GET", "/api/v1/store/webhooks", 401, false},
		{"GET", "/api/v1/*", 404, true},
		{"POST", "/graphql", 200, true},
	}
	if len(lines) != len(want) {
		t.Fatalf("%d request lines for %d requests: %v", len(lines), len(want), lines)
	}
	for i, w := range want {
		l := lines[i]
		if l["level"] != "INFO" || l["method"] != w.method || l["route"] != w.route || l["status"] != w.status {
			t.Errorf("line %d: %v, want %s %s %v at INFO", i, l, w.method, w.route, w.status)
		}
		if d, ok := l["duration_ms"].(float64); !ok || d < 0 {
			t.Errorf("line %d: duration_ms %v", i, l["duration_ms"])
		}
		if rid, _ := l["request_id"].(string); rid == "" {
			t.Errorf("line %d has no request_id: %v", i, l)
		}
		if got, has := l["key_id"]; has != w.key || (w.key && got != float64(id)) {
			t.Errorf("line %d: key_id %v, want %d (present: %v)", i, got, id, w.key)
		}
	}
}

// scrape reads GET /metrics, without a key, and parses it as Prometheus'
// text format.
func scrape(t *testing.T, url string) map[string]*dto.MetricFamily {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/plain") {
		body, _ := io.ReadAll(resp.Body)
		t.Fatalf("GET %s: %d %s\n%s", url, resp.StatusCode, resp.Header.Get("Content-Type"), body)
	}
	parser := expfmt.NewTextParser(model.UTF8Validation)
	families, err := parser.TextToMetricFamilies(resp.Body)
	if err != nil {
		t.Fatalf("GET %s is not the Prometheus text format: %v", url, err)
	}
	return families
}

// sample is the value of the metric of family name whose labels include
// labels (a counter's, a gauge's, or a histogram's count); -1 when there is
// none.
func sample(families map[string]*dto.MetricFamily, name string, labels map[string]string) float64 {
	f := families[name]
	if f == nil {
		return -1
	}
next:
	for _, m := range f.Metric {
		have := map[string]string{}
		for _, l := range m.Label {
			have[l.GetName()] = l.GetValue()
		}
		for k, v := range labels {
			if have[k] != v {
				continue next
			}
		}
		switch {
		case m.Counter != nil:
			return m.Counter.GetValue()
		case m.Gauge != nil:
			return m.Gauge.GetValue()
		case m.Histogram != nil:
			return float64(m.Histogram.GetSampleCount())
		case m.Untyped != nil:
			return m.Untyped.GetValue()
		}
	}
	return -1
}

// TestMetricsCountRequestsAndRefusals: GET /metrics answers without a key,
// in the Prometheus text format, and its counters move with the requests:
// by route pattern and status, with a latency histogram per route, and the
// rate limiter's refusals; the database pool's figures are there.
func TestMetricsCountRequestsAndRefusals(t *testing.T) {
	e := apitest.New(t, apitest.WithRateLimit(4))
	s := e.Store("Metrics")
	key := e.Key(s.ID, auth.RoleAdmin)
	for range 3 {
		e.Do(http.MethodGet, "/store/webhooks", key, nil).Expect(t, http.StatusOK)
	}
	e.Do(http.MethodGet, "/store/orders/987654", key, nil).Expect(t, http.StatusNotFound)
	e.Do(http.MethodGet, "/store/webhooks", key, nil).Expect(t, http.StatusTooManyRequests)

	m := scrape(t, e.URL+"/metrics")
	counts := []struct {
		name   string
		labels map[string]string
		want   float64
	}{
		{"storeadmin_http_requests_total", map[string]string{"method": "GET", "route": "/api/v1/store/webhooks", "status": "200"}, 3},
		{"storeadmin_http_requests_total", map[string]string{"method": "GET", "route": "/api/v1/store/orders/{id}", "status": "404"}, 1},
		{"storeadmin_http_requests_total", map[string]string{"method": "GET", "route": "/api/v1/store/webhooks", "status": "429"}, 1},
		{"storeadmin_http_request_duration_seconds", map[string]string{"method": "GET", "route": "/api/v1/store/webhooks"}, 4},
		{"storeadmin_rate_limit_refusals_total", map[string]string{"reason": "requests"}, 1},
	}
	for _, c := range counts {
		if got := sample(m, c.name, c.labels); got != c.want {
			t.Errorf("%s%v = %v, want %v", c.name, c.labels, got, c.want)
		}
	}
	for _, name := range []string{"go_sql_open_connections", "go_sql_in_use_connections", "go_sql_idle_connections",
		"go_sql_wait_count_total", "go_sql_wait_duration_seconds_total", "go_goroutines"} {
		if sample(m, name, map[string]string{}) < 0 {
			t.Errorf("%s is missing from /metrics", name)
		}
	}
	// A scrape is itself a request, counted by its route.
	if got := sample(scrape(t, e.URL+"/metrics"), "storeadmin_http_requests_total", map[string]string{"route": "/metrics", "status": "200"}); got != 1 {
		t.Errorf("the first scrape counted %v times", got)
	}
}

// TestMetricsWebhookQueueAndDeliveries: the webhook queue's depth is read at
// each scrape (a job waits while no worker runs), and once the workers run,
// the delivery and its River job are counted by outcome.
func TestMetricsWebhookQueueAndDeliveries(t *testing.T) {
	e := apitest.New(t, apitest.WithoutEventWorkers())
	s := e.Store("Queue")
	key := e.Key(s.ID, auth.RoleAdmin)
	rcv := newWebhookReceiver(t)
	createWebhook(t, e, key, map[string]any{"url": rcv.URL, "topics": []string{"order.refunded"}})
	o := createOrder(t, e, s.ID, orderSpec{})
	whEmit(t, e, s.ID, o.ID)

	waiting := map[string]string{"queue": "webhooks", "state": "available"}
	if got := sample(scrape(t, e.URL+"/metrics"), "storeadmin_river_queue_jobs", waiting); got != 1 {
		t.Fatalf("queue depth %v with one delivery waiting, want 1", got)
	}
	if err := e.Events.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	rcv.next(t)
	// The outcome is counted once the attempt is recorded, just after the
	// receiver answered: wait for it, without a time limit of the test's own.
	succeeded := map[string]string{"outcome": "succeeded"}
	completed := map[string]string{"queue": "webhooks", "kind": "webhook_delivery", "outcome": "completed"}
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(20 * time.Millisecond) {
		m := scrape(t, e.URL+"/metrics")
		if sample(m, "storeadmin_webhook_deliveries_total", succeeded) == 1 && sample(m, "storeadmin_river_jobs_total", completed) == 1 {
			if got := sample(m, "storeadmin_river_queue_jobs", waiting); got > 0 {
				t.Fatalf("queue depth %v after the delivery", got)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the delivery was not counted: %v, %v", m["storeadmin_webhook_deliveries_total"], m["storeadmin_river_jobs_total"])
		}
	}
}

// TestHealthAndReadiness: /healthz and /readyz answer without a key;
// /readyz is a 503 when a migration is missing or the database does not
// answer, while /healthz, which reads nothing, still answers 200.
func TestHealthAndReadiness(t *testing.T) {
	db, _ := testdb.New(t)
	e := apitest.New(t, apitest.WithDatabase(db), apitest.WithoutEventWorkers())
	get := func(path string) *apitest.Response {
		t.Helper()
		resp, err := http.Get(e.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		raw, _ := io.ReadAll(resp.Body)
		r := &apitest.Response{Status: resp.StatusCode, Header: resp.Header, Raw: raw}
		if err := json.Unmarshal(raw, &r.Body); err != nil {
			t.Fatalf("GET %s: not JSON: %s", path, raw)
		}
		return r
	}
	get("/healthz").Expect(t, http.StatusOK)
	get("/readyz").Expect(t, http.StatusOK)

	ctx := context.Background()
	var last string
	if err := db.NewSelect().Table("bun_migrations").Column("name").Order("id DESC").Limit(1).Scan(ctx, &last); err != nil {
		t.Fatal(err)
	}
	if _, err := db.NewDelete().Table("bun_migrations").Where("name = ?", last).Exec(ctx); err != nil {
		t.Fatal(err)
	}
	if r := get("/readyz").Expect(t, http.StatusServiceUnavailable); !strings.Contains(r.Message(), "migrations") {
		t.Fatalf("readyz without a migration: %s", r.Raw)
	}
	get("/healthz").Expect(t, http.StatusOK)
	if _, err := db.NewInsert().Model(&map[string]any{"name": last, "group_id": 0}).Table("bun_migrations").Exec(ctx); err != nil {
		t.Fatal(err)
	}
	get("/readyz").Expect(t, http.StatusOK)

	db.Close() // the service's pool: nothing answers any more
	r := get("/readyz").Expect(t, http.StatusServiceUnavailable)
	if !strings.Contains(r.Message(), "unreachable") || r.Header.Get("Retry-After") == "" {
		t.Fatalf("readyz with the database gone: %s, Retry-After %q", r.Raw, r.Header.Get("Retry-After"))
	}
	get("/healthz").Expect(t, http.StatusOK)
}

// holdStatement is a query hook that, once armed, holds the first statement
// matching match until its context ends (the client hung up), and says so
// on held: the request is then cut off in the middle of its work, every
// time, whatever the machine's speed.
type holdStatement struct {
	match func(query string) bool
	armed chan struct{} // closed to arm it
	held  chan struct{} // closed when a statement is held
	once  sync.Once
}

func (h *holdStatement) BeforeQuery(ctx context.Context, ev *bun.QueryEvent) context.Context {
	select {
	case <-h.armed:
	default:
		return ctx
	}
	if !h.match(ev.Query) {
		return ctx
	}
	first := false
	h.once.Do(func() { first = true })
	if first {
		close(h.held)
		<-ctx.Done()
	}
	return ctx
}

func (h *holdStatement) AfterQuery(context.Context, *bun.QueryEvent) {}

// TestHungUpPageLogsOneDebugLine: a client that hangs up while a page of
// 250 products is read (after the products, while their variants load)
// leaves one debug line and nothing at ERROR or WARN, no panic, and a pool
// that serves the next request.
func TestHungUpPageLogsOneDebugLine(t *testing.T) {
	hold := &holdStatement{
		match: func(q string) bool { return strings.Contains(q, `FROM "product_variants"`) },
		armed: make(chan struct{}), held: make(chan struct{}),
	}
	db, _ := testdb.New(t)
	logs := &testlog.Records{}
	e := apitest.New(t, apitest.WithDatabase(db.WithQueryHook(hold)), apitest.WithLog(logs))
	s := e.Store("Hangup")
	key := e.Key(s.ID, auth.RoleAdmin)
	seedProducts(t, e, s.ID, 250)

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	q := `{"query":"{ products(limit: 250) { id title variants { id sku price_cents } images { id } } }"}`
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, e.URL+"/graphql", strings.NewReader(q))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+key)
	close(hold.armed)
	done := make(chan error, 1)
	go func() {
		resp, err := http.DefaultClient.Do(req)
		if err == nil {
			resp.Body.Close()
		}
		done <- err
	}()
	select {
	case <-hold.held:
	case err := <-done:
		t.Fatalf("the page was answered (%v) without reading variants as this test expects", err)
	}
	cancel()
	if err := <-done; err == nil {
		t.Fatal("the request was answered although its client hung up")
	}
	// The service writes its one line when the request has unwound.
	for deadline := time.Now().Add(time.Minute); logs.Count(slog.LevelDebug, "client closed the request") == 0; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("no debug line for the hang-up:\n%s", logs)
		}
	}

	r := e.GraphQL(key, `{ products(limit: 250) { id variants { id } } }`, nil)
	if r.Status != http.StatusOK || r.Body["errors"] != nil || len(r.Data()["products"].([]any)) != 250 {
		t.Fatalf("the request after the hang-up: %d %.300s", r.Status, r.Raw)
	}
	if loud := logs.Lines(slog.LevelWarn); len(loud) > 0 {
		t.Fatalf("the hang-up logged %d lines at WARN or above:\n%s", len(loud), strings.Join(loud, "\n"))
	}
	if n := logs.Count(slog.LevelDebug, "client closed the request"); n != 1 {
		t.Fatalf("the hang-up logged %d debug lines, want 1:\n%s", n, logs)
	}
	for _, l := range logs.Lines(slog.LevelDebug) {
		if strings.Contains(l, "panic") {
			t.Fatalf("the hang-up made the service panic: %s", l)
		}
	}
}
