package rest

import (
	"testing"

	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/parser"
	"github.com/vektah/gqlparser/v2/validator"

	"storeadmin/graph"
	"storeadmin/graph/limits"
	"storeadmin/models"
)

// TestOperationsKeepWithinLimits runs every persisted operation through the
// GraphQL limits as a request would meet them: its shape, and its cost with
// every limit variable at the largest page a client may ask for, so that no
// REST route can be refused for its cost.
func TestOperationsKeepWithinLimits(t *testing.T) {
	schema := graph.Schema()
	ops, err := loadOperations(schema)
	if err != nil {
		t.Fatal(err)
	}
	var top int64
	var topName string
	for name, op := range ops {
		doc, err := parser.ParseQueryWithTokenLimit(&ast.Source{Input: op.text}, limits.MaxTokens)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if err := limits.CheckShape(doc); err != nil {
			t.Errorf("%s: %v", name, err)
		}
		if errs := validator.ValidateWithRules(schema, doc, nil); len(errs) > 0 {
			t.Fatalf("%s: %v", name, errs)
		}
		vars := map[string]any{}
		for _, v := range doc.Operations[0].VariableDefinitions {
			if v.Variable == "limit" {
				vars["limit"] = int64(models.MaxLimit)
			}
		}
		cost := limits.OperationCost(doc.Operations[0], doc.Fragments, vars)
		if cost > limits.MaxCost {
			t.Errorf("%s costs %d at its largest page; the limit is %d", name, cost, limits.MaxCost)
		}
		if cost > top {
			top, topName = cost, name
		}
	}
	t.Logf("the costliest persisted operation, %s, costs %d at its largest page (limit %d)", topName, top, limits.MaxCost)
}
