package geoip_test

import (
	"net/netip"
	"testing"

	"storeadmin/internal/base/geoip"
	"storeadmin/internal/base/geoip/geoiptest"
)

func TestLookup(t *testing.T) {
	paris := geoip.Place{Country: "FR", Region: "Île-de-France", City: "Paris", Located: true, Lat: 48.8566, Lon: 2.3522}
	path := geoiptest.Write(t, map[string]geoip.Place{
		"203.0.113.0/24": {Country: "DE", Region: "Berlin", City: "Berlin"},
		"2001:db8::/32":  paris,
	})
	db, err := geoip.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for addr, want := range map[string]geoip.Place{
		"203.0.113.9":        {Country: "DE", Region: "Berlin", City: "Berlin"},
		"2001:db8::1":        paris,
		"198.51.100.1":       {},
		"::ffff:203.0.113.7": {Country: "DE", Region: "Berlin", City: "Berlin"},
	} {
		if got := db.Lookup(netip.MustParseAddr(addr)); got != want {
			t.Errorf("Lookup(%s) = %+v, want %+v", addr, got, want)
		}
	}
}

// A database places addresses on the map when a record of it has
// coordinates, whichever network it is.
func TestLocates(t *testing.T) {
	for name, c := range map[string]struct {
		places map[string]geoip.Place
		want   bool
	}{
		"names only": {map[string]geoip.Place{"203.0.113.0/24": {Country: "DE", City: "Berlin"}, "2001:db8::/32": {Country: "FR"}}, false},
		"one located": {map[string]geoip.Place{"203.0.113.0/24": {Country: "DE", City: "Berlin"},
			"2001:db8::/32": {Country: "FR", City: "Paris", Located: true, Lat: 48.8566, Lon: 2.3522}}, true},
	} {
		db, err := geoip.Open(geoiptest.Write(t, c.places))
		if err != nil {
			t.Fatal(err)
		}
		if got := db.Locates(); got != c.want {
			t.Errorf("%s: Locates() = %v, want %v", name, got, c.want)
		}
		db.Close()
	}
}

// Without a database every address resolves to nothing, and nothing fails.
func TestWithoutDatabase(t *testing.T) {
	db, err := geoip.Open("")
	if err != nil || db != nil {
		t.Fatalf("Open(\"\") = %v, %v", db, err)
	}
	if got := db.Lookup(netip.MustParseAddr("203.0.113.9")); got != (geoip.Place{}) || db.Locates() {
		t.Fatalf("nil DB: %+v, locates %v", got, db.Locates())
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := geoip.Open("/nonexistent.mmdb"); err == nil {
		t.Fatal("a missing file opened")
	}
}
