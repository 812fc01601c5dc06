// Package apitest drives the whole service over real HTTP against a real,
// freshly migrated PostgreSQL database, for the black-box tests of every
// endpoint: it makes stores and keys, calls REST and GraphQL, and compares
// the two surfaces.
//
// Test packages that use it must call testdb.Main from TestMain.
package apitest

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/uptrace/bun"

	"storeadmin/graph"
	"storeadmin/internal/app/server"
	"storeadmin/internal/auth"
	"storeadmin/internal/base/apperr"
	"storeadmin/internal/base/database"
	"storeadmin/internal/base/geoip"
	"storeadmin/internal/base/metrics"
	"storeadmin/internal/base/requestid"
	"storeadmin/internal/billing"
	"storeadmin/internal/domains"
	"storeadmin/internal/events"
	"storeadmin/internal/idempotency"
	"storeadmin/internal/media"
	"storeadmin/internal/previews"
	"storeadmin/internal/recovery"
	"storeadmin/internal/retention"
	"storeadmin/internal/storefront"
	"storeadmin/internal/testkit/testdb"
	"storeadmin/models"
	"storeadmin/rest"
)

// Env is one service with its own database.
type Env struct {
	T      testing.TB
	DB     *bun.DB
	URL    string // base URL of the service
	Config server.Config
	Media  *media.Media
	// Events is the service's events engine, configured by EventsConfig
	// and started unless WithoutEventWorkers.
	Events *events.Engine
	// Recovery is the service's recovery reminders: tests run its
	// sequence with their own clock (RunDue).
	Recovery *recovery.Service
	stores   atomic.Int64
}

// Option adjusts the service before it starts.
type Option func(*setup)

// setup is what the options adjust: the service's configuration, and
// whether its events engine runs workers.
type setup struct {
	server.Config
	domains    domains.Config
	smtpURL    string
	idleEvents bool
	log        slog.Handler     // nil: discarded (shown at WARN with -v)
	db         *bun.DB          // nil: a fresh test database
	now        func() time.Time // nil: time.Now
}

// StartEventWorkers starts another events engine on the service's
// database, as the next serve process would after a crash, with the
// periodic work given (a job runs once that engine's River client is
// leader), and stops it when the test ends.
func (e *Env) StartEventWorkers(work ...events.Work) {
	t := e.T
	t.Helper()
	cfg := EventsConfig(nil)
	cfg.Work = work
	next, err := events.New(e.DB, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := next.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		if err := next.Stop(ctx); err != nil {
			t.Errorf("stop events: %v", err)
		}
	})
}

// WithLog sends the service's log (and its events engine's) to h, behind
// the same outage filter serve puts in front of its log.
func WithLog(h slog.Handler) Option { return func(s *setup) { s.log = h } }

// WithDatabase serves from db, a migrated database the test owns (to stop
// its server, say), instead of a fresh one.
func WithDatabase(db *bun.DB) Option { return func(s *setup) { s.db = db } }

// WithClock makes now the server's clock (its resolvers, the storefront
// surface, the key check) instead of time.Now: a test that reads figures
// of "now" or "today" fixes it, so two calls see the same instant.
func WithClock(now func() time.Time) Option { return func(s *setup) { s.now = now } }

// WithRateLimit sets the requests per key per minute.
func WithRateLimit(n int) Option { return func(s *setup) { s.RateLimit = n } }

// WithGraphQLTimeout sets how long one GraphQL operation may run.
func WithGraphQLTimeout(d time.Duration) Option { return func(s *setup) { s.GraphQLTimeout = d } }

// WithCountryHeader names the trusted country header.
func WithCountryHeader(h string) Option { return func(s *setup) { s.Audit.CountryHeader = h } }

// WithClientIPHeader trusts h (X-Forwarded-For, say) for the client's
// address, as --client-ip-header does: tests name shoppers' addresses with it.
func WithClientIPHeader(h string) Option { return func(s *setup) { s.Audit.ClientIPHeader = h } }

// WithStorefront sets the storefront surface's rate limit per shopper
// address (0: the default), its configured origins, its GeoIP database and
// its IP policy.
func WithStorefront(rateLimit int, origins []string, geo *geoip.DB, ip storefront.IPPolicy) Option {
	return func(s *setup) {
		s.StorefrontRateLimit, s.StorefrontOrigins, s.GeoIP, s.StorefrontIP = rateLimit, origins, geo, ip
	}
}

