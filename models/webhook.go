package models

import (
	"context"
	"time"

	"github.com/uptrace/bun"
)

// Webhook topics: the events a subscription can ask for.
var WebhookTopics = []string{
	"order.paid",
	"order.refunded",
	"order.fulfilled",
	"order.cancelled",
	"upsell.accepted",
	"checkout.abandoned",
	"cart.abandoned",
	"checkout.recovered",
}

// Delivery statuses.
const (
	DeliveryPending   = "pending"
	DeliverySucceeded = "succeeded"
	DeliveryFailed    = "failed"
)

// WebhookSubscription is a URL that receives signed events for its topics.
type WebhookSubscription struct {
	bun.BaseModel `bun:"table:webhook_subscriptions"`

	ID            int64     `bun:"id,pk,autoincrement" json:"id"`
	StoreID       int64     `bun:"store_id" json:"-"`
	URL           string    `bun:"url" json:"url"`
	Topics        []string  `bun:"topics,array" json:"topics"`
	Active        bool      `bun:"active" json:"active"`
	SigningSecret string    `bun:"secret" json:"-"`
	CreatedAt     time.Time `bun:"created_at,nullzero,default:now()" json:"created_at"`
	UpdatedAt     time.Time `bun:"updated_at,nullzero,default:now()" json:"updated_at"`
	// FailingSince is the first failed delivery attempt not followed by a
	// success; nil while the last attempt succeeded.
	FailingSince *time.Time `bun:"failing_since" json:"-"`
	// PausedAt is when the events engine turned the subscription off for
	// failing (Active is false then); nil if it was never paused, or was
	// turned back on.
	PausedAt *time.Time `bun:"paused_at" json:"-"`

	// revealSecret is set on the subscription CreateWebhook returns: the
	// secret is shown once.
	revealSecret bool
}

// Secret is the signing secret, shown only right after creation.
func (w *WebhookSubscription) Secret() *string {
	if !w.revealSecret {
		return nil
	}
	return &w.SigningSecret
}

// CreateWebhook stores a subscription; its secret is revealed in the
// returned value.
func CreateWebhook(ctx context.Context, db bun.IDB, w *WebhookSubscription) error {
	_, err := db.NewInsert().Model(w).Returning("*").Exec(ctx)
	w.revealSecret = err == nil
	return classify(err, "the webhook subscription")
}

// GetWebhook reads one subscription of the store.
func GetWebhook(ctx context.Context, db bun.IDB, storeID, id int64) (*WebhookSubscription, error) {
	w := new(WebhookSubscription)
	err := db.NewSelect().Model(w).Where("store_id = ? AND id = ?", storeID, id).Scan(ctx)
	return w, classify(err, "the webhook subscription")
}

// ListWebhooks lists a store's subscriptions, oldest first.
func ListWebhooks(ctx context.Context, db bun.IDB, storeID int64, p Paging) ([]WebhookSubscription, error) {
	var out []WebhookSubscription
	q := db.NewSelect().Model(&out).Where("store_id = ?", storeID).Order("id")
	err := scanRows(ctx, db, p.Apply(q), &out)
	return out, err
}

// CountWebhooks counts a store's subscriptions.
func CountWebhooks(ctx context.Context, db bun.IDB, storeID int64) (int64, error) {
	return db.NewSelect().Model((*WebhookSubscription)(nil)).Where("store_id = ?", storeID).Count(ctx)
}

// UpdateWebhook writes url, topics and active of w. Turning a subscription
// on forgets that it was paused and its failures: it starts afresh.
func UpdateWebhook(ctx context.Context, db bun.IDB, w *WebhookSubscription) error {
	q := db.NewUpdate().Model(w).Column("url", "topics", "active").Set("updated_at = now()")
	if w.Active {
		q = q.Set("paused_at = NULL, failing_since = NULL")
	}
	res, err := q.Where("store_id = ? AND id = ?", w.StoreID, w.ID).Returning("*").Exec(ctx)
	return notFoundIfNone(res, err, "the webhook subscription")
}

