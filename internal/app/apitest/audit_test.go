package apitest_test

import (
	"bytes"
	"context"
	"net/http"
	"net/url"
	"reflect"
	"slices"
	"strconv"
	"testing"
	"time"

	"storeadmin/internal/app/apitest"
	"storeadmin/internal/auth"
	"storeadmin/models"
)

// auditLogKeys are the fields of the spec's AuditLog view, exactly.
var auditLogKeys = []string{"action", "actor_id", "actor_type", "country", "created_at", "id", "ip", "metadata", "method", "path", "status_code", "store_id", "user_agent"}

// auditKeyID is the id of the API key whose secret is secret.
func auditKeyID(t *testing.T, e *apitest.Env, storeID int64, secret string) int64 {
	t.Helper()
	keys, err := models.ListAPIKeys(context.Background(), e.DB, storeID, models.Paging{Limit: models.MaxLimit})
	if err != nil {
		t.Fatalf("list keys: %v", err)
	}
	hash := auth.HashSecret(secret)
	for _, k := range keys {
		if bytes.Equal(k.SecretHash, hash) {
			return k.ID
		}
	}
	t.Fatalf("no key of store %d has that secret", storeID)
	return 0
}

// checkAuditLogShape fails unless row has exactly the AuditLog fields with
// their types.
func checkAuditLogShape(t *testing.T, row map[string]any) {
	t.Helper()
	if keys := sortedKeys(row); !reflect.DeepEqual(keys, auditLogKeys) {
		t.Fatalf("audit log fields %v, want %v", keys, auditLogKeys)
	}
	for _, k := range []string{"id", "status_code"} {
		if _, ok := asWhole(row[k]); !ok {
			t.Fatalf("audit log %s = %#v, want an integer", k, row[k])
		}
	}
	for _, k := range []string{"store_id", "actor_id"} { // i?: an integer when present
		if row[k] != nil {
			if _, ok := asWhole(row[k]); !ok {
				t.Fatalf("audit log %s = %#v, want an integer or null", k, row[k])
			}
		}
	}
	for _, k := range []string{"action", "actor_type", "country", "ip", "method", "path", "user_agent", "created_at"} {
		if _, ok := row[k].(string); !ok {
			t.Fatalf("audit log %s = %#v, want a string", k, row[k])
		}
	}
	if _, err := time.Parse(time.RFC3339Nano, row["created_at"].(string)); err != nil {
		t.Fatalf("audit log created_at %q is not RFC 3339: %v", row["created_at"], err)
	}
	if _, ok := row["metadata"].(map[string]any); !ok {
		t.Fatalf("audit log metadata = %#v, want an object", row["metadata"])
	}
}

// auditWant is what one audit row must say.
type auditWant struct {
	storeID, actorID int64
	action, method   string
	path             string
	status           int64
	ip, ua, country  string
}

func checkAuditRow(t *testing.T, row map[string]any, w auditWant) {
	t.Helper()
	got := auditWant{
		storeID: wholeNumber(t, row["store_id"]), actorID: wholeNumber(t, row["actor_id"]),
		action: row["action"].(string), method: row["method"].(string), path: row["path"].(string),
		status: wholeNumber(t, row["status_code"]), ip: row["ip"].(string), ua: row["user_agent"].(string), country: row["country"].(string),
	}
	if got != w {
		t.Fatalf("audit row:\n got  %+v\n want %+v\n row %v", got, w, row)
	}
	if row["actor_type"] != "api_key" {
		t.Fatalf("actor_type = %v, want api_key", row["actor_type"])
	}
}

