package main

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"regexp"
	"slices"
	"strings"
)

// resolverFieldsInPlace rewrites the generated executor so that a field
// with a resolver below the root (an order's customer, its lines, a line's
// variant) is resolved in place rather than through graphql.ResolveField:
//
//	fc, err := ec.fieldContext_T_f(ctx, field)
//	...
//	ctx = graphql.WithFieldContext(ctx, fc)
//	defer recoverField(ctx, ec.OperationContext, &ret)
//	if err := fieldAccess(ctx, "products:read", nil); err != nil { ... } // with @access
//	v, err := func(ctx context.Context) (T, error) { <gqlgen's resolver body> }(ctx)
//	if err != nil { return fieldFailed(...) }
//	fc.Result = v
//	return ec.marshalX(ctx, field.Selections, v)
//
// Why: ResolveField hands the resolver to the field middleware chain, so
// its closure, the chain's closures, the context they share and the boxed
// answer all escape to the heap, and an @access check adds two closures of
// its own: ten allocations a field, for 225 such fields on a page of 50
// orders. What the field keeps is what the service relies on: its
// FieldContext (with the Result the loaders group by, and the path errors
// name), the panic guard, the @access check and gqlgen's handling of an
// error. What it gives up is the field middleware (graphql.FieldInterceptor),
// which this service does not use; NewExecutor refuses an extension that
// would expect it.
//
// A field is left to ResolveField when it is a root field (whose
// interceptors and dispatch the service does use), when a directive other
// than @access without a role applies, when it does not recover panics,
// or when its Go type is an interface (whose nil ResolveField treats apart).
func resolverFieldsInPlace(src []byte) ([]byte, int, error) {
	fset := token.NewFileSet()
	file, err := parser.ParseFile(fset, "generated.go", src, parser.SkipObjectResolution)
	if err != nil {
		return nil, 0, err
	}
	text := func(n ast.Node) string {
		return string(src[fset.Position(n.Pos()).Offset:fset.Position(n.End()).Offset])
	}
	literals := fieldContextLiterals(file, text)
	out, n := rewriteBodies(src, fset, file, func(fn *ast.FuncDecl) (string, bool) {
		if !hasParam(fn, "obj") || isRootOrIntrospection(fn.Name.Name) {
			return "", false
		}
		return inPlaceBody(fn, text, literals)
	})
	return out, n, nil
}

// isRootOrIntrospection tells the resolvers of root fields (_Query_orders)
// and of the introspection types (___Type_fields) from the others.
func isRootOrIntrospection(name string) bool {
	for _, prefix := range []string{"_Query_", "_Mutation_", "_Subscription_", "___"} {
		if strings.HasPrefix(name, prefix) {
			return true
		}
	}
	return false
}

// onlyAccessWithoutRole matches gqlgen's middleware for a field whose one
// directive is @access without a role, capturing the scope's literal.
var onlyAccessWithoutRole = regexp.MustCompile(`^func\(ctx context\.Context, next graphql\.Resolver\) graphql\.Resolver \{\s*` +
	`directive0 := next\s*directive1 := func\(ctx context\.Context\) \(any, error\) \{\s*` +
	`scope, err := ec\.unmarshalNString2string\(ctx, ("[^"\\]*")\)\s*` +
	`if err != nil \{\s*var zeroVal [^\n]+\s*return zeroVal, err\s*\}\s*` +
	`if ec\.Directives\.Access == nil \{\s*var zeroVal [^\n]+\s*return zeroVal, errors\.New\("directive access is not implemented"\)\s*\}\s*` +
	`return ec\.Directives\.Access\(ctx, obj, directive0, scope, nil\)\s*\}\s*` +
	`next = directive1\s*return next\s*\}$`)

