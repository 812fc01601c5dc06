package apitest_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"storeadmin/internal/app/apitest"
	"storeadmin/internal/auth"
	"storeadmin/models"
)

func TestStoreProfile(t *testing.T) {
	e := apitest.New(t)
	s := e.Store("Acme")
	admin := e.Key(s.ID, auth.RoleAdmin)
	staff := e.Key(s.ID, auth.RoleStaff)
	noScope := e.Key(s.ID, auth.RoleAdmin, "orders:read")

	r := e.Do(http.MethodGet, "/store", admin, nil).Expect(t, 200)
	if r.Body["store_id"] != float64(s.ID) || r.Body["role"] != "admin" || r.Obj("store")["handle"] != s.Handle {
		t.Fatalf("GET /store: %s", r.Raw)
	}
	e.SameOnGraphQL(t, r, admin, "GetStore", nil)

	e.Do(http.MethodGet, "/store", "", nil).Expect(t, 401)
	e.Do(http.MethodGet, "/store", "sa_api_nope", nil).Expect(t, 401)
	e.Do(http.MethodGet, "/store", noScope, nil).Expect(t, 403)
	e.Do(http.MethodGet, "/store", staff, nil).Expect(t, 200)

	up := e.Do(http.MethodPut, "/store", admin, map[string]any{"name": "Acme Ltd", "currency": "eur", "timezone": "Europe/Berlin", "address": map[string]any{"city": "Berlin"}}).Expect(t, 200)
	if st := up.Obj("store"); st["name"] != "Acme Ltd" || st["currency"] != "EUR" || st["timezone"] != "Europe/Berlin" {
		t.Fatalf("PUT /store: %s", up.Raw)
	}
	e.Do(http.MethodPut, "/store", staff, map[string]any{"name": "x"}).Expect(t, 403)
	for _, bad := range []any{
		map[string]any{"currency": "XXQ"},
		map[string]any{"timezone": "Mars/Olympus"},
		map[string]any{"weight_unit": "stone"},
		map[string]any{"contact_email": "not-an-email"},
		map[string]any{"name": ""},
		map[string]any{"address": "a string"},
		`{"name": `,
		`[1,2]`,
	} {
		e.Do(http.MethodPut, "/store", admin, bad).Expect(t, 400)
	}

	off := e.Do(http.MethodPut, "/store/storefront-enabled", admin, map[string]any{"enabled": false}).Expect(t, 200)
	if off.Obj("store")["storefront_enabled"] != false {
		t.Fatalf("storefront-enabled: %s", off.Raw)
	}
	e.Do(http.MethodPut, "/store/storefront-enabled", admin, map[string]any{}).Expect(t, 400)
	e.Do(http.MethodPut, "/store/storefront-enabled", admin, map[string]any{"enabled": "yes"}).Expect(t, 400)

	// Closing the store is refused to every key, whatever its role or scopes.
	e.Do(http.MethodPost, "/store/close", admin, nil).Expect(t, 403)
	e.Do(http.MethodPost, "/store/close", e.Key(s.ID, auth.RoleAdmin, "store:write"), nil).Expect(t, 403)
	g := e.GraphQL(admin, `mutation { closeStore { id } }`, nil)
	if g.ErrorCode() != "FORBIDDEN" {
		t.Fatalf("closeStore over GraphQL: %s", g.Raw)
	}
}

