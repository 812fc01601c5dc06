package graph_test

import (
	"context"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/parser"
	"github.com/vektah/gqlparser/v2/validator"

	"storeadmin/graph"
	"storeadmin/internal/auth"
	"storeadmin/internal/base/apperr"
	"storeadmin/rest"
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
			// A mutation's role is ADMIN, from its kind. The spec's "wa"
			// (closing the store) opens a write to every role of a
			// dashboard session; only a write no key may make can say so.
			if role := d.Arguments.ForName("role"); root == "Mutation" && role != nil &&
				(role.Value.Raw != string(graph.RoleStaff) || f.Directives.ForName("keysRefused") == nil) {
				t.Errorf("Mutation.%s: a mutation's role is ADMIN, from its kind; it may name only STAFF, and only with @keysRefused", f.Name)
			}
		}
	}
}

// TestFieldWithoutAccessIsClosed: a field without @access refuses everyone,
// even an owner's session, which holds every scope.
func TestFieldWithoutAccessIsClosed(t *testing.T) {
	owner := auth.WithPrincipal(context.Background(), &auth.Principal{Kind: auth.KindSession, StoreID: 1, ActorID: 1, Role: auth.RoleOwner})
	for name, def := range map[string]*ast.FieldDefinition{"no definition": nil, "no @access": {Name: "open"}} {
		if err := graph.CheckFieldAccess(owner, ast.Query, def); apperr.CodeOf(err) != apperr.Forbidden {
			t.Errorf("%s: CheckFieldAccess = %v, want FORBIDDEN", name, err)
		}
	}
	store := graph.Schema().Query.Fields.ForName("store")
	if err := graph.CheckFieldAccess(owner, ast.Query, store); err != nil {
		t.Fatalf("owner session on Query.store: %v", err)
	}
}

// TestEveryMutationNeedsAdmin: a staff key holding every scope may run no
// mutation, and an admin key with the mutation's scope may run each (those
// refused to every key aside); the role comes from the operation's kind.
func TestEveryMutationNeedsAdmin(t *testing.T) {
	staff := auth.WithPrincipal(context.Background(), &auth.Principal{Kind: auth.KindAPIKey, StoreID: 1, ActorID: 1, Role: auth.RoleStaff})
	for _, f := range graph.Schema().Mutation.Fields {
		if strings.HasPrefix(f.Name, "__") {
			continue
		}
		if err := graph.CheckFieldAccess(staff, ast.Mutation, f); apperr.CodeOf(err) != apperr.Forbidden {
			t.Errorf("Mutation.%s: a staff key got %v, want FORBIDDEN", f.Name, err)
		}
		scope := f.Directives.ForName("access").Arguments.ForName("scope").Value.Raw
		admin := auth.WithPrincipal(context.Background(), &auth.Principal{Kind: auth.KindAPIKey, StoreID: 1, ActorID: 1, Role: auth.RoleAdmin, Scopes: []string{scope}})
		err := graph.CheckFieldAccess(admin, ast.Mutation, f)
		if f.Directives.ForName("keysRefused") == nil && err != nil {
			t.Errorf("Mutation.%s: an admin key with %s got %v", f.Name, scope, err)
		}
	}
}

// accessResource is the resource of the @access rule in dirs, or "".
func accessResource(dirs ast.DirectiveList) string {
	d := dirs.ForName("access")
	if d == nil {
		return ""
	}
	res, _, _ := strings.Cut(d.Arguments.ForName("scope").Value.Raw, ":")
	return res
}

// rootHeld is what a key that passed root field f's gate holds, and the
// resource its answer belongs to: the field's resource and, as the
// directive does not apply the rule of the type a root field returns, that
// type's resource too (the operation's one scope, as the spec gives each
// operation one, stands for it).
func rootHeld(schema *ast.Schema, f *ast.FieldDefinition) (map[string]bool, string) {
	res := accessResource(f.Directives)
	held := map[string]bool{res: true}
	if t := schema.Types[f.Type.Name()]; t != nil {
		if typeRes := accessResource(t.Directives); typeRes != "" {
			held[typeRes] = true
			res = typeRes
		}
	}
	return held, res
}

// nestedRule is the resource a nested field needs beyond held (from its
// own @access or its type's), or "" when the key already holds it all; and
// held with the field's rules added.
func nestedRule(schema *ast.Schema, f *ast.FieldDefinition, held map[string]bool) (string, map[string]bool) {
	need := ""
	next := held
	for _, res := range []string{accessResource(f.Directives), accessResource(schema.Types[f.Type.Name()].Directives)} {
		if res == "" || next[res] {
			continue
		}
		if need == "" {
			need = res
		}
		next = maps.Clone(next)
		next[res] = true
	}
	return need, next
}

