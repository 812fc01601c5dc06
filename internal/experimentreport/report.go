package experimentreport

import (
	"context"
	"encoding/json"
	"time"

	"github.com/uptrace/bun"

	"storeadmin/internal/experimentstats"
	"storeadmin/models"
)

// SegmentFloor is the exposed visitors every arm needs in a segment's
// value for the value to be shown on its own: below it, in any arm, the
// value is folded into its dimension's "other" row (README "The report").
const SegmentFloor = 50

// The timeline's kinds.
const (
	MarkStarted        = "started"
	MarkPaused         = "paused"
	MarkResumed        = "resumed"
	MarkEnded          = "ended"
	MarkThemePublished = "theme_published"
)

// The segment dimensions.
const (
	DimensionDevice  = "device"
	DimensionCountry = "country"
	DimensionSource  = "source"
	DimensionVisitor = "visitor"
	// OtherValue is the row a dimension's values below SegmentFloor are
	// folded into.
	OtherValue = "other"
)

// Report is the report of the store's experiment e, with its arms in
// position order, as of now. A draft's is empty: from and to are its
// creation, every figure 0, no timeline, insufficient_data (a read never
// conflicts, and a draft has exposed nobody).
func Report(ctx context.Context, db bun.IDB, e *models.Experiment, arms []models.ExperimentVariant, now time.Time) (*ExperimentReport, error) {
	from, to := e.CreatedAt, e.CreatedAt
	if e.StartedAt != nil {
		from, to = *e.StartedAt, now
	}
	if e.EndedAt != nil {
		to = *e.EndedAt
	}
	q := window{store: e.StoreID, experiment: e.ID, from: from, to: to}
	sums, err := armSums(ctx, db, q)
	if err != nil {
		return nil, err
	}
	money, err := armMoney(ctx, db, q)
	if err != nil {
		return nil, err
	}
	segments, err := segmentRows(ctx, db, q, e.Metric, arms)
	if err != nil {
		return nil, err
	}
	guard, err := guardrails(ctx, db, q)
	if err != nil {
		return nil, err
	}
	marks, broken, err := timeline(ctx, db, q, e, len(arms))
	if err != nil {
		return nil, err
	}

	out := &ExperimentReport{From: from, To: to, Metric: e.Metric, MinExposedPerArm: experimentstats.MinExposedPerArm,
		SegmentFloor: SegmentFloor, Segments: segments, Broken: broken, Timeline: marks, Guardrails: guard}
	var sessions, consented int64
	exposed := make([]int64, len(arms))
	split := make([]int64, len(arms))
	for i, a := range arms {
		s := sums[a.ID]
		r := ExperimentArmReport{Position: a.Position, Key: a.Key, Name: a.Name, SplitPct: a.SplitPct,
			Exposed: s.Exposed, Sessions: s.Sessions, Added: s.Added, Checkout: s.Checkout, Converted: s.Converted,
			AddRate: rate(s.Added, s.Exposed), CheckoutRate: rate(s.Checkout, s.Exposed), ConversionRate: rate(s.Converted, s.Exposed),
			ReturnShare: rate(s.Returned, s.Exposed), Money: money[a.ID]}
		if r.Money == nil {
			r.Money = []ExperimentArmCurrency{}
		}
		for j := range r.Money {
			m := &r.Money[j]
			m.AOVCents = ratio(float64(m.RevenueCents), float64(m.Orders))
			m.RevenuePerSessionCents = ratio(float64(m.RevenueCents), float64(s.Sessions))
			m.RevenuePerSessionWithoutLargestCents = ratio(float64(m.RevenueCents-m.LargestOrderCents), float64(s.Sessions))
		}
		r.MetricEvents, r.MetricRate = s.metric(e.Metric)
		out.Arms = append(out.Arms, r)
		exposed[i], split[i] = s.Exposed, a.SplitPct
		sessions += s.Sessions
		consented += s.Consented
		out.Guardrails.ExcludedInPauses += s.Paused
	}
	if out.Arms == nil {
		out.Arms = []ExperimentArmReport{}
	}
	out.Guardrails.ConsentCoverage = rate(consented, sessions)

	out.SRM, out.Comparisons, out.Verdict, out.WinnerPosition =
		judge(e.Metric, arms, func(a models.ExperimentVariant) armSum { return sums[a.ID] }, exposed, split)
	return out, nil
}