// WithDNSResolver sends the custom domains' DNS look-ups to addr, a
// testdns server, each check bounded by timeout (0: domains.DefaultTimeout).
func WithDNSResolver(addr string, timeout time.Duration) Option {
	return func(s *setup) { s.domains.Resolver, s.domains.Timeout = addr, timeout }
}

// DomainsConfig is the platform of the tests' custom domains: its own
// domain platform.test, CNAMEs to shops.platform.test, apex domains to
// 192.0.2.10 and 2001:db8::10. Its resolver is on loopback, port 1, where
// nothing answers: tests that check domains start a testdns server
// (WithDNSResolver), and no test asks the machine's resolver.
func DomainsConfig() domains.Config {
	return domains.Config{
		PlatformDomain: "platform.test",
		TargetIPv4:     []netip.Addr{netip.MustParseAddr("192.0.2.10")},
		TargetIPv6:     []netip.Addr{netip.MustParseAddr("2001:db8::10")},
		Resolver:       "127.0.0.1:1",
	}
}

// WithSMTP sends the service's mail through the SMTP server at url (tests
// run one on loopback); without it, mail goes to the outbox.
func WithSMTP(url string) Option { return func(s *setup) { s.smtpURL = url } }

// WithBilling makes p the service's billing provider (tests run a
// Stripe-compatible server on loopback).
func WithBilling(p *billing.Provider) Option { return func(s *setup) { s.Billing = p } }

// WithEventsRetention keeps storefront events for horizon, as serve
// --events-retention does: the purge job runs when the events engine
// starts, and activity logs say what it purged. Default: 0, for ever.
func WithEventsRetention(horizon time.Duration) Option {
	return func(s *setup) { s.EventsRetention = horizon }
}

// WithoutEventWorkers leaves the events engine unstarted: changes still
// record their events and schedule deliveries, but nothing is sent until the
// test starts an engine (e.Events, or another one on e.DB), as when the
// process that committed a change dies before delivering it.
func WithoutEventWorkers() Option { return func(s *setup) { s.idleEvents = true } }

// WithPlatform makes p what the deployment allows every store, as serve
// --surcharges does.
func WithPlatform(p models.Platform) Option { return func(s *setup) { s.Platform = p } }

// WithPrivateWebhooksRefused refuses webhook targets that are not public,
// as serve does without STOREADMIN_WEBHOOK_ALLOW_PRIVATE.
func WithPrivateWebhooksRefused() Option {
	return func(s *setup) { s.AllowPrivateWebhooks = false }
}

// EventsConfig is the events engine of the tests: loopback targets allowed,
// retries after 5 ms, workers polling every 20 ms.
func EventsConfig(log *slog.Logger) events.Config {
	return events.Config{
		AllowPrivate:      true,
		Backoff:           func(int) time.Duration { return 5 * time.Millisecond },
		FetchPollInterval: 20 * time.Millisecond,
		Timeout:           5 * time.Second,
		Workers:           4,
		Log:               log,
	}
}

