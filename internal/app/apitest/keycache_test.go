package apitest_test

import (
	"context"
	"database/sql"
	"fmt"
	"net/http"
	"testing"
	"time"

	"storeadmin/internal/app/apitest"
	"storeadmin/internal/auth"
	"storeadmin/internal/base/database"
	"storeadmin/internal/testkit/testdb"
	"storeadmin/models"
)

// kcCurrentStore is the cheapest authenticated read: it answers from the
// principal alone, so every statement it costs is the key check's.
const kcCurrentStore = `{ currentStoreId }`

// kcRead reads the caller's store id over GraphQL and returns the status.
func kcRead(t *testing.T, e *apitest.Env, key string) int {
	t.Helper()
	r := e.GraphQL(key, kcCurrentStore, nil)
	if r.Status == http.StatusOK && r.Body["errors"] != nil || r.Status >= 500 {
		t.Fatalf("%s: status %d: %s", kcCurrentStore, r.Status, r.Raw)
	}
	return r.Status
}

// kcCached waits until a read with key costs no statement, that is until
// the service answers for the key from its cache (the listener is
// connected and listening; a request in between reads the key), and fails
// after a minute.
func kcCached(t *testing.T, e *apitest.Env, key string) {
	t.Helper()
	count := countStatements(e)
	for deadline := time.Now().Add(time.Minute); ; {
		if n := count(func() { kcRead(t, e, key) }); n == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatal("the service never answered for the key from its cache")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// A key the service has checked costs no statement on later requests, on
// either surface; a made-up secret is never cached (each costs its read).
func TestCachedKeyCostsNoStatement(t *testing.T) {
	e := apitest.New(t)
	s := e.Store("Acme")
	key := e.Key(s.ID, auth.RoleAdmin)
	kcCached(t, e, key)
	count := countStatements(e)
	for range 3 {
		if n := count(func() { kcRead(t, e, key) }); n != 0 {
			t.Fatalf("a cached key's read cost %d statements, want 0", n)
		}
	}
	e.Do(http.MethodGet, "/store", key, nil).Expect(t, http.StatusOK) // warms the store read's own statements
	rest := count(func() { e.Do(http.MethodGet, "/store", key, nil).Expect(t, http.StatusOK) })
	if rest != 1 {
		t.Fatalf("GET /store with a cached key cost %d statements, want 1 (the store row)", rest)
	}
	for range 3 {
		if n := count(func() { e.GraphQL("sa_api_made_up", kcCurrentStore, nil) }); n != 1 {
			t.Fatalf("an unknown secret cost %d statements, want its 1 read every time", n)
		}
	}
}

// A key revoked, narrowed, expired or deleted by another process (here a
// direct write, as the command line's `keys revoke` makes, on a database
// two services share) stops working on both services on the very next
// request, although both had it cached.
func TestKeyChangedElsewhereStopsAtOnceEverywhere(t *testing.T) {
	db, _ := testdb.New(t)
	a := apitest.New(t, apitest.WithDatabase(db))
	b := apitest.New(t, apitest.WithDatabase(db))
	s := a.Store("Acme")
	ctx := context.Background()
	both := func(key string, want int) {
		t.Helper()
		for name, e := range map[string]*apitest.Env{"a": a, "b": b} {
			if got := kcRead(t, e, key); got != want {
				t.Fatalf("service %s: status %d, want %d", name, got, want)
			}
		}
	}
	cached := func(key string) {
		t.Helper()
		kcCached(t, a, key)
		kcCached(t, b, key)
	}

	// Revoked, again and again: never one stale answer.
	for range 20 {
		key := a.Key(s.ID, auth.RoleAdmin)
		cached(key)
		if _, err := models.RevokeAPIKey(ctx, db, s.ID, keyID(t, a, s.ID, key)); err != nil {
			t.Fatal(err)
		}
		both(key, http.StatusUnauthorized)
	}

	// Narrowed: a scope taken away is refused at once.
	key := a.Key(s.ID, auth.RoleAdmin)
	cached(key)
	a.Do(http.MethodGet, "/store", key, nil).Expect(t, http.StatusOK)
	b.Do(http.MethodGet, "/store", key, nil).Expect(t, http.StatusOK)
	if _, err := db.NewUpdate().Model((*models.APIKey)(nil)).Set("scopes = '{orders:read}'").
		Where("id = ?", keyID(t, a, s.ID, key)).Exec(ctx); err != nil {
		t.Fatal(err)
	}
	a.Do(http.MethodGet, "/store", key, nil).Expect(t, http.StatusForbidden)
	b.Do(http.MethodGet, "/store", key, nil).Expect(t, http.StatusForbidden)

	// Expired by a write.
	key = a.Key(s.ID, auth.RoleAdmin)
	cached(key)
	if _, err := db.NewUpdate().Model((*models.APIKey)(nil)).Set("expires_at = now()").
		Where("id = ?", keyID(t, a, s.ID, key)).Exec(ctx); err != nil {
		t.Fatal(err)
	}
	both(key, http.StatusUnauthorized)

	// Deleted with its store.
	gone := a.Store("Gone")
	key = a.Key(gone.ID, auth.RoleAdmin)
	cached(key)
	if _, err := db.NewDelete().Model((*models.Store)(nil)).Where("id = ?", gone.ID).Exec(ctx); err != nil {
		t.Fatal(err)
	}
	both(key, http.StatusUnauthorized)

	// Expired by the clock alone, with no write to announce it.
	soon := time.Now().Add(1500 * time.Millisecond)
	k, err := auth.NewAPIKey(s.ID, "brief", auth.RoleAdmin, nil, &soon, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if err := models.CreateAPIKey(ctx, db, k); err != nil {
		t.Fatal(err)
	}
	cached(*k.Key)
	time.Sleep(time.Until(soon) + 10*time.Millisecond)
	both(*k.Key, http.StatusUnauthorized)
}

// When the listener's connection goes, the cache goes with it: a key
// revoked while nobody listened (its notice is lost) is refused once the
// listener is back, and while it is away every request reads its key.
func TestKeyListenerLossDropsTheCache(t *testing.T) {
	db, _ := testdb.New(t)
	e := apitest.New(t, apitest.WithDatabase(db))
	s := e.Store("Acme")
	key, probe := e.Key(s.ID, auth.RoleAdmin), e.Key(s.ID, auth.RoleStaff)
	kcCached(t, e, key)
	ctx := context.Background()

	// While the database refuses new sessions, the service and the test
	// work on the pool's open ones: a few are opened now and left idle, and
	// one is held for the test. The server's maintenance database is where
	// the test's is closed to new sessions from.
	var warm []*sql.Conn
	for range 6 {
		c, err := e.DB.DB.Conn(ctx)
		if err != nil {
			t.Fatal(err)
		}
		warm = append(warm, c)
	}
	for _, c := range warm {
		c.Close()
	}
	conn, err := e.DB.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	var name string
	if err := conn.QueryRowContext(ctx, "SELECT current_database()").Scan(&name); err != nil {
		t.Fatal(err)
	}
	admin, err := database.Open(ctx, testdb.ServerURL(t, "postgres"))
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	connections := func(allow bool) {
		t.Helper()
		if _, err := admin.ExecContext(ctx, fmt.Sprintf(`ALTER DATABASE %q WITH ALLOW_CONNECTIONS %t`, name, allow)); err != nil {
			t.Fatalf("ALLOW_CONNECTIONS %t: %v", allow, err)
		}
	}
	connections(false)
	defer connections(true)
	var ended bool
	if err := admin.QueryRowContext(ctx, `SELECT coalesce(bool_and(pg_terminate_backend(pid, 30000)), false)
		FROM pg_stat_activity WHERE datname = ? AND application_name = ?`, name, auth.ListenerName).Scan(&ended); err != nil || !ended {
		t.Fatalf("ending the listener's session: %v, %v", ended, err)
	}
	if _, err := conn.ExecContext(ctx, "UPDATE api_keys SET revoked_at = now() WHERE secret_hash = ?", auth.HashSecret(key)); err != nil {
		t.Fatal(err)
	}

	// Without a listener, keys are read: the probe costs its read each time.
	count := countStatements(e)
	for range 2 {
		if n := count(func() {
			if got := kcRead(t, e, probe); got != http.StatusOK {
				t.Fatalf("a valid key without the listener: status %d", got)
			}
		}); n == 0 {
			t.Fatal("a key was answered from the cache while nothing listened")
		}
	}
	if got := kcRead(t, e, key); got != http.StatusUnauthorized {
		t.Fatalf("a key revoked while nothing listened: status %d, want 401", got)
	}

	// Back: the cache is trusted again, and did not keep the revoked key.
	connections(true)
	kcCached(t, e, probe)
	if got := kcRead(t, e, key); got != http.StatusUnauthorized {
		t.Fatalf("a key revoked while nothing listened, once the listener is back: status %d, want 401", got)
	}
}
