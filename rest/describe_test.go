package rest

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/go-chi/chi/v5"
	"github.com/vektah/gqlparser/v2/ast"

	"storeadmin/graph"
)

// TestDescribeIsWhatBindReads sends each route a request that carries
// every variable where Describe says it comes from (a sample value of its
// type) and checks that bind read each of them from there: the OpenAPI
// document, written from Describe, cannot send a client to a parameter the
// binder ignores.
func TestDescribeIsWhatBindReads(t *testing.T) {
	schema := graph.Schema()
	described, err := Describe(schema, Routes)
	if err != nil {
		t.Fatal(err)
	}
	if len(described) != len(Routes) {
		t.Fatalf("%d routes described of %d", len(described), len(Routes))
	}
	ops, err := loadOperations(schema)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range described {
		path := d.Route.Path
		query := url.Values{}
		body := map[string]any{}
		var raw []byte
		want := map[string]any{} // variable: what bind must have read into it
		for _, v := range d.Variables {
			name, t0 := v.Def.Variable, v.Def.Type
			switch v.Source {
			case PathParam:
				path = strings.Replace(path, "{"+name+"}", "7", 1)
				want[name] = nil
			case QueryParam:
				query.Set(name, sample(schema, t0))
				want[name] = nil
			case QueryFields:
				f := schema.Types[t0.NamedType].Fields[0]
				query.Set(f.Name, sample(schema, f.Type))
				want[name] = f.Name
			case WholeBody:
				f := schema.Types[t0.NamedType].Fields[0]
				body = map[string]any{f.Name: json.RawMessage(jsonSample(schema, f.Type))}
				want[name] = f.Name
			case BodyField:
				body[name] = json.RawMessage(jsonSample(schema, t0))
				want[name] = nil
			case UploadBody:
				raw = []byte("handle,title\nx,X\n")
				want[name] = nil
			}
		}
		if raw == nil && d.Route.Method != http.MethodGet {
			raw, _ = json.Marshal(body)
		}
		var got map[string]any
		r := chi.NewRouter()
		r.Method(d.Route.Method, d.Route.Path, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			got, err = bind(r, schema, ops[d.Route.Op], nil)
		}))
		target := path
		if len(query) > 0 {
			target += "?" + query.Encode()
		}
		req := httptest.NewRequest(d.Route.Method, target, bytes.NewReader(raw))
		req.Header.Set("Content-Type", "application/json")
		r.ServeHTTP(httptest.NewRecorder(), req)
		if err != nil {
			t.Errorf("%s %s: %v", d.Route.Method, target, err)
			continue
		}
		for name, field := range want {
			v, ok := got[name]
			if !ok {
				t.Errorf("%s %s: $%s is documented but bind did not read it", d.Route.Method, d.Route.Path, name)
				continue
			}
			if f, _ := field.(string); f != "" {
				if m, _ := v.(map[string]any); m[f] == nil {
					t.Errorf("%s %s: $%s.%s is documented but bind did not read it", d.Route.Method, d.Route.Path, name, f)
				}
			}
		}
	}
}

// sample is a query or path value of type t.
func sample(schema *ast.Schema, t *ast.Type) string {
	if t.Elem != nil {
		return sample(schema, t.Elem)
	}
	if def := schema.Types[t.NamedType]; def.Kind == ast.Enum {
		return def.EnumValues[0].Name
	}
	switch t.NamedType {
	case "Int", "ID":
		return "7"
	case "Float":
		return "1.5"
	case "Boolean":
		return "true"
	case "Time":
		return "2026-01-31"
	}
	return "x"
}

// jsonSample is a JSON value of type t.
func jsonSample(schema *ast.Schema, t *ast.Type) string {
	if t.Elem != nil {
		return "[" + jsonSample(schema, t.Elem) + "]"
	}
	def := schema.Types[t.NamedType]
	switch {
	case def.Kind == ast.InputObject:
		return "{}"
	case t.NamedType == "Int", t.NamedType == "Float", t.NamedType == "Boolean":
		return sample(schema, t)
	}
	b, _ := json.Marshal(sample(schema, t))
	return string(b)
}
