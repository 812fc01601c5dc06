package domains

import (
	"context"
	"sync"
	"time"

	"github.com/riverqueue/river"
	"github.com/uptrace/bun"

	"storeadmin/internal/base/apperr"
	"storeadmin/internal/events"
	"storeadmin/models"
)

// The periodic check.
const (
	// RecheckEvery is how often the elected leader rechecks the pending and
	// active domains of every store, each at most once a run: those not
	// checked in the last RecheckEvery/2 (a domain verified by hand just
	// before waits for the next run), oldest check first.
	RecheckEvery = 10 * time.Minute
	// recheckBudget is how long a run starts checks; what it did not reach
	// goes first in the next run. Each check takes at most Timeout.
	recheckBudget = 5 * time.Second
	// recheckAtOnce is how many checks a run makes at once.
	recheckAtOnce = 8
	// recheckBatch is how many due domains a run reads at a time.
	recheckBatch = 100
	// queue is the River queue of the periodic check.
	queue = "domains"
)

// Verify checks the domain id of the store now and stores what it found
// (models.RecordDomainCheck), returning the domain. The look-ups run
// outside any transaction; only the short write that records them is one.
func (s *Service) Verify(ctx context.Context, db bun.IDB, storeID, id int64, now func() time.Time) (*models.Domain, error) {
	d, err := models.GetDomain(ctx, db, storeID, id)
	if err != nil {
		return nil, err
	}
	c := s.Check(ctx, d.Hostname, d.VerificationToken)
	if err := ctx.Err(); err != nil {
		return nil, err // cut short by the caller, not by the resolver
	}
	err = db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		d, err = models.RecordDomainCheck(ctx, tx, storeID, id, c, now())
		return err
	})
	return d, err
}

// Recheck is the periodic job's work: it checks the due domains of every
// store (see RecheckEvery), recheckAtOnce at a time, starting checks for
// recheckBudget, and returns how many it checked. A domain deleted
// meanwhile is skipped; a check the job's end cut short is not recorded.
func (s *Service) Recheck(ctx context.Context, db bun.IDB, now func() time.Time) (int, error) {
	start := now()
	deadline := time.Now().Add(recheckBudget)
	before := start.Add(-RecheckEvery / 2)
	checked := 0
	for time.Now().Before(deadline) {
		due, err := models.DueDomains(ctx, db, before, recheckBatch)
		if err != nil || len(due) == 0 {
			return checked, err
		}
		var (
			wg    sync.WaitGroup
			mu    sync.Mutex
			first error
		)
		slots := make(chan struct{}, recheckAtOnce)
		for _, d := range due {
			if !time.Now().Before(deadline) || ctx.Err() != nil {
				break
			}
			slots <- struct{}{}
			wg.Go(func() {
				defer func() { <-slots }()
				_, err := s.Verify(ctx, db, d.StoreID, d.ID, now)
				mu.Lock()
				defer mu.Unlock()
				switch {
				case err == nil:
					checked++
				case apperr.CodeOf(err) == apperr.NotFound: // deleted meanwhile
				case first == nil:
					first = err
				}
			})
		}
		wg.Wait()
		if first != nil {
			return checked, first
		}
		if len(due) < recheckBatch {
			return checked, nil
		}
	}
	return checked, nil
}

// recheckArgs is the periodic job: it carries nothing, the due domains are
// read when it runs.
type recheckArgs struct{}

func (recheckArgs) Kind() string { return "domain_recheck" }

// InsertOpts: its own queue, and one attempt (the next run comes anyway).
func (recheckArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{Queue: queue, MaxAttempts: 1}
}

func (s *Service) jobTimeout() time.Duration { return recheckBudget + s.cfg.Timeout + 5*time.Second }

// Work is the periodic check as work of the events engine's River client:
// a queue of its own, one worker, and the job every RecheckEvery (the
// first one interval after a process becomes River's leader).
func (s *Service) Work(db bun.IDB, now func() time.Time) events.Work {
	return events.Periodic[recheckArgs](queue, RecheckEvery, s.jobTimeout(), false, func(ctx context.Context) error {
		n, err := s.Recheck(ctx, db, now)
		if err != nil {
			s.cfg.Log.WarnContext(ctx, "domains: periodic check", "checked", n, "error", err)
		}
		return err
	})
}
