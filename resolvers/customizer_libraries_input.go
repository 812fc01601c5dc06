package resolvers

import (
	"context"
	"slices"
	"strings"

	"github.com/uptrace/bun"

	"storeadmin/graph"
	"storeadmin/internal/audit"
	"storeadmin/internal/base/apperr"
	"storeadmin/internal/customizer"
	"storeadmin/models"
)

// applyCzLibraryInput checks in and writes its fields into l. On create
// name, kind and group_key are required; on update only the name changes,
// and kind, group_key and scope_value, when sent (as a library read is
// sent back), must be the stored ones: elements, bindings and bundles find
// a library by them.
func applyCzLibraryInput(l *models.CzLibrary, in graph.CzLibraryInput, create bool) (err error) {
	if in.Name != nil || create {
		if l.Name, err = text("name", deref(in.Name), maxCzName, true); err != nil {
			return apperr.InvalidField("name", "must be 1 to %d characters", maxCzName)
		}
	}
	scope := strings.TrimSpace(deref(in.ScopeValue))
	if !create {
		for _, fixed := range []struct {
			field    string
			sent     *string
			stored   string
			sentAsIs string
		}{{"kind", in.Kind, l.Kind, deref(in.Kind)}, {"group_key", in.GroupKey, l.GroupKey, deref(in.GroupKey)}, {"scope_value", in.ScopeValue, l.ScopeValue, scope}} {
			if fixed.sent != nil && fixed.sentAsIs != fixed.stored {
				return apperr.InvalidField(fixed.field, "cannot change after the library is created (it is %q); create another library instead", fixed.stored)
			}
		}
		return nil
	}
	l.Kind, l.GroupKey, l.ScopeValue = deref(in.Kind), deref(in.GroupKey), scope
	if in.Kind == nil {
		return apperr.InvalidField("kind", "is required: one of %s", strings.Join(customizer.LibraryKinds, ", "))
	}
	return firstErr(customizer.CheckLibraryKind(l.Kind), customizer.CheckKey("group_key", l.GroupKey),
		customizer.CheckLibraryScope("scope_value", l.ScopeValue))
}

// checkCzLibraryItem runs customizer.CheckLibraryItem for a library of
// the store with the store's uploads.
func checkCzLibraryItem(ctx context.Context, db bun.IDB, l *models.CzLibrary, value any) (map[string]any, error) {
	uploads := &czUploads{ctx: ctx, db: db, storeID: l.StoreID}
	out, err := customizer.CheckLibraryItem(l.Kind, value, uploads.find)
	return out, firstErr(uploads.err, err)
}

// itemPlacement is where an item goes among a library's items: index
// clamped to the end.
func itemPlacement(ids []int64, id, index int64) []int64 {
	index = min(index, int64(len(ids)))
	return slices.Insert(slices.Clone(ids), int(index), id)
}

// writeCzLibraryItem runs write in one transaction on the library (its
// row locked, with its item ids in order), answers the item whose id write
// returns as stored and notes it in the audit log.
func (r *mutationResolver) writeCzLibraryItem(ctx context.Context, libraryID int64, write func(tx bun.Tx, l *models.CzLibrary, ids []int64) (int64, error)) (*models.CzLibraryItem, error) {
	sid, err := storeID(ctx)
	if err != nil {
		return nil, err
	}
	var item *models.CzLibraryItem
	err = r.db(ctx).RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		l, err := models.GetCzLibrary(ctx, tx, sid, libraryID, true)
		if err != nil {
			return err
		}
		ids, err := models.CzLibraryItemIDs(ctx, tx, sid, libraryID)
		if err != nil {
			return err
		}
		id, err := write(tx, l, ids)
		if err != nil {
			return err
		}
		item, err = models.GetCzLibraryItem(ctx, tx, sid, id)
		return err
	})
	if err != nil {
		return nil, err
	}
	audit.Touch(ctx, "cz_library_item", item.ID)
	return item, nil
}

// insertCzLibraryItem checks value and stores it as a new last item of l,
// within the library's cap; it answers the item's id.
func insertCzLibraryItem(ctx context.Context, tx bun.Tx, l *models.CzLibrary, count int, value any) (int64, error) {
	if count >= customizer.MaxItemsPerLibrary {
		return 0, apperr.Conflictf("the library has %d items, the most a library may hold (%d); delete one first", count, customizer.MaxItemsPerLibrary)
	}
	v, err := checkCzLibraryItem(ctx, tx, l, value)
	if err != nil {
		return 0, err
	}
	it := &models.CzLibraryItem{StoreID: l.StoreID, LibraryID: l.ID, Position: int64(count), Value: v}
	if err := models.InsertCzLibraryItem(ctx, tx, it); err != nil {
		return 0, err
	}
	return it.ID, nil
}

// checkItemPlacement checks a placement: an existing item or a new value,
// not both, at a position from 0 to models.MaxPosition (beyond the end is
// last).
func checkItemPlacement(in graph.CzLibraryItemPlacementInput) error {
	switch {
	case in.ItemID != nil && in.Value != nil:
		return apperr.InvalidField("value", "cannot go with item_id: send item_id to move an item, or value to insert a new one")
	case in.ItemID == nil && in.Value == nil:
		return apperr.InvalidField("item_id", "or value is required: item_id moves an item of this library, value inserts a new one")
	}
	_, err := position("position", in.Position)
	return err
}
