package models

import (
	"context"
	"strconv"

	"github.com/uptrace/bun"
)

// GetOrder reads one order of the store.
func GetOrder(ctx context.Context, db bun.IDB, storeID, id int64) (*Order, error) {
	o := new(Order)
	err := db.NewSelect().Model(o).Where("store_id = ? AND id = ?", storeID, id).Scan(ctx)
	return o, classify(err, "the order")
}

// LockOrder reads one order of the store and locks it until tx ends, so
// that concurrent refunds, cancellations and fulfilments see each other.
func LockOrder(ctx context.Context, tx bun.IDB, storeID, id int64) (*Order, error) {
	o := new(Order)
	err := tx.NewSelect().Model(o).Where("store_id = ? AND id = ?", storeID, id).For("UPDATE").Scan(ctx)
	return o, classify(err, "the order")
}

// NextOrderNumber takes the store's next order number and renders it with
// the store's prefix and suffix.
func NextOrderNumber(ctx context.Context, tx bun.IDB, storeID int64) (int64, string, error) {
	var s struct {
		N      int64  `bun:"last_order_number"`
		Prefix string `bun:"order_number_prefix"`
		Suffix string `bun:"order_number_suffix"`
	}
	err := tx.NewUpdate().Table("stores").Set("last_order_number = last_order_number + 1").
		Where("id = ?", storeID).Returning("last_order_number, order_number_prefix, order_number_suffix").
		Scan(ctx, &s)
	if err != nil {
		return 0, "", classify(err, "the store")
	}
	return s.N, OrderNumberDisplay(s.Prefix, s.N, s.Suffix), nil
}

// OrderNumberDisplay is how people see an order number: "#1001".
func OrderNumberDisplay(prefix string, n int64, suffix string) string {
	return prefix + strconv.FormatInt(n, 10) + suffix
}

// InsertOrder stores a new order with its lines; o must carry its number.
func InsertOrder(ctx context.Context, tx bun.IDB, o *Order, lines []OrderLineItem) error {
	if o.Token == "" {
		o.Token = NewOrderToken()
	}
	if _, err := tx.NewInsert().Model(o).Returning(orderReturning).Exec(ctx); err != nil {
		return classify(err, "the order")
	}
	for i := range lines {
		lines[i].StoreID, lines[i].OrderID, lines[i].Position = o.StoreID, o.ID, int64(i)
	}
	if len(lines) == 0 {
		return nil
	}
	_, err := tx.NewInsert().Model(&lines).Returning("id").Exec(ctx)
	return classify(err, "the order's lines")
}

// UpdateOrderNoteTags writes the note and tags of an order.
func UpdateOrderNoteTags(ctx context.Context, tx bun.IDB, o *Order) error {
	res, err := tx.NewUpdate().Model(o).Column("note", "tags").Set("updated_at = now()").
		Where("store_id = ? AND id = ?", o.StoreID, o.ID).Exec(ctx)
	return notFoundIfNone(res, err, "the order")
}
