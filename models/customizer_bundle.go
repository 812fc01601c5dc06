package models

import (
	"context"
	"database/sql"
	"errors"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/pgdialect"

	"storeadmin/internal/base/apperr"
)

// CzTemplateTree is a template with everything a bundle carries of it
// (README "Product customizer / Template bundles"), each list in its
// records' order: the design's elements by paint order, mockups and print
// areas, options and values, tiers by position. The artwork libraries are
// read apart (CzLibrariesByGroup): which ones a template uses is a rule of
// internal/customizer.
type CzTemplateTree struct {
	Template   CzTemplate
	Tiers      []CzQuantityTier
	Design     CzDesign
	Elements   []CzElement
	Base       CzProductBase
	Mockups    []CzMockup
	PrintAreas []CzPrintArea // of every mockup, by mockup then position
	OptionSets []CzOptionSet // those bound to the template, by first binding
	Options    []CzOption    // of every set, by set then position
	Values     []CzOptionValue
}

// ReadCzTemplateTree reads the store's template id with its tree; a
// template of another store, or none, is apperr.NotFound.
func ReadCzTemplateTree(ctx context.Context, db bun.IDB, storeID, id int64) (*CzTemplateTree, error) {
	t := &CzTemplateTree{}
	err := db.NewSelect().Model(&t.Template).Where("store_id = ? AND id = ?", storeID, id).Scan(ctx)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, apperr.NotFoundf("no template %d in this store", id)
	}
	if err != nil {
		return nil, err
	}
	design, base := t.Template.DesignID, t.Template.ProductBaseID
	reads := []func() error{
		func() error {
			return db.NewSelect().Model(&t.Tiers).Where("store_id = ? AND template_id = ?", storeID, id).Order("position", "id").Scan(ctx)
		},
		func() error {
			return db.NewSelect().Model(&t.Design).Where("store_id = ? AND id = ?", storeID, design).Scan(ctx)
		},
		func() error {
			return db.NewSelect().Model(&t.Elements).Where("store_id = ? AND design_id = ?", storeID, design).Order("z_index", "id").Scan(ctx)
		},
		func() error {
			return db.NewSelect().Model(&t.Base).Where("store_id = ? AND id = ?", storeID, base).Scan(ctx)
		},
		func() error {
			return db.NewSelect().Model(&t.Mockups).Where("store_id = ? AND product_base_id = ?", storeID, base).Order("position", "id").Scan(ctx)
		},
		func() error {
			return db.NewSelect().Model(&t.PrintAreas).
				Join("JOIN cz_mockups AS m ON m.store_id = czp.store_id AND m.id = czp.mockup_id").
				Where("czp.store_id = ? AND m.product_base_id = ?", storeID, base).
				Order("m.position", "m.id", "czp.position", "czp.id").Scan(ctx)
		},
		func() error {
			return db.NewSelect().Model(&t.OptionSets).
				Join("JOIN (SELECT option_set_id, min(id) AS first FROM cz_product_bindings WHERE store_id = ? AND template_id = ? GROUP BY option_set_id) AS b ON b.option_set_id = czs.id", storeID, id).
				Where("czs.store_id = ?", storeID).Order("b.first").Scan(ctx)
		},
	}
	for _, read := range reads {
		if err := read(); err != nil {
			return nil, err
		}
	}
	if len(t.OptionSets) == 0 {
		return t, nil
	}
	sets := make([]int64, len(t.OptionSets))
	for i, s := range t.OptionSets {
		sets[i] = s.ID
	}
	// Options by their set's order in OptionSets, then position.
	if err := db.NewSelect().Model(&t.Options).
		Where("store_id = ? AND option_set_id IN (?)", storeID, bun.List(sets)).
		OrderExpr("array_position(?::bigint[], option_set_id), position, id", pgdialect.Array(sets)).Scan(ctx); err != nil {
		return nil, err
	}
	if len(t.Options) == 0 {
		return t, nil
	}
	options := make([]int64, len(t.Options))
	for i, o := range t.Options {
		options[i] = o.ID
	}
	err = db.NewSelect().Model(&t.Values).
		Where("store_id = ? AND option_id IN (?)", storeID, bun.List(options)).
		OrderExpr("array_position(?::bigint[], option_id), position, id", pgdialect.Array(options)).Scan(ctx)
	return t, err
}

