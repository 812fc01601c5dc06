package main

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/format"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// fieldReads is what resolving each field of each object type reads of its
// object, as far as it is known for sure: the service reads only the
// columns an operation uses from it (graph/field_reads.go).
//
// Being conservative is the point: a field whose reads are not known is
// absent, and the runtime then reads every column. A wrong entry would
// silently answer zero values, so every shape the analysis does not
// recognise is unknown, and no call is followed into a helper.
type fieldReads struct {
	// objects: type -> field -> the Go fields of the object it reads (the
	// first element of a path: obj.A.B reads A).
	objects map[string]map[string][]string
	// answerKeys: type -> field -> the Go fields of the answered records
	// that the relation the field loads reads to file each under its
	// parent (its keyOf), for fields that answer a relation's load as is.
	answerKeys map[string]map[string][]string
}

// readsOf analyses the rewritten executor (graph/generated.go; gqlgen's own
// shape is recognised too) and the resolvers package's files (name ->
// source, tests left out).
func readsOf(generatedSrc []byte, resolverSrcs map[string][]byte) (fieldReads, error) {
	fset := token.NewFileSet()
	file, err := parser.ParseFile(fset, "generated.go", generatedSrc, parser.SkipObjectResolution)
	if err != nil {
		return fieldReads{}, err
	}
	pkg, err := parseResolvers(fset, resolverSrcs)
	if err != nil {
		return fieldReads{}, err
	}
	objects := fieldContextObjects(file)
	out := fieldReads{objects: map[string]map[string][]string{}, answerKeys: map[string]map[string][]string{}}
	for _, decl := range file.Decls {
		fn, ok := decl.(*ast.FuncDecl)
		if !ok || fn.Recv == nil || !strings.HasPrefix(fn.Name.Name, "_") || !hasParam(fn, "obj") {
			continue
		}
		name := fn.Name.Name[1:]
		typ := objects["fieldContext_"+name]
		if typ == "" || !strings.HasPrefix(name, typ+"_") || strings.HasPrefix(typ, "__") {
			// Introspection types (__Type, ...) are not records read
			// from the database.
			continue
		}
		field := name[len(typ)+1:]
		reads, keys, ok := pkg.resolverReads(fn)
		if !ok {
			continue
		}
		put(out.objects, typ, field, reads)
		if keys != nil {
			put(out.answerKeys, typ, field, keys)
		}
	}
	return out, nil
}

// put files a set of Go fields under typ and field, sorted.
func put(table map[string]map[string][]string, typ, field string, set map[string]bool) {
	if table[typ] == nil {
		table[typ] = map[string][]string{}
	}
	list := []string{}
	for f := range set {
		list = append(list, f)
	}
	slices.Sort(list)
	table[typ][field] = list
}

// known counts the fields a table knows, and the types they belong to.
func known(table map[string]map[string][]string) (fields, types int) {
	for _, fs := range table {
		fields += len(fs)
	}
	return fields, len(table)
}

// fieldContextObjects maps each generated fieldContext_* function to the
// object type its field belongs to: a field resolver _T_f's type is its
// fieldContext_T_f's, which tells it apart from the field's name when
// either holds an underscore.
func fieldContextObjects(file *ast.File) map[string]string {
	out := map[string]string{}
	for _, decl := range file.Decls {
		fn, ok := decl.(*ast.FuncDecl)
		if !ok || fn.Recv == nil || !strings.HasPrefix(fn.Name.Name, "fieldContext_") {
			continue
		}
		ast.Inspect(fn.Body, func(n ast.Node) bool {
			if out[fn.Name.Name] != "" {
				return false
			}
			switch n := n.(type) {
			case *ast.CallExpr:
				if isSelector(n.Fun, "graphql", "NewScalarFieldContext") && len(n.Args) > 0 {
					out[fn.Name.Name] = stringLit(n.Args[0])
				}
			case *ast.KeyValueExpr:
				if k, ok := n.Key.(*ast.Ident); ok && k.Name == "Object" {
					out[fn.Name.Name] = stringLit(n.Value)
				}
			}
			return true
		})
	}
	return out
}

func stringLit(e ast.Expr) string {
	lit, ok := e.(*ast.BasicLit)
	if !ok || lit.Kind != token.STRING {
		return ""
	}
	s, err := strconv.Unquote(lit.Value)
	if err != nil {
		return ""
	}
	return s
}

