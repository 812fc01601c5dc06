package analytics

import (
	"cmp"
	"context"
	"slices"
	"time"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/pgdialect"
)

// topFirstDepth is how many of each month's best-selling products
// TopProducts takes as candidates first (a variable for the tests, which
// start at 1); each round that cannot decide takes topDepthGrowth times as
// many.
var topFirstDepth = 256

const topDepthGrowth = 4

// TopProducts are the limit products that sold for the most in span, by
// revenue (line totals less their discount share), then units, then id.
//
// A long window of a large store sells most of its catalogue (a 90-day
// window of a million orders, 83,000 products of 385,000 slot rows), and
// summing every product to keep ten took 270 ms. Instead the candidates
// are each touched UTC month's depth best (analytics_product_months,
// migration 20261124180400) and the products of the window's raw edges;
// their exact sales are summed from the months the window covers whole
// and the slots of the others. A product that is no candidate sold in
// each month at most that month's depth-th best, so in the window at most
// the sum of those: when the limit-th candidate sold more, the list is
// final; otherwise the depth grows, until a month has no more products.
func TopProducts(ctx context.Context, db bun.IDB, storeID int64, span Span, limit int) ([]AnalyticsProductStat, error) {
	inner, edges := span.Split()
	edgeSums := map[int64]AnalyticsProductStat{}
	if len(edges) > 0 {
		var q overviewQuery
		q.add(`SELECT r.product_id, sum(r.units)::bigint AS units, sum(r.revenue)::bigint AS revenue_cents FROM (`)
		for i, e := range edges {
			if i > 0 {
				q.add(` UNION ALL `)
			}
			overviewProductRawRows(&q, storeID, e)
		}
		q.add(`) AS r GROUP BY 1`)
		var rows []AnalyticsProductStat
		if err := db.NewRaw(q.sql(), q.args...).Scan(ctx, &rows); err != nil {
			return nil, err
		}
		for _, r := range rows {
			edgeSums[r.ProductID] = r
		}
	}
	if inner.Empty() {
		return topTitled(ctx, db, storeID, topSorted(edgeSums), limit)
	}
	months := topMonths(inner)
	edgeIDs := make([]int64, 0, len(edgeSums))
	for id := range edgeSums {
		edgeIDs = append(edgeIDs, id)
	}
	for depth := topFirstDepth; ; depth *= topDepthGrowth {
		sums, bound, exhausted, err := topRound(ctx, db, storeID, inner, months, depth, edgeIDs)
		if err != nil {
			return nil, err
		}
		for id, e := range edgeSums {
			s := sums[id]
			s.ProductID, s.Units, s.RevenueCents = id, s.Units+e.Units, s.RevenueCents+e.RevenueCents
			sums[id] = s
		}
		sorted := topSorted(sums)
		if exhausted || len(sorted) >= limit && sorted[limit-1].RevenueCents > bound {
			return topTitled(ctx, db, storeID, sorted, limit)
		}
	}
}

// topMonth is a UTC month span touches, and whether span covers it whole.
type topMonth struct {
	start time.Time
	whole bool
}

// topMonths are the UTC months span touches, in order.
func topMonths(span Span) []topMonth {
	var out []topMonth
	from := span.From.UTC()
	for m := time.Date(from.Year(), from.Month(), 1, 0, 0, 0, 0, time.UTC); m.Before(span.To); m = m.AddDate(0, 1, 0) {
		out = append(out, topMonth{start: m, whole: !m.Before(span.From) && !m.AddDate(0, 1, 0).After(span.To)})
	}
	return out
}

