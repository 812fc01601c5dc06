package experimentreport

import (
	"context"
	"fmt"
	"math"
	"time"

	"github.com/uptrace/bun"

	"storeadmin/internal/base/apperr"
	"storeadmin/internal/experimentstats"
	"storeadmin/models"
)

// The power report's window: days back from now (README "Power").
const (
	DefaultPowerDays = 28
	MinPowerDays     = 7
	MaxPowerDays     = 90
)

// MinPowerSessions is the human sessions a window needs before the power
// report estimates anything: fewer, and its base rates are noise (the
// refusal).
const MinPowerSessions = 200

// PowerLifts are the relative lifts the power report says the days of.
var PowerLifts = []float64{0.05, 0.10, 0.20}

// powerArms is the arms the power report plans for: an A/B test.
const powerArms = 2

// The verdicts of a power step.
const (
	// StepReady: a 28-day test detects a 10% lift.
	StepReady = "ready"
	// StepLargeLiftsOnly: some horizon detects something, but 28 days do
	// not detect 10%.
	StepLargeLiftsOnly = "large_lifts_only"
	// StepNotTestable: no horizon up to 56 days detects anything.
	StepNotTestable = "not_testable"
)

// CheckPowerDays is the days of a power report: DefaultPowerDays when
// nil, else MinPowerDays to MaxPowerDays or a 400.
func CheckPowerDays(days *int64) (int, error) {
	if days == nil {
		return DefaultPowerDays, nil
	}
	if *days < MinPowerDays || *days > MaxPowerDays {
		return 0, apperr.InvalidField("days", "must be between %d and %d, not %d", MinPowerDays, MaxPowerDays, *days)
	}
	return int(*days), nil
}