func heldString(held map[string]bool) string {
	return strings.Join(slices.Sorted(maps.Keys(held)), ",")
}

// sharedPayloads are object types that several resources' operations
// answer and that hold no record of their own: a file to fetch, the ids a
// bulk write changed, and a shopper's activity log, which each resource's
// activity call (an order's, an abandoned cart's, a session's) builds for
// its own answer under its own scope, with the visit and browsing it shows.
// Records reached from them keep their rules (a session's events, visitor
// and orders).
var sharedPayloads = map[string]bool{"Download": true, "BulkResult": true,
	"UseractivityLog": true, "UseractivityAnchor": true, "UseractivityCoverage": true, "UseractivityEvent": true,
	"UseractivitySummary": true, "StoreeventsSession": true, "StoreeventsActivity": true}

// sharedViews are views the spec has several resources answer, each about
// a record of its own, and that lead to no other record
// (TestSharedViewsLeadToNoRecord): a checkout (the spec's
// AbandonedcartDetail: an abandoned checkout's, or the one an order
// recorded) with its parts, and the storefront visit and browsing a record
// was made in.
var sharedViews = map[string]bool{"Checkout": true, "CheckoutLine": true, "CheckoutPaymentAttempt": true,
	"CheckoutTimelineEvent": true, "CheckoutTracking": true, "StoreeventsSession": true, "StoreeventsActivity": true}

// TestSharedViewsLeadToNoRecord: a shared view answered by one resource
// leads only to shared views or to fields and records guarded by a rule of
// their own (a session's events, visitor and orders), which the nested
// access check applies to whoever reached them; never to an unguarded
// record, which would open it to the first resource's keys.
func TestSharedViewsLeadToNoRecord(t *testing.T) {
	schema := graph.Schema()
	for name := range sharedViews {
		def := schema.Types[name]
		if def == nil {
			t.Errorf("shared view %s is not in the schema", name)
			continue
		}
		for _, f := range def.Fields {
			target := schema.Types[f.Type.Name()]
			guarded := accessResource(target.Directives) != "" || accessResource(f.Directives) != ""
			if target.Kind == ast.Object && !guarded && !sharedViews[target.Name] {
				t.Errorf("shared view %s leads to %s (%s.%s), which is neither a shared view nor guarded by a rule of its own", name, target.Name, name, f.Name)
			}
		}
	}
}

// TestNestedRecordsNeedTheirResourceScope walks the schema from every root
// field, noting for each object type the resources whose answers it is part
// of (the resource of the root field, or of the last @access rule passed on
// the way, on a field or on a type). A type that is part of two resources'
// answers would let one resource's keys read the other's records (an
// order's line leads to the product's variants, with their costs): it must
// carry the read scope of its resource, on the type, as Product and Order
// do, or on the fields that lead to it. So a new relation cannot forget the
// rule. A field whose rule can refuse must be nullable, so that a refusal
// nulls that field alone and not the answer around it; and a type's rule is
// a read scope without a role.
func TestNestedRecordsNeedTheirResourceScope(t *testing.T) {
	schema := graph.Schema()
	for name, def := range schema.Types {
		d := def.Directives.ForName("access")
		if d == nil {
			continue
		}
		scope := d.Arguments.ForName("scope").Value.Raw
		if _, action, _ := strings.Cut(scope, ":"); def.Kind != ast.Object || action != "read" || d.Arguments.ForName("role") != nil {
			t.Errorf("type %s: @access(scope: %q) must be a read scope, without a role, on an object type", name, scope)
		}
	}
	partOf := map[string]map[string]string{} // type → resource → a path to it
	seen := map[string]bool{}
	var walk func(typ string, held map[string]bool, via, path string)
	walk = func(typ string, held map[string]bool, via, path string) {
		if partOf[typ] == nil {
			partOf[typ] = map[string]string{}
		}
		if _, ok := partOf[typ][via]; !ok {
			partOf[typ][via] = path
		}
		key := typ + "/" + via + "/" + heldString(held)
		if seen[key] {
			return
		}
		seen[key] = true
		for _, f := range schema.Types[typ].Fields {
			target := schema.Types[f.Type.Name()]
			if strings.HasPrefix(f.Name, "__") || target.Kind != ast.Object {
				continue
			}
			at := path + "." + f.Name
			need, next := nestedRule(schema, f, held)
			if need != "" && f.Type.NonNull && !seen[typ+"."+f.Name] {
				seen[typ+"."+f.Name] = true
				t.Errorf("%s (%s.%s) needs %s:read beyond %s, so it must be nullable: refusing a non-null field nulls its parent", at, typ, f.Name, need, heldString(held))
			}
			nextVia := via
			for _, res := range []string{accessResource(f.Directives), accessResource(target.Directives)} {
				if res != "" {
					nextVia = res
				}
			}
			walk(target.Name, next, nextVia, at)
		}
	}
	for _, root := range []*ast.Definition{schema.Query, schema.Mutation} {
		for _, f := range root.Fields {
			if typ := schema.Types[f.Type.Name()]; typ.Kind == ast.Object && !strings.HasPrefix(f.Name, "__") {
				held, via := rootHeld(schema, f)
				walk(typ.Name, held, via, f.Name)
			}
		}
	}
	for typ, resources := range partOf {
		if len(resources) > 1 && !sharedPayloads[typ] && !sharedViews[typ] {
			var paths []string
			for _, res := range slices.Sorted(maps.Keys(resources)) {
				paths = append(paths, res+" ("+resources[res]+")")
			}
			t.Errorf("type %s is part of the answers of %s: put @access(scope: \"<resource>:read\") on it, or on the fields that reach it from another resource",
				typ, strings.Join(paths, " and "))
		}
	}
}

