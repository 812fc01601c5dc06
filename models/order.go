package models

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/uptrace/bun"

	"storeadmin/internal/apperr"
)

// Order statuses (status): an open order can be archived or cancelled; an
// archived order can still be cancelled; a cancelled order is final.
const (
	OrderOpen      = "open"
	OrderArchived  = "archived"
	OrderCancelled = "cancelled"
)

// Financial statuses, derived from the order's transactions
// (see FinancialStatus).
const (
	FinancialPending           = "pending"
	FinancialAuthorized        = "authorized"
	FinancialPaid              = "paid"
	FinancialPartiallyPaid     = "partially_paid"
	FinancialPartiallyRefunded = "partially_refunded"
	FinancialRefunded          = "refunded"
	FinancialVoided            = "voided"
)

// Fulfilment statuses, derived from the fulfilled quantities of the lines
// (see FulfillmentStatus).
const (
	FulfillmentUnfulfilled = "unfulfilled"
	FulfillmentPartial     = "partial"
	FulfillmentFulfilled   = "fulfilled"
	FulfillmentRestocked   = "restocked"
)

// The value lists a filter may name.
var (
	OrderStatuses       = []string{OrderOpen, OrderArchived, OrderCancelled}
	FinancialStatuses   = []string{FinancialPending, FinancialAuthorized, FinancialPaid, FinancialPartiallyPaid, FinancialPartiallyRefunded, FinancialRefunded, FinancialVoided}
	FulfillmentStatuses = []string{FulfillmentUnfulfilled, FulfillmentPartial, FulfillmentFulfilled, FulfillmentRestocked}
	// CancelReasons are the reasons an order may be cancelled for.
	CancelReasons = []string{"customer", "fraud", "inventory", "declined", "other"}
)

// Customer is a shopper who has ordered, known by email within a store.
type Customer struct {
	bun.BaseModel `bun:"table:customers"`

	ID               int64     `bun:"id,pk,autoincrement" json:"id"`
	StoreID          int64     `bun:"store_id" json:"-"`
	Email            string    `bun:"email" json:"email"`
	FirstName        string    `bun:"first_name" json:"first_name"`
	LastName         string    `bun:"last_name" json:"last_name"`
	Phone            string    `bun:"phone" json:"phone"`
	AcceptsMarketing bool      `bun:"accepts_marketing" json:"accepts_marketing"`
	CreatedAt        time.Time `bun:"created_at,nullzero,default:now()" json:"created_at"`
	UpdatedAt        time.Time `bun:"updated_at,nullzero,default:now()" json:"updated_at"`
}

// Order is a placed order.
type Order struct {
	bun.BaseModel `bun:"table:orders,alias:o"`

	ID                 int64             `bun:"id,pk,autoincrement" json:"id"`
	StoreID            int64             `bun:"store_id" json:"-"`
	OrderNumber        int64             `bun:"order_number" json:"order_number"`
	OrderNumberDisplay string            `bun:"order_number_display" json:"order_number_display"`
	Token              string            `bun:"token" json:"token"`
	CustomerID         *int64            `bun:"customer_id" json:"customer_id"`
	Email              string            `bun:"email" json:"email"`
	Currency           string            `bun:"currency" json:"currency"`
	Status             string            `bun:"status" json:"status"`
	FinancialStatus    string            `bun:"financial_status" json:"financial_status"`
	FulfillmentStatus  string            `bun:"fulfillment_status" json:"fulfillment_status"`
	SubtotalCents      int64             `bun:"subtotal_cents" json:"subtotal_cents"`
	DiscountCents      int64             `bun:"discount_cents" json:"discount_cents"`
	DiscountCode       string            `bun:"discount_code" json:"discount_code"`
	ShippingCents      int64             `bun:"shipping_cents" json:"shipping_cents"`
	TaxCents           int64             `bun:"tax_cents" json:"tax_cents"`
	TipCents           int64             `bun:"tip_cents" json:"tip_cents"`
	TotalCents         int64             `bun:"total_cents" json:"total_cents"`
	ShippingLine       any               `bun:"shipping_line,type:jsonb" json:"shipping_line"`
	ShippingAddress    any               `bun:"shipping_address,type:jsonb" json:"shipping_address"`
	BillingAddress     any               `bun:"billing_address,type:jsonb" json:"billing_address"`
	Attribution        *OrderAttribution `bun:"attribution,type:jsonb" json:"attribution"`
	Upsell             *OrderUpsell      `bun:"upsell,type:jsonb" json:"upsell"`
	Note               string            `bun:"note" json:"note"`
	Tags               []string          `bun:"tags,array" json:"tags"`
	SystemTags         []string          `bun:"system_tags,array" json:"system_tags"`
	Source             string            `bun:"source" json:"source"`
	DraftOrderID       *int64            `bun:"draft_order_id" json:"draft_order_id"`
	CancelReason       string            `bun:"cancel_reason" json:"cancel_reason"`
	CancelledAt        *time.Time        `bun:"cancelled_at" json:"cancelled_at"`
	ArchivedAt         *time.Time        `bun:"archived_at" json:"archived_at"`
	PaidAt             *time.Time        `bun:"paid_at" json:"paid_at"`
	CheckoutStartedAt  *time.Time        `bun:"checkout_started_at" json:"checkout_started_at"`
	CreatedAt          time.Time         `bun:"created_at,nullzero,default:now()" json:"created_at"`
	UpdatedAt          time.Time         `bun:"updated_at,nullzero,default:now()" json:"updated_at"`
}

