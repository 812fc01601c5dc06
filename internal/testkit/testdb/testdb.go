// Package testdb gives each test its own migrated PostgreSQL database, quickly.
//
// Every package that uses it must route its tests through Main:
//
//	func TestMain(m *testing.M) { testdb.Main(m) }
//
// The server is the one named by $TEST_DATABASE_URL if set (any database on a
// server where we may CREATE DATABASE), otherwise a throwaway server that
// pgembed starts in a temporary folder and Main stops and removes at the end.
//
// Migrations run once per test process, into a template database; New then
// clones it, which takes milliseconds instead of re-running every migration.
package testdb

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net/url"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/uptrace/bun"

	"storeadmin/internal/base/database"
	"storeadmin/internal/base/pgembed"
	"storeadmin/migrations"
)

// tempPrefix names our throwaway server folders, so that a later run can find
// and remove the ones whose process died before Main could clean up.
const tempPrefix = "storeadmin-testdb-"

var (
	mainCalled atomic.Bool

	setupOnce sync.Once
	env       *environment // nil until setupOnce succeeded
	setupErr  error
	// current is env from the moment it exists, so that an interrupt
	// during setup still stops a server that is already running.
	current atomic.Pointer[environment]

	// Clones of one template must not run concurrently: PostgreSQL refuses
	// to copy a database that another session is using.
	createMu sync.Mutex
	seq      atomic.Int64
)

type environment struct {
	base   *url.URL // a database URL on the server; its path is swapped per database
	admin  *bun.DB  // where CREATE and DROP DATABASE run
	prefix string   // unique per process: test processes may share one server
	tmpl   string
	// cloneOpts ends CREATE DATABASE ... TEMPLATE; see startServer.
	cloneOpts string

	srv     *pgembed.Server // nil when using $TEST_DATABASE_URL
	tempDir string
	lock    *os.File // held while tempDir is in use; see sweepOrphans

	closeOnce sync.Once
}

// Main runs the tests of a package and then removes what they created: the
// throwaway server and its folder, or the template database on the server
// named by $TEST_DATABASE_URL. Call it from TestMain; New refuses to work
// without it, because nothing else would stop the server.
func Main(m *testing.M) {
	mainCalled.Store(true)
	// A test run stopped by Ctrl-C or SIGTERM would otherwise leave its
	// server running: pg_ctl detaches it from our session, so the signal
	// does not reach it. Harder deaths are left to sweepOrphans.
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	go func() {
		sig := <-sigs
		teardown()
		fmt.Fprintf(os.Stderr, "testdb: %v: stopped the test database server\n", sig)
		os.Exit(2)
	}()
	code := m.Run()
	signal.Stop(sigs)
	teardown()
	os.Exit(code)
}

// New returns a fresh, migrated, empty database for this test, dropped in
// t.Cleanup.
func New(t testing.TB) (db *bun.DB, url string) {
	t.Helper()
	e := setup(t)
	name := fmt.Sprintf("%s_%d", e.prefix, seq.Add(1))

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := e.createDatabase(ctx, name); err != nil {
		t.Fatalf("testdb: %v", err)
	}
	url = e.url(name)
	db, err := database.Open(ctx, url)
	if err != nil {
		e.dropDatabase(name) //nolint:errcheck // the open error matters more
		t.Fatalf("testdb: %v", err)
	}
	t.Cleanup(func() {
		db.Close()
		if err := e.dropDatabase(name); err != nil {
			t.Errorf("testdb: %v", err)
		}
	})
	return db, url
}

// NewEmpty creates an empty database (no migrations applied) on the server
// that New uses, dropped in t.Cleanup, and returns its URL: for tests of
// migrating itself.
func NewEmpty(t testing.TB) string {
	t.Helper()
	e := setup(t)
	name := fmt.Sprintf("%s_%d", e.prefix, seq.Add(1))
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := e.admin.ExecContext(ctx, "CREATE DATABASE "+quote(name)); err != nil {
		t.Fatalf("testdb: create database %s: %v", name, err)
	}
	t.Cleanup(func() {
		if err := e.dropDatabase(name); err != nil {
			t.Errorf("testdb: %v", err)
		}
	})
	return e.url(name)
}

