package apitest_test

import (
	"context"
	"fmt"
	"net/http"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/uptrace/bun"

	"storeadmin/internal/app/apitest"
	"storeadmin/internal/auth"
	"storeadmin/internal/testkit/testdns"
	"storeadmin/models"
)

// The fields of the spec's DomainView, DomainmgrDNSCheck and
// DomainmgrDNSRecord, exactly.
var (
	dmKeys       = []string{"dns_check", "dns_records", "hostname", "id", "is_primary", "last_error", "ssl_status", "status", "verification_records"}
	dmCheckSpec  = map[string]string{"detail": "s?", "points": "any", "state": "s"}
	dmRecordSpec = map[string]string{"name": "s", "note": "s?", "purpose": "s", "type": "s", "value": "s"}
)

func dmPath(id int64) string { return "/store/domains/" + strconv.FormatInt(id, 10) }

// dmDomain checks v against DomainView and returns it.
func dmDomain(t *testing.T, v any) map[string]any {
	t.Helper()
	m := objectWithKeys(t, "domain", v, dmKeys)
	if id := wholeNumber(t, m["id"]); id <= 0 {
		t.Fatalf("domain id %d", id)
	}
	boolField(t, m, "is_primary")
	for _, k := range []string{"hostname", "last_error", "ssl_status", "status"} {
		stringField(t, m, k)
	}
	if m["dns_check"] != nil {
		c := checkObject(t, "dns_check", m["dns_check"], dmCheckSpec)
		if c["points"] != nil && !hasType("s[]", c["points"]) {
			t.Fatalf("dns_check.points %#v", c["points"])
		}
	}
	checkObjects(t, "dns_records", m["dns_records"], dmRecordSpec)
	checkObjects(t, "verification_records", m["verification_records"], dmRecordSpec)
	return m
}

// dmDomains is the REST resource of custom domains.
var dmDomains = crudResource{path: "/store/domains", item: dmPath, one: "domain", many: "domains", view: dmDomain}

// dmRecords are a domain's records of one list as "TYPE name value".
func dmRecords(m map[string]any, list string) []string {
	var out []string
	for _, r := range objectsOf(m[list]) {
		out = append(out, fmt.Sprintf("%s %s %s", r["type"], r["name"], r["value"]))
	}
	return out
}

// dmToken is the verification token of a domain, from its TXT record.
func dmToken(t *testing.T, m map[string]any) string {
	t.Helper()
	for _, r := range objectsOf(m["dns_records"]) {
		if r["type"] == "TXT" {
			return r["value"].(string)
		}
	}
	t.Fatalf("domain %v has no TXT record", m["hostname"])
	return ""
}

// dmPrimaries are the hostnames of the store's domains, in list order,
// with the primary marked by a star.
func dmPrimaries(t *testing.T, e *apitest.Env, key string) []string {
	t.Helper()
	rows, _, _ := dmDomains.list(t, e, key, "")
	var out []string
	for _, r := range rows {
		h := r["hostname"].(string)
		if r["is_primary"] == true {
			h = "*" + h
		}
		out = append(out, h)
	}
	return out
}

