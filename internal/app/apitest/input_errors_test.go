package apitest_test

import (
	"net/http"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"storeadmin/internal/app/apitest"
	"storeadmin/internal/base/requestid"
)

// expectFieldError fails unless r is a 400 BAD_USER_INPUT envelope about
// field, saying exactly message.
func expectFieldError(t *testing.T, r *apitest.Response, field, message string) {
	t.Helper()
	r.Expect(t, http.StatusBadRequest)
	if r.Body["code"] != "BAD_USER_INPUT" || r.Body["field"] != field || r.Message() != message {
		t.Fatalf("want BAD_USER_INPUT about %s saying %q, got %s", field, message, r.Raw)
	}
}

// expectGraphQLFieldError fails unless r is a GraphQL answer with one
// BAD_USER_INPUT error about field, saying exactly message, with the
// request id of the X-Request-Id header.
func expectGraphQLFieldError(t *testing.T, r *apitest.Response, field, message string) {
	t.Helper()
	errs, _ := r.Body["errors"].([]any)
	if r.Status != http.StatusBadRequest || len(errs) != 1 {
		t.Fatalf("want a 400 with one error, got %d %s", r.Status, r.Raw)
	}
	first := errs[0].(map[string]any)
	ext, _ := first["extensions"].(map[string]any)
	if first["message"] != message || ext["code"] != "BAD_USER_INPUT" || ext["field"] != field || ext["request_id"] != r.Header.Get(requestid.Header) {
		t.Fatalf("want BAD_USER_INPUT about %s saying %q with the request id, got %s", field, message, r.Raw)
	}
}

const createProductGraphQL = `mutation($input: ProductInput!) { createProduct(input: $input) { id } }`

// TestWrongTypesNameTheFieldInJSONTerms: a value of the wrong JSON kind, at
// any depth, is a 400 naming the field in one path style and saying what
// JSON was expected, on REST (the body is the input) and on GraphQL (the
// variable leads the path) alike; no GraphQL type name shows.
func TestWrongTypesNameTheFieldInJSONTerms(t *testing.T) {
	e, _, key := newAcme(t)
	variant := func(price any) map[string]any {
		return map[string]any{"title": "Tee", "variants": []any{
			map[string]any{"price_cents": 100},
			map[string]any{"price_cents": price},
		}}
	}
	for _, c := range []struct {
		name  string
		body  map[string]any
		field string
		says  string
	}{
		{"a string for an integer at depth", variant("12"), "variants[1].price_cents", "must be an integer, not a string"},
		{"1.5 for an integer", variant(1.5), "variants[1].price_cents", "must be an integer, not 1.5"},
		{"an object for a list", map[string]any{"title": "Tee", "variants": map[string]any{"price_cents": 100}}, "variants", "must be a list, not an object"},
		{"a list for an object", map[string]any{"title": "Tee", "variants": []any{[]any{}}}, "variants[0]", "must be an object, not a list"},
		{"a number for a string", map[string]any{"title": 42}, "title", "must be a string, not 42"},
		{"a string for true or false", map[string]any{"title": "Tee", "variants": []any{map[string]any{"price_cents": 1, "track_inventory": "yes"}}},
			"variants[0].track_inventory", "must be true or false, not a string"},
		{"null where a value is required", variant(nil), "variants[1].price_cents", "must not be null"},
		{"a required field left out", map[string]any{"title": "Tee", "variants": []any{map[string]any{"sku": "A"}}}, "variants[0].price_cents", "is required"},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := e.Do(http.MethodPost, "/store/products", key, c.body)
			expectFieldError(t, r, c.field, c.field+" "+c.says)
			g := e.GraphQL(key, createProductGraphQL, map[string]any{"input": c.body})
			expectGraphQLFieldError(t, g, "input."+c.field, "input."+c.field+" "+c.says)
		})
	}
	// Values written in the document itself are checked the same way.
	for literal, says := range map[string]string{
		`{title: "Tee", variants: [{price_cents: 100}, {price_cents: 1.5}]}`: "input.variants[1].price_cents must be an integer, not 1.5",
		`{title: "Tee", variants: {price_cents: 100}}`:                       "input.variants must be a list, not an object",
		`{title: 42}`:                            "input.title must be a string, not 42",
		`{title: "Tee", variants: [{sku: "A"}]}`: "input.variants[0].price_cents is required",
	} {
		g := e.GraphQL(key, `mutation { createProduct(input: `+literal+`) { id } }`, nil)
		errs, _ := g.Body["errors"].([]any)
		if g.Status != http.StatusBadRequest || len(errs) != 1 {
			t.Fatalf("literal %s: %d %s", literal, g.Status, g.Raw)
		}
		first := errs[0].(map[string]any)
		ext := first["extensions"].(map[string]any)
		if first["message"] != says || !strings.HasPrefix(says, ext["field"].(string)+" ") || ext["code"] != "GRAPHQL_VALIDATION_FAILED" {
			t.Fatalf("literal %s: %s, want %q", literal, g.Raw, says)
		}
	}
	// Nothing was written.
	if r := e.Do(http.MethodGet, "/store/products", key, nil).Expect(t, http.StatusOK); len(r.List("products")) != 0 {
		t.Fatalf("a refused create wrote: %s", r.Raw)
	}
}

