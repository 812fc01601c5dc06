package analytics

import (
	"context"
	"fmt"
	"math"
	"strconv"
	"time"

	"github.com/uptrace/bun"

	"storeadmin/models"

	"storeadmin/internal/experimentstats"
)

// Insights are findings a merchant can act on, made once a day per store
// for the store's local yesterday by the finders of insights_find.go (the
// insights job of internal/insights runs ComputeInsights). A finding is a
// difference between two proportions that a pooled two-proportion z-test
// calls significant, one-sided, at InsightsAlpha, on at least a kind's
// minimum sample in each group, and at least InsightsMinEffect apart
// relative to the baseline: no finding from noise.

// The kinds of finding.
const (
	// A landing page whose sessions converted less in the last 7 days than
	// in the 7 before.
	InsightLandingPageConversionDrop = "landing_page_conversion_drop"
	// A product whose viewers added it to a cart less than the viewers of
	// the store's other products did theirs, over the last 7 days.
	InsightProductViewsWithoutCarts = "product_views_without_carts"
	// A payment method whose attempts failed more in the last 7 days than
	// in the 7 before.
	InsightPaymentMethodFailureRising = "payment_method_failure_rising"
	// A discount code whose customers of the last 90 days ordered again
	// less than the store's other customers.
	InsightDiscountOneTimeBuyers = "discount_one_time_buyers"
)

// The thresholds every finding passes.
const (
	// InsightsAlpha: the one-sided p-value must be below it.
	InsightsAlpha = 0.01
	// InsightsMinEffect: the subject's rate must differ from the
	// baseline's by at least this share of the baseline (0.2: 20%).
	InsightsMinEffect = 0.2
	// The least trials in each group: sessions (landing pages), sessions
	// that viewed the product (products), attempts (payment methods),
	// customers (discounts).
	InsightsMinSessions  = 200
	InsightsMinViews     = 200
	InsightsMinAttempts  = 200
	InsightsMinCustomers = 30
	// The windows, in the store's local days ending with the day computed.
	insightsWeekDays     = 7
	insightsDiscountDays = 90
)

// Insights are the store's current findings: those of the latest day the
// job computed (a day that found nothing leaves none), strongest first
// (the test's |z|), then by kind and subject.
func Insights(ctx context.Context, db bun.IDB, storeID int64) ([]InsightView, error) {
	var rows []insightsRow
	err := db.NewSelect().Model(&rows).
		Where("store_id = ? AND day = (SELECT max(r.day) FROM insight_runs AS r WHERE r.store_id = ?)", storeID, storeID).
		OrderExpr("day DESC, abs(z) DESC, kind, subject_key").Scan(ctx)
	out := make([]InsightView, len(rows))
	for i, r := range rows {
		out[i] = r.view()
	}
	return out, err
}

// InsightsRun is what one ComputeInsights did.
type InsightsRun struct {
	Day      string // YYYY-MM-DD in the store's time zone
	Findings int
}

// ComputeInsights runs the finders for the store's local yesterday as of
// now and stores what they found as that day's findings, replacing those
// a run of the same day stored before (older days stay). The finders read
// first, a statement each; the writes are one transaction, which begins by
// locking the day's run row, so two runs of one day at once store one set.
func ComputeInsights(ctx context.Context, db bun.IDB, storeID int64, now time.Time) (InsightsRun, error) {
	store, err := models.GetStore(ctx, db, storeID)
	if err != nil {
		return InsightsRun{}, err
	}
	loc, err := time.LoadLocation(store.Timezone)
	if err != nil {
		loc = time.UTC
	}
	local := now.In(loc)
	day := time.Date(local.Year(), local.Month(), local.Day()-1, 0, 0, 0, 0, loc)
	found, err := insightsFind(ctx, db, storeID, day)
	if err != nil {
		return InsightsRun{}, err
	}
	run := InsightsRun{Day: day.Format(time.DateOnly), Findings: len(found)}
	err = db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		if _, err := tx.NewRaw(`INSERT INTO insight_runs (store_id, day, findings, computed_at) VALUES (?, ?, ?, ?)
			ON CONFLICT (store_id, day) DO UPDATE SET findings = excluded.findings, computed_at = excluded.computed_at`,
			storeID, run.Day, run.Findings, now).Exec(ctx); err != nil {
			return err
		}
		if _, err := tx.NewDelete().Model((*insightsRow)(nil)).Where("store_id = ? AND day = ?", storeID, run.Day).Exec(ctx); err != nil {
			return err
		}
		if len(found) == 0 {
			return nil
		}
		// The date as written, whatever the zone: a date column reads a
		// time by its UTC day.
		date := time.Date(day.Year(), day.Month(), day.Day(), 0, 0, 0, 0, time.UTC)
		for i := range found {
			found[i].StoreID, found[i].Day = storeID, date
		}
		_, err := tx.NewInsert().Model(&found).Exec(ctx)
		return err
	})
	return run, err
}

