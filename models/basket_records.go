package models

import (
	"context"
	"database/sql"
	"errors"

	"github.com/uptrace/bun"

	"storeadmin/internal/base/apperr"
)

// Carts and checkouts, and their lines (cart_lines, checkout_lines: the
// same columns under another parent), read and stored by the same code.

// byToken reads the store's record of the token; lock takes its row for
// the caller's transaction. Another store's token is not found (notFound).
func byToken[T any](ctx context.Context, db bun.IDB, storeID int64, token string, lock bool, notFound string) (*T, error) {
	c := new(T)
	q := db.NewSelect().Model(c).Where("store_id = ? AND token = ?", storeID, token)
	if lock {
		q = q.For("UPDATE")
	}
	if err := q.Scan(ctx); err != nil {
		if errors.Is(err, sql.ErrNoRows) {
			return nil, apperr.NotFoundf("%s", notFound)
		}
		return nil, err
	}
	return c, nil
}

// basketLineRow is a line type of a parent record: a BasketLine placed
// under its parent.
type basketLineRow[L any] interface {
	*L
	place(storeID, parentID int64, position int)
}

func (l *CartLine) place(storeID, cartID int64, position int) {
	l.StoreID, l.CartID, l.Position = storeID, cartID, int64(position)
}

func (l *StorefrontCheckoutLine) place(storeID, checkoutID int64, position int) {
	l.StoreID, l.CheckoutID, l.Position = storeID, checkoutID, int64(position)
}

// linesOf loads the lines of several parents (their ids in the column
// parent), in order, for a dataloader or for one parent.
func linesOf[L any](ctx context.Context, db bun.IDB, storeID int64, parent string, ids []int64, cols Columns) ([]L, error) {
	out := manyRows[L](len(ids))
	err := scanRows(ctx, db, db.NewSelect().Model(&out).Apply(cols.Apply).
		Where("store_id = ? AND ? IN (?)", storeID, bun.Ident(parent), bun.List(ids)).
		OrderExpr("?, position, id", bun.Ident(parent)), &out)
	return out, err
}

// replaceLines makes lines the lines of the parent, numbered in order.
func replaceLines[L any, P basketLineRow[L]](ctx context.Context, tx bun.IDB, storeID int64, parent string, parentID int64, lines []L, what string) error {
	if _, err := tx.NewDelete().Model((*L)(nil)).Where("store_id = ? AND ? = ?", storeID, bun.Ident(parent), parentID).Exec(ctx); err != nil {
		return err
	}
	if len(lines) == 0 {
		return nil
	}
	for i := range lines {
		P(&lines[i]).place(storeID, parentID, i)
	}
	_, err := tx.NewInsert().Model(&lines).Returning("id").Exec(ctx)
	return classify(err, what)
}

// saveLines writes the lines' catalogue facts and prices (after a
// reprice).
func saveLines[L any](ctx context.Context, tx bun.IDB, lines []L) error {
	if len(lines) == 0 {
		return nil
	}
	_, err := tx.NewUpdate().Model(&lines).Bulk().
		Column("variant_id", "product_id", "title", "variant_title", "handle", "sku", "price_cents").
		WherePK().Exec(ctx)
	return err
}

// CartLines lists the cart's lines in order.
func CartLines(ctx context.Context, db bun.IDB, storeID, cartID int64) ([]CartLine, error) {
	return LinesByCart(ctx, db, storeID, []int64{cartID}, AllColumns)
}

// LinesByCart loads the lines of several carts, in order.
func LinesByCart(ctx context.Context, db bun.IDB, storeID int64, cartIDs []int64, cols Columns) ([]CartLine, error) {
	return linesOf[CartLine](ctx, db, storeID, "cart_id", cartIDs, cols)
}

// ReplaceCartLines makes lines the cart's lines.
func ReplaceCartLines(ctx context.Context, tx bun.IDB, c *Cart, lines []CartLine) error {
	return replaceLines(ctx, tx, c.StoreID, "cart_id", c.ID, lines, "the cart's lines")
}

// SaveCartLines writes the cart lines' catalogue facts and prices.
func SaveCartLines(ctx context.Context, tx bun.IDB, lines []CartLine) error {
	return saveLines(ctx, tx, lines)
}

// CheckoutLines lists the checkout's lines in order.
func CheckoutLines(ctx context.Context, db bun.IDB, storeID, checkoutID int64) ([]StorefrontCheckoutLine, error) {
	return LinesByCheckout(ctx, db, storeID, []int64{checkoutID}, AllColumns)
}

// LinesByCheckout loads the lines of several checkouts, in order.
func LinesByCheckout(ctx context.Context, db bun.IDB, storeID int64, checkoutIDs []int64, cols Columns) ([]StorefrontCheckoutLine, error) {
	return linesOf[StorefrontCheckoutLine](ctx, db, storeID, "checkout_id", checkoutIDs, cols)
}

// ReplaceCheckoutLines makes lines the checkout's lines.
func ReplaceCheckoutLines(ctx context.Context, tx bun.IDB, c *StorefrontCheckout, lines []StorefrontCheckoutLine) error {
	return replaceLines(ctx, tx, c.StoreID, "checkout_id", c.ID, lines, "the checkout's lines")
}

// SaveCheckoutLines writes the checkout lines' catalogue facts and prices.
func SaveCheckoutLines(ctx context.Context, tx bun.IDB, lines []StorefrontCheckoutLine) error {
	return saveLines(ctx, tx, lines)
}
