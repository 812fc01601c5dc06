package graph

import (
	"context"
	"fmt"
	"unicode/utf8"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/gqlerror"

	"storeadmin/internal/base/apperr"
)

// MaxQueryText bounds every String a read is given: search text (q) and
// the fields of list filters, handles, names. Reads take identifiers and
// search text, never content, and a long search pattern costs the database
// time in proportion to its length on every row it scans (a 300,000
// character q took 30 s).
const MaxQueryText = 255

// queryTextLimit applies MaxQueryText to the arguments of a query's root
// fields, and to the fields of the input objects among them (the filters),
// whether they arrive as variables or literals, on both surfaces: the REST
// adapter runs the same executor.
type queryTextLimit struct{}

var (
	_ graphql.HandlerExtension        = queryTextLimit{}
	_ graphql.OperationContextMutator = queryTextLimit{}
)

func (queryTextLimit) ExtensionName() string                   { return "QueryTextLimit" }
func (queryTextLimit) Validate(graphql.ExecutableSchema) error { return nil }

func (queryTextLimit) MutateOperationContext(_ context.Context, oc *graphql.OperationContext) *gqlerror.Error {
	if oc.Operation == nil || oc.Operation.Operation != ast.Query {
		return nil
	}
	return checkRootText(oc.Operation.SelectionSet, oc.Variables)
}

func checkRootText(set ast.SelectionSet, vars map[string]any) *gqlerror.Error {
	for _, sel := range set {
		switch sel := sel.(type) {
		case *ast.Field:
			if sel.Definition == nil {
				continue
			}
			for _, arg := range sel.Arguments {
				def := sel.Definition.Arguments.ForName(arg.Name)
				if def == nil {
					continue
				}
				v, err := arg.Value.Value(vars)
				if err != nil {
					continue // the field's own coercion reports it
				}
				if err := checkText(def.Type, arg.Name, v); err != nil {
					return err
				}
			}
		case *ast.InlineFragment:
			if err := checkRootText(sel.SelectionSet, vars); err != nil {
				return err
			}
		case *ast.FragmentSpread:
			if sel.Definition != nil {
				if err := checkRootText(sel.Definition.SelectionSet, vars); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// checkText walks v, a value of type t named name.
func checkText(t *ast.Type, name string, v any) *gqlerror.Error {
	switch v := v.(type) {
	case string:
		if t.Elem == nil && t.NamedType == "String" && utf8.RuneCountInString(v) > MaxQueryText {
			err := gqlerror.Errorf("%s is %d characters long; search text and filters are at most %d", name, utf8.RuneCountInString(v), MaxQueryText)
			err.Extensions = map[string]any{"code": string(apperr.Invalid)}
			return err
		}
	case []any:
		if t.Elem != nil {
			for i, item := range v {
				if err := checkText(t.Elem, fmt.Sprintf("%s[%d]", name, i), item); err != nil {
					return err
				}
			}
		}
	case map[string]any:
		def := Schema().Types[t.NamedType]
		if def == nil || def.Kind != ast.InputObject {
			return nil
		}
		for key, val := range v {
			if f := def.Fields.ForName(key); f != nil {
				if err := checkText(f.Type, key, val); err != nil {
					return err
				}
			}
		}
	}
	return nil
}
