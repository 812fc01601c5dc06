package openapi_test

import (
	"context"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"

	"storeadmin/graph"
	"storeadmin/rest"
	"storeadmin/rest/openapi"
)

// TestDocumentValidates loads the generated document with kin-openapi and
// validates it as OpenAPI 3.1 (its schemas as JSON Schema 2020-12).
func TestDocumentValidates(t *testing.T) {
	raw, err := openapi.Document(graph.Schema(), rest.Routes)
	if err != nil {
		t.Fatal(err)
	}
	doc, err := openapi3.NewLoader().LoadFromData(raw)
	if err != nil {
		t.Fatalf("load: %v", err)
	}
	if !doc.IsOpenAPI31OrLater() || doc.IsOpenAPI32OrLater() {
		t.Fatalf("openapi %q, want 3.1", doc.OpenAPI)
	}
	if err := doc.Validate(context.Background()); err != nil {
		t.Fatalf("the document is not valid OpenAPI 3.1: %v", err)
	}
}
