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

// flushGrace bounds a background write of last_used_at.
const flushGrace = 5 * time.Second

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
	log  *slog.Logger
	keys *keyCache
	stop context.CancelFunc
	// listened and written are closed when the listener and the writer of
	// last_used_at have stopped.
	listened <-chan struct{}
	written  chan struct{}

	mu      sync.Mutex
	touched map[int64]time.Time // when this process last wrote each key's last_used_at
	// pending are the uses of cached keys due to be written, and due wakes
	// the writer.
	pending map[int64]time.Time
	due     chan struct{}
}

// NewAuthenticator returns an authenticator reading keys from db and
// starts its listener (connected, unless the database refuses) and its
// writer of last_used_at; Close stops them.
func NewAuthenticator(db *bun.DB, now func() time.Time, log *slog.Logger) *Authenticator {
	ctx, stop := context.WithCancel(context.Background())
	a := &Authenticator{
		db: db, now: now, log: log, keys: newKeyCache(), stop: stop, written: make(chan struct{}),
		touched: map[int64]time.Time{}, pending: map[int64]time.Time{}, due: make(chan struct{}, 1),
	}
	a.listened = startListener(ctx, db.DB, a.keys, log)
	go func() {
		defer close(a.written)
		a.writeUses(ctx)
	}()
	return a
}

// Close stops the listener, closing its connection, and writes the uses
// not yet written.
func (a *Authenticator) Close() {
	a.stop()
	<-a.listened
	<-a.written
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
	if IsPublishable(secret) {
		return nil, errPublishable
	}
	k, err := a.activeKey(ctx, secret)
	if err != nil {
		return nil, err
	}
	if Role(k.Role) == RolePublishable {
		return nil, errPublishable
	}
	return &Principal{Kind: KindAPIKey, StoreID: k.StoreID, ActorID: k.ID, Role: Role(k.Role), Scopes: k.Scopes}, nil
}

// errPublishable refuses a storefront key on the admin API.
var errPublishable = apperr.New(apperr.Unauthenticated, "a publishable storefront key (sa_pub_...) opens only /storefront/v1; the admin API needs a secret API key")

// errNotPublishable refuses a secret API key on the storefront surface: a
// key that reads admin data must never travel in a shopper's browser.
var errNotPublishable = apperr.New(apperr.Unauthenticated, "the storefront surface takes only a publishable storefront key (sa_pub_...); never put a secret API key in a browser")

// AuthenticateStorefront checks a publishable storefront key's secret (the
// storefront surface's credential) and returns its principal. Anything
// else, a secret API key included, is Unauthenticated.
func (a *Authenticator) AuthenticateStorefront(ctx context.Context, secret string) (*Principal, error) {
	if secret == "" {
		return nil, apperr.New(apperr.Unauthenticated, "a publishable storefront key is required: send X-Storefront-Key: sa_pub_...")
	}
	if !IsPublishable(secret) {
		return nil, errNotPublishable
	}
	k, err := a.activeKey(ctx, secret)
	if err != nil {
		return nil, err
	}
	if Role(k.Role) != RolePublishable {
		return nil, errNotPublishable
	}
	return &Principal{Kind: KindStorefront, StoreID: k.StoreID, ActorID: k.ID, Role: RolePublishable, Scopes: Scopes{}}, nil
}

// activeKey is the active key of secret, its use recorded.
func (a *Authenticator) activeKey(ctx context.Context, secret string) (*models.APIKey, error) {
	k, cached, err := a.key(ctx, HashSecret(secret))
	if err != nil {
		return nil, err
	}
	now := a.now()
	if models.KeyStatus(k.RevokedAt, k.ExpiresAt, now) != models.KeyActive {
		return nil, errKeyNotValid
	}
	if err := a.touch(ctx, k, now, cached); err != nil {
		return nil, err
	}
	return k, nil
}

// key is the key whose secret hashes to hash: the cached row when the
// cache can vouch for it (cached), otherwise the stored one, which is cached
// when active. Unknown, revoked and expired secrets are never cached, so
// made-up secrets cost a read each and no memory; a cached key's expiry is
// a matter of the clock, checked on every request.
func (a *Authenticator) key(ctx context.Context, hash []byte) (k *models.APIKey, cached bool, err error) {
	if k := a.keys.current(ctx, hash); k != nil {
		return k, true, nil
	}
	gen := a.keys.generation()
	k, err = models.APIKeyBySecretHash(ctx, a.db, hash)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, false, errKeyNotValid
	}
	if err != nil {
		return nil, false, err
	}
	if models.KeyStatus(k.RevokedAt, k.ExpiresAt, a.now()) == models.KeyActive {
		a.keys.add(hash, k, gen)
	}
	return k, false, nil
}

// touch records a use of k at now when its last_used_at is older than
// touchEvery. A key read from the database for this request is written
// here: the request has paid a statement already, and the key list shows a
// first use as soon as the call has answered. A cached key's use is handed
// to writeUses, off the request's path.
func (a *Authenticator) touch(ctx context.Context, k *models.APIKey, now time.Time, cached bool) error {
	a.mu.Lock()
	last, seen := a.touched[k.ID]
	if !seen && k.LastUsedAt != nil {
		last, seen = *k.LastUsedAt, true
	}
	due := !seen || now.Sub(last) >= touchEvery
	if due {
		a.touched[k.ID] = now
		if cached {
			a.pending[k.ID] = now
		}
	}
	a.mu.Unlock()
	switch {
	case !due:
		return nil
	case cached:
		select {
		case a.due <- struct{}{}:
		default: // the writer is already due to run
		}
		return nil
	}
	return models.TouchAPIKeys(ctx, a.db, map[int64]time.Time{k.ID: now})
}

// writeUses writes the pending uses of cached keys as they come, in one
// statement for all that are waiting, until ctx ends, and then the last.
func (a *Authenticator) writeUses(ctx context.Context) {
	for {
		select {
		case <-a.due:
			a.writePending(ctx)
		case <-ctx.Done():
			a.writePending(ctx)
			return
		}
	}
}

// writePending writes the pending uses. Closing does not cancel a write
// under way (the uses would be lost): each has flushGrace.
func (a *Authenticator) writePending(ctx context.Context) {
	a.mu.Lock()
	uses := a.pending
	a.pending = map[int64]time.Time{}
	a.mu.Unlock()
	if len(uses) == 0 {
		return
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), flushGrace)
	defer cancel()
	if err := models.TouchAPIKeys(ctx, a.db, uses); err != nil {
		a.log.Warn("recording when API keys were last used", "error", err, "keys", len(uses))
	}
}
