// Package migrations holds the ordered SQL migrations of the storeadmin
// database and applies them, followed by River's own migrations (the job
// queue the events engine uses).
//
// Files are named <timestamp>_<name>.up.sql (and .down.sql, kept for people:
// nothing here runs them). Applied ones are recorded in bun_migrations (the
// table bun's migrator used to keep, in its shape, so databases migrated by
// earlier versions carry on), River's in river_migration.
//
// Any number of processes may call Migrate at once against one database:
//
//   - A database already current costs two reads and takes no lock, so
//     commands that do not change the schema never wait on each other.
//   - Otherwise the caller takes a PostgreSQL session advisory lock and waits
//     for it (at most LockWait). The server releases that lock when the
//     session ends, however the process died, so a crash never leaves a
//     stale lock behind for someone to clear by hand.
//   - Everything is created under that lock, the bookkeeping tables
//     included, and each migration runs in one transaction together with its
//     record (ours in bun_migrations, River's in river_migration): a
//     migration killed half-way leaves nothing behind, and the next caller
//     applies it again from the start.
package migrations

import (
	"context"
	"database/sql"
	"embed"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"slices"
	"strings"
	"time"

	"github.com/riverqueue/river/riverdriver/riverdatabasesql"
	"github.com/riverqueue/river/rivermigrate"
	"github.com/uptrace/bun"
)

//go:embed *.sql
var files embed.FS

// LockWait is how long Migrate waits for another process's migration to
// finish before it gives up.
var LockWait = 2 * time.Minute

// LockKey names storeadmin's migration lock among the database's advisory
// locks (the first 8 bytes of SHA-256("storeadmin migrations")).
const LockKey int64 = 0x3c1f6a2d7e9b4051

// table is where applied migrations are recorded (bun's name and shape).
const table = "bun_migrations"

// migration is one SQL file to apply.
type migration struct {
	name string // the file name without .up.sql
	sql  string
}

