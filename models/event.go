package models

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/uptrace/bun"
)

// Event is a state change subscribers hear about: one row per change, with
// the body every subscription of its topic is sent.
type Event struct {
	bun.BaseModel `bun:"table:events"`

	ID         int64           `bun:"id,pk,autoincrement" json:"id"`
	StoreID    int64           `bun:"store_id" json:"store_id"`
	Topic      string          `bun:"topic" json:"topic"`
	Resource   string          `bun:"resource" json:"resource"`
	ResourceID int64           `bun:"resource_id" json:"resource_id"`
	Payload    json.RawMessage `bun:"payload,type:jsonb" json:"payload"`
	CreatedAt  time.Time       `bun:"created_at,nullzero,default:now()" json:"created_at"`
}

// InsertEvent records ev (StoreID, Topic, Resource, ResourceID) with the
// body subscribers receive: {"id", "topic", "created_at", "store_id",
// "data"}. The body names the event's own id, so the id is drawn first, in
// the same statement. created_at is the transaction's time, like every other
// row the change writes. ev is filled with what was stored.
func InsertEvent(ctx context.Context, db bun.IDB, ev *Event, data json.RawMessage) error {
	// data goes in as text: bun would send a []byte as bytea.
	return db.NewRaw(`
		INSERT INTO events (id, store_id, topic, resource, resource_id, created_at, payload)
		SELECT n.id, ?0, ?1, ?2, ?3, now(), jsonb_build_object(
			'id', n.id,
			'topic', ?1::text,
			'created_at', to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"'),
			'store_id', ?0::bigint,
			'data', ?4::jsonb)
		FROM (SELECT nextval(pg_get_serial_sequence('events', 'id')) AS id) n
		RETURNING *`,
		ev.StoreID, ev.Topic, ev.Resource, ev.ResourceID, string(data)).Scan(ctx, ev)
}

// CreateDeliveries adds one pending delivery of ev for every active
// subscription of its store whose topics include ev's, and returns their
// ids.
func CreateDeliveries(ctx context.Context, db bun.IDB, ev *Event) ([]int64, error) {
	var ids []int64
	err := db.NewRaw(`
		INSERT INTO webhook_deliveries (store_id, subscription_id, event_id, topic)
		SELECT store_id, id, ?0, ?1 FROM webhook_subscriptions
		WHERE store_id = ?2 AND active AND ?1 = ANY (topics) ORDER BY id
		RETURNING id`, ev.ID, ev.Topic, ev.StoreID).Scan(ctx, &ids)
	return ids, err
}

// DeliveryTarget is what sending one delivery takes, read when it is sent:
// the subscription as it is now (URL, secret, whether it is on) and the
// event's stored body.
type DeliveryTarget struct {
	DeliveryID     int64      `bun:"delivery_id"`
	StoreID        int64      `bun:"store_id"`
	SubscriptionID int64      `bun:"subscription_id"`
	EventID        int64      `bun:"event_id"`
	Topic          string     `bun:"topic"`
	Status         string     `bun:"status"`
	URL            string     `bun:"url"`
	Secret         string     `bun:"secret"`
	Active         bool       `bun:"active"`
	PausedAt       *time.Time `bun:"paused_at"`
	// FailingSince is set while the subscription's last attempt failed.
	FailingSince *time.Time `bun:"failing_since"`
	// Body is the event's payload as PostgreSQL prints it: the same bytes
	// on every read.
	Body string `bun:"body"`
}

// GetDeliveryTarget reads delivery id with its subscription and event; nil
// when the delivery is gone (its subscription or event was deleted).
func GetDeliveryTarget(ctx context.Context, db bun.IDB, id int64) (*DeliveryTarget, error) {
	t := new(DeliveryTarget)
	err := db.NewRaw(`
		SELECT d.id AS delivery_id, d.store_id, d.subscription_id, d.event_id, d.topic, d.status,
		       s.url, s.secret, s.active, s.paused_at, s.failing_since, e.payload::text AS body
		FROM webhook_deliveries d
		JOIN webhook_subscriptions s ON s.id = d.subscription_id
		JOIN events e ON e.id = d.event_id
		WHERE d.id = ?`, id).Scan(ctx, t)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	return t, err
}

// SkipDelivery fails a pending delivery that was not sent, saying why in
// last_error; its attempts stay as they were.
func SkipDelivery(ctx context.Context, db bun.IDB, id int64, reason string) error {
	_, err := db.NewUpdate().Model((*WebhookDelivery)(nil)).
		Set("status = ?, last_error = ?, updated_at = now()", DeliveryFailed, reason).
		Where("id = ? AND status = ?", id, DeliveryPending).Exec(ctx)
	return err
}

// DeliveryAttempt is the outcome of one POST of a delivery.
type DeliveryAttempt struct {
	DeliveryID     int64
	SubscriptionID int64
	// StatusCode is the subscriber's HTTP status, 0 when there was no
	// response.
	StatusCode int
	// Error is "" on success, otherwise a short sentence for a person.
	Error     string
	Succeeded bool
	// Final is set on the last attempt a failed delivery gets.
	Final bool
	// PauseAfter is how long a subscription may fail without a single
	// success before it is paused.
	PauseAfter time.Duration
}

