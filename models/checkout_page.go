package models

import (
	"context"
	"time"

	"github.com/uptrace/bun"
)

// CheckoutPage is the design of a checkout (checkout_pages, migration
// 20261124180000): its sections, and whether it is the store's default.
type CheckoutPage struct {
	bun.BaseModel `bun:"table:checkout_pages,alias:cp"`

	ID        int64     `bun:"id,pk,autoincrement" json:"id"`
	StoreID   int64     `bun:"store_id" json:"-"`
	Name      string    `bun:"name" json:"name"`
	IsDefault bool      `bun:"is_default" json:"is_default"`
	Sections  any       `bun:"sections,type:jsonb" json:"sections"`
	CreatedAt time.Time `bun:"created_at,nullzero,default:now()" json:"-"`
	UpdatedAt time.Time `bun:"updated_at,nullzero,default:now()" json:"updated_at"`
}

// InsertCheckoutPage stores a new page row.
func InsertCheckoutPage(ctx context.Context, db bun.IDB, p *CheckoutPage) error {
	_, err := db.NewInsert().Model(p).Returning("id, created_at, updated_at").Exec(ctx)
	return classify(err, "the checkout page")
}