// compare compares the arms on metric: rates by CompareProportions over
// exposed visitors, revenue per session by CompareRatios over per-visitor
// sums in the store's currency.
func compare(metric string, arms []models.ExperimentVariant, sumOf func(models.ExperimentVariant) armSum) []experimentstats.Comparison {
	if metric == models.MetricRevenuePerSession {
		rs := make([]experimentstats.Ratio, len(arms))
		for i, a := range arms {
			rs[i] = sumOf(a).Ratio
		}
		return experimentstats.CompareRatios(rs, experimentstats.DefaultAlpha)
	}
	counts := make([]experimentstats.Count, len(arms))
	for i, a := range arms {
		s := sumOf(a)
		events, _ := s.metric(metric)
		counts[i] = experimentstats.Count{Events: events, Trials: s.Exposed}
	}
	return experimentstats.CompareProportions(counts, experimentstats.DefaultAlpha)
}

// window is what every statement of a report reads: the store's
// experiment, from its start to its end (or now).
type window struct {
	store, experiment int64
	from, to          time.Time
}

// countedSQL defines, after the CTE ex (the experiments read: id,
// store_id, until), the report's rows:
//
//   - x: the exposures before their experiment's until, but the store's
//     staff's (a visitor identified since its exposure with the email of
//     one of the store's members: recording leaves out those identified
//     then, this the rest), materialized so
//     that the plan starts from the experiment's exposures (by its index)
//     and reaches their visitors' sessions by theirs, whatever else the
//     store has; without statistics the planner would scan every session
//     of the store instead (and the sessions are matched by visitor alone,
//     a visitor being one store's: with the store in the condition too
//     the planner ANDs the store's whole index into every lookup);
//   - cs: each exposed visitor's human sessions that count: the exposure
//     session, and those that began from exposed_at on and before until;
//     in_pause marks those (never the exposure session) that began in a
//     pause of the experiment, which count nowhere but in
//     excluded_in_pauses; a row per experiment and session (a pool's
//     report reads all of a store's experiments of the pool, and a
//     session may count for the one the store left and the one it
//     rejoined with);
//   - ord: the orders of each counted session, per experiment, so that an
//     order counts once for each experiment whose session it is in;
//   - v: per exposed visitor, its counted sessions, whether it added to
//     cart, reached checkout, ordered (the sessions' steps, as traffic
//     reads them), came back (a counted session after the exposure
//     session), and its orders and revenue in its store's currency
//     (cancelled orders left out).
const countedSQL = `pauses AS (
	SELECT p.experiment_id, p.paused_at, coalesce(p.resumed_at, 'infinity') AS resumed_at
	FROM experiment_pauses p JOIN ex ON ex.id = p.experiment_id AND ex.store_id = p.store_id),
x AS MATERIALIZED (
	SELECT e.experiment_id, e.store_id, ex.until, e.variant_id, e.visitor_id, e.session_id, e.exposed_at
	FROM experiment_exposures e JOIN ex ON ex.id = e.experiment_id AND ex.store_id = e.store_id
	WHERE e.exposed_at < ex.until AND NOT EXISTS (
		SELECT 1 FROM visitors v JOIN users u ON lower(u.email) = lower(v.email)
		JOIN store_members m ON m.user_id = u.id AND m.store_id = e.store_id
		WHERE v.id = e.visitor_id AND v.email <> '')),
cs AS (
	SELECT x.experiment_id, x.store_id, x.variant_id, x.visitor_id, x.session_id AS exposure_session, s.id, s.carted, s.reached_checkout,
		s.orders > 0 AS ordered, s.analytics_consent,
		s.id <> x.session_id AND EXISTS (SELECT 1 FROM pauses p WHERE p.experiment_id = x.experiment_id
			AND s.first_seen_at >= p.paused_at AND s.first_seen_at < p.resumed_at) AS in_pause
	FROM x JOIN storefront_sessions s ON s.visitor_id = x.visitor_id
	WHERE NOT s.is_bot
		AND (s.id = x.session_id OR (s.first_seen_at >= x.exposed_at AND s.first_seen_at < x.until))),
ord AS (
	SELECT cs.experiment_id, o.session_id, count(*) AS orders, sum(o.total_cents) AS revenue
	FROM cs JOIN orders o ON o.store_id = cs.store_id AND o.session_id = cs.id
	WHERE NOT cs.in_pause AND o.status <> 'cancelled' AND o.currency = (SELECT currency FROM stores WHERE id = cs.store_id)
	GROUP BY cs.experiment_id, o.session_id),
v AS (
	SELECT cs.variant_id, cs.visitor_id, min(cs.exposure_session) AS exposure_session,
		count(*) FILTER (WHERE NOT in_pause) AS sessions,
		count(*) FILTER (WHERE in_pause) AS paused,
		count(*) FILTER (WHERE NOT in_pause AND analytics_consent) AS consented,
		coalesce(bool_or(carted) FILTER (WHERE NOT in_pause), false) AS added,
		coalesce(bool_or(reached_checkout) FILTER (WHERE NOT in_pause), false) AS checkout,
		coalesce(bool_or(ordered) FILTER (WHERE NOT in_pause), false) AS converted,
		coalesce(bool_or(cs.id <> exposure_session) FILTER (WHERE NOT in_pause), false) AS returned,
		coalesce(sum(ord.orders), 0)::bigint AS orders,
		coalesce(sum(ord.revenue), 0)::float8 AS revenue
	FROM cs LEFT JOIN ord ON ord.experiment_id = cs.experiment_id AND ord.session_id = cs.id
	GROUP BY cs.variant_id, cs.visitor_id)`

