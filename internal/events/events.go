// Package events is the transactional outbox behind webhooks. A change
// records its event with Emit in its own transaction; Emit adds one pending
// delivery and one River job per subscription of the event's topic, so the
// change, its event and the promise to deliver it commit together or not at
// all. River workers (in this process or any other replica) then POST the
// signed event to each subscriber, retry failures with backoff, record every
// attempt on the delivery, and pause subscriptions that keep failing.
//
// River runs on riverdatabasesql over the *sql.DB inside bun, so its jobs
// are inserted in the caller's bun transaction. That driver has no
// LISTEN/NOTIFY: workers poll for due jobs every Config.FetchPollInterval.
//
// The engine's River client is the process's only one: other subsystems'
// background work (Config.Work: the custom domains' periodic DNS checks)
// runs on it, each in a queue of its own.
package events

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverdatabasesql"
	"github.com/riverqueue/river/rivertype"
	"github.com/uptrace/bun"

	"storeadmin/internal/base/metrics"
	"storeadmin/models"
)

// Event is a state change to tell subscribers about.
type Event struct {
	StoreID    int64
	Topic      string // one of models.WebhookTopics, e.g. "order.refunded"
	Resource   string // the kind of record that changed, e.g. "order"
	ResourceID int64
	// Data is the "data" of the body sent: the REST payload of the record,
	// e.g. {"order": {...}}.
	Data json.RawMessage
}

// Defaults of Config's zero fields.
const (
	DefaultPauseAfter        = 24 * time.Hour
	DefaultWorkers           = 10
	DefaultFetchPollInterval = time.Second
	DefaultTimeout           = 10 * time.Second
	DefaultMaxResponseBytes  = 64 << 10
	DefaultPerSubscription   = 2
)

// jobMargin is what a River job gets beyond its attempt's Timeout, for
// reading the delivery and recording the outcome; rescueMargin is how much
// longer than that a job must have been running before River's rescuer
// takes it for one whose process died. The rescue delay, Timeout + 10 s,
// is what bounds how soon an attempt cut short by a kill -9 goes again.
const (
	jobMargin    = 5 * time.Second
	rescueMargin = 5 * time.Second
)

// Config tunes the engine; every zero field takes its default.
type Config struct {
	// AllowPrivate lets deliveries reach loopback, private, link-local and
	// other non-public addresses (tests, local development). Otherwise such
	// addresses are refused when the connection is dialled, whatever the
	// URL's host name resolves to.
	AllowPrivate bool
	// MaxAttempts bounds the attempts of one delivery, the first included.
	// Default DefaultMaxAttempts.
	MaxAttempts int
	// Backoff is the wait after failed attempt n (1 for the first) before
	// the next one. Default DefaultBackoff. Waits up to 5 s make the job
	// available again at once (due after the wait); longer ones wait for
	// River's scheduler, which runs every 5 s on the elected leader.
	Backoff func(attempt int) time.Duration
	// PauseAfter pauses a subscription that has had no successful delivery
	// for this long since its first failure. Default DefaultPauseAfter.
	PauseAfter time.Duration
	// Workers is how many deliveries this process sends at once.
	// Default DefaultWorkers.
	Workers int
	// PerSubscription is how many attempts of one subscription this
	// process makes at once; a subscription in a failure streak gets one,
	// and all of those together at most half the workers. A delivery that
	// finds its subscription's share taken waits without holding a worker
	// (River snoozes it), so a subscriber that hangs cannot starve the
	// others. Default DefaultPerSubscription.
	PerSubscription int
	// FetchPollInterval is how often idle workers look for due deliveries.
	// Default DefaultFetchPollInterval; tests use a few tens of
	// milliseconds.
	FetchPollInterval time.Duration
	// Timeout bounds one attempt: connecting, sending, and reading the
	// answer. Default DefaultTimeout. It also sets how long an attempt may
	// run before River counts it interrupted (its process died) and sends
	// it again: RescueAfter.
	Timeout time.Duration
	// MaxResponseBytes is how much of a subscriber's answer is read; the
	// rest is never read. Default DefaultMaxResponseBytes.
	MaxResponseBytes int64
	// Log receives paused subscriptions and River's own messages; River
	// logs an ERROR per poll while the database is out, so serve gives it
	// the log behind database.QuietOutages. Default: discarded.
	Log *slog.Logger
	// Metrics counts delivery attempts by outcome and job runs by outcome
	// (QueueDepth is registered by the caller). Default: nothing counted.
	Metrics *metrics.Metrics
	// Work is the background work of other subsystems (custom domains'
	// DNS checks) that runs on this engine's River client beside the
	// deliveries: a process has one River client, so one leader election,
	// one set of maintenance services and one poller per queue.
	Work []Work
}

