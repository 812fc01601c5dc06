package database

import (
	"context"
	"database/sql"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/jackc/pgx/v5"
)

// statementCounter counts the statements a pool's connections send, at the
// driver: what goes through bun and what reads with pgx directly
// (models' row scanner) alike. Transaction control (begin, commit,
// rollback) is not a statement of the work, and River's own statements
// (its polling for jobs, leader election and upkeep, on its own schedule)
// are nobody's request's: neither is counted.
type statementCounter struct{ n atomic.Int64 }

func (c *statementCounter) TraceQueryStart(ctx context.Context, _ *pgx.Conn, q pgx.TraceQueryStartData) context.Context {
	if !transactionControl(q.SQL) && !river(q.SQL) {
		c.n.Add(1)
	}
	return ctx
}

func (c *statementCounter) TraceQueryEnd(context.Context, *pgx.Conn, pgx.TraceQueryEndData) {}

// transactionControl reports whether sql is pgx's begin, commit or
// rollback (which pgx writes in lower case).
func transactionControl(sql string) bool {
	return strings.HasPrefix(sql, "begin") || sql == "commit" || sql == "rollback"
}

// river reports whether sql is one of River's queries, which sqlc wrote:
// each starts with its name.
func river(sql string) bool { return strings.HasPrefix(sql, "-- name: ") }

// counters are the counters of the pools Open made.
var counters sync.Map // *sql.DB -> *statementCounter

// Statements is how many statements the pool db (made by Open) has sent:
// what tests and the benchmark count a request's statements with.
func Statements(db *sql.DB) int64 {
	if c, ok := counters.Load(db); ok {
		return c.(*statementCounter).n.Load()
	}
	return 0
}
