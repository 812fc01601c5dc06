package models

import (
	"context"
	"time"

	"github.com/uptrace/bun"

	"storeadmin/internal/base/apperr"
)

// What happens to an order's money after checkout: an authorization is
// captured (or the gateway refuses), money paid later arrives, open
// authorizations are voided when the order is cancelled (CancelOrders). Each runs on
// orders the caller has locked (LockOrder), records the transactions and
// their timeline entries, and brings the orders' statuses up to date.

// Capture is the gateway's answer to capturing an order's authorization.
type Capture struct {
	// Order is the order captured, which the caller has locked.
	Order *Order
	// Reference is the gateway's id of the capture; empty gets one made up.
	Reference string
	// Failure is the gateway's refusal ("Your card was declined."); empty
	// means the money was taken.
	Failure string
	// Actor names who captured, for the timeline ("admin", "system").
	Actor string
	Now   time.Time
	// AmountCents is what to take; 0 takes the authorized amount. More
	// than was authorized (an order that grew after checkout: accepted
	// post-purchase offers) only through a provider whose kind can charge
	// it (PaymentFeatures.Upsell); less is a partial capture that closes
	// the authorization.
	AmountCents int64
}

// CapturePayment captures c.Order's oldest open authorization (in full
// unless c.AmountCents says otherwise): a
// capture that succeeded closes it ("captured" on the timeline); one the
// gateway refused is recorded with its error ("payment_failed") and leaves
// the authorization open for another attempt. A cancelled order, or one
// with no open authorization, is a conflict.
func CapturePayment(ctx context.Context, tx bun.IDB, c Capture) (*OrderTransaction, error) {
	txs, err := CapturePayments(ctx, tx, []Capture{c})
	if err != nil {
		return nil, err
	}
	return &txs[0], nil
}

// CapturePayments is CapturePayment for captures of several orders of one
// store, one each, in six statements for the batch. Any refusal fails the
// batch: roll tx back.
func CapturePayments(ctx context.Context, tx bun.IDB, cs []Capture) ([]OrderTransaction, error) {
	orders, nows := make([]*Order, len(cs)), make([]time.Time, len(cs))
	for i, c := range cs {
		orders[i], nows[i] = c.Order, c.Now
		if c.Order.Status == OrderCancelled {
			return nil, apperr.Conflictf("order %s is cancelled; its payment cannot be captured", c.Order.OrderNumberDisplay)
		}
	}
	current, err := transactionsOf(ctx, tx, orders)
	if err != nil {
		return nil, err
	}
	made := make([]OrderTransaction, len(cs))
	names, details := make([]string, len(cs)), make([]map[string]any, len(cs))
	for i, c := range cs {
		open := SumMoney(current[c.Order.ID]).OpenAuthorizations
		if len(open) == 0 {
			return nil, apperr.Conflictf("order %s has no authorized payment to capture", c.Order.OrderNumberDisplay)
		}
		auth := open[0]
		amount := auth.AmountCents
		if c.AmountCents != 0 {
			amount = c.AmountCents
		}
		switch {
		case amount < 1:
			return nil, apperr.Invalidf("amount_cents must be at least 1")
		case amount > auth.AmountCents && !CanCaptureMore(auth.Provider):
			return nil, apperr.Conflictf("order %s: %d is more than the %d authorized, and provider %q cannot capture more than it authorized",
				c.Order.OrderNumberDisplay, amount, auth.AmountCents, auth.Provider)
		}
		made[i] = OrderTransaction{
			StoreID: c.Order.StoreID, OrderID: c.Order.ID, ParentID: &auth.ID, Kind: TxCapture, Status: TxSuccess,
			AmountCents: amount, Currency: auth.Currency, Provider: auth.Provider, ExternalID: c.Reference,
			PaymentMethod: auth.PaymentMethod, CreatedAt: c.Now,
		}
		if made[i].ExternalID == "" {
			made[i].ExternalID = ExternalID("cap")
		}
		names[i] = "captured"
		if c.Failure != "" {
			made[i].Status, made[i].Error = TxFailure, &cs[i].Failure
			names[i], details[i] = "payment_failed", map[string]any{"error": c.Failure}
		}
	}
	return made, recordTransactions(ctx, tx, orders, nows, made, func(i int) OrderEvent {
		return timelineEntry(cs[i].Order, names[i], cs[i].Actor, cs[i].Now, &made[i], details[i])
	})
}

// CanCaptureMore says whether an authorization through provider can be
// captured for more than it authorized: its kind charges post-purchase
// offers (PaymentFeatures.Upsell). An unknown kind cannot.
func CanCaptureMore(provider string) bool {
	k, err := ProviderKindOf(provider)
	return err == nil && k.Features.Upsell
}

