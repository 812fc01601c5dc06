package themesettings

import (
	"encoding/json"
	"reflect"
	"testing"
)

// TestMerge: a theme arm's settings merge over its version's as
// README "A/B tests" says: objects key by key, at every depth; lists and
// other values whole; the control's {} (no settings) is the version as
// published; the version's settings are not changed.
func TestMerge(t *testing.T) {
	var base, over, want any
	must := func(s string, v *any) {
		if err := json.Unmarshal([]byte(s), v); err != nil {
			t.Fatal(err)
		}
	}
	must(`{"colors": {"primary": "#000", "accent": "#f00"}, "nav": ["home", "shop"], "hero": {"title": "Hi", "cta": {"label": "Buy"}}}`, &base)
	must(`{"colors": {"primary": "#123"}, "nav": ["shop"], "hero": {"cta": {"url": "/sale"}}, "banner": true}`, &over)
	must(`{"colors": {"primary": "#123", "accent": "#f00"}, "nav": ["shop"], "hero": {"title": "Hi", "cta": {"label": "Buy", "url": "/sale"}}, "banner": true}`, &want)
	if got := Merge(base, over); !reflect.DeepEqual(got, want) {
		t.Fatalf("merged %v, want %v", got, want)
	}
	if got := Merge(base, nil); !reflect.DeepEqual(got, base) {
		t.Fatalf("the control shows %v, want the version's %v", got, base)
	}
	if base.(map[string]any)["colors"].(map[string]any)["primary"] != "#000" {
		t.Fatal("merging changed the version's settings")
	}
}
