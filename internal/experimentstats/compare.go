package experimentstats

import (
	"fmt"
	"math"
)

// DefaultAlpha is the report's significance level: a two-sided test at
// 5%, family-wise when there are more than two arms (see Bonferroni).
const DefaultAlpha = 0.05

// Comparison is one arm against the first (position 1): the report's
// ExperimentArmCompared.
//
// Diff is the treatment's figure minus the control's (a rate in [−1, 1],
// or cents per session); Lift is Diff relative to the control's figure,
// nil when the control's is 0. [Low, High] is the two-sided confidence
// interval of Diff at 1 − Alpha, PValue the two-sided p-value, and
// Significant is PValue < Alpha. Alpha is the level this comparison was
// tested at: the report's alpha, Bonferroni-corrected when there are more
// than two arms, so its interval and its significance use the same level.
type Comparison struct {
	Position    int      `json:"position"`
	Alpha       float64  `json:"alpha"`
	Diff        float64  `json:"diff"`
	Lift        *float64 `json:"lift"`
	Low         float64  `json:"low"`
	High        float64  `json:"high"`
	PValue      float64  `json:"p_value"`
	Significant bool     `json:"significant"`
}

// Count is an arm's figures for a rate: Events of Trials (converted of
// exposed visitors, say). The SQL that produces it keeps
// 0 ≤ Events ≤ Trials; a count outside that is treated as no data.
type Count struct {
	Events, Trials int64
}

// TwoProportions compares treatment's rate with control's by the
// two-proportion z-test, the test statsmodels' proportions_ztest computes:
//
//	z = (p_t − p_c) / sqrt(p̄(1 − p̄)(1/n_c + 1/n_t)),  p̄ = (x_c + x_t)/(n_c + n_t)
//
// with the two-sided p-value 2Φ(−|z|). The pooled standard error is the
// right one for the p-value: under the null hypothesis the rates are equal.
// The interval of the difference is the Wald interval,
// diff ± z_{1−α/2}·sqrt(p_c(1 − p_c)/n_c + p_t(1 − p_t)/n_t), unpooled
// because it describes the difference as it is, not as the null hypothesis
// would have it. The two standard errors differ, so in the rare comparison
// right at the threshold the interval can just include 0 while p < α (or
// the reverse); Significant, and the verdict, follow the p-value.
//
// Degenerate answers, never NaN or Inf: an arm without trials gives
// diff 0, interval [0, 0], p-value 1; no variance at all (both rates 0,
// or both 1) gives the difference 0 with p-value 1; a Wald interval whose
// arms both have rates of 0 or 1 (0 of 100 against 100 of 100) has width
// 0: [diff, diff], which is what that data says.
func TwoProportions(control, treatment Count, alpha float64) Comparison {
	checkAlpha(alpha)
	c := Comparison{Alpha: alpha, PValue: 1}
	if !control.valid() || !treatment.valid() {
		return c
	}
	nc, nt := float64(control.Trials), float64(treatment.Trials)
	pc, pt := float64(control.Events)/nc, float64(treatment.Events)/nt
	c.Diff = pt - pc
	c.Lift = relative(c.Diff, pc)
	if z, ok := PooledZ(control, treatment); ok {
		c.PValue = math.Min(1, 2*NormalCDF(-math.Abs(z)))
	}
	half := NormalQuantile(1-alpha/2) * math.Sqrt(pc*(1-pc)/nc+pt*(1-pt)/nt)
	c.Low, c.High = c.Diff-half, c.Diff+half
	c.Significant = c.PValue < alpha
	return c
}

// PooledZ is the statistic of the two-proportion z-test (TwoProportions):
// treatment's rate minus control's over the pooled standard error. ok is
// false when the test says nothing: an arm without trials, or no variance
// (every trial of both a success, or none).
func PooledZ(control, treatment Count) (z float64, ok bool) {
	if !control.valid() || !treatment.valid() {
		return 0, false
	}
	nc, nt := float64(control.Trials), float64(treatment.Trials)
	pooled := (float64(control.Events) + float64(treatment.Events)) / (nc + nt)
	se := math.Sqrt(pooled * (1 - pooled) * (1/nc + 1/nt))
	if se == 0 {
		return 0, false
	}
	return (float64(treatment.Events)/nt - float64(control.Events)/nc) / se, true
}

func (c Count) valid() bool { return c.Trials > 0 && c.Events >= 0 && c.Events <= c.Trials }

// Ratio is an arm's sums for a ratio metric over its visitors, the
// randomisation unit: revenue per session is Σ revenue / Σ sessions over
// the arm's visitors, so a visitor's sessions are correlated and the
// sessions are not independent trials. Units is the number of visitors;
// for each visitor, num is its revenue in cents and den its sessions;
// SumNum2, SumDen2 and SumNumDen are the sums of num², den² and num·den.
type Ratio struct {
	Units                                       int64
	SumNum, SumNum2, SumDen, SumDen2, SumNumDen float64
}

