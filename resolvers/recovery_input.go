package resolvers

import (
	"fmt"

	"storeadmin/graph"
	"storeadmin/internal/base/apperr"
	"storeadmin/models"
)

// Bounds of a recovery policy: a cart idles at least 5 minutes (less
// would flag a shopper still choosing) and at most a week; at most 5
// reminders, the last within 30 days (models.RecoveryHorizon reads a
// little past it); a code lasts at most 30 days.
const (
	minIdleMinutes     = 5
	maxIdleMinutes     = 7 * 24 * 60
	maxReminders       = 5
	maxDelayMinutes    = 30 * 24 * 60
	maxDiscountTTLHour = 30 * 24
)

// checkRecoveryPolicy merges in onto stored: each surface sent replaces
// its stored one whole, a surface left out keeps it. Every refusal names
// its field.
func checkRecoveryPolicy(in graph.AbandonedcartPolicyInput, stored models.RecoveryPolicy) (models.RecoveryPolicy, error) {
	p := stored
	if in.Cart == nil && in.Checkout == nil {
		return p, apperr.Invalidf("send cart, checkout or both: the surfaces whose policy to replace")
	}
	var err error
	if in.Cart != nil {
		if p.Cart, err = checkRecoverySurface("cart", *in.Cart); err != nil {
			return p, err
		}
	}
	if in.Checkout != nil {
		if p.Checkout, err = checkRecoverySurface("checkout", *in.Checkout); err != nil {
			return p, err
		}
	}
	return p, nil
}

// checkRecoverySurface checks one surface's policy, at (cart or checkout).
func checkRecoverySurface(at string, in graph.AbandonedcartSurfaceInput) (models.RecoverySurface, error) {
	s := models.RecoverySurface{Mode: in.Mode, IdleMinutes: int(in.IdleMinutes), DelaysMinutes: make([]int, len(in.DelaysMinutes))}
	if in.Mode != models.RecoveryOff && in.Mode != models.RecoveryEmail {
		return s, apperr.InvalidField(at+".mode", "must be off (no reminders) or email, not %q", in.Mode)
	}
	if in.IdleMinutes < minIdleMinutes || in.IdleMinutes > maxIdleMinutes {
		return s, apperr.InvalidField(at+".idle_minutes", "must be between %d and %d minutes (7 days), not %d", minIdleMinutes, maxIdleMinutes, in.IdleMinutes)
	}
	if len(in.DelaysMinutes) > maxReminders {
		return s, apperr.InvalidField(at+".delays_minutes", "may hold at most %d reminders, not %d", maxReminders, len(in.DelaysMinutes))
	}
	if len(in.DelaysMinutes) == 0 && in.Mode == models.RecoveryEmail {
		return s, apperr.InvalidField(at+".delays_minutes", "must hold at least one delay when mode is email (or set mode to off)")
	}
	for i, d := range in.DelaysMinutes {
		field := fmt.Sprintf("%s.delays_minutes[%d]", at, i)
		if d < 1 || d > maxDelayMinutes {
			return s, apperr.InvalidField(field, "must be between 1 and %d minutes (30 days) after the abandonment, not %d", maxDelayMinutes, d)
		}
		if i > 0 && d <= in.DelaysMinutes[i-1] {
			return s, apperr.InvalidField(field, "must be later than the reminder before it (%d minutes), not %d", in.DelaysMinutes[i-1], d)
		}
		s.DelaysMinutes[i] = int(d)
	}
	return s, checkRecoveryDiscount(at, in, &s)
}

// checkRecoveryDiscount checks the discount fields of one surface: any
// field sent must be valid (a discount switched off keeps them for when it
// is switched on again), and all of them are required when it is on.
func checkRecoveryDiscount(at string, in graph.AbandonedcartSurfaceInput, s *models.RecoverySurface) error {
	s.DiscountEnabled = in.DiscountEnabled
	enabled := in.DiscountEnabled != nil && *in.DiscountEnabled
	if enabled {
		for _, f := range []struct {
			name string
			sent bool
		}{{"discount_from_step", in.DiscountFromStep != nil}, {"discount_ttl_hours", in.DiscountTTLHours != nil},
			{"discount_value", in.DiscountValue != nil}, {"discount_value_type", in.DiscountValueType != nil}} {
			if !f.sent {
				return apperr.InvalidField(at+"."+f.name, "is required when discount_enabled is true")
			}
		}
	}
	if v := in.DiscountFromStep; v != nil {
		if *v < 1 || *v > int64(len(in.DelaysMinutes)) {
			return apperr.InvalidField(at+".discount_from_step", "must be a reminder of the sequence, 1 to %d (the number of delays), not %d", len(in.DelaysMinutes), *v)
		}
		s.DiscountFromStep = intPtr(*v)
	}
	if v := in.DiscountTTLHours; v != nil {
		if *v < 1 || *v > maxDiscountTTLHour {
			return apperr.InvalidField(at+".discount_ttl_hours", "must be between 1 and %d hours (30 days), not %d", maxDiscountTTLHour, *v)
		}
		s.DiscountTTLHours = intPtr(*v)
	}
	if v := in.DiscountValueType; v != nil {
		if *v != models.DiscountPercentage && *v != models.DiscountFixedAmount {
			return apperr.InvalidField(at+".discount_value_type", "must be percentage or fixed_amount, not %q", *v)
		}
		s.DiscountValueType = v
	}
	if v := in.DiscountValue; v != nil {
		switch {
		case s.DiscountValueType == nil:
			return apperr.InvalidField(at+".discount_value", "needs discount_value_type, which says whether it is a percentage or an amount")
		case *s.DiscountValueType == models.DiscountPercentage && (*v < 1 || *v > 100):
			return apperr.InvalidField(at+".discount_value", "must be between 1 and 100 (whole percent) for a percentage discount, not %d", *v)
		case *s.DiscountValueType == models.DiscountFixedAmount && (*v < 1 || *v > maxDiscountCents):
			return apperr.InvalidField(at+".discount_value", "must be between 1 and %d (minor units) for a fixed_amount discount, not %d", int64(maxDiscountCents), *v)
		}
		s.DiscountValue = intPtr(*v)
	}
	return nil
}

func intPtr(v int64) *int {
	n := int(v)
	return &n
}

// int64Ptr is a policy's optional number as the schema's Int.
func int64Ptr(v *int) *int64 {
	if v == nil {
		return nil
	}
	n := int64(*v)
	return &n
}
