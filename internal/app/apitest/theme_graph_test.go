package apitest_test

import (
	"net/http"
	"testing"

	"storeadmin/internal/auth"
)

// themeGraph reads every theme with its template, the template's
// releases and the theme's versions, and the market with its releases.
const themeGraph = `{
  themes { id base_key template { key owned latest_version versions { version theme_version released_at settings_schema default_settings } }
    versions { version publication_id settings } }
  marketTemplates { key versions { version theme_version } }
}`

// TestThemeGraph: Theme → template and versions, MarketTemplate →
// versions (releases, newest first), each loaded for every parent at
// once: the statements of the read do not grow with the themes, their
// versions or the templates.
func TestThemeGraph(t *testing.T) {
	e, _, admin := newAcme(t)
	count := countStatements(e)
	read := func() map[string]any {
		t.Helper()
		r := e.GraphQL(admin, themeGraph, nil)
		if r.Status != http.StatusOK || r.Body["errors"] != nil {
			t.Fatalf("theme graph: %s", r.Raw)
		}
		return r.Body["data"].(map[string]any)
	}
	harbor := defaultTheme(t, e, admin)
	few := count(func() { read() })

	classic := installTheme(t, e, admin, "atelier-classic")
	for range 3 {
		e.Do(http.MethodPost, themePath(classic)+"/publish", admin, nil).Expect(t, 200)
	}
	installTheme(t, e, admin, "harbor")
	var data map[string]any
	if many := count(func() { data = read() }); many != few {
		t.Fatalf("the theme graph took %d statements with 1 theme, %d with 3", few, many)
	}

	themes := objectsOf(data["themes"])
	if len(themes) != 3 {
		t.Fatalf("themes: %v", themes)
	}
	byID := map[int64]map[string]any{}
	for _, th := range themes {
		byID[wholeNumber(t, th["id"])] = th
		tpl := th["template"].(map[string]any)
		if tpl["key"] != th["base_key"] || tpl["owned"] != true {
			t.Fatalf("theme %v: template %v", th["id"], tpl)
		}
		releases := objectsOf(tpl["versions"])
		if len(releases) != 2 || releases[0]["version"] != tpl["latest_version"] || releases[1]["version"] != float64(1) ||
			releases[0]["settings_schema"] == nil || releases[0]["default_settings"] == nil {
			t.Fatalf("template %v releases: %v", tpl["key"], releases)
		}
	}
	versions := objectsOf(byID[classic]["versions"])
	if len(versions) != 3 || versions[0]["version"] != float64(3) || versions[2]["version"] != float64(1) || versions[0]["settings"] == nil {
		t.Fatalf("classic's versions: %v", versions)
	}
	if got := objectsOf(byID[harbor]["versions"]); len(got) != 1 {
		t.Fatalf("harbor's versions: %v", got)
	}
	for _, m := range objectsOf(data["marketTemplates"]) {
		if len(objectsOf(m["versions"])) == 0 {
			t.Fatalf("template %v without releases", m["key"])
		}
	}

	// Another store's graph has its own (default) theme only.
	other := e.Store("Bolt")
	r := e.GraphQL(e.Key(other.ID, auth.RoleAdmin), themeGraph, nil)
	if bolts := objectsOf(r.Body["data"].(map[string]any)["themes"]); r.Status != http.StatusOK || len(bolts) != 1 || byID[wholeNumber(t, bolts[0]["id"])] != nil {
		t.Fatalf("another store's theme graph: %s", r.Raw)
	}
}
