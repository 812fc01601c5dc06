// Package geoip resolves an IP address to its country, region, city and,
// when the database has them, coordinates through a MaxMind-format database (GeoLite2-City, GeoIP2-City, DB-IP's
// city lite, or any database with their record layout), read with
// github.com/oschwald/maxminddb-golang.
//
// Without a database every address resolves to nothing: geolocation is an
// enrichment, never a reason to fail.
package geoip

import (
	"fmt"
	"net"
	"net/netip"

	"github.com/oschwald/maxminddb-golang"
)

// Place is where an address is; empty strings are what the database does
// not know.
type Place struct {
	Country string // ISO 3166-1 alpha-2
	Region  string // the first subdivision's name (a state, a province)
	City    string
	// Located says the database gave coordinates: Lat and Lon, in degrees
	// (WGS 84), the centre of the area the address is in. A country
	// database gives none; 0, 0 is then no place on the map.
	Located  bool
	Lat, Lon float64
}

// DB is an open database; the nil *DB knows nothing.
type DB struct {
	r       *maxminddb.Reader
	locates bool
}

// Open opens the database at path; an empty path is the nil DB.
func Open(path string) (*DB, error) {
	if path == "" {
		return nil, nil
	}
	r, err := maxminddb.Open(path)
	if err != nil {
		return nil, fmt.Errorf("geoip database %s: %w", path, err)
	}
	locates, err := holdsCoordinates(r)
	if err != nil {
		r.Close()
		return nil, fmt.Errorf("geoip database %s: %w", path, err)
	}
	return &DB{r: r, locates: locates}, nil
}

// Locates says whether the database places addresses on the map: whether
// any of its records has coordinates (a city database's do, a country
// database's do not). The nil DB does not.
func (db *DB) Locates() bool { return db != nil && db.locates }

// holdsCoordinates walks r's networks until one has coordinates. A city
// database has them from its first networks on; a database without any is
// walked whole, once, when it is opened (a country database: about a
// second).
func holdsCoordinates(r *maxminddb.Reader) (bool, error) {
	networks := r.Networks(maxminddb.SkipAliasedNetworks)
	for networks.Next() {
		var rec struct {
			Location location `maxminddb:"location"`
		}
		if _, err := networks.Network(&rec); err != nil {
			return false, err
		}
		if rec.Location.known() {
			return true, nil
		}
	}
	return false, networks.Err()
}

// location is a record's coordinates; nil: the record has none.
type location struct {
	Latitude  *float64 `maxminddb:"latitude"`
	Longitude *float64 `maxminddb:"longitude"`
}

func (l location) known() bool { return l.Latitude != nil && l.Longitude != nil }

// Close releases the database.
func (db *DB) Close() error {
	if db == nil {
		return nil
	}
	return db.r.Close()
}

// record is the part of a city database's record a Place needs.
type record struct {
	Country struct {
		ISOCode string `maxminddb:"iso_code"`
	} `maxminddb:"country"`
	Subdivisions []struct {
		Names map[string]string `maxminddb:"names"`
	} `maxminddb:"subdivisions"`
	City struct {
		Names map[string]string `maxminddb:"names"`
	} `maxminddb:"city"`
	Location location `maxminddb:"location"`
}

// Lookup says where addr is. An address the database does not hold, an
// invalid address and the nil DB give the empty Place.
func (db *DB) Lookup(addr netip.Addr) Place {
	if db == nil || !addr.IsValid() {
		return Place{}
	}
	var rec record
	if err := db.r.Lookup(net.IP(addr.Unmap().AsSlice()), &rec); err != nil {
		return Place{}
	}
	p := Place{Country: rec.Country.ISOCode, City: rec.City.Names["en"]}
	if len(rec.Subdivisions) > 0 {
		p.Region = rec.Subdivisions[0].Names["en"]
	}
	if rec.Location.known() {
		p.Located, p.Lat, p.Lon = true, *rec.Location.Latitude, *rec.Location.Longitude
	}
	return p
}
