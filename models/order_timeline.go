package models

import (
	"context"
	"time"

	"github.com/uptrace/bun"
)

// OrderEvent is one entry of an order's timeline.
type OrderEvent struct {
	bun.BaseModel `bun:"table:order_events"`

	ID            int64     `bun:"id,pk,autoincrement" json:"id"`
	StoreID       int64     `bun:"store_id" json:"-"`
	OrderID       int64     `bun:"order_id" json:"order_id"`
	Name          string    `bun:"name" json:"name"`
	Source        string    `bun:"source" json:"source"`
	AmountCents   *int64    `bun:"amount_cents" json:"amount_cents"`
	TransactionID *int64    `bun:"transaction_id" json:"transaction_id"`
	Detail        any       `bun:"detail,type:jsonb" json:"detail"`
	At            time.Time `bun:"at,nullzero,default:now()" json:"at"`
}

// OrderEvents reads an order's timeline, oldest first, up to limit
// entries; more reports whether there were more.
func OrderEvents(ctx context.Context, db bun.IDB, storeID, orderID int64, limit int) (events []OrderEvent, more bool, err error) {
	err = db.NewSelect().Model(&events).Where("store_id = ? AND order_id = ?", storeID, orderID).
		Order("at", "id").Limit(int64(limit + 1)).Scan(ctx)
	if len(events) > limit {
		return events[:limit], true, err
	}
	return events, false, err
}

// AddOrderEvents appends entries to order timelines.
func AddOrderEvents(ctx context.Context, tx bun.IDB, events ...OrderEvent) error {
	if len(events) == 0 {
		return nil
	}
	_, err := tx.NewInsert().Model(&events).Returning("id").Exec(ctx)
	return err
}
