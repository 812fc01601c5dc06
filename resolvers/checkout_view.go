package resolvers

import (
	"context"
	"encoding/json"
	"time"

	"github.com/uptrace/bun"

	"storeadmin/graph"
	"storeadmin/internal/base/sheets/ordersheet"
	"storeadmin/models"
)

// authorizationLifetime is how long an authorization is taken to hold when
// the payment provider gave no expiry: 7 days, the usual hold of an online
// card authorization.
const authorizationLifetime = 7 * 24 * time.Hour

// checkoutState is the state of a checkout that became an order.
const checkoutState = "completed"

// orderCheckout is the checkout that produced the authorization p of order
// o, as the order recorded it. There is no checkouts table yet, so only
// what the order kept is shown: the checkout is completed, was never
// abandoned or recovered, and has no session or browsing. The timeline is
// the order's, up to maxActivityEvents entries.
func orderCheckout(ctx context.Context, db bun.IDB, o *models.Order, p *models.AwaitingCapture) (*graph.Checkout, error) {
	lines, err := models.OrderLines(ctx, db, o.StoreID, o.ID)
	if err != nil {
		return nil, err
	}
	txs, err := models.OrderTransactions(ctx, db, o.StoreID, o.ID)
	if err != nil {
		return nil, err
	}
	entries, _, err := models.OrderEvents(ctx, db, o.StoreID, o.ID, maxActivityEvents)
	if err != nil {
		return nil, err
	}
	var customer *models.Customer
	if o.CustomerID != nil {
		cs, err := models.CustomersByID(ctx, db, o.StoreID, []int64{*o.CustomerID}, models.AllColumns)
		if err != nil {
			return nil, err
		}
		if len(cs) == 1 {
			customer = &cs[0]
		}
	}

	c := &graph.Checkout{
		Attempts:        checkoutAttempts(txs),
		BillingAddress:  o.BillingAddress,
		CreatedAt:       o.CreatedAt,
		Currency:        o.Currency,
		DiscountCents:   o.DiscountCents,
		DiscountCode:    nonEmpty(o.DiscountCode),
		Email:           o.Email,
		Lines:           checkoutLines(lines),
		ShippingAddress: o.ShippingAddress,
		ShippingCents:   o.ShippingCents,
		ShippingLine:    o.ShippingLine,
		State:           checkoutState,
		SubtotalCents:   o.SubtotalCents,
		SurchargeCents:  o.SurchargeCents,
		TaxCents:        o.TaxCents,
		Timeline:        checkoutTimeline(o, entries, txs),
		TipCents:        o.TipCents,
		Token:           o.Token,
		TotalCents:      o.TotalCents,
		UpdatedAt:       o.UpdatedAt,
	}
	if o.CheckoutStartedAt != nil {
		c.CreatedAt = *o.CheckoutStartedAt
	}
	if p.ExpiresAt != nil {
		c.ExpiresAt = *p.ExpiresAt
	} else {
		c.ExpiresAt = p.AuthorizedAt.Add(authorizationLifetime)
	}
	if customer != nil {
		c.MarketingConsent = customer.AcceptsMarketing
		c.Phone = customer.Phone
	}
	if c.Phone == "" {
		c.Phone = firstNonEmpty(ordersheet.AddressFrom(o.BillingAddress).Phone, ordersheet.AddressFrom(o.ShippingAddress).Phone)
	}
	if c.Utm, err = attributionObject(o.Attribution); err != nil {
		return nil, err
	}
	c.Tracking = clickTracking(o.Attribution)
	return c, nil
}

// checkoutLines are the order's lines as the checkout's.
func checkoutLines(lines []models.OrderLineItem) []graph.CheckoutLine {
	out := make([]graph.CheckoutLine, len(lines))
	for i, l := range lines {
		out[i] = graph.CheckoutLine{
			ImageSrc: nonEmpty(l.ImageSrc), PriceCents: l.PriceCents, Properties: l.Properties,
			Quantity: l.Quantity, Sku: nonEmpty(l.SKU), Title: l.Title, VariantTitle: nonEmpty(l.VariantTitle),
		}
	}
	return out
}

// checkoutAttempts are the order's attempts to take its payment:
// authorizations, captures and sales, oldest first. Authorizations and
// their captures are captured by the merchant (manual); a sale has no
// capture model.
func checkoutAttempts(txs []models.OrderTransaction) []graph.CheckoutPaymentAttempt {
	manual := "manual"
	out := []graph.CheckoutPaymentAttempt{}
	for _, t := range txs {
		a := graph.CheckoutPaymentAttempt{
			AmountCents: t.AmountCents, CreatedAt: t.CreatedAt, Currency: t.Currency, Error: t.Error,
			PaymentMethod: t.PaymentMethod, Provider: t.Provider, Status: t.Status, TransactionID: t.ID,
		}
		switch t.Kind {
		case models.TxAuthorization, models.TxCapture:
			a.CaptureModel = &manual
		case models.TxSale:
		default:
			continue
		}
		out = append(out, a)
	}
	return out
}

// checkoutTimeline is the order's timeline as the checkout's; an entry
// about a payment carries the transaction's provider, method and error.
func checkoutTimeline(o *models.Order, entries []models.OrderEvent, txs []models.OrderTransaction) []graph.CheckoutTimelineEvent {
	txByID := make(map[int64]models.OrderTransaction, len(txs))
	for _, t := range txs {
		txByID[t.ID] = t
	}
	out := make([]graph.CheckoutTimelineEvent, len(entries))
	for i, e := range entries {
		ev := graph.CheckoutTimelineEvent{
			AmountCents: e.AmountCents, Name: e.Name, OccurredAt: e.At, Source: e.Source,
			TransactionID: e.TransactionID,
		}
		if d, ok := e.Detail.(map[string]any); ok {
			ev.Detail = d
		}
		if e.AmountCents != nil {
			ev.Currency = &o.Currency
		}
		if e.TransactionID != nil {
			if t, ok := txByID[*e.TransactionID]; ok {
				ev.Provider, ev.PaymentMethod, ev.ErrorMessage = &t.Provider, t.PaymentMethod, t.Error
			}
		}
		out[i] = ev
	}
	return out
}

// attributionObject is the order's attribution as one JSON object: the
// five UTM parameters and whatever else was recorded; nil when none was.
func attributionObject(a *models.OrderAttribution) (any, error) {
	if a == nil {
		return nil, nil
	}
	b, err := json.Marshal(a)
	if err != nil {
		return nil, err
	}
	var m map[string]any
	return m, json.Unmarshal(b, &m)
}

// clickTracking is what of the order's click ids fits the tracking context:
// TikTok's ttclid, as recorded. Meta's fbc is not built from an fbclid,
// because its timestamp must be when the click was first seen, which the
// order does not record. Nil when nothing fits.
func clickTracking(a *models.OrderAttribution) *graph.CheckoutTracking {
	if a == nil {
		return nil
	}
	ids, _ := a.ClickIDs.(map[string]any)
	ttclid, _ := ids["ttclid"].(string)
	if ttclid == "" {
		return nil
	}
	return &graph.CheckoutTracking{Ttclid: &ttclid}
}

// nonEmpty is s, or nil when s is empty.
func nonEmpty(s string) *string {
	if s == "" {
		return nil
	}
	return &s
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
