package analytics

import (
	"cmp"
	"context"
	"slices"

	"github.com/uptrace/bun"
)

// overviewTop is how many discounts and products the overview lists.
const overviewTop = 10

// Overview is the sales overview of w: its metrics and the previous
// window's, their deltas, a series point per bucket, the customers, the
// sources and campaigns, the top discount codes and products. Five
// statements, each reading the rollups and the raw rows of the windows'
// ragged edges only: the metrics, previous and series together, then the
// customers, the sources and campaigns, the codes, the products.
func Overview(ctx context.Context, db bun.IDB, storeID int64, w Window) (*AnalyticsOverview, error) {
	out := &AnalyticsOverview{From: w.FormatTime(w.From), To: w.FormatTime(w.To), Interval: w.Interval}
	var err error
	if out.Metrics, out.Previous, out.Series, err = overviewSeries(ctx, db, storeID, w); err != nil {
		return nil, err
	}
	out.Deltas = AnalyticsDeltas{
		GrossPct:  DeltaPct(float64(out.Metrics.GrossCents), float64(out.Previous.GrossCents)),
		OrdersPct: DeltaPct(float64(out.Metrics.OrderCount), float64(out.Previous.OrderCount)),
		AOVPct:    DeltaPct(float64(out.Metrics.AOVCents), float64(out.Previous.AOVCents)),
	}
	if out.Customers, err = Customers(ctx, db, storeID, w.Span); err != nil {
		return nil, err
	}
	if out.BySource, out.ByCampaign, err = overviewSources(ctx, db, storeID, w.Span); err != nil {
		return nil, err
	}
	if out.TopDiscounts, err = overviewDiscounts(ctx, db, storeID, w.Span); err != nil {
		return nil, err
	}
	if out.TopProducts, err = TopProducts(ctx, db, storeID, w.Span, overviewTop); err != nil {
		return nil, err
	}
	return out, nil
}

// overviewSeries reads w's and the previous window's metric rows in one
// statement, summed per bucket of w (the previous window in one group):
// a bucket's figures are the sums of its rows, w's metrics the sums of its
// buckets.
func overviewSeries(ctx context.Context, db bun.IDB, storeID int64, w Window) (cur, prev AnalyticsMetrics, series []AnalyticsSeriesPoint, err error) {
	var q overviewQuery
	q.add(`SELECT m.at >= ? AS current, min(m.at) AS first, `+overviewMetricSums+` FROM (`, w.From)
	overviewMetricRows(&q, storeID, w.Previous().Span)
	q.add(` UNION ALL `)
	overviewMetricRows(&q, storeID, w.Span)
	// The bucket is the local start of the interval (date_trunc in the
	// store's zone); the row's first instant places it among w.Buckets().
	q.add(`) AS m GROUP BY 1, CASE WHEN m.at >= ? THEN date_trunc(?, m.at, ?) END`, w.From, w.Interval, w.Loc.String())
	rows, err := db.QueryContext(ctx, q.sql(), q.args...)
	if err != nil {
		return cur, prev, nil, err
	}
	defer rows.Close()
	buckets := w.Buckets()
	series = make([]AnalyticsSeriesPoint, len(buckets))
	for i, b := range buckets {
		series[i].Bucket = b.Label
	}
	for rows.Next() {
		var current bool
		var m AnalyticsMetrics
		var first bun.NullTime
		if err := rows.Scan(&current, &first, &m.GrossCents, &m.DiscountCents, &m.ShippingCents, &m.TaxCents, &m.TipCents,
			&m.OrderCount, &m.Units, &m.RefundCents, &m.RefundedOrderCount); err != nil {
			return cur, prev, nil, err
		}
		if !current {
			prev.Add(m)
			continue
		}
		cur.Add(m)
		p := &series[BucketOf(buckets, first.Time)]
		p.GrossCents += m.GrossCents
		p.OrderCount += m.OrderCount
	}
	cur.Finish()
	prev.Finish()
	return cur, prev, series, rows.Err()
}

