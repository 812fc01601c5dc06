package models

import (
	"context"
	"math/big"
	"time"

	"github.com/uptrace/bun"

	"storeadmin/internal/base/apperr"
)

// RefundRequest asks for a refund of an order: line quantities given back,
// money returned, or both.
type RefundRequest struct {
	// Order is the order refunded, which the caller has locked
	// (LockOrder).
	Order *Order
	Lines []LineQuantity
	// AmountCents is the money to return; nil means the lines' share of
	// what the shopper paid for them, plus shipping when Shipping is set,
	// capped at what is refundable.
	AmountCents *int64
	Shipping    bool
	// Restock puts the refunded quantities back into tracked stock.
	Restock bool
	Reason  string
	// Actor names who refunded, for the timeline ("admin", "api").
	Actor string
	Now   time.Time
}

// RefundOrder refunds r.Order: the request is checked against the order's
// lines and money (quantities left to refund, the amount captured and not
// yet refunded), and the refund, its lines, the money movement against the
// last capture, the restock and the timeline entry are stored; the order's
// statuses are brought up to date. Emitting events is the caller's.
func RefundOrder(ctx context.Context, tx bun.IDB, r RefundRequest) (*Refund, error) {
	refunds, err := RefundOrders(ctx, tx, []RefundRequest{r})
	if err != nil {
		return nil, err
	}
	return &refunds[0], nil
}

// RefundOrders is RefundOrder for refunds of several orders of one store,
// one each, in eleven statements for the batch. Any refusal fails the
// batch: roll tx back.
func RefundOrders(ctx context.Context, tx bun.IDB, rs []RefundRequest) ([]Refund, error) {
	if len(rs) == 0 {
		return nil, nil
	}
	orders, nows := make([]*Order, len(rs)), make([]time.Time, len(rs))
	for i, r := range rs {
		orders[i], nows[i] = r.Order, r.Now
	}
	_, lines, txs, err := readBatch(ctx, tx, orders)
	if err != nil {
		return nil, err
	}
	storeID := orders[0].StoreID
	plans := make([]refundPlan, len(rs))
	refunds := make([]Refund, len(rs))
	items := make([][]RefundLineItem, len(rs))
	for i, r := range rs {
		o := r.Order
		if plans[i], err = planRefund(r, o, lines[o.ID], SumMoney(txs[o.ID]).Refundable()); err != nil {
			return nil, err
		}
		refunds[i] = Refund{
			StoreID: o.StoreID, OrderID: o.ID, AmountCents: plans[i].amount, Currency: o.Currency,
			Status: TxSuccess, Reason: r.Reason, Restock: r.Restock, CreatedAt: r.Now,
		}
		items[i] = plans[i].items
	}
	if err := insertRefunds(ctx, tx, refunds, items); err != nil {
		return nil, err
	}
	if err := refundMoney(ctx, tx, rs, refunds, items, txs); err != nil {
		return nil, err
	}
	back := map[int64]int64{}
	for i, r := range rs {
		if !r.Restock {
			continue
		}
		variantOf := map[int64]*int64{}
		for _, l := range lines[r.Order.ID] {
			variantOf[l.ID] = l.VariantID
		}
		for _, it := range items[i] {
			if v := variantOf[it.LineItemID]; v != nil {
				back[*v] += it.Quantity
			}
		}
	}
	if err := AdjustInventory(ctx, tx, storeID, back); err != nil {
		return nil, err
	}
	if err := refreshOrderStates(ctx, tx, orders, nows); err != nil {
		return nil, err
	}
	for i := range refunds {
		refunds[i].OrderFinancialStatus = orders[i].FinancialStatus
	}
	return refunds, nil
}

// refundPlan is a checked refund: the quantities it gives back and the
// money it returns.
type refundPlan struct {
	items  []RefundLineItem
	amount int64
}

