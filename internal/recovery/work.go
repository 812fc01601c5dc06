package recovery

import (
	"context"
	"time"

	"github.com/riverqueue/river"
	"github.com/uptrace/bun"

	"storeadmin/internal/events"
)

const (
	// RunEvery is how often the elected leader looks for due reminders:
	// a reminder goes out at most this long after its time.
	RunEvery = time.Minute
	// queue is the River queue of the periodic run.
	queue = "recovery"
	// runBudget is how long a run starts reminders; what it did not reach
	// is due in the next run. Short, since the job's timeout (the budget
	// and one message's) sets how soon River's rescuer, which serves every
	// queue, takes back the jobs of a process that died, webhook
	// deliveries' included.
	runBudget = 5 * time.Second
)

// runArgs is the periodic job: it carries nothing, the due reminders are
// read when it runs.
type runArgs struct{}

func (runArgs) Kind() string { return "recovery_reminders" }

// InsertOpts: its own queue, and one attempt (the next run comes anyway).
func (runArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{Queue: queue, MaxAttempts: 1}
}

func (s *Service) jobTimeout() time.Duration {
	return runBudget + s.cfg.Mailer.Timeout() + 5*time.Second
}

// Work is the reminder sequence as work of the events engine's River
// client: a queue of its own, one worker, a run every RunEvery on the
// elected leader. One run at a time in the whole deployment, and each
// reminder's row lock and unique step, make every step go out once.
func (s *Service) Work(db *bun.DB, now func() time.Time) events.Work {
	return events.Periodic[runArgs](queue, RunEvery, s.jobTimeout(), false, func(ctx context.Context) error {
		n, err := s.runDue(ctx, db, 0, now(), time.Now().Add(runBudget))
		if err != nil {
			s.cfg.Log.WarnContext(ctx, "recovery: reminders", "recorded", n, "error", err)
		}
		return err
	})
}
