package main

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/format"
	"go/parser"
	"go/token"
	"strings"
)

// rewrite applies the rewrites of the generated executor: plain fields
// marshalled directly (plainFields), field contexts without a Child
// function (withoutChildFunctions), resolver fields resolved in place
// (resolverFieldsInPlace), list elements marshalled in place
// (elementsInPlace), then the literal replacements of replacements. It
// returns how many places each changed, in that order.
func rewrite(src []byte) ([]byte, []int, error) {
	out, n, err := plainFields(src)
	if err != nil {
		return nil, nil, err
	}
	out, children := withoutChildFunctions(out)
	out, resolved, err := resolverFieldsInPlace(out)
	if err != nil {
		return nil, nil, err
	}
	out, elements := elementsInPlace(out)
	counts := []int{n, children, resolved, elements}
	for _, r := range replacements {
		n := bytes.Count(out, []byte(r.old))
		out = bytes.ReplaceAll(out, []byte(r.old), []byte(r.new))
		counts = append(counts, n)
	}
	out, closures := closuresOnlyWhenDeferred(out)
	counts = append(counts, closures)
	// The resolvers moved into fields resolved in place keep gqlgen's
	// deeper indentation until formatted.
	formatted, err := format.Source(out)
	if err != nil {
		return nil, nil, err
	}
	return formatted, counts, nil
}

// replacement is a literal change of gqlgen's output, and why.
type replacement struct{ what, old, new string }

// replacements take gqlgen's per-element and per-object costs out of
// reads. Each relies on a property of this service, said with it.
var replacements = []replacement{{
	what: "lists marshalled in order",
	// A goroutine per element let dataloaders gather keys while elements
	// wait; ours load a list's relation on its first element's ask
	// (internal/loaders), so the goroutines only cost (marshalInOrder).
	old: "graphql.MarshalSliceConcurrently(",
	new: "marshalInOrder(",
}, {
	what: "resolver fields of objects run in place",
	// For the same reason an object's resolver fields (an order's customer
	// and lines) need not wait for each other: each runs where it is met,
	// in the field order, with no closure, queue or goroutine.
	old: "out.Concurrently(i, func(ctx context.Context) graphql.Marshaler { return innerFunc(ctx, out) })",
	new: "out.Values[i] = innerFunc(ctx, out)",
}, {
	what: "root fields run in order",
	// A query's root fields ran on a goroutine each. In order, a list's
	// page reads the total its count field asks after it, so the count
	// costs no statement (graph.CountFollows), and the statements a query
	// costs do not depend on timing; measured under load, running them at
	// once bought no throughput (docs/architecture.md, "Root fields run in
	// order").
	old: "out.Concurrently(i, func(ctx context.Context) graphql.Marshaler { return rrm(innerCtx) })",
	new: "out.Values[i] = rrm(innerCtx)",
}, {
	what: "deferred field sets made only when a field is deferred",
	// Every object made a field set and a map for its @defer fields, which
	// are almost always none.
	old: "\tdeferredFieldSet := graphql.NewFieldSet(nil)\n\tdeferLabelToView := make(map[string]*graphql.FieldSetView)\n",
	new: "\tvar deferredFieldSet *graphql.FieldSet\n\tvar deferLabelToView map[string]*graphql.FieldSetView\n",
}, {
	what: "deferred field sets made on the first deferred field",
	old:  "if field.IsDeferred() {\n\t\t\t\tdeferredFieldSet.AddField(field)\n",
	new: "if field.IsDeferred() {\n" +
		"\t\t\t\tif deferredFieldSet == nil {\n" +
		"\t\t\t\t\tdeferredFieldSet, deferLabelToView = graphql.NewFieldSet(nil), map[string]*graphql.FieldSetView{}\n" +
		"\t\t\t\t}\n" +
		"\t\t\t\tdeferredFieldSet.AddField(field)\n",
}, {
	what: "deferred groups processed only when there is one",
	// Every object ended with this call, which reads the field's path (an
	// allocation) before finding it has nothing to do.
	old: `
	ec.ProcessDeferredGroup(graphql.DeferredGroup{
		Defers:   deferLabelToView,
		Path:     graphql.GetPath(ctx),
		FieldSet: deferredFieldSet,
		Context:  ctx,
	})
`,
	new: `
	if len(deferLabelToView) > 0 {
		ec.ProcessDeferredGroup(graphql.DeferredGroup{
			Defers:   deferLabelToView,
			Path:     graphql.GetPath(ctx),
			FieldSet: deferredFieldSet,
			Context:  ctx,
		})
	}
`,
}, {
	what: "objects written without a map of their names",
	// graph.object; this follows the deferred group's rewrite, so it is
	// met only in objects (and root types) that end with it.
	old: "\t\t})\n\t}\n\n\treturn out\n}\n",
	new: "\t\t})\n\t}\n\n\treturn written\n}\n",
}, {
	what: "objects made with their field set in one allocation",
	// graph.newObject; the object is what the rewrite above returns. Every
	// object of an answer made a field set, its values and the object.
	old: "\tout := graphql.NewFieldSet(fields)\n",
	new: "\tout, written := newObject(fields)\n",
}}

