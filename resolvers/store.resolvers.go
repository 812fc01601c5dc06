package resolvers

import (
	"context"

	"storeadmin/graph"
	"storeadmin/internal/apperr"
	"storeadmin/internal/audit"
	"storeadmin/internal/auth"
	"storeadmin/models"
)

func (r *mutationResolver) UpdateStore(ctx context.Context, input graph.StoreUpdateInput) (*models.Store, error) {
	sid, err := storeID(ctx)
	if err != nil {
		return nil, err
	}
	s, err := models.GetStore(ctx, r.DB, sid)
	if err != nil {
		return nil, err
	}
	columns, err := applyStoreUpdate(s, input)
	if err != nil {
		return nil, err
	}
	if len(columns) > 0 {
		if err := models.UpdateStore(ctx, r.DB, s, columns...); err != nil {
			return nil, err
		}
	}
	audit.Touch(ctx, "store", s.ID)
	return s, nil
}

func (r *mutationResolver) SetStorefrontEnabled(ctx context.Context, enabled bool) (*models.Store, error) {
	s, err := r.openStore(ctx)
	if err != nil {
		return nil, err
	}
	s.StorefrontEnabled = enabled
	if err := models.UpdateStore(ctx, r.DB, s, "storefront_enabled"); err != nil {
		return nil, err
	}
	audit.Touch(ctx, "store", s.ID)
	return s, nil
}

func (r *mutationResolver) CloseStore(ctx context.Context) (*models.Store, error) {
	s, err := r.openStore(ctx)
	if err != nil {
		return nil, err
	}
	now := r.Now()
	s.Status, s.StorefrontEnabled, s.ClosedAt = models.StoreClosed, false, &now
	if err := models.UpdateStore(ctx, r.DB, s, "status", "storefront_enabled", "closed_at"); err != nil {
		return nil, err
	}
	audit.Touch(ctx, "store", s.ID)
	return s, nil
}

func (r *queryResolver) Store(ctx context.Context) (*models.Store, error) {
	sid, err := storeID(ctx)
	if err != nil {
		return nil, err
	}
	return models.GetStore(ctx, r.DB, sid)
}

func (r *queryResolver) CurrentRole(ctx context.Context) (string, error) {
	if _, err := storeID(ctx); err != nil {
		return "", err
	}
	return string(auth.PrincipalFrom(ctx).Role), nil
}

func (r *queryResolver) CurrentStoreID(ctx context.Context) (int64, error) {
	return storeID(ctx)
}

// openStore reads the caller's store and refuses changes to a closed one.
func (r *Resolver) openStore(ctx context.Context) (*models.Store, error) {
	sid, err := storeID(ctx)
	if err != nil {
		return nil, err
	}
	s, err := models.GetStore(ctx, r.DB, sid)
	if err != nil {
		return nil, err
	}
	if s.Status == models.StoreClosed {
		return nil, apperr.Conflictf("the store is closed")
	}
	return s, nil
}
