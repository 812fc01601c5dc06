// Package openapi writes the OpenAPI 3.1 document of the REST surface from
// what the surface is made of: the route table (paths, methods, success
// statuses, shapes), the persisted operations (parameters and bodies from
// their variables, answers from their selections) and the schema (the types
// of both). Nothing in it is written by hand per route, so the document
// cannot describe a route other than the service answers it; the apitest
// harness checks every answer of the test suite against it.
package openapi

import (
	"encoding/json"
	"fmt"
	"net/http"
	"path"
	"slices"
	"sort"
	"strings"
	"unicode"

	"github.com/vektah/gqlparser/v2/ast"

	"storeadmin/rest"
)

// Path is where the service serves the document, under /api/v1.
const Path = "/openapi.json"

// DocsPath is where the service serves the reference page, under /api/v1.
const DocsPath = "/docs"

// sheetMediaTypes are the media types of a File route's answer, by the
// SheetFormat its format variable asks for (the resolvers write them).
var sheetMediaTypes = map[string]string{
	"CSV":  "text/csv",
	"XLSX": "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
}

// fieldMediaTypes are the media types of the File routes whose root field
// writes one fixed type that is no sheet's, by the field's name.
var fieldMediaTypes = map[string]string{
	"customizerTemplateExport": "application/zip", // a template bundle
}

// obj is a JSON object of the document; encoding/json writes its keys
// sorted, so the document's bytes are the same on every start.
type obj = map[string]any

// Document is the OpenAPI 3.1 document of routes over schema, as JSON.
func Document(schema *ast.Schema, routes []rest.Route) ([]byte, error) {
	described, err := rest.Describe(schema, routes)
	if err != nil {
		return nil, err
	}
	b := &builder{schema: schema, components: obj{}, tags: map[string]bool{}}
	paths := obj{}
	for _, d := range described {
		op, err := b.operation(d)
		if err != nil {
			return nil, err
		}
		item, _ := paths[d.Route.Path].(obj)
		if item == nil {
			item = obj{}
			paths[d.Route.Path] = item
		}
		item[strings.ToLower(d.Route.Method)] = op
	}
	paths[Path] = obj{"get": obj{
		"operationId": "OpenAPIDocument",
		"summary":     "This document",
		"description": "The OpenAPI 3.1 document of the REST surface, generated from the route table, the persisted operations and the schema. No key needed.",
		"tags":        []string{"reference"},
		"security":    []any{},
		"responses": obj{"200": obj{
			"description": "The document.",
			"headers":     obj{"X-Request-Id": obj{"$ref": "#/components/headers/RequestId"}},
			"content":     obj{"application/json": obj{"schema": obj{"type": "object"}}},
		}},
	}}
	paths[DocsPath] = obj{"get": obj{
		"operationId": "APIReference",
		"summary":     "API reference page",
		"description": "This document rendered for people (Redoc, served by the binary; works offline). No key needed.",
		"tags":        []string{"reference"},
		"security":    []any{},
		"responses": obj{"200": obj{
			"description": "The page.",
			"headers":     obj{"X-Request-Id": obj{"$ref": "#/components/headers/RequestId"}},
			"content":     obj{"text/html": obj{"schema": obj{"type": "string"}}},
		}},
	}}
	components := obj{
		"schemas":   b.components,
		"responses": failureResponses(),
		"headers":   headers(),
		"parameters": obj{"IdempotencyKey": obj{
			"name": "Idempotency-Key", "in": "header", "required": false, "schema": obj{"type": "string"},
			"description": "Makes a retried write safe: the first answer is stored and replayed for the same key and body (see the README's Idempotency).",
		}},
		"securitySchemes": obj{"apiKey": obj{"type": "http", "scheme": "bearer", "description": "An API key (`storeadmin keys create`, or POST /store/api-keys): `Authorization: Bearer sa_api_...`. Its role and scopes decide which routes answer 403."}},
	}
	b.components["Failure"] = failureSchema()
	doc := obj{
		"openapi": "3.1.0",
		"info": obj{
			"title":   "storeadmin REST API",
			"version": "v1",
			"description": "The Store Admin API's REST surface. Every route runs a persisted GraphQL operation on the same executor as `POST /graphql`.\n\n" +
				"A success is `{\"status\": true, ...}` with the route's fields; a failure is `{\"status\": false, \"message\": ...}` (plus `code`, `field` and `request_id` where the service sends them) with the status of its code. " +
				"A path the surface does not have answers 404, a method a path does not take 405, both in the failure envelope. The service answers 422 nowhere: a request it cannot accept is 400.",
		},
		"tags":       tagList(b.tags),
		"servers":    []any{obj{"url": "/api/v1"}},
		"security":   []any{obj{"apiKey": []string{}}},
		"paths":      paths,
		"components": components,
	}
	return json.Marshal(doc)
}

