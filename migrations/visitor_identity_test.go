package migrations_test

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"storeadmin/internal/testkit/testdb"
)

// TestVisitorIdentityBackfillAndTriggers: migration 20261125010000 gives
// each visitor the latest email of its carts and checkouts, identified at
// the earliest of them (an earlier identification stays), for the records
// written before it, and its triggers do the same for every write after;
// a write that changes neither the email nor the visitor identifies no one.
func TestVisitorIdentityBackfillAndTriggers(t *testing.T) {
	ctx := context.Background()
	db, _ := testdb.New(t)
	up, err := os.ReadFile("20261125010000_visitor_identity.up.sql")
	if err != nil {
		t.Fatal(err)
	}
	backfill := string(up[strings.LastIndex(string(up), "SELECT identify_visitors("):])

	t0 := time.Date(2026, 11, 1, 10, 0, 0, 0, time.UTC)
	var storeID, fresh, known, cartID int64
	if err := db.NewRaw("INSERT INTO stores (handle, name) VALUES ('ids', 'Ids') RETURNING id").Scan(ctx, &storeID); err != nil {
		t.Fatal(err)
	}
	visitor := func(anon string) (id int64) {
		if err := db.NewRaw(`INSERT INTO visitors (store_id, anon_id, first_seen_at, last_seen_at) VALUES (?, ?, ?, ?) RETURNING id`,
			storeID, anon, t0, t0).Scan(ctx, &id); err != nil {
			t.Fatal(err)
		}
		return id
	}
	fresh, known = visitor("fresh"), visitor("known")
	exec := func(query string, args ...any) {
		t.Helper()
		if _, err := db.ExecContext(ctx, query, args...); err != nil {
			t.Fatalf("%v\n%s", err, query)
		}
	}
	if err := db.NewRaw(`INSERT INTO carts (store_id, token, visitor_id, currency, email, updated_at) VALUES (?, 'c1', ?, 'EUR', 'cart@example.com', ?) RETURNING id`,
		storeID, fresh, t0.Add(time.Hour)).Scan(ctx, &cartID); err != nil {
		t.Fatal(err)
	}
	exec(`INSERT INTO checkouts (store_id, token, visitor_id, currency, email, updated_at, expires_at) VALUES (?, 'k1', ?, 'EUR', 'checkout@example.com', ?, ?)`,
		storeID, fresh, t0.Add(2*time.Hour), t0.Add(48*time.Hour))
	exec(`INSERT INTO carts (store_id, token, visitor_id, currency, email, updated_at) VALUES (?, 'c2', ?, 'EUR', 'new@example.com', ?)`,
		storeID, known, t0.Add(3*time.Hour))
	exec(`INSERT INTO carts (store_id, token, visitor_id, currency, email, updated_at) VALUES (?, 'c3', NULL, 'EUR', 'nobody@example.com', ?)`,
		storeID, t0)

	type identity struct {
		Email        string     `bun:"email"`
		IdentifiedAt *time.Time `bun:"identified_at"`
	}
	expect := func(when string, id int64, email string, at time.Time) {
		t.Helper()
		var got identity
		if err := db.NewRaw("SELECT email, identified_at FROM visitors WHERE id = ?", id).Scan(ctx, &got.Email, &got.IdentifiedAt); err != nil {
			t.Fatal(err)
		}
		if got.Email != email || got.IdentifiedAt == nil || !got.IdentifiedAt.Equal(at) {
			t.Fatalf("%s: visitor %d is %q identified at %v, want %q at %v", when, id, got.Email, got.IdentifiedAt, email, at)
		}
	}
	// The triggers, as each record was written.
	expect("written", fresh, "checkout@example.com", t0.Add(time.Hour))
	expect("written", known, "new@example.com", t0.Add(3*time.Hour))

	// The backfill, of the records written before the migration: fresh
	// knew nothing, known had identified earlier with another email.
	exec("UPDATE visitors SET email = '', identified_at = NULL WHERE id = ?", fresh)
	exec("UPDATE visitors SET email = 'old@example.com', identified_at = ? WHERE id = ?", t0.Add(-time.Hour), known)
	exec(backfill)
	expect("backfilled", fresh, "checkout@example.com", t0.Add(time.Hour))
	expect("backfilled", known, "new@example.com", t0.Add(-time.Hour))

	// A write that changes neither email nor visitor (the abandonment job)
	// brings no older email back; a new email is the latest.
	exec("UPDATE carts SET abandoned_at = ?, updated_at = ? WHERE id = ?", t0.Add(5*time.Hour), t0.Add(5*time.Hour), cartID)
	expect("re-saved", fresh, "checkout@example.com", t0.Add(time.Hour))
	exec("UPDATE carts SET email = 'latest@example.com', updated_at = ? WHERE id = ?", t0.Add(6*time.Hour), cartID)
	expect("changed", fresh, "latest@example.com", t0.Add(time.Hour))
}
