package rest

import (
	"bytes"
	"io"
	"mime"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"strings"

	"github.com/99designs/gqlgen/graphql"
	"github.com/go-chi/chi/v5"
	"github.com/vektah/gqlparser/v2/ast"

	"storeadmin/internal/base/apperr"
	"storeadmin/internal/base/jsonbody"
	"storeadmin/models"
)

// MaxUploadBytes bounds a file sent to an upload route (a sheet import).
const MaxUploadBytes = 32 << 20

// bodyVariable is the variable that receives the whole JSON body when an
// operation declares it; otherwise the body's top-level keys are variables.
const bodyVariable = "input"

// bind turns a request into the operation's variables: path parameters,
// then query parameters (also into the fields of an input-object variable,
// which is how list filters arrive), then the JSON body: an object, or null
// for a nullable $input. Query values are
// coerced to the declared types; the executor checks every variable's type
// (graph/inputcheck). Unknown input is refused, naming it: a query
// parameter that is neither a variable nor a field of one, a body field the
// input does not declare, except the read-only fields of the route's view
// (see view), which are ignored so that a record read can be sent back.
func bind(r *http.Request, schema *ast.Schema, op *operation, readOnly view) (map[string]any, error) {
	vars := map[string]any{}
	query := r.URL.Query()
	if err := knownParameters(schema, op, query); err != nil {
		return nil, err
	}
	for _, def := range op.def.VariableDefinitions {
		if v := chi.URLParam(r, def.Variable); v != "" {
			val, err := fromString(schema, def.Type, []string{v}, def.Variable)
			if err != nil {
				return nil, err
			}
			vars[def.Variable] = val
			continue
		}
		if values, ok := query[def.Variable]; ok {
			val, err := fromString(schema, def.Type, values, def.Variable)
			if err != nil {
				return nil, err
			}
			vars[def.Variable] = val
			continue
		}
		if obj, err := inputFromQuery(schema, def.Type, query); err != nil {
			return nil, err
		} else if obj != nil {
			vars[def.Variable] = obj
		}
	}
	if name := uploadVariable(op); name != "" {
		up, err := readUpload(r)
		if err != nil {
			return nil, err
		}
		vars[name] = up
	} else if err := bindBody(r, schema, op, readOnly, vars); err != nil {
		return nil, err
	}
	for _, def := range op.def.VariableDefinitions {
		if _, ok := vars[def.Variable]; !ok && def.Type.NonNull && def.DefaultValue == nil {
			if def.Variable == bodyVariable {
				return nil, apperr.Invalidf("a JSON object body is required")
			}
			return nil, apperr.InvalidField(def.Variable, "is required")
		}
	}
	return vars, nil
}

// knownParameters refuses a query parameter the operation does not take:
// a misspelt filter would otherwise answer every row.
func knownParameters(schema *ast.Schema, op *operation, query url.Values) error {
	var unknown []string
	for name := range query {
		if !takesParameter(schema, op, name) {
			unknown = append(unknown, name)
		}
	}
	if len(unknown) == 0 {
		return nil
	}
	sort.Strings(unknown)
	var known []string
	for _, def := range op.def.VariableDefinitions {
		if t := schema.Types[def.Type.NamedType]; def.Type.Elem == nil && t != nil && t.Kind == ast.InputObject {
			for _, f := range t.Fields {
				known = append(known, f.Name)
			}
		} else if def.Type.Name() != "Upload" {
			known = append(known, def.Variable)
		}
	}
	if uploadVariable(op) != "" {
		known = append(known, "filename")
	}
	sort.Strings(known)
	takes := "it takes none"
	if len(known) > 0 {
		takes = "it takes " + strings.Join(known, ", ")
	}
	return apperr.InvalidField(unknown[0], "is not a query parameter of this call (%s)", takes)
}

// takesParameter tells whether op reads the query parameter name: one of
// its variables, a field of an input-object variable, or an upload's
// filename.
func takesParameter(schema *ast.Schema, op *operation, name string) bool {
	if name == "filename" && uploadVariable(op) != "" {
		return true
	}
	for _, def := range op.def.VariableDefinitions {
		if def.Variable == name {
			return true
		}
		if t := schema.Types[def.Type.NamedType]; def.Type.Elem == nil && t != nil && t.Kind == ast.InputObject && t.Fields.ForName(name) != nil {
			return true
		}
	}
	return false
}

