package experimentstats

// The report's verdicts, checked in this order, the first that holds
// being the verdict.
const (
	// VerdictSRMFailed: the sample ratio mismatch check failed (SRM.Failed)
	// on a report with any exposed visitor. A mismatch means the arms are
	// not the random samples the tests assume (a broken assignment, an arm
	// that loses visitors), so no comparison can be trusted: it wins over
	// everything else, insufficient data included, because an arm starved
	// of visitors is exactly what a mismatch looks like.
	VerdictSRMFailed = "srm_failed"
	// VerdictInsufficientData: fewer than two arms, no comparison, or an
	// arm with fewer than MinExposedPerArm exposed visitors.
	VerdictInsufficientData = "insufficient_data"
	// VerdictWinner: at least one arm is significantly better than the
	// first (significant, diff > 0); the winner is the one with the
	// largest diff among them (ties: the smaller p-value, then the lower
	// position).
	VerdictWinner = "winner"
	// VerdictLoser: no arm is significantly better and every arm is
	// significantly worse than the first: the treatments lost and the
	// control (position 1) is the winner position.
	VerdictLoser = "loser"
	// VerdictNoDifference: anything else — no arm significantly better,
	// and not all significantly worse.
	VerdictNoDifference = "no_difference"
)

// MinExposedPerArm is the exposed visitors every arm needs before the
// report gives a verdict: below it the normal approximations of the tests
// are poor and a "winner" is mostly noise.
const MinExposedPerArm = 100

// VerdictInput is what a verdict is drawn from: the arms' exposed
// visitors in position order, the SRM check over them, and the
// comparisons of each arm with the first (CompareProportions or
// CompareRatios of the experiment's metric).
type VerdictInput struct {
	Exposed     []int64
	SRM         SRM
	Comparisons []Comparison
}

// Verdict is the report's verdict and its winner_position: the position of
// the winning arm for VerdictWinner, 1 (the control) for VerdictLoser, nil
// otherwise. See the verdict constants for the rules and their order.
func Verdict(in VerdictInput) (verdict string, winnerPosition *int) {
	var exposed int64
	enough := len(in.Exposed) >= 2
	for _, e := range in.Exposed {
		exposed += e
		if e < MinExposedPerArm {
			enough = false
		}
	}
	switch {
	case in.SRM.Failed && exposed > 0:
		return VerdictSRMFailed, nil
	case !enough || len(in.Comparisons) == 0:
		return VerdictInsufficientData, nil
	}
	var best *Comparison
	worse := 0
	for i := range in.Comparisons {
		c := &in.Comparisons[i]
		switch {
		case c.Significant && c.Diff > 0:
			if best == nil || c.Diff > best.Diff ||
				(c.Diff == best.Diff && (c.PValue < best.PValue || (c.PValue == best.PValue && c.Position < best.Position))) {
				best = c
			}
		case c.Significant && c.Diff < 0:
			worse++
		}
	}
	switch {
	case best != nil:
		position := best.Position
		return VerdictWinner, &position
	case worse == len(in.Comparisons):
		control := 1
		return VerdictLoser, &control
	}
	return VerdictNoDifference, nil
}
