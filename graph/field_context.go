package graph

import (
	"context"

	"github.com/99designs/gqlgen/graphql"
)

// fieldCtx is a context that holds one field's FieldContext, as
// graphql.WithFieldContext makes, but in one allocation with it (or one
// for a whole list's elements, marshalInOrder): WithFieldContext's
// context.WithValue is an allocation beside the FieldContext's, for every
// list element and every field with a resolver of an answer.
type fieldCtx struct {
	context.Context
	fc    graphql.FieldContext
	index int // a list element's, which fc.Index points to
}

// Value answers gqlgen's question for the field's context with the one
// held here, and every other question as the parent context does.
func (c *fieldCtx) Value(key any) any {
	if key == fieldContextKey {
		return &c.fc
	}
	return c.Context.Value(key)
}

// fieldContextKey is the key under which gqlgen finds a field's
// FieldContext in a context. gqlgen does not export it, but
// graphql.GetFieldContext asks the context for it, so a context of ours
// learns it by being asked once (TestFieldCtxIsGqlgens checks it still
// works that way).
var fieldContextKey = func() any {
	var probe keyProbe
	graphql.GetFieldContext(&probe)
	return probe.key
}()

type keyProbe struct {
	context.Context
	key any
}

func (p *keyProbe) Value(key any) any {
	p.key = key
	return nil
}

// withFieldContext is graphql.WithFieldContext(ctx, &fc) in one
// allocation: fc's copy's parent is ctx's field.
func withFieldContext(ctx context.Context, fc graphql.FieldContext) (context.Context, *graphql.FieldContext) {
	c := &fieldCtx{Context: ctx, fc: fc}
	c.fc.Parent = graphql.GetFieldContext(ctx)
	return c, &c.fc
}
