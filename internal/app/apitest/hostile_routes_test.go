package apitest_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/vektah/gqlparser/v2"
	"github.com/vektah/gqlparser/v2/ast"

	"storeadmin/graph"
	"storeadmin/internal/app/apitest"
	"storeadmin/internal/app/seed"
	"storeadmin/internal/auth"
	"storeadmin/rest"
)

// hostileClass is one kind of bad value, as it is written into a JSON body
// (already encoded: raw bytes and escapes that json.Marshal would not
// write) and into a query parameter (already percent-encoded), for the
// scalar types it concerns.
type hostileClass struct {
	name string
	// body: the encoded JSON value a field of each scalar type gets; a type
	// without one gets a valid value.
	body map[string]string
	// query: the percent-encoded value of a parameter of each scalar type.
	query map[string]string
	// garbage follows an otherwise valid body.
	garbage string
}

var hugeText = strings.Repeat("x", 300000)

var hostileClasses = []hostileClass{
	{name: "NUL",
		body:  map[string]string{"String": `"a\u0000b"`, "JSON": `{"k\u0000":"a\u0000b"}`, "ID": `"1\u0000"`},
		query: map[string]string{"String": "a%00b", "Int": "1%00", "ID": "1%00", "Time": "2026-01-01%00", "Boolean": "true%00", "enum": "a%00"}},
	{name: "invalid UTF-8",
		body:  map[string]string{"String": "\"a\xff\xfeb\"", "JSON": "{\"k\":\"\xc3\x28\"}", "ID": "\"1\xff\""},
		query: map[string]string{"String": "a%FF%FEb", "Int": "%FF", "Time": "%FF", "enum": "%C3%28"}},
	{name: "lone surrogate",
		body:  map[string]string{"String": `"a\ud800b"`, "JSON": `{"\udc00":["\ud83d"]}`},
		query: map[string]string{"String": "a%ED%A0%80b", "enum": "%ED%B0%80"}},
	{name: "year 0000",
		body:  map[string]string{"Time": `"0000-01-01T00:00:00Z"`},
		query: map[string]string{"Time": "0000-01-01T00:00:00Z"}},
	{name: "1e400",
		body:  map[string]string{"JSON": `{"n":1e400,"m":[-1e400]}`, "Int": `1e400`, "Float": `1e400`},
		query: map[string]string{"Int": "1e400", "Float": "1e400"}},
	{name: "huge text",
		body:  map[string]string{"String": `"` + hugeText + `"`},
		query: map[string]string{"String": hugeText}},
	{name: "trailing garbage", garbage: `}}]]`},
}

// TestNoRouteAnswers5xxToBadValues sends each class of bad value to every
// route with a body or a query, into each field of the types it concerns
// in turn (the other fields valid, so that the bad one is what is judged),
// path parameters the ids of a seeded store: none may answer a 5xx (a fuzz
// run over the REST surface found 163).
func TestNoRouteAnswers5xxToBadValues(t *testing.T) {
	e := apitest.New(t)
	s := e.Store("Acme")
	if err := seed.Store(context.Background(), e.DB, e.Media, s.ID, time.Now()); err != nil {
		t.Fatal(err)
	}
	key := e.Key(s.ID, auth.RoleAdmin)
	schema := graph.Schema()
	param := regexp.MustCompile(`\{\w+\}`)
	sent := 0
	for _, rt := range rest.Routes {
		text, err := rest.OperationText(schema, rt.Op)
		if err != nil {
			t.Fatal(err)
		}
		doc, gerr := gqlparser.LoadQueryWithRules(schema, text, nil)
		if gerr != nil {
			t.Fatal(gerr)
		}
		op := doc.Operations.ForName(rt.Op)
		inPath := map[string]bool{}
		for _, m := range param.FindAllString(rt.Path, -1) {
			inPath[m[1:len(m)-1]] = true
		}
		path := param.ReplaceAllString(rt.Path, "1")
		for _, c := range hostileClasses {
			var targets, bodies []string
			for _, q := range hostileQuery(schema, op, inPath, c) {
				targets = append(targets, path+"?"+q)
			}
			if rt.Method != http.MethodGet {
				for _, b := range hostileBodies(schema, op, inPath, c) {
					bodies = append(bodies, b+c.garbage)
				}
			}
			for _, target := range targets {
				hostileSend(t, e, key, rt.Method, target, nil, c.name)
			}
			for _, body := range bodies {
				hostileSend(t, e, key, rt.Method, path, body, c.name)
			}
			sent += len(targets) + len(bodies)
		}
	}
	t.Logf("%d requests over %d routes", sent, len(rest.Routes))
}