// estimate is the ratio R = Σnum / Σden and its variance by the delta
// method, with the sample (n − 1) variances and covariance of num and den:
//
//	Var(R) ≈ (σ²_num − 2R·σ_num,den + R²·σ²_den) / (n · mean_den²)
//
// ok is false when the arm cannot have one: fewer than 2 visitors, or no
// sessions.
func (r Ratio) estimate() (ratio, variance float64, ok bool) {
	if r.Units < 2 || !(r.SumDen > 0) {
		return 0, 0, false
	}
	n := float64(r.Units)
	meanNum, meanDen := r.SumNum/n, r.SumDen/n
	varNum := (r.SumNum2 - n*meanNum*meanNum) / (n - 1)
	varDen := (r.SumDen2 - n*meanDen*meanDen) / (n - 1)
	cov := (r.SumNumDen - n*meanNum*meanDen) / (n - 1)
	ratio = r.SumNum / r.SumDen
	variance = (varNum - 2*ratio*cov + ratio*ratio*varDen) / (n * meanDen * meanDen)
	if math.IsNaN(ratio) || math.IsInf(ratio, 0) || math.IsNaN(variance) || math.IsInf(variance, 0) {
		return 0, 0, false // sums that are not numbers are no data
	}
	// Rounding of sums whose variance is 0 (every visitor alike) can leave
	// a tiny negative.
	variance = math.Max(variance, 0)
	return ratio, variance, true
}

// RatioDifference compares treatment's ratio (revenue per session) with
// control's: the difference of the two ratios, its variance the sum of the
// arms' delta-method variances (the arms are independent samples of
// visitors), and Welch's t = diff / sqrt(v_c + v_t) with the
// Welch–Satterthwaite degrees of freedom
//
//	ν = (v_c + v_t)² / (v_c²/(n_c − 1) + v_t²/(n_t − 1))
//
// (n the arms' visitors), the two-sided p-value from Student's t with ν
// degrees of freedom, and the interval diff ± t_{1−α/2, ν}·sqrt(v_c + v_t).
// With one visitor's num and den per unit and den = 1 for every visitor
// this is exactly Welch's unequal-variances t-test of the means.
//
// Degenerate answers, never NaN or Inf: an arm with fewer than 2 visitors
// or no sessions gives diff 0, interval [0, 0], p-value 1; both arms
// without variance (every visitor of each arm with the same ratio) leave
// no test: the difference as it is, interval [diff, diff], p-value 1.
func RatioDifference(control, treatment Ratio, alpha float64) Comparison {
	checkAlpha(alpha)
	c := Comparison{Alpha: alpha, PValue: 1}
	rc, vc, okc := control.estimate()
	rt, vt, okt := treatment.estimate()
	if !okc || !okt {
		return c
	}
	c.Diff = rt - rc
	c.Lift = relative(c.Diff, rc)
	c.Low, c.High = c.Diff, c.Diff
	se := math.Sqrt(vc + vt)
	if !(se > 0) {
		return c
	}
	// ν in terms of each arm's share of the variance, so that tiny
	// variances cannot underflow it to 0/0.
	wc, wt := vc/(vc+vt), vt/(vc+vt)
	df := 1 / (wc*wc/float64(control.Units-1) + wt*wt/float64(treatment.Units-1))
	c.PValue = StudentTTwoSided(c.Diff/se, df)
	half := StudentTQuantile(1-alpha/2, df) * se
	c.Low, c.High = c.Diff-half, c.Diff+half
	c.Significant = c.PValue < alpha
	return c
}

// CompareProportions compares every arm after the first with the first
// (arms in position order; the first is the control) by TwoProportions,
// at Bonferroni's alpha. Fewer than two arms compare nothing: an empty
// list, never nil (the report's JSON says []).
func CompareProportions(arms []Count, alpha float64) []Comparison {
	return compareAll(len(arms), alpha, func(i int, alpha float64) Comparison {
		return TwoProportions(arms[0], arms[i], alpha)
	})
}

// CompareRatios is CompareProportions for a ratio metric, by
// RatioDifference.
func CompareRatios(arms []Ratio, alpha float64) []Comparison {
	return compareAll(len(arms), alpha, func(i int, alpha float64) Comparison {
		return RatioDifference(arms[0], arms[i], alpha)
	})
}

// compareAll runs compare for the arms at indexes 1..k−1 and numbers the
// comparisons by position (index + 1).
func compareAll(k int, alpha float64, compare func(i int, alpha float64) Comparison) []Comparison {
	checkAlpha(alpha)
	out := []Comparison{}
	for i := 1; i < k; i++ {
		c := compare(i, Bonferroni(alpha, k))
		c.Position = i + 1
		out = append(out, c)
	}
	return out
}

// Bonferroni is the level each of the k − 1 comparisons of k arms against
// the first is tested at, so that the chance of any false positive among
// them stays at most alpha: alpha/(k − 1). Chosen over Holm or Šidák
// because it is the simplest to explain and each comparison's interval at
// 1 − alpha/(k − 1) then agrees with its significance (Holm's step-down
// levels have no such intervals); with at most 3 comparisons it costs
// little power.
func Bonferroni(alpha float64, arms int) float64 {
	if arms <= 2 {
		return alpha
	}
	return alpha / float64(arms-1)
}

// relative is diff/base, nil when base is 0 (a lift over nothing is not a
// number).
func relative(diff, base float64) *float64 {
	if base == 0 {
		return nil
	}
	l := diff / base
	return &l
}

// checkAlpha panics on a level outside (0, 1): the level is the caller's
// constant (DefaultAlpha) or validated by it, never raw input, so anything
// else is a programming error.
func checkAlpha(alpha float64) {
	if !(alpha > 0 && alpha < 1) {
		panic(fmt.Sprintf("experimentstats: alpha %v is not in (0, 1)", alpha))
	}
}
