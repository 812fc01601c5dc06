package resolvers

import (
	"context"

	"github.com/uptrace/bun"

	"storeadmin/graph"
	"storeadmin/internal/base/apperr"
	"storeadmin/models"
)

// markPaid turns the draft id into a paid order, in one transaction: the
// draft is repriced as of now and placed as priced (models.PlaceOrder: the
// code's usage is taken, a code used up meanwhile is a 409 and nothing is
// written; tracked stock goes down; the payment is a successful sale), the
// abandoned carts and checkouts the order recovers are marked, order.paid
// (and checkout.recovered) are emitted, and the draft is completed.
func (r *Resolver) markPaid(ctx context.Context, id int64, in graph.DraftPaymentInput) (*graph.DraftOrderPaid, error) {
	sid, err := storeID(ctx)
	if err != nil {
		return nil, err
	}
	provider, err := text("provider", deref(in.Provider), maxTitle, false)
	if err != nil {
		return nil, err
	}
	if provider == "" {
		provider = "manual"
	}
	method, err := text("payment_method", deref(in.PaymentMethod), maxTitle, false)
	if err != nil {
		return nil, err
	}
	reference, err := text("external_id", deref(in.ExternalID), maxTitle, false)
	if err != nil {
		return nil, err
	}
	var out *graph.DraftOrderPaid
	err = r.db(ctx).RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		d, err := models.LockDraftOrder(ctx, tx, sid, id)
		if err != nil {
			return err
		}
		if d.Status == models.DraftCompleted {
			return apperr.Conflictf("draft order %s is already paid: it is an order now", d.Name)
		}
		lines, err := models.DraftLines(ctx, tx, sid, d.ID)
		if err != nil {
			return err
		}
		if len(lines) == 0 {
			return apperr.Conflictf("draft order %s has no lines; add one before marking it paid", d.Name)
		}
		now := r.Now().UTC()
		priced, err := models.RepriceDraft(ctx, tx, d, lines, now)
		if err != nil {
			return err
		}
		placement := models.DraftPlacement(d, lines, priced)
		placement.Payment = models.Payment{Provider: provider, Method: method, Reference: reference}
		placement.Actor, placement.Now = actorSource(ctx), now
		// Placed, what it recovers marked, order.paid (and
		// checkout.recovered) emitted: the storefront's completion places
		// the same way.
		o, err := r.announcer().Place(ctx, tx, placement)
		if err != nil {
			return err
		}
		d.Status, d.OrderID, d.CompletedAt, d.UpdatedAt = models.DraftCompleted, &o.ID, &now, now
		if err := models.SaveDraftOrder(ctx, tx, d); err != nil {
			return err
		}
		out = &graph.DraftOrderPaid{OrderID: o.ID, OrderNumber: o.OrderNumber, OrderNumberDisplay: o.OrderNumberDisplay,
			ID: d.ID, Lines: lines, DraftOrder: d, Order: o}
		return nil
	})
	return out, err
}