// Migrate applies every migration the database does not have yet: ours,
// then River's. It returns at once when there is nothing to apply.
func Migrate(ctx context.Context, db *bun.DB) error {
	ours, river, err := all(db)
	if err != nil {
		return err
	}
	if current, err := isCurrent(ctx, db.DB, ours, river); err == nil && current {
		return nil
	}

	conn, err := db.DB.Conn(ctx)
	if err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	defer conn.Close()
	unlock, err := lock(ctx, conn)
	if err != nil {
		return err
	}
	defer unlock()

	if _, err := conn.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS `+table+` (
		id bigserial PRIMARY KEY, name varchar, group_id bigint,
		migrated_at timestamptz NOT NULL DEFAULT current_timestamp)`); err != nil {
		return fmt.Errorf("create %s: %w", table, err)
	}
	applied, group, err := appliedNames(ctx, conn)
	if err != nil {
		return err
	}
	for _, m := range ours {
		if applied[m.name] {
			continue
		}
		if err := apply(ctx, conn, m, group+1); err != nil {
			return err
		}
	}
	// River applies each of its versions in a transaction of its own with
	// its record (one transaction cannot hold them all: a later version uses
	// an enum value an earlier one adds), on another connection of the
	// pool; our lock still serialises it.
	if _, err := river.Migrate(ctx, rivermigrate.DirectionUp, nil); err != nil {
		return fmt.Errorf("apply river migrations: %w", err)
	}
	return nil
}

// discover reads the up migrations in the order they apply.
func discover() ([]migration, error) {
	names, err := fs.Glob(files, "*.up.sql")
	if err != nil {
		return nil, err
	}
	slices.Sort(names)
	out := make([]migration, 0, len(names))
	for _, n := range names {
		body, err := files.ReadFile(n)
		if err != nil {
			return nil, err
		}
		out = append(out, migration{name: strings.TrimSuffix(n, ".up.sql"), sql: string(body)})
	}
	return out, nil
}

// Current tells whether every migration, ours and River's, is applied to
// db: what a replica needs before it serves (GET /readyz). It takes no lock.
func Current(ctx context.Context, db *bun.DB) (bool, error) {
	ours, river, err := all(db)
	if err != nil {
		return false, err
	}
	return isCurrent(ctx, db.DB, ours, river)
}

// all is every migration: ours, in order, and River's migrator on db.
func all(db *bun.DB) ([]migration, *rivermigrate.Migrator[*sql.Tx], error) {
	ours, err := discover()
	if err != nil {
		return nil, nil, err
	}
	river, err := rivermigrate.New(riverdatabasesql.New(db.DB), &rivermigrate.Config{Logger: quietLogger()})
	if err != nil {
		return nil, nil, fmt.Errorf("river migrations: %w", err)
	}
	return ours, river, nil
}

// isCurrent tells, without locking, whether every migration is applied. Any
// error (a fresh database has no bookkeeping tables yet) means "not known
// to be", and the caller takes the slow path.
func isCurrent(ctx context.Context, db *sql.DB, ours []migration, river *rivermigrate.Migrator[*sql.Tx]) (bool, error) {
	var exists bool
	if err := db.QueryRowContext(ctx, "SELECT to_regclass($1) IS NOT NULL", table).Scan(&exists); err != nil || !exists {
		return false, err
	}
	var missing bool
	err := db.QueryRowContext(ctx, "SELECT EXISTS (SELECT FROM unnest($1::text[]) n WHERE n NOT IN (SELECT name FROM "+table+"))",
		names(ours)).Scan(&missing)
	if err != nil || missing {
		return false, err
	}
	res, err := river.Validate(ctx, nil)
	if err != nil {
		return false, err
	}
	return res.OK, nil
}

func names(ms []migration) []string {
	out := make([]string, len(ms))
	for i, m := range ms {
		out[i] = m.name
	}
	return out
}

// lock takes the migration lock on conn, waiting at most LockWait. The
// returned function releases it; so does the end of conn's session.
func lock(ctx context.Context, conn *sql.Conn) (func(), error) {
	wctx, cancel := context.WithTimeout(ctx, LockWait)
	defer cancel()
	if _, err := conn.ExecContext(wctx, "SELECT pg_advisory_lock($1)", LockKey); err != nil {
		if ctx.Err() == nil && wctx.Err() != nil {
			return nil, fmt.Errorf("another storeadmin process has been migrating this database for over %s; "+
				"wait for it to finish (or stop it) and try again", LockWait)
		}
		return nil, fmt.Errorf("take the migration lock: %w", err)
	}
	return func() {
		// A failure here leaves the lock to the end of the session, which
		// closing conn brings at once.
		conn.ExecContext(context.WithoutCancel(ctx), "SELECT pg_advisory_unlock($1)", LockKey) //nolint:errcheck
	}, nil
}

// appliedNames reads the recorded migrations and the last group number.
func appliedNames(ctx context.Context, conn *sql.Conn) (map[string]bool, int64, error) {
	rows, err := conn.QueryContext(ctx, "SELECT name, coalesce(group_id, 0) FROM "+table)
	if err != nil {
		return nil, 0, fmt.Errorf("read %s: %w", table, err)
	}
	defer rows.Close()
	applied := map[string]bool{}
	var last int64
	for rows.Next() {
		var name string
		var group int64
		if err := rows.Scan(&name, &group); err != nil {
			return nil, 0, err
		}
		applied[name] = true
		last = max(last, group)
	}
	return applied, last, rows.Err()
}

// apply runs one migration and records it in the same transaction.
func apply(ctx context.Context, conn *sql.Conn, m migration, group int64) error {
	return inTx(ctx, conn, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, m.sql); err != nil {
			return fmt.Errorf("apply migration %s: %w", m.name, err)
		}
		if _, err := tx.ExecContext(ctx, "INSERT INTO "+table+" (name, group_id) VALUES ($1, $2)", m.name, group); err != nil {
			return fmt.Errorf("record migration %s: %w", m.name, err)
		}
		return nil
	})
}

func inTx(ctx context.Context, conn *sql.Conn, fn func(*sql.Tx) error) error {
	tx, err := conn.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	if err := fn(tx); err != nil {
		return errors.Join(err, tx.Rollback())
	}
	return tx.Commit()
}

// quietLogger keeps River's migrator from announcing what it finds: the
// caller decides what is worth saying.
func quietLogger() *slog.Logger {
	return slog.New(slog.NewTextHandler(io.Discard, nil))
}
