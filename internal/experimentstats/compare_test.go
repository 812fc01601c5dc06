package experimentstats

import (
	"math"
	"testing"
)

// wantComparison checks a comparison against its reference to 1e-6,
// relative (absolute for figures below 1e-6).
func wantComparison(t *testing.T, name string, got Comparison, diff, p, low, high float64) {
	t.Helper()
	near := func(a, b float64) bool { return math.Abs(a-b) <= 1e-6*math.Max(1e-6, math.Abs(b)) }
	if !near(got.Diff, diff) || !near(got.PValue, p) || !near(got.Low, low) || !near(got.High, high) {
		t.Errorf("%s: diff %.12g p %.12g [%.12g, %.12g]; want diff %.12g p %.12g [%.12g, %.12g]",
			name, got.Diff, got.PValue, got.Low, got.High, diff, p, low, high)
	}
	if got.Significant != (got.PValue < got.Alpha) {
		t.Errorf("%s: significant %v with p %g at alpha %g", name, got.Significant, got.PValue, got.Alpha)
	}
}

func TestTwoProportions(t *testing.T) {
	// OpenIntro Statistics (3rd ed., §6.2.3), the mammogram trial: 500 deaths
	// of 44,425 screened against 505 of 44,405 controls, pooled z ≈ −0.17
	// and a two-sided p-value ≈ 0.87 (the book reads 0.865 from a table at
	// z rounded to −0.17). Exact: statsmodels.stats.proportion.
	// proportions_ztest([500, 505], [44425, 44405]) = (−0.16579826526796446,
	// 0.8683157113444111).
	c := TwoProportions(Count{505, 44405}, Count{500, 44425}, 0.05)
	if math.Abs(c.PValue-0.8683157113444111) > 1e-9 || c.Significant {
		t.Errorf("the mammogram trial: p %.12g, significant %v", c.PValue, c.Significant)
	}

	// p: statsmodels.stats.proportion.proportions_ztest([xt, xc], [nt, nc]);
	// interval: confint_proportions_2indep(xt, nt, xc, nc, method='wald',
	// compare='diff', alpha=alpha).
	for _, r := range []struct {
		control, treatment        Count
		alpha, diff, p, low, high float64
	}{
		{Count{500, 10000}, Count{560, 10000}, 0.05, 0.005999999999999998, 0.05825780603351623, -0.00020922034622822532, 0.012209220346228223},
		{Count{120, 2400}, Count{150, 2500}, 0.05, 0.009999999999999995, 0.12513748721580653, -0.0027550846131166144, 0.022755084613116604},
		{Count{30, 1000}, Count{18, 1000}, 0.025, -0.012, 0.0795647345931905, -0.02732962166192764, 0.003329621661927639},
		{Count{1, 50}, Count{9, 60}, 0.05, 0.13, 0.018197869700053406, 0.03166917140750254, 0.22833082859249748},
		{Count{812, 20000}, Count{1005, 20000}, 0.016666666666666666, 0.009650000000000006, 3.5831962819692744e-06, 0.004666248711390761, 0.014633751288609251},
	} {
		got := TwoProportions(r.control, r.treatment, r.alpha)
		wantComparison(t, "proportions", got, r.diff, r.p, r.low, r.high)
		rc := float64(r.control.Events) / float64(r.control.Trials)
		if got.Lift == nil || math.Abs(*got.Lift-r.diff/rc) > 1e-12 {
			t.Errorf("%v against %v: lift %v, want %g", r.control, r.treatment, got.Lift, r.diff/rc)
		}
	}
}

