package apitest_test

import (
	"maps"
	"net/http"
	"reflect"
	"slices"
	"testing"

	"storeadmin/internal/apitest"
	"storeadmin/internal/auth"
	"storeadmin/models"
)

// The helpers of this file are what the tests of every store resource with
// a REST CRUD surface (shipping, tax, discounts, draft orders) share, so
// that each test states only its resource's paths, bodies and views.

// newAcme starts the service with one store, Acme, and its admin key:
// where almost every resource test starts.
func newAcme(t *testing.T) (*apitest.Env, *models.Store, string) {
	t.Helper()
	e := apitest.New(t)
	s := e.Store("Acme")
	return e, s, e.Key(s.ID, auth.RoleAdmin)
}

// viewCheck validates one object of a REST view and returns it.
type viewCheck func(t *testing.T, v any) map[string]any

// expectPayload fails unless the answer's body holds exactly "status" and
// keys: the spec's payloads have no extra fields.
func expectPayload(t *testing.T, r *apitest.Response, keys ...string) {
	t.Helper()
	want := append([]string{"status"}, keys...)
	slices.Sort(want)
	if got := auditSortedKeys(r.Body); !reflect.DeepEqual(got, want) {
		t.Fatalf("payload keys %v, want %v: %s", got, want, r.Raw)
	}
}

// crudResource is one store resource of the REST API as its tests see it,
// so that create, read, update, list and find-in-list are written once for
// shipping zones and rates, tax rates and discounts.
type crudResource struct {
	path      string             // the collection: POST and GET here
	item      func(int64) string // the path of one record: GET, PUT and DELETE
	one, many string             // the payload field of one record, of a list
	view      viewCheck          // the view of a create, an update and a list row
	detail    viewCheck          // the view of a read, where it differs (nil: view)
}

// send sends a request that answers one record, expects status and a
// payload of exactly {status, one}, and returns the record checked by
// view, with the answer.
func (c crudResource) send(t *testing.T, e *apitest.Env, key, method, path string, body any, status int, view viewCheck) (map[string]any, *apitest.Response) {
	t.Helper()
	r := e.Do(method, path, key, body).Expect(t, status)
	expectPayload(t, r, c.one)
	return view(t, r.Body[c.one]), r
}

// create creates a record over REST and returns the view.
func (c crudResource) create(t *testing.T, e *apitest.Env, key string, body any) map[string]any {
	t.Helper()
	m, _ := c.send(t, e, key, http.MethodPost, c.path, body, 201, c.view)
	return m
}

// get reads one record over REST: the detail view.
func (c crudResource) get(t *testing.T, e *apitest.Env, key string, id int64) (map[string]any, *apitest.Response) {
	t.Helper()
	view := c.detail
	if view == nil {
		view = c.view
	}
	return c.send(t, e, key, http.MethodGet, c.item(id), nil, 200, view)
}

// put updates a record over REST and returns the view.
func (c crudResource) put(t *testing.T, e *apitest.Env, key string, id int64, body any) (map[string]any, *apitest.Response) {
	t.Helper()
	return c.send(t, e, key, http.MethodPut, c.item(id), body, 200, c.view)
}

// list reads GET path?query (no "?" without a query), expects a payload of
// exactly {status, total, many}, and returns the rows checked by view, the
// total and the answer.
func (c crudResource) list(t *testing.T, e *apitest.Env, key, query string) ([]map[string]any, int64, *apitest.Response) {
	t.Helper()
	path := c.path
	if query != "" {
		path += "?" + query
	}
	r := e.Do(http.MethodGet, path, key, nil).Expect(t, 200)
	expectPayload(t, r, c.many, "total")
	var out []map[string]any
	for _, v := range r.List(c.many) {
		out = append(out, c.view(t, v))
	}
	return out, auditMustWhole(t, r.Body["total"]), r
}

// byID is the record id as a list of 250 shows it; it fails when the
// record is not listed.
func (c crudResource) byID(t *testing.T, e *apitest.Env, key string, id int64) map[string]any {
	t.Helper()
	rows, _, _ := c.list(t, e, key, "limit=250")
	for _, r := range rows {
		if auditMustWhole(t, r["id"]) == id {
			return r
		}
	}
	t.Fatalf("%s %d is not listed", c.one, id)
	return nil
}

