package experimentstats

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"testing"
)

// Seeded simulations: what the tests must do with data whose truth is
// known. Each is deterministic (fixed seeds, no clock); the bounds are
// wide enough to hold for any seed but a rare one, and they hold for these.

// binomial draws the events of n trials at rate p.
func binomial(rng *rand.Rand, n int, p float64) int64 {
	var k int64
	for range n {
		if rng.Float64() < p {
			k++
		}
	}
	return k
}

// poisson draws a Poisson count with mean lambda (Knuth's method: lambda
// is small here).
func poisson(rng *rand.Rand, lambda float64) int {
	limit, k, prod := math.Exp(-lambda), 0, rng.Float64()
	for prod > limit {
		k++
		prod *= rng.Float64()
	}
	return k
}

// visitors draws an arm's sums of revenue per session: each visitor has 1
// + Poisson(0.6) sessions, each converting at rate with an order of
// exponential value (mean 5,000 cents) times lift.
func visitors(rng *rand.Rand, n int, rate, lift float64) Ratio {
	r := Ratio{Units: int64(n)}
	for range n {
		sessions := 1 + poisson(rng, 0.6)
		revenue := 0.0
		for range sessions {
			if rng.Float64() < rate {
				revenue += math.Round(rng.ExpFloat64() * 5000 * lift)
			}
		}
		s := float64(sessions)
		r.SumNum += revenue
		r.SumNum2 += revenue * revenue
		r.SumDen += s
		r.SumDen2 += s * s
		r.SumNumDen += revenue * s
	}
	return r
}

// 1,000 A/A comparisons at α = 0.05 reject between 3% and 7% of the time:
// the tests hold their level (a wrong variance — sessions treated as
// independent, say — shows here as too many rejections).
func TestSimulationAA(t *testing.T) {
	rng := rand.New(rand.NewPCG(20, 1))
	rates, ratios := 0, 0
	for range 1000 {
		if TwoProportions(Count{binomial(rng, 2000, 0.05), 2000}, Count{binomial(rng, 2000, 0.05), 2000}, 0.05).Significant {
			rates++
		}
		if RatioDifference(visitors(rng, 500, 0.1, 1), visitors(rng, 500, 0.1, 1), 0.05).Significant {
			ratios++
		}
	}
	if rates < 30 || rates > 70 || ratios < 30 || ratios > 70 {
		t.Errorf("A/A rejections of 1,000: %d for a rate, %d for revenue per session; want 30 to 70", rates, ratios)
	}
	t.Logf("A/A rejections of 1,000 at 0.05: %d (rate), %d (revenue per session)", rates, ratios)
}

// The bar: of 20 A/A experiments (20,000 per arm) at least 18
// report no difference; a 20% true lift on a 5% rate with 20,000 per arm
// is a winner; 60/40 traffic configured as 50/50 fails the SRM check.
func TestSimulationVerdicts(t *testing.T) {
	rng := rand.New(rand.NewPCG(20, 2))
	noDifference := 0
	for range 20 {
		arms := []Count{{binomial(rng, 20000, 0.05), 20000}, {binomial(rng, 20000, 0.05), 20000}}
		verdict, _ := Verdict(VerdictInput{
			Exposed:     []int64{20000, 20000},
			SRM:         SampleRatio([]int64{20000, 20000}, []int64{50, 50}),
			Comparisons: CompareProportions(arms, DefaultAlpha),
		})
		if verdict == VerdictNoDifference {
			noDifference++
		}
	}
	if noDifference < 18 {
		t.Errorf("%d of 20 A/A experiments report no difference", noDifference)
	}

	arms := []Count{{binomial(rng, 20000, 0.05), 20000}, {binomial(rng, 20000, 0.06), 20000}}
	comparisons := CompareProportions(arms, DefaultAlpha)
	verdict, winner := Verdict(VerdictInput{Exposed: []int64{20000, 20000}, SRM: SampleRatio([]int64{20000, 20000}, []int64{50, 50}), Comparisons: comparisons})
	if verdict != VerdictWinner || winner == nil || *winner != 2 || !(comparisons[0].Low > 0) {
		t.Errorf("a 20%% lift: %s at %v, %+v", verdict, winner, comparisons[0])
	}
	// The same lift on revenue per session (orders 20% larger) is found too.
	if c := RatioDifference(visitors(rng, 20000, 0.05, 1), visitors(rng, 20000, 0.05, 1.2), DefaultAlpha); !c.Significant || c.Diff <= 0 {
		t.Errorf("a 20%% lift of revenue per session: %+v", c)
	}

	split := func(units int, share float64) []int64 {
		var first int64
		for range units {
			if rng.Float64() < share {
				first++
			}
		}
		return []int64{first, int64(units) - first}
	}
	if srm := SampleRatio(split(10000, 0.6), []int64{50, 50}); !srm.Failed {
		t.Errorf("60/40 against 50/50 passes: %+v", srm)
	}
	if srm := SampleRatio(split(10000, 0.5), []int64{50, 50}); srm.Failed {
		t.Errorf("50/50 against 50/50 fails: %+v", srm)
	}
	observed := split(10000, 0.6)
	if verdict, _ := Verdict(VerdictInput{Exposed: observed, SRM: SampleRatio(observed, []int64{50, 50}), Comparisons: comparisons}); verdict != VerdictSRMFailed {
		t.Errorf("a mismatched winner: %s", verdict)
	}
}