// inPlaceBody is the in-place body of fn when fn is gqlgen's resolver of a
// field it can be written for:
//
//	return graphql.ResolveField(ctx, ec.OperationContext, field,
//		func(ctx context.Context, field graphql.CollectedField) (*graphql.FieldContext, error) { return ec.fieldContext_T_f(ctx, field) },
//		func(ctx context.Context) (any, error) { ... },   // the resolver
//		nil,                                              // or @access's middleware
//		func(ctx context.Context, selections ast.SelectionSet, v T) graphql.Marshaler { return ec.marshalX(ctx, selections, v) },
//		true, nonNull)
func inPlaceBody(fn *ast.FuncDecl, text func(ast.Node) string, literals map[string]string) (string, bool) {
	ret, ok := onlyReturn(fn.Body)
	if !ok || len(ret.Results) != 1 {
		return "", false
	}
	call, ok := ret.Results[0].(*ast.CallExpr)
	if !ok || !isSelector(call.Fun, "graphql", "ResolveField") || len(call.Args) != 9 {
		return "", false
	}
	fieldContext, ok := singleReturnCall(call.Args[3])
	if !ok || !strings.HasPrefix(selectorName(fieldContext.Fun, "ec"), "fieldContext_") {
		return "", false
	}
	resolver, ok := call.Args[4].(*ast.FuncLit)
	if !ok {
		return "", false
	}
	access := ""
	if !isIdent(call.Args[5], "nil") {
		m := onlyAccessWithoutRole.FindStringSubmatch(text(call.Args[5]))
		if m == nil {
			return "", false
		}
		access = m[1]
	}
	marshalLit, ok := call.Args[6].(*ast.FuncLit)
	if !ok || len(marshalLit.Type.Params.List) != 3 {
		return "", false
	}
	marshal, ok := singleReturnCall(marshalLit)
	if !ok || !strings.HasPrefix(selectorName(marshal.Fun, "ec"), "marshal") {
		return "", false
	}
	goType := text(marshalLit.Type.Params.List[2].Type)
	if !notInterface(goType) || !isIdent(call.Args[7], "true") {
		return "", false
	}
	nonNull, ok := call.Args[8].(*ast.Ident)
	if !ok {
		return "", false
	}
	var b strings.Builder
	if lit, ok := literals[selectorName(fieldContext.Fun, "ec")]; ok {
		fmt.Fprintf(&b, "{\n\tctx, fc := withFieldContext(ctx, %s)\n", lit)
	} else {
		fmt.Fprintf(&b, "{\n\tfc, err := ec.%s(ctx, field)\n", selectorName(fieldContext.Fun, "ec"))
		b.WriteString("\tif err != nil {\n\t\treturn graphql.Null\n\t}\n")
		b.WriteString("\tctx = graphql.WithFieldContext(ctx, fc)\n")
	}
	b.WriteString("\tdefer recoverField(ctx, ec.OperationContext, &ret)\n")
	if access != "" {
		fmt.Fprintf(&b, "\tif err := fieldAccess(ctx, %s, nil); err != nil {\n", access)
		fmt.Fprintf(&b, "\t\treturn fieldFailed(ctx, ec.OperationContext, fc, err, %s)\n\t}\n", nonNull.Name)
	}
	fmt.Fprintf(&b, "\tv, err := func(ctx context.Context) (%s, error) %s(ctx)\n", goType, text(resolver.Body))
	fmt.Fprintf(&b, "\tif err != nil {\n\t\treturn fieldFailed(ctx, ec.OperationContext, fc, err, %s)\n\t}\n", nonNull.Name)
	b.WriteString("\tfc.Result = v\n")
	fmt.Fprintf(&b, "\treturn ec.%s(ctx, field.Selections, v)\n}", selectorName(marshal.Fun, "ec"))
	return b.String(), true
}

