package resolvers

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"math/big"
	"net/url"
	"strings"
	"time"

	"github.com/uptrace/bun"

	"storeadmin/graph"
	"storeadmin/internal/apperr"
	"storeadmin/internal/auth"
	"storeadmin/internal/events"
	"storeadmin/models"
)

// Every change to an order runs in changeOrder: one transaction, the order
// row locked (concurrent refunds and shipments of one order serialise), the
// statuses recomputed from what is stored, a timeline entry, and the event
// with the order's detail view, committed with the change or not at all.

const (
	maxNote        = 5000
	maxCarrier     = 100
	maxTrackingURL = 2048
)

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
	if r.Events == nil {
		return nil
	}
	data, err := r.OrderView(ctx, tx, storeID, orderID)
	if err != nil {
		return fmt.Errorf("render %s payload: %w", topic, err)
	}
	_, err = r.Events.Emit(ctx, tx, events.Event{StoreID: storeID, Topic: topic, Resource: "order", ResourceID: orderID, Data: data})
	return err
}

// actorSource names who made a change, for the order's timeline.
func actorSource(ctx context.Context) string {
	if p := auth.PrincipalFrom(ctx); p != nil && p.IsKey() {
		return "api"
	}
	return "admin"
}

// timeline appends an entry to o's timeline.
func timeline(ctx context.Context, tx bun.IDB, o *models.Order, name string, at time.Time, amount *int64, txID *int64, detail any) error {
	return models.AddOrderEvents(ctx, tx, models.OrderEvent{
		StoreID: o.StoreID, OrderID: o.ID, Name: name, Source: actorSource(ctx),
		AmountCents: amount, TransactionID: txID, Detail: detail, At: at,
	})
}

// updateNoteTags replaces the note and tags the input sends.
func updateNoteTags(in graph.OrderUpdateInput) orderChange {
	return func(ctx context.Context, tx bun.Tx, o *models.Order, now time.Time) ([]string, error) {
		if in.Note == nil && in.Tags == nil {
			return nil, apperr.Invalidf("send note, tags or both")
		}
		changed := []string{}
		if in.Note != nil {
			note, err := text("note", *in.Note, maxNote, false)
			if err != nil {
				return nil, err
			}
			if note != o.Note {
				changed = append(changed, "note_updated")
			}
			o.Note = note
		}
		if in.Tags != nil {
			tags, err := parseTags(in.Tags)
			if err != nil {
				return nil, err
			}
			if strings.Join(tags, ",") != strings.Join(o.Tags, ",") {
				changed = append(changed, "tags_updated")
			}
			o.Tags = tags
		}
		if err := models.UpdateOrderNoteTags(ctx, tx, o); err != nil {
			return nil, err
		}
		for _, name := range changed {
			detail := map[string]any{"note": o.Note}
			if name == "tags_updated" {
				detail = map[string]any{"tags": o.Tags}
			}
			if err := timeline(ctx, tx, o, name, now, nil, nil, detail); err != nil {
				return nil, err
			}
		}
		return nil, nil
	}
}

// parseTags accepts a list of strings or one comma-separated string.
func parseTags(v any) ([]string, error) {
	const msg = "tags must be a list of strings or one comma-separated string"
	var raw []string
	switch t := v.(type) {
	case string:
		raw = strings.Split(t, ",")
	case []any:
		for _, e := range t {
			s, ok := e.(string)
			if !ok {
				return nil, apperr.Invalidf(msg)
			}
			raw = append(raw, s)
		}
	default:
		return nil, apperr.Invalidf(msg)
	}
	return checkTags(raw)
}

// archive closes an open order.
func archive(ctx context.Context, tx bun.Tx, o *models.Order, now time.Time) ([]string, error) {
	switch o.Status {
	case models.OrderArchived:
		return nil, apperr.Conflictf("order %s is already archived", o.OrderNumberDisplay)
	case models.OrderCancelled:
		return nil, apperr.Conflictf("order %s is cancelled; only open orders can be archived", o.OrderNumberDisplay)
	}
	o.Status, o.ArchivedAt = models.OrderArchived, &now
	if err := models.SetOrderStatus(ctx, tx, o, now); err != nil {
		return nil, err
	}
	return nil, timeline(ctx, tx, o, "archived", now, nil, nil, nil)
}

