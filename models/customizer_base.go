package models

import (
	"context"
	"fmt"
	"strings"

	"github.com/uptrace/bun"

	"storeadmin/internal/base/apperr"
)

// The product bases, their mockups and the mockups' print areas (README
// "Product customizer / Product bases, mockups and print areas").

// Caps per parent: a base's mockups and a mockup's print areas are lists
// the studio and the preview answer whole, so they are bounded.
const (
	MaxMockupsPerBase      = 20
	MaxPrintAreasPerMockup = 20
)

// ListCzProductBases lists a store's product bases by name, then id.
func ListCzProductBases(ctx context.Context, db bun.IDB, storeID int64, p Paging) ([]CzProductBase, error) {
	var out []CzProductBase
	q := db.NewSelect().Model(&out).Where("czb.store_id = ?", storeID).Order("czb.name", "czb.id")
	err := scanRows(ctx, db, p.Apply(q), &out)
	return out, err
}

// GetCzProductBase reads one product base of the store.
func GetCzProductBase(ctx context.Context, db bun.IDB, storeID, id int64) (*CzProductBase, error) {
	b := new(CzProductBase)
	err := db.NewSelect().Model(b).Where("czb.store_id = ? AND czb.id = ?", storeID, id).Scan(ctx)
	return b, classify(err, "the product base")
}

// LockCzProductBase reads one product base of the store and locks it until
// the transaction ends: what changes its list of mockups (their count,
// their positions) holds it, so two writers never number them alike, and
// no template can take it while it is being deleted.
func LockCzProductBase(ctx context.Context, tx bun.IDB, storeID, id int64) (*CzProductBase, error) {
	b := new(CzProductBase)
	err := tx.NewSelect().Model(b).Where("czb.store_id = ? AND czb.id = ?", storeID, id).For("UPDATE").Scan(ctx)
	return b, classify(err, "the product base")
}

// InsertCzProductBase stores a new product base.
func InsertCzProductBase(ctx context.Context, db bun.IDB, b *CzProductBase) error {
	_, err := db.NewInsert().Model(b).Returning("id, created_at, updated_at").Exec(ctx)
	return classify(err, "the product base")
}

// UpdateCzProductBase writes a product base's name and bumps updated_at.
func UpdateCzProductBase(ctx context.Context, db bun.IDB, b *CzProductBase) error {
	res, err := db.NewUpdate().Model(b).Column("name").Set("updated_at = now()").
		Where("store_id = ? AND id = ?", b.StoreID, b.ID).Exec(ctx)
	return notFoundIfNone(res, err, "the product base")
}

// DeleteCzProductBase deletes a product base with its mockups and their
// print areas. A base a template prints on is kept: a CONFLICT naming the
// templates (the foreign key restricts too; the lock keeps a template from
// taking the base between the check and the delete).
func DeleteCzProductBase(ctx context.Context, tx bun.IDB, storeID, id int64) error {
	if _, err := LockCzProductBase(ctx, tx, storeID, id); err != nil {
		return err
	}
	var users []CzTemplate
	err := tx.NewSelect().Model(&users).Column("id", "name").Where("store_id = ? AND product_base_id = ?", storeID, id).
		Order("name", "id").Limit(4).Scan(ctx)
	if err != nil {
		return err
	}
	if len(users) > 0 {
		return apperr.Conflictf("the product base is used by %s; delete the templates or move them to another base first", templateNames(users))
	}
	res, err := tx.NewDelete().Model((*CzProductBase)(nil)).Where("store_id = ? AND id = ?", storeID, id).Exec(ctx)
	return notFoundIfNone(res, err, "the product base")
}

// templateNames words templates for a conflict: `template "Mug" (12)`,
// the first three, and "and more" past them.
func templateNames(ts []CzTemplate) string {
	names := make([]string, 0, 3)
	for _, t := range ts[:min(len(ts), 3)] {
		names = append(names, fmt.Sprintf("template %q (%d)", t.Name, t.ID))
	}
	out := strings.Join(names, ", ")
	if len(ts) > 3 {
		out += " and more"
	}
	return out
}

// MockupsByBase lists the mockups of a product base, in order.
func MockupsByBase(ctx context.Context, db bun.IDB, storeID, baseID int64) ([]CzMockup, error) {
	return MockupsByBases(ctx, db, storeID, []int64{baseID}, AllColumns)
}

// GetCzMockup reads one mockup of the store.
func GetCzMockup(ctx context.Context, db bun.IDB, storeID, id int64) (*CzMockup, error) {
	m := new(CzMockup)
	err := db.NewSelect().Model(m).Where("czm.store_id = ? AND czm.id = ?", storeID, id).Scan(ctx)
	return m, classify(err, "the mockup")
}

// MinCzSizePx is the least width and height of a print area or an element
// (customizer.PrintArea.Check, customizer's element check): a sliver
// thinner than a pixel shows nothing, and a photo replaced by a smaller one
// would rescale it to 0, which the table refuses.
const MinCzSizePx = 1

