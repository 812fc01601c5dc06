package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"storeadmin/internal/testkit/testdb"
	"storeadmin/internal/testkit/testlog"
)

// runAll runs each command line at once, as separate processes would, and
// fails the test for each that fails.
func runAll(t *testing.T, lines [][]string) []string {
	t.Helper()
	outs := make([]string, len(lines))
	errs := make([]error, len(lines))
	var wg sync.WaitGroup
	for i, args := range lines {
		wg.Go(func() {
			var out bytes.Buffer
			errs[i] = run(context.Background(), args, &out, slog.New(slog.NewTextHandler(io.Discard, nil)))
			outs[i] = out.String()
		})
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("%s: %v", strings.Join(lines[i][:2], " "), err)
		}
	}
	return outs
}

func TestConcurrentCommandsOnFreshDatabase(t *testing.T) {
	dbFlag := "--database-url=" + testdb.NewEmpty(t)
	var stores [][]string
	for i := range 5 {
		stores = append(stores, []string{"stores", "create", dbFlag, "--handle", fmt.Sprintf("shop-%d", i), "--name", "Shop"})
	}
	runAll(t, stores)

	var keys [][]string
	for i := range 20 {
		keys = append(keys, []string{"keys", "create", dbFlag, "--store", fmt.Sprintf("shop-%d", i%5), "--name", "k", "--role", "admin"})
	}
	secrets := runAll(t, keys)
	seen := map[string]bool{}
	for _, s := range secrets {
		if !strings.HasPrefix(s, "sa_api_") || seen[s] {
			t.Fatalf("keys create printed %q", s)
		}
		seen[s] = true
	}
}

// TestConcurrentCommandsDuringUpgrade runs 20 commands at once against a
// database one migration behind, as after deploying a new version: one of
// them applies it, the others wait for it and go on.
func TestConcurrentCommandsDuringUpgrade(t *testing.T) {
	db, url := testdb.New(t)
	dbFlag := "--database-url=" + url
	if _, err := runCmd(t, "stores", "create", dbFlag, "--handle", "acme", "--name", "Acme"); err != nil {
		t.Fatal(err)
	}
	downs, _ := filepath.Glob("../../migrations/*.down.sql")
	if len(downs) == 0 {
		t.Fatal("no down migrations found")
	}
	slices.Sort(downs)
	down, err := os.ReadFile(downs[len(downs)-1])
	if err != nil {
		t.Fatal(err)
	}
	last := strings.TrimSuffix(filepath.Base(downs[len(downs)-1]), ".down.sql")
	ctx := context.Background()
	if _, err := db.ExecContext(ctx, string(down)); err != nil {
		t.Fatalf("undo %s: %v", last, err)
	}
	if _, err := db.ExecContext(ctx, "DELETE FROM bun_migrations WHERE name = ?", last); err != nil {
		t.Fatal(err)
	}
	var keys [][]string
	for range 20 {
		keys = append(keys, []string{"keys", "create", dbFlag, "--store", "acme", "--name", "k", "--role", "staff"})
	}
	runAll(t, keys)
	n, err := db.NewSelect().Table("bun_migrations").Where("name = ?", last).Count(ctx)
	if err != nil || n != 1 {
		t.Fatalf("%s recorded %d times (%v)", last, n, err)
	}
}

func TestTwoServersStartTogetherOnFreshDatabase(t *testing.T) {
	url := testdb.NewEmpty(t)
	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	logs := make([]*testlog.Records, 2)
	errs := make(chan error, 2)
	for i := range logs {
		logs[i] = &testlog.Records{}
		log := logs[i].Logger()
		args := []string{"serve", "--database-url=" + url, "--addr", "127.0.0.1:0", "--blob-url", "file://" + t.TempDir()}
		go func() { errs <- run(ctx, args, io.Discard, log) }()
	}
	deadline := time.Now().Add(2 * time.Minute)
	for _, l := range logs {
		for l.Count(slog.LevelInfo, "serving") == 0 {
			select {
			case err := <-errs:
				t.Fatalf("a server stopped before serving: %v\n%s\n%s", err, logs[0], logs[1])
			case <-time.After(20 * time.Millisecond):
			}
			if time.Now().After(deadline) {
				t.Fatalf("the servers did not both start:\n%s\n%s", logs[0], logs[1])
			}
		}
	}
	stop()
	for range logs {
		if err := <-errs; err != nil {
			t.Errorf("serve: %v", err)
		}
	}
}
