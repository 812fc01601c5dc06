package resolvers

import (
	"context"
	"strings"
	"time"

	"github.com/uptrace/bun"

	"storeadmin/graph"
	"storeadmin/models"
)

// cancel cancels an order (models.CancelOrder) from the client's input:
// the reason and note are checked here; what may be cancelled, the voids,
// refund and restock are models' rules.
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
		refunded, err := models.CancelOrder(ctx, tx, models.Cancellation{
			Order: o, Reason: reason, Note: note, Restock: deref(in.Restock), Refund: deref(in.Refund), Actor: actorSource(ctx), Now: now,
		})
		if err != nil {
			return nil, err
		}
		if refunded {
			return []string{"order.cancelled", "order.refunded"}, nil
		}
		return []string{"order.cancelled"}, nil
	}
}
