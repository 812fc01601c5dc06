package models

import (
	"context"

	"github.com/uptrace/bun"

	"storeadmin/internal/base/apperr"
)

// The storage of the customizer's artwork libraries and their items
// (README "Product customizer / Artwork libraries").

// ListCzLibraries lists a store's libraries by group_key, scope_value and
// id.
func ListCzLibraries(ctx context.Context, db bun.IDB, storeID int64, p Paging) ([]CzLibrary, error) {
	out := []CzLibrary{}
	q := db.NewSelect().Model(&out).Apply(p.Columns.Apply).Where("czl.store_id = ?", storeID).
		Order("czl.group_key", "czl.scope_value", "czl.id")
	err := scanRows(ctx, db, p.Apply(q), &out)
	return out, err
}

// GetCzLibrary reads one library of the store; lock takes its row for the
// transaction, so that its items' cap and positions are decided by one
// writer at a time.
func GetCzLibrary(ctx context.Context, db bun.IDB, storeID, id int64, lock bool) (*CzLibrary, error) {
	l := new(CzLibrary)
	q := db.NewSelect().Model(l).Where("czl.store_id = ? AND czl.id = ?", storeID, id)
	if lock {
		q = q.For("UPDATE")
	}
	return l, classify(q.Scan(ctx), "the library")
}

// InsertCzLibrary stores a new library; it receives its id.
func InsertCzLibrary(ctx context.Context, db bun.IDB, l *CzLibrary) error {
	_, err := db.NewInsert().Model(l).Returning("id, created_at").Exec(ctx)
	return classify(err, "the library")
}

// RenameCzLibrary writes a library's name (its kind, group and scope never
// change).
func RenameCzLibrary(ctx context.Context, db bun.IDB, l *CzLibrary) error {
	res, err := db.NewUpdate().Model(l).Column("name").Where("store_id = ? AND id = ?", l.StoreID, l.ID).Exec(ctx)
	return notFoundIfNone(res, err, "the library")
}

// DeleteCzLibrary deletes a library and its items.
func DeleteCzLibrary(ctx context.Context, db bun.IDB, storeID, id int64) error {
	res, err := db.NewDelete().Model((*CzLibrary)(nil)).Where("store_id = ? AND id = ?", storeID, id).Exec(ctx)
	return notFoundIfNone(res, err, "the library")
}

// ListCzLibraryItems lists every item of a library by position.
func ListCzLibraryItems(ctx context.Context, db bun.IDB, storeID, libraryID int64, cols Columns) ([]CzLibraryItem, error) {
	out := []CzLibraryItem{}
	err := scanRows(ctx, db, db.NewSelect().Model(&out).Apply(cols.Apply).
		Where("czli.store_id = ? AND czli.library_id = ?", storeID, libraryID).Order("czli.position", "czli.id"), &out)
	return out, err
}

// CzLibraryItemIDs are the ids of a library's items by position.
func CzLibraryItemIDs(ctx context.Context, db bun.IDB, storeID, libraryID int64) ([]int64, error) {
	ids := []int64{}
	err := db.NewSelect().Model((*CzLibraryItem)(nil)).Column("id").
		Where("store_id = ? AND library_id = ?", storeID, libraryID).Order("position", "id").Scan(ctx, &ids)
	return ids, err
}

// GetCzLibraryItem reads one library item of the store.
func GetCzLibraryItem(ctx context.Context, db bun.IDB, storeID, id int64) (*CzLibraryItem, error) {
	it := new(CzLibraryItem)
	err := db.NewSelect().Model(it).Where("czli.store_id = ? AND czli.id = ?", storeID, id).Scan(ctx)
	return it, classify(err, "the library item")
}

// InsertCzLibraryItem stores a new item; it receives its id.
func InsertCzLibraryItem(ctx context.Context, db bun.IDB, it *CzLibraryItem) error {
	_, err := db.NewInsert().Model(it).Returning("id, created_at").Exec(ctx)
	return classify(err, "the library item")
}

// SetCzLibraryItemOrder gives the listed items of a library positions 0,
// 1, … in the list's order, in one statement.
func SetCzLibraryItemOrder(ctx context.Context, db bun.IDB, storeID, libraryID int64, ids []int64) error {
	return setCzOrder(ctx, db, "cz_library_items", "position", "library_id", storeID, libraryID, ids)
}

// DeleteCzLibraryItem deletes an item and closes the gap it leaves: the
// items after it move up one, in the same statement.
func DeleteCzLibraryItem(ctx context.Context, db bun.IDB, storeID, id int64) error {
	var deleted []int64
	err := db.NewRaw(`WITH gone AS (
			DELETE FROM cz_library_items WHERE store_id = ? AND id = ? RETURNING library_id, position
		), moved AS (
			UPDATE cz_library_items AS i SET position = i.position - 1 FROM gone
			WHERE i.store_id = ? AND i.library_id = gone.library_id AND i.position > gone.position
		)
		SELECT library_id FROM gone`, storeID, id, storeID).Scan(ctx, &deleted)
	if err == nil && len(deleted) == 0 {
		err = apperr.NotFoundf("the library item was not found")
	}
	return err
}

// ListCzLibraryCatalogues sums up a store's libraries by group_key (in
// its order): each kind's items in all the group's libraries, whatever
// their scope_value. A group whose libraries are empty counts zeros.
func ListCzLibraryCatalogues(ctx context.Context, db bun.IDB, storeID int64, p Paging) ([]CzLibraryCatalogue, error) {
	out := []CzLibraryCatalogue{}
	err := db.NewSelect().TableExpr("cz_libraries AS l").
		Join("LEFT JOIN cz_library_items AS i ON i.store_id = l.store_id AND i.library_id = l.id").
		ColumnExpr("l.group_key").
		ColumnExpr("count(i.id) FILTER (WHERE l.kind = 'artwork') AS items").
		ColumnExpr("count(i.id) FILTER (WHERE l.kind = 'finish') AS finishes").
		ColumnExpr("count(i.id) FILTER (WHERE l.kind = 'hole') AS holes").
		Where("l.store_id = ?", storeID).Group("l.group_key").Order("l.group_key").
		Limit(p.Limit).Offset(p.Offset).Scan(ctx, &out)
	return out, err
}