// orderReturning are the columns an insert returns: not *, because bun cannot
// scan a jsonb null back into an any.
const orderReturning = "id, order_number, order_number_display, token, created_at, updated_at"

// OrderAttribution is where the order came from: UTM parameters and ad
// click ids, as the storefront recorded them at checkout.
type OrderAttribution struct {
	AdSource           *string `json:"ad_source,omitempty"`
	ClickIDs           any     `json:"click_ids,omitempty"`
	Referrer           *string `json:"referrer,omitempty"`
	UTMCampaign        string  `json:"utm_campaign"`
	UTMContent         string  `json:"utm_content"`
	UTMCreativeFormat  *string `json:"utm_creative_format,omitempty"`
	UTMID              *string `json:"utm_id,omitempty"`
	UTMMarketingTactic *string `json:"utm_marketing_tactic,omitempty"`
	UTMMedium          string  `json:"utm_medium"`
	UTMSource          string  `json:"utm_source"`
	UTMSourcePlatform  *string `json:"utm_source_platform,omitempty"`
	UTMTerm            string  `json:"utm_term"`
}

// OrderUpsell records the post-purchase funnel the shopper entered after
// paying, written by the post-purchase area.
type OrderUpsell struct {
	EnteredAt  time.Time `json:"entered_at"`
	FunnelName string    `json:"funnel_name"`
	Status     string    `json:"status"`
}

// OrderLineItem is one line of an order.
type OrderLineItem struct {
	bun.BaseModel `bun:"table:order_line_items"`

	ID                 int64   `bun:"id,pk,autoincrement" json:"id"`
	StoreID            int64   `bun:"store_id" json:"-"`
	OrderID            int64   `bun:"order_id" json:"order_id"`
	Position           int64   `bun:"position" json:"-"`
	VariantID          *int64  `bun:"variant_id" json:"variant_id"`
	ProductID          *int64  `bun:"product_id" json:"product_id"`
	Title              string  `bun:"title" json:"title"`
	VariantTitle       string  `bun:"variant_title" json:"variant_title"`
	SKU                string  `bun:"sku" json:"sku"`
	PriceCents         int64   `bun:"price_cents" json:"price_cents"`
	OriginalPriceCents *int64  `bun:"original_price_cents" json:"original_price_cents"`
	Quantity           int64   `bun:"quantity" json:"quantity"`
	RefundedQuantity   int64   `bun:"refunded_quantity" json:"refunded_quantity"`
	FulfilledQuantity  int64   `bun:"fulfilled_quantity" json:"fulfilled_quantity"`
	RequiresShipping   bool    `bun:"requires_shipping" json:"requires_shipping"`
	Properties         any     `bun:"properties,type:jsonb" json:"properties"`
	ImageSrc           string  `bun:"image_src" json:"image_src"`
	ImageThumbhash     string  `bun:"image_thumbhash" json:"image_thumbhash"`
	BundleGroup        *string `bun:"bundle_group" json:"bundle_group"`
	BundleTitle        *string `bun:"bundle_title" json:"bundle_title"`
	Source             string  `bun:"source" json:"source"`
}