// hasParam tells whether fn has a parameter named name.
func hasParam(fn *ast.FuncDecl, name string) bool {
	for _, f := range fn.Type.Params.List {
		for _, n := range f.Names {
			if n.Name == name {
				return true
			}
		}
	}
	return false
}

// resolverReads is what the generated field resolver fn reads of obj, and
// the answered records' keys when it answers a relation's load as is
// (nil otherwise). Its two shapes:
//
//	return ec.marshalX(ctx, field.Selections, obj.F)           // rewritten plain field
//	return models.StringAt(&obj.F)                              // one written by address
//	return graphql.ResolveField(ctx, ec.OperationContext, field, fieldContext,
//		func(ctx context.Context) (any, error) { return obj.F, nil },  // or a resolver's method
//		directives, marshal, recover, nonNull)
func (pkg *resolverPkg) resolverReads(fn *ast.FuncDecl) (reads, keys map[string]bool, ok bool) {
	if lit, ok := inPlaceResolver(fn); ok {
		return pkg.literalReads(lit)
	}
	ret, ok := onlyReturn(fn.Body)
	if !ok || len(ret.Results) != 1 {
		return nil, nil, false
	}
	call, ok := ret.Results[0].(*ast.CallExpr)
	if !ok {
		return nil, nil, false
	}
	if strings.HasPrefix(selectorName(call.Fun, "ec"), "marshal") {
		if len(call.Args) != 3 || mentions(call.Args[0], "obj") || mentions(call.Args[1], "obj") {
			return nil, nil, false
		}
		f, ok := firstField(call.Args[2], "obj")
		if !ok {
			return nil, nil, false
		}
		return map[string]bool{f: true}, nil, true
	}
	if writesByAddress(call) {
		arg := call.Args[0]
		if addr, ok := arg.(*ast.UnaryExpr); ok && addr.Op == token.AND {
			arg = addr.X
		}
		f, ok := firstField(arg, "obj")
		if !ok {
			return nil, nil, false
		}
		return map[string]bool{f: true}, nil, true
	}
	if !isSelector(call.Fun, "graphql", "ResolveField") || len(call.Args) != 9 || !onlyAccess(call.Args[5]) {
		return nil, nil, false
	}
	for i, arg := range call.Args {
		if i != 4 && i != 5 && mentions(arg, "obj") {
			return nil, nil, false
		}
	}
	lit, ok := call.Args[4].(*ast.FuncLit)
	if !ok {
		return nil, nil, false
	}
	return pkg.literalReads(lit)
}

// inPlaceResolver is the resolver literal of a field resolved in place
// (resolverFieldsInPlace), the statement
//
//	v, err := func(ctx context.Context) (T, error) { ... }(ctx)
//
// when no other statement of fn mentions obj.
func inPlaceResolver(fn *ast.FuncDecl) (*ast.FuncLit, bool) {
	var found *ast.FuncLit
	for _, stmt := range fn.Body.List {
		if assign, ok := stmt.(*ast.AssignStmt); ok && len(assign.Lhs) == 2 && isIdent(assign.Lhs[0], "v") && len(assign.Rhs) == 1 {
			if call, ok := assign.Rhs[0].(*ast.CallExpr); ok && len(call.Args) == 1 && isIdent(call.Args[0], "ctx") {
				if lit, ok := call.Fun.(*ast.FuncLit); ok && found == nil {
					found = lit
					continue
				}
			}
		}
		if mentions(stmt, "obj") {
			return nil, false
		}
	}
	return found, found != nil
}

