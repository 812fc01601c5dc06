package resolvers

import (
	"context"
	"time"

	"github.com/uptrace/bun"

	"storeadmin/graph"
	"storeadmin/internal/base/apperr"
	"storeadmin/models"
)

// refund makes a refund of the order (models.RefundOrder) from the
// client's input: the reason is checked here, and so is that the input
// asks for something; quantities and amounts are checked against the
// order by models.
func refund(in graph.RefundInput, out *models.Refund) orderChange {
	return func(ctx context.Context, tx bun.Tx, o *models.Order, now time.Time) ([]string, error) {
		reason, err := text("reason", deref(in.Reason), maxTitle, false)
		if err != nil {
			return nil, err
		}
		if len(in.LineItems) == 0 && in.AmountCents == nil && !deref(in.RefundShipping) {
			return nil, apperr.Invalidf("send line_items, amount_cents or refund_shipping: what should be refunded?")
		}
		req := models.RefundRequest{
			Order: o, AmountCents: in.AmountCents, Shipping: deref(in.RefundShipping), Restock: deref(in.Restock),
			Reason: reason, Actor: actorSource(ctx), Now: now,
		}
		for _, it := range in.LineItems {
			req.Lines = append(req.Lines, models.LineQuantity{LineID: it.LineItemID, Quantity: it.Quantity})
		}
		made, err := models.RefundOrder(ctx, tx, req)
		if err != nil {
			return nil, err
		}
		*out = *made
		return []string{"order.refunded"}, nil
	}
}