// plainFields rewrites the generated executor so that a plain field (one
// read straight from its Go struct field, with no resolver, no directive,
// and a scalar or enum type) is marshalled directly instead of through
// graphql.ResolveField.
//
// Why: ResolveField gives every field a FieldContext, a context, closures,
// a panic guard, the field middleware chain and a boxed value: some ten
// allocations per field, which made the per-field machinery the largest
// cost of a list page (50 orders with their lines are ~1,000 fields). A
// plain field needs none of it: reading a struct field cannot fail or
// panic, a scalar has no children, and no directive applies to it, so
// what it writes is the same. What such a field gives up is being seen by
// field middleware (graphql.FieldInterceptor): an extension that must see
// every field would have to be applied before this step is.
//
// A field is left alone when its value could be null and the schema says
// it may not be (a pointer or interface bound to a non-null field): the
// "must not be null" error needs its FieldContext.
func plainFields(src []byte) ([]byte, int, error) {
	fset := token.NewFileSet()
	file, err := parser.ParseFile(fset, "generated.go", src, parser.SkipObjectResolution)
	if err != nil {
		return nil, 0, err
	}
	scalar := scalarFieldContexts(file)
	out, n := rewriteBodies(src, fset, file, func(fn *ast.FuncDecl) (string, bool) {
		return plainBody(fn, scalar)
	})
	return out, n, nil
}

// rewriteBodies replaces the body of each field resolver (a method named
// _T_f) of file, parsed from src, for which body gives a new one, and says
// how many it replaced.
func rewriteBodies(src []byte, fset *token.FileSet, file *ast.File, body func(fn *ast.FuncDecl) (string, bool)) ([]byte, int) {
	var out bytes.Buffer
	last, n := 0, 0
	for _, decl := range file.Decls {
		fn, ok := decl.(*ast.FuncDecl)
		if !ok || fn.Recv == nil || !strings.HasPrefix(fn.Name.Name, "_") {
			continue
		}
		text, ok := body(fn)
		if !ok {
			continue
		}
		from, to := fset.Position(fn.Body.Lbrace).Offset, fset.Position(fn.Body.Rbrace).Offset+1
		out.Write(src[last:from])
		out.WriteString(text)
		last = to
		n++
	}
	out.Write(src[last:])
	return out.Bytes(), n
}

// scalarFieldContexts names the generated fieldContext_* functions that
// describe a field without children (a scalar or an enum).
func scalarFieldContexts(file *ast.File) map[string]bool {
	out := map[string]bool{}
	for _, decl := range file.Decls {
		fn, ok := decl.(*ast.FuncDecl)
		if !ok || fn.Recv == nil || !strings.HasPrefix(fn.Name.Name, "fieldContext_") || len(fn.Body.List) != 1 {
			continue
		}
		ret, ok := fn.Body.List[0].(*ast.ReturnStmt)
		if !ok || len(ret.Results) != 1 {
			continue
		}
		if call, ok := ret.Results[0].(*ast.CallExpr); ok && isSelector(call.Fun, "graphql", "NewScalarFieldContext") {
			out[fn.Name.Name] = true
		}
	}
	return out
}

