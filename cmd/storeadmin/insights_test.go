package main

import (
	"context"
	"strings"
	"testing"
	"time"

	"storeadmin/internal/testkit/testdb"
)

// insights run computes the store's yesterday now and prints the
// findings; a second run replaces the day's findings (one row each, not
// two); an unknown store is an error.
func TestInsightsRun(t *testing.T) {
	db, url := testdb.New(t)
	dbFlag := "--database-url=" + url
	ctx := context.Background()
	if _, err := runCmd(t, "migrate", dbFlag); err != nil {
		t.Fatalf("migrate: %v", err)
	}
	if _, err := runCmd(t, "stores", "create", dbFlag, "--handle", "shop", "--name", "Shop"); err != nil {
		t.Fatal(err)
	}
	// Card payments: 5% of 300 failed two weeks ago, 15% of 300 last week
	// (UTC, the store's zone; three days and ten days before yesterday).
	now := time.Now().UTC()
	yesterday := time.Date(now.Year(), now.Month(), now.Day()-1, 9, 0, 0, 0, time.UTC)
	if _, err := db.ExecContext(ctx, `INSERT INTO checkouts (store_id, token, currency, expires_at)
		SELECT id, 'chk', 'EUR', now() FROM stores WHERE handle = 'shop'`); err != nil {
		t.Fatal(err)
	}
	for _, w := range []struct {
		at     time.Time
		failed int
	}{{yesterday.AddDate(0, 0, -10), 15}, {yesterday.AddDate(0, 0, -3), 45}} {
		if _, err := db.ExecContext(ctx, `INSERT INTO checkout_payment_attempts (store_id, checkout_id, provider, payment_method, amount_cents, currency, status, created_at)
			SELECT c.store_id, c.id, 'stripe', 'card', 100, 'EUR', CASE WHEN i <= ? THEN 'failure' ELSE 'success' END, ?::timestamptz + i * interval '1 minute'
			FROM checkouts AS c, generate_series(1, 300) AS i WHERE c.token = 'chk'`, w.failed, w.at); err != nil {
			t.Fatal(err)
		}
	}
	for range 2 {
		out, err := runCmd(t, "insights", "run", dbFlag, "--store", "shop")
		if err != nil {
			t.Fatalf("insights run: %v\n%s", err, out)
		}
		// For yesterday (or today, should the run start after midnight).
		for _, want := range []string{"insights of store shop for ", ": 1 findings",
			"payment_method_failure_rising: Failed card payments rose from 5% to 15% of attempts week over week"} {
			if !strings.Contains(out, want) {
				t.Fatalf("output lacks %q:\n%s", want, out)
			}
		}
	}
	var rows, runs int
	if err := db.NewRaw("SELECT (SELECT count(*) FROM insights), (SELECT count(*) FROM insight_runs)").Scan(ctx, &rows, &runs); err != nil || rows != 1 || runs != 1 {
		t.Fatalf("%d findings and %d runs after two runs (%v)", rows, runs, err)
	}
	if _, err := runCmd(t, "insights", "run", dbFlag, "--store", "nope"); err == nil {
		t.Fatal("an unknown store ran")
	}
}
