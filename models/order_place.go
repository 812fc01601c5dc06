package models

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/uptrace/bun"

	"storeadmin/internal/base/apperr"
	"storeadmin/internal/base/pricing"
)

// OrderPlacement is an order about to be placed: its header and lines as
// priced, the discount the pricing applied, and how its payment started.
// Every way of placing an order (a draft marked as paid; the seed's
// history; the storefront checkout and funnels next) fills one and calls
// PlaceOrder or PlaceOrders.
type OrderPlacement struct {
	// Order is the header: store, email, currency, totals, addresses,
	// note, tags, source. PlaceOrder sets its statuses, customer and number.
	Order *Order
	Lines []OrderLineItem
	// DiscountID is the code whose use the order takes, or nil.
	DiscountID *int64
	Payment    Payment
	// Guest places the order without a customer even when it has an email
	// (a checkout as guest); an order without an email never has one.
	Guest bool
	// AcceptsMarketing is the shopper's consent at checkout, kept by the
	// customer the order creates (not changed on one already known).
	AcceptsMarketing bool
	// Actor names who placed it, for the timeline ("admin", "api").
	Actor string
	// Created is the detail of the timeline's "created" entry.
	Created map[string]any
	// Now is when the order was placed: its creation, its payment's and
	// timeline's time, and a new customer's. The seed places in the past.
	Now time.Time
}

// PaymentKind is how an order's payment started at checkout.
type PaymentKind int

const (
	// PaymentSale took the money at once (the zero value).
	PaymentSale PaymentKind = iota
	// PaymentAuthorization reserved it, for a capture later
	// (CapturePayment) within AuthorizationLifetime.
	PaymentAuthorization
	// PaymentPending awaits it: a payment the provider confirms later,
	// such as a bank transfer (RecordPayment once it arrives).
	PaymentPending
	// PaymentNone asked for nothing yet: an invoice to pay later
	// (RecordPayment).
	PaymentNone
)

// AuthorizationLifetime is how long an authorization holds the money
// before it lapses if not captured.
const AuthorizationLifetime = 7 * 24 * time.Hour

// Payment is how an order's payment started, through provider. An empty
// Reference gets one made up, as a provider would.
type Payment struct {
	Kind                        PaymentKind
	Provider, Method, Reference string
}

// PlaceOrder stores a new order in tx, with everything placing one means:
// the customer (found or created by email, unless a guest), the next order
// number, the lines and totals exactly as priced, one use of the discount
// (a code used up meanwhile is a conflict: roll tx back), the sold
// quantities taken from tracked stock (a variant that may not be oversold
// is a conflict), the payment as it started (a sale, an authorization, a
// pending payment, or none yet), the timeline and the statuses that follow
// from them.
// Emitting events is the caller's: they need the REST renderer.
func PlaceOrder(ctx context.Context, tx bun.IDB, p OrderPlacement) (*Order, error) {
	orders, err := PlaceOrders(ctx, tx, []OrderPlacement{p})
	if err != nil {
		return nil, err
	}
	return orders[0], nil
}