// plainBody is the direct body of fn when fn resolves a plain field:
//
//	return graphql.ResolveField(ctx, ec.OperationContext, field,
//		func(...) { return ec.fieldContext_T_f(ctx, field) },  // a scalar's
//		func(ctx context.Context) (any, error) { return obj.F, nil },
//		nil,                                                    // no directive
//		func(ctx, selections, v T) graphql.Marshaler { return ec.marshalX(ctx, selections, v) },
//		recover, nonNull)
func plainBody(fn *ast.FuncDecl, scalar map[string]bool) (string, bool) {
	if len(fn.Body.List) != 1 {
		return "", false
	}
	ret, ok := fn.Body.List[0].(*ast.ReturnStmt)
	if !ok || len(ret.Results) != 1 {
		return "", false
	}
	call, ok := ret.Results[0].(*ast.CallExpr)
	if !ok || !isSelector(call.Fun, "graphql", "ResolveField") || len(call.Args) != 9 {
		return "", false
	}
	context, ok := singleReturnCall(call.Args[3])
	if !ok || !scalar[selectorName(context.Fun, "ec")] {
		return "", false
	}
	value, ok := structField(call.Args[4])
	if !ok {
		return "", false
	}
	if id, ok := call.Args[5].(*ast.Ident); !ok || id.Name != "nil" {
		return "", false
	}
	marshal, ok := singleReturnCall(call.Args[6])
	name := selectorName(marshal.Fun, "ec")
	if !ok || !strings.HasPrefix(name, "marshal") {
		return "", false
	}
	if nonNull, _ := call.Args[8].(*ast.Ident); nonNull == nil || nonNull.Name == "true" {
		if mayBeNil(call.Args[6].(*ast.FuncLit)) {
			return "", false
		}
	}
	if at, ok := byAddress[name]; ok {
		return fmt.Sprintf("{\n\treturn "+at+"\n}", value), true
	}
	return fmt.Sprintf("{\n\treturn ec.%s(ctx, field.Selections, %s)\n}", name, value), true
}

// byAddress are the scalars a plain field writes from where its record
// holds it rather than from a copy in an interface, which allocates
// (models.StringAt), and a list of them as one value rather than a value
// each. Each marshaller it replaces does no more than box the values (and
// check for a null a non-pointer cannot be).
var byAddress = map[string]string{
	"marshalNString2string":   "models.StringAt(&%s)",
	"marshalNInt2int64":       "models.IntAt(&%s)",
	"marshalNTime2timeᚐTime":  "models.TimeAt(&%s)",
	"marshalOString2ᚖstring":  "models.StringOrNull(%s)",
	"marshalOInt2ᚖint64":      "models.IntOrNull(%s)",
	"marshalOTime2ᚖtimeᚐTime": "models.TimeOrNull(%s)",
	"marshalNString2ᚕstringᚄ": "models.StringsAt(&%s)",
	"marshalNInt2ᚕint64ᚄ":     "models.IntsAt(&%s)",
}

// singleReturnCall is the call a function literal's one statement returns.
func singleReturnCall(e ast.Expr) (*ast.CallExpr, bool) {
	lit, ok := e.(*ast.FuncLit)
	if !ok || len(lit.Body.List) != 1 {
		return nil, false
	}
	ret, ok := lit.Body.List[0].(*ast.ReturnStmt)
	if !ok || len(ret.Results) != 1 {
		return nil, false
	}
	call, ok := ret.Results[0].(*ast.CallExpr)
	return call, ok
}

// structField is "obj.F" (or "obj.A.B") when e is a resolver literal whose
// one statement is `return obj.F, nil`.
func structField(e ast.Expr) (string, bool) {
	lit, ok := e.(*ast.FuncLit)
	if !ok || len(lit.Body.List) != 1 {
		return "", false
	}
	ret, ok := lit.Body.List[0].(*ast.ReturnStmt)
	if !ok || len(ret.Results) != 2 {
		return "", false
	}
	if id, ok := ret.Results[1].(*ast.Ident); !ok || id.Name != "nil" {
		return "", false
	}
	var path []string
	x := ret.Results[0]
	for {
		switch v := x.(type) {
		case *ast.SelectorExpr:
			path = append([]string{v.Sel.Name}, path...)
			x = v.X
			continue
		case *ast.Ident:
			if v.Name != "obj" || len(path) == 0 {
				return "", false
			}
			return "obj." + strings.Join(path, "."), true
		}
		return "", false
	}
}

// mayBeNil tells whether the marshal literal's value parameter is of a
// type whose zero value is nil (a pointer or an interface).
func mayBeNil(lit *ast.FuncLit) bool {
	params := lit.Type.Params.List
	switch t := params[len(params)-1].Type.(type) {
	case *ast.StarExpr, *ast.InterfaceType:
		return true
	case *ast.Ident:
		return t.Name == "any"
	}
	return false
}

func isSelector(e ast.Expr, pkg, name string) bool {
	return selectorName(e, pkg) == name
}

// selectorName is sel of x.sel when x is the identifier named x.
func selectorName(e ast.Expr, x string) string {
	s, ok := e.(*ast.SelectorExpr)
	if !ok {
		return ""
	}
	if id, ok := s.X.(*ast.Ident); !ok || id.Name != x {
		return ""
	}
	return s.Sel.Name
}
