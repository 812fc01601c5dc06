package events

import (
	"context"
	"time"

	"github.com/riverqueue/river"
)

// PeriodicArgs is the job of a periodic task: it carries nothing (what is
// due is read when it runs), names its kind, and inserts itself on the
// task's queue with one attempt (the next run comes anyway).
type PeriodicArgs interface {
	river.JobArgs
	river.JobArgsWithInsertOpts
}

// Periodic is the Work of one periodic task of another subsystem: its
// queue, one worker, and a job of kind A every interval (the first one
// interval after a process becomes River's leader, or at once with
// runOnStart) that calls run, for at most timeout. An interval of 0
// schedules nothing; the worker is still there for a job already queued.
func Periodic[A PeriodicArgs](queue string, every, timeout time.Duration, runOnStart bool, run func(ctx context.Context) error) Work {
	w := Work{Queue: queue, Workers: 1, Timeout: timeout,
		Add: func(ws *river.Workers) error {
			return river.AddWorkerSafely(ws, &periodicWorker[A]{timeout: timeout, run: run})
		}}
	if every > 0 {
		var args A
		w.Periodic = []*river.PeriodicJob{river.NewPeriodicJob(river.PeriodicInterval(every),
			func() (river.JobArgs, *river.InsertOpts) { return args, nil },
			&river.PeriodicJobOpts{ID: args.Kind(), RunOnStart: runOnStart})}
	}
	return w
}

type periodicWorker[A PeriodicArgs] struct {
	river.WorkerDefaults[A]
	timeout time.Duration
	run     func(ctx context.Context) error
}

func (w *periodicWorker[A]) Timeout(*river.Job[A]) time.Duration { return w.timeout }

func (w *periodicWorker[A]) Work(ctx context.Context, _ *river.Job[A]) error { return w.run(ctx) }