// TestUnknownInputIsRefused: a query parameter a call does not take and a
// body field its input does not declare are 400s naming them, where a
// misspelt filter used to answer every row and a misspelt field to be
// dropped without a word.
func TestUnknownInputIsRefused(t *testing.T) {
	e, _, key := newAcme(t)
	r := e.Do(http.MethodGet, "/store/products?stauts=active", key, nil)
	expectFieldError(t, r, "stauts", "stauts is not a query parameter of this call (it takes "+
		"collection_id, cursor, limit, offset, product_type, q, sort, status, tag, vendor)")

	r = e.Do(http.MethodPost, "/store/products", key, map[string]any{"title": "Tee", "variants": []any{map[string]any{"price_cents": 1, "prise_cents": 2}}})
	expectFieldError(t, r, "variants[0].prise_cents", "variants[0].prise_cents is not a field this input takes")
	r = e.Do(http.MethodPost, "/store/products", key, map[string]any{"titel": "Tee"})
	expectFieldError(t, r, "titel", "titel is not a field this input takes")
	g := e.GraphQL(key, createProductGraphQL, map[string]any{"input": map[string]any{"titel": "Tee"}})
	expectGraphQLFieldError(t, g, "input.titel", "input.titel is not a field this input takes")
}

// TestAReadCanBeSentBack: the read-only fields of a record's view (its id,
// times, a variant's id and stock ...) are accepted and ignored on a write
// of the same resource, so a product read and sent back unchanged is a 200
// that changes nothing.
func TestAReadCanBeSentBack(t *testing.T) {
	e, _, key := newAcme(t)
	created := e.Do(http.MethodPost, "/store/products", key, map[string]any{
		"title": "Tee", "tags": []string{"cotton"}, "options": []any{map[string]any{"name": "Size", "values": []string{"S", "M"}}},
		"variants": []any{map[string]any{"option1": "S", "price_cents": 1500}, map[string]any{"option1": "M", "price_cents": 1600}},
	}).Expect(t, http.StatusCreated).Obj("product")
	id := idOf(t, created)
	read := e.Do(http.MethodGet, "/store/products/"+strconv.FormatInt(id, 10), key, nil).Expect(t, http.StatusOK).Obj("product")
	put := e.Do(http.MethodPut, "/store/products/"+strconv.FormatInt(id, 10), key, read).Expect(t, http.StatusOK).Obj("product")
	delete(read, "updated_at")
	delete(put, "updated_at")
	if !reflect.DeepEqual(put, read) {
		t.Fatalf("sent back unchanged:\n got  %v\n want %v", put, read)
	}
}

