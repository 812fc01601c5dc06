package models

import (
	"context"
	"time"

	"github.com/uptrace/bun"
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

// CustomersByID loads customers by id, for a dataloader.
func CustomersByID(ctx context.Context, db bun.IDB, storeID int64, ids []int64, cols Columns) ([]Customer, error) {
	out := make([]Customer, 0, len(ids)) // at most one row per id
	err := scanRows(ctx, db, db.NewSelect().Model(&out).Apply(cols.Apply).Where("store_id = ? AND id IN (?)", storeID, bun.List(ids)), &out)
	return out, err
}

// CustomerOrderCount is how many orders one customer has placed.
type CustomerOrderCount struct {
	CustomerID int64 `bun:"customer_id"`
	Count      int64 `bun:"count"`
}

// OrderCountsByCustomer counts the orders of several customers in one
// statement, for a dataloader.
func OrderCountsByCustomer(ctx context.Context, db bun.IDB, storeID int64, ids []int64, _ Columns) ([]CustomerOrderCount, error) {
	out := make([]CustomerOrderCount, 0, len(ids)) // at most one row per id
	err := db.NewSelect().Table("orders").ColumnExpr("customer_id, count(*) AS count").
		Where("store_id = ? AND customer_id IN (?)", storeID, bun.List(ids)).
		Group("customer_id").Scan(ctx, &out)
	return out, err
}

// OrdersByCustomer loads the newest limit orders of each of several
// customers, newest first, for a dataloader.
func OrdersByCustomer(ctx context.Context, db bun.IDB, storeID int64, ids []int64, limit int64, _ Columns) ([]Order, error) {
	var out []Order
	ranked := db.NewSelect().Model((*Order)(nil)).
		ColumnExpr("*, row_number() OVER (PARTITION BY customer_id ORDER BY created_at DESC, id DESC) AS rank").
		Where("store_id = ? AND customer_id IN (?)", storeID, bun.List(ids))
	err := scanRows(ctx, db, db.NewSelect().Model(&out).ModelTableExpr("(?) AS o", ranked).
		Where("rank <= ?", limit).Order("customer_id", "created_at DESC", "id DESC"), &out)
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
