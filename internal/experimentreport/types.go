package experimentreport

import (
	"time"

	"storeadmin/internal/experimentstats"
	"storeadmin/models"
)

// The views of the A/B tests' reports (spec "A/B tests"), bound by the
// graph by name; json tags are the spec's field names.

// ExperimentReport is an experiment's report (README "The report").
type ExperimentReport struct {
	Arms             []ExperimentArmReport    `json:"arms"`
	Broken           []int64                  `json:"broken"`
	Comparisons      []ExperimentArmCompared  `json:"comparisons"`
	From             time.Time                `json:"from"`
	Guardrails       ExperimentGuardrails     `json:"guardrails"`
	Metric           string                   `json:"metric"`
	MinExposedPerArm int64                    `json:"min_exposed_per_arm"`
	SegmentFloor     int64                    `json:"segment_floor"`
	Segments         []ExperimentSegmentRow   `json:"segments"`
	SRM              ExperimentSRMResult      `json:"srm"`
	Timeline         []ExperimentTimelineMark `json:"timeline"`
	To               time.Time                `json:"to"`
	Verdict          string                   `json:"verdict"`
	WinnerPosition   *int64                   `json:"winner_position"`
}

// ExperimentArmReport is one arm's figures over its exposed visitors.
type ExperimentArmReport struct {
	Position       int64                   `json:"position"`
	Key            string                  `json:"key"`
	Name           string                  `json:"name"`
	SplitPct       int64                   `json:"split_pct"`
	Exposed        int64                   `json:"exposed"`
	Sessions       int64                   `json:"sessions"`
	Added          int64                   `json:"added"`
	Checkout       int64                   `json:"checkout"`
	Converted      int64                   `json:"converted"`
	AddRate        float64                 `json:"add_rate"`
	CheckoutRate   float64                 `json:"checkout_rate"`
	ConversionRate float64                 `json:"conversion_rate"`
	MetricEvents   int64                   `json:"metric_events"`
	MetricRate     float64                 `json:"metric_rate"`
	ReturnShare    float64                 `json:"return_share"`
	Money          []ExperimentArmCurrency `json:"money"`
}

// ExperimentArmCurrency is an arm's orders in one currency.
type ExperimentArmCurrency struct {
	Currency                             string  `json:"currency"`
	Orders                               int64   `json:"orders"`
	RevenueCents                         int64   `json:"revenue_cents"`
	AOVCents                             float64 `json:"aov_cents"`
	RevenuePerSessionCents               float64 `json:"revenue_per_session_cents"`
	RevenuePerSessionWithoutLargestCents float64 `json:"revenue_per_session_without_largest_cents"`
	LargestOrderCents                    int64   `json:"largest_order_cents"`
	CancelledOrders                      int64   `json:"cancelled_orders"`
	RefundedOrders                       int64   `json:"refunded_orders"`
}

// ExperimentArmCompared is an arm compared with the control
// (experimentstats.Comparison).
type ExperimentArmCompared struct {
	Position    int64    `json:"position"`
	Alpha       float64  `json:"alpha"`
	Diff        float64  `json:"diff"`
	Lift        *float64 `json:"lift"`
	Low         float64  `json:"low"`
	High        float64  `json:"high"`
	PValue      float64  `json:"p_value"`
	Significant bool     `json:"significant"`
}

// ExperimentGuardrails are the checks that say whether the report's data
// can be trusted.
type ExperimentGuardrails struct {
	Banner             bool    `json:"banner"`
	ConsentCoverage    float64 `json:"consent_coverage"`
	ExcludedInPauses   int64   `json:"excluded_in_pauses"`
	PaidOrders         int64   `json:"paid_orders"`
	MatchedOrders      int64   `json:"matched_orders"`
	MatchedShare       float64 `json:"matched_share"`
	CartSessionDiffers float64 `json:"cart_session_differs"`
}

// ExperimentSegmentRow is one value of a segment dimension, per arm.
type ExperimentSegmentRow struct {
	Dimension string                 `json:"dimension"`
	Value     string                 `json:"value"`
	Hidden    bool                   `json:"hidden"`
	Folded    *int64                 `json:"folded"`
	Arms      []ExperimentSegmentArm `json:"arms"`
}

// ExperimentSegmentArm is an arm's figures in a segment.
type ExperimentSegmentArm struct {
	Position     int64   `json:"position"`
	Exposed      int64   `json:"exposed"`
	MetricEvents int64   `json:"metric_events"`
	MetricRate   float64 `json:"metric_rate"`
}

// ExperimentSRMResult is the sample ratio mismatch check.
type ExperimentSRMResult struct {
	Failed bool    `json:"failed"`
	PValue float64 `json:"p_value"`
}

// ExperimentTimelineMark is a moment of the experiment's life.
type ExperimentTimelineMark struct {
	At   time.Time `json:"at"`
	Kind string    `json:"kind"`
	Note *string   `json:"note"`
}

