package models

import (
	"time"

	"github.com/uptrace/bun"
)

// Draft order statuses: open while edited, invoice_sent once invoiced,
// completed once paid (final: it is an order now).
const (
	DraftOpen        = "open"
	DraftInvoiceSent = "invoice_sent"
	DraftCompleted   = "completed"
)

// DraftOrder is an order the merchant builds; its money fields are the
// pricing engine's, recomputed on every change.
type DraftOrder struct {
	bun.BaseModel `bun:"table:draft_orders,alias:dro"`

	ID               int64      `bun:"id,pk,autoincrement" json:"id"`
	StoreID          int64      `bun:"store_id" json:"-"`
	Number           int64      `bun:"number" json:"-"`
	Name             string     `bun:"name" json:"name"`
	Status           string     `bun:"status" json:"status"`
	Email            string     `bun:"email" json:"email"`
	Currency         string     `bun:"currency" json:"currency"`
	Note             string     `bun:"note" json:"note"`
	Tags             []string   `bun:"tags,array" json:"tags"`
	Token            string     `bun:"token" json:"token"`
	BillingAddress   any        `bun:"billing_address,type:jsonb" json:"billing_address"`
	ShippingAddress  any        `bun:"shipping_address,type:jsonb" json:"shipping_address"`
	RequiresShipping bool       `bun:"requires_shipping" json:"requires_shipping"`
	ShippingRateID   int64      `bun:"shipping_rate_id" json:"shipping_rate_id"`
	ShippingTitle    string     `bun:"shipping_title" json:"shipping_title"`
	ShippingCents    int64      `bun:"shipping_cents" json:"shipping_cents"`
	SubtotalCents    int64      `bun:"subtotal_cents" json:"subtotal_cents"`
	DiscountCents    int64      `bun:"discount_cents" json:"discount_cents"`
	TaxCents         int64      `bun:"tax_cents" json:"tax_cents"`
	TotalCents       int64      `bun:"total_cents" json:"total_cents"`
	DiscountCode     string     `bun:"discount_code" json:"discount_code"`
	DiscountID       *int64     `bun:"discount_id" json:"-"`
	WeightGrams      int64      `bun:"weight_grams" json:"weight_grams"`
	InvoiceSentAt    *time.Time `bun:"invoice_sent_at" json:"invoice_sent_at"`
	OrderID          *int64     `bun:"order_id" json:"order_id"`
	CompletedAt      *time.Time `bun:"completed_at" json:"completed_at"`
	CreatedAt        time.Time  `bun:"created_at,nullzero,default:now()" json:"created_at"`
	UpdatedAt        time.Time  `bun:"updated_at,nullzero,default:now()" json:"updated_at"`
}

// DraftOrderLine is one line of a draft: a catalogue variant or a custom
// line.
type DraftOrderLine struct {
	bun.BaseModel `bun:"table:draft_order_lines,alias:drl"`

	ID               int64  `bun:"id,pk,autoincrement" json:"id"`
	StoreID          int64  `bun:"store_id" json:"-"`
	DraftOrderID     int64  `bun:"draft_order_id" json:"-"`
	Position         int64  `bun:"position" json:"-"`
	Custom           bool   `bun:"custom" json:"custom"`
	VariantID        *int64 `bun:"variant_id" json:"variant_id"`
	ProductID        *int64 `bun:"product_id" json:"product_id"`
	Title            string `bun:"title" json:"title"`
	VariantTitle     string `bun:"variant_title" json:"variant_title"`
	SKU              string `bun:"sku" json:"sku"`
	PriceCents       int64  `bun:"price_cents" json:"price_cents"`
	Quantity         int64  `bun:"quantity" json:"quantity"`
	LineTotalCents   int64  `bun:"line_total_cents" json:"line_total_cents"`
	DiscountCents    int64  `bun:"discount_cents" json:"discount_cents"`
	RequiresShipping bool   `bun:"requires_shipping" json:"requires_shipping"`
	Taxable          bool   `bun:"taxable" json:"taxable"`
	WeightGrams      int64  `bun:"weight_grams" json:"weight_grams"`
}

// DraftOrderFilter narrows a draft orders list.
type DraftOrderFilter struct {
	Status *string `json:"status"`
	Q      *string `json:"q"`
}
