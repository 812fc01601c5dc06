package models

import (
	"context"

	"github.com/uptrace/bun"
)

// OrdersByID loads orders by id, for a dataloader.
func OrdersByID(ctx context.Context, db bun.IDB, storeID int64, ids []int64, cols Columns) ([]Order, error) {
	out := make([]Order, 0, len(ids)) // at most one row per id
	err := scanRows(ctx, db, db.NewSelect().Model(&out).Apply(cols.Apply).Where("store_id = ? AND id IN (?)", storeID, bun.List(ids)), &out)
	return out, err
}

// LineItemsByOrder loads the lines of several orders, for a dataloader.
func LineItemsByOrder(ctx context.Context, db bun.IDB, storeID int64, orderIDs []int64, cols Columns) ([]OrderLineItem, error) {
	out := manyRows[OrderLineItem](len(orderIDs))
	err := scanRows(ctx, db, db.NewSelect().Model(&out).Apply(cols.Apply).Where("store_id = ? AND order_id IN (?)", storeID, bun.List(orderIDs)).
		Order("order_id", "position", "id"), &out)
	return out, err
}

// TransactionsByOrder loads the transactions of several orders, oldest
// first, for a dataloader.
func TransactionsByOrder(ctx context.Context, db bun.IDB, storeID int64, orderIDs []int64, cols Columns) ([]OrderTransaction, error) {
	out := manyRows[OrderTransaction](len(orderIDs))
	err := scanRows(ctx, db, db.NewSelect().Model(&out).Apply(cols.Apply).Where("store_id = ? AND order_id IN (?)", storeID, bun.List(orderIDs)).
		Order("order_id", "created_at", "id"), &out)
	return out, err
}

// FulfillmentsByOrder loads the shipments of several orders, for a
// dataloader.
func FulfillmentsByOrder(ctx context.Context, db bun.IDB, storeID int64, orderIDs []int64, cols Columns) ([]Fulfillment, error) {
	out := manyRows[Fulfillment](len(orderIDs))
	err := scanRows(ctx, db, db.NewSelect().Model(&out).Apply(cols.Apply).Where("store_id = ? AND order_id IN (?)", storeID, bun.List(orderIDs)).
		Order("order_id", "id"), &out)
	return out, err
}

// ItemsByFulfillment loads the items of several shipments with their
// lines' titles, for a dataloader.
func ItemsByFulfillment(ctx context.Context, db bun.IDB, storeID int64, fulfillmentIDs []int64, _ Columns) ([]FulfillmentItem, error) {
	out := manyRows[FulfillmentItem](len(fulfillmentIDs))
	err := scanRows(ctx, db, db.NewSelect().Model(&out).
		ColumnExpr("fi.*, li.title, li.variant_title").
		Join("JOIN order_line_items AS li ON li.id = fi.line_item_id").
		Where("li.store_id = ? AND fi.fulfillment_id IN (?)", storeID, bun.List(fulfillmentIDs)).
		Order("fi.fulfillment_id", "li.position", "li.id"), &out)
	return out, err
}

// RefundsByOrder loads the refunds of several orders, for a dataloader.
func RefundsByOrder(ctx context.Context, db bun.IDB, storeID int64, orderIDs []int64, cols Columns) ([]Refund, error) {
	out := manyRows[Refund](len(orderIDs))
	err := scanRows(ctx, db, db.NewSelect().Model(&out).Apply(cols.Apply).Where("store_id = ? AND order_id IN (?)", storeID, bun.List(orderIDs)).
		Order("order_id", "id"), &out)
	return out, err
}
