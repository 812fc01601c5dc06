package models

import (
	"cmp"
	"context"
	"fmt"
	"slices"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/pgdialect"
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
// template of another store, or none, is apperr.NotFound. It reads through
// the relations' own queries, a fixed number of statements.
func ReadCzTemplateTree(ctx context.Context, db bun.IDB, storeID, id int64) (*CzTemplateTree, error) {
	tpl, err := GetCzTemplate(ctx, db, storeID, id)
	if err != nil {
		return nil, err
	}
	t := &CzTemplateTree{Template: *tpl}
	bindings, err := CzBindingsOfTemplate(ctx, db, storeID, id)
	if err != nil {
		return nil, err
	}
	// The bound sets in the order they were first bound.
	slices.SortFunc(bindings, func(a, b CzStoreBinding) int { return cmp.Compare(a.ID, b.ID) })
	var sets []int64
	for _, b := range bindings {
		if !slices.Contains(sets, b.OptionSetID) {
			sets = append(sets, b.OptionSetID)
		}
	}
	one := func(rows, n int, what string) error {
		if rows != n {
			return fmt.Errorf("customizer: template %d: %s not found", id, what)
		}
		return nil
	}
	designs, err := DesignsByID(ctx, db, storeID, []int64{tpl.DesignID}, Columns{})
	if err == nil {
		err = one(len(designs), 1, "its design")
	}
	if err != nil {
		return nil, err
	}
	bases, err := ProductBasesByID(ctx, db, storeID, []int64{tpl.ProductBaseID}, Columns{})
	if err == nil {
		err = one(len(bases), 1, "its product base")
	}
	if err != nil {
		return nil, err
	}
	t.Design, t.Base = designs[0], bases[0]
	if t.Tiers, err = QuantityTiersByTemplate(ctx, db, storeID, []int64{id}, Columns{}); err != nil {
		return nil, err
	}
	if t.Elements, err = ElementsByDesign(ctx, db, storeID, []int64{tpl.DesignID}, Columns{}); err != nil {
		return nil, err
	}
	if t.Mockups, err = MockupsByBase(ctx, db, storeID, tpl.ProductBaseID); err != nil {
		return nil, err
	}
	if t.PrintAreas, err = PrintAreasByMockup(ctx, db, storeID, idsOf(t.Mockups, func(m CzMockup) int64 { return m.ID }), Columns{}); err != nil {
		return nil, err
	}
	byID, err := OptionSetsByID(ctx, db, storeID, sets, Columns{})
	if err != nil {
		return nil, err
	}
	for _, id := range sets {
		if i := slices.IndexFunc(byID, func(s CzOptionSet) bool { return s.ID == id }); i >= 0 {
			t.OptionSets = append(t.OptionSets, byID[i])
		}
	}
	if t.Options, err = OptionsByOptionSet(ctx, db, storeID, sets, Columns{}); err != nil {
		return nil, err
	}
	t.Values, err = OptionValuesByOption(ctx, db, storeID, idsOf(t.Options, func(o CzOption) int64 { return o.ID }), Columns{})
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
