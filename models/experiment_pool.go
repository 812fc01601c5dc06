package models

import (
	"context"
	"time"

	"github.com/uptrace/bun"

	"storeadmin/internal/base/apperr"
)

// The platform's pooled tests (README "Pools"): operators create and end
// them (storeadmin experiments pool …); a store joins one by running its
// arms as an experiment of its own (pool_key) and leaves by ending it.

// A store's membership of a pool.
const (
	PoolJoined    = "joined"     // its experiment of the pool runs or is paused
	PoolLeft      = "left"       // its latest experiment of the pool ended
	PoolNotJoined = "not_joined" // it never joined
)

// ExperimentStorePool is a pool as one store sees it.
type ExperimentStorePool struct {
	// ChangesNothing: every arm would show the store the same thing (its
	// live theme or page already is what the arms set); nil when the store
	// has no live theme or no such page (README "Pools").
	ChangesNothing *bool  `json:"changes_nothing"`
	ExperimentID   *int64 `json:"experiment_id"`
	Membership     string `json:"membership"`
	// PoolID is the pool's number, the graph's relation's key; Read is the
	// pool as the list's statement read it, which primes that relation.
	PoolID int64           `json:"-"`
	Read   *ExperimentPool `json:"-"`
}

// PoolsByID loads pools by their numbers, for a dataloader: pools are the
// same for every store, so storeID reads nothing.
func PoolsByID(ctx context.Context, db bun.IDB, _ int64, ids []int64, _ Columns) ([]ExperimentPool, error) {
	out := manyRows[ExperimentPool](len(ids))
	err := db.NewSelect().Model(&out).Where("id IN (?)", bun.List(ids)).Scan(ctx)
	return out, err
}

// storePoolRow is a pool with the store's latest experiment of it.
type storePoolRow struct {
	ExperimentPool `bun:",extend"`

	ExperimentID     *int64  `bun:"experiment_id,scanonly"`
	ExperimentStatus *string `bun:"experiment_status,scanonly"`
}

// ListStorePools lists the platform's pools, running ones first and newest
// first, each with the store's membership, in one statement. Pools are few
// (an operator makes each by hand): the list is not paged.
func ListStorePools(ctx context.Context, db bun.IDB, storeID int64) ([]ExperimentStorePool, error) {
	var rows []storePoolRow
	err := db.NewSelect().Model(&rows).ColumnExpr("xp.*, m.id AS experiment_id, m.status AS experiment_status").
		Join(`LEFT JOIN LATERAL (SELECT ex.id, ex.status FROM experiments AS ex
			WHERE ex.store_id = ? AND ex.pool_key = xp.key ORDER BY ex.id DESC LIMIT 1) AS m ON true`, storeID).
		OrderExpr("xp.status = ? DESC, xp.id DESC", PoolRunning).Scan(ctx)
	out := make([]ExperimentStorePool, len(rows))
	for i := range rows {
		r := &rows[i]
		membership := PoolNotJoined
		if r.ExperimentStatus != nil {
			membership = PoolJoined
			if *r.ExperimentStatus == ExperimentEnded {
				membership = PoolLeft
			}
		}
		out[i] = ExperimentStorePool{ExperimentID: r.ExperimentID, Membership: membership, PoolID: r.ID, Read: &r.ExperimentPool}
	}
	return out, err
}

// PoolsMinStores is the smallest min_stores of the running pools: the
// fewest member stores any pooled test needs before its verdict; 0 when
// none runs.
func PoolsMinStores(ctx context.Context, db bun.IDB) (int64, error) {
	var n int64
	err := db.NewRaw("SELECT coalesce(min(min_stores), 0) FROM experiment_pools WHERE status = ?", PoolRunning).Scan(ctx, &n)
	return n, err
}

// LockPool reads a pool with its arms, its row share-locked until the
// transaction ends so that it cannot end while a store joins it.
func LockPool(ctx context.Context, tx bun.IDB, key string) (*ExperimentPool, []ExperimentPoolVariant, error) {
	p := new(ExperimentPool)
	if err := tx.NewSelect().Model(p).Where("key = ?", key).For("SHARE").Scan(ctx); err != nil {
		return nil, nil, classify(err, "the pool")
	}
	arms := []ExperimentPoolVariant{}
	err := tx.NewSelect().Model(&arms).Where("pool_key = ?", key).Order("position").Scan(ctx)
	return p, arms, err
}