// TestRequestIDs: every answer (REST, GraphQL, 401, 404) carries an
// X-Request-Id: the client's when it is a safe token of at most 128
// characters, else a new one; failures carry it in the envelope and in
// GraphQL's extensions; CORS lets a browser send and read it.
func TestRequestIDs(t *testing.T) {
	e, _, key := newAcme(t)
	withID := func(id string) map[string]string { return map[string]string{requestid.Header: id} }

	r := e.DoHeaders(http.MethodGet, "/store", key, nil, withID("trace-42.a_b")).Expect(t, http.StatusOK)
	if got := r.Header.Get(requestid.Header); got != "trace-42.a_b" {
		t.Fatalf("a safe id: answered %q", got)
	}
	for _, unsafe := range []string{"has space", "quote\"d", strings.Repeat("x", 129)} {
		r = e.DoHeaders(http.MethodGet, "/store", key, nil, withID(unsafe)).Expect(t, http.StatusOK)
		if got := r.Header.Get(requestid.Header); got == unsafe || len(got) != 16 {
			t.Fatalf("an unsafe id %.20q: answered %q, want a new 16-character one", unsafe, got)
		}
	}
	a := e.Do(http.MethodGet, "/store", key, nil).Header.Get(requestid.Header)
	b := e.Do(http.MethodGet, "/store", key, nil).Header.Get(requestid.Header)
	if a == "" || a == b {
		t.Fatalf("made ids %q and %q: want two different ones", a, b)
	}

	// Failures: the id is in the envelope (Expect checks that it is the
	// header's), on a 401, a 404 inside and outside /api/v1, and a 400.
	r = e.DoHeaders(http.MethodGet, "/store", "", nil, withID("no-key")).Expect(t, http.StatusUnauthorized)
	if r.Body["request_id"] != "no-key" || r.Body["code"] != "UNAUTHENTICATED" {
		t.Fatalf("401: %s", r.Raw)
	}
	e.Do(http.MethodGet, "/store/nothing", key, nil).Expect(t, http.StatusNotFound)
	r = e.Do(http.MethodGet, "/store/products/999999", key, nil).Expect(t, http.StatusNotFound)
	if r.Body["code"] != "NOT_FOUND" {
		t.Fatalf("404: %s", r.Raw)
	}
	resp, err := http.Get(e.URL + "/nowhere")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound || resp.Header.Get(requestid.Header) == "" {
		t.Fatalf("a 404 outside the API: %d, id %q", resp.StatusCode, resp.Header.Get(requestid.Header))
	}
	g := e.GraphQLOp(key, `{ product(id: 999999) { id } }`, "", nil, withID("gql-1"))
	errs, _ := g.Body["errors"].([]any)
	if len(errs) != 1 || g.Header.Get(requestid.Header) != "gql-1" {
		t.Fatalf("GraphQL: %s", g.Raw)
	}
	if ext := errs[0].(map[string]any)["extensions"].(map[string]any); ext["request_id"] != "gql-1" || ext["code"] != "NOT_FOUND" {
		t.Fatalf("GraphQL error extensions: %v", ext)
	}
	g = e.GraphQLOp("", `{ store { name } }`, "", nil, withID("gql-2"))
	errs, _ = g.Body["errors"].([]any)
	if g.Status != http.StatusUnauthorized || len(errs) != 1 || errs[0].(map[string]any)["extensions"].(map[string]any)["request_id"] != "gql-2" {
		t.Fatalf("GraphQL 401: %d %s", g.Status, g.Raw)
	}

	// CORS: a browser may send the header and read it.
	pre, _ := http.NewRequest(http.MethodOptions, e.URL+"/api/v1/store", nil)
	pre.Header.Set("Origin", "https://dashboard.example")
	pre.Header.Set("Access-Control-Request-Method", http.MethodGet)
	pre.Header.Set("Access-Control-Request-Headers", "authorization, x-request-id")
	resp, err = http.DefaultClient.Do(pre)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if allowed := strings.ToLower(resp.Header.Get("Access-Control-Allow-Headers")); !strings.Contains(allowed, "x-request-id") {
		t.Fatalf("preflight allows headers %q, want X-Request-Id among them", allowed)
	}
	r = e.DoHeaders(http.MethodGet, "/store", key, nil, map[string]string{"Origin": "https://dashboard.example"}).Expect(t, http.StatusOK)
	if exposed := r.Header.Get("Access-Control-Expose-Headers"); !strings.Contains(exposed, requestid.Header) {
		t.Fatalf("exposed headers %q, want X-Request-Id among them", exposed)
	}
}
