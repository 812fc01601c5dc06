package models

import (
	"context"
	"database/sql"
	"time"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/pgdialect"

	"storeadmin/internal/base/apperr"
)

// MaxOrderExport is how many orders one export may hold: it is streamed
// (ExportOrders hands it on a chunk at a time), so the bound is on its
// time, not its memory. Beyond it the export is refused (a 400 asking to
// narrow the filter) rather than cut short, since a sheet silently missing
// orders is worse than none.
const MaxOrderExport = 250_000

// exportChunk is how many orders ExportOrders reads, completes and hands
// on at a time: an export holds one chunk in memory, and costs six
// statements per chunk (the orders, then their lines, payments, refunds,
// shipments and customers), each with an id list of bounded size.
const exportChunk = 2_000

// OrderExport is an order with what the orders export writes besides the
// order's own columns.
type OrderExport struct {
	Order
	Lines []OrderExportLine
	// Customer is nil when the order has none.
	Customer *Customer
	// RefundedCents sums the order's successful refunds.
	RefundedCents int64
	// Payment is the order's first payment transaction (authorization, sale
	// or capture) that did not fail; nil when there is none.
	Payment *OrderTransaction
	// FulfilledAt is when the last active shipment was made; nil when
	// nothing has shipped.
	FulfilledAt *time.Time
}

// OrderExportLine is a line with the vendor of its product (empty once the
// product is gone).
type OrderExportLine struct {
	OrderLineItem `bun:",extend"`
	Vendor        string `bun:"vendor,scanonly"`
}

// ExportOrders reads the store's orders under f, in ListOrders' order,
// with their lines, customers, refunded amounts, first payments and
// fulfilment times, and hands them to each a chunk at a time (at most
// exportChunk orders; each chunk is each's to keep). It reads at most max
// orders: when more match (counted first), it reads nothing and answers a
// 400 asking to narrow the filter.
//
// Everything is read in one read-only, repeatable-read transaction, so the
// lines and amounts agree with the orders, and the chunks with each other,
// even while the store takes new ones. The chunks follow each other by
// keyset cursor (PageOrders), so each is found by the sort's index however
// deep in the list.
func ExportOrders(ctx context.Context, db bun.IDB, storeID int64, f OrderFilter, max int64, each func([]OrderExport) error) error {
	opts := &sql.TxOptions{Isolation: sql.LevelRepeatableRead, ReadOnly: true}
	return db.RunInTx(ctx, opts, func(ctx context.Context, tx bun.Tx) error {
		n, err := CountOrders(ctx, tx, storeID, f)
		if err != nil {
			return err
		}
		if n > max {
			return apperr.Invalidf("more than %d orders match the filter; narrow it (created_at_min and created_at_max, status, ...) and export in parts", max)
		}
		p := Paging{Limit: exportChunk}
		for {
			page, err := PageOrders(ctx, tx, storeID, f, p)
			if err != nil {
				return err
			}
			chunk := make([]OrderExport, len(page.Rows))
			at := make(map[int64]int, len(page.Rows))
			for i := range page.Rows {
				chunk[i].Order = page.Rows[i]
				at[page.Rows[i].ID] = i
			}
			if len(chunk) > 0 {
				if err := exportDetails(ctx, tx, storeID, chunk, at); err != nil {
					return err
				}
				if err := each(chunk); err != nil {
					return err
				}
			}
			if page.Next == nil {
				return nil
			}
			p.Cursor = *page.Next
		}
	})
}

// exportDetails reads what the export needs besides the orders of chunk
// and files it in chunk, where at says which entry holds each order.
func exportDetails(ctx context.Context, tx bun.IDB, storeID int64, chunk []OrderExport, at map[int64]int) error {
	out := chunk
	ids := make([]int64, len(chunk))
	var customerIDs []int64
	seen := map[int64]bool{}
	for i := range chunk {
		ids[i] = chunk[i].ID
		if c := chunk[i].CustomerID; c != nil && !seen[*c] {
			seen[*c] = true
			customerIDs = append(customerIDs, *c)
		}
	}
	inChunk := pgdialect.Array(ids)

	var lines []OrderExportLine
	err := tx.NewSelect().Model(&lines).ModelTableExpr("order_line_items AS li").
		ColumnExpr("li.id, li.order_id, li.position, li.variant_id, li.product_id, li.title, li.variant_title, li.sku").
		ColumnExpr("li.price_cents, li.original_price_cents, li.quantity, li.refunded_quantity, li.fulfilled_quantity").
		ColumnExpr("li.requires_shipping, li.source, coalesce(p.vendor, '') AS vendor").
		Join("LEFT JOIN products AS p ON p.id = li.product_id").
		Where("li.store_id = ? AND li.order_id = ANY (?)", storeID, inChunk).
		OrderExpr("li.order_id, li.position, li.id").Scan(ctx)
	if err != nil {
		return err
	}
	for _, l := range lines {
		o := &out[at[l.OrderID]]
		o.Lines = append(o.Lines, l)
	}

	var payments []OrderTransaction
	err = tx.NewSelect().Model(&payments).DistinctOn("order_id").
		Where("store_id = ? AND order_id = ANY (?)", storeID, inChunk).
		Where("kind IN (?)", bun.List([]string{TxAuthorization, TxSale, TxCapture})).
		Where("status IN (?)", bun.List([]string{TxSuccess, TxPending})).
		OrderExpr("order_id, created_at, id").Scan(ctx)
	if err != nil {
		return err
	}
	for i := range payments {
		out[at[payments[i].OrderID]].Payment = &payments[i]
	}

	var refunded []struct {
		OrderID int64 `bun:"order_id"`
		Cents   int64 `bun:"cents"`
	}
	err = tx.NewSelect().TableExpr("refunds").ColumnExpr("order_id, sum(amount_cents)::bigint AS cents").
		Where("store_id = ? AND order_id = ANY (?) AND status = 'success'", storeID, inChunk).
		Group("order_id").Scan(ctx, &refunded)
	if err != nil {
		return err
	}
	for _, r := range refunded {
		out[at[r.OrderID]].RefundedCents = r.Cents
	}

	var shipped []struct {
		OrderID int64     `bun:"order_id"`
		At      time.Time `bun:"at"`
	}
	err = tx.NewSelect().TableExpr("fulfillments").ColumnExpr("order_id, max(created_at) AS at").
		Where("store_id = ? AND order_id = ANY (?) AND status = ?", storeID, inChunk, ShipmentSuccess).
		Group("order_id").Scan(ctx, &shipped)
	if err != nil {
		return err
	}
	for _, s := range shipped {
		when := s.At
		out[at[s.OrderID]].FulfilledAt = &when
	}

	if len(customerIDs) == 0 {
		return nil
	}
	var customers []Customer
	err = tx.NewSelect().Model(&customers).
		Where("store_id = ? AND id = ANY (?)", storeID, pgdialect.Array(customerIDs)).Scan(ctx)
	if err != nil {
		return err
	}
	byID := make(map[int64]*Customer, len(customers))
	for i := range customers {
		byID[customers[i].ID] = &customers[i]
	}
	for i := range chunk {
		if c := chunk[i].CustomerID; c != nil {
			chunk[i].Customer = byID[*c]
		}
	}
	return nil
}
