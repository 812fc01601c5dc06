package models

import (
	"context"
	"time"

	"github.com/uptrace/bun"
)

// RecoveryWindow is how far back an order's email reaches: an order
// recovers the abandoned carts and checkouts of its email abandoned at
// most this long before it (its own checkout, and that checkout's cart,
// however long ago). Two weeks: the checkout's lifetime, and about as long
// as a recovery sequence reminds.
const RecoveryWindow = 14 * 24 * time.Hour

// recoveryColumns are the columns of carts and checkouts that abandonment
// and recovery write, never a storefront change.
var recoveryColumns = []string{"abandoned_at", "recovered_at", "recovered_order_id", "recovery_emails"}

// Recovered is an abandoned cart or checkout that an order recovered.
type Recovered struct {
	Resource    string    `bun:"resource"` // "cart" or "checkout"
	ID          int64     `bun:"id"`
	Token       string    `bun:"token"`
	Email       string    `bun:"email"`
	AbandonedAt time.Time `bun:"abandoned_at"`
	RecoveredAt time.Time `bun:"recovered_at"`
}

// MarkRecovered marks, in the placement's transaction, what order o
// recovers: its checkout and that checkout's cart when they were flagged
// abandoned, and the carts and checkouts of its email abandoned within
// RecoveryWindow before now, none already recovered (so each is marked,
// and announced, once) and no checkout that placed another order. One
// statement, whatever the rows; every order placement calls it.
func MarkRecovered(ctx context.Context, tx bun.IDB, o *Order, now time.Time) ([]Recovered, error) {
	var out []Recovered
	since := now.Add(-RecoveryWindow)
	err := tx.NewRaw(`WITH own AS (SELECT id, cart_id FROM checkouts WHERE store_id = ? AND id = ?),
		co AS (UPDATE checkouts SET recovered_at = ?, recovered_order_id = ?
			WHERE store_id = ? AND abandoned_at IS NOT NULL AND recovered_at IS NULL
			AND (id IN (SELECT id FROM own) OR (email <> '' AND lower(email) = lower(?) AND abandoned_at >= ? AND order_id IS NULL))
			RETURNING 'checkout' AS resource, id, token, email, abandoned_at, recovered_at),
		ca AS (UPDATE carts SET recovered_at = ?, recovered_order_id = ?
			WHERE store_id = ? AND abandoned_at IS NOT NULL AND recovered_at IS NULL
			AND (id IN (SELECT cart_id FROM own) OR (email <> '' AND lower(email) = lower(?) AND abandoned_at >= ?))
			RETURNING 'cart' AS resource, id, token, email, abandoned_at, recovered_at)
		SELECT * FROM co UNION ALL SELECT * FROM ca ORDER BY resource DESC, id`,
		o.StoreID, o.CheckoutID,
		now, o.ID, o.StoreID, o.Email, since,
		now, o.ID, o.StoreID, o.Email, since).Scan(ctx, &out)
	return out, err
}
