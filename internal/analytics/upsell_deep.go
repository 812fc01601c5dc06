package analytics

import (
	"cmp"
	"context"
	"database/sql"
	"slices"

	"github.com/uptrace/bun"

	"storeadmin/models"
)

// AnalyticsStepStat is the offers made at one position of one funnel in
// one zone, to the runs entered in the window.
type AnalyticsStepStat struct {
	ZoneID       int64   `json:"zone_id"`
	ZoneName     string  `json:"zone_name"`
	FunnelID     int64   `json:"funnel_id"`
	FunnelName   string  `json:"funnel_name"`
	Position     int64   `json:"position"`
	StepName     string  `json:"step_name"`
	ProductID    int64   `json:"product_id"`
	ProductTitle string  `json:"product_title"`
	VariantID    int64   `json:"variant_id"`
	Shown        int64   `json:"shown"`
	Accepted     int64   `json:"accepted"`
	Declined     int64   `json:"declined"`
	Unavailable  int64   `json:"unavailable"`
	Undecided    int64   `json:"undecided"`
	Charged      int64   `json:"charged"`
	Units        int64   `json:"units"`
	SalesCents   int64   `json:"sales_cents"`
	AddRate      float64 `json:"add_rate"`
}

// AnalyticsZoneFunnelStat is the checkouts created in the window that one
// zone routed to one funnel, and the orders they became.
type AnalyticsZoneFunnelStat struct {
	ZoneID             int64   `json:"zone_id"`
	ZoneName           string  `json:"zone_name"`
	FunnelID           int64   `json:"funnel_id"`
	FunnelName         string  `json:"funnel_name"`
	Carts              int64   `json:"carts"`
	Orders             int64   `json:"orders"`
	OrderCR            float64 `json:"order_cr"`
	RevenueCents       int64   `json:"revenue_cents"`
	AOVCents           int64   `json:"aov_cents"`
	UpsellOrders       int64   `json:"upsell_orders"`
	UpsellRevenueCents int64   `json:"upsell_revenue_cents"`
}

// AnalyticsUpsellKPIs are the window's figures: the runs' and the routed
// checkouts'.
type AnalyticsUpsellKPIs struct {
	Entered            int64   `json:"entered"`
	Completed          int64   `json:"completed"`
	OffersShown        int64   `json:"offers_shown"`
	Accepted           int64   `json:"accepted"`
	Declined           int64   `json:"declined"`
	Unavailable        int64   `json:"unavailable"`
	Undecided          int64   `json:"undecided"`
	UpsellCR           float64 `json:"upsell_cr"`
	UpsellOrders       int64   `json:"upsell_orders"`
	UpsellRevenueCents int64   `json:"upsell_revenue_cents"`
	UpsellOrderCR      float64 `json:"upsell_order_cr"`
	CohortOrders       int64   `json:"cohort_orders"`
	CohortRevenueCents int64   `json:"cohort_revenue_cents"`
	SurchargeCents     int64   `json:"surcharge_cents"`
	Carts              int64   `json:"carts"`
	Orders             int64   `json:"orders"`
	OrderCR            float64 `json:"order_cr"`
	RevenueCents       int64   `json:"revenue_cents"`
	AOVCents           int64   `json:"aov_cents"`
}

// AnalyticsUpsellSeriesPoint is one bucket of the deep report's series.
type AnalyticsUpsellSeriesPoint struct {
	Bucket             string  `json:"bucket"`
	Entered            int64   `json:"entered"`
	Shown              int64   `json:"shown"`
	Accepted           int64   `json:"accepted"`
	UpsellCR           float64 `json:"upsell_cr"`
	UpsellOrders       int64   `json:"upsell_orders"`
	UpsellRevenueCents int64   `json:"upsell_revenue_cents"`
	CohortOrders       int64   `json:"cohort_orders"`
	Carts              int64   `json:"carts"`
	Orders             int64   `json:"orders"`
	OrderCR            float64 `json:"order_cr"`
	RevenueCents       int64   `json:"revenue_cents"`
}

// AnalyticsUTMStat is the runs' orders of one UTM combination.
type AnalyticsUTMStat struct {
	Source     string `json:"source"`
	Medium     string `json:"medium"`
	Campaign   string `json:"campaign"`
	Term       string `json:"term"`
	Content    string `json:"content"`
	OrderCount int64  `json:"order_count"`
	GrossCents int64  `json:"gross_cents"`
}

