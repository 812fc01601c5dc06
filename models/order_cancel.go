package models

import (
	"context"
	"time"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/pgdialect"

	"storeadmin/internal/base/apperr"
)

// Cancellation asks to cancel an order.
type Cancellation struct {
	// Reason is one of CancelReasons; Note is a free comment.
	Reason, Note string
	// Restock puts the quantities not refunded back into tracked stock and
	// marks the order restocked.
	Restock bool
	// Refund refunds the lines not yet refunded and everything captured
	// and not yet refunded.
	Refund bool
	// Actor names who cancelled, for the timeline ("admin", "api").
	Actor string
	Now   time.Time
}

// CancelOrder cancels o, which the caller has locked in tx (LockOrder), if
// nothing of it has shipped: open authorizations are voided, then as asked
// the lines and money are refunded (RefundOrder) and the quantities go back
// to stock; the order is cancelled and "cancelled" on its timeline.
// refunded reports whether money was given back. An order already
// cancelled, or with shipped items, is a conflict.
func CancelOrder(ctx context.Context, tx bun.IDB, o *Order, c Cancellation) (refunded bool, err error) {
	if o.Status == OrderCancelled {
		return false, apperr.Conflictf("order %s is already cancelled", o.OrderNumberDisplay)
	}
	lines, err := OrderLines(ctx, tx, o.StoreID, o.ID)
	if err != nil {
		return false, err
	}
	for _, l := range lines {
		if l.FulfilledQuantity > 0 {
			return false, apperr.Conflictf("order %s has shipped items; cancel its fulfillments first", o.OrderNumberDisplay)
		}
	}
	txs, err := OrderTransactions(ctx, tx, o.StoreID, o.ID)
	if err != nil {
		return false, err
	}
	if err := voidAuthorizations(ctx, tx, o, txs, c.Actor, c.Now); err != nil {
		return false, err
	}
	if c.Refund {
		refund := RefundRequest{Order: o, Restock: c.Restock, Reason: "order cancelled", Actor: c.Actor, Now: c.Now}
		for _, l := range lines {
			if left := l.Quantity - l.RefundedQuantity; left > 0 {
				refund.Lines = append(refund.Lines, LineQuantity{LineID: l.ID, Quantity: left})
			}
		}
		amount := SumMoney(txs).Refundable()
		refund.AmountCents = &amount
		if amount > 0 || len(refund.Lines) > 0 {
			if _, err := RefundOrder(ctx, tx, refund); err != nil {
				return false, err
			}
			refunded = amount > 0
		}
	} else if c.Restock {
		back := map[int64]int64{}
		for _, l := range lines {
			if l.VariantID != nil {
				back[*l.VariantID] += l.Quantity - l.RefundedQuantity
			}
		}
		if err := AdjustInventory(ctx, tx, o.StoreID, back); err != nil {
			return false, err
		}
	}
	if c.Restock {
		o.FulfillmentStatus = FulfillmentRestocked
	}
	o.Status, o.CancelReason, o.CancelledAt = OrderCancelled, c.Reason, &c.Now
	if err := SetOrderStatus(ctx, tx, o, c.Now); err != nil {
		return false, err
	}
	if err := RefreshOrderState(ctx, tx, o, c.Now); err != nil {
		return false, err
	}
	detail := map[string]any{"reason": c.Reason, "restock": c.Restock, "refund": c.Refund}
	if c.Note != "" {
		detail["note"] = c.Note
	}
	return refunded, AddOrderEvents(ctx, tx, timelineEntry(o, "cancelled", c.Actor, c.Now, nil, detail))
}

// Archival asks to archive an order.
type Archival struct {
	// Order is the order archived, which the caller has locked.
	Order *Order
	// Actor names who archived it, for the timeline ("admin", "system").
	Actor string
	Now   time.Time
}

// ArchiveOrder closes o, an open order the caller has locked ("archived"
// on its timeline). An order already archived, or cancelled, is a
// conflict.
func ArchiveOrder(ctx context.Context, tx bun.IDB, o *Order, actor string, now time.Time) error {
	return ArchiveOrders(ctx, tx, []Archival{{Order: o, Actor: actor, Now: now}})
}

// ArchiveOrders is ArchiveOrder for several orders of one store, each
// once, in two statements for the batch. Any refusal fails the batch: roll
// tx back.
func ArchiveOrders(ctx context.Context, tx bun.IDB, as []Archival) error {
	if len(as) == 0 {
		return nil
	}
	orders, nows := make([]*Order, len(as)), make([]time.Time, len(as))
	events := make([]OrderEvent, len(as))
	for i, a := range as {
		o := a.Order
		switch o.Status {
		case OrderArchived:
			return apperr.Conflictf("order %s is already archived", o.OrderNumberDisplay)
		case OrderCancelled:
			return apperr.Conflictf("order %s is cancelled; only open orders can be archived", o.OrderNumberDisplay)
		}
		orders[i], nows[i] = o, a.Now
		events[i] = timelineEntry(o, "archived", a.Actor, a.Now, nil, nil)
	}
	ids, err := orderBatch(orders)
	if err != nil {
		return err
	}
	_, err = tx.NewRaw(`UPDATE orders AS o SET status = ?, archived_at = v.at, updated_at = v.at
		FROM unnest(?::bigint[], ?::timestamptz[]) AS v(id, at) WHERE o.store_id = ? AND o.id = v.id`,
		OrderArchived, pgdialect.Array(ids), pgdialect.Array(nows), orders[0].StoreID).Exec(ctx)
	if err != nil {
		return err
	}
	for i, o := range orders {
		o.Status, o.ArchivedAt, o.UpdatedAt = OrderArchived, &nows[i], nows[i]
	}
	return AddOrderEvents(ctx, tx, events...)
}
