package models

import (
	"context"
	"time"

	"github.com/uptrace/bun"

	"storeadmin/internal/base/apperr"
)

// Shipment asks to ship lines of an order.
type Shipment struct {
	Carrier, TrackingNumber, TrackingURL, Note string
	// Lines are the quantities shipped; none means everything left to ship.
	Lines []LineQuantity
	// Actor names who shipped, for the timeline ("admin", "api").
	Actor string
	Now   time.Time
}

// FulfilOrder ships lines of o, which the caller has locked in tx
// (LockOrder): the quantities are checked against what is left to ship
// (ShipmentItems), the shipment is stored and added to the lines, the
// statuses are brought up to date and it is "fulfilled" on the timeline.
// A cancelled order is a conflict.
func FulfilOrder(ctx context.Context, tx bun.IDB, o *Order, s Shipment) (*Fulfillment, error) {
	if o.Status == OrderCancelled {
		return nil, apperr.Conflictf("order %s is cancelled; it cannot be shipped", o.OrderNumberDisplay)
	}
	lines, err := OrderLines(ctx, tx, o.StoreID, o.ID)
	if err != nil {
		return nil, err
	}
	items, err := ShipmentItems(s.Lines, o, lines)
	if err != nil {
		return nil, err
	}
	f := &Fulfillment{StoreID: o.StoreID, OrderID: o.ID, Status: ShipmentSuccess, Carrier: s.Carrier,
		TrackingNumber: s.TrackingNumber, TrackingURL: s.TrackingURL, Note: s.Note, CreatedAt: s.Now}
	if err := InsertFulfillment(ctx, tx, f, items); err != nil {
		return nil, err
	}
	if err := RefreshOrderState(ctx, tx, o, s.Now); err != nil {
		return nil, err
	}
	return f, AddOrderEvents(ctx, tx, timelineEntry(o, "fulfilled", s.Actor, s.Now, nil, map[string]any{
		"fulfillment_id": f.ID, "carrier": f.Carrier, "tracking_number": f.TrackingNumber, "items": items,
	}))
}

// CancelFulfillment cancels f, a shipment of o, which the caller has
// locked in tx (read f after the lock): its quantities return to the
// lines, the statuses are brought up to date and it is
// "fulfillment_cancelled" on the timeline. A shipment already cancelled is
// a conflict.
func CancelFulfillment(ctx context.Context, tx bun.IDB, o *Order, f *Fulfillment, actor string, now time.Time) error {
	if f.Status == ShipmentCancelled {
		return apperr.Conflictf("fulfillment %d is already cancelled", f.ID)
	}
	f.Status, f.CancelledAt = ShipmentCancelled, &now
	if _, err := tx.NewUpdate().Model(f).Column("status", "cancelled_at").WherePK().Exec(ctx); err != nil {
		return err
	}
	items, err := ItemsByFulfillment(ctx, tx, f.StoreID, []int64{f.ID})
	if err != nil {
		return err
	}
	if err := shiftFulfilled(ctx, tx, f.OrderID, items, -1); err != nil {
		return err
	}
	if err := RefreshOrderState(ctx, tx, o, now); err != nil {
		return err
	}
	return AddOrderEvents(ctx, tx, timelineEntry(o, "fulfillment_cancelled", actor, now, nil, map[string]any{"fulfillment_id": f.ID}))
}
