// Package rest is the REST surface under /api/v1: a route table of persisted
// GraphQL operations run in-process on the one executor, so that access,
// validation, tenancy and dataloaders are the resolvers' on both surfaces.
//
// A route binds path, query and body to the operation's variables, runs it,
// and wraps the data as {"status": true, ...}; errors become the HTTP status
// of their extensions.code and the failure envelope (package failure), the
// field at fault named as the REST client sent it.
package rest

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"regexp"
	"strings"

	"github.com/99designs/gqlgen/graphql"
	"github.com/99designs/gqlgen/graphql/executor"
	"github.com/go-chi/chi/v5"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/gqlerror"

	"storeadmin/graph"
	"storeadmin/internal/audit"
	"storeadmin/internal/base/apperr"
	"storeadmin/internal/base/failure"
)

// Adapter serves the route table.
type Adapter struct {
	exec   *executor.Executor
	schema *ast.Schema
	ops    map[string]*operation
	routes []Route
	files  Files
	// readOnly is the view each write route takes back, by operation.
	readOnly map[string]view
}

// Files opens the generated downloads that File routes stream.
type Files interface {
	OpenDownload(ctx context.Context, key string) (io.ReadCloser, error)
}

var pathParamRE = regexp.MustCompile(`\{(\w+)\}`)

// New loads and validates the persisted operations and checks the route
// table against them: every route names an operation whose variables its
// path parameters fill, and every operation is routed. It then warms the
// executor's cache so that no request parses or validates a document.
func New(exec *executor.Executor, schema *ast.Schema, routes []Route, files Files) (*Adapter, error) {
	ops, err := loadOperations(schema)
	if err != nil {
		return nil, err
	}
	used := map[string]bool{}
	for _, rt := range routes {
		op := ops[rt.Op]
		if op == nil {
			return nil, fmt.Errorf("route %s %s names operation %s, which no operations/*.graphql file defines", rt.Method, rt.Path, rt.Op)
		}
		for _, m := range pathParamRE.FindAllStringSubmatch(rt.Path, -1) {
			if op.def.VariableDefinitions.ForName(m[1]) == nil {
				return nil, fmt.Errorf("route %s %s: operation %s has no variable $%s for the path parameter", rt.Method, rt.Path, rt.Op, m[1])
			}
		}
		if (rt.Shape == Spread || rt.Shape == File) && len(op.def.SelectionSet) != 1 {
			return nil, fmt.Errorf("route %s %s: a spread or file operation must have exactly one root field", rt.Method, rt.Path)
		}
		used[rt.Op] = true
	}
	for name := range ops {
		if !used[name] {
			return nil, fmt.Errorf("operation %s is not routed: add it to the route table or delete it", name)
		}
	}
	a := &Adapter{exec: exec, schema: schema, ops: ops, routes: routes, files: files, readOnly: map[string]view{}}
	for _, rt := range routes {
		a.readOnly[rt.Op] = readOnlyView(rt, routes, ops)
	}
	for _, op := range ops {
		// Parsing and validation are cached by query text; variables are
		// checked per request, so their errors here are expected.
		exec.CreateOperationContext(graphql.StartOperationTrace(context.Background()), &graphql.RawParams{Query: op.text, OperationName: op.def.Name})
	}
	return a, nil
}

// Mount registers every route on r, plus the 404 and 405 envelopes.
func (a *Adapter) Mount(r chi.Router) {
	for _, rt := range a.routes {
		r.Method(rt.Method, rt.Path, a.handler(rt))
	}
	r.NotFound(func(w http.ResponseWriter, r *http.Request) {
		fail(w, r, apperr.NotFoundf("there is no %s under /api/v1; the paths are in GET /api/v1/openapi.json (for people: /api/v1/docs)", r.URL.Path))
	})
	r.MethodNotAllowed(func(w http.ResponseWriter, r *http.Request) {
		fail(w, r, apperr.New(apperr.MethodNotAllowed, "%s is not allowed on this path", r.Method))
	})
}

