package resolvers

import (
	"context"

	"storeadmin/internal/auth"
	"storeadmin/internal/base/apperr"
	"storeadmin/models"
)

// grantableRole checks a role the caller hands to someone else: a known key
// role, and no more than the caller's own.
func (r *Resolver) grantableRole(ctx context.Context, s string) (auth.Role, error) {
	role, err := auth.ParseKeyRole(s)
	if err != nil {
		return "", err
	}
	if p := auth.PrincipalFrom(ctx); p == nil || !p.Role.Includes(role) {
		return "", apperr.Forbiddenf("you cannot grant the %s role: it is above your own", role)
	}
	return role, nil
}

// openStore reads the caller's store for a change, refusing a closed one
// before the change's input is checked; models.UpdateStore holds the rule
// against a close that commits in between.
func (r *Resolver) openStore(ctx context.Context) (*models.Store, error) {
	sid, err := storeID(ctx)
	if err != nil {
		return nil, err
	}
	s, err := models.GetStore(ctx, r.db(ctx), sid)
	if err != nil {
		return nil, err
	}
	if s.Status == models.StoreClosed {
		return nil, apperr.Conflictf("the store is closed")
	}
	return s, nil
}
