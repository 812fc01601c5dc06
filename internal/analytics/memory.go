package analytics

import (
	"context"
	"database/sql"

	"github.com/uptrace/bun"
)

// reportWorkMem is the memory a report's statement may give one hash or
// sort before it spills to disk: a 90-day window of a large store hashes
// 156,000 variant rows of their sums (39 MB); with the server's default
// (4 MB) PostgreSQL sorted them on disk instead, 691 ms against 375 ms
// (EXPLAIN ANALYZE, 1,000,000 orders).
const reportWorkMem = "64MB"

// withWorkMem runs read in a read-only transaction whose statements have
// reportWorkMem.
func withWorkMem(ctx context.Context, db bun.IDB, read func(bun.IDB) error) error {
	return db.RunInTx(ctx, &sql.TxOptions{ReadOnly: true}, func(ctx context.Context, tx bun.Tx) error {
		if _, err := tx.ExecContext(ctx, "SET LOCAL work_mem = '"+reportWorkMem+"'"); err != nil {
			return err
		}
		return read(tx)
	})
}