// CzLibrariesByGroup reads the store's libraries of the group keys, with
// their items (by library, then position).
func CzLibrariesByGroup(ctx context.Context, db bun.IDB, storeID int64, groups []string) ([]CzLibrary, []CzLibraryItem, error) {
	var libs []CzLibrary
	var items []CzLibraryItem
	if len(groups) == 0 {
		return libs, items, nil
	}
	if err := db.NewSelect().Model(&libs).Where("store_id = ? AND group_key IN (?)", storeID, bun.List(groups)).
		Order("group_key", "scope_value", "id").Scan(ctx); err != nil {
		return nil, nil, err
	}
	if len(libs) == 0 {
		return libs, items, nil
	}
	ids := make([]int64, len(libs))
	for i, l := range libs {
		ids[i] = l.ID
	}
	err := db.NewSelect().Model(&items).Where("store_id = ? AND library_id IN (?)", storeID, bun.List(ids)).
		OrderExpr("array_position(?::bigint[], library_id), position, id", pgdialect.Array(ids)).Scan(ctx)
	return libs, items, err
}

// CzCatalogueKey is an artwork catalogue's name in every store: a
// library's group_key and scope_value.
type CzCatalogueKey struct {
	GroupKey   string
	ScopeValue string
}

// CzCataloguesPresent says which of keys the store has a library of. It
// first waits for any other transaction of the store that called it, so
// that two imports at once do not both find a catalogue missing and both
// create it: the second sees the first's.
func CzCataloguesPresent(ctx context.Context, db bun.IDB, storeID int64, keys []CzCatalogueKey) (map[CzCatalogueKey]bool, error) {
	out := map[CzCatalogueKey]bool{}
	if len(keys) == 0 {
		return out, nil
	}
	if _, err := db.NewRaw("SELECT pg_advisory_xact_lock(hashtextextended('cz_catalogues', ?))", storeID).Exec(ctx); err != nil {
		return nil, err
	}
	groups := make([]string, len(keys))
	for i, k := range keys {
		groups[i] = k.GroupKey
	}
	var rows []CzLibrary
	if err := db.NewSelect().Model(&rows).Column("group_key", "scope_value").Distinct().
		Where("store_id = ? AND group_key IN (?)", storeID, bun.List(groups)).Scan(ctx); err != nil {
		return nil, err
	}
	for _, r := range rows {
		out[CzCatalogueKey{r.GroupKey, r.ScopeValue}] = true
	}
	return out, nil
}

// ReserveCzIDs takes n ids of a customizer table from its identity, so
// that records can name their parents (a print area its mockup, a
// condition an option) before they are inserted together.
func ReserveCzIDs(ctx context.Context, db bun.IDB, table string, n int) ([]int64, error) {
	ids := make([]int64, 0, n)
	if n == 0 {
		return ids, nil
	}
	err := db.NewRaw("SELECT nextval(pg_get_serial_sequence(?, 'id')) FROM generate_series(1, ?)", table, n).Scan(ctx, &ids)
	return ids, err
}

// InsertCzRows inserts records of one customizer table in one statement,
// filling the ids they lack; the caller has set their store and parents.
func InsertCzRows[T any](ctx context.Context, db bun.IDB, rows []T) error {
	if len(rows) == 0 {
		return nil
	}
	_, err := db.NewInsert().Model(&rows).Returning("id").Exec(ctx)
	return classify(err, "the imported record")
}

// InsertCzRow inserts one customizer record and fills its id.
func InsertCzRow[T any](ctx context.Context, db bun.IDB, row *T) error {
	_, err := db.NewInsert().Model(row).Returning("id").Exec(ctx)
	return classify(err, "the imported record")
}
