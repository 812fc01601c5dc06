// Package migrations holds the ordered SQL migrations of the storeadmin
// database and applies them with bun's migrator, followed by River's own
// migrations (the job queue the events engine uses).
//
// Files are named <timestamp>_<name>.up.sql (and .down.sql); bun records the
// applied ones in bun_migrations, River its own in river_migration, so
// Migrate is safe to run on every start.
package migrations

import (
	"context"
	"embed"
	"fmt"

	"github.com/riverqueue/river/riverdriver/riverdatabasesql"
	"github.com/riverqueue/river/rivermigrate"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/migrate"
)

//go:embed *.sql
var files embed.FS

// Migrate applies every migration that the database does not have yet: ours,
// then River's. Concurrent callers are serialised by bun's migration lock
// table, which is held for both.
func Migrate(ctx context.Context, db *bun.DB) error {
	ms := migrate.NewMigrations()
	if err := ms.Discover(files); err != nil {
		return fmt.Errorf("discover migrations: %w", err)
	}
	m := migrate.NewMigrator(db, ms)
	if err := m.Init(ctx); err != nil {
		return fmt.Errorf("init migrations: %w", err)
	}
	if err := m.Lock(ctx); err != nil {
		return fmt.Errorf("lock migrations: %w", err)
	}
	defer m.Unlock(ctx) //nolint:errcheck
	if _, err := m.Migrate(ctx); err != nil {
		return fmt.Errorf("apply migrations: %w", err)
	}
	return migrateRiver(ctx, db)
}

// migrateRiver creates or upgrades River's tables (river_job and friends)
// through the same database/sql pool the engine uses.
func migrateRiver(ctx context.Context, db *bun.DB) error {
	rm, err := rivermigrate.New(riverdatabasesql.New(db.DB), nil)
	if err != nil {
		return fmt.Errorf("river migrations: %w", err)
	}
	if _, err := rm.Migrate(ctx, rivermigrate.DirectionUp, nil); err != nil {
		return fmt.Errorf("apply river migrations: %w", err)
	}
	return nil
}