// New starts the service on a fresh database. Webhook targets on loopback
// are allowed, as STOREADMIN_WEBHOOK_ALLOW_PRIVATE=1 does.
func New(t testing.TB, opts ...Option) *Env {
	t.Helper()
	// The listener comes first: signed upload and download URLs must point
	// at this very server.
	hs := httptest.NewUnstartedServer(nil)
	base := "http://" + hs.Listener.Addr().String()
	files, err := media.Open(context.Background(), media.Config{BucketURL: "file://" + filepath.ToSlash(t.TempDir()), PublicURL: base, SigningKey: []byte(strings.Repeat("k", 32))}, time.Now)
	if err != nil {
		t.Fatalf("media.Open: %v", err)
	}
	st := setup{Config: server.Config{RateLimit: 100000, AllowPrivateWebhooks: true, PublicURL: base, Media: files}, domains: DomainsConfig()}
	for _, o := range opts {
		o(&st)
	}
	db := st.db
	if db == nil {
		db, _ = testdb.New(t)
	}
	h := st.log
	switch {
	case h != nil:
	case testing.Verbose():
		h = slog.NewTextHandler(testWriter{t}, &slog.HandlerOptions{Level: slog.LevelWarn})
	default:
		h = slog.DiscardHandler
	}
	watch, stopWatch := context.WithCancel(context.Background())
	t.Cleanup(stopWatch)
	log := slog.New(database.QuietOutages(watch, h, db.DB))
	st.Metrics = metrics.New()
	st.domains.Log = log
	if st.Domains, err = domains.New(st.domains); err != nil {
		t.Fatalf("domains.New: %v", err)
	}
	if st.Recovery, err = recovery.Open(context.Background(), db, st.smtpURL, st.domains.PlatformDomain, base, log); err != nil {
		t.Fatalf("recovery: %v", err)
	}
	if st.Previews, err = previews.Open(context.Background(), db); err != nil {
		t.Fatalf("previews: %v", err)
	}
	st.Events = startEvents(t, db, log, st.Metrics, !st.idleEvents,
		st.Domains.Work(db, time.Now), retention.Work(db, st.EventsRetention, time.Now, log), st.Recovery.Work(db, time.Now))
	cfg := st.Config
	now := st.now
	if now == nil {
		now = time.Now
	}
	srv, err := server.New(db, cfg, log, now)
	if err != nil {
		t.Fatalf("server.New: %v", err)
	}
	t.Cleanup(func() { srv.Close() }) // after the HTTP server: its API key listener
	hs.Config.Handler = checkContract(t, srv)
	hs.Start()
	t.Cleanup(hs.Close)
	return &Env{T: t, DB: db, URL: hs.URL, Config: cfg, Media: files, Events: cfg.Events, Recovery: cfg.Recovery}
}

// Statements says how many SQL statements have run on the service's
// database so far (by the service, its events engine and the test alike,
// counted at the driver: database.Statements); the statement-count tests
// compare it before and after a call.
func (e *Env) Statements() int64 { return database.Statements(e.DB.DB) }

// startEvents builds the events engine on db, counting into counts and
// running work beside the deliveries (as serve runs the domains' periodic
// check, the events retention and the recovery sequence), starts it if
// start, and stops it when the test ends (before the database goes).
func startEvents(t testing.TB, db *bun.DB, log *slog.Logger, counts *metrics.Metrics, start bool, work ...events.Work) *events.Engine {
	t.Helper()
	cfg := EventsConfig(log)
	cfg.Metrics = counts
	cfg.Work = work
	e, err := events.New(db, cfg)
	if err != nil {
		t.Fatalf("events.New: %v", err)
	}
	if start {
		if err := e.Start(context.Background()); err != nil {
			t.Fatalf("start events: %v", err)
		}
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		if err := e.Stop(ctx); err != nil {
			t.Errorf("stop events: %v", err)
		}
	})
	return e
}

type testWriter struct{ t testing.TB }

func (w testWriter) Write(p []byte) (int, error) {
	w.t.Log(strings.TrimSpace(string(p)))
	return len(p), nil
}

// Store creates a store and returns it.
func (e *Env) Store(name string) *models.Store {
	e.T.Helper()
	n := e.stores.Add(1)
	s := &models.Store{Handle: strings.ToLower(strings.ReplaceAll(name, " ", "-")) + "-" + strconv.FormatInt(n, 10), Name: name}
	if err := models.CreateStore(context.Background(), e.DB, s); err != nil {
		e.T.Fatalf("create store: %v", err)
	}
	return s
}

// Key creates an API key of the store and returns its secret.
func (e *Env) Key(storeID int64, role auth.Role, scopes ...string) string {
	e.T.Helper()
	k, err := auth.NewAPIKey(storeID, "test "+string(role)+" "+strings.Join(scopes, ","), role, scopes, nil, time.Now())
	if err != nil {
		e.T.Fatalf("new key: %v", err)
	}
	if err := models.CreateAPIKey(context.Background(), e.DB, k); err != nil {
		e.T.Fatalf("create key: %v", err)
	}
	return *k.Key
}

