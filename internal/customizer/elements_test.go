package customizer

import (
	"encoding/json"
	"reflect"
	"testing"

	"storeadmin/internal/base/apperr"
	"storeadmin/models"
)

// uploadsOf answers the uploads with the given srcs, 10×20 pixels each.
func uploadsOf(srcs ...string) Uploads {
	return func(src string) (models.Media, bool) {
		for _, s := range srcs {
			if s == src {
				return models.Media{Src: src, Width: 10, Height: 20}, true
			}
		}
		return models.Media{}, false
	}
}

// TestCheckElementNormalises: defaults are filled in, colours lower-cased,
// and settings read back from jsonb (json.Number) check as they were
// written, so that an import of an export stores the same settings.
func TestCheckElementNormalises(t *testing.T) {
	el := &models.CzElement{ElementKey: "title", Type: ElementText, W: 10, H: 10,
		Settings: map[string]any{"color": "#ABCDEF", "font_size": json.Number("12.5")}}
	if err := CheckElement(el, uploadsOf()); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"text": "", "font_family": "Helvetica", "font_size": 12.5, "color": "#abcdef", "align": "center", "curve": float64(0)}
	if !reflect.DeepEqual(el.Settings, want) {
		t.Fatalf("settings %v, want %v", el.Settings, want)
	}
	again := *el
	if err := CheckElement(&again, uploadsOf()); err != nil || !reflect.DeepEqual(again.Settings, want) {
		t.Fatalf("checked twice: %v %v", again.Settings, err)
	}
	for typ, names := range map[string][]string{
		ElementText: {"text", "font_family", "font_size", "color", "align", "curve"}, ElementImage: {"src", "fit"},
		ElementArtwork: {"library_group_key", "fit"}, ElementShape: {"shape", "fill", "stroke", "stroke_width"},
	} {
		if got := ElementSettingNames(typ); !reflect.DeepEqual(got, names) {
			t.Fatalf("%s settings %v, want %v", typ, got, names)
		}
	}
}

// TestCheckElementRefuses: each refusal names its field.
func TestCheckElementRefuses(t *testing.T) {
	base := func(change func(el *models.CzElement)) *models.CzElement {
		el := &models.CzElement{ElementKey: "k", Type: ElementImage, W: 1, H: 1}
		change(el)
		return el
	}
	for field, el := range map[string]*models.CzElement{
		"element_key":    base(func(el *models.CzElement) { el.ElementKey = "" }),
		"group_key":      base(func(el *models.CzElement) { el.GroupKey = "A" }),
		"type":           base(func(el *models.CzElement) { el.Type = "video" }),
		"w":              base(func(el *models.CzElement) { el.W = 0 }),
		"rotation_deg":   base(func(el *models.CzElement) { el.RotationDeg = 360 }),
		"settings":       base(func(el *models.CzElement) { el.Settings = "x" }),
		"settings.src":   base(func(el *models.CzElement) { el.Settings = map[string]any{"src": "https://x.example/a.png"} }),
		"settings.extra": base(func(el *models.CzElement) { el.Settings = map[string]any{"extra": 1} }),
	} {
		if err := CheckElement(el, uploadsOf()); apperr.FieldOf(err) != field {
			t.Fatalf("want a refusal naming %s, got %v", field, err)
		}
	}
}
