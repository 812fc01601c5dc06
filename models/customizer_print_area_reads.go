package models

import (
	"context"

	"github.com/uptrace/bun"
)

// PrintAreasByMockup loads the print areas of several mockups, in their
// order, for a dataloader (the studio's and the preview's mockups).
func PrintAreasByMockup(ctx context.Context, db bun.IDB, storeID int64, ids []int64, cols Columns) ([]CzPrintArea, error) {
	out := manyRows[CzPrintArea](len(ids))
	err := scanRows(ctx, db, db.NewSelect().Model(&out).Apply(cols.Apply).Where("store_id = ? AND mockup_id IN (?)", storeID, bun.List(ids)).
		Order("mockup_id", "position", "id"), &out)
	return out, err
}
