package graph

import (
	"context"

	"github.com/99designs/gqlgen/graphql"
)

// marshalInOrder marshals a list's elements one after another, in place of
// graphql.MarshalSliceConcurrently, which starts a goroutine per element
// (go run ./graph/generate puts it in the generated executor; the
// signature is gqlgen's). The goroutines were there so that a dataloader
// could gather the elements' keys while they wait; ours need not wait: the
// first element of a list to ask for a relation loads it for the whole
// list at once (internal/loaders), and every other element reads the
// result. So the goroutines only cost: their start, their scheduling and
// their stacks, on every list of every answer.
//
// Each element keeps its own field context (loaders find an element's
// siblings through it), and a panic is recovered as gqlgen does: the error
// is recorded and the list is null. Once the request's context has ended
// the list stops: this is where a cancelled request stops resolving, a
// check per element rather than gqlgen's field middleware on every field.
func marshalInOrder(ctx context.Context, length int, _ int64, _ bool, marshalElement func(ctx context.Context, i int) graphql.Marshaler) graphql.Array {
	ret := make(graphql.Array, length)
	// The elements' contexts, with their field contexts and indexes, made
	// at once: a list of 150 variants made 450 small objects here.
	elements, parent := make([]fieldCtx, length), graphql.GetFieldContext(ctx)
	for i := range length {
		if err := ctx.Err(); err != nil {
			// The client hung up or the request timed out: nobody reads the
			// rest, so it is not resolved (one error for the list, not
			// one per field that would fail).
			graphql.AddError(ctx, err)
			return nil
		}
		e := &elements[i]
		e.Context, e.index = ctx, i
		e.fc.Index, e.fc.Parent = &e.index, parent
		if !marshalElementRecovered(e, ret, i, marshalElement) {
			return nil
		}
	}
	return ret
}

func marshalElementRecovered(ctx context.Context, ret graphql.Array, i int, marshalElement func(ctx context.Context, i int) graphql.Marshaler) (ok bool) {
	defer func() {
		if r := recover(); r != nil {
			graphql.AddError(ctx, graphql.Recover(ctx, r))
			ok = false
		}
	}()
	ret[i] = marshalElement(ctx, i)
	return true
}
