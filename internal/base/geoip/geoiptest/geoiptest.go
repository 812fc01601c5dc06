// Package geoiptest builds tiny MaxMind-format city databases for tests,
// with MaxMind's own writer (github.com/maxmind/mmdbwriter).
package geoiptest

import (
	"net"
	"os"
	"path/filepath"
	"testing"

	"github.com/maxmind/mmdbwriter"
	"github.com/maxmind/mmdbwriter/mmdbtype"

	"storeadmin/internal/base/geoip"
)

// Write writes a database holding places (CIDR -> place) in a temporary
// directory of t and returns its path. A place's coordinates are written
// when it is Located, as a city database's location.
func Write(t testing.TB, places map[string]geoip.Place) string {
	t.Helper()
	tree, err := mmdbwriter.New(mmdbwriter.Options{DatabaseType: "GeoIP2-City", RecordSize: 24, IncludeReservedNetworks: true})
	if err != nil {
		t.Fatalf("mmdbwriter: %v", err)
	}
	for cidr, p := range places {
		_, network, err := net.ParseCIDR(cidr)
		if err != nil {
			t.Fatalf("geoiptest: %s: %v", cidr, err)
		}
		rec := mmdbtype.Map{
			"country": mmdbtype.Map{"iso_code": mmdbtype.String(p.Country)},
			"city":    mmdbtype.Map{"names": mmdbtype.Map{"en": mmdbtype.String(p.City)}},
			"subdivisions": mmdbtype.Slice{
				mmdbtype.Map{"names": mmdbtype.Map{"en": mmdbtype.String(p.Region)}},
			},
		}
		if p.Located {
			rec["location"] = mmdbtype.Map{"latitude": mmdbtype.Float64(p.Lat), "longitude": mmdbtype.Float64(p.Lon)}
		}
		if err := tree.Insert(network, rec); err != nil {
			t.Fatalf("geoiptest: insert %s: %v", cidr, err)
		}
	}
	path := filepath.Join(t.TempDir(), "city.mmdb")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := tree.WriteTo(f); err != nil {
		t.Fatalf("geoiptest: write: %v", err)
	}
	return path
}
