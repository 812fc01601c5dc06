package models

import (
	"encoding/json"
	"io"
	"maps"
	"math"
	"slices"
	"strconv"
	"time"

	"github.com/99designs/gqlgen/graphql"

	"storeadmin/internal/base/apperr"
	"storeadmin/internal/base/jsonbody"
)

// MarshalTime writes t as RFC 3339 in UTC (see timeValue).
func MarshalTime(t time.Time) graphql.Marshaler { return timeValue(t) }

// The times an input may name: years 1900 to 9999, in UTC. PostgreSQL
// stores far more (4713 BC to 294276 AD), but year 0 does not exist there,
// Go's zero time (year 1) reads as "no time", and a year past 9999 is not
// RFC 3339, so such a value could be stored and then never be read back.
var (
	minTime = time.Date(1900, 1, 1, 0, 0, 0, 0, time.UTC)
	maxTime = time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC) // exclusive
)

// UnmarshalTime reads an RFC 3339 date-time, or a plain date (midnight UTC),
// between the years 1900 and 9999 (in UTC).
func UnmarshalTime(v any) (time.Time, error) {
	s, ok := v.(string)
	if !ok {
		return time.Time{}, apperr.Invalidf("a time must be an RFC 3339 string such as 2026-01-31T09:00:00Z")
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		if t, err = time.Parse(time.DateOnly, s); err != nil {
			return time.Time{}, apperr.Invalidf("%q is not a time: use RFC 3339, such as 2026-01-31T09:00:00Z, or a date such as 2026-01-31", s)
		}
	}
	if u := t.UTC(); u.Before(minTime) || !u.Before(maxTime) {
		return time.Time{}, apperr.Invalidf("must fall between the years 1900 and 9999 (UTC), not %q", s)
	}
	return t, nil
}

// MarshalJSON writes v, any JSON value, as it is stored, except for a
// number beyond float64 (stored before UnmarshalJSON checked, say), which is
// written as a string: JSON allows 1e400, but most clients' parsers fail on
// it, and one such number must not make its whole record unreadable.
func MarshalJSON(v any) graphql.Marshaler {
	return graphql.WriterFunc(func(w io.Writer) {
		readable, _ := readableJSON(v)
		b, err := json.Marshal(readable)
		if err != nil {
			io.WriteString(w, "null")
			return
		}
		w.Write(b)
	})
}

// readableJSON is v with its out-of-range numbers as strings, and whether
// it changed anything; v itself is never modified (it may be marshalled
// concurrently).
func readableJSON(v any) (any, bool) {
	switch x := v.(type) {
	case json.Number:
		if f, err := strconv.ParseFloat(string(x), 64); err != nil || math.IsInf(f, 0) {
			return string(x), true
		}
	case map[string]any:
		var out map[string]any
		for k, val := range x {
			if r, changed := readableJSON(val); changed {
				if out == nil {
					out = maps.Clone(x)
				}
				out[k] = r
			}
		}
		if out != nil {
			return out, true
		}
	case []any:
		var out []any
		for i, val := range x {
			if r, changed := readableJSON(val); changed {
				if out == nil {
					out = slices.Clone(x)
				}
				out[i] = r
			}
		}
		if out != nil {
			return out, true
		}
	}
	return v, false
}

// UnmarshalJSON accepts a JSON value that can be stored and read back: see
// CheckJSON.
func UnmarshalJSON(v any) (any, error) {
	if err := CheckJSON(v); err != nil {
		return nil, err
	}
	return v, nil
}

// MarshalString writes s as a JSON string, byte for byte as gqlgen's own
// String does (see stringValue).
func MarshalString(s string) graphql.Marshaler { return stringValue(s) }

// UnmarshalString accepts JSON strings only. gqlgen's own String takes
// numbers and booleans too (a JSON number decodes to json.Number, which
// passes for a string), so {"name": 42} would be stored as "42"; a client
// that sends a number for a string has made a mistake worth hearing about.
// The string must also be text PostgreSQL can store (CheckText).
func UnmarshalString(v any) (string, error) {
	s, ok := v.(string)
	if !ok {
		return "", apperr.Invalidf("must be a string, not %s", jsonbody.Kind(v))
	}
	if err := CheckText(s); err != nil {
		return "", err
	}
	return s, nil
}

// MarshalInt writes n.
func MarshalInt(n int64) graphql.Marshaler { return intValue(n) }

// UnmarshalInt accepts whole JSON numbers only. gqlgen's own Int64 takes
// numeric strings too, so {"ids": "5"} would pass for [5]; as with
// strings, a client that sends the wrong type should hear so.
func UnmarshalInt(v any) (int64, error) {
	switch v := v.(type) {
	case int64:
		return v, nil
	case int:
		return int64(v), nil
	case json.Number:
		n, err := strconv.ParseInt(string(v), 10, 64)
		if err != nil {
			return 0, apperr.Invalidf("must be an integer, not %s", v)
		}
		return n, nil
	}
	return 0, apperr.Invalidf("must be an integer, not %s", jsonbody.Kind(v))
}

// MarshalID writes an id as a string, as the spec shows review ids.
func MarshalID(id int64) graphql.Marshaler {
	return graphql.WriterFunc(func(w io.Writer) {
		io.WriteString(w, strconv.Quote(strconv.FormatInt(id, 10)))
	})
}

// UnmarshalID reads an id sent as a string of digits or as a number.
func UnmarshalID(v any) (int64, error) {
	var s string
	switch v := v.(type) {
	case string:
		s = v
	case json.Number:
		s = v.String()
	case int64:
		return v, nil
	case float64:
		if v == float64(int64(v)) {
			return int64(v), nil
		}
	}
	id, err := strconv.ParseInt(s, 10, 64)
	if err != nil || id < 1 {
		return 0, apperr.Invalidf("an id must be a positive whole number such as \"42\"")
	}
	return id, nil
}
