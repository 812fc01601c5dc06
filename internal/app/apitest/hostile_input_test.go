package apitest_test

import (
	"bytes"
	"context"
	"net/http"
	"strings"
	"testing"

	"storeadmin/internal/app/apitest"
	"storeadmin/internal/auth"
)

// The tests of this file send what a fuzzer or a careless client sends:
// bodies too large, not JSON or followed by garbage, text PostgreSQL cannot
// store, times it cannot hold, numbers float64 cannot hold, search text
// long enough to stall the database. Each is a 4xx naming what is wrong,
// never a 500, never a partial write, and never a record that breaks later
// reads.

// hiExpectGraphQLFailure fails unless g is a GraphQL failure with status,
// data null and code as the first error's extensions.code.
func hiExpectGraphQLFailure(t *testing.T, g *apitest.Response, status int, code string) {
	t.Helper()
	if g.Status != status || g.ErrorCode() != code {
		t.Fatalf("status %d code %q, want %d %s: %.300s", g.Status, g.ErrorCode(), status, code, g.Raw)
	}
	if d, ok := g.Body["data"]; !ok || d != nil {
		t.Fatalf("data must be null: %.300s", g.Raw)
	}
}

// TestGraphQLBodyLimits: POST /graphql reads at most 1 MiB and one JSON
// object; anything else is a 400 or 413 BAD_REQUEST that does not quote
// the body (gqlgen's transport read without a limit, answered batches as
// INTERNAL and logged malformed bodies whole).
func TestGraphQLBodyLimits(t *testing.T) {
	e, _, key := newAcme(t)
	big := `{"query":"{ store { name } }","variables":{"pad":"` + strings.Repeat("x", 1<<20) + `"}}`
	hiExpectGraphQLFailure(t, e.GraphQLRaw(key, big), http.StatusRequestEntityTooLarge, "BAD_REQUEST")

	const secret = "TOP-SECRET-BODY"
	for name, body := range map[string]string{
		"malformed":        `{"query": "{ store { name } }", "x": "` + secret,
		"batch":            `[{"query":"{ store { name } }"},{"query":"{ store { currency } }"}]`,
		"query not string": `{"query": 5, "x": "` + secret + `"}`,
		"no query":         `{"variables": {"x": "` + secret + `"}}`,
		"trailing garbage": `{"query":"{ store { name } }", "x": "` + secret + `"}}]]`,
		"not an object":    `"` + secret + `"`,
	} {
		t.Run(name, func(t *testing.T) {
			g := e.GraphQLRaw(key, body)
			hiExpectGraphQLFailure(t, g, http.StatusBadRequest, "BAD_REQUEST")
			if bytes.Contains(g.Raw, []byte(secret)) {
				t.Fatalf("the answer quotes the body: %s", g.Raw)
			}
		})
	}
	// Exactly at the limit is still read.
	pad := 1<<20 - len(`{"query":"{ store { name } }","variables":{"pad":""}}`)
	ok := e.GraphQLRaw(key, `{"query":"{ store { name } }","variables":{"pad":"`+strings.Repeat("x", pad)+`"}}`)
	if ok.Status != http.StatusOK || ok.Body["errors"] != nil {
		t.Fatalf("a body of exactly 1 MiB: %d %.300s", ok.Status, ok.Raw)
	}
}

// TestRESTBodyLimits: a REST body over 1 MiB is a 413; one followed by
// garbage, or not an object, is a 400.
func TestRESTBodyLimits(t *testing.T) {
	e, _, key := newAcme(t)
	big := `{"name":"` + strings.Repeat("x", 1<<20) + `"}`
	e.Do(http.MethodPut, "/store", key, big).Expect(t, http.StatusRequestEntityTooLarge)
	for _, body := range []string{`{"name":"Acme 2"}}]]`, `{"name":"Acme 2"} {"name":"Acme 3"}`, `[{"name":"Acme 2"}]`, `{"name":`} {
		e.Do(http.MethodPut, "/store", key, body).Expect(t, http.StatusBadRequest)
	}
	if name := e.Do(http.MethodGet, "/store", key, nil).Expect(t, http.StatusOK).Obj("store")["name"]; name != "Acme" {
		t.Fatalf("a refused body changed the store: name %v", name)
	}
}

