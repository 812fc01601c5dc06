package models

import (
	"context"

	"github.com/uptrace/bun"
)

// The reads of funnel runs for the admin API: an order's run, a run's
// offers, and the records they lead to that no other relation reads by
// id (a run's zone, an offer's step, an offer's order line). Each reads
// the records of many keys in one statement, for a dataloader; the run
// time writes these rows (funnel_run_*.go), nothing here does.

// FunnelRunsByOrder loads the runs of several orders (at most one an
// order), for a dataloader.
func FunnelRunsByOrder(ctx context.Context, db bun.IDB, storeID int64, orderIDs []int64, cols Columns) ([]FunnelRun, error) {
	out := make([]FunnelRun, 0, len(orderIDs)) // at most one row per order
	err := scanRows(ctx, db, db.NewSelect().Model(&out).Apply(cols.Apply).
		Where("store_id = ? AND order_id IN (?)", storeID, bun.List(orderIDs)), &out)
	return out, err
}

// OffersByRun loads the offers of several runs, by position, for a
// dataloader.
func OffersByRun(ctx context.Context, db bun.IDB, storeID int64, runIDs []int64, cols Columns) ([]FunnelRunOffer, error) {
	out := manyRows[FunnelRunOffer](len(runIDs))
	err := scanRows(ctx, db, db.NewSelect().Model(&out).Apply(cols.Apply).
		Where("store_id = ? AND run_id IN (?)", storeID, bun.List(runIDs)).Order("run_id", "position"), &out)
	return out, err
}

// CheckoutZonesByID loads zones of the store by id, with their region
// warnings, for a dataloader (the zone a run entered in).
func CheckoutZonesByID(ctx context.Context, db bun.IDB, storeID int64, ids []int64, _ Columns) ([]CheckoutZone, error) {
	out := make([]CheckoutZone, 0, len(ids)) // at most one row per id
	err := scanRows(ctx, db, selectCheckoutZones(db, storeID, &out).Where("z.id IN (?)", bun.List(ids)), &out)
	return out, err
}

// FunnelStepsByID loads steps of the store by id, with their availability
// as it is now, for a dataloader (the step an offer was made from).
func FunnelStepsByID(ctx context.Context, db bun.IDB, storeID int64, ids []int64, _ Columns) ([]FunnelStep, error) {
	out := make([]FunnelStep, 0, len(ids)) // at most one row per id
	err := selectSteps(db, storeID, &out).Where("fs.id IN (?)", bun.List(ids)).Scan(ctx)
	return out, err
}

// LineItemsByID loads order lines of the store by id, for a dataloader
// (the line an accepted offer added).
func LineItemsByID(ctx context.Context, db bun.IDB, storeID int64, ids []int64, cols Columns) ([]OrderLineItem, error) {
	out := make([]OrderLineItem, 0, len(ids)) // at most one row per id
	err := scanRows(ctx, db, db.NewSelect().Model(&out).Apply(cols.Apply).
		Where("store_id = ? AND id IN (?)", storeID, bun.List(ids)), &out)
	return out, err
}

// FunnelRunCount is how many runs a funnel has had, in every state.
type FunnelRunCount struct {
	FunnelID int64 `bun:"funnel_id"`
	Count    int64 `bun:"count"`
}

// RunCountsByFunnel counts the runs of several funnels, for a dataloader;
// a funnel without runs has no row (funnel_runs_funnel_idx finds them).
func RunCountsByFunnel(ctx context.Context, db bun.IDB, storeID int64, ids []int64, _ Columns) ([]FunnelRunCount, error) {
	out := make([]FunnelRunCount, 0, len(ids)) // at most one row per id
	err := db.NewSelect().TableExpr("funnel_runs").ColumnExpr("funnel_id, count(*) AS count").
		Where("store_id = ? AND funnel_id IN (?)", storeID, bun.List(ids)).Group("funnel_id").Scan(ctx, &out)
	return out, err
}