// topRound reads, in one statement, the candidates of depth (each
// month's depth best-selling products, and the products of edgeIDs) with
// their sales in span (slot-aligned: the months it covers whole from
// analytics_product_months, the rest from the slots), and the most any
// other product can have sold in span: the sum of each month's depth-th
// revenue (0 for a month with fewer products, which are then all
// candidates); exhausted when every month has fewer.
func topRound(ctx context.Context, db bun.IDB, storeID int64, span Span, months []topMonth, depth int, edgeIDs []int64) (
	sums map[int64]AnalyticsProductStat, bound int64, exhausted bool, err error) {
	starts := make([]time.Time, len(months))
	for i, m := range months {
		starts[i] = m.start
	}
	var q overviewQuery
	q.add(`WITH t AS (
			SELECT m.month, x.product_id, x.revenue_cents FROM unnest(?::timestamptz[]) AS m(month)
			CROSS JOIN LATERAL (SELECT product_id, revenue_cents FROM analytics_product_months
				WHERE store_id = ? AND month = m.month ORDER BY revenue_cents DESC, product_id LIMIT ?) AS x
		), c AS (
			SELECT product_id FROM t UNION SELECT unnest(?::bigint[])
		), b AS (
			SELECT coalesce(sum(last) FILTER (WHERE n = ?), 0)::bigint AS bound, coalesce(bool_and(n < ?), true) AS exhausted
			FROM (SELECT count(*) AS n, min(revenue_cents) AS last FROM t GROUP BY month) AS per_month
		)
		SELECT false AS bound_row, r.product_id, sum(r.units)::bigint AS units, sum(r.revenue_cents)::bigint AS revenue_cents, false AS exhausted
		FROM (`, pgdialect.Array(starts), storeID, depth, pgdialect.Array(edgeIDs), depth, depth)
	parts := 0
	part := func(sql string, args ...any) {
		if parts > 0 {
			q.add(` UNION ALL `)
		}
		q.add(sql, args...)
		parts++
	}
	slots := func(from, to time.Time) {
		if from.Before(to) {
			part(`SELECT product_id, units, revenue_cents FROM analytics_product_slots
				WHERE store_id = ? AND product_id IN (SELECT product_id FROM c) AND slot >= ? AND slot < ?`, storeID, from, to)
		}
	}
	var whole []time.Time
	from := span.From
	for _, m := range months {
		if m.whole {
			slots(from, m.start)
			whole = append(whole, m.start)
			from = m.start.AddDate(0, 1, 0)
		}
	}
	slots(from, span.To)
	if len(whole) > 0 {
		part(`SELECT product_id, units, revenue_cents FROM analytics_product_months
			WHERE store_id = ? AND month = ANY (?) AND product_id IN (SELECT product_id FROM c)`, storeID, pgdialect.Array(whole))
	}
	q.add(`) AS r GROUP BY r.product_id
		UNION ALL SELECT true, 0, 0, b.bound, b.exhausted FROM b`)
	var rows []struct {
		BoundRow bool
		AnalyticsProductStat
		Exhausted bool
	}
	if err := db.NewRaw(q.sql(), q.args...).Scan(ctx, &rows); err != nil {
		return nil, 0, false, err
	}
	sums = make(map[int64]AnalyticsProductStat, len(rows))
	for _, r := range rows {
		if r.BoundRow {
			bound, exhausted = r.RevenueCents, r.Exhausted
			continue
		}
		sums[r.ProductID] = r.AnalyticsProductStat
	}
	return sums, bound, exhausted, nil
}

// topSorted are sums by revenue, then units, then id.
func topSorted(sums map[int64]AnalyticsProductStat) []AnalyticsProductStat {
	out := make([]AnalyticsProductStat, 0, len(sums))
	for _, s := range sums {
		out = append(out, s)
	}
	slices.SortFunc(out, func(a, b AnalyticsProductStat) int {
		return cmp.Or(cmp.Compare(b.RevenueCents, a.RevenueCents), cmp.Compare(b.Units, a.Units), cmp.Compare(a.ProductID, b.ProductID))
	})
	return out
}

// topTitled are the first limit of sorted with their titles; a product no
// longer in the catalogue is left out, as TopProductsFromRaw leaves it.
func topTitled(ctx context.Context, db bun.IDB, storeID int64, sorted []AnalyticsProductStat, limit int) ([]AnalyticsProductStat, error) {
	sorted = sorted[:min(limit, len(sorted))]
	out := []AnalyticsProductStat{}
	if len(sorted) == 0 {
		return out, nil
	}
	ids := make([]int64, len(sorted))
	for i, s := range sorted {
		ids[i] = s.ProductID
	}
	var titles []struct {
		ID    int64
		Title string
	}
	if err := db.NewRaw(`SELECT id, title FROM products WHERE store_id = ? AND id = ANY (?)`, storeID, pgdialect.Array(ids)).Scan(ctx, &titles); err != nil {
		return nil, err
	}
	titleOf := make(map[int64]string, len(titles))
	for _, t := range titles {
		titleOf[t.ID] = t.Title
	}
	for _, s := range sorted {
		if title, ok := titleOf[s.ProductID]; ok {
			s.Title = title
			out = append(out, s)
		}
	}
	return out, nil
}
