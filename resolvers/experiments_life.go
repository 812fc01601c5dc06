package resolvers

import (
	"context"
	"encoding/json"

	"github.com/uptrace/bun"

	"storeadmin/internal/audit"
	"storeadmin/internal/themesettings"
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

// storePools is the platform's pools as the store sees them, each with
// changes_nothing: whether every arm, laid over the store's live theme
// version or its page of the pool's handle, shows the same thing. Four
// statements whatever the number of pools.
func storePools(ctx context.Context, db bun.IDB, sid int64) ([]models.ExperimentStorePool, error) {
	pools, err := models.ListStorePools(ctx, db, sid)
	if err != nil || len(pools) == 0 {
		return pools, err
	}
	ids, handles := make([]int64, len(pools)), []string{}
	for i, p := range pools {
		ids[i] = p.PoolID
		if s, ok := p.Read.Surface.(map[string]any); ok {
			if h, ok := s["page_handle"].(string); ok {
				handles = append(handles, h)
			}
		}
	}
	arms, err := models.PoolVariantsByPool(ctx, db, sid, ids, models.Columns{})
	if err != nil {
		return nil, err
	}
	live, err := models.LivePublishedTheme(ctx, db, sid)
	if err != nil {
		return nil, err
	}
	pages, err := models.PagesByHandle(ctx, db, sid, handles)
	if err != nil {
		return nil, err
	}
	for i := range pools {
		p := pools[i].Read
		var shown []any
		for _, a := range arms {
			if a.PoolID != p.ID {
				continue
			}
			payload, _ := a.Payload.(map[string]any)
			switch p.Kind {
			case models.ExperimentKindTheme:
				if live == nil {
					break
				}
				shown = append(shown, themesettings.Merge(live.Settings, payload["settings"]))
			case models.ExperimentKindContent:
				handle, _ := p.Surface.(map[string]any)["page_handle"].(string)
				page, ok := pages[handle]
				if !ok {
					break
				}
				title, body := models.ContentShown(page.Title, page.BodyHTML, payload)
				shown = append(shown, []string{title, body})
			}
		}
		if len(shown) > 0 {
			same := true
			for _, s := range shown[1:] {
				same = same && jsonOf(s) == jsonOf(shown[0])
			}
			pools[i].ChangesNothing = &same
		}
	}
	// The list read its pools: the graph's relation answers from them, so
	// their own relations (arms, experiments) load once for all.
	return pools, storePoolPool.Prime(ctx, pools, func(p *models.ExperimentStorePool) *models.ExperimentPool { return p.Read })
}

// jsonOf is v as JSON text, so that values decoded differently (a number
// as json.Number or float64) compare by what they say.
func jsonOf(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
