package layers

import (
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// rank is the layer of a package of this module, by its path; testkit is
// ranked with models, whose layer it may import.
func rank(path string) int {
	p := strings.TrimPrefix(path, "storeadmin/")
	switch {
	case strings.HasPrefix(p, "internal/base/"):
		return 1
	case p == "migrations", p == "models", strings.HasPrefix(p, "internal/testkit/"):
		return 2
	case strings.HasPrefix(p, "internal/app/"):
		return 5
	case p == "internal/storefront":
		return 4
	case p == "internal/bench":
		return 6
	case strings.HasPrefix(p, "internal/"):
		return 3
	case p == "graph" || strings.HasPrefix(p, "graph/"):
		return 4
	case p == "resolvers", p == "rest", strings.HasPrefix(p, "rest/"):
		return 4
	case strings.HasPrefix(p, "cmd/"):
		return 6
	}
	return 0
}

// TestEachLayerImportsOnlyLayersBelow reads the imports of every Go file of
// the module (reading them, not asking go list, so that go test's cache
// knows the result depends on them) and fails for an import of a layer
// above, or for a package no layer names.
func TestEachLayerImportsOnlyLayersBelow(t *testing.T) {
	root := filepath.Join("..", "..")
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); path != root && (strings.HasPrefix(name, ".") || name == "testdata") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") {
			return nil
		}
		rel, _ := filepath.Rel(root, filepath.Dir(path))
		if rel == "." || rel == "internal/layers" {
			return nil // tools.go; this package
		}
		pkg := "storeadmin/" + filepath.ToSlash(rel)
		from := rank(pkg)
		if from == 0 {
			t.Errorf("%s is in no layer: place it (see the package comment)", pkg)
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		test := strings.HasSuffix(path, "_test.go")
		for _, spec := range f.Imports {
			imp, _ := strconv.Unquote(spec.Path.Value)
			if !strings.HasPrefix(imp, "storeadmin/") {
				continue
			}
			testTool := strings.HasPrefix(imp, "storeadmin/internal/testkit/") || imp == "storeadmin/internal/app/apitest"
			// A package may import its own layer and those below, and any
			// package's tests may use the test tools.
			if to := rank(imp); to > from && !(test && testTool) {
				t.Errorf("%s (layer %d) imports %s (layer %d), a layer above", path, from, imp, to)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