// Whatever the sums, every answer is JSON (no NaN, no Inf), p-values are
// in [0, 1] and intervals are ordered: zeros, empty arms, one arm,
// identical arms, arms without variance, counts the SQL should never give.
func TestDegenerateInputs(t *testing.T) {
	counts := []Count{{0, 0}, {0, 10}, {10, 10}, {5, 10}, {1, 1}, {11, 10}, {-1, 10}, {3, -2}, {math.MaxInt64 / 4, math.MaxInt64 / 2}, {math.MaxInt64 - 1, math.MaxInt64}}
	ratios := []Ratio{
		{},
		{Units: 1, SumNum: 500, SumNum2: 250000, SumDen: 1, SumDen2: 1, SumNumDen: 500},
		{Units: 10},
		{Units: 10, SumDen: 10, SumDen2: 10},
		{Units: 10, SumNum: 1000, SumNum2: 100000, SumDen: 10, SumDen2: 10, SumNumDen: 1000},
		{Units: 10, SumNum: 1000, SumNum2: 900000, SumDen: 15, SumDen2: 25, SumNumDen: 2000},
		{Units: 10, SumNum: math.NaN(), SumDen: 10},
		{Units: 10, SumNum: math.Inf(1), SumNum2: math.Inf(1), SumDen: 10, SumDen2: 10},
		{Units: 10, SumNum: 1000, SumNum2: -5, SumDen: 10, SumDen2: 10, SumNumDen: 1000},
		// Variances whose squares underflow (Welch–Satterthwaite's ν must not
		// become 0/0).
		{Units: 10, SumNum: 1e-147, SumNum2: 9e-295, SumDen: 15, SumDen2: 25, SumNumDen: 2e-147},
		{Units: 12, SumNum: 2e-147, SumNum2: 7e-295, SumDen: 15, SumDen2: 25, SumNumDen: 3e-147},
	}
	check := func(what string, c Comparison) {
		t.Helper()
		if _, err := json.Marshal(c); err != nil {
			t.Errorf("%s: %+v is not JSON: %v", what, c, err)
		}
		if !(c.PValue >= 0 && c.PValue <= 1) || !(c.Low <= c.High) || c.Significant != (c.PValue < c.Alpha) {
			t.Errorf("%s: %+v", what, c)
		}
	}
	for _, a := range counts {
		for _, b := range counts {
			check("proportions", TwoProportions(a, b, 0.05))
		}
		if c := TwoProportions(a, a, 0.05); c.Significant || c.Diff != 0 {
			t.Errorf("identical arms %v: %+v", a, c)
		}
	}
	for _, a := range ratios {
		for _, b := range ratios {
			check("ratios", RatioDifference(a, b, 0.05))
		}
		if c := RatioDifference(a, a, 0.05); c.Significant || c.Diff != 0 {
			t.Errorf("identical arms %+v: %+v", a, c)
		}
	}
	for _, arms := range [][]Count{nil, {}, {{5, 10}}} {
		if got := CompareProportions(arms, 0.05); got == nil || len(got) != 0 {
			t.Errorf("%d arms: %v", len(arms), got)
		}
	}
	if got := CompareRatios([]Ratio{{}}, 0.05); got == nil || len(got) != 0 {
		t.Errorf("one ratio arm: %v", got)
	}
	// A control rate of 0 has no lift; 0 of 100 against 100 of 100 has a
	// zero-width Wald interval at the difference.
	if c := TwoProportions(Count{0, 100}, Count{100, 100}, 0.05); c.Lift != nil || c.Low != 1 || c.High != 1 || !c.Significant {
		t.Errorf("0 of 100 against 100 of 100: %+v", c)
	}
	for _, srm := range []SRM{SampleRatio([]int64{-5, 10}, []int64{50, 50}), SampleRatio(nil, nil), SampleRatio([]int64{0}, []int64{100}), SampleRatio([]int64{0, 0}, []int64{0, 0}), SampleRatio([]int64{1 << 62, 0}, []int64{50, 50})} {
		if _, err := json.Marshal(srm); err != nil || !(srm.PValue >= 0 && srm.PValue <= 1) {
			t.Errorf("SRM %+v: %v", srm, err)
		}
	}
	func() {
		defer func() {
			if recover() == nil {
				t.Error("alpha 0 accepted")
			}
		}()
		TwoProportions(Count{1, 10}, Count{2, 10}, 0)
	}()
}