// literalReads is what a resolver literal reads of obj: its last statement
// returns obj's field or the resolver method's answer, after statements
// that only read the field context.
func (pkg *resolverPkg) literalReads(lit *ast.FuncLit) (reads, keys map[string]bool, ok bool) {
	for _, s := range lit.Body.List[:max(len(lit.Body.List)-1, 0)] {
		if !isFieldContextRead(s) {
			return nil, nil, false
		}
	}
	ret, ok := lastReturn(lit.Body)
	if !ok {
		return nil, nil, false
	}
	switch len(ret.Results) {
	case 2: // return obj.F, nil
		f, ok := firstField(ret.Results[0], "obj")
		if !ok || !isIdent(ret.Results[1], "nil") {
			return nil, nil, false
		}
		return map[string]bool{f: true}, nil, true
	case 1: // return ec.Resolvers.T().M(ctx, obj, args...)
		m, ok := ret.Results[0].(*ast.CallExpr)
		if !ok || len(m.Args) < 2 || !isIdent(m.Args[1], "obj") {
			return nil, nil, false
		}
		for i, arg := range m.Args {
			if i != 1 && mentions(arg, "obj") {
				return nil, nil, false
			}
		}
		sel, ok := m.Fun.(*ast.SelectorExpr)
		if !ok {
			return nil, nil, false
		}
		of, ok := sel.X.(*ast.CallExpr)
		if !ok || len(of.Args) != 0 {
			return nil, nil, false
		}
		typ, ok := of.Fun.(*ast.SelectorExpr)
		if !ok || selectorName(typ.X, "ec") != "Resolvers" {
			return nil, nil, false
		}
		method := pkg.methods[lowerFirst(typ.Sel.Name)+"Resolver."+sel.Sel.Name]
		if method == nil {
			return nil, nil, false
		}
		return pkg.methodReads(method)
	}
	return nil, nil, false
}

// writesByAddress tells whether call is one of the by-address marshallers
// the plain-field rewrite writes (byAddress), with its one argument.
func writesByAddress(call *ast.CallExpr) bool {
	if len(call.Args) != 1 {
		return false
	}
	name := selectorName(call.Fun, "models")
	for _, at := range byAddress {
		if strings.HasPrefix(at, "models."+name+"(") {
			return name != ""
		}
	}
	return false
}

// onlyAccess tells whether a field's directive literal (gqlgen's argument
// 5) applies no directive but @access: its directive (graph/executor.go
// accessDirective) checks the caller, ignores obj and passes the value on.
func onlyAccess(e ast.Expr) bool {
	if isIdent(e, "nil") {
		return true
	}
	lit, ok := e.(*ast.FuncLit)
	if !ok {
		return false
	}
	ok = true
	stack := []ast.Node{}
	ast.Inspect(lit.Body, func(n ast.Node) bool {
		if n == nil {
			stack = stack[:len(stack)-1]
			return true
		}
		switch n := n.(type) {
		case *ast.SelectorExpr:
			if selectorName(n.X, "ec") == "Directives" && n.Sel.Name != "Access" {
				ok = false
			}
		case *ast.Ident:
			if n.Name == "obj" {
				// obj only goes to Access, which ignores it.
				call, _ := stack[len(stack)-1].(*ast.CallExpr)
				if call == nil || !isDirective(call.Fun, "Access") {
					ok = false
				}
			}
		}
		stack = append(stack, n)
		return ok
	})
	return ok
}

// isDirective tells whether e is ec.Directives.name.
func isDirective(e ast.Expr, name string) bool {
	sel, ok := e.(*ast.SelectorExpr)
	return ok && sel.Sel.Name == name && selectorName(sel.X, "ec") == "Directives"
}

// isFieldContextRead is gqlgen's `fc := graphql.GetFieldContext(ctx)`
// before a resolver's call with arguments.
func isFieldContextRead(s ast.Stmt) bool {
	a, ok := s.(*ast.AssignStmt)
	if !ok || a.Tok != token.DEFINE || len(a.Lhs) != 1 || len(a.Rhs) != 1 || !isIdent(a.Lhs[0], "fc") {
		return false
	}
	call, ok := a.Rhs[0].(*ast.CallExpr)
	return ok && isSelector(call.Fun, "graphql", "GetFieldContext") && len(call.Args) == 1 && isIdent(call.Args[0], "ctx")
}

// resolverPkg is what the analysis knows of the resolvers package.
type resolverPkg struct {
	// methods: "receiverType.Method" -> its declaration (receivers are
	// pointers to gqlgen's <lowerFirst(Type)>Resolver).
	methods map[string]*ast.FuncDecl
	// funcs: the package's top-level functions, by name.
	funcs map[string]*ast.FuncDecl
	// relations: the package-level vars declared as a relation
	// (loaders.One(fetch, key, keyOf), ...), by name.
	relations map[string]relation
}

// relation is a relation var's declaration: its kind (One, Many, ...), the
// parent's key and the answered record's key.
type relation struct {
	kind       string
	key, keyOf ast.Expr
}

