package models

import (
	"cmp"
	"context"
	"encoding/json"
	"math"
	"slices"

	"github.com/uptrace/bun"
)

// LiveExperiment is an experiment with its arms by position, as the
// storefront assigns visitors to them.
type LiveExperiment struct {
	Experiment `bun:",extend"`
	Arms       []ExperimentVariant `bun:"arms,type:jsonb,scanonly"`
	// Broken: what its surface names no longer exists (the theme version,
	// the page, one of the products, the rate), so every visitor sees the
	// control.
	Broken bool `bun:"broken,scanonly"`
}

// Assign is the arm visitor anonID sees: the control when e is broken; nil
// when it has none.
func (e *LiveExperiment) Assign(anonID string) *ExperimentVariant {
	if e.Broken {
		return e.Control()
	}
	return AssignVariant(e.Key, anonID, e.Arms)
}

// Arm is the arm of id; nil when it is not one of e's.
func (e *LiveExperiment) Arm(id int64) *ExperimentVariant {
	for i := range e.Arms {
		if e.Arms[i].ID == id {
			return &e.Arms[i]
		}
	}
	return nil
}

// Control is e's first arm, the one a broken arm falls back on.
func (e *LiveExperiment) Control() *ExperimentVariant {
	if len(e.Arms) == 0 {
		return nil
	}
	return &e.Arms[0]
}

// liveColumns selects experiments (ex) with their arms and whether they
// are broken, in one statement.
func liveColumns(q *bun.SelectQuery) *bun.SelectQuery {
	return q.ColumnExpr("ex.*").ColumnExpr(liveArmsSQL).ColumnExpr(liveBrokenSQL)
}

const liveArmsSQL = `(SELECT coalesce(jsonb_agg(to_jsonb(ev) ORDER BY ev.position), '[]') FROM experiment_variants ev
	WHERE ev.experiment_id = ex.id) AS arms`

// liveBrokenSQL: the record the surface names is gone (or the surface
// names none: the API never stores such a surface).
const liveBrokenSQL = `CASE ex.kind
	WHEN 'theme' THEN NOT EXISTS (SELECT 1 FROM theme_versions tv WHERE tv.store_id = ex.store_id
		AND tv.theme_id::text = ex.surface->>'theme_id' AND tv.version::text = ex.surface->>'version')
	WHEN 'content' THEN NOT EXISTS (SELECT 1 FROM pages pg WHERE pg.store_id = ex.store_id AND pg.id::text = ex.surface->>'page_id')
	WHEN 'price' THEN jsonb_typeof(ex.surface->'product_ids') IS DISTINCT FROM 'array'
		OR jsonb_array_length(ex.surface->'product_ids') = 0
		OR EXISTS (SELECT 1 FROM jsonb_array_elements_text(ex.surface->'product_ids') AS pid(id)
			WHERE NOT EXISTS (SELECT 1 FROM products p WHERE p.store_id = ex.store_id AND p.id::text = pid.id))
	WHEN 'shipping' THEN NOT EXISTS (SELECT 1 FROM shipping_rates sr WHERE sr.store_id = ex.store_id
		AND sr.id::text = ex.surface->>'shipping_rate_id')
	ELSE true END AS broken`

// liveExperiments selects the store's experiments with their arms in one
// statement; the caller narrows it.
func liveExperiments(db bun.IDB, storeID int64, out *[]LiveExperiment) *bun.SelectQuery {
	return liveColumns(db.NewSelect().Model(out)).Where("ex.store_id = ?", storeID).Order("ex.id")
}

// StorefrontKinds are the kinds of test the storefront runs under the
// platform p: every kind, but price and shipping tests while its switch is
// off, so what the storefront shows is what MoneyArmsOf charges.
func (p Platform) StorefrontKinds() []string {
	if !p.MoneyExperimentsOff {
		return ExperimentKinds
	}
	return slices.DeleteFunc(slices.Clone(ExperimentKinds), IsMoneyKind)
}

// RunningExperiments reads the store's running experiments with their
// arms, of the kinds given (all when none), oldest first: what the
// storefront assigns visitors to. Paused and ended tests show the shopper
// the plain store.
func RunningExperiments(ctx context.Context, db bun.IDB, storeID int64, kinds ...string) ([]LiveExperiment, error) {
	out := []LiveExperiment{}
	q := liveExperiments(db, storeID, &out).Where("ex.status = ?", ExperimentRunning)
	if len(kinds) > 0 {
		q = q.Where("ex.kind IN (?)", bun.List(kinds))
	}
	return out, q.Scan(ctx)
}

// ExperimentsByKey reads the store's experiments of keys, whatever their
// status, with their arms.
func ExperimentsByKey(ctx context.Context, db bun.IDB, storeID int64, keys []string) ([]LiveExperiment, error) {
	out := []LiveExperiment{}
	if len(keys) == 0 {
		return out, nil
	}
	return out, liveExperiments(db, storeID, &out).Where("ex.key IN (?)", bun.List(keys)).Scan(ctx)
}

// LiveExperimentOf reads one experiment of the store with its arms: another
// store's is not found.
func LiveExperimentOf(ctx context.Context, db bun.IDB, storeID, id int64) (*LiveExperiment, error) {
	out := []LiveExperiment{}
	if err := liveExperiments(db, storeID, &out).Where("ex.id = ?", id).Scan(ctx); err != nil {
		return nil, err
	}
	if len(out) == 0 {
		return nil, classify(errNoRows, "the experiment")
	}
	return &out[0], nil
}

