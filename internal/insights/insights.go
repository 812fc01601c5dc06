// Package insights runs the daily insights job: a periodic River job (work
// of the events engine's client) that finds the stores whose local
// yesterday has no insights yet and runs internal/analytics' finders for
// it (analytics.ComputeInsights), store by store. The CLI (storeadmin
// insights run) and the seed run the same function for one store.
package insights

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/riverqueue/river"
	"github.com/uptrace/bun"

	"storeadmin/internal/analytics"
	"storeadmin/internal/events"
)

const (
	// Every is how often the elected leader looks for stores due: a store
	// gets its day's insights within Every of its local midnight.
	Every = time.Hour
	// storesPerRead is how many stores the job reads at a time.
	storesPerRead = 500
	// runBudget is how long a run starts stores; those it did not reach
	// are still due at the next run.
	runBudget = 10 * time.Minute
	// jobTimeout bounds a run: its budget and the last store's finders.
	jobTimeout = runBudget + 5*time.Minute
	// queue is the River queue of the job.
	queue = "insights"
)

// Computed counts what a run did.
type Computed struct {
	Stores, Findings int
}

// Run computes, as of now, the insights of every store due (its local
// yesterday not computed yet), for runBudget. A store whose finders fail
// is skipped (it stays due) after the others had their turn, and the
// first failure is returned.
func Run(ctx context.Context, db bun.IDB, now time.Time) (Computed, error) {
	var (
		total Computed
		first error
		after int64
	)
	deadline := time.Now().Add(runBudget)
	for {
		stores, err := analytics.StoresDueForInsights(ctx, db, now, after, storesPerRead)
		if err != nil {
			return total, err
		}
		for _, sid := range stores {
			if !time.Now().Before(deadline) {
				return total, first
			}
			run, err := analytics.ComputeInsights(ctx, db, sid, now)
			if err != nil {
				if first == nil {
					first = fmt.Errorf("store %d: %w", sid, err)
				}
			} else {
				total.Stores++
				total.Findings += run.Findings
			}
			if ctx.Err() != nil {
				return total, ctx.Err()
			}
		}
		if len(stores) < storesPerRead {
			return total, first
		}
		after = stores[len(stores)-1]
	}
}

// Work is the job as work of the events engine: a queue of its own, one
// worker, and a run every Every and when a process becomes River's leader
// (a day missed while no process ran is computed at once).
func Work(db bun.IDB, now func() time.Time, log *slog.Logger) events.Work {
	return events.Periodic[ComputeArgs](queue, Every, jobTimeout, true, func(ctx context.Context) error {
		n, err := Run(ctx, db, now())
		if err != nil {
			log.WarnContext(ctx, "insights: daily run", "stores", n.Stores, "findings", n.Findings, "error", err)
			return err
		}
		if n.Stores > 0 {
			log.InfoContext(ctx, "insights: computed", "stores", n.Stores, "findings", n.Findings)
		}
		return nil
	})
}

// ComputeArgs is the periodic job: it carries nothing, what is due is read
// when it runs.
type ComputeArgs struct{}

func (ComputeArgs) Kind() string { return "insights_compute" }

// InsertOpts: its own queue, and one attempt (the next run comes anyway).
func (ComputeArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{Queue: queue, MaxAttempts: 1}
}
