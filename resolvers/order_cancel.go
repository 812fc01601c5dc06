package resolvers

import (
	"context"
	"strings"
	"time"

	"github.com/uptrace/bun"

	"storeadmin/graph"
	"storeadmin/internal/base/apperr"
	"storeadmin/models"
)

// cancel cancels an order that has nothing shipped: open authorizations
// are voided, and on request the unshipped quantities go back to stock and
// everything captured is refunded.
func cancel(in graph.OrderCancelInput) orderChange {
	return func(ctx context.Context, tx bun.Tx, o *models.Order, now time.Time) ([]string, error) {
		reason := "other"
		if in.Reason != nil {
			var err error
			if reason, err = oneOf("reason", strings.TrimSpace(*in.Reason), models.CancelReasons...); err != nil {
				return nil, err
			}
		}
		note, err := text("note", deref(in.Note), maxNote, false)
		if err != nil {
			return nil, err
		}
		if o.Status == models.OrderCancelled {
			return nil, apperr.Conflictf("order %s is already cancelled", o.OrderNumberDisplay)
		}
		lines, err := models.OrderLines(ctx, tx, o.StoreID, o.ID)
		if err != nil {
			return nil, err
		}
		for _, l := range lines {
			if l.FulfilledQuantity > 0 {
				return nil, apperr.Conflictf("order %s has shipped items; cancel its fulfillments first", o.OrderNumberDisplay)
			}
		}
		txs, err := models.OrderTransactions(ctx, tx, o.StoreID, o.ID)
		if err != nil {
			return nil, err
		}
		money := models.SumMoney(txs)
		for _, auth := range money.OpenAuthorizations {
			void := models.OrderTransaction{
				StoreID: o.StoreID, OrderID: o.ID, ParentID: &auth.ID, Kind: models.TxVoid, Status: models.TxSuccess,
				AmountCents: auth.AmountCents, Currency: auth.Currency, Provider: auth.Provider,
				ExternalID: models.ExternalID("void"), PaymentMethod: auth.PaymentMethod, CreatedAt: now,
			}
			if err := models.InsertTransaction(ctx, tx, &void); err != nil {
				return nil, err
			}
			if err := timeline(ctx, tx, o, "voided", now, &void.AmountCents, &void.ID, nil); err != nil {
				return nil, err
			}
		}
		topics := []string{"order.cancelled"}
		if deref(in.Refund) {
			refund := models.RefundRequest{Restock: deref(in.Restock), Reason: "order cancelled", Actor: actorSource(ctx), Now: now}
			for _, l := range lines {
				if left := l.Quantity - l.RefundedQuantity; left > 0 {
					refund.Lines = append(refund.Lines, models.LineQuantity{LineID: l.ID, Quantity: left})
				}
			}
			amount := money.Refundable()
			refund.AmountCents = &amount
			if amount > 0 || len(refund.Lines) > 0 {
				if _, err := models.RefundOrder(ctx, tx, o, refund); err != nil {
					return nil, err
				}
				if amount > 0 {
					topics = append(topics, "order.refunded")
				}
			}
		} else if deref(in.Restock) {
			back := map[int64]int64{}
			for _, l := range lines {
				if l.VariantID != nil {
					back[*l.VariantID] += l.Quantity - l.RefundedQuantity
				}
			}
			if err := models.AdjustInventory(ctx, tx, o.StoreID, back); err != nil {
				return nil, err
			}
		}
		if deref(in.Restock) {
			o.FulfillmentStatus = models.FulfillmentRestocked
		}
		o.Status, o.CancelReason, o.CancelledAt = models.OrderCancelled, reason, &now
		if err := models.SetOrderStatus(ctx, tx, o, now); err != nil {
			return nil, err
		}
		if err := models.RefreshOrderState(ctx, tx, o, now); err != nil {
			return nil, err
		}
		detail := map[string]any{"reason": reason, "restock": deref(in.Restock), "refund": deref(in.Refund)}
		if note != "" {
			detail["note"] = note
		}
		return topics, timeline(ctx, tx, o, "cancelled", now, nil, nil, detail)
	}
}
