package apitest_test

import (
	"fmt"
	"net/http"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"storeadmin/graph/limits"
	"storeadmin/internal/app/apitest"
	"storeadmin/internal/auth"
)

// abuse is a document an attacker sent, what its refusal must name, and
// the variables it came with.
type abuse struct {
	name  string
	query string
	vars  map[string]any
	names string // in the message
}

// abuses are the documents of issue 11 that used to run for seconds and
// gigabytes, each refused by one of the limits.
func abuses() []abuse {
	// Five levels of a customer's orders: 50 orders of 50 customers' orders ...
	nested := "customer { orders { id } }"
	for range 4 {
		nested = "customer { orders { id " + nested + " } }"
	}
	// 30 fragments, each spreading the next twice: 2^30 fields in ~1 KB.
	var bomb strings.Builder
	bomb.WriteString("query { ...F0 }\n")
	for i := range 30 {
		fmt.Fprintf(&bomb, "fragment F%d on Query { ...F%d ...F%d }\n", i, i+1, i+1)
	}
	bomb.WriteString("fragment F30 on Query { store { id } }\n")
	// 20,000 aliases of id: 120 KB.
	var flood strings.Builder
	flood.WriteString("{ store {")
	for i := range 20000 {
		fmt.Fprintf(&flood, " a%d: id", i)
	}
	flood.WriteString(" } }")
	// 200 exports in one request.
	var exports strings.Builder
	exports.WriteString("{")
	for i := range 200 {
		fmt.Fprintf(&exports, " e%d: ordersExport { url }", i)
	}
	exports.WriteString(" }")
	return []abuse{
		{name: "nested lists", query: "{ order(id: 1) { " + nested + " } }", names: "costs"},
		{name: "nested lists, limit from a variable", query: "query($n: Int) { orders(limit: $n) { customer { orders(limit: $n) { customer { orders(limit: $n) { id } } } } } }",
			vars: map[string]any{"n": 250}, names: "costs"},
		{name: "fragment bomb", query: bomb.String(), names: "per selection set"},
		{name: "alias flood", query: flood.String(), names: "15000 tokens"},
		{name: "200 exports", query: exports.String(), names: "per selection set"},
		{name: "three exports", query: "{ a: ordersExport { url } b: productsExport { url } c: reviewsExport { url } }", names: "costs"},
	}
}

// refusedFast sends a and fails unless it is a 400 naming its limit,
// answered within a second (it takes milliseconds; the bound is generous so
// that a loaded machine cannot fail it).
func refusedFast(t *testing.T, e *apitest.Env, key string, a abuse) {
	t.Helper()
	start := time.Now()
	r := e.GraphQL(key, a.query, a.vars)
	took := time.Since(start)
	t.Logf("%s: refused in %s", a.name, took)
	if r.Status != http.StatusBadRequest || r.ErrorCode() != "GRAPHQL_VALIDATION_FAILED" {
		t.Fatalf("%s: status %d, code %q, want 400 GRAPHQL_VALIDATION_FAILED: %.300s", a.name, r.Status, r.ErrorCode(), r.Raw)
	}
	if msg := r.Body["errors"].([]any)[0].(map[string]any)["message"].(string); !strings.Contains(msg, a.names) {
		t.Fatalf("%s: message %q does not name the limit (%q)", a.name, msg, a.names)
	}
	if r.Data() != nil {
		t.Fatalf("%s: a refused operation answered data: %.300s", a.name, r.Raw)
	}
	if took > time.Second {
		t.Fatalf("%s: refused after %s", a.name, took)
	}
}

func limitsEnv(t *testing.T) (*apitest.Env, string) {
	e := apitest.New(t)
	s := e.Store("shop")
	return e, e.Key(s.ID, auth.RoleAdmin)
}

func TestGraphQLNestedListsAreRefusedByCost(t *testing.T) {
	e, key := limitsEnv(t)
	refusedFast(t, e, key, abuses()[0])
	refusedFast(t, e, key, abuses()[1])
}

func TestGraphQLFragmentBombIsRefusedBeforeValidation(t *testing.T) {
	e, key := limitsEnv(t)
	refusedFast(t, e, key, abuses()[2])
}

func TestGraphQLAliasFloodIsRefusedAtParse(t *testing.T) {
	e, key := limitsEnv(t)
	refusedFast(t, e, key, abuses()[3])
}

func TestGraphQLExportsAreCostly(t *testing.T) {
	e, key := limitsEnv(t)
	refusedFast(t, e, key, abuses()[4])
	refusedFast(t, e, key, abuses()[5])
	// Two fit.
	r := e.GraphQL(key, "{ a: ordersExport { url } b: productsExport { url } }", nil)
	if r.Status != http.StatusOK || r.Body["errors"] != nil {
		t.Fatalf("two exports: %s", r.Raw)
	}
}

