package apitest_test

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/uptrace/bun"

	"storeadmin/internal/app/apitest"
	"storeadmin/internal/auth"
	"storeadmin/internal/base/apperr"
	"storeadmin/internal/base/webhooks"
	"storeadmin/internal/events"
	"storeadmin/models"
)

// whSpecTopics are the topics of the spec's Events table.
var whSpecTopics = []string{"order.paid", "order.refunded", "order.fulfilled", "order.cancelled", "upsell.accepted", "checkout.abandoned", "cart.abandoned", "checkout.recovered"}

func webhookPath(id int64, rest ...string) string {
	return "/store/webhooks/" + strconv.FormatInt(id, 10) + strings.Join(rest, "")
}

// whView checks v against WebhookSubscriptionView (secret only when
// withSecret) and returns it.
func whView(t *testing.T, v any, withSecret bool) map[string]any {
	t.Helper()
	m, ok := v.(map[string]any)
	if !ok {
		t.Fatalf("webhook is not an object: %#v", v)
	}
	want := []string{"active", "id", "topics", "url"}
	if withSecret {
		want = []string{"active", "id", "secret", "topics", "url"}
	}
	if keys := sortedKeys(m); !reflect.DeepEqual(keys, want) {
		t.Fatalf("webhook fields %v, want %v", keys, want)
	}
	if id, ok := asWhole(m["id"]); !ok || id <= 0 {
		t.Fatalf("webhook id = %#v", m["id"])
	}
	if _, ok := m["url"].(string); !ok {
		t.Fatalf("webhook url = %#v", m["url"])
	}
	if _, ok := m["active"].(bool); !ok {
		t.Fatalf("webhook active = %#v", m["active"])
	}
	topics, ok := m["topics"].([]any)
	if !ok {
		t.Fatalf("webhook topics = %#v", m["topics"])
	}
	for _, tp := range topics {
		if _, ok := tp.(string); !ok {
			t.Fatalf("webhook topic = %#v", tp)
		}
	}
	if withSecret {
		s, _ := m["secret"].(string)
		rest, ok := strings.CutPrefix(s, "whsec_")
		if !ok || rest == "" {
			t.Fatalf("secret %q must be non-empty and start with whsec_", s)
		}
		// Standard Webhooks: whsec_ and the key in standard base64.
		if b, err := base64.StdEncoding.DecodeString(rest); err != nil || len(b) < 24 {
			t.Fatalf("secret %q is not whsec_ and enough random bytes in base64", s)
		}
	}
	return m
}

func whTopics(m map[string]any) []string {
	var out []string
	for _, tp := range m["topics"].([]any) {
		out = append(out, tp.(string))
	}
	return out
}

// createWebhook creates a subscription over REST and returns the view, secret
// included.
func createWebhook(t *testing.T, e *apitest.Env, key string, body map[string]any) map[string]any {
	t.Helper()
	r := e.Do(http.MethodPost, "/store/webhooks", key, body).Expect(t, 201)
	if keys := sortedKeys(r.Body); !reflect.DeepEqual(keys, []string{"status", "webhook"}) {
		t.Fatalf("POST /store/webhooks payload keys %v: %s", keys, r.Raw)
	}
	return whView(t, r.Body["webhook"], true)
}

// whList reads GET /store/webhooks?query and returns the views and total.
func whList(t *testing.T, e *apitest.Env, key, query string) ([]map[string]any, int64, *apitest.Response) {
	t.Helper()
	path := "/store/webhooks"
	if query != "" {
		path += "?" + query
	}
	r := e.Do(http.MethodGet, path, key, nil).Expect(t, 200)
	if keys := sortedKeys(r.Body); !reflect.DeepEqual(keys, []string{"status", "total", "webhooks"}) {
		t.Fatalf("GET %s payload keys %v: %s", path, keys, r.Raw)
	}
	var out []map[string]any
	for _, v := range r.List("webhooks") {
		out = append(out, whView(t, v, false))
	}
	return out, wholeNumber(t, r.Body["total"]), r
}

func whIDs(rows []map[string]any) []int64 { return rowIDs(rows) }

