package themesettings_test

import (
	"reflect"
	"strings"
	"testing"

	"storeadmin/internal/base/apperr"
	"storeadmin/internal/themesettings"
)

// schema is a template's settings schema using every keyword.
const schema = `{
  "type": "object",
  "required": ["colors", "typography"],
  "properties": {
    "colors": {
      "type": "object", "title": "Colours",
      "required": ["accent"],
      "properties": {
        "accent": {"type": "string", "format": "color"},
        "background": {"type": "string", "format": "color"}
      }
    },
    "typography": {
      "type": "object",
      "properties": {
        "heading_font": {"type": "string", "format": "font"},
        "body_font": {"type": "string", "format": "font", "enum": ["Inter", "Lora"]},
        "base_size": {"type": "integer", "minimum": 12, "maximum": 24},
        "scale": {"type": "number", "minimum": 1, "maximum": 1.5}
      }
    },
    "layout": {"type": "string", "enum": ["boxed", "full"]},
    "columns": {"type": "integer", "enum": [2, 3, 4]},
    "show_vendor": {"type": "boolean"},
    "logo": {"type": "image"},
    "announcement": {"type": "string", "maxLength": 10},
    "sections": {
      "type": "array", "maxItems": 3, "minItems": 1,
      "items": {
        "type": "object",
        "required": ["kind"],
        "properties": {
          "kind": {"type": "string", "enum": ["hero", "featured"]},
          "heading": {"type": "string", "maxLength": 40},
          "image": {"type": "image"}
        }
      }
    }
  }
}`

const valid = `{
  "colors": {"accent": "#1A2b3c", "background": "#ffffff"},
  "typography": {"heading_font": "Playfair Display", "body_font": "Lora", "base_size": 16, "scale": 1.25},
  "layout": "boxed", "columns": 3, "show_vendor": false,
  "logo": {"src": "uploads/logo.png"},
  "announcement": "Sale é",
  "sections": [{"kind": "hero", "heading": "Welcome", "image": null}, {"kind": "featured"}]
}`

