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
	// Order is the order cancelled, which the caller has locked
	// (LockOrder).
	Order *Order
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

// CancelOrder cancels c.Order if nothing of it has shipped: open
// authorizations are voided, then as asked the lines and money are
// refunded (RefundOrders) and the quantities go back to stock; the order
// is cancelled and "cancelled" on its timeline. refunded reports whether
// money was given back. An order already cancelled, or with shipped items,
// is a conflict.
func CancelOrder(ctx context.Context, tx bun.IDB, c Cancellation) (refunded bool, err error) {
	refunds, err := CancelOrders(ctx, tx, []Cancellation{c})
	if err != nil {
		return false, err
	}
	return refunds[0], nil
}

// CancelOrders is CancelOrder for several orders of one store, each once,
// in a fixed number of statements for the batch (about twenty);
// refunded[i] is cs[i]'s; the orders' running funnel runs end cancelled.
// Any refusal fails the batch: roll tx back.
func CancelOrders(ctx context.Context, tx bun.IDB, cs []Cancellation) (refunded []bool, err error) {
	if len(cs) == 0 {
		return nil, nil
	}
	orders, nows := make([]*Order, len(cs)), make([]time.Time, len(cs))
	for i, c := range cs {
		if c.Order.Status == OrderCancelled {
			return nil, apperr.Conflictf("order %s is already cancelled", c.Order.OrderNumberDisplay)
		}
		orders[i], nows[i] = c.Order, c.Now
	}
	ids, lines, txs, err := readBatch(ctx, tx, orders)
	if err != nil {
		return nil, err
	}
	storeID := orders[0].StoreID
	for _, o := range orders {
		for _, l := range lines[o.ID] {
			if l.FulfilledQuantity > 0 {
				return nil, apperr.Conflictf("order %s has shipped items; cancel its fulfillments first", o.OrderNumberDisplay)
			}
		}
	}
	if err := voidAuthorizations(ctx, tx, cs, txs); err != nil {
		return nil, err
	}
	refunded = make([]bool, len(cs))
	var refunds []RefundRequest
	back := map[int64]int64{}
	for i, c := range cs {
		o := c.Order
		if c.Refund {
			refund := RefundRequest{Order: o, Restock: c.Restock, Reason: "order cancelled", Actor: c.Actor, Now: c.Now}
			for _, l := range lines[o.ID] {
				if left := l.Quantity - l.RefundedQuantity; left > 0 {
					refund.Lines = append(refund.Lines, LineQuantity{LineID: l.ID, Quantity: left})
				}
			}
			amount := SumMoney(txs[o.ID]).Refundable()
			refund.AmountCents = &amount
			if amount > 0 || len(refund.Lines) > 0 {
				refunds = append(refunds, refund)
				refunded[i] = amount > 0
			}
		} else if c.Restock {
			for _, l := range lines[o.ID] {
				if l.VariantID != nil {
					back[*l.VariantID] += l.Quantity - l.RefundedQuantity
				}
			}
		}
	}
	if _, err := RefundOrders(ctx, tx, refunds); err != nil {
		return nil, err
	}
	if err := AdjustInventory(ctx, tx, storeID, back); err != nil {
		return nil, err
	}
	reasons, fulfilment := make([]string, len(cs)), make([]string, len(cs))
	events := make([]OrderEvent, len(cs))
	for i, c := range cs {
		o := c.Order
		if c.Restock {
			o.FulfillmentStatus = FulfillmentRestocked
		}
		o.Status, o.CancelReason, o.CancelledAt = OrderCancelled, c.Reason, &nows[i]
		reasons[i], fulfilment[i] = c.Reason, o.FulfillmentStatus
		detail := map[string]any{"reason": c.Reason, "restock": c.Restock, "refund": c.Refund}
		if c.Note != "" {
			detail["note"] = c.Note
		}
		events[i] = timelineEntry(o, "cancelled", c.Actor, c.Now, nil, detail)
	}
	_, err = tx.NewRaw(`UPDATE orders AS o SET status = ?, cancel_reason = v.reason, cancelled_at = v.at,
			fulfillment_status = v.fulfilment, updated_at = v.at
		FROM unnest(?::bigint[], ?::text[], ?::text[], ?::timestamptz[]) AS v(id, reason, fulfilment, at)
		WHERE o.store_id = ? AND o.id = v.id`,
		OrderCancelled, pgdialect.Array(ids), pgdialect.Array(reasons), pgdialect.Array(fulfilment), pgdialect.Array(nows), storeID).Exec(ctx)
	if err != nil {
		return nil, err
	}
	// A post-purchase funnel still running behind an order ends with it
	// (its authorization was voided above).
	if err := endCancelledRuns(ctx, tx, storeID, ids, nows); err != nil {
		return nil, err
	}
	if err := refreshOrderStates(ctx, tx, orders, nows); err != nil {
		return nil, err
	}
	return refunded, AddOrderEvents(ctx, tx, events...)
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
