package resolvers

import (
	"time"

	"storeadmin/internal/apperr"
	"storeadmin/internal/auth"
	"storeadmin/models"
)

// NewAPIKey checks the parts of a new key and returns it with a fresh
// secret in Key. The dashboard (createApiKey) and the command line both make
// keys through it, so the rules are the same.
func NewAPIKey(storeID int64, name string, role auth.Role, scopes []string, expiresAt *time.Time, now time.Time) (*models.APIKey, error) {
	name, err := text("name", name, 100, true)
	if err != nil {
		return nil, err
	}
	if role != auth.RoleAdmin && role != auth.RoleStaff {
		return nil, apperr.Invalidf("role must be admin or staff")
	}
	granted, err := auth.ParseScopes(scopes)
	if err != nil {
		return nil, err
	}
	if expiresAt != nil && !expiresAt.After(now) {
		return nil, apperr.Invalidf("expires_at must be in the future")
	}
	secret, hash, hint := auth.NewSecret("api")
	return &models.APIKey{
		StoreID: storeID, Name: name, Role: string(role), Scopes: granted,
		SecretHash: hash, Hint: hint, ExpiresAt: expiresAt, Key: &secret,
	}, nil
}
