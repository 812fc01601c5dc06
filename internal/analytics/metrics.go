package analytics

import (
	"context"
	"strings"

	"github.com/uptrace/bun"
)

// The definitions every report shares, in one place (README "Analytics"
// says the same in words). Each is a SQL function of migration
// 20261124170100_order_rollups, which its triggers, rebuild and raw sums
// call too, so there is one spelling of each; PostgreSQL inlines them.
//
//   - An order counts at the instant it was placed (created_at), unless it
//     was cancelled before any money was taken (CountedOrder).
//   - Gross sales are its subtotal: the line totals at the prices charged,
//     before order discounts; discounts are its product or order discount
//     (free shipping lowers shipping instead); shipping, tax and tips are its
//     own.
//   - A refund counts at its own instant, whatever the order's date, as the
//     leading platforms do: refunds lower net sales in the window the money
//     left, and a refunded order is counted at its first refund.
//   - Net sales are gross − discounts − refunds; the average order value is
//     (gross − discounts) / orders, rounded half up.
//   - A customer is new in a window when their first counted order ever was
//     placed in it, returning when they ordered in it and had before it.
//     Orders without a customer (guests) are in no customer count.
//   - An order's source is its utm_source, "(direct)" without one; its
//     campaign its utm_campaign (orders without one are in no campaign).
//   - A product's revenue is its lines' totals less their share of the
//     order discount.

// CountedOrder is the condition on an order (alias o) to count.
const CountedOrder = `analytics_order_counts(o.status, o.financial_status)`

// SuccessfulRefund is the condition on a refund (alias rf) to count.
const SuccessfulRefund = `analytics_refund_counts(rf.status)`

// OrderSource and OrderCampaign are an order's (alias o) source and
// campaign (” for none).
const (
	OrderSource   = `analytics_order_source(o.attribution)`
	OrderCampaign = `analytics_order_campaign(o.attribution)`
)

// LineRevenue is an order line's (alias l) revenue.
const LineRevenue = `analytics_line_revenue(l.price_cents, l.quantity, l.discount_cents)`

// OrderMetrics are the metrics of the orders placed and the refunds made in
// span (AnalyticsMetrics; net and AOV derived by Finish), from the rollups
// and the raw rows of span's ragged edges.
func OrderMetrics(ctx context.Context, db bun.IDB, storeID int64, span Span) (AnalyticsMetrics, error) {
	return overviewMetrics(ctx, db, storeID, span, overviewMetricRows)
}

// OrderMetricsFromRaw is OrderMetrics from the raw rows alone.
func OrderMetricsFromRaw(ctx context.Context, db bun.IDB, storeID int64, span Span) (AnalyticsMetrics, error) {
	return overviewMetrics(ctx, db, storeID, span, overviewMetricRawRows)
}

func overviewMetrics(ctx context.Context, db bun.IDB, storeID int64, span Span, rows overviewRows) (AnalyticsMetrics, error) {
	var m AnalyticsMetrics
	var q overviewQuery
	q.add(`SELECT ` + overviewMetricSums + ` FROM (`)
	rows(&q, storeID, span)
	q.add(`) AS m`)
	err := db.NewRaw(q.sql(), q.args...).Scan(ctx, &m.GrossCents, &m.DiscountCents, &m.ShippingCents, &m.TaxCents, &m.TipCents,
		&m.OrderCount, &m.Units, &m.RefundCents, &m.RefundedOrderCount)
	m.Finish()
	return m, err
}

// overviewMetricSums sums the rows of overviewMetricRows, in the order of
// AnalyticsMetrics's scan.
const overviewMetricSums = `coalesce(sum(m.gross), 0)::bigint, coalesce(sum(m.discount), 0)::bigint, coalesce(sum(m.shipping), 0)::bigint,
	coalesce(sum(m.tax), 0)::bigint, coalesce(sum(m.tip), 0)::bigint, coalesce(sum(m.orders), 0)::bigint,
	coalesce(sum(m.units), 0)::bigint, coalesce(sum(m.refund), 0)::bigint, coalesce(sum(m.refunded), 0)::bigint`

