package resolvers

import (
	"context"
	"time"

	"github.com/uptrace/bun"

	"storeadmin/internal/auth"
	"storeadmin/internal/placement"
	"storeadmin/models"
)

// Every change to an order runs in changeOrder: one transaction, the order
// row locked (concurrent refunds and shipments of one order serialise), the
// statuses recomputed from what is stored, a timeline entry, and the event
// with the order's detail view, committed with the change or not at all.

// maxNote is the longest note of an order, its cancellation or a shipment.
const maxNote = 5000

// orderChange changes a locked order and names the topics it emits.
type orderChange func(ctx context.Context, tx bun.Tx, o *models.Order, now time.Time) (topics []string, err error)

// changeOrder applies change to the order id of the caller's store and
// emits the topics it names with the changed order.
func (r *Resolver) changeOrder(ctx context.Context, id int64, change orderChange) (*models.Order, error) {
	sid, err := storeID(ctx)
	if err != nil {
		return nil, err
	}
	var out *models.Order
	err = r.db(ctx).RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		o, err := models.LockOrder(ctx, tx, sid, id)
		if err != nil {
			return err
		}
		topics, err := change(ctx, tx, o, r.Now().UTC())
		if err != nil {
			return err
		}
		out = o
		for _, topic := range topics {
			if err := r.emit(ctx, tx, topic, o.StoreID, o.ID); err != nil {
				return err
			}
		}
		return nil
	})
	return out, err
}

// emit records topic for the order inside tx, carrying the order as
// GET /store/orders/{id} shows it at this point of the transaction.
func (r *Resolver) emit(ctx context.Context, tx bun.Tx, topic string, storeID, orderID int64) error {
	return r.announcer().Order(ctx, tx, topic, storeID, orderID)
}

// announcer emits the events of orders, and places orders with theirs.
func (r *Resolver) announcer() placement.Announcer {
	return placement.Announcer{Events: r.Events, OrderView: r.OrderView}
}

// actorSource names who made a change, for the order's timeline.
func actorSource(ctx context.Context) string {
	if p := auth.PrincipalFrom(ctx); p != nil && p.IsKey() {
		return "api"
	}
	return "admin"
}
