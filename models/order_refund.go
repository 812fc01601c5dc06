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

// RefundOrder refunds o, which the caller has locked in tx (LockOrder):
// the request is checked against the order's lines and money (quantities
// left to refund, the amount captured and not yet refunded), and the
// refund, its lines, the money movement against the last capture, the
// restock and the timeline entry are stored; o's statuses are brought up
// to date. Emitting events is the caller's.
func RefundOrder(ctx context.Context, tx bun.IDB, o *Order, r RefundRequest) (*Refund, error) {
	lines, err := OrderLines(ctx, tx, o.StoreID, o.ID)
	if err != nil {
		return nil, err
	}
	txs, err := OrderTransactions(ctx, tx, o.StoreID, o.ID)
	if err != nil {
		return nil, err
	}
	plan, err := planRefund(r, o, lines, SumMoney(txs).Refundable())
	if err != nil {
		return nil, err
	}
	refund, err := applyRefund(ctx, tx, o, lines, txs, plan, r)
	if err != nil {
		return nil, err
	}
	return refund, RefreshOrderState(ctx, tx, o, r.Now)
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

// applyRefund records a planned refund: the refund, its lines, the money
// movement against the last capture, the restock, and the timeline entry.
func applyRefund(ctx context.Context, tx bun.IDB, o *Order, lines []OrderLineItem, txs []OrderTransaction, plan refundPlan, r RefundRequest) (*Refund, error) {
	refund := &Refund{
		StoreID: o.StoreID, OrderID: o.ID, AmountCents: plan.amount, Currency: o.Currency,
		Status: TxSuccess, Reason: r.Reason, Restock: r.Restock, CreatedAt: r.Now,
	}
	if err := InsertRefund(ctx, tx, refund, plan.items); err != nil {
		return nil, err
	}
	var txID *int64
	if plan.amount > 0 {
		parent := lastCapture(txs)
		t := OrderTransaction{
			StoreID: o.StoreID, OrderID: o.ID, RefundID: &refund.ID, Kind: TxRefund, Status: TxSuccess,
			AmountCents: plan.amount, Currency: o.Currency, ExternalID: ExternalID("re"), CreatedAt: r.Now,
		}
		if parent != nil {
			t.ParentID, t.Provider, t.PaymentMethod = &parent.ID, parent.Provider, parent.PaymentMethod
		}
		if err := InsertTransaction(ctx, tx, &t); err != nil {
			return nil, err
		}
		txID = &t.ID
	}
	if r.Restock {
		variantOf := map[int64]*int64{}
		for _, l := range lines {
			variantOf[l.ID] = l.VariantID
		}
		back := map[int64]int64{}
		for _, it := range plan.items {
			if v := variantOf[it.LineItemID]; v != nil {
				back[*v] += it.Quantity
			}
		}
		if err := AdjustInventory(ctx, tx, o.StoreID, back); err != nil {
			return nil, err
		}
	}
	detail := map[string]any{"refund_id": refund.ID, "line_items": plan.items, "restock": r.Restock}
	if r.Reason != "" {
		detail["reason"] = r.Reason
	}
	return refund, AddOrderEvents(ctx, tx, OrderEvent{
		StoreID: o.StoreID, OrderID: o.ID, Name: "refunded", Source: r.Actor,
		AmountCents: &plan.amount, TransactionID: txID, Detail: detail, At: r.Now,
	})
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
