package analytics

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/uptrace/bun"
)

// trafficSlotSQL is a session's rollup slot (the start of its 15-minute
// UTC slot), as the migration's triggers compute it.
const trafficSlotSQL = "date_bin('15 minutes', s.first_seen_at, timestamptz '2000-01-01 00:00:00+00')"

// CheckTrafficRollups compares what the traffic reports read with the raw
// rows over span (the store's sessions begun in it): each session's steps
// and visitor's previous start against the events, carts, checkouts and
// orders they come from, and every slot of traffic_slots and
// traffic_landing_slots against the sums of the sessions. It answers one
// line per difference; none when they agree.
func CheckTrafficRollups(ctx context.Context, db bun.IDB, storeID int64, span Span) ([]string, error) {
	var problems []string
	var steps []struct {
		SessionKey string `bun:"session_key"`
		Column     string `bun:"col"`
		Stored     string `bun:"stored"`
		Told       string `bun:"told"`
	}
	err := db.NewRaw(`WITH ids AS (SELECT array_agg(id) AS ids, array_agg(DISTINCT visitor_id) AS visitors
			FROM storefront_sessions s WHERE s.store_id = ? AND s.first_seen_at >= ? AND s.first_seen_at < ?)
		SELECT s.session_key, d.col, d.stored, d.told
		FROM ids, storefront_sessions s
		JOIN storefront_sessions_steps_of((SELECT ids FROM ids)) f ON f.id = s.id
		JOIN storefront_sessions_prev_of((SELECT visitors FROM ids)) p ON p.id = s.id
		CROSS JOIN LATERAL (VALUES
			('viewed_product', s.viewed_product::text, f.viewed_product::text),
			('carted', s.carted::text, f.carted::text),
			('reached_checkout', s.reached_checkout::text, f.reached_checkout::text),
			('checkout_attempts', s.checkout_attempts::text, f.checkout_attempts::text),
			('orders', s.orders::text, f.orders::text),
			('revenue_cents', s.revenue_cents::text, f.revenue_cents::text),
			('prev_seen_at', coalesce(s.prev_seen_at::text, 'null'), coalesce(p.prev_seen_at::text, 'null')),
			('prev_landing_seen_at', coalesce(s.prev_landing_seen_at::text, 'null'), coalesce(p.prev_landing_seen_at::text, 'null'))) AS d (col, stored, told)
		WHERE d.stored <> d.told ORDER BY s.id, d.col`, storeID, span.From, span.To).Scan(ctx, &steps)
	if err != nil && err != sql.ErrNoRows {
		return nil, err
	}
	for _, d := range steps {
		problems = append(problems, fmt.Sprintf("session %s: %s is %s, its rows say %s", d.SessionKey, d.Column, d.Stored, d.Told))
	}
	inner := Span{From: ceilSlot(span.From), To: span.To.Truncate(Slot)}
	if !inner.From.Before(inner.To) {
		return problems, nil
	}
	var slots []struct {
		Slot     time.Time `bun:"slot"`
		Path     *string   `bun:"path"`
		Rollup   string    `bun:"rollup"`
		Sessions string    `bun:"sessions"`
	}
	// Each row of either table as the rollup keeps it and as the sessions
	// sum, where they differ (a missing row is zeros).
	err = db.NewRaw(`WITH raw AS (
			SELECT `+trafficSlotSQL+` AS slot, coalesce(s.landing_path, '') AS path, count(*) AS sessions,
				count(*) FILTER (WHERE s.carted) AS carted, count(*) FILTER (WHERE s.reached_checkout) AS checkout,
				count(*) FILTER (WHERE s.orders > 0) AS converted, sum(s.revenue_cents) AS revenue,
				count(*) FILTER (WHERE s.prev_seen_at IS NULL) AS firsts, count(*) FILTER (WHERE s.prev_landing_seen_at IS NULL) AS landing_firsts
			FROM storefront_sessions s WHERE s.store_id = ? AND NOT s.is_bot AND s.first_seen_at >= ? AND s.first_seen_at < ?
			GROUP BY 1, 2),
		raw_slots AS (
			SELECT slot, format('%s sessions, %s carted, %s checkout, %s converted, %s not set, %s revenue, %s first', sum(sessions), sum(carted),
				sum(checkout), sum(converted), coalesce(sum(sessions) FILTER (WHERE path = ''), 0), sum(revenue), sum(firsts)) AS v
			FROM raw GROUP BY slot),
		rollup_slots AS (
			SELECT slot, format('%s sessions, %s carted, %s checkout, %s converted, %s not set, %s revenue, %s first', sessions, carted_sessions,
				checkout_sessions, converted_sessions, not_set_sessions, revenue_cents, first_sessions) AS v
			FROM traffic_slots WHERE store_id = ? AND slot >= ? AND slot < ?),
		raw_pages AS (
			SELECT slot, path, format('%s sessions, %s carted, %s checkout, %s converted, %s revenue, %s first', sessions, carted, checkout, converted,
				revenue, landing_firsts) AS v
			FROM raw),
		rollup_pages AS (
			SELECT slot, landing_path AS path, format('%s sessions, %s carted, %s checkout, %s converted, %s revenue, %s first', sessions, carted_sessions,
				checkout_sessions, converted_sessions, revenue_cents, first_sessions) AS v
			FROM traffic_landing_slots WHERE store_id = ? AND slot >= ? AND slot < ?)
		SELECT coalesce(a.slot, b.slot) AS slot, NULL AS path, coalesce(b.v, 'nothing') AS rollup, coalesce(a.v, 'nothing') AS sessions
		FROM raw_slots a FULL JOIN rollup_slots b ON a.slot = b.slot WHERE a.v IS DISTINCT FROM b.v
		UNION ALL
		SELECT coalesce(a.slot, b.slot), coalesce(a.path, b.path), coalesce(b.v, 'nothing'), coalesce(a.v, 'nothing')
		FROM raw_pages a FULL JOIN rollup_pages b ON a.slot = b.slot AND a.path = b.path WHERE a.v IS DISTINCT FROM b.v
		ORDER BY 1, 2 NULLS FIRST`,
		storeID, inner.From, inner.To, storeID, inner.From, inner.To, storeID, inner.From, inner.To).Scan(ctx, &slots)
	if err != nil && err != sql.ErrNoRows {
		return nil, err
	}
	for _, d := range slots {
		where := "traffic_slots " + d.Slot.UTC().Format(time.RFC3339)
		if d.Path != nil {
			where = fmt.Sprintf("traffic_landing_slots %s %q", d.Slot.UTC().Format(time.RFC3339), *d.Path)
		}
		problems = append(problems, fmt.Sprintf("%s: the rollup has %s, the sessions %s", where, d.Rollup, d.Sessions))
	}
	return problems, nil
}