// AnalyticsUpsellDeepReport is GET /store/analytics/upsell/report.
type AnalyticsUpsellDeepReport struct {
	From               string                       `json:"from"`
	To                 string                       `json:"to"`
	Interval           string                       `json:"interval"`
	KPIs               AnalyticsUpsellKPIs          `json:"kpis"`
	Series             []AnalyticsUpsellSeriesPoint `json:"series"`
	ByStep             []AnalyticsStepStat          `json:"by_step"`
	ByZoneFunnel       []AnalyticsZoneFunnelStat    `json:"by_zone_funnel"`
	UTM                []AnalyticsUTMStat           `json:"utm"`
	UTMTotalOrders     int64                        `json:"utm_total_orders"`
	UTMTotalGrossCents int64                        `json:"utm_total_gross_cents"`
}

// UpsellDeepReport is the deep upsell report of w, with at most utmLimit
// UTM rows: four statements whatever the rows (the runs per bucket, the
// routed checkouts per zone, funnel and bucket, the offers per step, the
// UTM rows) in one read-only snapshot, each a range of an index that
// starts with the store.
func UpsellDeepReport(ctx context.Context, db bun.IDB, storeID int64, w Window, utmLimit int64) (*AnalyticsUpsellDeepReport, error) {
	out := &AnalyticsUpsellDeepReport{From: w.FormatTime(w.From), To: w.FormatTime(w.To), Interval: w.Interval}
	buckets := w.Buckets()
	out.Series = make([]AnalyticsUpsellSeriesPoint, len(buckets))
	for i, b := range buckets {
		out.Series[i].Bucket = b.Label
	}
	// One read-only snapshot, so the statements' figures agree with each
	// other while the run time writes.
	opts := &sql.TxOptions{Isolation: sql.LevelRepeatableRead, ReadOnly: true}
	err := db.RunInTx(ctx, opts, func(ctx context.Context, tx bun.Tx) error {
		if err := upsellSeriesRuns(ctx, tx, storeID, w, buckets, out); err != nil {
			return err
		}
		if err := upsellZoneFunnels(ctx, tx, storeID, w, buckets, out); err != nil {
			return err
		}
		var err error
		if out.ByStep, err = upsellSteps(ctx, tx, storeID, w.Span); err != nil {
			return err
		}
		out.UTM, out.UTMTotalOrders, out.UTMTotalGrossCents, err = upsellUTM(ctx, tx, storeID, w.Span, utmLimit)
		return err
	})
	if err != nil {
		return nil, err
	}
	for i := range out.Series {
		p := &out.Series[i]
		p.UpsellCR = Ratio(p.Accepted, p.Shown)
		p.OrderCR = Ratio(p.Orders, p.Carts)
	}
	k := &out.KPIs
	k.UpsellCR = Ratio(k.Accepted, k.OffersShown)
	k.UpsellOrderCR = Ratio(k.UpsellOrders, k.CohortOrders)
	k.OrderCR = Ratio(k.Orders, k.Carts)
	k.AOVCents = DivRound(k.RevenueCents, k.Orders)
	return out, nil
}

// upsellSeriesRuns sums the runs entered in w per bucket (the local start
// of the interval; the group's first entry places it among buckets) into
// the series and the KPIs.
func upsellSeriesRuns(ctx context.Context, db bun.IDB, storeID int64, w Window, buckets []Bucket, out *AnalyticsUpsellDeepReport) error {
	var q overviewQuery
	q.add(`SELECT min(rr.entered_at) AS first, ` + upsellRunSumsSQL + ` FROM (`)
	upsellRunRows(&q, storeID, w.Span)
	q.add(`) AS rr GROUP BY date_trunc(?, rr.entered_at, ?)`, w.Interval, w.Loc.String())
	var rows []struct {
		First bun.NullTime
		upsellRunSums
	}
	if err := db.NewRaw(q.sql(), q.args...).Scan(ctx, &rows); err != nil {
		return err
	}
	var total upsellRunSums
	for _, r := range rows {
		total.add(r.upsellRunSums)
		p := &out.Series[BucketOf(buckets, r.First.Time)]
		p.Entered += r.Entered
		p.Shown += r.Shown
		p.Accepted += r.Accepted
		p.UpsellOrders += r.UpsellOrders
		p.UpsellRevenueCents += r.UpsellRevenue
		p.CohortOrders += r.CohortOrders
	}
	k := &out.KPIs
	k.Entered, k.Completed, k.OffersShown, k.Accepted = total.Entered, total.Completed, total.Shown, total.Accepted
	k.Declined, k.Unavailable, k.Undecided = total.Declined, total.Unavailable, total.Undecided
	k.UpsellOrders, k.UpsellRevenueCents, k.SurchargeCents = total.UpsellOrders, total.UpsellRevenue, total.Surcharge
	k.CohortOrders, k.CohortRevenueCents = total.CohortOrders, total.CohortRevenue
	return nil
}