func auditCountAll(t *testing.T, e *apitest.Env) int64 {
	t.Helper()
	n, err := e.DB.NewSelect().Model((*models.AuditLog)(nil)).Count(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return n
}

const auditSaveSettingMutation = `mutation SaveSetting($input: StoreSettingInput!) { putStoreSetting(input: $input) { key namespace } }`

// TestAuditRecordsWrites: every write through either surface, successful or
// failed, is one row with who, what, where from and how it ended; reads are
// not recorded.
func TestAuditRecordsWrites(t *testing.T) {
	e := apitest.New(t, apitest.WithCountryHeader("CF-IPCountry"))
	s := e.Store("Acme")
	admin := e.Key(s.ID, auth.RoleAdmin)
	adminID := auditKeyID(t, e, s.ID, admin)
	hdr := map[string]string{"User-Agent": "audit-test/1.0", "CF-IPCountry": "de"}
	want := func(action, method, path string, status int64) auditWant {
		return auditWant{storeID: s.ID, actorID: adminID, action: action, method: method, path: path, status: status, ip: "127.0.0.1", ua: "audit-test/1.0", country: "DE"}
	}

	// A successful REST write.
	e.DoHeaders(http.MethodPut, "/store/settings", admin, map[string]any{"namespace": "shop", "key": "color", "value": "red"}, hdr).Expect(t, 200)
	// A REST write refused by the service (403).
	closed := e.DoHeaders(http.MethodPost, "/store/close", admin, nil, hdr).Expect(t, 403)
	// A REST write whose body is not JSON (400): it never reaches an operation.
	bad := e.DoHeaders(http.MethodPut, "/store/settings", admin, `{"namespace": `, hdr).Expect(t, 400)
	// A GraphQL mutation, named by operationName.
	g := e.GraphQLOp(admin, auditSaveSettingMutation, "SaveSetting",
		map[string]any{"input": map[string]any{"namespace": "shop", "key": "size", "value": 3}}, hdr)
	if g.Status != 200 || g.Body["errors"] != nil {
		t.Fatalf("SaveSetting: %d %s", g.Status, g.Raw)
	}
	// Reads on either surface: not recorded.
	if q := e.GraphQLOp(admin, `query ReadSettings { storeSettings { key } }`, "ReadSettings", nil, hdr); q.Status != 200 || q.Body["errors"] != nil {
		t.Fatalf("ReadSettings: %d %s", q.Status, q.Raw)
	}
	e.DoHeaders(http.MethodGet, "/store/settings", admin, nil, hdr).Expect(t, 200)
	e.DoHeaders(http.MethodGet, "/store/webhooks", admin, nil, hdr).Expect(t, 200)
	// A REST create names the record it made.
	wh := e.DoHeaders(http.MethodPost, "/store/webhooks", admin, map[string]any{"url": "https://example.com/hooks", "topics": []string{"order.paid"}}, hdr).Expect(t, 201)
	whID := wholeNumber(t, wh.Obj("webhook")["id"])

	rows, total, list := listAuditLogs(t, e, admin, "")
	if total != 5 || len(rows) != 5 {
		t.Fatalf("want 5 rows (4 writes and the webhook create; no reads), got total %d: %s", total, list.Raw)
	}
	e.SameOnGraphQL(t, list, admin, "ListAuditLogs", nil)

	// Newest first.
	checkAuditRow(t, rows[0], want("createWebhook", "POST", "/api/v1/store/webhooks", 201))
	if m := metadataOf(rows[0]); !reflect.DeepEqual(m["records"], []any{map[string]any{"type": "webhook_subscription", "id": float64(whID)}}) || m["error"] != nil {
		t.Fatalf("createWebhook metadata: %v", m)
	}

	checkAuditRow(t, rows[1], want("putStoreSetting", "POST", "/graphql/SaveSetting", 200))
	if m := metadataOf(rows[1]); m["setting"] != "shop.size" || m["operation"] != "SaveSetting" || m["error"] != nil {
		t.Fatalf("SaveSetting metadata: %v", m)
	}

	checkAuditRow(t, rows[2], want("putStoreSetting", "PUT", "/api/v1/store/settings", 400)) // a routed request names its operation, even with a body it cannot read
	if m := metadataOf(rows[2]); m["error"] != bad.Message() || m["records"] != nil {
		t.Fatalf("malformed body metadata: %v, want error %q", m, bad.Message())
	}

	checkAuditRow(t, rows[3], want("closeStore", "POST", "/api/v1/store/close", 403))
	if m := metadataOf(rows[3]); m["error"] != closed.Message() || m["records"] != nil {
		t.Fatalf("closeStore metadata: %v, want error %q", m, closed.Message())
	}

	checkAuditRow(t, rows[4], want("putStoreSetting", "PUT", "/api/v1/store/settings", 200))
	if m := metadataOf(rows[4]); m["setting"] != "shop.color" || m["error"] != nil {
		t.Fatalf("PUT /store/settings metadata: %v", m)
	}

	for i := 1; i < len(rows); i++ {
		prev, _ := time.Parse(time.RFC3339Nano, rows[i-1]["created_at"].(string))
		cur, _ := time.Parse(time.RFC3339Nano, rows[i]["created_at"].(string))
		if cur.After(prev) || wholeNumber(t, rows[i]["id"]) >= wholeNumber(t, rows[i-1]["id"]) {
			t.Fatalf("rows are not newest first: %v", rowIDs(rows))
		}
	}
}

// TestAuditRecordsWebhookWrites: create, update and delete name the
// subscription they touched; a write on another store's subscription is
// recorded as a 404 that touched nothing.
func TestAuditRecordsWebhookWrites(t *testing.T) {
	e := apitest.New(t)
	s := e.Store("Acme")
	other := e.Store("Other")
	admin := e.Key(s.ID, auth.RoleAdmin)
	adminID := auditKeyID(t, e, s.ID, admin)
	otherWh := e.Do(http.MethodPost, "/store/webhooks", e.Key(other.ID, auth.RoleAdmin), map[string]any{"url": "https://example.org/x", "topics": []string{"order.paid"}}).Expect(t, 201)
	otherID := wholeNumber(t, otherWh.Obj("webhook")["id"])

	id := wholeNumber(t, e.Do(http.MethodPost, "/store/webhooks", admin, map[string]any{"url": "https://example.com/a", "topics": []string{"order.paid"}}).Expect(t, 201).Obj("webhook")["id"])
	e.Do(http.MethodPut, "/store/webhooks/"+strconv.FormatInt(id, 10), admin, map[string]any{"active": false}).Expect(t, 200)
	g := e.GraphQL(admin, `mutation($id: Int!) { deleteWebhook(id: $id) }`, map[string]any{"id": id})
	if g.Data()["deleteWebhook"] != true {
		t.Fatalf("deleteWebhook: %s", g.Raw)
	}
	miss := e.Do(http.MethodDelete, "/store/webhooks/"+strconv.FormatInt(otherID, 10), admin, nil).Expect(t, 404)

	rows, total, _ := listAuditLogs(t, e, admin, "")
	if total != 4 {
		t.Fatalf("total %d, want 4", total)
	}
	rec := []any{map[string]any{"type": "webhook_subscription", "id": float64(id)}}
	cases := []struct {
		action, method, path string
		status               int64
		records              any
	}{
		{"deleteWebhook", "DELETE", "/api/v1/store/webhooks/" + strconv.FormatInt(otherID, 10), 404, nil},
		{"deleteWebhook", "POST", "/graphql", 200, rec},
		{"updateWebhook", "PUT", "/api/v1/store/webhooks/" + strconv.FormatInt(id, 10), 200, rec},
		{"createWebhook", "POST", "/api/v1/store/webhooks", 201, rec},
	}
	for i, c := range cases {
		checkAuditRow(t, rows[i], auditWant{storeID: s.ID, actorID: adminID, action: c.action, method: c.method, path: c.path, status: c.status, ip: "127.0.0.1", ua: "Go-http-client/1.1"})
		if m := metadataOf(rows[i]); !reflect.DeepEqual(m["records"], c.records) {
			t.Fatalf("row %d (%s) records = %v, want %v", i, c.action, m["records"], c.records)
		}
	}
	if m := metadataOf(rows[0]); m["error"] != miss.Message() {
		t.Fatalf("404 metadata: %v, want error %q", m, miss.Message())
	}
}

// TestAuditRecordsUnroutedWrites: a write to no route, with the wrong method
// or a bad path parameter is recorded as "METHOD /path"; a read of no route
// is not.
func TestAuditRecordsUnroutedWrites(t *testing.T) {
	e := apitest.New(t)
	s := e.Store("Acme")
	admin := e.Key(s.ID, auth.RoleAdmin)
	adminID := auditKeyID(t, e, s.ID, admin)

	e.Do(http.MethodGet, "/store/bogus", admin, nil).Expect(t, 404)
	e.Do(http.MethodPost, "/store/bogus", admin, map[string]any{}).Expect(t, 404)
	e.Do(http.MethodPatch, "/store", admin, map[string]any{}).Expect(t, 405)
	e.Do(http.MethodDelete, "/store/webhooks/notanumber", admin, nil).Expect(t, 400)

	rows, total, _ := listAuditLogs(t, e, admin, "")
	if total != 3 {
		t.Fatalf("total %d, want 3", total)
	}
	// A routed request names its operation; one that matched no route is
	// named by its method and path.
	for i, w := range []struct {
		action, method, path string
		status               int64
	}{
		{"deleteWebhook", "DELETE", "/api/v1/store/webhooks/notanumber", 400},
		{"PATCH /api/v1/store", "PATCH", "/api/v1/store", 405},
		{"POST /api/v1/store/bogus", "POST", "/api/v1/store/bogus", 404},
	} {
		checkAuditRow(t, rows[i], auditWant{storeID: s.ID, actorID: adminID, action: w.action, method: w.method, path: w.path, status: w.status, ip: "127.0.0.1", ua: "Go-http-client/1.1"})
		if m, _ := metadataOf(rows[i])["error"].(string); m == "" {
			t.Fatalf("row %d has no error: %v", i, rows[i])
		}
	}
}

// TestAuditFilters: every filter, paging with total, newest first, invalid
// filter values, REST == GraphQL, and another store's rows never showing.
func TestAuditFilters(t *testing.T) {
	e := apitest.New(t) // no country header configured: a client's header is not trusted
	a := e.Store("Acme")
	b := e.Store("Bolt")
	admin := e.Key(a.ID, auth.RoleAdmin)
	adminID := auditKeyID(t, e, a.ID, admin)
	staff := e.Key(a.ID, auth.RoleStaff)
	staffID := auditKeyID(t, e, a.ID, staff)
	auditor := e.Key(a.ID, auth.RoleAdmin, "audit-logs:read")
	bAdmin := e.Key(b.ID, auth.RoleAdmin)
	bAdminID := auditKeyID(t, e, b.ID, bAdmin)

	setting := func(k string) map[string]any { return map[string]any{"namespace": "f", "key": k, "value": 1} }
	first := e.DoHeaders(http.MethodPut, "/store/settings", admin, setting("a"), map[string]string{"CF-IPCountry": "de"}).Expect(t, 200)
	e.SameOnGraphQL(t, first, admin, "PutStoreSetting", map[string]any{"input": setting("a")}) // a write, on both surfaces
	e.Do(http.MethodPut, "/store/settings", admin, setting("b")).Expect(t, 200)
	e.Do(http.MethodPut, "/store/settings", staff, setting("c")).Expect(t, 403)
	e.Do(http.MethodPost, "/store/webhooks", admin, map[string]any{"url": "https://example.com/h", "topics": []string{"order.paid"}}).Expect(t, 201)
	e.Do(http.MethodPut, "/store/settings", admin, `[1]`).Expect(t, 400)
	if g := e.GraphQL(staff, `mutation { putStoreSetting(input: {namespace: "f", key: "e", value: 1}) { key } }`, nil); g.ErrorCode() != "FORBIDDEN" {
		t.Fatalf("staff putStoreSetting: %s", g.Raw)
	}
	e.Do(http.MethodPut, "/store/settings", bAdmin, setting("z")).Expect(t, 200)

	all, total, list := listAuditLogs(t, e, auditor, "")
	if total != 7 || len(all) != 7 {
		t.Fatalf("store A: total %d, want 7: %s", total, list.Raw)
	}
	e.SameOnGraphQL(t, list, auditor, "ListAuditLogs", nil)
	for _, r := range all {
		if wholeNumber(t, r["store_id"]) != a.ID {
			t.Fatalf("store A's log shows a row of store %v", r["store_id"])
		}
		if r["country"] != "" {
			t.Fatalf("country %q recorded although no country header is configured", r["country"])
		}
	}
	// The GraphQL mutation refused by role is recorded with its status.
	checkAuditRow(t, all[0], auditWant{storeID: a.ID, actorID: staffID, action: "putStoreSetting", method: "POST", path: "/graphql", status: 403, ip: "127.0.0.1", ua: "Go-http-client/1.1"})
	if m, _ := metadataOf(all[0])["error"].(string); m == "" {
		t.Fatalf("refused GraphQL mutation has no error: %v", all[0])
	}
	if admins, _, _ := listAuditLogs(t, e, admin, ""); !reflect.DeepEqual(rowIDs(admins), rowIDs(all)) {
		t.Fatal("an admin key and an audit-logs:read key see different logs")
	}

	// pick returns the rows of all for which keep holds, in order.
	pick := func(keep func(r map[string]any) bool) []int64 {
		var out []int64
		for _, r := range all {
			if keep(r) {
				out = append(out, wholeNumber(t, r["id"]))
			}
		}
		return out
	}
	field := func(k string, v any) func(map[string]any) bool {
		return func(r map[string]any) bool { return r[k] == v }
	}
	for _, c := range []struct {
		query string
		want  []int64
	}{
		{"actor_id=" + strconv.FormatInt(staffID, 10), pick(field("actor_id", float64(staffID)))},
		{"actor_id=" + strconv.FormatInt(adminID, 10), pick(field("actor_id", float64(adminID)))},
		{"actor_id=" + strconv.FormatInt(bAdminID, 10), nil},
		{"actor_type=api_key", rowIDs(all)},
		{"actor_type=session", nil},
		{"action=putStoreSetting", pick(field("action", "putStoreSetting"))},
		{"action=createWebhook", pick(field("action", "createWebhook"))},
		{"action=" + url.QueryEscape("PUT /api/v1/store/settings"), pick(field("action", "PUT /api/v1/store/settings"))},
		{"method=POST", pick(field("method", "POST"))},
		{"method=PUT", pick(field("method", "PUT"))},
		{"status_code=403", pick(field("status_code", float64(403)))},
		{"status_code=400", pick(field("status_code", float64(400)))},
		{"status_code=201", pick(field("status_code", float64(201)))},
		{"action=putStoreSetting&status_code=200", pick(func(r map[string]any) bool {
			return r["action"] == "putStoreSetting" && r["status_code"] == float64(200)
		})},
		{"action=putStoreSetting&status_code=200&method=PUT", pick(func(r map[string]any) bool {
			return r["action"] == "putStoreSetting" && r["status_code"] == float64(200) && r["method"] == "PUT"
		})},
	} {
		rows, total, _ := listAuditLogs(t, e, auditor, c.query)
		if got := rowIDs(rows); len(got) != len(c.want) || (len(got) > 0 && !reflect.DeepEqual(got, c.want)) || total != int64(len(c.want)) {
			t.Fatalf("?%s: ids %v total %d, want %v", c.query, got, total, c.want)
		}
	}
	if n := len(pick(field("actor_id", float64(staffID)))); n != 2 {
		t.Fatalf("staff made 2 writes, the log shows %d", n)
	}

	// Paging: limit and offset cut the same newest-first list; total ignores them.
	ids := rowIDs(all)
	for _, c := range []struct {
		query  string
		lo, hi int
	}{
		{"limit=3", 0, 3}, {"limit=3&offset=3", 3, 6}, {"limit=3&offset=6", 6, 7}, {"offset=10", 7, 7}, {"limit=1&offset=2", 2, 3},
	} {
		rows, total, _ := listAuditLogs(t, e, auditor, c.query)
		if got := rowIDs(rows); total != 7 || !slices.Equal(got, ids[c.lo:c.hi]) {
			t.Fatalf("?%s: ids %v total %d, want %v total 7", c.query, got, total, ids[c.lo:c.hi])
		}
	}

	// from is inclusive, to exclusive; offsets other than Z are honoured.
	at := func(i int) time.Time {
		ts, err := time.Parse(time.RFC3339Nano, all[i]["created_at"].(string))
		if err != nil {
			t.Fatal(err)
		}
		return ts
	}
	between := func(from, to *time.Time) []int64 {
		return pick(func(r map[string]any) bool {
			ts, _ := time.Parse(time.RFC3339Nano, r["created_at"].(string))
			return (from == nil || !ts.Before(*from)) && (to == nil || ts.Before(*to))
		})
	}
	berlin := time.FixedZone("UTC+2", 2*3600)
	p3, p1, p5 := at(3), at(1), at(5)
	for _, c := range []struct {
		query string
		want  []int64
	}{
		{"from=" + url.QueryEscape(p3.Format(time.RFC3339Nano)), between(&p3, nil)},
		{"to=" + url.QueryEscape(p3.Format(time.RFC3339Nano)), between(nil, &p3)},
		{"from=" + url.QueryEscape(p5.In(berlin).Format(time.RFC3339Nano)) + "&to=" + url.QueryEscape(p1.In(berlin).Format(time.RFC3339Nano)), between(&p5, &p1)},
		{"from=" + url.QueryEscape(p3.Format(time.RFC3339Nano)) + "&to=" + url.QueryEscape(p3.Format(time.RFC3339Nano)), nil},
		{"from=2000-01-01T00:00:00Z", ids},
		{"to=2000-01-01T00:00:00Z", nil},
		{"from=2000-01-01T00:00:00Z&action=createWebhook", pick(field("action", "createWebhook"))},
	} {
		rows, total, _ := listAuditLogs(t, e, auditor, c.query)
		if got := rowIDs(rows); len(got) != len(c.want) || (len(got) > 0 && !reflect.DeepEqual(got, c.want)) || total != int64(len(c.want)) {
			t.Fatalf("?%s: ids %v total %d, want %v", c.query, got, total, c.want)
		}
	}
	if got := between(&p3, nil); !slices.Contains(got, ids[3]) || slices.Contains(got, ids[4]) {
		t.Fatalf("from bound misapplied in the test itself: %v", got) // the pivot row is in, the older one out
	}

	// REST == GraphQL with filters and paging.
	r := e.Do(http.MethodGet, "/store/audit-logs?action=putStoreSetting&limit=2&offset=1&from="+url.QueryEscape(at(6).Format(time.RFC3339Nano)), auditor, nil).Expect(t, 200)
	e.SameOnGraphQL(t, r, auditor, "ListAuditLogs", map[string]any{
		"filter": map[string]any{"action": "putStoreSetting", "from": at(6).Format(time.RFC3339Nano)}, "limit": 2, "offset": 1,
	})

	// Invalid filter values.
	for _, q := range []string{"actor_id=abc", "from=yesterday", "to=31%2F01%2F2026", "status_code=ok", "limit=0", "limit=251", "offset=-1", "limit=abc"} {
		e.Do(http.MethodGet, "/store/audit-logs?"+q, auditor, nil).Expect(t, 400)
	}
	if g := e.GraphQL(auditor, `{ auditLogs(filter: {from: "yesterday"}) { id } }`, nil); g.ErrorCode() != "BAD_USER_INPUT" {
		t.Fatalf("GraphQL from=yesterday: %s", g.Raw)
	}
	if g := e.GraphQL(auditor, `query($f: AuditLogFilter) { auditLogs(filter: $f) { id } }`, map[string]any{"f": map[string]any{"actor_id": "abc"}}); g.Body["errors"] == nil {
		t.Fatalf("GraphQL actor_id abc: %s", g.Raw)
	}

	// Store B sees its one row only; store A's ids never show there.
	bRows, bTotal, _ := listAuditLogs(t, e, bAdmin, "")
	if bTotal != 1 || len(bRows) != 1 {
		t.Fatalf("store B: %d rows, total %d, want 1", len(bRows), bTotal)
	}
	checkAuditRow(t, bRows[0], auditWant{storeID: b.ID, actorID: bAdminID, action: "putStoreSetting", method: "PUT", path: "/api/v1/store/settings", status: 200, ip: "127.0.0.1", ua: "Go-http-client/1.1"})
	if slices.Contains(ids, wholeNumber(t, bRows[0]["id"])) {
		t.Fatal("store B's row shows in store A's log")
	}
	if rows, total, _ := listAuditLogs(t, e, bAdmin, "actor_id="+strconv.FormatInt(adminID, 10)); len(rows) != 0 || total != 0 {
		t.Fatalf("store B filtering by store A's key sees %d rows (total %d)", len(rows), total)
	}
}

// TestAuditAccess: the audit log is ra (audit-logs:read and role admin);
// reading it is not itself recorded, and unauthenticated writes are not
// recorded (no store to file them under).
func TestAuditAccess(t *testing.T) {
	e := apitest.New(t)
	s := e.Store("Acme")
	admin := e.Key(s.ID, auth.RoleAdmin)

	e.Do(http.MethodGet, "/store/audit-logs", "", nil).Expect(t, 401)
	e.Do(http.MethodGet, "/store/audit-logs", "sa_api_nope", nil).Expect(t, 401)
	e.Do(http.MethodGet, "/store/audit-logs", e.Key(s.ID, auth.RoleStaff), nil).Expect(t, 403)                     // role
	e.Do(http.MethodGet, "/store/audit-logs", e.Key(s.ID, auth.RoleStaff, "audit-logs:read"), nil).Expect(t, 403)  // role, with the scope
	e.Do(http.MethodGet, "/store/audit-logs", e.Key(s.ID, auth.RoleAdmin, "settings:write"), nil).Expect(t, 403)   // scope
	e.Do(http.MethodGet, "/store/audit-logs", e.Key(s.ID, auth.RoleAdmin, "audit-logs:read"), nil).Expect(t, 200)  // ra
	e.Do(http.MethodGet, "/store/audit-logs", e.Key(s.ID, auth.RoleAdmin, "audit-logs:write"), nil).Expect(t, 200) // write implies read
	r := e.Do(http.MethodGet, "/store/audit-logs", admin, nil).Expect(t, 200)
	if r.Body["total"] != float64(0) || len(r.List("logs")) != 0 {
		t.Fatalf("a fresh store's log: %s", r.Raw)
	}
	if g := e.GraphQL(e.Key(s.ID, auth.RoleStaff), `{ auditLogs { id } }`, nil); g.ErrorCode() != "FORBIDDEN" {
		t.Fatalf("staff over GraphQL: %s", g.Raw)
	}
	if g := e.GraphQL(e.Key(s.ID, auth.RoleAdmin, "orders:read"), `{ auditLogsCount }`, nil); g.ErrorCode() != "FORBIDDEN" {
		t.Fatalf("wrong scope over GraphQL: %s", g.Raw)
	}
	if g := e.GraphQL("", `{ auditLogs { id } }`, nil); g.Status != 401 || g.ErrorCode() != "UNAUTHENTICATED" {
		t.Fatalf("no key over GraphQL: %d %s", g.Status, g.Raw)
	}

	// Unauthenticated writes on both surfaces.
	body := map[string]any{"namespace": "shop", "key": "color", "value": "red"}
	e.Do(http.MethodPut, "/store/settings", "", body).Expect(t, 401)
	e.Do(http.MethodPut, "/store/settings", "sa_api_nope", body).Expect(t, 401)
	e.Do(http.MethodPost, "/store/webhooks", "", map[string]any{"url": "https://example.com/h", "topics": []string{"order.paid"}}).Expect(t, 401)
	e.Do(http.MethodDelete, "/store/webhooks/1", "sa_api_nope", nil).Expect(t, 401)
	if g := e.GraphQLOp("", auditSaveSettingMutation, "SaveSetting", map[string]any{"input": body}, nil); g.Status != 401 {
		t.Fatalf("unauthenticated mutation: %d %s", g.Status, g.Raw)
	}
	if n := auditCountAll(t, e); n != 0 {
		t.Fatalf("%d audit rows after reads and unauthenticated writes, want 0", n)
	}
}

// TestAuditRecordsGraphQLMutationWithBadVariables: a GraphQL mutation refused
// before it runs (its variables do not fit) is a failed write, recorded as
// the REST equivalent (a bad body, 400) is.
func TestAuditRecordsGraphQLMutationWithBadVariables(t *testing.T) {
	e := apitest.New(t)
	s := e.Store("Acme")
	admin := e.Key(s.ID, auth.RoleAdmin)
	adminID := auditKeyID(t, e, s.ID, admin)

	g := e.GraphQLOp(admin, auditSaveSettingMutation, "SaveSetting", map[string]any{"input": map[string]any{"namespace": "shop"}}, nil)
	if g.Body["errors"] == nil {
		t.Fatalf("SaveSetting without key: %s", g.Raw)
	}
	rows, total, _ := listAuditLogs(t, e, admin, "")
	if total != 1 || len(rows) != 1 {
		t.Fatalf("a rejected mutation: %d rows, want 1", total)
	}
	checkAuditRow(t, rows[0], auditWant{storeID: s.ID, actorID: adminID, action: "putStoreSetting", method: "POST", path: "/graphql/SaveSetting", status: 400, ip: "127.0.0.1", ua: "Go-http-client/1.1"})
	if m, _ := metadataOf(rows[0])["error"].(string); m == "" {
		t.Fatalf("no error in metadata: %v", rows[0])
	}
}

// TestAuditGraphQLPathNamesOperation: the path is /graphql followed by the
// operation's name, also when the client leaves operationName out of a
// document with one named operation.
func TestAuditGraphQLPathNamesOperation(t *testing.T) {
	e := apitest.New(t)
	s := e.Store("Acme")
	admin := e.Key(s.ID, auth.RoleAdmin)

	g := e.GraphQLOp(admin, auditSaveSettingMutation, "", map[string]any{"input": map[string]any{"namespace": "shop", "key": "k", "value": 1}}, nil)
	if g.Status != 200 || g.Body["errors"] != nil {
		t.Fatalf("SaveSetting: %s", g.Raw)
	}
	rows, _, _ := listAuditLogs(t, e, admin, "")
	if len(rows) != 1 || rows[0]["path"] != "/graphql/SaveSetting" || metadataOf(rows[0])["operation"] != "SaveSetting" {
		t.Fatalf("want path /graphql/SaveSetting and operation SaveSetting, got %v", rows)
	}
}

// TestAuditSkipsRateLimitedWrites: requests the rate limiter refuses are not
// recorded, by design: a row per refused request would hand the database the
// load the limiter exists to keep away (see internal/audit.Middleware).
func TestAuditSkipsRateLimitedWrites(t *testing.T) {
	e := apitest.New(t, apitest.WithRateLimit(2))
	s := e.Store("Acme")
	admin := e.Key(s.ID, auth.RoleAdmin)
	body := map[string]any{"namespace": "shop", "key": "k", "value": 1}
	e.Do(http.MethodPut, "/store/settings", admin, body).Expect(t, 200)
	e.Do(http.MethodPut, "/store/settings", admin, body).Expect(t, 200)
	e.Do(http.MethodPut, "/store/settings", admin, body).Expect(t, 429)

	// The key is out of budget: read the log from the database.
	page, err := models.PageAuditLogs(context.Background(), e.DB, s.ID, nil, models.Paging{Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	logs := page.Rows
	if len(logs) != 2 || logs[0].StatusCode != 200 {
		t.Fatalf("want the 2 admitted writes only; got %d: %+v", len(logs), logs)
	}
}