func (a *Adapter) handler(rt Route) http.HandlerFunc {
	op, readOnly := a.ops[rt.Op], a.readOnly[rt.Op]
	success := rt.Status
	if success == 0 {
		success = http.StatusOK
	}
	return func(w http.ResponseWriter, r *http.Request) {
		audit.NoteOperation(r.Context(), op.def)
		if err := a.gate(r.Context(), op); err != nil {
			fail(w, r, err)
			return
		}
		vars, err := bind(r, a.schema, op, readOnly)
		if err != nil {
			fail(w, r, err)
			return
		}
		resp := a.run(r.Context(), op, vars)
		if resp == nil || r.Context().Err() != nil {
			// The client hung up: nobody reads an answer, and the server
			// logs the request once (see accesslog.Middleware).
			audit.Fail(r.Context(), apperr.Internal, "the client closed the request")
			return
		}
		if len(resp.Errors) > 0 {
			fail(w, r, a.restError(op, resp.Errors[0]))
			return
		}
		if rt.Shape == File {
			a.stream(w, r, resp.Data)
			return
		}
		body, err := payload(resp.Data, rt.Shape)
		if err != nil {
			internalError(w, r)
			return
		}
		writeJSON(w, success, body)
	}
}

// stream answers with the bytes of the Download the operation returned:
// the resolver made the file after its own access checks, so the REST
// client gets the file itself rather than a link to it.
func (a *Adapter) stream(w http.ResponseWriter, r *http.Request, data json.RawMessage) {
	var fields map[string]struct {
		Filename    string `json:"filename"`
		ContentType string `json:"content_type"`
		URL         string `json:"url"`
	}
	if err := json.Unmarshal(data, &fields); err != nil {
		internalError(w, r)
		return
	}
	for _, d := range fields {
		u, err := url.Parse(d.URL)
		if err != nil || !strings.Contains(u.Path, "/files/") {
			internalError(w, r)
			return
		}
		key := u.Path[strings.Index(u.Path, "/files/")+len("/files/"):]
		body, err := a.files.OpenDownload(r.Context(), key)
		if err != nil {
			fail(w, r, err)
			return
		}
		defer body.Close()
		w.Header().Set("Content-Type", d.ContentType)
		w.Header().Set("Content-Disposition", mime.FormatMediaType("attachment", map[string]string{"filename": d.Filename}))
		w.Header().Set("Cache-Control", "private, no-store")
		w.WriteHeader(http.StatusOK)
		io.Copy(w, body)
		return
	}
}

// fail answers a failure and tells the audit entry how the request ended.
func fail(w http.ResponseWriter, r *http.Request, err error) {
	audit.Fail(r.Context(), apperr.CodeOf(err), err.Error())
	failure.WriteREST(w, r, err)
}

// internalError answers a failure of the adapter itself.
func internalError(w http.ResponseWriter, r *http.Request) {
	fail(w, r, apperr.New(apperr.Internal, "internal server error"))
}

// gate checks the access of every root field of op before the request is
// read: 401 and 403 come before any 400. The directives check again when the
// fields run.
func (a *Adapter) gate(ctx context.Context, op *operation) error {
	root := a.schema.Query
	if op.def.Operation == ast.Mutation {
		root = a.schema.Mutation
	}
	for _, sel := range op.def.SelectionSet {
		if f, ok := sel.(*ast.Field); ok {
			if err := graph.CheckFieldAccess(ctx, op.def.Operation, root.Fields.ForName(f.Name)); err != nil {
				return err
			}
		}
	}
	return nil
}

// Run executes a persisted operation in-process, as POST /graphql would.
func (a *Adapter) run(ctx context.Context, op *operation, vars map[string]any) *graphql.Response {
	ctx = graphql.StartOperationTrace(ctx)
	params := &graphql.RawParams{Query: op.text, OperationName: op.def.Name, Variables: vars}
	oc, errs := a.exec.CreateOperationContext(ctx, params)
	if errs != nil {
		return a.exec.DispatchError(graphql.WithOperationContext(ctx, oc), errs)
	}
	handle, ctx := a.exec.DispatchOperation(ctx, oc)
	return handle(ctx)
}