// RebuildTrafficRollups recomputes the store's session steps and visitors'
// previous starts from the raw rows and its traffic rollups from the
// sessions, in one transaction that holds off writes to the sessions.
func RebuildTrafficRollups(ctx context.Context, db bun.IDB, storeID int64) error {
	return db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		for _, q := range []string{
			"LOCK TABLE storefront_sessions IN SHARE ROW EXCLUSIVE MODE",
			"SELECT storefront_sessions_steps(ARRAY(SELECT id FROM storefront_sessions WHERE store_id = ?0))",
			"SELECT storefront_sessions_prev(ARRAY(SELECT DISTINCT visitor_id FROM storefront_sessions WHERE store_id = ?0))",
			"DELETE FROM traffic_slots WHERE store_id = ?0",
			"DELETE FROM traffic_landing_slots WHERE store_id = ?0",
			`SELECT traffic_rollups_apply(ARRAY(SELECT ROW(g.*)::traffic_delta FROM (
				SELECT s.store_id, ` + trafficSlotSQL + `, coalesce(s.landing_path, ''), count(*), count(*) FILTER (WHERE s.carted),
					count(*) FILTER (WHERE s.reached_checkout), count(*) FILTER (WHERE s.orders > 0), sum(s.revenue_cents),
					count(*) FILTER (WHERE s.prev_seen_at IS NULL), count(*) FILTER (WHERE s.prev_landing_seen_at IS NULL)
				FROM storefront_sessions s WHERE s.store_id = ?0 AND NOT s.is_bot GROUP BY 1, 2, 3) g))`,
		} {
			if _, err := tx.ExecContext(ctx, q, storeID); err != nil {
				return err
			}
		}
		return nil
	})
}