// RecordDeliveryAttempt writes attempt on its delivery (attempts + 1, status
// code, error, status) and on the subscription's failure streak, and pauses
// the subscription when the attempt was a delivery's last or its streak has
// lasted PauseAfter. It returns the delivery's status now (failed once no
// attempt is left, or none would be made: the subscription is off) and why
// the subscription was paused, or "".
//
// The subscription row is written (and so locked) before the delivery, the
// order the pause takes too, so two deliveries of one subscription recorded
// at once cannot deadlock.
func RecordDeliveryAttempt(ctx context.Context, db bun.IDB, a DeliveryAttempt) (status, paused string, err error) {
	err = db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		if a.Succeeded {
			status = DeliverySucceeded
			if err := endFailureStreak(ctx, tx, a.SubscriptionID); err != nil {
				return err
			}
			return writeAttempt(ctx, tx, a, status)
		}
		active, streak, err := extendFailureStreak(ctx, tx, a.SubscriptionID)
		if err != nil {
			return err
		}
		paused = pauseReason(active, streak, a)
		status = DeliveryPending
		if a.Final || !active || paused != "" {
			status = DeliveryFailed
		}
		if err := writeAttempt(ctx, tx, a, status); err != nil {
			return err
		}
		if paused == "" {
			return nil
		}
		return pauseWebhook(ctx, tx, a.SubscriptionID, paused)
	})
	return status, paused, err
}

// pauseReason says why a failed attempt pauses its subscription, or "" if
// it does not. A subscription that is off already (or gone) is left alone.
func pauseReason(active bool, streak time.Duration, a DeliveryAttempt) string {
	switch {
	case !active:
		return ""
	case a.Final:
		return "a delivery failed all its attempts"
	case streak >= a.PauseAfter:
		return "no delivery has succeeded for " + roundDuration(streak)
	}
	return ""
}

func endFailureStreak(ctx context.Context, tx bun.Tx, subscriptionID int64) error {
	_, err := tx.NewUpdate().Model((*WebhookSubscription)(nil)).Set("failing_since = NULL").
		Where("id = ? AND failing_since IS NOT NULL", subscriptionID).Exec(ctx)
	return err
}

// extendFailureStreak starts the subscription's failure streak if none is
// running and says whether the subscription is on and how long the streak
// has lasted; a deleted subscription is reported off.
func extendFailureStreak(ctx context.Context, tx bun.Tx, subscriptionID int64) (active bool, streak time.Duration, err error) {
	var row struct {
		Active bool    `bun:"active"`
		Secs   float64 `bun:"secs"`
	}
	err = tx.NewRaw(`
		UPDATE webhook_subscriptions SET failing_since = COALESCE(failing_since, now())
		WHERE id = ?
		RETURNING active, extract(epoch FROM now() - failing_since)::float8 AS secs`, subscriptionID).Scan(ctx, &row)
	if errors.Is(err, sql.ErrNoRows) {
		return false, 0, nil
	}
	return row.Active, time.Duration(row.Secs * float64(time.Second)), err
}

func writeAttempt(ctx context.Context, tx bun.Tx, a DeliveryAttempt, status string) error {
	_, err := tx.NewUpdate().Model((*WebhookDelivery)(nil)).
		Set("attempts = attempts + 1, last_status_code = ?, last_error = ?, status = ?, updated_at = now()",
			a.StatusCode, a.Error, status).
		Where("id = ?", a.DeliveryID).Exec(ctx)
	return err
}

// pauseWebhook turns the subscription off and fails its pending deliveries:
// nothing more is sent until its owner turns it back on.
func pauseWebhook(ctx context.Context, tx bun.Tx, subscriptionID int64, why string) error {
	_, err := tx.NewUpdate().Model((*WebhookSubscription)(nil)).
		Set("active = false, paused_at = now(), updated_at = now()").
		Where("id = ? AND active", subscriptionID).Exec(ctx)
	if err != nil {
		return err
	}
	_, err = tx.NewUpdate().Model((*WebhookDelivery)(nil)).
		Set("status = ?, last_error = ?, updated_at = now()", DeliveryFailed, "not sent: the subscription was paused because "+why).
		Where("subscription_id = ? AND status = ?", subscriptionID, DeliveryPending).Exec(ctx)
	return err
}

// roundDuration prints d for a person: "26h", "45m", "30s".
func roundDuration(d time.Duration) string {
	switch {
	case d >= time.Hour:
		return fmt.Sprintf("%dh", d.Round(time.Hour)/time.Hour)
	case d >= time.Minute:
		return fmt.Sprintf("%dm", d.Round(time.Minute)/time.Minute)
	}
	return fmt.Sprintf("%ds", d.Round(time.Second)/time.Second)
}
