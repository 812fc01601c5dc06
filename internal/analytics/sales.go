package analytics

import (
	"cmp"
	"context"
	"slices"
	"time"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/pgdialect"
)

// Grains of sales by product.
const (
	GrainProduct = "product"
	GrainSKU     = "sku"
)

// Grains lists them, the default first.
var Grains = []string{GrainProduct, GrainSKU}

// CustomTitle is the title of the row of the lines without a product.
const CustomTitle = "custom"

// SalesQuery is what sales by product lists: rows of Grain, up to Limit of
// them (every one when 0: the export).
type SalesQuery struct {
	Grain string
	Limit int64
}

// SalesByProduct is sales by product or SKU over w: the rollups'
// (product_sales_slots, migration 20261124170200) slots w covers whole,
// and the raw rows of its ragged edges.
//
// The rollup slots are summed per row of the report in PostgreSQL, which
// answers only the rows that may be listed (salesRanked) and the sums of
// all of them: a 90-day window of a large store has 150,000 rows to rank,
// and carrying them all to Go took longer than summing them.
func SalesByProduct(ctx context.Context, db bun.IDB, storeID int64, w Window, q SalesQuery) (*AnalyticsProductSalesReport, error) {
	inner, edges := w.Split()
	var edgeRows []salesSlotRow
	for _, e := range edges {
		rows, err := salesRawSlots(ctx, db, storeID, e)
		if err != nil {
			return nil, err
		}
		edgeRows = append(edgeRows, rows...)
	}
	edgeKeys := salesSums{}
	edgeKeys.add(edgeRows, q.Grain)
	sums, total, count := salesSums{}, salesSlotRow{}, int64(0)
	if !inner.Empty() {
		ranked, err := salesRanked(ctx, db, storeID, inner, q, edgeKeys)
		if err != nil {
			return nil, err
		}
		sums.add(ranked.rows, q.Grain)
		total, count = ranked.total, ranked.count
	}
	for k := range edgeKeys {
		if sums[k] == nil {
			count++
		}
	}
	sums.add(edgeRows, q.Grain)
	for _, r := range edgeRows {
		total.plus(r)
	}
	return salesReport(ctx, db, storeID, w, q, sums, salesTotalsOf(total, count))
}

// salesRankedRows is what salesRanked reads of the rollups: the rows that
// may be listed, with the sums and the number of all rows.
type salesRankedRows struct {
	rows  []salesSlotRow
	total salesSlotRow
	count int64
}

// salesRankedRow is a row of salesRanked's statement: a report row, or
// (Total) the sums of all of them and their number.
type salesRankedRow struct {
	Total bool
	Count int64
	salesSlotRow
}

// salesRanked sums the rollup slots of span per report row of q's grain
// (product_orders as the orders of a product row, in both order columns)
// and answers those selling at least as much as the q.Limit-th (ties
// included; every row for the export) and those of keys, whose edges may
// lift them into the list: a row outside both sells less than the
// limit-th, edges added or not, as edges only add sales. The sums of
// every row and their number come with them.
func salesRanked(ctx context.Context, db bun.IDB, storeID int64, span Span, q SalesQuery, keys salesSums) (salesRankedRows, error) {
	variant, orders := "variant_id", "variant_orders"
	if q.Grain != GrainSKU {
		variant, orders = "0::bigint", "product_orders"
	}
	products, variants := make([]int64, 0, len(keys)), make([]int64, 0, len(keys))
	for k := range keys {
		products, variants = append(products, k.ProductID), append(variants, k.VariantID)
	}
	var rows []salesRankedRow
	err := withWorkMem(ctx, db, func(db bun.IDB) error {
		return db.NewRaw(`WITH g AS (
				SELECT product_id, `+variant+` AS variant_id, analytics_sum(`+orders+`) AS orders, analytics_sum(items) AS items,
					analytics_sum(gross_cents) AS gross, analytics_sum(sales_cents) AS sales, analytics_sum(discount_cents) AS discount,
					analytics_sum(tax_cents) AS tax, analytics_sum(refunded_items) AS refunded_items,
					analytics_sum(refunded_cents) AS refunded_cents
				FROM product_sales_slots WHERE store_id = ?0 AND slot >= ?1 AND slot < ?2 GROUP BY 1, 2
			), r AS (
				SELECT false AS total, 0::bigint AS count, g.* FROM g
				WHERE ?3 = 0 OR g.sales >= coalesce((SELECT sales FROM g ORDER BY sales DESC OFFSET ?3 - 1 LIMIT 1), g.sales)
					OR (g.product_id, g.variant_id) IN (SELECT * FROM unnest(?4::bigint[], ?5::bigint[]))
				UNION ALL
				SELECT true, count(*), 0, 0, analytics_sum(orders), analytics_sum(items), analytics_sum(gross), analytics_sum(sales),
					analytics_sum(discount), analytics_sum(tax), analytics_sum(refunded_items), analytics_sum(refunded_cents) FROM g
			)
			SELECT total, count, product_id, variant_id, coalesce(orders, 0) AS variant_orders, coalesce(orders, 0) AS product_orders,
				coalesce(items, 0) AS items, coalesce(gross, 0) AS gross_cents, coalesce(gross - sales, 0) AS line_discount_cents,
				coalesce(sales, 0) AS sales_cents, coalesce(discount, 0) AS discount_cents, coalesce(tax, 0) AS tax_cents,
				coalesce(refunded_items, 0) AS refunded_items, coalesce(refunded_cents, 0) AS refunded_cents
			FROM r`,
			storeID, span.From, span.To, q.Limit, pgdialect.Array(products), pgdialect.Array(variants)).Scan(ctx, &rows)
	})
	out := salesRankedRows{rows: make([]salesSlotRow, 0, len(rows))}
	for _, r := range rows {
		if r.Total {
			out.total, out.count = r.salesSlotRow, r.Count
			continue
		}
		out.rows = append(out.rows, r.salesSlotRow)
	}
	return out, err
}