// Received is money an order's shopper paid after checkout: a bank
// transfer that arrived, an invoice paid, a deposit or the balance.
type Received struct {
	// Order is the order paid for, which the caller has locked.
	Order            *Order
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

// RecordPayment records money received for r.Order as a successful sale
// ("paid" on the timeline). It may not exceed what is still due (the
// total less what was captured); a cancelled order takes no money.
func RecordPayment(ctx context.Context, tx bun.IDB, r Received) (*OrderTransaction, error) {
	txs, err := RecordPayments(ctx, tx, []Received{r})
	if err != nil {
		return nil, err
	}
	return &txs[0], nil
}

// RecordPayments is RecordPayment for payments of several orders of one
// store, one each, in six statements for the batch. Any refusal fails the
// batch: roll tx back.
func RecordPayments(ctx context.Context, tx bun.IDB, rs []Received) ([]OrderTransaction, error) {
	orders, nows := make([]*Order, len(rs)), make([]time.Time, len(rs))
	for i, r := range rs {
		orders[i], nows[i] = r.Order, r.Now
		if r.Order.Status == OrderCancelled {
			return nil, apperr.Conflictf("order %s is cancelled; it takes no payment", r.Order.OrderNumberDisplay)
		}
	}
	current, err := transactionsOf(ctx, tx, orders)
	if err != nil {
		return nil, err
	}
	made := make([]OrderTransaction, len(rs))
	for i, r := range rs {
		o := r.Order
		due := max(0, o.TotalCents-SumMoney(current[o.ID]).Captured)
		switch {
		case r.AmountCents < 1:
			return nil, apperr.Invalidf("amount_cents must be at least 1")
		case r.AmountCents > due:
			return nil, apperr.Conflictf("order %s has %d due; %d is more than that", o.OrderNumberDisplay, due, r.AmountCents)
		}
		made[i] = OrderTransaction{
			StoreID: o.StoreID, OrderID: o.ID, Kind: TxSale, Status: TxSuccess, AmountCents: r.AmountCents,
			Currency: o.Currency, Provider: r.Provider, ExternalID: r.Reference, CreatedAt: r.Now,
		}
		if made[i].ExternalID == "" {
			made[i].ExternalID = ExternalID("pay")
		}
		if r.Method != "" {
			made[i].PaymentMethod = &rs[i].Method
		}
	}
	return made, recordTransactions(ctx, tx, orders, nows, made, func(i int) OrderEvent {
		var detail map[string]any
		if rs[i].Note != "" {
			detail = map[string]any{"note": rs[i].Note}
		}
		return timelineEntry(rs[i].Order, "paid", rs[i].Actor, rs[i].Now, &made[i], detail)
	})
}

// transactionsOf reads the transactions of a batch of orders (see
// orderBatch), by order.
func transactionsOf(ctx context.Context, tx bun.IDB, orders []*Order) (map[int64][]OrderTransaction, error) {
	ids, err := orderBatch(orders)
	if err != nil || len(ids) == 0 {
		return nil, err
	}
	all, err := TransactionsByOrder(ctx, tx, orders[0].StoreID, ids, AllColumns)
	return groupByOrder(all, func(t OrderTransaction) int64 { return t.OrderID }), err
}

// recordTransactions stores txs, txs[i] made for orders[i] at nows[i], with
// the timeline entry entry(i) of each, and brings the orders' statuses up
// to date.
func recordTransactions(ctx context.Context, tx bun.IDB, orders []*Order, nows []time.Time, txs []OrderTransaction, entry func(i int) OrderEvent) error {
	if len(txs) == 0 {
		return nil
	}
	if _, err := tx.NewInsert().Model(&txs).Returning("id, created_at").Exec(ctx); err != nil {
		return classify(err, "the transaction")
	}
	events := make([]OrderEvent, len(txs))
	for i := range txs {
		events[i] = entry(i)
	}
	if err := AddOrderEvents(ctx, tx, events...); err != nil {
		return err
	}
	return refreshOrderStates(ctx, tx, orders, nows)
}

// voidAuthorizations voids every open authorization of the orders cs
// cancel, each "voided" on the timeline, in two statements; txs are the
// orders' transactions by order.
func voidAuthorizations(ctx context.Context, tx bun.IDB, cs []Cancellation, txs map[int64][]OrderTransaction) error {
	var voids []OrderTransaction
	var of []int // index in cs of each of voids
	for i, c := range cs {
		o := c.Order
		for _, auth := range SumMoney(txs[o.ID]).OpenAuthorizations {
			voids = append(voids, OrderTransaction{
				StoreID: o.StoreID, OrderID: o.ID, ParentID: &auth.ID, Kind: TxVoid, Status: TxSuccess,
				AmountCents: auth.AmountCents, Currency: auth.Currency, Provider: auth.Provider,
				ExternalID: ExternalID("void"), PaymentMethod: auth.PaymentMethod, CreatedAt: c.Now,
			})
			of = append(of, i)
		}
	}
	if len(voids) == 0 {
		return nil
	}
	if _, err := tx.NewInsert().Model(&voids).Returning("id, created_at").Exec(ctx); err != nil {
		return classify(err, "the transaction")
	}
	events := make([]OrderEvent, len(voids))
	for k, i := range of {
		events[k] = timelineEntry(cs[i].Order, "voided", cs[i].Actor, cs[i].Now, &voids[k], nil)
	}
	return AddOrderEvents(ctx, tx, events...)
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
