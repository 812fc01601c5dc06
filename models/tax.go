package models

import (
	"time"

	"github.com/uptrace/bun"
)

// TaxRate is a sales tax rate of a country, or of one province of it.
type TaxRate struct {
	bun.BaseModel `bun:"table:tax_rates,alias:tr"`

	ID       int64  `bun:"id,pk,autoincrement" json:"id"`
	StoreID  int64  `bun:"store_id" json:"-"`
	Name     string `bun:"name" json:"name"`
	Country  string `bun:"country" json:"country"`
	Province string `bun:"province" json:"province"`
	RateBps  int64  `bun:"rate_bps" json:"rate_bps"`
	Position int64  `bun:"position" json:"position"`
	// RegionWarning names another rate of the same region; computed by the
	// query that reads the rate.
	RegionWarning *string   `bun:"region_warning,scanonly" json:"region_warning"`
	CreatedAt     time.Time `bun:"created_at,nullzero,default:now()" json:"created_at"`
	UpdatedAt     time.Time `bun:"updated_at,nullzero,default:now()" json:"updated_at"`
}