// cancel cancels an order that has nothing shipped: open authorizations
// are voided, and on request the unshipped quantities go back to stock and
// everything captured is refunded.
func (r *Resolver) cancel(in graph.OrderCancelInput) orderChange {
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
				ExternalID: externalID("void"), PaymentMethod: auth.PaymentMethod, CreatedAt: now,
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
			refund := refundPlan{restock: deref(in.Restock), reason: "order cancelled"}
			for _, l := range lines {
				if left := l.Quantity - l.RefundedQuantity; left > 0 {
					refund.items = append(refund.items, models.RefundLineItem{LineItemID: l.ID, Quantity: left})
				}
			}
			refund.amount = money.Refundable()
			if refund.amount > 0 || len(refund.items) > 0 {
				if _, err := r.applyRefund(ctx, tx, o, lines, txs, refund, now); err != nil {
					return nil, err
				}
				if refund.amount > 0 {
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

// refundPlan is a checked refund: the quantities it gives back and the
// money it returns.
type refundPlan struct {
	items   []models.RefundLineItem
	amount  int64
	restock bool
	reason  string
}

// planRefund checks a refund request against the order's lines and money.
// Without amount_cents the amount is the lines' share of what the shopper
// paid for them (price less its share of the discount, plus its share of
// the tax), plus shipping when asked, capped at what is refundable.
func planRefund(in graph.RefundInput, o *models.Order, lines []models.OrderLineItem, refundable int64) (refundPlan, error) {
	plan := refundPlan{restock: deref(in.Restock)}
	var err error
	if plan.reason, err = text("reason", deref(in.Reason), maxTitle, false); err != nil {
		return plan, err
	}
	if len(in.LineItems) == 0 && in.AmountCents == nil && !deref(in.RefundShipping) {
		return plan, apperr.Invalidf("send line_items, amount_cents or refund_shipping: what should be refunded?")
	}
	if in.AmountCents != nil && *in.AmountCents < 0 {
		return plan, apperr.Invalidf("amount_cents must not be negative")
	}
	asked := make([]lineQuantity, len(in.LineItems))
	for i, it := range in.LineItems {
		asked[i] = lineQuantity{it.LineItemID, it.Quantity}
	}
	picked, err := pickLines(asked, o, lines, "refund", func(l models.OrderLineItem) int64 { return l.Quantity - l.RefundedQuantity })
	if err != nil {
		return plan, err
	}
	var goods int64
	for _, p := range picked {
		plan.items = append(plan.items, models.RefundLineItem{LineItemID: p.line.ID, Quantity: p.quantity})
		goods += p.line.PriceCents * p.quantity
	}
	if in.AmountCents != nil {
		plan.amount = *in.AmountCents
		if plan.amount > refundable {
			return plan, apperr.Conflictf("order %s has %d refundable (captured and not yet refunded); %d is more than that", o.OrderNumberDisplay, refundable, plan.amount)
		}
	} else {
		if o.SubtotalCents > 0 {
			paidForGoods := o.SubtotalCents - o.DiscountCents + o.TaxCents
			plan.amount = shareOf(goods, paidForGoods, o.SubtotalCents)
		}
		if deref(in.RefundShipping) {
			plan.amount += o.ShippingCents
		}
		plan.amount = min(plan.amount, refundable)
	}
	if plan.amount == 0 && len(plan.items) == 0 {
		return plan, apperr.Conflictf("order %s has nothing left to refund", o.OrderNumberDisplay)
	}
	return plan, nil
}

// shareOf is part × whole / of, rounded half up, without overflowing for
// any amounts the columns hold.
func shareOf(part, whole, of int64) int64 {
	n := new(big.Int).Mul(big.NewInt(part), big.NewInt(whole))
	n.Add(n, big.NewInt(of/2))
	return n.Quo(n, big.NewInt(of)).Int64()
}

// refund makes a refund of the order.
func (r *Resolver) refund(in graph.RefundInput, out *models.Refund) orderChange {
	return func(ctx context.Context, tx bun.Tx, o *models.Order, now time.Time) ([]string, error) {
		lines, err := models.OrderLines(ctx, tx, o.StoreID, o.ID)
		if err != nil {
			return nil, err
		}
		txs, err := models.OrderTransactions(ctx, tx, o.StoreID, o.ID)
		if err != nil {
			return nil, err
		}
		plan, err := planRefund(in, o, lines, models.SumMoney(txs).Refundable())
		if err != nil {
			return nil, err
		}
		refund, err := r.applyRefund(ctx, tx, o, lines, txs, plan, now)
		if err != nil {
			return nil, err
		}
		if err := models.RefreshOrderState(ctx, tx, o, now); err != nil {
			return nil, err
		}
		*out = *refund
		out.OrderFinancialStatus = o.FinancialStatus
		return []string{"order.refunded"}, nil
	}
}

// applyRefund records a planned refund: the refund, its lines, the money
// movement against the last capture, the restock, and the timeline entry.
func (r *Resolver) applyRefund(ctx context.Context, tx bun.Tx, o *models.Order, lines []models.OrderLineItem, txs []models.OrderTransaction, plan refundPlan, now time.Time) (*models.Refund, error) {
	refund := &models.Refund{
		StoreID: o.StoreID, OrderID: o.ID, AmountCents: plan.amount, Currency: o.Currency,
		Status: models.TxSuccess, Reason: plan.reason, Restock: plan.restock, CreatedAt: now,
	}
	if err := models.InsertRefund(ctx, tx, refund, plan.items); err != nil {
		return nil, err
	}
	var txID *int64
	if plan.amount > 0 {
		parent := lastCapture(txs)
		t := models.OrderTransaction{
			StoreID: o.StoreID, OrderID: o.ID, RefundID: &refund.ID, Kind: models.TxRefund, Status: models.TxSuccess,
			AmountCents: plan.amount, Currency: o.Currency, ExternalID: externalID("re"), CreatedAt: now,
		}
		if parent != nil {
			t.ParentID, t.Provider, t.PaymentMethod = &parent.ID, parent.Provider, parent.PaymentMethod
		}
		if err := models.InsertTransaction(ctx, tx, &t); err != nil {
			return nil, err
		}
		txID = &t.ID
	}
	if plan.restock {
		variantOf := map[int64]*int64{}
		for _, l := range lines {
			variantOf[l.ID] = l.VariantID
		}
		back := map[int64]int64{}
		for _, it := range plan.items {
			if v := variantOf[it.LineItemID]; v != nil {
				back[*v] += it.Quantity
			}
		}
		if err := models.AdjustInventory(ctx, tx, o.StoreID, back); err != nil {
			return nil, err
		}
	}
	detail := map[string]any{"refund_id": refund.ID, "line_items": plan.items, "restock": plan.restock}
	if plan.reason != "" {
		detail["reason"] = plan.reason
	}
	return refund, timeline(ctx, tx, o, "refunded", now, &plan.amount, txID, detail)
}

// lastCapture is the newest successful capture or sale: refunds go back
// the way the money came.
func lastCapture(txs []models.OrderTransaction) *models.OrderTransaction {
	for i := len(txs) - 1; i >= 0; i-- {
		if t := txs[i]; t.Status == models.TxSuccess && (t.Kind == models.TxCapture || t.Kind == models.TxSale) {
			return &txs[i]
		}
	}
	return nil
}

// externalID names a transaction the service itself made, as a payment
// provider would ("re_…" for a refund).
func externalID(prefix string) string {
	b := make([]byte, 12)
	rand.Read(b) //nolint:errcheck // crypto/rand.Read does not fail on supported platforms
	return prefix + "_" + hex.EncodeToString(b)
}

// trackingURLs are the public tracking pages of carriers most stores use.
var trackingURLs = map[string]string{
	"ups":   "https://www.ups.com/track?tracknum=",
	"usps":  "https://tools.usps.com/go/TrackConfirmAction?tLabels=",
	"fedex": "https://www.fedex.com/fedextrack/?trknbr=",
	"dhl":   "https://www.dhl.com/global-en/home/tracking/tracking-express.html?submit=1&tracking-id=",
}

// fulfil ships lines of the order: the listed quantities, or everything
// left to ship.
func fulfil(in graph.FulfillmentInput, out *models.Fulfillment) orderChange {
	return func(ctx context.Context, tx bun.Tx, o *models.Order, now time.Time) ([]string, error) {
		f := models.Fulfillment{StoreID: o.StoreID, OrderID: o.ID, Status: models.ShipmentSuccess, CreatedAt: now}
		var err error
		if f.Carrier, err = text("carrier", deref(in.Carrier), maxCarrier, false); err != nil {
			return nil, err
		}
		if f.TrackingNumber, err = text("tracking_number", deref(in.TrackingNumber), maxTitle, false); err != nil {
			return nil, err
		}
		if f.Note, err = text("note", deref(in.Note), maxNote, false); err != nil {
			return nil, err
		}
		if f.TrackingURL, err = trackingURL(deref(in.TrackingURL), f.Carrier, f.TrackingNumber); err != nil {
			return nil, err
		}
		if o.Status == models.OrderCancelled {
			return nil, apperr.Conflictf("order %s is cancelled; it cannot be shipped", o.OrderNumberDisplay)
		}
		lines, err := models.OrderLines(ctx, tx, o.StoreID, o.ID)
		if err != nil {
			return nil, err
		}
		items, err := shipmentItems(in.LineItems, o, lines)
		if err != nil {
			return nil, err
		}
		if err := models.InsertFulfillment(ctx, tx, &f, items); err != nil {
			return nil, err
		}
		if err := models.RefreshOrderState(ctx, tx, o, now); err != nil {
			return nil, err
		}
		*out = f
		return []string{"order.fulfilled"}, timeline(ctx, tx, o, "fulfilled", now, nil, nil, map[string]any{
			"fulfillment_id": f.ID, "carrier": f.Carrier, "tracking_number": f.TrackingNumber, "items": items,
		})
	}
}

// shipmentItems checks the lines a shipment carries; none listed means
// everything left to ship.
func shipmentItems(in []graph.FulfillmentLineInput, o *models.Order, lines []models.OrderLineItem) ([]models.FulfillmentItem, error) {
	var items []models.FulfillmentItem
	if len(in) == 0 {
		for _, l := range lines {
			if n := l.Unfulfilled(); n > 0 {
				items = append(items, models.FulfillmentItem{LineItemID: l.ID, Quantity: n})
			}
		}
		if len(items) == 0 {
			return nil, apperr.Conflictf("order %s has nothing left to ship", o.OrderNumberDisplay)
		}
		return items, nil
	}
	asked := make([]lineQuantity, len(in))
	for i, it := range in {
		asked[i] = lineQuantity{it.LineItemID, it.Quantity}
	}
	picked, err := pickLines(asked, o, lines, "ship", models.OrderLineItem.Unfulfilled)
	if err != nil {
		return nil, err
	}
	for _, p := range picked {
		items = append(items, models.FulfillmentItem{LineItemID: p.line.ID, Quantity: p.quantity})
	}
	return items, nil
}

// lineQuantity is a quantity of one line that a refund or shipment names.
type lineQuantity struct{ lineID, quantity int64 }

// pickedLine is a checked lineQuantity with its line.
type pickedLine struct {
	line     models.OrderLineItem
	quantity int64
}

// pickLines checks the lines a refund or shipment names: lines of the order,
// each once, at least 1 of each, and at most left of it (409 beyond, with
// verb saying what is left to do).
func pickLines(asked []lineQuantity, o *models.Order, lines []models.OrderLineItem, verb string, left func(models.OrderLineItem) int64) ([]pickedLine, error) {
	byID := map[int64]models.OrderLineItem{}
	for _, l := range lines {
		byID[l.ID] = l
	}
	out := make([]pickedLine, 0, len(asked))
	seen := map[int64]bool{}
	for i, a := range asked {
		l, ok := byID[a.lineID]
		switch {
		case !ok:
			return nil, apperr.Invalidf("line_items[%d]: line %d is not a line of order %s", i, a.lineID, o.OrderNumberDisplay)
		case seen[a.lineID]:
			return nil, apperr.Invalidf("line_items[%d]: line %d is listed twice", i, a.lineID)
		case a.quantity < 1:
			return nil, apperr.Invalidf("line_items[%d]: quantity must be at least 1", i)
		case a.quantity > left(l):
			return nil, apperr.Conflictf("line %d (%s) has %d left to %s, not %d", l.ID, l.Title, left(l), verb, a.quantity)
		}
		seen[a.lineID] = true
		out = append(out, pickedLine{l, a.quantity})
	}
	return out, nil
}

// trackingURL checks a tracking link, or makes one for a known carrier.
func trackingURL(raw, carrier, number string) (string, error) {
	raw = strings.TrimSpace(raw)
	if raw == "" {
		if base, ok := trackingURLs[strings.ToLower(carrier)]; ok && number != "" {
			return base + url.QueryEscape(number), nil
		}
		return "", nil
	}
	u, err := url.Parse(raw)
	if len(raw) > maxTrackingURL || err != nil || !u.IsAbs() || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") {
		return "", apperr.Invalidf("tracking_url must be an absolute http or https URL of at most %d characters", maxTrackingURL)
	}
	return u.String(), nil
}

// cancelShipment cancels the fulfillment id; its quantities return to
// the order.
func cancelShipment(ctx context.Context, tx bun.IDB, storeID, id int64, now time.Time) (*models.Order, error) {
	f, err := models.GetFulfillment(ctx, tx, storeID, id)
	if err != nil {
		return nil, err
	}
	o, err := models.LockOrder(ctx, tx, storeID, f.OrderID)
	if err != nil {
		return nil, err
	}
	if f, err = models.GetFulfillment(ctx, tx, storeID, id); err != nil {
		return nil, err
	}
	if f.Status == models.ShipmentCancelled {
		return nil, apperr.Conflictf("fulfillment %d is already cancelled", f.ID)
	}
	if err := models.CancelFulfillment(ctx, tx, f, now); err != nil {
		return nil, err
	}
	if err := models.RefreshOrderState(ctx, tx, o, now); err != nil {
		return nil, err
	}
	return o, timeline(ctx, tx, o, "fulfillment_cancelled", now, nil, nil, map[string]any{"fulfillment_id": f.ID})
}
