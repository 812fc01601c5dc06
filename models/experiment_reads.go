package models

import (
	"context"

	"github.com/uptrace/bun"
)

// VariantsByExperiment loads the arms of several experiments of the store,
// by position, for a dataloader.
func VariantsByExperiment(ctx context.Context, db bun.IDB, storeID int64, ids []int64, cols Columns) ([]ExperimentVariant, error) {
	out := manyRows[ExperimentVariant](len(ids))
	err := scanRows(ctx, db, db.NewSelect().Model(&out).Apply(cols.Apply).
		Where("store_id = ? AND experiment_id IN (?)", storeID, bun.List(ids)).Order("experiment_id", "position"), &out)
	return out, err
}

// PausesByExperiment loads the pause logs of several experiments of the
// store, oldest pause first, for a dataloader.
func PausesByExperiment(ctx context.Context, db bun.IDB, storeID int64, ids []int64, cols Columns) ([]ExperimentPauseInterval, error) {
	out := manyRows[ExperimentPauseInterval](len(ids))
	err := scanRows(ctx, db, db.NewSelect().Model(&out).Apply(cols.Apply).
		Where("store_id = ? AND experiment_id IN (?)", storeID, bun.List(ids)).Order("experiment_id", "paused_at", "id"), &out)
	return out, err
}

// PoolVariantsByPool loads the arms of several pools by the pools'
// numbers, by position, for a dataloader: pools are the same for every
// store, so storeID reads nothing.
func PoolVariantsByPool(ctx context.Context, db bun.IDB, _ int64, ids []int64, _ Columns) ([]ExperimentPoolVariant, error) {
	out := manyRows[ExperimentPoolVariant](len(ids))
	err := scanRows(ctx, db, db.NewSelect().Model(&out).ColumnExpr("xpv.*, xp.id AS pool_id").
		Join("JOIN experiment_pools AS xp ON xp.key = xpv.pool_key").
		Where("xp.id IN (?)", bun.List(ids)).Order("xp.id", "xpv.position"), &out)
	return out, err
}

// GetExperiment reads one experiment of the store: another store's is not
// found.
func GetExperiment(ctx context.Context, db bun.IDB, storeID, id int64) (*Experiment, error) {
	e := new(Experiment)
	err := db.NewSelect().Model(e).Where("store_id = ? AND id = ?", storeID, id).Scan(ctx)
	return e, classify(err, "the experiment")
}

// ExperimentArms reads an experiment's arms by position.
func ExperimentArms(ctx context.Context, db bun.IDB, storeID, experimentID int64) ([]ExperimentVariant, error) {
	out := []ExperimentVariant{}
	err := db.NewSelect().Model(&out).Where("store_id = ? AND experiment_id = ?", storeID, experimentID).Order("position").Scan(ctx)
	return out, err
}
