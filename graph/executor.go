// Package graph assembles the GraphQL side of storeadmin: gqlgen's generated
// executor and models (generated.go, model_gen.go: never edited by hand), the
// access directives, the error presenter, limits, and the per-request
// dataloaders. Both surfaces run the one executor built here.
package graph

import (
	"context"
	"errors"
	"log/slog"
	"runtime/debug"
	"strings"

	"github.com/99designs/gqlgen/graphql"
	"github.com/99designs/gqlgen/graphql/executor"
	"github.com/99designs/gqlgen/graphql/handler/extension"
	"github.com/99designs/gqlgen/graphql/handler/lru"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/gqlerror"

	"storeadmin/internal/apperr"
	"storeadmin/internal/auth"
)

// MaxComplexity bounds the cost of one operation (gqlgen's default count:
// one per selected field).
const MaxComplexity = 2000

// NewExecutor builds the executor that serves POST /graphql and every REST
// route. Extensions (audit, idempotency ...) are added by the caller.
func NewExecutor(resolvers ResolverRoot, log *slog.Logger) *executor.Executor {
	cfg := Config{Resolvers: resolvers}
	cfg.Directives.Access = accessDirective
	cfg.Directives.KeysRefused = keysRefusedDirective
	exec := executor.New(NewExecutableSchema(cfg))
	exec.SetQueryCache(lru.New[*ast.QueryDocument](1000))
	exec.Use(extension.Introspection{})
	exec.Use(extension.FixedComplexityLimit(MaxComplexity))
	exec.Use(queryTextLimit{})
	exec.Use(freshReadsAfterWrites{})
	exec.SetErrorPresenter(errorPresenter(log))
	exec.SetRecoverFunc(func(ctx context.Context, v any) error {
		log.ErrorContext(ctx, "panic in resolver", "panic", v, "stack", string(debug.Stack()))
		return errors.New("panic in resolver")
	})
	return exec
}

// accessDirective is @access: scope and role gates, plus @keysRefused when
// the field has it too, so that a refused field says so whatever the key's
// scopes are.
func accessDirective(ctx context.Context, _ any, next graphql.Resolver, _ string, _ Role) (any, error) {
	fc := graphql.GetFieldContext(ctx)
	if fc == nil {
		return nil, apperr.Forbiddenf("this operation has no access rule")
	}
	if err := CheckFieldAccess(ctx, fc.Field.Definition); err != nil {
		return nil, err
	}
	return next(ctx)
}

// CheckFieldAccess applies a root field's @access and @keysRefused to the
// caller of ctx. The REST adapter calls it before it reads a request, so a
// caller without access learns nothing from input validation; the
// directives call it when the field runs.
func CheckFieldAccess(ctx context.Context, def *ast.FieldDefinition) error {
	var access *ast.Directive
	if def != nil {
		access = def.Directives.ForName("access")
	}
	if access == nil {
		// Fail closed: a field without an access rule is open to nobody.
		return apperr.Forbiddenf("this operation has no access rule")
	}
	scope := access.Arguments.ForName("scope").Value.Raw
	role := auth.RoleStaff
	if arg := access.Arguments.ForName("role"); arg != nil && arg.Value != nil {
		role = auth.Role(strings.ToLower(arg.Value.Raw))
	}
	return auth.Check(ctx, scope, role, def.Directives.ForName("keysRefused") != nil)
}

// keysRefusedDirective is @keysRefused. @access already applies it; this
// runs the same check so that the directive holds on its own too.
func keysRefusedDirective(ctx context.Context, _ any, next graphql.Resolver) (any, error) {
	if fc := graphql.GetFieldContext(ctx); fc == nil {
		return nil, apperr.Forbiddenf("this operation has no access rule")
	} else if err := CheckFieldAccess(ctx, fc.Field.Definition); err != nil {
		return nil, err
	}
	return next(ctx)
}

// errorPresenter gives every error an extensions.code. Errors of ours keep
// their message; anything else is internal: logged, and hidden from the
// client.
func errorPresenter(log *slog.Logger) graphql.ErrorPresenterFunc {
	return func(ctx context.Context, err error) *gqlerror.Error {
		gqlErr := graphql.DefaultErrorPresenter(ctx, err)
		if gqlErr.Extensions == nil {
			gqlErr.Extensions = map[string]any{}
		}
		var appErr *apperr.Error
		if errors.As(err, &appErr) {
			gqlErr.Message = appErr.Message
			gqlErr.Extensions["code"] = string(appErr.Code)
			return gqlErr
		}
		if _, ok := gqlErr.Extensions["code"]; ok {
			return gqlErr // gqlgen's own parse and validation errors
		}
		log.ErrorContext(ctx, "internal error", "error", err, "path", gqlErr.Path.String())
		gqlErr.Message = "internal server error"
		gqlErr.Extensions["code"] = string(apperr.Internal)
		return gqlErr
	}
}

// freshReadsAfterWrites empties the request's loader caches before each
// mutation field, so that the answer of a write (and of the next write in
// the same document) reads what the write left.
type freshReadsAfterWrites struct{}

func (freshReadsAfterWrites) ExtensionName() string                   { return "FreshReadsAfterWrites" }
func (freshReadsAfterWrites) Validate(graphql.ExecutableSchema) error { return nil }

func (freshReadsAfterWrites) InterceptRootField(ctx context.Context, next graphql.RootResolver) graphql.Marshaler {
	if oc := graphql.GetOperationContext(ctx); oc != nil && oc.Operation != nil && oc.Operation.Operation == ast.Mutation {
		if l, err := LoadersFrom(ctx); err == nil {
			l.ClearAll()
		}
	}
	return next(ctx)
}
