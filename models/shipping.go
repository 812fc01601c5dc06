package models

import (
	"time"

	"github.com/uptrace/bun"
)

// ShippingZone is a set of countries a store ships to, with its rates.
type ShippingZone struct {
	bun.BaseModel `bun:"table:shipping_zones,alias:z"`

	ID            int64    `bun:"id,pk,autoincrement" json:"id"`
	StoreID       int64    `bun:"store_id" json:"-"`
	Name          string   `bun:"name" json:"name"`
	Countries     []string `bun:"countries,array" json:"countries"`
	Position      int64    `bun:"position" json:"position"`
	DefaultRateID *int64   `bun:"default_rate_id" json:"default_rate_id"`
	// RegionWarning names the countries another zone also lists; computed
	// by the query that reads the zone.
	RegionWarning *string   `bun:"region_warning,scanonly" json:"region_warning"`
	CreatedAt     time.Time `bun:"created_at,nullzero,default:now()" json:"created_at"`
	UpdatedAt     time.Time `bun:"updated_at,nullzero,default:now()" json:"updated_at"`
}

// ShippingRate is a price for shipping to a zone within weight and
// subtotal bounds.
type ShippingRate struct {
	bun.BaseModel `bun:"table:shipping_rates,alias:sr"`

	ID               int64     `bun:"id,pk,autoincrement" json:"id"`
	StoreID          int64     `bun:"store_id" json:"-"`
	ZoneID           int64     `bun:"zone_id" json:"zone_id"`
	Name             string    `bun:"name" json:"name"`
	PriceCents       int64     `bun:"price_cents" json:"price_cents"`
	Position         int64     `bun:"position" json:"position"`
	MinWeightGrams   *int64    `bun:"min_weight_grams" json:"min_weight_grams"`
	MaxWeightGrams   *int64    `bun:"max_weight_grams" json:"max_weight_grams"`
	MinSubtotalCents *int64    `bun:"min_subtotal_cents" json:"min_subtotal_cents"`
	MaxSubtotalCents *int64    `bun:"max_subtotal_cents" json:"max_subtotal_cents"`
	CreatedAt        time.Time `bun:"created_at,nullzero,default:now()" json:"created_at"`
	UpdatedAt        time.Time `bun:"updated_at,nullzero,default:now()" json:"updated_at"`
}
