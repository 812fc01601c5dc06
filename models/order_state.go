package models

import (
	"context"
	"fmt"
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
	return LineItemsByOrder(ctx, tx, storeID, []int64{orderID}, AllColumns)
}

// OrderTransactions reads one order's transactions inside tx, oldest first.
func OrderTransactions(ctx context.Context, tx bun.IDB, storeID, orderID int64) ([]OrderTransaction, error) {
	return TransactionsByOrder(ctx, tx, storeID, []int64{orderID}, AllColumns)
}

// RefreshOrderState recomputes o's financial and fulfilment statuses from
// what is stored, writes them, and sets paid_at the first time the order
// is paid. o is updated in place.
func RefreshOrderState(ctx context.Context, tx bun.IDB, o *Order, now time.Time) error {
	return refreshOrderStates(ctx, tx, []*Order{o}, []time.Time{now})
}

// refreshOrderStates is RefreshOrderState for a batch of orders of one
// store (each once; see orderBatch), orders[i] changed at nows[i]: three
// statements for the batch.
func refreshOrderStates(ctx context.Context, tx bun.IDB, orders []*Order, nows []time.Time) error {
	if len(orders) == 0 {
		return nil
	}
	ids, lines, txs, err := readBatch(ctx, tx, orders)
	if err != nil {
		return err
	}
	storeID := orders[0].StoreID
	financial, fulfilment, captured := make([]string, len(orders)), make([]string, len(orders)), make([]bool, len(orders))
	for i, o := range orders {
		o.FinancialStatus = FinancialStatus(o.TotalCents, txs[o.ID])
		o.FulfillmentStatus = FulfillmentStatus(o.FulfillmentStatus, lines[o.ID])
		captured[i] = SumMoney(txs[o.ID]).Captured > 0
		if o.PaidAt == nil && captured[i] {
			o.PaidAt = &nows[i]
		}
		o.UpdatedAt = nows[i]
		financial[i], fulfilment[i] = o.FinancialStatus, o.FulfillmentStatus
	}
	_, err = tx.NewRaw(`UPDATE orders AS o SET financial_status = v.financial, fulfillment_status = v.fulfilment,
			paid_at = CASE WHEN v.captured THEN coalesce(o.paid_at, v.at) ELSE o.paid_at END, updated_at = v.at
		FROM unnest(?::bigint[], ?::text[], ?::text[], ?::boolean[], ?::timestamptz[]) AS v(id, financial, fulfilment, captured, at)
		WHERE o.store_id = ? AND o.id = v.id`,
		pgdialect.Array(ids), pgdialect.Array(financial), pgdialect.Array(fulfilment), pgdialect.Array(captured),
		pgdialect.Array(nows), storeID).Exec(ctx)
	return err
}

// orderBatch checks that orders, changed together, are of one store and
// each there once (a change reads each order's state once), and returns
// their ids.
func orderBatch(orders []*Order) ([]int64, error) {
	ids := make([]int64, len(orders))
	seen := make(map[int64]bool, len(orders))
	for i, o := range orders {
		if o.StoreID != orders[0].StoreID {
			return nil, fmt.Errorf("orders of stores %d and %d changed together", orders[0].StoreID, o.StoreID)
		}
		if seen[o.ID] {
			return nil, fmt.Errorf("order %d changed twice in one batch", o.ID)
		}
		seen[o.ID], ids[i] = true, o.ID
	}
	return ids, nil
}

// readBatch checks orders, of one store and changed together, as
// orderBatch does, and reads what a change of them starts from: their
// lines and transactions by order id, in two statements.
func readBatch(ctx context.Context, tx bun.IDB, orders []*Order) (ids []int64, lines map[int64][]OrderLineItem, txs map[int64][]OrderTransaction, err error) {
	if ids, err = orderBatch(orders); err != nil {
		return nil, nil, nil, err
	}
	storeID := orders[0].StoreID
	allLines, err := LineItemsByOrder(ctx, tx, storeID, ids, AllColumns)
	if err != nil {
		return nil, nil, nil, err
	}
	allTxs, err := TransactionsByOrder(ctx, tx, storeID, ids, AllColumns)
	if err != nil {
		return nil, nil, nil, err
	}
	return ids, groupByOrder(allLines, func(l OrderLineItem) int64 { return l.OrderID }),
		groupByOrder(allTxs, func(t OrderTransaction) int64 { return t.OrderID }), nil
}