// PublishableKey creates a publishable storefront key of the store and
// returns its secret.
func (e *Env) PublishableKey(storeID int64) string {
	e.T.Helper()
	k, err := auth.NewPublishableKey(storeID, "test storefront", nil, time.Now())
	if err != nil {
		e.T.Fatalf("new publishable key: %v", err)
	}
	if err := models.CreateAPIKey(context.Background(), e.DB, k); err != nil {
		e.T.Fatalf("create key: %v", err)
	}
	return *k.Key
}

// Storefront calls the storefront surface: path is relative to
// /storefront/v1, key (when not empty) goes in X-Storefront-Key, and body
// is sent as Do sends it.
func (e *Env) Storefront(method, path, key string, body any, headers map[string]string) *Response {
	e.T.Helper()
	h := map[string]string{}
	if key != "" {
		h["X-Storefront-Key"] = key
	}
	for k, v := range headers {
		h[k] = v
	}
	return e.request(method, e.URL+"/storefront/v1"+path, "", body, h)
}

// Response is a decoded answer.
type Response struct {
	Status int
	Header http.Header
	Raw    []byte
	Body   map[string]any
}

// Do calls the REST surface: path is relative to /api/v1; body, when not
// nil, is sent as JSON (a string or []byte is sent as it is).
func (e *Env) Do(method, path, key string, body any) *Response {
	e.T.Helper()
	return e.request(method, e.URL+"/api/v1"+path, key, body, nil)
}

// DoHeaders is Do with extra request headers.
func (e *Env) DoHeaders(method, path, key string, body any, headers map[string]string) *Response {
	e.T.Helper()
	return e.request(method, e.URL+"/api/v1"+path, key, body, headers)
}

// GraphQL posts a query to /graphql.
func (e *Env) GraphQL(key, query string, vars map[string]any) *Response {
	e.T.Helper()
	return e.request(http.MethodPost, e.URL+"/graphql", key, map[string]any{"query": query, "variables": vars}, nil)
}

// GraphQLRaw posts body to /graphql as it is, as JSON.
func (e *Env) GraphQLRaw(key, body string) *Response {
	e.T.Helper()
	return e.request(http.MethodPost, e.URL+"/graphql", key, body, nil)
}

// GraphQLOp posts a query with an operation name (may be empty) and extra
// request headers to /graphql.
func (e *Env) GraphQLOp(key, query, opName string, vars map[string]any, headers map[string]string) *Response {
	e.T.Helper()
	body := map[string]any{"query": query, "variables": vars}
	if opName != "" {
		body["operationName"] = opName
	}
	return e.request(http.MethodPost, e.URL+"/graphql", key, body, headers)
}

func (e *Env) request(method, url, key string, body any, headers map[string]string) *Response {
	e.T.Helper()
	var rd io.Reader
	switch b := body.(type) {
	case nil:
	case string:
		rd = strings.NewReader(b)
	case []byte:
		rd = bytes.NewReader(b)
	default:
		buf, err := json.Marshal(b)
		if err != nil {
			e.T.Fatalf("encode body: %v", err)
		}
		rd = bytes.NewReader(buf)
	}
	req, err := http.NewRequest(method, url, rd)
	if err != nil {
		e.T.Fatalf("new request: %v", err)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		e.T.Fatalf("%s %s: %v", method, url, err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		e.T.Fatalf("read body: %v", err)
	}
	out := &Response{Status: resp.StatusCode, Header: resp.Header, Raw: raw}
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "application/json") {
		if err := json.Unmarshal(raw, &out.Body); err != nil {
			e.T.Fatalf("%s %s: answer is not a JSON object: %v\n%s", method, url, err, raw)
		}
	}
	return out
}

// Expect fails the test unless the answer has status; for failures it also
// checks the envelope: status false and a message.
func (r *Response) Expect(t testing.TB, status int) *Response {
	t.Helper()
	if r.Status != status {
		t.Fatalf("status %d, want %d; body: %s", r.Status, status, r.Raw)
	}
	if r.Body != nil && status >= 400 && r.Body["errors"] == nil {
		r.expectFailureEnvelope(t)
	}
	if r.Body != nil && status < 300 && r.Body["errors"] == nil && r.Body["status"] != true {
		t.Fatalf("success envelope must have status true, got %s", r.Raw)
	}
	return r
}