// TestWebhooksCreateListUpdateDelete: the life of a subscription over REST,
// with the same answers on GraphQL.
func TestWebhooksCreateListUpdateDelete(t *testing.T) {
	e := apitest.New(t)
	s := e.Store("Acme")
	admin := e.Key(s.ID, auth.RoleAdmin)
	staff := e.Key(s.ID, auth.RoleStaff)

	w := createWebhook(t, e, admin, map[string]any{"url": "https://example.com/hooks", "topics": []string{"order.paid", "order.refunded"}, "active": true})
	id := wholeNumber(t, w["id"])
	if w["url"] != "https://example.com/hooks" || w["active"] != true || !slices.Equal(whTopics(w), []string{"order.paid", "order.refunded"}) {
		t.Fatalf("created: %v", w)
	}
	// active defaults to true; false is kept; every subscription gets its own secret.
	w2 := createWebhook(t, e, admin, map[string]any{"url": "https://example.com/other", "topics": []string{"cart.abandoned"}})
	w3 := createWebhook(t, e, admin, map[string]any{"url": "https://example.com/off", "topics": []string{"cart.abandoned"}, "active": false})
	if w2["active"] != true || w3["active"] != false {
		t.Fatalf("active: default %v, false %v", w2["active"], w3["active"])
	}
	if w["secret"] == w2["secret"] || w2["secret"] == w3["secret"] {
		t.Fatal("two subscriptions share a secret")
	}

	// The list holds the views without the secret, for any role.
	rows, total, list := whList(t, e, staff, "")
	if total != 3 || len(rows) != 3 {
		t.Fatalf("list: %s", list.Raw)
	}
	if !slices.Contains(whIDs(rows), id) {
		t.Fatalf("list lacks %d: %s", id, list.Raw)
	}
	for _, r := range rows {
		if wholeNumber(t, r["id"]) == id && (r["url"] != w["url"] || r["active"] != true || !slices.Equal(whTopics(r), whTopics(w))) {
			t.Fatalf("listed %v, created %v", r, w)
		}
	}
	e.SameOnGraphQL(t, list, staff, "ListWebhooks", nil)
	g := e.GraphQL(admin, `query($id: Int!) { webhook(id: $id) { id url secret } webhooks { secret } }`, map[string]any{"id": id})
	if g.Body["errors"] != nil || g.Data()["webhook"].(map[string]any)["secret"] != nil {
		t.Fatalf("the secret must only be in the create answer: %s", g.Raw)
	}
	for _, v := range g.Data()["webhooks"].([]any) {
		if v.(map[string]any)["secret"] != nil {
			t.Fatalf("the secret is listed: %s", g.Raw)
		}
	}

	// Partial updates: each keeps what it does not name.
	put := func(body any) map[string]any {
		t.Helper()
		r := e.Do(http.MethodPut, webhookPath(id), admin, body).Expect(t, 200)
		if keys := sortedKeys(r.Body); !reflect.DeepEqual(keys, []string{"status", "webhook"}) {
			t.Fatalf("PUT payload keys %v: %s", keys, r.Raw)
		}
		return whView(t, r.Body["webhook"], false)
	}
	if u := put(map[string]any{"url": "https://example.com/v2"}); u["url"] != "https://example.com/v2" || u["active"] != true || !slices.Equal(whTopics(u), []string{"order.paid", "order.refunded"}) || wholeNumber(t, u["id"]) != id {
		t.Fatalf("url only: %v", u)
	}
	if u := put(map[string]any{"topics": []string{"order.cancelled", "order.cancelled", "upsell.accepted"}}); u["url"] != "https://example.com/v2" || u["active"] != true || !slices.Equal(whTopics(u), []string{"order.cancelled", "upsell.accepted"}) {
		t.Fatalf("topics only: %v", u)
	}
	off := e.Do(http.MethodPut, webhookPath(id), admin, map[string]any{"active": false}).Expect(t, 200)
	if u := whView(t, off.Body["webhook"], false); u["url"] != "https://example.com/v2" || u["active"] != false || !slices.Equal(whTopics(u), []string{"order.cancelled", "upsell.accepted"}) {
		t.Fatalf("active only: %v", u)
	}
	e.SameOnGraphQL(t, off, admin, "UpdateWebhook", map[string]any{"id": id, "input": map[string]any{"active": false}}) // a write on both surfaces
	if u := put(map[string]any{}); u["url"] != "https://example.com/v2" || u["active"] != false || len(whTopics(u)) != 2 {
		t.Fatalf("empty update changed the subscription: %v", u)
	}
	rows, _, _ = whList(t, e, admin, "")
	for _, r := range rows {
		if wholeNumber(t, r["id"]) == id && (r["url"] != "https://example.com/v2" || r["active"] != false || !slices.Equal(whTopics(r), []string{"order.cancelled", "upsell.accepted"})) {
			t.Fatalf("list after updates: %v", r)
		}
	}

	// Delete answers the bare envelope; the subscription is gone after.
	del := e.Do(http.MethodDelete, webhookPath(id), admin, nil).Expect(t, 200)
	if string(del.Raw) != `{"status":true}` {
		t.Fatalf("DELETE answered %s, want {\"status\":true}", del.Raw)
	}
	e.Do(http.MethodPut, webhookPath(id), admin, map[string]any{"active": true}).Expect(t, 404)
	e.Do(http.MethodDelete, webhookPath(id), admin, nil).Expect(t, 404)
	e.Do(http.MethodGet, webhookPath(id, "/deliveries"), admin, nil).Expect(t, 404)
	if g := e.GraphQL(admin, `query($id: Int!) { webhook(id: $id) { id } }`, map[string]any{"id": id}); g.ErrorCode() != "NOT_FOUND" {
		t.Fatalf("webhook after delete: %s", g.Raw)
	}
	if g := e.GraphQL(admin, `mutation($id: Int!) { deleteWebhook(id: $id) }`, map[string]any{"id": id}); g.ErrorCode() != "NOT_FOUND" {
		t.Fatalf("deleteWebhook twice: %s", g.Raw)
	}
	rows, total, _ = whList(t, e, admin, "")
	if total != 2 || slices.Contains(whIDs(rows), id) {
		t.Fatalf("deleted subscription still listed: %v (total %d)", rows, total)
	}

	// A GraphQL delete of an existing subscription.
	if g := e.GraphQL(admin, `mutation($id: Int!) { deleteWebhook(id: $id) }`, map[string]any{"id": w2["id"]}); g.Body["errors"] != nil || g.Data()["deleteWebhook"] != true {
		t.Fatalf("deleteWebhook: %s", g.Raw)
	}
	if _, total, _ := whList(t, e, admin, ""); total != 1 {
		t.Fatalf("total %d after two deletes, want 1", total)
	}
}

// TestWebhooksAccess: reads are r (webhooks:read, any role), writes are w
// (webhooks:write and admin); no key is 401; missing ids are 404.
func TestWebhooksAccess(t *testing.T) {
	e := apitest.New(t)
	s := e.Store("Acme")
	admin := e.Key(s.ID, auth.RoleAdmin)
	id := wholeNumber(t, createWebhook(t, e, admin, map[string]any{"url": "https://example.com/h", "topics": []string{"order.paid"}})["id"])
	body := map[string]any{"url": "https://example.com/h2", "topics": []string{"order.paid"}}

	staff := e.Key(s.ID, auth.RoleStaff)
	staffWrite := e.Key(s.ID, auth.RoleStaff, "webhooks:write")
	readOnly := e.Key(s.ID, auth.RoleAdmin, "webhooks:read")
	writer := e.Key(s.ID, auth.RoleAdmin, "webhooks:write")
	otherScope := e.Key(s.ID, auth.RoleAdmin, "orders:read", "orders:write")

	calls := []struct {
		method, path string
		body         any
		ok           int
		write        bool
	}{
		{http.MethodGet, "/store/webhooks", nil, 200, false},
		{http.MethodGet, webhookPath(id, "/deliveries"), nil, 200, false},
		{http.MethodPost, "/store/webhooks", body, 201, true},
		{http.MethodPut, webhookPath(id), map[string]any{"active": true}, 200, true},
	}
	for _, c := range calls {
		e.Do(c.method, c.path, "", c.body).Expect(t, 401)
		e.Do(c.method, c.path, "sa_api_nope", c.body).Expect(t, 401)
		e.Do(c.method, c.path, otherScope, c.body).Expect(t, 403) // scope
		if c.write {
			e.Do(c.method, c.path, staff, c.body).Expect(t, 403)      // role
			e.Do(c.method, c.path, staffWrite, c.body).Expect(t, 403) // role, with the scope
			e.Do(c.method, c.path, readOnly, c.body).Expect(t, 403)   // scope: read only
		} else {
			e.Do(c.method, c.path, staff, c.body).Expect(t, 200)
			e.Do(c.method, c.path, readOnly, c.body).Expect(t, 200)
		}
		e.Do(c.method, c.path, writer, c.body).Expect(t, c.ok) // write implies read
	}
	e.Do(http.MethodDelete, webhookPath(id), "", nil).Expect(t, 401)
	e.Do(http.MethodDelete, webhookPath(id), staff, nil).Expect(t, 403)
	e.Do(http.MethodDelete, webhookPath(id), readOnly, nil).Expect(t, 403)
	if g := e.GraphQL(staff, `mutation { createWebhook(input: {url: "https://example.com/g", topics: ["order.paid"]}) { id } }`, nil); g.ErrorCode() != "FORBIDDEN" {
		t.Fatalf("staff createWebhook: %s", g.Raw)
	}
	if g := e.GraphQL(otherScope, `{ webhooks { id } }`, nil); g.ErrorCode() != "FORBIDDEN" {
		t.Fatalf("webhooks without the scope: %s", g.Raw)
	}
	// Nothing refused was written: the two creates that passed are there.
	if _, total, _ := whList(t, e, admin, ""); total != 2 {
		t.Fatalf("total %d, want 2 (the first create and the writer's)", total)
	}

	// Missing and malformed ids.
	for _, c := range []struct {
		method, path string
		body         any
	}{
		{http.MethodPut, webhookPath(987654), map[string]any{"active": true}}, {http.MethodDelete, webhookPath(987654), nil}, {http.MethodGet, webhookPath(987654, "/deliveries"), nil},
	} {
		e.Do(c.method, c.path, admin, c.body).Expect(t, 404)
	}
	e.Do(http.MethodPut, "/store/webhooks/abc", admin, map[string]any{"active": true}).Expect(t, 400)
	e.Do(http.MethodGet, "/store/webhooks/abc/deliveries", admin, nil).Expect(t, 400)
	e.Do(http.MethodDelete, "/store/webhooks/1.5", admin, nil).Expect(t, 400)
	e.Do(http.MethodDelete, webhookPath(id), writer, nil).Expect(t, 200)
}

