package rest

import (
	"bytes"
	"embed"
	"fmt"
	"io/fs"
	"sort"

	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/formatter"
	"github.com/vektah/gqlparser/v2/parser"
	"github.com/vektah/gqlparser/v2/validator"
	_ "github.com/vektah/gqlparser/v2/validator/rules" // registers the standard validation rules
)

//go:embed operations/*.graphql
var operationFiles embed.FS

// operation is one persisted operation, ready to run: its own text (the
// operation plus the fragments it uses) and its parsed definition.
type operation struct {
	text  string
	def   *ast.OperationDefinition
	frags ast.FragmentDefinitionList // the fragments it spreads
}

// loadOperations parses every operations/*.graphql file, validates them
// together against schema, and splits them into runnable operations.
func loadOperations(schema *ast.Schema) (map[string]*operation, error) {
	names, err := fs.Glob(operationFiles, "operations/*.graphql")
	if err != nil {
		return nil, err
	}
	sort.Strings(names)
	all := &ast.QueryDocument{}
	for _, name := range names {
		src, err := operationFiles.ReadFile(name)
		if err != nil {
			return nil, err
		}
		doc, perr := parser.ParseQuery(&ast.Source{Name: name, Input: string(src)})
		if perr != nil {
			return nil, fmt.Errorf("%s: %w", name, perr)
		}
		all.Operations = append(all.Operations, doc.Operations...)
		all.Fragments = append(all.Fragments, doc.Fragments...)
	}
	if errs := validator.ValidateWithRules(schema, all, nil); len(errs) > 0 {
		return nil, fmt.Errorf("persisted operations do not match the schema: %w", errs)
	}
	ops := make(map[string]*operation, len(all.Operations))
	for _, op := range all.Operations {
		if op.Name == "" {
			return nil, fmt.Errorf("%s: every persisted operation needs a name", op.Position.Src.Name)
		}
		if _, dup := ops[op.Name]; dup {
			return nil, fmt.Errorf("operation %s is defined twice", op.Name)
		}
		doc := &ast.QueryDocument{Operations: ast.OperationList{op}, Fragments: fragmentsOf(op.SelectionSet, all.Fragments, nil)}
		var buf bytes.Buffer
		formatter.NewFormatter(&buf, formatter.WithComments()).FormatQueryDocument(doc)
		ops[op.Name] = &operation{text: buf.String(), def: op, frags: doc.Fragments}
	}
	return ops, nil
}

// fragmentsOf collects, once each, the fragments a selection set spreads,
// transitively.
func fragmentsOf(set ast.SelectionSet, all ast.FragmentDefinitionList, seen ast.FragmentDefinitionList) ast.FragmentDefinitionList {
	for _, sel := range set {
		switch s := sel.(type) {
		case *ast.Field:
			seen = fragmentsOf(s.SelectionSet, all, seen)
		case *ast.InlineFragment:
			seen = fragmentsOf(s.SelectionSet, all, seen)
		case *ast.FragmentSpread:
			if seen.ForName(s.Name) != nil {
				continue
			}
			def := all.ForName(s.Name)
			seen = append(seen, def)
			seen = fragmentsOf(def.SelectionSet, all, seen)
		}
	}
	return seen
}

// OperationText is the runnable text of the persisted operation name, for
// tests that send the same operation to POST /graphql.
func OperationText(schema *ast.Schema, name string) (string, error) {
	ops, err := loadOperations(schema)
	if err != nil {
		return "", err
	}
	op := ops[name]
	if op == nil {
		return "", fmt.Errorf("no persisted operation %s", name)
	}
	return op.text, nil
}