// tagList lists the areas in order, then the document and its page.
func tagList(areas map[string]bool) []any {
	names := make([]string, 0, len(areas))
	for name := range areas {
		names = append(names, name)
	}
	sort.Strings(names)
	out := make([]any, 0, len(names)+1)
	for _, name := range names {
		out = append(out, obj{"name": name})
	}
	return append(out, obj{"name": "reference", "description": "This document, and the page that renders it."})
}

// builder collects the named schemas (input objects and enums) the
// operations refer to.
type builder struct {
	schema     *ast.Schema
	components obj
	tags       map[string]bool // the areas the operations are tagged with
}

func (b *builder) operation(d rest.Described) (obj, error) {
	rt, def := d.Route, d.Operation
	op := obj{
		"operationId": rt.Op,
		"summary":     words(rt.Op),
		"tags":        []string{b.tag(def)},
	}
	if desc := b.description(def); desc != "" {
		op["description"] = desc
	}
	var params []any
	body := obj{"type": "object", "properties": obj{}}
	var bodyRequired []string
	var requestBody obj
	for _, v := range d.Variables {
		required := v.Def.Type.NonNull && v.Def.DefaultValue == nil
		switch v.Source {
		case rest.PathParam:
			params = append(params, obj{"name": v.Def.Variable, "in": "path", "required": true, "schema": b.input(v.Def.Type)})
		case rest.QueryParam:
			params = append(params, b.queryParam(v.Def.Variable, v.Def.Type, required, ""))
		case rest.QueryFields:
			in := b.schema.Types[v.Def.Type.NamedType]
			for _, f := range in.Fields {
				params = append(params, b.queryParam(f.Name, f.Type, false, f.Description))
			}
		case rest.WholeBody:
			schema := b.input(nonNull(v.Def.Type))
			if !v.Def.Type.NonNull { // null binds $input to null
				schema = nullable(schema)
			}
			requestBody = obj{"required": required, "content": obj{"application/json": obj{"schema": schema}}}
		case rest.BodyField:
			body["properties"].(obj)[v.Def.Variable] = b.input(v.Def.Type)
			if required {
				bodyRequired = append(bodyRequired, v.Def.Variable)
			}
		case rest.UploadBody:
			requestBody = obj{
				"required":    true,
				"description": "The sheet (CSV or XLSX; the format is read from its content): the raw body, or the multipart part named `file`.",
				"content": obj{
					"application/octet-stream": obj{"schema": obj{"type": "string", "format": "binary"}},
					"multipart/form-data": obj{"schema": obj{
						"type": "object", "required": []string{"file"},
						"properties": obj{"file": obj{"type": "string", "format": "binary"}},
					}},
				},
			}
			params = append(params, obj{"name": "filename", "in": "query", "required": false,
				"description": "The name of a file sent as the raw body (a multipart part names its own).", "schema": obj{"type": "string"}})
		}
	}
	if len(body["properties"].(obj)) > 0 {
		if len(bodyRequired) > 0 {
			body["required"] = bodyRequired
		}
		requestBody = obj{"required": len(bodyRequired) > 0, "content": obj{"application/json": obj{"schema": body}}}
	}
	if def.Operation == ast.Mutation {
		params = append(params, obj{"$ref": "#/components/parameters/IdempotencyKey"})
	}
	if len(params) > 0 {
		op["parameters"] = params
	}
	if requestBody != nil {
		op["requestBody"] = requestBody
	}
	success, err := b.success(d)
	if err != nil {
		return nil, err
	}
	status := rt.Status
	if status == 0 {
		status = http.StatusOK
	}
	responses := obj{fmt.Sprint(status): success}
	for _, s := range failureStatuses(d) {
		responses[fmt.Sprint(s)] = obj{"$ref": "#/components/responses/" + failureNames[s]}
	}
	op["responses"] = responses
	return op, nil
}

