package idempotency_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/uptrace/bun"

	"storeadmin/internal/audit"
	"storeadmin/internal/auth"
	"storeadmin/internal/base/apperr"
	"storeadmin/internal/base/failure"
	"storeadmin/internal/idempotency"
	"storeadmin/internal/testkit/testdb"
	"storeadmin/models"
)

func TestMain(m *testing.M) { testdb.Main(m) }

// clock is a settable time.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) Add(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// env is the middleware over a fake handler, served over HTTP. The caller
// is named by the X-Test-Store and X-Test-Key headers.
type env struct {
	t     *testing.T
	db    *bun.DB
	url   string
	clock *clock
	store int64
	calls atomic.Int64
	// /block announces itself on entered and waits for release.
	entered chan struct{}
	release chan struct{}
	mw      func(http.Handler) http.Handler
}

func newEnv(t *testing.T, tweak ...func(*idempotency.Config)) *env {
	t.Helper()
	db, _ := testdb.New(t)
	e := &env{t: t, db: db, clock: &clock{t: time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)},
		entered: make(chan struct{}, 8), release: make(chan struct{})}
	e.store = e.newStore("acme")
	cfg := idempotency.Config{Now: e.clock.Now, Log: slog.New(slog.NewTextHandler(io.Discard, nil))}
	for _, f := range tweak {
		f(&cfg)
	}
	mux := http.NewServeMux()
	rest := idempotency.Middleware(db, cfg, audit.REST)
	gql := idempotency.Middleware(db, cfg, audit.GraphQL)
	e.mw = rest
	mux.Handle("/graphql", gql(http.HandlerFunc(e.fake)))
	mux.Handle("/", rest(http.HandlerFunc(e.fake)))
	srv := httptest.NewServer(principal(mux))
	t.Cleanup(srv.Close)
	e.url = srv.URL
	return e
}

func (e *env) newStore(handle string) int64 {
	e.t.Helper()
	s := &models.Store{Handle: handle, Name: handle}
	if err := models.CreateStore(context.Background(), e.db, s); err != nil {
		e.t.Fatal(err)
	}
	return s.ID
}

// principal plays requireKey: the caller comes from test headers.
func principal(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		store, _ := strconv.ParseInt(r.Header.Get("X-Test-Store"), 10, 64)
		key, _ := strconv.ParseInt(r.Header.Get("X-Test-Key"), 10, 64)
		kind := auth.KindAPIKey
		if r.Header.Get("X-Test-Kind") != "" {
			kind = auth.Kind(r.Header.Get("X-Test-Kind"))
		}
		p := &auth.Principal{Kind: kind, StoreID: store, ActorID: key, Role: auth.RoleAdmin}
		next.ServeHTTP(w, r.WithContext(auth.WithPrincipal(r.Context(), p)))
	})
}

