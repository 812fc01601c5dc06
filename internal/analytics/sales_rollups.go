package analytics

import (
	"context"
	"database/sql"
	"fmt"
	"slices"

	"github.com/uptrace/bun"
)

// RebuildSalesRollups writes the store's sales-by-product rollups again
// from the raw rows, in one transaction that holds off writes to what they
// are made of meanwhile.
func RebuildSalesRollups(ctx context.Context, db bun.IDB, storeID int64) error {
	return db.RunInTx(ctx, &sql.TxOptions{}, func(ctx context.Context, tx bun.Tx) error {
		for _, q := range []string{
			`LOCK TABLE orders, order_line_items, refunds, refund_line_items IN SHARE ROW EXCLUSIVE MODE`,
			`DELETE FROM product_sales_slots WHERE store_id = ?0`,
			`SELECT product_sales_fill(?0)`,
		} {
			if _, err := tx.NewRaw(q, storeID).Exec(ctx); err != nil {
				return err
			}
		}
		return nil
	})
}

// CheckSalesRollups compares the store's rollup slots that span touches
// with the raw rows and says how each that differs does: nothing when they
// agree.
func CheckSalesRollups(ctx context.Context, db bun.IDB, storeID int64, span Span) ([]string, error) {
	span = Span{From: SlotOf(span.From), To: ceilSlot(span.To)}
	var stored []salesSlotRow
	err := db.NewRaw(`SELECT slot, product_id, variant_id, variant_orders, product_orders, items, gross_cents,
			line_discount_cents, sales_cents, discount_cents, tax_cents, refunded_items, refunded_cents
		FROM product_sales_slots WHERE store_id = ?0 AND slot >= ?1 AND slot < ?2`,
		storeID, span.From, span.To).Scan(ctx, &stored)
	if err != nil {
		return nil, err
	}
	type slotKey struct {
		slot int64
		salesKey
	}
	keyOf := func(r salesSlotRow) slotKey {
		return slotKey{r.Slot.Unix(), salesKey{r.ProductID, r.VariantID}}
	}
	want := map[slotKey]salesSlotRow{}
	err = salesRawDays(ctx, db, storeID, span, func(rows []salesSlotRow) error {
		for _, r := range rows {
			if r != (salesSlotRow{Slot: r.Slot, ProductID: r.ProductID, VariantID: r.VariantID}) {
				want[keyOf(r)] = r
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	var out []string
	for _, s := range stored {
		k := keyOf(s)
		w, ok := want[k]
		delete(want, k)
		w.Slot, s.Slot = s.Slot.UTC(), s.Slot.UTC()
		if !ok {
			w = salesSlotRow{Slot: s.Slot, ProductID: s.ProductID, VariantID: s.VariantID}
		}
		if s != w {
			out = append(out, fmt.Sprintf("product sales of slot %s, product %d, variant %d: rollup %+v, raw rows %+v",
				s.Slot.Format("2006-01-02T15:04Z"), s.ProductID, s.VariantID, s, w))
		}
	}
	for _, w := range want {
		out = append(out, fmt.Sprintf("product sales of slot %s, product %d, variant %d: no rollup, raw rows %+v",
			w.Slot.UTC().Format("2006-01-02T15:04Z"), w.ProductID, w.VariantID, w))
	}
	slices.Sort(out)
	return out, nil
}