// TestDomains: adding, listing, making primary and deleting domains over
// REST, with the same answers on GraphQL; exactly one primary while the
// store has any.
func TestDomains(t *testing.T) {
	e, s, admin := newAcme(t)
	reader := e.Key(s.ID, auth.RoleStaff, "domains:read")

	// The first domain is the primary; hostnames are stored in IDNA form.
	www := dmDomains.create(t, e, admin, map[string]any{"hostname": " WWW.Bücher.Example. "})
	wwwID := idOf(t, www)
	token := dmToken(t, www)
	want := map[string]any{"id": float64(wwwID), "hostname": "www.xn--bcher-kva.example", "is_primary": true, "status": "pending",
		"ssl_status": "pending", "last_error": "", "dns_check": nil,
		"dns_records": []any{
			map[string]any{"type": "CNAME", "name": "www.xn--bcher-kva.example", "value": "shops.platform.test", "purpose": "routing",
				"note": "replaces any A or AAAA record of www.xn--bcher-kva.example"},
			map[string]any{"type": "TXT", "name": "_storeadmin-verify.www.xn--bcher-kva.example", "value": token, "purpose": "verification",
				"note": "proves the store controls www.xn--bcher-kva.example; it may be removed once the domain is active"},
		}}
	want["verification_records"] = want["dns_records"]
	if !reflect.DeepEqual(www, want) {
		t.Fatalf("created %v\nwant %v", www, want)
	}
	if len(token) != 32 {
		t.Fatalf("token %q", token)
	}
	// An apex needs A and AAAA records to the platform's addresses.
	apex := dmDomains.create(t, e, admin, map[string]any{"hostname": "shop.example"})
	apexID := idOf(t, apex)
	if got := dmRecords(apex, "dns_records"); !slices.Equal(got, []string{"A shop.example 192.0.2.10", "AAAA shop.example 2001:db8::10",
		"TXT _storeadmin-verify.shop.example " + dmToken(t, apex)}) || apex["is_primary"] != false {
		t.Fatalf("apex: %v, primary %v", got, apex["is_primary"])
	}
	if dmToken(t, apex) == token {
		t.Fatal("two domains share a token")
	}
	third := idOf(t, dmDomains.create(t, e, admin, map[string]any{"hostname": "www.shop.example"}))

	// The list: the primary first, then oldest first, with its total.
	if got := dmPrimaries(t, e, reader); !slices.Equal(got, []string{"*www.xn--bcher-kva.example", "shop.example", "www.shop.example"}) {
		t.Fatalf("list %v", got)
	}
	_, total, list := dmDomains.list(t, e, reader, "")
	if total != 3 {
		t.Fatalf("total %d", total)
	}
	e.SameOnGraphQL(t, list, reader, "ListDomains", nil)
	_, _, page := dmDomains.list(t, e, reader, "limit=1&offset=1")
	if rows := page.List("domains"); len(rows) != 1 || page.Body["total"] != float64(3) {
		t.Fatalf("page: %s", page.Raw)
	}
	e.SameOnGraphQL(t, page, reader, "ListDomains", map[string]any{"limit": 1, "offset": 1})

	// Making another primary moves it; again is no change.
	for range 2 {
		if r := e.Do(http.MethodPost, dmPath(third)+"/primary", admin, nil).Expect(t, 200); string(r.Raw) != `{"status":true}` {
			t.Fatalf("primary: %s", r.Raw)
		}
	}
	if got := dmPrimaries(t, e, reader); !slices.Equal(got, []string{"*www.shop.example", "www.xn--bcher-kva.example", "shop.example"}) {
		t.Fatalf("after primary: %v", got)
	}
	expectAuditRecord(t, e, admin, "action=setPrimaryDomain&limit=1", "domain", third)
	if g := e.GraphQL(admin, `mutation($id: Int!) { setPrimaryDomain(id: $id) }`, map[string]any{"id": apexID}); g.Data()["setPrimaryDomain"] != true {
		t.Fatalf("GraphQL setPrimaryDomain: %s", g.Raw)
	}
	if got := dmPrimaries(t, e, reader); got[0] != "*shop.example" {
		t.Fatalf("after GraphQL primary: %v", got)
	}

	// Deleting the primary promotes the oldest active domain, else the
	// oldest: here none is active, so the oldest (www.bücher).
	if err := e.DB.RunInTx(context.Background(), nil, func(ctx context.Context, tx bun.Tx) error {
		_, err := models.RecordDomainCheck(ctx, tx, s.ID, third, models.DomainCheck{DNS: models.DomainDNSCheck{State: models.DNSPointed}, Owned: true}, time.Now())
		return err
	}); err != nil {
		t.Fatal(err)
	}
	expectBareDelete(t, e, admin, dmPath(apexID))
	if got := dmPrimaries(t, e, reader); !slices.Equal(got, []string{"*www.shop.example", "www.xn--bcher-kva.example"}) {
		t.Fatalf("after deleting the primary, the active one is primary: %v", got)
	}
	expectBareDelete(t, e, admin, dmPath(third))
	if got := dmPrimaries(t, e, reader); !slices.Equal(got, []string{"*www.xn--bcher-kva.example"}) {
		t.Fatalf("after deleting the primary, the one left is: %v", got)
	}
	expectAuditRecord(t, e, admin, "action=deleteDomain&limit=1", "domain", third)
	expectBareDelete(t, e, admin, dmPath(wwwID))
	if got := dmPrimaries(t, e, reader); len(got) != 0 {
		t.Fatalf("after deleting the last: %v", got)
	}
	e.Do(http.MethodDelete, dmPath(wwwID), admin, nil).Expect(t, 404)
	e.Do(http.MethodPost, dmPath(wwwID)+"/primary", admin, nil).Expect(t, 404)
	e.Do(http.MethodPost, dmPath(wwwID)+"/verify", admin, nil).Expect(t, 404)

	// A deleted hostname can be added again, and is the primary again.
	again := dmDomains.create(t, e, admin, map[string]any{"hostname": "shop.example"})
	if again["is_primary"] != true || dmToken(t, again) == dmToken(t, apex) {
		t.Fatalf("added again: %v", again)
	}
	// GraphQL adds answer the REST shape.
	g := e.GraphQL(admin, `mutation { addDomain(input: {hostname: "Store.Example"}) { hostname is_primary status verified_at checked_at } }`, nil)
	if d, _ := g.Data()["addDomain"].(map[string]any); g.Body["errors"] != nil || d["hostname"] != "store.example" || d["is_primary"] != false || d["verified_at"] != nil {
		t.Fatalf("GraphQL addDomain: %s", g.Raw)
	}
	expectAuditRecord(t, e, admin, "action=addDomain&limit=1", "domain", idOf(t, dmFind(t, e, admin, "store.example")))
}

