package auth

import (
	"context"
	"database/sql"
	"errors"
	"log/slog"
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
// It keeps the keys it has read in memory (keyCache) and answers from there
// only after proving the entry current with a round trip on a connection of
// its own that listens for the api_keys trigger's notices: a key revoked,
// expired, changed or deleted by any process stops working on the next
// request that starts after the change committed, without a statement per
// request. Without that connection every request reads its key.
type Authenticator struct {
	db   bun.IDB
	now  func() time.Time
	keys *keyCache
	stop context.CancelFunc
	done chan struct{}

	mu      sync.Mutex
	touched map[int64]time.Time
}

// NewAuthenticator returns an authenticator reading keys from db and
// starts its listener; Close stops it.
func NewAuthenticator(db *bun.DB, now func() time.Time, log *slog.Logger) *Authenticator {
	ctx, stop := context.WithCancel(context.Background())
	a := &Authenticator{db: db, now: now, keys: newKeyCache(), stop: stop, done: make(chan struct{}), touched: map[int64]time.Time{}}
	go func() {
		defer close(a.done)
		listen(ctx, db.DB, a.keys, log)
	}()
	return a
}

// Close stops the listener and closes its connection.
func (a *Authenticator) Close() {
	a.stop()
	<-a.done
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
	k, err := a.key(ctx, HashSecret(secret))
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

// key is the key whose secret hashes to hash: the cached row when the
// cache can vouch for it, otherwise the stored one, which is cached when
// active (unknown and revoked secrets are never cached, so made-up secrets
// cost a read each and no memory). An expired key is cached until it is
// asked for: expiry is a matter of the clock, checked on every request.
func (a *Authenticator) key(ctx context.Context, hash []byte) (*models.APIKey, error) {
	if k := a.keys.current(ctx, hash); k != nil {
		return k, nil
	}
	gen := a.keys.generation()
	k, err := models.APIKeyBySecretHash(ctx, a.db, hash)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, errKeyNotValid
	}
	if err != nil {
		return nil, err
	}
	if models.KeyStatus(k.RevokedAt, k.ExpiresAt, a.now()) == models.KeyActive {
		a.keys.add(hash, k, gen)
	}
	return k, nil
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
