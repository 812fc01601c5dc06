package resolvers

import (
	"context"

	"github.com/uptrace/bun"

	"storeadmin/internal/audit"
	"storeadmin/models"
)

// maxPauseReason bounds the reason a pause is given.
const maxPauseReason = 500

// changeExperiment runs change on one of the caller's store's experiments
// in a transaction, its row locked (so racing transitions serialize and
// each sees the status the one before left), notes the write in the audit
// log and answers the experiment as changed.
func (r *Resolver) changeExperiment(ctx context.Context, id int64, change func(tx bun.Tx, e *models.Experiment) error) (*models.Experiment, error) {
	sid, err := storeID(ctx)
	if err != nil {
		return nil, err
	}
	var e *models.Experiment
	err = r.db(ctx).RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		if e, err = models.LockExperiment(ctx, tx, sid, id); err != nil {
			return err
		}
		return change(tx, e)
	})
	if err != nil {
		return nil, err
	}
	audit.Touch(ctx, "experiment", id)
	return e, nil
}