// Work is another subsystem's background work on the engine's River
// client: its own queue and workers, and its periodic jobs, which River
// inserts on the elected leader.
type Work struct {
	// Queue is the River queue of its jobs; every job it inserts (its
	// periodic jobs' included) must name it in its InsertOpts.
	Queue string
	// Workers is how many of its jobs this process runs at once.
	Workers int
	// Timeout is the longest one of its jobs runs (its workers' Timeout):
	// River's rescuer, which serves every queue, waits that long and a
	// margin before it takes a running job for one whose process died.
	Timeout time.Duration
	// Add registers its workers (river.AddWorkerSafely).
	Add func(*river.Workers) error
	// Periodic are its periodic jobs.
	Periodic []*river.PeriodicJob
}

// jobTimeout is how long River lets one attempt's job run: the attempt's
// Timeout and a margin to read the delivery and record the outcome.
func (c Config) jobTimeout() time.Duration {
	return c.withDefaults().Timeout + jobMargin
}

// RescueAfter is how long a job may have been running before River's
// rescuer (on the elected leader, every 30 s) hands it back for another
// attempt: longer than any live attempt runs, so only one whose process
// died (kill -9, a lost machine) is taken. Work whose jobs run longer than
// a delivery's lengthens it for every queue (the rescuer is River's, one
// per client).
func (c Config) RescueAfter() time.Duration {
	longest := c.jobTimeout()
	for _, w := range c.Work {
		longest = max(longest, w.Timeout)
	}
	return longest + rescueMargin
}

func (c Config) withDefaults() Config {
	c.MaxAttempts = orDefault(c.MaxAttempts, DefaultMaxAttempts)
	if c.Backoff == nil {
		c.Backoff = DefaultBackoff
	}
	c.PauseAfter = orDefault(c.PauseAfter, DefaultPauseAfter)
	c.Workers = orDefault(c.Workers, DefaultWorkers)
	c.PerSubscription = orDefault(c.PerSubscription, DefaultPerSubscription)
	c.FetchPollInterval = orDefault(c.FetchPollInterval, DefaultFetchPollInterval)
	c.Timeout = orDefault(c.Timeout, DefaultTimeout)
	c.MaxResponseBytes = orDefault(c.MaxResponseBytes, DefaultMaxResponseBytes)
	if c.Log == nil {
		c.Log = slog.New(slog.DiscardHandler)
	}
	return c
}

func orDefault[T int | int64 | time.Duration](v, def T) T {
	if v <= 0 {
		return def
	}
	return v
}

// queue is the River queue of webhook deliveries.
const queue = "webhooks"

// Engine records events and delivers them.
type Engine struct {
	db     *bun.DB
	cfg    Config
	client *river.Client[*sql.Tx]
}

// New builds an engine on db. Emit works at once; deliveries are sent by
// the engines that are started, in this process or another.
func New(db *bun.DB, cfg Config) (*Engine, error) {
	cfg = cfg.withDefaults()
	workers := river.NewWorkers()
	if err := river.AddWorkerSafely(workers, newWorker(db, cfg)); err != nil {
		return nil, fmt.Errorf("events: %w", err)
	}
	queues := map[string]river.QueueConfig{queue: {MaxWorkers: cfg.Workers}}
	var periodic []*river.PeriodicJob
	for _, w := range cfg.Work {
		if _, taken := queues[w.Queue]; taken || w.Workers <= 0 || w.Add == nil {
			return nil, fmt.Errorf("events: work on queue %q needs a queue of its own, workers and their registration", w.Queue)
		}
		queues[w.Queue] = river.QueueConfig{MaxWorkers: w.Workers}
		if err := w.Add(workers); err != nil {
			return nil, fmt.Errorf("events: work on queue %q: %w", w.Queue, err)
		}
		periodic = append(periodic, w.Periodic...)
	}
	client, err := river.NewClient(riverdatabasesql.New(db.DB), &river.Config{
		Logger:            cfg.Log,
		Workers:           workers,
		Queues:            queues,
		PeriodicJobs:      periodic,
		FetchPollInterval: cfg.FetchPollInterval,
		FetchCooldown:     min(cfg.FetchPollInterval, river.FetchCooldownDefault),
		MaxAttempts:       cfg.MaxAttempts,
		JobTimeout:        cfg.jobTimeout(),
		// River's default, an hour past the job timeout, left the
		// deliveries of a killed process pending for an hour. A job of
		// other Work sets its own timeout (its worker's Timeout).
		RescueStuckJobsAfter: cfg.RescueAfter(),
		Hooks:                []rivertype.Hook{jobOutcomes{cfg.Metrics}},
	})
	if err != nil {
		return nil, fmt.Errorf("events: %w", err)
	}
	return &Engine{db: db, cfg: cfg, client: client}, nil
}