// failureStatuses are the failures a route can answer: every route can be
// sent a bad request, lack a key or a scope, meet the rate limit, a fault
// of ours or an unreachable database; a route that names a record (a path
// parameter) or writes (whose body names records) can find none; a write
// can conflict with what exists or with an Idempotency-Key's first use,
// and its body can be too large.
func failureStatuses(d rest.Described) []int {
	statuses := []int{400, 401, 403, 429, 500, 503}
	mutation := d.Operation.Operation == ast.Mutation
	hasPath := false
	for _, v := range d.Variables {
		hasPath = hasPath || v.Source == rest.PathParam
	}
	if hasPath || mutation {
		statuses = append(statuses, 404)
	}
	if mutation {
		statuses = append(statuses, 409, 413)
	}
	sort.Ints(statuses)
	return statuses
}

var failureNames = map[int]string{
	400: "BadRequest", 401: "Unauthorized", 403: "Forbidden", 404: "NotFound",
	405: "MethodNotAllowed", 409: "Conflict", 413: "TooLarge", 429: "RateLimited",
	500: "Internal", 503: "Unavailable",
}

func failureResponses() obj {
	descriptions := map[int]string{
		400: "The request cannot be accepted: a parameter or body field is missing, of the wrong type or out of range, or the body is not JSON. The message names the field.",
		401: "No API key, or one that is unknown, revoked or expired.",
		403: "The key's role or scopes do not allow this route.",
		404: "The record does not exist in the key's store (or the path does not exist).",
		405: "The path does not take this method.",
		409: "The write conflicts with what exists (a taken handle, a state that does not allow it), or an Idempotency-Key was used for another request or is still in progress.",
		413: "The body is larger than its limit (1 MiB of JSON).",
		429: "The key (or, without a valid key, the client address) went over its requests per minute; retry after the seconds in Retry-After.",
		500: "A fault of the service; the message says nothing more.",
		503: "The database does not answer or the request ran past its time limit; retry after the seconds in Retry-After.",
	}
	out := obj{}
	for status, name := range failureNames {
		hdrs := obj{"X-Request-Id": obj{"$ref": "#/components/headers/RequestId"}}
		if status == 429 || status == 503 {
			hdrs["Retry-After"] = obj{"$ref": "#/components/headers/RetryAfter"}
		}
		out[name] = obj{
			"description": descriptions[status],
			"headers":     hdrs,
			"content":     obj{"application/json": obj{"schema": obj{"$ref": "#/components/schemas/Failure"}}},
		}
	}
	return out
}

// failureSchema is the failure envelope. code, field and request_id are
// optional: a service that sends only status and message matches it too.
func failureSchema() obj {
	return obj{
		"type":                 "object",
		"description":          "The answer of every failure.",
		"required":             []string{"status", "message"},
		"additionalProperties": false,
		"properties": obj{
			"status":     obj{"const": false},
			"message":    obj{"type": "string", "description": "What went wrong, for a person."},
			"code":       obj{"type": "string", "description": "What kind of failure, for a program: INVALID_INPUT, NOT_FOUND, ..."},
			"field":      obj{"type": "string", "description": "The one field at fault, as the client sent it (variants[0].price_cents)."},
			"request_id": obj{"type": "string", "description": "The request's id, as in the X-Request-Id header."},
		},
	}
}

