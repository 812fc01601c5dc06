// Package models holds the bun models of storeadmin (one table, one struct),
// their enums and state rules, and the storage functions that read and write
// them. Storage functions take a bun.IDB, so they work in or out of a
// transaction, and a store id, so every query is scoped to one tenant.
package models

import (
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"time"

	"github.com/99designs/gqlgen/graphql"

	"storeadmin/internal/apperr"
)

// MarshalTime writes t as RFC 3339 in UTC.
func MarshalTime(t time.Time) graphql.Marshaler {
	return graphql.WriterFunc(func(w io.Writer) {
		io.WriteString(w, strconv.Quote(t.UTC().Format(time.RFC3339Nano)))
	})
}

// UnmarshalTime reads an RFC 3339 date-time, or a plain date (midnight UTC).
func UnmarshalTime(v any) (time.Time, error) {
	s, ok := v.(string)
	if !ok {
		return time.Time{}, apperr.Invalidf("a time must be an RFC 3339 string such as 2026-01-31T09:00:00Z")
	}
	if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
		return t, nil
	}
	if t, err := time.Parse(time.DateOnly, s); err == nil {
		return t, nil
	}
	return time.Time{}, apperr.Invalidf("%q is not a time: use RFC 3339, such as 2026-01-31T09:00:00Z, or a date such as 2026-01-31", s)
}

// MarshalJSON writes v, any JSON value, untouched.
func MarshalJSON(v any) graphql.Marshaler {
	return graphql.WriterFunc(func(w io.Writer) {
		b, err := json.Marshal(v)
		if err != nil {
			io.WriteString(w, "null")
			return
		}
		w.Write(b)
	})
}

// UnmarshalJSON accepts any value gqlgen decoded from the request.
func UnmarshalJSON(v any) (any, error) {
	switch v.(type) {
	case nil, string, bool, float64, int64, json.Number, map[string]any, []any:
		return v, nil
	}
	return nil, fmt.Errorf("unsupported JSON value %T", v)
}

// MarshalString writes s.
func MarshalString(s string) graphql.Marshaler { return graphql.MarshalString(s) }

// UnmarshalString accepts JSON strings only. gqlgen's own String takes
// numbers and booleans too (a JSON number decodes to json.Number, which
// passes for a string), so {"name": 42} would be stored as "42"; a client
// that sends a number for a string has made a mistake worth hearing about.
func UnmarshalString(v any) (string, error) {
	if s, ok := v.(string); ok {
		return s, nil
	}
	return "", apperr.Invalidf("expected a string, got %s", jsonKind(v))
}

// MarshalInt writes n.
func MarshalInt(n int64) graphql.Marshaler { return graphql.MarshalInt64(n) }

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
			return 0, apperr.Invalidf("expected a whole number, got %s", v)
		}
		return n, nil
	}
	return 0, apperr.Invalidf("expected a whole number, got %s", jsonKind(v))
}

func jsonKind(v any) string {
	switch v.(type) {
	case json.Number, float64, int64, int:
		return "a number"
	case bool:
		return "a boolean"
	case map[string]any:
		return "an object"
	case []any:
		return "an array"
	case nil:
		return "null"
	}
	return fmt.Sprintf("%T", v)
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
