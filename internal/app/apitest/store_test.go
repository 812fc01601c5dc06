package apitest_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/99designs/gqlgen/graphql"

	"storeadmin/graph"
	"storeadmin/internal/app/apitest"
	"storeadmin/internal/auth"
	"storeadmin/models"
	"storeadmin/resolvers"
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

// stSession runs the GraphQL operation query on the service's executor as
// the dashboard session of a member of the store with role: what the
// dashboard will send, with every directive applied.
func stSession(t *testing.T, e *apitest.Env, storeID int64, role auth.Role, query string) *graphql.Response {
	t.Helper()
	exec := graph.NewExecutor(&resolvers.Resolver{DB: e.DB, Now: time.Now}, slog.New(slog.NewTextHandler(io.Discard, nil)), 0)
	ctx := graphql.StartOperationTrace(akSession(e, storeID, 1, role))
	oc, errs := exec.CreateOperationContext(ctx, &graphql.RawParams{Query: query})
	if errs != nil {
		t.Fatalf("%s: %v", query, errs)
	}
	h, ctx := exec.DispatchOperation(ctx, oc)
	return h(ctx)
}

// stProfile reads GET /store's profile.
func stProfile(t *testing.T, e *apitest.Env, key string) map[string]any {
	t.Helper()
	return e.Do(http.MethodGet, "/store", key, nil).Expect(t, 200).Obj("store")
}

// TestCloseStore: POST /store/close is refused to every key, whatever its
// role and scopes, and changes nothing; a dashboard session of any role
// (the spec's "wa") closes the store: its status becomes closed, its
// storefront goes off, GET /store shows both, and its profile takes no
// more changes.
func TestCloseStore(t *testing.T) {
	e := apitest.New(t)
	s, other := e.Store("Acme"), e.Store("Bolt")
	admin := e.Key(s.ID, auth.RoleAdmin)
	keys := map[string]string{
		"admin":             admin,
		"admin store:write": e.Key(s.ID, auth.RoleAdmin, "store:write"),
		"every scope":       keyWithAllScopes(t, e, s.ID),
		"staff":             e.Key(s.ID, auth.RoleStaff),
		"staff store:write": e.Key(s.ID, auth.RoleStaff, "store:write"),
		"store:read":        e.Key(s.ID, auth.RoleAdmin, "store:read"),
	}
	e.ExpectEach(t, 403, keys, []apitest.Call{{Method: http.MethodPost, Path: "/store/close"}})
	for name, key := range keys {
		if g := e.GraphQL(key, `mutation { closeStore { status } }`, nil); g.ErrorCode() != "FORBIDDEN" {
			t.Fatalf("closeStore with the %s key: %s", name, g.Raw)
		}
	}
	expectUnauthorized(t, e, s.ID, http.MethodPost, "/store/close", nil)
	if p := stProfile(t, e, admin); p["status"] != "active" || p["storefront_enabled"] != true {
		t.Fatalf("a refused close changed the store: %v", p)
	}

	// A staff member's session closes it.
	const closeQuery = `mutation { closeStore { id status storefront_enabled } }`
	res := stSession(t, e, s.ID, auth.RoleStaff, closeQuery)
	if len(res.Errors) > 0 || string(res.Data) != fmt.Sprintf(`{"closeStore":{"id":%d,"status":"closed","storefront_enabled":false}}`, s.ID) {
		t.Fatalf("a staff session's close: %s %v", res.Data, res.Errors)
	}
	if p := stProfile(t, e, admin); p["status"] != "closed" || p["storefront_enabled"] != false {
		t.Fatalf("GET /store after the close: %v", p)
	}
	var closedAt time.Time
	if err := e.DB.NewSelect().Table("stores").Column("closed_at").Where("id = ?", s.ID).Scan(context.Background(), &closedAt); err != nil || closedAt.IsZero() {
		t.Fatalf("closed_at: %v %v", closedAt, err)
	}
	// Closed for good: a second close is a 409, and the profile refuses
	// changes; reads go on. The other store is untouched.
	if res := stSession(t, e, s.ID, auth.RoleAdmin, closeQuery); len(res.Errors) != 1 || res.Errors[0].Extensions["code"] != "CONFLICT" {
		t.Fatalf("closing a closed store: %s %v", res.Data, res.Errors)
	}
	e.Do(http.MethodPut, "/store", admin, map[string]any{"name": "Reopened"}).Expect(t, 409)
	e.Do(http.MethodPut, "/store/storefront-enabled", admin, map[string]any{"enabled": true}).Expect(t, 409)
	if p := stProfile(t, e, e.Key(other.ID, auth.RoleAdmin)); p["status"] != "active" || p["storefront_enabled"] != true {
		t.Fatalf("the other store: %v", p)
	}
}

