package seed

import (
	"fmt"
	"time"

	"storeadmin/models"
)

// ordNote is a staff note written on an order some time after checkout.
type ordNote struct {
	at   time.Time
	text string
}

// play writes the generated history through the domain: the orders are
// placed in bulk, oldest first; then each one's life is planned (it needs
// the placed lines' ids) and played.
//
// Placing takes the sold quantities from tracked stock and refuses to
// oversell, as a checkout does; the seeded catalogue's stock is what the
// store holds now, after the history. So the history's goods arrive first
// (its sold quantities are added with models.AdjustInventory), and what
// its cancellations and returns put back is taken out again at the end:
// the catalogue ends with exactly the stock it seeded, and no placement is
// refused or drains a variant.
func (g *ordGen) play() error {
	seeded, err := g.stock()
	if err != nil {
		return err
	}
	sold := map[int64]int64{}
	for _, oo := range g.orders {
		for _, l := range oo.lines {
			sold[*l.VariantID] += l.Quantity
		}
	}
	if err := models.AdjustInventory(g.ctx, g.tx, g.storeID, sold); err != nil {
		return fmt.Errorf("stock for the history: %w", err)
	}
	ps := make([]models.OrderPlacement, len(g.orders))
	for i, oo := range g.orders {
		ps[i] = models.OrderPlacement{
			Order: &oo.o, Lines: oo.lines, Payment: g.checkout(oo), Guest: oo.cust == nil,
			Actor: oo.actor, Now: oo.o.CreatedAt,
			Created: map[string]any{"source": oo.o.Source, "line_items": len(oo.lines)},
		}
		if oo.cust != nil {
			ps[i].AcceptsMarketing = oo.cust.c.AcceptsMarketing
		}
	}
	if _, err := models.PlaceOrders(g.ctx, g.tx, ps); err != nil {
		return fmt.Errorf("placing orders: %w", err)
	}
	for _, oo := range g.orders {
		g.settle(oo)
		g.close(oo)
	}
	if err := g.playLives(); err != nil {
		return err
	}
	now, err := g.stock()
	if err != nil {
		return err
	}
	back := map[int64]int64{}
	for id, q := range now {
		back[id] = seeded[id] - q
	}
	return models.AdjustInventory(g.ctx, g.tx, g.storeID, back)
}

// stock reads the tracked stock of the variants the history sells.
func (g *ordGen) stock() (map[int64]int64, error) {
	var ids []int64
	for _, p := range g.products {
		for _, v := range p.variants {
			ids = append(ids, v.id)
		}
	}
	vs, err := models.VariantsByID(g.ctx, g.tx, g.storeID, ids, models.AllColumns)
	out := make(map[int64]int64, len(vs))
	for _, v := range vs {
		if v.TrackInventory {
			out[v.ID] = v.InventoryQuantity
		}
	}
	return out, err
}

// close ends the order's history: the staff note if it is still to come,
// and old orders shipped and paid (nothing given back) get archived.
func (g *ordGen) close(oo *ordOrder) {
	if n := oo.note; n != nil && n.at.Before(g.now) {
		g.writeNote(oo)
	}
	if !oo.cancelled && oo.allShipped && oo.paid && !oo.refunded && g.now.Sub(oo.last) > 20*24*time.Hour && g.rng.Float64() < 0.5 {
		at := oo.last.Add(g.dur(5*24*time.Hour, 20*24*time.Hour))
		actor := []string{"system", "admin"}[g.rng.IntN(2)]
		if at.Before(g.now) {
			g.plan(oo, ordStep{at: at, archive: &models.Archival{Actor: actor}})
		}
	}
}

// ordStep is one change of a placed order's life, at its time: exactly
// one of the changes is set. The requests' Order and Now are filled when
// it is played.
type ordStep struct {
	at      time.Time
	capture *models.Capture
	payment *models.Received
	ship    *models.Shipment
	shipped *models.Fulfillment // what ship made, once played; a later unship names it
	unship  *models.Fulfillment
	refund  *models.RefundRequest
	cancel  *models.Cancellation
	note    *string
	archive *models.Archival
}

// plan adds a change to the order's life, after its staff note if the
// note's time is due first, so that each order's changes are in time
// order.
func (g *ordGen) plan(oo *ordOrder, st ordStep) {
	if n := oo.note; n != nil && !n.at.After(st.at) {
		g.writeNote(oo)
	}
	st.at = st.at.Truncate(time.Second)
	oo.steps = append(oo.steps, st)
	oo.last = st.at
}