// expectFailureEnvelope fails the test unless the body is the failure
// envelope: status false, a message, the code of the answer's status, the
// field at fault only when there is one (and the message names it), and
// the request id of the X-Request-Id header (a replayed answer is the
// stored body of the first request, whose id it names); nothing else.
func (r *Response) expectFailureEnvelope(t testing.TB) {
	t.Helper()
	code, _ := r.Body["code"].(string)
	msg, _ := r.Body["message"].(string)
	field, hasField := r.Body["field"].(string)
	id, _ := r.Body["request_id"].(string)
	want := 4
	if hasField {
		want = 5
	}
	switch {
	case len(r.Body) != want || r.Body["status"] != false || msg == "":
		t.Fatalf("failure envelope must be exactly {status:false, message, code, [field,] request_id}, got %s", r.Raw)
	case apperr.Code(code).HTTPStatus() != r.Status:
		t.Fatalf("envelope code %q is not one of status %d: %s", code, r.Status, r.Raw)
	case hasField && (field == "" || !strings.HasPrefix(msg, field+" ")):
		t.Fatalf("envelope field %q must lead its message: %s", field, r.Raw)
	case id == "" || (id != r.Header.Get(requestid.Header) && r.Header.Get(idempotency.ReplayedHeader) != "true"):
		t.Fatalf("envelope request_id %q must be the X-Request-Id header %q: %s", id, r.Header.Get(requestid.Header), r.Raw)
	}
}

// Call is one REST request of a table of them.
type Call struct {
	Method, Path string
	Body         any
}

// ExpectEach sends every call with every key (named, for the failure
// message) and fails unless each answers status, envelope included.
func (e *Env) ExpectEach(t testing.TB, status int, keys map[string]string, calls []Call) {
	t.Helper()
	for name, key := range keys {
		for _, c := range calls {
			r := e.Do(c.Method, c.Path, key, c.Body)
			if r.Status != status {
				t.Fatalf("%s %s with %s: status %d, want %d; body: %s", c.Method, c.Path, name, r.Status, status, r.Raw)
			}
			r.Expect(t, status)
		}
	}
}

// Message is the failure message of a REST answer.
func (r *Response) Message() string {
	s, _ := r.Body["message"].(string)
	return s
}

// Obj returns the object at key of the body.
func (r *Response) Obj(key string) map[string]any {
	m, _ := r.Body[key].(map[string]any)
	return m
}

// List returns the array at key of the body.
func (r *Response) List(key string) []any {
	l, _ := r.Body[key].([]any)
	return l
}

// Data is the data object of a GraphQL answer.
func (r *Response) Data() map[string]any {
	m, _ := r.Body["data"].(map[string]any)
	return m
}

// ErrorCode is the extensions.code of the first GraphQL error, or "".
func (r *Response) ErrorCode() string {
	errs, _ := r.Body["errors"].([]any)
	if len(errs) == 0 {
		return ""
	}
	first, _ := errs[0].(map[string]any)
	ext, _ := first["extensions"].(map[string]any)
	code, _ := ext["code"].(string)
	return code
}

// SameOnGraphQL sends the persisted operation op with vars to POST /graphql
// and fails unless its data equals the REST payload rest (the REST body less
// "status" and, for spread routes, as the one root field's object).
func (e *Env) SameOnGraphQL(t testing.TB, restResp *Response, key, op string, vars map[string]any) {
	t.Helper()
	text, err := rest.OperationText(graph.Schema(), op)
	if err != nil {
		t.Fatal(err)
	}
	g := e.GraphQL(key, text, vars)
	if g.Status != http.StatusOK || g.Body["errors"] != nil {
		t.Fatalf("GraphQL %s failed: %s", op, g.Raw)
	}
	want := map[string]any{}
	for k, v := range restResp.Body {
		if k != "status" {
			want[k] = v
		}
	}
	got := g.Data()
	if len(got) == 1 && len(want) != 1 {
		for _, v := range got { // a spread route
			got, _ = v.(map[string]any)
		}
	}
	if !reflect.DeepEqual(got, want) {
		gj, _ := json.Marshal(got)
		wj, _ := json.Marshal(want)
		t.Fatalf("REST and GraphQL disagree on %s:\nREST:    %s\nGraphQL: %s", op, wj, gj)
	}
}
