// Package geoip resolves an IP address to its country, region and city
// through a MaxMind-format database (GeoLite2-City, GeoIP2-City, DB-IP's
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
}

// DB is an open database; the nil *DB knows nothing.
type DB struct{ r *maxminddb.Reader }

// Open opens the database at path; an empty path is the nil DB.
func Open(path string) (*DB, error) {
	if path == "" {
		return nil, nil
	}
	r, err := maxminddb.Open(path)
	if err != nil {
		return nil, fmt.Errorf("geoip database %s: %w", path, err)
	}
	return &DB{r: r}, nil
}

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
	return p
}