// DeleteWebhook removes a subscription and its deliveries.
func DeleteWebhook(ctx context.Context, db bun.IDB, storeID, id int64) error {
	res, err := db.NewDelete().Model((*WebhookSubscription)(nil)).Where("store_id = ? AND id = ?", storeID, id).Exec(ctx)
	return notFoundIfNone(res, err, "the webhook subscription")
}

// WebhookDelivery is one event sent, or being sent, to one subscription.
type WebhookDelivery struct {
	bun.BaseModel `bun:"table:webhook_deliveries"`

	ID             int64     `bun:"id,pk,autoincrement" json:"id"`
	StoreID        int64     `bun:"store_id" json:"-"`
	SubscriptionID int64     `bun:"subscription_id" json:"-"`
	EventID        int64     `bun:"event_id" json:"event_id"`
	Topic          string    `bun:"topic" json:"topic"`
	Status         string    `bun:"status" json:"status"`
	Attempts       int64     `bun:"attempts" json:"attempts"`
	LastStatusCode int64     `bun:"last_status_code" json:"last_status_code"`
	LastError      string    `bun:"last_error" json:"last_error"`
	CreatedAt      time.Time `bun:"created_at,nullzero,default:now()" json:"created_at"`
	UpdatedAt      time.Time `bun:"updated_at,nullzero,default:now()" json:"updated_at"`
}

// DeliveryFilter narrows a deliveries list.
type DeliveryFilter struct {
	Status *string
}

func (f DeliveryFilter) apply(q *bun.SelectQuery) *bun.SelectQuery {
	if f.Status != nil {
		q = q.Where("status = ?", *f.Status)
	}
	return q
}

// ListDeliveries lists one subscription's deliveries, newest first.
func ListDeliveries(ctx context.Context, db bun.IDB, storeID, subscriptionID int64, f DeliveryFilter, p Paging) ([]WebhookDelivery, error) {
	var out []WebhookDelivery
	q := db.NewSelect().Model(&out).Where("store_id = ? AND subscription_id = ?", storeID, subscriptionID).
		Apply(f.apply).Order("created_at DESC", "id DESC")
	err := scanRows(ctx, db, p.Apply(q), &out)
	return out, err
}

// CountDeliveries counts what ListDeliveries would list without paging.
func CountDeliveries(ctx context.Context, db bun.IDB, storeID, subscriptionID int64, f DeliveryFilter) (int64, error) {
	return db.NewSelect().Model((*WebhookDelivery)(nil)).Where("store_id = ? AND subscription_id = ?", storeID, subscriptionID).
		Apply(f.apply).Count(ctx)
}

// RecentDeliveriesPerSubscription is how many deliveries
// RecentDeliveriesBySubscription returns for each subscription.
const RecentDeliveriesPerSubscription = 20

// RecentDeliveriesBySubscription loads the newest deliveries of several
// subscriptions in one statement, for a dataloader.
func RecentDeliveriesBySubscription(ctx context.Context, db bun.IDB, storeID int64, ids []int64, _ Columns) ([]WebhookDelivery, error) {
	out := manyRows[WebhookDelivery](len(ids))
	ranked := db.NewSelect().Model((*WebhookDelivery)(nil)).
		ColumnExpr("*, row_number() OVER (PARTITION BY subscription_id ORDER BY created_at DESC, id DESC) AS rank").
		Where("store_id = ? AND subscription_id IN (?)", storeID, bun.List(ids))
	err := scanRows(ctx, db, db.NewSelect().Model(&out).ModelTableExpr("(?) AS webhook_delivery", ranked).
		Where("rank <= ?", RecentDeliveriesPerSubscription).
		Order("subscription_id", "created_at DESC", "id DESC"), &out)
	return out, err
}
