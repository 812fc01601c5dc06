package experimentstats

import "math"

// The power calculation plans a fixed-horizon test: read once at its end,
// two-sided at PowerAlpha (family-wise: Bonferroni over the comparisons
// when there are more than two arms, as the report tests them), with
// probability PowerTarget of finding a true lift of the planned size, and
// the traffic split equally between the arms.
const (
	PowerAlpha  = 0.05
	PowerTarget = 0.8
)

// HorizonDays are the horizons the power report gives the minimum
// detectable lift at.
var HorizonDays = [...]int{7, 14, 28, 56}

// maxSessions bounds the sample sizes SessionsPerArm answers: beyond it
// (a lift of a few parts per million) no store has the traffic, and the
// figure would not fit the int64 it is reported in.
const maxSessions = 1e15

// PowerMetric is the baseline of one metric a power calculation starts
// from: a proportion (ProportionMetric) or a mean (MeanMetric). Lifts are
// relative to the baseline: 0.1 is a tenth more than it.
type PowerMetric struct {
	proportion bool
	base, sd   float64
}

// ProportionMetric is a rate metric (conversion, add to cart, checkout
// reached) whose control rate is rate.
func ProportionMetric(rate float64) PowerMetric {
	return PowerMetric{proportion: true, base: rate}
}

// MeanMetric is a mean metric (revenue per session) with the control's
// mean and the standard deviation of one session's value.
func MeanMetric(mean, sd float64) PowerMetric {
	return PowerMetric{base: mean, sd: sd}
}

// sessionsFor is the sessions each arm needs to detect the difference
// delta (absolute, in the metric's unit) at the level alpha.
//
// A proportion p against p₂ = p + delta, the textbook sample size of the
// two-proportion z-test (Fleiss, Statistical Methods for Rates and
// Proportions, without the continuity correction; statsmodels'
// samplesize_proportions_2indep_onetail), the null hypothesis's pooled
// variance beside the alternative's unpooled one, just as the report's
// test and interval use them:
//
//	n = (z_{1−α/2}·sqrt(2p̄(1 − p̄)) + z_{power}·sqrt(p(1 − p) + p₂(1 − p₂)))² / delta²,  p̄ = (p + p₂)/2
//
// A mean with standard deviation σ in both arms: n = 2(z_{1−α/2} + z_{power})²σ²/delta².
func (m PowerMetric) sessionsFor(delta, alpha float64) float64 {
	za, zb := NormalQuantile(1-alpha/2), NormalQuantile(PowerTarget)
	if !m.proportion {
		return 2 * (za + zb) * (za + zb) * m.sd * m.sd / (delta * delta)
	}
	p, p2 := m.base, m.base+delta
	mid := (p + p2) / 2
	s := za*math.Sqrt(2*mid*(1-mid)) + zb*math.Sqrt(p*(1-p)+p2*(1-p2))
	return s * s / (delta * delta)
}

// valid reports whether the metric has a baseline a relative lift can be
// taken of: a rate strictly between 0 and 1, or a positive mean with a
// standard deviation that is a number.
func (m PowerMetric) valid() bool {
	if m.proportion {
		return m.base > 0 && m.base < 1
	}
	return m.base > 0 && m.sd >= 0 && !math.IsInf(m.base, 0) && !math.IsInf(m.sd, 0)
}

