package graph

import (
	"context"
	"strings"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/gqlerror"

	"storeadmin/internal/base/apperr"
	"storeadmin/internal/ratelimit"
)

// mutationBudget charges a mutation's root fields against the caller's rate
// limit (ratelimit.Spend): one each, the request's own 1 included, so that a
// document of 500 aliased refundOrder fields costs 500 requests, not 1. It
// runs once the operation is parsed and validated and before any field
// runs, so a request the budget does not cover, or one over
// ratelimit.MaxCost fields, does nothing at all. REST routes run persisted
// operations of one mutation field: they cost 1.
type mutationBudget struct{}

var _ graphql.OperationContextMutator = mutationBudget{}

func (mutationBudget) ExtensionName() string                   { return "MutationBudget" }
func (mutationBudget) Validate(graphql.ExecutableSchema) error { return nil }

func (mutationBudget) MutateOperationContext(ctx context.Context, oc *graphql.OperationContext) *gqlerror.Error {
	if oc.Operation == nil || oc.Operation.Operation != ast.Mutation {
		return nil
	}
	if err := ratelimit.Spend(ctx, mutationFields(oc)); err != nil {
		return &gqlerror.Error{Message: err.Error(), Extensions: map[string]any{"code": string(apperr.CodeOf(err))}}
	}
	return nil
}

// mutationFields counts the root fields the operation will run, as the
// executor collects them: fragments spread, @skip and @include applied, one
// per response key (aliases), __typename left out since it writes nothing.
func mutationFields(oc *graphql.OperationContext) int {
	n := 0
	for _, f := range graphql.CollectFields(oc, oc.Operation.SelectionSet, []string{"Mutation"}) {
		if !strings.HasPrefix(f.Name, "__") {
			n++
		}
	}
	return n
}
