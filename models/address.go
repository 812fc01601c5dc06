package models

import (
	"bytes"
	"encoding/json"
	"strings"

	"storeadmin/internal/base/apperr"
	"storeadmin/internal/base/geo"
)

// maxAddressBytes bounds an address's JSON.
const maxAddressBytes = 4 << 10

// CheckAddress accepts an address object of text fields (first_name,
// address1, city, province_code, zip, country_code, phone, ...), as drafts
// and checkouts keep them; country_code and province_code are upper-cased,
// and country_code, when present, is an ISO 3166-1 alpha-2 code. An empty
// object clears the address (nil).
func CheckAddress(field string, v any) (any, error) {
	obj, ok := v.(map[string]any)
	if !ok {
		return nil, apperr.Invalidf("%s must be an object such as {\"address1\": \"...\", \"city\": \"...\", \"country_code\": \"FR\"}", field)
	}
	if len(obj) == 0 {
		return nil, nil
	}
	for k, val := range obj {
		if _, ok := val.(string); !ok && val != nil {
			return nil, apperr.Invalidf("%s.%s must be text", field, k)
		}
	}
	for _, k := range []string{"country_code", "province_code"} {
		if s, ok := obj[k].(string); ok {
			obj[k] = strings.ToUpper(strings.TrimSpace(s))
		}
	}
	if c, ok := obj["country_code"].(string); ok && c != "" && !geo.IsCountry(c) {
		return nil, apperr.Invalidf("%s.country_code must be a two-letter country code such as FR, not %q", field, c)
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(obj); err != nil || buf.Len()-1 > maxAddressBytes { // Encode appends a newline
		return nil, apperr.Invalidf("%s must be at most %d bytes of JSON", field, maxAddressBytes)
	}
	return obj, nil
}
