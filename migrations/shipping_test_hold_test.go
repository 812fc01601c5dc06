package migrations_test

import (
	"context"
	"os"
	"testing"

	"storeadmin/internal/testkit/testdb"
)

// TestShippingTestHoldEndsOverlaps: migration 20261125010100 applies over
// running or paused shipping tests that already share a rate: the newest
// keeps the rate, the older end with no winner and their open pause
// closed; tests of other rates and drafts are untouched, and afterwards
// the index refuses a second running test on the rate.
func TestShippingTestHoldEndsOverlaps(t *testing.T) {
	ctx := context.Background()
	db, _ := testdb.New(t)
	read := func(name string) string {
		b, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	if _, err := db.ExecContext(ctx, read("20261125010100_shipping_test_hold.down.sql")); err != nil {
		t.Fatal(err)
	}
	var store, rate, otherRate int64
	if err := db.NewRaw("INSERT INTO stores (handle, name) VALUES ('ship', 'Ship') RETURNING id").Scan(ctx, &store); err != nil {
		t.Fatal(err)
	}
	var zone int64
	if err := db.NewRaw("INSERT INTO shipping_zones (store_id, name, countries) VALUES (?, 'All', '{*}') RETURNING id", store).Scan(ctx, &zone); err != nil {
		t.Fatal(err)
	}
	for _, r := range []*int64{&rate, &otherRate} {
		if err := db.NewRaw("INSERT INTO shipping_rates (store_id, zone_id, name, price_cents) VALUES (?, ?, 'Standard', 500) RETURNING id",
			store, zone).Scan(ctx, r); err != nil {
			t.Fatal(err)
		}
	}
	test := func(key, status string, rateID int64) int64 {
		t.Helper()
		var id int64
		err := db.NewRaw(`INSERT INTO experiments (store_id, key, name, kind, metric, surface, status, started_at, paused_at)
			VALUES (?, ?, ?, 'shipping', 'conversion', jsonb_build_object('shipping_rate_id', ?::bigint), ?,
				CASE WHEN ? <> 'draft' THEN now() - interval '1 day' END, CASE WHEN ? = 'paused' THEN now() - interval '1 hour' END)
			RETURNING id`, store, key, key, rateID, status, status, status).Scan(ctx, &id)
		if err != nil {
			t.Fatal(err)
		}
		if status == "paused" {
			if _, err := db.ExecContext(ctx, `INSERT INTO experiment_pauses (store_id, experiment_id, paused_at)
				VALUES (?, ?, now() - interval '1 hour')`, store, id); err != nil {
				t.Fatal(err)
			}
		}
		return id
	}
	oldest, paused, newest := test("oldest", "running", rate), test("paused", "paused", rate), test("newest", "running", rate)
	other, draft := test("other", "running", otherRate), test("draft", "draft", rate)

	if _, err := db.ExecContext(ctx, read("20261125010100_shipping_test_hold.up.sql")); err != nil {
		t.Fatal(err)
	}
	want := map[int64]string{oldest: "ended", paused: "ended", newest: "running", other: "running", draft: "draft"}
	for id, status := range want {
		var got string
		var winner *int64
		if err := db.NewRaw("SELECT status, winner_variant_id FROM experiments WHERE id = ?", id).Scan(ctx, &got, &winner); err != nil {
			t.Fatal(err)
		}
		if got != status || winner != nil {
			t.Errorf("experiment %d: %s (winner %v), want %s", id, got, winner, status)
		}
	}
	var open int
	if err := db.NewRaw("SELECT count(*) FROM experiment_pauses WHERE experiment_id = ? AND resumed_at IS NULL", paused).Scan(ctx, &open); err != nil || open != 0 {
		t.Errorf("%d pauses left open, %v", open, err)
	}
	if _, err := db.ExecContext(ctx, "UPDATE experiments SET status = 'running', started_at = now() WHERE id = ?", draft); err == nil {
		t.Error("a second running test on the rate was stored")
	} else {
		mustFail(t, err, "experiments_shipping_rate_held_idx")
	}
}
