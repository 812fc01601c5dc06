package apitest_test

// Helpers shared by the tests of this package: start here.
//
// This file holds what tests of more than one area use; each helper has a
// plain name. An area's own fixtures live in its file, and names with an
// area prefix (pd…, bd…, wh…) are used in their own file only.
//
// Here:
//   - start:    newAcme (service, one store, its admin key)
//   - values:   asWhole, wholeNumber, wholeNumbers, wholeNumbersOrNull,
//     idOf, rowIDs, int64Ptr, boolField, stringField
//   - JSON:     sortedKeys, objectWithKeys, objectsOf, checkObject,
//     checkObjects, hasType (the type letters of a view spec)
//   - HTTP:     expectPayload, expectBareDelete, expectEach400,
//     expectGraphQLCode, expectGraphQLNotFound, expectUnauthorized,
//     expectAuditRecord, checkAccess
//   - audit:    listAuditLogs, metadataOf (what expectAuditRecord reads)
//   - CRUD:     crudResource (create/get/put/list/byID of a REST resource),
//     viewCheck
//   - keys:     revokedKey, expiredKey, keyID, keyRow, keyWithAllScopes
//   - counting: countStatements, statementCounter (SQL statements sent)
//
// Area fixtures other areas use:
//   - orders_fixture_test.go: createOrder, orderSpec, orderLine, orderLines,
//     orderPath
//   - orders_test.go: orderDetailKeys and the order views
//   - orders_webhooks_test.go: decodeOrderEvent, orderEvent,
//     settledDeliveries, expectNoMoreDeliveries
//   - products_test.go: createProduct, createSimpleProduct, insertProduct,
//     getProduct, putProduct, productPath, countProducts, productImages,
//     productVariants
//   - collections_test.go: insertCollection
//   - catalogue_test.go: seedProducts
//   - discounts_test.go: insertDiscount, discountUsage
//   - draft_orders_test.go: newDraftOrderStore, draftOrderStore,
//     createDraftOrder, draftOrderPath, parisAddress
//   - shipping_test.go: insertShippingZone
//   - webhooks_test.go: createWebhook, newWebhookReceiver, webhookReceiver,
//     receivedWebhook, verifySignature, webhookPath
//   - settings_staff_test.go: addMember, settingBody
//   - idempotency_test.go: replayedHeader
//   - bench_test.go: benchmarkRequests
//
// The harness itself (Env, Response, Call, the With… options) is package
// apitest, in apitest.go.

import (
	"context"
	"maps"
	"net/http"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"storeadmin/internal/app/apitest"
	"storeadmin/internal/auth"
	"storeadmin/models"
)

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
	if got := sortedKeys(r.Body); !reflect.DeepEqual(got, want) {
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
	return out, wholeNumber(t, r.Body["total"]), r
}