// upsellZoneFunnels sums the checkouts created in w that a funnel was
// routed to, per zone, funnel and bucket, with the orders they became (when
// they count) and those orders' upsell lines, into by_zone_funnel, the
// series and the KPIs. A checkout's route names a zone and funnel that
// exist (their deletion empties it), so their names are the current ones.
func upsellZoneFunnels(ctx context.Context, db bun.IDB, storeID int64, w Window, buckets []Bucket, out *AnalyticsUpsellDeepReport) error {
	var rows []struct {
		ZoneID        int64
		ZoneName      string
		FunnelID      int64
		FunnelName    string
		First         bun.NullTime
		Carts         int64
		Orders        int64
		Revenue       int64
		UpsellOrders  int64
		UpsellRevenue int64
	}
	err := db.NewRaw(`SELECT c.zone_id, coalesce(z.name, '') AS zone_name, c.funnel_id, coalesce(f.name, '') AS funnel_name, c.first,
		c.carts, c.orders, c.revenue, c.upsell_orders, c.upsell_revenue
		FROM (SELECT coalesce(co.checkout_zone_id, 0) AS zone_id, co.upsell_funnel_id AS funnel_id, min(co.created_at) AS first,
			count(*) AS carts, count(o.id) AS orders, coalesce(sum(o.total_cents), 0)::bigint AS revenue,
			count(*) FILTER (WHERE u.revenue IS NOT NULL) AS upsell_orders, coalesce(sum(u.revenue), 0)::bigint AS upsell_revenue
			FROM checkouts AS co
			LEFT JOIN orders AS o ON o.id = co.order_id AND o.store_id = co.store_id AND `+CountedOrder+`
			LEFT JOIN LATERAL (SELECT sum(fo.amount_cents) AS revenue FROM funnel_runs AS r
				JOIN funnel_offers AS fo ON fo.run_id = r.id
				WHERE r.order_id = o.id AND `+upsellLine+`) AS u ON true
			WHERE co.store_id = ?0 AND co.created_at >= ?1 AND co.created_at < ?2 AND co.upsell_funnel_id IS NOT NULL
			GROUP BY 1, 2, date_trunc(?3, co.created_at, ?4)) AS c
		LEFT JOIN checkout_zones AS z ON z.id = c.zone_id AND z.store_id = ?0
		LEFT JOIN upsell_funnels AS f ON f.id = c.funnel_id AND f.store_id = ?0`,
		storeID, w.From, w.To, w.Interval, w.Loc.String()).Scan(ctx, &rows)
	if err != nil {
		return err
	}
	out.ByZoneFunnel = []AnalyticsZoneFunnelStat{}
	index := map[[2]int64]int{}
	for _, r := range rows {
		p := &out.Series[BucketOf(buckets, r.First.Time)]
		p.Carts += r.Carts
		p.Orders += r.Orders
		p.RevenueCents += r.Revenue
		k := &out.KPIs
		k.Carts += r.Carts
		k.Orders += r.Orders
		k.RevenueCents += r.Revenue
		key := [2]int64{r.ZoneID, r.FunnelID}
		i, ok := index[key]
		if !ok {
			i, index[key] = len(out.ByZoneFunnel), len(out.ByZoneFunnel)
			out.ByZoneFunnel = append(out.ByZoneFunnel, AnalyticsZoneFunnelStat{ZoneID: r.ZoneID, ZoneName: r.ZoneName,
				FunnelID: r.FunnelID, FunnelName: r.FunnelName})
		}
		s := &out.ByZoneFunnel[i]
		s.Carts += r.Carts
		s.Orders += r.Orders
		s.RevenueCents += r.Revenue
		s.UpsellOrders += r.UpsellOrders
		s.UpsellRevenueCents += r.UpsellRevenue
	}
	for i := range out.ByZoneFunnel {
		s := &out.ByZoneFunnel[i]
		s.OrderCR = Ratio(s.Orders, s.Carts)
		s.AOVCents = DivRound(s.RevenueCents, s.Orders)
	}
	slices.SortFunc(out.ByZoneFunnel, func(a, b AnalyticsZoneFunnelStat) int {
		return cmp.Or(cmp.Compare(a.ZoneName, b.ZoneName), cmp.Compare(a.ZoneID, b.ZoneID),
			cmp.Compare(a.FunnelName, b.FunnelName), cmp.Compare(a.FunnelID, b.FunnelID))
	})
	return nil
}