// ServerURL is the URL of database dbname on the server that New uses, for
// tests that need a database other than a migrated clone (e.g. to test the
// migrate command on an empty one). It does not create the database.
func ServerURL(t testing.TB, dbname string) string {
	t.Helper()
	return setup(t).url(dbname)
}

func setup(t testing.TB) *environment {
	t.Helper()
	if !mainCalled.Load() {
		t.Fatal("testdb: testdb.Main was not called; add to this package's tests:\n\tfunc TestMain(m *testing.M) { testdb.Main(m) }")
	}
	setupOnce.Do(func() {
		e, err := newEnvironment()
		if err != nil {
			setupErr = err
			return
		}
		env = e
	})
	if setupErr != nil {
		t.Fatalf("testdb: %v", setupErr)
	}
	return env
}

func newEnvironment() (e *environment, err error) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()

	var rnd [4]byte
	if _, err := rand.Read(rnd[:]); err != nil {
		return nil, err
	}
	tag := fmt.Sprintf("%d_%s", os.Getpid(), hex.EncodeToString(rnd[:]))
	e = &environment{prefix: "storeadmin_test_" + tag, tmpl: "storeadmin_tmpl_" + tag}
	current.Store(e)
	defer func() {
		if err != nil {
			e.close()
		}
	}()

	if raw := os.Getenv("TEST_DATABASE_URL"); raw != "" {
		u, err := url.Parse(raw)
		if err != nil || (u.Scheme != "postgres" && u.Scheme != "postgresql") {
			return e, fmt.Errorf("TEST_DATABASE_URL must be a postgres:// URL, got %q", raw)
		}
		e.base = u
	} else {
		if err := e.startServer(ctx); err != nil {
			return e, err
		}
	}

	if e.admin, err = database.Open(ctx, e.base.String()); err != nil {
		return e, err
	}
	if _, err := e.admin.ExecContext(ctx, "CREATE DATABASE "+quote(e.tmpl)); err != nil {
		return e, fmt.Errorf("create template database: %w", err)
	}
	tdb, err := database.Open(ctx, e.url(e.tmpl))
	if err != nil {
		return e, err
	}
	err = migrations.Migrate(ctx, tdb)
	tdb.Close() // a template with open sessions cannot be cloned
	if err != nil {
		return e, fmt.Errorf("migrate template database: %w", err)
	}
	return e, nil
}

func (e *environment) startServer(ctx context.Context) error {
	sweepOrphans()
	dir, err := os.MkdirTemp(scratchDir(), tempPrefix+strconv.Itoa(os.Getpid())+"-*")
	if err != nil {
		return err
	}
	e.tempDir = dir
	// The server runs as user postgres when we are root; MkdirTemp's 0700
	// would keep it out.
	if err := os.Chmod(dir, 0o755); err != nil {
		return err
	}
	if e.lock, err = lockFile(filepath.Join(dir, "owner.lock"), true); err != nil {
		return err
	}
	e.srv, err = pgembed.Start(ctx, pgembed.Config{DataDir: filepath.Join(dir, "data"), Fast: true})
	if err != nil {
		return err
	}
	// FILE_COPY copies the template's files instead of writing every page
	// to the WAL; its price, two checkpoints per clone, is nothing with
	// fsync off, and the clone takes about two thirds of the time. On a
	// shared server with fsync on, those checkpoints would hurt everyone,
	// so $TEST_DATABASE_URL keeps the server's default.
	e.cloneOpts = " STRATEGY FILE_COPY"
	e.base, err = url.Parse(e.srv.URL("postgres"))
	return err
}