func headers() obj {
	return obj{
		"RequestId":  obj{"description": "The request's id (the client's X-Request-Id, or one the service made); quote it when reporting a problem.", "schema": obj{"type": "string"}},
		"RetryAfter": obj{"description": "Seconds to wait before retrying.", "schema": obj{"type": "string"}},
	}
}

// success is the answer of a route that succeeds, by its shape.
func (b *builder) success(d rest.Described) (obj, error) {
	rt, def := d.Route, d.Operation
	hdrs := obj{"X-Request-Id": obj{"$ref": "#/components/headers/RequestId"}}
	envelope := func(props obj, required []string) obj {
		props["status"] = obj{"const": true}
		required = append([]string{"status"}, required...)
		return obj{
			"description": "Success.",
			"headers":     hdrs,
			"content": obj{"application/json": obj{"schema": obj{
				"type": "object", "properties": props, "required": required, "additionalProperties": false,
			}}},
		}
	}
	switch rt.Shape {
	case rest.Bare:
		return envelope(obj{}, nil), nil
	case rest.Spread:
		f := def.SelectionSet[0].(*ast.Field)
		s := b.object(f.Definition.Type.NamedType, f.SelectionSet)
		props, _ := s["properties"].(obj)
		required, _ := s["required"].([]string)
		if !f.Definition.Type.NonNull {
			required = nil // a null object spreads to nothing
		}
		return envelope(props, required), nil
	case rest.File:
		content := obj{}
		for _, mt := range b.fileMediaTypes(d) {
			content[mt] = obj{"schema": obj{"type": "string", "format": "binary"}}
		}
		hdrs["Content-Disposition"] = obj{"description": "attachment; filename=...", "schema": obj{"type": "string"}}
		return obj{"description": "The file's bytes.", "headers": hdrs, "content": content}, nil
	}
	root := "Query"
	if def.Operation == ast.Mutation {
		root = "Mutation"
	}
	s := b.object(root, def.SelectionSet)
	return envelope(s["properties"].(obj), s["required"].([]string)), nil
}

// fileMediaTypes are the media types a File route can answer: those of
// the SheetFormat its format variable may ask for, or the one its
// operation names (format: CSV, as the analytics exports' routes do), or
// its root field's fixed type (fieldMediaTypes).
func (b *builder) fileMediaTypes(d rest.Described) []string {
	var out []string
	for _, v := range d.Variables {
		if def := b.schema.Types[v.Def.Type.NamedType]; def != nil && def.Kind == ast.Enum && def.Name == "SheetFormat" {
			for _, e := range def.EnumValues {
				if mt, ok := sheetMediaTypes[e.Name]; ok {
					out = append(out, mt)
				}
			}
		}
	}
	if f, ok := d.Operation.SelectionSet[0].(*ast.Field); ok {
		if mt, ok := fieldMediaTypes[f.Name]; ok {
			out = append(out, mt)
		}
		for _, a := range f.Arguments {
			if a.Value.Kind == ast.EnumValue && a.Value.ExpectedType != nil && a.Value.ExpectedType.Name() == "SheetFormat" {
				if mt, ok := sheetMediaTypes[a.Value.Raw]; ok && !slices.Contains(out, mt) {
					out = append(out, mt)
				}
			}
		}
	}
	if len(out) == 0 {
		out = []string{"application/octet-stream"}
	}
	sort.Strings(out)
	return out
}

// object is the schema of what a selection set selects of the object type
// named typeName: every selected field (by its alias) is present.
func (b *builder) object(typeName string, set ast.SelectionSet) obj {
	props := obj{}
	var required []string
	var add func(set ast.SelectionSet)
	add = func(set ast.SelectionSet) {
		for _, sel := range set {
			switch s := sel.(type) {
			case *ast.Field:
				if _, seen := props[s.Alias]; seen {
					continue
				}
				if s.Name == "__typename" {
					props[s.Alias] = obj{"const": typeName}
				} else {
					props[s.Alias] = b.output(s.Definition, s.SelectionSet)
				}
				required = append(required, s.Alias)
			case *ast.FragmentSpread:
				add(s.Definition.SelectionSet)
			case *ast.InlineFragment:
				add(s.SelectionSet)
			}
		}
	}
	add(set)
	sort.Strings(required)
	return obj{"type": "object", "properties": props, "required": required, "additionalProperties": false}
}