// planRefund checks a refund request against the order's lines and money.
// The amount a request leaves out is the lines' share of what the shopper
// paid for them (price less its share of the discount, plus its share of
// the tax), plus shipping when asked, capped at what is refundable.
func planRefund(r RefundRequest, o *Order, lines []OrderLineItem, refundable int64) (refundPlan, error) {
	var plan refundPlan
	if r.AmountCents != nil && *r.AmountCents < 0 {
		return plan, apperr.Invalidf("amount_cents must not be negative")
	}
	picked, err := pickLines(r.Lines, o, lines, "refund", func(l OrderLineItem) int64 { return l.Quantity - l.RefundedQuantity })
	if err != nil {
		return plan, err
	}
	var goods int64
	for _, p := range picked {
		plan.items = append(plan.items, RefundLineItem{LineItemID: p.line.ID, Quantity: p.quantity})
		goods += p.line.PriceCents * p.quantity
	}
	if r.AmountCents != nil {
		plan.amount = *r.AmountCents
		if plan.amount > refundable {
			return plan, apperr.Conflictf("order %s has %d refundable (captured and not yet refunded); %d is more than that", o.OrderNumberDisplay, refundable, plan.amount)
		}
	} else {
		if o.SubtotalCents > 0 {
			paidForGoods := o.SubtotalCents - o.DiscountCents + o.TaxCents
			plan.amount = shareOf(goods, paidForGoods, o.SubtotalCents)
		}
		if r.Shipping {
			plan.amount += o.ShippingCents
		}
		plan.amount = min(plan.amount, refundable)
	}
	if plan.amount == 0 && len(plan.items) == 0 {
		return plan, apperr.Conflictf("order %s has nothing left to refund", o.OrderNumberDisplay)
	}
	return plan, nil
}

// shareOf is part × whole / of, rounded half up, without overflowing for
// any amounts the columns hold.
func shareOf(part, whole, of int64) int64 {
	n := new(big.Int).Mul(big.NewInt(part), big.NewInt(whole))
	n.Add(n, big.NewInt(of/2))
	return n.Quo(n, big.NewInt(of)).Int64()
}

// refundMoney records the money movement of each refund that returns
// some, against its order's last capture (txs are the orders' transactions
// by order), and puts every refund, with the quantities items it gave
// back, on its order's timeline.
func refundMoney(ctx context.Context, tx bun.IDB, rs []RefundRequest, refunds []Refund, items [][]RefundLineItem, txs map[int64][]OrderTransaction) error {
	var moves []OrderTransaction
	var of []int // index in rs of each of moves
	for i, r := range rs {
		if refunds[i].AmountCents == 0 {
			continue
		}
		o := r.Order
		t := OrderTransaction{
			StoreID: o.StoreID, OrderID: o.ID, RefundID: &refunds[i].ID, Kind: TxRefund, Status: TxSuccess,
			AmountCents: refunds[i].AmountCents, Currency: o.Currency, ExternalID: ExternalID("re"), CreatedAt: r.Now,
		}
		if parent := lastCapture(txs[o.ID]); parent != nil {
			t.ParentID, t.Provider, t.PaymentMethod = &parent.ID, parent.Provider, parent.PaymentMethod
		}
		moves, of = append(moves, t), append(of, i)
	}
	if len(moves) > 0 {
		if _, err := tx.NewInsert().Model(&moves).Returning("id, created_at").Exec(ctx); err != nil {
			return classify(err, "the transaction")
		}
	}
	moved := make([]*OrderTransaction, len(rs))
	for k, i := range of {
		moved[i] = &moves[k]
	}
	events := make([]OrderEvent, len(rs))
	for i, r := range rs {
		detail := map[string]any{"refund_id": refunds[i].ID, "line_items": items[i], "restock": r.Restock}
		if r.Reason != "" {
			detail["reason"] = r.Reason
		}
		events[i] = timelineEntry(r.Order, "refunded", r.Actor, r.Now, moved[i], detail)
		events[i].AmountCents = &refunds[i].AmountCents
	}
	return AddOrderEvents(ctx, tx, events...)
}

// lastCapture is the newest successful capture or sale: refunds go back
// the way the money came.
func lastCapture(txs []OrderTransaction) *OrderTransaction {
	for i := len(txs) - 1; i >= 0; i-- {
		if t := txs[i]; t.Status == TxSuccess && (t.Kind == TxCapture || t.Kind == TxSale) {
			return &txs[i]
		}
	}
	return nil
}
