package openapi_test

import (
	"context"
	"net/http"
	"regexp"
	"slices"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"

	"storeadmin/graph"
	"storeadmin/rest"
	"storeadmin/rest/openapi"
)

// TestDocumentValidates loads the generated document with kin-openapi and
// validates it as OpenAPI 3.1 (its schemas as JSON Schema 2020-12).
func TestDocumentValidates(t *testing.T) {
	doc := load(t)
	if !doc.IsOpenAPI31OrLater() || doc.IsOpenAPI32OrLater() {
		t.Fatalf("openapi %q, want 3.1", doc.OpenAPI)
	}
	if err := doc.Validate(context.Background()); err != nil {
		t.Fatalf("the document is not valid OpenAPI 3.1: %v", err)
	}
}

// TestDocumentDescribesEveryRoute checks the document against the route
// table: each route is there under its path and method, with its
// operation's name, its success status, its path parameters, and the
// failures every route can answer.
func TestDocumentDescribesEveryRoute(t *testing.T) {
	doc := load(t)
	for _, rt := range rest.Routes {
		item := doc.Paths.Find(rt.Path)
		if item == nil || item.GetOperation(rt.Method) == nil {
			t.Errorf("%s %s is not in the document", rt.Method, rt.Path)
			continue
		}
		op := item.GetOperation(rt.Method)
		if op.OperationID != rt.Op {
			t.Errorf("%s %s: operationId %q, want %q", rt.Method, rt.Path, op.OperationID, rt.Op)
		}
		success := rt.Status
		if success == 0 {
			success = http.StatusOK
		}
		if op.Responses.Status(success) == nil {
			t.Errorf("%s %s: no %d answer", rt.Method, rt.Path, success)
		}
		for _, status := range []int{400, 401, 403, 429, 500, 503} {
			if op.Responses.Status(status) == nil {
				t.Errorf("%s %s: no %d answer", rt.Method, rt.Path, status)
			}
		}
		for _, m := range regexp.MustCompile(`\{(\w+)\}`).FindAllStringSubmatch(rt.Path, -1) {
			if p := op.Parameters.GetByInAndName("path", m[1]); p == nil || !p.Required {
				t.Errorf("%s %s: no required path parameter %s", rt.Method, rt.Path, m[1])
			}
		}
	}
}

// TestDocumentShapes spot-checks what the generator makes of each kind of
// route: a list's filter as query parameters, $input as the body, an
// upload, a download, a spread answer, a nullable field.
func TestDocumentShapes(t *testing.T) {
	doc := load(t)
	op := func(method, path string) *openapi3.Operation {
		t.Helper()
		o := doc.Paths.Find(path).GetOperation(method)
		if o == nil {
			t.Fatalf("%s %s missing", method, path)
		}
		return o
	}
	jsonSchema := func(o *openapi3.Operation, status int) *openapi3.Schema {
		t.Helper()
		return o.Responses.Status(status).Value.Content.Get("application/json").Schema.Value
	}

	list := op("GET", "/store/products")
	for _, name := range []string{"status", "vendor", "q", "sort", "limit", "offset", "cursor"} {
		if list.Parameters.GetByInAndName("query", name) == nil {
			t.Errorf("GET /store/products lacks the query parameter %s", name)
		}
	}
	if !jsonSchema(list, 200).Properties["next_cursor"].Value.Type.Includes("null") {
		t.Error("next_cursor is nullable in the schema, not in the document")
	}
	if got := jsonSchema(list, 200).Required; !slices.Contains(got, "products") || !slices.Contains(got, "total") {
		t.Errorf("the list's required keys are %v", got)
	}

	put := op("PUT", "/store/products/{id}")
	if ref := put.RequestBody.Value.Content.Get("application/json").Schema.Ref; ref != "#/components/schemas/ProductInput" {
		t.Errorf("PUT /store/products/{id} body %q", ref)
	}
	if put.Responses.Status(404) == nil || put.Responses.Status(409) == nil {
		t.Error("a write of a record documents no 404 or 409")
	}
	if op("GET", "/store").Responses.Status(404) != nil {
		t.Error("GET /store names no record, yet documents a 404")
	}

	imp := op("POST", "/store/products/import")
	if imp.RequestBody.Value.Content.Get("multipart/form-data") == nil || imp.RequestBody.Value.Content.Get("application/octet-stream") == nil {
		t.Error("an upload takes a multipart part or the raw body")
	}

	export := op("GET", "/store/products/export").Responses.Status(200).Value.Content
	for _, mt := range []string{"text/csv", "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"} {
		if export.Get(mt) == nil {
			t.Errorf("the export does not answer %s", mt)
		}
	}

	spread := jsonSchema(op("POST", "/store/products/bulk-delete"), 200)
	if spread.Properties["deleted"] == nil || spread.Properties["ids"] == nil || spread.Properties["result"] != nil {
		t.Errorf("a spread answer has its object's fields as payload keys: %v", spread.Properties)
	}

	if doc.Paths.Find("/openapi.json").GetOperation("GET").Security == nil || len(*doc.Paths.Find("/openapi.json").GetOperation("GET").Security) != 0 {
		t.Error("the document itself must need no key")
	}
}

func load(t *testing.T) *openapi3.T {
	t.Helper()
	raw, err := openapi.Document(graph.Schema(), rest.Routes)
	if err != nil {
		t.Fatal(err)
	}
	doc, err := openapi3.NewLoader().LoadFromData(raw)
	if err != nil {
		t.Fatal(err)
	}
	return doc
}