// oneSQL is the CTEs of one experiment's report (arguments ?0 store, ?1
// experiment, ?2 to).
const oneSQL = `WITH ex AS (SELECT ?1::bigint AS id, ?0::bigint AS store_id, ?2::timestamptz AS until), ` + countedSQL

// armSum is an arm's sums over its exposed visitors.
type armSum struct {
	VariantID                                                                          int64
	Exposed, Sessions, Paused, Consented, Added, Checkout, Converted, Returned, Orders int64
	experimentstats.Ratio
}

// metric is the arm's metric_events and metric_rate: the visitors who
// converted, added to cart or reached checkout, over the exposed; for
// revenue per session, the orders in the store's currency and the revenue
// over the sessions.
func (s armSum) metric(metric string) (int64, float64) {
	switch metric {
	case models.MetricAddToCart:
		return s.Added, rate(s.Added, s.Exposed)
	case models.MetricCheckout:
		return s.Checkout, rate(s.Checkout, s.Exposed)
	case models.MetricRevenuePerSession:
		return s.Orders, ratio(s.SumNum, s.SumDen)
	}
	return s.Converted, rate(s.Converted, s.Exposed)
}

// armSumsSQL sums the per-visitor rows v per group (the columns before
// it in the SELECT).
const armSumsSQL = `count(*) AS exposed, sum(v.sessions)::bigint AS sessions, sum(v.paused)::bigint AS paused,
	sum(v.consented)::bigint AS consented, count(*) FILTER (WHERE v.added) AS added,
	count(*) FILTER (WHERE v.checkout) AS checkout, count(*) FILTER (WHERE v.converted) AS converted,
	count(*) FILTER (WHERE v.returned) AS returned, sum(v.orders)::bigint AS orders,
	count(*) AS units, sum(v.revenue) AS sum_num, sum(v.revenue * v.revenue) AS sum_num2,
	sum(v.sessions)::float8 AS sum_den, sum(v.sessions * v.sessions)::float8 AS sum_den2,
	sum(v.revenue * v.sessions) AS sum_num_den`

// armSums is the sums of each arm (by variant id) that had an exposure:
// one statement.
func armSums(ctx context.Context, db bun.IDB, q window) (map[int64]armSum, error) {
	var rows []armSum
	err := db.NewRaw(oneSQL+` SELECT v.variant_id, `+armSumsSQL+` FROM v GROUP BY v.variant_id`,
		q.store, q.experiment, q.to).Scan(ctx, &rows)
	out := make(map[int64]armSum, len(rows))
	for _, r := range rows {
		out[r.VariantID] = r
	}
	return out, err
}

