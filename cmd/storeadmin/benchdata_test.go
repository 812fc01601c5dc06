package main

import (
	"context"
	"strings"
	"testing"

	"storeadmin/internal/testkit/testdb"
)

// TestBenchDataCommand fills a store from the command line and refuses
// sizes it cannot fill.
func TestBenchDataCommand(t *testing.T) {
	db, url := testdb.New(t)
	dbFlag := "--database-url=" + url
	if _, err := runCmd(t, "stores", "create", dbFlag, "--handle", "bench", "--name", "Bench"); err != nil {
		t.Fatal(err)
	}
	out, err := runCmd(t, "bench-data", dbFlag, "--store", "bench", "--products", "5", "--customers", "7", "--orders", "30", "--sessions", "40")
	if err != nil || !strings.Contains(out, "filled store bench") {
		t.Fatalf("bench-data: %q %v", out, err)
	}
	for table, want := range map[string]int{"products": 5, "product_variants": 15, "customers": 7, "orders": 30} {
		var got int
		if err := db.NewSelect().Table(table).ColumnExpr("count(*)").Scan(context.Background(), &got); err != nil || got != want {
			t.Errorf("%s: %d rows (%v), want %d", table, got, err, want)
		}
	}
	for _, bad := range [][]string{{"--orders", "3"}, {"--products", "-1"}, {"--products", "1", "--customers", "1", "--orders", "x"}} {
		args := append([]string{"bench-data", dbFlag, "--store", "bench"}, bad...)
		if _, err := runCmd(t, args...); err == nil {
			t.Errorf("bench-data %v was accepted", bad)
		}
	}
	if _, err := runCmd(t, "bench-data", dbFlag, "--store", "nope", "--products", "1"); err == nil {
		t.Error("bench-data of a missing store was accepted")
	}
}
