package bench_test

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"reflect"
	"runtime"
	"runtime/metrics"
	"strings"
	"sync"
	"testing"
	"text/tabwriter"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"storeadmin/internal/app/apitest"
	"storeadmin/internal/app/benchdata"
	"storeadmin/internal/auth"
	"storeadmin/internal/bench"
	"storeadmin/internal/testkit/testdb"
)

func TestMain(m *testing.M) { testdb.Main(m) }

// sizes are the store: 200 products of 3 variants, 500 customers,
// 2,000 orders of 1-4 lines.
var sizes = benchdata.Sizes{Products: 200, Customers: 500, Orders: 2000}

// read is one of the four reads: its request on the service and on its
// floor, and the part of the answers that must be equal.
type read struct {
	name         string
	method, path string // on the service
	floorPath    string
	query        string // the GraphQL body, for the GraphQL reads
	graphQL      bool
}

var reads = []read{
	{name: "graphql_products", method: http.MethodPost, path: "/graphql", floorPath: bench.FloorGraphQLProducts, graphQL: true,
		query: `{"query":"{ products(limit: 50) { id title handle variants { id sku price_cents inventory_quantity } } productsCount }"}`},
	{name: "graphql_orders", method: http.MethodPost, path: "/graphql", floorPath: bench.FloorGraphQLOrders, graphQL: true,
		query: `{"query":"{ orders(limit: 50) { id order_number status financial_status total_cents customer { id email } line_items { id quantity variant { id sku } } } ordersCount }"}`},
	{name: "rest_products", method: http.MethodGet, path: "/api/v1/store/products?limit=50", floorPath: bench.FloorRESTProducts + "?limit=50"},
	{name: "rest_orders", method: http.MethodGet, path: "/api/v1/store/orders?limit=50", floorPath: bench.FloorRESTOrders + "?limit=50"},
}

// env is the service and the floor, serving one filled store over
// loopback HTTP.
type env struct {
	service  *apitest.Env
	key      string
	floor    *bench.Floor
	floorURL string
}

// setup starts the service (without event workers, whose polling would
// add statements to the counts) on a fresh database, fills a store through
// the bulk path, and starts the floor on its own listener.
func setup(tb testing.TB) *env {
	tb.Helper()
	db, url := testdb.New(tb)
	e := apitest.New(tb, apitest.WithDatabase(db), apitest.WithoutEventWorkers(), apitest.WithRateLimit(1<<30))
	s := e.Store("Bench")
	key := e.Key(s.ID, auth.RoleAdmin)
	ctx := context.Background()
	if err := benchdata.Fill(ctx, e.DB, s.ID, sizes, time.Now(), nil); err != nil {
		tb.Fatal(err)
	}
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		tb.Fatal(err)
	}
	cfg.MaxConns = 20 // as many as the service's pool
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(pool.Close)
	floor := bench.NewFloor(pool, s.ID)
	srv := httptest.NewServer(floor.Handler())
	tb.Cleanup(srv.Close)
	return &env{service: e, key: key, floor: floor, floorURL: srv.URL}
}

// serviceTarget is r's request to the service.
func (e *env) serviceTarget(r read) bench.Target {
	return func() *http.Request {
		var body io.Reader
		if r.query != "" {
			body = strings.NewReader(r.query)
		}
		req, _ := http.NewRequest(r.method, e.service.URL+r.path, body)
		req.Header.Set("Authorization", "Bearer "+e.key)
		if body != nil {
			req.Header.Set("Content-Type", "application/json")
		}
		return req
	}
}

// floorTarget is r's request to its floor: the same body, no key.
func (e *env) floorTarget(r read) bench.Target {
	return func() *http.Request {
		var body io.Reader
		if r.query != "" {
			body = strings.NewReader(r.query)
		}
		req, _ := http.NewRequest(r.method, e.floorURL+r.floorPath, body)
		if body != nil {
			req.Header.Set("Content-Type", "application/json")
		}
		return req
	}
}

// answer sends target's request once and decodes its JSON answer.
func answer(t *testing.T, target bench.Target) map[string]any {
	t.Helper()
	resp, err := http.DefaultClient.Do(target())
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("status %d: %.500s", resp.StatusCode, raw)
	}
	var out map[string]any
	if err := json.Unmarshal(raw, &out); err != nil {
		t.Fatalf("%v: %.500s", err, raw)
	}
	return out
}

