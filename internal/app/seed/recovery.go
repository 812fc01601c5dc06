package seed

import (
	"context"
	"time"

	"github.com/uptrace/bun"

	customdomains "storeadmin/internal/domains"
	"storeadmin/internal/recovery"
	"storeadmin/models"
)

// seedPublicURL is where the seeded reminders' links lead: serve's
// default address (the seed does not know the serving process's).
const seedPublicURL = "http://127.0.0.1:8080"

// seedRecoveryPolicy is the demo's policy, not the default: carts get
// three reminders, the last with 10% off for three days; checkouts, whose
// shoppers got further, are reminded sooner and get 5.00 off from the
// second reminder, for two days.
func seedRecoveryPolicy() models.RecoveryPolicy {
	on, cartStep, cartTTL, cartValue, percentage := true, 3, 72, 10, models.DiscountPercentage
	coStep, coTTL, coValue, fixed := 2, 48, 500, models.DiscountFixedAmount
	return models.RecoveryPolicy{
		Cart: models.RecoverySurface{Mode: models.RecoveryEmail, IdleMinutes: 60, DelaysMinutes: []int{60, 1440, 4320},
			DiscountEnabled: &on, DiscountFromStep: &cartStep, DiscountTTLHours: &cartTTL, DiscountValue: &cartValue, DiscountValueType: &percentage},
		Checkout: models.RecoverySurface{Mode: models.RecoveryEmail, IdleMinutes: 30, DelaysMinutes: []int{30, 720, 2880},
			DiscountEnabled: &on, DiscountFromStep: &coStep, DiscountTTLHours: &coTTL, DiscountValue: &coValue, DiscountValueType: &fixed},
	}
}

// recoveryReminders seeds the store's recovery policy and plays its
// reminder sequence over the seeded abandoned carts and checkouts of the
// last models.RecoveryHorizon, hour by hour, through recovery's RunDue,
// the function serve's periodic run calls: each reminder is recorded near
// its time, with its discount code, and its mail goes to the outbox
// (seeding sends nothing). A store that has a policy is left alone.
func recoveryReminders(ctx context.Context, tx bun.Tx, storeID int64, now time.Time) error {
	has, err := models.HasRecoveryPolicy(ctx, tx, storeID)
	if err != nil || has {
		return err
	}
	if err := models.PutRecoveryPolicy(ctx, tx, storeID, seedRecoveryPolicy()); err != nil {
		return err
	}
	reminders, err := recovery.Open(ctx, tx, "", customdomains.DefaultPlatformDomain, seedPublicURL, nil)
	if err != nil {
		return err
	}
	for at := now.Add(-models.RecoveryHorizon).Truncate(time.Hour); !at.After(now); at = at.Add(time.Hour) {
		if _, err := reminders.RunDue(ctx, tx, storeID, at); err != nil {
			return err
		}
	}
	return nil
}