// relationKinds are the loaders constructors whose arguments are (fetch,
// key, keyOf); ManyThrough's third is a link, not a keyOf.
var relationKinds = map[string]bool{"One": true, "Many": true, "ManyUpTo": true, "ManyThrough": true, "Listed": true}

// relationLoads are the methods of a relation that read their parent
// (their second argument) only through the relation's key.
var relationLoads = map[string]bool{"Load": true, "Require": true, "Answer": true}

func parseResolvers(fset *token.FileSet, srcs map[string][]byte) (*resolverPkg, error) {
	pkg := &resolverPkg{methods: map[string]*ast.FuncDecl{}, funcs: map[string]*ast.FuncDecl{}, relations: map[string]relation{}}
	names := make([]string, 0, len(srcs))
	for name := range srcs {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		file, err := parser.ParseFile(fset, name, srcs[name], parser.SkipObjectResolution)
		if err != nil {
			return nil, err
		}
		loaders := importName(file, "storeadmin/internal/loaders")
		for _, decl := range file.Decls {
			switch d := decl.(type) {
			case *ast.FuncDecl:
				if d.Recv == nil {
					pkg.funcs[d.Name.Name] = d
					continue
				}
				if len(d.Recv.List) != 1 {
					continue
				}
				if star, ok := d.Recv.List[0].Type.(*ast.StarExpr); ok {
					if recv, ok := star.X.(*ast.Ident); ok {
						pkg.methods[recv.Name+"."+d.Name.Name] = d
					}
				}
			case *ast.GenDecl:
				if d.Tok != token.VAR || loaders == "" {
					continue
				}
				for _, spec := range d.Specs {
					vs := spec.(*ast.ValueSpec)
					if len(vs.Names) != len(vs.Values) {
						continue
					}
					for i, v := range vs.Values {
						call, ok := v.(*ast.CallExpr)
						if !ok || len(call.Args) != 3 || !relationKinds[selectorName(call.Fun, loaders)] {
							continue
						}
						pkg.relations[vs.Names[i].Name] = relation{
							kind: selectorName(call.Fun, loaders), key: call.Args[1], keyOf: call.Args[2],
						}
					}
				}
			}
		}
	}
	return pkg, nil
}

// importName is the name file gives the package of path, or "".
func importName(file *ast.File, path string) string {
	for _, imp := range file.Imports {
		if stringLit(imp.Path) != path {
			continue
		}
		if imp.Name != nil {
			return imp.Name.Name
		}
		return path[strings.LastIndex(path, "/")+1:]
	}
	return ""
}

// methodReads is what a resolver's method reads of its object (its second
// parameter), and the answered records' keys when its body is exactly
// `return rel.Load(ctx, obj)` or `return rel.Answer(ctx, obj, ...)`.
func (pkg *resolverPkg) methodReads(fn *ast.FuncDecl) (reads, keys map[string]bool, ok bool) {
	params := paramNames(fn.Type)
	if len(params) < 2 || params[1] == "" {
		return nil, nil, false
	}
	for _, p := range params {
		if _, isRel := pkg.relations[p]; isRel {
			return nil, nil, false // a parameter hides a relation
		}
	}
	obj := params[1]
	reads, ok = pkg.paramReads(fn.Body, obj, true)
	if !ok {
		return nil, nil, false
	}
	if ret, ok := onlyReturn(fn.Body); ok && len(ret.Results) == 1 {
		rel, ok := pkg.relationCall(ret.Results[0], obj)
		if ok && rel.kind != "ManyThrough" {
			keys, _ = pkg.funcReads(rel.keyOf)
		}
	}
	return reads, keys, true
}

// relationCall is the relation e loads for obj, when e is exactly
// rel.Load(ctx, obj) or rel.Answer(ctx, obj, x).
func (pkg *resolverPkg) relationCall(e ast.Expr, obj string) (relation, bool) {
	call, ok := e.(*ast.CallExpr)
	if !ok || len(call.Args) < 2 || !isIdent(call.Args[1], obj) {
		return relation{}, false
	}
	sel, ok := call.Fun.(*ast.SelectorExpr)
	if !ok {
		return relation{}, false
	}
	rel, ok := sel.X.(*ast.Ident)
	if !ok {
		return relation{}, false
	}
	r, ok := pkg.relations[rel.Name]
	want := map[string]int{"Load": 2, "Answer": 3}[sel.Sel.Name]
	return r, ok && len(call.Args) == want
}

