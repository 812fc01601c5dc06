package analytics

import "math"

// insightsZTest is the pooled two-proportion z-test of x1 successes in n1
// trials against x2 in n2 (statsmodels' proportions_ztest with its
// defaults): z = (p1 − p2) / sqrt(p(1−p)(1/n1 + 1/n2)), p the pooled
// proportion. lower is the one-sided p-value of p1 < p2, Φ(z); the p-value
// of p1 > p2 is Φ(−z) = 1 − lower. ok is false when the test says nothing:
// an empty group, or no variance (every trial of both a success, or none).
func insightsZTest(x1, n1, x2, n2 int64) (z, lower float64, ok bool) {
	if n1 <= 0 || n2 <= 0 {
		return 0, 0, false
	}
	p := float64(x1+x2) / float64(n1+n2)
	se := math.Sqrt(p * (1 - p) * (1/float64(n1) + 1/float64(n2)))
	if se == 0 {
		return 0, 0, false
	}
	z = (float64(x1)/float64(n1) - float64(x2)/float64(n2)) / se
	return z, insightsNormalCDF(z), true
}

// insightsNormalCDF is Φ, the standard normal distribution function,
// through erfc so that its far tail keeps its precision.
func insightsNormalCDF(z float64) float64 { return 0.5 * math.Erfc(-z/math.Sqrt2) }
