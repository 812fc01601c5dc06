// Package inputcheck checks the variables of an operation, the JSON a client
// sent, against the types the operation declares, before the executor
// coerces them; REST routes reach the executor with their path, query and
// body as variables, so both surfaces are checked here. Values written in
// a document are checked the same way by a validation rule (Rules).
//
// gqlparser's own coercion words its refusals in GraphQL's terms ("cannot
// use string as Int", "must be a ProductInput, not a slice"), turns an
// object sent where a list belongs into a list of one, and lets a number
// through where a string belongs. Here every refusal names the value at
// fault with its path (input.variants[0].price_cents) and says what was
// expected in JSON's words ("must be an integer, not 1.5", "must be a list,
// not an object"), never a GraphQL type name.
package inputcheck

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/gqlerror"
	"github.com/vektah/gqlparser/v2/parser"

	"storeadmin/internal/base/apperr"
	"storeadmin/internal/base/failure"
	"storeadmin/internal/base/jsonbody"
)

// Variables checks vars against the variable definitions of op. The first
// value that does not fit its type is an error at its path (leading with
// "variable", as gqlparser's variable errors do) that wraps an
// apperr.InvalidField naming it: the variable, then the fields and list
// indexes inside it (input.variants[0].price_cents).
func Variables(schema *ast.Schema, op *ast.OperationDefinition, vars map[string]any) *gqlerror.Error {
	for _, def := range op.VariableDefinitions {
		path := steps{name(def.Variable)}
		v, ok := vars[def.Variable]
		var f *fault
		switch {
		case !ok && def.Type.NonNull && def.DefaultValue == nil:
			f = at(path, "is required")
		case ok:
			f = check(schema, def.Type, v, path)
		}
		if f != nil {
			return gqlerror.WrapPath(append(ast.Path{ast.PathName("variable")}, f.path...), apperr.InvalidField(f.path.String(), "%s", f.reason))
		}
	}
	return nil
}

// fault is a value that does not fit its type: where, and why.
type fault struct {
	path   ast.Path
	reason string
}

func at(path steps, format string, args ...any) *fault {
	return &fault{path: path.ast(), reason: fmt.Sprintf(format, args...)}
}

// steps is the path to the value being checked. It is kept as plain
// values, not as an ast.Path (whose elements are interfaces, an allocation
// each), and made an ast.Path only for a fault; sibling paths share one
// array, which at copies.
type steps []step

type step struct {
	name  string
	index int // when name is empty
}

func name(n string) step { return step{name: n} }
func index(i int) step   { return step{index: i} }

func (s steps) ast() ast.Path {
	out := make(ast.Path, len(s))
	for i, st := range s {
		if st.name != "" {
			out[i] = ast.PathName(st.name)
		} else {
			out[i] = ast.PathIndex(st.index)
		}
	}
	return out
}

// check checks v, at path, against t.
func check(schema *ast.Schema, t *ast.Type, v any, path steps) *fault {
	if v == nil {
		if t.NonNull {
			return at(path, "must not be null")
		}
		return nil
	}
	if t.Elem != nil {
		list, ok := v.([]any)
		if !ok {
			return wrong(path, "a list", v)
		}
		for i, item := range list {
			if err := check(schema, t.Elem, item, append(path, index(i))); err != nil {
				return err
			}
		}
		return nil
	}
	def := schema.Types[t.NamedType]
	if def == nil {
		return nil // the executor reports an unknown type
	}
	switch def.Kind {
	case ast.InputObject:
		obj, ok := v.(map[string]any)
		if !ok {
			return wrong(path, "an object", v)
		}
		return object(schema, def, obj, path)
	case ast.Enum:
		s, ok := v.(string)
		if !ok || !enumValue(def, s) {
			names := make([]string, len(def.EnumValues))
			for i, e := range def.EnumValues {
				names[i] = e.Name
			}
			return at(path, "must be one of %s", strings.Join(names, ", "))
		}
		return nil
	}
	return scalar(t.NamedType, v, path)
}

// object checks the fields of obj against the input object def: each one
// known, each required one present, each of its type.
func object(schema *ast.Schema, def *ast.Definition, obj map[string]any, path steps) *fault {
	var unknown []string
	for k := range obj {
		if def.Fields.ForName(k) == nil && k != "__typename" {
			unknown = append(unknown, k)
		}
	}
	if len(unknown) > 0 {
		sort.Strings(unknown) // the first of several is always the same one
		return at(append(path, name(unknown[0])), "is not a field this input takes")
	}
	for _, f := range def.Fields {
		// Each field's path shares path's array: at copies a path it keeps.
		fpath := append(path, name(f.Name))
		v, ok := obj[f.Name]
		if !ok {
			if f.Type.NonNull && f.DefaultValue == nil {
				return at(fpath, "is required")
			}
			continue
		}
		if err := check(schema, f.Type, v, fpath); err != nil {
			return err
		}
	}
	return nil
}

func enumValue(def *ast.Definition, s string) bool {
	for _, e := range def.EnumValues {
		if strings.EqualFold(e.Name, s) {
			return true
		}
	}
	return false
}