// LockCzMockup reads one mockup of the store and locks it until the
// transaction ends: what changes its print areas' count or positions, or
// rescales them, holds it.
func LockCzMockup(ctx context.Context, tx bun.IDB, storeID, id int64) (*CzMockup, error) {
	m := new(CzMockup)
	err := tx.NewSelect().Model(m).Where("czm.store_id = ? AND czm.id = ?", storeID, id).For("UPDATE").Scan(ctx)
	return m, classify(err, "the mockup")
}

// InsertCzMockup stores a new mockup at m.Position of its base's list
// (past the end: last), moving the later ones down. The caller holds the
// base (LockCzProductBase); beyond MaxMockupsPerBase it is a CONFLICT.
func InsertCzMockup(ctx context.Context, tx bun.IDB, m *CzMockup, atEnd bool) error {
	siblings, err := MockupsByBase(ctx, tx, m.StoreID, m.ProductBaseID)
	if err != nil {
		return err
	}
	if len(siblings) >= MaxMockupsPerBase {
		return apperr.Conflictf("a product base has at most %d mockups; delete one first", MaxMockupsPerBase)
	}
	m.Position = placeAt(m.Position, len(siblings), atEnd)
	if _, err := tx.NewInsert().Model(m).Returning("id, created_at").Exec(ctx); err != nil {
		return classify(err, "the mockup")
	}
	return setCzOrder(ctx, tx, "cz_mockups", "position", "product_base_id", m.StoreID, m.ProductBaseID, insertAt(idsOf(siblings, func(s CzMockup) int64 { return s.ID }), m.ID, m.Position))
}

// UpdateCzMockup writes a mockup (name, photo and size) and, when position
// moved, renumbers its base's mockups. When the photo's size changed, the
// print areas are rescaled in proportion from old: x and w by the width's
// ratio, y and h by the height's. The size is taken first, kept between
// MinCzSizePx and the photo's side (so that no ratio shrinks it to
// 0, which the table refuses), then the place, kept so that the area ends
// inside the photo against rounding. The caller holds the base and the
// mockup.
func UpdateCzMockup(ctx context.Context, tx bun.IDB, old, m *CzMockup) error {
	res, err := tx.NewUpdate().Model(m).Column("name", "image_src", "image_width", "image_height").
		Where("store_id = ? AND id = ?", m.StoreID, m.ID).Exec(ctx)
	if err := notFoundIfNone(res, err, "the mockup"); err != nil {
		return err
	}
	if old.ImageWidth != m.ImageWidth || old.ImageHeight != m.ImageHeight {
		rx := float64(m.ImageWidth) / float64(old.ImageWidth)
		ry := float64(m.ImageHeight) / float64(old.ImageHeight)
		_, err := tx.NewUpdate().Model((*CzPrintArea)(nil)).
			Set("w = least(greatest(w * ?0, ?2), ?1), x = least(x * ?0, ?1 - least(greatest(w * ?0, ?2), ?1))", rx, float64(m.ImageWidth), float64(MinCzSizePx)).
			Set("h = least(greatest(h * ?0, ?2), ?1), y = least(y * ?0, ?1 - least(greatest(h * ?0, ?2), ?1))", ry, float64(m.ImageHeight), float64(MinCzSizePx)).
			Where("store_id = ? AND mockup_id = ?", m.StoreID, m.ID).Exec(ctx)
		if err != nil {
			return classify(err, "the print area")
		}
	}
	if old.Position == m.Position {
		return nil
	}
	siblings, err := MockupsByBase(ctx, tx, m.StoreID, m.ProductBaseID)
	if err != nil {
		return err
	}
	ids := idsOf(siblings, func(s CzMockup) int64 { return s.ID })
	m.Position = placeAt(m.Position, len(ids)-1, false)
	return setCzOrder(ctx, tx, "cz_mockups", "position", "product_base_id", m.StoreID, m.ProductBaseID, insertAt(removeID(ids, m.ID), m.ID, m.Position))
}

// DeleteCzMockup deletes a mockup with its print areas and closes the gap
// in its base's list. The caller holds the base.
func DeleteCzMockup(ctx context.Context, tx bun.IDB, storeID int64, m *CzMockup) error {
	res, err := tx.NewDelete().Model((*CzMockup)(nil)).Where("store_id = ? AND id = ?", storeID, m.ID).Exec(ctx)
	if err := notFoundIfNone(res, err, "the mockup"); err != nil {
		return err
	}
	return closeGap(ctx, tx, "cz_mockups", "product_base_id", storeID, m.ProductBaseID, m.Position)
}

// PrintAreasOfMockup lists the print areas of one mockup, in order.
func PrintAreasOfMockup(ctx context.Context, db bun.IDB, storeID, mockupID int64) ([]CzPrintArea, error) {
	return PrintAreasByMockup(ctx, db, storeID, []int64{mockupID}, AllColumns)
}