// TestWebhooksValidation: bad subscriber URLs and topics are 400 on create
// and update, and nothing is written.
func TestWebhooksValidation(t *testing.T) {
	e := apitest.New(t)
	s := e.Store("Acme")
	admin := e.Key(s.ID, auth.RoleAdmin)
	topics := []string{"order.paid"}
	long := "https://example.com/" + strings.Repeat("a", webhooks.MaxURLLength-len("https://example.com/"))

	for name, body := range map[string]any{
		"no body":            nil,
		"empty object":       map[string]any{},
		"missing url":        map[string]any{"topics": topics},
		"empty url":          map[string]any{"url": "", "topics": topics},
		"blank url":          map[string]any{"url": "   ", "topics": topics},
		"relative url":       map[string]any{"url": "/hooks", "topics": topics},
		"no scheme":          map[string]any{"url": "example.com/hooks", "topics": topics},
		"ftp scheme":         map[string]any{"url": "ftp://example.com/hooks", "topics": topics},
		"javascript scheme":  map[string]any{"url": "javascript:alert(1)", "topics": topics},
		"credentials":        map[string]any{"url": "https://user:pass@example.com/hooks", "topics": topics},
		"user name":          map[string]any{"url": "https://user@example.com/hooks", "topics": topics},
		"url too long":       map[string]any{"url": long + "a", "topics": topics},
		"url not a string":   map[string]any{"url": 42, "topics": topics},
		"missing topics":     map[string]any{"url": "https://example.com/hooks"},
		"empty topics":       map[string]any{"url": "https://example.com/hooks", "topics": []string{}},
		"unknown topic":      map[string]any{"url": "https://example.com/hooks", "topics": []string{"order.created"}},
		"one unknown topic":  map[string]any{"url": "https://example.com/hooks", "topics": []string{"order.paid", "nope"}},
		"topics not a list":  map[string]any{"url": "https://example.com/hooks", "topics": 7},
		"active not boolean": map[string]any{"url": "https://example.com/hooks", "topics": topics, "active": "yes"},
		"malformed JSON":     `{"url": `,
		"array body":         `[1]`,
	} {
		if r := e.Do(http.MethodPost, "/store/webhooks", admin, body); r.Status != 400 {
			t.Fatalf("%s: status %d, want 400: %s", name, r.Status, r.Raw)
		} else {
			r.Expect(t, 400)
		}
	}
	if _, total, _ := whList(t, e, admin, ""); total != 0 {
		t.Fatalf("a refused create was written: total %d", total)
	}
	if g := e.GraphQL(admin, `mutation { createWebhook(input: {url: "/relative", topics: ["order.paid"]}) { id } }`, nil); g.ErrorCode() != "BAD_USER_INPUT" {
		t.Fatalf("GraphQL relative url: %s", g.Raw)
	}
	if g := e.GraphQL(admin, `mutation { createWebhook(input: {url: "https://example.com/x", topics: ["nope"]}) { id } }`, nil); g.ErrorCode() != "BAD_USER_INPUT" {
		t.Fatalf("GraphQL unknown topic: %s", g.Raw)
	}

	// The length bound is inclusive; surrounding spaces are trimmed; the
	// harness allows loopback targets (as STOREADMIN_WEBHOOK_ALLOW_PRIVATE=1).
	if w := createWebhook(t, e, admin, map[string]any{"url": long, "topics": topics}); w["url"] != long {
		t.Fatalf("a %d-character url came back as %v", len(long), w["url"])
	}
	if w := createWebhook(t, e, admin, map[string]any{"url": "  https://example.com/trim  ", "topics": topics}); w["url"] != "https://example.com/trim" {
		t.Fatalf("url not trimmed: %q", w["url"])
	}
	w := createWebhook(t, e, admin, map[string]any{"url": "http://127.0.0.1:9/hook", "topics": topics})
	id := wholeNumber(t, w["id"])

	// Updates are checked the same way and leave the subscription untouched.
	for name, body := range map[string]any{
		"empty url":     map[string]any{"url": ""},
		"relative url":  map[string]any{"url": "/hooks"},
		"ftp scheme":    map[string]any{"url": "ftp://example.com/hooks"},
		"credentials":   map[string]any{"url": "https://user:pass@example.com/hooks"},
		"url too long":  map[string]any{"url": long + "a"},
		"empty topics":  map[string]any{"topics": []string{}},
		"unknown topic": map[string]any{"topics": []string{"order.created"}},
		"bad active":    map[string]any{"active": "no"},
		"mixed":         map[string]any{"url": "https://example.com/fine", "topics": []string{"nope"}},
		"malformed":     `{"url": `,
	} {
		if r := e.Do(http.MethodPut, webhookPath(id), admin, body); r.Status != 400 {
			t.Fatalf("update %s: status %d, want 400: %s", name, r.Status, r.Raw)
		} else {
			r.Expect(t, 400)
		}
	}
	rows, _, _ := whList(t, e, admin, "")
	for _, r := range rows {
		if wholeNumber(t, r["id"]) == id && (r["url"] != "http://127.0.0.1:9/hook" || !slices.Equal(whTopics(r), topics) || r["active"] != true) {
			t.Fatalf("a refused update changed the subscription: %v", r)
		}
	}
}

