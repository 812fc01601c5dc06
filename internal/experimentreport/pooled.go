package experimentreport

import (
	"context"
	"math"
	"slices"
	"sort"
	"time"

	"github.com/uptrace/bun"

	"storeadmin/internal/base/apperr"
	"storeadmin/internal/experimentstats"
	"storeadmin/models"
)

// Pooled is the pooled report of the pool the store's experiment e runs
// (README "The pooled report"): every member store's experiment of the
// pool, counted as Report counts one store's, in one statement; then the
// stores below the pool's store_floor are left out and the others
// weighted so that none weighs more than max_share. An experiment that
// runs no pool has none: a 404.
func Pooled(ctx context.Context, db bun.IDB, e *models.Experiment, now time.Time) (*ExperimentPooledReport, error) {
	if e.PoolKey == nil {
		return nil, apperr.NotFoundf("the experiment is the store's own, not a pooled test's: it has no pooled report")
	}
	pool := new(models.ExperimentPool)
	if err := db.NewSelect().Model(pool).Where("key = ?", *e.PoolKey).Scan(ctx); err != nil {
		return nil, err
	}
	var arms []models.ExperimentPoolVariant
	if err := db.NewSelect().Model(&arms).Where("pool_key = ?", pool.Key).Order("position").Scan(ctx); err != nil {
		return nil, err
	}
	to := now
	if pool.EndedAt != nil {
		to = *pool.EndedAt
	}
	var rows []struct {
		Store    int64
		Position int64
		armSum
	}
	err := db.NewRaw(`WITH ex AS (SELECT id, store_id, least(coalesce(ended_at, ?2), ?2) AS until FROM experiments
			WHERE pool_key = ?1 AND started_at IS NOT NULL), `+countedSQL+`
		SELECT ev.store_id AS store, ev.position, `+armSumsSQL+`
		FROM v JOIN experiment_variants ev ON ev.id = v.variant_id
		GROUP BY ev.store_id, ev.position`, nil, pool.Key, to).Scan(ctx, &rows)
	if err != nil {
		return nil, err
	}
	stores := map[int64]map[int64]armSum{}
	for _, r := range rows {
		if stores[r.Store] == nil {
			stores[r.Store] = map[int64]armSum{}
		}
		stores[r.Store][r.Position] = r.armSum
	}
	// The stores that count: every arm at or above the floor.
	var counted []map[int64]armSum
	var totals []float64
	ids := make([]int64, 0, len(stores))
	for id := range stores {
		ids = append(ids, id)
	}
	slices.Sort(ids) // the sums in one order, so the same data gives the same floats
	for _, id := range ids {
		byArm := stores[id]
		total, ok := 0.0, true
		for _, a := range arms {
			total += float64(byArm[a.Position].Exposed)
			ok = ok && byArm[a.Position].Exposed >= pool.StoreFloor
		}
		if ok {
			counted = append(counted, byArm)
			totals = append(totals, total)
		}
	}
	weights := capWeights(totals, pool.MaxShare)
	sums := make([]armSum, len(arms))
	for i, byArm := range counted {
		for j, a := range arms {
			sums[j] = byArm[a.Position].scaled(weights[i]).add(sums[j])
		}
	}

	from := now
	if pool.StartedAt != nil {
		from = *pool.StartedAt
	}
	out := &ExperimentPooledReport{Key: pool.Key, Name: pool.Name, Status: pool.Status, Metric: pool.Metric,
		From: from, To: to, Stores: int64(len(counted)), StoreFloor: pool.StoreFloor, MaxShare: pool.MaxShare,
		MinStores: pool.MinStores, MinExposedPerArm: experimentstats.MinExposedPerArm, Arms: []ExperimentPooledArm{}}
	exposed := make([]int64, len(arms))
	split := make([]int64, len(arms))
	variants := make([]models.ExperimentVariant, len(arms))
	for i, a := range arms {
		s := sums[i]
		events, r := s.metric(pool.Metric)
		out.Arms = append(out.Arms, ExperimentPooledArm{Position: a.Position, Key: a.Key, Name: a.Name, SplitPct: a.SplitPct,
			Exposed: s.Exposed, MetricEvents: events, MetricRate: r})
		exposed[i], split[i] = s.Exposed, a.SplitPct
		variants[i] = models.ExperimentVariant{ID: int64(i), Position: a.Position}
	}
	if out.Stores < max(pool.MinStores, MinPooledStores) {
		// Too few stores for sums that hide each: a member would read
		// another's figures (one store counted) or work them out from
		// its own (two). The arms' names and splits only.
		for i := range out.Arms {
			a := &out.Arms[i]
			a.Exposed, a.MetricEvents, a.MetricRate = 0, 0, 0
		}
		out.SRM = ExperimentSRMResult{PValue: 1}
		out.Comparisons = []ExperimentArmCompared{}
		out.Verdict = experimentstats.VerdictInsufficientData
		return out, nil
	}
	out.SRM, out.Comparisons, out.Verdict, out.WinnerPosition =
		judge(pool.Metric, variants, func(v models.ExperimentVariant) armSum { return sums[v.ID] }, exposed, split)
	return out, nil
}

