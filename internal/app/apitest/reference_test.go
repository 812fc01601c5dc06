package apitest_test

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"

	"storeadmin/internal/app/apitest"
)

// The OpenAPI document and the reference page that renders it: served
// without a key, the page from embedded assets only.

// TestOpenAPIDocumentServed fetches GET /api/v1/openapi.json without a key
// and checks it is the OpenAPI 3.1 document of the routes, with its
// failure envelope and security.
func TestOpenAPIDocumentServed(t *testing.T) {
	e := apitest.New(t)
	r := e.Do(http.MethodGet, "/openapi.json", "", nil)
	if r.Status != http.StatusOK {
		t.Fatalf("GET /api/v1/openapi.json without a key: %d %.300s", r.Status, r.Raw)
	}
	if ct := r.Header.Get("Content-Type"); ct != "application/json; charset=utf-8" {
		t.Errorf("Content-Type %q", ct)
	}
	var doc struct {
		OpenAPI    string                    `json:"openapi"`
		Paths      map[string]map[string]any `json:"paths"`
		Components struct {
			Schemas         map[string]any `json:"schemas"`
			SecuritySchemes map[string]struct {
				Type, Scheme string
			} `json:"securitySchemes"`
		} `json:"components"`
	}
	if err := json.Unmarshal(r.Raw, &doc); err != nil {
		t.Fatal(err)
	}
	if doc.OpenAPI != "3.1.0" {
		t.Errorf("openapi %q", doc.OpenAPI)
	}
	if doc.Paths["/store/products/{id}"]["put"] == nil || doc.Paths["/store/orders"]["get"] == nil {
		t.Errorf("routes missing from the document: %v", len(doc.Paths))
	}
	if doc.Components.Schemas["Failure"] == nil {
		t.Error("no failure envelope in the document")
	}
	if k := doc.Components.SecuritySchemes["apiKey"]; k.Type != "http" || k.Scheme != "bearer" {
		t.Errorf("security scheme %+v", k)
	}
	etag := r.Header.Get("ETag")
	again := e.DoHeaders(http.MethodGet, "/openapi.json", "", nil, map[string]string{"If-None-Match": etag})
	if etag == "" || again.Status != http.StatusNotModified {
		t.Errorf("ETag %q, conditional GET answered %d", etag, again.Status)
	}
}

var refRE = regexp.MustCompile(`(?:src|href)="([^"]*)"`)

// TestReferencePageServed fetches the reference page without a key and
// every asset it loads: each is served with its content type, and the page
// refers to nothing but the embedded assets and the document (no external
// URL), under a policy that lets scripts come from the service alone.
func TestReferencePageServed(t *testing.T) {
	e := apitest.New(t)
	r := e.Do(http.MethodGet, "/docs", "", nil)
	if r.Status != http.StatusOK {
		t.Fatalf("GET /api/v1/docs: %d %s", r.Status, r.Raw)
	}
	if ct := r.Header.Get("Content-Type"); ct != "text/html; charset=utf-8" {
		t.Errorf("Content-Type %q", ct)
	}
	csp := r.Header.Get("Content-Security-Policy")
	for _, want := range []string{"default-src 'none'", "script-src 'self';", "connect-src 'self';"} {
		if !strings.Contains(csp, want) {
			t.Errorf("Content-Security-Policy %q lacks %q", csp, want)
		}
	}
	page := string(r.Raw)
	if regexp.MustCompile(`<script>|<script [^>]*>[^<]|(?i)\son[a-z]+=`).MatchString(page) {
		t.Error("the page has an inline script or event handler")
	}
	wantTypes := map[string]string{".js": "text/javascript; charset=utf-8", ".css": "text/css; charset=utf-8"}
	scripts := 0
	for _, m := range refRE.FindAllStringSubmatch(page, -1) {
		ref := m[1]
		switch {
		case ref == "data:,", ref == "/api/v1/openapi.json":
			continue
		case !strings.HasPrefix(ref, "/api/v1/docs/assets/"):
			t.Errorf("the page refers to %q, which is not an embedded asset", ref)
			continue
		}
		a := e.Do(http.MethodGet, strings.TrimPrefix(ref, "/api/v1"), "", nil)
		ext := ref[strings.LastIndex(ref, "."):]
		if a.Status != http.StatusOK || a.Header.Get("Content-Type") != wantTypes[ext] || len(a.Raw) == 0 {
			t.Errorf("%s: %d, Content-Type %q, %d bytes", ref, a.Status, a.Header.Get("Content-Type"), len(a.Raw))
		}
		if ext == ".js" {
			scripts++
		}
	}
	if scripts != 2 {
		t.Errorf("the page loads %d scripts, want Redoc and its bootstrap", scripts)
	}
	lic := e.Do(http.MethodGet, "/docs/assets/THIRD_PARTY_LICENSES.txt", "", nil)
	if lic.Status != http.StatusOK || !strings.Contains(string(lic.Raw), "redoc@2.5.4") {
		t.Errorf("license file: %d", lic.Status)
	}
}

// TestReferencePageRendersInChromium loads the reference page in headless
// Chromium, when one is installed (tests never download a browser), and
// checks that Redoc rendered the operations from the served document.
func TestReferencePageRendersInChromium(t *testing.T) {
	var browser string
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable", "headless_shell", "chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			browser = p
			break
		}
	}
	if browser == "" {
		if os.Getenv("CI") == "true" {
			t.Fatal("no Chromium on PATH: .ci/run installs it")
		}
		t.Skip("no Chromium on PATH")
	}
	e := apitest.New(t)
	// The deadline only bounds a browser that hangs; the virtual time
	// budget lets the page finish without waiting on the wall clock.
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	out, err := exec.CommandContext(ctx, browser, "--headless", "--no-sandbox", "--disable-gpu",
		"--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--user-data-dir="+t.TempDir(), "--virtual-time-budget=30000", "--dump-dom", e.URL+"/api/v1/docs").Output()
	if err != nil {
		t.Fatalf("%s: %v", browser, err)
	}
	dom := string(out)
	for _, want := range []string{"List products", "/store/products/{id}", "storeadmin REST API"} {
		if !strings.Contains(dom, want) {
			t.Errorf("the rendered page lacks %q", want)
		}
	}
	if strings.Contains(dom, "reference-message") {
		t.Errorf("the page shows its loading or error message instead of the reference:\n%.2000s", dom)
	}
}

// TestUnknownPathPointsToDocument: a path the REST surface does not have is
// a 404 whose message says where the paths are listed.
func TestUnknownPathPointsToDocument(t *testing.T) {
	e, _, key := newAcme(t)
	for _, path := range []string{"/store/prodcts", "/stores", "/store/products/1/nothing"} {
		r := e.Do(http.MethodGet, path, key, nil).Expect(t, http.StatusNotFound)
		if !strings.Contains(r.Message(), "/api/v1/openapi.json") {
			t.Errorf("GET %s: %q does not point to /api/v1/openapi.json", path, r.Message())
		}
	}
}