// TestUnstorableTextRefused: a NUL, invalid UTF-8 or an unpaired surrogate
// in a body string, a query parameter or a GraphQL variable or literal is
// a 400 naming the field (it used to reach PostgreSQL and fail as a 500).
func TestUnstorableTextRefused(t *testing.T) {
	e, _, key := newAcme(t)
	for name, body := range map[string]string{
		"NUL":               `{"title":"a\u0000b"}`,
		"invalid UTF-8":     "{\"title\":\"a\xff\xfeb\"}",
		"lone surrogate":    `{"title":"a\ud800b"}`,
		"lone low half":     `{"title":"a\udc00b"}`,
		"NUL in a variant":  `{"title":"Tee","variants":[{"sku":"a\u0000","price_cents":100}]}`,
		"surrogate in tags": `{"title":"Tee","tags":["ok","\udfff"]}`,
	} {
		t.Run(name, func(t *testing.T) {
			r := e.Do(http.MethodPost, "/store/products", key, body).Expect(t, http.StatusBadRequest)
			want := "title"
			if strings.Contains(name, "variant") {
				want = "sku"
			} else if strings.Contains(name, "tags") {
				want = "tags"
			}
			if !strings.Contains(r.Message(), want) || !strings.Contains(r.Message(), "plain text") {
				t.Fatalf("message %q must name %s", r.Message(), want)
			}
		})
	}
	// A surrogate pair is one character, and fine.
	e.Do(http.MethodPost, "/store/products", key, `{"title":"Tee \ud83d\ude00"}`).Expect(t, http.StatusCreated)

	for _, q := range []string{"%00", "a%FFb", "%ED%A0%80"} {
		r := e.Do(http.MethodGet, "/store/orders?q="+q, key, nil).Expect(t, http.StatusBadRequest)
		if !strings.HasPrefix(r.Message(), "q ") {
			t.Fatalf("?q=%s: message %q must name q", q, r.Message())
		}
	}
	r := e.Do(http.MethodGet, "/store/products?vendor=a%00", key, nil).Expect(t, http.StatusBadRequest)
	if !strings.HasPrefix(r.Message(), "vendor ") {
		t.Fatalf("message %q must name vendor", r.Message())
	}

	const create = `mutation($t: String!) { createProduct(input: {title: $t}) { id } }`
	g := e.GraphQL(key, create, map[string]any{"t": "a\x00b"})
	if g.ErrorCode() != "BAD_USER_INPUT" {
		t.Fatalf("NUL in a GraphQL variable: %s", g.Raw)
	}
	g = e.GraphQLRaw(key, `{"query":"mutation($t: String!) { createProduct(input: {title: $t}) { id } }","variables":{"t":"a\ud800"}}`)
	if g.ErrorCode() != "BAD_USER_INPUT" {
		t.Fatalf("a lone surrogate in a GraphQL variable: %s", g.Raw)
	}
	g = e.GraphQL(key, `mutation { createProduct(input: {title: "a\u0000b"}) { id } }`, nil)
	if g.ErrorCode() != "BAD_USER_INPUT" {
		t.Fatalf("NUL in a GraphQL literal: %s", g.Raw)
	}
	if n, _ := e.DB.NewSelect().Table("products").Count(context.Background()); n != 1 {
		t.Fatalf("%d products, want only the one with the emoji", n)
	}
}

// TestUnstorableTextAudited: a write whose path holds a NUL is still in
// the audit log (the row's insert failed on the NUL), its path made
// storable.
func TestUnstorableTextAudited(t *testing.T) {
	e, s, key := newAcme(t)
	e.Do(http.MethodDelete, "/store/webhooks/1%00", key, nil).Expect(t, http.StatusBadRequest)
	e.Do(http.MethodPut, "/store/orders%00x/1", key, `{}`).Expect(t, http.StatusNotFound)
	var paths []string
	if err := e.DB.NewSelect().Table("audit_logs").Column("path").Where("store_id = ?", s.ID).Order("id").Scan(context.Background(), &paths); err != nil {
		t.Fatal(err)
	}
	if len(paths) != 2 || paths[0] != "/api/v1/store/webhooks/1\uFFFD" || paths[1] != "/api/v1/store/orders\uFFFDx/1" {
		t.Fatalf("audit paths %q", paths)
	}
}

