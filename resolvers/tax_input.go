package resolvers

import (
	"regexp"
	"strings"

	"storeadmin/graph"
	"storeadmin/internal/base/apperr"
	"storeadmin/models"
)

// maxTaxBps is the highest tax rate: 100%.
const maxTaxBps = 10000

// provincePattern is a subdivision code without its country: ON, CA, BY, 75.
var provincePattern = regexp.MustCompile(`^[A-Z0-9]{1,10}$`)

// province checks a province code: trimmed, upper-cased, 1 to 10 letters or
// digits; empty is the whole country.
func province(field, v string) (string, error) {
	p := strings.ToUpper(strings.TrimSpace(v))
	if p == "" || provincePattern.MatchString(p) {
		return p, nil
	}
	return "", apperr.Invalidf("%s must be 1 to 10 letters or digits, the subdivision code without its country (ON, not CA-ON), or empty for the whole country; not %q", field, v)
}

// applyTaxRateInput checks in and writes its fields into r, the stored rate
// on update (a merge: what is left out stays). On create the name, the
// country and rate_bps are required. It reports whether the position was
// sent.
func applyTaxRateInput(r *models.TaxRate, in graph.TaxRateInput, create bool) (positionSet bool, err error) {
	if in.Name != nil || create {
		if r.Name, err = text("name", deref(in.Name), 255, true); err != nil {
			return false, err
		}
	}
	if in.Country != nil || create {
		if r.Country, err = countryCode("country", deref(in.Country), false); err != nil {
			return false, err
		}
	}
	if in.Province != nil {
		if r.Province, err = province("province", *in.Province); err != nil {
			return false, err
		}
	}
	switch {
	case in.RateBps != nil:
		if *in.RateBps < 0 || *in.RateBps > maxTaxBps {
			return false, apperr.Invalidf("rate_bps must be between 0 and %d (basis points: 825 = 8.25%%)", maxTaxBps)
		}
		r.RateBps = *in.RateBps
	case create:
		return false, apperr.Invalidf("rate_bps is required (basis points: 825 = 8.25%%)")
	}
	if in.Position != nil {
		if r.Position, err = position("position", *in.Position); err != nil {
			return false, err
		}
	}
	return in.Position != nil, nil
}
