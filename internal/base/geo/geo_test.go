package geo

import (
	"testing"

	"golang.org/x/text/language"
)

func TestIsCountry(t *testing.T) {
	// The 249 officially assigned codes of ISO 3166-1 and XK.
	if n := len(countries); n != 250 {
		t.Errorf("%d codes, want 250", n)
	}
	for _, c := range []string{"US", "CA", "FR", "DE", "GB", "JP", "AU", "NZ", "BR", "ZA", "AX", "SS", "XK", "BQ", "CW", "SX"} {
		if !IsCountry(c) {
			t.Errorf("IsCountry(%q) = false", c)
		}
	}
	// Reserved, withdrawn, grouping and malformed codes are not countries.
	for _, c := range []string{"", "*", "UK", "EU", "UN", "AN", "YU", "CS", "ZZ", "QO", "fr", "Fr", "FRA", "F", " FR"} {
		if IsCountry(c) {
			t.Errorf("IsCountry(%q) = true", c)
		}
	}
	// Every code is one the Unicode CLDR knows as a country, in its
	// canonical form: the list holds no typo.
	for c := range countries {
		r, err := language.ParseRegion(c)
		if err != nil || !r.IsCountry() || r.String() != c {
			t.Errorf("%s: CLDR says %v (%v)", c, r, err)
		}
	}
}