// fieldContextLiterals are the FieldContext literals of the generated
// fieldContext_* functions that make nothing else (no arguments to parse,
// no Child), by function name:
//
//	func (ec *executionContext) fieldContext_Order_customer(_ context.Context, field graphql.CollectedField) (fc *graphql.FieldContext, err error) {
//		fc = &graphql.FieldContext{Object: "Order", Field: field, IsMethod: true, IsResolver: true}
//		return fc, nil
//	}
//
// A field resolved in place makes its context from the literal, in one
// allocation with it (graph.withFieldContext).
func fieldContextLiterals(file *ast.File, text func(ast.Node) string) map[string]string {
	out := map[string]string{}
	for _, decl := range file.Decls {
		fn, ok := decl.(*ast.FuncDecl)
		if !ok || fn.Recv == nil || !strings.HasPrefix(fn.Name.Name, "fieldContext_") {
			continue
		}
		if lit, ok := scalarFieldContext(fn, text); ok {
			out[fn.Name.Name] = lit
			continue
		}
		if len(fn.Body.List) != 2 {
			continue
		}
		assign, ok := fn.Body.List[0].(*ast.AssignStmt)
		if !ok || len(assign.Lhs) != 1 || !isIdent(assign.Lhs[0], "fc") || len(assign.Rhs) != 1 {
			continue
		}
		addr, ok := assign.Rhs[0].(*ast.UnaryExpr)
		if !ok || addr.Op != token.AND {
			continue
		}
		lit, ok := addr.X.(*ast.CompositeLit)
		if !ok || !isSelector(lit.Type, "graphql", "FieldContext") || !onlyKeys(lit, "Object", "Field", "IsMethod", "IsResolver") {
			continue
		}
		if ret, ok := fn.Body.List[1].(*ast.ReturnStmt); !ok || len(ret.Results) != 2 || !isIdent(ret.Results[0], "fc") || !isIdent(ret.Results[1], "nil") {
			continue
		}
		out[fn.Name.Name] = text(lit)
	}
	return out
}

// scalarFieldContext is the FieldContext literal of a scalar's field
// context,
//
//	return graphql.NewScalarFieldContext("Product", field, true, true, errors.New("field of type Int does not have child fields"))
//
// less its Child (a function that returns the error).
func scalarFieldContext(fn *ast.FuncDecl, text func(ast.Node) string) (string, bool) {
	ret, ok := onlyReturn(fn.Body)
	if !ok || len(ret.Results) != 1 {
		return "", false
	}
	call, ok := ret.Results[0].(*ast.CallExpr)
	if !ok || !isSelector(call.Fun, "graphql", "NewScalarFieldContext") || len(call.Args) != 5 || !isIdent(call.Args[1], "field") {
		return "", false
	}
	return fmt.Sprintf("graphql.FieldContext{Object: %s, Field: field, IsMethod: %s, IsResolver: %s}",
		text(call.Args[0]), text(call.Args[2]), text(call.Args[3])), true
}

// onlyKeys tells whether every element of lit is keyed by one of keys.
func onlyKeys(lit *ast.CompositeLit, keys ...string) bool {
	for _, e := range lit.Elts {
		kv, ok := e.(*ast.KeyValueExpr)
		if !ok {
			return false
		}
		k, ok := kv.Key.(*ast.Ident)
		if !ok || !slices.Contains(keys, k.Name) {
			return false
		}
	}
	return true
}

// notInterface tells whether a Go type, as gqlgen writes it, is certainly
// not an interface: a pointer, a slice, or a basic type.
func notInterface(goType string) bool {
	if strings.HasPrefix(goType, "*") || strings.HasPrefix(goType, "[]") {
		return true
	}
	switch goType {
	case "string", "bool", "int", "int32", "int64", "float64", "time.Time":
		return true
	}
	return false
}

// childFunction is the Child of a generated field context:
//
//	Child: func(ctx context.Context, field graphql.CollectedField) (*graphql.FieldContext, error) {
//		return ec.childFields_Customer(ctx, field)
//	},
var childFunction = regexp.MustCompile(`\t\tChild: func\(ctx context\.Context, field graphql\.CollectedField\) \(\*graphql\.FieldContext, error\) \{\n\t\t\treturn ec\.childFields_\w+\(ctx, field\)\n\t\t\},\n`)

// withoutChildFunctions leaves FieldContext.Child out of the field contexts
// the executor makes. Child lets code outside the executor make the
// context of a child field; nothing in this service does, and its closure
// was an allocation for every field with a resolver. It returns how many
// it left out.
func withoutChildFunctions(src []byte) ([]byte, int) {
	n := len(childFunction.FindAllIndex(src, -1))
	return childFunction.ReplaceAll(src, nil), n
}
