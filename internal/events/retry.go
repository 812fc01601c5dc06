package events

import (
	"math/rand/v2"
	"time"
)

// DefaultMaxAttempts is the attempts of one delivery, the first included:
// one per step of retrySchedule, plus the first.
const DefaultMaxAttempts = len(retrySchedule) + 1

// retrySchedule is the nominal wait after each failed attempt: quick at
// first, for a blip, then doubling towards a day in total (23h42m30s), so a
// subscriber down for a night still gets everything.
var retrySchedule = [...]time.Duration{
	30 * time.Second,
	2 * time.Minute,
	10 * time.Minute,
	30 * time.Minute,
	time.Hour,
	2 * time.Hour,
	4 * time.Hour,
	8 * time.Hour,
	8 * time.Hour,
}

// DefaultBackoff is the wait after failed attempt n (1 for the first): the
// nth step of the schedule (the last step beyond it), ±25% at random, so
// deliveries that failed together (an endpoint that was down) do not all
// retry in the same second.
func DefaultBackoff(attempt int) time.Duration {
	step := retrySchedule[min(max(attempt, 1), len(retrySchedule))-1]
	return jitter(step)
}

// jitter draws uniformly from [0.75 d, 1.25 d].
func jitter(d time.Duration) time.Duration {
	return d*3/4 + rand.N(d/2+1)
}
