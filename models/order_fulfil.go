package models

import (
	"context"
	"fmt"
	"time"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/pgdialect"

	"storeadmin/internal/base/apperr"
)

// Shipment asks to ship lines of an order.
type Shipment struct {
	// Order is the order shipped, which the caller has locked (LockOrder).
	Order                                      *Order
	Carrier, TrackingNumber, TrackingURL, Note string
	// Lines are the quantities shipped; none means everything left to ship.
	Lines []LineQuantity
	// Actor names who shipped, for the timeline ("admin", "api").
	Actor string
	Now   time.Time
}

// FulfilOrder ships lines of s.Order: the quantities are checked against
// what is left to ship (ShipmentItems), the shipment is stored and added
// to the lines, the statuses are brought up to date and it is "fulfilled"
// on the timeline. A cancelled order is a conflict.
func FulfilOrder(ctx context.Context, tx bun.IDB, s Shipment) (*Fulfillment, error) {
	fs, err := FulfilOrders(ctx, tx, []Shipment{s})
	if err != nil {
		return nil, err
	}
	return &fs[0], nil
}

// FulfilOrders is FulfilOrder for shipments of several orders of one store,
// one each, in eight statements for the batch. Any refusal fails the
// batch: roll tx back.
func FulfilOrders(ctx context.Context, tx bun.IDB, ss []Shipment) ([]Fulfillment, error) {
	if len(ss) == 0 {
		return nil, nil
	}
	orders, nows := make([]*Order, len(ss)), make([]time.Time, len(ss))
	for i, s := range ss {
		orders[i], nows[i] = s.Order, s.Now
		if s.Order.Status == OrderCancelled {
			return nil, apperr.Conflictf("order %s is cancelled; it cannot be shipped", s.Order.OrderNumberDisplay)
		}
	}
	ids, err := orderBatch(orders)
	if err != nil {
		return nil, err
	}
	allLines, err := LineItemsByOrder(ctx, tx, orders[0].StoreID, ids, AllColumns)
	if err != nil {
		return nil, err
	}
	lines := groupByOrder(allLines, func(l OrderLineItem) int64 { return l.OrderID })
	fs, items := make([]Fulfillment, len(ss)), make([][]FulfillmentItem, len(ss))
	for i, s := range ss {
		if items[i], err = ShipmentItems(s.Lines, s.Order, lines[s.Order.ID]); err != nil {
			return nil, err
		}
		fs[i] = Fulfillment{StoreID: s.Order.StoreID, OrderID: s.Order.ID, Status: ShipmentSuccess, Carrier: s.Carrier,
			TrackingNumber: s.TrackingNumber, TrackingURL: s.TrackingURL, Note: s.Note, CreatedAt: s.Now}
	}
	if err := insertFulfillments(ctx, tx, fs, items); err != nil {
		return nil, err
	}
	if err := refreshOrderStates(ctx, tx, orders, nows); err != nil {
		return nil, err
	}
	events := make([]OrderEvent, len(ss))
	for i, s := range ss {
		events[i] = timelineEntry(s.Order, "fulfilled", s.Actor, s.Now, nil, map[string]any{
			"fulfillment_id": fs[i].ID, "carrier": fs[i].Carrier, "tracking_number": fs[i].TrackingNumber, "items": items[i],
		})
	}
	return fs, AddOrderEvents(ctx, tx, events...)
}

// ShipmentCancellation asks to cancel a shipment of an order.
type ShipmentCancellation struct {
	// Order is the shipment's order, which the caller has locked; read
	// Fulfillment after the lock.
	Order       *Order
	Fulfillment *Fulfillment
	// Actor names who cancelled it, for the timeline ("admin", "api").
	Actor string
	Now   time.Time
}

// CancelFulfillment cancels f, a shipment of o, which the caller has
// locked in tx (read f after the lock): its quantities return to the
// lines, the statuses are brought up to date and it is
// "fulfillment_cancelled" on the timeline. A shipment already cancelled is
// a conflict.
func CancelFulfillment(ctx context.Context, tx bun.IDB, o *Order, f *Fulfillment, actor string, now time.Time) error {
	return CancelFulfillments(ctx, tx, []ShipmentCancellation{{Order: o, Fulfillment: f, Actor: actor, Now: now}})
}

// CancelFulfillments is CancelFulfillment for shipments of several orders
// of one store, one each, in seven statements for the batch. Any refusal
// fails the batch: roll tx back.
func CancelFulfillments(ctx context.Context, tx bun.IDB, cs []ShipmentCancellation) error {
	if len(cs) == 0 {
		return nil
	}
	orders, nows := make([]*Order, len(cs)), make([]time.Time, len(cs))
	fids := make([]int64, len(cs))
	events := make([]OrderEvent, len(cs))
	for i, c := range cs {
		f := c.Fulfillment
		if f.Status == ShipmentCancelled {
			return apperr.Conflictf("fulfillment %d is already cancelled", f.ID)
		}
		if f.OrderID != c.Order.ID {
			return fmt.Errorf("fulfillment %d is not of order %d", f.ID, c.Order.ID)
		}
		orders[i], nows[i], fids[i] = c.Order, c.Now, f.ID
		events[i] = timelineEntry(c.Order, "fulfillment_cancelled", c.Actor, c.Now, nil, map[string]any{"fulfillment_id": f.ID})
	}
	if _, err := orderBatch(orders); err != nil {
		return err
	}
	storeID := orders[0].StoreID
	_, err := tx.NewRaw(`UPDATE fulfillments AS f SET status = ?, cancelled_at = v.at
		FROM unnest(?::bigint[], ?::timestamptz[]) AS v(id, at) WHERE f.store_id = ? AND f.id = v.id`,
		ShipmentCancelled, pgdialect.Array(fids), pgdialect.Array(nows), storeID).Exec(ctx)
	if err != nil {
		return err
	}
	for i, c := range cs {
		c.Fulfillment.Status, c.Fulfillment.CancelledAt = ShipmentCancelled, &nows[i]
	}
	items, err := ItemsByFulfillment(ctx, tx, storeID, fids, AllColumns)
	if err != nil {
		return err
	}
	orderOf := make(map[int64]int64, len(cs))
	for _, c := range cs {
		orderOf[c.Fulfillment.ID] = c.Order.ID
	}
	lineOrders, ids, qs := make([]int64, len(items)), make([]int64, len(items)), make([]int64, len(items))
	for i, it := range items {
		lineOrders[i], ids[i], qs[i] = orderOf[it.FulfillmentID], it.LineItemID, -it.Quantity
	}
	if err := addToLines(ctx, tx, "fulfilled_quantity", lineOrders, ids, qs); err != nil {
		return classify(err, "the fulfillment's items")
	}
	if err := refreshOrderStates(ctx, tx, orders, nows); err != nil {
		return err
	}
	return AddOrderEvents(ctx, tx, events...)
}