// fake is the handler: it counts its calls and answers by path with the
// call number and the digest and size of the body it read.
func (e *env) fake(w http.ResponseWriter, r *http.Request) {
	n := e.calls.Add(1)
	body, err := io.ReadAll(r.Body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	sum := sha256.Sum256(body)
	answer := fmt.Sprintf(`{"call":%d,"sha256":%q,"size":%d}`, n, hex.EncodeToString(sum[:]), len(body))
	status := http.StatusCreated
	switch r.URL.Path {
	case "/block":
		e.entered <- struct{}{}
		<-e.release
	case "/fail":
		status = http.StatusInternalServerError
	case "/limited":
		status = http.StatusTooManyRequests
	case "/invalid":
		status = http.StatusUnprocessableEntity
	case "/big":
		w.Header().Set("Content-Type", "text/plain")
		w.WriteHeader(http.StatusOK)
		w.Write(bytes.Repeat([]byte("x"), 4096))
		return
	case "/panic":
		panic("handler failed")
	case "/graphql":
		status = http.StatusOK
		if bytes.Contains(body, []byte("broken")) {
			answer = `{"errors":[{"message":"internal server error","extensions":{"code":"INTERNAL"}}],"data":null}`
		} else if bytes.Contains(body, []byte("taken")) {
			answer = `{"errors":[{"message":"taken","extensions":{"code":"CONFLICT"}}],"data":null}`
		}
	}
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	io.WriteString(w, answer)
}

type call struct {
	method, path, key, body string
	store, apiKey           int64
	headers                 map[string]string
}

type answer struct {
	status int
	header http.Header
	body   string
}

func (e *env) do(c call) answer {
	e.t.Helper()
	if c.method == "" {
		c.method = http.MethodPost
	}
	if c.store == 0 {
		c.store = e.store
	}
	if c.apiKey == 0 {
		c.apiKey = 1
	}
	req, err := http.NewRequest(c.method, e.url+c.path, strings.NewReader(c.body))
	if err != nil {
		e.t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-Test-Store", strconv.FormatInt(c.store, 10))
	req.Header.Set("X-Test-Key", strconv.FormatInt(c.apiKey, 10))
	if c.key != "" {
		req.Header.Set(idempotency.Header, c.key)
	}
	for k, v := range c.headers {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		e.t.Fatalf("%s %s: %v", c.method, c.path, err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		e.t.Fatal(err)
	}
	return answer{status: resp.StatusCode, header: resp.Header, body: string(raw)}
}

func (e *env) rows() int {
	e.t.Helper()
	n, err := e.db.NewSelect().Table("idempotency_keys").Count(context.Background())
	if err != nil {
		e.t.Fatal(err)
	}
	return int(n)
}

func (e *env) wantCalls(n int64) {
	e.t.Helper()
	if got := e.calls.Load(); got != n {
		e.t.Fatalf("handler ran %d times, want %d", got, n)
	}
}

// wantFailure checks a failure envelope.
func wantFailure(t *testing.T, a answer, status int, message string) {
	t.Helper()
	if a.status != status {
		t.Fatalf("status %d, want %d: %s", a.status, status, a.body)
	}
	var env struct {
		Status  *bool  `json:"status"`
		Message string `json:"message"`
	}
	if err := json.Unmarshal([]byte(a.body), &env); err != nil || env.Status == nil || *env.Status {
		t.Fatalf("not a failure envelope: %s", a.body)
	}
	if !strings.Contains(env.Message, message) {
		t.Fatalf("message %q, want it to contain %q", env.Message, message)
	}
}

func wantReplay(t *testing.T, first, again answer) {
	t.Helper()
	if again.status != first.status || again.body != first.body {
		t.Fatalf("replay %d %s, want %d %s", again.status, again.body, first.status, first.body)
	}
	if got, want := again.header.Get("Content-Type"), first.header.Get("Content-Type"); got != want {
		t.Fatalf("replay Content-Type %q, want %q", got, want)
	}
	if again.header.Get(idempotency.ReplayedHeader) != "true" {
		t.Fatalf("replay lacks %s: true", idempotency.ReplayedHeader)
	}
}

func TestIdempotencyReplayRunsHandlerOnce(t *testing.T) {
	e := newEnv(t)
	c := call{path: "/products?x=1", key: "order-42", body: `{"title":"Tee"}`}
	first := e.do(c)
	if first.status != http.StatusCreated || !strings.Contains(first.body, `"call":1`) {
		t.Fatalf("first answer %d %s", first.status, first.body)
	}
	if first.header.Get(idempotency.ReplayedHeader) != "" {
		t.Fatal("the first answer must not say it is replayed")
	}
	for range 3 {
		wantReplay(t, first, e.do(c))
	}
	e.wantCalls(1)
	if e.rows() != 1 {
		t.Fatalf("%d rows, want 1", e.rows())
	}
	// A new key is a new request.
	if a := e.do(call{path: "/products?x=1", key: "order-43", body: `{"title":"Tee"}`}); !strings.Contains(a.body, `"call":2`) {
		t.Fatalf("new key: %s", a.body)
	}
}

func TestIdempotencyDifferentRequestSameKeyConflicts(t *testing.T) {
	e := newEnv(t)
	e.do(call{path: "/products", key: "k1", body: `{"title":"Tee"}`})
	for _, c := range []call{
		{path: "/products", key: "k1", body: `{"title":"Mug"}`},
		{path: "/products", key: "k1", body: `{"title": "Tee"}`}, // bytes count, not meaning
		{path: "/collections", key: "k1", body: `{"title":"Tee"}`},
		{path: "/products?dry_run=1", key: "k1", body: `{"title":"Tee"}`},
		{path: "/products", key: "k1", body: `{"title":"Tee"}`, headers: map[string]string{"Content-Type": "text/csv"}},
	} {
		wantFailure(t, e.do(c), http.StatusConflict, "this Idempotency-Key was used for a different request; use a new key for a new request")
	}
	e.wantCalls(1)
}

func TestIdempotencyInProgressConflicts(t *testing.T) {
	e := newEnv(t)
	c := call{path: "/block", key: "slow", body: `{}`}
	done := make(chan answer, 1)
	go func() { done <- e.do(c) }()
	<-e.entered // the first request holds the key and is running

	a := e.do(c)
	wantFailure(t, a, http.StatusConflict, "a request with this Idempotency-Key is still in progress; retry shortly")
	if a.header.Get("Retry-After") != "1" {
		t.Fatalf("Retry-After = %q, want 1", a.header.Get("Retry-After"))
	}
	// A different request under the busy key is told so, not to wait.
	wantFailure(t, e.do(call{path: "/block", key: "slow", body: `{"other":1}`}), http.StatusConflict, "used for a different request")
	// Four minutes on, the first request is still presumed alive.
	e.clock.Add(4 * time.Minute)
	wantFailure(t, e.do(c), http.StatusConflict, "still in progress")

	close(e.release)
	first := <-done
	if first.status != http.StatusCreated {
		t.Fatalf("first answer %d %s", first.status, first.body)
	}
	wantReplay(t, first, e.do(c))
	e.wantCalls(1)
}

func TestIdempotencyAbandonedReservationIsTakenOver(t *testing.T) {
	e := newEnv(t)
	c := call{path: "/block", key: "crashed", body: `{}`}
	done := make(chan answer, 2)
	go func() { done <- e.do(c) }()
	<-e.entered

	// Past Abandoned, the first request's process is presumed dead.
	e.clock.Add(idempotency.Abandoned + time.Second)
	// A different request does not take the key over.
	wantFailure(t, e.do(call{path: "/block", key: "crashed", body: `{"other":1}`}), http.StatusConflict, "used for a different request")
	// The same request does.
	go func() { done <- e.do(c) }()
	<-e.entered
	close(e.release)
	a, b := <-done, <-done
	if a.status != http.StatusCreated || b.status != http.StatusCreated {
		t.Fatalf("answers %d %s, %d %s", a.status, a.body, b.status, b.body)
	}
	e.wantCalls(2)
	// The answer kept is the retry's (call 2): the first request, whose
	// reservation was taken over, stores nothing when it ends.
	again := e.do(c)
	if again.header.Get(idempotency.ReplayedHeader) != "true" || !strings.Contains(again.body, `"call":2`) {
		t.Fatalf("after take-over: %s (replayed %q)", again.body, again.header.Get(idempotency.ReplayedHeader))
	}
}

func TestIdempotencyServerFailuresAreNotStored(t *testing.T) {
	e := newEnv(t)
	for _, path := range []string{"/fail", "/limited"} {
		e.calls.Store(0)
		c := call{path: path, key: "retry-me", body: `{}`}
		for range 2 {
			if a := e.do(c); a.header.Get(idempotency.ReplayedHeader) != "" {
				t.Fatalf("%s was replayed: %s", path, a.body)
			}
		}
		e.wantCalls(2)
		if e.rows() != 0 {
			t.Fatalf("%s left %d rows", path, e.rows())
		}
	}
}

func TestIdempotencyClientErrorsAreStored(t *testing.T) {
	e := newEnv(t)
	c := call{path: "/invalid", key: "bad-request", body: `{}`}
	first := e.do(c)
	if first.status != http.StatusUnprocessableEntity {
		t.Fatalf("status %d", first.status)
	}
	wantReplay(t, first, e.do(c))
	e.wantCalls(1)
}

func TestIdempotencyPanicReleasesKey(t *testing.T) {
	e := newEnv(t)
	h := e.mw(http.HandlerFunc(e.fake))
	serve := func() (panicked bool) {
		defer func() { panicked = recover() != nil }()
		r := httptest.NewRequest(http.MethodPost, "/panic", strings.NewReader(`{}`))
		r.Header.Set(idempotency.Header, "boom")
		r = r.WithContext(auth.WithPrincipal(r.Context(), &auth.Principal{Kind: auth.KindAPIKey, StoreID: e.store, ActorID: 1}))
		h.ServeHTTP(httptest.NewRecorder(), r)
		return false
	}
	// Twice: a panicking request must not leave its key reserved.
	for range 2 {
		if !serve() {
			t.Fatal("the panic must reach the recoverer")
		}
	}
	e.wantCalls(2)
	if e.rows() != 0 {
		t.Fatalf("%d rows left", e.rows())
	}
}

func TestIdempotencyLargeAnswersAreNotStored(t *testing.T) {
	e := newEnv(t, func(c *idempotency.Config) { c.MaxStoredBody = 1024 })
	c := call{path: "/big", key: "big", body: `{}`}
	for range 2 {
		if a := e.do(c); a.status != http.StatusOK || len(a.body) != 4096 {
			t.Fatalf("answer %d of %d bytes", a.status, len(a.body))
		}
	}
	e.wantCalls(2)
	if e.rows() != 0 {
		t.Fatalf("%d rows left", e.rows())
	}
}

func TestIdempotencyBadKey(t *testing.T) {
	e := newEnv(t)
	for _, key := range []string{strings.Repeat("k", 256), "clé"} {
		wantFailure(t, e.do(call{path: "/products", key: key, body: `{}`}), http.StatusBadRequest, "Idempotency-Key")
	}
	// Go's client refuses to send a control character: serve it directly.
	r := httptest.NewRequest(http.MethodPost, "/products", strings.NewReader(`{}`))
	r.Header.Set(idempotency.Header, "a\x01b")
	r = r.WithContext(auth.WithPrincipal(r.Context(), &auth.Principal{Kind: auth.KindAPIKey, StoreID: e.store, ActorID: 1}))
	w := httptest.NewRecorder()
	e.mw(http.HandlerFunc(e.fake)).ServeHTTP(w, r)
	wantFailure(t, answer{status: w.Code, header: w.Header(), body: w.Body.String()}, http.StatusBadRequest, "printable ASCII")
	// An empty header is sent but holds no key.
	req, _ := http.NewRequest(http.MethodPost, e.url+"/products", strings.NewReader(`{}`))
	req.Header.Set("X-Test-Store", strconv.FormatInt(e.store, 10))
	req.Header.Set("X-Test-Key", "1")
	req.Header[idempotency.Header] = []string{""}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusBadRequest {
		t.Fatalf("empty key: status %d", resp.StatusCode)
	}
	// Two keys are one too many.
	req, _ = http.NewRequest(http.MethodPost, e.url+"/products", strings.NewReader(`{}`))
	req.Header.Set("X-Test-Store", strconv.FormatInt(e.store, 10))
	req.Header.Set("X-Test-Key", "1")
	req.Header[idempotency.Header] = []string{"a", "b"}
	if resp, err = http.DefaultClient.Do(req); err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusBadRequest {
		t.Fatalf("two keys: status %d", resp.StatusCode)
	}
	e.wantCalls(0)

	// The longest key and a key with spaces and punctuation are fine.
	for _, key := range []string{strings.Repeat("k", idempotency.MaxKeyLength), "order 42/retry:1 {~}"} {
		if a := e.do(call{path: "/products", key: key, body: `{}`}); a.status != http.StatusCreated {
			t.Fatalf("key %q: %d %s", key, a.status, a.body)
		}
	}
}

func TestIdempotencyHeaderIgnoredWithoutPOST(t *testing.T) {
	e := newEnv(t)
	for _, m := range []string{http.MethodGet, http.MethodPut, http.MethodDelete} {
		e.do(call{method: m, path: "/products/1", key: "same", body: `{}`})
		e.do(call{method: m, path: "/products/1", key: "same", body: `{}`})
	}
	e.do(call{path: "/products"})
	e.do(call{path: "/products"})
	e.wantCalls(8)
	if e.rows() != 0 {
		t.Fatalf("%d rows", e.rows())
	}
}

func TestIdempotencyKeysAreScopedToStoreAndAPIKey(t *testing.T) {
	e := newEnv(t)
	other := e.newStore("globex")
	callers := []call{
		{apiKey: 1},
		{apiKey: 2},
		{apiKey: 1, store: other},
		{apiKey: 1, headers: map[string]string{"X-Test-Kind": string(auth.KindMCPKey)}},
	}
	var firsts []answer
	for i, c := range callers {
		c.path, c.key, c.body = "/products", "shared-key", `{"title":"Tee"}`
		if i == 1 {
			c.body = `{"title":"Mug"}` // another key's requests are its own business
		}
		callers[i] = c
		a := e.do(c)
		if a.status != http.StatusCreated || !strings.Contains(a.body, fmt.Sprintf(`"call":%d`, i+1)) {
			t.Fatalf("caller %d: %d %s", i, a.status, a.body)
		}
		firsts = append(firsts, a)
	}
	for i, c := range callers {
		wantReplay(t, firsts[i], e.do(c))
	}
	e.wantCalls(int64(len(callers)))
}

func TestIdempotencyExpiredKeysAreSweptAndReusable(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	e.do(call{path: "/products", key: "old", body: `{"title":"Tee"}`})
	e.clock.Add(time.Hour)
	e.do(call{path: "/products", key: "newer", body: `{}`})

	if n, err := idempotency.Sweep(ctx, e.db, e.clock.Now().Add(idempotency.Retention-time.Hour-time.Second)); err != nil || n != 0 {
		t.Fatalf("Sweep before expiry = %d, %v", n, err)
	}
	// 24 hours on, the first answer is still replayed ...
	e.clock.Add(idempotency.Retention - time.Hour - time.Second)
	if a := e.do(call{path: "/products", key: "old", body: `{"title":"Tee"}`}); a.header.Get(idempotency.ReplayedHeader) != "true" {
		t.Fatalf("not replayed within retention: %s", a.body)
	}
	// ... and then it expires: the key is free even before a sweep.
	e.clock.Add(time.Second)
	if a := e.do(call{path: "/products", key: "old", body: `{"title":"Mug"}`}); a.status != http.StatusCreated || a.header.Get(idempotency.ReplayedHeader) != "" {
		t.Fatalf("expired key: %d %s", a.status, a.body)
	}
	e.wantCalls(3)

	if n, err := idempotency.Sweep(ctx, e.db, e.clock.Now().Add(time.Hour)); err != nil || n != 1 {
		t.Fatalf("Sweep = %d, %v; want 1 (newer)", n, err)
	}
	if n, err := idempotency.Sweep(ctx, e.db, e.clock.Now().Add(idempotency.Retention)); err != nil || n != 1 {
		t.Fatalf("Sweep = %d, %v; want 1 (the reused key)", n, err)
	}
	if e.rows() != 0 {
		t.Fatalf("%d rows left", e.rows())
	}
}

func multipartBody(t *testing.T, boundary string, file []byte) (string, []byte) {
	t.Helper()
	var buf bytes.Buffer
	w := multipart.NewWriter(&buf)
	if err := w.SetBoundary(boundary); err != nil {
		t.Fatal(err)
	}
	w.WriteField("note", "spring range")
	fw, err := w.CreateFormFile("file", "products.csv")
	if err != nil {
		t.Fatal(err)
	}
	fw.Write(file)
	w.Close()
	return w.FormDataContentType(), buf.Bytes()
}

func TestIdempotencyLargeMultipartBodies(t *testing.T) {
	dir := t.TempDir()
	e := newEnv(t, func(c *idempotency.Config) { c.TempDir = dir })
	file := bytes.Repeat([]byte("Handle,Title\ntee,Tee\n"), 150_000) // 3 MiB: spooled to disk
	ct, body := multipartBody(t, "first-boundary", file)
	c := call{path: "/import", key: "import-1", body: string(body), headers: map[string]string{"Content-Type": ct}}
	first := e.do(c)
	sum := sha256.Sum256(body)
	if first.status != http.StatusCreated || !strings.Contains(first.body, hex.EncodeToString(sum[:])) {
		t.Fatalf("the handler did not read the body as sent: %s", first.body)
	}
	// A retry rebuilt by the client draws a new boundary: same request.
	ct2, body2 := multipartBody(t, "second-boundary", file)
	wantReplay(t, first, e.do(call{path: "/import", key: "import-1", body: string(body2), headers: map[string]string{"Content-Type": ct2}}))
	// Other content is another request.
	changed := append(bytes.Clone(file), "mug,Mug\n"...)
	ct3, body3 := multipartBody(t, "first-boundary", changed)
	wantFailure(t, e.do(call{path: "/import", key: "import-1", body: string(body3), headers: map[string]string{"Content-Type": ct3}}),
		http.StatusConflict, "different request")
	e.wantCalls(1)
	if left, _ := os.ReadDir(dir); len(left) != 0 {
		t.Fatalf("spooled bodies left behind: %v", left)
	}
}

func TestIdempotencyGraphQLQueriesIgnoreKeyMutationsReplay(t *testing.T) {
	e := newEnv(t)
	gql := func(doc, opName, key string) answer {
		body, _ := json.Marshal(map[string]any{"query": doc, "operationName": opName})
		return e.do(call{path: "/graphql", key: key, body: string(body)})
	}
	gql("{ store { name } }", "", "q")
	gql("{ store { name } }", "", "q")
	gql("query A { store { name } } mutation B { x }", "A", "q2")
	gql("query A { store { name } } mutation B { x }", "A", "q2")
	e.wantCalls(4)

	first := gql("query A { store { name } } mutation B { x }", "B", "m")
	wantReplay(t, first, gql("query A { store { name } } mutation B { x }", "B", "m"))
	e.wantCalls(5)

	// A GraphQL answer failing for the server's reasons is not stored ...
	gql(`mutation { broken }`, "", "m2")
	gql(`mutation { broken }`, "", "m2")
	e.wantCalls(7)
	// ... one failing for the request's is.
	first = gql(`mutation { taken }`, "", "m3")
	wantReplay(t, first, gql(`mutation { taken }`, "", "m3"))
	e.wantCalls(8)
}

func TestIdempotencyFailuresInTheSurfacesShape(t *testing.T) {
	db, _ := testdb.New(t)
	h := failure.Mark(failure.GraphQL)(idempotency.Middleware(db, idempotency.Config{}, audit.GraphQL)(http.NotFoundHandler()))
	r := httptest.NewRequest(http.MethodPost, "/graphql", strings.NewReader(`{}`))
	r.Header.Set(idempotency.Header, "")
	r = r.WithContext(auth.WithPrincipal(r.Context(), &auth.Principal{Kind: auth.KindAPIKey, StoreID: 1, ActorID: 1}))
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	var body struct {
		Errors []struct {
			Extensions struct{ Code string } `json:"extensions"`
		} `json:"errors"`
	}
	if err := json.Unmarshal(w.Body.Bytes(), &body); err != nil || w.Code != http.StatusBadRequest ||
		len(body.Errors) != 1 || body.Errors[0].Extensions.Code != string(apperr.Invalid) {
		t.Fatalf("status %d, body %s", w.Code, w.Body)
	}
}