// TestFloorsServeWhatTheServiceServes is the benchmark's smoke test, quick
// enough for every run: each floor answers exactly what the service
// answers for its read (GraphQL: the data), so a floor cannot drift from
// the API it is the floor of; and the load driver drives both.
func TestFloorsServeWhatTheServiceServes(t *testing.T) {
	e := setup(t)
	for _, r := range reads {
		t.Run(r.name, func(t *testing.T) {
			got, want := answer(t, e.floorTarget(r)), answer(t, e.serviceTarget(r))
			if r.graphQL {
				if want["errors"] != nil {
					t.Fatalf("the service answered errors: %v", want["errors"])
				}
				got, want = got["data"].(map[string]any), want["data"].(map[string]any)
			}
			if !reflect.DeepEqual(got, want) {
				gj, _ := json.Marshal(got)
				wj, _ := json.Marshal(want)
				t.Fatalf("the floor and the service disagree:\nfloor:   %.2000s\nservice: %.2000s", gj, wj)
			}
			rows := 0
			for _, v := range want {
				if list, ok := v.([]any); ok {
					rows = len(list)
				}
			}
			if rows != bench.PageSize {
				t.Fatalf("a page of %d rows, want %d", rows, bench.PageSize)
			}
			for _, target := range []bench.Target{e.floorTarget(r), e.serviceTarget(r)} {
				if _, err := bench.Drive(bench.Client(8), target, 8, 16); err != nil {
					t.Fatal(err)
				}
			}
		})
	}
}

// figures are one read's measurements on one server.
type figures struct {
	perSecond  float64       // requests per second at 8 connections
	allocs     float64       // heap allocations per request (whole process)
	cpu        time.Duration // process CPU per request
	statements float64       // SQL statements per request
	p50, p99   time.Duration // at 32 connections
	rss        int64         // peak resident memory at 32 connections
}

var (
	resultsMu sync.Mutex
	results   = map[string]map[string]figures{} // read → "floor" or "service" → figures
	only      = flag.String("server", "", "measure only this server of each read, floor or service (to profile it alone)")
)

// chunk is how many requests one server gets before the other has its
// turn: the two take turns, so that a change in the machine's load during
// the run weighs on both alike and their ratio stays meaningful.
const chunk = 200

// BenchmarkReads measures each read on its floor and on the service, in
// turns; see the README, "Benchmarks". One op is one request to each.
func BenchmarkReads(b *testing.B) {
	e := setup(b)
	for _, r := range reads {
		b.Run(r.name, func(b *testing.B) {
			var servers []*server
			for _, s := range []*server{
				{name: "floor", target: e.floorTarget(r), statements: e.floor.Statements},
				{name: "service", target: e.serviceTarget(r), statements: e.service.Statements},
			} {
				if *only == "" || *only == s.name {
					servers = append(servers, s)
				}
			}
			if len(servers) == 0 {
				b.Fatalf("-server must be floor or service, not %q", *only)
			}
			compare(b, r.name, servers)
		})
	}
	summarize(os.Stdout)
}

// server is one server of a read, and what was measured of it so far.
type server struct {
	name       string
	target     bench.Target
	statements func() int64

	wall, cpu time.Duration
	allocs    uint64
	stmts     int64
	latencies []time.Duration // at 32 connections
	rss       int64
}

