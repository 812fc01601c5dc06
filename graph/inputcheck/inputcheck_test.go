package inputcheck

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/vektah/gqlparser/v2"
	"github.com/vektah/gqlparser/v2/ast"

	"storeadmin/internal/base/apperr"
)

const testSchema = `
scalar JSON
enum Kind { A B }
input Line { qty: Int!, note: String, kind: Kind, at: ID, meta: JSON }
input Order { lines: [Line!], paid: Boolean, rate: Float }
type Query { order(input: Order, limit: Int = 10): Int }
`

func TestVariables(t *testing.T) {
	schema := gqlparser.MustLoadSchema(&ast.Source{Input: testSchema})
	doc, errs := gqlparser.LoadQueryWithRules(schema, `query($input: Order, $limit: Int!) { order(input: $input, limit: $limit) }`, nil)
	if errs != nil {
		t.Fatal(errs)
	}
	op := doc.Operations[0]
	line := func(k string, v any) map[string]any {
		return map[string]any{"limit": json.Number("1"), "input": map[string]any{"lines": []any{map[string]any{"qty": json.Number("1")}, map[string]any{"qty": json.Number("2"), k: v}}}}
	}
	for _, c := range []struct {
		vars map[string]any
		want string // "" when the variables fit
	}{
		{line("note", "x"), ""},
		{line("meta", map[string]any{"any": []any{1}}), ""},
		{line("at", "7"), ""},
		{line("at", json.Number("7")), ""},
		{line("kind", "b"), ""},
		{line("qty", json.Number("1.5")), "input.lines[1].qty must be an integer, not 1.5"},
		{line("qty", json.Number("1e3")), "input.lines[1].qty must be an integer, not 1e3"},
		{line("qty", json.Number("99999999999999999999")), "input.lines[1].qty must be an integer from -9223372036854775808 to 9223372036854775807"},
		{line("qty", "2"), "input.lines[1].qty must be an integer, not a string"},
		{line("qty", nil), "input.lines[1].qty must not be null"},
		{line("note", json.Number("4")), "input.lines[1].note must be a string, not 4"},
		{line("kind", "c"), "input.lines[1].kind must be one of A, B"},
		{line("at", true), "input.lines[1].at must be a string or an integer, not true"},
		{line("extra", 1), "input.lines[1].extra is not a field this input takes"},
		{map[string]any{"limit": json.Number("1"), "input": map[string]any{"lines": map[string]any{"qty": 1}}}, "input.lines must be a list, not an object"},
		{map[string]any{"limit": json.Number("1"), "input": map[string]any{"lines": []any{[]any{}}}}, "input.lines[0] must be an object, not a list"},
		{map[string]any{"limit": json.Number("1"), "input": map[string]any{"lines": []any{map[string]any{}}}}, "input.lines[0].qty is required"},
		{map[string]any{"limit": json.Number("1"), "input": map[string]any{"paid": "yes"}}, "input.paid must be true or false, not a string"},
		{map[string]any{"limit": json.Number("1"), "input": map[string]any{"rate": "1"}}, "input.rate must be a number, not a string"},
		{map[string]any{"input": nil}, "limit is required"},
	} {
		err := Variables(schema, op, c.vars)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%v: %v, want none", c.vars, err)
		case c.want != "" && err == nil:
			t.Errorf("%v: none, want %q", c.vars, c.want)
		case c.want != "":
			var appErr *apperr.Error
			if !errors.As(err, &appErr) || appErr.Message != c.want || appErr.Code != apperr.Invalid || appErr.Field+" " != c.want[:len(appErr.Field)+1] {
				t.Errorf("%v: %#v, want %q", c.vars, appErr, c.want)
			}
			if err.Path[0] != ast.PathName("variable") {
				t.Errorf("%v: path %v, want it to lead with variable", c.vars, err.Path)
			}
		}
	}
}

func TestLiterals(t *testing.T) {
	schema := gqlparser.MustLoadSchema(&ast.Source{Input: testSchema})
	for query, want := range map[string]string{
		`{ order(input: {lines: [{qty: 1}, {qty: 1.5}]}) }`:       "input.lines[1].qty must be an integer, not 1.5",
		`{ order(input: {lines: {qty: 1}}) }`:                     "input.lines must be a list, not an object",
		`{ order(input: {lines: [{qty: 1, note: 4}]}) }`:          "input.lines[0].note must be a string, not 4",
		`{ order(input: {lines: [{qty: 1, kind: C}]}) }`:          "input.lines[0].kind must be one of A, B",
		`{ order(input: {lines: [{}]}) }`:                         "input.lines[0].qty is required",
		`{ order(input: {paid: "yes"}) }`:                         "input.paid must be true or false, not a string",
		`{ order(limit: "3") }`:                                   "limit must be an integer, not a string",
		`query($q: Int = 2.5) { order(limit: $q) }`:               "q must be an integer, not 2.5",
		`query($q: Int!) { order(input: {lines: [{qty: $q}]}) }`:  "",
		`{ order(input: {lines: [{qty: 1, meta: {any: [1]}}]}) }`: "",
	} {
		_, err := gqlparser.LoadQueryWithRules(schema, query, Rules())
		got := ""
		if len(err) > 0 {
			got = err[0].Message
			if err[0].Extensions["field"] == nil {
				t.Errorf("%s: no extensions.field in %v", query, err[0])
			}
		}
		if got != want {
			t.Errorf("%s: %q, want %q", query, got, want)
		}
	}
	// The rules are gqlparser's otherwise.
	if _, err := gqlparser.LoadQueryWithRules(schema, `{ nothing }`, Rules()); len(err) == 0 {
		t.Error("an unknown field passed validation")
	}
}

// BenchmarkVariables checks a body of 100 lines, the work the check adds to
// a large write.
func BenchmarkVariables(b *testing.B) {
	schema := gqlparser.MustLoadSchema(&ast.Source{Input: testSchema})
	doc, errs := gqlparser.LoadQueryWithRules(schema, `query($input: Order, $limit: Int!) { order(input: $input, limit: $limit) }`, nil)
	if errs != nil {
		b.Fatal(errs)
	}
	lines := make([]any, 100)
	for i := range lines {
		lines[i] = map[string]any{"qty": json.Number("3"), "note": "gift wrap", "kind": "A", "at": "12", "meta": map[string]any{"k": "v"}}
	}
	vars := map[string]any{"limit": json.Number("5"), "input": map[string]any{"lines": lines, "paid": true, "rate": json.Number("0.2")}}
	b.ReportAllocs()
	for b.Loop() {
		if err := Variables(schema, doc.Operations[0], vars); err != nil {
			b.Fatal(err)
		}
	}
}