// TestTimesOutOfRange: a time must fall in the years 1900 to 9999 (UTC):
// year 0 cannot be stored, and years past 9999 are not RFC 3339.
func TestTimesOutOfRange(t *testing.T) {
	e, _, key := newAcme(t)
	for _, ts := range []string{"0000-01-01T00:00:00Z", "0001-01-01T00:00:00Z", "1899-12-31T23:59:59Z", "9999-12-31T23:00:00-05:00", "0000-01-01"} {
		r := e.Do(http.MethodGet, "/store/orders?created_at_min="+ts, key, nil).Expect(t, http.StatusBadRequest)
		if !strings.Contains(r.Message(), "created_at_min") || !strings.Contains(r.Message(), "1900") {
			t.Fatalf("%s: message %q", ts, r.Message())
		}
		r = e.Do(http.MethodPost, "/store/discounts", key, map[string]any{"code": "OLD", "type": "percentage", "value": 10, "starts_at": ts}).Expect(t, http.StatusBadRequest)
		if !strings.Contains(r.Message(), "starts_at") {
			t.Fatalf("%s: message %q", ts, r.Message())
		}
	}
	e.Do(http.MethodGet, "/store/orders?created_at_min=1900-01-01T00:00:00Z&created_at_max=9999-12-31T23:59:59Z", key, nil).Expect(t, http.StatusOK)
}

// TestQueryTextCap: search text and every filter of a read are at most 255
// characters, on both surfaces (a 300,000-character q took 30 s).
func TestQueryTextCap(t *testing.T) {
	e, _, key := newAcme(t)
	long := strings.Repeat("é", 256)
	for _, path := range []string{"/store/orders?q=", "/store/products?vendor=", "/store/products/options?q=", "/store/reviews?q=", "/store/audit-logs?action="} {
		r := e.Do(http.MethodGet, path+long, key, nil).Expect(t, http.StatusBadRequest)
		name := path[strings.Index(path, "?")+1 : len(path)-1]
		if !strings.HasPrefix(r.Message(), name+" ") || !strings.Contains(r.Message(), "255") {
			t.Fatalf("%s: message %q must name %s", path, r.Message(), name)
		}
		e.Do(http.MethodGet, path+long[:255*2], key, nil).Expect(t, http.StatusOK)
	}
	g := e.GraphQL(key, `query($q: String) { orders(filter: {q: $q}) { id } }`, map[string]any{"q": strings.Repeat("x", 300000)})
	if g.ErrorCode() != "BAD_USER_INPUT" || !strings.Contains(string(g.Raw), "255") {
		t.Fatalf("a long q in a GraphQL variable: %.300s", g.Raw)
	}
	g = e.GraphQL(key, `{ productOptions(q: "`+strings.Repeat("x", 256)+`") { id } }`, nil)
	if g.ErrorCode() != "BAD_USER_INPUT" {
		t.Fatalf("a long q in a GraphQL literal: %.300s", g.Raw)
	}
}

// TestPoisonedJSONRefused: free-form JSON (an address, a setting's value)
// must be readable and writable again once stored: no number beyond
// float64, no NUL in a key or a string, at most 32 levels deep.
func TestPoisonedJSONRefused(t *testing.T) {
	e, _, key := newAcme(t)
	deep := strings.Repeat(`{"a":`, 40) + "1" + strings.Repeat("}", 40)
	for name, v := range map[string]string{
		"1e400":          `{"n":1e400}`,
		"-1e400":         `[-1e400]`,
		"NUL in string":  `{"city":"a\u0000"}`,
		"NUL in key":     `{"ci\u0000ty":"Paris"}`,
		"lone surrogate": `{"city":"\ud800"}`,
		"too deep":       deep,
		"too large":      `{"n":"` + strings.Repeat("x", 300<<10) + `"}`,
	} {
		t.Run(name, func(t *testing.T) {
			r := e.Do(http.MethodPut, "/store", key, `{"address":`+v+`}`).Expect(t, http.StatusBadRequest)
			if !strings.HasPrefix(r.Message(), "address ") {
				t.Fatalf("message %q must name address", r.Message())
			}
			r = e.Do(http.MethodPut, "/store/settings", key, `{"namespace":"theme","key":"k","value":`+v+`}`).Expect(t, http.StatusBadRequest)
			if !strings.HasPrefix(r.Message(), "value ") {
				t.Fatalf("message %q must name value", r.Message())
			}
		})
	}
	e.Do(http.MethodGet, "/store", key, nil).Expect(t, http.StatusOK)
	if n := len(e.Do(http.MethodGet, "/store/settings", key, nil).Expect(t, http.StatusOK).List("settings")); n != 0 {
		t.Fatalf("%d settings were stored", n)
	}
	// Numbers float64 holds are fine, and come back as sent.
	r := e.Do(http.MethodPut, "/store", key, `{"address":{"n":1.5e300,"m":-0.25,"k":12345678901234567890}}`).Expect(t, http.StatusOK)
	if !bytes.Contains(r.Raw, []byte(`12345678901234567890`)) {
		t.Fatalf("a large whole number was rewritten: %s", r.Raw)
	}
}

