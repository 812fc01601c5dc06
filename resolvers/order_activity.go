package resolvers

import (
	"context"

	"github.com/uptrace/bun"

	"storeadmin/graph"
	"storeadmin/models"
)

// maxActivityEvents bounds one activity log; coverage.events_truncated
// says when the timeline held more.
const maxActivityEvents = 500

// The origin of each timeline entry: what part of the order it concerns.
var activityOrigins = map[string]string{
	"authorized":            "payment",
	"paid":                  "payment",
	"captured":              "payment",
	"payment_failed":        "payment",
	"voided":                "payment",
	"refunded":              "payment",
	"fulfilled":             "fulfillment",
	"fulfillment_cancelled": "fulfillment",
}

// orderActivity is the log of the order's own timeline, anchored on
// anchor. Storefront sessions are not recorded yet, so browsing is not
// covered and session is null; coverage says so.
func orderActivity(ctx context.Context, db bun.IDB, o *models.Order, anchor graph.UseractivityAnchor) (*graph.UseractivityLog, error) {
	entries, more, err := models.OrderEvents(ctx, db, o.StoreID, o.ID, maxActivityEvents)
	if err != nil {
		return nil, err
	}
	txs, err := models.OrderTransactions(ctx, db, o.StoreID, o.ID)
	if err != nil {
		return nil, err
	}
	txByID := map[int64]models.OrderTransaction{}
	summary := graph.UseractivitySummary{VisitBasis: "order", FirstSeenAt: o.CheckoutStartedAt}
	for _, t := range txs {
		txByID[t.ID] = t
		if t.Status == models.TxFailure || t.Status == models.TxError {
			summary.FailedPayments++
		}
	}
	if summary.FirstSeenAt == nil {
		summary.FirstSeenAt = &o.CreatedAt
	}
	out := make([]graph.UseractivityEvent, 0, len(entries))
	for _, e := range entries {
		ev := graph.UseractivityEvent{
			Name: e.Name, At: e.At, Origin: "order", Source: e.Source, Exact: true,
			AmountCents: e.AmountCents, OrderID: &o.ID, TransactionID: e.TransactionID, DraftOrderID: o.DraftOrderID,
			Detail: e.Detail,
		}
		if origin, ok := activityOrigins[e.Name]; ok {
			ev.Origin = origin
		}
		if e.AmountCents != nil {
			ev.Currency = &o.Currency
		}
		if e.TransactionID != nil {
			if t, ok := txByID[*e.TransactionID]; ok {
				ev.Provider, ev.PaymentMethod = &t.Provider, t.PaymentMethod
				if t.Error != nil {
					ev.ErrorMessage = t.Error
				}
			}
		}
		out = append(out, ev)
	}
	if n := len(entries); n > 0 {
		last := entries[n-1].At
		summary.LastSeenAt = &last
		if first := *summary.FirstSeenAt; last.After(first) {
			summary.VisitSeconds = int64(last.Sub(first).Seconds())
		}
	}
	return &graph.UseractivityLog{
		Anchor:   &anchor,
		Coverage: &graph.UseractivityCoverage{EventsTruncated: more},
		Events:   out,
		Summary:  &summary,
	}, nil
}

// fulfilledQuantities is how much of each line has shipped.
func fulfilledQuantities(lines []models.OrderLineItem) []models.FulfilledQuantity {
	out := make([]models.FulfilledQuantity, len(lines))
	for i, l := range lines {
		out[i] = models.FulfilledQuantity{LineItemID: l.ID, Quantity: l.FulfilledQuantity}
	}
	return out
}

// awaitingPaymentOrder reads the payment awaiting capture id (by its
// authorization) and the order it belongs to.
func (r *queryResolver) awaitingPaymentOrder(ctx context.Context, id int64) (*models.AwaitingCapture, *models.Order, error) {
	p, err := r.AwaitingCapturePayment(ctx, id)
	if err != nil {
		return nil, nil, err
	}
	o, err := r.Order(ctx, p.OrderID)
	return p, o, err
}
