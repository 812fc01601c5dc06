package database_test

import (
	"context"
	"database/sql"
	"testing"

	"storeadmin/internal/base/database"
	"storeadmin/internal/testkit/testdb"
)

func TestMain(m *testing.M) { testdb.Main(m) }

// TestPoolKeepsItsConnections: a burst that uses every connection of the
// pool leaves them all open for the next one; none is closed for being
// one idle connection too many.
func TestPoolKeepsItsConnections(t *testing.T) {
	db, _ := testdb.New(t)
	ctx := context.Background()
	conns := make([]*sql.Conn, database.MaxConns)
	for i := range conns {
		c, err := db.DB.Conn(ctx)
		if err != nil {
			t.Fatal(err)
		}
		conns[i] = c
	}
	for _, c := range conns {
		c.Close()
	}
	if s := db.DB.Stats(); s.MaxIdleClosed != 0 || s.Idle != database.MaxConns {
		t.Fatalf("after a burst of %d: %d closed as idle too many, %d idle; want 0 and %d", database.MaxConns, s.MaxIdleClosed, s.Idle, database.MaxConns)
	}
}

// TestNoJITUnlessAsked: the pool's connections run without JIT
// compilation, unless the URL sets jit itself.
func TestNoJITUnlessAsked(t *testing.T) {
	_, url := testdb.New(t)
	ctx := context.Background()
	for _, c := range []struct{ url, want string }{{url, "off"}, {url + "&jit=on", "on"}} {
		db, err := database.Open(ctx, c.url)
		if err != nil {
			t.Fatal(err)
		}
		var jit string
		if err := db.QueryRowContext(ctx, "SHOW jit").Scan(&jit); err != nil {
			t.Fatal(err)
		}
		db.Close()
		if jit != c.want {
			t.Fatalf("%s: jit is %s, want %s", c.url, jit, c.want)
		}
	}
}
