package models

import (
	"context"
	"slices"

	"github.com/uptrace/bun"

	"storeadmin/internal/base/apperr"
)

// AdjustInventory adds deltas (variant id → quantity; negative takes
// stock) to the stock of the store's tracked variants. Rows are updated in
// id order, one lock order for every transaction, so a sale and a restock
// of the same variants cannot deadlock. A variant that may not be oversold
// (policy deny) and would go below zero is a conflict.
func AdjustInventory(ctx context.Context, tx bun.IDB, storeID int64, deltas map[int64]int64) error {
	ids := make([]int64, 0, len(deltas))
	for id, d := range deltas {
		if d != 0 {
			ids = append(ids, id)
		}
	}
	slices.Sort(ids)
	for _, id := range ids {
		var after []struct {
			SKU      string `bun:"sku"`
			Quantity int64  `bun:"inventory_quantity"`
			Policy   string `bun:"inventory_policy"`
		}
		err := tx.NewUpdate().Table("product_variants").
			Set("inventory_quantity = inventory_quantity + ?", deltas[id]).
			Where("store_id = ? AND id = ? AND track_inventory", storeID, id).
			Returning("sku, inventory_quantity, inventory_policy").Scan(ctx, &after)
		if err != nil {
			return err
		}
		if d := deltas[id]; d < 0 && len(after) == 1 && after[0].Quantity < 0 && after[0].Policy == "deny" {
			return apperr.Conflictf("variant %d (SKU %q) has only %d in stock, not %d", id, after[0].SKU, after[0].Quantity-d, -d)
		}
	}
	return nil
}
