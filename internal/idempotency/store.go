package idempotency

import (
	"bytes"
	"context"
	"crypto/rand"
	"database/sql"
	"errors"
	"time"

	"github.com/uptrace/bun"
)

// scope names one key: keys are per store and per credential.
type scope struct {
	storeID   int64
	actorType string
	actorID   int64
	key       string
}

type state int

const (
	acquired   state = iota // this request holds the reservation: run it
	replay                  // an answer is stored: send it again
	mismatch                // the key belongs to another request
	inProgress              // the first request is still running
)

type reservation struct {
	state       state
	token       []byte // acquired: what proves the reservation is ours
	status      int    // replay
	contentType string // replay
	body        []byte // replay
}

// reserve claims the key for a request of fingerprint fp, or says why not.
// The claim is one statement: a new key is inserted; an expired row, or a
// reservation of the same request older than Abandoned, is taken over; any
// other existing row is left alone and read.
func reserve(ctx context.Context, db bun.IDB, id scope, fp []byte, now time.Time) (*reservation, error) {
	token := make([]byte, 16)
	if _, err := rand.Read(token); err != nil {
		return nil, err
	}
	// A row can vanish between the claim and the read (its request failed
	// and released it): claim again. Twice more is plenty; after that the
	// key is busy.
	for range 3 {
		res, err := db.NewRaw(`
			INSERT INTO idempotency_keys AS k
				(store_id, actor_type, api_key_id, key, fingerprint, lock_token, status_code, content_type, body, created_at, expires_at)
			VALUES (?, ?, ?, ?, ?, ?, 0, '', NULL, ?, ?)
			ON CONFLICT (store_id, actor_type, api_key_id, key) DO UPDATE SET
				fingerprint = EXCLUDED.fingerprint, lock_token = EXCLUDED.lock_token, status_code = 0,
				content_type = '', body = NULL, created_at = EXCLUDED.created_at, expires_at = EXCLUDED.expires_at
			WHERE k.expires_at <= EXCLUDED.created_at
				OR (k.status_code = 0 AND k.created_at <= ? AND k.fingerprint = EXCLUDED.fingerprint)`,
			id.storeID, id.actorType, id.actorID, id.key, fp, token, now, now.Add(Retention), now.Add(-Abandoned),
		).Exec(ctx)
		if err != nil {
			return nil, err
		}
		if n, err := res.RowsAffected(); err != nil {
			return nil, err
		} else if n == 1 {
			return &reservation{state: acquired, token: token}, nil
		}

		var (
			storedFP    []byte
			status      int
			contentType string
			body        []byte
		)
		err = db.NewRaw(`
			SELECT fingerprint, status_code, content_type, body FROM idempotency_keys
			WHERE store_id = ? AND actor_type = ? AND api_key_id = ? AND key = ?`,
			id.storeID, id.actorType, id.actorID, id.key,
		).Scan(ctx, &storedFP, &status, &contentType, &body)
		if errors.Is(err, sql.ErrNoRows) {
			continue
		}
		if err != nil {
			return nil, err
		}
		switch {
		case !bytes.Equal(storedFP, fp):
			return &reservation{state: mismatch}, nil
		case status == 0:
			return &reservation{state: inProgress}, nil
		}
		if body == nil {
			body = []byte{}
		}
		return &reservation{state: replay, status: status, contentType: contentType, body: body}, nil
	}
	return &reservation{state: inProgress}, nil
}

// complete stores the answer of the request holding the reservation token.
// It does nothing if the reservation was taken over meanwhile.
func complete(ctx context.Context, db bun.IDB, id scope, token []byte, status int, contentType string, body []byte) error {
	if body == nil {
		body = []byte{}
	}
	_, err := db.NewRaw(`
		UPDATE idempotency_keys SET status_code = ?, content_type = ?, body = ?
		WHERE store_id = ? AND actor_type = ? AND api_key_id = ? AND key = ? AND lock_token = ? AND status_code = 0`,
		status, contentType, body, id.storeID, id.actorType, id.actorID, id.key, token,
	).Exec(ctx)
	return err
}

// release deletes the reservation token holds, so that a retry runs again.
func release(ctx context.Context, db bun.IDB, id scope, token []byte) error {
	_, err := db.NewRaw(`
		DELETE FROM idempotency_keys
		WHERE store_id = ? AND actor_type = ? AND api_key_id = ? AND key = ? AND lock_token = ? AND status_code = 0`,
		id.storeID, id.actorType, id.actorID, id.key, token,
	).Exec(ctx)
	return err
}

// Sweep deletes the keys expired at now (stored answers older than
// Retention, and reservations abandoned that long ago) and says how many.
// The middleware ignores expired rows, so Sweep only reclaims space.
func Sweep(ctx context.Context, db bun.IDB, now time.Time) (int64, error) {
	res, err := db.NewRaw(`DELETE FROM idempotency_keys WHERE expires_at <= ?`, now).Exec(ctx)
	if err != nil {
		return 0, err
	}
	return res.RowsAffected()
}
