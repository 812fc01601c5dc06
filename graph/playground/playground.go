// Package playground serves an offline GraphiQL page for the storeadmin GraphQL endpoint.
//
// Everything the page needs (GraphiQL, React, ReactDOM, the bootstrap script
// and style sheet) is embedded in the binary from the assets directory, so
// the page works without internet access and under a Content-Security-Policy
// that only allows same-origin scripts. See assets/THIRD_PARTY_LICENSES.txt
// for the bundled third-party code and its licenses.
package playground

import (
	"bytes"
	"embed"
	"fmt"
	"html/template"
	"net/http"
	"net/url"
	"strings"

	"storeadmin/internal/base/assetpage"
)

// Embedded asset file names, as stored in the assets directory.
const (
	reactJS       = "react-18.3.1.production.min.js"
	reactDOMJS    = "react-dom-18.3.1.production.min.js"
	graphiQLJS    = "graphiql-3.9.0.min.js"
	graphiQLCSS   = "graphiql-3.9.0.min.css"
	playgroundJS  = "playground.js"
	playgroundCSS = "playground.css"
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
<link rel="stylesheet" href="{{.GraphiQLCSS}}">
<link rel="stylesheet" href="{{.PlaygroundCSS}}">
</head>
<body>
<div id="graphiql" data-endpoint="{{.Endpoint}}">
<p class="playground-message">Loading GraphiQL&hellip;</p>
<noscript><p class="playground-message">The GraphQL playground needs JavaScript.</p></noscript>
</div>
<script src="{{.ReactJS}}"></script>
<script src="{{.ReactDOMJS}}"></script>
<script src="{{.GraphiQLJS}}"></script>
<script src="{{.PlaygroundJS}}"></script>
</body>
</html>
`))

// Handler serves the page at its own path and the assets under assetPrefix.
// endpoint is the GraphQL URL the page posts to (e.g. "/graphql").
//
// Requests whose path starts with assetPrefix are answered from the
// embedded assets: fingerprinted names (the ones the page links to) are
// cacheable forever, plain file names (e.g. THIRD_PARTY_LICENSES.txt) are
// served with Cache-Control: no-cache, and anything else is 404. Every
// other path gets the GraphiQL page, with Cache-Control: no-cache. Only GET
// and HEAD are allowed. Handler panics if assetPrefix is empty.
func Handler(title, endpoint, assetPrefix string) http.Handler {
	assetPrefix = assetpage.Prefix(assetPrefix)
	assets := loadAssets()
	assetURL := func(name string) string { return assets.URL(assetPrefix, name) }
	var buf bytes.Buffer
	err := pageTemplate.Execute(&buf, struct {
		Title, Endpoint                              string
		ReactJS, ReactDOMJS, GraphiQLJS, GraphiQLCSS string
		PlaygroundJS, PlaygroundCSS                  string
	}{
		Title:         title,
		Endpoint:      endpoint,
		ReactJS:       assetURL(reactJS),
		ReactDOMJS:    assetURL(reactDOMJS),
		GraphiQLJS:    assetURL(graphiQLJS),
		GraphiQLCSS:   assetURL(graphiQLCSS),
		PlaygroundJS:  assetURL(playgroundJS),
		PlaygroundCSS: assetURL(playgroundCSS),
	})
	if err != nil {
		panic(fmt.Sprintf("playground: rendering page: %v", err))
	}
	return assetpage.Handler(assets, assetPrefix, buf.Bytes(), contentSecurityPolicy(endpoint))
}

// contentSecurityPolicy allows only same-origin scripts, styles, images and
// connections. Inline styles are allowed because GraphiQL inserts <style>
// elements and style attributes at run time (e.g. when its settings dialog
// opens). data: fonts are allowed because GraphiQL's style sheet embeds its
// fonts as data URIs, and data: images for the page's empty favicon. If
// endpoint is an absolute URL on another origin, that origin is added to
// connect-src.
func contentSecurityPolicy(endpoint string) string {
	connect := "'self'"
	if u, err := url.Parse(endpoint); err == nil && u.Scheme != "" && u.Host != "" {
		connect += " " + u.Scheme + "://" + u.Host
	}
	return strings.Join([]string{
		"default-src 'none'",
		"script-src 'self'",
		"style-src 'self' 'unsafe-inline'",
		"font-src 'self' data:",
		"img-src 'self' data:",
		"connect-src " + connect,
		"base-uri 'none'",
		"form-action 'none'",
		"frame-ancestors 'none'",
	}, "; ")
}
