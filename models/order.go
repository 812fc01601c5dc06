package models

import (
	"crypto/rand"
	"encoding/hex"
	"time"

	"github.com/uptrace/bun"
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

// Order is a placed order.
type Order struct {
	bun.BaseModel `bun:"table:orders,alias:o"`
	ListTotal

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
	SurchargeCents     int64             `bun:"surcharge_cents" json:"-"` // the handling surcharge, in TotalCents
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
	// CheckoutID and SessionID link an order placed on the storefront to
	// its checkout and the visit it came from.
	CheckoutID *int64    `bun:"checkout_id" json:"-"`
	SessionID  *int64    `bun:"session_id" json:"-"`
	CreatedAt  time.Time `bun:"created_at,nullzero,default:now()" json:"created_at"`
	UpdatedAt  time.Time `bun:"updated_at,nullzero,default:now()" json:"updated_at"`

	// Buyer is the order's customer when the statement that read the order
	// joined it (Paging.Join: OrderBuyer); nil otherwise. The API reads an
	// order's customer through its relation, which a joined page primes.
	Buyer *Customer `bun:"rel:belongs-to,join:customer_id=id" json:"-"`
}

// OrderBuyer is the relation Paging.Join names to read each order's
// customer in the page's statement.
const OrderBuyer = "Buyer"

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

	ID                 int64  `bun:"id,pk,autoincrement" json:"id"`
	StoreID            int64  `bun:"store_id" json:"-"`
	OrderID            int64  `bun:"order_id" json:"order_id"`
	Position           int64  `bun:"position" json:"-"`
	VariantID          *int64 `bun:"variant_id" json:"variant_id"`
	ProductID          *int64 `bun:"product_id" json:"product_id"`
	Title              string `bun:"title" json:"title"`
	VariantTitle       string `bun:"variant_title" json:"variant_title"`
	SKU                string `bun:"sku" json:"sku"`
	PriceCents         int64  `bun:"price_cents" json:"price_cents"`
	OriginalPriceCents *int64 `bun:"original_price_cents" json:"original_price_cents"`
	Quantity           int64  `bun:"quantity" json:"quantity"`
	// The line's share of the order's discount and tax, as the pricing
	// engine allocated them (PlaceOrders shares them when the placement
	// does not say). Sales by product reads them.
	DiscountCents     int64   `bun:"discount_cents" json:"discount_cents"`
	TaxCents          int64   `bun:"tax_cents" json:"tax_cents"`
	RefundedQuantity  int64   `bun:"refunded_quantity" json:"refunded_quantity"`
	FulfilledQuantity int64   `bun:"fulfilled_quantity" json:"fulfilled_quantity"`
	RequiresShipping  bool    `bun:"requires_shipping" json:"requires_shipping"`
	Properties        any     `bun:"properties,type:jsonb" json:"properties"`
	ImageSrc          string  `bun:"image_src" json:"image_src"`
	ImageThumbhash    string  `bun:"image_thumbhash" json:"image_thumbhash"`
	BundleGroup       *string `bun:"bundle_group" json:"bundle_group"`
	BundleTitle       *string `bun:"bundle_title" json:"bundle_title"`
	Source            string  `bun:"source" json:"source"`
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