// overviewMetricRows are rows (at, gross, discount, shipping, tax, tip,
// orders, units, refund, refunded) whose sums are span's metrics: the
// rollup slots span covers whole, the raw rows of its edges.
func overviewMetricRows(q *overviewQuery, storeID int64, span Span) {
	overviewSplit(q, storeID, span, func(q *overviewQuery, storeID int64, s Span) {
		q.add(`SELECT slot AS at, gross_cents AS gross, discount_cents AS discount, shipping_cents AS shipping, tax_cents AS tax,
			tip_cents AS tip, order_count AS orders, units, refund_cents AS refund, refunded_order_count AS refunded
			FROM analytics_order_slots WHERE store_id = ? AND slot >= ? AND slot < ?`, storeID, s.From, s.To)
	}, overviewMetricRawRows)
}

// overviewMetricRawRows are overviewMetricRows from the raw rows: each
// counted order, each successful refund (refunded when it is its order's
// first: none earlier, or at the same instant with a lower id).
func overviewMetricRawRows(q *overviewQuery, storeID int64, s Span) {
	q.add(`SELECT o.created_at AS at, o.subtotal_cents AS gross, o.discount_cents AS discount, o.shipping_cents AS shipping,
		o.tax_cents AS tax, o.tip_cents AS tip, 1 AS orders,
		coalesce((SELECT sum(l.quantity) FROM order_line_items AS l WHERE l.order_id = o.id), 0) AS units, 0 AS refund, 0 AS refunded
		FROM orders AS o WHERE o.store_id = ? AND o.created_at >= ? AND o.created_at < ? AND `+CountedOrder+`
		UNION ALL
		SELECT rf.created_at, 0, 0, 0, 0, 0, 0, 0, rf.amount_cents,
			CASE WHEN EXISTS (SELECT 1 FROM refunds AS earlier WHERE earlier.order_id = rf.order_id
				AND analytics_refund_counts(earlier.status)
				AND (earlier.created_at < rf.created_at OR earlier.created_at = rf.created_at AND earlier.id < rf.id)) THEN 0 ELSE 1 END
		FROM refunds AS rf WHERE rf.store_id = ? AND rf.created_at >= ? AND rf.created_at < ? AND `+SuccessfulRefund,
		storeID, s.From, s.To, storeID, s.From, s.To)
}

// Finish derives the metrics made of others: net sales and the average
// order value.
func (m *AnalyticsMetrics) Finish() {
	m.NetCents = m.GrossCents - m.DiscountCents - m.RefundCents
	m.AOVCents = DivRound(m.GrossCents-m.DiscountCents, m.OrderCount)
}

// Add adds n's sums to m (Finish derives the rest after).
func (m *AnalyticsMetrics) Add(n AnalyticsMetrics) {
	m.GrossCents += n.GrossCents
	m.DiscountCents += n.DiscountCents
	m.RefundCents += n.RefundCents
	m.ShippingCents += n.ShippingCents
	m.TaxCents += n.TaxCents
	m.TipCents += n.TipCents
	m.OrderCount += n.OrderCount
	m.RefundedOrderCount += n.RefundedOrderCount
	m.Units += n.Units
}

// Customers counts the customers who ordered in span: new (their first
// counted order ever is in it) and returning. The rollup triggers keep each
// customer's counted orders with the time of the one before
// (analytics_customer_orders, migration 20261124180500): a customer
// bought in span once per order of span whose previous order is before
// span or none, and is new when that order has none. Both are counts of
// one index range, read from the index alone.
func Customers(ctx context.Context, db bun.IDB, storeID int64, span Span) (AnalyticsCustomers, error) {
	var c AnalyticsCustomers
	var buyers int64
	err := db.NewRaw(`SELECT count(*) FILTER (WHERE a.prev_at IS NULL OR a.prev_at < ?1), count(*) FILTER (WHERE a.prev_at IS NULL)
		FROM analytics_customer_orders AS a WHERE a.store_id = ?0 AND a.at >= ?1 AND a.at < ?2`,
		storeID, span.From, span.To).Scan(ctx, &buyers, &c.New)
	c.Returning = buyers - c.New
	c.ReturningRate = Ratio(c.Returning, c.New+c.Returning)
	return c, err
}