// TestStorefrontSwitch: PUT /store/storefront-enabled changes the profile
// as GET /store shows it, on both surfaces, for admins with store:write.
func TestStorefrontSwitch(t *testing.T) {
	e, s, admin := newAcme(t)
	for _, enabled := range []bool{false, false, true} {
		r := e.Do(http.MethodPut, "/store/storefront-enabled", admin, map[string]any{"enabled": enabled}).Expect(t, 200)
		expectPayload(t, r, "store")
		if got := r.Obj("store")["storefront_enabled"]; got != enabled {
			t.Fatalf("PUT enabled=%v answered %v", enabled, got)
		}
		get := e.Do(http.MethodGet, "/store", admin, nil).Expect(t, 200)
		if got := get.Obj("store"); !reflect.DeepEqual(got, r.Obj("store")) {
			t.Fatalf("GET /store after enabled=%v:\n got  %v\n want %v", enabled, got, r.Obj("store"))
		}
		e.SameOnGraphQL(t, get, admin, "GetStore", nil)
	}
	r := e.Do(http.MethodPut, "/store/storefront-enabled", admin, map[string]any{"enabled": false}).Expect(t, 200)
	e.SameOnGraphQL(t, r, admin, "SetStorefrontEnabled", map[string]any{"enabled": false})
	if g := e.GraphQL(admin, `mutation { setStorefrontEnabled(enabled: true) { storefront_enabled } }`, nil); g.Data()["setStorefrontEnabled"].(map[string]any)["storefront_enabled"] != true {
		t.Fatalf("GraphQL switch: %s", g.Raw)
	}
	if p := stProfile(t, e, admin); p["storefront_enabled"] != true {
		t.Fatalf("GET /store after the GraphQL switch: %v", p)
	}
	expectAuditRecord(t, e, admin, "action=setStorefrontEnabled&limit=1", "store", s.ID)

	e.ExpectEach(t, 403, map[string]string{
		"staff": e.Key(s.ID, auth.RoleStaff), "staff store:write": e.Key(s.ID, auth.RoleStaff, "store:write"),
		"read only": e.Key(s.ID, auth.RoleAdmin, "store:read"), "other scope": e.Key(s.ID, auth.RoleAdmin, "settings:write"),
	}, []apitest.Call{{Method: http.MethodPut, Path: "/store/storefront-enabled", Body: map[string]any{"enabled": false}}})
	expectUnauthorized(t, e, s.ID, http.MethodPut, "/store/storefront-enabled", map[string]any{"enabled": false})
	expectEach400(t, e, admin, "PUT /store/storefront-enabled", http.MethodPut, "/store/storefront-enabled", map[string]any{
		"missing": map[string]any{}, "a string": map[string]any{"enabled": "yes"}, "null": map[string]any{"enabled": nil},
		"a number": map[string]any{"enabled": 1}, "unknown field": map[string]any{"enabled": true, "force": true}, "not JSON": `{"enabled": `,
	})
	if p := stProfile(t, e, admin); p["storefront_enabled"] != true {
		t.Fatalf("a refused switch changed the profile: %v", p)
	}
}

// TestStorefrontSwitchRacingAClose: a switch that read the store before a
// close committed cannot switch the closed store's storefront back on:
// its write waits for the close and then finds the store closed (409).
func TestStorefrontSwitchRacingAClose(t *testing.T) {
	e, s, admin := newAcme(t)
	ctx := context.Background()
	tx, err := e.DB.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = tx.Rollback() }() // after the commit below, a no-op
	s.Status, s.StorefrontEnabled = models.StoreClosed, false
	if err := models.UpdateStore(ctx, tx, s, "status", "storefront_enabled"); err != nil {
		t.Fatal(err)
	}
	answer := make(chan *apitest.Response, 1)
	go func() {
		answer <- e.Do(http.MethodPut, "/store/storefront-enabled", admin, map[string]any{"enabled": true})
	}()
	// The switch has read the store as open and waits for the close's row
	// lock.
	for {
		var waiting int
		if err := e.DB.NewRaw(`SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`).Scan(ctx, &waiting); err != nil {
			t.Fatal(err)
		}
		if waiting > 0 {
			break
		}
		select {
		case r := <-answer:
			t.Fatalf("the switch answered before the close committed: %d %s", r.Status, r.Raw)
		case <-time.After(10 * time.Millisecond):
		}
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	(<-answer).Expect(t, 409)
	if p := stProfile(t, e, admin); p["status"] != "closed" || p["storefront_enabled"] != false {
		t.Fatalf("the closed store after the racing switch: %v", p)
	}
}
