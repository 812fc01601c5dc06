package handle

import (
	"strings"
	"testing"
)

func TestFrom(t *testing.T) {
	for in, want := range map[string]string{
		"red-shirt": "red-shirt", "Red Shirt": "red-shirt", "red--shirt": "red-shirt", "-red-": "red",
		"Crème Brûlée": "creme-brulee", "a_b/c.d": "a-b-c-d", "Women’s": "womens", "日本": "", "ＡＢＣ": "abc",
	} {
		if got := From(in); got != want {
			t.Errorf("From(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestValid(t *testing.T) {
	long := strings.Repeat("a", MaxLength)
	for h, want := range map[string]bool{
		"red-shirt": true, "a": true, "2024-sale": true, long: true, long + "a": false,
		"": false, "-red": false, "red-": false, "red--shirt": false, "Red": false, "red_shirt": false,
		"red shirt": false, "café": false, "-": false,
	} {
		if got := Valid(h); got != want {
			t.Errorf("Valid(%q) = %v, want %v", h, got, want)
		}
	}
}

func TestValidStore(t *testing.T) {
	long := strings.Repeat("a", MaxStoreLength)
	for h, want := range map[string]bool{
		"acme": true, "acme-eu": true, "acme--eu": true, "7eleven": true, long: true, long + "a": false,
		"": false, "-acme": false, "acme-": false, "Acme": false, "acme_eu": false, "acme.eu": false,
		"acmé": false, "-": false,
	} {
		if got := ValidStore(h); got != want {
			t.Errorf("ValidStore(%q) = %v, want %v", h, got, want)
		}
	}
}
