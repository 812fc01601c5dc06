package limits

import (
	"encoding/json"
	"strconv"
	"strings"

	"github.com/vektah/gqlparser/v2/ast"

	"storeadmin/models"
)

// The cost model: what an operation may ask of the database and of the
// service's memory, estimated from the validated operation and its
// variables before anything runs.
const (
	// MaxCost is the most one operation may cost.
	MaxCost = 50000
	// ObjectCost is the cost of each object an operation reads (a record,
	// or a nested object of one); scalar and enum fields cost nothing.
	ObjectCost = 1
	// AssumedListSize is how many items a list without a limit argument
	// (the lines of an order, the variants of a product) counts for.
	AssumedListSize = 10
	// MutationCost is added for each mutation field: a write.
	MutationCost = 10
	// FileCost is added for a field that writes or reads a file (an
	// export, an import): two fit in one operation, a third does not.
	FileCost = 20000
)

// defaultLimit and maxLimit are the paging bounds a limit argument
// defaults to and is cut to.
const (
	defaultLimit = models.DefaultLimit
	maxLimit     = models.MaxLimit
)

// OperationCost is the cost of op (validated: fields know their
// definitions) with vars, the request's coerced variables. A list costs
// its size times the cost of one item: its limit argument (the variable's
// value, or the default when absent), or AssumedListSize for a list
// without one. Each fragment is costed once.
func OperationCost(op *ast.OperationDefinition, fragments ast.FragmentDefinitionList, vars map[string]any) int64 {
	c := coster{fragments: fragments, vars: vars, memo: map[string]int64{}}
	return c.set(op.SelectionSet)
}

type coster struct {
	fragments ast.FragmentDefinitionList
	vars      map[string]any
	memo      map[string]int64
}

func (c *coster) set(set ast.SelectionSet) int64 {
	var sum int64
	for _, sel := range set {
		switch s := sel.(type) {
		case *ast.Field:
			sum = add(sum, c.field(s))
		case *ast.InlineFragment:
			sum = add(sum, c.set(s.SelectionSet))
		case *ast.FragmentSpread:
			sum = add(sum, c.fragment(s.Name))
		}
	}
	return sum
}

func (c *coster) fragment(name string) int64 {
	if got, ok := c.memo[name]; ok {
		return got
	}
	c.memo[name] = 0 // validation refused cycles; this only guards the walk
	def := c.fragments.ForName(name)
	if def == nil {
		return 0
	}
	got := c.set(def.SelectionSet)
	c.memo[name] = got
	return got
}

func (c *coster) field(f *ast.Field) int64 {
	def := f.Definition
	if def == nil || strings.HasPrefix(f.Name, "__") {
		return 0 // introspection reads the schema in memory
	}
	var own int64
	if f.ObjectDefinition != nil && f.ObjectDefinition.Name == "Mutation" {
		own = MutationCost
	}
	if handlesFile(def) {
		own = add(own, FileCost)
	}
	if len(f.SelectionSet) == 0 {
		return own // a scalar, an enum, or a list of them
	}
	item := add(ObjectCost, c.set(f.SelectionSet))
	if def.Type.Elem != nil {
		item = mul(item, c.listSize(f))
	}
	return add(own, item)
}

// handlesFile reports a field that makes a file (returns a Download) or
// reads one (takes an Upload).
func handlesFile(def *ast.FieldDefinition) bool {
	if def.Type.Name() == "Download" {
		return true
	}
	for _, a := range def.Arguments {
		if a.Type.Name() == "Upload" {
			return true
		}
	}
	return false
}

// listSize is how many items list field f counts for.
func (c *coster) listSize(f *ast.Field) int64 {
	if f.Definition.Arguments.ForName("limit") == nil {
		return AssumedListSize
	}
	n, ok := asInt(f.ArgumentMap(c.vars)["limit"])
	if !ok {
		return defaultLimit
	}
	// Out of range is the resolver's error to report, which says more
	// than a cost would.
	return min(max(n, 1), maxLimit)
}

// asInt reads an Int argument as gqlparser hands it over: a literal, or a
// variable coerced from JSON.
func asInt(v any) (int64, bool) {
	switch n := v.(type) {
	case int:
		return int64(n), true
	case int32:
		return int64(n), true
	case int64:
		return n, true
	case float64:
		return int64(n), true
	case json.Number:
		i, err := n.Int64()
		return i, err == nil
	case string:
		i, err := strconv.ParseInt(n, 10, 64)
		return i, err == nil
	}
	return 0, false
}
