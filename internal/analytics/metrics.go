package analytics

import (
	"context"

	"github.com/uptrace/bun"
)

// The definitions every report shares, in one place (README "Analytics"
// says the same in words):
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
//   - A product's revenue is its lines' totals less their share of the
//     order discount.

// CountedOrder is the condition on an order (alias o) to count.
const CountedOrder = `NOT (o.status = 'cancelled' AND o.financial_status IN ('pending', 'authorized', 'voided'))`

// SuccessfulRefund is the condition on a refund (alias rf) to count.
const SuccessfulRefund = `rf.status = 'success'`

// OrderMetrics are the metrics of the orders placed and the refunds made in
// span (AnalyticsMetrics; net and AOV derived by Finish).
func OrderMetrics(ctx context.Context, db bun.IDB, storeID int64, span Span) (AnalyticsMetrics, error) {
	var m AnalyticsMetrics
	err := db.NewRaw(`SELECT
		coalesce(sum(o.subtotal_cents), 0) AS gross_cents, coalesce(sum(o.discount_cents), 0) AS discount_cents,
		coalesce(sum(o.shipping_cents), 0) AS shipping_cents, coalesce(sum(o.tax_cents), 0) AS tax_cents,
		coalesce(sum(o.tip_cents), 0) AS tip_cents, count(*) AS order_count,
		coalesce(sum((SELECT sum(l.quantity) FROM order_line_items AS l WHERE l.order_id = o.id)), 0) AS units,
		(SELECT coalesce(sum(rf.amount_cents), 0) FROM refunds AS rf
			WHERE rf.store_id = ?0 AND `+SuccessfulRefund+` AND rf.created_at >= ?1 AND rf.created_at < ?2) AS refund_cents,
		(SELECT count(*) FROM (SELECT rf.order_id FROM refunds AS rf WHERE rf.store_id = ?0 AND `+SuccessfulRefund+`
			GROUP BY rf.order_id HAVING min(rf.created_at) >= ?1 AND min(rf.created_at) < ?2) AS first) AS refunded_order_count
		FROM orders AS o
		WHERE o.store_id = ?0 AND o.created_at >= ?1 AND o.created_at < ?2 AND `+CountedOrder,
		storeID, span.From, span.To).Scan(ctx, &m.GrossCents, &m.DiscountCents, &m.ShippingCents, &m.TaxCents, &m.TipCents,
		&m.OrderCount, &m.Units, &m.RefundCents, &m.RefundedOrderCount)
	m.Finish()
	return m, err
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
// counted order ever is in it) and returning.
func Customers(ctx context.Context, db bun.IDB, storeID int64, span Span) (AnalyticsCustomers, error) {
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

// TopProducts are the limit products that sold for the most in span, by
// revenue (line totals less their discount share), then units, then id.
func TopProducts(ctx context.Context, db bun.IDB, storeID int64, span Span, limit int) ([]AnalyticsProductStat, error) {
	out := []AnalyticsProductStat{}
	err := db.NewRaw(`SELECT s.product_id, coalesce(p.title, s.title) AS title, s.units, s.revenue_cents
		FROM (SELECT l.product_id, (array_agg(l.title ORDER BY o.created_at DESC, l.id DESC))[1] AS title,
				sum(l.quantity) AS units, sum(l.price_cents * l.quantity - l.discount_cents) AS revenue_cents
			FROM orders AS o JOIN order_line_items AS l ON l.order_id = o.id
			WHERE o.store_id = ?0 AND o.created_at >= ?1 AND o.created_at < ?2 AND l.product_id IS NOT NULL AND `+CountedOrder+`
			GROUP BY l.product_id) AS s
		LEFT JOIN products AS p ON p.id = s.product_id
		ORDER BY s.revenue_cents DESC, s.units DESC, s.product_id LIMIT ?3`,
		storeID, span.From, span.To, limit).Scan(ctx, &out)
	return out, err
}