// armMoney is each arm's orders per currency, currencies in order: one
// statement. The orders are those of the counted sessions (orders.session_id),
// in any currency; revenue, orders and the largest order leave cancelled
// orders out, which cancelled_orders counts; refunded_orders counts those
// refunded in whole or in part.
func armMoney(ctx context.Context, db bun.IDB, q window) (map[int64][]ExperimentArmCurrency, error) {
	var rows []struct {
		VariantID int64
		ExperimentArmCurrency
	}
	err := db.NewRaw(oneSQL+`
		SELECT cs.variant_id, o.currency,
			count(*) FILTER (WHERE o.status <> 'cancelled') AS orders,
			coalesce(sum(o.total_cents) FILTER (WHERE o.status <> 'cancelled'), 0)::bigint AS revenue_cents,
			coalesce(max(o.total_cents) FILTER (WHERE o.status <> 'cancelled'), 0)::bigint AS largest_order_cents,
			count(*) FILTER (WHERE o.status = 'cancelled') AS cancelled_orders,
			count(*) FILTER (WHERE o.financial_status IN ('refunded', 'partially_refunded')) AS refunded_orders
		FROM cs JOIN orders o ON o.store_id = ?0 AND o.session_id = cs.id
		WHERE NOT cs.in_pause
		GROUP BY cs.variant_id, o.currency ORDER BY cs.variant_id, o.currency`, q.store, q.experiment, q.to).Scan(ctx, &rows)
	out := map[int64][]ExperimentArmCurrency{}
	for _, r := range rows {
		out[r.VariantID] = append(out[r.VariantID], r.ExperimentArmCurrency)
	}
	return out, err
}

// guardrails is the report's guardrails but for consent coverage and the
// sessions excluded in pauses (the arms' sums): one statement.
//   - banner: a human session of the store that began in the window
//     reported a consent answer;
//   - paid_orders: the store's storefront orders (with a session) paid in
//     the window; matched_orders those of them whose session's visitor was
//     exposed;
//   - cart_session_differs: of the exposed visitors' carts created after
//     their exposure and before to, the share whose session is not the
//     exposure session.
func guardrails(ctx context.Context, db bun.IDB, q window) (ExperimentGuardrails, error) {
	var g struct {
		Banner                     bool
		Paid, Matched, Carts, Diff int64
	}
	err := db.NewRaw(oneSQL+`
		SELECT EXISTS (SELECT 1 FROM storefront_sessions s WHERE s.store_id = ?0 AND s.first_seen_at >= ?3
				AND s.first_seen_at < ?2 AND NOT s.is_bot AND s.analytics_consent IS NOT NULL) AS banner,
			count(*) AS paid,
			count(*) FILTER (WHERE EXISTS (SELECT 1 FROM x WHERE x.visitor_id = s.visitor_id)) AS matched,
			(SELECT count(*) FROM carts c JOIN x ON x.visitor_id = c.visitor_id
				WHERE c.store_id = ?0 AND c.created_at >= x.exposed_at AND c.created_at < ?2) AS carts,
			(SELECT count(*) FROM carts c JOIN x ON x.visitor_id = c.visitor_id
				WHERE c.store_id = ?0 AND c.created_at >= x.exposed_at AND c.created_at < ?2
				AND c.session_id IS DISTINCT FROM x.session_id) AS diff
		FROM orders o JOIN storefront_sessions s ON s.id = o.session_id
		WHERE o.store_id = ?0 AND o.paid_at >= ?3 AND o.paid_at < ?2`, q.store, q.experiment, q.to, q.from).Scan(ctx, &g)
	return ExperimentGuardrails{Banner: g.Banner, PaidOrders: g.Paid, MatchedOrders: g.Matched,
		MatchedShare: rate(g.Matched, g.Paid), CartSessionDiffers: rate(g.Diff, g.Carts)}, err
}

