package analytics

import (
	"math"
	"testing"

	"storeadmin/internal/experimentstats"
)

// The z-test against values worked by hand (the pooled formula, Φ through
// erfc, as statsmodels' proportions_ztest computes them) and the normal
// table's landmarks.
func TestInsightsZTest(t *testing.T) {
	for _, c := range []struct {
		x1, n1, x2, n2 int64
		z, lower       float64
	}{
		{12, 400, 40, 400, -4.015601003, 2.964724882e-05},
		{83, 100, 90, 100, -1.448465329, 0.07374347784},
		{5, 50, 12, 50, -1.863522038, 0.03119442744},
		{36, 400, 40, 400, -0.4823129309, 0.3147918314},
		{300, 1000, 250, 1000, 2.503915429, 0.9938586305},
	} {
		z, lower, ok := insightsZTest(c.x1, c.n1, c.x2, c.n2)
		if !ok || math.Abs(z-c.z) > 1e-8 || math.Abs(lower-c.lower)/c.lower > 1e-8 {
			t.Errorf("%d/%d against %d/%d: z %.10g, p %.10g, %v; want z %.10g, p %.10g", c.x1, c.n1, c.x2, c.n2, z, lower, ok, c.z, c.lower)
		}
		// Swapping the groups mirrors z and the tails.
		if z2, lower2, _ := insightsZTest(c.x2, c.n2, c.x1, c.n1); math.Abs(z2+z) > 1e-12 || math.Abs(lower2-(1-lower)) > 1e-12 {
			t.Errorf("swapped %d/%d: z %g, p %g", c.x1, c.n1, z2, lower2)
		}
	}
	for z, want := range map[float64]float64{0: 0.5, -1.6448536269514722: 0.05, -2.3263478740408408: 0.01, -1.959963984540054: 0.025} {
		if got := experimentstats.NormalCDF(z); math.Abs(got-want) > 1e-12 {
			t.Errorf("Φ(%g) = %.15g, want %g", z, got, want)
		}
	}
	for _, c := range [][4]int64{{0, 0, 1, 10}, {1, 10, 0, 0}, {0, 10, 0, 20}, {10, 10, 20, 20}} {
		if _, _, ok := insightsZTest(c[0], c[1], c[2], c[3]); ok {
			t.Errorf("%v: a test without variance or trials said something", c)
		}
	}
}