// TestWebhooksCheckURLRefusesPrivateTargets: without the allow-private
// setting, literal private, loopback and link-local targets and localhost
// names are refused. CheckURL only parses: no traffic is sent anywhere.
func TestWebhooksCheckURLRefusesPrivateTargets(t *testing.T) {
	private := []string{
		"http://127.0.0.1/x",
		"http://localhost/x",
		"http://10.0.0.5/",
		"http://169.254.169.254/",
		"http://[::1]/",
		"http://192.168.1.1/",
		"http://172.16.0.1/",
		"http://0.0.0.0/",
		"http://[::ffff:127.0.0.1]/",
		"http://100.64.0.1/",
		"http://[fc00::1]/",
		"http://[fe80::1]/",
		"http://LOCALHOST:8080/x",
		"http://localhost./x",
		"http://api.localhost/x",
		"http://0.0.0.1/",
		"http://255.255.255.255/",
		"http://[::127.0.0.1]/",
		"http://[64:ff9b::7f00:1]/",
	}
	for _, raw := range private {
		if got, err := webhooks.CheckURL(raw, false); err == nil {
			t.Errorf("CheckURL(%q, false) accepted it as %q", raw, got)
		} else if apperr.CodeOf(err) != apperr.Invalid {
			t.Errorf("CheckURL(%q, false): %v has code %s, want %s", raw, err, apperr.CodeOf(err), apperr.Invalid)
		}
	}
	for _, raw := range []string{"https://example.com/hooks", "http://example.com:8080/in?x=1", "https://93.184.215.14/hooks"} {
		got, err := webhooks.CheckURL(raw, false)
		if err != nil || got != raw {
			t.Errorf("CheckURL(%q, false) = %q, %v; want it accepted as is", raw, got, err)
		}
	}
	// Allowed when configured so, as the test harness does.
	for _, raw := range []string{"http://127.0.0.1/x", "http://localhost/x", "http://[::1]/", "http://10.0.0.5/"} {
		if _, err := webhooks.CheckURL(raw, true); err != nil {
			t.Errorf("CheckURL(%q, true): %v", raw, err)
		}
	}
	// Scheme, credentials and length rules hold either way.
	for _, allow := range []bool{false, true} {
		for _, raw := range []string{"", "/x", "ftp://example.com/x", "https://a:b@example.com/x", "https://example.com/" + strings.Repeat("a", webhooks.MaxURLLength)} {
			if _, err := webhooks.CheckURL(raw, allow); apperr.CodeOf(err) != apperr.Invalid {
				t.Errorf("CheckURL(%.40q, %v) = %v, want an invalid-input error", raw, allow, err)
			}
		}
	}
}

// TestWebhooksRefuseSpecialTargetsOverHTTP: a service that refuses private
// targets answers 400 naming the address's block when a subscription is
// created or moved to a special-purpose address, in any spelling, and keeps
// nothing; a public target is saved.
func TestWebhooksRefuseSpecialTargetsOverHTTP(t *testing.T) {
	e := apitest.New(t, apitest.WithPrivateWebhooksRefused())
	s := e.Store("Acme")
	admin := e.Key(s.ID, auth.RoleAdmin)
	w := createWebhook(t, e, admin, map[string]any{"url": "https://hooks.example.com/in", "topics": []string{"order.paid"}})
	refused := map[string]string{
		"http://0.0.0.1/hook":            `url must point at a public address; 0.0.0.1 is "this network"`,
		"http://255.255.255.255/hook":    "url must point at a public address; 255.255.255.255 is reserved (and the limited broadcast address)",
		"http://[::127.0.0.1]/hook":      "url must point at a public address; ::7f00:1 is IPv4-compatible (deprecated)",
		"http://[64:ff9b::7f00:1]/hook":  "url must point at a public address; 64:ff9b::7f00:1 is NAT64 well-known prefix 127.0.0.1, loopback",
		"http://[::ffff:10.0.0.1]/hook":  "url must point at a public address; ::ffff:10.0.0.1 is IPv4-mapped 10.0.0.1, private-use",
		"http://[2002:a9fe:a9fe::]/hook": "url must point at a public address; 2002:a9fe:a9fe:: is 6to4 169.254.169.254, link-local",
		"http://0x7f.1/hook":             "url must write an IPv4 address as four decimal numbers (such as 93.184.215.14), not 0x7f.1",
	}
	for raw, want := range refused {
		body := map[string]any{"url": raw, "topics": []string{"order.paid"}}
		if r := e.Do(http.MethodPost, "/store/webhooks", admin, body).Expect(t, 400); r.Message() != want {
			t.Errorf("POST %s: message %q, want %q", raw, r.Message(), want)
		}
		if r := e.Do(http.MethodPut, "/store/webhooks/"+strconv.FormatInt(wholeNumber(t, w["id"]), 10), admin, map[string]any{"url": raw}).Expect(t, 400); r.Message() != want {
			t.Errorf("PUT %s: message %q, want %q", raw, r.Message(), want)
		}
	}
	list, total, _ := whList(t, e, admin, "")
	if total != 1 || list[0]["url"] != "https://hooks.example.com/in" {
		t.Fatalf("refused targets were kept: %v", list)
	}
}