func TestRESTEnvelopeAndRouting(t *testing.T) {
	e := apitest.New(t)
	s := e.Store("Acme")
	admin := e.Key(s.ID, auth.RoleAdmin)

	nf := e.Do(http.MethodGet, "/store/bogus", admin, nil).Expect(t, 404)
	if nf.Header.Get("X-RateLimit-Limit") == "" || nf.Header.Get("X-RateLimit-Remaining") == "" {
		t.Fatalf("404 lacks rate-limit headers: %v", nf.Header)
	}
	e.Do(http.MethodPatch, "/store", admin, map[string]any{}).Expect(t, 405)
	e.Do(http.MethodGet, "/store/settings?limit=0", admin, nil).Expect(t, 400)
	e.Do(http.MethodGet, "/store/settings?limit=abc", admin, nil).Expect(t, 400)
	e.Do(http.MethodGet, "/store/settings?offset=-1", admin, nil).Expect(t, 400)
	e.Do(http.MethodGet, "/store/settings?limit=251", admin, nil).Expect(t, 400)
	e.Do(http.MethodDelete, "/store/webhooks/notanumber", admin, nil).Expect(t, 400)

	un := e.Do(http.MethodGet, "/store", "", nil).Expect(t, 401)
	if un.Header.Get("X-RateLimit-Limit") == "" {
		t.Fatalf("401 lacks rate-limit headers")
	}
	if g := e.GraphQL("", `{ store { id } }`, nil); g.Status != 401 || g.ErrorCode() != "UNAUTHENTICATED" {
		t.Fatalf("GraphQL without key: %d %s", g.Status, g.Raw)
	}
}

func TestRateLimit(t *testing.T) {
	e := apitest.New(t, apitest.WithRateLimit(3))
	s := e.Store("Acme")
	k := e.Key(s.ID, auth.RoleAdmin)
	other := e.Key(s.ID, auth.RoleAdmin)
	for i := 0; i < 3; i++ {
		r := e.Do(http.MethodGet, "/store", k, nil).Expect(t, 200)
		if r.Header.Get("X-RateLimit-Limit") != "3" {
			t.Fatalf("X-RateLimit-Limit = %q", r.Header.Get("X-RateLimit-Limit"))
		}
	}
	// GraphQL counts against the same budget.
	g := e.GraphQL(k, `{ store { id } }`, nil)
	if g.Status != 429 || g.ErrorCode() != "RATE_LIMITED" {
		t.Fatalf("GraphQL past the limit: %d %s", g.Status, g.Raw)
	}
	r := e.Do(http.MethodGet, "/store", k, nil).Expect(t, 429)
	if r.Header.Get("Retry-After") == "" || r.Header.Get("X-RateLimit-Remaining") != "0" {
		t.Fatalf("429 headers: %v", r.Header)
	}
	// Another key has its own budget.
	e.Do(http.MethodGet, "/store", other, nil).Expect(t, 200)
}

func TestCORSPreflight(t *testing.T) {
	e := apitest.New(t)
	req, _ := http.NewRequest(http.MethodOptions, e.URL+"/api/v1/store", nil)
	req.Header.Set("Origin", "https://dashboard.example")
	req.Header.Set("Access-Control-Request-Method", "PUT")
	req.Header.Set("Access-Control-Request-Headers", "authorization,content-type")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode >= 300 || resp.Header.Get("Access-Control-Allow-Origin") == "" ||
		!strings.Contains(strings.ToLower(resp.Header.Get("Access-Control-Allow-Headers")), "authorization") {
		t.Fatalf("preflight: %d %v", resp.StatusCode, resp.Header)
	}
}

func TestClosedStoreRefusesChanges(t *testing.T) {
	e := apitest.New(t)
	s := e.Store("Acme")
	admin := e.Key(s.ID, auth.RoleAdmin)
	s.Status = models.StoreClosed
	if err := models.UpdateStore(context.Background(), e.DB, s, "status"); err != nil {
		t.Fatal(err)
	}
	if r := e.Do(http.MethodGet, "/store", admin, nil).Expect(t, 200); r.Obj("store")["status"] != "closed" {
		t.Fatalf("closed store reads as %s", r.Raw)
	}
	e.Do(http.MethodPut, "/store", admin, map[string]any{"name": "Reopened"}).Expect(t, 409)
	e.Do(http.MethodPut, "/store/storefront-enabled", admin, map[string]any{"enabled": true}).Expect(t, 409)
}
