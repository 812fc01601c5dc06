package handle

import "testing"

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
