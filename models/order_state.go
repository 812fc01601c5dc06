package models

import (
	"context"
	"time"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/pgdialect"
)

// An order's financial and fulfilment statuses are not set by hand: they
// follow from its transactions and shipped quantities, and are recomputed
// (RefreshOrderState) in the transaction of every change to either. The
// stored copies exist so that lists can filter on them.

// Money sums an order's successful transactions.
type Money struct {
	// Captured is what was taken: successful captures and sales.
	Captured int64
	// Refunded is what was given back: successful refunds.
	Refunded int64
	// OpenAuthorizations are successful authorizations that no successful
	// capture or void has closed yet.
	OpenAuthorizations []OrderTransaction
	// Voided reports a successful void.
	Voided bool
}

// Refundable is what may still be refunded.
func (m Money) Refundable() int64 { return max(0, m.Captured-m.Refunded) }

// SumMoney adds up txs, the transactions of one order.
func SumMoney(txs []OrderTransaction) Money {
	var m Money
	closed := map[int64]bool{}
	for _, t := range txs {
		if t.Status != TxSuccess {
			continue
		}
		switch t.Kind {
		case TxCapture, TxSale:
			m.Captured += t.AmountCents
		case TxRefund:
			m.Refunded += t.AmountCents
		case TxVoid:
			m.Voided = true
		}
		if (t.Kind == TxCapture || t.Kind == TxVoid) && t.ParentID != nil {
			closed[*t.ParentID] = true
		}
	}
	for _, t := range txs {
		if t.Kind == TxAuthorization && t.Status == TxSuccess && !closed[t.ID] {
			m.OpenAuthorizations = append(m.OpenAuthorizations, t)
		}
	}
	return m
}

// FinancialStatus derives an order's financial status from its total and
// transactions:
//
//	nothing captured: authorized while an authorization is open, voided once
//	  one was voided, otherwise pending (an order of 0 is paid);
//	something captured: refunded when refunds reach what was captured,
//	  partially_refunded when some was refunded, partially_paid while less
//	  than the total was captured, otherwise paid.
func FinancialStatus(total int64, txs []OrderTransaction) string {
	m := SumMoney(txs)
	switch {
	case m.Captured > 0 && m.Refunded >= m.Captured:
		return FinancialRefunded
	case m.Captured > 0 && m.Refunded > 0:
		return FinancialPartiallyRefunded
	case m.Captured > 0 && m.Captured < total:
		return FinancialPartiallyPaid
	case m.Captured > 0:
		return FinancialPaid
	case len(m.OpenAuthorizations) > 0:
		return FinancialAuthorized
	case m.Voided:
		return FinancialVoided
	case total == 0:
		return FinancialPaid
	}
	return FinancialPending
}

// FulfillmentStatus derives an order's fulfilment status from its lines:
// unfulfilled while nothing has shipped, fulfilled once no line has anything
// left to ship (what was bought and not refunded), partial in between. An
// order restocked on cancellation stays restocked.
func FulfillmentStatus(current string, lines []OrderLineItem) string {
	var shipped, left int64
	for _, l := range lines {
		shipped += l.FulfilledQuantity
		left += l.Unfulfilled()
	}
	switch {
	case shipped == 0 && current == FulfillmentRestocked:
		return FulfillmentRestocked
	case shipped == 0:
		return FulfillmentUnfulfilled
	case left == 0:
		return FulfillmentFulfilled
	}
	return FulfillmentPartial
}

// OrderLines reads one order's lines inside tx, in their order.
func OrderLines(ctx context.Context, tx bun.IDB, storeID, orderID int64) ([]OrderLineItem, error) {
	return LineItemsByOrder(ctx, tx, storeID, []int64{orderID})
}

// OrderTransactions reads one order's transactions inside tx, oldest first.
func OrderTransactions(ctx context.Context, tx bun.IDB, storeID, orderID int64) ([]OrderTransaction, error) {
	return TransactionsByOrder(ctx, tx, storeID, []int64{orderID})
}