func parse(t *testing.T) *themesettings.Schema {
	t.Helper()
	s, err := themesettings.Parse([]byte(schema))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestValidateAcceptsSettingsTheSchemaDescribes(t *testing.T) {
	s := parse(t)
	for _, settings := range []string{
		valid,
		// Only what is required.
		`{"colors": {"accent": "#000000"}, "typography": {}}`,
		// A number setting takes whole numbers too; bounds are inclusive.
		`{"colors": {"accent": "#000000"}, "typography": {"scale": 1, "base_size": 24}}`,
		`{"colors": {"accent": "#000000"}, "typography": {}, "logo": null}`,
	} {
		if err := s.Validate("draft_settings", []byte(settings)); err != nil {
			t.Errorf("Validate(%s) = %v, want nil", settings, err)
		}
	}
}

func TestValidateNamesTheSettingAtFault(t *testing.T) {
	s := parse(t)
	base := `{"colors": {"accent": "#000000"}, "typography": {}`
	cases := []struct {
		name, settings, field, says string
	}{
		{"not an object", `[1]`, "draft_settings", "must be an object"},
		{"not JSON", `{"colors":`, "draft_settings", "must be JSON"},
		{"unknown key", base + `, "colour": "#000000"}`, "draft_settings.colour", "is not a setting of this theme"},
		{"unknown nested key", `{"colors": {"accent": "#000000", "link": "#000000"}, "typography": {}}`, "draft_settings.colors.link", "is not a setting"},
		{"missing required", `{"colors": {"accent": "#000000"}}`, "draft_settings.typography", "is required"},
		{"missing nested required", `{"colors": {}, "typography": {}}`, "draft_settings.colors.accent", "is required"},
		{"colour name", `{"colors": {"accent": "red"}, "typography": {}}`, "draft_settings.colors.accent", "#rrggbb"},
		{"short colour", `{"colors": {"accent": "#fff"}, "typography": {}}`, "draft_settings.colors.accent", "#rrggbb"},
		{"colour as number", `{"colors": {"accent": 123456}, "typography": {}}`, "draft_settings.colors.accent", "must be a string"},
		{"unknown font", `{"colors": {"accent": "#000000"}, "typography": {"heading_font": "Comic Sans"}}`, "draft_settings.typography.heading_font", "must be one of the fonts"},
		{"font outside the narrowed list", `{"colors": {"accent": "#000000"}, "typography": {"body_font": "Roboto"}}`, "draft_settings.typography.body_font", "the fonts Inter, Lora"},
		{"below minimum", `{"colors": {"accent": "#000000"}, "typography": {"base_size": 11}}`, "draft_settings.typography.base_size", "at least 12"},
		{"above maximum", `{"colors": {"accent": "#000000"}, "typography": {"scale": 1.6}}`, "draft_settings.typography.scale", "at most 1.5"},
		{"fraction for integer", `{"colors": {"accent": "#000000"}, "typography": {"base_size": 14.5}}`, "draft_settings.typography.base_size", "whole number"},
		{"2.0 for integer", `{"colors": {"accent": "#000000"}, "typography": {"base_size": 14.0}}`, "draft_settings.typography.base_size", "whole number"},
		{"string for integer", `{"colors": {"accent": "#000000"}, "typography": {"base_size": "14"}}`, "draft_settings.typography.base_size", "must be a number"},
		{"string enum", base + `, "layout": "wide"}`, "draft_settings.layout", `must be one of "boxed", "full"`},
		{"integer enum", base + `, "columns": 5}`, "draft_settings.columns", "must be one of 2, 3, 4"},
		{"boolean as string", base + `, "show_vendor": "yes"}`, "draft_settings.show_vendor", "true or false"},
		{"too long, in characters", base + `, "announcement": "ééééééééééé"}`, "draft_settings.announcement", "at most 10 characters, not 11"},
		{"image as string", base + `, "logo": "logo.png"}`, "draft_settings.logo", "image reference"},
		{"image without src", base + `, "logo": {}}`, "draft_settings.logo.src", "must name an uploaded image"},
		{"image with another key", base + `, "logo": {"src": "a.png", "alt": "x"}}`, "draft_settings.logo.alt", "not part of an image reference"},
		{"too many sections", base + `, "sections": [{"kind": "hero"}, {"kind": "hero"}, {"kind": "hero"}, {"kind": "hero"}]}`, "draft_settings.sections", "at most 3 entries, not 4"},
		{"too few sections", base + `, "sections": []}`, "draft_settings.sections", "at least 1"},
		{"section at fault", base + `, "sections": [{"kind": "hero"}, {"kind": "banner"}]}`, "draft_settings.sections[1].kind", "must be one of"},
		{"section missing required", base + `, "sections": [{"heading": "x"}]}`, "draft_settings.sections[0].kind", "is required"},
		{"section's image", base + `, "sections": [{"kind": "hero", "image": {"src": ""}}]}`, "draft_settings.sections[0].image.src", "must name"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := s.Validate("draft_settings", []byte(c.settings))
			if apperr.CodeOf(err) != apperr.Invalid {
				t.Fatalf("Validate = %v, want an invalid input error", err)
			}
			if got := apperr.FieldOf(err); got != c.field {
				t.Errorf("field = %q, want %q (%v)", got, c.field, err)
			}
			if !strings.HasPrefix(err.Error(), c.field+" ") || !strings.Contains(err.Error(), c.says) {
				t.Errorf("message = %q, want it to begin with %q and say %q", err.Error(), c.field, c.says)
			}
		})
	}
}

// TestValidateReportsTheSameSettingEveryTime: with several settings at
// fault, the one reported does not depend on map order.
func TestValidateReportsTheSameSettingEveryTime(t *testing.T) {
	s := parse(t)
	settings := `{"colors": {"accent": "x"}, "typography": {"base_size": 1}, "layout": "x", "columns": 9, "zz": 1, "aa": 2}`
	for range 20 {
		if got := apperr.FieldOf(s.Validate("s", []byte(settings))); got != "s.aa" {
			t.Fatalf("field = %q, want s.aa (unknown keys first, in name order)", got)
		}
	}
	settings = `{"colors": {"accent": "x"}, "typography": {"base_size": 1}, "layout": "x"}`
	for range 20 {
		if got := apperr.FieldOf(s.Validate("s", []byte(settings))); got != "s.colors.accent" {
			t.Fatalf("field = %q, want s.colors.accent (settings in name order)", got)
		}
	}
}

