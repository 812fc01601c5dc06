// Package placement places orders and announces them: the one path of
// every order a shopper or a merchant completes (a draft marked as paid,
// a storefront checkout completed). It places the order with
// models.PlaceOrder, marks the abandoned carts and checkouts the order
// recovers (models.MarkRecovered), and emits order.paid and
// checkout.recovered in the placement's transaction, so an order and its
// announcements are written together or not at all.
package placement

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/uptrace/bun"

	"storeadmin/internal/events"
	"storeadmin/models"
)

// Announcer emits the events of orders.
type Announcer struct {
	// Events records events for delivery; nil emits nothing (commands and
	// tests without webhooks).
	Events *events.Engine
	// OrderView is what GET /store/orders/{id} answers for the order, read
	// through tx: the payload of an order's events (internal/app/server
	// wires it to the REST read, so events and reads cannot drift).
	OrderView func(ctx context.Context, tx bun.IDB, storeID, orderID int64) (json.RawMessage, error)
}

// Order emits topic for the order, with its REST view as of tx.
func (a Announcer) Order(ctx context.Context, tx bun.Tx, topic string, storeID, orderID int64) error {
	if a.Events == nil {
		return nil
	}
	data, err := a.OrderView(ctx, tx, storeID, orderID)
	if err != nil {
		return fmt.Errorf("render %s payload: %w", topic, err)
	}
	_, err = a.Events.Emit(ctx, tx, events.Event{StoreID: storeID, Topic: topic, Resource: "order", ResourceID: orderID, Data: data})
	return err
}

// Place places p in tx as paid (models.PlaceOrder), marks what the order
// recovers and emits order.paid, then checkout.recovered once for each
// abandoned checkout or cart it recovered. Roll tx back on an error.
func (a Announcer) Place(ctx context.Context, tx bun.Tx, p models.OrderPlacement) (*models.Order, error) {
	o, err := models.PlaceOrder(ctx, tx, p)
	if err != nil {
		return nil, err
	}
	recovered, err := models.MarkRecovered(ctx, tx, o, p.Now)
	if err != nil {
		return nil, err
	}
	if err := a.Order(ctx, tx, "order.paid", o.StoreID, o.ID); err != nil {
		return nil, err
	}
	if len(recovered) == 0 || a.Events == nil {
		return o, nil
	}
	view, err := a.OrderView(ctx, tx, o.StoreID, o.ID)
	if err != nil {
		return nil, fmt.Errorf("render checkout.recovered payload: %w", err)
	}
	for _, r := range recovered {
		if err := a.recovered(ctx, tx, o, view, r); err != nil {
			return nil, err
		}
	}
	return o, nil
}

// recoveredView is the data of checkout.recovered: what was recovered
// (a checkout, or a cart: the spec has no cart.recovered, and for a
// merchant both are a sale won back) and the order that recovered it, as
// GET /store/orders/{id} answers it.
type recoveredView struct {
	Recovered recoveredRecord `json:"recovered"`
	Order     json.RawMessage `json:"order"`
}

type recoveredRecord struct {
	Resource    string `json:"resource"`
	Token       string `json:"token"`
	Email       string `json:"email"`
	AbandonedAt string `json:"abandoned_at"`
	RecoveredAt string `json:"recovered_at"`
}

// recovered emits checkout.recovered for r, recovered by order o whose
// REST view is order.
func (a Announcer) recovered(ctx context.Context, tx bun.Tx, o *models.Order, order json.RawMessage, r models.Recovered) error {
	object, err := orderObject(order)
	if err != nil {
		return fmt.Errorf("render checkout.recovered payload: %w", err)
	}
	const at = time.RFC3339
	data, err := json.Marshal(recoveredView{Order: object, Recovered: recoveredRecord{Resource: r.Resource, Token: r.Token,
		Email: r.Email, AbandonedAt: r.AbandonedAt.UTC().Format(at), RecoveredAt: r.RecoveredAt.UTC().Format(at)}})
	if err != nil {
		return err
	}
	_, err = a.Events.Emit(ctx, tx, events.Event{StoreID: o.StoreID, Topic: "checkout.recovered", Resource: r.Resource, ResourceID: r.ID, Data: data})
	return err
}

// OrderObject is the order as GET /store/orders/{id} answers it, read
// through tx, without its envelope: what an event carries beside a record
// of its own (checkout.recovered, upsell.accepted).
func (a Announcer) OrderObject(ctx context.Context, tx bun.IDB, storeID, orderID int64) (json.RawMessage, error) {
	view, err := a.OrderView(ctx, tx, storeID, orderID)
	if err != nil {
		return nil, err
	}
	return orderObject(view)
}

// orderObject is the object under the "order" key of an order's REST view.
func orderObject(view json.RawMessage) (json.RawMessage, error) {
	var v struct {
		Order json.RawMessage `json:"order"`
	}
	err := json.Unmarshal(view, &v)
	return v.Order, err
}
