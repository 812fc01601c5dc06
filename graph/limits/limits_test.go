package limits_test

import (
	"strconv"
	"strings"
	"testing"

	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/parser"
	"github.com/vektah/gqlparser/v2/validator"

	"storeadmin/graph"
	"storeadmin/graph/limits"
)

func parse(t *testing.T, q string) *ast.QueryDocument {
	t.Helper()
	doc, err := parser.ParseQueryWithTokenLimit(&ast.Source{Input: q}, limits.MaxTokens)
	if err != nil {
		t.Fatal(err)
	}
	return doc
}

// cost validates q against the schema and costs its operation with vars.
func cost(t *testing.T, q string, vars map[string]any) int64 {
	t.Helper()
	doc := parse(t, q)
	if errs := validator.ValidateWithRules(graph.Schema(), doc, nil); len(errs) > 0 {
		t.Fatalf("%s: %v", q, errs)
	}
	return limits.OperationCost(doc.Operations[0], doc.Fragments, vars)
}

func TestCostModel(t *testing.T) {
	const n = limits.AssumedListSize
	for _, c := range []struct {
		name  string
		query string
		vars  map[string]any
		want  int64
	}{
		{"scalars cost nothing", "{ store { id name } }", nil, 1},
		{"a list without limit is its default page", "{ orders { id } }", nil, 50},
		{"a literal limit", "{ orders(limit: 7) { id } }", nil, 7},
		{"a limit from a variable", "query($l: Int) { orders(limit: $l) { id } }", map[string]any{"l": int64(20)}, 20},
		{"an absent variable is the default", "query($l: Int) { orders(limit: $l) { id } }", nil, 50},
		{"a limit past the largest page counts as the largest", "{ orders(limit: 100000) { id } }", nil, 250},
		{"a relation without limit counts AssumedListSize", "{ orders(limit: 2) { line_items { id } } }", nil, 2 * (1 + n)},
		{"nested lists multiply", "{ orders(limit: 2) { customer { orders(limit: 3) { line_items { id } } } } }", nil, 2 * (1 + 1 + 3*(1+n))},
		{"a fragment counts where it is spread", "{ a: orders(limit: 2) { ...O } b: orders(limit: 3) { ...O } } fragment O on Order { customer { id } }", nil, 2*2 + 3*2},
		{"an export", "{ ordersExport { url } }", nil, limits.FileCost + 1},
		{"a mutation", "mutation { archiveOrder(id: 1) { id } }", nil, limits.MutationCost + 1},
		{"introspection", "{ __schema { types { name fields { name } } } }", nil, 0},
	} {
		if got := cost(t, c.query, c.vars); got != c.want {
			t.Errorf("%s: cost %d, want %d", c.name, got, c.want)
		}
	}
	if 2*(limits.FileCost+1) > limits.MaxCost || 3*limits.FileCost <= limits.MaxCost {
		t.Errorf("two file fields must fit in one operation and three must not")
	}
}

// GraphiQL's introspection query (graphiql 3.9, the playground's) nests 15
// levels: it keeps within the shape limits.
func TestIntrospectionKeepsWithinShapeLimits(t *testing.T) {
	typeRef := "kind name"
	for range 9 {
		typeRef = "kind name ofType { " + typeRef + " }"
	}
	q := `query IntrospectionQuery { __schema { description queryType { name } mutationType { name } subscriptionType { name }
	  types { ...FullType } directives { name description isRepeatable locations args(includeDeprecated: true) { ...InputValue } } } }
	fragment FullType on __Type { kind name description specifiedByURL
	  fields(includeDeprecated: true) { name description args(includeDeprecated: true) { ...InputValue } type { ...TypeRef } isDeprecated deprecationReason }
	  inputFields(includeDeprecated: true) { ...InputValue } interfaces { ...TypeRef }
	  enumValues(includeDeprecated: true) { name description isDeprecated deprecationReason } possibleTypes { ...TypeRef } }
	fragment InputValue on __InputValue { name description type { ...TypeRef } defaultValue isDeprecated deprecationReason }
	fragment TypeRef on __Type { ` + typeRef + ` }`
	if err := limits.CheckShape(parse(t, q)); err != nil {
		t.Fatal(err)
	}
}

// A fragment spread twice by each of 40 fragments expands to 2^40 fields;
// it is measured once per fragment.
func TestShapeMeasuresEachFragmentOnce(t *testing.T) {
	var b strings.Builder
	b.WriteString("query { ...F0 }\n")
	for i := range 40 {
		b.WriteString("fragment F" + strconv.Itoa(i) + " on Query { ...F" + strconv.Itoa(i+1) + " ...F" + strconv.Itoa(i+1) + " }\n")
	}
	b.WriteString("fragment F40 on Query { store { id } }\n")
	err := limits.CheckShape(parse(t, b.String()))
	if err == nil || !strings.Contains(err.Message, "per selection set") {
		t.Fatalf("got %v", err)
	}
}