// Unfulfilled is what is left to ship of the line: what was bought and not
// refunded, less what has shipped.
func (l OrderLineItem) Unfulfilled() int64 {
	return max(0, l.Quantity-l.RefundedQuantity-l.FulfilledQuantity)
}

// Transaction kinds and statuses.
const (
	TxAuthorization = "authorization"
	TxCapture       = "capture"
	TxSale          = "sale"
	TxRefund        = "refund"
	TxVoid          = "void"

	TxPending = "pending"
	TxSuccess = "success"
	TxFailure = "failure"
	TxError   = "error"
)

// OrderTransaction is one movement of money, or an attempt at one.
type OrderTransaction struct {
	bun.BaseModel `bun:"table:order_transactions"`

	ID            int64      `bun:"id,pk,autoincrement" json:"id"`
	StoreID       int64      `bun:"store_id" json:"-"`
	OrderID       int64      `bun:"order_id" json:"order_id"`
	ParentID      *int64     `bun:"parent_id" json:"parent_id"`
	RefundID      *int64     `bun:"refund_id" json:"-"`
	Kind          string     `bun:"kind" json:"kind"`
	Status        string     `bun:"status" json:"status"`
	AmountCents   int64      `bun:"amount_cents" json:"amount_cents"`
	Currency      string     `bun:"currency" json:"currency"`
	Provider      string     `bun:"provider" json:"provider"`
	ExternalID    string     `bun:"external_id" json:"external_id"`
	PaymentMethod *string    `bun:"payment_method" json:"payment_method"`
	Error         *string    `bun:"error" json:"error"`
	ExpiresAt     *time.Time `bun:"expires_at" json:"expires_at"`
	CreatedAt     time.Time  `bun:"created_at,nullzero,default:now()" json:"created_at"`
}

// Refund gives money, line quantities, or both back to the shopper.
type Refund struct {
	bun.BaseModel `bun:"table:refunds"`

	ID          int64     `bun:"id,pk,autoincrement" json:"id"`
	StoreID     int64     `bun:"store_id" json:"-"`
	OrderID     int64     `bun:"order_id" json:"order_id"`
	AmountCents int64     `bun:"amount_cents" json:"amount_cents"`
	Currency    string    `bun:"currency" json:"currency"`
	Status      string    `bun:"status" json:"status"`
	Reason      string    `bun:"reason" json:"reason"`
	Restock     bool      `bun:"restock" json:"restock"`
	CreatedAt   time.Time `bun:"created_at,nullzero,default:now()" json:"created_at"`

	// OrderFinancialStatus is the order's financial status after the
	// refund; filled when the refund is made.
	OrderFinancialStatus string `bun:"-" json:"order_financial_status"`
}

// RefundLineItem is a quantity of one line given back by a refund.
type RefundLineItem struct {
	bun.BaseModel `bun:"table:refund_line_items"`

	RefundID   int64 `bun:"refund_id,pk" json:"refund_id"`
	LineItemID int64 `bun:"line_item_id,pk" json:"line_item_id"`
	Quantity   int64 `bun:"quantity" json:"quantity"`
}

// Fulfilment statuses of one shipment.
const (
	ShipmentSuccess   = "success"
	ShipmentCancelled = "cancelled"
)

// Fulfillment is one shipment of some of an order's lines.
type Fulfillment struct {
	bun.BaseModel `bun:"table:fulfillments"`

	ID             int64      `bun:"id,pk,autoincrement" json:"id"`
	StoreID        int64      `bun:"store_id" json:"-"`
	OrderID        int64      `bun:"order_id" json:"order_id"`
	Status         string     `bun:"status" json:"status"`
	Carrier        string     `bun:"carrier" json:"carrier"`
	TrackingNumber string     `bun:"tracking_number" json:"tracking_number"`
	TrackingURL    string     `bun:"tracking_url" json:"tracking_url"`
	Note           string     `bun:"note" json:"note"`
	CancelledAt    *time.Time `bun:"cancelled_at" json:"cancelled_at"`
	CreatedAt      time.Time  `bun:"created_at,nullzero,default:now()" json:"created_at"`
}

