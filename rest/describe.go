package rest

import (
	"net/http"

	"github.com/vektah/gqlparser/v2/ast"
)

// Source says where bind reads a variable from.
type Source int

const (
	// PathParam: the {param} of the path named like the variable.
	PathParam Source = iota
	// QueryParam: the query parameter named like the variable.
	QueryParam
	// QueryFields: an input-object variable whose fields are query
	// parameters of their own names (a list's filter).
	QueryFields
	// WholeBody: the JSON body is the variable ($input).
	WholeBody
	// BodyField: the body's key named like the variable.
	BodyField
	// UploadBody: the file of an upload route (the raw body, or the
	// multipart part named file; ?filename= names a raw one).
	UploadBody
)

// Variable is one variable of a routed operation and where it comes from.
type Variable struct {
	Def    *ast.VariableDefinition
	Source Source
}

// Described is a route with its validated operation, for those that
// document the surface (rest/openapi): the fields of the operation's
// selections carry their schema definitions.
type Described struct {
	Route     Route
	Operation *ast.OperationDefinition
	Variables []Variable
}

// Describe loads the persisted operations and says, for each route in
// order, which operation it runs and where bind reads each of its
// variables. Query parameters fill variables on every method, but a route
// that reads a body is documented with the variables the body carries.
func Describe(schema *ast.Schema, routes []Route) ([]Described, error) {
	ops, err := loadOperations(schema)
	if err != nil {
		return nil, err
	}
	out := make([]Described, 0, len(routes))
	for _, rt := range routes {
		op := ops[rt.Op]
		if op == nil {
			continue // New refuses such a table; nothing to describe
		}
		readsBody := rt.Method != http.MethodGet && rt.Method != http.MethodHead
		upload := uploadVariable(op)
		whole := op.def.VariableDefinitions.ForName(bodyVariable) != nil
		d := Described{Route: rt, Operation: op.def}
		for _, def := range op.def.VariableDefinitions {
			src := QueryParam
			switch {
			case pathHas(rt.Path, def.Variable):
				src = PathParam
			case def.Variable == upload:
				src = UploadBody
			case readsBody && upload == "" && def.Variable == bodyVariable:
				src = WholeBody
			case readsBody && upload == "" && !whole:
				src = BodyField
			case isInputObject(schema, def.Type):
				src = QueryFields
			}
			d.Variables = append(d.Variables, Variable{Def: def, Source: src})
		}
		out = append(out, d)
	}
	return out, nil
}

func pathHas(path, param string) bool {
	for _, m := range pathParamRE.FindAllStringSubmatch(path, -1) {
		if m[1] == param {
			return true
		}
	}
	return false
}

func isInputObject(schema *ast.Schema, t *ast.Type) bool {
	def := schema.Types[t.NamedType]
	return t.Elem == nil && def != nil && def.Kind == ast.InputObject
}
