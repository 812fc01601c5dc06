package graph

import (
	"context"
	"errors"
	"testing"

	"github.com/99designs/gqlgen/graphql"
)

func responseContext(ctx context.Context) context.Context {
	return graphql.WithResponseContext(ctx, graphql.DefaultErrorPresenter, func(ctx context.Context, v any) error {
		return errors.New("panic")
	})
}

// TestMarshalInOrder marshals every element in order, each with its own
// index; a panic makes the list null with an error.
func TestMarshalInOrder(t *testing.T) {
	ctx := responseContext(context.Background())
	var seen []int
	got := marshalInOrder(ctx, 3, 0, false, func(ctx context.Context, i int) graphql.Marshaler {
		seen = append(seen, *graphql.GetFieldContext(ctx).Index)
		return graphql.MarshalInt(i)
	})
	if len(got) != 3 || len(seen) != 3 || seen[0] != 0 || seen[2] != 2 {
		t.Fatalf("marshalled %v, indexes %v", got, seen)
	}
	if got := marshalInOrder(ctx, 2, 0, false, func(ctx context.Context, i int) graphql.Marshaler { panic("boom") }); got != nil {
		t.Fatalf("a panicking element: list %v, want null", got)
	}
	if errs := graphql.GetErrors(ctx); len(errs) != 1 {
		t.Fatalf("a panicking element: %d errors, want 1", len(errs))
	}
}

// TestMarshalInOrderStopsWhenCancelled: a request whose client hung up
// resolves nothing more of a list, and says so once.
func TestMarshalInOrderStopsWhenCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(responseContext(context.Background()))
	calls := 0
	got := marshalInOrder(ctx, 50, 0, false, func(ctx context.Context, i int) graphql.Marshaler {
		calls++
		if i == 1 {
			cancel()
		}
		return graphql.MarshalInt(i)
	})
	if got != nil || calls != 2 {
		t.Fatalf("after the hang-up: list %v, %d elements resolved, want null after 2", got, calls)
	}
	if errs := graphql.GetErrors(ctx); len(errs) != 1 {
		t.Fatalf("%d errors, want 1", len(errs))
	}
}
