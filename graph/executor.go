// Package graph assembles the GraphQL side of storeadmin: gqlgen's generated
// executor and models (generated.go, model_gen.go: never edited by hand), the
// access directives, the error presenter, limits, and the per-request
// dataloaders. Both surfaces run the one executor built here.
package graph

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"runtime/debug"
	"time"

	"github.com/99designs/gqlgen/graphql"
	"github.com/99designs/gqlgen/graphql/executor"
	"github.com/99designs/gqlgen/graphql/handler/extension"
	"github.com/99designs/gqlgen/graphql/handler/lru"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/gqlerror"

	"storeadmin/graph/inputcheck"
	"storeadmin/graph/limits"
	"storeadmin/internal/auth"
	"storeadmin/internal/base/apperr"
	"storeadmin/internal/base/failure"
	"storeadmin/internal/base/requestid"
	"storeadmin/internal/loaders"
)

// NewExecutor builds the executor that serves POST /graphql and every REST
// route, each operation limited in size, cost and time (package limits; a
// timeout of 0 is limits.DefaultTimeout). Extensions (audit, idempotency
// ...) are added by the caller.
func NewExecutor(resolvers ResolverRoot, log *slog.Logger, timeout time.Duration) *executor.Executor {
	cfg := Config{Resolvers: resolversOnce(resolvers)}
	cfg.Directives.Access = accessDirective
	cfg.Directives.KeysRefused = keysRefusedDirective
	es := NewExecutableSchema(cfg)
	exec := executor.New(es)
	cache := lru.New[*ast.QueryDocument](1000)
	exec.SetQueryCache(cache)
	exec.SetParserTokenLimit(limits.MaxTokens)
	exec.SetDefaultRulesFn(inputcheck.Rules)
	use := func(ext graphql.HandlerExtension) {
		if _, ok := ext.(graphql.FieldInterceptor); ok {
			// The fields below the root are resolved in place, without
			// field middleware (graph/generate, resolved.go).
			panic(fmt.Sprintf("extension %s intercepts fields, which the executor does not run below the root", ext.ExtensionName()))
		}
		exec.Use(ext)
	}
	use(extension.Introspection{})
	use(limits.Extension{Cache: cache, Timeout: timeout})
	use(inputcheck.Extension{Schema: es.Schema(), Cache: cache})
	use(mutationBudget{})
	use(queryTextLimit{})
	use(freshReadsAfterWrites{})
	use(sharedReads{})
	exec.SetErrorPresenter(errorPresenter(es.Schema(), log))
	exec.SetRecoverFunc(func(ctx context.Context, v any) error {
		log.ErrorContext(ctx, "panic in resolver", "panic", v, "stack", string(debug.Stack()))
		return errors.New("panic in resolver")
	})
	return exec
}

// resolversOnce is the root resolver the executor calls: the one given, or
// graph/resolver_root.go's, which answers each getter with the resolver it
// returned the first time (graph/generate writes the file after gqlgen
// has written the executor, and sets this in its init, so that the package
// builds without it).
var resolversOnce = func(r ResolverRoot) ResolverRoot { return r }

// accessDirective is @access, on a field or on an object type (gqlgen runs a
// type's rule on every field that returns the type). On a root field the
// field's own rule, with @keysRefused, is the operation's gate: the spec
// gives each operation one scope, so the rule of the type a root field
// returns does not add a second one. Below the root the directive's own
// rule applies: a record of another resource (an order's products) needs
// that resource's scope, and without it the field is null with a FORBIDDEN
// error while the rest of the answer stands. The check reads the principal
// in memory: no statement, and the refused field's resolver never runs.
func accessDirective(ctx context.Context, _ any, next graphql.Resolver, scope string, role *Role) (any, error) {
	fc := graphql.GetFieldContext(ctx)
	if fc == nil {
		return nil, apperr.Forbiddenf("this operation has no access rule")
	}
	if op, root := rootOperation(fc.Object); root {
		if err := CheckFieldAccess(ctx, op, fc.Field.Definition); err != nil {
			return nil, err
		}
		return next(ctx)
	}
	if err := fieldAccess(ctx, scope, role); err != nil {
		return nil, err
	}
	return next(ctx)
}

// fieldAccess is @access below the root. The executor's resolver fields
// resolved in place call it themselves (graph/generate, resolved.go).
func fieldAccess(ctx context.Context, scope string, role *Role) error {
	// Type rules are read rules without a role (a schema walk checks it).
	least := auth.RoleStaff
	if role != nil {
		least = storeRole(*role)
	}
	return auth.Check(ctx, scope, least, false)
}

