// Package migrations holds the ordered SQL migrations of the storeadmin
// database and applies them with bun's migrator.
//
// Files are named <timestamp>_<name>.up.sql (and .down.sql); bun records the
// applied ones in bun_migrations, so Migrate is safe to run on every start.
package migrations

import (
	"context"
	"embed"
	"fmt"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/migrate"
)

//go:embed *.sql
var files embed.FS

// Migrate applies every migration that the database does not have yet.
// Concurrent callers are serialised by bun's migration lock table.
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
	return nil
}
