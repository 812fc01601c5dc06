package analytics

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/uptrace/bun"

	"storeadmin/internal/base/apperr"
	"storeadmin/models"
)

// Traffic and landing pages read the storefront's human sessions (bots are
// in no figure) that began in a window, with the steps their rows keep
// (migration 20261124170300: carted, reached_checkout, orders,
// revenue_cents, kept by triggers as models' sessions list defines them).
// The sums come from traffic_slots and traffic_landing_slots for the
// slots a window covers whole and from the sessions for its ragged edges.
//
// Distinct visitors do not add up across slots. Each human session keeps
// the start of its visitor's previous one (prev_seen_at;
// prev_landing_seen_at among the sessions with the same landing path), and
// a window's visitors are its sessions whose previous one began before the
// window: one per visitor, exact. Those without a previous one (the
// visitor's first) are summed in the rollups (first_sessions); the
// returning ones are counted from an index of the returning sessions alone
// (storefront_sessions_returning_idx, index-only, no sort and no hash of
// visitor ids), and a page's from its own (storefront_sessions_landing_returning_idx),
// for the pages a report shows. The cost is a scan of the window's
// returning sessions, a part of them; README "Traffic and landing pages"
// has the figures.

// Landing page types, from the page's path.
const (
	PageHome       = "home"
	PageProduct    = "product"
	PageCollection = "collection"
	PagePage       = "page"
	PageArticle    = "article"
	PageSearch     = "search"
	PageOther      = "other"
)

// PageTypes lists them.
var PageTypes = []string{PageHome, PageProduct, PageCollection, PagePage, PageArticle, PageSearch, PageOther}

// trafficPageTypeSQL is the type of the landing path p (an SQL expression):
// the one definition of a page's type. The "(not set)" row (path "") is
// other.
func trafficPageTypeSQL(p string) string {
	return fmt.Sprintf(`CASE WHEN %[1]s = '/' THEN '%[2]s'
		WHEN starts_with(%[1]s, '%[3]s') THEN '%[4]s'
		WHEN starts_with(%[1]s, '%[5]s') THEN '%[6]s'
		WHEN starts_with(%[1]s, '%[7]s') THEN '%[8]s'
		WHEN starts_with(%[1]s, '%[9]s/') THEN '%[10]s'
		WHEN starts_with(%[1]s, '%[11]s') THEN '%[12]s'
		ELSE '%[13]s' END`, p, PageHome, models.PathProducts, PageProduct, models.PathCollections, PageCollection,
		models.PathPages, PagePage, models.PathBlog, PageArticle, models.PathSearch, PageSearch, PageOther)
}

// CheckPageType checks a landing pages report's type filter: empty (any)
// or one of PageTypes; else a 400 naming type.
func CheckPageType(typ string) error {
	if typ != "" && !slices.Contains(PageTypes, typ) {
		return apperr.InvalidField("type", "must be one of %s, not %q", strings.Join(PageTypes, ", "), typ)
	}
	return nil
}

// LandingPageQuery is what the landing pages report lists: pages of Type
// (any when empty), up to Limit of them (every one when 0: the export).
type LandingPageQuery struct {
	Type  string
	Limit int64
}

// Traffic is the storefront's traffic over w.
func Traffic(ctx context.Context, db bun.IDB, storeID int64, w Window) (*AnalyticsTrafficSummary, error) {
	return trafficSummary(ctx, db, storeID, w, false)
}

// TrafficFromRaw is Traffic read from the sessions alone, for the check
// and the tests.
func TrafficFromRaw(ctx context.Context, db bun.IDB, storeID int64, w Window) (*AnalyticsTrafficSummary, error) {
	return trafficSummary(ctx, db, storeID, w, true)
}

func trafficSummary(ctx context.Context, db bun.IDB, storeID int64, w Window, raw bool) (*AnalyticsTrafficSummary, error) {
	cur, prev, err := trafficBoth(ctx, db, storeID, w, raw)
	if err != nil {
		return nil, err
	}
	return &AnalyticsTrafficSummary{From: w.FormatTime(w.From), To: w.FormatTime(w.To),
		Totals: cur, Previous: prev, Deltas: trafficDeltas(cur, prev)}, nil
}

