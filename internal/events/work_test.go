package events_test

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/riverqueue/river"

	"storeadmin/internal/events"
)

// tickArgs is the job of a test's Work.
type tickArgs struct{}

func (tickArgs) Kind() string { return "test_tick" }

func (tickArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{Queue: "ticks", MaxAttempts: 1}
}

type tickWorker struct {
	river.WorkerDefaults[tickArgs]
	runs *atomic.Int64
}

func (w *tickWorker) Work(context.Context, *river.Job[tickArgs]) error {
	w.runs.Add(1)
	return nil
}

// TestWorkRunsBesideDeliveries: another subsystem's Work runs on the
// engine's River client, in its own queue, its periodic job inserted by the
// leader; its longer jobs lengthen the rescue delay; a Work without a queue
// of its own is refused.
func TestWorkRunsBesideDeliveries(t *testing.T) {
	f := newFixture(t)
	var runs atomic.Int64
	work := events.Work{
		Queue:   "ticks",
		Workers: 1,
		Timeout: time.Minute,
		Add:     func(w *river.Workers) error { return river.AddWorkerSafely(w, &tickWorker{runs: &runs}) },
		Periodic: []*river.PeriodicJob{river.NewPeriodicJob(river.PeriodicInterval(time.Hour),
			func() (river.JobArgs, *river.InsertOpts) { return tickArgs{}, nil }, &river.PeriodicJobOpts{RunOnStart: true})},
	}
	cfg := fast()
	cfg.Work = []events.Work{work}
	if got := cfg.RescueAfter(); got != time.Minute+5*time.Second {
		t.Fatalf("rescue after %s with a one-minute job", got)
	}
	f.started(cfg)
	waitFor(t, "the periodic job to run in its queue", func() bool {
		return f.count(`SELECT count(*) FROM river_job WHERE kind = 'test_tick' AND queue = 'ticks' AND state = 'completed'`) == 1
	})
	if n := runs.Load(); n != 1 {
		t.Fatalf("the periodic job ran %d times", n)
	}

	// Work needs a queue of its own, workers and their registration.
	for name, w := range map[string]events.Work{
		"the webhooks' queue": {Queue: "webhooks", Workers: 1, Add: work.Add},
		"no workers":          {Queue: "other", Add: work.Add},
		"no registration":     {Queue: "other", Workers: 1},
	} {
		bad := fast()
		bad.Work = []events.Work{w}
		if _, err := events.New(f.db, bad); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}