// CreatePool writes a pool (running from now) and its arms, whose shape
// the caller checked (CheckExperimentShape, pooled).
func CreatePool(ctx context.Context, tx bun.IDB, p *ExperimentPool, sh *ExperimentShape, now time.Time) error {
	p.Kind, p.Metric, p.Surface, p.Status = sh.Kind, sh.Metric, sh.Surface, PoolRunning
	p.CreatedAt, p.StartedAt = now, &now
	if _, err := tx.NewInsert().Model(p).ExcludeColumn("id", "ended_at").Returning("id").Exec(ctx); err != nil {
		return classify(err, "the pool "+p.Key)
	}
	arms := make([]ExperimentPoolVariant, len(sh.Arms))
	for i, a := range sh.Arms {
		arms[i] = ExperimentPoolVariant{PoolKey: p.Key, Position: int64(i + 1), Key: string(rune('a' + i)), Name: a.Name,
			Payload: sh.Payloads[i], SplitPct: a.SplitPct}
	}
	_, err := tx.NewInsert().Model(&arms).Exec(ctx)
	return err
}

// EndPool ends a running pool and every member store's experiment of it
// that runs or is paused (their open pauses closed): a pooled test stops
// everywhere at once. 404: no such pool; 409: it had ended.
func EndPool(ctx context.Context, tx bun.IDB, key string, now time.Time) (ended int, err error) {
	p := new(ExperimentPool)
	if err := tx.NewSelect().Model(p).Where("key = ?", key).For("UPDATE").Scan(ctx); err != nil {
		return 0, classify(err, "the pool "+key)
	}
	if p.Status != PoolRunning {
		return 0, apperr.Conflictf("the pool %s is %s already", key, p.Status)
	}
	if _, err := tx.NewRaw("UPDATE experiment_pools SET status = ?, ended_at = ? WHERE key = ?", PoolEnded, now, key).Exec(ctx); err != nil {
		return 0, err
	}
	var members []Experiment
	if err := tx.NewSelect().Model(&members).Where("pool_key = ? AND status IN (?, ?)", key, ExperimentRunning, ExperimentPaused).
		Order("id").For("UPDATE").Scan(ctx); err != nil {
		return 0, err
	}
	for i := range members {
		if err := EndExperiment(ctx, tx, &members[i], nil, now); err != nil {
			return 0, err
		}
	}
	return len(members), nil
}

// LockPoolMember reads the store's experiment of the pool that runs or is
// paused, its row locked; 404 when the store is not in the pool.
func LockPoolMember(ctx context.Context, tx bun.IDB, storeID int64, key string) (*Experiment, error) {
	e := new(Experiment)
	err := tx.NewSelect().Model(e).Where("store_id = ? AND pool_key = ? AND status <> ?", storeID, key, ExperimentEnded).For("UPDATE").Scan(ctx)
	if err != nil {
		return nil, classify(err, "the store's membership of pool "+key)
	}
	return e, nil
}

// PoolExperiment is an experiment of a store with the number of the pool
// it runs, for the graph's loader.
type PoolExperiment struct {
	Experiment `bun:",extend"`

	PoolID int64 `bun:"pool_id,scanonly"`
}

// ExperimentsByPool loads the store's experiments of several pools (by the
// pools' numbers), newest first: never another store's.
func ExperimentsByPool(ctx context.Context, db bun.IDB, storeID int64, ids []int64, _ Columns) ([]PoolExperiment, error) {
	out := manyRows[PoolExperiment](len(ids))
	err := db.NewSelect().Model(&out).ColumnExpr("ex.*, xp.id AS pool_id").
		Join("JOIN experiment_pools AS xp ON xp.key = ex.pool_key").
		Where("ex.store_id = ? AND xp.id IN (?)", storeID, bun.List(ids)).Order("xp.id", "ex.id DESC").Scan(ctx)
	return out, err
}

// PageText is what a content test changes of a page.
type PageText struct {
	Handle   string `bun:"handle"`
	Title    string `bun:"title"`
	BodyHTML string `bun:"body_html"`
}

// PagesByHandle reads the title and body of the store's pages of the
// handles, in one statement.
func PagesByHandle(ctx context.Context, db bun.IDB, storeID int64, handles []string) (map[string]PageText, error) {
	out := map[string]PageText{}
	if len(handles) == 0 {
		return out, nil
	}
	var rows []PageText
	err := db.NewRaw("SELECT handle, title, body_html FROM pages WHERE store_id = ? AND handle IN (?)", storeID, bun.List(handles)).Scan(ctx, &rows)
	for _, r := range rows {
		out[r.Handle] = r
	}
	return out, err
}
