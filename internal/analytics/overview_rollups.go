package analytics

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/uptrace/bun"
)

// RebuildOrderRollups recomputes the store's order rollups (slots, sources
// and campaigns, codes, products and their months, customers' order chains) from the raw rows, in one
// statement: the caller's transaction, or its own.
func RebuildOrderRollups(ctx context.Context, db bun.IDB, storeID int64) error {
	_, err := db.ExecContext(ctx, `SELECT analytics_order_rollups_rebuild(?)`, storeID)
	return err
}

// overviewRollupTables are the order rollups with their key columns after
// store_id and slot, and the function that sums the raw rows as they must
// hold them.
var overviewRollupTables = []struct{ table, keys, raw string }{
	{"analytics_order_slots", "", "analytics_order_slots_raw"},
	{"analytics_source_slots", "source, campaign", "analytics_source_slots_raw"},
	{"analytics_discount_slots", "code", "analytics_discount_slots_raw"},
	{"analytics_product_slots", "product_id", "analytics_product_slots_raw"},
}

// CheckOrderRollups compares the store's order rollups over the slots span
// touches (and every customer's order chain) with the raw rows, and
// describes each difference: a rollup row the raw rows do not give, or one
// they give otherwise, or not at all.
func CheckOrderRollups(ctx context.Context, db bun.IDB, storeID int64, span Span) ([]string, error) {
	from, to := SlotOf(span.From), ceilSlot(span.To)
	out := []string{}
	for _, t := range overviewRollupTables {
		keys := "slot"
		if t.keys != "" {
			keys += ", " + t.keys
		}
		q := fmt.Sprintf(`SELECT row_to_json(r)::text AS rollup, row_to_json(w)::text AS raw
			FROM (SELECT * FROM %[1]s WHERE store_id = ?0 AND slot >= ?1 AND slot < ?2) AS r
			FULL JOIN %[2]s(?0, ?1, ?2) AS w USING (store_id, %[3]s)
			WHERE r IS DISTINCT FROM w ORDER BY coalesce(r.slot, w.slot)`, t.table, t.raw, keys)
		diffs, err := overviewDiffs(ctx, db, t.table, q, storeID, from, to)
		if err != nil {
			return nil, err
		}
		out = append(out, diffs...)
	}
	// The monthly ranks of the months span touches against the slots'
	// sums (the slots were checked against the raw rows above).
	diffs, err := overviewDiffs(ctx, db, "analytics_product_months", `SELECT row_to_json(r)::text AS rollup, row_to_json(w)::text AS raw
		FROM (SELECT * FROM analytics_product_months WHERE store_id = ?0 AND month >= analytics_month(?1) AND month < ?2) AS r
		FULL JOIN (SELECT * FROM analytics_product_months_of_slots(?0) WHERE month >= analytics_month(?1) AND month < ?2) AS w
			USING (store_id, month, product_id)
		WHERE r IS DISTINCT FROM w ORDER BY coalesce(r.month, w.month), coalesce(r.product_id, w.product_id)`, storeID, from, to)
	if err != nil {
		return nil, err
	}
	out = append(out, diffs...)
	diffs, err = overviewDiffs(ctx, db, "analytics_customer_orders", `SELECT row_to_json(r)::text AS rollup, row_to_json(w)::text AS raw
		FROM (SELECT * FROM analytics_customer_orders WHERE store_id = ?0) AS r
		FULL JOIN analytics_customer_orders_raw(?0) AS w USING (store_id, customer_id, order_id)
		WHERE r IS DISTINCT FROM w ORDER BY coalesce(r.customer_id, w.customer_id), coalesce(r.order_id, w.order_id)`, storeID)
	return append(out, diffs...), err
}

func overviewDiffs(ctx context.Context, db bun.IDB, table, query string, args ...any) ([]string, error) {
	var pairs []struct {
		Rollup, Raw *string
	}
	if err := db.NewRaw(query, args...).Scan(ctx, &pairs); err != nil {
		return nil, fmt.Errorf("check %s: %w", table, err)
	}
	out := make([]string, 0, len(pairs))
	for _, p := range pairs {
		out = append(out, fmt.Sprintf("%s: rollup %s, raw rows %s", table, overviewOrNone(p.Rollup), overviewOrNone(p.Raw)))
	}
	return out, nil
}

func overviewOrNone(s *string) string {
	if s == nil {
		return "none"
	}
	return strings.ReplaceAll(*s, "\n", " ")
}

// AllTime is every instant a rollup may hold: the span a check covers by
// default.
var AllTime = Span{From: time.Date(1, 1, 1, 0, 0, 0, 0, time.UTC), To: time.Date(9999, 1, 1, 0, 0, 0, 0, time.UTC)}
