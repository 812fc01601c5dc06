package resolvers

import (
	"context"

	"storeadmin/graph"
	"storeadmin/internal/audit"
	"storeadmin/internal/auth"
	"storeadmin/models"
)

func (r *aPIKeyResolver) Status(ctx context.Context, obj *models.APIKey) (string, error) {
	return models.KeyStatus(obj.RevokedAt, obj.ExpiresAt, r.Now()), nil
}

func (r *mCPActivityResolver) KeyName(ctx context.Context, obj *models.MCPActivity) (string, error) {
	l, err := graph.LoadersFrom(ctx)
	if err != nil {
		return "", err
	}
	k, err := l.MCPKeyByID.Load(ctx, obj.KeyID)()
	if err != nil || k == nil {
		return "", err
	}
	return k.Name, nil
}

func (r *mCPKeyResolver) Status(ctx context.Context, obj *models.MCPKey) (string, error) {
	return models.KeyStatus(obj.RevokedAt, obj.ExpiresAt, r.Now()), nil
}

func (r *mCPKeyResolver) CreatedByEmail(ctx context.Context, obj *models.MCPKey) (*string, error) {
	if obj.CreatedBy == 0 {
		return nil, nil
	}
	l, err := graph.LoadersFrom(ctx)
	if err != nil {
		return nil, err
	}
	u, err := l.UserByID.Load(ctx, obj.CreatedBy)()
	if err != nil || u == nil {
		return nil, err
	}
	return &u.Email, nil
}

func (r *mutationResolver) CreateAPIKey(ctx context.Context, input graph.APIKeyInput) (*models.APIKey, error) {
	sid, err := storeID(ctx)
	if err != nil {
		return nil, err
	}
	role, err := r.grantableRole(ctx, input.Role)
	if err != nil {
		return nil, err
	}
	k, err := NewAPIKey(sid, input.Name, role, input.Scopes, input.ExpiresAt, r.Now())
	if err != nil {
		return nil, err
	}
	k.CreatedBy = auth.PrincipalFrom(ctx).ActorID
	if err := models.CreateAPIKey(ctx, r.DB, k); err != nil {
		return nil, err
	}
	audit.Touch(ctx, "api_key", k.ID)
	return k, nil
}

func (r *mutationResolver) RevokeAPIKey(ctx context.Context, id int64) (*models.APIKey, error) {
	sid, err := storeID(ctx)
	if err != nil {
		return nil, err
	}
	k, err := models.RevokeAPIKey(ctx, r.DB, sid, id)
	if err != nil {
		return nil, err
	}
	audit.Touch(ctx, "api_key", k.ID)
	return k, nil
}

func (r *mutationResolver) DisconnectMcpKey(ctx context.Context, id int64) (*models.MCPKey, error) {
	sid, err := storeID(ctx)
	if err != nil {
		return nil, err
	}
	k, err := models.RevokeMCPKey(ctx, r.DB, sid, id)
	if err != nil {
		return nil, err
	}
	audit.Touch(ctx, "mcp_key", k.ID)
	return k, nil
}

func (r *queryResolver) APIKeys(ctx context.Context, limit *int64, offset *int64) ([]models.APIKey, error) {
	sid, err := storeID(ctx)
	if err != nil {
		return nil, err
	}
	p, err := models.NewPage(limit, offset)
	if err != nil {
		return nil, err
	}
	return models.ListAPIKeys(ctx, r.DB, sid, p)
}

func (r *queryResolver) APIKeysCount(ctx context.Context) (int64, error) {
	sid, err := storeID(ctx)
	if err != nil {
		return 0, err
	}
	return models.CountAPIKeys(ctx, r.DB, sid)
}

func (r *queryResolver) APIKeyScopeActions(ctx context.Context) ([]string, error) {
	return auth.Actions, nil
}

func (r *queryResolver) APIKeyScopeResources(ctx context.Context) ([]auth.Resource, error) {
	return auth.Resources, nil
}

func (r *queryResolver) McpEndpoint(ctx context.Context) (string, error) {
	return r.MCPEndpoint, nil
}

func (r *queryResolver) McpKeys(ctx context.Context, limit *int64, offset *int64) ([]models.MCPKey, error) {
	sid, err := storeID(ctx)
	if err != nil {
		return nil, err
	}
	p, err := models.NewPage(limit, offset)
	if err != nil {
		return nil, err
	}
	return models.ListMCPKeys(ctx, r.DB, sid, p)
}

func (r *queryResolver) McpActivity(ctx context.Context, limit *int64, offset *int64) ([]models.MCPActivity, error) {
	sid, err := storeID(ctx)
	if err != nil {
		return nil, err
	}
	p, err := models.NewPage(limit, offset)
	if err != nil {
		return nil, err
	}
	return models.ListMCPActivity(ctx, r.DB, sid, p)
}

func (r *queryResolver) McpPresets(ctx context.Context) ([]models.MCPPreset, error) {
	return models.MCPPresets, nil
}

func (r *Resolver) APIKey() graph.APIKeyResolver { return &aPIKeyResolver{r} }

func (r *Resolver) MCPActivity() graph.MCPActivityResolver { return &mCPActivityResolver{r} }

func (r *Resolver) MCPKey() graph.MCPKeyResolver { return &mCPKeyResolver{r} }

type aPIKeyResolver struct{ *Resolver }
type mCPActivityResolver struct{ *Resolver }
type mCPKeyResolver struct{ *Resolver }