// output is the schema of a selected field's value.
func (b *builder) output(f *ast.FieldDefinition, set ast.SelectionSet) obj {
	s := b.outputType(f.Type, set)
	if f.Description != "" {
		s = withDescription(s, f.Description)
	}
	return s
}

func (b *builder) outputType(t *ast.Type, set ast.SelectionSet) obj {
	var s obj
	switch def := b.schema.Types[t.NamedType]; {
	case t.Elem != nil:
		s = obj{"type": "array", "items": b.outputType(t.Elem, set)}
	case def.Kind == ast.Object:
		s = b.object(def.Name, set)
	case def.Kind == ast.Enum:
		s = b.enum(def)
	default:
		s = scalar(def.Name, false)
	}
	if !t.NonNull {
		s = nullable(s)
	}
	return s
}

// input is the schema of an input value of type t; input objects and
// enums are named components.
func (b *builder) input(t *ast.Type) obj {
	var s obj
	switch def := b.schema.Types[t.NamedType]; {
	case t.Elem != nil:
		s = obj{"type": "array", "items": b.input(t.Elem)}
	case def.Kind == ast.InputObject:
		s = b.inputObject(def)
	case def.Kind == ast.Enum:
		s = b.enum(def)
	default:
		s = scalar(def.Name, true)
	}
	if !t.NonNull {
		s = nullable(s)
	}
	return s
}

func (b *builder) inputObject(def *ast.Definition) obj {
	ref := obj{"$ref": "#/components/schemas/" + def.Name}
	if _, done := b.components[def.Name]; done {
		return ref
	}
	props := obj{}
	s := obj{"type": "object", "properties": props}
	b.components[def.Name] = s // before the fields: an input may hold itself
	var required []string
	for _, f := range def.Fields {
		p := b.input(f.Type)
		if f.Description != "" {
			p = withDescription(p, f.Description)
		}
		if f.DefaultValue != nil {
			p = withDefault(p, f.DefaultValue)
		}
		props[f.Name] = p
		if f.Type.NonNull && f.DefaultValue == nil {
			required = append(required, f.Name)
		}
	}
	if len(required) > 0 {
		s["required"] = required
	}
	if def.Description != "" {
		s["description"] = def.Description
	}
	return ref
}

func (b *builder) enum(def *ast.Definition) obj {
	ref := obj{"$ref": "#/components/schemas/" + def.Name}
	if _, done := b.components[def.Name]; done {
		return ref
	}
	values := make([]string, 0, len(def.EnumValues))
	for _, v := range def.EnumValues {
		values = append(values, v.Name)
	}
	s := obj{"type": "string", "enum": values}
	if def.Description != "" {
		s["description"] = def.Description
	}
	b.components[def.Name] = s
	return ref
}

// scalar is the JSON schema of a GraphQL scalar as the service writes it
// (output) or reads it (input).
func scalar(name string, input bool) obj {
	switch name {
	case "Int":
		return obj{"type": "integer", "format": "int64"}
	case "Float":
		return obj{"type": "number"}
	case "Boolean":
		return obj{"type": "boolean"}
	case "String":
		return obj{"type": "string"}
	case "ID":
		if input {
			return obj{"type": []string{"string", "integer"}, "description": "An id, as a string of digits or a number."}
		}
		return obj{"type": "string", "pattern": "^[0-9]+$"}
	case "Time":
		if input {
			return obj{"type": "string", "description": "An RFC 3339 date-time (2026-01-31T09:00:00Z) or a date (2026-01-31, midnight UTC)."}
		}
		return obj{"type": "string", "format": "date-time"}
	case "Upload":
		return obj{"type": "string", "format": "binary"}
	}
	return obj{} // JSON: any value
}