func hostileSend(t *testing.T, e *apitest.Env, key, method, target string, body any, class string) {
	t.Helper()
	if r := e.Do(method, target, key, body); r.Status >= 500 {
		t.Errorf("%s %.120s with %s: %d %.300s", method, target, class, r.Status, r.Raw)
	}
}

// hostileQuery is one query parameter for each variable the path does not
// fill and each field of an input-object variable (filters), of a type the
// class concerns.
func hostileQuery(schema *ast.Schema, op *ast.OperationDefinition, inPath map[string]bool, c hostileClass) []string {
	var out []string
	add := func(name string, t *ast.Type) {
		kind := t.Name()
		if def := schema.Types[kind]; def != nil && def.Kind == ast.Enum {
			kind = "enum"
		}
		if v, ok := c.query[kind]; ok {
			out = append(out, url.QueryEscape(name)+"="+v)
		}
	}
	for _, v := range op.VariableDefinitions {
		if inPath[v.Variable] {
			continue
		}
		if def := schema.Types[v.Type.Name()]; def != nil && def.Kind == ast.InputObject {
			if v.Variable == "input" {
				continue // the body
			}
			for _, f := range def.Fields {
				add(f.Name, f.Type)
			}
			continue
		}
		add(v.Variable, v.Type)
	}
	return out
}

// hostileBodies are JSON bodies ($input whole when the operation has it,
// otherwise the variables by name), valid but for one field of a type the
// class concerns, a body for each such field; one valid body when there is
// none (for trailing garbage).
func hostileBodies(schema *ast.Schema, op *ast.OperationDefinition, inPath map[string]bool, c hostileClass) []string {
	var out []string
	for bad := 0; ; bad++ {
		w := &hostileWriter{schema: schema, class: c, bad: bad}
		var body string
		if v := op.VariableDefinitions.ForName("input"); v != nil {
			body = w.value(v.Type, 0)
		} else {
			var parts []string
			for _, v := range op.VariableDefinitions {
				if !inPath[v.Variable] && v.Type.Name() != "Upload" {
					parts = append(parts, jsonString(v.Variable)+":"+w.value(v.Type, 0))
				}
			}
			body = "{" + strings.Join(parts, ",") + "}"
		}
		if w.seen <= bad { // no field left to spoil
			if bad == 0 {
				out = append(out, body)
			}
			return out
		}
		out = append(out, body)
	}
}

// hostileWriter writes a valid JSON value but for its bad-th field of a
// type the class concerns, and counts those fields in seen.
type hostileWriter struct {
	schema    *ast.Schema
	class     hostileClass
	bad, seen int
}

func (w *hostileWriter) value(t *ast.Type, depth int) string {
	if t.Elem != nil {
		return "[" + w.value(t.Elem, depth+1) + "]"
	}
	if v, ok := w.class.body[t.NamedType]; ok {
		w.seen++
		if w.seen-1 == w.bad {
			return v
		}
	}
	def := w.schema.Types[t.NamedType]
	switch {
	case def == nil:
		return "null"
	case def.Kind == ast.Enum:
		return jsonString(strings.ToLower(def.EnumValues[0].Name))
	case def.Kind == ast.InputObject:
		if depth > 4 {
			return "null"
		}
		var parts []string
		for _, f := range def.Fields {
			parts = append(parts, jsonString(f.Name)+":"+w.value(f.Type, depth+1))
		}
		return "{" + strings.Join(parts, ",") + "}"
	}
	switch t.NamedType {
	case "String":
		return `"x"`
	case "Int":
		return "1"
	case "Float":
		return "1.5"
	case "Boolean":
		return "true"
	case "ID":
		return `"1"`
	case "Time":
		return `"2026-01-01T00:00:00Z"`
	case "JSON":
		return `{}`
	}
	return "null"
}

func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
