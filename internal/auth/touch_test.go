package auth

import (
	"context"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/uptrace/bun"

	"storeadmin/internal/testkit/testdb"
	"storeadmin/models"
)

func TestMain(m *testing.M) { testdb.Main(m) }

// tcRequest marks the context of a request in TestCachedKeyUseIsWrittenOffTheRequest.
type tcRequest struct{}

// tcUpdates counts the UPDATE statements run for a request (on a context
// marked tcRequest).
type tcUpdates struct {
	mu sync.Mutex
	n  int
}

func (u *tcUpdates) BeforeQuery(ctx context.Context, _ *bun.QueryEvent) context.Context { return ctx }

func (u *tcUpdates) AfterQuery(ctx context.Context, e *bun.QueryEvent) {
	if strings.HasPrefix(e.Query, "UPDATE") && ctx.Value(tcRequest{}) != nil {
		u.mu.Lock()
		u.n++
		u.mu.Unlock()
	}
}

func (u *tcUpdates) count() int {
	u.mu.Lock()
	defer u.mu.Unlock()
	return u.n
}

// A key's first use is written before Authenticate returns; a later use of
// the cached key, due a minute on, is written by the authenticator's
// writer, not by the request, and at the latest when it closes.
func TestCachedKeyUseIsWrittenOffTheRequest(t *testing.T) {
	raw, _ := testdb.New(t)
	updates := &tcUpdates{}
	db := raw.WithQueryHook(updates)
	ctx := context.Background()
	store := &models.Store{Handle: "acme", Name: "Acme"}
	if err := models.CreateStore(ctx, db, store); err != nil {
		t.Fatal(err)
	}
	start := time.Now().UTC().Truncate(time.Millisecond)
	k, err := NewAPIKey(store.ID, "k", RoleAdmin, nil, nil, start)
	if err != nil {
		t.Fatal(err)
	}
	if err := models.CreateAPIKey(ctx, db, k); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	clock := start
	now := func() time.Time { mu.Lock(); defer mu.Unlock(); return clock }
	a := NewAuthenticator(db, now, slog.New(slog.DiscardHandler))
	closed := false
	defer func() {
		if !closed {
			a.Close()
		}
	}()
	a.keys.mu.Lock()
	live := a.keys.live
	a.keys.mu.Unlock()
	if !live {
		t.Fatal("the authenticator started without its listener")
	}
	lastUsed := func() time.Time {
		t.Helper()
		var at time.Time
		if err := db.NewSelect().Model((*models.APIKey)(nil)).Column("last_used_at").Where("id = ?", k.ID).Scan(ctx, &at); err != nil {
			t.Fatal(err)
		}
		return at
	}
	header := "Bearer " + *k.Key
	request := context.WithValue(ctx, tcRequest{}, true)

	if _, err := a.Authenticate(request, header); err != nil {
		t.Fatal(err)
	}
	if got := lastUsed(); !got.Equal(start) || updates.count() != 1 {
		t.Fatalf("after the first use last_used_at is %v, want %v written by the request (%d writes)", got, start, updates.count())
	}

	mu.Lock()
	clock = start.Add(2 * time.Minute)
	mu.Unlock()
	if _, err := a.Authenticate(request, header); err != nil {
		t.Fatal(err)
	}
	if _, cached, _ := a.key(ctx, HashSecret(*k.Key)); !cached {
		t.Fatal("the key is not cached")
	}
	if n := updates.count(); n != 1 {
		t.Fatalf("the request with a cached key wrote last_used_at itself (%d writes by requests)", n)
	}
	a.Close()
	closed = true
	if got := lastUsed(); !got.Equal(start.Add(2 * time.Minute)) {
		t.Fatalf("after the cached use and Close, last_used_at is %v, want %v", got, start.Add(2*time.Minute))
	}
}
