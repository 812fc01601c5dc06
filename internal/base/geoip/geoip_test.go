package geoip_test

import (
	"net/netip"
	"testing"

	"storeadmin/internal/base/geoip"
	"storeadmin/internal/base/geoip/geoiptest"
)

func TestLookup(t *testing.T) {
	path := geoiptest.Write(t, map[string]geoip.Place{
		"203.0.113.0/24": {Country: "DE", Region: "Berlin", City: "Berlin"},
		"2001:db8::/32":  {Country: "FR", Region: "Île-de-France", City: "Paris"},
	})
	db, err := geoip.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for addr, want := range map[string]geoip.Place{
		"203.0.113.9":        {Country: "DE", Region: "Berlin", City: "Berlin"},
		"2001:db8::1":        {Country: "FR", Region: "Île-de-France", City: "Paris"},
		"198.51.100.1":       {},
		"::ffff:203.0.113.7": {Country: "DE", Region: "Berlin", City: "Berlin"},
	} {
		if got := db.Lookup(netip.MustParseAddr(addr)); got != want {
			t.Errorf("Lookup(%s) = %+v, want %+v", addr, got, want)
		}
	}
}

// Without a database every address resolves to nothing, and nothing fails.
func TestWithoutDatabase(t *testing.T) {
	db, err := geoip.Open("")
	if err != nil || db != nil {
		t.Fatalf("Open(\"\") = %v, %v", db, err)
	}
	if got := db.Lookup(netip.MustParseAddr("203.0.113.9")); got != (geoip.Place{}) {
		t.Fatalf("nil DB: %+v", got)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := geoip.Open("/nonexistent.mmdb"); err == nil {
		t.Fatal("a missing file opened")
	}
}
