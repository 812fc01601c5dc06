package rest

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/go-chi/chi/v5"

	"storeadmin/graph"
	"storeadmin/internal/apperr"
	"storeadmin/internal/failure"
	"storeadmin/internal/jsonbody"
)

// bindRouter routes requests as the adapter does and answers the status of
// what bind returned: 200 with the variables bound, or the error's status
// with its message.
func bindRouter(t testing.TB) (http.Handler, *regexp.Regexp) {
	t.Helper()
	schema := graph.Schema()
	ops, err := loadOperations(schema)
	if err != nil {
		t.Fatal(err)
	}
	r := chi.NewRouter()
	for _, rt := range Routes {
		op := ops[rt.Op]
		r.Method(rt.Method, rt.Path, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if _, err := bind(r, schema, op); err != nil {
				if apperr.CodeOf(err) == apperr.Internal {
					t.Errorf("%s %s: an internal error: %v", rt.Method, rt.Path, err)
				}
				failure.WriteREST(w, err)
				return
			}
			w.WriteHeader(http.StatusOK)
		}))
	}
	return r, regexp.MustCompile(`\{\w+\}`)
}

// bindStatus sends target (a path, percent-encoded, and a query) to h.
// bindStatus sends target (a path, percent-encoded, and a query) to h.
func bindStatus(h http.Handler, method, target string, body []byte) (int, string) {
	u, err := url.Parse(target)
	if err != nil {
		return http.StatusBadRequest, err.Error() // no client can send it
	}
	req := httptest.NewRequest(method, "/", bytes.NewReader(body))
	req.URL = u
	req.Header.Set("Content-Type", "application/json")
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec.Code, rec.Body.String()
}

func TestBindRefusesBadBodiesAndParameters(t *testing.T) {
	h, _ := bindRouter(t)
	for _, c := range []struct {
		method, target, body string
		status               int
		says                 string
	}{
		{"PUT", "/store", `{"name":"a"}}]]`, 400, "more follows"},
		{"PUT", "/store", `{"name":"a"} {"name":"b"}`, 400, "more follows"},
		{"PUT", "/store", `[{"name":"a"}]`, 400, "JSON object"},
		{"PUT", "/store", `{"name":`, 400, "not valid JSON"},
		{"PUT", "/store", `{"name":"` + strings.Repeat("x", jsonbody.MaxBytes) + `"}`, 413, "1 MiB"},
		{"GET", "/store/orders?q=a%00b", "", 400, "q must be plain text"},
		{"GET", "/store/orders?q=a%FFb", "", 400, "q must be plain text"},
		{"GET", "/store/products?vendor=%ED%A0%80", "", 400, "vendor must be plain text"},
		{"DELETE", "/store/webhooks/1%00", "", 400, "id must be plain text"},
		{"PUT", "/store", `{"name":"a"}` + "\n\t ", 200, ""},
		{"PUT", "/store", ``, 400, "body is required"},
	} {
		status, body := bindStatus(h, c.method, c.target, []byte(c.body))
		if status != c.status || !strings.Contains(body, c.says) {
			t.Errorf("%s %s %.40q: %d %s, want %d saying %q", c.method, c.target, c.body, status, body, c.status, c.says)
		}
	}
}

// FuzzBind sends any path parameter, query and body to any route: the
// binder answers a client error or binds, never an internal error and
// never a panic. The seeds run in every go test.
func FuzzBind(f *testing.F) {
	for i, seed := range []struct{ param, query, body string }{
		{"1", "", `{"title":"a\u0000b"}`},
		{"1\x00", "q=%00", ""},
		{"%ff", "q=a%FFb&limit=1e400", "{\"title\":\"a\xffb\"}"},
		{"1", "created_at_min=0000-01-01T00:00:00Z", `{"starts_at":"0000-01-01T00:00:00Z"}`},
		{"1", "", `{"address":{"n":1e400},"value":{"k\u0000":1}}`},
		{"1", "q=" + strings.Repeat("x", 3000), `{"a":1}}]]`},
		{"-1", "status=%ED%A0%80&ids=1,,2", `{"title":"\ud800"}`},
		{"99999999999999999999", "limit=-1&offset=x", `[]`},
		{"1", "", `{"input":{"input":{}}, "id": "7"}`},
	} {
		f.Add(uint8(i*11), seed.param, seed.query, []byte(seed.body))
	}
	h, param := bindRouter(f)
	f.Fuzz(func(t *testing.T, route uint8, p, query string, body []byte) {
		rt := Routes[int(route)%len(Routes)]
		target := param.ReplaceAllLiteralString(rt.Path, url.PathEscape(p))
		if query != "" {
			target += "?" + query
		}
		if status, answer := bindStatus(h, rt.Method, target, body); status >= 500 {
			t.Fatalf("%s %s: %d %s", rt.Method, target, status, answer)
		}
	})
}
