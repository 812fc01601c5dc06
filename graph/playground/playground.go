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
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"fmt"
	"html/template"
	"io/fs"
	"net/http"
	"net/url"
	"path"
	"strings"
	"sync"
	"time"
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

const (
	// cacheImmutable is used for fingerprinted asset URLs, whose content
	// can never change.
	cacheImmutable = "public, max-age=31536000, immutable"
	// cacheRevalidate is used for the page and for assets requested by
	// their plain (non-fingerprinted) name.
	cacheRevalidate = "no-cache"
)

//go:embed assets
var assetFS embed.FS

// asset is one embedded file.
type asset struct {
	name        string // plain file name, e.g. "playground.js"
	hashedName  string // fingerprinted name, e.g. "playground.0123456789ab.js"
	data        []byte
	contentType string
	etag        string
}

// assetTable indexes the embedded files by plain and fingerprinted name.
type assetTable struct {
	byName   map[string]*asset
	byHashed map[string]*asset
}

// loadAssets reads and fingerprints the embedded files once.
var loadAssets = sync.OnceValue(func() *assetTable {
	t := &assetTable{byName: map[string]*asset{}, byHashed: map[string]*asset{}}
	entries, err := fs.ReadDir(assetFS, "assets")
	if err != nil {
		panic(fmt.Sprintf("playground: reading embedded assets: %v", err))
	}
	for _, e := range entries {
		if e.IsDir() {
			continue
		}
		data, err := assetFS.ReadFile("assets/" + e.Name())
		if err != nil {
			panic(fmt.Sprintf("playground: reading embedded asset %s: %v", e.Name(), err))
		}
		sum := sha256.Sum256(data)
		ext := path.Ext(e.Name())
		a := &asset{
			name:        e.Name(),
			hashedName:  strings.TrimSuffix(e.Name(), ext) + "." + hex.EncodeToString(sum[:6]) + ext,
			data:        data,
			contentType: contentTypeFor(ext),
			etag:        `"` + hex.EncodeToString(sum[:16]) + `"`,
		}
		t.byName[a.name] = a
		t.byHashed[a.hashedName] = a
	}
	return t
})

// contentTypeFor returns the Content-Type for an asset file extension. It
// does not consult the system MIME tables so responses are identical on
// every host.
func contentTypeFor(ext string) string {
	switch ext {
	case ".js":
		return "text/javascript; charset=utf-8"
	case ".css":
		return "text/css; charset=utf-8"
	case ".txt":
		return "text/plain; charset=utf-8"
	case ".html":
		return "text/html; charset=utf-8"
	default:
		return "application/octet-stream"
	}
}

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

// handler serves the page and the embedded assets.
type handler struct {
	assetPrefix string
	assets      *assetTable
	page        []byte
	pageETag    string
	csp         string
}

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
	if assetPrefix == "" {
		panic("playground: empty assetPrefix")
	}
	if !strings.HasSuffix(assetPrefix, "/") {
		assetPrefix += "/"
	}
	assets := loadAssets()
	assetURL := func(name string) string {
		a, ok := assets.byName[name]
		if !ok {
			panic("playground: missing embedded asset " + name)
		}
		return assetPrefix + a.hashedName
	}
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
	sum := sha256.Sum256(buf.Bytes())
	return &handler{
		assetPrefix: assetPrefix,
		assets:      assets,
		page:        buf.Bytes(),
		pageETag:    `"` + hex.EncodeToString(sum[:16]) + `"`,
		csp:         contentSecurityPolicy(endpoint),
	}
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

// ServeHTTP implements http.Handler.
func (h *handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		http.Error(w, http.StatusText(http.StatusMethodNotAllowed), http.StatusMethodNotAllowed)
		return
	}
	hdr := w.Header()
	hdr.Set("Content-Security-Policy", h.csp)
	hdr.Set("X-Content-Type-Options", "nosniff")
	hdr.Set("Referrer-Policy", "no-referrer")

	name, isAsset := strings.CutPrefix(r.URL.Path, h.assetPrefix)
	if !isAsset {
		hdr.Set("Content-Type", "text/html; charset=utf-8")
		hdr.Set("Cache-Control", cacheRevalidate)
		hdr.Set("ETag", h.pageETag)
		hdr.Set("X-Frame-Options", "DENY")
		http.ServeContent(w, r, "", time.Time{}, bytes.NewReader(h.page))
		return
	}

	a, cache := h.assets.byHashed[name], cacheImmutable
	if a == nil {
		a, cache = h.assets.byName[name], cacheRevalidate
	}
	if a == nil {
		http.NotFound(w, r)
		return
	}
	hdr.Set("Content-Type", a.contentType)
	hdr.Set("Cache-Control", cache)
	hdr.Set("ETag", a.etag)
	http.ServeContent(w, r, "", time.Time{}, bytes.NewReader(a.data))
}