// FulfillmentItem is the quantity of one line a shipment carries, with the
// line's titles.
type FulfillmentItem struct {
	bun.BaseModel `bun:"table:fulfillment_items,alias:fi"`

	FulfillmentID int64  `bun:"fulfillment_id,pk" json:"-"`
	LineItemID    int64  `bun:"line_item_id,pk" json:"line_item_id"`
	Quantity      int64  `bun:"quantity" json:"quantity"`
	Title         string `bun:"title,scanonly" json:"title"`
	VariantTitle  string `bun:"variant_title,scanonly" json:"variant_title"`
}

// FulfilledQuantity is how much of one line has shipped.
type FulfilledQuantity struct {
	LineItemID int64 `json:"line_item_id"`
	Quantity   int64 `json:"quantity"`
}

// OrderEvent is one entry of an order's timeline.
type OrderEvent struct {
	bun.BaseModel `bun:"table:order_events"`

	ID            int64     `bun:"id,pk,autoincrement" json:"id"`
	StoreID       int64     `bun:"store_id" json:"-"`
	OrderID       int64     `bun:"order_id" json:"order_id"`
	Name          string    `bun:"name" json:"name"`
	Source        string    `bun:"source" json:"source"`
	AmountCents   *int64    `bun:"amount_cents" json:"amount_cents"`
	TransactionID *int64    `bun:"transaction_id" json:"transaction_id"`
	Detail        any       `bun:"detail,type:jsonb" json:"detail"`
	At            time.Time `bun:"at,nullzero,default:now()" json:"at"`
}

// NewOrderToken returns the unguessable token that names an order to its
// shopper.
func NewOrderToken() string {
	b := make([]byte, 16)
	rand.Read(b) //nolint:errcheck // crypto/rand.Read does not fail on supported platforms
	return hex.EncodeToString(b)
}

// ExternalID names a transaction the service itself made, as a payment
// provider would ("re_…" for a refund).
func ExternalID(prefix string) string {
	b := make([]byte, 12)
	rand.Read(b) //nolint:errcheck // crypto/rand.Read does not fail on supported platforms
	return prefix + "_" + hex.EncodeToString(b)
}

// OrderFilter narrows an orders list; Sort orders it.
type OrderFilter struct {
	Status            *string    `json:"status"`
	FinancialStatus   *string    `json:"financial_status"`
	FulfillmentStatus *string    `json:"fulfillment_status"`
	CreatedAtMin      *time.Time `json:"created_at_min"`
	CreatedAtMax      *time.Time `json:"created_at_max"`
	Tag               *string    `json:"tag"`
	Email             *string    `json:"email"`
	CustomerID        *int64     `json:"customer_id"`
	Q                 *string    `json:"q"`
	Sort              *string    `json:"sort"`
}

// orderSorts maps the sort names a client may send to ORDER BY terms.
var orderSorts = map[string]string{
	"created_at":    "o.created_at ASC, o.id ASC",
	"-created_at":   "o.created_at DESC, o.id DESC",
	"order_number":  "o.order_number ASC",
	"-order_number": "o.order_number DESC",
	"total":         "o.total_cents ASC, o.id ASC",
	"-total":        "o.total_cents DESC, o.id DESC",
	"updated_at":    "o.updated_at ASC, o.id ASC",
	"-updated_at":   "o.updated_at DESC, o.id DESC",
}