// RefreshOrderState recomputes o's financial and fulfilment statuses from
// what is stored, writes them, and sets paid_at the first time the order
// is paid. o is updated in place.
func RefreshOrderState(ctx context.Context, tx bun.IDB, o *Order, now time.Time) error {
	txs, err := OrderTransactions(ctx, tx, o.StoreID, o.ID)
	if err != nil {
		return err
	}
	lines, err := OrderLines(ctx, tx, o.StoreID, o.ID)
	if err != nil {
		return err
	}
	o.FinancialStatus = FinancialStatus(o.TotalCents, txs)
	o.FulfillmentStatus = FulfillmentStatus(o.FulfillmentStatus, lines)
	if o.PaidAt == nil && SumMoney(txs).Captured > 0 {
		o.PaidAt = &now
	}
	_, err = tx.NewUpdate().Model(o).Column("financial_status", "fulfillment_status", "paid_at").
		Set("updated_at = ?", now).Where("store_id = ? AND id = ?", o.StoreID, o.ID).Exec(ctx)
	return err
}

// SetOrderStatus writes o's status, cancellation and archive fields.
func SetOrderStatus(ctx context.Context, tx bun.IDB, o *Order, now time.Time) error {
	_, err := tx.NewUpdate().Model(o).
		Column("status", "cancel_reason", "cancelled_at", "archived_at", "fulfillment_status").
		Set("updated_at = ?", now).Where("store_id = ? AND id = ?", o.StoreID, o.ID).Exec(ctx)
	return err
}

// InsertTransaction records one transaction.
func InsertTransaction(ctx context.Context, tx bun.IDB, t *OrderTransaction) error {
	_, err := tx.NewInsert().Model(t).Returning("id, created_at").Exec(ctx)
	return classify(err, "the transaction")
}

// InsertRefund records a refund with the quantities it gives back and adds
// them to the lines' refunded quantities.
func InsertRefund(ctx context.Context, tx bun.IDB, r *Refund, items []RefundLineItem) error {
	if _, err := tx.NewInsert().Model(r).Returning("id, created_at").Exec(ctx); err != nil {
		return classify(err, "the refund")
	}
	if len(items) == 0 {
		return nil
	}
	for i := range items {
		items[i].RefundID = r.ID
	}
	if _, err := tx.NewInsert().Model(&items).Exec(ctx); err != nil {
		return classify(err, "the refund's lines")
	}
	ids, qs := make([]int64, len(items)), make([]int64, len(items))
	for i, it := range items {
		ids[i], qs[i] = it.LineItemID, it.Quantity
	}
	return classify(addToLines(ctx, tx, r.OrderID, "refunded_quantity", ids, qs), "the refund's lines")
}

// InsertFulfillment records a shipment of items and adds them to the lines'
// fulfilled quantities.
func InsertFulfillment(ctx context.Context, tx bun.IDB, f *Fulfillment, items []FulfillmentItem) error {
	if _, err := tx.NewInsert().Model(f).Returning("id, created_at").Exec(ctx); err != nil {
		return classify(err, "the fulfillment")
	}
	for i := range items {
		items[i].FulfillmentID = f.ID
	}
	if _, err := tx.NewInsert().Model(&items).Exec(ctx); err != nil {
		return classify(err, "the fulfillment's items")
	}
	return shiftFulfilled(ctx, tx, f.OrderID, items, +1)
}

// GetFulfillment reads one shipment of the store.
func GetFulfillment(ctx context.Context, tx bun.IDB, storeID, id int64) (*Fulfillment, error) {
	f := new(Fulfillment)
	err := tx.NewSelect().Model(f).Where("store_id = ? AND id = ?", storeID, id).Scan(ctx)
	return f, classify(err, "the fulfillment")
}

// shiftFulfilled adds (sign +1) or returns (-1) a shipment's quantities to
// its lines' fulfilled quantities.
func shiftFulfilled(ctx context.Context, tx bun.IDB, orderID int64, items []FulfillmentItem, sign int64) error {
	ids, qs := make([]int64, len(items)), make([]int64, len(items))
	for i, it := range items {
		ids[i], qs[i] = it.LineItemID, sign*it.Quantity
	}
	return classify(addToLines(ctx, tx, orderID, "fulfilled_quantity", ids, qs), "the fulfillment's items")
}

// addToLines adds qs to column of the order's lines ids, in one statement;
// the caller holds the order's row lock, so no other change interleaves.
func addToLines(ctx context.Context, tx bun.IDB, orderID int64, column string, ids, qs []int64) error {
	if len(ids) == 0 {
		return nil
	}
	_, err := tx.NewRaw(`UPDATE order_line_items AS li SET ? = li.? + v.q
		FROM unnest(?::bigint[], ?::bigint[]) AS v(id, q) WHERE li.id = v.id AND li.order_id = ?`,
		bun.Ident(column), bun.Ident(column), pgdialect.Array(ids), pgdialect.Array(qs), orderID).Exec(ctx)
	return err
}