// StoresDueForInsights are up to limit active stores, by id after after,
// whose local yesterday as of now has no run yet.
func StoresDueForInsights(ctx context.Context, db bun.IDB, now time.Time, after int64, limit int) ([]int64, error) {
	var out []int64
	err := db.NewRaw(`SELECT s.id FROM stores AS s
		WHERE s.status = ? AND s.id > ? AND NOT EXISTS (SELECT 1 FROM insight_runs AS r
			WHERE r.store_id = s.id AND r.day >= (?::timestamptz AT TIME ZONE s.timezone)::date - 1)
		ORDER BY s.id LIMIT ?`, models.StoreActive, after, now, limit).Scan(ctx, &out)
	return out, err
}

// insightsRow is a finding as the insights table keeps it.
type insightsRow struct {
	bun.BaseModel `bun:"table:insights"`

	ID           int64          `bun:"id,pk,autoincrement"`
	StoreID      int64          `bun:"store_id"`
	Day          time.Time      `bun:"day,type:date"`
	Kind         string         `bun:"kind"`
	SubjectKey   string         `bun:"subject_key"`
	SubjectType  *string        `bun:"subject_type"`
	SubjectID    *int64         `bun:"subject_id"`
	SubjectLabel *string        `bun:"subject_label"`
	Headline     string         `bun:"headline"`
	Detail       *string        `bun:"detail"`
	Action       *string        `bun:"action"`
	Metrics      map[string]any `bun:"metrics,type:jsonb"`
	SampleSize   int64          `bun:"sample_size"`
	Z            float64        `bun:"z"`
	EvidenceURL  *string        `bun:"evidence_url"`
}

func (r insightsRow) view() InsightView {
	return InsightView{Day: r.Day.Format(time.DateOnly), Kind: r.Kind, Headline: r.Headline, Detail: r.Detail, Action: r.Action,
		SubjectType: r.SubjectType, SubjectID: r.SubjectID, SubjectLabel: r.SubjectLabel, Metrics: r.Metrics,
		SampleSize: r.SampleSize, EvidenceURL: r.EvidenceURL}
}

// insightsTest is a finding's test: x1 of n1 in the subject's group (this
// week, this product, this code's customers) against x2 of n2 in its
// baseline (the week before, the other products, the other customers).
type insightsTest struct {
	x1, n1, x2, n2 int64
	z, p           float64
}

// insightsSignificant tests x1/n1 against x2/n2: each group has at least
// minTrials, the subject's rate is below the baseline's (above when
// higher) by at least InsightsMinEffect of it, and the one-sided p-value
// is below InsightsAlpha.
func insightsSignificant(x1, n1, x2, n2, minTrials int64, higher bool) (insightsTest, bool) {
	t := insightsTest{x1: x1, n1: n1, x2: x2, n2: n2}
	if n1 < minTrials || n2 < minTrials {
		return t, false
	}
	// Cross-multiplied, so that the effect is exact in integers:
	// |r1 − r2| ≥ 0.2 r2  ⇔  5 |x1 n2 − x2 n1| ≥ x2 n1.
	diff := x1*n2 - x2*n1
	if !higher {
		diff = -diff
	}
	if diff <= 0 || 5*diff < x2*n1 {
		return t, false
	}
	z, lower, ok := insightsZTest(x1, n1, x2, n2)
	if !ok {
		return t, false
	}
	t.z, t.p = z, lower
	if higher {
		t.p = experimentstats.NormalCDF(-z)
	}
	return t, t.p < InsightsAlpha
}

// figures are the test's figures for a finding's metrics: the subject's
// and the baseline's counts under the kind's names, their rates, the
// relative change (null from a baseline of 0), z and p.
func (t insightsTest) figures(trials, successes, rate, baseline string) map[string]any {
	r1, r2 := Ratio(t.x1, t.n1), Ratio(t.x2, t.n2)
	var change any
	if t.x2 > 0 {
		change = math.Round((float64(t.x1)*float64(t.n2)/(float64(t.x2)*float64(t.n1))-1)*10_000) / 10_000
	}
	p, _ := strconv.ParseFloat(strconv.FormatFloat(t.p, 'g', 3, 64), 64)
	return map[string]any{
		trials: t.n1, successes: t.x1, rate: r1,
		baseline + "_" + trials: t.n2, baseline + "_" + successes: t.x2, baseline + "_" + rate: r2,
		"relative_change": change, "z": math.Round(t.z*1000) / 1000, "p": p,
	}
}

// insightsPct is a rate as people read it: 12.5%.
func insightsPct(x, n int64) string {
	return strconv.FormatFloat(math.Round(float64(x)/float64(n)*1000)/10, 'f', -1, 64) + "%"
}

// stat is the test as a sentence's end.
func (t insightsTest) stat() string {
	return fmt.Sprintf("two-proportion z-test: z = %.2f, one-sided p = %s", t.z, strconv.FormatFloat(t.p, 'g', 2, 64))
}
