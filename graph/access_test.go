package graph_test

import (
	"context"
	"strings"
	"testing"

	"github.com/vektah/gqlparser/v2/ast"

	"storeadmin/graph"
	"storeadmin/internal/apperr"
	"storeadmin/internal/auth"
)

// TestEveryRootFieldHasAccess fails when a query or mutation field has no
// @access directive, or names a scope no key can be granted.
func TestEveryRootFieldHasAccess(t *testing.T) {
	schema := graph.Schema()
	known := map[string]bool{}
	for _, r := range auth.Resources {
		known[r.Resource] = true
	}
	for _, root := range []string{"Query", "Mutation"} {
		def := schema.Types[root]
		if def == nil {
			t.Fatalf("schema has no %s type", root)
		}
		for _, f := range def.Fields {
			if strings.HasPrefix(f.Name, "__") {
				continue
			}
			d := f.Directives.ForName("access")
			if d == nil {
				t.Errorf("%s.%s has no @access directive", root, f.Name)
				continue
			}
			scope := d.Arguments.ForName("scope").Value.Raw
			res, action, ok := strings.Cut(scope, ":")
			if !ok || !known[res] || (action != "read" && action != "write") {
				t.Errorf("%s.%s: @access scope %q is not <resource>:read|write of a known resource", root, f.Name, scope)
			}
			if root == "Mutation" && action != "write" {
				t.Errorf("Mutation.%s: a mutation needs a write scope, not %q", f.Name, scope)
			}
		}
	}
}

// TestFieldWithoutAccessIsClosed: a field without @access refuses everyone,
// even an owner's session, which holds every scope.
func TestFieldWithoutAccessIsClosed(t *testing.T) {
	owner := auth.WithPrincipal(context.Background(), &auth.Principal{Kind: auth.KindSession, StoreID: 1, ActorID: 1, Role: auth.RoleOwner})
	for name, def := range map[string]*ast.FieldDefinition{"no definition": nil, "no @access": {Name: "open"}} {
		if err := graph.CheckFieldAccess(owner, def); apperr.CodeOf(err) != apperr.Forbidden {
			t.Errorf("%s: CheckFieldAccess = %v, want FORBIDDEN", name, err)
		}
	}
	store := graph.Schema().Query.Fields.ForName("store")
	if err := graph.CheckFieldAccess(owner, store); err != nil {
		t.Fatalf("owner session on Query.store: %v", err)
	}
}