// TestPoisonedJSONAlreadyStored: a value stored before the checks (written
// with SQL here) does not break the reads and writes of its record.
func TestPoisonedJSONAlreadyStored(t *testing.T) {
	e, s, key := newAcme(t)
	ctx := context.Background()
	if _, err := e.DB.ExecContext(ctx, `UPDATE stores SET address = '{"n": 1e400, "city": "Paris"}' WHERE id = ?`, s.ID); err != nil {
		t.Fatal(err)
	}
	e.Do(http.MethodPut, "/store/settings", key, `{"namespace":"theme","key":"k","value":1}`).Expect(t, http.StatusOK)
	if _, err := e.DB.ExecContext(ctx, `UPDATE store_settings SET value = '[1e400, {"deep": -1e999}]' WHERE store_id = ?`, s.ID); err != nil {
		t.Fatal(err)
	}
	// The number comes back as PostgreSQL holds it, as a string: most
	// clients' JSON parsers fail on a number beyond float64.
	r := e.Do(http.MethodGet, "/store", key, nil).Expect(t, http.StatusOK)
	if n, _ := r.Obj("store")["address"].(map[string]any)["n"].(string); !strings.HasPrefix(n, "1000000000") || len(n) != 401 {
		t.Fatalf("the stored number: %.200s", r.Raw)
	}
	e.Do(http.MethodPut, "/store", key, map[string]any{"name": "Acme 2"}).Expect(t, http.StatusOK)
	e.Do(http.MethodGet, "/store/settings", key, nil).Expect(t, http.StatusOK)
	e.Do(http.MethodPost, "/store/draft-orders", key, map[string]any{"email": "a@example.com"}).Expect(t, http.StatusCreated)
	// Text that merely spells \u0000 (a backslash, then u0000) is plain
	// text: it is stored, read back and written again unchanged (bun's
	// jsonb literal used to turn it into a NUL: 500 on every write).
	spelled := `{"namespace":"theme","key":"path","value":{"dir":"C:\\u0000\\x"}}`
	for range 2 {
		e.Do(http.MethodPut, "/store/settings", key, spelled).Expect(t, http.StatusOK)
	}
	var dir string
	if err := e.DB.NewSelect().Table("store_settings").ColumnExpr("value->>'dir'").Where("store_id = ? AND key = 'path'", s.ID).Scan(ctx, &dir); err != nil || dir != `C:\u0000\x` {
		t.Fatalf("stored %q, %v", dir, err)
	}
	g := e.GraphQL(key, `{ store { address } storeSettings { value } }`, nil)
	if g.Status != http.StatusOK || g.Body["errors"] != nil {
		t.Fatalf("GraphQL: %s", g.Raw)
	}
}

// TestKeyRefusalsSayTheSame: an unknown, a revoked and an expired key get
// one message, which tells the holder of a secret nothing about its key.
func TestKeyRefusalsSayTheSame(t *testing.T) {
	e := apitest.New(t)
	s := e.Store("Acme")
	msgs := map[string]bool{}
	for _, k := range []string{"sa_api_unknown", revokedKey(t, e, s.ID), expiredKey(t, e, s.ID, auth.RoleAdmin)} {
		msgs[e.Do(http.MethodGet, "/store", k, nil).Expect(t, http.StatusUnauthorized).Message()] = true
		msgs[e.GraphQL(k, `{ store { name } }`, nil).Body["errors"].([]any)[0].(map[string]any)["message"].(string)] = true
	}
	if len(msgs) != 1 {
		t.Fatalf("messages %v, want one", msgs)
	}
}

// TestImportOfNotASheet: a body that is not a product or review sheet (a
// JSON object sent to the import) is a 400 saying which columns are
// missing, not a 200 that imported nothing.
func TestImportOfNotASheet(t *testing.T) {
	e, _, key := newAcme(t)
	for path, want := range map[string]string{
		"/store/products/import": `"Handle" column is missing`,
		"/store/reviews/import":  `"product_handle" column is missing`,
	} {
		r := e.Do(http.MethodPost, path, key, `{"products":[{"title":"Tee"}]}`).Expect(t, http.StatusBadRequest)
		if !strings.Contains(r.Message(), want) {
			t.Fatalf("%s: message %q", path, r.Message())
		}
	}
}
