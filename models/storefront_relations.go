package models

import (
	"context"

	"github.com/uptrace/bun"
)

// The storefront's carts and checkouts as the graph reaches them: by the
// session that made them, a cart's checkouts, and their lines, for
// dataloaders (one statement for all the parents of a field).

// CartsBySession loads the carts of several sessions, oldest first.
func CartsBySession(ctx context.Context, db bun.IDB, storeID int64, sessionIDs []int64, cols Columns) ([]Cart, error) {
	out := manyRows[Cart](len(sessionIDs))
	err := scanRows(ctx, db, db.NewSelect().Model(&out).Apply(cols.Apply).Where("store_id = ? AND session_id IN (?)", storeID, bun.List(sessionIDs)).
		Order("created_at", "id"), &out)
	return out, err
}

// CheckoutsBySession loads the checkouts of several sessions, oldest first.
func CheckoutsBySession(ctx context.Context, db bun.IDB, storeID int64, sessionIDs []int64, cols Columns) ([]StorefrontCheckout, error) {
	out := manyRows[StorefrontCheckout](len(sessionIDs))
	err := scanRows(ctx, db, db.NewSelect().Model(&out).Apply(cols.Apply).Where("store_id = ? AND session_id IN (?)", storeID, bun.List(sessionIDs)).
		Order("created_at", "id"), &out)
	return out, err
}

// CheckoutsByCart loads the checkouts started from several carts, oldest
// first.
func CheckoutsByCart(ctx context.Context, db bun.IDB, storeID int64, cartIDs []int64, cols Columns) ([]StorefrontCheckout, error) {
	out := manyRows[StorefrontCheckout](len(cartIDs))
	err := scanRows(ctx, db, db.NewSelect().Model(&out).Apply(cols.Apply).Where("store_id = ? AND cart_id IN (?)", storeID, bun.List(cartIDs)).
		Order("created_at", "id"), &out)
	return out, err
}
