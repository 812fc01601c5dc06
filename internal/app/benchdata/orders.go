package benchdata

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"time"

	"storeadmin/models"
)

// story is what happened to an order after it was placed: how it was paid,
// what shipped, what was refunded, whether it was cancelled or archived.
// Its statuses are not part of it: they are derived from the rows it
// leaves, by the domain's rules.
type story struct {
	pay     payment
	ship    shipment
	refund  refund
	cancel  bool
	archive bool
}

type payment int

const (
	unpaid      payment = iota // pending: a bank transfer that has not arrived
	sold                       // a sale of the total
	authorized                 // an authorization not captured yet
	partCapture                // an authorization of which half was captured
	voided                     // an authorization voided
)

type shipment int

const (
	shipNothing shipment = iota
	shipFirstLine
	shipAll
)

type refund int

const (
	noRefund   refund = iota
	refundSome        // some money back (a damaged item), goods kept
	refundAll         // everything back and restocked, before shipping
)

// stories by the order's age: recent orders are still open, older ones
// shipped and often archived.
var (
	stories = []story{
		{pay: sold},
		{pay: sold, ship: shipFirstLine},
		{pay: sold, ship: shipAll},
		{pay: sold, ship: shipAll, archive: true},
		{pay: authorized},
		{pay: unpaid},
		{pay: partCapture},
		{pay: sold, ship: shipAll, refund: refundSome},
		{pay: sold, refund: refundAll, cancel: true},
		{pay: voided, cancel: true},
	}
	recentWeights = []float64{50, 10, 8, 0, 15, 10, 2, 0, 2, 3} // under 3 days
	monthWeights  = []float64{8, 6, 55, 10, 4, 5, 1, 5, 3, 3}   // 3 to 30 days
	olderWeights  = []float64{0, 0, 33, 45, 0, 2, 1, 6, 8, 5}   // the rest
	lineWeights   = []float64{50, 30, 15, 5}                    // 1 to 4 lines
	quantities    = []float64{80, 15, 5}                        // 1 to 3 of a line
	carriers      = []string{"UPS", "USPS", "FedEx", "DHL"}
	cities        = []struct{ city, province, zip string }{{"Portland", "OR", "97205"}, {"Austin", "TX", "73301"}, {"Denver", "CO", "80202"}, {"Brooklyn", "NY", "11201"}, {"Madison", "WI", "53703"}, {"Tucson", "AZ", "85701"}}
	orderTags     = []string{"vip", "wholesale", "gift"}
	cancelReasons = []string{"customer", "fraud", "declined", "inventory"}
)

// The copied columns of each order table.
var (
	orderColumns = []string{"id", "store_id", "order_number", "order_number_display", "token", "customer_id", "email",
		"currency", "status", "financial_status", "fulfillment_status", "subtotal_cents", "shipping_cents", "tax_cents",
		"total_cents", "shipping_line", "shipping_address", "billing_address", "tags", "source", "cancel_reason",
		"cancelled_at", "archived_at", "paid_at", "checkout_started_at", "created_at", "updated_at"}
	lineColumns = []string{"id", "store_id", "order_id", "position", "variant_id", "product_id", "title", "variant_title",
		"sku", "price_cents", "quantity", "refunded_quantity", "fulfilled_quantity", "image_src", "source", "discount_cents", "tax_cents"}
	refundColumns          = []string{"id", "store_id", "order_id", "amount_cents", "currency", "reason", "restock", "created_at"}
	transactionColumns     = []string{"id", "store_id", "order_id", "parent_id", "refund_id", "kind", "status", "amount_cents", "currency", "provider", "external_id", "payment_method", "expires_at", "created_at"}
	refundItemColumns      = []string{"refund_id", "line_item_id", "quantity"}
	fulfillmentColumns     = []string{"id", "store_id", "order_id", "carrier", "tracking_number", "tracking_url", "created_at"}
	fulfillmentItemColumns = []string{"fulfillment_id", "line_item_id", "quantity"}
	eventColumns           = []string{"store_id", "order_id", "name", "source", "amount_cents", "transaction_id", "detail", "at"}
)

