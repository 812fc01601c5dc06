package apitest_test

import (
	"context"
	"net/http"
	"reflect"
	"testing"

	"storeadmin/internal/auth"
)

// TestThemeUpdateFromTemplate: a theme installed from an older release
// updates into a new theme from the latest one, its draft carried over
// where the new schema accepts it, with a report of what was dropped and
// reset; the old theme is unchanged; a theme without a source, or already
// at the latest release, is a 409; another store's theme a 404.
func TestThemeUpdateFromTemplate(t *testing.T) {
	e, s, admin := newAcme(t)
	harbor := installTheme(t, e, admin, "harbor")
	draft := themeDetail(t, e, admin, harbor)["draft_settings"].(map[string]any)
	draft["colors"].(map[string]any)["primary"] = "#000080"
	draft["layout"].(map[string]any)["products_per_row"] = 5
	e.Do(http.MethodPut, themePath(harbor), admin, map[string]any{"draft_settings": draft}).Expect(t, 200)
	before := themeDetail(t, e, admin, harbor)

	// Harbor 3.2.0: no footer, and at most three products a row.
	if _, err := e.DB.ExecContext(context.Background(), `INSERT INTO market_template_versions (template_key, version, theme_version, settings_schema, default_settings)
		SELECT template_key, 3, '3.2.0',
			jsonb_set(settings_schema #- '{properties,footer}', '{properties,layout,properties,products_per_row,enum}', '[2, 3]'),
			jsonb_set(default_settings - 'footer', '{layout,products_per_row}', '3')
		FROM market_template_versions WHERE template_key = 'harbor' AND version = 2`); err != nil {
		t.Fatal(err)
	}
	r := e.Do(http.MethodPost, themePath(harbor)+"/update-from-template", admin, nil).Expect(t, 201)
	updated := wholeNumber(t, r.Body["theme_id"])
	if r.Body["name"] != "Harbor (3.2.0)" || !reflect.DeepEqual(r.Body["dropped"], []any{"footer"}) ||
		!reflect.DeepEqual(r.Body["reset"], []any{"layout.products_per_row"}) {
		t.Fatalf("update: %s", r.Raw)
	}
	d := themeDetail(t, e, admin, updated)
	nd := d["draft_settings"].(map[string]any)
	if d["source_theme_version"] != "3.2.0" || nd["colors"].(map[string]any)["primary"] != "#000080" ||
		nd["layout"].(map[string]any)["products_per_row"] != float64(3) || nd["footer"] != nil {
		t.Fatalf("the updated theme: %v", d)
	}
	if after := themeDetail(t, e, admin, harbor); !reflect.DeepEqual(after, before) {
		t.Fatalf("the old theme changed: %v\nwas %v", after, before)
	}
	_, themes := themeList(t, e, admin)
	// The default theme and the installed one are behind; the update is not.
	if themes[0]["update_available"] != true || themes[1]["update_available"] != true || themes[2]["update_available"] != false ||
		themes[2]["latest_theme_version"] != "3.2.0" {
		t.Fatalf("list after the update: %v", themes)
	}

	r = e.Do(http.MethodPost, themePath(updated)+"/update-from-template", admin, nil).Expect(t, 409)
	if r.Message() != `the theme follows the latest release of "harbor" already (3.2.0)` {
		t.Fatalf("already latest: %s", r.Raw)
	}
	mine := wholeNumber(t, e.Do(http.MethodPost, "/store/themes", admin, map[string]any{"name": "Mine", "base_key": "harbor"}).Expect(t, 201).Body["id"])
	e.Do(http.MethodPost, themePath(mine)+"/update-from-template", admin, nil).Expect(t, 409)
	expectGraphQLCode(t, e, admin, "CONFLICT", map[string]any{"id": mine}, `mutation($id: Int!) { updateThemeFromTemplate(id: $id) { theme_id } }`)

	other := e.Store("Bolt")
	e.Do(http.MethodPost, themePath(harbor)+"/update-from-template", e.Key(other.ID, auth.RoleAdmin), nil).Expect(t, 404)
	staff := e.Key(s.ID, auth.RoleStaff, "themes:write")
	e.Do(http.MethodPost, themePath(harbor)+"/update-from-template", staff, nil).Expect(t, 403)
}