func bindBody(r *http.Request, schema *ast.Schema, op *operation, readOnly view, vars map[string]any) error {
	if r.Body == nil || r.Method == http.MethodGet || r.Method == http.MethodHead {
		return nil
	}
	raw, err := jsonbody.Read(r)
	if err != nil {
		return err
	}
	if len(bytes.TrimSpace(raw)) == 0 {
		return nil
	}
	var body any
	if err := jsonbody.Decode(raw, &body); err != nil {
		return err
	}
	def := op.def.VariableDefinitions.ForName(bodyVariable)
	if body == nil && def != nil && !def.Type.NonNull {
		// A nullable $input takes null as GraphQL does: a funnel's
		// override set to null inherits the store's again.
		vars[bodyVariable] = nil
		return nil
	}
	obj, ok := body.(map[string]any)
	if !ok {
		return apperr.New(apperr.BadRequest, "the request body must be a JSON object")
	}
	if def != nil {
		vars[bodyVariable] = dropReadOnly(schema, def.Type, obj, readOnly)
		return nil
	}
	keys := make([]string, 0, len(obj))
	for key := range obj {
		keys = append(keys, key)
	}
	sort.Strings(keys) // the first of several unknown fields is always the same one
	for _, key := range keys {
		def := op.def.VariableDefinitions.ForName(key)
		switch {
		case def == nil && readOnly[key] != nil:
			continue // read-only: ignored
		case def == nil:
			return apperr.InvalidField(key, "is not a field this input takes")
		case chiParam(r, key):
			continue // the path names the record; the body cannot re-point it
		}
		vars[key] = dropReadOnly(schema, def.Type, obj[key], readOnly[key])
	}
	return nil
}

func chiParam(r *http.Request, name string) bool { return chi.URLParam(r, name) != "" }

// inputFromQuery fills an input-object variable from the query parameters
// named like its fields; nil when none is present.
func inputFromQuery(schema *ast.Schema, t *ast.Type, query url.Values) (map[string]any, error) {
	def := schema.Types[t.NamedType]
	if t.Elem != nil || def == nil || def.Kind != ast.InputObject {
		return nil, nil
	}
	var obj map[string]any
	for _, f := range def.Fields {
		values, ok := query[f.Name]
		if !ok {
			continue
		}
		val, err := fromString(schema, f.Type, values, f.Name)
		if err != nil {
			return nil, err
		}
		if obj == nil {
			obj = map[string]any{}
		}
		obj[f.Name] = val
	}
	return obj, nil
}

// fromString coerces path or query values to a GraphQL input type. Lists
// take repeated parameters or comma-separated values.
func fromString(schema *ast.Schema, t *ast.Type, values []string, name string) (any, error) {
	if t.Elem != nil {
		var out []any
		for _, v := range values {
			for _, part := range strings.Split(v, ",") {
				if part = strings.TrimSpace(part); part == "" {
					continue
				}
				item, err := fromString(schema, t.Elem, []string{part}, name)
				if err != nil {
					return nil, err
				}
				out = append(out, item)
			}
		}
		return out, nil
	}
	v := values[len(values)-1]
	if err := models.CheckText(v); err != nil {
		return nil, apperr.InvalidField(name, "%s", err.Error())
	}
	switch t.NamedType {
	case "Int":
		n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
		if err != nil {
			return nil, apperr.InvalidField(name, "must be an integer, not %q", v)
		}
		return n, nil
	case "Float":
		f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
		if err != nil {
			return nil, apperr.InvalidField(name, "must be a number, not %q", v)
		}
		return f, nil
	case "Boolean":
		b, err := strconv.ParseBool(strings.TrimSpace(v))
		if err != nil {
			return nil, apperr.InvalidField(name, "must be true or false, not %q", v)
		}
		return b, nil
	}
	if def := schema.Types[t.NamedType]; def != nil && def.Kind == ast.Enum {
		return strings.ToUpper(v), nil
	}
	return v, nil
}

// uploadVariable names the operation's Upload variable, if it has one.
func uploadVariable(op *operation) string {
	for _, def := range op.def.VariableDefinitions {
		if def.Type.Name() == "Upload" {
			return def.Variable
		}
	}
	return ""
}

// readUpload reads the file of an upload route: the part named file of a
// multipart/form-data body, or else the raw body (named by ?filename=).
func readUpload(r *http.Request) (graphql.Upload, error) {
	r.Body = http.MaxBytesReader(nil, r.Body, MaxUploadBytes+1<<20)
	up := graphql.Upload{Filename: r.URL.Query().Get("filename"), ContentType: r.Header.Get("Content-Type")}
	var src io.Reader = r.Body
	if mt, _, _ := mime.ParseMediaType(up.ContentType); mt == "multipart/form-data" {
		mr, err := r.MultipartReader()
		if err != nil {
			return up, apperr.Invalidf("the multipart body could not be read: %s", err.Error())
		}
		for {
			part, err := mr.NextPart()
			if err == io.EOF {
				return up, apperr.Invalidf("the multipart body has no part named file")
			}
			if err != nil {
				return up, apperr.Invalidf("the multipart body could not be read: %s", err.Error())
			}
			if part.FormName() == "file" {
				up.Filename, up.ContentType, src = part.FileName(), part.Header.Get("Content-Type"), part
				break
			}
		}
	}
	data, err := io.ReadAll(io.LimitReader(src, MaxUploadBytes+1))
	if err != nil {
		return up, apperr.Invalidf("the file could not be read: %s", err.Error())
	}
	if len(data) > MaxUploadBytes {
		return up, apperr.Invalidf("the file is larger than %d MiB", MaxUploadBytes>>20)
	}
	if len(data) == 0 {
		return up, apperr.Invalidf("the file is empty: send the file as the request body, or as a multipart/form-data part named file")
	}
	up.File, up.Size = bytes.NewReader(data), int64(len(data))
	return up, nil
}
