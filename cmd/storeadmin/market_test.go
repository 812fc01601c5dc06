package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"storeadmin/internal/testkit/testdb"
)

const marketSchema = `{"type": "object", "required": ["accent"], "properties": {
	"accent": {"type": "string", "format": "color"},
	"columns": {"type": "integer", "minimum": 2, "maximum": 4}}}`

func writeFile(t *testing.T, name, body string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// market add puts a template and its first release in the market; market
// release adds the next one, numbered after it, only with a label above
// the latest; a schema outside the subset, defaults that fail it, an
// unknown field and an unknown template are refused, naming the fault, and
// write nothing.
func TestMarketAddAndRelease(t *testing.T) {
	db, url := testdb.New(t)
	dbFlag := "--database-url=" + url
	ctx := context.Background()
	if _, err := runCmd(t, "migrate", dbFlag); err != nil {
		t.Fatalf("migrate: %v", err)
	}
	template := `{"key": "lumen", "family": "lumen", "name": "Lumen", "author": "Ops", "category": "general",
		"tagline": "Light", "description": "A light theme.", "price_cents": 4900, "currency": "USD",
		"preview_images": ["https://themes.example/lumen.jpg"], "thumbnail_url": "https://themes.example/lumen-thumb.jpg",
		"theme_version": "1.0.0", "settings_schema": ` + marketSchema + `, "default_settings": {"accent": "#112233", "columns": 3}}`
	out, err := runCmd(t, "market", "add", dbFlag, writeFile(t, "lumen.json", template))
	if err != nil || out != "lumen\t1\t1.0.0\n" {
		t.Fatalf("market add: %q, %v", out, err)
	}
	if _, err := runCmd(t, "market", "add", dbFlag, writeFile(t, "again.json", template)); err == nil || !strings.Contains(err.Error(), `the template "lumen" already exists`) {
		t.Fatalf("adding lumen again: %v", err)
	}

	release := func(label, defaults string) (string, error) {
		body := `{"theme_version": "` + label + `", "settings_schema": ` + marketSchema + `, "default_settings": ` + defaults + `}`
		return runCmd(t, "market", "release", dbFlag, "lumen", writeFile(t, "release.json", body))
	}
	if out, err := release("1.10.0", `{"accent": "#445566"}`); err != nil || out != "lumen\t2\t1.10.0\n" {
		t.Fatalf("market release: %q, %v", out, err)
	}
	for _, c := range []struct{ label, defaults, says string }{
		{"1.9.0", `{"accent": "#445566"}`, "theme_version 1.9.0 must be above the latest release of \"lumen\", 1.10.0"},
		{"1.10.0", `{"accent": "#445566"}`, "must be above the latest"},
		{"2.0", `{"accent": "#445566"}`, `theme_version must be a version such as 2.1.0, not "2.0"`},
		{"2.0.0", `{"accent": "blue"}`, `default_settings.accent must be a colour written #rrggbb, not "blue"`},
		{"2.0.0", `{"accent": "#445566", "font": "Inter"}`, "default_settings.font is not a setting of this theme"},
		{"2.0.0", `{"columns": 3}`, "default_settings.accent is required"},
	} {
		if _, err := release(c.label, c.defaults); err == nil || !strings.Contains(err.Error(), c.says) {
			t.Errorf("release %s %s: %v, want an error saying %q", c.label, c.defaults, err, c.says)
		}
	}
	bad := `{"theme_version": "2.0.0", "settings_schema": {"type": "object", "properties": {"a": {"type": "integer", "maximun": 3}}}, "default_settings": {}}`
	if _, err := runCmd(t, "market", "release", dbFlag, "lumen", writeFile(t, "bad.json", bad)); err == nil || !strings.Contains(err.Error(), `"maximun" is not a keyword`) {
		t.Errorf("a schema outside the subset: %v", err)
	}
	typo := `{"theme_version": "2.0.0", "settings_schema": ` + marketSchema + `, "default_setings": {}}`
	if _, err := runCmd(t, "market", "release", dbFlag, "lumen", writeFile(t, "typo.json", typo)); err == nil || !strings.Contains(err.Error(), `unknown field "default_setings"`) {
		t.Errorf("a misspelt field: %v", err)
	}
	if _, err := runCmd(t, "market", "release", dbFlag, "nope", writeFile(t, "r.json", `{"theme_version": "2.0.0", "settings_schema": `+marketSchema+`, "default_settings": {"accent": "#000000"}}`)); err == nil || !strings.Contains(err.Error(), `the theme market has no template "nope"`) {
		t.Errorf("an unknown template: %v", err)
	}

	var versions []string
	if err := db.NewRaw("SELECT version || ' ' || theme_version || ' ' || (default_settings->>'accent') FROM market_template_versions WHERE template_key = 'lumen' ORDER BY version").Scan(ctx, &versions); err != nil {
		t.Fatal(err)
	}
	if strings.Join(versions, ", ") != "1 1.0.0 #112233, 2 1.10.0 #445566" {
		t.Fatalf("lumen's releases: %v", versions)
	}
}
