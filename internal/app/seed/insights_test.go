package seed

import (
	"context"
	"testing"
	"time"

	"github.com/uptrace/bun"

	"storeadmin/internal/analytics"
)

// TestInsights: the seed's last area computes the insights of its
// yesterday over what the areas before left (here, a card's payment
// failures rising from 5% to 15% of 300 attempts a week), and a second
// seed leaves the computed store alone, whatever changed since. (The whole
// seed runs this area in every test that seeds all; this one does not seed
// all again, the package's tests are long enough.)
func TestInsights(t *testing.T) {
	ctx := context.Background()
	db, _, sid := newSeedStore(t)
	count := storeCounter(t, db, sid)
	exec := func(q string, args ...any) {
		t.Helper()
		if _, err := db.NewRaw(q, args...).Exec(ctx); err != nil {
			t.Fatal(err)
		}
	}
	exec("INSERT INTO checkouts (store_id, token, currency, expires_at) VALUES (?, 'k1', 'USD', ?)", sid, seedNow)
	attempts := func(at time.Time, failed int) {
		exec(`INSERT INTO checkout_payment_attempts (store_id, checkout_id, provider, payment_method, amount_cents, currency, status, created_at)
			SELECT c.store_id, c.id, 'stripe', 'card', 100, 'USD', CASE WHEN i <= ? THEN 'failure' ELSE 'success' END, ?::timestamptz + i * interval '1 minute'
			FROM checkouts AS c, generate_series(1, 300) AS i WHERE c.store_id = ?`, failed, at, sid)
	}
	attempts(seedNow.AddDate(0, 0, -11), 15)
	attempts(seedNow.AddDate(0, 0, -4), 45)
	run := func() {
		t.Helper()
		if err := db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error { return insights(ctx, tx, sid, seedNow) }); err != nil {
			t.Fatal(err)
		}
	}
	run()
	found, err := analytics.Insights(ctx, db, sid)
	if err != nil {
		t.Fatal(err)
	}
	if len(found) != 1 || found[0].Kind != analytics.InsightPaymentMethodFailureRising || found[0].Day != seedNow.AddDate(0, 0, -1).Format(time.DateOnly) {
		t.Fatalf("findings %+v", found)
	}
	// The failures stop, and the store is seeded again: left alone.
	exec("UPDATE checkout_payment_attempts SET status = 'success' WHERE store_id = ?", sid)
	before := tableCounts(count, "insight_runs", "insights")
	run()
	expectSameCounts(t, before, tableCounts(count, "insight_runs", "insights"))
}
