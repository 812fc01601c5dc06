package seed

import (
	"context"
	"testing"
	"time"

	"github.com/uptrace/bun"

	"storeadmin/models"
)

// TestRecoveryReminders seeds the demo's policy and plays the sequence over
// an abandoned cart and checkout: each step recorded at its hour, into the
// outbox, with the policy's discount codes; a second seed adds nothing.
func TestRecoveryReminders(t *testing.T) {
	ctx := context.Background()
	db, _, storeID := newSeedStore(t)
	count := storeCounter(t, db, storeID)
	// What the abandonment area leaves: a cart abandoned 4 days ago, a
	// checkout abandoned 10 hours ago, and a cart abandoned 40 days ago
	// (past the sequence's horizon).
	cartAt, coAt := seedNow.Add(-96*time.Hour), seedNow.Add(-10*time.Hour)
	exec := func(q string, args ...any) {
		t.Helper()
		if _, err := db.NewRaw(q, args...).Exec(ctx); err != nil {
			t.Fatal(err)
		}
	}
	exec("INSERT INTO carts (store_id, token, currency, email, abandoned_at) VALUES (?, 'c1', 'USD', 'ana@example.com', ?), (?, 'c-old', 'USD', 'old@example.com', ?)",
		storeID, cartAt, storeID, seedNow.Add(-40*24*time.Hour))
	exec("INSERT INTO checkouts (store_id, token, currency, email, expires_at, abandoned_at) VALUES (?, 'k1', 'USD', 'bea@example.com', ?, ?)", storeID, seedNow, coAt)
	run := func() {
		t.Helper()
		if err := db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error { return recoveryReminders(ctx, tx, storeID, seedNow) }); err != nil {
			t.Fatal(err)
		}
	}
	run()
	p, err := models.GetRecoveryPolicy(ctx, db, storeID)
	if err != nil || p.Cart.DelaysMinutes[2] != 4320 {
		t.Fatalf("policy: %+v, %v", p, err)
	}
	var ms []models.RecoveryMessage
	if err := db.NewSelect().Model(&ms).Where("store_id = ?", storeID).OrderExpr("id").Scan(ctx); err != nil {
		t.Fatal(err)
	}
	// The cart: all three steps (the third with its code); the checkout:
	// its first (30 minutes; the second, at 720, is not due yet); the old
	// cart: nothing (its steps were due long before).
	if len(ms) != 4 {
		t.Fatalf("%d reminders: %+v", len(ms), ms)
	}
	for _, m := range ms {
		if m.Status != models.RecoveryOutboxed {
			t.Fatalf("not outboxed: %+v", m)
		}
		base, delays, from := cartAt, p.Cart.DelaysMinutes, 3
		if m.CheckoutID != nil {
			base, delays, from = coAt, p.Checkout.DelaysMinutes, 2
		}
		due := base.Add(time.Duration(delays[m.Step-1]) * time.Minute)
		if m.CreatedAt.Before(due) || m.CreatedAt.Sub(due) >= time.Hour {
			t.Fatalf("step %d recorded at %v, due %v", m.Step, m.CreatedAt, due)
		}
		if (m.Step >= from) != (m.DiscountCode != "") {
			t.Fatalf("step %d's code: %q", m.Step, m.DiscountCode)
		}
	}
	if n := count("mail_outbox", "true"); n != 4 {
		t.Fatalf("%d outboxed messages", n)
	}
	if n := count("discounts", "usage_limit = 1"); n != 1 {
		t.Fatalf("%d single-use codes", n)
	}
	run()
	if n := count("recovery_messages", "true"); n != 4 {
		t.Fatalf("after a second seed: %d reminders", n)
	}
}