// The shape limits, each just past its number.
func TestGraphQLShapeLimits(t *testing.T) {
	e, key := limitsEnv(t)
	deep := "id"
	for range limits.MaxDepth / 2 {
		deep = "customer { orders(limit: 1) { " + deep + " } }"
	}
	var wide, aliased, fragments strings.Builder
	for i := range limits.MaxSelectionFields + 1 {
		fmt.Fprintf(&wide, " f%d: id", i)
	}
	for i := range limits.MaxAliases + 1 {
		fmt.Fprintf(&aliased, " o%d: order(id: %d) { id }", i, i)
	}
	// 90 customers (one response name: they merge) of 90 ids each: 8,190
	// fields in 9 lines, none of them wide, deep or aliased.
	expanded := "{ orders(limit: 1) { ...O } }\nfragment O on Order {" + strings.Repeat(" customer { ...C }", 90) + " }\n" +
		"fragment C on Customer {" + strings.Repeat(" id", 90) + " }\n"
	fragments.WriteString("{ store { id } }\n")
	for i := range limits.MaxFragments + 1 {
		fmt.Fprintf(&fragments, "fragment F%d on Store { id }\n", i)
	}
	for _, a := range []abuse{
		{name: "depth", query: "{ order(id: 1) { " + deep + " } }", names: fmt.Sprintf("the limit is %d", limits.MaxDepth)},
		{name: "fields of a selection set", query: "{ store {" + wide.String() + " } }", names: "per selection set"},
		// Within MaxSelectionFields per set, over MaxAliases in all.
		{name: "aliases", query: "{ a: store { id } " + aliased.String()[len(" o0: order(id: 0) { id }"):] + " }", names: "aliases"},
		{name: "fragments", query: fragments.String(), names: "fragments"},
		{name: "fields expanded", query: expanded, names: fmt.Sprintf("once its fragments are expanded; the limit is %d", limits.MaxFields)},
	} {
		refusedFast(t, e, key, a)
	}
}

// The cost is computed with the request's variables and reported in
// extensions.cost.
func TestGraphQLReportsCost(t *testing.T) {
	e, key := limitsEnv(t)
	r := e.GraphQL(key, "query($n: Int) { orders(limit: $n) { id line_items { id } customer { id } } }", map[string]any{"n": 20})
	cost, _ := r.Body["extensions"].(map[string]any)["cost"].(map[string]any)
	// 20 orders, each 1 + 10 assumed lines + a customer.
	want := float64(20 * (1 + limits.AssumedListSize + 1))
	if cost["requestedQueryCost"] != want || cost["maximumAvailable"] != float64(limits.MaxCost) {
		t.Fatalf("extensions.cost %v, want requestedQueryCost %v of %d", cost, want, limits.MaxCost)
	}
	r = e.GraphQL(key, "{ orders { id } }", nil)
	if got := r.Body["extensions"].(map[string]any)["cost"].(map[string]any)["requestedQueryCost"]; got != float64(50) {
		t.Fatalf("a list without limit costs its default page, 50; got %v", got)
	}
}

// Customer.orders takes a limit: the newest orders, 50 unless asked.
func TestCustomerOrdersTakeLimit(t *testing.T) {
	e := apitest.New(t)
	s := e.Store("shop")
	key := e.Key(s.ID, auth.RoleAdmin)
	var ids []float64
	for i := range 3 {
		o := createOrder(t, e, s.ID, orderSpec{email: "repeat@example.com", createdAt: time.Now().UTC().Add(-time.Duration(3-i) * time.Hour)})
		ids = append(ids, float64(o.ID))
	}
	q := "query($id: Int!, $n: Int) { order(id: $id) { customer { all: orders { id } newest: orders(limit: $n) { id } } } }"
	r := e.GraphQL(key, q, map[string]any{"id": ids[0], "n": 2})
	c := r.Data()["order"].(map[string]any)["customer"].(map[string]any)
	got := func(k string) []float64 {
		var out []float64
		for _, o := range c[k].([]any) {
			out = append(out, o.(map[string]any)["id"].(float64))
		}
		return out
	}
	if a, n := got("all"), got("newest"); fmt.Sprint(a) != fmt.Sprint([]float64{ids[2], ids[1], ids[0]}) || fmt.Sprint(n) != fmt.Sprint([]float64{ids[2], ids[1]}) {
		t.Fatalf("orders %v, newest 2 %v; the orders are %v", a, n, ids)
	}
	r = e.GraphQL(key, q, map[string]any{"id": ids[0], "n": 0})
	if r.ErrorCode() != "BAD_USER_INPUT" || !strings.Contains(string(r.Raw), "limit must be between 1 and 250") {
		t.Fatalf("limit 0: %s", r.Raw)
	}
}

// An operation past its time is stopped and says so, on both surfaces.
func TestGraphQLTimeoutStopsTheOperation(t *testing.T) {
	e := apitest.New(t, apitest.WithGraphQLTimeout(time.Nanosecond))
	s := e.Store("shop")
	key := e.Key(s.ID, auth.RoleAdmin)
	r := e.GraphQL(key, "{ orders { id } }", nil)
	if r.ErrorCode() != "TIMEOUT" || !strings.Contains(string(r.Raw), "stopped after 1ns") {
		t.Fatalf("GraphQL: %s", r.Raw)
	}
	rr := e.Do(http.MethodGet, "/store/orders", key, nil).Expect(t, http.StatusServiceUnavailable)
	if !strings.Contains(rr.Message(), "time limit") {
		t.Fatalf("REST: %s", rr.Raw)
	}
}

// Every abuse, one after another, keeps the server's heap (in this
// process) under 200 MB.
func TestGraphQLAbuseKeepsHeapSmall(t *testing.T) {
	e, key := limitsEnv(t)
	runtime.GC()
	var peak uint64
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		tick := time.NewTicker(2 * time.Millisecond)
		defer tick.Stop()
		var m runtime.MemStats
		for {
			runtime.ReadMemStats(&m)
			peak = max(peak, m.HeapInuse)
			select {
			case <-stop:
				return
			case <-tick.C:
			}
		}
	}()
	for _, a := range abuses() {
		refusedFast(t, e, key, a)
	}
	close(stop)
	wg.Wait()
	t.Logf("peak heap in use: %d MB", peak>>20)
	if peak > 200<<20 {
		t.Fatalf("the heap reached %d MB", peak>>20)
	}
}