// orders copies the planned orders, batchOrders at a time, numbered from
// the store's counter.
func (w *writer) orders(ctx context.Context, rng *rand.Rand, p plan, cat catalogue, custs []customer, now time.Time, log *slog.Logger) error {
	n := len(p.at)
	// Placing an order takes its number from the store's counter
	// (models.PlaceOrders); a block of n is taken the same way, in this
	// transaction, so numbers stay unique and orders placed later follow.
	var last int64
	var prefix, suffix string
	err := w.tx.QueryRow(ctx, `UPDATE stores SET last_order_number = last_order_number + $1 WHERE id = $2
		RETURNING last_order_number, order_number_prefix, order_number_suffix`, n, w.storeID).Scan(&last, &prefix, &suffix)
	if err != nil {
		return err
	}
	firstNumber := last - int64(n) + 1
	for from := 0; from < n; from += batchOrders {
		to := min(n, from+batchOrders)
		b := batch{writer: w, rng: rng, now: now, prefix: prefix, suffix: suffix}
		if err := b.build(ctx, p, from, to, firstNumber, cat, custs); err != nil {
			return err
		}
		if err := b.copy(ctx); err != nil {
			return err
		}
		log.Info("orders", "copied", to, "of", n)
	}
	return nil
}

// batch is the rows of some orders, ready to copy.
type batch struct {
	*writer
	rng            *rand.Rand
	now            time.Time
	prefix, suffix string

	orders, lines, refunds, txs, refundItems, fulfillments, fulfillmentItems, events [][]any
	lineIDs, txIDs, refundIDs, fulfillmentIDs                                        idQueue
}

// idQueue hands out ids reserved for a batch, in order.
type idQueue []int64

func (s *idQueue) next() int64 {
	id := (*s)[0]
	*s = (*s)[1:]
	return id
}

// draft is one order as the batch builds it.
type draft struct {
	at    time.Time
	story story
	lines []models.OrderLineItem
}

// build makes the rows of orders from..to: their stories and lines first,
// then, with the ids that needs reserved, every row.
func (b *batch) build(ctx context.Context, p plan, from, to int, firstNumber int64, cat catalogue, custs []customer) error {
	drafts := make([]draft, to-from)
	var nLines, nTxs, nRefunds, nShipped int
	for i := range drafts {
		at := p.at[from+i]
		weights := olderWeights
		switch age := b.now.Sub(at); {
		case age < 3*24*time.Hour:
			weights = recentWeights
		case age < 30*24*time.Hour:
			weights = monthWeights
		}
		d := draft{at: at, story: stories[weighted(b.rng, weights)]}
		for range weighted(b.rng, lineWeights) + 1 {
			v := cat.variants[b.popular(len(cat.variants))]
			d.lines = append(d.lines, models.OrderLineItem{
				VariantID: &v.id, ProductID: &v.productID, Title: v.product, VariantTitle: v.title, SKU: v.sku,
				PriceCents: v.price, Quantity: int64(weighted(b.rng, quantities) + 1), ImageSrc: v.image, Source: "checkout",
			})
		}
		nLines += len(d.lines)
		nTxs += d.story.transactions()
		if d.story.refund != noRefund {
			nRefunds++
		}
		if d.story.ship != shipNothing {
			nShipped++
		}
		drafts[i] = d
	}
	orderIDs, err := b.ids(ctx, "orders", len(drafts))
	if err != nil {
		return err
	}
	for _, r := range []struct {
		to    *idQueue
		table string
		n     int
	}{{&b.lineIDs, "order_line_items", nLines}, {&b.txIDs, "order_transactions", nTxs},
		{&b.refundIDs, "refunds", nRefunds}, {&b.fulfillmentIDs, "fulfillments", nShipped}} {
		if *r.to, err = b.ids(ctx, r.table, r.n); err != nil {
			return err
		}
	}
	for i, d := range drafts {
		k := from + i
		b.order(orderIDs[i], firstNumber+int64(k), d, custs[p.customer[k]])
	}
	return nil
}

// popular picks one of n variants, some far more often than others: a
// fifth of the catalogue makes most sales, as in most stores.
func (b *batch) popular(n int) int {
	if b.rng.Float64() < 0.6 {
		return b.rng.IntN(max(1, n/5))
	}
	return b.rng.IntN(n)
}