// groupByOrder groups rows read for several orders by their order's id.
func groupByOrder[T any](rows []T, orderID func(T) int64) map[int64][]T {
	out := map[int64][]T{}
	for _, r := range rows {
		out[orderID(r)] = append(out[orderID(r)], r)
	}
	return out
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
	rs := []Refund{*r}
	if err := insertRefunds(ctx, tx, rs, [][]RefundLineItem{items}); err != nil {
		return err
	}
	*r = rs[0]
	return nil
}

// insertRefunds is InsertRefund for several refunds, items[i] given back
// by rs[i], in three statements; rs receive their ids.
func insertRefunds(ctx context.Context, tx bun.IDB, rs []Refund, items [][]RefundLineItem) error {
	if len(rs) == 0 {
		return nil
	}
	if _, err := tx.NewInsert().Model(&rs).Returning("id, created_at").Exec(ctx); err != nil {
		return classify(err, "the refund")
	}
	var all []RefundLineItem
	var orders, ids, qs []int64
	for k := range rs {
		for i := range items[k] {
			it := &items[k][i]
			it.RefundID = rs[k].ID
			all = append(all, *it)
			orders, ids, qs = append(orders, rs[k].OrderID), append(ids, it.LineItemID), append(qs, it.Quantity)
		}
	}
	if len(all) == 0 {
		return nil
	}
	if _, err := tx.NewInsert().Model(&all).Exec(ctx); err != nil {
		return classify(err, "the refund's lines")
	}
	return classify(addToLines(ctx, tx, "refunded_quantity", orders, ids, qs), "the refund's lines")
}

// InsertFulfillment records a shipment of items and adds them to the lines'
// fulfilled quantities.
func InsertFulfillment(ctx context.Context, tx bun.IDB, f *Fulfillment, items []FulfillmentItem) error {
	fs := []Fulfillment{*f}
	if err := insertFulfillments(ctx, tx, fs, [][]FulfillmentItem{items}); err != nil {
		return err
	}
	*f = fs[0]
	return nil
}

// insertFulfillments is InsertFulfillment for several shipments, items[i]
// carried by fs[i], in three statements; fs receive their ids.
func insertFulfillments(ctx context.Context, tx bun.IDB, fs []Fulfillment, items [][]FulfillmentItem) error {
	if len(fs) == 0 {
		return nil
	}
	if _, err := tx.NewInsert().Model(&fs).Returning("id, created_at").Exec(ctx); err != nil {
		return classify(err, "the fulfillment")
	}
	var all []FulfillmentItem
	var orders, ids, qs []int64
	for k := range fs {
		for i := range items[k] {
			it := &items[k][i]
			it.FulfillmentID = fs[k].ID
			all = append(all, *it)
			orders, ids, qs = append(orders, fs[k].OrderID), append(ids, it.LineItemID), append(qs, it.Quantity)
		}
	}
	if len(all) == 0 {
		return nil
	}
	if _, err := tx.NewInsert().Model(&all).Exec(ctx); err != nil {
		return classify(err, "the fulfillment's items")
	}
	return classify(addToLines(ctx, tx, "fulfilled_quantity", orders, ids, qs), "the fulfillment's items")
}

// GetFulfillment reads one shipment of the store.
func GetFulfillment(ctx context.Context, tx bun.IDB, storeID, id int64) (*Fulfillment, error) {
	f := new(Fulfillment)
	err := tx.NewSelect().Model(f).Where("store_id = ? AND id = ?", storeID, id).Scan(ctx)
	return f, classify(err, "the fulfillment")
}

// addToLines adds qs[i] to column of line ids[i] of order orders[i], in
// one statement; the caller holds the orders' row locks, so no other
// change interleaves.
func addToLines(ctx context.Context, tx bun.IDB, column string, orders, ids, qs []int64) error {
	if len(ids) == 0 {
		return nil
	}
	_, err := tx.NewRaw(`UPDATE order_line_items AS li SET ? = li.? + v.q
		FROM unnest(?::bigint[], ?::bigint[], ?::bigint[]) AS v(order_id, id, q) WHERE li.id = v.id AND li.order_id = v.order_id`,
		bun.Ident(column), bun.Ident(column), pgdialect.Array(orders), pgdialect.Array(ids), pgdialect.Array(qs)).Exec(ctx)
	return err
}
