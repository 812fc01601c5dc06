package resolvers

import (
	"strings"

	"storeadmin/internal/base/apperr"
	"storeadmin/internal/base/geo"
	"storeadmin/models"
)

// countryCode checks a country code: trimmed, upper-cased, ISO 3166-1
// alpha-2; "*" (the rest of the world) only when world.
func countryCode(field, v string, world bool) (string, error) {
	c := strings.ToUpper(strings.TrimSpace(v))
	if geo.IsCountry(c) || (world && c == models.WorldCountry) {
		return c, nil
	}
	if c == "" {
		return "", apperr.Invalidf("%s must not be empty", field)
	}
	if world {
		return "", apperr.Invalidf("%s: %q is not an ISO 3166-1 alpha-2 country code (such as US, FR or JP), nor * for the rest of the world", field, v)
	}
	return "", apperr.Invalidf("%s: %q is not an ISO 3166-1 alpha-2 country code (such as US, FR or JP)", field, v)
}
