package retention

import (
	"testing"
	"time"
)

func TestParseHorizon(t *testing.T) {
	for in, want := range map[string]time.Duration{"400d": 400 * 24 * time.Hour, "1d": 24 * time.Hour, "9600h": 9600 * time.Hour, "0": 0} {
		if got, err := ParseHorizon(in); err != nil || got != want {
			t.Errorf("ParseHorizon(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, in := range []string{"", "0d", "-3d", "1.5d", "forever", "-1h"} {
		if _, err := ParseHorizon(in); err == nil {
			t.Errorf("ParseHorizon(%q) accepted", in)
		}
	}
}
