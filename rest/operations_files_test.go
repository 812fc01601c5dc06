package rest_test

import (
	"io/fs"
	"os"
	"path"
	"strings"
	"testing"

	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/parser"

	"storeadmin/graph"
)

// TestOperationFilesFollowSchemaFiles: the operations in
// operations/<area>.graphql use only root fields that schema/<area>.graphqls
// declares, so a newcomer finds an operation where its fields are.
func TestOperationFilesFollowSchemaFiles(t *testing.T) {
	schema := graph.Schema()
	files, err := fs.Glob(os.DirFS("operations"), "*.graphql")
	if err != nil || len(files) == 0 {
		t.Fatalf("operation files: %v %v", files, err)
	}
	for _, name := range files {
		src, err := os.ReadFile(path.Join("operations", name))
		if err != nil {
			t.Fatal(err)
		}
		doc, perr := parser.ParseQuery(&ast.Source{Name: name, Input: string(src)})
		if perr != nil {
			t.Fatal(perr)
		}
		area := strings.TrimSuffix(name, ".graphql")
		for _, op := range doc.Operations {
			root := schema.Query
			if op.Operation == ast.Mutation {
				root = schema.Mutation
			}
			for _, sel := range op.SelectionSet {
				f, ok := sel.(*ast.Field)
				if !ok || strings.HasPrefix(f.Name, "__") {
					continue
				}
				def := root.Fields.ForName(f.Name)
				if def == nil || def.Position == nil || def.Position.Src == nil {
					continue // validation reports unknown fields
				}
				if got := strings.TrimSuffix(path.Base(def.Position.Src.Name), ".graphqls"); got != area {
					t.Errorf("%s: operation %s uses %s, declared in schema/%s.graphqls: move it to operations/%s.graphql",
						name, op.Name, f.Name, got, got)
				}
			}
		}
	}
}