// transactions is how many transactions the story leaves.
func (s story) transactions() int {
	n := 1
	switch s.pay {
	case unpaid:
		n = 0
	case partCapture, voided:
		n = 2
	}
	if s.refund != noRefund {
		n++
	}
	return n
}

// order adds the rows of one order: its lines, its story's transactions,
// refund, shipment and timeline, and the order itself with the statuses
// they make.
func (b *batch) order(id, number int64, d draft, c customer) {
	o := models.Order{ID: id, StoreID: b.storeID, OrderNumber: number,
		OrderNumberDisplay: models.OrderNumberDisplay(b.prefix, number, b.suffix), Token: models.NewOrderToken(),
		CustomerID: &c.id, Email: c.email, Currency: b.currency, Status: models.OrderOpen,
		FulfillmentStatus: models.FulfillmentUnfulfilled, Source: "web", Tags: []string{}, CreatedAt: d.at}
	for i := range d.lines {
		l := &d.lines[i]
		l.ID, l.StoreID, l.OrderID, l.Position = b.lineIDs.next(), b.storeID, id, int64(i)
		o.SubtotalCents += l.PriceCents * l.Quantity
	}
	if o.SubtotalCents < 7500 {
		o.ShippingCents = 695
	}
	o.TaxCents = o.SubtotalCents * 8 / 100
	o.TotalCents = o.SubtotalCents + o.ShippingCents + o.TaxCents
	// Each line's share of the tax, as placing the order gives it (COPY
	// skips models.PlaceOrders), so sales by product reconciles here too.
	models.ShareTotals(&o, d.lines)
	if b.rng.Float64() < 0.1 {
		o.Tags = []string{pick(b.rng, orderTags)}
	}
	checkout := d.at.Add(-time.Duration(b.rng.IntN(1800)+60) * time.Second)
	o.CheckoutStartedAt = &checkout
	b.event(&o, "created", "checkout", d.at, nil, nil, map[string]any{"source": o.Source, "line_items": len(d.lines)})

	txs := b.pay(&o, d)
	s := d.story
	updated := d.at
	later := func(after time.Time, least, most time.Duration) time.Time {
		t := b.notAfterNow(after.Add(least + time.Duration(b.rng.Int64N(int64(most-least)))))
		if t.After(updated) {
			updated = t
		}
		return t
	}
	var shippedAt time.Time
	if s.ship != shipNothing {
		shippedAt = later(d.at, 12*time.Hour, 3*24*time.Hour)
		b.ship(&o, d.lines, s.ship, shippedAt)
	}
	if s.refund != noRefund {
		var at time.Time
		if s.refund == refundSome { // after the goods arrived
			at = later(shippedAt, 2*24*time.Hour, 10*24*time.Hour)
		} else { // before anything shipped
			at = later(d.at, time.Hour, 2*24*time.Hour)
		}
		txs = append(txs, b.giveBack(&o, d.lines, s.refund, txs[0], at))
	}
	if s.pay == voided {
		at := later(d.at, time.Hour, 24*time.Hour)
		v := models.OrderTransaction{ID: b.txIDs.next(), StoreID: b.storeID, OrderID: id, ParentID: &txs[0].ID,
			Kind: models.TxVoid, Status: models.TxSuccess, AmountCents: txs[0].AmountCents, Currency: o.Currency,
			Provider: txs[0].Provider, ExternalID: models.ExternalID("void"), PaymentMethod: txs[0].PaymentMethod, CreatedAt: at}
		txs = append(txs, v)
		b.transaction(v)
		b.event(&o, "voided", "admin", at, &v.AmountCents, &v.ID, nil)
	}
	if s.cancel {
		at := updated
		restock := s.refund == refundAll || b.rng.IntN(2) == 0
		if restock {
			o.FulfillmentStatus = models.FulfillmentRestocked
		}
		reason := pick(b.rng, cancelReasons)
		o.Status, o.CancelReason, o.CancelledAt = models.OrderCancelled, reason, &at
		b.event(&o, "cancelled", "admin", at, nil, nil, map[string]any{"reason": reason, "restock": restock, "refund": s.refund == refundAll})
	}
	if s.archive {
		if at := shippedAt.Add(time.Duration(5+b.rng.IntN(20)) * 24 * time.Hour); at.Before(b.now) {
			updated = at
			o.Status, o.ArchivedAt = models.OrderArchived, &at
			b.event(&o, "archived", "system", at, nil, nil, nil)
		}
	}
	// The statuses the domain derives from what was stored, as
	// RefreshOrderState would after each of the changes above.
	o.FinancialStatus = models.FinancialStatus(o.TotalCents, txs)
	o.FulfillmentStatus = models.FulfillmentStatus(o.FulfillmentStatus, d.lines)
	if money := models.SumMoney(txs); money.Captured > 0 {
		for _, t := range txs {
			if t.Status == models.TxSuccess && (t.Kind == models.TxSale || t.Kind == models.TxCapture) {
				o.PaidAt = &t.CreatedAt
				break
			}
		}
	}
	o.UpdatedAt = updated
	city := pick(b.rng, cities)
	address := jsonText(map[string]any{"first_name": c.first, "last_name": c.last, "phone": c.phone,
		"address1": fmt.Sprintf("%d Market Street", 10+b.rng.IntN(990)), "city": city.city,
		"province": city.province, "zip": city.zip, "country": "US"})
	shippingLine := jsonText(map[string]any{"title": "Standard", "code": "standard", "price_cents": o.ShippingCents})
	b.orders = append(b.orders, []any{o.ID, o.StoreID, o.OrderNumber, o.OrderNumberDisplay, o.Token, o.CustomerID,
		o.Email, o.Currency, o.Status, o.FinancialStatus, o.FulfillmentStatus, o.SubtotalCents, o.ShippingCents,
		o.TaxCents, o.TotalCents, shippingLine, address, address, o.Tags, o.Source, o.CancelReason, o.CancelledAt,
		o.ArchivedAt, o.PaidAt, o.CheckoutStartedAt, o.CreatedAt, o.UpdatedAt})
	for _, l := range d.lines {
		b.lines = append(b.lines, []any{l.ID, l.StoreID, l.OrderID, l.Position, l.VariantID, l.ProductID, l.Title,
			l.VariantTitle, l.SKU, l.PriceCents, l.Quantity, l.RefundedQuantity, l.FulfilledQuantity, l.ImageSrc, l.Source,
			l.DiscountCents, l.TaxCents})
	}
}