// sweepOrphans removes throwaway servers of test processes that died without
// running Main's cleanup (e.g. killed by `go test -timeout`). A folder's owner
// holds a lock on it while alive; the kernel drops that lock when the process
// dies, however it dies.
func sweepOrphans() {
	dirs, _ := filepath.Glob(filepath.Join(scratchDir(), tempPrefix+"*"))
	for _, dir := range dirs {
		// A folder this young may belong to a process that has created
		// it but not yet locked it.
		if fi, err := os.Stat(dir); err != nil || time.Since(fi.ModTime()) < time.Minute {
			continue
		}
		lock, err := lockFile(filepath.Join(dir, "owner.lock"), false)
		if err != nil {
			continue // alive, or not ours to judge
		}
		if err := pgembed.StopDataDir(pgembed.Config{DataDir: filepath.Join(dir, "data")}); err == nil {
			os.RemoveAll(dir)
		}
		lock.Close()
	}
}

// lockFile takes an exclusive flock on path without waiting.
func lockFile(path string, create bool) (*os.File, error) {
	flag := os.O_RDWR
	if create {
		flag |= os.O_CREATE
	}
	f, err := os.OpenFile(path, flag, 0o600)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

func (e *environment) url(dbname string) string {
	u := *e.base
	u.Path = "/" + dbname
	u.RawPath = ""
	return u.String()
}

func (e *environment) createDatabase(ctx context.Context, name string) error {
	createMu.Lock()
	defer createMu.Unlock()
	q := "CREATE DATABASE " + quote(name) + " TEMPLATE " + quote(e.tmpl) + e.cloneOpts
	backoff := 20 * time.Millisecond
	for attempt := 1; ; attempt++ {
		_, err := e.admin.ExecContext(ctx, q)
		var pgErr *pgconn.PgError
		// 55006 object_in_use: "source database is being accessed by other
		// users", e.g. a template session that has not quite ended yet.
		if err == nil || !errors.As(err, &pgErr) || pgErr.Code != "55006" || attempt == 5 {
			if err != nil {
				return fmt.Errorf("create database %s: %w", name, err)
			}
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("create database %s: %w", name, err)
		case <-time.After(backoff):
		}
		backoff *= 2
	}
}

func (e *environment) dropDatabase(name string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	// FORCE: a test may leave sessions behind (an unclosed Tx or Rows), and
	// they must not keep its database alive.
	if _, err := e.admin.ExecContext(ctx, "DROP DATABASE IF EXISTS "+quote(name)+" WITH (FORCE)"); err != nil {
		return fmt.Errorf("drop database %s: %w", name, err)
	}
	return nil
}

func teardown() {
	if e := current.Load(); e != nil {
		e.close()
	}
}

// close may run while tests still use e (after an interrupt), so it only
// closes things, which makes their users fail cleanly, and never clears them.
func (e *environment) close() {
	e.closeOnce.Do(func() {
		if e.admin != nil {
			// A throwaway server goes away as a whole; only a shared
			// one needs its template dropped.
			if e.srv == nil {
				if err := e.dropDatabase(e.tmpl); err != nil {
					fmt.Fprintf(os.Stderr, "testdb: %v\n", err)
				}
			}
			e.admin.Close()
		}
		if e.srv != nil {
			if err := e.srv.Stop(); err != nil {
				fmt.Fprintf(os.Stderr, "testdb: %v\n", err)
			}
		}
		if e.tempDir != "" {
			os.RemoveAll(e.tempDir)
		}
		if e.lock != nil {
			e.lock.Close()
		}
	})
}

// quote makes name an identifier whose case PostgreSQL keeps.
func quote(name string) string {
	return `"` + strings.ReplaceAll(name, `"`, `""`) + `"`
}

// scratchDir is where throwaway servers live: memory-backed /dev/shm when the
// machine has it (CREATE DATABASE writes some 300 files, ten times faster
// there) when it is writable and roomy (containers often give it 64 MiB,
// less than a cluster needs), else the temp folder. TMPDIR, when set, wins.
func scratchDir() string {
	const shm, minFree = "/dev/shm", 1 << 30
	var st syscall.Statfs_t
	if os.Getenv("TMPDIR") == "" && syscall.Access(shm, 0x2 /* W_OK */) == nil &&
		syscall.Statfs(shm, &st) == nil && st.Bavail*uint64(st.Bsize) >= minFree {
		return shm
	}
	return os.TempDir()
}
