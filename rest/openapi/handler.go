package openapi

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"time"

	"github.com/vektah/gqlparser/v2/ast"

	"storeadmin/rest"
)

// Handler serves the document of routes over schema, made once here: a
// route table the document cannot describe fails start-up, not a request.
func Handler(schema *ast.Schema, routes []rest.Route) (http.Handler, error) {
	doc, err := Document(schema, routes)
	if err != nil {
		return nil, err
	}
	sum := sha256.Sum256(doc)
	etag := `"` + hex.EncodeToString(sum[:16]) + `"`
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Content-Type", "application/json; charset=utf-8")
		h.Set("Cache-Control", "no-cache")
		h.Set("ETag", etag)
		http.ServeContent(w, r, "", time.Time{}, bytes.NewReader(doc))
	}), nil
}
