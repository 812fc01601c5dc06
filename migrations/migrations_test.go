package migrations_test

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/uptrace/bun"

	"storeadmin/internal/base/database"
	"storeadmin/internal/testkit/testdb"
	"storeadmin/migrations"
)

func TestMain(m *testing.M) { testdb.Main(m) }

func open(t *testing.T, url string) *bun.DB {
	t.Helper()
	db, err := database.Open(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// schemaOf lists what a migrated database holds: tables with their columns,
// and the recorded migrations of both kinds.
func schemaOf(t *testing.T, db *bun.DB) string {
	t.Helper()
	var rows []string
	err := db.NewRaw(`SELECT table_name || '.' || column_name FROM information_schema.columns
		WHERE table_schema = 'public' ORDER BY 1`).Scan(context.Background(), &rows)
	if err != nil {
		t.Fatal(err)
	}
	var ours, river []string
	if err := db.NewRaw("SELECT name FROM bun_migrations ORDER BY name").Scan(context.Background(), &ours); err != nil {
		t.Fatal(err)
	}
	if err := db.NewRaw("SELECT version::text FROM river_migration ORDER BY version").Scan(context.Background(), &river); err != nil {
		t.Fatal(err)
	}
	return strings.Join(rows, "\n") + "\n--\n" + strings.Join(ours, "\n") + "\n--\n" + strings.Join(river, ",")
}

// reference is the schema a single, undisturbed Migrate makes.
func reference(t *testing.T) string {
	t.Helper()
	db := open(t, testdb.NewEmpty(t))
	if err := migrations.Migrate(context.Background(), db); err != nil {
		t.Fatal(err)
	}
	return schemaOf(t, db)
}

func TestConcurrentMigrateOnFreshDatabase(t *testing.T) {
	want := reference(t)
	url := testdb.NewEmpty(t)
	const n = 8
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for range n {
		wg.Go(func() {
			// Separate pools, as separate processes would have.
			db, err := database.Open(context.Background(), url)
			if err != nil {
				errs <- err
				return
			}
			defer db.Close()
			errs <- migrations.Migrate(context.Background(), db)
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Errorf("concurrent migrate: %v", err)
		}
	}
	if got := schemaOf(t, open(t, url)); got != want {
		t.Fatalf("concurrent migrations made a different schema:\n%s\nwant\n%s", got, want)
	}
}

func TestMigrateWaitsForTheLockThenGivesUpClearly(t *testing.T) {
	url := testdb.NewEmpty(t)
	holder := open(t, url)
	conn, err := holder.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(context.Background(), "SELECT pg_advisory_lock(?)", migrations.LockKey); err != nil {
		t.Fatal(err)
	}
	defer func(d time.Duration) { migrations.LockWait = d }(migrations.LockWait)
	migrations.LockWait = 300 * time.Millisecond
	err = migrations.Migrate(context.Background(), open(t, url))
	if err == nil || !strings.Contains(err.Error(), "another storeadmin process") {
		t.Fatalf("migrate while another holds the lock: %v", err)
	}

	// The holder's session ends the way a killed process's does: the
	// server drops its lock, and the next caller goes ahead unaided.
	conn.Close()
	holder.Close()
	migrations.LockWait = time.Minute
	if err := migrations.Migrate(context.Background(), open(t, url)); err != nil {
		t.Fatalf("migrate after the holder went away: %v", err)
	}
}

func TestCurrentDatabaseTakesNoLock(t *testing.T) {
	db, url := testdb.New(t)
	conn, err := db.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(context.Background(), "SELECT pg_advisory_lock(?)", migrations.LockKey); err != nil {
		t.Fatal(err)
	}
	defer func(d time.Duration) { migrations.LockWait = d }(migrations.LockWait)
	migrations.LockWait = 100 * time.Millisecond
	if err := migrations.Migrate(context.Background(), open(t, url)); err != nil {
		t.Fatalf("migrating a current database waited for the lock: %v", err)
	}
}

// TestMigrateKilledHalfWay kills a process that is migrating, at several
// points of its run, the way kill -9 does; each time the next Migrate must
// complete the database unaided.
func TestMigrateKilledHalfWay(t *testing.T) {
	if os.Getenv("MIGRATE_CHILD_URL") != "" {
		t.Skip("runs in the child only as TestMigrateChild")
	}
	want := reference(t)
	for _, delay := range []time.Duration{0, 2 * time.Millisecond, 10 * time.Millisecond, 30 * time.Millisecond, 80 * time.Millisecond, 200 * time.Millisecond} {
		t.Run(delay.String(), func(t *testing.T) {
			url := testdb.NewEmpty(t)
			cmd := exec.Command(os.Args[0], "-test.run=^TestMigrateChild$")
			cmd.Env = append(os.Environ(), "MIGRATE_CHILD_URL="+url)
			out, err := cmd.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			lines := bufio.NewScanner(out)
			for lines.Scan() && lines.Text() != "migrating" {
			}
			time.Sleep(delay)
			cmd.Process.Kill() //nolint:errcheck // it may have finished already
			cmd.Wait()         //nolint:errcheck // killed on purpose

			if err := migrations.Migrate(context.Background(), open(t, url)); err != nil {
				t.Fatalf("migrate after a kill %s into migrating: %v", delay, err)
			}
			if got := schemaOf(t, open(t, url)); got != want {
				t.Fatalf("after a kill %s in, migrating made a different schema:\n%s\nwant\n%s", delay, got, want)
			}
		})
	}
}

// TestMigrateChild is the process TestMigrateKilledHalfWay kills.
func TestMigrateChild(t *testing.T) {
	url := os.Getenv("MIGRATE_CHILD_URL")
	if url == "" {
		t.Skip("the child process of TestMigrateKilledHalfWay")
	}
	db, err := database.Open(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	fmt.Println("migrating")
	if err := migrations.Migrate(context.Background(), db); err != nil {
		t.Fatal(err)
	}
}
