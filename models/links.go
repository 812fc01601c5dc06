package models

import (
	"context"

	"github.com/uptrace/bun"
)

// link is a table that links records of one kind to their owners (a
// bundle's products, a product's collections): its name, the column naming
// the linked record and the column naming its owner.
type link struct {
	table, record, owner string
}

// linkedTo loads the records of R that the link table l links to several
// owners, in one statement for a dataloader: each row is a record with the
// owner it was reached from (R embeds the record's model and has an
// `owner` column named like l.owner), ordered by owner, then record id.
func linkedTo[R any](ctx context.Context, db bun.IDB, storeID int64, l link, owners []int64) ([]R, error) {
	var out []R
	err := db.NewSelect().Model(&out).
		ColumnExpr("?TableAlias.*, ln.?", bun.Ident(l.owner)).
		Join("JOIN ? AS ln ON ln.? = ?TableAlias.id", bun.Ident(l.table), bun.Ident(l.record)).
		Where("?TableAlias.store_id = ? AND ln.? IN (?)", storeID, bun.Ident(l.owner), bun.List(owners)).
		OrderExpr("ln.?, ?TableAlias.id", bun.Ident(l.owner)).Scan(ctx)
	return out, err
}
