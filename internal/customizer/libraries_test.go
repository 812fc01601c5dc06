package customizer

import (
	"encoding/json"
	"reflect"
	"testing"

	"storeadmin/internal/base/apperr"
)

// TestCheckLibraryItem: each kind's value as stored, and refusals naming
// their field.
func TestCheckLibraryItem(t *testing.T) {
	uploads := uploadsOf("https://cdn.example/a.png")
	for kind, c := range map[string]struct{ in, want map[string]any }{
		LibraryArtwork: {map[string]any{"src": "https://cdn.example/a.png", "width": 1}, map[string]any{"src": "https://cdn.example/a.png", "width": int64(10), "height": int64(20)}},
		LibraryFinish:  {map[string]any{"name": " Gold ", "hex": "#FFD700"}, map[string]any{"name": "Gold", "hex": "#ffd700"}},
		LibraryHole:    {map[string]any{"x": 1, "y": json.Number("2"), "diameter": 3.5}, map[string]any{"x": float64(1), "y": float64(2), "diameter": 3.5}},
	} {
		got, err := CheckLibraryItem(kind, c.in, uploads)
		if err != nil || !reflect.DeepEqual(got, c.want) {
			t.Fatalf("%s: %v %v, want %v", kind, got, err, c.want)
		}
	}
	for field, c := range map[string]struct {
		kind  string
		value any
	}{
		"kind":           {"sticker", map[string]any{}},
		"value":          {LibraryHole, nil},
		"value.src":      {LibraryArtwork, map[string]any{"src": "https://cdn.example/b.png"}},
		"value.diameter": {LibraryHole, map[string]any{"x": 1, "y": 1, "diameter": -1}},
	} {
		if _, err := CheckLibraryItem(c.kind, c.value, uploads); apperr.FieldOf(err) != field {
			t.Fatalf("want a refusal naming %s, got %v", field, err)
		}
	}
}