// compare sends b.N requests to each server over 8 connections, in turns
// of chunk requests, then max(b.N, 500) each over 32 connections for the
// latency percentiles and the peak RSS, and reports the figures.
func compare(b *testing.B, readName string, servers []*server) {
	client8, client32 := bench.Client(8), bench.Client(32)
	defer client8.CloseIdleConnections()
	defer client32.CloseIdleConnections()
	for _, s := range servers { // open the connections, warm the caches
		if _, err := bench.Drive(client8, s.target, 8, 16); err != nil {
			b.Fatal(err)
		}
	}
	runtime.GC()
	b.ResetTimer()
	for done := 0; done < b.N; done += chunk {
		for _, s := range servers {
			allocs, cpu, stmts, start := heapAllocs(), bench.CPUTime(), s.statements(), time.Now()
			if _, err := bench.Drive(client8, s.target, 8, min(chunk, b.N-done)); err != nil {
				b.Fatal(err)
			}
			s.wall += time.Since(start)
			s.cpu += bench.CPUTime() - cpu
			s.allocs += heapAllocs() - allocs
			s.stmts += s.statements() - stmts
		}
	}
	b.StopTimer()
	for _, s := range servers {
		if _, err := bench.Drive(client32, s.target, 32, 64); err != nil {
			b.Fatal(err)
		}
	}
	n32 := max(b.N, 500)
	for done := 0; done < n32; done += chunk {
		for _, s := range servers {
			stop := bench.PeakRSS(10 * time.Millisecond)
			latencies, err := bench.Drive(client32, s.target, 32, min(chunk, n32-done))
			s.rss = max(s.rss, stop())
			if err != nil {
				b.Fatal(err)
			}
			s.latencies = append(s.latencies, latencies...)
		}
	}

	resultsMu.Lock()
	defer resultsMu.Unlock()
	results[readName] = map[string]figures{}
	n := float64(b.N)
	for _, s := range servers {
		f := figures{
			perSecond:  n / s.wall.Seconds(),
			allocs:     float64(s.allocs) / n,
			cpu:        time.Duration(float64(s.cpu) / n),
			statements: float64(s.stmts) / n,
			p50:        bench.Percentile(s.latencies, 50),
			p99:        bench.Percentile(s.latencies, 99),
			rss:        s.rss,
		}
		results[readName][s.name] = f
		prefix := ""
		if s.name == "floor" && len(servers) > 1 {
			prefix = "floor-"
		}
		b.ReportMetric(f.perSecond, prefix+"req/s")
		b.ReportMetric(f.allocs, prefix+"allocs/req")
		b.ReportMetric(float64(f.cpu)/1e6, prefix+"cpu-ms/req")
		b.ReportMetric(f.statements, prefix+"stmts/req")
		b.ReportMetric(float64(f.p50)/1e6, prefix+"p50-ms")
		b.ReportMetric(float64(f.p99)/1e6, prefix+"p99-ms")
		b.ReportMetric(float64(f.rss)/(1<<20), prefix+"rss-MB")
	}
	if floor, ok := results[readName]["floor"]; ok && len(servers) > 1 {
		b.ReportMetric(results[readName]["service"].perSecond/floor.perSecond, "x-floor")
	}
}

// heapAllocs is how many heap allocations the process has made so far,
// tiny ones included, as -benchmem counts them (runtime/metrics: no stop
// of the world, unlike runtime.ReadMemStats).
func heapAllocs() uint64 {
	sample := []metrics.Sample{{Name: "/gc/heap/allocs:objects"}, {Name: "/gc/heap/tiny/allocs:objects"}}
	metrics.Read(sample)
	return sample[0].Value.Uint64() + sample[1].Value.Uint64()
}

// summarize prints each read's figures on the service and its floor, and
// the service's throughput as a ratio to its floor's.
func summarize(w io.Writer) {
	resultsMu.Lock()
	defer resultsMu.Unlock()
	var buf bytes.Buffer
	tw := tabwriter.NewWriter(&buf, 0, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "read\tserver\treq/s @8\tx floor\tallocs/req\tCPU ms/req\tSQL/req\tp50 ms @32\tp99 ms @32\tRSS MB @32\t")
	for _, r := range reads {
		floor, hasFloor := results[r.name]["floor"]
		for _, server := range []string{"floor", "service"} {
			f, ok := results[r.name][server]
			if !ok {
				continue
			}
			ratio := "-"
			if hasFloor {
				ratio = fmt.Sprintf("%.2f", f.perSecond/floor.perSecond)
			}
			fmt.Fprintf(tw, "%s\t%s\t%.0f\t%s\t%.0f\t%.2f\t%.2f\t%.1f\t%.1f\t%.0f\t\n", r.name, server, f.perSecond, ratio,
				f.allocs, float64(f.cpu)/1e6, f.statements, float64(f.p50)/1e6, float64(f.p99)/1e6, float64(f.rss)/(1<<20))
		}
	}
	tw.Flush()
	fmt.Fprintf(w, "\n%s\n", buf.String())
}
