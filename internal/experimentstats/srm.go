package experimentstats

// SRMThreshold is the p-value below which the sample ratio mismatch check
// fails: 0.001, the customary level for this check (it runs on every
// report of every test, and a failure blocks the verdict, so its false
// alarms must be rare; a real mismatch — a broken assignment, an arm that
// crashes or redirects — is usually far below it).
const SRMThreshold = 0.001

// SRM is the sample ratio mismatch check: the report's ExperimentSRMResult.
type SRM struct {
	PValue float64 `json:"p_value"`
	Failed bool    `json:"failed"`
}

// SampleRatio checks the arms' units (observed, in position order: the
// exposed visitors) against the configured splits (splitPct, the same
// order) by Pearson's chi-square goodness of fit,
//
//	χ² = Σ (observed − expected)² / expected,  expected = total · split/Σsplit
//
// with k − 1 degrees of freedom (scipy.stats.chisquare). The splits are
// taken relative to their sum, which is 100 for a valid experiment. Failed
// is p < SRMThreshold.
//
// Degenerate answers: no units at all, fewer than two arms, no positive
// split, a negative count, or lists of different lengths (nothing to
// check against) give p = 1, not failed. Units in an arm configured at 0% are a mismatch
// however few: p = 0, failed. An arm at 0% with no units adds nothing,
// not even a degree of freedom.
func SampleRatio(observed []int64, splitPct []int64) SRM {
	pass := SRM{PValue: 1}
	if len(observed) != len(splitPct) {
		return pass
	}
	var total, splits float64
	for i, o := range observed {
		if o < 0 {
			return pass
		}
		total += float64(o)
		if splitPct[i] > 0 {
			splits += float64(splitPct[i])
		}
	}
	if !(total > 0) || !(splits > 0) {
		return pass
	}
	chi2, arms := 0.0, 0
	for i, o := range observed {
		if splitPct[i] <= 0 {
			if o > 0 {
				return SRM{PValue: 0, Failed: true}
			}
			continue
		}
		expected := total * float64(splitPct[i]) / splits
		d := float64(o) - expected
		chi2 += d * d / expected
		arms++
	}
	if arms < 2 {
		return pass
	}
	p := ChiSquareSF(chi2, float64(arms-1))
	return SRM{PValue: p, Failed: p < SRMThreshold}
}
