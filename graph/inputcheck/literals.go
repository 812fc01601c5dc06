package inputcheck

import (
	"math"
	"strconv"
	"strings"

	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/gqlerror"
	"github.com/vektah/gqlparser/v2/validator/core"
	"github.com/vektah/gqlparser/v2/validator/rules"
)

// Rules are the validation rules of the executor: gqlparser's, with
// ValuesOfCorrectType, which words a literal of the wrong kind in GraphQL's
// terms without its path ("Int cannot represent non-integer value: 1.5"),
// replaced by the same check as variables get: the argument and the path
// inside it (input.variants[0].price_cents must be an integer, not 1.5),
// in the message and in extensions.field.
func Rules() *rules.Rules {
	r := rules.NewDefaultRules()
	r.ReplaceRule(rules.ValuesOfCorrectTypeRule.Name, literalsRule)
	return r
}

// literalsRule checks the literal arguments of fields and directives and
// the default values of variables.
func literalsRule(observers *core.Events, addError core.AddErrFunc) {
	report := func(f *fault, pos *ast.Position) {
		field := f.path.String()
		addError(core.Message("%s %s", field, f.reason), core.At(pos), func(err *gqlerror.Error) {
			if err.Extensions == nil {
				err.Extensions = map[string]any{}
			}
			err.Extensions["field"] = field
		})
	}
	arguments := func(schema *ast.Schema, defs ast.ArgumentDefinitionList, args ast.ArgumentList) {
		for _, arg := range args {
			if def := defs.ForName(arg.Name); def != nil && arg.Value != nil {
				if f := literal(schema, def.Type, arg.Value, steps{name(arg.Name)}); f != nil {
					report(f, arg.Value.Position)
				}
			}
		}
	}
	observers.OnField(func(w *core.Walker, field *ast.Field) {
		if field.Definition != nil {
			arguments(w.Schema, field.Definition.Arguments, field.Arguments)
		}
	})
	observers.OnDirective(func(w *core.Walker, d *ast.Directive) {
		if d.Definition != nil {
			arguments(w.Schema, d.Definition.Arguments, d.Arguments)
		}
	})
	observers.OnVariable(func(w *core.Walker, v *ast.VariableDefinition) {
		if v.DefaultValue != nil {
			if f := literal(w.Schema, v.Type, v.DefaultValue, steps{name(v.Variable)}); f != nil {
				report(f, v.DefaultValue.Position)
			}
		}
	})
}

// literal checks a value written in the document against t, as check does
// a variable's JSON; a variable inside it is checked where it is defined.
func literal(schema *ast.Schema, t *ast.Type, v *ast.Value, path steps) *fault {
	switch {
	case v.Kind == ast.Variable:
		return nil
	case v.Kind == ast.NullValue:
		if t.NonNull {
			return at(path, "must not be null")
		}
		return nil
	case t.Elem != nil:
		if v.Kind != ast.ListValue {
			return at(path, "must be a list, not %s", literalKind(v))
		}
		for i, item := range v.Children {
			if f := literal(schema, t.Elem, item.Value, append(path, index(i))); f != nil {
				return f
			}
		}
		return nil
	}
	def := schema.Types[t.NamedType]
	if def == nil {
		return nil // an unknown type: another rule reports it
	}
	switch def.Kind {
	case ast.InputObject:
		if v.Kind != ast.ObjectValue {
			return at(path, "must be an object, not %s", literalKind(v))
		}
		for _, child := range v.Children {
			if def.Fields.ForName(child.Name) == nil {
				return at(append(path, name(child.Name)), "is not a field this input takes")
			}
		}
		for _, fd := range def.Fields {
			fpath := append(path, name(fd.Name))
			child := v.Children.ForName(fd.Name)
			if child == nil {
				if fd.Type.NonNull && fd.DefaultValue == nil {
					return at(fpath, "is required")
				}
				continue
			}
			if f := literal(schema, fd.Type, child, fpath); f != nil {
				return f
			}
		}
		return nil
	case ast.Enum:
		if v.Kind != ast.EnumValue || def.EnumValues.ForName(v.Raw) == nil {
			names := make([]string, len(def.EnumValues))
			for i, e := range def.EnumValues {
				names[i] = e.Name
			}
			return at(path, "must be one of %s", strings.Join(names, ", "))
		}
		return nil
	}
	ok := true
	want := ""
	switch t.NamedType {
	case "String":
		ok, want = v.Kind == ast.StringValue || v.Kind == ast.BlockValue, "a string"
	case "Time":
		ok, want = v.Kind == ast.StringValue, "a string (an RFC 3339 time such as 2026-01-31T09:00:00Z)"
	case "Boolean":
		ok, want = v.Kind == ast.BooleanValue, "true or false"
	case "Float":
		ok, want = v.Kind == ast.IntValue || v.Kind == ast.FloatValue, "a number"
	case "Int":
		return literalInt(v, path)
	case "ID":
		if v.Kind != ast.StringValue && literalInt(v, path) != nil {
			return at(path, "must be a string or an integer, not %s", literalKind(v))
		}
	}
	if !ok {
		return at(path, "must be %s, not %s", want, literalKind(v))
	}
	return nil
}

func literalInt(v *ast.Value, path steps) *fault {
	if v.Kind == ast.IntValue {
		if _, err := strconv.ParseInt(v.Raw, 10, 64); err != nil {
			return at(path, "must be an integer from %d to %d", int64(math.MinInt64), int64(math.MaxInt64))
		}
		return nil
	}
	return at(path, "must be an integer, not %s", literalKind(v))
}

// literalKind names a literal's kind as Kind names JSON's.
func literalKind(v *ast.Value) string {
	switch v.Kind {
	case ast.IntValue, ast.FloatValue, ast.BooleanValue:
		if len(v.Raw) <= 24 {
			return v.Raw
		}
		return "a number"
	case ast.StringValue, ast.BlockValue:
		return "a string"
	case ast.ListValue:
		return "a list"
	case ast.ObjectValue:
		return "an object"
	case ast.EnumValue:
		return v.Raw
	}
	return "null"
}