// The surfaces and payloads of money tests, as README "A/B tests" shapes
// them: a price test's surface lists product_ids and its arms a
// price_change_pct; a shipping test's surface names a shipping_rate_id and
// its arms a price_cents ({} for the rate's own price).

// SurfaceIDs is the list of ids field of an experiment's surface (or an
// arm's payload) holds; none when it holds no such list.
func SurfaceIDs(object any, field string) []int64 {
	m, _ := object.(map[string]any)
	list, _ := m[field].([]any)
	out := make([]int64, 0, len(list))
	for _, v := range list {
		if n, ok := wholeJSON(v); ok {
			out = append(out, n)
		}
	}
	return out
}

// jsonNumber reads a decoded JSON number: a float64, or a json.Number
// (what bun decodes jsonb numbers into).
func jsonNumber(v any) (float64, bool) {
	switch n := v.(type) {
	case float64:
		return n, true
	case json.Number:
		f, err := n.Float64()
		return f, err == nil
	}
	return 0, false
}

// SurfaceNumber is the number field of an object holds, and whether it
// holds one.
func SurfaceNumber(object any, field string) (float64, bool) {
	m, _ := object.(map[string]any)
	return jsonNumber(m[field])
}

// ArmPriceCents is price_cents changed by pct percent (−90 to +100; the
// change is taken to a hundredth of a percent), rounded to the cent, half
// up: what a price test's arm charges for a variant the catalogue prices
// at priceCents.
func ArmPriceCents(priceCents int64, pct float64) int64 {
	bps := int64(math.Round(pct * 100))
	if bps == 0 || priceCents <= 0 {
		return priceCents
	}
	return (priceCents*(10_000+bps) + 5_000) / 10_000
}

// MoneyArms is what the store's running price and shipping tests change
// for one visitor, the arm the assignment gives it in each: the price
// change of products, the price of shipping rates. The zero value changes
// nothing (no visitor known, no test running).
type MoneyArms struct {
	pricePct  map[int64]float64 // product → price_change_pct
	ratePrice map[int64]int64   // shipping rate → price_cents
}

// MoneyArmsOf reads the arms of the store's running price and shipping
// tests that visitorID (visitors.id) sees; nothing without a visitor, and
// nothing while the platform p switches money tests off (they stay
// running in the database, changing no price until it is on again). One
// statement.
func MoneyArmsOf(ctx context.Context, db bun.IDB, storeID int64, visitorID *int64, p Platform) (MoneyArms, error) {
	var arms MoneyArms
	if visitorID == nil || p.MoneyExperimentsOff {
		return arms, nil
	}
	var rows []struct {
		LiveExperiment `bun:",extend"`
		AnonID         string `bun:"anon_id,scanonly"`
	}
	err := liveColumns(db.NewSelect().Model(&rows)).
		ColumnExpr("v.anon_id").
		Join("JOIN visitors AS v ON v.id = ? AND v.store_id = ex.store_id", *visitorID).
		Where("ex.store_id = ? AND ex.status = ? AND ex.kind IN (?)", storeID, ExperimentRunning,
			bun.List([]string{ExperimentKindPrice, ExperimentKindShipping})).
		Order("ex.id").Scan(ctx)
	if err != nil {
		return arms, err
	}
	for i := range rows {
		arms.add(&rows[i].LiveExperiment, rows[i].AnonID)
	}
	return arms, nil
}

// add takes in what e's arm for the visitor anonID changes.
func (m *MoneyArms) add(e *LiveExperiment, anonID string) {
	arm := e.Assign(anonID)
	if arm == nil {
		return
	}
	switch e.Kind {
	case ExperimentKindPrice:
		pct, ok := SurfaceNumber(arm.Payload, "price_change_pct")
		if !ok || pct == 0 {
			return
		}
		if m.pricePct == nil {
			m.pricePct = map[int64]float64{}
		}
		for _, id := range SurfaceIDs(e.Surface, "product_ids") {
			m.pricePct[id] = pct
		}
	case ExperimentKindShipping:
		rate, okRate := SurfaceNumber(e.Surface, "shipping_rate_id")
		price, okPrice := SurfaceNumber(arm.Payload, "price_cents")
		if !okRate || !okPrice || price < 0 || price != math.Trunc(price) {
			return
		}
		if m.ratePrice == nil {
			m.ratePrice = map[int64]int64{}
		}
		m.ratePrice[int64(rate)] = int64(price)
	}
}

// Price is what the visitor is charged for a variant of product priced
// priceCents by the catalogue.
func (m MoneyArms) Price(productID, priceCents int64) int64 {
	if pct, ok := m.pricePct[productID]; ok {
		return ArmPriceCents(priceCents, pct)
	}
	return priceCents
}

// Rates sets the price of the rates a shipping test changes for the
// visitor, keeping rates cheapest first.
func (m MoneyArms) Rates(rates []ShippingRate) {
	changed := false
	for i := range rates {
		if p, ok := m.ratePrice[rates[i].ID]; ok {
			rates[i].PriceCents, changed = p, true
		}
	}
	if changed {
		slices.SortStableFunc(rates, func(a, b ShippingRate) int { return cmp.Compare(a.PriceCents, b.PriceCents) })
	}
}

// ContentShown is what a content test's arm of payload shows in place of a
// page's title and body: its own where it gives them, the page's
// otherwise.
func ContentShown(title, bodyHTML string, payload any) (string, string) {
	over, _ := payload.(map[string]any)
	if t, ok := over["title"].(string); ok {
		title = t
	}
	if b, ok := over["body_html"].(string); ok {
		bodyHTML = b
	}
	return title, bodyHTML
}