// overviewSources are the orders of span by source and by campaign, most
// gross first, then by name.
func overviewSources(ctx context.Context, db bun.IDB, storeID int64, span Span) ([]AnalyticsSourceStat, []AnalyticsCampaignStat, error) {
	var q overviewQuery
	q.add(`SELECT s.source, s.campaign, sum(s.orders)::bigint AS order_count, sum(s.gross)::bigint AS gross_cents FROM (`)
	overviewSplit(&q, storeID, span, func(q *overviewQuery, storeID int64, s Span) {
		q.add(`SELECT source, campaign, order_count AS orders, gross_cents AS gross FROM analytics_source_slots
			WHERE store_id = ? AND slot >= ? AND slot < ?`, storeID, s.From, s.To)
	}, func(q *overviewQuery, storeID int64, s Span) {
		q.add(`SELECT `+OrderSource+`, `+OrderCampaign+`, 1, o.subtotal_cents FROM orders AS o
			WHERE o.store_id = ? AND o.created_at >= ? AND o.created_at < ? AND `+CountedOrder, storeID, s.From, s.To)
	})
	q.add(`) AS s GROUP BY 1, 2`)
	var rows []AnalyticsCampaignStat
	if err := db.NewRaw(q.sql(), q.args...).Scan(ctx, &rows); err != nil {
		return nil, nil, err
	}
	sources := []AnalyticsSourceStat{}
	campaigns := []AnalyticsCampaignStat{}
	index := map[string]int{}
	for _, r := range rows {
		i, ok := index[r.Source]
		if !ok {
			i, index[r.Source] = len(sources), len(sources)
			sources = append(sources, AnalyticsSourceStat{Source: r.Source})
		}
		sources[i].OrderCount += r.OrderCount
		sources[i].GrossCents += r.GrossCents
		if r.Campaign != "" {
			campaigns = append(campaigns, r)
		}
	}
	slices.SortFunc(sources, func(a, b AnalyticsSourceStat) int {
		return cmp.Or(cmp.Compare(b.GrossCents, a.GrossCents), cmp.Compare(a.Source, b.Source))
	})
	slices.SortFunc(campaigns, func(a, b AnalyticsCampaignStat) int {
		return cmp.Or(cmp.Compare(b.GrossCents, a.GrossCents), cmp.Compare(a.Campaign, b.Campaign), cmp.Compare(a.Source, b.Source))
	})
	return sources, campaigns, nil
}

// overviewDiscounts are the overviewTop codes used by the most orders in
// span, then by the most discounted, then by code.
func overviewDiscounts(ctx context.Context, db bun.IDB, storeID int64, span Span) ([]AnalyticsDiscountStat, error) {
	var q overviewQuery
	q.add(`SELECT d.code, sum(d.orders)::bigint AS order_count, sum(d.discount)::bigint AS discount_cents FROM (`)
	overviewSplit(&q, storeID, span, func(q *overviewQuery, storeID int64, s Span) {
		q.add(`SELECT code, order_count AS orders, discount_cents AS discount FROM analytics_discount_slots
			WHERE store_id = ? AND slot >= ? AND slot < ?`, storeID, s.From, s.To)
	}, func(q *overviewQuery, storeID int64, s Span) {
		q.add(`SELECT o.discount_code, 1, o.discount_cents FROM orders AS o
			WHERE o.store_id = ? AND o.created_at >= ? AND o.created_at < ? AND o.discount_code <> '' AND `+CountedOrder,
			storeID, s.From, s.To)
	})
	q.add(`) AS d GROUP BY 1 ORDER BY 2 DESC, 3 DESC, 1 LIMIT ?`, overviewTop)
	out := []AnalyticsDiscountStat{}
	err := db.NewRaw(q.sql(), q.args...).Scan(ctx, &out)
	return out, err
}
