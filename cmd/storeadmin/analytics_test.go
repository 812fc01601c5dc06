package main

import (
	"context"
	"strings"
	"testing"

	"storeadmin/internal/testkit/testdb"
)

// TestAnalyticsCommands: check finds no difference on a store the triggers
// kept (orders filled through COPY), prints and fails on one, and rebuild
// puts it right.
func TestAnalyticsCommands(t *testing.T) {
	db, url := testdb.New(t)
	dbFlag := "--database-url=" + url
	if _, err := runCmd(t, "stores", "create", dbFlag, "--handle", "bench", "--name", "Bench"); err != nil {
		t.Fatal(err)
	}
	if out, err := runCmd(t, "bench-data", dbFlag, "--store", "bench", "--products", "5", "--customers", "7", "--orders", "60"); err != nil {
		t.Fatalf("bench-data: %q %v", out, err)
	}
	if out, err := runCmd(t, "analytics", "check", dbFlag, "--store", "bench"); err != nil || !strings.Contains(out, "equal its raw rows") {
		t.Fatalf("check of a filled store: %q %v", out, err)
	}
	if _, err := db.ExecContext(context.Background(), `UPDATE analytics_order_slots SET gross_cents = gross_cents + 1
		WHERE slot = (SELECT max(slot) FROM analytics_order_slots)`); err != nil {
		t.Fatal(err)
	}
	out, err := runCmd(t, "analytics", "check", dbFlag, "--store", "bench")
	if err == nil || !strings.HasPrefix(out, "orders: analytics_order_slots: rollup {") || strings.Count(out, "\n") != 1 {
		t.Fatalf("check of a rollup off by a cent: %q %v", out, err)
	}
	// A window that does not hold the slot sees nothing wrong.
	if out, err := runCmd(t, "analytics", "check", dbFlag, "--store", "bench", "--from", "2000-01-01", "--to", "2000-01-31"); err != nil {
		t.Fatalf("check of an empty window: %q %v", out, err)
	}
	if out, err := runCmd(t, "analytics", "rebuild", dbFlag, "--store", "bench"); err != nil || !strings.Contains(out, "rebuilt the rollups of store bench") {
		t.Fatalf("rebuild: %q %v", out, err)
	}
	if out, err := runCmd(t, "analytics", "check", dbFlag, "--store", "bench"); err != nil {
		t.Fatalf("check after the rebuild: %q %v", out, err)
	}
	for _, bad := range [][]string{{"--from", "yesterday"}, {"--to", "2026-13-01"}, {"--from", "2026-02-01", "--to", "2026-01-01"}} {
		if _, err := runCmd(t, append([]string{"analytics", "check", dbFlag, "--store", "bench"}, bad...)...); err == nil {
			t.Errorf("check %v was accepted", bad)
		}
	}
}
