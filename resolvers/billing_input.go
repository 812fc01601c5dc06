package resolvers

import (
	"context"
	"regexp"

	"github.com/uptrace/bun"

	"storeadmin/graph"
	"storeadmin/internal/audit"
	"storeadmin/internal/base/apperr"
	"storeadmin/models"
)

// setupIntentPattern is a setup intent's id as Stripe-compatible providers
// write it: seti_ and letters, digits or underscores.
var setupIntentPattern = regexp.MustCompile(`^seti_[A-Za-z0-9_]{1,250}$`)

// setupIntentID checks the id of a setup intent before it goes into the
// provider's URL.
func setupIntentID(v string) (string, error) {
	if !setupIntentPattern.MatchString(v) {
		return "", apperr.InvalidField("setup_intent_id", "must be the id of a setup intent, seti_ and letters or digits (the provider's form reports it)")
	}
	return v, nil
}

// subscription is the store's subscription as the operation reads it: its
// root fields (the subscription, its plan, the accrued fees) share one read.
func (r *Resolver) subscription(ctx context.Context) (*models.BillingSubscription, error) {
	return inStore(ctx, func(sid int64) (*models.BillingSubscription, error) {
		return graph.SharedRead(ctx, "billingSubscription", func() (*models.BillingSubscription, error) {
			return models.GetBillingSubscription(ctx, r.db(ctx), sid, r.Now())
		})
	})
}

// changeSubscription runs a change of the store's subscription in one
// transaction and notes it in the audit log.
func (r *Resolver) changeSubscription(ctx context.Context, change func(tx bun.Tx, storeID int64) (*models.BillingSubscription, error)) (*models.BillingSubscription, error) {
	sid, err := storeID(ctx)
	if err != nil {
		return nil, err
	}
	var s *models.BillingSubscription
	err = r.db(ctx).RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		s, err = change(tx, sid)
		return err
	})
	if err != nil {
		return nil, err
	}
	audit.Touch(ctx, "billing_subscription", s.ID)
	return s, nil
}
