package resolvers

import (
	"context"
	"fmt"

	"github.com/uptrace/bun"

	"storeadmin/graph"
	"storeadmin/internal/base/apperr"
	"storeadmin/models"
)

// zoneCountries checks a shipping zone's countries: at least one, each a
// country code or "*", upper-cased, repeats dropped (the first kept).
func zoneCountries(in []string) ([]string, error) {
	if len(in) == 0 {
		return nil, apperr.Invalidf("countries must list at least one country code (ISO 3166-1 alpha-2, or * for the rest of the world)")
	}
	return uniqueCountries(in, true)
}

// uniqueCountries checks a zone's countries (shipping or checkout): each a
// country code, or "*" when world, upper-cased, repeats dropped (the first
// kept).
func uniqueCountries(in []string, world bool) ([]string, error) {
	out := make([]string, 0, len(in))
	seen := map[string]bool{}
	for i, v := range in {
		c, err := countryCode(fmt.Sprintf("countries[%d]", i), v, world)
		if err != nil {
			return nil, err
		}
		if !seen[c] {
			seen[c] = true
			out = append(out, c)
		}
	}
	return out, nil
}

// zoneChange is what a checked ShippingZoneInput asks beyond the row:
// whether it set the position, and a default rate to check.
type zoneChange struct {
	position    bool
	defaultRate *int64
}

// applyZoneInput checks in and writes its fields into z, the stored zone on
// update (a merge: what is left out stays). On create the name and the
// countries are required. default_rate_id sent as null clears the default;
// a rate it names is checked by checkZoneDefaultRate.
func applyZoneInput(ctx context.Context, z *models.ShippingZone, in graph.ShippingZoneInput, create bool) (*zoneChange, error) {
	var err error
	if in.Name != nil || create {
		if z.Name, err = text("name", deref(in.Name), 255, true); err != nil {
			return nil, err
		}
	}
	if in.Countries != nil || create {
		if z.Countries, err = zoneCountries(in.Countries); err != nil {
			return nil, err
		}
	}
	c := &zoneChange{position: in.Position != nil}
	if in.Position != nil {
		if z.Position, err = position("position", *in.Position); err != nil {
			return nil, err
		}
	}
	switch {
	case in.DefaultRateID != nil:
		c.defaultRate = in.DefaultRateID
		z.DefaultRateID = in.DefaultRateID
	case sentNulls(ctx, "input")["default_rate_id"]:
		z.DefaultRateID = nil
	}
	return c, nil
}

// checkZoneDefaultRate checks, in the write's transaction, that a default
// rate the input named is a rate of the zone (a new zone has none yet).
func checkZoneDefaultRate(ctx context.Context, tx bun.IDB, z *models.ShippingZone, c *zoneChange) error {
	if c.defaultRate == nil {
		return nil
	}
	ok := false
	if z.ID != 0 {
		var err error
		if ok, err = models.ZoneHasRate(ctx, tx, z.StoreID, z.ID, *c.defaultRate); err != nil {
			return err
		}
	}
	if !ok {
		return apperr.Invalidf("default_rate_id: this zone has no rate with the id %d; add the rate to the zone first", *c.defaultRate)
	}
	return nil
}

// applyRateInput checks in and writes its fields into r, the stored rate on
// update (a merge: what is left out stays; a bound sent as null is
// cleared). On create the name and price_cents are required. The bounds
// are checked as merged: each at least 0, each minimum at most its maximum.
func applyRateInput(ctx context.Context, r *models.ShippingRate, in graph.ShippingRateInput, create bool) (positionSet bool, err error) {
	if in.Name != nil || create {
		if r.Name, err = text("name", deref(in.Name), 255, true); err != nil {
			return false, err
		}
	}
	switch {
	case in.PriceCents != nil:
		if *in.PriceCents < 0 {
			return false, apperr.Invalidf("price_cents must not be negative")
		}
		r.PriceCents = *in.PriceCents
	case create:
		return false, apperr.Invalidf("price_cents is required: the price in cents, 0 for free shipping")
	}
	if in.Position != nil {
		if r.Position, err = position("position", *in.Position); err != nil {
			return false, err
		}
	}
	nulls := sentNulls(ctx, "input")
	for _, b := range []struct {
		name string
		in   *int64
		out  **int64
	}{
		{"min_weight_grams", in.MinWeightGrams, &r.MinWeightGrams},
		{"max_weight_grams", in.MaxWeightGrams, &r.MaxWeightGrams},
		{"min_subtotal_cents", in.MinSubtotalCents, &r.MinSubtotalCents},
		{"max_subtotal_cents", in.MaxSubtotalCents, &r.MaxSubtotalCents},
	} {
		switch {
		case b.in != nil:
			if *b.in < 0 {
				return false, apperr.Invalidf("%s must not be negative (leave it out, or null, for no bound)", b.name)
			}
			v := *b.in
			*b.out = &v
		case nulls[b.name]:
			*b.out = nil
		}
	}
	for _, pair := range []struct {
		min, max string
		lo, hi   *int64
	}{
		{"min_weight_grams", "max_weight_grams", r.MinWeightGrams, r.MaxWeightGrams},
		{"min_subtotal_cents", "max_subtotal_cents", r.MinSubtotalCents, r.MaxSubtotalCents},
	} {
		if pair.lo != nil && pair.hi != nil && *pair.lo > *pair.hi {
			return false, apperr.Invalidf("%s (%d) must not be more than %s (%d)", pair.min, *pair.lo, pair.max, *pair.hi)
		}
	}
	return in.Position != nil, nil
}