// TestWebhooksTopics: every spec topic is accepted, duplicates are dropped
// (first occurrence kept), and webhookTopics lists exactly the spec's.
func TestWebhooksTopics(t *testing.T) {
	e := apitest.New(t)
	s := e.Store("Acme")
	admin := e.Key(s.ID, auth.RoleAdmin)

	for _, tp := range whSpecTopics {
		if w := createWebhook(t, e, admin, map[string]any{"url": "https://example.com/" + tp, "topics": []string{tp}}); !slices.Equal(whTopics(w), []string{tp}) {
			t.Fatalf("topic %s: %v", tp, w["topics"])
		}
	}
	all := append(append([]string{}, whSpecTopics...), whSpecTopics...)
	if w := createWebhook(t, e, admin, map[string]any{"url": "https://example.com/all", "topics": all}); !slices.Equal(whTopics(w), whSpecTopics) {
		t.Fatalf("all topics twice: %v, want %v", w["topics"], whSpecTopics)
	}
	w := createWebhook(t, e, admin, map[string]any{"url": "https://example.com/dup", "topics": []string{"order.refunded", "order.paid", "order.refunded", "order.paid"}})
	if !slices.Equal(whTopics(w), []string{"order.refunded", "order.paid"}) {
		t.Fatalf("de-duplicated topics: %v", w["topics"])
	}
	rows, _, _ := whList(t, e, admin, "")
	for _, r := range rows {
		if r["id"] == w["id"] && !slices.Equal(whTopics(r), []string{"order.refunded", "order.paid"}) {
			t.Fatalf("stored topics: %v", r["topics"])
		}
	}
	g := e.GraphQL(e.Key(s.ID, auth.RoleStaff), `{ webhookTopics }`, nil)
	var listed []string
	for _, v := range g.Data()["webhookTopics"].([]any) {
		listed = append(listed, v.(string))
	}
	if !slices.Equal(listed, whSpecTopics) {
		t.Fatalf("webhookTopics = %v, want %v", listed, whSpecTopics)
	}
	// Topics are names, exactly.
	e.Do(http.MethodPost, "/store/webhooks", admin, map[string]any{"url": "https://example.com/x", "topics": []string{"ORDER.PAID"}}).Expect(t, 400)
	e.Do(http.MethodPost, "/store/webhooks", admin, map[string]any{"url": "https://example.com/x", "topics": []string{"order.*"}}).Expect(t, 400)
	e.Do(http.MethodPost, "/store/webhooks", admin, map[string]any{"url": "https://example.com/x", "topics": []string{""}}).Expect(t, 400)
}

// TestWebhooksListPaging: limit, offset and total on the list, on both
// surfaces.
func TestWebhooksListPaging(t *testing.T) {
	e := apitest.New(t)
	s := e.Store("Acme")
	admin := e.Key(s.ID, auth.RoleAdmin)
	for i := range 5 {
		createWebhook(t, e, admin, map[string]any{"url": "https://example.com/" + strconv.Itoa(i), "topics": []string{"order.paid"}})
	}
	all, total, _ := whList(t, e, admin, "")
	if total != 5 || len(all) != 5 {
		t.Fatalf("total %d, %d rows", total, len(all))
	}
	ids := whIDs(all)
	for _, c := range []struct {
		query  string
		lo, hi int
	}{{"limit=2", 0, 2}, {"limit=2&offset=2", 2, 4}, {"limit=2&offset=4", 4, 5}, {"offset=5", 5, 5}, {"offset=1", 1, 5}} {
		rows, total, r := whList(t, e, admin, c.query)
		if got := whIDs(rows); total != 5 || !slices.Equal(got, ids[c.lo:c.hi]) {
			t.Fatalf("?%s: ids %v total %d, want %v total 5", c.query, got, total, ids[c.lo:c.hi])
		}
		if c.query == "limit=2&offset=2" {
			e.SameOnGraphQL(t, r, admin, "ListWebhooks", map[string]any{"limit": 2, "offset": 2})
		}
	}
	for _, q := range []string{"limit=0", "limit=251", "limit=x", "offset=-1"} {
		e.Do(http.MethodGet, "/store/webhooks?"+q, admin, nil).Expect(t, 400)
	}
}

// TestWebhooksOtherStore: another store's subscription is a 404 everywhere
// and never listed, and stays as it was.
func TestWebhooksOtherStore(t *testing.T) {
	e := apitest.New(t)
	a := e.Store("Acme")
	b := e.Store("Bolt")
	aKey := e.Key(a.ID, auth.RoleAdmin)
	bKey := e.Key(b.ID, auth.RoleAdmin)
	mine := createWebhook(t, e, aKey, map[string]any{"url": "https://example.com/a", "topics": []string{"order.paid"}})
	theirs := createWebhook(t, e, bKey, map[string]any{"url": "https://example.com/b", "topics": []string{"order.refunded"}})
	bID := wholeNumber(t, theirs["id"])

	e.Do(http.MethodPut, webhookPath(bID), aKey, map[string]any{"url": "https://evil.example/x", "active": false}).Expect(t, 404)
	e.Do(http.MethodPut, webhookPath(bID), aKey, map[string]any{}).Expect(t, 404)
	e.Do(http.MethodGet, webhookPath(bID, "/deliveries"), aKey, nil).Expect(t, 404)
	e.Do(http.MethodGet, webhookPath(bID, "/deliveries?status=failed"), aKey, nil).Expect(t, 404)
	e.Do(http.MethodDelete, webhookPath(bID), aKey, nil).Expect(t, 404)
	for _, q := range []string{
		`query($id: Int!) { webhook(id: $id) { id } }`,
		`query($id: Int!) { webhookDeliveries(id: $id) { id } }`,
		`query($id: Int!) { webhookDeliveriesCount(id: $id) }`,
		`mutation($id: Int!) { updateWebhook(id: $id, input: {active: false}) { id } }`,
		`mutation($id: Int!) { deleteWebhook(id: $id) }`,
	} {
		if g := e.GraphQL(aKey, q, map[string]any{"id": bID}); g.ErrorCode() != "NOT_FOUND" {
			t.Fatalf("%s on another store's id: %s", q, g.Raw)
		}
	}
	rows, total, _ := whList(t, e, aKey, "")
	if total != 1 || !slices.Equal(whIDs(rows), []int64{wholeNumber(t, mine["id"])}) {
		t.Fatalf("store A lists %v (total %d)", whIDs(rows), total)
	}
	rows, total, _ = whList(t, e, bKey, "")
	if total != 1 || rows[0]["url"] != "https://example.com/b" || rows[0]["active"] != true || !slices.Equal(whTopics(rows[0]), []string{"order.refunded"}) {
		t.Fatalf("store B's subscription changed: %v", rows)
	}
}

// whDeliveryKeys are the fields of the spec's WebhookDeliveryView.
var whDeliveryKeys = []string{"attempts", "id", "last_error", "last_status_code", "status", "topic"}