func TestParseRefusesSchemasOutsideTheSubset(t *testing.T) {
	cases := []struct{ name, schema, says string }{
		{"not JSON", `{`, "not JSON"},
		{"root not an object", `{"type": "string"}`, "root must be an object"},
		{"unknown type", `{"type": "object", "properties": {"a": {"type": "color"}}}`, "properties.a: type must be one of"},
		{"misspelt keyword", `{"type": "object", "properties": {"a": {"type": "integer", "maximun": 3}}}`, `"maximun" is not a keyword`},
		{"keyword of another type", `{"type": "object", "properties": {"a": {"type": "boolean", "maxLength": 3}}}`, `"maxLength" is not a keyword of a boolean`},
		{"object without properties", `{"type": "object"}`, "needs properties"},
		{"bad setting name", `{"type": "object", "properties": {"Accent": {"type": "boolean"}}}`, "not a setting name"},
		{"required not a property", `{"type": "object", "required": ["b"], "properties": {"a": {"type": "boolean"}}}`, "required names b"},
		{"unknown format", `{"type": "object", "properties": {"a": {"type": "string", "format": "email"}}}`, `format must be "color" or "font"`},
		{"font list with an unserved font", `{"type": "object", "properties": {"a": {"type": "string", "format": "font", "enum": ["Comic Sans"]}}}`, "does not serve"},
		{"unbounded array", `{"type": "object", "properties": {"a": {"type": "array", "items": {"type": "boolean"}}}}`, "needs maxItems"},
		{"array without items", `{"type": "object", "properties": {"a": {"type": "array", "maxItems": 2}}}`, "properties.a.items: must be an object"},
		{"minItems above maxItems", `{"type": "object", "properties": {"a": {"type": "array", "maxItems": 2, "minItems": 3, "items": {"type": "boolean"}}}}`, "minItems"},
		{"minimum above maximum", `{"type": "object", "properties": {"a": {"type": "number", "minimum": 3, "maximum": 2}}}`, "minimum is above maximum"},
		{"fractional integer bound", `{"type": "object", "properties": {"a": {"type": "integer", "maximum": 2.5}}}`, "whole number"},
		{"empty enum", `{"type": "object", "properties": {"a": {"type": "string", "enum": []}}}`, "at least one value"},
		{"too deep", deep(themesettings.MaxDepth + 2), "nested deeper"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := themesettings.Parse([]byte(c.schema))
			if err == nil || !strings.Contains(err.Error(), c.says) {
				t.Errorf("Parse error = %v, want one saying %q", err, c.says)
			}
		})
	}
}

// deep is a schema of n objects nested in each other.
func deep(n int) string {
	s := `{"type": "boolean"}`
	for range n {
		s = `{"type": "object", "properties": {"a": ` + s + `}}`
	}
	return s
}

// TestImages lists every image reference with the path of its src, in the
// order Validate checks settings; null images are none.
func TestImages(t *testing.T) {
	s := parse(t)
	settings := `{"colors": {"accent": "#000000"}, "typography": {}, "logo": {"src": "a.png"},
		"sections": [{"kind": "hero", "image": {"src": "b.png"}}, {"kind": "hero", "image": null}, {"kind": "featured", "image": {"src": "c.png"}}]}`
	got, err := s.Images("draft_settings", []byte(settings))
	if err != nil {
		t.Fatal(err)
	}
	want := []themesettings.ImageRef{
		{Path: "draft_settings.logo.src", Src: "a.png"},
		{Path: "draft_settings.sections[0].image.src", Src: "b.png"},
		{Path: "draft_settings.sections[2].image.src", Src: "c.png"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("Images = %v, want %v", got, want)
	}
}
