// Package limits bounds what one GraphQL operation may ask of the service,
// on both surfaces (they run one executor): its size and shape, checked on
// the parsed document before gqlparser validates it (validation is quadratic
// in the fields of a selection set and expands fragments, so a small
// document could otherwise cost seconds and gigabytes before anything
// refuses it); its cost, computed with the request's variables before
// anything runs; and its time, a deadline on execution.
//
// The numbers are documented in README.md ("GraphQL limits"); a test keeps
// every persisted REST operation within them at its largest page.
package limits

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/99designs/gqlgen/graphql"
	"github.com/99designs/gqlgen/graphql/errcode"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/gqlerror"
	"github.com/vektah/gqlparser/v2/parser"

	"storeadmin/internal/base/apperr"
)

// The shape limits of one document.
const (
	// MaxTokens bounds the lexical tokens of a document: the parser stops
	// at the first token past it.
	MaxTokens = 15000
	// MaxDepth bounds how deep fields nest, fragments expanded.
	MaxDepth = 12
	// MaxSelectionFields bounds the fields of one selection set, those of
	// the fragments it spreads included.
	MaxSelectionFields = 100
	// MaxAliases bounds the aliased fields of a document, fragments
	// expanded.
	MaxAliases = 50
	// MaxFragments bounds the fragment definitions of a document.
	MaxFragments = 50
	// MaxFields bounds the fields of a document once every fragment spread
	// is replaced by its fragment: what validation and execution walk.
	MaxFields = 2000
)

// DefaultTimeout is how long an operation may run unless configured.
const DefaultTimeout = 30 * time.Second

// extensionName names the cost in the response's extensions and in the
// operation's stats.
const extensionName = "cost"

// Cost is what a response reports under extensions.cost.
type Cost struct {
	RequestedQueryCost int64 `json:"requestedQueryCost"`
	MaximumAvailable   int64 `json:"maximumAvailable"`
}

// Extension is the gqlgen extension that applies the limits. It needs the
// executor's query cache: a document found there passed the shape checks
// when it was added, so a cached document (every persisted REST operation)
// is not parsed again.
type Extension struct {
	Cache   graphql.Cache[*ast.QueryDocument]
	Timeout time.Duration
}

var _ interface {
	graphql.HandlerExtension
	graphql.OperationParameterMutator
	graphql.OperationContextMutator
	graphql.ResponseInterceptor
} = Extension{}

// ExtensionName implements graphql.HandlerExtension.
func (Extension) ExtensionName() string { return "Limits" }

// Validate implements graphql.HandlerExtension.
func (x Extension) Validate(graphql.ExecutableSchema) error {
	if x.Cache == nil {
		return errors.New("limits: the executor's query cache is required")
	}
	return nil
}

// MutateOperationParameters refuses a document over the shape limits
// before the executor parses and validates it. A document that does not
// parse is left to the executor, which reports the syntax error.
func (x Extension) MutateOperationParameters(ctx context.Context, params *graphql.RawParams) *gqlerror.Error {
	if _, ok := x.Cache.Get(ctx, params.Query); ok {
		return nil
	}
	doc, err := parser.ParseQueryWithTokenLimit(&ast.Source{Input: params.Query}, MaxTokens)
	if err != nil {
		var gqlErr *gqlerror.Error
		if errors.As(err, &gqlErr) && gqlErr.Message == fmt.Sprintf("exceeded token limit of %d", MaxTokens) {
			return refuse("the query has more than %d tokens (names, punctuation, values), the limit per document", MaxTokens)
		}
		return nil
	}
	return CheckShape(doc)
}

// MutateOperationContext computes the cost of the operation with the
// request's variables, records it for the response, and refuses an
// operation that costs more than MaxCost.
func (x Extension) MutateOperationContext(ctx context.Context, oc *graphql.OperationContext) *gqlerror.Error {
	cost := OperationCost(oc.Operation, oc.Doc.Fragments, oc.Variables)
	oc.Stats.SetExtension(extensionName, &Cost{RequestedQueryCost: cost, MaximumAvailable: MaxCost})
	if cost > MaxCost {
		return refuse("the query costs %d points, more than the %d allowed: every object costs %d, a list costs its limit (default %d) times its items, "+
			"or %d times without a limit argument, a file export or import %d; ask for fewer records or fewer nested lists",
			cost, MaxCost, ObjectCost, defaultLimit, AssumedListSize, FileCost)
	}
	return nil
}

// InterceptResponse runs the operation under its deadline and reports its
// cost in extensions.cost.
func (x Extension) InterceptResponse(ctx context.Context, next graphql.ResponseHandler) *graphql.Response {
	timeout := x.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	ctx, cancel := context.WithTimeoutCause(ctx, timeout, &overTime{limit: timeout})
	defer cancel()
	resp := next(ctx)
	if resp == nil {
		return nil
	}
	if oc := graphql.GetOperationContext(ctx); oc != nil {
		if cost, ok := oc.Stats.GetExtension(extensionName).(*Cost); ok {
			if resp.Extensions == nil {
				resp.Extensions = map[string]any{}
			}
			resp.Extensions[extensionName] = cost
		}
	}
	return resp
}

// overTime is the cause of a context whose operation ran out of time.
type overTime struct{ limit time.Duration }

func (o *overTime) Error() string { return "the operation ran past its time limit" }

// Timeout is the error of a field that failed because the operation's
// deadline passed (ctx being the field's context): a message for a person
// naming the limit. It answers nil while the operation is within its time.
func Timeout(ctx context.Context) *apperr.Error {
	var o *overTime
	if !errors.As(context.Cause(ctx), &o) {
		return nil
	}
	return apperr.New(apperr.Timeout, "the operation was stopped after %s, the time limit of one request: ask for fewer records or fewer nested lists", o.limit)
}

// refuse is a limit's error: a validation failure, so the client gets a
// 400 and the operation never runs.
func refuse(format string, args ...any) *gqlerror.Error {
	err := gqlerror.Errorf(format, args...)
	errcode.Set(err, errcode.ValidationFailed)
	return err
}
