package playground

import (
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"

	"storeadmin/internal/base/assetpage"
)

const (
	testEndpoint = "/graphql"
	testPrefix   = "/graphql/assets/"
)

func newServer(t *testing.T) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(Handler("storeadmin <GraphQL>", testEndpoint, testPrefix))
	t.Cleanup(srv.Close)
	return srv
}

func get(t *testing.T, url string, header http.Header) (*http.Response, []byte) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range header {
		req.Header[k] = v
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, body
}

var assetRefRE = regexp.MustCompile(`(?:src|href)="(/graphql/assets/[^"]+)"`)

// pageAssets fetches the page and returns the asset URLs it references.
func pageAssets(t *testing.T, srv *httptest.Server) []string {
	t.Helper()
	resp, body := get(t, srv.URL+"/graphql", nil)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("page status = %d", resp.StatusCode)
	}
	var refs []string
	for _, m := range assetRefRE.FindAllStringSubmatch(string(body), -1) {
		refs = append(refs, m[1])
	}
	return refs
}

func TestPage(t *testing.T) {
	srv := newServer(t)
	resp, body := get(t, srv.URL+"/graphql", nil)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("status = %d, want 200", resp.StatusCode)
	}
	if ct := resp.Header.Get("Content-Type"); ct != "text/html; charset=utf-8" {
		t.Errorf("Content-Type = %q", ct)
	}
	if cc := resp.Header.Get("Cache-Control"); cc != "no-cache" {
		t.Errorf("Cache-Control = %q, want no-cache", cc)
	}
	csp := resp.Header.Get("Content-Security-Policy")
	for _, want := range []string{"default-src 'none'", "script-src 'self';", "connect-src 'self';"} {
		if !strings.Contains(csp, want) {
			t.Errorf("Content-Security-Policy %q lacks %q", csp, want)
		}
	}
	if strings.Contains(csp, "unsafe-eval") || strings.Contains(csp, "script-src 'self' 'unsafe-inline'") {
		t.Errorf("Content-Security-Policy too lax: %q", csp)
	}

	page := string(body)
	for _, want := range []string{
		"<title>storeadmin &lt;GraphQL&gt;</title>", // title is HTML-escaped
		`data-endpoint="/graphql"`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q", want)
		}
	}
	// The page must be usable under script-src 'self': no inline script
	// bodies, no inline event handlers, and nothing loaded from elsewhere.
	if regexp.MustCompile(`<script>|<script [^>]*>[^<]`).MatchString(page) {
		t.Error("page contains an inline script")
	}
	if regexp.MustCompile(`(?i)\son[a-z]+=`).MatchString(page) {
		t.Error("page contains an inline event handler")
	}
	if regexp.MustCompile(`(?:src|href)="(?:https?:)?//`).MatchString(page) {
		t.Error("page references an external URL")
	}

	refs := pageAssets(t, srv)
	for _, name := range []string{reactJS, reactDOMJS, graphiQLJS, graphiQLCSS, playgroundJS, playgroundCSS} {
		hashed, ok := loadAssets().Hashed(name)
		if !ok {
			t.Fatalf("asset %s not embedded", name)
		}
		found := false
		for _, ref := range refs {
			found = found || ref == testPrefix+hashed
		}
		if !found {
			t.Errorf("page does not reference %s (as %s); refs = %q", name, hashed, refs)
		}
	}
	// Scripts must load in dependency order.
	order := []string{"react-18", "react-dom-18", "graphiql-3", "playground."}
	last := -1
	for _, o := range order {
		i := strings.Index(page, `<script src="`+testPrefix+o)
		if i < 0 || i < last {
			t.Errorf("script %s missing or out of order", o)
		}
		last = i
	}
}

func TestPageConditional(t *testing.T) {
	srv := newServer(t)
	resp, _ := get(t, srv.URL+"/graphql", nil)
	etag := resp.Header.Get("ETag")
	if etag == "" {
		t.Fatal("page has no ETag")
	}
	resp, _ = get(t, srv.URL+"/graphql", http.Header{"If-None-Match": {etag}})
	if resp.StatusCode != http.StatusNotModified {
		t.Errorf("conditional GET status = %d, want 304", resp.StatusCode)
	}
}

func TestAssets(t *testing.T) {
	srv := newServer(t)
	refs := pageAssets(t, srv)
	if len(refs) != 6 {
		t.Fatalf("page references %d assets, want 6: %q", len(refs), refs)
	}
	for _, ref := range refs {
		resp, body := get(t, srv.URL+ref, nil)
		if resp.StatusCode != http.StatusOK {
			t.Errorf("%s: status = %d", ref, resp.StatusCode)
			continue
		}
		wantCT := "text/javascript; charset=utf-8"
		if strings.HasSuffix(ref, ".css") {
			wantCT = "text/css; charset=utf-8"
		}
		if ct := resp.Header.Get("Content-Type"); ct != wantCT {
			t.Errorf("%s: Content-Type = %q, want %q", ref, ct, wantCT)
		}
		if cc := resp.Header.Get("Cache-Control"); cc != assetpage.CacheImmutable {
			t.Errorf("%s: Cache-Control = %q, want %q", ref, cc, assetpage.CacheImmutable)
		}
		if resp.Header.Get("X-Content-Type-Options") != "nosniff" {
			t.Errorf("%s: missing X-Content-Type-Options: nosniff", ref)
		}
		minSize := 100 // the small bootstrap files
		if strings.Contains(ref, "graphiql-") || strings.Contains(ref, "react") {
			minSize = 10_000
		}
		if len(body) < minSize {
			t.Errorf("%s: %d bytes, want at least %d", ref, len(body), minSize)
		}
	}
}

func TestAssetPlainName(t *testing.T) {
	srv := newServer(t)
	resp, body := get(t, srv.URL+testPrefix+"THIRD_PARTY_LICENSES.txt", nil)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("status = %d", resp.StatusCode)
	}
	if ct := resp.Header.Get("Content-Type"); ct != "text/plain; charset=utf-8" {
		t.Errorf("Content-Type = %q", ct)
	}
	if cc := resp.Header.Get("Cache-Control"); cc != "no-cache" {
		t.Errorf("Cache-Control = %q, want no-cache", cc)
	}
	for _, want := range []string{"graphiql@3.9.0", "react@18.3.1", "react-dom@18.3.1", "graphql@16"} {
		if !strings.Contains(string(body), want) {
			t.Errorf("license file lacks %q", want)
		}
	}
}

func TestUnknownAsset(t *testing.T) {
	srv := newServer(t)
	hashed, _ := loadAssets().Hashed(graphiQLJS)
	for _, p := range []string{
		"nope.js",
		"graphiql-3.9.0.min.000000000000.js", // wrong fingerprint
		"../playground.go",
		"assets/" + graphiQLJS,
		"",
		hashed + "/x",
	} {
		resp, _ := get(t, srv.URL+testPrefix+p, nil)
		if resp.StatusCode != http.StatusNotFound {
			t.Errorf("%q: status = %d, want 404", p, resp.StatusCode)
		}
	}
}

func TestMethodNotAllowed(t *testing.T) {
	srv := newServer(t)
	resp, err := http.Post(srv.URL+"/graphql", "application/json", strings.NewReader("{}"))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("POST status = %d, want 405", resp.StatusCode)
	}
}

func TestContentSecurityPolicyCrossOriginEndpoint(t *testing.T) {
	csp := contentSecurityPolicy("https://api.example.com/graphql")
	if !strings.Contains(csp, "connect-src 'self' https://api.example.com;") {
		t.Errorf("csp = %q", csp)
	}
}