// funcReads is what a function of one parameter reads of it: e is a
// function literal or the name of a top-level function of the package
// (a relation's key or keyOf). It only reads selectors of its parameter.
func (pkg *resolverPkg) funcReads(e ast.Expr) (map[string]bool, bool) {
	var typ *ast.FuncType
	var body *ast.BlockStmt
	switch f := e.(type) {
	case *ast.FuncLit:
		typ, body = f.Type, f.Body
	case *ast.Ident:
		decl := pkg.funcs[f.Name]
		if decl == nil || decl.Body == nil {
			return nil, false
		}
		typ, body = decl.Type, decl.Body
	default:
		return nil, false
	}
	params := paramNames(typ)
	if len(params) != 1 {
		return nil, false
	}
	if params[0] == "" {
		// An unnamed or blank parameter is not read.
		return map[string]bool{}, true
	}
	return pkg.paramReads(body, params[0], false)
}

// paramNames lists a function's parameters' names, "" for an unnamed or
// blank one.
func paramNames(typ *ast.FuncType) []string {
	var out []string
	for _, f := range typ.Params.List {
		if len(f.Names) == 0 {
			out = append(out, "")
		}
		for _, n := range f.Names {
			if n.Name == "_" {
				out = append(out, "")
			} else {
				out = append(out, n.Name)
			}
		}
	}
	return out
}

// paramReads is what body reads of its parameter named obj. Every use of
// the name must be one the analysis knows:
//
//   - obj.F (in any expression: &obj.F, obj.F.G, obj.F.M(), len(obj.F)):
//     reads F; but obj.M(...), a method of obj itself, is unknown;
//   - obj == nil, obj != nil: reads nothing;
//   - with relations, rel.Load(ctx, obj, ...), rel.Require or rel.Answer of
//     a relation var: reads what the relation's key reads.
//
// Any other use (obj passed, assigned, returned, dereferenced, or the name
// declared again) makes the reads unknown.
func (pkg *resolverPkg) paramReads(body *ast.BlockStmt, obj string, relations bool) (map[string]bool, bool) {
	reads := map[string]bool{}
	ok := true
	stack := []ast.Node{}
	ast.Inspect(body, func(n ast.Node) bool {
		if n == nil {
			stack = stack[:len(stack)-1]
			return true
		}
		stack = append(stack, n)
		id, isID := n.(*ast.Ident)
		if !ok || !isID {
			return ok
		}
		parent := stack[len(stack)-2]
		if relations {
			if _, isRel := pkg.relations[id.Name]; isRel && !isLoadOf(parent, id) {
				// A relation's name used otherwise, or declared again
				// here: its calls are not known to be the relation's.
				ok = false
				return false
			}
		}
		if id.Name != obj {
			return true
		}
		switch p := parent.(type) {
		case *ast.SelectorExpr:
			if p.X != id {
				return true // a field or method named like obj, of something else
			}
			if call, isCall := stack[len(stack)-3].(*ast.CallExpr); isCall && call.Fun == p {
				ok = false // obj.M(...): what M reads is not known
				return false
			}
			reads[p.Sel.Name] = true
			return true
		case *ast.BinaryExpr:
			if (p.Op == token.EQL || p.Op == token.NEQ) && (isIdent(p.X, "nil") || isIdent(p.Y, "nil")) {
				return true
			}
		case *ast.CallExpr:
			if relations && len(p.Args) >= 2 && p.Args[1] == id {
				if rel, isRel := pkg.loadOf(p); isRel {
					keyReads, known := pkg.funcReads(rel.key)
					if known {
						for f := range keyReads {
							reads[f] = true
						}
						return true
					}
				}
			}
		}
		ok = false
		return false
	})
	if !ok {
		return nil, false
	}
	return reads, true
}

// isLoadOf tells whether parent uses the relation named id as rel.Load,
// rel.Require or rel.Answer.
func isLoadOf(parent ast.Node, id *ast.Ident) bool {
	sel, ok := parent.(*ast.SelectorExpr)
	return ok && sel.X == id && relationLoads[sel.Sel.Name]
}