// TestRESTOperationsNeedOneScope: no persisted operation selects a nested
// field whose rule asks more than the route's own scope, so a REST call
// needs the one scope the spec names for it, never answers 403 after it
// ran, and answers what GraphQL answers the same key.
func TestRESTOperationsNeedOneScope(t *testing.T) {
	schema := graph.Schema()
	done := map[string]bool{}
	for _, rt := range rest.Routes {
		if done[rt.Op] {
			continue
		}
		done[rt.Op] = true
		text, err := rest.OperationText(schema, rt.Op)
		if err != nil {
			t.Fatal(err)
		}
		doc, err := parser.ParseQuery(&ast.Source{Input: text})
		if err != nil {
			t.Fatalf("%s: %v", rt.Op, err)
		}
		if errs := validator.ValidateWithRules(schema, doc, nil); len(errs) > 0 {
			t.Fatalf("%s: %v", rt.Op, errs) // validation also binds each field to its definition
		}
		var walk func(set ast.SelectionSet, held map[string]bool, path string)
		walk = func(set ast.SelectionSet, held map[string]bool, path string) {
			for _, sel := range set {
				switch s := sel.(type) {
				case *ast.Field:
					if s.Definition == nil || schema.Types[s.Definition.Type.Name()].Kind != ast.Object {
						continue
					}
					need, next := nestedRule(schema, s.Definition, held)
					if need != "" {
						t.Errorf("%s %s (%s) selects %s.%s, which needs %s:read beyond %s", rt.Method, rt.Path, rt.Op, path, s.Alias, need, heldString(held))
					}
					walk(s.SelectionSet, next, path+"."+s.Alias)
				case *ast.InlineFragment:
					walk(s.SelectionSet, held, path)
				case *ast.FragmentSpread:
					walk(s.Definition.SelectionSet, held, path)
				}
			}
		}
		for _, op := range doc.Operations {
			for _, sel := range op.SelectionSet {
				if f, ok := sel.(*ast.Field); ok && f.Definition != nil {
					held, _ := rootHeld(schema, f.Definition)
					walk(f.SelectionSet, held, f.Alias)
				}
			}
		}
	}
}

// TestRootFieldsAnswerTheirOwnResource: a root field's rule is the
// operation's one scope, and it stands for the type the field answers; so a
// field must not answer a record of another resource directly (a
// fulfillments:write operation answering a whole Order made the order and
// its customer readable without orders:read). Such a field answers a
// payload whose record sits under its type's own rule.
func TestRootFieldsAnswerTheirOwnResource(t *testing.T) {
	schema := graph.Schema()
	for _, root := range []*ast.Definition{schema.Query, schema.Mutation} {
		for _, f := range root.Fields {
			if strings.HasPrefix(f.Name, "__") {
				continue
			}
			t2 := schema.Types[f.Type.Name()]
			if t2 == nil {
				continue
			}
			if typeRes := accessResource(t2.Directives); typeRes != "" && typeRes != accessResource(f.Directives) {
				t.Errorf("%s.%s (%s) answers %s, a record of %s: answer a payload with the record under its own rule",
					root.Name, f.Name, accessResource(f.Directives), t2.Name, typeRes)
			}
		}
	}
}
