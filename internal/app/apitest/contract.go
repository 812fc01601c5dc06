package apitest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/go-chi/chi/v5"

	"storeadmin/graph"
	"storeadmin/rest"
	"storeadmin/rest/openapi"
)

// The contract: every answer the service gives under /api/v1, to any
// request of any test, must be one the OpenAPI document describes (its
// status among the route's, its content type, its body's schema). The
// harness checks each answer as it is written and fails the test at its
// end, so the document and the service cannot drift apart unnoticed.
// Benchmarks are not checked: they measure the service, not the document.

// maxCheckedBody bounds the bytes of an answer kept for its check; a
// larger JSON answer is reported, as no route should give one in a test.
const maxCheckedBody = 16 << 20

// contractDoc is the document, loaded once per test binary.
var contractDoc = sync.OnceValues(func() (*openapi3.T, error) {
	raw, err := openapi.Document(graph.Schema(), rest.Routes)
	if err != nil {
		return nil, err
	}
	doc, err := openapi3.NewLoader().LoadFromData(raw)
	if err != nil {
		return nil, err
	}
	return doc, doc.Validate(context.Background())
})

// contract checks the answers of one Env's service.
type contract struct {
	doc *openapi3.T
	// paths finds a request's documented path, as the service's router
	// would: static segments before parameters.
	paths *chi.Mux

	mu       sync.Mutex
	problems []string
}

// checkContract wraps the service's handler so that its answers are
// checked, and fails t when it ends for every answer that broke the
// contract.
func checkContract(t testing.TB, next http.Handler) http.Handler {
	if _, bench := t.(*testing.B); bench {
		return next
	}
	c, err := newContract()
	if err != nil {
		t.Fatalf("the OpenAPI document: %v", err)
	}
	t.Cleanup(func() {
		for _, p := range c.broken() {
			t.Errorf("an answer is not as the OpenAPI document says: %s", p)
		}
	})
	return c.wrap(next)
}

func newContract() (*contract, error) {
	doc, err := contractDoc()
	if err != nil {
		return nil, err
	}
	c := &contract{doc: doc, paths: chi.NewRouter()}
	for path, item := range doc.Paths.Map() {
		for method := range item.Operations() {
			c.paths.MethodFunc(method, path, func(http.ResponseWriter, *http.Request) {})
		}
	}
	return c, nil
}

// wrap checks each answer of next under /api/v1 once it is written.
func (c *contract) wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		path, ok := strings.CutPrefix(r.URL.Path, "/api/v1")
		// The reference page's scripts and styles are the page's, not the
		// API's; CORS preflights and HEAD are answered by the router.
		asset := strings.HasPrefix(path, openapi.DocsPath+"/assets/")
		if !ok || (path != "" && path[0] != '/') || asset || r.Method == http.MethodOptions || r.Method == http.MethodHead {
			next.ServeHTTP(w, r)
			return
		}
		rec := &recorder{ResponseWriter: w}
		next.ServeHTTP(rec, r)
		if err := c.check(r, path, rec); err != nil {
			c.mu.Lock()
			c.problems = append(c.problems, fmt.Sprintf("%s %s answered %d %s: %v", r.Method, r.URL.RequestURI(), rec.status, clip(rec.body.Bytes()), err))
			c.mu.Unlock()
		}
	})
}

// broken are the answers that broke the contract so far, described.
func (c *contract) broken() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]string(nil), c.problems...)
}

// check checks one answer to r, whose path under /api/v1 is path.
func (c *contract) check(r *http.Request, path string, rec *recorder) error {
	if rec.status == 0 || rec.status == http.StatusNotModified {
		return nil // no answer (the client went away), or the client's copy
	}
	ctx := context.Background()
	rctx := chi.NewRouteContext()
	pattern := c.paths.Find(rctx, r.Method, path)
	if pattern == "" {
		// Not a route: the 404 or 405 failure envelope.
		if rec.status != http.StatusNotFound && rec.status != http.StatusMethodNotAllowed {
			return fmt.Errorf("a path and method the document does not have must answer 404 or 405")
		}
		if !isJSON(rec.header) {
			return fmt.Errorf("content type %q, want application/json", rec.header.Get("Content-Type"))
		}
		return c.doc.Components.Schemas["Failure"].Value.VisitJSON(decode(rec.body.Bytes()), openapi3.EnableJSONSchema2020())
	}
	item := c.doc.Paths.Find(pattern)
	params := map[string]string{}
	for i, k := range rctx.URLParams.Keys {
		params[k] = rctx.URLParams.Values[i]
	}
	route := &routers.Route{Spec: c.doc, Path: pattern, PathItem: item, Method: r.Method, Operation: item.GetOperation(r.Method)}
	req := r.Clone(ctx)
	req.Body = http.NoBody
	in := &openapi3filter.ResponseValidationInput{
		RequestValidationInput: &openapi3filter.RequestValidationInput{Request: req, PathParams: params, Route: route},
		Status:                 rec.status,
		Header:                 rec.header,
		Body:                   io.NopCloser(bytes.NewReader(rec.body.Bytes())),
		Options:                &openapi3filter.Options{IncludeResponseStatus: true, MultiError: true},
	}
	if isJSON(rec.header) {
		if rec.truncated {
			return fmt.Errorf("a JSON answer over %d bytes", maxCheckedBody)
		}
		return openapi3filter.ValidateResponse(ctx, in)
	}
	// A file: its status and headers, and a content type the route
	// documents; its bytes are the file's own.
	in.Options.ExcludeResponseBody = true
	if err := openapi3filter.ValidateResponse(ctx, in); err != nil {
		return err
	}
	resp := route.Operation.Responses.Status(rec.status)
	if resp == nil || resp.Value.Content.Get(rec.header.Get("Content-Type")) == nil {
		return fmt.Errorf("content type %q is not one the document gives this answer", rec.header.Get("Content-Type"))
	}
	return nil
}

func isJSON(h http.Header) bool {
	mt, _, _ := mime.ParseMediaType(h.Get("Content-Type"))
	return mt == "application/json"
}

func decode(body []byte) any {
	var v any
	if err := json.Unmarshal(body, &v); err != nil {
		return string(body)
	}
	return v
}

// clip is an answer's start, for a failure message.
func clip(body []byte) string {
	if len(body) > 300 {
		return string(body[:300]) + "..."
	}
	return string(body)
}

// recorder keeps the status, headers and body of an answer while writing
// it through.
type recorder struct {
	http.ResponseWriter
	status    int
	header    http.Header
	body      bytes.Buffer
	truncated bool
}

func (w *recorder) WriteHeader(status int) {
	if w.status == 0 {
		w.status = status
		w.header = w.ResponseWriter.Header().Clone()
	}
	w.ResponseWriter.WriteHeader(status)
}

func (w *recorder) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.WriteHeader(http.StatusOK)
	}
	if room := maxCheckedBody - w.body.Len(); room < len(b) {
		w.truncated = true
		w.body.Write(b[:max(room, 0)])
	} else {
		w.body.Write(b)
	}
	return w.ResponseWriter.Write(b)
}

// Unwrap lets http.ResponseController reach the connection.
func (w *recorder) Unwrap() http.ResponseWriter { return w.ResponseWriter }