// LandingPages is traffic by landing page over w.
func LandingPages(ctx context.Context, db bun.IDB, storeID int64, w Window, q LandingPageQuery) (*AnalyticsLandingPageReport, error) {
	return trafficLandingReport(ctx, db, storeID, w, q, false)
}

// LandingPagesFromRaw is LandingPages read from the sessions alone, for the
// check and the tests.
func LandingPagesFromRaw(ctx context.Context, db bun.IDB, storeID int64, w Window, q LandingPageQuery) (*AnalyticsLandingPageReport, error) {
	return trafficLandingReport(ctx, db, storeID, w, q, true)
}

func trafficLandingReport(ctx context.Context, db bun.IDB, storeID int64, w Window, q LandingPageQuery, raw bool) (*AnalyticsLandingPageReport, error) {
	if err := CheckPageType(q.Type); err != nil {
		return nil, err
	}
	cur, prev, err := trafficBoth(ctx, db, storeID, w, raw)
	if err != nil {
		return nil, err
	}
	rows, count, err := trafficLandingRows(ctx, db, storeID, w.Span, q, raw)
	if err != nil {
		return nil, err
	}
	return &AnalyticsLandingPageReport{From: w.FormatTime(w.From), To: w.FormatTime(w.To), Limit: q.Limit,
		LandingPageCount: count, LandingPages: rows, Totals: cur, Previous: prev, Deltas: trafficDeltas(cur, prev)}, nil
}

func trafficDeltas(cur, prev AnalyticsTrafficTotals) AnalyticsTrafficDeltas {
	return AnalyticsTrafficDeltas{
		SessionsPct:   DeltaPct(float64(cur.Sessions), float64(prev.Sessions)),
		VisitorsPct:   DeltaPct(float64(cur.Visitors), float64(prev.Visitors)),
		ConversionPct: DeltaPct(cur.ConversionRate, prev.ConversionRate),
		RevenuePct:    DeltaPct(float64(cur.RevenueCents), float64(prev.RevenueCents)),
	}
}

// trafficSplit is what of span the rollups answer and the edges the
// sessions do: all of it from the sessions when raw.
func trafficSplit(span Span, raw bool) (inner Span, edges []Span) {
	if raw {
		return Span{From: span.From, To: span.From}, []Span{span}
	}
	return span.Split()
}

// trafficEdges is the condition "the session s began in one of edges".
func trafficEdges(edges []Span) (string, []any) {
	if len(edges) == 0 {
		return "false", nil
	}
	conds := make([]string, len(edges))
	var args []any
	for i, e := range edges {
		conds[i] = "(s.first_seen_at >= ? AND s.first_seen_at < ?)"
		args = append(args, e.From, e.To)
	}
	return "(" + strings.Join(conds, " OR ") + ")", args
}

// trafficBoth reads the totals of w and of the window before it, one
// statement each.
func trafficBoth(ctx context.Context, db bun.IDB, storeID int64, w Window, raw bool) (cur, prev AnalyticsTrafficTotals, err error) {
	if cur, err = trafficTotals(ctx, db, storeID, w.Span, raw); err != nil {
		return cur, prev, err
	}
	prev, err = trafficTotals(ctx, db, storeID, w.Previous().Span, raw)
	return cur, prev, err
}

// trafficTotals reads the traffic of the sessions begun in span.
func trafficTotals(ctx context.Context, db bun.IDB, storeID int64, span Span, raw bool) (AnalyticsTrafficTotals, error) {
	inner, edges := trafficSplit(span, raw)
	edgeCond, edgeArgs := trafficEdges(edges)
	args := []any{storeID, inner.From, inner.To, storeID}
	args = append(args, edgeArgs...)
	args = append(args, storeID, span.From, span.To, span.From)
	var t AnalyticsTrafficTotals
	err := db.NewRaw(`WITH r AS (
			SELECT sessions, carted_sessions, checkout_sessions, converted_sessions, not_set_sessions, revenue_cents, first_sessions
			FROM traffic_slots WHERE store_id = ? AND slot >= ? AND slot < ?
			UNION ALL
			SELECT 1, s.carted::int, s.reached_checkout::int, (s.orders > 0)::int, (coalesce(s.landing_path, '') = '')::int, s.revenue_cents,
				(s.prev_seen_at IS NULL)::int
			FROM storefront_sessions AS s WHERE s.store_id = ? AND NOT s.is_bot AND `+edgeCond+`)
		SELECT coalesce(sum(sessions), 0)::bigint AS sessions, coalesce(sum(carted_sessions), 0)::bigint AS carted_sessions,
			coalesce(sum(checkout_sessions), 0)::bigint AS checkout_sessions, coalesce(sum(converted_sessions), 0)::bigint AS converted_sessions,
			coalesce(sum(not_set_sessions), 0)::bigint AS not_set_sessions, coalesce(sum(revenue_cents), 0)::bigint AS revenue_cents,
			coalesce(sum(first_sessions), 0)::bigint + (SELECT count(*) FROM storefront_sessions AS s
				WHERE s.store_id = ? AND NOT s.is_bot AND s.prev_seen_at IS NOT NULL
					AND s.first_seen_at >= ? AND s.first_seen_at < ? AND s.prev_seen_at < ?) AS visitors
		FROM r`, args...).Scan(ctx, &t)
	t.ConversionRate = Ratio(t.ConvertedSessions, t.Sessions)
	return t, err
}

