package apitest

import (
	"sync/atomic"
	"time"
)

// Clock is a service clock the test sets and moves (New(t,
// WithClock(c.Now))). The server's goroutines read it while the test moves
// it: reads and moves are atomic.
type Clock struct{ ns atomic.Int64 }

// NewClock is a clock at t.
func NewClock(t time.Time) *Clock {
	c := &Clock{}
	c.Set(t)
	return c
}

// Now is the clock's time.
func (c *Clock) Now() time.Time { return time.Unix(0, c.ns.Load()).UTC() }

// Set moves the clock to t.
func (c *Clock) Set(t time.Time) { c.ns.Store(t.UnixNano()) }

// After is the clock's time plus d; the clock does not move.
func (c *Clock) After(d time.Duration) time.Time { return c.Now().Add(d) }