// GetCzPrintArea reads one print area of the store.
func GetCzPrintArea(ctx context.Context, db bun.IDB, storeID, id int64) (*CzPrintArea, error) {
	p := new(CzPrintArea)
	err := db.NewSelect().Model(p).Where("czp.store_id = ? AND czp.id = ?", storeID, id).Scan(ctx)
	return p, classify(err, "the print area")
}

// InsertCzPrintArea stores a new print area at p.Position of its mockup's
// list (past the end: last), moving the later ones down. The caller holds
// the mockup (LockCzMockup); beyond MaxPrintAreasPerMockup it is a
// CONFLICT.
func InsertCzPrintArea(ctx context.Context, tx bun.IDB, p *CzPrintArea, atEnd bool) error {
	siblings, err := PrintAreasOfMockup(ctx, tx, p.StoreID, p.MockupID)
	if err != nil {
		return err
	}
	if len(siblings) >= MaxPrintAreasPerMockup {
		return apperr.Conflictf("a mockup has at most %d print areas; delete one first", MaxPrintAreasPerMockup)
	}
	p.Position = placeAt(p.Position, len(siblings), atEnd)
	if _, err := tx.NewInsert().Model(p).Returning("id, created_at").Exec(ctx); err != nil {
		return classify(err, "the print area")
	}
	return setCzOrder(ctx, tx, "cz_print_areas", "position", "mockup_id", p.StoreID, p.MockupID, insertAt(idsOf(siblings, func(s CzPrintArea) int64 { return s.ID }), p.ID, p.Position))
}

// UpdateCzPrintArea writes a print area and, when its position moved,
// renumbers its mockup's print areas. The caller holds the mockup.
func UpdateCzPrintArea(ctx context.Context, tx bun.IDB, oldPosition int64, p *CzPrintArea) error {
	res, err := tx.NewUpdate().Model(p).Column("name", "x", "y", "w", "h", "rotation_deg").
		Where("store_id = ? AND id = ?", p.StoreID, p.ID).Exec(ctx)
	if err := notFoundIfNone(res, err, "the print area"); err != nil {
		return err
	}
	if oldPosition == p.Position {
		return nil
	}
	siblings, err := PrintAreasOfMockup(ctx, tx, p.StoreID, p.MockupID)
	if err != nil {
		return err
	}
	ids := idsOf(siblings, func(s CzPrintArea) int64 { return s.ID })
	p.Position = placeAt(p.Position, len(ids)-1, false)
	return setCzOrder(ctx, tx, "cz_print_areas", "position", "mockup_id", p.StoreID, p.MockupID, insertAt(removeID(ids, p.ID), p.ID, p.Position))
}

// DeleteCzPrintArea deletes a print area and closes the gap in its
// mockup's list. The caller holds the mockup.
func DeleteCzPrintArea(ctx context.Context, tx bun.IDB, storeID int64, p *CzPrintArea) error {
	res, err := tx.NewDelete().Model((*CzPrintArea)(nil)).Where("store_id = ? AND id = ?", storeID, p.ID).Exec(ctx)
	if err := notFoundIfNone(res, err, "the print area"); err != nil {
		return err
	}
	return closeGap(ctx, tx, "cz_print_areas", "mockup_id", storeID, p.MockupID, p.Position)
}

// placeAt is where a record asked for position goes in a list whose last
// free place is last: there, or last when it asked for more (or for
// nothing, atEnd).
func placeAt(position int64, last int, atEnd bool) int64 {
	if atEnd || position > int64(last) {
		return int64(last)
	}
	return position
}

// idsOf are the ids of records, in their order.
func idsOf[T any](records []T, id func(T) int64) []int64 {
	out := make([]int64, len(records))
	for i, r := range records {
		out[i] = id(r)
	}
	return out
}

// removeID is ids without id.
func removeID(ids []int64, id int64) []int64 {
	out := make([]int64, 0, len(ids))
	for _, x := range ids {
		if x != id {
			out = append(out, x)
		}
	}
	return out
}

// insertAt is ids with id placed at position (0 ≤ position ≤ len(ids)).
func insertAt(ids []int64, id, position int64) []int64 {
	out := make([]int64, 0, len(ids)+1)
	out = append(out, ids[:position]...)
	out = append(out, id)
	return append(out, ids[position:]...)
}

// closeGap moves up the rows of a parent's list after a deleted row's
// position.
func closeGap(ctx context.Context, tx bun.IDB, table, parentColumn string, storeID, parentID, position int64) error {
	_, err := tx.NewRaw(`UPDATE ? SET position = position - 1 WHERE store_id = ? AND ? = ? AND position > ?`,
		bun.Ident(table), storeID, bun.Ident(parentColumn), parentID, position).Exec(ctx)
	return err
}