// pay records the order's payment at checkout, as its story has it, and
// returns its transactions.
func (b *batch) pay(o *models.Order, d draft) []models.OrderTransaction {
	if d.story.pay == unpaid {
		return nil
	}
	method := "card"
	provider := "stripe"
	if b.rng.IntN(5) == 0 {
		method, provider = "paypal", "paypal"
	}
	t := models.OrderTransaction{ID: b.txIDs.next(), StoreID: b.storeID, OrderID: o.ID, Kind: models.TxSale,
		Status: models.TxSuccess, AmountCents: o.TotalCents, Currency: o.Currency, Provider: provider,
		ExternalID: models.ExternalID("pay"), PaymentMethod: &method, CreatedAt: d.at}
	if d.story.pay == sold {
		b.transaction(t)
		b.event(o, "paid", "checkout", d.at, &t.AmountCents, &t.ID, nil)
		return []models.OrderTransaction{t}
	}
	t.Kind, t.ExternalID = models.TxAuthorization, models.ExternalID("auth")
	expires := d.at.Add(7 * 24 * time.Hour)
	t.ExpiresAt = &expires
	b.transaction(t)
	b.event(o, "authorized", "checkout", d.at, &t.AmountCents, &t.ID, map[string]any{"expires_at": expires})
	txs := []models.OrderTransaction{t}
	if d.story.pay == partCapture {
		at := b.notAfterNow(d.at.Add(time.Hour))
		c := t
		c.ID, c.ParentID, c.Kind, c.AmountCents, c.ExternalID = b.txIDs.next(), &t.ID, models.TxCapture, o.TotalCents/2, models.ExternalID("cap")
		c.ExpiresAt, c.CreatedAt = nil, at
		b.transaction(c)
		b.event(o, "captured", "admin", at, &c.AmountCents, &c.ID, nil)
		txs = append(txs, c)
	}
	return txs
}

