package main

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"net/url"
	"os"
	"path/filepath"

	"github.com/uptrace/bun"

	"storeadmin/internal/base/database"
	"storeadmin/internal/base/pgembed"
	"storeadmin/migrations"
)

// embeddedDBName is the database storeadmin keeps in the embedded server.
const embeddedDBName = "storeadmin"

// dbFlags are the flags every command has for finding its database.
type dbFlags struct {
	url     string
	dataDir string
}

func (f *dbFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.url, "database-url", os.Getenv("DATABASE_URL"),
		"PostgreSQL URL (env DATABASE_URL); empty runs an embedded PostgreSQL in --data-dir")
	fs.StringVar(&f.dataDir, "data-dir", envOr("STOREADMIN_DATA_DIR", defaultDataDir()),
		"folder of the embedded PostgreSQL (env STOREADMIN_DATA_DIR)")
}

// defaultDataDir is where the embedded database lives. As root it must be
// somewhere the postgres user can reach, which a home folder is not.
func defaultDataDir() string {
	if os.Geteuid() == 0 {
		return "/var/lib/storeadmin/pgdata"
	}
	if d := os.Getenv("XDG_DATA_HOME"); d != "" {
		return filepath.Join(d, "storeadmin", "pgdata")
	}
	if home, err := os.UserHomeDir(); err == nil {
		return filepath.Join(home, ".local", "share", "storeadmin", "pgdata")
	}
	return "storeadmin-data"
}

// openDB connects (starting the embedded server when there is no URL),
// migrates, and returns a closer that also stops a server it started.
func (f *dbFlags) openDB(ctx context.Context, log *slog.Logger) (*bun.DB, func(), error) {
	dbURL := f.url
	var srv *pgembed.Server
	if dbURL == "" {
		if err := os.MkdirAll(filepath.Dir(f.dataDir), 0o755); err != nil {
			return nil, nil, fmt.Errorf("data dir: %w", err)
		}
		var err error
		srv, err = pgembed.Start(ctx, pgembed.Config{DataDir: f.dataDir, Logf: func(format string, args ...any) {
			log.Info(fmt.Sprintf(format, args...))
		}})
		if err != nil {
			return nil, nil, err
		}
		if err := ensureDatabase(ctx, srv); err != nil {
			srv.Stop()
			return nil, nil, err
		}
		dbURL = srv.URL(embeddedDBName)
		log.Info("embedded PostgreSQL", "data_dir", f.dataDir, "port", srv.Port())
	}
	db, err := database.Open(ctx, dbURL)
	if err == nil {
		err = migrations.Migrate(ctx, db)
	}
	closeAll := func() {
		if db != nil {
			db.Close()
		}
		if srv != nil {
			if err := srv.Stop(); err != nil {
				log.Error("stop embedded PostgreSQL", "error", err)
			}
		}
	}
	if err != nil {
		closeAll()
		return nil, nil, err
	}
	log.Debug("database ready", "url", redact(dbURL))
	return db, closeAll, nil
}

// ensureDatabase creates storeadmin's database in the embedded server.
func ensureDatabase(ctx context.Context, srv *pgembed.Server) error {
	admin, err := database.Open(ctx, srv.URL("postgres"))
	if err != nil {
		return err
	}
	defer admin.Close()
	var exists bool
	if err := admin.NewRaw("SELECT EXISTS (SELECT 1 FROM pg_database WHERE datname = ?)", embeddedDBName).Scan(ctx, &exists); err != nil {
		return err
	}
	if exists {
		return nil
	}
	_, err = admin.ExecContext(ctx, "CREATE DATABASE "+embeddedDBName)
	return err
}

// redact hides the password of a database URL for logs.
func redact(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return "(unparsable URL)"
	}
	return u.Redacted()
}

func envOr(name, def string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return def
}