// dmFind is the listed domain of hostname.
func dmFind(t *testing.T, e *apitest.Env, key, hostname string) map[string]any {
	t.Helper()
	rows, _, _ := dmDomains.list(t, e, key, "limit=250")
	for _, r := range rows {
		if r["hostname"] == hostname {
			return r
		}
	}
	t.Fatalf("%s is not listed", hostname)
	return nil
}

// dmVerify verifies the domain id over REST and returns it.
func dmVerify(t *testing.T, e *apitest.Env, key string, id int64) (map[string]any, *apitest.Response) {
	t.Helper()
	return dmDomains.send(t, e, key, http.MethodPost, dmPath(id)+"/verify", nil, 200, dmDomain)
}

// dmDNS starts a DNS server on loopback and the service asking it.
func dmDNS(t *testing.T, timeout time.Duration) (*apitest.Env, *testdns.Server, *models.Store, string) {
	t.Helper()
	ns := testdns.New(t)
	e := apitest.New(t, apitest.WithDNSResolver(ns.Addr, timeout))
	s := e.Store("Acme")
	return e, ns, s, e.Key(s.ID, auth.RoleAdmin)
}

// TestDomainsVerify: verify looks the records up in a real DNS server on
// loopback and sets status, dns_check, last_error, ssl_status and
// verification_records by what it finds, on both surfaces.
func TestDomainsVerify(t *testing.T) {
	e, ns, _, admin := dmDNS(t, 5*time.Second)
	add := func(host string) (int64, string) {
		t.Helper()
		d := dmDomains.create(t, e, admin, map[string]any{"hostname": host})
		return idOf(t, d), dmToken(t, d)
	}
	right, rightToken := add("www.right.example")
	ns.Add("www.right.example. 300 IN CNAME shops.platform.test.",
		"shops.platform.test. 300 IN A 192.0.2.10",
		`_storeadmin-verify.www.right.example. 300 IN TXT "`+rightToken+`"`)
	elsewhere, elsewhereToken := add("elsewhere.example")
	ns.Add("elsewhere.example. 300 IN A 198.51.100.7", `_storeadmin-verify.elsewhere.example. 300 IN TXT "`+elsewhereToken+`"`)
	noTXT, _ := add("www.notxt.example")
	ns.Add("www.notxt.example. 300 IN CNAME shops.platform.test.")
	nowhere, _ := add("www.nowhere.example")

	// Pointing right, TXT found: active, nothing outstanding.
	d, r := dmVerify(t, e, admin, right)
	want := map[string]any{"state": "pointed", "points": []any{"shops.platform.test"}, "detail": "www.right.example is a CNAME for shops.platform.test, the platform's target"}
	if d["status"] != "active" || d["ssl_status"] != "ready" || d["last_error"] != "" || !reflect.DeepEqual(d["dns_check"], want) || len(objectsOf(d["verification_records"])) != 0 {
		t.Fatalf("pointing right: %v", d)
	}
	e.SameOnGraphQL(t, r, admin, "VerifyDomain", map[string]any{"id": right})

	// Pointing elsewhere: pending, saying where it points.
	d, _ = dmVerify(t, e, admin, elsewhere)
	if c := d["dns_check"].(map[string]any); d["status"] != "pending" || d["ssl_status"] != "pending" || c["state"] != "elsewhere" ||
		!reflect.DeepEqual(c["points"], []any{"198.51.100.7"}) ||
		d["last_error"] != "elsewhere.example points at 198.51.100.7, which is not the platform's; its records must point at 192.0.2.10, 2001:db8::10 only" ||
		!slices.Equal(dmRecords(d, "verification_records"), []string{"A elsewhere.example 192.0.2.10", "AAAA elsewhere.example 2001:db8::10"}) {
		t.Fatalf("pointing elsewhere: %v", d)
	}

	// Pointing right without the TXT record: pending, the TXT outstanding.
	d, _ = dmVerify(t, e, admin, noTXT)
	if d["status"] != "pending" || d["dns_check"].(map[string]any)["state"] != "pointed" ||
		d["last_error"] != "the TXT record _storeadmin-verify.www.notxt.example was not found" ||
		!slices.Equal(dmRecords(d, "verification_records"), []string{"TXT _storeadmin-verify.www.notxt.example " + dmToken(t, d)}) {
		t.Fatalf("missing TXT: %v", d)
	}

	// NXDOMAIN: missing.
	d, _ = dmVerify(t, e, admin, nowhere)
	if c := d["dns_check"].(map[string]any); d["status"] != "pending" || c["state"] != "missing" || c["points"] != nil ||
		d["last_error"] != "www.nowhere.example does not exist in DNS (NXDOMAIN); the TXT record _storeadmin-verify.www.nowhere.example was not found" {
		t.Fatalf("NXDOMAIN: %v", d)
	}

	// An active domain that stops pointing here fails; the TXT record may
	// go once verified. Fixed and verified again, it is active again.
	ns.Remove("www.right.example")
	ns.Remove("_storeadmin-verify.www.right.example")
	ns.Add("www.right.example. 300 IN CNAME old-host.example.")
	d, _ = dmVerify(t, e, admin, right)
	if d["status"] != "failed" || d["ssl_status"] != "failed" || d["last_error"] != "www.right.example is a CNAME for old-host.example, not for shops.platform.test" ||
		!slices.Equal(dmRecords(d, "verification_records"), []string{"CNAME www.right.example shops.platform.test"}) {
		t.Fatalf("an active domain pointing elsewhere: %v", d)
	}
	ns.Remove("www.right.example")
	ns.Add("www.right.example. 300 IN CNAME SHOPS.platform.test.")
	if d, _ = dmVerify(t, e, admin, right); d["status"] != "active" || d["ssl_status"] != "ready" || d["last_error"] != "" {
		t.Fatalf("fixed: %v", d)
	}
	expectAuditRecord(t, e, admin, "action=verifyDomain&limit=1", "domain", right)
	// GraphQL answers the check's times.
	g := e.GraphQL(admin, `mutation($id: Int!) { verifyDomain(id: $id) { status verified_at checked_at } }`, map[string]any{"id": right})
	if v, _ := g.Data()["verifyDomain"].(map[string]any); v["status"] != "active" || v["verified_at"] == nil || v["checked_at"] == nil {
		t.Fatalf("GraphQL verifyDomain: %s", g.Raw)
	}
}

