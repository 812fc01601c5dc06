package graph_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/vektah/gqlparser/v2/ast"

	"storeadmin/graph"
)

// TestEverythingIsDescribed fails naming every type, field, argument, enum
// value, input field and directive of the schema that has no description:
// the descriptions are the API's reference for a GraphQL client (GraphiQL's
// docs, codegen comments), so a new field cannot arrive undocumented.
func TestEverythingIsDescribed(t *testing.T) {
	schema := graph.Schema()
	var missing []string
	need := func(desc, what string) {
		if strings.TrimSpace(desc) == "" {
			missing = append(missing, what)
		}
	}
	args := func(owner string, list ast.ArgumentDefinitionList) {
		for _, a := range list {
			need(a.Description, owner+"("+a.Name+")")
		}
	}
	for name, def := range schema.Types {
		if def.BuiltIn || strings.HasPrefix(name, "__") {
			continue
		}
		need(def.Description, name)
		for _, f := range def.Fields {
			if strings.HasPrefix(f.Name, "__") {
				continue
			}
			need(f.Description, name+"."+f.Name)
			args(name+"."+f.Name, f.Arguments)
		}
		for _, v := range def.EnumValues {
			need(v.Description, name+"."+v.Name)
		}
	}
	for name, d := range schema.Directives {
		if d.Position != nil && d.Position.Src.BuiltIn {
			continue
		}
		need(d.Description, "@"+name)
		args("@"+name, d.Arguments)
	}
	if len(missing) > 0 {
		slices.Sort(missing)
		t.Errorf("%d parts of the schema have no description (say what each is, its units, what null means, its default):\n%s",
			len(missing), strings.Join(missing, "\n"))
	}
}
