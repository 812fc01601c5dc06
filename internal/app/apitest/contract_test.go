package apitest

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestContractCatchesDrift serves answers that break the OpenAPI document
// in each way the harness must notice (a body's schema, a status the route
// does not answer, a content type, the failure envelope of an unknown path)
// and answers that keep it, and checks that exactly the first are reported.
func TestContractCatchesDrift(t *testing.T) {
	type answer struct {
		method, path, contentType string
		status                    int
		body                      string
		broken                    bool
	}
	answers := []answer{
		{"GET", "/api/v1/store", "application/json; charset=utf-8", 401, `{"status":false,"message":"an API key is required"}`, false},
		{"GET", "/api/v1/store", "application/json; charset=utf-8", 401, `{"status":false,"message":"no key","code":"UNAUTHENTICATED","request_id":"r1"}`, false},
		{"GET", "/api/v1/store/products/7", "application/json", 404, `{"status":false,"message":"no product 7"}`, false},
		{"GET", "/api/v1/nothing/here", "application/json", 404, `{"status":false,"message":"there is no /api/v1/nothing/here"}`, false},
		{"PATCH", "/api/v1/store", "application/json", 405, `{"status":false,"message":"PATCH is not allowed on this path"}`, false},
		{"GET", "/api/v1/store/products/export", "text/csv; charset=utf-8", 200, "handle,title\n", false},
		{"DELETE", "/api/v1/store/products/7", "application/json", 200, `{"status":true}`, false},

		// A field the document does not have.
		{"DELETE", "/api/v1/store/products/7", "application/json", 200, `{"status":true,"deleted":1}`, true},
		// A selected field missing, and a field of the wrong type.
		{"GET", "/api/v1/store/products/handle-available", "application/json", 200, `{"status":true}`, true},
		{"GET", "/api/v1/store/products/handle-available", "application/json", 200, `{"status":true,"available":"yes"}`, true},
		// A status the route does not answer: a read of no record finds none.
		{"GET", "/api/v1/store", "application/json", 404, `{"status":false,"message":"gone"}`, true},
		// The failure envelope with a field it does not have, or without its message.
		{"GET", "/api/v1/store", "application/json", 401, `{"status":false,"message":"no key","errors":[]}`, true},
		{"GET", "/api/v1/nothing/here", "application/json", 404, `{"status":false}`, true},
		// An unknown path that does not answer the envelope.
		{"GET", "/api/v1/nothing/here", "text/plain", 404, "404 page not found", true},
		// A file of a type the route does not give.
		{"GET", "/api/v1/store/products/export", "application/pdf", 200, "%PDF-1.7", true},
	}
	c, err := newContract()
	if err != nil {
		t.Fatal(err)
	}
	var current answer
	srv := httptest.NewServer(c.wrap(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", current.contentType)
		w.WriteHeader(current.status)
		w.Write([]byte(current.body))
	})))
	defer srv.Close()
	for _, a := range answers {
		current = a
		before := len(c.broken())
		req, _ := http.NewRequest(a.method, srv.URL+a.path, nil)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		reported := c.broken()[before:]
		switch {
		case a.broken && len(reported) == 0:
			t.Errorf("%s %s answering %d %s %s passed the contract", a.method, a.path, a.status, a.contentType, a.body)
		case !a.broken && len(reported) > 0:
			t.Errorf("%s %s answering %d %s was reported: %s", a.method, a.path, a.status, a.body, strings.Join(reported, "; "))
		}
	}
}