// PlaceOrders places ps, orders of one store, in tx with PlaceOrder's rules
// and writes, numbered in the order given: a few statements for the whole
// batch (customers, numbers, orders, lines, timelines, payments), one use
// per discounted order (RedeemDiscount's per-customer checks need the uses
// before it) and one stock update per variant sold. Each order's statuses
// are derived before it is stored, from the lines and the payment it
// starts with, by the same rules RefreshOrderState applies later. Any
// refusal fails the batch: roll tx back.
func PlaceOrders(ctx context.Context, tx bun.IDB, ps []OrderPlacement) ([]*Order, error) {
	if len(ps) == 0 {
		return nil, nil
	}
	storeID := ps[0].Order.StoreID
	for _, p := range ps {
		if len(p.Lines) == 0 {
			return nil, apperr.Invalidf("an order needs at least one line")
		}
		for i, l := range p.Lines {
			if l.Quantity < 1 {
				return nil, apperr.Invalidf("line %d: quantity must be at least 1", i)
			}
		}
		if p.Order.StoreID != storeID {
			return nil, fmt.Errorf("orders of stores %d and %d placed together", storeID, p.Order.StoreID)
		}
	}
	if err := upsertBuyers(ctx, tx, ps); err != nil {
		return nil, err
	}
	first, prefix, suffix, err := takeOrderNumbers(ctx, tx, storeID, int64(len(ps)))
	if err != nil {
		return nil, err
	}
	orders := make([]*Order, len(ps))
	lines := make([][]OrderLineItem, len(ps))
	payments := make([][]OrderTransaction, len(ps)) // none, or the one the checkout made
	for i, p := range ps {
		o := p.Order
		o.OrderNumber = first + int64(i)
		o.OrderNumberDisplay = OrderNumberDisplay(prefix, o.OrderNumber, suffix)
		o.CreatedAt, o.UpdatedAt = p.Now, p.Now
		if t, ok := checkoutPayment(o, p.Payment, p.Now); ok {
			payments[i] = []OrderTransaction{t}
		}
		o.Status, o.FinancialStatus = OrderOpen, FinancialStatus(o.TotalCents, payments[i])
		o.FulfillmentStatus = FulfillmentStatus(FulfillmentUnfulfilled, p.Lines)
		ShareTotals(o, p.Lines)
		if SumMoney(payments[i]).Captured > 0 {
			o.PaidAt = &ps[i].Now
		}
		orders[i], lines[i] = o, p.Lines
	}
	if err := InsertOrders(ctx, tx, orders, lines); err != nil {
		return nil, err
	}
	created := make([]OrderEvent, len(ps))
	for i, p := range ps {
		created[i] = OrderEvent{StoreID: storeID, OrderID: orders[i].ID, Name: "created", Source: p.Actor, At: p.Now, Detail: p.Created}
	}
	if err := AddOrderEvents(ctx, tx, created...); err != nil {
		return nil, err
	}
	for i, p := range ps {
		if p.DiscountID != nil {
			if err := RedeemDiscount(ctx, tx, storeID, *p.DiscountID, orders[i].Email, orders[i].ID, p.Now); err != nil {
				return nil, err
			}
		}
	}
	sold := map[int64]int64{}
	for _, p := range ps {
		for _, l := range p.Lines {
			if l.VariantID != nil {
				sold[*l.VariantID] -= l.Quantity
			}
		}
	}
	if err := AdjustInventory(ctx, tx, storeID, sold); err != nil {
		return nil, err
	}
	return orders, pay(ctx, tx, orders, payments, ps)
}

// ShareTotals gives each line its share of the order's discount and tax
// when the placement did not (the seed's history, an import): the discount
// in proportion to the line totals, the tax to what is left of them, by the
// pricing engine's largest-remainder rule, so the shares always sum to the
// order's figures. Lines whose shares already sum to them are kept as priced.
func ShareTotals(o *Order, lines []OrderLineItem) {
	var discount, tax int64
	for _, l := range lines {
		discount += l.DiscountCents
		tax += l.TaxCents
	}
	if discount != o.DiscountCents {
		weights := make([]int64, len(lines))
		for i, l := range lines {
			weights[i] = l.PriceCents * l.Quantity
		}
		for i, s := range pricing.Allocate(o.DiscountCents, weights) {
			lines[i].DiscountCents = s
		}
	}
	if tax != o.TaxCents || discount != o.DiscountCents {
		weights := make([]int64, len(lines))
		for i, l := range lines {
			weights[i] = max(0, l.PriceCents*l.Quantity-l.DiscountCents)
		}
		for i, s := range pricing.Allocate(o.TaxCents, weights) {
			lines[i].TaxCents = s
		}
	}
}

