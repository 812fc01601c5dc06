package experimentstats

import "testing"

// A report compares at most three arms per metric; these bound what that
// costs. Welch's degrees of freedom grow with the visitors, and the
// incomplete beta's continued fraction with the square root of them.

func BenchmarkRatioDifferenceSmall(b *testing.B) {
	c, t := Ratio{60, 68868, 393157506, 80, 126, 102678}, Ratio{70, 141827, 1531041369, 116, 244, 315947}
	for b.Loop() {
		RatioDifference(c, t, DefaultAlpha)
	}
}

// About 500,000 visitors per arm: ν ≈ 10⁶.
func BenchmarkRatioDifferenceLarge(b *testing.B) {
	c := Ratio{Units: 500000, SumNum: 5e8, SumNum2: 5e14, SumDen: 8e5, SumDen2: 1.6e6, SumNumDen: 9e8}
	t := Ratio{Units: 510000, SumNum: 5.2e8, SumNum2: 5.3e14, SumDen: 8.2e5, SumDen2: 1.65e6, SumNumDen: 9.3e8}
	for b.Loop() {
		RatioDifference(c, t, DefaultAlpha)
	}
}

func BenchmarkTwoProportions(b *testing.B) {
	for b.Loop() {
		TwoProportions(Count{812, 20000}, Count{1005, 20000}, DefaultAlpha)
	}
}

func BenchmarkMinDetectableLift(b *testing.B) {
	m := ProportionMetric(0.03)
	for b.Loop() {
		m.MinDetectableLift(50000, 3)
	}
}
