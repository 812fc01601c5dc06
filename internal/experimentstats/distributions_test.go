package experimentstats

import (
	"math"
	"testing"
)

// nearRel reports whether got is want to within rel, relative (absolute
// below 1e-300, where a tail has underflowed in both).
func nearRel(got, want, rel float64) bool {
	if math.IsNaN(got) || math.IsInf(got, 0) {
		return false
	}
	if want == 0 {
		return math.Abs(got) < 1e-300
	}
	return math.Abs(got-want) <= rel*math.Abs(want)
}

// The references were computed by scipy 1.10.1 (Debian python3-scipy), the
// call named at each table, and are hard-coded so that CI needs no Python.
func TestNormalCDF(t *testing.T) {
	// scipy.stats.norm.cdf(z)
	for _, c := range [][2]float64{
		{-38, 0.0},
		{-20, 2.7536241186061556e-89},
		{-8.5, 9.47953482220325e-18},
		{-3, 0.0013498980316300933},
		{-1.959963984540054, 0.025},
		{-0.5, 0.3085375387259869},
		{0, 0.5},
		{0.3, 0.6179114221889526},
		{1.6448536269514722, 0.95},
		{4, 0.9999683287581669},
		{9, 1.0},
	} {
		if got := NormalCDF(c[0]); !nearRel(got, c[1], 1e-12) {
			t.Errorf("NormalCDF(%g) = %.17g, want %.17g", c[0], got, c[1])
		}
	}
}

func TestNormalQuantile(t *testing.T) {
	// scipy.stats.norm.ppf(p)
	for _, c := range [][2]float64{
		{1e-300, -37.0470962993612},
		{1e-20, -9.262340089798409},
		{1e-10, -6.361340902404056},
		{0.001, -3.090232306167813},
		{0.02425, -1.972961051311885},
		{0.025, -1.9599639845400545},
		{0.1, -1.2815515655446004},
		{0.5, 0.0},
		{0.7, 0.5244005127080407},
		{0.975, 1.959963984540054},
		{0.999, 3.090232306167813},
		{0.9999999999, 6.361340889697422},
	} {
		if got := NormalQuantile(c[0]); !(c[1] == 0 && got == 0) && !nearRel(got, c[1], 1e-12) {
			t.Errorf("NormalQuantile(%g) = %.17g, want %.17g", c[0], got, c[1])
		}
	}
	// The inverse of NormalCDF across the whole range of Acklam's regions.
	for p := 1e-6; p < 1; p += 0.0137 {
		if got := NormalCDF(NormalQuantile(p)); !nearRel(got, p, 1e-12) {
			t.Errorf("NormalCDF(NormalQuantile(%g)) = %.17g", p, got)
		}
	}
	if !math.IsInf(NormalQuantile(0), -1) || !math.IsInf(NormalQuantile(1), 1) || !math.IsNaN(NormalQuantile(1.5)) {
		t.Errorf("the quantile's ends: %g %g %g", NormalQuantile(0), NormalQuantile(1), NormalQuantile(1.5))
	}
}

func TestStudentTCDF(t *testing.T) {
	// scipy.stats.t.cdf(t, df)
	for _, c := range [][3]float64{
		{2.1, 17.3, 0.9746558884885662},
		{-2.1, 17.3, 0.025344111511433776},
		{0.01, 3, 0.503675444293574},
		{1.5, 1, 0.8128329581890013},
		{-4, 2.5, 0.019506487920659125},
		{12, 5, 0.9999645525374142},
		{-2.46, 24.99, 0.010578703997490951},
		{0.5, 250000, 0.6914622412333199},
		{-5, 250000, 2.8684489791922564e-07},
		{3, 10000000.0, 0.9986500986444814},
		{-40, 30, 6.863022597203181e-28},
	} {
		if got := StudentTCDF(c[0], c[1]); !nearRel(got, c[2], 1e-9) {
			t.Errorf("StudentTCDF(%g, %g) = %.17g, want %.17g", c[0], c[1], got, c[2])
		}
	}
	// scipy.stats.t.sf(2.1, 17.3)*2
	if got := StudentTTwoSided(-2.1, 17.3); !nearRel(got, 0.05068822302286755, 1e-9) {
		t.Errorf("StudentTTwoSided(-2.1, 17.3) = %.17g", got)
	}
}

func TestStudentTQuantile(t *testing.T) {
	// The root of mpmath.betainc(df/2, 1/2, 0, df/(df+t²), regularized=True)/2
	// = min(p, 1−p) by mpmath.findroot at 40 digits (scipy.stats.t.ppf is
	// itself only good to about 3e-10 in the far tails: its own t.sf of
	// its answer misses p there).
	for _, c := range [][3]float64{
		{0.975, 17.3, 2.1070320037534676742},
		{0.025, 17.3, -2.1070320037534681023},
		{0.995, 1, 63.656741162871524447},
		{0.9999, 2.5, 34.867969321116311291},
		{0.6, 5, 0.26718086570414506569},
		{0.9916666666666667, 25000, 2.3941409522648659549},
		{0.975, 250000, 1.9599734736701351913},
		{1e-12, 40, -9.987885004868848992},
	} {
		if got := StudentTQuantile(c[0], c[1]); !nearRel(got, c[2], 1e-10) {
			t.Errorf("StudentTQuantile(%g, %g) = %.17g, want %.17g", c[0], c[1], got, c[2])
		}
	}
	if StudentTQuantile(0.5, 3) != 0 || !math.IsNaN(StudentTQuantile(0.5, 0)) {
		t.Error("the quantile's median or its refusal of df = 0")
	}
}

func TestChiSquareSF(t *testing.T) {
	// scipy.stats.chi2.sf(x, k)
	for _, c := range [][3]float64{
		{0.47, 3, 0.9254310803174679},
		{3.84, 1, 0.05004352124870519},
		{0.001, 1, 0.9747728793699604},
		{400, 1, 5.507248237212379e-89},
		{10, 3, 0.01856613546304325},
		{25, 2, 3.7266531720786718e-06},
		{2, 10, 0.9963401531726563},
		{150, 100, 0.0009039320423540184},
		{60, 50, 0.1572420272383916},
	} {
		if got := ChiSquareSF(c[0], c[1]); !nearRel(got, c[2], 1e-9) {
			t.Errorf("ChiSquareSF(%g, %g) = %.17g, want %.17g", c[0], c[1], got, c[2])
		}
	}
	if ChiSquareSF(0, 3) != 1 {
		t.Error("ChiSquareSF(0, 3) is not 1")
	}
}
