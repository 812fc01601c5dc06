// Package retention deletes storefront browsing events older than the
// store's horizon (serve --events-retention): a periodic River job, run as
// Work of the events engine's client.
package retention

import (
	"context"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"time"

	"github.com/riverqueue/river"
	"github.com/uptrace/bun"

	"storeadmin/internal/events"
	"storeadmin/models"
)

const (
	// DefaultHorizon is how long events are kept when no horizon is
	// given: 400 days, so a year can be compared with the one before.
	DefaultHorizon = 400 * 24 * time.Hour
	// PurgeEvery is how often the elected leader purges.
	PurgeEvery = time.Hour
	// batch is how many events one statement deletes: short transactions,
	// whatever the backlog.
	batch = 10_000
	// budget is how long one run deletes; what it did not reach goes in
	// the next run.
	budget = 5 * time.Minute
	// queue is the River queue of the purge.
	queue = "retention"
)

// Purge deletes every store's events that happened before now - horizon,
// a batch at a time, until none is left or ctx ends, and says how many
// went.
func Purge(ctx context.Context, db bun.IDB, horizon time.Duration, now time.Time) (int64, error) {
	before := now.Add(-horizon)
	var total int64
	for {
		n, err := models.PurgeStorefrontEvents(ctx, db, before, batch)
		total += n
		if err != nil {
			return total, fmt.Errorf("purge storefront events: %w", err)
		}
		if n < batch {
			return total, nil
		}
	}
}

// Work is the purge as work of the events engine's River client: a queue
// of its own, one worker, and the job every PurgeEvery (the first one when
// a process becomes River's leader). A horizon of 0 keeps events for ever:
// no job.
func Work(db bun.IDB, horizon time.Duration, now func() time.Time, log *slog.Logger) events.Work {
	every := PurgeEvery
	if horizon <= 0 {
		every = 0
	}
	return events.Periodic[PurgeArgs](queue, every, budget, true, func(ctx context.Context) error {
		if horizon <= 0 {
			return nil
		}
		n, err := Purge(ctx, db, horizon, now())
		if err != nil {
			log.WarnContext(ctx, "retention: purge", "deleted", n, "error", err)
			return err
		}
		if n > 0 {
			log.InfoContext(ctx, "retention: purged storefront events", "deleted", n, "horizon", horizon)
		}
		return nil
	})
}

// PurgeArgs is the periodic job: it carries nothing, the horizon is the
// process's.
type PurgeArgs struct{}

func (PurgeArgs) Kind() string { return "events_retention" }

// InsertOpts: its own queue, and one attempt (the next run comes anyway).
func (PurgeArgs) InsertOpts() river.InsertOpts { return river.InsertOpts{Queue: queue, MaxAttempts: 1} }

// ParseHorizon reads a horizon as people write it: whole days (400d), a Go
// duration (9600h), or 0 to keep events for ever.
func ParseHorizon(s string) (time.Duration, error) {
	if s == "0" {
		return 0, nil
	}
	if days, ok := strings.CutSuffix(s, "d"); ok {
		n, err := strconv.Atoi(days)
		if err != nil || n < 1 {
			return 0, fmt.Errorf("events retention %q: days must be a whole number from 1, as in 400d", s)
		}
		return time.Duration(n) * 24 * time.Hour, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil || d < 0 {
		return 0, fmt.Errorf("events retention %q: want days (400d), a duration (9600h) or 0 (keep for ever)", s)
	}
	return d, nil
}
