package models

import (
	"context"
	"strconv"
	"time"

	"github.com/uptrace/bun"

	"storeadmin/internal/base/apperr"
	"storeadmin/internal/base/pricing"
)

// OrderPlacement is an order about to be placed: its header and lines as
// priced, the discount the pricing applied, and how it was paid. Every way
// of placing an order (a draft marked as paid today; the storefront
// checkout and funnels next) fills one and calls PlaceOrder.
type OrderPlacement struct {
	// Order is the header: store, email, currency, totals, addresses,
	// note, tags, source. PlaceOrder sets its statuses, customer and number.
	Order *Order
	Lines []OrderLineItem
	// DiscountID is the code whose use the order takes, or nil.
	DiscountID *int64
	Payment    Payment
	// Actor names who placed it, for the timeline ("admin", "api").
	Actor string
	// Created is the detail of the timeline's "created" entry.
	Created map[string]any
	Now     time.Time
}

// Payment is how an order was paid: a successful sale through provider.
// An empty Reference gets one made up, as a provider would.
type Payment struct {
	Provider, Method, Reference string
}

// PlaceOrder stores a new order in tx, with everything placing one means:
// the customer (found or created by email), the next order number, the
// lines and totals exactly as priced, one use of the discount (a code used
// up meanwhile is a conflict: roll tx back), the sold quantities taken
// from tracked stock (a variant that may not be oversold is a conflict),
// the payment as a successful sale, the timeline and the derived statuses.
// Emitting events is the caller's: they need the REST renderer.
func PlaceOrder(ctx context.Context, tx bun.IDB, p OrderPlacement) (*Order, error) {
	if len(p.Lines) == 0 {
		return nil, apperr.Invalidf("an order needs at least one line")
	}
	for i, l := range p.Lines {
		if l.Quantity < 1 {
			return nil, apperr.Invalidf("line %d: quantity must be at least 1", i)
		}
	}
	o := p.Order
	o.Status, o.FinancialStatus, o.FulfillmentStatus = OrderOpen, FinancialPending, FulfillmentUnfulfilled
	o.CreatedAt, o.UpdatedAt = p.Now, p.Now
	if o.Email != "" {
		c := &Customer{StoreID: o.StoreID, Email: o.Email}
		fillCustomerName(c, o.BillingAddress, o.ShippingAddress)
		if err := UpsertCustomer(ctx, tx, c); err != nil {
			return nil, err
		}
		o.CustomerID = &c.ID
	}
	var err error
	if o.OrderNumber, o.OrderNumberDisplay, err = NextOrderNumber(ctx, tx, o.StoreID); err != nil {
		return nil, err
	}
	if err := InsertOrder(ctx, tx, o, p.Lines); err != nil {
		return nil, err
	}
	if err := AddOrderEvents(ctx, tx, OrderEvent{
		StoreID: o.StoreID, OrderID: o.ID, Name: "created", Source: p.Actor, At: p.Now, Detail: p.Created,
	}); err != nil {
		return nil, err
	}
	if p.DiscountID != nil {
		if err := RedeemDiscount(ctx, tx, o.StoreID, *p.DiscountID, o.Email, o.ID, p.Now); err != nil {
			return nil, err
		}
	}
	if err := takeStock(ctx, tx, o.StoreID, p.Lines); err != nil {
		return nil, err
	}
	if err := pay(ctx, tx, o, p.Payment, p.Actor, p.Now); err != nil {
		return nil, err
	}
	return o, nil
}

// DraftPlacement is the order draft d becomes, priced as priced: its
// header, totals and lines copied, and its code's use taken only when the
// pricing applied it.
func DraftPlacement(d *DraftOrder, lines []DraftOrderLine, priced pricing.Result) OrderPlacement {
	o := &Order{
		StoreID: d.StoreID, Email: d.Email, Currency: d.Currency,
		SubtotalCents: d.SubtotalCents, DiscountCents: d.DiscountCents, DiscountCode: d.DiscountCode,
		ShippingCents: d.ShippingCents, TaxCents: d.TaxCents, TotalCents: d.TotalCents,
		ShippingAddress: d.ShippingAddress, BillingAddress: d.BillingAddress, Note: d.Note, Tags: d.Tags,
		SystemTags: []string{"draft_order"}, Source: "draft_order", DraftOrderID: &d.ID,
		CheckoutStartedAt: &d.CreatedAt,
	}
	if d.ShippingRateID != 0 {
		o.ShippingLine = map[string]any{"title": d.ShippingTitle, "code": "rate-" + strconv.FormatInt(d.ShippingRateID, 10), "price_cents": d.ShippingCents}
	}
	items := make([]OrderLineItem, len(lines))
	for i, l := range lines {
		items[i] = OrderLineItem{
			VariantID: l.VariantID, ProductID: l.ProductID, Title: l.Title, VariantTitle: l.VariantTitle, SKU: l.SKU,
			PriceCents: l.PriceCents, Quantity: l.Quantity, RequiresShipping: l.RequiresShipping, Source: "draft_order",
		}
	}
	p := OrderPlacement{Order: o, Lines: items, Created: map[string]any{"draft_order_id": d.ID, "draft_name": d.Name}}
	if d.DiscountID != nil {
		for _, a := range priced.Applied {
			if a.DiscountID == *d.DiscountID { // a code that applied nothing is not used
				p.DiscountID = d.DiscountID
				break
			}
		}
	}
	return p
}

// fillCustomerName takes the customer's name and phone from the first
// address that has them.
func fillCustomerName(c *Customer, addresses ...any) {
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

// takeStock removes the sold quantities from tracked variants.
func takeStock(ctx context.Context, tx bun.IDB, storeID int64, lines []OrderLineItem) error {
	sold := map[int64]int64{}
	for _, l := range lines {
		if l.VariantID != nil {
			sold[*l.VariantID] -= l.Quantity
		}
	}
	return AdjustInventory(ctx, tx, storeID, sold)
}

// pay records the order's payment as a successful sale of its total (none
// for a free order) and brings its statuses up to date.
func pay(ctx context.Context, tx bun.IDB, o *Order, p Payment, actor string, now time.Time) error {
	if o.TotalCents > 0 {
		if p.Reference == "" {
			p.Reference = ExternalID("pay")
		}
		sale := OrderTransaction{StoreID: o.StoreID, OrderID: o.ID, Kind: TxSale, Status: TxSuccess,
			AmountCents: o.TotalCents, Currency: o.Currency, Provider: p.Provider, ExternalID: p.Reference, CreatedAt: now}
		if p.Method != "" {
			sale.PaymentMethod = &p.Method
		}
		if err := InsertTransaction(ctx, tx, &sale); err != nil {
			return err
		}
		if err := AddOrderEvents(ctx, tx, OrderEvent{
			StoreID: o.StoreID, OrderID: o.ID, Name: "paid", Source: actor,
			AmountCents: &sale.AmountCents, TransactionID: &sale.ID, At: now,
		}); err != nil {
			return err
		}
	}
	return RefreshOrderState(ctx, tx, o, now)
}