// upsellSteps are the offers of the runs entered in span per zone, funnel
// and position (zones and funnels keyed as upsellNameKey says; the step's
// name, product and variant are its latest offer's, the product's title the
// catalogue's, empty once the product is gone).
func upsellSteps(ctx context.Context, db bun.IDB, storeID int64, span Span) ([]AnalyticsStepStat, error) {
	zoneGroup, zoneName := upsellNameKey("zone")
	funnelGroup, funnelName := upsellNameKey("funnel")
	latest := func(col string) string {
		return `(array_agg(` + col + ` ORDER BY fo.reached_at DESC, fo.id DESC))[1]`
	}
	out := []AnalyticsStepStat{}
	err := db.NewRaw(`SELECT s.*, coalesce(p.title, '') AS product_title FROM (
		SELECT coalesce(rr.zone_id, 0) AS zone_id, `+zoneName+` AS zone_name,
			coalesce(rr.funnel_id, 0) AS funnel_id, `+funnelName+` AS funnel_name, fo.position,
			`+latest("fo.step_name")+` AS step_name, coalesce(`+latest("fo.product_id")+`, 0) AS product_id,
			coalesce(`+latest("fo.variant_id")+`, 0) AS variant_id,
			`+offerStateCount+`,
			count(*) FILTER (WHERE fo.status = '`+models.OfferAccepted+`' AND fo.charged_at IS NOT NULL) AS charged,
			coalesce(sum(fo.quantity) FILTER (WHERE `+upsellLine+`), 0)::bigint AS units,
			coalesce(sum(fo.amount_cents) FILTER (WHERE `+upsellLine+`), 0)::bigint AS sales_cents
		FROM funnel_runs AS rr
		JOIN orders AS o ON o.id = rr.order_id
		JOIN funnel_offers AS fo ON fo.run_id = rr.id AND fo.store_id = rr.store_id
		WHERE rr.store_id = ?0 AND rr.entered_at >= ?1 AND rr.entered_at < ?2
		GROUP BY `+zoneGroup+`, `+funnelGroup+`, fo.position) AS s
		LEFT JOIN products AS p ON p.id = s.product_id AND p.store_id = ?0`,
		storeID, span.From, span.To).Scan(ctx, &out)
	if err != nil {
		return nil, err
	}
	for i := range out {
		out[i].AddRate = Ratio(out[i].Accepted, out[i].Shown)
	}
	slices.SortFunc(out, func(a, b AnalyticsStepStat) int {
		return cmp.Or(cmp.Compare(a.ZoneName, b.ZoneName), cmp.Compare(a.ZoneID, b.ZoneID), cmp.Compare(a.FunnelName, b.FunnelName),
			cmp.Compare(a.FunnelID, b.FunnelID), cmp.Compare(a.Position, b.Position))
	})
	return out, nil
}

// upsellUTM are the counted orders of the runs entered in span by their
// attribution's five UTM parameters (source "(direct)" without one, as the
// overview's; the others "" without one), most gross sales first, then most
// orders, then by the parameters in byte order; at most limit rows, with the
// totals of all of them.
func upsellUTM(ctx context.Context, db bun.IDB, storeID int64, span Span, limit int64) (rows []AnalyticsUTMStat, orders, gross int64, err error) {
	var found []struct {
		AnalyticsUTMStat
		TotalOrders int64
		TotalGross  int64
	}
	err = db.NewRaw(`SELECT * FROM (SELECT `+OrderSource+` AS source, coalesce(o.attribution ->> 'utm_medium', '') AS medium,
		`+OrderCampaign+` AS campaign, coalesce(o.attribution ->> 'utm_term', '') AS term,
		coalesce(o.attribution ->> 'utm_content', '') AS content,
		count(*) AS order_count, sum(o.subtotal_cents)::bigint AS gross_cents,
		sum(count(*)) OVER ()::bigint AS total_orders, sum(sum(o.subtotal_cents)) OVER ()::bigint AS total_gross
		FROM funnel_runs AS r JOIN orders AS o ON o.id = r.order_id
		WHERE r.store_id = ? AND r.entered_at >= ? AND r.entered_at < ? AND `+CountedOrder+`
		GROUP BY 1, 2, 3, 4, 5) AS u
		ORDER BY u.gross_cents DESC, u.order_count DESC, u.source COLLATE "C", u.medium COLLATE "C", u.campaign COLLATE "C",
			u.term COLLATE "C", u.content COLLATE "C"
		LIMIT ?`, storeID, span.From, span.To, limit).Scan(ctx, &found)
	if err != nil {
		return nil, 0, 0, err
	}
	rows = make([]AnalyticsUTMStat, len(found))
	for i, f := range found {
		rows[i] = f.AnalyticsUTMStat
		orders, gross = f.TotalOrders, f.TotalGross
	}
	return rows, orders, gross, nil
}