// ship records one shipment of the story's lines.
func (b *batch) ship(o *models.Order, lines []models.OrderLineItem, what shipment, at time.Time) {
	id := b.fulfillmentIDs.next()
	carrier := pick(b.rng, carriers)
	tracking := fmt.Sprintf("1Z%016d", b.rng.Int64N(1e16))
	b.fulfillments = append(b.fulfillments, []any{id, b.storeID, o.ID, carrier, tracking,
		"https://track.example.com/" + tracking, at})
	var items []map[string]any
	for i := range lines {
		if what == shipFirstLine && i > 0 {
			break
		}
		lines[i].FulfilledQuantity = lines[i].Quantity
		b.fulfillmentItems = append(b.fulfillmentItems, []any{id, lines[i].ID, lines[i].Quantity})
		items = append(items, map[string]any{"line_item_id": lines[i].ID, "quantity": lines[i].Quantity})
	}
	b.event(o, "fulfilled", "admin", at, nil, nil, map[string]any{"fulfillment_id": id, "carrier": carrier,
		"tracking_number": tracking, "items": items})
}

// giveBack records a refund against paid, the sale: some money, or
// everything with every line's quantity.
func (b *batch) giveBack(o *models.Order, lines []models.OrderLineItem, what refund, paid models.OrderTransaction, at time.Time) models.OrderTransaction {
	id := b.refundIDs.next()
	amount, reason, restock := min(paid.AmountCents, lines[0].PriceCents/2), "damaged item", false
	if what == refundAll {
		amount, reason, restock = paid.AmountCents, "order cancelled", true
		for i := range lines {
			lines[i].RefundedQuantity = lines[i].Quantity
			b.refundItems = append(b.refundItems, []any{id, lines[i].ID, lines[i].Quantity})
		}
	}
	b.refunds = append(b.refunds, []any{id, b.storeID, o.ID, amount, o.Currency, reason, restock, at})
	t := models.OrderTransaction{ID: b.txIDs.next(), StoreID: b.storeID, OrderID: o.ID, ParentID: &paid.ID,
		RefundID: &id, Kind: models.TxRefund, Status: models.TxSuccess, AmountCents: amount, Currency: o.Currency,
		Provider: paid.Provider, ExternalID: models.ExternalID("re"), PaymentMethod: paid.PaymentMethod, CreatedAt: at}
	b.transaction(t)
	b.event(o, "refunded", "admin", at, &amount, &t.ID, map[string]any{"refund_id": id, "reason": reason, "restock": restock})
	return t
}

// notAfterNow is t, or just before now if t is later: nothing happens in
// the future.
func (b *batch) notAfterNow(t time.Time) time.Time {
	if limit := b.now.Add(-time.Second); t.After(limit) {
		return limit
	}
	return t
}

func (b *batch) transaction(t models.OrderTransaction) {
	b.txs = append(b.txs, []any{t.ID, t.StoreID, t.OrderID, t.ParentID, t.RefundID, t.Kind, t.Status, t.AmountCents,
		t.Currency, t.Provider, t.ExternalID, t.PaymentMethod, t.ExpiresAt, t.CreatedAt})
}

func (b *batch) event(o *models.Order, name, source string, at time.Time, amount, txID *int64, detail map[string]any) {
	var d any
	if detail != nil {
		d = jsonText(detail)
	}
	b.events = append(b.events, []any{b.storeID, o.ID, name, source, amount, txID, d, at})
}

// copy writes the batch, parents before the rows that refer to them.
func (b *batch) copy(ctx context.Context) error {
	for _, t := range []struct {
		table   string
		columns []string
		rows    [][]any
	}{
		{"orders", orderColumns, b.orders},
		{"order_line_items", lineColumns, b.lines},
		{"refunds", refundColumns, b.refunds},
		{"order_transactions", transactionColumns, b.txs},
		{"refund_line_items", refundItemColumns, b.refundItems},
		{"fulfillments", fulfillmentColumns, b.fulfillments},
		{"fulfillment_items", fulfillmentItemColumns, b.fulfillmentItems},
		{"order_events", eventColumns, b.events},
	} {
		if err := b.writer.copy(ctx, t.table, t.columns, t.rows); err != nil {
			return err
		}
	}
	return nil
}

// jsonText is v as JSON text, for a jsonb column.
func jsonText(v any) string {
	buf, err := json.Marshal(v)
	if err != nil {
		panic(err) // maps of strings and numbers always encode
	}
	return string(buf)
}
