package testdb

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/uptrace/bun"

	"storeadmin/internal/base/database"
)

func TestMain(m *testing.M) { Main(m) }

func scan(t *testing.T, db *bun.DB, query string, dest ...any) {
	t.Helper()
	if err := db.QueryRowContext(context.Background(), query).Scan(dest...); err != nil {
		t.Fatalf("%s: %v", query, err)
	}
}

func TestNewGivesIsolatedMigratedDatabases(t *testing.T) {
	db1, url1 := New(t)
	db2, url2 := New(t)
	if url1 == url2 {
		t.Fatalf("both databases at %s", url1)
	}
	var name1, name2 string
	scan(t, db1, "select current_database()", &name1)
	scan(t, db2, "select current_database()", &name2)
	if name1 == name2 {
		t.Fatalf("both handles on database %s", name1)
	}
	for i, db := range []*bun.DB{db1, db2} {
		var n int
		scan(t, db, "select count(*) from bun_migrations", &n)
		t.Logf("database %d (%s): %d migrations applied", i+1, []string{name1, name2}[i], n)
	}

	if _, err := db1.ExecContext(context.Background(), "create table only_in_one (id int)"); err != nil {
		t.Fatal(err)
	}
	var exists bool
	scan(t, db2, "select to_regclass('only_in_one') is not null", &exists)
	if exists {
		t.Fatal("a table created in one test database shows up in the other")
	}
}

func TestCleanupDropsDatabase(t *testing.T) {
	var name string
	t.Run("user", func(t *testing.T) {
		db, _ := New(t)
		scan(t, db, "select current_database()", &name)
	})
	admin, err := database.Open(context.Background(), ServerURL(t, "postgres"))
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	var n int
	if err := admin.QueryRowContext(context.Background(), "select count(*) from pg_database where datname = ?", name).Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n != 0 {
		t.Fatalf("database %s still exists after its test ended", name)
	}
}

func TestNewInParallel(t *testing.T) {
	var mu sync.Mutex
	seen := map[string]bool{}
	for i := range 8 {
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			t.Parallel()
			db, url := New(t)
			var n int
			scan(t, db, "select count(*) from bun_migrations", &n)
			mu.Lock()
			defer mu.Unlock()
			if seen[url] {
				t.Errorf("database %s handed out twice", url)
			}
			seen[url] = true
		})
	}
}
