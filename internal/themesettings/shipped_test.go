package themesettings_test

import (
	"context"
	"testing"

	"storeadmin/internal/testkit/testdb"
	"storeadmin/internal/themesettings"
)

func TestMain(m *testing.M) { testdb.Main(m) }

// TestShippedTemplatesAreValid: every template version the migrations ship
// has a schema in the subset, and its default settings pass that schema, so
// a theme installed from any of them starts from a draft it can publish.
func TestShippedTemplatesAreValid(t *testing.T) {
	db, _ := testdb.New(t)
	var versions []struct {
		TemplateKey     string `bun:"template_key"`
		ThemeVersion    string `bun:"theme_version"`
		SettingsSchema  []byte `bun:"settings_schema"`
		DefaultSettings []byte `bun:"default_settings"`
	}
	err := db.NewRaw(`SELECT template_key, theme_version, settings_schema::text AS settings_schema, default_settings::text AS default_settings
		FROM market_template_versions ORDER BY template_key, version`).Scan(context.Background(), &versions)
	if err != nil {
		t.Fatal(err)
	}
	templates := map[string]bool{}
	for _, v := range versions {
		templates[v.TemplateKey] = true
		s, err := themesettings.Parse(v.SettingsSchema)
		if err != nil {
			t.Errorf("%s %s: %v", v.TemplateKey, v.ThemeVersion, err)
			continue
		}
		if err := s.Validate("default_settings", v.DefaultSettings); err != nil {
			t.Errorf("%s %s: %v", v.TemplateKey, v.ThemeVersion, err)
		}
	}
	var fams []string
	if err := db.NewRaw("SELECT DISTINCT family FROM market_templates").Scan(context.Background(), &fams); err != nil {
		t.Fatal(err)
	}
	if len(versions) < 7 || len(templates) < 5 || len(fams) < 2 {
		t.Errorf("the migrations ship %d versions of %d templates in %d families, want at least 7 of 5 in 2", len(versions), len(templates), len(fams))
	}
}