// MinDetectableLift is the smallest relative lift upwards that
// sessionsPerArm sessions in each of arms arms detect with PowerTarget
// power. For a mean it is (z_{1−α/2} + z_{power})·σ·sqrt(2/n)/mean; for a
// proportion the formula of sessionsFor is solved for p₂ by bisection (to
// 1e-15), which is exact where the usual shortcut (both variances at the
// baseline) is not. A drop of the same size needs about as many sessions.
//
// ok is false when there is no answer: a baseline without one (valid),
// fewer than 2 arms or no sessions, or — for a proportion — sessions too
// few to detect even a rise to a rate of 1.
func (m PowerMetric) MinDetectableLift(sessionsPerArm float64, arms int) (lift float64, ok bool) {
	if !m.valid() || arms < 2 || !(sessionsPerArm > 0) || math.IsInf(sessionsPerArm, 0) {
		return 0, false
	}
	alpha := Bonferroni(PowerAlpha, arms)
	if !m.proportion {
		za, zb := NormalQuantile(1-alpha/2), NormalQuantile(PowerTarget)
		return (za + zb) * m.sd * math.Sqrt(2/sessionsPerArm) / m.base, true
	}
	// n falls as p₂ rises from p towards 1; find where it crosses
	// sessionsPerArm.
	lo, hi := m.base, 1.0
	if m.sessionsFor(hi-m.base, alpha) > sessionsPerArm {
		return 0, false
	}
	for hi-lo > 1e-15 {
		mid := lo + (hi-lo)/2
		if mid == lo || mid == hi {
			break
		}
		if m.sessionsFor(mid-m.base, alpha) > sessionsPerArm {
			lo = mid
		} else {
			hi = mid
		}
	}
	return (hi - m.base) / m.base, true
}

// SessionsPerArm is the sessions each of arms arms needs (rounded up) to
// detect a relative lift (positive or negative) with PowerTarget power.
// ok is false when there is no answer: a baseline without one (valid),
// fewer than 2 arms, a lift of 0, a lifted rate outside (0, 1), or more
// sessions than any store has (maxSessions).
func (m PowerMetric) SessionsPerArm(lift float64, arms int) (sessions int64, ok bool) {
	if !m.valid() || arms < 2 || lift == 0 || math.IsNaN(lift) || math.IsInf(lift, 0) {
		return 0, false
	}
	delta := lift * m.base
	if m.proportion && !(m.base+delta > 0 && m.base+delta < 1) {
		return 0, false
	}
	n := math.Ceil(m.sessionsFor(delta, Bonferroni(PowerAlpha, arms)))
	if !(n <= maxSessions) {
		return 0, false
	}
	return int64(math.Max(n, 1)), true
}

// Horizon is the minimum detectable lift of a test run for Days days: the
// power report's ExperimentHorizonRow.
type Horizon struct {
	Days              int     `json:"days"`
	MinDetectableLift float64 `json:"min_detectable_lift"`
}

// Horizons is the minimum detectable lift at each of HorizonDays for a
// store with sessionsPerDay sessions split equally between arms arms. A
// horizon at which nothing is detectable (MinDetectableLift's ok false) is
// left out, so a store with too little traffic gets fewer rows, or none:
// the power report's refusal. Never nil.
func (m PowerMetric) Horizons(sessionsPerDay float64, arms int) []Horizon {
	out := []Horizon{}
	if arms < 2 {
		return out
	}
	for _, days := range HorizonDays {
		if lift, ok := m.MinDetectableLift(float64(days)*sessionsPerDay/float64(arms), arms); ok {
			out = append(out, Horizon{Days: days, MinDetectableLift: lift})
		}
	}
	return out
}

// LiftRow is what detecting a given lift takes: the power report's
// ExperimentLiftRow.
type LiftRow struct {
	Days           float64 `json:"days"`
	Lift           float64 `json:"lift"`
	SessionsPerArm int64   `json:"sessions_per_arm"`
	TotalSessions  int64   `json:"total_sessions"`
}

// ForLift is the sessions per arm a relative lift needs (SessionsPerArm),
// the total over arms arms, and the days that total takes at
// sessionsPerDay. ok is false when SessionsPerArm has no answer or there
// is no traffic.
func (m PowerMetric) ForLift(lift, sessionsPerDay float64, arms int) (row LiftRow, ok bool) {
	perArm, ok := m.SessionsPerArm(lift, arms)
	if !ok || !(sessionsPerDay > 0) || math.IsInf(sessionsPerDay, 0) {
		return LiftRow{}, false
	}
	total := perArm * int64(arms)
	return LiftRow{Days: float64(total) / sessionsPerDay, Lift: lift, SessionsPerArm: perArm, TotalSessions: total}, true
}
