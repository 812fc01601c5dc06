package graph

import (
	"context"
	"testing"

	"github.com/99designs/gqlgen/graphql"
)

type otherKey struct{}

// TestFieldCtxIsGqlgens: a context made by withFieldContext (or a list
// element's, marshalInOrder) is one gqlgen reads its FieldContext from,
// with the parent's field as Parent, and which answers everything else as
// its parent does.
func TestFieldCtxIsGqlgens(t *testing.T) {
	if fieldContextKey == nil {
		t.Fatal("graphql.GetFieldContext no longer asks its context for a key: fieldCtx cannot stand in for WithFieldContext")
	}
	root := context.WithValue(context.Background(), otherKey{}, "kept")
	parent := &graphql.FieldContext{Object: "Query"}
	ctx := graphql.WithFieldContext(root, parent)
	child, fc := withFieldContext(ctx, graphql.FieldContext{Object: "Order", IsResolver: true})
	got := graphql.GetFieldContext(child)
	if got != fc || got.Object != "Order" || !got.IsResolver || got.Parent != parent {
		t.Fatalf("GetFieldContext: %+v, want the field's own with its parent", got)
	}
	if child.Value(otherKey{}) != "kept" {
		t.Fatal("a fieldCtx must answer other keys as its parent does")
	}
	// gqlgen's own contexts made below ours still find theirs, and ours
	// as their parent.
	grandchild := graphql.WithFieldContext(child, &graphql.FieldContext{Object: "Customer"})
	if g := graphql.GetFieldContext(grandchild); g.Object != "Customer" || g.Parent != fc {
		t.Fatalf("below a fieldCtx: %+v", g)
	}
}
