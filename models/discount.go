package models

import (
	"time"

	"github.com/uptrace/bun"
)

// Discount classes, types and value types.
const (
	DiscountCode      = "code"
	DiscountAutomatic = "automatic"

	DiscountPercentage   = "percentage"
	DiscountFixedAmount  = "fixed_amount"
	DiscountFreeShipping = "free_shipping"
	DiscountBuyXGetY     = "buy_x_get_y"

	AppliesToAll         = "all"
	AppliesToProducts    = "products"
	AppliesToCollections = "collections"
)

// Discount is a code or automatic discount. Its targets are id lists on the
// row: which products and collections it applies to, and for buy X get Y,
// which ones are bought and which ones get the discount.
type Discount struct {
	bun.BaseModel `bun:"table:discounts,alias:d"`

	ID                   int64      `bun:"id,pk,autoincrement" json:"id"`
	StoreID              int64      `bun:"store_id" json:"-"`
	Class                string     `bun:"class" json:"class"`
	Code                 string     `bun:"code" json:"code"`
	Type                 string     `bun:"type" json:"type"`
	Value                int64      `bun:"value" json:"value"`
	ValueType            string     `bun:"value_type" json:"value_type"`
	AppliesTo            string     `bun:"applies_to" json:"applies_to"`
	MinimumSubtotalCents int64      `bun:"minimum_subtotal_cents" json:"minimum_subtotal_cents"`
	StartsAt             *time.Time `bun:"starts_at" json:"starts_at"`
	EndsAt               *time.Time `bun:"ends_at" json:"ends_at"`
	Enabled              bool       `bun:"enabled" json:"enabled"`
	UsageLimit           *int64     `bun:"usage_limit" json:"usage_limit"`
	UsedCount            int64      `bun:"used_count" json:"used_count"`
	OncePerCustomer      bool       `bun:"once_per_customer" json:"once_per_customer"`
	PerCustomerLimit     *int64     `bun:"per_customer_limit" json:"per_customer_limit"`
	BuyQuantity          int64      `bun:"buy_quantity" json:"buy_quantity"`
	GetQuantity          int64      `bun:"get_quantity" json:"get_quantity"`
	GetValue             int64      `bun:"get_value" json:"get_value"`
	GetValueType         string     `bun:"get_value_type" json:"get_value_type"`
	ProductIDs           []int64    `bun:"product_ids,array" json:"product_ids"`
	CollectionIDs        []int64    `bun:"collection_ids,array" json:"collection_ids"`
	BuyProductIDs        []int64    `bun:"buy_product_ids,array" json:"buy_product_ids"`
	BuyCollectionIDs     []int64    `bun:"buy_collection_ids,array" json:"buy_collection_ids"`
	GetProductIDs        []int64    `bun:"get_product_ids,array" json:"get_product_ids"`
	GetCollectionIDs     []int64    `bun:"get_collection_ids,array" json:"get_collection_ids"`
	CreatedAt            time.Time  `bun:"created_at,nullzero,default:now()" json:"created_at"`
	UpdatedAt            time.Time  `bun:"updated_at,nullzero,default:now()" json:"updated_at"`
}

// DiscountFilter narrows a discounts list.
type DiscountFilter struct {
	Class   *string `json:"class"`
	Type    *string `json:"type"`
	Enabled *bool   `json:"enabled"`
	Q       *string `json:"q"`
}