// Emit records the event and schedules one delivery per active subscription
// of ev.StoreID whose topics include ev.Topic, all inside tx (the caller's
// transaction), so the change and its event commit together or not at all.
// It returns the event id.
func (e *Engine) Emit(ctx context.Context, tx bun.Tx, ev Event) (int64, error) {
	if err := ev.check(); err != nil {
		return 0, err
	}
	if tx.Tx == nil {
		return 0, errors.New("events: Emit needs the transaction of the change")
	}
	row := &models.Event{StoreID: ev.StoreID, Topic: ev.Topic, Resource: ev.Resource, ResourceID: ev.ResourceID}
	if err := models.InsertEvent(ctx, tx, row, ev.Data); err != nil {
		return 0, fmt.Errorf("record event %s: %w", ev.Topic, err)
	}
	ids, err := models.CreateDeliveries(ctx, tx, row)
	if err != nil {
		return 0, fmt.Errorf("schedule deliveries of event %d: %w", row.ID, err)
	}
	if len(ids) == 0 {
		return row.ID, nil
	}
	jobs := make([]river.InsertManyParams, len(ids))
	for i, id := range ids {
		jobs[i] = river.InsertManyParams{Args: deliverArgs{DeliveryID: id},
			InsertOpts: &river.InsertOpts{Queue: queue, MaxAttempts: e.cfg.MaxAttempts}}
	}
	if _, err := e.client.InsertManyTx(ctx, tx.Tx, jobs); err != nil {
		return 0, fmt.Errorf("queue deliveries of event %d: %w", row.ID, err)
	}
	return row.ID, nil
}

// check refuses an event the code should never emit.
func (ev Event) check() error {
	switch {
	case ev.StoreID <= 0:
		return errors.New("events: an event needs its store")
	case !slices.Contains(models.WebhookTopics, ev.Topic):
		return fmt.Errorf("events: %q is not a webhook topic", ev.Topic)
	case ev.Resource == "" || ev.ResourceID <= 0:
		return fmt.Errorf("events: event %s names no resource", ev.Topic)
	case !json.Valid(ev.Data):
		return fmt.Errorf("events: the data of event %s is not JSON", ev.Topic)
	}
	return nil
}

// Start starts this engine's workers. They run until Stop; cancelling ctx
// does not stop them, so that a shutdown can let deliveries in flight
// finish.
func (e *Engine) Start(ctx context.Context) error {
	if err := e.client.Start(context.WithoutCancel(ctx)); err != nil {
		return fmt.Errorf("events: start workers: %w", err)
	}
	return nil
}

// hardStopGrace is how long Stop waits for cancelled attempts to wind up.
const hardStopGrace = 5 * time.Second

// Stop stops fetching deliveries and waits, until ctx is done, for the ones
// in flight. Those still running then are cancelled: each is retried later,
// by whichever engine runs next. Stopping an engine never started does
// nothing.
func (e *Engine) Stop(ctx context.Context) error {
	err := e.client.Stop(ctx)
	if err == nil || ctx.Err() == nil {
		return err
	}
	hard, cancel := context.WithTimeout(context.WithoutCancel(ctx), hardStopGrace)
	defer cancel()
	return e.client.StopAndCancel(hard)
}

// QueueDepth counts the jobs available (due, waiting for a worker) and
// running in each of River's queues, for the metrics. The partial index River
// fetches with (state, queue, ... WHERE finalized_at IS NULL) answers it
// without reading finished jobs, however many are kept.
func (e *Engine) QueueDepth(ctx context.Context) ([]metrics.QueueCount, error) {
	var out []metrics.QueueCount
	rows, err := e.db.QueryContext(ctx, `SELECT queue, state::text, count(*) FROM river_job
		WHERE state IN ('available', 'running') GROUP BY queue, state ORDER BY queue, state`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var q metrics.QueueCount
		if err := rows.Scan(&q.Queue, &q.State, &q.Jobs); err != nil {
			return nil, err
		}
		out = append(out, q)
	}
	return out, rows.Err()
}

// jobOutcomes is a River hook that counts each job run by what River will
// do with it.
type jobOutcomes struct{ m *metrics.Metrics }

func (jobOutcomes) IsHook() bool { return true }

func (h jobOutcomes) WorkEnd(_ context.Context, job *rivertype.JobRow, err error) error {
	h.m.Job(job.Queue, job.Kind, jobOutcome(job, err))
	return err
}

// jobOutcome names what River does with a job run that returned err.
func jobOutcome(job *rivertype.JobRow, err error) string {
	var cancelled *rivertype.JobCancelError
	var snoozed *rivertype.JobSnoozeError
	switch {
	case err == nil:
		return "completed"
	case errors.As(err, &cancelled):
		return "cancelled"
	case errors.As(err, &snoozed):
		return "snoozed"
	case job.Attempt >= job.MaxAttempts:
		return "discarded"
	}
	return "retryable"
}