// expectBareDelete deletes path and fails unless the answer is the bare
// success envelope, as every DELETE of the API answers.
func expectBareDelete(t *testing.T, e *apitest.Env, key, path string) {
	t.Helper()
	if del := e.Do(http.MethodDelete, path, key, nil).Expect(t, 200); string(del.Raw) != `{"status":true}` {
		t.Fatalf("DELETE %s answered %s", path, del.Raw)
	}
}

// expectEach400 sends every named body of a validation table to method
// path and fails unless each is a 400 with the failure envelope.
func expectEach400[B any](t *testing.T, e *apitest.Env, key, what, method, path string, bodies map[string]B) {
	t.Helper()
	for name, body := range bodies {
		r := e.Do(method, path, key, body)
		if r.Status != 400 {
			t.Fatalf("%s, %s: status %d, want 400: %s", what, name, r.Status, r.Raw)
		}
		r.Expect(t, 400)
	}
}

// expectGraphQLCode fails unless every query, sent with key and vars,
// answers the GraphQL error code (NOT_FOUND, FORBIDDEN, …).
func expectGraphQLCode(t *testing.T, e *apitest.Env, key, code string, vars map[string]any, queries ...string) {
	t.Helper()
	for _, q := range queries {
		if g := e.GraphQL(key, q, vars); g.ErrorCode() != code {
			t.Fatalf("%s with %v: want %s, got %s", q, vars, code, g.Raw)
		}
	}
}

// expectAuditRecord fails unless the newest audit log that query selects
// names exactly the record typ id in its metadata, as every write logs.
func expectAuditRecord(t *testing.T, e *apitest.Env, key, query, typ string, id int64) {
	t.Helper()
	logs, _, _ := auditList(t, e, key, query)
	want := []any{map[string]any{"type": typ, "id": float64(id)}}
	if len(logs) == 0 {
		t.Fatalf("no audit log for %s", query)
	}
	if m := auditMeta(logs[0]); !reflect.DeepEqual(m["records"], want) {
		t.Fatalf("%s: audit metadata %v, want records %v", query, m, want)
	}
}

// accessKeys are the keys of a resource's access matrix: staff and admin,
// with the resource's read or write scope or with every scope.
type accessKeys struct {
	staff, staffRead, staffWrite, readOnly, writer string
}

// checkAccess runs the REST access matrix every store resource shares:
// 401 without a valid key and 403 with the keys of otherScopes, on every
// call; 403 on every write for staff (whatever its scopes) and for an
// admin key with the read scope only; 200 on every read for all of those
// and an admin key with the write scope. Writes must be refused before
// they change anything; the keys are returned for the test's own checks.
func checkAccess(t *testing.T, e *apitest.Env, storeID int64, scope string, otherScopes map[string]string, reads, writes []apitest.Call) accessKeys {
	t.Helper()
	k := accessKeys{
		staff:      e.Key(storeID, auth.RoleStaff),
		staffRead:  e.Key(storeID, auth.RoleStaff, scope+":read"),
		staffWrite: e.Key(storeID, auth.RoleStaff, scope+":write"),
		readOnly:   e.Key(storeID, auth.RoleAdmin, scope+":read"),
		writer:     e.Key(storeID, auth.RoleAdmin, scope+":write"),
	}
	all := append(slices.Clone(reads), writes...)
	e.ExpectEach(t, 401, map[string]string{"no key": "", "unknown key": "sa_api_nope"}, all)
	e.ExpectEach(t, 403, otherScopes, all)
	notWriters := map[string]string{"staff": k.staff, "staff read": k.staffRead, "staff write": k.staffWrite, "read only": k.readOnly}
	e.ExpectEach(t, 403, notWriters, writes)
	readers := maps.Clone(notWriters)
	readers["writer"] = k.writer
	e.ExpectEach(t, 200, readers, reads)
	return k
}