// whCheckDelivery fails unless got (a listed delivery) carries want's values
// with the spec's types.
func whCheckDelivery(t *testing.T, got any, want models.WebhookDelivery) {
	t.Helper()
	m, ok := got.(map[string]any)
	if !ok {
		t.Fatalf("delivery is not an object: %#v", got)
	}
	for _, k := range whDeliveryKeys {
		if _, ok := m[k]; !ok {
			t.Fatalf("delivery lacks %s: %v", k, m)
		}
	}
	for _, k := range []string{"attempts", "id", "last_status_code"} {
		if _, ok := asWhole(m[k]); !ok {
			t.Fatalf("delivery %s = %#v, want an integer", k, m[k])
		}
	}
	for _, k := range []string{"last_error", "status", "topic"} {
		if _, ok := m[k].(string); !ok {
			t.Fatalf("delivery %s = %#v, want a string", k, m[k])
		}
	}
	have := models.WebhookDelivery{ID: wholeNumber(t, m["id"]), Attempts: wholeNumber(t, m["attempts"]), LastStatusCode: wholeNumber(t, m["last_status_code"]),
		LastError: m["last_error"].(string), Status: m["status"].(string), Topic: m["topic"].(string)}
	exp := models.WebhookDelivery{ID: want.ID, Attempts: want.Attempts, LastStatusCode: want.LastStatusCode, LastError: want.LastError, Status: want.Status, Topic: want.Topic}
	if have != exp {
		t.Fatalf("delivery:\n got  %+v\n want %+v", have, exp)
	}
}

// whFixture is two stores with subscriptions and deliveries.
type whFixture struct {
	e              *apitest.Env
	a, b           *models.Store
	aKey, bKey     string
	s1, s2, s3, b1 int64
	dels           map[int64][]models.WebhookDelivery // newest first
}

// whDeliveriesFixture makes store A with subscriptions s1 (26 deliveries,
// two sharing a created_at, and the last inserted being the oldest), s2 (3)
// and s3 (none), and store B with one subscription b1 (2 deliveries), each
// subscription's deliveries kept newest first in dels.
func whDeliveriesFixture(t *testing.T) *whFixture {
	t.Helper()
	e := apitest.New(t)
	f := &whFixture{e: e, a: e.Store("Acme"), b: e.Store("Bolt"), dels: map[int64][]models.WebhookDelivery{}}
	f.aKey = e.Key(f.a.ID, auth.RoleAdmin)
	f.bKey = e.Key(f.b.ID, auth.RoleAdmin)
	sub := func(key, u string) int64 {
		return wholeNumber(t, createWebhook(t, e, key, map[string]any{"url": u, "topics": whSpecTopics})["id"])
	}
	f.s1, f.s2, f.s3 = sub(f.aKey, "https://example.com/1"), sub(f.aKey, "https://example.com/2"), sub(f.aKey, "https://example.com/3")
	f.b1 = sub(f.bKey, "https://example.org/b")

	base := time.Now().UTC().Add(-3 * time.Hour).Truncate(time.Second)
	statuses := []string{models.DeliveryPending, models.DeliverySucceeded, models.DeliveryFailed}
	codes := []int64{0, 200, 500}
	mk := func(storeID, subID int64, i int, at time.Time) models.WebhookDelivery {
		d := models.WebhookDelivery{StoreID: storeID, SubscriptionID: subID, EventID: 1000 + int64(i), Topic: whSpecTopics[i%len(whSpecTopics)],
			Status: statuses[i%3], Attempts: int64(i%4 + 1), LastStatusCode: codes[i%3], CreatedAt: at, UpdatedAt: at}
		if d.Status == models.DeliveryFailed {
			d.LastError = "HTTP 500 from subscriber (" + strconv.Itoa(i) + ")"
		}
		return d
	}
	var batch []models.WebhookDelivery
	for i := range 25 {
		at := base.Add(time.Duration(i) * time.Minute)
		if i == 24 {
			at = base.Add(23 * time.Minute) // ties with i=23: the higher id is newer
		}
		batch = append(batch, mk(f.a.ID, f.s1, i, at))
	}
	for i := range 3 {
		batch = append(batch, mk(f.a.ID, f.s2, 100+i, base.Add(time.Duration(i)*time.Minute+30*time.Second)))
	}
	for i := range 2 {
		batch = append(batch, mk(f.b.ID, f.b1, 200+i, base.Add(time.Duration(i)*time.Minute+45*time.Second)))
	}
	ctx := context.Background()
	// Every delivery belongs to an event.
	evs := map[int64]models.Event{}
	for _, d := range batch {
		evs[d.EventID] = models.Event{ID: d.EventID, StoreID: d.StoreID, Topic: d.Topic, Resource: "order", ResourceID: 1, Payload: []byte(`{}`)}
	}
	for _, ev := range evs {
		if _, err := e.DB.NewInsert().Model(&ev).Exec(ctx); err != nil {
			t.Fatalf("insert event: %v", err)
		}
	}
	if _, err := e.DB.NewInsert().Model(&batch).Returning("*").Exec(ctx); err != nil {
		t.Fatalf("insert deliveries: %v", err)
	}
	late := []models.WebhookDelivery{mk(f.a.ID, f.s1, 2, base.Add(-time.Hour))} // the highest id, the oldest time
	if _, err := e.DB.NewInsert().Model(&late).Returning("*").Exec(ctx); err != nil {
		t.Fatalf("insert delivery: %v", err)
	}
	for _, d := range append(batch, late...) {
		f.dels[d.SubscriptionID] = append(f.dels[d.SubscriptionID], d)
	}
	for _, ds := range f.dels {
		slices.SortFunc(ds, func(x, y models.WebhookDelivery) int {
			if c := y.CreatedAt.Compare(x.CreatedAt); c != 0 {
				return c
			}
			return int(y.ID - x.ID)
		})
	}
	if len(f.dels[f.s1]) != 26 || f.dels[f.s1][25].ID != late[0].ID {
		t.Fatalf("fixture: s1 has %d deliveries", len(f.dels[f.s1]))
	}
	return f
}

func whFilter(ds []models.WebhookDelivery, status string) []models.WebhookDelivery {
	var out []models.WebhookDelivery
	for _, d := range ds {
		if status == "" || d.Status == status {
			out = append(out, d)
		}
	}
	return out
}