// trafficLandingRows reads the landing pages of the sessions begun in span
// (of q.Type), most sessions first then by path, up to q.Limit (all when
// 0), with how many there are, in one statement.
func trafficLandingRows(ctx context.Context, db bun.IDB, storeID int64, span Span, q LandingPageQuery, raw bool) ([]AnalyticsLandingPageStat, int64, error) {
	inner, edges := trafficSplit(span, raw)
	edgeCond, edgeArgs := trafficEdges(edges)
	args := []any{storeID, inner.From, inner.To, storeID}
	args = append(args, edgeArgs...)
	args = append(args, q.Type, q.Type)
	limit := "ALL"
	if q.Limit > 0 {
		limit = fmt.Sprint(q.Limit)
	}
	args = append(args, storeID, span.From, span.To, span.From)
	var rows []struct {
		AnalyticsLandingPageStat
		FirstSessions int64 `bun:"first_sessions"`
		Count         int64 `bun:"page_count"`
	}
	err := db.NewRaw(`WITH r AS (
			SELECT landing_path AS path, sessions, carted_sessions, checkout_sessions, converted_sessions, revenue_cents, first_sessions
			FROM traffic_landing_slots WHERE store_id = ? AND slot >= ? AND slot < ?
			UNION ALL
			SELECT coalesce(s.landing_path, ''), 1, s.carted::int, s.reached_checkout::int, (s.orders > 0)::int, s.revenue_cents,
				(s.prev_landing_seen_at IS NULL)::int
			FROM storefront_sessions AS s WHERE s.store_id = ? AND NOT s.is_bot AND `+edgeCond+`),
		pages AS (
			SELECT path, `+trafficPageTypeSQL("path")+` AS type, sum(sessions)::bigint AS sessions,
				sum(carted_sessions)::bigint AS carted_sessions, sum(checkout_sessions)::bigint AS checkout_sessions,
				sum(converted_sessions)::bigint AS converted_sessions, sum(revenue_cents)::bigint AS revenue_cents,
				sum(first_sessions)::bigint AS first_sessions
			FROM r GROUP BY path),
		shown AS (
			SELECT *, count(*) OVER () AS page_count FROM pages WHERE ? = '' OR type = ?
			ORDER BY sessions DESC, path LIMIT `+limit+`)
		SELECT shown.*, shown.first_sessions + v.returning AS visitors FROM shown
		CROSS JOIN LATERAL (SELECT count(*) AS returning FROM storefront_sessions AS s
			WHERE s.store_id = ? AND NOT s.is_bot AND s.prev_landing_seen_at IS NOT NULL AND coalesce(s.landing_path, '') = shown.path
				AND s.first_seen_at >= ? AND s.first_seen_at < ? AND s.prev_landing_seen_at < ?) AS v
		ORDER BY shown.sessions DESC, shown.path`, args...).Scan(ctx, &rows)
	if err != nil {
		return nil, 0, err
	}
	out := make([]AnalyticsLandingPageStat, len(rows))
	var count int64
	for i, r := range rows {
		out[i] = r.AnalyticsLandingPageStat
		out[i].ConversionRate = Ratio(r.ConvertedSessions, r.Sessions)
		count = r.Count
	}
	return out, count, nil
}