// playLives plays the planned changes through the domain in rounds: round
// r plays every order's r-th change, so each order's changes run one
// after another in time order. Each kind takes one bulk call per round
// (FulfilOrders, CancelFulfillments, CapturePayments, RecordPayments,
// RefundOrders, CancelOrders, ArchiveOrders), but the few staff notes,
// which are played order by order. The seed's transaction placed the orders and nobody else sees
// them, so no lock is taken.
func (g *ordGen) playLives() error {
	ctx, tx := g.ctx, g.tx
	for r := 0; ; r++ {
		var (
			ships    []models.Shipment
			shipped  []*models.Fulfillment
			captures []models.Capture
			payments []models.Received
			archives []models.Archival
			refunds  []models.RefundRequest
			cancels  []models.Cancellation
			unships  []models.ShipmentCancellation
			more     bool
		)
		for _, oo := range g.orders {
			if r >= len(oo.steps) {
				continue
			}
			more = true
			st, o := &oo.steps[r], &oo.o
			var err error
			switch {
			case st.ship != nil:
				st.ship.Order, st.ship.Now = o, st.at
				ships, shipped = append(ships, *st.ship), append(shipped, st.shipped)
			case st.capture != nil:
				st.capture.Order, st.capture.Now = o, st.at
				captures = append(captures, *st.capture)
			case st.payment != nil:
				st.payment.Order, st.payment.Now = o, st.at
				payments = append(payments, *st.payment)
			case st.archive != nil:
				st.archive.Order, st.archive.Now = o, st.at
				archives = append(archives, *st.archive)
			case st.unship != nil:
				unships = append(unships, models.ShipmentCancellation{Order: o, Fulfillment: st.unship, Actor: "admin", Now: st.at})
			case st.refund != nil:
				st.refund.Order, st.refund.Actor, st.refund.Now = o, "admin", st.at
				refunds = append(refunds, *st.refund)
			case st.cancel != nil:
				st.cancel.Order, st.cancel.Actor, st.cancel.Now = o, "admin", st.at
				cancels = append(cancels, *st.cancel)
			case st.note != nil:
				err = models.UpdateOrderNoteTags(ctx, tx, o, st.note, nil, "admin", st.at)
			}
			if err != nil {
				return fmt.Errorf("order %s at %s: %w", o.OrderNumberDisplay, st.at.Format(time.RFC3339), err)
			}
		}
		if !more {
			return nil
		}
		fs, err := models.FulfilOrders(ctx, tx, ships)
		if err != nil {
			return fmt.Errorf("shipments: %w", err)
		}
		for i := range fs {
			*shipped[i] = fs[i]
		}
		if _, err := models.CapturePayments(ctx, tx, captures); err != nil {
			return fmt.Errorf("captures: %w", err)
		}
		if _, err := models.RecordPayments(ctx, tx, payments); err != nil {
			return fmt.Errorf("payments: %w", err)
		}
		if err := models.CancelFulfillments(ctx, tx, unships); err != nil {
			return fmt.Errorf("cancelled shipments: %w", err)
		}
		if _, err := models.CancelOrders(ctx, tx, cancels); err != nil {
			return fmt.Errorf("cancellations: %w", err)
		}
		if _, err := models.RefundOrders(ctx, tx, refunds); err != nil {
			return fmt.Errorf("refunds: %w", err)
		}
		if err := models.ArchiveOrders(ctx, tx, archives); err != nil {
			return fmt.Errorf("archiving: %w", err)
		}
	}
}

// writeNote plans the order's staff note, at its time.
func (g *ordGen) writeNote(oo *ordOrder) {
	n := oo.note
	oo.note = nil
	g.plan(oo, ordStep{at: n.at, note: &n.text})
}

// capture plans capturing the order's authorization at at; failure is the
// gateway's refusal, or empty.
func (g *ordGen) capture(oo *ordOrder, at time.Time, failure, actor string) {
	ref := g.externalID(oo.pay.provider, models.TxCapture)
	g.plan(oo, ordStep{at: at, capture: &models.Capture{Reference: ref, Failure: failure, Actor: actor}})
	if failure == "" {
		oo.paid = true
	}
}

// received plans money arriving for the order after checkout; paid says
// it settles what is due.
func (g *ordGen) received(oo *ordOrder, at time.Time, amount int64, ref, note, actor string, paid bool) {
	g.plan(oo, ordStep{at: at, payment: &models.Received{Provider: oo.pay.provider, Method: oo.pay.method,
		Reference: ref, AmountCents: amount, Note: note, Actor: actor}})
	oo.paid = paid
}

// fulfilOrder plans a shipment of the order at at and returns what it
// will have made, once played.
func (g *ordGen) fulfilOrder(oo *ordOrder, at time.Time, s models.Shipment) *models.Fulfillment {
	f := new(models.Fulfillment)
	g.plan(oo, ordStep{at: at, ship: &s, shipped: f})
	oo.lastShip = at
	return f
}

// cancelShipment plans cancelling the shipment f of the order at at: its
// label was voided.
func (g *ordGen) cancelShipment(oo *ordOrder, f *models.Fulfillment, at time.Time) {
	g.plan(oo, ordStep{at: at, unship: f})
}

// refund plans a refund of the order at at, by the staff.
func (g *ordGen) refund(oo *ordOrder, at time.Time, r models.RefundRequest) {
	g.plan(oo, ordStep{at: at, refund: &r})
	oo.refunded = true
}

// cancelOrder plans cancelling the order at at, by the staff.
func (g *ordGen) cancelOrder(oo *ordOrder, at time.Time, c models.Cancellation) {
	g.plan(oo, ordStep{at: at, cancel: &c})
	oo.cancelled = true
}