// TestWebhooksDeliveries: GET /store/webhooks/{id}/deliveries lists one
// subscription's deliveries newest first, filters by status, pages with
// total, and refuses bad statuses and other stores' subscriptions.
func TestWebhooksDeliveries(t *testing.T) {
	f := whDeliveriesFixture(t)
	e := f.e
	staff := e.Key(f.a.ID, auth.RoleStaff)

	get := func(key string, id int64, query string) ([]any, int64, *apitest.Response) {
		t.Helper()
		path := webhookPath(id, "/deliveries")
		if query != "" {
			path += "?" + query
		}
		r := e.Do(http.MethodGet, path, key, nil).Expect(t, 200)
		if keys := sortedKeys(r.Body); !reflect.DeepEqual(keys, []string{"deliveries", "status", "total"}) {
			t.Fatalf("GET %s payload keys %v: %s", path, keys, r.Raw)
		}
		return r.List("deliveries"), wholeNumber(t, r.Body["total"]), r
	}
	check := func(got []any, total int64, want []models.WebhookDelivery, wantTotal int, what string) {
		t.Helper()
		if len(got) != len(want) || total != int64(wantTotal) {
			t.Fatalf("%s: %d deliveries, total %d; want %d, total %d", what, len(got), total, len(want), wantTotal)
		}
		for i := range want {
			whCheckDelivery(t, got[i], want[i])
		}
	}

	s1 := f.dels[f.s1]
	got, total, r := get(staff, f.s1, "")
	check(got, total, s1, 26, "s1")
	e.SameOnGraphQL(t, r, staff, "ListWebhookDeliveries", map[string]any{"id": f.s1})
	got, total, _ = get(f.aKey, f.s2, "")
	check(got, total, f.dels[f.s2], 3, "s2")
	got, total, _ = get(f.aKey, f.s3, "")
	check(got, total, nil, 0, "s3")
	got, total, _ = get(f.bKey, f.b1, "")
	check(got, total, f.dels[f.b1], 2, "store B")

	for _, st := range []string{models.DeliveryPending, models.DeliverySucceeded, models.DeliveryFailed} {
		want := whFilter(s1, st)
		got, total, _ := get(f.aKey, f.s1, "status="+st)
		check(got, total, want, len(want), "status="+st)
		if len(want) < 3 {
			t.Fatalf("fixture has only %d %s deliveries", len(want), st)
		}
		got, total, r := get(f.aKey, f.s1, "status="+st+"&limit=2&offset=1")
		check(got, total, want[1:3], len(want), "status="+st+" paged")
		e.SameOnGraphQL(t, r, f.aKey, "ListWebhookDeliveries", map[string]any{"id": f.s1, "status": st, "limit": 2, "offset": 1})
	}
	for _, c := range []struct {
		query  string
		lo, hi int
	}{{"limit=10", 0, 10}, {"limit=10&offset=10", 10, 20}, {"limit=10&offset=20", 20, 26}, {"offset=26", 26, 26}, {"limit=1&offset=25", 25, 26}} {
		got, total, _ := get(f.aKey, f.s1, c.query)
		check(got, total, s1[c.lo:c.hi], 26, c.query)
	}

	for _, q := range []string{"status=done", "status=FAILED", "status=", "limit=0", "limit=251", "offset=-1"} {
		e.Do(http.MethodGet, webhookPath(f.s1, "/deliveries?"+q), f.aKey, nil).Expect(t, 400)
	}
	if g := e.GraphQL(f.aKey, `query($id: Int!) { webhookDeliveriesCount(id: $id, status: "done") }`, map[string]any{"id": f.s1}); g.ErrorCode() != "BAD_USER_INPUT" {
		t.Fatalf("GraphQL bad status: %s", g.Raw)
	}
	e.Do(http.MethodGet, webhookPath(f.b1, "/deliveries"), f.aKey, nil).Expect(t, 404)
	e.Do(http.MethodGet, webhookPath(f.s1, "/deliveries"), f.bKey, nil).Expect(t, 404)
	e.Do(http.MethodGet, webhookPath(f.s1, "/deliveries"), e.Key(f.a.ID, auth.RoleAdmin, "orders:read"), nil).Expect(t, 403)
	e.Do(http.MethodGet, webhookPath(f.s1, "/deliveries"), "", nil).Expect(t, 401)

	// Deleting a subscription removes its deliveries.
	e.Do(http.MethodDelete, webhookPath(f.s2), f.aKey, nil).Expect(t, 200)
	n, err := e.DB.NewSelect().Model((*models.WebhookDelivery)(nil)).Where("subscription_id = ?", f.s2).Count(context.Background())
	if err != nil || n != 0 {
		t.Fatalf("%d deliveries of a deleted subscription remain (%v)", n, err)
	}
	e.Do(http.MethodGet, webhookPath(f.s2, "/deliveries"), f.aKey, nil).Expect(t, 404)
}

// TestWebhooksRecentDeliveries: the GraphQL field recent_deliveries holds at
// most the 20 newest deliveries of each subscription, newest first, and only
// the caller's store's.
func TestWebhooksRecentDeliveries(t *testing.T) {
	f := whDeliveriesFixture(t)
	q := `{ webhooks { id recent_deliveries { id topic status attempts last_status_code last_error created_at } } }`
	for _, c := range []struct {
		key  string
		want map[int64][]models.WebhookDelivery
	}{
		{f.aKey, map[int64][]models.WebhookDelivery{f.s1: f.dels[f.s1][:20], f.s2: f.dels[f.s2], f.s3: nil}},
		{f.bKey, map[int64][]models.WebhookDelivery{f.b1: f.dels[f.b1]}},
	} {
		g := f.e.GraphQL(c.key, q, nil)
		if g.Status != 200 || g.Body["errors"] != nil {
			t.Fatalf("recent_deliveries: %s", g.Raw)
		}
		subs := g.Data()["webhooks"].([]any)
		if len(subs) != len(c.want) {
			t.Fatalf("%d subscriptions, want %d: %s", len(subs), len(c.want), g.Raw)
		}
		for _, v := range subs {
			sub := v.(map[string]any)
			id := wholeNumber(t, sub["id"])
			want, ok := c.want[id]
			if !ok {
				t.Fatalf("subscription %d listed: %s", id, g.Raw)
			}
			got, ok := sub["recent_deliveries"].([]any)
			if !ok || len(got) != len(want) {
				t.Fatalf("subscription %d: %d recent deliveries, want %d", id, len(got), len(want))
			}
			for i := range want {
				whCheckDelivery(t, got[i], want[i])
				at, err := time.Parse(time.RFC3339Nano, got[i].(map[string]any)["created_at"].(string))
				if err != nil || !at.Equal(want[i].CreatedAt) {
					t.Fatalf("subscription %d delivery %d created_at %v, want %v", id, i, got[i].(map[string]any)["created_at"], want[i].CreatedAt)
				}
			}
		}
	}
	// The single-subscription field agrees.
	g := f.e.GraphQL(f.aKey, `query($id: Int!) { webhook(id: $id) { recent_deliveries { id } } }`, map[string]any{"id": f.s1})
	rd, _ := g.Data()["webhook"].(map[string]any)["recent_deliveries"].([]any)
	if len(rd) != 20 || wholeNumber(t, rd[0].(map[string]any)["id"]) != f.dels[f.s1][0].ID {
		t.Fatalf("webhook(id).recent_deliveries: %s", g.Raw)
	}
}

