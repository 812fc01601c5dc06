package apitest_test

import (
	"net/http"
	"strings"
	"testing"

	"storeadmin/internal/app/apitest"
	"storeadmin/internal/auth"
)

const replayedHeader = "Idempotent-Replayed"

// idemProductCount is the store's number of products.
func idemProductCount(t *testing.T, e *apitest.Env, key string) int64 {
	t.Helper()
	r := e.Do(http.MethodGet, "/store/products?limit=1", key, nil).Expect(t, 200)
	return wholeNumber(t, r.Body["total"])
}

// TestIdempotencyRESTCreateProduct: a retried POST with the same key creates
// one product and answers the first answer again, byte for byte.
func TestIdempotencyRESTCreateProduct(t *testing.T) {
	e := apitest.New(t)
	s := e.Store("Acme")
	admin := e.Key(s.ID, auth.RoleAdmin)
	key := map[string]string{"Idempotency-Key": "create-tee-0001"}
	body := map[string]any{"title": "Idempotent Tee", "variants": []any{map[string]any{"sku": "IDEM-1", "price_cents": 1500}}}

	first := e.DoHeaders(http.MethodPost, "/store/products", admin, body, key).Expect(t, 201)
	if first.Header.Get(replayedHeader) != "" {
		t.Fatalf("the first answer says %s: %s", replayedHeader, first.Header.Get(replayedHeader))
	}
	again := e.DoHeaders(http.MethodPost, "/store/products", admin, body, key).Expect(t, 201)
	if string(again.Raw) != string(first.Raw) {
		t.Fatalf("replay differs:\nfirst %s\nagain %s", first.Raw, again.Raw)
	}
	if again.Header.Get(replayedHeader) != "true" {
		t.Fatalf("replay lacks %s: true", replayedHeader)
	}
	if again.Header.Get("Content-Type") != first.Header.Get("Content-Type") {
		t.Fatalf("replay Content-Type %q, first %q", again.Header.Get("Content-Type"), first.Header.Get("Content-Type"))
	}
	if n := idemProductCount(t, e, admin); n != 1 {
		t.Fatalf("%d products after a retried create, want 1", n)
	}

	// The same key with another body is refused, and writes nothing.
	other := map[string]any{"title": "Another Tee"}
	c := e.DoHeaders(http.MethodPost, "/store/products", admin, other, key).Expect(t, 409)
	if c.Message() != "this Idempotency-Key was used for a different request; use a new key for a new request" {
		t.Fatalf("409 message %q", c.Message())
	}
	if n := idemProductCount(t, e, admin); n != 1 {
		t.Fatalf("%d products after a conflicting key, want 1", n)
	}

	// Another API key has its own keys: the same Idempotency-Key is a new
	// request there (the SKU clash proves the request ran).
	admin2 := e.Key(s.ID, auth.RoleAdmin)
	clash := e.DoHeaders(http.MethodPost, "/store/products", admin2, body, key).Expect(t, 409)
	if clash.Header.Get(replayedHeader) != "" || !strings.Contains(strings.ToLower(clash.Message()), "sku") {
		t.Fatalf("second key's request did not run: %s", clash.Raw)
	}
	// ... and a 409 of the request itself is stored, like other 4xx.
	again = e.DoHeaders(http.MethodPost, "/store/products", admin2, body, key).Expect(t, 409)
	if again.Header.Get(replayedHeader) != "true" || string(again.Raw) != string(clash.Raw) {
		t.Fatalf("a 4xx was not replayed: %s", again.Raw)
	}

	// A malformed key is a 400 envelope; GETs ignore the header.
	e.DoHeaders(http.MethodPost, "/store/products", admin, body, map[string]string{"Idempotency-Key": strings.Repeat("k", 256)}).Expect(t, 400)
	for range 2 {
		if r := e.DoHeaders(http.MethodGet, "/store/products", admin, nil, key).Expect(t, 200); r.Header.Get(replayedHeader) != "" {
			t.Fatal("a GET was replayed")
		}
	}

	// The replay is audited as a request that wrote nothing.
	rows, _, _ := listAuditLogs(t, e, admin, "method=POST")
	var replays, conflicts int
	for _, row := range rows {
		m := metadataOf(row)
		if m["idempotency_key"] != key["Idempotency-Key"] {
			continue
		}
		if m["idempotent_replay"] == true {
			replays++
			if _, touched := m["records"]; touched {
				t.Fatalf("a replay names records: %v", row)
			}
		}
		if wholeNumber(t, row["status_code"]) == 409 && m["error"] == c.Message() {
			conflicts++
		}
	}
	if replays != 2 || conflicts != 1 {
		t.Fatalf("audit: %d replays, %d conflicts; want 2 and 1", replays, conflicts)
	}
}

