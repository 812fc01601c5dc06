package main

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"storeadmin/internal/auth"
	"storeadmin/internal/testkit/testdb"
	"storeadmin/models"
)

// asBinaryEnv makes the test binary run main instead of the tests: the
// tests that need storeadmin as a process of its own (to kill it) run it so.
const asBinaryEnv = "STOREADMIN_TEST_AS_BINARY"

func TestMain(m *testing.M) {
	if os.Getenv(asBinaryEnv) == "1" {
		main()
		os.Exit(0)
	}
	// Commands run by these tests keep their blobs in a folder of the
	// run's own, not the machine's default beside /var/lib/storeadmin: a
	// second run, or anything else using that folder, cannot pull files
	// from under them.
	if os.Getenv("STOREADMIN_BLOB_URL") == "" {
		dir, err := os.MkdirTemp("", "storeadmin-cmd-blobs-")
		if err != nil {
			panic(err)
		}
		os.Setenv("STOREADMIN_BLOB_URL", "file://"+dir)
	}
	testdb.Main(m)
}

func runCmd(t *testing.T, args ...string) (string, error) {
	t.Helper()
	var out bytes.Buffer
	err := run(context.Background(), args, &out, slog.New(slog.NewTextHandler(io.Discard, nil)))
	return out.String(), err
}

func TestCommands(t *testing.T) {
	db, url := testdb.New(t)
	dbFlag := "--database-url=" + url
	ctx := context.Background()

	if _, err := runCmd(t, "migrate", dbFlag); err != nil {
		t.Fatalf("migrate: %v", err)
	}
	out, err := runCmd(t, "stores", "create", dbFlag, "--handle", "acme", "--name", "Acme Goods")
	if err != nil || !strings.Contains(out, "acme") {
		t.Fatalf("stores create: %q %v", out, err)
	}
	if _, err := runCmd(t, "stores", "create", dbFlag, "--handle", "acme", "--name", "Again"); err == nil {
		t.Fatal("a second store with the same handle was created")
	}
	if _, err := runCmd(t, "stores", "create", dbFlag, "--handle", "Bad Handle", "--name", "x"); err == nil {
		t.Fatal("an invalid handle was accepted")
	}

	secret, err := runCmd(t, "keys", "create", dbFlag, "--store", "acme", "--name", "ERP", "--role", "staff",
		"--scopes", "orders:read,products:write", "--expires-in", "24h")
	if err != nil {
		t.Fatalf("keys create: %v", err)
	}
	secret = strings.TrimSuffix(secret, "\n")
	if strings.ContainsAny(secret, " \n\t") || !strings.HasPrefix(secret, "sa_api_") {
		t.Fatalf("keys create must print the secret alone, got %q", secret)
	}
	k, err := models.APIKeyBySecretHash(ctx, db, auth.HashSecret(secret))
	if err != nil {
		t.Fatalf("the printed secret does not match a stored hash: %v", err)
	}
	if k.Role != "staff" || strings.Join(k.Scopes, ",") != "orders:read,products:write" || k.ExpiresAt == nil ||
		time.Until(*k.ExpiresAt) < 23*time.Hour {
		t.Fatalf("stored key: %+v", k)
	}
	for _, bad := range [][]string{
		{"--role", "owner"}, {"--role", "admin", "--scopes", "nope:read"}, {"--role", "admin", "--expires-in", "-1h"},
	} {
		args := append([]string{"keys", "create", dbFlag, "--store", "acme", "--name", "x"}, bad...)
		if _, err := runCmd(t, args...); err == nil {
			t.Fatalf("keys create %v was accepted", bad)
		}
	}
	if _, err := runCmd(t, "keys", "create", dbFlag, "--store", "nope", "--name", "x", "--role", "admin"); err == nil {
		t.Fatal("a key for a missing store was created")
	}

	list, err := runCmd(t, "keys", "list", dbFlag, "--store", "acme")
	if err != nil || !strings.Contains(list, "ERP") || !strings.Contains(list, "active") || strings.Contains(list, secret) {
		t.Fatalf("keys list: %q %v", list, err)
	}
	if _, err := runCmd(t, "keys", "revoke", dbFlag, "--store", "acme", "--id", strconv.FormatInt(k.ID, 10)); err != nil {
		t.Fatalf("keys revoke: %v", err)
	}
	if list, _ := runCmd(t, "keys", "list", dbFlag, "--store", "acme"); !strings.Contains(list, "revoked") {
		t.Fatalf("revoked key not shown as revoked: %q", list)
	}

	// Seeding twice adds nothing the second time.
	store, _ := models.GetStoreByHandle(ctx, db, "acme")
	if _, err := runCmd(t, "seed", dbFlag, "--store", "acme"); err != nil {
		t.Fatalf("seed: %v", err)
	}
	counts := func() []int64 {
		var out []int64
		for _, table := range []string{"store_settings", "store_members", "api_keys", "webhook_subscriptions", "mcp_keys"} {
			n, err := db.NewSelect().Table(table).Where("store_id = ?", store.ID).Count(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if n == 0 {
				t.Fatalf("seed left %s empty", table)
			}
			out = append(out, n)
		}
		return out
	}
	first := counts()
	if _, err := runCmd(t, "seed", dbFlag, "--store", "acme"); err != nil {
		t.Fatalf("second seed: %v", err)
	}
	if second := counts(); !slices.Equal(first, second) {
		t.Fatalf("seed is not idempotent: %v then %v", first, second)
	}

	if _, err := runCmd(t, "frobnicate"); err == nil {
		t.Fatal("an unknown command succeeded")
	}
}
