package events

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/riverqueue/river"
	"github.com/uptrace/bun"

	"storeadmin/internal/base/metrics"
	"storeadmin/models"
)

// deliverArgs is the River job of one delivery: everything else is read
// when it runs, so a subscription changed or deleted meanwhile is honoured.
type deliverArgs struct {
	DeliveryID int64 `json:"delivery_id"`
}

func (deliverArgs) Kind() string { return "webhook_delivery" }

// worker sends deliveries, one attempt per River run.
type worker struct {
	river.WorkerDefaults[deliverArgs]
	db          *bun.DB
	sender      *sender
	gate        *gate
	backoff     func(attempt int) time.Duration
	timeout     time.Duration
	rescueAfter time.Duration
	pauseAfter  time.Duration
	log         *slog.Logger
	metrics     *metrics.Metrics
}

func newWorker(db *bun.DB, cfg Config) *worker {
	return &worker{db: db, sender: newSender(cfg), gate: newGate(cfg), backoff: cfg.Backoff,
		timeout: cfg.Timeout, rescueAfter: cfg.RescueAfter(), pauseAfter: cfg.PauseAfter, log: cfg.Log, metrics: cfg.Metrics}
}

// NextRetry schedules the attempt after a failed one. An attempt that began
// longer ago than the rescue delay did not fail: its process died during it
// and River's rescuer is handing it back. The subscriber is not to blame,
// and its delivery has waited long enough, so it goes again at once.
func (w *worker) NextRetry(job *river.Job[deliverArgs]) time.Time {
	if job.AttemptedAt != nil && time.Since(*job.AttemptedAt) >= w.rescueAfter {
		return time.Now()
	}
	return time.Now().Add(w.backoff(job.Attempt))
}

// Work makes one attempt of the delivery and records it. An error asks
// River for another attempt (NextRetry); nil or a cancel ends the job; a
// snooze (the subscription has its share of workers, see gate) runs it
// again later without spending an attempt.
func (w *worker) Work(ctx context.Context, job *river.Job[deliverArgs]) error {
	t, err := models.GetDeliveryTarget(ctx, w.db, job.Args.DeliveryID)
	if err != nil {
		return fmt.Errorf("read delivery %d: %w", job.Args.DeliveryID, err)
	}
	if t == nil || t.Status != models.DeliveryPending {
		return nil // deleted with its subscription, or settled (failed by a pause)
	}
	if !t.Active {
		w.metrics.WebhookDelivery(metrics.DeliverySkipped)
		return models.SkipDelivery(ctx, w.db, t.DeliveryID, offReason(t))
	}
	leave, ok := w.gate.enter(t.SubscriptionID, t.FailingSince != nil)
	if !ok {
		return river.JobSnooze(snoozeFor(job.Metadata, w.timeout))
	}
	defer leave()
	out := w.sender.send(ctx, t)
	if ctx.Err() != nil {
		// Cut short by a hard stop or River's job timeout, not by the
		// subscriber: leave the delivery as it was and try again later.
		return ctx.Err()
	}
	status, paused, err := models.RecordDeliveryAttempt(ctx, w.db, models.DeliveryAttempt{
		DeliveryID: t.DeliveryID, SubscriptionID: t.SubscriptionID,
		StatusCode: out.status, Error: out.err, Succeeded: out.ok(),
		Final: job.Attempt >= job.MaxAttempts, PauseAfter: w.pauseAfter,
	})
	if err != nil {
		return fmt.Errorf("record attempt %d of delivery %d: %w", job.Attempt, t.DeliveryID, err)
	}
	if paused != "" {
		w.log.Warn("webhook subscription paused", "store_id", t.StoreID, "subscription_id", t.SubscriptionID,
			"url", t.URL, "reason", paused, "last_error", out.err)
	}
	switch status {
	case models.DeliverySucceeded:
		w.metrics.WebhookDelivery(metrics.DeliverySucceeded)
		return nil
	case models.DeliveryFailed:
		w.metrics.WebhookDelivery(metrics.DeliveryFailed)
		return river.JobCancel(errors.New(out.err)) // settled: no retry
	}
	w.metrics.WebhookDelivery(metrics.DeliveryRetrying)
	return errors.New(out.err)
}

// offReason is last_error of a delivery not sent because its subscription
// is off.
func offReason(t *models.DeliveryTarget) string {
	if t.PausedAt != nil {
		return "not sent: the subscription is paused after failing deliveries; set active to true to resume"
	}
	return "not sent: the subscription is inactive"
}