// nullable lets s be null too.
func nullable(s obj) obj {
	switch t := s["type"].(type) {
	case string:
		out := clone(s)
		out["type"] = []string{t, "null"}
		if e, ok := s["enum"].([]string); ok {
			vals := make([]any, 0, len(e)+1)
			for _, v := range e {
				vals = append(vals, v)
			}
			out["enum"] = append(vals, nil)
		}
		return out
	case []string:
		out := clone(s)
		out["type"] = append(append([]string{}, t...), "null")
		return out
	}
	if len(s) == 0 {
		return s // any value already
	}
	return obj{"anyOf": []any{s, obj{"type": "null"}}}
}

func withDescription(s obj, d string) obj {
	if _, ref := s["$ref"]; ref {
		// A 3.1 description next to $ref overrides the component's.
		return obj{"$ref": s["$ref"], "description": d}
	}
	out := clone(s)
	out["description"] = d
	return out
}

func withDefault(s obj, v *ast.Value) obj {
	val, err := v.Value(nil)
	if err != nil {
		return s
	}
	out := clone(s)
	out["default"] = val
	return out
}

func clone(s obj) obj {
	out := make(obj, len(s)+1)
	for k, v := range s {
		out[k] = v
	}
	return out
}

func nonNull(t *ast.Type) *ast.Type {
	c := *t
	c.NonNull = true
	return &c
}

// queryParam is a query parameter of type t: lists are repeated
// parameters or comma-separated values, enums are read in any case.
func (b *builder) queryParam(name string, t *ast.Type, required bool, description string) obj {
	s := b.input(nonNull(t))
	p := obj{"name": name, "in": "query", "required": required, "schema": s}
	if t.Elem != nil {
		p["explode"] = true
		p["style"] = "form"
		description = strings.TrimSpace(description + " Repeat the parameter or separate values with commas.")
	}
	if description != "" {
		p["description"] = description
	}
	return p
}

// description is what the root fields' schema descriptions say.
func (b *builder) description(def *ast.OperationDefinition) string {
	var parts []string
	for _, sel := range def.SelectionSet {
		if f, ok := sel.(*ast.Field); ok && f.Definition != nil && f.Definition.Description != "" {
			parts = append(parts, f.Definition.Description)
		}
	}
	return strings.Join(parts, "\n\n")
}

// tag groups a route by the area of the schema its operation's first
// root field is declared in (schema/orders.graphqls: orders).
func (b *builder) tag(def *ast.OperationDefinition) string {
	area := "store"
	if f, ok := def.SelectionSet[0].(*ast.Field); ok && f.Definition != nil && f.Definition.Position != nil && f.Definition.Position.Src != nil {
		if name := strings.TrimSuffix(path.Base(f.Definition.Position.Src.Name), ".graphqls"); name != "schema" {
			area = name
		}
	}
	b.tags[area] = true
	return area
}

// words turns an operation name into a summary: ListProducts → "List
// products", ListMCPKeys → "List MCP keys" (a run of capitals is an
// acronym, kept as it is).
func words(name string) string {
	r := []rune(name)
	var parts []string
	start := 0
	for i := 1; i < len(r); i++ {
		lowerToUpper := unicode.IsLower(r[i-1]) && unicode.IsUpper(r[i])
		acronymEnd := unicode.IsUpper(r[i-1]) && unicode.IsUpper(r[i]) && i+1 < len(r) && unicode.IsLower(r[i+1])
		if lowerToUpper || acronymEnd {
			parts = append(parts, string(r[start:i]))
			start = i
		}
	}
	parts = append(parts, string(r[start:]))
	for i, p := range parts {
		if i > 0 && !(len(p) > 1 && unicode.IsUpper([]rune(p)[1])) {
			parts[i] = strings.ToLower(p)
		}
	}
	return strings.Join(parts, " ")
}