// ExperimentPowerReport is what the store's traffic can test (README
// "Power").
type ExperimentPowerReport struct {
	Window                ExperimentPowerWindow      `json:"window"`
	Traffic               ExperimentPowerTraffic     `json:"traffic"`
	Steps                 []ExperimentStep           `json:"steps"`
	Consent               *ExperimentConsentCoverage `json:"consent"`
	MatchedOrders         *ExperimentMatchedOrders   `json:"matched_orders"`
	ReturnSessionShareMax float64                    `json:"return_session_share_max"`
	Refusal               *string                    `json:"refusal"`
}

// ExperimentPowerWindow is the traffic the power report read.
type ExperimentPowerWindow struct {
	From          time.Time `json:"from"`
	To            time.Time `json:"to"`
	RequestedDays float64   `json:"requested_days"`
	DaysWithData  float64   `json:"days_with_data"`
	DataFrom      time.Time `json:"data_from"`
}

// ExperimentPowerTraffic is the window's human traffic.
type ExperimentPowerTraffic struct {
	Sessions       int64   `json:"sessions"`
	SessionsPerDay float64 `json:"sessions_per_day"`
	Visitors       int64   `json:"visitors"`
}

// ExperimentStep is one metric's power.
type ExperimentStep struct {
	Metric   string                 `json:"metric"`
	BaseRate float64                `json:"base_rate"`
	Events   int64                  `json:"events"`
	Horizons []ExperimentHorizonRow `json:"horizons"`
	Lifts    []ExperimentLiftRow    `json:"lifts"`
	Verdict  string                 `json:"verdict"`
}

// ExperimentHorizonRow is the minimum detectable lift of a test of Days.
type ExperimentHorizonRow struct {
	Days              int64   `json:"days"`
	MinDetectableLift float64 `json:"min_detectable_lift"`
}

// ExperimentLiftRow is what detecting Lift takes.
type ExperimentLiftRow struct {
	Lift           float64 `json:"lift"`
	SessionsPerArm int64   `json:"sessions_per_arm"`
	TotalSessions  int64   `json:"total_sessions"`
	Days           float64 `json:"days"`
}

// ExperimentConsentCoverage is how many sessions answered the consent
// banner with yes.
type ExperimentConsentCoverage struct {
	Banner           bool    `json:"banner"`
	Coverage         float64 `json:"coverage"`
	PageViewSessions int64   `json:"page_view_sessions"`
}

// ExperimentMatchedOrders is how many paid orders a test could attribute.
type ExperimentMatchedOrders struct {
	Paid    int64   `json:"paid"`
	Matched int64   `json:"matched"`
	Share   float64 `json:"share"`
}

// ExperimentPooledReport is a pooled test's report over its member stores
// (README "The pooled report"): no store's identity or own figures.
type ExperimentPooledReport struct {
	Key              string                  `json:"key"`
	Name             string                  `json:"name"`
	Status           string                  `json:"status"`
	Metric           string                  `json:"metric"`
	From             time.Time               `json:"from"`
	To               time.Time               `json:"to"`
	Stores           int64                   `json:"stores"`
	StoreFloor       int64                   `json:"store_floor"`
	MaxShare         float64                 `json:"max_share"`
	MinStores        int64                   `json:"min_stores"`
	MinExposedPerArm int64                   `json:"min_exposed_per_arm"`
	Arms             []ExperimentPooledArm   `json:"arms"`
	Comparisons      []ExperimentArmCompared `json:"comparisons"`
	SRM              ExperimentSRMResult     `json:"srm"`
	Verdict          string                  `json:"verdict"`
	WinnerPosition   *int64                  `json:"winner_position"`
}

// ExperimentPooledArm is one arm of a pooled test, over the counted stores.
type ExperimentPooledArm struct {
	Position     int64   `json:"position"`
	Key          string  `json:"key"`
	Name         string  `json:"name"`
	SplitPct     int64   `json:"split_pct"`
	Exposed      int64   `json:"exposed"`
	MetricEvents int64   `json:"metric_events"`
	MetricRate   float64 `json:"metric_rate"`
}

// judge is the statistics of the arms' sums, the same for one store's
// report and a pool's: each arm compared with the first on metric
// (compare), the sample ratio check of exposed against the configured
// splits, and the verdict with its winner_position.
func judge(metric string, arms []models.ExperimentVariant, sumOf func(models.ExperimentVariant) armSum, exposed, split []int64) (
	ExperimentSRMResult, []ExperimentArmCompared, string, *int64) {
	cs := compare(metric, arms, sumOf)
	srm := experimentstats.SampleRatio(exposed, split)
	comparisons := make([]ExperimentArmCompared, len(cs))
	for i, c := range cs {
		comparisons[i] = ExperimentArmCompared{Position: int64(c.Position), Alpha: c.Alpha, Diff: c.Diff, Lift: c.Lift,
			Low: c.Low, High: c.High, PValue: c.PValue, Significant: c.Significant}
	}
	verdict, pos := experimentstats.Verdict(experimentstats.VerdictInput{Exposed: exposed, SRM: srm, Comparisons: cs})
	var winner *int64
	if pos != nil {
		p := int64(*pos)
		winner = &p
	}
	return ExperimentSRMResult{Failed: srm.Failed, PValue: srm.PValue}, comparisons, verdict, winner
}

// ratio is a/b, 0 when b is 0.
func ratio(a, b float64) float64 {
	if b == 0 {
		return 0
	}
	return a / b
}
