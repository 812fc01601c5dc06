package seed

import (
	"context"
	"time"

	"github.com/uptrace/bun"

	"storeadmin/internal/analytics"
)

// insights runs the insights finders for the seed's yesterday, as the
// daily job would have, over the traffic, carts, checkouts and orders the
// areas before made: the demo's findings are whatever its data holds. A
// store with insights computed already (a second run, or a store the job
// reached) is left alone.
func insights(ctx context.Context, tx bun.Tx, storeID int64, now time.Time) error {
	computed, err := tx.NewSelect().Table("insight_runs").Where("store_id = ?", storeID).Exists(ctx)
	if err != nil || computed {
		return err
	}
	_, err = analytics.ComputeInsights(ctx, tx, storeID, now)
	return err
}