// Welch's t on a published dataset: Wikipedia's "Welch's t-test", example
// 1 (t = 2.46, ν ≈ 25.0, p = 0.021). With one session per visitor the
// delta-method ratio is the mean and its variance s²/n, so RatioDifference
// is exactly Welch's test. Exact: scipy.stats.ttest_ind(a2, a1,
// equal_var=False) = (2.455356398286006, 0.021378001462866985) and
// statsmodels' CompareMeans(DescrStatsW(a2), DescrStatsW(a1)).
// tconfint_diff(alpha=0.05, usevar='unequal') = (0.3492370661924127,
// 3.98409626714093).
func TestRatioDifferenceWelch(t *testing.T) {
	a1 := []float64{27.5, 21.0, 19.0, 23.6, 17.0, 17.9, 16.9, 20.1, 21.9, 22.6, 23.1, 19.6, 19.0, 21.7, 21.4}
	a2 := []float64{27.1, 22.0, 20.8, 23.4, 23.4, 23.5, 25.8, 22.0, 24.8, 20.2, 21.9, 22.1, 22.9, 20.5, 24.4}
	perVisitor := func(xs []float64) Ratio {
		r := Ratio{Units: int64(len(xs))}
		for _, x := range xs {
			r.SumNum += x
			r.SumNum2 += x * x
			r.SumDen++
			r.SumDen2++
			r.SumNumDen += x
		}
		return r
	}
	got := RatioDifference(perVisitor(a1), perVisitor(a2), 0.05)
	wantComparison(t, "Welch", got, 2.166666666666668, 0.021378001462866985, 0.3492370661924127, 3.98409626714093)
}

// The delta method on visitors with several sessions each. The sums are
// of visitors drawn by numpy (seeded: 1 + Poisson(0.6) sessions, Binomial
// orders of Gamma revenue); the reference computes each arm's variance
// the other way round, Var(num − R·den)/(n·mean_den²) with
// numpy.var(ddof=1), then Welch–Satterthwaite's ν, 2·scipy.stats.t.sf(|t|,
// ν) and scipy.stats.t.ppf(1 − alpha/2, ν).
func TestRatioDifferenceDelta(t *testing.T) {
	for _, r := range []struct {
		control, treatment              Ratio
		alpha, diff, lift, p, low, high float64
	}{
		{
			Ratio{60, 68868, 393157506, 80, 126, 102678}, Ratio{70, 141827, 1531041369, 116, 244, 315947},
			0.05, 361.7965517241379, 0.42027827347869884, 0.32473178291085736, -362.4909010747979, 1086.0840045230736,
		},
		{
			Ratio{400, 613975, 5219828939, 649, 1333, 1310890}, Ratio{380, 710400, 5660082002, 624, 1260, 1433432},
			0.025, 192.42918098850316, 0.2034065531357768, 0.17115620602290554, -123.06369493937427, 507.9220569163806,
		},
	} {
		got := RatioDifference(r.control, r.treatment, r.alpha)
		wantComparison(t, "delta", got, r.diff, r.p, r.low, r.high)
		if got.Lift == nil || math.Abs(*got.Lift-r.lift) > 1e-9 {
			t.Errorf("lift %v, want %g", got.Lift, r.lift)
		}
	}
}

// More than two arms: each comparison at alpha/(k − 1), its interval at
// the same level, numbered by position.
func TestCompareBonferroni(t *testing.T) {
	arms := []Count{{500, 10000}, {560, 10000}, {505, 10000}, {610, 10000}}
	got := CompareProportions(arms, 0.05)
	if len(got) != 3 {
		t.Fatalf("%d comparisons of 4 arms", len(got))
	}
	for i, c := range got {
		if c.Position != i+2 || c.Alpha != 0.05/3 {
			t.Errorf("comparison %d: position %d alpha %g", i, c.Position, c.Alpha)
		}
		if want := TwoProportions(arms[0], arms[i+1], 0.05/3); c.Low != want.Low || c.PValue != want.PValue {
			t.Errorf("comparison %d is not TwoProportions at the corrected alpha", i)
		}
	}
	// statsmodels' proportions_ztest: 560 of 10000 against 500 has
	// p = 0.0583 (not significant even at 0.05), 610 has p = 0.00068
	// (significant at 0.05/3).
	if got[0].Significant || !got[2].Significant {
		t.Errorf("significance: %+v", got)
	}
	two := CompareRatios([]Ratio{{60, 68868, 393157506, 80, 126, 102678}, {70, 141827, 1531041369, 116, 244, 315947}}, 0.05)
	if len(two) != 1 || two[0].Alpha != 0.05 || two[0].Position != 2 {
		t.Errorf("two arms: %+v", two)
	}
}