// upsertBuyers finds or creates, in one statement, the customer of each
// placement with an email that is not a guest's (named from its first
// address with a name) and links the order to it. Placements of one email
// share its customer, made by the first of them, as if placed one after
// another: created when the first was placed, updated when the last was.
func upsertBuyers(ctx context.Context, tx bun.IDB, ps []OrderPlacement) error {
	var custs []Customer
	at := map[string]int{} // lower(email) → index in custs
	for _, p := range ps {
		o := p.Order
		if o.Email == "" || p.Guest {
			continue
		}
		key := strings.ToLower(o.Email)
		if k := at[key]; k > 0 {
			custs[k-1].UpdatedAt = p.Now
			continue
		}
		c := Customer{StoreID: o.StoreID, Email: o.Email, AcceptsMarketing: p.AcceptsMarketing, CreatedAt: p.Now, UpdatedAt: p.Now}
		fillCustomerName(&c, o.BillingAddress, o.ShippingAddress)
		custs = append(custs, c)
		at[key] = len(custs)
	}
	if len(custs) == 0 {
		return nil
	}
	_, err := tx.NewInsert().Model(&custs).
		On("CONFLICT (store_id, lower(email)) DO UPDATE").
		Set("updated_at = greatest(customer.updated_at, excluded.updated_at)").
		Returning("*").Exec(ctx)
	if err != nil {
		return classify(err, "the customer")
	}
	for _, p := range ps {
		if i := at[strings.ToLower(p.Order.Email)]; p.Order.Email != "" && !p.Guest {
			p.Order.CustomerID = &custs[i-1].ID
		}
	}
	return nil
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
			Properties: LineProperties(l.Properties),
		}
		if i < len(priced.Lines) {
			items[i].DiscountCents, items[i].TaxCents = priced.Lines[i].DiscountCents, priced.Lines[i].TaxCents
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

// checkoutPayment is the transaction an order's payment starts with, as
// of now: a successful sale, an authorization lapsing after
// AuthorizationLifetime, or a pending sale; none for PaymentNone or an
// order of 0. An empty reference gets one made up, as a provider would.
func checkoutPayment(o *Order, p Payment, now time.Time) (OrderTransaction, bool) {
	if p.Kind == PaymentNone || o.TotalCents <= 0 {
		return OrderTransaction{}, false
	}
	t := OrderTransaction{StoreID: o.StoreID, Kind: TxSale, Status: TxSuccess,
		AmountCents: o.TotalCents, Currency: o.Currency, Provider: p.Provider, ExternalID: p.Reference, CreatedAt: now}
	switch p.Kind {
	case PaymentAuthorization:
		t.Kind = TxAuthorization
		expires := now.Add(AuthorizationLifetime)
		t.ExpiresAt = &expires
	case PaymentPending:
		t.Status = TxPending
	}
	if t.ExternalID == "" {
		t.ExternalID = ExternalID(map[string]string{TxSale: "pay", TxAuthorization: "auth"}[t.Kind])
	}
	if p.Method != "" {
		t.PaymentMethod = &p.Method
	}
	return t, true
}

// pay records the transactions the orders' payments started with (a free
// order, or one paid later, has none), and puts the successful ones on
// their timelines: "paid" for a sale, "authorized" for an authorization.
// A pending payment has no entry until it arrives.
func pay(ctx context.Context, tx bun.IDB, orders []*Order, payments [][]OrderTransaction, ps []OrderPlacement) error {
	var txs []OrderTransaction
	var of []int // index in ps of each of txs
	for i, o := range orders {
		for _, t := range payments[i] {
			t.OrderID = o.ID
			txs, of = append(txs, t), append(of, i)
		}
	}
	if len(txs) == 0 {
		return nil
	}
	if _, err := tx.NewInsert().Model(&txs).Returning("id, created_at").Exec(ctx); err != nil {
		return classify(err, "the transaction")
	}
	var events []OrderEvent
	for k, i := range of {
		t := &txs[k]
		e := OrderEvent{StoreID: orders[i].StoreID, OrderID: orders[i].ID, Source: ps[i].Actor,
			AmountCents: &t.AmountCents, TransactionID: &t.ID, At: ps[i].Now}
		switch {
		case t.Status != TxSuccess:
			continue
		case t.Kind == TxAuthorization:
			e.Name, e.Detail = "authorized", map[string]any{"expires_at": t.ExpiresAt}
		default:
			e.Name = "paid"
		}
		events = append(events, e)
	}
	return AddOrderEvents(ctx, tx, events...)
}
