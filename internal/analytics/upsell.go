package analytics

import (
	"cmp"
	"context"
	"slices"

	"github.com/uptrace/bun"

	"storeadmin/models"
)

// The upsell reports read the post-purchase funnels' rows (migration
// 20261124190000: funnel_runs, funnel_offers, the checkouts' routes) and
// the orders behind them, raw: README "Upsell" defines every figure. Two
// cohorts, each fixed by one instant of its own rows:
//
//   - The runs entered in the window (funnel_runs.entered_at): what their
//     shoppers were shown and did, the upsell lines their orders got, the
//     surcharge and totals of those orders. A run's offers belong to the
//     run, whenever they were answered, so accepted is never above shown.
//   - The checkouts created in the window that a funnel was routed to
//     (checkouts.created_at, upsell_funnel_id): carts, the orders they
//     became and what those orders took.
//
// Money follows the overview's rule for orders (CountedOrder: an order
// cancelled before any money was taken is in no figure of money or
// orders). An upsell line is the order line an accepted offer names
// (line_item_id) on such an order; its revenue is the offer's amount_cents:
// what accepting charged, after the offer's discount, before tax.

// AnalyticsFunnelStat is the runs of one funnel entered in the window.
type AnalyticsFunnelStat struct {
	FunnelID        int64   `json:"funnel_id"`
	Name            string  `json:"name"`
	Entered         int64   `json:"entered"`
	Accepted        int64   `json:"accepted"`
	AcceptsPerEntry float64 `json:"accepts_per_entry"`
	RevenueCents    int64   `json:"revenue_cents"`
}

// AnalyticsUpsellReport is GET /store/analytics/upsell.
type AnalyticsUpsellReport struct {
	From               string                `json:"from"`
	To                 string                `json:"to"`
	Entered            int64                 `json:"entered"`
	Completed          int64                 `json:"completed"`
	OffersShown        int64                 `json:"offers_shown"`
	Accepted           int64                 `json:"accepted"`
	Declined           int64                 `json:"declined"`
	Other              int64                 `json:"other"`
	TakeRate           float64               `json:"take_rate"`
	UpsellLines        int64                 `json:"upsell_lines"`
	UpsellOrders       int64                 `json:"upsell_orders"`
	UpsellRevenueCents int64                 `json:"upsell_revenue_cents"`
	SurchargeCents     int64                 `json:"surcharge_cents"`
	ByFunnel           []AnalyticsFunnelStat `json:"by_funnel"`
}

// upsellRunSums are the figures of a group of runs entered in a window,
// summed by upsellRunSumsSQL over the rows of upsellRunRows.
type upsellRunSums struct {
	Entered       int64
	Completed     int64
	Shown         int64
	Accepted      int64
	Declined      int64
	Unavailable   int64
	Undecided     int64
	Other         int64
	UpsellLines   int64
	UpsellOrders  int64
	UpsellRevenue int64
	Surcharge     int64
	CohortOrders  int64
	CohortRevenue int64
}

func (s *upsellRunSums) add(n upsellRunSums) {
	s.Entered += n.Entered
	s.Completed += n.Completed
	s.Shown += n.Shown
	s.Accepted += n.Accepted
	s.Declined += n.Declined
	s.Unavailable += n.Unavailable
	s.Undecided += n.Undecided
	s.Other += n.Other
	s.UpsellLines += n.UpsellLines
	s.UpsellOrders += n.UpsellOrders
	s.UpsellRevenue += n.UpsellRevenue
	s.Surcharge += n.Surcharge
	s.CohortOrders += n.CohortOrders
	s.CohortRevenue += n.CohortRevenue
}

// The offers' (alias fo) definitions, in one place: shown is having
// shown_at; an accepted offer with its line (line_item_id) is an upsell
// line when the run's order (alias o) counts.
const (
	offerShown      = `fo.shown_at IS NOT NULL`
	offerWithLine   = `fo.status = '` + models.OfferAccepted + `' AND fo.line_item_id IS NOT NULL`
	upsellLine      = offerWithLine + ` AND ` + CountedOrder
	offerStateCount = `count(*) FILTER (WHERE ` + offerShown + `) AS shown,
		count(*) FILTER (WHERE fo.status = '` + models.OfferAccepted + `') AS accepted,
		count(*) FILTER (WHERE fo.status = '` + models.OfferDeclined + `') AS declined,
		count(*) FILTER (WHERE fo.status = '` + models.OfferUnavailable + `') AS unavailable,
		count(*) FILTER (WHERE fo.status = '` + models.OfferShown + `') AS undecided`
)

