package apitest_test

import (
	"net/http"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"storeadmin/internal/app/apitest"
	"storeadmin/internal/auth"
)

// previewPath is the storefront surface's path of a preview URL.
func previewPath(t *testing.T, e *apitest.Env, url string) string {
	t.Helper()
	path, ok := strings.CutPrefix(url, e.URL+"/storefront/v1")
	if !ok || !strings.HasPrefix(path, "/theme-preview/") {
		t.Fatalf("a preview URL on another surface: %q", url)
	}
	return path
}

// TestThemePreviewTokens: a preview token opens one theme's draft, as it
// is now, on the storefront surface with no key, until it expires; its
// lifetime is bounded; an altered or expired token is a 401 and another
// store's theme gets none.
func TestThemePreviewTokens(t *testing.T) {
	t0 := time.Now().UTC().Truncate(time.Second)
	clock := apitest.NewClock(t0)
	e := apitest.New(t, apitest.WithClock(clock.Now))
	s := e.Store("Acme")
	admin := e.Key(s.ID, auth.RoleAdmin)
	id := installTheme(t, e, admin, "harbor")
	vars := map[string]any{"id": id}

	r := e.Do(http.MethodPost, themePath(id)+"/preview-token", admin, nil).Expect(t, 200)
	e.SameOnGraphQL(t, r, admin, "CreateThemePreviewToken", vars)
	objectWithKeys(t, "preview token", map[string]any{"token": r.Body["token"], "expires_at": r.Body["expires_at"], "url": r.Body["url"]},
		[]string{"expires_at", "token", "url"})
	if len(r.Body) != 4 {
		t.Fatalf("preview token answer: %v", r.Body)
	}
	if r.Body["expires_at"] != t0.Add(24*time.Hour).Format(time.RFC3339) {
		t.Fatalf("default lifetime: expires_at %v, want a day after %v", r.Body["expires_at"], t0)
	}
	token := r.Body["token"].(string)
	path := previewPath(t, e, r.Body["url"].(string))
	if !strings.HasSuffix(path, "/"+token) {
		t.Fatalf("the URL %q does not carry the token %q", path, token)
	}

	// The draft as it is now, with no key; a later edit shows at once.
	preview := func(path string) map[string]any {
		t.Helper()
		p := e.Storefront(http.MethodGet, path, "", nil, nil).Expect(t, 200)
		if p.Header.Get("Access-Control-Allow-Origin") != "*" || p.Header.Get("Cache-Control") != "no-store" {
			t.Fatalf("preview headers: %v", p.Header)
		}
		return objectWithKeys(t, "preview", p.Body["preview"],
			[]string{"base_key", "draft_settings", "expires_at", "live", "name", "template_version", "theme_id", "updated_at"})
	}
	got := preview(path)
	detail := themeDetail(t, e, admin, id)
	if got["theme_id"] != float64(id) || got["base_key"] != "harbor" || got["live"] != false || got["name"] != detail["name"] ||
		!reflect.DeepEqual(got["draft_settings"], detail["draft_settings"]) || got["expires_at"] != r.Body["expires_at"] {
		t.Fatalf("preview %v, theme %v", got, detail)
	}
	draft := detail["draft_settings"].(map[string]any)
	draft["colors"].(map[string]any)["primary"] = "#123456"
	e.Do(http.MethodPut, themePath(id), admin, map[string]any{"draft_settings": draft}).Expect(t, 200)
	if got := preview(path); !reflect.DeepEqual(got["draft_settings"], draft) {
		t.Fatalf("the preview after an edit: %v, want %v", got["draft_settings"], draft)
	}

	// Lifetimes: 5 minutes to 7 days.
	short := e.Do(http.MethodPost, themePath(id)+"/preview-token", admin, map[string]any{"expires_in": 300}).Expect(t, 200)
	if short.Body["expires_at"] != t0.Add(5*time.Minute).Format(time.RFC3339) {
		t.Fatalf("expires_in 300: %v", short.Body["expires_at"])
	}
	for _, body := range []any{map[string]any{"expires_in": 299}, map[string]any{"expires_in": 604801}, map[string]any{"expires_in": "soon"}, map[string]any{"expires_in": 3.5}} {
		e.Do(http.MethodPost, themePath(id)+"/preview-token", admin, body).Expect(t, 400)
	}
	expectGraphQLCode(t, e, admin, "BAD_USER_INPUT", vars, `mutation($id: Int!) { createThemePreviewToken(id: $id, expires_in: 60) { token } }`)

	// Altered tokens: the signature, the theme named, a cut.
	other := installTheme(t, e, admin, "harbor")
	parts := strings.Split(token, ".")
	swapped := strconv.FormatInt(other, 36) + "." + strings.Join(parts[1:], ".")
	sig := []byte(parts[3])
	sig[0] ^= 1
	forged := strings.Join(parts[:3], ".") + "." + string(sig)
	for _, bad := range []string{forged, swapped, token[:len(token)-1], strings.Join(parts[:3], "."), "x", parts[3]} {
		p := e.Storefront(http.MethodGet, "/theme-preview/"+bad, "", nil, nil).Expect(t, 401)
		if !strings.Contains(p.Body["message"].(string), "not valid") {
			t.Fatalf("altered token %q: %v", bad, p.Body)
		}
	}

	// Expiry: the last second still works, the expiry itself does not.
	clock.Set(t0.Add(5*time.Minute - time.Second))
	preview(previewPath(t, e, short.Body["url"].(string)))
	clock.Set(t0.Add(5 * time.Minute))
	p := e.Storefront(http.MethodGet, previewPath(t, e, short.Body["url"].(string)), "", nil, nil).Expect(t, 401)
	if !strings.Contains(p.Body["message"].(string), "expired") {
		t.Fatalf("an expired token: %v", p.Body)
	}
	preview(path) // the day-long one still works

	// Another store's theme gets no token; a deleted theme's token opens nothing.
	bolt := e.Store("Bolt")
	e.Do(http.MethodPost, themePath(id)+"/preview-token", e.Key(bolt.ID, auth.RoleAdmin), nil).Expect(t, 404)
	e.Do(http.MethodDelete, themePath(id), admin, nil).Expect(t, 200)
	e.Storefront(http.MethodGet, path, "", nil, nil).Expect(t, 404)
}