// CustomersFromRaw is Customers from the orders alone: each buyer's first
// counted order found among all of theirs.
func CustomersFromRaw(ctx context.Context, db bun.IDB, storeID int64, span Span) (AnalyticsCustomers, error) {
	var c AnalyticsCustomers
	err := db.NewRaw(`SELECT count(*) FILTER (WHERE first.at >= ?1) AS new, count(*) FILTER (WHERE first.at < ?1) AS returning
		FROM (SELECT DISTINCT o.customer_id FROM orders AS o
			WHERE o.store_id = ?0 AND o.created_at >= ?1 AND o.created_at < ?2 AND o.customer_id IS NOT NULL AND `+CountedOrder+`) AS buyer
		CROSS JOIN LATERAL (SELECT min(o.created_at) AS at FROM orders AS o
			WHERE o.store_id = ?0 AND o.customer_id = buyer.customer_id AND `+CountedOrder+`) AS first`,
		storeID, span.From, span.To).Scan(ctx, &c.New, &c.Returning)
	c.ReturningRate = Ratio(c.Returning, c.New+c.Returning)
	return c, err
}

// TopProductsFromRaw is TopProducts from the raw rows alone.
func TopProductsFromRaw(ctx context.Context, db bun.IDB, storeID int64, span Span, limit int) ([]AnalyticsProductStat, error) {
	out := []AnalyticsProductStat{}
	var q overviewQuery
	// The titles are read for the limit products only, after the sort.
	q.add(`SELECT s.product_id, p.title, s.units, s.revenue_cents
		FROM (SELECT r.product_id, sum(r.units)::bigint AS units, sum(r.revenue)::bigint AS revenue_cents FROM (`)
	overviewProductRawRows(&q, storeID, span)
	q.add(`) AS r GROUP BY r.product_id ORDER BY revenue_cents DESC, units DESC, r.product_id LIMIT ?) AS s
		JOIN products AS p ON p.id = s.product_id
		ORDER BY s.revenue_cents DESC, s.units DESC, s.product_id`, limit)
	err := db.NewRaw(q.sql(), q.args...).Scan(ctx, &out)
	return out, err
}

// overviewProductRawRows are rows (product_id, units, revenue) whose sums
// per product are its sales in s, from the orders and their lines.
func overviewProductRawRows(q *overviewQuery, storeID int64, s Span) {
	q.add(`SELECT l.product_id, l.quantity AS units, `+LineRevenue+` AS revenue
		FROM orders AS o JOIN order_line_items AS l ON l.order_id = o.id
		WHERE o.store_id = ? AND o.created_at >= ? AND o.created_at < ? AND l.product_id IS NOT NULL AND `+CountedOrder,
		storeID, s.From, s.To)
}

// overviewQuery is SQL written piece by piece with its ? arguments in
// order, so one statement can read the rollups and the raw edges of
// several spans.
type overviewQuery struct {
	b    strings.Builder
	args []any
}

func (q *overviewQuery) add(sql string, args ...any) {
	q.b.WriteString(sql)
	q.args = append(q.args, args...)
}

func (q *overviewQuery) sql() string { return q.b.String() }

// overviewRows writes a SELECT of the rows of a figure over a span.
type overviewRows func(q *overviewQuery, storeID int64, span Span)

// overviewSplit writes the rows of span as a UNION ALL: rollup over the
// slots it covers whole, raw over its edges (Span.Split).
func overviewSplit(q *overviewQuery, storeID int64, span Span, rollup, raw overviewRows) {
	inner, edges := span.Split()
	parts := 0
	if !inner.Empty() {
		rollup(q, storeID, inner)
		parts++
	}
	for _, e := range edges {
		if parts > 0 {
			q.add(` UNION ALL `)
		}
		raw(q, storeID, e)
		parts++
	}
}
