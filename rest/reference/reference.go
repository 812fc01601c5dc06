// Package reference serves the REST API reference page: Redoc rendering
// the OpenAPI document (rest/openapi) in the browser.
//
// Everything the page needs (the Redoc standalone bundle, the bootstrap
// script and style sheet) is embedded in the binary from the assets
// directory and served by internal/base/assetpage, as the GraphiQL
// playground is, so the page works without internet access and under a
// Content-Security-Policy that allows only same-origin scripts. The bundle
// is fetched from npm at development time by refresh-redoc.sh; see
// assets/THIRD_PARTY_LICENSES.txt for the bundled code and its licenses.
package reference

import (
	"bytes"
	"embed"
	"fmt"
	"html/template"
	"net/http"

	"storeadmin/internal/base/assetpage"
)

// Embedded asset file names, as stored in the assets directory.
const (
	redocJS      = "redoc-2.5.4.standalone.js"
	referenceJS  = "reference.js"
	referenceCSS = "reference.css"
)

//go:embed assets
var assetFS embed.FS

// loadAssets reads and fingerprints the embedded files once.
var loadAssets = assetpage.Embedded(assetFS, "assets")

var pageTemplate = template.Must(template.New("page").Parse(`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{.Title}}</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="{{.ReferenceCSS}}">
</head>
<body>
<div id="redoc" data-spec-url="{{.SpecURL}}">
<p class="reference-message">Loading the API reference&hellip; The document itself is at <a href="{{.SpecURL}}">{{.SpecURL}}</a>.</p>
<noscript><p class="reference-message">The API reference needs JavaScript; the document itself is at <a href="{{.SpecURL}}">{{.SpecURL}}</a>.</p></noscript>
</div>
<script src="{{.RedocJS}}"></script>
<script src="{{.ReferenceJS}}"></script>
</body>
</html>
`))

// Handler serves the page at its own path and the assets under assetPrefix
// (see assetpage.Handler). specURL is the OpenAPI document the page renders
// (e.g. "/api/v1/openapi.json"), on the page's own origin. Handler panics
// if assetPrefix is empty.
func Handler(title, specURL, assetPrefix string) http.Handler {
	assetPrefix = assetpage.Prefix(assetPrefix)
	assets := loadAssets()
	assetURL := func(name string) string { return assets.URL(assetPrefix, name) }
	var buf bytes.Buffer
	err := pageTemplate.Execute(&buf, struct {
		Title, SpecURL                     string
		RedocJS, ReferenceJS, ReferenceCSS string
	}{
		Title:        title,
		SpecURL:      specURL,
		RedocJS:      assetURL(redocJS),
		ReferenceJS:  assetURL(referenceJS),
		ReferenceCSS: assetURL(referenceCSS),
	})
	if err != nil {
		panic(fmt.Sprintf("reference: rendering page: %v", err))
	}
	return assetpage.Handler(assets, assetPrefix, buf.Bytes(), contentSecurityPolicy)
}

// contentSecurityPolicy allows only same-origin scripts, styles, images and
// connections (the document). Inline styles are allowed because Redoc
// writes its styles into <style> elements at run time; blob: workers
// because its search index runs in a worker made from a Blob; data: images
// for the page's empty favicon and Redoc's inline icons.
const contentSecurityPolicy = "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; " +
	"font-src 'self' data:; img-src 'self' data:; connect-src 'self'; worker-src blob:; " +
	"base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
