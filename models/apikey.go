package models

import (
	"context"
	"time"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/pgdialect"
)

// Key statuses, derived from the timestamps: revoked wins over expired.
const (
	KeyActive  = "active"
	KeyExpired = "expired"
	KeyRevoked = "revoked"
)

// KeyStatus is the status of a key at now.
func KeyStatus(revokedAt, expiresAt *time.Time, now time.Time) string {
	switch {
	case revokedAt != nil:
		return KeyRevoked
	case expiresAt != nil && !now.Before(*expiresAt):
		return KeyExpired
	}
	return KeyActive
}

// APIKey is a store API key. Only the hash of its secret is stored.
type APIKey struct {
	bun.BaseModel `bun:"table:api_keys"`

	ID         int64      `bun:"id,pk,autoincrement" json:"id"`
	StoreID    int64      `bun:"store_id" json:"-"`
	Name       string     `bun:"name" json:"name"`
	Role       string     `bun:"role" json:"role"`
	Scopes     []string   `bun:"scopes,array" json:"scopes"`
	SecretHash []byte     `bun:"secret_hash" json:"-"`
	Hint       string     `bun:"hint" json:"hint"`
	CreatedBy  int64      `bun:"created_by" json:"created_by"`
	CreatedAt  time.Time  `bun:"created_at,nullzero,default:now()" json:"created_at"`
	ExpiresAt  *time.Time `bun:"expires_at" json:"expires_at"`
	RevokedAt  *time.Time `bun:"revoked_at" json:"revoked_at"`
	LastUsedAt *time.Time `bun:"last_used_at" json:"last_used_at"`

	// Key is the full secret, set only on the value CreateAPIKey returns.
	Key *string `bun:"-" json:"key"`
}

// CreateAPIKey stores k; the caller has set the hash and hint.
func CreateAPIKey(ctx context.Context, db bun.IDB, k *APIKey) error {
	if k.Scopes == nil {
		k.Scopes = []string{}
	}
	_, err := db.NewInsert().Model(k).Returning("*").Exec(ctx)
	return classify(err, "the API key")
}

// ListAPIKeys lists a store's keys, newest first.
func ListAPIKeys(ctx context.Context, db bun.IDB, storeID int64, p Paging) ([]APIKey, error) {
	var out []APIKey
	q := db.NewSelect().Model(&out).Where("store_id = ?", storeID).Order("id DESC")
	err := scanRows(ctx, db, p.Apply(q), &out)
	return out, err
}

// CountAPIKeys counts a store's keys.
func CountAPIKeys(ctx context.Context, db bun.IDB, storeID int64) (int64, error) {
	return db.NewSelect().Model((*APIKey)(nil)).Where("store_id = ?", storeID).Count(ctx)
}

// RevokeAPIKey sets revoked_at (once) and returns the key.
func RevokeAPIKey(ctx context.Context, db bun.IDB, storeID, id int64) (*APIKey, error) {
	k := new(APIKey)
	_, err := db.NewUpdate().Model(k).Set("revoked_at = coalesce(revoked_at, now())").
		Where("store_id = ? AND id = ?", storeID, id).Returning("*").Exec(ctx)
	if err == nil && k.ID == 0 {
		return nil, classify(errNoRows, "the API key")
	}
	return k, classify(err, "the API key")
}

// APIKeyBySecretHash finds the key whose secret hashes to hash.
func APIKeyBySecretHash(ctx context.Context, db bun.IDB, hash []byte) (*APIKey, error) {
	k := new(APIKey)
	err := db.NewSelect().Model(k).Where("secret_hash = ?", hash).Scan(ctx)
	return k, err
}

// TouchAPIKeys records when keys were last used: at[id] for each key id,
// in one statement however many.
func TouchAPIKeys(ctx context.Context, db bun.IDB, at map[int64]time.Time) error {
	ids := make([]int64, 0, len(at))
	times := make([]time.Time, 0, len(at))
	for id, t := range at {
		ids = append(ids, id)
		times = append(times, t)
	}
	_, err := db.NewRaw(`UPDATE api_keys AS k SET last_used_at = u.at
		FROM unnest(?::bigint[], ?::timestamptz[]) AS u (id, at) WHERE k.id = u.id`,
		pgdialect.Array(ids), pgdialect.Array(times)).Exec(ctx)
	return err
}