// TestIdempotencyGraphQLMutation: a mutation with the same key runs once;
// another request under the key is a 409; queries ignore the key.
func TestIdempotencyGraphQLMutation(t *testing.T) {
	e := apitest.New(t)
	s := e.Store("Acme")
	admin := e.Key(s.ID, auth.RoleAdmin)
	key := map[string]string{"Idempotency-Key": "gql-create-1"}
	const mutation = `mutation Create($title: String!) { createProduct(input: {title: $title}) { id title handle } }`
	vars := map[string]any{"title": "GraphQL Tee"}

	first := e.GraphQLOp(admin, mutation, "Create", vars, key)
	if first.Status != 200 || first.Body["errors"] != nil {
		t.Fatalf("first: %d %s", first.Status, first.Raw)
	}
	again := e.GraphQLOp(admin, mutation, "Create", vars, key)
	if again.Status != 200 || string(again.Raw) != string(first.Raw) || again.Header.Get(replayedHeader) != "true" {
		t.Fatalf("replay: %d %s (replayed %q), first %s", again.Status, again.Raw, again.Header.Get(replayedHeader), first.Raw)
	}
	if n := idemProductCount(t, e, admin); n != 1 {
		t.Fatalf("%d products after a retried mutation, want 1", n)
	}

	// Other variables under the same key: a 409 in GraphQL's shape.
	c := e.GraphQLOp(admin, mutation, "Create", map[string]any{"title": "Other"}, key)
	if c.Status != 409 || c.ErrorCode() != "CONFLICT" {
		t.Fatalf("conflict: %d %s", c.Status, c.Raw)
	}
	if n := idemProductCount(t, e, admin); n != 1 {
		t.Fatalf("%d products after a conflicting key, want 1", n)
	}

	// A query sent with a key reads afresh each time.
	for i, want := range []float64{1, 2} {
		if i == 1 {
			e.Do(http.MethodPost, "/store/products", admin, map[string]any{"title": "Plain Tee"}).Expect(t, 201)
		}
		q := e.GraphQLOp(admin, `{ productsCount }`, "", nil, map[string]string{"Idempotency-Key": "read-1"})
		if q.Status != 200 || q.Header.Get(replayedHeader) != "" || q.Data()["productsCount"] != want {
			t.Fatalf("query %d: %d %s (replayed %q)", i, q.Status, q.Raw, q.Header.Get(replayedHeader))
		}
	}
	// A malformed key: 400, BAD_USER_INPUT.
	if b := e.GraphQLOp(admin, mutation, "Create", vars, map[string]string{"Idempotency-Key": "clé"}); b.Status != 400 || b.ErrorCode() != "BAD_USER_INPUT" {
		t.Fatalf("bad key: %d %s", b.Status, b.Raw)
	}
}

// TestIdempotencyCORSExposesReplayHeader: browsers may read the header.
func TestIdempotencyCORSExposesReplayHeader(t *testing.T) {
	e := apitest.New(t)
	s := e.Store("Acme")
	admin := e.Key(s.ID, auth.RoleAdmin)
	r := e.DoHeaders(http.MethodGet, "/store", admin, nil, map[string]string{"Origin": "https://dash.example"}).Expect(t, 200)
	if !strings.Contains(r.Header.Get("Access-Control-Expose-Headers"), replayedHeader) {
		t.Fatalf("Access-Control-Expose-Headers = %q", r.Header.Get("Access-Control-Expose-Headers"))
	}
}
