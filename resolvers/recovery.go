package resolvers

import (
	"context"

	"storeadmin/internal/audit"
	"storeadmin/internal/base/apperr"
)

// resend sends one extra recovery reminder about the store's cart or
// checkout (kind) with token now (recovery.Service.Resend).
func (r *Resolver) resend(ctx context.Context, kind, token string) (bool, error) {
	sid, err := storeID(ctx)
	if err != nil {
		return false, err
	}
	if r.Recovery == nil {
		return false, apperr.New(apperr.Internal, "recovery reminders are not configured")
	}
	m, err := r.Recovery.Resend(ctx, r.db(ctx), kind, sid, token, r.Now())
	if err != nil {
		return false, err
	}
	audit.Touch(ctx, "recovery_message", m.ID)
	return true, nil
}
