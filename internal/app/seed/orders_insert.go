package seed

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/uptrace/bun"

	"storeadmin/models"
)

// ordIDs takes n ids from table's sequence.
func ordIDs(ctx context.Context, tx bun.Tx, table string, n int64) ([]int64, error) {
	if n == 0 {
		return nil, nil
	}
	var ids []int64
	err := tx.NewRaw("SELECT nextval(pg_get_serial_sequence(?, 'id')) FROM generate_series(1, ?)", table, n).Scan(ctx, &ids)
	slices.Sort(ids)
	return ids, err
}

// ordInsert inserts rows in batches.
func ordInsert[T any](ctx context.Context, tx bun.Tx, rows []T, suffix ...string) error {
	for len(rows) > 0 {
		batch := rows[:min(len(rows), 1000)]
		q := tx.NewInsert().Model(&batch).Returning("NULL")
		for _, s := range suffix {
			q = q.On(s)
		}
		if _, err := q.Exec(ctx); err != nil {
			return err
		}
		rows = rows[len(batch):]
	}
	return nil
}

// insert numbers the orders, swaps local ids for real ones and writes
// everything in bulk.
func (g *ordGen) insert(ctx context.Context, tx bun.Tx) error {
	// Customers: an existing customer of the same email is kept.
	custs := make([]models.Customer, len(g.customers))
	for i, c := range g.customers {
		custs[i] = c.c
	}
	if err := ordInsert(ctx, tx, custs, "CONFLICT (store_id, lower(email)) DO NOTHING"); err != nil {
		return fmt.Errorf("customers: %w", err)
	}
	var known []struct {
		ID    int64  `bun:"id"`
		Email string `bun:"email"`
	}
	if err := tx.NewSelect().Table("customers").Column("id").ColumnExpr("lower(email) AS email").
		Where("store_id = ?", g.storeID).Scan(ctx, &known); err != nil {
		return err
	}
	custID := make(map[string]int64, len(known))
	for _, k := range known {
		custID[k.Email] = k.ID
	}

	// A block of order numbers, taken at once.
	n := int64(len(g.orders))
	var s struct {
		Last   int64  `bun:"last_order_number"`
		Prefix string `bun:"order_number_prefix"`
		Suffix string `bun:"order_number_suffix"`
	}
	err := tx.NewUpdate().Table("stores").Set("last_order_number = last_order_number + ?", n).
		Where("id = ?", g.storeID).Returning("last_order_number, order_number_prefix, order_number_suffix").Scan(ctx, &s)
	if err != nil {
		return err
	}

	orderIDs, err := ordIDs(ctx, tx, "orders", n)
	if err != nil {
		return err
	}
	lineIDs, err := ordIDs(ctx, tx, "order_line_items", g.lineN)
	if err != nil {
		return err
	}
	txIDs, err := ordIDs(ctx, tx, "order_transactions", g.txN)
	if err != nil {
		return err
	}
	refundIDs, err := ordIDs(ctx, tx, "refunds", g.refundN)
	if err != nil {
		return err
	}
	fulIDs, err := ordIDs(ctx, tx, "fulfillments", g.fulN)
	if err != nil {
		return err
	}
	id := func(ids []int64, local int64) int64 { return ids[local-1] }
	idp := func(ids []int64, local *int64) *int64 {
		if local == nil {
			return nil
		}
		return ptr(ids[*local-1])
	}

	var (
		orders      = make([]models.Order, 0, n)
		lines       = make([]models.OrderLineItem, 0, g.lineN)
		txs         = make([]models.OrderTransaction, 0, g.txN)
		refunds     = make([]models.Refund, 0, g.refundN)
		refundItems []models.RefundLineItem
		fuls        = make([]models.Fulfillment, 0, g.fulN)
		fulItems    []models.FulfillmentItem
		events      []models.OrderEvent
	)
	for k, oo := range g.orders {
		o := oo.o
		o.ID = id(orderIDs, oo.local)
		o.OrderNumber = s.Last - n + 1 + int64(k)
		o.OrderNumberDisplay = models.OrderNumberDisplay(s.Prefix, o.OrderNumber, s.Suffix)
		o.Token = models.NewOrderToken()
		if oo.cust != nil {
			if cid, ok := custID[strings.ToLower(oo.cust.c.Email)]; ok {
				o.CustomerID = ptr(cid)
			}
		}
		orders = append(orders, o)
		for _, l := range oo.lines {
			l.ID, l.OrderID = id(lineIDs, l.ID), o.ID
			lines = append(lines, l)
		}
		for _, t := range oo.txs {
			t.ID, t.OrderID, t.ParentID, t.RefundID = id(txIDs, t.ID), o.ID, idp(txIDs, t.ParentID), idp(refundIDs, t.RefundID)
			txs = append(txs, t)
		}
		for _, r := range oo.refunds {
			r.ID, r.OrderID = id(refundIDs, r.ID), o.ID
			refunds = append(refunds, r)
		}
		for _, ri := range oo.refundItems {
			ri.RefundID, ri.LineItemID = id(refundIDs, ri.RefundID), id(lineIDs, ri.LineItemID)
			refundItems = append(refundItems, ri)
		}
		for _, f := range oo.fuls {
			f.ID, f.OrderID = id(fulIDs, f.ID), o.ID
			fuls = append(fuls, f)
		}
		for _, fi := range oo.fulItems {
			fi.FulfillmentID, fi.LineItemID = id(fulIDs, fi.FulfillmentID), id(lineIDs, fi.LineItemID)
			fulItems = append(fulItems, fi)
		}
		for _, e := range oo.events {
			e.OrderID, e.TransactionID = o.ID, idp(txIDs, e.TransactionID)
			events = append(events, e)
		}
	}
	steps := []struct {
		name string
		run  func() error
	}{
		{"orders", func() error { return ordInsert(ctx, tx, orders) }},
		{"line items", func() error { return ordInsert(ctx, tx, lines) }},
		{"refunds", func() error { return ordInsert(ctx, tx, refunds) }},
		{"refund line items", func() error { return ordInsert(ctx, tx, refundItems) }},
		{"transactions", func() error { return ordInsert(ctx, tx, txs) }},
		{"fulfillments", func() error { return ordInsert(ctx, tx, fuls) }},
		{"fulfillment items", func() error { return ordInsert(ctx, tx, fulItems) }},
		{"order events", func() error { return ordInsert(ctx, tx, events) }},
	}
	for _, st := range steps {
		if err := st.run(); err != nil {
			return fmt.Errorf("%s: %w", st.name, err)
		}
	}
	return nil
}