// scalar checks the JSON kind of a scalar's value; what a scalar checks of
// the value itself (plain text, a time's format, a free-form value's depth)
// its unmarshaller says, and the error presenter names the field.
func scalar(name string, v any, path steps) *fault {
	switch name {
	case "String":
		if _, ok := v.(string); !ok {
			return wrong(path, "a string", v)
		}
	case "Time":
		if _, ok := v.(string); !ok {
			return wrong(path, "a string (an RFC 3339 time such as 2026-01-31T09:00:00Z)", v)
		}
	case "Boolean":
		if _, ok := v.(bool); !ok {
			return wrong(path, "true or false", v)
		}
	case "Float":
		if !isNumber(v) {
			return wrong(path, "a number", v)
		}
	case "Int":
		return integer(v, path)
	case "ID":
		if _, ok := v.(string); !ok && integer(v, path) != nil {
			return wrong(path, "a string or an integer", v)
		}
	}
	return nil // JSON and Upload take any value their unmarshallers accept
}

// integer checks that v is a JSON integer that fits 64 bits.
func integer(v any, path steps) *fault {
	switch n := v.(type) {
	case int64, int:
		return nil
	case float64:
		if n == math.Trunc(n) && math.Abs(n) < 1<<63 {
			return nil
		}
	case json.Number:
		if _, err := strconv.ParseInt(string(n), 10, 64); err == nil {
			return nil
		}
		if f, err := strconv.ParseFloat(string(n), 64); err == nil && f == math.Trunc(f) && !strings.ContainsAny(string(n), ".eE") {
			return at(path, "must be an integer from %d to %d", int64(math.MinInt64), int64(math.MaxInt64))
		}
	}
	return wrong(path, "an integer", v)
}

func isNumber(v any) bool {
	switch v.(type) {
	case json.Number, float64, int64, int:
		return true
	}
	return false
}

// wrong says that the value at path must be want, and what it is.
func wrong(path steps, want string, v any) *fault {
	return at(path, "must be %s, not %s", want, jsonbody.Kind(v))
}

// Extension checks the variables of every operation before the executor
// coerces them. It needs the executor's query cache: a document found
// there (every persisted REST operation) is not parsed again, and one that
// does not parse is left to the executor, which reports the syntax error.
// A document not yet cached is checked before it is validated (the
// executor validates after this hook): its variables' types are read from
// the schema, and a type the schema lacks is left to validation.
type Extension struct {
	Schema *ast.Schema
	Cache  graphql.Cache[*ast.QueryDocument]
}

var _ interface {
	graphql.HandlerExtension
	graphql.OperationParameterMutator
} = Extension{}

// ExtensionName implements graphql.HandlerExtension.
func (Extension) ExtensionName() string { return "InputCheck" }

// Validate implements graphql.HandlerExtension.
func (x Extension) Validate(graphql.ExecutableSchema) error {
	if x.Cache == nil || x.Schema == nil {
		return fmt.Errorf("inputcheck: the schema and the executor's query cache are required")
	}
	return nil
}

// MutateOperationParameters refuses variables that do not fit their
// types, with the error the presenter words: its path leads with
// "variable", as gqlparser's own variable errors do.
func (x Extension) MutateOperationParameters(ctx context.Context, params *graphql.RawParams) *gqlerror.Error {
	doc, ok := x.Cache.Get(ctx, params.Query)
	if !ok {
		var err error
		if doc, err = parser.ParseQuery(&ast.Source{Input: params.Query}); err != nil {
			return nil
		}
	}
	op := doc.Operations.ForName(params.OperationName)
	if op == nil || len(op.VariableDefinitions) == 0 {
		return nil
	}
	err := Variables(x.Schema, op, params.Variables)
	if err != nil {
		failure.SetStatus(ctx, apperr.Invalid) // a 400 on POST /graphql, as gqlparser's refusals are
		// What reads the operation of a refused request (the audit log
		// records a refused mutation as one) finds it, as it does after
		// gqlparser's refusals.
		if oc := graphql.GetOperationContext(ctx); oc != nil {
			oc.Doc, oc.Operation = doc, op
		}
	}
	return err
}

// ArgumentField is the field an error at path is about when path leads to
// an argument of a root field of op, or below it (a scalar refusing a value
// while the arguments are read: path is the field's alias, the argument and
// the fields and indexes inside it): the argument and what follows, as
// input.variants[0].title. Empty for other paths, such as a field of the
// answer.
func ArgumentField(schema *ast.Schema, op *ast.OperationDefinition, path ast.Path) ast.Path {
	if op == nil || len(path) < 2 {
		return nil
	}
	alias, _ := path[0].(ast.PathName)
	arg, _ := path[1].(ast.PathName)
	if alias == "" || arg == "" {
		return nil
	}
	root := schema.Query
	if op.Operation == ast.Mutation {
		root = schema.Mutation
	}
	for _, sel := range op.SelectionSet {
		if f, ok := sel.(*ast.Field); ok && f.Alias == string(alias) {
			if def := root.Fields.ForName(f.Name); def != nil && def.Arguments.ForName(string(arg)) != nil {
				return path[1:]
			}
		}
	}
	return nil
}
