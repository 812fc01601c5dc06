package models

import (
	"context"
	"time"

	"github.com/uptrace/bun"

	"storeadmin/internal/base/apperr"
)

// What happens to an order's money after checkout: an authorization is
// captured (or the gateway refuses), money paid later arrives, open
// authorizations are voided when the order is cancelled. Each runs on an
// order the caller has locked (LockOrder), records the transaction and its
// timeline entry, and brings the order's statuses up to date.

// Capture is the gateway's answer to capturing an order's authorization.
type Capture struct {
	// Reference is the gateway's id of the capture; empty gets one made up.
	Reference string
	// Failure is the gateway's refusal ("Your card was declined."); empty
	// means the money was taken.
	Failure string
	// Actor names who captured, for the timeline ("admin", "system").
	Actor string
	Now   time.Time
}

// CapturePayment captures o's oldest open authorization in full: a capture
// that succeeded closes it ("captured" on the timeline); one the gateway
// refused is recorded with its error ("payment_failed") and leaves the
// authorization open for another attempt. A cancelled order, or one with
// no open authorization, is a conflict.
func CapturePayment(ctx context.Context, tx bun.IDB, o *Order, c Capture) (*OrderTransaction, error) {
	if o.Status == OrderCancelled {
		return nil, apperr.Conflictf("order %s is cancelled; its payment cannot be captured", o.OrderNumberDisplay)
	}
	txs, err := OrderTransactions(ctx, tx, o.StoreID, o.ID)
	if err != nil {
		return nil, err
	}
	open := SumMoney(txs).OpenAuthorizations
	if len(open) == 0 {
		return nil, apperr.Conflictf("order %s has no authorized payment to capture", o.OrderNumberDisplay)
	}
	auth := open[0]
	t := OrderTransaction{
		StoreID: o.StoreID, OrderID: o.ID, ParentID: &auth.ID, Kind: TxCapture, Status: TxSuccess,
		AmountCents: auth.AmountCents, Currency: auth.Currency, Provider: auth.Provider, ExternalID: c.Reference,
		PaymentMethod: auth.PaymentMethod, CreatedAt: c.Now,
	}
	if t.ExternalID == "" {
		t.ExternalID = ExternalID("cap")
	}
	name, detail := "captured", map[string]any(nil)
	if c.Failure != "" {
		t.Status, t.Error = TxFailure, &c.Failure
		name, detail = "payment_failed", map[string]any{"error": c.Failure}
	}
	if err := InsertTransaction(ctx, tx, &t); err != nil {
		return nil, err
	}
	if err := AddOrderEvents(ctx, tx, timelineEntry(o, name, c.Actor, c.Now, &t, detail)); err != nil {
		return nil, err
	}
	return &t, RefreshOrderState(ctx, tx, o, c.Now)
}

// Received is money an order's shopper paid after checkout: a bank
// transfer that arrived, an invoice paid, a deposit or the balance.
type Received struct {
	Provider, Method string
	// Reference is the provider's id of the payment; empty gets one made up.
	Reference   string
	AmountCents int64
	// Note says what the money was, for the timeline ("50% deposit").
	Note string
	// Actor names who recorded it, for the timeline ("admin", "checkout").
	Actor string
	Now   time.Time
}

// RecordPayment records money received for o as a successful sale ("paid"
// on the timeline). It may not exceed what is still due (the total less
// what was captured); a cancelled order takes no money.
func RecordPayment(ctx context.Context, tx bun.IDB, o *Order, r Received) (*OrderTransaction, error) {
	if o.Status == OrderCancelled {
		return nil, apperr.Conflictf("order %s is cancelled; it takes no payment", o.OrderNumberDisplay)
	}
	txs, err := OrderTransactions(ctx, tx, o.StoreID, o.ID)
	if err != nil {
		return nil, err
	}
	due := max(0, o.TotalCents-SumMoney(txs).Captured)
	switch {
	case r.AmountCents < 1:
		return nil, apperr.Invalidf("amount_cents must be at least 1")
	case r.AmountCents > due:
		return nil, apperr.Conflictf("order %s has %d due; %d is more than that", o.OrderNumberDisplay, due, r.AmountCents)
	}
	t := OrderTransaction{
		StoreID: o.StoreID, OrderID: o.ID, Kind: TxSale, Status: TxSuccess, AmountCents: r.AmountCents,
		Currency: o.Currency, Provider: r.Provider, ExternalID: r.Reference, CreatedAt: r.Now,
	}
	if t.ExternalID == "" {
		t.ExternalID = ExternalID("pay")
	}
	if r.Method != "" {
		t.PaymentMethod = &r.Method
	}
	if err := InsertTransaction(ctx, tx, &t); err != nil {
		return nil, err
	}
	var detail map[string]any
	if r.Note != "" {
		detail = map[string]any{"note": r.Note}
	}
	if err := AddOrderEvents(ctx, tx, timelineEntry(o, "paid", r.Actor, r.Now, &t, detail)); err != nil {
		return nil, err
	}
	return &t, RefreshOrderState(ctx, tx, o, r.Now)
}

// voidAuthorizations voids every open authorization of o, each "voided" on
// the timeline; txs are o's transactions.
func voidAuthorizations(ctx context.Context, tx bun.IDB, o *Order, txs []OrderTransaction, actor string, now time.Time) error {
	for _, auth := range SumMoney(txs).OpenAuthorizations {
		void := OrderTransaction{
			StoreID: o.StoreID, OrderID: o.ID, ParentID: &auth.ID, Kind: TxVoid, Status: TxSuccess,
			AmountCents: auth.AmountCents, Currency: auth.Currency, Provider: auth.Provider,
			ExternalID: ExternalID("void"), PaymentMethod: auth.PaymentMethod, CreatedAt: now,
		}
		if err := InsertTransaction(ctx, tx, &void); err != nil {
			return err
		}
		if err := AddOrderEvents(ctx, tx, timelineEntry(o, "voided", actor, now, &void, nil)); err != nil {
			return err
		}
	}
	return nil
}

// timelineEntry is the entry of o's timeline for a change named name by
// actor at at; t is the transaction it made, or nil.
func timelineEntry(o *Order, name, actor string, at time.Time, t *OrderTransaction, detail map[string]any) OrderEvent {
	e := OrderEvent{StoreID: o.StoreID, OrderID: o.ID, Name: name, Source: actor, At: at}
	if t != nil {
		e.AmountCents, e.TransactionID = &t.AmountCents, &t.ID
	}
	if detail != nil {
		e.Detail = detail
	}
	return e
}
