package models

import (
	"cmp"
	"context"
	"slices"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/pgdialect"

	"storeadmin/internal/base/apperr"
)

// AdjustInventory adds deltas (variant id → quantity; negative takes
// stock) to the stock of the store's tracked variants, in one statement.
// It locks the rows in id order first, one lock order for every
// transaction, so a sale and a restock of the same variants cannot
// deadlock. A variant that may not be oversold (policy deny) and would go
// below zero is a conflict.
func AdjustInventory(ctx context.Context, tx bun.IDB, storeID int64, deltas map[int64]int64) error {
	ids := make([]int64, 0, len(deltas))
	for id, d := range deltas {
		if d != 0 {
			ids = append(ids, id)
		}
	}
	if len(ids) == 0 {
		return nil
	}
	slices.Sort(ids)
	ds := make([]int64, len(ids))
	for i, id := range ids {
		ds[i] = deltas[id]
	}
	type stock struct {
		ID       int64  `bun:"id"`
		SKU      string `bun:"sku"`
		Quantity int64  `bun:"inventory_quantity"`
		Policy   string `bun:"inventory_policy"`
		Delta    int64  `bun:"delta"`
	}
	var after []stock
	err := tx.NewRaw(`WITH d AS (SELECT * FROM unnest(?::bigint[], ?::bigint[]) AS d(id, delta)),
		locked AS MATERIALIZED (SELECT v.id FROM product_variants v JOIN d ON d.id = v.id
			WHERE v.store_id = ? AND v.track_inventory ORDER BY v.id FOR UPDATE OF v)
		UPDATE product_variants v SET inventory_quantity = v.inventory_quantity + d.delta
		FROM d JOIN locked ON locked.id = d.id WHERE v.id = d.id
		RETURNING v.id, v.sku, v.inventory_quantity, v.inventory_policy, d.delta`,
		pgdialect.Array(ids), pgdialect.Array(ds), storeID).Scan(ctx, &after)
	if err != nil {
		return err
	}
	slices.SortFunc(after, func(a, b stock) int { return cmp.Compare(a.ID, b.ID) })
	for _, a := range after {
		if a.Delta < 0 && a.Quantity < 0 && a.Policy == "deny" {
			return apperr.Conflictf("variant %d (SKU %q) has only %d in stock, not %d", a.ID, a.SKU, a.Quantity-a.Delta, -a.Delta)
		}
	}
	return nil
}
