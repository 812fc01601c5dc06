// Package database opens the PostgreSQL connection pool that every part of
// storeadmin shares (bun over the pgx driver), and tells an unreachable
// database from every other failure.
package database

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgconn/ctxwatch"
	"github.com/jackc/pgx/v5/stdlib"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/pgdialect"
)

// Open connects to the database at url and checks that it answers.
func Open(ctx context.Context, url string) (*bun.DB, error) {
	cfg, err := pgx.ParseConfig(url)
	if err != nil {
		return nil, fmt.Errorf("open database: %w", err)
	}
	// A query whose request ends (the client hung up, a timeout) is
	// cancelled the way psql does it, with a cancel request on the side,
	// and the connection goes back to the pool in working order. pgx's
	// default instead breaks the connection by setting a past deadline on
	// it, so every abandoned request cost a connection and logged "bad
	// connection" errors for whoever drew it next.
	cfg.BuildContextWatcherHandler = func(c *pgconn.PgConn) ctxwatch.Handler {
		return &pgconn.CancelRequestContextWatcherHandler{Conn: c, DeadlineDelay: 5 * time.Second}
	}
	sqldb := stdlib.OpenDB(*cfg)
	sqldb.SetMaxOpenConns(20)
	sqldb.SetMaxIdleConns(10)
	sqldb.SetConnMaxIdleTime(5 * time.Minute)
	db := bun.NewDB(sqldb, pgdialect.New())
	pingCtx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if err := db.PingContext(pingCtx); err != nil {
		db.Close()
		return nil, fmt.Errorf("connect to database: %w", err)
	}
	return db, nil
}
