// Package funnelruns ends the post-purchase funnel runs whose shoppers
// stopped answering: a periodic River job, run as Work of the events
// engine's client, that times out every run past its expires_at and
// captures its order's authorization (models.TimeOutRuns).
package funnelruns

import (
	"context"
	"log/slog"
	"time"

	"github.com/riverqueue/river"
	"github.com/uptrace/bun"

	"storeadmin/internal/events"
	"storeadmin/models"
)

const (
	// RunEvery is how often the elected leader looks for runs past their
	// timeout: a run is captured at most this long after it expired.
	RunEvery = 30 * time.Second
	// batch is how many runs one round reads; a run is ended in a
	// transaction of its own.
	batch = 100
	// budget is how long one job ends runs; what it did not reach is due
	// in the next job.
	budget = 20 * time.Second
	// queue is the River queue of the job.
	queue = "funnel_runs"
)

// TimeOut ends every run whose expires_at passed by now, a batch at a time,
// until none is left or ctx ends, and says how many it ended. Runs another
// server (or a shopper's answer) holds are left to them.
func TimeOut(ctx context.Context, db *bun.DB, now time.Time) (int, error) {
	total := 0
	for ctx.Err() == nil {
		n, err := models.TimeOutRuns(ctx, db, now, batch)
		total += n
		if err != nil || n < batch {
			return total, err
		}
	}
	return total, ctx.Err()
}

// Work is the timeout as work of the events engine's River client: a
// queue of its own, one worker, and the job every RunEvery on the elected
// leader (and when a process becomes it). Two processes running it at
// once end each run once: models.TimeOutRuns takes each order with SKIP
// LOCKED and checks the run again under its lock.
func Work(db *bun.DB, now func() time.Time, log *slog.Logger) events.Work {
	return events.Periodic[TimeoutArgs](queue, RunEvery, budget+10*time.Second, true, func(ctx context.Context) error {
		ctx, cancel := context.WithTimeout(ctx, budget)
		defer cancel()
		n, err := TimeOut(ctx, db, now())
		if err != nil && ctx.Err() == nil {
			log.WarnContext(ctx, "funnel runs: timeout", "ended", n, "error", err)
			return err
		}
		if n > 0 {
			log.InfoContext(ctx, "funnel runs: timed out", "ended", n)
		}
		return nil
	})
}

// TimeoutArgs is the periodic job: it carries nothing, the runs due are
// read when it runs.
type TimeoutArgs struct{}

func (TimeoutArgs) Kind() string { return "funnel_run_timeouts" }

// InsertOpts: its own queue, and one attempt (the next run comes anyway).
func (TimeoutArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{Queue: queue, MaxAttempts: 1}
}