// Power is the store's power report over the days before now: one
// statement over its human sessions that began in the window (and its
// orders paid in it).
func Power(ctx context.Context, db bun.IDB, storeID int64, days int, now time.Time) (*ExperimentPowerReport, error) {
	from := now.Add(-time.Duration(days) * 24 * time.Hour)
	var t struct {
		Sessions, Visitors, DaysWithData       int64
		DataFrom                               *time.Time
		Carted, Checkout, Converted            int64
		Revenue, Revenue2                      float64
		Banner                                 bool
		PageViewSessions, Consented, Returning int64
		Paid, Matched                          int64
	}
	err := db.NewRaw(`SELECT count(*) AS sessions, count(DISTINCT s.visitor_id) AS visitors,
			count(DISTINCT date_trunc('day', s.first_seen_at AT TIME ZONE 'UTC')) AS days_with_data,
			min(s.first_seen_at) AS data_from,
			count(*) FILTER (WHERE s.carted) AS carted, count(*) FILTER (WHERE s.reached_checkout) AS checkout,
			count(*) FILTER (WHERE s.orders > 0) AS converted,
			coalesce(sum(s.revenue_cents), 0)::float8 AS revenue,
			coalesce(sum(s.revenue_cents::float8 * s.revenue_cents), 0) AS revenue2,
			coalesce(bool_or(s.analytics_consent IS NOT NULL), false) AS banner,
			count(*) FILTER (WHERE s.page_views > 0) AS page_view_sessions,
			count(*) FILTER (WHERE s.page_views > 0 AND s.analytics_consent) AS consented,
			count(*) FILTER (WHERE s.prev_seen_at >= ?1) AS returning,
			(SELECT count(*) FROM orders o WHERE o.store_id = ?0 AND o.paid_at >= ?1 AND o.paid_at < ?2) AS paid,
			(SELECT count(*) FROM orders o WHERE o.store_id = ?0 AND o.paid_at >= ?1 AND o.paid_at < ?2
				AND o.session_id IS NOT NULL) AS matched
		FROM storefront_sessions s
		WHERE s.store_id = ?0 AND s.first_seen_at >= ?1 AND s.first_seen_at < ?2 AND NOT s.is_bot`,
		storeID, from, now).Scan(ctx, &t)
	if err != nil {
		return nil, err
	}
	out := &ExperimentPowerReport{
		Window: ExperimentPowerWindow{From: from, To: now, RequestedDays: float64(days),
			DaysWithData: float64(t.DaysWithData), DataFrom: from},
		Traffic:               ExperimentPowerTraffic{Sessions: t.Sessions, Visitors: t.Visitors},
		ReturnSessionShareMax: rate(t.Returning, t.Sessions),
		Steps:                 []ExperimentStep{},
	}
	if t.DataFrom != nil {
		out.Window.DataFrom = *t.DataFrom
	}
	// Sessions per day over the days since the first session of the
	// window (at least one): a store younger than the window is not
	// diluted by the days before it existed.
	span := math.Max(1, math.Ceil(now.Sub(out.Window.DataFrom).Hours()/24))
	out.Traffic.SessionsPerDay = float64(t.Sessions) / span
	if t.PageViewSessions > 0 {
		out.Consent = &ExperimentConsentCoverage{Banner: t.Banner, Coverage: rate(t.Consented, t.PageViewSessions),
			PageViewSessions: t.PageViewSessions}
	}
	if t.Paid > 0 {
		out.MatchedOrders = &ExperimentMatchedOrders{Paid: t.Paid, Matched: t.Matched, Share: rate(t.Matched, t.Paid)}
	}

	n := float64(t.Sessions)
	mean := ratio(t.Revenue, n)
	sd := 0.0
	if t.Sessions > 1 {
		sd = math.Sqrt(math.Max(0, (t.Revenue2-n*mean*mean)/(n-1)))
	}
	metrics := []struct {
		name   string
		events int64
		rate   float64
		power  experimentstats.PowerMetric
	}{
		{models.MetricConversion, t.Converted, rate(t.Converted, t.Sessions), experimentstats.ProportionMetric(rate(t.Converted, t.Sessions))},
		{models.MetricAddToCart, t.Carted, rate(t.Carted, t.Sessions), experimentstats.ProportionMetric(rate(t.Carted, t.Sessions))},
		{models.MetricCheckout, t.Checkout, rate(t.Checkout, t.Sessions), experimentstats.ProportionMetric(rate(t.Checkout, t.Sessions))},
		{models.MetricRevenuePerSession, t.Converted, mean, experimentstats.MeanMetric(mean, sd)},
	}
	testable := false
	for _, m := range metrics {
		step := ExperimentStep{Metric: m.name, BaseRate: m.rate, Events: m.events,
			Horizons: []ExperimentHorizonRow{}, Lifts: []ExperimentLiftRow{}, Verdict: StepNotTestable}
		if t.Sessions >= MinPowerSessions {
			for _, h := range m.power.Horizons(out.Traffic.SessionsPerDay, powerArms) {
				step.Horizons = append(step.Horizons, ExperimentHorizonRow{Days: int64(h.Days), MinDetectableLift: h.MinDetectableLift})
			}
			for _, lift := range PowerLifts {
				if r, ok := m.power.ForLift(lift, out.Traffic.SessionsPerDay, powerArms); ok {
					step.Lifts = append(step.Lifts, ExperimentLiftRow{Lift: r.Lift, SessionsPerArm: r.SessionsPerArm,
						TotalSessions: r.TotalSessions, Days: r.Days})
				}
			}
		}
		step.Verdict = stepVerdict(step.Horizons)
		testable = testable || step.Verdict != StepNotTestable
		out.Steps = append(out.Steps, step)
	}
	switch {
	case t.Sessions < MinPowerSessions:
		out.Refusal = refusal("the store had %d human sessions in the last %d days; estimating what a test can detect needs at least %d",
			t.Sessions, days, MinPowerSessions)
	case !testable:
		out.Refusal = refusal("at %.1f sessions a day no metric can detect any lift within %d days",
			out.Traffic.SessionsPerDay, experimentstats.HorizonDays[len(experimentstats.HorizonDays)-1])
	}
	return out, nil
}

// stepVerdict is a step's verdict from its horizons.
func stepVerdict(hs []ExperimentHorizonRow) string {
	if len(hs) == 0 {
		return StepNotTestable
	}
	for _, h := range hs {
		if h.Days == 28 && h.MinDetectableLift <= 0.10 {
			return StepReady
		}
	}
	return StepLargeLiftsOnly
}

func refusal(format string, args ...any) *string {
	s := fmt.Sprintf(format, args...)
	return &s
}
