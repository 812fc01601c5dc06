package auth

import (
	"strings"
	"time"
	"unicode/utf8"

	"storeadmin/internal/base/apperr"
	"storeadmin/models"
)

// maxKeyName is the longest key name, in characters.
const maxKeyName = 100

// NewAPIKey checks the parts of a new key and returns it with a fresh
// secret in Key (only its hash is stored). The dashboard (createApiKey), the
// command line, serve's demo key and the test harness all make keys
// through it, so the rules are the same for every caller.
func NewAPIKey(storeID int64, name string, role Role, scopes []string, expiresAt *time.Time, now time.Time) (*models.APIKey, error) {
	name = strings.TrimSpace(name)
	if name == "" {
		return nil, apperr.Invalidf("name must not be empty")
	}
	if utf8.RuneCountInString(name) > maxKeyName {
		return nil, apperr.Invalidf("name must be at most %d characters", maxKeyName)
	}
	if role != RoleAdmin && role != RoleStaff {
		return nil, apperr.Invalidf("role must be admin or staff")
	}
	granted, err := ParseScopes(scopes)
	if err != nil {
		return nil, err
	}
	if expiresAt != nil && !expiresAt.After(now) {
		return nil, apperr.Invalidf("expires_at must be in the future")
	}
	secret, hash, hint := NewSecret("api")
	return &models.APIKey{
		StoreID: storeID, Name: name, Role: string(role), Scopes: granted,
		SecretHash: hash, Hint: hint, ExpiresAt: expiresAt, Key: &secret,
	}, nil
}

// NewPublishableKey returns a new publishable storefront key of the store
// with a fresh secret (sa_pub_...) in Key. Its role is publishable and it
// holds no scope: the storefront surface accepts it, the admin API never.
func NewPublishableKey(storeID int64, name string, expiresAt *time.Time, now time.Time) (*models.APIKey, error) {
	name = strings.TrimSpace(name)
	if name == "" {
		return nil, apperr.Invalidf("name must not be empty")
	}
	if utf8.RuneCountInString(name) > maxKeyName {
		return nil, apperr.Invalidf("name must be at most %d characters", maxKeyName)
	}
	if expiresAt != nil && !expiresAt.After(now) {
		return nil, apperr.Invalidf("expires_at must be in the future")
	}
	secret, hash, hint := NewSecret(PublishableKind)
	return &models.APIKey{
		StoreID: storeID, Name: name, Role: string(RolePublishable), Scopes: Scopes{},
		SecretHash: hash, Hint: hint, ExpiresAt: expiresAt, Key: &secret,
	}, nil
}
