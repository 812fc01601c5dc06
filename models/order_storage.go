package models

import (
	"context"
	"strconv"
	"strings"
	"time"

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
	n, prefix, suffix, err := takeOrderNumbers(ctx, tx, storeID, 1)
	return n, OrderNumberDisplay(prefix, n, suffix), err
}

// takeOrderNumbers takes the store's next n order numbers at once: first
// is the first of them; prefix and suffix render them.
func takeOrderNumbers(ctx context.Context, tx bun.IDB, storeID, n int64) (first int64, prefix, suffix string, err error) {
	var s struct {
		N      int64  `bun:"last_order_number"`
		Prefix string `bun:"order_number_prefix"`
		Suffix string `bun:"order_number_suffix"`
	}
	err = tx.NewUpdate().Table("stores").Set("last_order_number = last_order_number + ?", n).
		Where("id = ?", storeID).Returning("last_order_number, order_number_prefix, order_number_suffix").
		Scan(ctx, &s)
	if err != nil {
		return 0, "", "", classify(err, "the store")
	}
	return s.N - n + 1, s.Prefix, s.Suffix, nil
}

// OrderNumberDisplay is how people see an order number: "#1001".
func OrderNumberDisplay(prefix string, n int64, suffix string) string {
	return prefix + strconv.FormatInt(n, 10) + suffix
}

// InsertOrder stores a new order with its lines; o must carry its number.
func InsertOrder(ctx context.Context, tx bun.IDB, o *Order, lines []OrderLineItem) error {
	return InsertOrders(ctx, tx, []*Order{o}, [][]OrderLineItem{lines})
}

// InsertOrders stores new orders, each with its lines (lines[i] are
// orders[i]'s), in two statements; each order must carry its number.
func InsertOrders(ctx context.Context, tx bun.IDB, orders []*Order, lines [][]OrderLineItem) error {
	if len(orders) == 0 {
		return nil
	}
	for _, o := range orders {
		if o.Token == "" {
			o.Token = NewOrderToken()
		}
	}
	if _, err := tx.NewInsert().Model(&orders).Returning(orderReturning).Exec(ctx); err != nil {
		return classify(err, "the order")
	}
	var all []OrderLineItem
	for k, o := range orders {
		for i := range lines[k] {
			lines[k][i].StoreID, lines[k][i].OrderID, lines[k][i].Position = o.StoreID, o.ID, int64(i)
		}
		all = append(all, lines[k]...)
	}
	if len(all) == 0 {
		return nil
	}
	if _, err := tx.NewInsert().Model(&all).Returning("id").Exec(ctx); err != nil {
		return classify(err, "the order's lines")
	}
	for k := range lines { // the ids back to the callers' lines
		n := copy(lines[k], all)
		all = all[n:]
	}
	return nil
}

// UpdateOrderNoteTags sets o's note and tags, each when given (nil leaves
// it), and puts what changed on the timeline ("note_updated",
// "tags_updated").
func UpdateOrderNoteTags(ctx context.Context, tx bun.IDB, o *Order, note *string, tags *[]string, actor string, now time.Time) error {
	var changed []OrderEvent
	if note != nil {
		if *note != o.Note {
			changed = append(changed, timelineEntry(o, "note_updated", actor, now, nil, map[string]any{"note": *note}))
		}
		o.Note = *note
	}
	if tags != nil {
		if strings.Join(*tags, ",") != strings.Join(o.Tags, ",") {
			changed = append(changed, timelineEntry(o, "tags_updated", actor, now, nil, map[string]any{"tags": *tags}))
		}
		o.Tags = *tags
	}
	res, err := tx.NewUpdate().Model(o).Column("note", "tags").Set("updated_at = ?", now).
		Where("store_id = ? AND id = ?", o.StoreID, o.ID).Exec(ctx)
	if err := notFoundIfNone(res, err, "the order"); err != nil {
		return err
	}
	return AddOrderEvents(ctx, tx, changed...)
}