// rootOperation tells whether object is a root type, and which.
func rootOperation(object string) (ast.Operation, bool) {
	switch object {
	case "Query":
		return ast.Query, true
	case "Mutation":
		return ast.Mutation, true
	}
	return "", false
}

// CheckFieldAccess applies the @access and @keysRefused of def, a root field
// of an operation of kind op, to the caller of ctx. The role is the rule's
// when it names one, else the kind's: ADMIN for a mutation, STAFF for a
// query, so a write is never open to staff by omission. The REST adapter
// calls it before it reads a request, so a caller without access learns
// nothing from input validation; the directives call it when the field
// runs.
func CheckFieldAccess(ctx context.Context, op ast.Operation, def *ast.FieldDefinition) error {
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
	if op == ast.Mutation {
		role = auth.RoleAdmin
	}
	if arg := access.Arguments.ForName("role"); arg != nil && arg.Value != nil {
		role = storeRole(Role(arg.Value.Raw))
	}
	return auth.Check(ctx, scope, role, def.Directives.ForName("keysRefused") != nil)
}

// storeRole is the store role of a schema Role. An unknown one is no role,
// which includes nothing: the check fails closed.
func storeRole(r Role) auth.Role {
	switch r {
	case RoleStaff:
		return auth.RoleStaff
	case RoleAdmin:
		return auth.RoleAdmin
	}
	return ""
}

// keysRefusedDirective is @keysRefused. @access already applies it; this
// runs the same check so that the directive holds on its own too.
func keysRefusedDirective(ctx context.Context, _ any, next graphql.Resolver) (any, error) {
	fc := graphql.GetFieldContext(ctx)
	if fc == nil {
		return nil, apperr.Forbiddenf("this operation has no access rule")
	}
	op, _ := rootOperation(fc.Object)
	if err := CheckFieldAccess(ctx, op, fc.Field.Definition); err != nil {
		return nil, err
	}
	return next(ctx)
}

// errorPresenter gives every error an extensions.code and request_id.
// Errors of ours keep their message; one about a value the client sent
// names it, in its message and in extensions.field; anything else is
// internal: logged, and hidden from the client.
func errorPresenter(schema *ast.Schema, log *slog.Logger) graphql.ErrorPresenterFunc {
	return func(ctx context.Context, err error) *gqlerror.Error {
		gqlErr := graphql.DefaultErrorPresenter(ctx, err)
		if gqlErr.Extensions == nil {
			gqlErr.Extensions = map[string]any{}
		}
		gqlErr.Extensions["request_id"] = requestid.FromContext(ctx)
		var appErr *apperr.Error
		if !errors.As(err, &appErr) {
			appErr = limits.Timeout(ctx)
		}
		if appErr != nil {
			gqlErr.Message = appErr.Message
			gqlErr.Extensions["code"] = string(appErr.Code)
			field := appErr.Field
			if field == "" && appErr.Code == apperr.Invalid {
				// A scalar refused a value while the arguments were read.
				if oc := graphql.GetOperationContext(ctx); oc != nil {
					if f := inputcheck.ArgumentField(schema, oc.Operation, gqlErr.Path); f != nil {
						field = f.String()
						gqlErr.Message = field + " " + gqlErr.Message
					}
				}
			}
			if field != "" {
				gqlErr.Extensions["field"] = field
			}
			return gqlErr
		}
		if _, ok := gqlErr.Extensions["code"]; ok {
			return gqlErr // gqlgen's own parse and validation errors
		}
		if ctx.Err() != nil {
			// The client went away and took the request's context with
			// it: every field still running fails the same way, and no one
			// reads the answer. The server logs the request once.
			gqlErr.Message = "the request was cancelled"
			gqlErr.Extensions["code"] = string(apperr.Internal)
			return gqlErr
		}
		code, msg := failure.Public(err)
		if code == apperr.Unavailable {
			failure.SetStatus(ctx, code) // the whole answer is a 503
		}
		// An unreachable database is logged once per outage by the log's
		// outage filter (database.QuietOutages), not here per field.
		log.ErrorContext(ctx, "internal error", "error", err, "path", gqlErr.Path.String())
		gqlErr.Message = msg
		gqlErr.Extensions["code"] = string(code)
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
		if l, err := loaders.From(ctx); err == nil {
			l.ClearAll()
		}
	}
	return next(ctx)
}
