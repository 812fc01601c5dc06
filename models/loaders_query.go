package models

import (
	"context"

	"github.com/uptrace/bun"
)

// RecentDeliveriesPerSubscription is how many deliveries
// RecentDeliveriesBySubscription returns for each subscription.
const RecentDeliveriesPerSubscription = 20

// RecentDeliveriesBySubscription loads the newest deliveries of several
// subscriptions in one statement, for a dataloader.
func RecentDeliveriesBySubscription(ctx context.Context, db bun.IDB, storeID int64, ids []int64) ([]WebhookDelivery, error) {
	var out []WebhookDelivery
	ranked := db.NewSelect().Model((*WebhookDelivery)(nil)).
		ColumnExpr("*, row_number() OVER (PARTITION BY subscription_id ORDER BY created_at DESC, id DESC) AS rank").
		Where("store_id = ? AND subscription_id IN (?)", storeID, bun.In(ids))
	err := db.NewSelect().Model(&out).ModelTableExpr("(?) AS webhook_delivery", ranked).
		Where("rank <= ?", RecentDeliveriesPerSubscription).
		Order("subscription_id", "created_at DESC", "id DESC").Scan(ctx)
	return out, err
}