// MinPooledStores is the fewest counted stores whose pooled sums a member
// store may read, whatever a pool's min_stores: with one, the sums are that
// store's; with two, each can subtract its own to read the other's.
const MinPooledStores = 3

// capWeights is the weight of each store of totals (its exposed visitors)
// so that no store weighs more than maxShare of the weighted total: the
// largest stores are scaled down to exactly maxShare of it, the others
// keep weight 1 (water-filling: with the k largest capped at c and U the
// rest's total, c = maxShare·U/(1 − k·maxShare), growing k while the next
// store is above c). When no such c exists (fewer than 1/maxShare stores
// count, so some store must weigh more) every store weighs the same: the
// smallest's exposed visitors.
func capWeights(totals []float64, maxShare float64) []float64 {
	w := make([]float64, len(totals))
	order := make([]int, len(totals))
	rest := 0.0
	for i, t := range totals {
		w[i], order[i] = 1, i
		rest += t
	}
	sort.Slice(order, func(a, b int) bool { return totals[order[a]] > totals[order[b]] })
	for k := 0; k < len(order); k++ {
		if float64(k)*maxShare >= 1 {
			break
		}
		c := maxShare * rest / (1 - float64(k)*maxShare)
		if totals[order[k]] <= c {
			for _, i := range order[:k] {
				w[i] = c / totals[i]
			}
			return w
		}
		rest -= totals[order[k]]
	}
	if len(order) == 0 {
		return w
	}
	least := totals[order[len(order)-1]]
	for i, t := range totals {
		if t > 0 {
			w[i] = least / t
		}
	}
	return w
}

// scaled is s weighted by w: counts rounded to whole visitors, sums
// multiplied.
func (s armSum) scaled(w float64) armSum {
	if w == 1 {
		return s
	}
	n := func(v int64) int64 { return int64(math.Round(float64(v) * w)) }
	s.Exposed, s.Sessions, s.Paused, s.Consented = n(s.Exposed), n(s.Sessions), n(s.Paused), n(s.Consented)
	s.Added, s.Checkout, s.Converted, s.Returned, s.Orders = n(s.Added), n(s.Checkout), n(s.Converted), n(s.Returned), n(s.Orders)
	s.Units = n(s.Units)
	s.SumNum *= w
	s.SumNum2 *= w
	s.SumDen *= w
	s.SumDen2 *= w
	s.SumNumDen *= w
	return s
}

// PooledOf is the pooled report of the store's experiment id (another
// store's is not found).
func PooledOf(ctx context.Context, db bun.IDB, storeID, id int64, now time.Time) (*ExperimentPooledReport, error) {
	e, err := models.GetExperiment(ctx, db, storeID, id)
	if err != nil {
		return nil, err
	}
	return Pooled(ctx, db, e, now)
}
