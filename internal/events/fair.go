package events

import (
	"encoding/json"
	"sync"
	"time"
)

// gate shares this process's workers among subscriptions. River hands
// workers the oldest due jobs, so deliveries to one subscriber that hangs
// used to take every worker for a whole Timeout each while other stores'
// deliveries waited behind them. Through the gate, one subscription has at
// most perSub attempts in flight; one in a failure streak (failing_since
// set: its last attempt failed, perhaps by hanging) has one, and those
// together at most half the workers, so the others always have the rest.
// A delivery refused at the gate is snoozed (see snoozeFor), not retried:
// it holds no worker while it waits and spends none of its attempts.
type gate struct {
	perSub, failingMax int

	mu      sync.Mutex
	inUse   map[int64]int // attempts in flight per subscription
	failing int           // attempts in flight of failing subscriptions
}

func newGate(cfg Config) *gate {
	return &gate{perSub: cfg.PerSubscription, failingMax: max(cfg.Workers/2, 1), inUse: map[int64]int{}}
}

// enter takes a place for an attempt of subscription sub; leave gives it
// back. ok is false when the subscription has its share in flight.
func (g *gate) enter(sub int64, failing bool) (leave func(), ok bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	limit := g.perSub
	if failing {
		limit = 1
		if g.failing >= g.failingMax {
			return nil, false
		}
	}
	if g.inUse[sub] >= limit {
		return nil, false
	}
	g.inUse[sub]++
	if failing {
		g.failing++
	}
	return func() {
		g.mu.Lock()
		defer g.mu.Unlock()
		if g.inUse[sub]--; g.inUse[sub] == 0 {
			delete(g.inUse, sub)
		}
		if failing {
			g.failing--
		}
	}, true
}

// snoozeFirst is the first wait of a delivery refused at the gate; each
// further refusal doubles it, up to the attempt Timeout: a place held by
// an attempt frees within that, so waiting longer would only leave it
// idle, while re-checking sooner would churn the jobs of a subscriber that
// hangs (one update each per check).
const snoozeFirst = 500 * time.Millisecond

// snoozeFor is the wait of a delivery refused at the gate, given River's
// metadata of its job (which counts its snoozes), ±25% at random so that
// deliveries refused together do not come back together.
func snoozeFor(metadata []byte, timeout time.Duration) time.Duration {
	var m struct {
		Snoozes int `json:"snoozes"`
	}
	json.Unmarshal(metadata, &m) //nolint:errcheck // no count: the first wait
	wait := snoozeFirst
	for range min(m.Snoozes, 16) {
		wait *= 2
	}
	return jitter(min(wait, timeout))
}