// TestDomainsVerifyTimeout: a resolver that never answers leaves the
// status as it was, and says so.
func TestDomainsVerifyTimeout(t *testing.T) {
	e, ns, _, admin := dmDNS(t, 300*time.Millisecond)
	id := idOf(t, dmDomains.create(t, e, admin, map[string]any{"hostname": "www.slow.example"}))
	ns.Add("www.slow.example. 300 IN CNAME shops.platform.test.")
	ns.Silence("www.slow.example")
	d, _ := dmVerify(t, e, admin, id)
	want := fmt.Sprintf("the DNS resolver %s did not answer within 300ms", ns.Addr)
	if c := d["dns_check"].(map[string]any); d["status"] != "pending" || c["state"] != "unreachable" || c["detail"] != want || d["last_error"] != want {
		t.Fatalf("timeout: %v", d)
	}
}

// TestDomainsPeriodicCheck: the periodic job's work rechecks the pending
// and active domains of every store not checked lately, fails those
// pending too long, and leaves failed ones alone.
func TestDomainsPeriodicCheck(t *testing.T) {
	e, ns, _, admin := dmDNS(t, 5*time.Second)
	ctx := context.Background()
	other := e.Store("Other")
	otherKey := e.Key(other.ID, auth.RoleAdmin)
	mine := dmDomains.create(t, e, admin, map[string]any{"hostname": "www.mine.example"})
	theirs := dmDomains.create(t, e, otherKey, map[string]any{"hostname": "www.theirs.example"})
	stale := dmDomains.create(t, e, admin, map[string]any{"hostname": "www.stale.example"})
	failed := dmDomains.create(t, e, admin, map[string]any{"hostname": "www.failed.example"})
	for _, d := range []map[string]any{mine, theirs, failed} {
		h := d["hostname"].(string)
		ns.Add(h+". 300 IN CNAME shops.platform.test.", "_storeadmin-verify."+h+`. 300 IN TXT "`+dmToken(t, d)+`"`)
	}
	// stale was added four days ago and never pointed here; failed is
	// failed already.
	if _, err := e.DB.NewUpdate().Model((*models.Domain)(nil)).Set("created_at = now() - interval '4 days'").Where("id = ?", idOf(t, stale)).Exec(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := e.DB.NewUpdate().Model((*models.Domain)(nil)).Set("status = 'failed'").Where("id = ?", idOf(t, failed)).Exec(ctx); err != nil {
		t.Fatal(err)
	}

	n, err := e.Config.Domains.Recheck(ctx, e.DB, time.Now)
	if err != nil || n != 3 {
		t.Fatalf("recheck: %d checked, %v", n, err)
	}
	status := func(key string, d map[string]any) string {
		t.Helper()
		return dmFind(t, e, key, d["hostname"].(string))["status"].(string)
	}
	if a, b, c, f := status(admin, mine), status(otherKey, theirs), status(admin, stale), status(admin, failed); a != "active" || b != "active" || c != "failed" || f != "failed" {
		t.Fatalf("after the run: mine %s, theirs %s, stale %s, failed %s", a, b, c, f)
	}
	if last := dmFind(t, e, admin, "www.stale.example")["last_error"]; last != "www.stale.example does not exist in DNS (NXDOMAIN); the TXT record _storeadmin-verify.www.stale.example was not found" {
		t.Fatalf("stale: %v", last)
	}
	// Just checked: the next run has nothing to do until they are due.
	if n, err := e.Config.Domains.Recheck(ctx, e.DB, time.Now); err != nil || n != 0 {
		t.Fatalf("a second run: %d checked, %v", n, err)
	}
	later := func() time.Time { return time.Now().Add(6 * time.Minute) }
	ns.Remove("www.mine.example")
	if n, err := e.Config.Domains.Recheck(ctx, e.DB, later); err != nil || n != 2 {
		t.Fatalf("a run six minutes later: %d checked, %v", n, err)
	}
	if got := status(admin, mine); got != "failed" {
		t.Fatalf("an active domain gone from DNS: %s", got)
	}
}

// TestDomainsAccess: reads are domains:read (any role), writes
// domains:write and admin; another store's domains are 404s.
func TestDomainsAccess(t *testing.T) {
	e, s, admin := newAcme(t)
	id := idOf(t, dmDomains.create(t, e, admin, map[string]any{"hostname": "www.acme.example"}))
	otherScope := e.Key(s.ID, auth.RoleAdmin, "pages:read", "pages:write")
	reads := []apitest.Call{{Method: http.MethodGet, Path: "/store/domains"}}
	writes := []apitest.Call{
		{Method: http.MethodPost, Path: "/store/domains", Body: map[string]any{"hostname": "www.refused.example"}},
		{Method: http.MethodPost, Path: dmPath(id) + "/primary"},
		{Method: http.MethodPost, Path: dmPath(id) + "/verify"},
		{Method: http.MethodDelete, Path: dmPath(id)},
	}
	k := checkAccess(t, e, s.ID, "domains", map[string]string{"other scope": otherScope}, reads, writes)
	expectUnauthorized(t, e, s.ID, http.MethodPost, "/store/domains", map[string]any{"hostname": "www.x.example"})
	expectGraphQLCode(t, e, k.staffWrite, "FORBIDDEN", nil, `mutation { addDomain(input: {hostname: "www.x.example"}) { id } }`)
	expectGraphQLCode(t, e, otherScope, "FORBIDDEN", nil, `{ domains { id } }`, `{ domainsCount }`)
	if _, total, _ := dmDomains.list(t, e, admin, ""); total != 1 {
		t.Fatalf("a refused write was written: total %d", total)
	}
	e.Do(http.MethodPost, "/store/domains", k.writer, map[string]any{"hostname": "www.writer.example"}).Expect(t, 201)
	e.Do(http.MethodPost, dmPath(id)+"/primary", k.writer, nil).Expect(t, 200)
	e.Do(http.MethodDelete, dmPath(id), k.writer, nil).Expect(t, 200)

	// Another store's domain, or none: 404 on both surfaces, nothing moved.
	o := e.Store("Other")
	theirs := dmDomains.create(t, e, e.Key(o.ID, auth.RoleAdmin), map[string]any{"hostname": "www.theirs.example"})
	theirID := idOf(t, theirs)
	for _, missing := range []int64{theirID, 987654} {
		e.ExpectEach(t, 404, map[string]string{"admin": admin}, []apitest.Call{
			{Method: http.MethodDelete, Path: dmPath(missing)},
			{Method: http.MethodPost, Path: dmPath(missing) + "/primary"},
			{Method: http.MethodPost, Path: dmPath(missing) + "/verify"},
		})
		expectGraphQLCode(t, e, admin, "NOT_FOUND", map[string]any{"id": missing},
			`mutation($id: Int!) { deleteDomain(id: $id) }`, `mutation($id: Int!) { setPrimaryDomain(id: $id) }`,
			`mutation($id: Int!) { verifyDomain(id: $id) { id } }`)
	}
	if got := dmPrimaries(t, e, admin); !slices.Equal(got, []string{"*www.writer.example"}) {
		t.Fatalf("this store's domains: %v", got)
	}
	if rows, _, _ := dmDomains.list(t, e, e.Key(o.ID, auth.RoleAdmin), ""); len(rows) != 1 || !reflect.DeepEqual(rows[0], theirs) {
		t.Fatalf("the other store's domain changed: %v", rows)
	}
	e.Do(http.MethodDelete, "/store/domains/abc", admin, nil).Expect(t, 400)
	e.Do(http.MethodPost, "/store/domains/1.5/verify", admin, nil).Expect(t, 400)
	e.Do(http.MethodPost, "/store/domains/x/primary", admin, nil).Expect(t, 400)
}

// TestDomainsValidation: a hostname breaking any rule is a 400 naming the
// rule; one that a store has already is a 409; nothing is written.
func TestDomainsValidation(t *testing.T) {
	e, _, admin := newAcme(t)
	bad := map[string]any{
		"no body":            nil,
		"empty object":       map[string]any{},
		"null hostname":      map[string]any{"hostname": nil},
		"not a string":       map[string]any{"hostname": 42},
		"unknown field":      map[string]any{"hostname": "www.a.example", "primary": true},
		"empty":              map[string]any{"hostname": ""},
		"blank":              map[string]any{"hostname": "   "},
		"scheme":             map[string]any{"hostname": "https://shop.example"},
		"path":               map[string]any{"hostname": "shop.example/about"},
		"query":              map[string]any{"hostname": "shop.example?x=1"},
		"port":               map[string]any{"hostname": "shop.example:8443"},
		"IPv4":               map[string]any{"hostname": "192.0.2.1"},
		"IPv6":               map[string]any{"hostname": "[2001:db8::1]"},
		"one label":          map[string]any{"hostname": "localhost"},
		"empty label":        map[string]any{"hostname": "shop..example"},
		"underscore":         map[string]any{"hostname": "my_shop.example"},
		"wildcard":           map[string]any{"hostname": "*.shop.example"},
		"space":              map[string]any{"hostname": "my shop.example"},
		"leading hyphen":     map[string]any{"hostname": "-shop.example"},
		"numeric TLD":        map[string]any{"hostname": "shop.123"},
		"long label":         map[string]any{"hostname": strings.Repeat("a", 64) + ".example"},
		"long name":          map[string]any{"hostname": strings.Repeat("abcdefghi.", 26) + "example"},
		"public suffix":      map[string]any{"hostname": "co.uk"},
		"platform domain":    map[string]any{"hostname": "platform.test"},
		"platform subdomain": map[string]any{"hostname": "acme.platform.test"},
		"CNAME target":       map[string]any{"hostname": "Shops.Platform.Test"},
		"malformed JSON":     `{"hostname": `,
		"array body":         `["shop.example"]`,
		"NUL":                map[string]any{"hostname": "shop\u0000.example"},
	}
	expectEach400(t, e, admin, "add", http.MethodPost, "/store/domains", bad)
	for body, reason := range map[string]string{
		"https://shop.example": "without a scheme", "shop.example:8443": "without a port", "192.0.2.1": "not an IP address",
		"localhost": "at least two labels", "co.uk": "is a public suffix", "acme.platform.test": "is the platform's own",
		"my_shop.example": "is not a valid domain name",
	} {
		if r := e.Do(http.MethodPost, "/store/domains", admin, map[string]any{"hostname": body}).Expect(t, 400); !strings.HasPrefix(r.Message(), "hostname ") || !strings.Contains(r.Message(), reason) {
			t.Fatalf("%s: message %q", body, r.Message())
		}
	}
	expectGraphQLCode(t, e, admin, "BAD_USER_INPUT", nil, `mutation { addDomain(input: {hostname: "localhost"}) { id } }`)
	if _, total, _ := dmDomains.list(t, e, admin, ""); total != 0 {
		t.Fatalf("a refused domain was written: total %d", total)
	}

	// A hostname belongs to one store: in its IDNA form, whatever its case.
	dmDomains.create(t, e, admin, map[string]any{"hostname": "www.bücher.example"})
	o := e.Store("Other")
	otherKey := e.Key(o.ID, auth.RoleAdmin)
	for _, key := range []string{admin, otherKey} {
		r := e.Do(http.MethodPost, "/store/domains", key, map[string]any{"hostname": "WWW.xn--bcher-kva.example"}).Expect(t, 409)
		if r.Message() != "www.xn--bcher-kva.example is already connected to a store; remove it there first (a hostname belongs to one store)" {
			t.Fatalf("409 message %q", r.Message())
		}
	}
	expectGraphQLCode(t, e, otherKey, "CONFLICT", nil, `mutation { addDomain(input: {hostname: "www.bücher.example"}) { id } }`)
	if _, total, _ := dmDomains.list(t, e, otherKey, ""); total != 0 {
		t.Fatalf("the other store has %d domains", total)
	}
	if _, total, _ := dmDomains.list(t, e, admin, ""); total != 1 {
		t.Fatalf("this store has %d domains", total)
	}
}

// TestDomainsFirstAddedAtOnce: domains added at once to a store without
// any all succeed, and exactly one of them is the primary.
func TestDomainsFirstAddedAtOnce(t *testing.T) {
	e, _, admin := newAcme(t)
	const n = 6
	statuses := make(chan int, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			statuses <- e.Do(http.MethodPost, "/store/domains", admin, map[string]any{"hostname": fmt.Sprintf("www.shop%d.example", i)}).Status
		})
	}
	wg.Wait()
	close(statuses)
	for s := range statuses {
		if s != http.StatusCreated {
			t.Fatalf("an add answered %d", s)
		}
	}
	primaries := 0
	for _, h := range dmPrimaries(t, e, admin) {
		if strings.HasPrefix(h, "*") {
			primaries++
		}
	}
	if primaries != 1 {
		t.Fatalf("%d primaries: %v", primaries, dmPrimaries(t, e, admin))
	}
}