// loadOf is the relation call loads, when it is rel.Load(...),
// rel.Require(...) or rel.Answer(...) of a relation var.
func (pkg *resolverPkg) loadOf(call *ast.CallExpr) (relation, bool) {
	sel, ok := call.Fun.(*ast.SelectorExpr)
	if !ok || !relationLoads[sel.Sel.Name] {
		return relation{}, false
	}
	id, ok := sel.X.(*ast.Ident)
	if !ok {
		return relation{}, false
	}
	rel, ok := pkg.relations[id.Name]
	return rel, ok
}

// firstField is F when e is name.F or name.F.G...: a path of selectors
// from name, with no call.
func firstField(e ast.Expr, name string) (string, bool) {
	first := ""
	for {
		switch v := e.(type) {
		case *ast.SelectorExpr:
			first, e = v.Sel.Name, v.X
			continue
		case *ast.Ident:
			return first, v.Name == name && first != ""
		}
		return "", false
	}
}

// mentions tells whether the identifier name occurs in n.
func mentions(n ast.Node, name string) bool {
	found := false
	ast.Inspect(n, func(n ast.Node) bool {
		if id, ok := n.(*ast.Ident); ok && id.Name == name {
			found = true
		}
		return !found
	})
	return found
}

// onlyReturn is body's statement when it is its only one, a return.
func onlyReturn(body *ast.BlockStmt) (*ast.ReturnStmt, bool) {
	if body == nil || len(body.List) != 1 {
		return nil, false
	}
	ret, ok := body.List[0].(*ast.ReturnStmt)
	return ret, ok
}

// lastReturn is body's last statement, a return.
func lastReturn(body *ast.BlockStmt) (*ast.ReturnStmt, bool) {
	if len(body.List) == 0 {
		return nil, false
	}
	ret, ok := body.List[len(body.List)-1].(*ast.ReturnStmt)
	return ret, ok
}

func isIdent(e ast.Expr, name string) bool {
	id, ok := e.(*ast.Ident)
	return ok && id.Name == name
}

// lowerFirst is gqlgen's name of a type's resolver (APIKey: aPIKey).
func lowerFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToLower(s[:1]) + s[1:]
}

// readResolvers reads the resolvers package's files, tests left out.
func readResolvers(dir string) (map[string][]byte, error) {
	paths, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		return nil, err
	}
	out := map[string][]byte{}
	for _, p := range paths {
		if strings.HasSuffix(p, "_test.go") {
			continue
		}
		src, err := os.ReadFile(p)
		if err != nil {
			return nil, err
		}
		out[filepath.Base(p)] = src
	}
	return out, nil
}

// source is graph/field_reads.go for the tables, gofmt'ed.
func (r fieldReads) source() ([]byte, error) {
	var b bytes.Buffer
	b.WriteString(`// Code generated by go run ./graph/generate. DO NOT EDIT.

package graph

// objectReads: object type name -> field name -> the Go fields of the object its resolution reads
// (the first element of a path: obj.A.B reads "A"). Fields whose reads are not known are absent.
`)
	writeTable(&b, "objectReads", r.objects)
	b.WriteString(`
// answerKeys: object type name -> field name -> the Go fields of the ANSWERED records (the field's value) that the
// relation the field loads reads to file each record under its parent (its keyOf), for fields whose resolver is
// exactly ` + "`return rel.Load(ctx, obj)` or `return rel.Answer(ctx, obj, ...)`" + ` (rel a relation var of resolvers).
`)
	writeTable(&b, "answerKeys", r.answerKeys)
	return format.Source(b.Bytes())
}

func writeTable(b *bytes.Buffer, name string, table map[string]map[string][]string) {
	fmt.Fprintf(b, "var %s = map[string]map[string][]string{\n", name)
	for _, typ := range sortedKeys(table) {
		fmt.Fprintf(b, "%q: {\n", typ)
		for _, field := range sortedKeys(table[typ]) {
			quoted := make([]string, len(table[typ][field]))
			for i, f := range table[typ][field] {
				quoted[i] = strconv.Quote(f)
			}
			fmt.Fprintf(b, "%q: {%s},\n", field, strings.Join(quoted, ", "))
		}
		b.WriteString("},\n")
	}
	b.WriteString("}\n")
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
