package rest

import (
	"net/http"
	"strings"

	"github.com/vektah/gqlparser/v2/ast"
)

// view is what a read answers of a resource: each field by the name the
// client reads, with the fields inside it. A write takes back the view of
// its resource: the fields of the view that the write's input does not
// declare (an id, created_at, a variant's inventory_quantity) are read-only,
// and a body that holds them is accepted with them ignored, so that a
// record read can be sent back as it is; any other field the input does not
// declare is refused.
type view map[string]view

// readOnlyView is the view a write route takes back: the answer of the GET
// route at the same path (PUT /store/products/{id}: GET
// /store/products/{id}) and, for a POST that creates in a collection, of
// the GET of one of its members (POST /store/products: GET /store/products
// and GET /store/products/{id}). Nil when the route is a read, or no GET
// reads its resource.
func readOnlyView(rt Route, routes []Route, ops map[string]*operation) view {
	if rt.Method == http.MethodGet {
		return nil
	}
	var out view
	for _, read := range routes {
		if read.Method != http.MethodGet {
			continue
		}
		member, _ := strings.CutPrefix(read.Path, rt.Path+"/")
		if read.Path != rt.Path && (rt.Method != http.MethodPost || pathParamRE.FindString(member) != member || member == "") {
			continue
		}
		if out == nil {
			out = view{}
		}
		op := ops[read.Op]
		for _, fields := range viewOf(op.def.SelectionSet, op.frags) {
			out.merge(fields)
		}
	}
	return out
}

// viewOf is the fields of set by response key, fragments spread.
func viewOf(set ast.SelectionSet, frags ast.FragmentDefinitionList) view {
	out := view{}
	for _, sel := range set {
		switch s := sel.(type) {
		case *ast.Field:
			inner := viewOf(s.SelectionSet, frags)
			if out[s.Alias] == nil {
				out[s.Alias] = view{}
			}
			out[s.Alias].merge(inner)
		case *ast.InlineFragment:
			out.merge(viewOf(s.SelectionSet, frags))
		case *ast.FragmentSpread:
			if def := frags.ForName(s.Name); def != nil {
				out.merge(viewOf(def.SelectionSet, frags))
			}
		}
	}
	return out
}

func (v view) merge(other view) {
	for k, inner := range other {
		if v[k] == nil {
			v[k] = view{}
		}
		v[k].merge(inner)
	}
}

// dropReadOnly removes from value (of input type t) the fields its input
// objects do not declare but the view holds, at every depth: what a read
// answers and a write cannot take.
func dropReadOnly(schema *ast.Schema, t *ast.Type, value any, v view) any {
	if v == nil {
		return value
	}
	if t.Elem != nil {
		list, ok := value.([]any)
		if !ok {
			return value
		}
		out := make([]any, len(list))
		for i, item := range list {
			out[i] = dropReadOnly(schema, t.Elem, item, v)
		}
		return out
	}
	def := schema.Types[t.NamedType]
	obj, ok := value.(map[string]any)
	if def == nil || def.Kind != ast.InputObject || !ok {
		return value
	}
	out := make(map[string]any, len(obj))
	for key, val := range obj {
		f := def.Fields.ForName(key)
		switch {
		case f != nil:
			out[key] = dropReadOnly(schema, f.Type, val, v[key])
		case v[key] != nil:
			// read-only: ignored
		default:
			out[key] = val // unknown: the variable check refuses it, naming it
		}
	}
	return out
}
