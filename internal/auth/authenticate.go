package auth

import (
	"context"
	"database/sql"
	"errors"
	"sync"
	"time"

	"github.com/uptrace/bun"

	"storeadmin/internal/base/apperr"
	"storeadmin/models"
)

// touchEvery bounds how often a key's last_used_at is written: a busy key
// must not turn every read into a write.
const touchEvery = time.Minute

// Authenticator turns a bearer secret into a principal.
//
// Keys are looked up on every request (one indexed read): a revoked or
// expired key stops working at once, even when another process revoked it.
type Authenticator struct {
	db  bun.IDB
	now func() time.Time

	mu      sync.Mutex
	touched map[int64]time.Time
}

// NewAuthenticator returns an authenticator reading keys from db.
func NewAuthenticator(db bun.IDB, now func() time.Time) *Authenticator {
	return &Authenticator{db: db, now: now, touched: map[int64]time.Time{}}
}

// errKeyNotValid is the one answer for an unknown, revoked or expired key:
// whoever holds a secret learns nothing about the key it names (that it
// existed, or when it stopped working); the key's owner sees its status in
// the key list.
var errKeyNotValid = apperr.New(apperr.Unauthenticated, "this API key is not valid: it is unknown, revoked or expired")

// Authenticate checks an Authorization header value. It answers an
// Unauthenticated error for a missing, unknown, revoked or expired key.
func (a *Authenticator) Authenticate(ctx context.Context, header string) (*Principal, error) {
	if header == "" {
		return nil, apperr.New(apperr.Unauthenticated, "an API key is required: send Authorization: Bearer <key>")
	}
	secret, ok := BearerToken(header)
	if !ok {
		return nil, apperr.New(apperr.Unauthenticated, "the Authorization header must be: Bearer <key>")
	}
	k, err := models.APIKeyBySecretHash(ctx, a.db, HashSecret(secret))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, errKeyNotValid
	}
	if err != nil {
		return nil, err
	}
	now := a.now()
	if models.KeyStatus(k.RevokedAt, k.ExpiresAt, now) != models.KeyActive {
		return nil, errKeyNotValid
	}
	if err := a.touch(ctx, k, now); err != nil {
		return nil, err
	}
	return &Principal{Kind: KindAPIKey, StoreID: k.StoreID, ActorID: k.ID, Role: Role(k.Role), Scopes: k.Scopes}, nil
}

// touch writes last_used_at when it is older than touchEvery, both in the
// database (other replicas) and here (this process).
func (a *Authenticator) touch(ctx context.Context, k *models.APIKey, now time.Time) error {
	a.mu.Lock()
	last, seen := a.touched[k.ID]
	if !seen && k.LastUsedAt != nil {
		last, seen = *k.LastUsedAt, true
	}
	due := !seen || now.Sub(last) >= touchEvery
	if due {
		a.touched[k.ID] = now
	}
	a.mu.Unlock()
	if !due {
		return nil
	}
	return models.TouchAPIKey(ctx, a.db, k.ID, now)
}
