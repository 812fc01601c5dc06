package themesettings_test

import (
	"encoding/json"
	"reflect"
	"testing"

	"storeadmin/internal/themesettings"
)

// TestCarryOver: the old draft's settings the new schema accepts are kept,
// over the new release's defaults; removed settings are dropped, refused
// ones reset to the default (or dropped without one), and new settings take
// their defaults.
func TestCarryOver(t *testing.T) {
	newSchema := `{"type": "object", "required": ["colors"], "properties": {
		"colors": {"type": "object", "required": ["accent"], "properties": {
			"accent": {"type": "string", "format": "color"},
			"link": {"type": "string", "format": "color"}}},
		"base_size": {"type": "integer", "minimum": 14, "maximum": 18},
		"layout": {"type": "string", "enum": ["boxed", "full"]},
		"badge": {"type": "string", "maxLength": 5},
		"grid": {"type": "object", "properties": {"columns": {"type": "integer", "enum": [2, 3]}}},
		"sections": {"type": "array", "maxItems": 2, "items": {"type": "object", "properties": {"kind": {"type": "string", "enum": ["hero", "text"]}}}}}}`
	s, err := themesettings.Parse([]byte(newSchema))
	if err != nil {
		t.Fatal(err)
	}
	defaults := `{"colors": {"accent": "#000000", "link": "#0000ff"}, "base_size": 16, "layout": "boxed", "grid": {"columns": 3},
		"sections": [{"kind": "hero"}]}`
	draft := `{"colors": {"accent": "#ff0000", "hover": "#00ff00"}, "base_size": 20, "layout": "full", "badge": "clearance",
		"footer": {"text": "x"}, "sections": [{"kind": "hero"}, {"kind": "text"}, {"kind": "text"}]}`
	got, dropped, reset, err := s.CarryOver([]byte(defaults), []byte(draft))
	if err != nil {
		t.Fatal(err)
	}
	var m, want map[string]any
	if err := json.Unmarshal(got, &m); err != nil {
		t.Fatal(err)
	}
	json.Unmarshal([]byte(`{"colors": {"accent": "#ff0000", "link": "#0000ff"}, "base_size": 16, "layout": "full", "grid": {"columns": 3},
		"sections": [{"kind": "hero"}]}`), &want)
	if !reflect.DeepEqual(m, want) {
		t.Errorf("settings %s\nwant %v", got, want)
	}
	if w := []string{"badge", "colors.hover", "footer"}; !reflect.DeepEqual(dropped, w) {
		t.Errorf("dropped %v, want %v", dropped, w)
	}
	if w := []string{"base_size", "sections"}; !reflect.DeepEqual(reset, w) {
		t.Errorf("reset %v, want %v", reset, w)
	}
	if err := s.Validate("settings", got); err != nil {
		t.Errorf("carried settings fail the schema: %v", err)
	}
}
