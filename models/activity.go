package models

import (
	"context"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/pgdialect"
)

// The records a shopper's activity log gathers around its anchor (a
// session, a cart, a checkout, an order): what each one did, read whole
// per anchor in a few statements. The resolvers' activity builder merges
// them into one timeline.

// ActivityRecords are the carts, checkouts, attempts and reminders linked
// to an anchor.
type ActivityRecords struct {
	Carts     []Cart
	Checkouts []StorefrontCheckout
	Attempts  []PaymentAttempt
	Messages  []RecoveryMessage
}

// ActivityLinks names what an anchor leads to: a session, carts,
// checkouts, orders. ReadActivityRecords reads every cart and checkout
// linked to any of them (a session's, an order's checkout, a checkout's
// cart, a cart's checkouts), then their attempts and reminders.
type ActivityLinks struct {
	SessionID   *int64
	CartIDs     []int64
	CheckoutIDs []int64
	OrderIDs    []int64
}

// ReadActivityRecords reads the records linked to an anchor in four
// statements, each oldest first.
func ReadActivityRecords(ctx context.Context, db bun.IDB, storeID int64, l ActivityLinks) (*ActivityRecords, error) {
	out := &ActivityRecords{}
	session := int64(0)
	if l.SessionID != nil {
		session = *l.SessionID
	}
	ids := func(v []int64) any { return pgdialect.Array(append([]int64{}, v...)) }
	err := db.NewSelect().Model(&out.Checkouts).Where("store_id = ?", storeID).
		Where("session_id = ? OR id = ANY(?) OR cart_id = ANY(?) OR order_id = ANY(?) OR recovered_order_id = ANY(?)",
			session, ids(l.CheckoutIDs), ids(l.CartIDs), ids(l.OrderIDs), ids(l.OrderIDs)).
		Order("created_at", "id").Scan(ctx)
	if err != nil {
		return nil, err
	}
	carts := append([]int64{}, l.CartIDs...)
	checkouts := make([]int64, 0, len(out.Checkouts))
	for _, c := range out.Checkouts {
		checkouts = append(checkouts, c.ID)
		if c.CartID != nil {
			carts = append(carts, *c.CartID)
		}
	}
	err = db.NewSelect().Model(&out.Carts).Where("store_id = ?", storeID).
		Where("session_id = ? OR id = ANY(?) OR recovered_order_id = ANY(?)", session, ids(carts), ids(l.OrderIDs)).
		Order("created_at", "id").Scan(ctx)
	if err != nil {
		return nil, err
	}
	carts = carts[:0]
	for _, c := range out.Carts {
		carts = append(carts, c.ID)
	}
	err = db.NewSelect().Model(&out.Attempts).Where("store_id = ? AND checkout_id = ANY(?)", storeID, ids(checkouts)).
		Order("created_at", "id").Scan(ctx)
	if err != nil {
		return nil, err
	}
	err = db.NewSelect().Model(&out.Messages).Where("store_id = ?", storeID).
		Where("cart_id = ANY(?) OR checkout_id = ANY(?)", ids(carts), ids(checkouts)).
		Order("created_at", "id").Scan(ctx)
	return out, err
}

// SessionEvents reads a session's browsing events, oldest first, up to
// limit of them, and whether it has more.
func SessionEvents(ctx context.Context, db bun.IDB, storeID, sessionID int64, limit int) (events []StoreeventsActivity, more bool, err error) {
	err = db.NewSelect().Model(&events).Where("store_id = ? AND session_id = ?", storeID, sessionID).
		Order("occurred_at", "id").Limit(int64(limit + 1)).Scan(ctx)
	if len(events) > limit {
		return events[:limit], true, err
	}
	return events, false, err
}

// SessionOrders reads the orders a session led to, oldest first, up to
// limit of them, and whether it led to more.
func SessionOrders(ctx context.Context, db bun.IDB, storeID int64, sessionID int64, also []int64, limit int) (orders []Order, more bool, err error) {
	err = db.NewSelect().Model(&orders).Where("store_id = ?", storeID).
		Where("session_id = ? OR id = ANY(?)", sessionID, pgdialect.Array(append([]int64{}, also...))).
		Order("created_at", "id").Limit(int64(limit + 1)).Scan(ctx)
	if len(orders) > limit {
		return orders[:limit], true, err
	}
	return orders, false, err
}

// ActivityDrafts reads several draft orders of the store (those the orders
// of a log came from), in one statement.
func ActivityDrafts(ctx context.Context, db bun.IDB, storeID int64, ids []int64) ([]DraftOrder, error) {
	var out []DraftOrder
	if len(ids) == 0 {
		return out, nil
	}
	err := db.NewSelect().Model(&out).Column("id", "name", "email", "currency", "total_cents", "invoice_sent_at", "order_id", "created_at").
		Where("store_id = ? AND id IN (?)", storeID, bun.List(ids)).Order("created_at", "id").Scan(ctx)
	return out, err
}