// Check refuses values the filter cannot mean.
func (f OrderFilter) Check() error {
	checks := []struct {
		name  string
		value *string
		set   []string
	}{
		{"status", f.Status, OrderStatuses},
		{"financial_status", f.FinancialStatus, FinancialStatuses},
		{"fulfillment_status", f.FulfillmentStatus, FulfillmentStatuses},
	}
	for _, c := range checks {
		if c.value != nil && !slices.Contains(c.set, *c.value) {
			return apperr.Invalidf("%s must be one of %s, not %q", c.name, strings.Join(c.set, ", "), *c.value)
		}
	}
	if f.CreatedAtMin != nil && f.CreatedAtMax != nil && f.CreatedAtMax.Before(*f.CreatedAtMin) {
		return apperr.Invalidf("created_at_max must not be before created_at_min")
	}
	if f.Sort != nil {
		if _, ok := orderSorts[*f.Sort]; !ok {
			return apperr.Invalidf("sort must be one of created_at, -created_at, order_number, -order_number, total, -total, updated_at, -updated_at, not %q", *f.Sort)
		}
	}
	return nil
}

func (f OrderFilter) apply(q *bun.SelectQuery) *bun.SelectQuery {
	if f.Status != nil {
		q = q.Where("o.status = ?", *f.Status)
	}
	if f.FinancialStatus != nil {
		q = q.Where("o.financial_status = ?", *f.FinancialStatus)
	}
	if f.FulfillmentStatus != nil {
		q = q.Where("o.fulfillment_status = ?", *f.FulfillmentStatus)
	}
	if f.CreatedAtMin != nil {
		q = q.Where("o.created_at >= ?", *f.CreatedAtMin)
	}
	if f.CreatedAtMax != nil {
		q = q.Where("o.created_at <= ?", *f.CreatedAtMax)
	}
	if f.Tag != nil {
		q = q.Where("? = ANY (o.tags)", strings.TrimSpace(*f.Tag))
	}
	if f.Email != nil {
		q = q.Where("lower(o.email) = lower(?)", strings.TrimSpace(*f.Email))
	}
	if f.CustomerID != nil {
		q = q.Where("o.customer_id = ?", *f.CustomerID)
	}
	if f.Q != nil {
		if s := strings.TrimSpace(*f.Q); s != "" {
			like := containsPattern(s)
			q = q.WhereGroup(" AND ", func(q *bun.SelectQuery) *bun.SelectQuery {
				q = q.Where("o.email ILIKE ?", like).
					WhereOr("o.order_number_display ILIKE ?", like).
					WhereOr("EXISTS (SELECT 1 FROM order_line_items li WHERE li.order_id = o.id AND li.sku ILIKE ?)", like)
				if n := strings.TrimLeft(s, "#"); isDigits(n) && len(n) < 19 {
					q = q.WhereOr("o.order_number::text = ?", n)
				}
				return q
			})
		}
	}
	return q
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

func (f OrderFilter) order() string {
	if f.Sort != nil {
		return orderSorts[*f.Sort]
	}
	return orderSorts["-created_at"]
}

// ListOrders lists a store's orders under f, newest first unless f.Sort
// says otherwise.
func ListOrders(ctx context.Context, db bun.IDB, storeID int64, f OrderFilter, p Paging) ([]Order, error) {
	var out []Order
	q := db.NewSelect().Model(&out).Where("o.store_id = ?", storeID).
		Apply(f.apply).OrderExpr(f.order())
	return out, p.Apply(q).Scan(ctx)
}

// CountOrders counts what ListOrders would list without paging.
func CountOrders(ctx context.Context, db bun.IDB, storeID int64, f OrderFilter) (int64, error) {
	return db.NewSelect().Model((*Order)(nil)).Where("o.store_id = ?", storeID).
		Apply(f.apply).Count(ctx)
}

// GetOrder reads one order of the store.
func GetOrder(ctx context.Context, db bun.IDB, storeID, id int64) (*Order, error) {
	o := new(Order)
	err := db.NewSelect().Model(o).Where("store_id = ? AND id = ?", storeID, id).Scan(ctx)
	return o, classify(err, "the order")
}

// LockOrder reads one order of the store and locks it until tx ends, so
// that concurrent refunds, cancellations and fulfilments see each other.
func LockOrder(ctx context.Context, tx bun.IDB, storeID, id int64) (*Order, error) {
	o := new(Order)
	err := tx.NewSelect().Model(o).Where("store_id = ? AND id = ?", storeID, id).For("UPDATE").Scan(ctx)
	return o, classify(err, "the order")
}

// OrdersByID loads orders by id, for a dataloader.
func OrdersByID(ctx context.Context, db bun.IDB, storeID int64, ids []int64) ([]Order, error) {
	var out []Order
	err := db.NewSelect().Model(&out).Where("store_id = ? AND id IN (?)", storeID, bun.List(ids)).Scan(ctx)
	return out, err
}

// NextOrderNumber takes the store's next order number and renders it with
// the store's prefix and suffix.
func NextOrderNumber(ctx context.Context, tx bun.IDB, storeID int64) (int64, string, error) {
	var s struct {
		N      int64  `bun:"last_order_number"`
		Prefix string `bun:"order_number_prefix"`
		Suffix string `bun:"order_number_suffix"`
	}
	err := tx.NewUpdate().Table("stores").Set("last_order_number = last_order_number + 1").
		Where("id = ?", storeID).Returning("last_order_number, order_number_prefix, order_number_suffix").
		Scan(ctx, &s)
	if err != nil {
		return 0, "", classify(err, "the store")
	}
	return s.N, OrderNumberDisplay(s.Prefix, s.N, s.Suffix), nil
}

// OrderNumberDisplay is how people see an order number: "#1001".
func OrderNumberDisplay(prefix string, n int64, suffix string) string {
	return prefix + strconv.FormatInt(n, 10) + suffix
}

// InsertOrder stores a new order with its lines; o must carry its number.
func InsertOrder(ctx context.Context, tx bun.IDB, o *Order, lines []OrderLineItem) error {
	if o.Token == "" {
		o.Token = NewOrderToken()
	}
	if _, err := tx.NewInsert().Model(o).Returning(orderReturning).Exec(ctx); err != nil {
		return classify(err, "the order")
	}
	for i := range lines {
		lines[i].StoreID, lines[i].OrderID, lines[i].Position = o.StoreID, o.ID, int64(i)
	}
	if len(lines) == 0 {
		return nil
	}
	_, err := tx.NewInsert().Model(&lines).Returning("id").Exec(ctx)
	return classify(err, "the order's lines")
}

// UpdateOrderNoteTags writes the note and tags of an order.
func UpdateOrderNoteTags(ctx context.Context, tx bun.IDB, o *Order) error {
	res, err := tx.NewUpdate().Model(o).Column("note", "tags").Set("updated_at = now()").
		Where("store_id = ? AND id = ?", o.StoreID, o.ID).Exec(ctx)
	return notFoundIfNone(res, err, "the order")
}

// LineItemsByOrder loads the lines of several orders, for a dataloader.
func LineItemsByOrder(ctx context.Context, db bun.IDB, storeID int64, orderIDs []int64) ([]OrderLineItem, error) {
	var out []OrderLineItem
	err := db.NewSelect().Model(&out).Where("store_id = ? AND order_id IN (?)", storeID, bun.List(orderIDs)).
		Order("order_id", "position", "id").Scan(ctx)
	return out, err
}

// TransactionsByOrder loads the transactions of several orders, oldest
// first, for a dataloader.
func TransactionsByOrder(ctx context.Context, db bun.IDB, storeID int64, orderIDs []int64) ([]OrderTransaction, error) {
	var out []OrderTransaction
	err := db.NewSelect().Model(&out).Where("store_id = ? AND order_id IN (?)", storeID, bun.List(orderIDs)).
		Order("order_id", "created_at", "id").Scan(ctx)
	return out, err
}

// FulfillmentsByOrder loads the shipments of several orders, for a
// dataloader.
func FulfillmentsByOrder(ctx context.Context, db bun.IDB, storeID int64, orderIDs []int64) ([]Fulfillment, error) {
	var out []Fulfillment
	err := db.NewSelect().Model(&out).Where("store_id = ? AND order_id IN (?)", storeID, bun.List(orderIDs)).
		Order("order_id", "id").Scan(ctx)
	return out, err
}

// ItemsByFulfillment loads the items of several shipments with their
// lines' titles, for a dataloader.
func ItemsByFulfillment(ctx context.Context, db bun.IDB, storeID int64, fulfillmentIDs []int64) ([]FulfillmentItem, error) {
	var out []FulfillmentItem
	err := db.NewSelect().Model(&out).
		ColumnExpr("fi.*, li.title, li.variant_title").
		Join("JOIN order_line_items AS li ON li.id = fi.line_item_id").
		Where("li.store_id = ? AND fi.fulfillment_id IN (?)", storeID, bun.List(fulfillmentIDs)).
		Order("fi.fulfillment_id", "li.position", "li.id").Scan(ctx)
	return out, err
}

// RefundsByOrder loads the refunds of several orders, for a dataloader.
func RefundsByOrder(ctx context.Context, db bun.IDB, storeID int64, orderIDs []int64) ([]Refund, error) {
	var out []Refund
	err := db.NewSelect().Model(&out).Where("store_id = ? AND order_id IN (?)", storeID, bun.List(orderIDs)).
		Order("order_id", "id").Scan(ctx)
	return out, err
}

// CustomersByID loads customers by id, for a dataloader.
func CustomersByID(ctx context.Context, db bun.IDB, storeID int64, ids []int64) ([]Customer, error) {
	var out []Customer
	err := db.NewSelect().Model(&out).Where("store_id = ? AND id IN (?)", storeID, bun.List(ids)).Scan(ctx)
	return out, err
}

// CustomerOrderCount is how many orders one customer has placed.
type CustomerOrderCount struct {
	CustomerID int64 `bun:"customer_id"`
	Count      int64 `bun:"count"`
}

// OrderCountsByCustomer counts the orders of several customers in one
// statement, for a dataloader.
func OrderCountsByCustomer(ctx context.Context, db bun.IDB, storeID int64, ids []int64) ([]CustomerOrderCount, error) {
	var out []CustomerOrderCount
	err := db.NewSelect().Table("orders").ColumnExpr("customer_id, count(*) AS count").
		Where("store_id = ? AND customer_id IN (?)", storeID, bun.List(ids)).
		Group("customer_id").Scan(ctx, &out)
	return out, err
}

// OrdersByCustomer loads the newest limit orders of each of several
// customers, newest first, for a dataloader.
func OrdersByCustomer(ctx context.Context, db bun.IDB, storeID int64, ids []int64, limit int64) ([]Order, error) {
	var out []Order
	ranked := db.NewSelect().Model((*Order)(nil)).
		ColumnExpr("*, row_number() OVER (PARTITION BY customer_id ORDER BY created_at DESC, id DESC) AS rank").
		Where("store_id = ? AND customer_id IN (?)", storeID, bun.List(ids))
	err := db.NewSelect().Model(&out).ModelTableExpr("(?) AS o", ranked).
		Where("rank <= ?", limit).Order("customer_id", "created_at DESC", "id DESC").Scan(ctx)
	return out, err
}

// UpsertCustomer finds the store's customer with c.Email, or creates it;
// c receives the stored record.
func UpsertCustomer(ctx context.Context, tx bun.IDB, c *Customer) error {
	_, err := tx.NewInsert().Model(c).
		On("CONFLICT (store_id, lower(email)) DO UPDATE").
		Set("updated_at = now()").
		Returning("*").Exec(ctx)
	return classify(err, "the customer")
}

// OrderEvents reads an order's timeline, oldest first, up to limit
// entries; more reports whether there were more.
func OrderEvents(ctx context.Context, db bun.IDB, storeID, orderID int64, limit int) (events []OrderEvent, more bool, err error) {
	err = db.NewSelect().Model(&events).Where("store_id = ? AND order_id = ?", storeID, orderID).
		Order("at", "id").Limit(int64(limit + 1)).Scan(ctx)
	if len(events) > limit {
		return events[:limit], true, err
	}
	return events, false, err
}

// AddOrderEvents appends entries to order timelines.
func AddOrderEvents(ctx context.Context, tx bun.IDB, events ...OrderEvent) error {
	if len(events) == 0 {
		return nil
	}
	_, err := tx.NewInsert().Model(&events).Returning("id").Exec(ctx)
	return err
}