// upsellRunRows writes the runs of storeID entered in span, a row each
// (alias rr): the run's funnel and zone as it kept them, its status and
// entry, its order's surcharge, total, whether the order counts, and its
// offers' counts by state and upsell lines (an aggregate per run through
// the offers' run index, so the cost follows the window's runs, not the
// store's offers).
func upsellRunRows(q *overviewQuery, storeID int64, span Span) {
	q.add(`SELECT r.id, r.funnel_id, r.funnel_name, r.zone_id, r.zone_name, r.status, r.entered_at,
		o.surcharge_cents, o.total_cents, `+CountedOrder+` AS counts,
		f.shown, f.accepted, f.declined, f.unavailable, f.undecided, f.other, f.lines, coalesce(f.line_revenue, 0) AS line_revenue
		FROM funnel_runs AS r
		JOIN orders AS o ON o.id = r.order_id
		CROSS JOIN LATERAL (SELECT `+offerStateCount+`,
			count(*) FILTER (WHERE `+offerShown+` AND fo.status NOT IN ('`+models.OfferAccepted+`', '`+models.OfferDeclined+`')) AS other,
			count(*) FILTER (WHERE `+offerWithLine+`) AS lines, sum(fo.amount_cents) FILTER (WHERE `+offerWithLine+`) AS line_revenue
			FROM funnel_offers AS fo WHERE fo.run_id = r.id AND fo.store_id = r.store_id) AS f
		WHERE r.store_id = ? AND r.entered_at >= ? AND r.entered_at < ?`,
		storeID, span.From, span.To)
}

// upsellRunSumsSQL sums rows of upsellRunRows (alias rr) into upsellRunSums:
// an order's upsell lines count when the order does.
const upsellRunSumsSQL = `count(*) AS entered,
	count(*) FILTER (WHERE rr.status = '` + models.RunCompleted + `') AS completed,
	coalesce(sum(rr.shown), 0)::bigint AS shown, coalesce(sum(rr.accepted), 0)::bigint AS accepted,
	coalesce(sum(rr.declined), 0)::bigint AS declined, coalesce(sum(rr.unavailable), 0)::bigint AS unavailable,
	coalesce(sum(rr.undecided), 0)::bigint AS undecided, coalesce(sum(rr.other), 0)::bigint AS other,
	coalesce(sum(rr.lines) FILTER (WHERE rr.counts), 0)::bigint AS upsell_lines,
	count(*) FILTER (WHERE rr.counts AND rr.lines > 0) AS upsell_orders,
	coalesce(sum(rr.line_revenue) FILTER (WHERE rr.counts), 0)::bigint AS upsell_revenue,
	coalesce(sum(rr.surcharge_cents) FILTER (WHERE rr.counts), 0)::bigint AS surcharge,
	count(*) FILTER (WHERE rr.counts) AS cohort_orders,
	coalesce(sum(rr.total_cents) FILTER (WHERE rr.counts), 0)::bigint AS cohort_revenue`

// upsellNameKey groups runs by what they ran (col is funnel or zone): the
// record's id while it exists, its name once deleted (the id went null and
// the runs kept the name). A row's name is its latest run's.
func upsellNameKey(col string) (group, name string) {
	return `rr.` + col + `_id, CASE WHEN rr.` + col + `_id IS NULL THEN rr.` + col + `_name END`,
		`(array_agg(rr.` + col + `_name ORDER BY rr.entered_at DESC, rr.id DESC))[1]`
}

// UpsellReport is the upsell report of span: the runs entered in it, in
// one statement (their figures per funnel; the totals are the funnels'
// sums).
func UpsellReport(ctx context.Context, db bun.IDB, storeID int64, w Window) (*AnalyticsUpsellReport, error) {
	group, name := upsellNameKey("funnel")
	var q overviewQuery
	q.add(`SELECT coalesce(rr.funnel_id, 0) AS funnel_id, ` + name + ` AS name, ` + upsellRunSumsSQL + ` FROM (`)
	upsellRunRows(&q, storeID, w.Span)
	q.add(`) AS rr GROUP BY ` + group)
	var rows []struct {
		FunnelID int64
		Name     string
		upsellRunSums
	}
	if err := db.NewRaw(q.sql(), q.args...).Scan(ctx, &rows); err != nil {
		return nil, err
	}
	out := &AnalyticsUpsellReport{From: w.FormatTime(w.From), To: w.FormatTime(w.To), ByFunnel: []AnalyticsFunnelStat{}}
	var total upsellRunSums
	for _, r := range rows {
		total.add(r.upsellRunSums)
		out.ByFunnel = append(out.ByFunnel, AnalyticsFunnelStat{FunnelID: r.FunnelID, Name: r.Name, Entered: r.Entered,
			Accepted: r.Accepted, AcceptsPerEntry: Ratio(r.Accepted, r.Entered), RevenueCents: r.UpsellRevenue})
	}
	slices.SortFunc(out.ByFunnel, func(a, b AnalyticsFunnelStat) int {
		return cmp.Or(cmp.Compare(b.Entered, a.Entered), cmp.Compare(a.Name, b.Name), cmp.Compare(a.FunnelID, b.FunnelID))
	})
	out.Entered, out.Completed, out.OffersShown = total.Entered, total.Completed, total.Shown
	out.Accepted, out.Declined, out.Other = total.Accepted, total.Declined, total.Other
	out.TakeRate = Ratio(total.Accepted, total.Shown)
	out.UpsellLines, out.UpsellOrders, out.UpsellRevenueCents = total.UpsellLines, total.UpsellOrders, total.UpsellRevenue
	out.SurchargeCents = total.Surcharge
	return out, nil
}
