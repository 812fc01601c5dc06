package graph

import (
	"context"

	"github.com/99designs/gqlgen/graphql"
)

// The executor resolves the fields with resolvers below the root in place
// (graph/generate, resolved.go), without graphql.ResolveField's closures
// and field middleware. These are the parts of ResolveField those fields
// keep.

// recoverField is the panic guard of a field resolved in place: the panic
// becomes the field's error, and the field null.
func recoverField(ctx context.Context, oc *graphql.OperationContext, ret *graphql.Marshaler) {
	if r := recover(); r != nil {
		oc.Error(ctx, oc.Recover(ctx, r))
		*ret = graphql.Null
	}
}

// fieldFailed answers a field resolved in place whose access check or
// resolver failed, as ResolveField does: the error at the field's path,
// and null.
func fieldFailed(ctx context.Context, oc *graphql.OperationContext, fc *graphql.FieldContext, err error, nonNull bool) graphql.Marshaler {
	oc.Error(ctx, graphql.AddFieldLocationToError(ctx, err))
	if fc.NonNull && !nonNull {
		return graphql.RequiredNull
	}
	return graphql.Null
}