// webhookReceiver is a subscriber endpoint on loopback that keeps what it gets.
type webhookReceiver struct {
	*httptest.Server
	got chan receivedWebhook
}

type receivedWebhook struct {
	header http.Header
	body   []byte
}

func newWebhookReceiver(t *testing.T) *webhookReceiver {
	r := &webhookReceiver{got: make(chan receivedWebhook, 16)}
	r.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		body, _ := io.ReadAll(req.Body)
		r.got <- receivedWebhook{header: req.Header.Clone(), body: body}
	}))
	t.Cleanup(r.Close)
	return r
}

// next waits for the next request.
func (r *webhookReceiver) next(t *testing.T) receivedWebhook {
	t.Helper()
	select {
	case got := <-r.got:
		return got
	case <-time.After(time.Minute):
		t.Fatal("no webhook arrived")
		return receivedWebhook{}
	}
}

// whEmit records an order.refunded event of the store through the service's
// events engine, in a committed transaction.
func whEmit(t *testing.T, e *apitest.Env, storeID, orderID int64) int64 {
	t.Helper()
	var id int64
	err := e.DB.RunInTx(context.Background(), nil, func(ctx context.Context, tx bun.Tx) error {
		var err error
		id, err = e.Events.Emit(ctx, tx, events.Event{StoreID: storeID, Topic: "order.refunded", Resource: "order", ResourceID: orderID,
			Data: json.RawMessage(`{"order": {"id": ` + strconv.FormatInt(orderID, 10) + `}}`)})
		return err
	})
	if err != nil {
		t.Fatalf("emit: %v", err)
	}
	return id
}

// verifySignature checks a request as a subscriber would, with the secret the API
// showed: X-Shop-Signature and the Standard Webhooks signature.
func verifySignature(t *testing.T, secret string, r receivedWebhook) {
	t.Helper()
	ts := r.header.Get("X-Shop-Timestamp")
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write([]byte(ts + "." + string(r.body)))
	if got := r.header.Get("X-Shop-Signature"); got != hex.EncodeToString(mac.Sum(nil)) {
		t.Fatalf("X-Shop-Signature %q does not verify", got)
	}
	key, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(secret, "whsec_"))
	if err != nil {
		t.Fatal(err)
	}
	mac = hmac.New(sha256.New, key)
	mac.Write([]byte(r.header.Get("webhook-id") + "." + r.header.Get("webhook-timestamp") + "." + string(r.body)))
	if got, want := r.header.Get("webhook-signature"), "v1,"+base64.StdEncoding.EncodeToString(mac.Sum(nil)); got != want {
		t.Fatalf("webhook-signature %q, want %q", got, want)
	}
}

// whWaitDelivery polls GET /store/webhooks/{id}/deliveries until its newest
// delivery has the status.
func whWaitDelivery(t *testing.T, e *apitest.Env, key string, subID int64, status string) map[string]any {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for {
		r := e.Do(http.MethodGet, webhookPath(subID, "/deliveries"), key, nil).Expect(t, 200)
		if ds := r.List("deliveries"); len(ds) > 0 && ds[0].(map[string]any)["status"] == status {
			return ds[0].(map[string]any)
		}
		if time.Now().After(deadline) {
			t.Fatalf("no %s delivery: %s", status, r.Raw)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestWebhooksEventDelivered: a subscription made over REST receives an
// event signed with the secret the API showed once, and lists the delivery.
func TestWebhooksEventDelivered(t *testing.T) {
	e := apitest.New(t)
	s := e.Store("Acme")
	admin := e.Key(s.ID, auth.RoleAdmin)
	rcv := newWebhookReceiver(t)
	w := createWebhook(t, e, admin, map[string]any{"url": rcv.URL + "/hooks", "topics": []string{"order.refunded"}})
	id := whEmit(t, e, s.ID, 41)

	got := rcv.next(t)
	verifySignature(t, w["secret"].(string), got)
	if got.header.Get("X-Shop-Event-Id") != strconv.FormatInt(id, 10) || got.header.Get("X-Shop-Topic") != "order.refunded" {
		t.Fatalf("headers: %v", got.header)
	}
	d := whWaitDelivery(t, e, admin, wholeNumber(t, w["id"]), models.DeliverySucceeded)
	if wholeNumber(t, d["attempts"]) != 1 || wholeNumber(t, d["last_status_code"]) != 200 || d["last_error"] != "" || d["topic"] != "order.refunded" {
		t.Fatalf("delivery: %v", d)
	}
}

// TestWebhooksDeliveredAfterRestart: events committed while no worker runs
// (the process died after the commit) are delivered by the next engine
// started on the database.
func TestWebhooksDeliveredAfterRestart(t *testing.T) {
	e := apitest.New(t, apitest.WithoutEventWorkers())
	s := e.Store("Acme")
	admin := e.Key(s.ID, auth.RoleAdmin)
	rcv := newWebhookReceiver(t)
	w := createWebhook(t, e, admin, map[string]any{"url": rcv.URL, "topics": []string{"order.refunded"}})
	id := whEmit(t, e, s.ID, 42)
	if d := whWaitDelivery(t, e, admin, wholeNumber(t, w["id"]), models.DeliveryPending); wholeNumber(t, d["attempts"]) != 0 {
		t.Fatalf("delivery sent without workers: %v", d)
	}

	e.StartEventWorkers()
	if got := rcv.next(t); got.header.Get("X-Shop-Event-Id") != strconv.FormatInt(id, 10) {
		t.Fatalf("delivered event %s, want %d", got.header.Get("X-Shop-Event-Id"), id)
	}
	whWaitDelivery(t, e, admin, wholeNumber(t, w["id"]), models.DeliverySucceeded)
}