// timeline is the experiment's marks, oldest first, and its broken arms:
// one statement. The marks are its start, each pause (with its reason)
// and resumption (a pause closed by the end is no resumption), its end,
// and for a theme test each publish of its theme while it ran (the
// version published as note). The surface is gone when the theme version,
// the page, any of the products or the shipping rate it names no longer
// exists: then every arm but the control is broken (the storefront shows
// those arms the control). A surface that names nothing (a pooled test's,
// applied to whatever is live) cannot be gone.
func timeline(ctx context.Context, db bun.IDB, q window, e *models.Experiment, arms int) ([]ExperimentTimelineMark, []int64, error) {
	surface, _ := json.Marshal(e.Surface)
	var rows []struct {
		At   time.Time
		Kind string
		Note *string
	}
	err := db.NewRaw(`WITH sf AS (SELECT ?4::jsonb AS s)
		SELECT paused_at AS at, 'paused' AS kind, reason AS note FROM experiment_pauses WHERE store_id = ?0 AND experiment_id = ?1
		UNION ALL
		SELECT resumed_at, 'resumed', NULL FROM experiment_pauses WHERE store_id = ?0 AND experiment_id = ?1 AND resumed_at < ?2
		UNION ALL
		SELECT lc.changed_at, 'theme_published', 'version ' || tv.version
		FROM sf, theme_live_changes lc JOIN theme_versions tv ON tv.id = lc.publication_id
		WHERE ?5 = 'theme' AND lc.store_id = ?0 AND lc.reason = 'publish' AND lc.theme_id::text = sf.s->>'theme_id'
			AND lc.changed_at >= ?3 AND lc.changed_at < ?2
		UNION ALL
		SELECT ?2::timestamptz, 'broken', NULL FROM sf WHERE NOT CASE ?5
			WHEN 'theme' THEN s->>'theme_id' IS NULL OR EXISTS (SELECT 1 FROM theme_versions
				WHERE store_id = ?0 AND theme_id::text = s->>'theme_id' AND version::text = s->>'version')
			WHEN 'content' THEN s->>'page_id' IS NULL OR EXISTS (SELECT 1 FROM pages WHERE store_id = ?0 AND id::text = s->>'page_id')
			WHEN 'price' THEN NOT EXISTS (SELECT 1 FROM jsonb_array_elements_text(coalesce(s->'product_ids', '[]')) AS p(id)
				WHERE NOT EXISTS (SELECT 1 FROM products WHERE store_id = ?0 AND id::text = p.id))
			WHEN 'shipping' THEN s->>'shipping_rate_id' IS NULL OR EXISTS (SELECT 1 FROM shipping_rates WHERE store_id = ?0 AND id::text = s->>'shipping_rate_id')
			ELSE true END
		ORDER BY 1, 2`, q.store, q.experiment, q.to, q.from, string(surface), e.Kind).Scan(ctx, &rows)
	marks := []ExperimentTimelineMark{}
	if e.StartedAt != nil {
		marks = append(marks, ExperimentTimelineMark{At: q.from, Kind: MarkStarted})
	}
	broken := []int64{}
	for _, r := range rows {
		if r.Kind == "broken" {
			for p := 2; p <= arms; p++ {
				broken = append(broken, int64(p))
			}
			continue
		}
		marks = append(marks, ExperimentTimelineMark{At: r.At, Kind: r.Kind, Note: r.Note})
	}
	if e.EndedAt != nil {
		marks = append(marks, ExperimentTimelineMark{At: *e.EndedAt, Kind: MarkEnded})
	}
	return marks, broken, err
}

// rate is a/b, 0 when b is 0.
func rate(a, b int64) float64 { return ratio(float64(a), float64(b)) }

// Of is the report of the store's experiment id (another store's is not
// found): the experiment and its arms, then Report.
func Of(ctx context.Context, db bun.IDB, storeID, id int64, now time.Time) (*ExperimentReport, error) {
	e, err := models.GetExperiment(ctx, db, storeID, id)
	if err != nil {
		return nil, err
	}
	arms, err := models.ExperimentArms(ctx, db, storeID, id)
	if err != nil {
		return nil, err
	}
	return Report(ctx, db, e, arms, now)
}
