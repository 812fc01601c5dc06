// Package abandonment flags the storefront's carts and checkouts that their
// shoppers left: a periodic River job (work of the events engine's client)
// that, store by store, marks abandoned those idle for longer than the
// store's recovery policy says (models.GetRecoveryPolicy, per surface) and
// emits cart.abandoned or checkout.abandoned for each, once.
//
// What counts (README "Abandoned carts and checkouts"): a cart with lines
// and an email that no checkout was started from (once a checkout exists,
// the checkout is what is abandoned, as Shopify does), and an open checkout
// (not completed, not expired) with lines and an email. A policy whose mode
// is off still flags: the mode stops reminders, not the record. The flag
// is set once and kept: a shopper who comes back and edits leaves the cart
// abandoned (its updated_at and activity show the return) until an order
// recovers it, so the event is never sent twice for one cart.
package abandonment

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"time"

	"github.com/riverqueue/river"
	"github.com/uptrace/bun"

	"storeadmin/internal/events"
	"storeadmin/models"
)

const (
	// Every is how often the elected leader runs the job.
	Every = time.Minute
	// minIdle is the least idle time any policy sets (a whole minute): the
	// job visits only stores with carts or checkouts idle that long.
	minIdle = time.Minute
	// batch is how many carts (or checkouts) one transaction flags.
	batch = 200
	// storesPerRead is how many stores the job reads at a time.
	storesPerRead = 500
	// runBudget is how long a run starts stores; the stores it did not
	// reach wait for the next run.
	runBudget = 30 * time.Second
	// jobTimeout bounds a run: its budget and the last store's batches.
	jobTimeout = runBudget + time.Minute
	// queue is the River queue of the job.
	queue = "abandonment"
)

// Emitter records an event in the transaction of the change it announces
// (*events.Engine).
type Emitter interface {
	Emit(ctx context.Context, tx bun.Tx, ev events.Event) (int64, error)
}

// Flagged counts what a run flagged.
type Flagged struct {
	Carts, Checkouts int
}

func (f *Flagged) add(o Flagged) { f.Carts += o.Carts; f.Checkouts += o.Checkouts }

// Run flags, as of now, what every store's policy says is abandoned and
// emits its events through ev (nil: none, as the seed runs it). It starts
// stores for runBudget; a store whose flagging fails is logged by the
// caller through the error, after the other stores had their turn.
func Run(ctx context.Context, db bun.IDB, ev Emitter, now time.Time) (Flagged, error) {
	var (
		total Flagged
		first error
		after int64
	)
	deadline := time.Now().Add(runBudget)
	for {
		stores, err := models.StoresWithIdleCarts(ctx, db, now.Add(-minIdle), after, storesPerRead)
		if err != nil {
			return total, err
		}
		for _, sid := range stores {
			if !time.Now().Before(deadline) {
				return total, first
			}
			n, err := Store(ctx, db, ev, sid, now)
			total.add(n)
			if err != nil && first == nil {
				first = fmt.Errorf("store %d: %w", sid, err)
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

// Store flags, as of now, the carts and checkouts of one store that its
// policy says are abandoned, a batch per transaction with its events.
func Store(ctx context.Context, db bun.IDB, ev Emitter, storeID int64, now time.Time) (Flagged, error) {
	var out Flagged
	policy, err := models.GetRecoveryPolicy(ctx, db, storeID)
	if err != nil {
		return out, err
	}
	def := models.DefaultRecoveryPolicy()
	cartsIdle := idleSince(now, policy.Cart, def.Cart)
	checkoutsIdle := idleSince(now, policy.Checkout, def.Checkout)
	for {
		var n int
		err := db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
			flagged, err := models.FlagAbandonedCarts(ctx, tx, storeID, cartsIdle, now, batch)
			if err != nil || len(flagged) == 0 {
				return err
			}
			n = len(flagged)
			rows, err := models.AbandonedCartsByID(ctx, tx, storeID, ids(flagged))
			if err != nil {
				return err
			}
			for i := range rows {
				if err := emit(ctx, tx, ev, storeID, "cart.abandoned", "cart", rows[i].ID, &rows[i]); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			return out, err
		}
		out.Carts += n
		if n < batch {
			break
		}
	}
	for {
		var n int
		err := db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
			flagged, err := models.FlagAbandonedCheckouts(ctx, tx, storeID, checkoutsIdle, now, batch)
			if err != nil || len(flagged) == 0 {
				return err
			}
			n = len(flagged)
			rows, err := models.AbandonedCheckoutsByID(ctx, tx, storeID, ids(flagged))
			if err != nil {
				return err
			}
			for i := range rows {
				if err := emit(ctx, tx, ev, storeID, "checkout.abandoned", "checkout", rows[i].ID, &rows[i]); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			return out, err
		}
		out.Checkouts += n
		if n < batch {
			break
		}
	}
	return out, nil
}

// idleSince is when a record of surface s must have last changed by to be
// abandoned at now: the policy's idle minutes, or the default's when the
// policy holds none.
func idleSince(now time.Time, s, def models.RecoverySurface) time.Time {
	minutes := s.IdleMinutes
	if minutes <= 0 {
		minutes = def.IdleMinutes
	}
	return now.Add(-time.Duration(minutes) * time.Minute)
}

func ids(flagged []models.Flagged) []int64 {
	out := make([]int64, len(flagged))
	for i, f := range flagged {
		out[i] = f.ID
	}
	return out
}

// emit records topic for the record inside tx, its data {resource: row}
// with the record as a row of its list (GET /store/abandoned-carts,
// /store/abandoned-checkouts) shows it, as order events carry {"order": ...}.
func emit(ctx context.Context, tx bun.Tx, ev Emitter, storeID int64, topic, resource string, id int64, row any) error {
	if ev == nil {
		return nil
	}
	data, err := json.Marshal(map[string]any{resource: row})
	if err != nil {
		return err
	}
	_, err = ev.Emit(ctx, tx, events.Event{StoreID: storeID, Topic: topic, Resource: resource, ResourceID: id, Data: data})
	return err
}

// Job is the periodic flagging as work of the events engine's River
// client. The engine is built with the job's Work and the job emits
// through the engine, so serve sets Events once the engine exists (before
// starting it).
type Job struct {
	DB     bun.IDB
	Events Emitter
	Log    *slog.Logger
	Now    func() time.Time
}

// flagArgs is the periodic job: it carries nothing, what is due is read
// when it runs.
type flagArgs struct{}

func (flagArgs) Kind() string { return "abandonment_flag" }

// InsertOpts: its own queue, and one attempt (the next run comes anyway).
func (flagArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{Queue: queue, MaxAttempts: 1}
}

// Work is the job as work of the events engine: a queue of its own, one
// worker, and a run every Every (the first one interval after a process
// becomes River's leader).
func (j *Job) Work() events.Work {
	return events.Periodic[flagArgs](queue, Every, jobTimeout, false, j.run)
}

// run is one periodic run: Run with the job's clock, emitting through its
// engine (set after Work, as serve does).
func (j *Job) run(ctx context.Context) error {
	n, err := Run(ctx, j.DB, j.Events, j.Now())
	if err != nil && j.Log != nil {
		j.Log.WarnContext(ctx, "abandonment: periodic flagging", "carts", n.Carts, "checkouts", n.Checkouts, "error", err)
	}
	return err
}
