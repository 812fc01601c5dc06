package analytics

import "storeadmin/internal/experimentstats"

// insightsZTest is the pooled two-proportion z-test of x1 successes in n1
// trials against x2 in n2 (statsmodels' proportions_ztest with its
// defaults, experimentstats.PooledZ): z = (p1 − p2) / sqrt(p(1−p)(1/n1 +
// 1/n2)), p the pooled proportion. lower is the one-sided p-value of
// p1 < p2, Φ(z); the p-value of p1 > p2 is Φ(−z) = 1 − lower. ok is false
// when the test says nothing: an empty group, or no variance (every trial
// of both a success, or none).
func insightsZTest(x1, n1, x2, n2 int64) (z, lower float64, ok bool) {
	z, ok = experimentstats.PooledZ(experimentstats.Count{Events: x2, Trials: n2}, experimentstats.Count{Events: x1, Trials: n1})
	if !ok {
		return 0, 0, false
	}
	return z, experimentstats.NormalCDF(z), true
}