// SalesByProductFromRaw is SalesByProduct read from the raw rows alone,
// for the check and the tests to compare with.
func SalesByProductFromRaw(ctx context.Context, db bun.IDB, storeID int64, w Window, q SalesQuery) (*AnalyticsProductSalesReport, error) {
	sums := salesSums{}
	var total salesSlotRow
	err := salesRawDays(ctx, db, storeID, w.Span, func(rows []salesSlotRow) error {
		sums.add(rows, q.Grain)
		for _, r := range rows {
			total.plus(r)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return salesReport(ctx, db, storeID, w, q, sums, salesTotalsOf(total, int64(len(sums))))
}

// salesSlotRow is one slot's sums of one variant key, as the rollup holds
// them.
type salesSlotRow struct {
	Slot              time.Time
	ProductID         int64
	VariantID         int64
	VariantOrders     int64
	ProductOrders     int64
	Items             int64
	GrossCents        int64
	LineDiscountCents int64
	SalesCents        int64
	DiscountCents     int64
	TaxCents          int64
	RefundedItems     int64
	RefundedCents     int64
}

// plus adds r's sums to s's.
func (s *salesSlotRow) plus(r salesSlotRow) {
	s.VariantOrders += r.VariantOrders
	s.ProductOrders += r.ProductOrders
	s.Items += r.Items
	s.GrossCents += r.GrossCents
	s.LineDiscountCents += r.LineDiscountCents
	s.SalesCents += r.SalesCents
	s.DiscountCents += r.DiscountCents
	s.TaxCents += r.TaxCents
	s.RefundedItems += r.RefundedItems
	s.RefundedCents += r.RefundedCents
}

// salesTotalsOf are the report's totals of rows whose sums are t: every
// figure of the totals is a sum of the rows'.
func salesTotalsOf(t salesSlotRow, rows int64) AnalyticsProductSalesTotals {
	net := t.SalesCents - t.DiscountCents - t.RefundedCents
	return AnalyticsProductSalesTotals{Rows: rows, ItemsSold: t.Items, RefundedItems: t.RefundedItems, GrossCents: t.GrossCents,
		LineDiscountCents: t.LineDiscountCents, ProductSalesCents: t.SalesCents, RefundedCents: t.RefundedCents,
		DiscountCents: salesPtr(t.DiscountCents), TaxCents: salesPtr(t.TaxCents), NetItemsSold: salesPtr(t.Items - t.RefundedItems),
		NetSalesCents: salesPtr(net), TotalSalesCents: salesPtr(net + t.TaxCents)}
}

// salesKey is a row of the report: a product (VariantID 0 by product) or
// a variant; product 0 is the custom lines.
type salesKey struct{ ProductID, VariantID int64 }

// salesSums are the report's rows being summed.
type salesSums map[salesKey]*AnalyticsProductSalesRow

// add sums rows into the report's rows of grain: by product, a product's
// orders are those it was the first variant of (each order once).
func (s salesSums) add(rows []salesSlotRow, grain string) {
	for _, r := range rows {
		k, orders := salesKey{ProductID: r.ProductID, VariantID: r.VariantID}, r.VariantOrders
		if grain != GrainSKU {
			k.VariantID, orders = 0, r.ProductOrders
		}
		row := s[k]
		if row == nil {
			row = &AnalyticsProductSalesRow{ProductID: k.ProductID, VariantID: k.VariantID}
			s[k] = row
		}
		row.OrderCount += orders
		row.ItemsSold += r.Items
		row.GrossCents += r.GrossCents
		row.LineDiscountCents += r.LineDiscountCents
		row.ProductSalesCents += r.SalesCents
		row.RefundedItems += r.RefundedItems
		row.RefundedCents += r.RefundedCents
		*salesField(&row.DiscountCents) += r.DiscountCents
		*salesField(&row.TaxCents) += r.TaxCents
	}
}

// salesField is a nullable figure of a row, made 0 the first time it is
// added to: the report always fills them.
func salesField(p **int64) *int64 {
	if *p == nil {
		*p = new(int64)
	}
	return *p
}

// salesRawQuery is the rollups' contribution of the orders placed and the
// refunds made in [?1, ?2), per slot and variant key, computed from the raw
// rows by the same SQL functions the triggers use.
const salesRawQuery = `WITH os AS (
		SELECT ARRAY(SELECT o FROM orders AS o WHERE o.store_id = ?0 AND o.created_at >= ?1 AND o.created_at < ?2) AS os
	), rs AS (
		SELECT ARRAY(SELECT rf FROM refunds AS rf WHERE rf.store_id = ?0 AND rf.created_at >= ?1 AND rf.created_at < ?2) AS rs
	), rls AS (
		SELECT ARRAY(SELECT rl FROM refund_line_items AS rl WHERE rl.refund_id IN (SELECT id FROM unnest(rs.rs))) AS rls FROM rs
	), d AS (
		SELECT d.* FROM os, LATERAL product_sales_of_lines(os.os,
			ARRAY(SELECT l FROM order_line_items AS l WHERE l.order_id IN (SELECT id FROM unnest(os.os))), 1) AS d
		UNION ALL
		SELECT d.* FROM rs, rls, LATERAL product_sales_of_refunds(
			ARRAY(SELECT o FROM orders AS o WHERE o.id IN (SELECT order_id FROM unnest(rs.rs))),
			ARRAY(SELECT l FROM order_line_items AS l WHERE l.id IN (SELECT line_item_id FROM unnest(rls.rls))),
			rs.rs, rls.rls, 1) AS d
	)
	SELECT slot, product_id, variant_id, sum(variant_orders) AS variant_orders, sum(product_orders) AS product_orders,
		sum(items) AS items, sum(gross_cents) AS gross_cents, sum(line_discount_cents) AS line_discount_cents,
		sum(sales_cents) AS sales_cents, sum(discount_cents) AS discount_cents, sum(tax_cents) AS tax_cents,
		sum(refunded_items) AS refunded_items, sum(refunded_cents) AS refunded_cents
	FROM d GROUP BY slot, product_id, variant_id`

// salesRawSlots reads span's sums from the raw rows.
func salesRawSlots(ctx context.Context, db bun.IDB, storeID int64, span Span) ([]salesSlotRow, error) {
	var rows []salesSlotRow
	err := db.NewRaw(salesRawQuery, storeID, span.From, span.To).Scan(ctx, &rows)
	return rows, err
}

// salesRawDays reads span's sums from the raw rows a day at a time, so a
// long span never holds all its orders at once.
func salesRawDays(ctx context.Context, db bun.IDB, storeID int64, span Span, each func([]salesSlotRow) error) error {
	// Only the days that may hold orders or refunds: a check of all time
	// would otherwise walk the days from year 1.
	var first, last *time.Time
	err := db.NewRaw(`SELECT least((SELECT min(created_at) FROM orders WHERE store_id = ?0), (SELECT min(created_at) FROM refunds WHERE store_id = ?0)),
		greatest((SELECT max(created_at) FROM orders WHERE store_id = ?0), (SELECT max(created_at) FROM refunds WHERE store_id = ?0))`,
		storeID).Scan(ctx, &first, &last)
	if err != nil || first == nil || last == nil {
		return err
	}
	span = Span{From: maxTime(span.From, SlotOf(*first)), To: minTime(span.To, SlotOf(*last).Add(Slot))}
	for from := span.From; from.Before(span.To); {
		to := minTime(from.Add(24*time.Hour), span.To)
		rows, err := salesRawSlots(ctx, db, storeID, Span{From: from, To: to})
		if err != nil {
			return err
		}
		if err := each(rows); err != nil {
			return err
		}
		from = to
	}
	return nil
}

// salesReport finishes the rows summed: derived figures, order, the
// answered rows' catalogue labels, the totals t and the orders' basis.
func salesReport(ctx context.Context, db bun.IDB, storeID int64, w Window, q SalesQuery, sums salesSums, t AnalyticsProductSalesTotals) (*AnalyticsProductSalesReport, error) {
	grain := cmp.Or(q.Grain, GrainProduct)
	rows := make([]AnalyticsProductSalesRow, 0, len(sums))
	for _, r := range sums {
		discount, tax := *salesField(&r.DiscountCents), *salesField(&r.TaxCents)
		net := r.ProductSalesCents - discount - r.RefundedCents
		r.NetItemsSold, r.NetSalesCents, r.TotalSalesCents = salesPtr(r.ItemsSold-r.RefundedItems), salesPtr(net), salesPtr(net+tax)
		rows = append(rows, *r)
	}
	// Only the rows that may be answered need their labels: those selling
	// at least as much as the limit-th (its ties included, which the title
	// orders). The totals are sums of every row and need none.
	if q.Limit > 0 && int64(len(rows)) > q.Limit {
		slices.SortFunc(rows, func(a, b AnalyticsProductSalesRow) int {
			return cmp.Compare(b.ProductSalesCents, a.ProductSalesCents)
		})
		last := rows[q.Limit-1].ProductSalesCents
		n := q.Limit
		for n < int64(len(rows)) && rows[n].ProductSalesCents == last {
			n++
		}
		rows = rows[:n]
	}
	if err := salesLabels(ctx, db, storeID, grain, rows); err != nil {
		return nil, err
	}
	slices.SortFunc(rows, func(a, b AnalyticsProductSalesRow) int {
		return cmp.Or(cmp.Compare(b.ProductSalesCents, a.ProductSalesCents), cmp.Compare(a.Title, b.Title),
			cmp.Compare(a.ProductID, b.ProductID), cmp.Compare(a.VariantID, b.VariantID))
	})
	if q.Limit > 0 && int64(len(rows)) > q.Limit {
		rows = rows[:q.Limit]
	}
	basis, err := salesBasis(ctx, db, storeID, w.Span)
	if err != nil {
		return nil, err
	}
	return &AnalyticsProductSalesReport{From: w.FormatTime(w.From), To: w.FormatTime(w.To), Grain: grain, Limit: q.Limit,
		Rows: rows, Totals: t, Basis: basis}, nil
}

func salesPtr(v int64) *int64 { return &v }

// salesLabels fills the rows' titles, vendor, type, variant title and SKU
// from the catalogue as it is now; a product or variant no longer in it
// keeps its last line's (no vendor or type: lines carry none).
func salesLabels(ctx context.Context, db bun.IDB, storeID int64, grain string, rows []AnalyticsProductSalesRow) error {
	sku := grain == GrainSKU
	products, variants := make([]int64, 0, len(rows)), make([]int64, 0, len(rows))
	for _, r := range rows {
		if r.ProductID != 0 {
			products, variants = append(products, r.ProductID), append(variants, r.VariantID)
		}
	}
	if len(products) == 0 {
		salesLabel(rows, nil)
		return nil
	}
	var labels []salesLabelRow
	err := db.NewRaw(`SELECT k.product_id, k.variant_id, p.id IS NOT NULL AND (NOT ?1 OR v.id IS NOT NULL) AS known,
			coalesce(p.title, '') AS title, coalesce(p.vendor, '') AS vendor, coalesce(p.product_type, '') AS product_type,
			CASE WHEN ?1 THEN coalesce(v.title, '') ELSE '' END AS variant_title,
			CASE WHEN ?1 THEN coalesce(v.sku, '') ELSE '' END AS sku
		FROM unnest(?2::bigint[], ?3::bigint[]) AS k(product_id, variant_id)
		LEFT JOIN products AS p ON p.id = k.product_id AND p.store_id = ?0
		LEFT JOIN product_variants AS v ON v.id = k.variant_id AND v.product_id = k.product_id`,
		storeID, sku, pgdialect.Array(products), pgdialect.Array(variants)).Scan(ctx, &labels)
	if err != nil {
		return err
	}
	var gone []int
	for i, l := range labels {
		if !l.Known {
			gone = append(gone, i)
		}
	}
	if len(gone) > 0 {
		// What the catalogue no longer has: its last line's labels, keeping
		// a product's own when only its variant went.
		ps, vs := make([]int64, len(gone)), make([]int64, len(gone))
		for j, i := range gone {
			ps[j], vs[j] = labels[i].ProductID, labels[i].VariantID
		}
		var last []salesLabelRow
		err := db.NewRaw(`SELECT DISTINCT ON (k.product_id, k.variant_id) k.product_id, k.variant_id,
				l.title, l.variant_title, l.sku
			FROM unnest(?1::bigint[], ?2::bigint[]) AS k(product_id, variant_id)
			JOIN order_line_items AS l ON l.store_id = ?0 AND l.product_id = k.product_id
				AND (NOT ?3 OR coalesce(l.variant_id, 0) = k.variant_id)
			ORDER BY k.product_id, k.variant_id, l.id DESC`,
			storeID, pgdialect.Array(ps), pgdialect.Array(vs), sku).Scan(ctx, &last)
		if err != nil {
			return err
		}
		lastOf := map[salesKey]salesLabelRow{}
		for _, l := range last {
			lastOf[salesKey{l.ProductID, l.VariantID}] = l
		}
		for _, i := range gone {
			l, ok := &labels[i], lastOf[salesKey{labels[i].ProductID, labels[i].VariantID}]
			if l.Title == "" {
				l.Title = ok.Title
			}
			if sku {
				l.VariantTitle, l.SKU = ok.VariantTitle, ok.SKU
			}
		}
	}
	salesLabel(rows, labels)
	return nil
}

// salesLabelRow is the labels of one row.
type salesLabelRow struct {
	ProductID, VariantID                          int64
	Known                                         bool
	Title, VariantTitle, SKU, Vendor, ProductType string
}

// salesLabel puts labels on the rows; custom lines are CustomTitle.
func salesLabel(rows []AnalyticsProductSalesRow, labels []salesLabelRow) {
	at := make(map[salesKey]salesLabelRow, len(labels))
	for _, l := range labels {
		at[salesKey{l.ProductID, l.VariantID}] = l
	}
	for i := range rows {
		r := &rows[i]
		if r.ProductID == 0 {
			r.Title = CustomTitle
			continue
		}
		l := at[salesKey{r.ProductID, r.VariantID}]
		r.Title, r.VariantTitle, r.SKU, r.Vendor, r.ProductType = l.Title, l.VariantTitle, l.SKU, l.Vendor, l.ProductType
	}
}

// salesBasis is what the report reconciles to: the orders' own figures
// (OrderMetrics) and the refunds that gave back no line.
func salesBasis(ctx context.Context, db bun.IDB, storeID int64, span Span) (AnalyticsProductSalesBasis, error) {
	m, err := OrderMetrics(ctx, db, storeID, span)
	if err != nil {
		return AnalyticsProductSalesBasis{}, err
	}
	b := AnalyticsProductSalesBasis{OrderSubtotalCents: m.GrossCents, OrderDiscountCents: m.DiscountCents,
		OrderTaxCents: m.TaxCents, RefundedCents: m.RefundCents, RefundedOrders: m.RefundedOrderCount}
	err = db.NewRaw(`SELECT count(*) FROM refunds AS rf
		WHERE rf.store_id = ?0 AND `+SuccessfulRefund+` AND rf.created_at >= ?1 AND rf.created_at < ?2
			AND NOT EXISTS (SELECT FROM refund_line_items AS rl WHERE rl.refund_id = rf.id)`,
		storeID, span.From, span.To).Scan(ctx, &b.RefundsWithoutLines)
	return b, err
}