// Read is the data a REST read answers, run in-process on ctx (whose
// principal, loaders and database the caller chose) with vars: for callers
// that need exactly what a route answers, without an HTTP round trip.
type Read func(ctx context.Context, vars map[string]any) (json.RawMessage, error)

// ReadOf returns the Read of the GET route at path. It fails when there is
// no such route, so a wiring that names a wrong path fails at start-up,
// not when the first event is rendered.
func (a *Adapter) ReadOf(path string) (Read, error) {
	for _, rt := range a.routes {
		if rt.Method == http.MethodGet && rt.Path == path {
			op := a.ops[rt.Op]
			return func(ctx context.Context, vars map[string]any) (json.RawMessage, error) {
				resp := a.run(ctx, op, vars)
				if resp == nil {
					return nil, fmt.Errorf("read %s: %w", path, context.Cause(ctx))
				}
				if len(resp.Errors) > 0 {
					return nil, resp.Errors
				}
				return resp.Data, nil
			}, nil
		}
	}
	return nil, fmt.Errorf("rest: no GET route %s to read", path)
}

// payload shapes the data object as the route's answer.
func payload(data json.RawMessage, shape Shape) ([]byte, error) {
	switch shape {
	case Bare:
		return envelope(nil), nil
	case Spread:
		var fields map[string]json.RawMessage
		if err := json.Unmarshal(data, &fields); err != nil {
			return nil, err
		}
		for _, obj := range fields {
			return envelope(obj), nil
		}
		return envelope(nil), nil
	}
	return envelope(data), nil
}

// restError is a GraphQL error as the REST client is told it: with the
// status of its code, and, when it is about one value the client sent, that
// value named as the client sent it (see restField), whether the variable
// check or a resolver found it.
func (a *Adapter) restError(op *operation, err *gqlerror.Error) *apperr.Error {
	code := apperr.Internal
	if c, ok := err.Extensions["code"].(string); ok {
		code = apperr.Code(c)
	}
	out := &apperr.Error{Code: code, Message: err.Message}
	field, ok := err.Extensions["field"].(string)
	if !ok || !strings.HasPrefix(err.Message, field) {
		return out
	}
	if len(err.Path) > 1 {
		out.Field = a.restField(op, err.Path)
		out.Message = out.Field + strings.TrimPrefix(err.Message, field)
	} else {
		// A resolver's check (the path is only its root field) names the
		// value in the body's own terms already.
		out.Field = field
	}
	return out
}

// restField names the value an input error's path leads to as the REST
// client sent it. The path is "variable" and the variable, or a root
// field's alias and its argument, then the fields and indexes inside it;
// an input object's variable or argument is left out (the body arrives as
// $input, query parameters fill a filter's fields), so the client reads
// variants[0].price_cents, not input.variants[0].price_cents.
func (a *Adapter) restField(op *operation, path ast.Path) string {
	segs := path[1:]
	name, _ := segs[0].(ast.PathName)
	var t *ast.Type
	if fmt.Sprint(path[0]) == "variable" {
		if def := op.def.VariableDefinitions.ForName(string(name)); def != nil {
			t = def.Type
		}
	} else {
		root := a.schema.Query
		if op.def.Operation == ast.Mutation {
			root = a.schema.Mutation
		}
		for _, sel := range op.def.SelectionSet {
			if f, ok := sel.(*ast.Field); ok && ast.PathName(f.Alias) == path[0] {
				if arg := root.Fields.ForName(f.Name).Arguments.ForName(string(name)); arg != nil {
					t = arg.Type
				}
			}
		}
	}
	if t != nil && t.Elem == nil && len(segs) > 1 {
		if def := a.schema.Types[t.NamedType]; def != nil && def.Kind == ast.InputObject {
			segs = segs[1:]
		}
	}
	return segs.String()
}
