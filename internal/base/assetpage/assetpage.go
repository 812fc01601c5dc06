// Package assetpage serves one HTML page and the static files it loads,
// all embedded in the binary: the pages the service serves for people (the
// GraphiQL playground, the REST API reference) work without internet
// access and under a Content-Security-Policy that allows only same-origin
// scripts.
//
// Assets are served under a prefix by a fingerprinted name (the name plus
// a hash of the content, cacheable forever), which is what pages link to,
// and by their plain name (revalidated on every use); the page itself is
// revalidated too.
package assetpage

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"net/http"
	"path"
	"strings"
	"sync"
	"time"
)

const (
	// CacheImmutable is used for fingerprinted asset URLs, whose content
	// can never change.
	CacheImmutable = "public, max-age=31536000, immutable"
	// CacheRevalidate is used for the page and for assets requested by
	// their plain (non-fingerprinted) name.
	CacheRevalidate = "no-cache"
)

// asset is one embedded file.
type asset struct {
	name        string // plain file name, e.g. "playground.js"
	hashedName  string // fingerprinted name, e.g. "playground.0123456789ab.js"
	data        []byte
	contentType string
	etag        string
}

// Assets are the embedded files of a page, by plain and fingerprinted name.
type Assets struct {
	byName   map[string]*asset
	byHashed map[string]*asset
}

// Embedded returns the assets of the folder dir of fsys (a page's embedded
// files), read and fingerprinted on first use and kept for every handler
// made from them after. A folder that cannot be read is a build mistake:
// it panics.
func Embedded(fsys fs.FS, dir string) func() *Assets {
	return sync.OnceValue(func() *Assets {
		sub, err := fs.Sub(fsys, dir)
		if err == nil {
			var assets *Assets
			if assets, err = Load(sub); err == nil {
				return assets
			}
		}
		panic(fmt.Sprintf("assetpage: %s: %v", dir, err))
	})
}

// Prefix is assetPrefix ending in a slash. An empty one would serve the
// assets in place of the page: it panics.
func Prefix(assetPrefix string) string {
	if assetPrefix == "" {
		panic("assetpage: empty assetPrefix")
	}
	if !strings.HasSuffix(assetPrefix, "/") {
		assetPrefix += "/"
	}
	return assetPrefix
}

// URL is the address a page links the asset name by: its fingerprinted
// name under assetPrefix. A page naming an asset it does not embed is a
// build mistake: it panics.
func (t *Assets) URL(assetPrefix, name string) string {
	hashed, ok := t.Hashed(name)
	if !ok {
		panic("assetpage: missing embedded asset " + name)
	}
	return assetPrefix + hashed
}

// Load reads and fingerprints the files at the root of fsys.
func Load(fsys fs.FS) (*Assets, error) {
	t := &Assets{byName: map[string]*asset{}, byHashed: map[string]*asset{}}
	entries, err := fs.ReadDir(fsys, ".")
	if err != nil {
		return nil, fmt.Errorf("reading embedded assets: %w", err)
	}
	for _, e := range entries {
		if e.IsDir() {
			continue
		}
		data, err := fs.ReadFile(fsys, e.Name())
		if err != nil {
			return nil, fmt.Errorf("reading embedded asset %s: %w", e.Name(), err)
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
	return t, nil
}

// Hashed is the fingerprinted name of the asset name, and whether there is
// such an asset.
func (t *Assets) Hashed(name string) (string, bool) {
	a, ok := t.byName[name]
	if !ok {
		return "", false
	}
	return a.hashedName, true
}

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

// handler serves the page and the embedded assets.
type handler struct {
	assetPrefix string
	assets      *Assets
	page        []byte
	pageETag    string
	csp         string
}

// Handler serves page (HTML) at its own path and assets under assetPrefix,
// every answer with the Content-Security-Policy csp.
//
// Requests whose path starts with assetPrefix are answered from assets:
// fingerprinted names (the ones the page links to) are cacheable forever,
// plain file names (e.g. THIRD_PARTY_LICENSES.txt) are served with
// Cache-Control: no-cache, and anything else is 404. Every other path gets
// the page, with Cache-Control: no-cache. Only GET and HEAD are allowed.
func Handler(assets *Assets, assetPrefix string, page []byte, csp string) http.Handler {
	sum := sha256.Sum256(page)
	return &handler{
		assetPrefix: assetPrefix,
		assets:      assets,
		page:        page,
		pageETag:    `"` + hex.EncodeToString(sum[:16]) + `"`,
		csp:         csp,
	}
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
		hdr.Set("Cache-Control", CacheRevalidate)
		hdr.Set("ETag", h.pageETag)
		hdr.Set("X-Frame-Options", "DENY")
		http.ServeContent(w, r, "", time.Time{}, bytes.NewReader(h.page))
		return
	}

	a, cache := h.assets.byHashed[name], CacheImmutable
	if a == nil {
		a, cache = h.assets.byName[name], CacheRevalidate
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
