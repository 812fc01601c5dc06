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

// MaxConns is how many connections the pool opens at most, and keeps open
// when they are idle.
const MaxConns = 20

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
	// No JIT compilation unless the URL asks for it (?jit=on): the reports
	// over large stores cross its cost threshold, and compiling their
	// expressions took 16 to 68 ms of every such statement (EXPLAIN ANALYZE
	// on a store of 1,000,000 orders) for nothing back: they are hash
	// aggregates over index reads, done in a few hundred milliseconds.
	if _, set := cfg.RuntimeParams["jit"]; !set {
		cfg.RuntimeParams["jit"] = "off"
	}
	counter := &statementCounter{}
	cfg.Tracer = counter
	sqldb := stdlib.OpenDB(*cfg)
	counters.Store(sqldb, counter)
	sqldb.SetMaxOpenConns(MaxConns)
	// As many idle as open: with fewer (it was 10), every burst wider than
	// the idle limit closed the connections it had opened as it finished,
	// and the next burst opened them again (a TCP connection, a backend
	// process and its authentication each). Under 8 concurrent clients of
	// the benchmark's GraphQL orders page, whose page and count run at
	// once, that churn cost a quarter of the throughput (755 against 960
	// requests/s) and doubled the p99 at 32 connections (131 against 61
	// ms). Idle connections still close after ConnMaxIdleTime.
	sqldb.SetMaxIdleConns(MaxConns)
	sqldb.SetConnMaxIdleTime(5 * time.Minute)
	db := bun.NewDB(sqldb, pgdialect.New())
	pingCtx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if err := db.PingContext(pingCtx); err != nil {
		counters.Delete(sqldb)
		db.Close()
		return nil, fmt.Errorf("connect to database: %w", err)
	}
	return db, nil
}