// byID is the record id as a list of 250 shows it; it fails when the
// record is not listed.
func (c crudResource) byID(t *testing.T, e *apitest.Env, key string, id int64) map[string]any {
	t.Helper()
	rows, _, _ := c.list(t, e, key, "limit=250")
	for _, r := range rows {
		if wholeNumber(t, r["id"]) == id {
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
	logs, _, _ := listAuditLogs(t, e, key, query)
	want := []any{map[string]any{"type": typ, "id": float64(id)}}
	if len(logs) == 0 {
		t.Fatalf("no audit log for %s", query)
	}
	if m := metadataOf(logs[0]); !reflect.DeepEqual(m["records"], want) {
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

// asWhole reads a JSON number that is a whole number (JSON numbers
// decode as float64).
func asWhole(v any) (int64, bool) {
	f, ok := v.(float64)
	if !ok || f != float64(int64(f)) {
		return 0, false
	}
	return int64(f), true
}

// wholeNumber is v as a whole number, failing the test when it is not one.
func wholeNumber(t *testing.T, v any) int64 {
	t.Helper()
	n, ok := asWhole(v)
	if !ok {
		t.Fatalf("%#v is not an integer", v)
	}
	return n
}

// wholeNumbers is the JSON array v of whole numbers.
func wholeNumbers(t *testing.T, v any) []int64 {
	t.Helper()
	l, ok := v.([]any)
	if !ok {
		t.Fatalf("%#v is not an array", v)
	}
	out := []int64{}
	for _, x := range l {
		out = append(out, wholeNumber(t, x))
	}
	return out
}

// wholeNumbersOrNull is the JSON array v of whole numbers; null reads as
// an empty list.
func wholeNumbersOrNull(t *testing.T, v any) []int64 {
	t.Helper()
	l, ok := v.([]any)
	if !ok && v != nil {
		t.Fatalf("%#v is not an array", v)
	}
	out := []int64{}
	for _, e := range l {
		out = append(out, wholeNumber(t, e))
	}
	return out
}

// idOf is the whole-number "id" of the object m.
func idOf(t *testing.T, m map[string]any) int64 {
	t.Helper()
	return wholeNumber(t, m["id"])
}

// rowIDs are the ids of rows, in their order (0 where one has none).
func rowIDs(rows []map[string]any) []int64 {
	out := make([]int64, len(rows))
	for i, r := range rows {
		out[i], _ = asWhole(r["id"])
	}
	return out
}

// int64Ptr points to a copy of v, for the optional fields of models.
func int64Ptr(v int64) *int64 { return &v }

// boolField is the boolean m[k], failing the test when it is not one.
func boolField(t *testing.T, m map[string]any, k string) bool {
	t.Helper()
	b, ok := m[k].(bool)
	if !ok {
		t.Fatalf("%s = %#v, want a boolean", k, m[k])
	}
	return b
}

// stringField is the string m[k], failing the test when it is not one.
func stringField(t *testing.T, m map[string]any, k string) string {
	t.Helper()
	s, ok := m[k].(string)
	if !ok {
		t.Fatalf("%s = %#v, want a string", k, m[k])
	}
	return s
}

// sortedKeys are the keys of m, sorted.
func sortedKeys(m map[string]any) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// objectWithKeys fails unless v is an object with exactly the fields want
// (sorted), and returns it.
func objectWithKeys(t *testing.T, what string, v any, want []string) map[string]any {
	t.Helper()
	m, ok := v.(map[string]any)
	if !ok {
		t.Fatalf("%s is not an object: %#v", what, v)
	}
	if keys := sortedKeys(m); !reflect.DeepEqual(keys, want) {
		t.Fatalf("%s fields %v, want %v", what, keys, want)
	}
	return m
}

// objectsOf is the JSON array v of objects, unchecked (nil for anything
// else).
func objectsOf(v any) []map[string]any {
	l, _ := v.([]any)
	out := make([]map[string]any, len(l))
	for i, e := range l {
		out[i], _ = e.(map[string]any)
	}
	return out
}

// checkObject fails unless v is an object with exactly the fields of spec,
// each of its type (see hasType), and returns it.
func checkObject(t *testing.T, what string, v any, spec map[string]string) map[string]any {
	t.Helper()
	m, ok := v.(map[string]any)
	if !ok {
		t.Fatalf("%s is not an object: %#v", what, v)
	}
	want := make([]string, 0, len(spec))
	for k := range spec {
		want = append(want, k)
	}
	slices.Sort(want)
	if got := sortedKeys(m); !reflect.DeepEqual(got, want) {
		t.Fatalf("%s fields %v, want %v", what, got, want)
	}
	for k, typ := range spec {
		if !hasType(typ, m[k]) {
			t.Fatalf("%s.%s = %#v, want %s", what, k, m[k], typ)
		}
	}
	return m
}

// checkObjects fails unless v is an array of objects each checked against
// spec (as checkObject does), and returns them.
func checkObjects(t *testing.T, what string, v any, spec map[string]string) []map[string]any {
	t.Helper()
	l, ok := v.([]any)
	if !ok {
		t.Fatalf("%s is not an array: %#v", what, v)
	}
	out := make([]map[string]any, len(l))
	for i, e := range l {
		out[i] = checkObject(t, what+"["+strconv.Itoa(i)+"]", e, spec)
	}
	return out
}

// hasType reports whether v is of typ, a type letter of a view spec:
// s string, i whole number, b boolean, ts an RFC 3339 UTC time, obj, list,
// s[] and i[] lists of those, any; a trailing ? also allows null.
func hasType(typ string, v any) bool {
	if base, ok := strings.CutSuffix(typ, "?"); ok {
		return v == nil || hasType(base, v)
	}
	switch typ {
	case "s":
		_, ok := v.(string)
		return ok
	case "i":
		_, ok := asWhole(v)
		return ok
	case "b":
		_, ok := v.(bool)
		return ok
	case "ts":
		s, ok := v.(string)
		if !ok || !strings.HasSuffix(s, "Z") {
			return false
		}
		_, err := time.Parse(time.RFC3339Nano, s)
		return err == nil
	case "ts?":
		return v == nil || hasType("ts", v)
	case "obj":
		_, ok := v.(map[string]any)
		return ok
	case "list":
		_, ok := v.([]any)
		return ok
	case "s[]", "i[]":
		l, ok := v.([]any)
		if !ok {
			return false
		}
		for _, e := range l {
			if !hasType(typ[:1], e) {
				return false
			}
		}
		return true
	case "any":
		return true
	}
	panic("unknown type " + typ)
}

// expectGraphQLNotFound fails unless the GraphQL query answers NOT_FOUND.
func expectGraphQLNotFound(t *testing.T, e *apitest.Env, key, query string, vars map[string]any) {
	t.Helper()
	if g := e.GraphQL(key, query, vars); g.ErrorCode() != "NOT_FOUND" {
		t.Fatalf("%s: want NOT_FOUND, got %s", query, g.Raw)
	}
}

// expectUnauthorized checks the four ways to be refused with 401 on one call.
func expectUnauthorized(t *testing.T, e *apitest.Env, storeID int64, method, path string, body any) {
	t.Helper()
	for name, key := range map[string]string{
		"no key":      "",
		"unknown key": "sa_api_thisKeyDoesNotExist000000000000000000",
		"revoked key": revokedKey(t, e, storeID),
		"expired key": expiredKey(t, e, storeID, auth.RoleAdmin),
	} {
		r := e.Do(method, path, key, body)
		if r.Status != http.StatusUnauthorized {
			t.Fatalf("%s %s with %s: status %d, want 401; body: %s", method, path, name, r.Status, r.Raw)
		}
		r.Expect(t, http.StatusUnauthorized)
	}
}

// countStatements returns a function that says how many SQL statements do
// ran on e's database.
func countStatements(e *apitest.Env) func(do func()) int64 {
	return func(do func()) int64 {
		before := e.Statements()
		do()
		return e.Statements() - before
	}
}

// revokedKey returns the secret of a key of the store that was revoked.
func revokedKey(t *testing.T, e *apitest.Env, storeID int64) string {
	t.Helper()
	secret := e.Key(storeID, auth.RoleAdmin)
	id := keyID(t, e, storeID, secret)
	if _, err := models.RevokeAPIKey(context.Background(), e.DB, storeID, id); err != nil {
		t.Fatalf("revoke key: %v", err)
	}
	return secret
}

// expiredKey returns the secret of a key of the store whose expires_at
// has passed.
func expiredKey(t *testing.T, e *apitest.Env, storeID int64, role auth.Role, scopes ...string) string {
	t.Helper()
	ctx := context.Background()
	soon := time.Now().Add(time.Hour)
	k, err := auth.NewAPIKey(storeID, "expiring", role, scopes, &soon, time.Now())
	if err != nil {
		t.Fatalf("new key: %v", err)
	}
	if err := models.CreateAPIKey(ctx, e.DB, k); err != nil {
		t.Fatalf("create key: %v", err)
	}
	if _, err := e.DB.NewUpdate().Model((*models.APIKey)(nil)).Set("expires_at = ?", time.Now().Add(-time.Minute)).
		Where("id = ?", k.ID).Exec(ctx); err != nil {
		t.Fatalf("expire key: %v", err)
	}
	return *k.Key
}

// keyID finds the id of the store's key with secret.
func keyID(t *testing.T, e *apitest.Env, storeID int64, secret string) int64 {
	t.Helper()
	k := keyRow(t, e, storeID, secret)
	return k.ID
}

// keyRow finds the stored row of the store's key with secret.
func keyRow(t *testing.T, e *apitest.Env, storeID int64, secret string) models.APIKey {
	t.Helper()
	keys, err := models.ListAPIKeys(context.Background(), e.DB, storeID, models.Paging{Limit: models.MaxLimit})
	if err != nil {
		t.Fatalf("list keys: %v", err)
	}
	hash := string(auth.HashSecret(secret))
	for _, k := range keys {
		if string(k.SecretHash) == hash {
			return k
		}
	}
	t.Fatalf("no key of store %d has this secret", storeID)
	return models.APIKey{}
}

// keyWithAllScopes returns an admin key holding every grantable scope, each
// resource read and write, named explicitly.
func keyWithAllScopes(t *testing.T, e *apitest.Env, storeID int64) string {
	t.Helper()
	var scopes []string
	for _, r := range auth.Resources {
		for _, a := range auth.Actions {
			scopes = append(scopes, r.Resource+":"+a)
		}
	}
	k, err := auth.NewAPIKey(storeID, "every scope", auth.RoleAdmin, scopes, nil, time.Now())
	if err != nil {
		t.Fatalf("new key: %v", err)
	}
	if err := models.CreateAPIKey(context.Background(), e.DB, k); err != nil {
		t.Fatalf("create key: %v", err)
	}
	return *k.Key
}

// listAuditLogs reads GET /store/audit-logs with query (without the "?") and
// returns the rows, the total and the answer.
func listAuditLogs(t *testing.T, e *apitest.Env, key, query string) ([]map[string]any, int64, *apitest.Response) {
	t.Helper()
	path := "/store/audit-logs"
	if query != "" {
		path += "?" + query
	}
	r := e.Do(http.MethodGet, path, key, nil).Expect(t, 200)
	if keys := sortedKeys(r.Body); !reflect.DeepEqual(keys, []string{"logs", "next_cursor", "status", "total"}) {
		t.Fatalf("GET %s: payload keys %v, want logs, next_cursor, status, total: %s", path, keys, r.Raw)
	}
	total, ok := asWhole(r.Body["total"])
	if !ok {
		t.Fatalf("GET %s: total is not an integer: %s", path, r.Raw)
	}
	var rows []map[string]any
	for _, v := range r.List("logs") {
		row, ok := v.(map[string]any)
		if !ok {
			t.Fatalf("GET %s: a log is not an object: %s", path, r.Raw)
		}
		checkAuditLogShape(t, row)
		rows = append(rows, row)
	}
	return rows, total, r
}

// metadataOf is the metadata object of an audit log row.
func metadataOf(row map[string]any) map[string]any {
	m, _ := row["metadata"].(map[string]any)
	return m
}
