package resolvers

import (
	"context"
	"strconv"
	"time"

	"github.com/uptrace/bun"

	"storeadmin/graph"
	"storeadmin/internal/apperr"
	"storeadmin/internal/pricing"
	"storeadmin/models"
)

// markPaid turns the draft id into a paid order, in one transaction: the
// draft is repriced as of now, the order copies its totals and lines, the
// payment is a successful sale, the code's usage is taken (a code used up
// meanwhile is a 409 and nothing is written), tracked stock goes down, and
// order.paid is emitted with the new order.
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
		o, err := placeOrder(ctx, tx, d, lines, now)
		if err != nil {
			return err
		}
		if err := r.redeem(ctx, tx, d, o, priced, now); err != nil {
			return err
		}
		if err := takeStock(ctx, tx, sid, lines); err != nil {
			return err
		}
		if err := payOrder(ctx, tx, o, provider, method, reference, now); err != nil {
			return err
		}
		d.Status, d.OrderID, d.CompletedAt, d.UpdatedAt = models.DraftCompleted, &o.ID, &now, now
		if err := models.SaveDraftOrder(ctx, tx, d); err != nil {
			return err
		}
		if err := r.emit(ctx, tx, "order.paid", sid, o.ID); err != nil {
			return err
		}
		out = &graph.DraftOrderPaid{OrderID: o.ID, OrderNumber: o.OrderNumber, OrderNumberDisplay: o.OrderNumberDisplay,
			ID: d.ID, Lines: lines, DraftOrder: d, Order: o}
		return nil
	})
	return out, err
}

// placeOrder stores the order a draft becomes: its customer, number,
// lines and totals, exactly as priced.
func placeOrder(ctx context.Context, tx bun.IDB, d *models.DraftOrder, lines []models.DraftOrderLine, now time.Time) (*models.Order, error) {
	o := &models.Order{
		StoreID: d.StoreID, Email: d.Email, Currency: d.Currency, Status: models.OrderOpen,
		FinancialStatus: models.FinancialPending, FulfillmentStatus: models.FulfillmentUnfulfilled,
		SubtotalCents: d.SubtotalCents, DiscountCents: d.DiscountCents, DiscountCode: d.DiscountCode,
		ShippingCents: d.ShippingCents, TaxCents: d.TaxCents, TotalCents: d.TotalCents,
		ShippingAddress: d.ShippingAddress, BillingAddress: d.BillingAddress, Note: d.Note, Tags: d.Tags,
		SystemTags: []string{"draft_order"}, Source: "draft_order", DraftOrderID: &d.ID,
		CheckoutStartedAt: &d.CreatedAt, CreatedAt: now, UpdatedAt: now,
	}
	if d.ShippingRateID != 0 {
		o.ShippingLine = map[string]any{"title": d.ShippingTitle, "code": "rate-" + strconv.FormatInt(d.ShippingRateID, 10), "price_cents": d.ShippingCents}
	}
	if d.Email != "" {
		c := &models.Customer{StoreID: d.StoreID, Email: d.Email}
		fillCustomerName(c, d.BillingAddress, d.ShippingAddress)
		if err := models.UpsertCustomer(ctx, tx, c); err != nil {
			return nil, err
		}
		o.CustomerID = &c.ID
	}
	var err error
	if o.OrderNumber, o.OrderNumberDisplay, err = models.NextOrderNumber(ctx, tx, d.StoreID); err != nil {
		return nil, err
	}
	items := make([]models.OrderLineItem, len(lines))
	for i, l := range lines {
		items[i] = models.OrderLineItem{
			VariantID: l.VariantID, ProductID: l.ProductID, Title: l.Title, VariantTitle: l.VariantTitle, SKU: l.SKU,
			PriceCents: l.PriceCents, Quantity: l.Quantity, RequiresShipping: l.RequiresShipping, Source: "draft_order",
		}
	}
	if err := models.InsertOrder(ctx, tx, o, items); err != nil {
		return nil, err
	}
	return o, models.AddOrderEvents(ctx, tx, models.OrderEvent{
		StoreID: o.StoreID, OrderID: o.ID, Name: "created", Source: actorSource(ctx), At: now,
		Detail: map[string]any{"draft_order_id": d.ID, "draft_name": d.Name},
	})
}

// fillCustomerName takes the customer's name and phone from the first
// address that has them.
func fillCustomerName(c *models.Customer, addresses ...any) {
	for _, a := range addresses {
		obj, _ := a.(map[string]any)
		first, _ := obj["first_name"].(string)
		last, _ := obj["last_name"].(string)
		phone, _ := obj["phone"].(string)
		if first != "" || last != "" {
			c.FirstName, c.LastName, c.Phone = first, last, phone
			return
		}
	}
}

// redeem takes one use of the code the pricing applied; a code that
// applied nothing is not used.
func (r *Resolver) redeem(ctx context.Context, tx bun.IDB, d *models.DraftOrder, o *models.Order, priced pricing.Result, now time.Time) error {
	if d.DiscountID == nil {
		return nil
	}
	for _, a := range priced.Applied {
		if a.DiscountID == *d.DiscountID {
			return models.RedeemDiscount(ctx, tx, d.StoreID, *d.DiscountID, d.Email, o.ID, now)
		}
	}
	return nil
}

// takeStock removes the sold quantities from tracked variants.
func takeStock(ctx context.Context, tx bun.IDB, storeID int64, lines []models.DraftOrderLine) error {
	sold := map[int64]int64{}
	for _, l := range lines {
		if l.VariantID != nil {
			sold[*l.VariantID] -= l.Quantity
		}
	}
	return models.AdjustInventory(ctx, tx, storeID, sold)
}

// payOrder records the draft's payment as a successful sale and brings the
// order's statuses up to date.
func payOrder(ctx context.Context, tx bun.IDB, o *models.Order, provider, method, reference string, now time.Time) error {
	if o.TotalCents > 0 {
		if reference == "" {
			reference = externalID("pay")
		}
		sale := models.OrderTransaction{StoreID: o.StoreID, OrderID: o.ID, Kind: models.TxSale, Status: models.TxSuccess,
			AmountCents: o.TotalCents, Currency: o.Currency, Provider: provider, ExternalID: reference, CreatedAt: now}
		if method != "" {
			sale.PaymentMethod = &method
		}
		if err := models.InsertTransaction(ctx, tx, &sale); err != nil {
			return err
		}
		if err := timeline(ctx, tx, o, "paid", now, &sale.AmountCents, &sale.ID, nil); err != nil {
			return err
		}
	}
	return models.RefreshOrderState(ctx, tx, o, now)
}
