package models

import (
	"context"
	"fmt"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/pgdialect"

	"storeadmin/internal/base/apperr"
)

// The storage of the customizer's designs and their elements (README
// "Product customizer / Designs and elements").

// ListCzDesigns lists a store's designs by id.
func ListCzDesigns(ctx context.Context, db bun.IDB, storeID int64, p Paging) ([]CzDesign, error) {
	out := []CzDesign{}
	q := db.NewSelect().Model(&out).Apply(p.Columns.Apply).Where("czd.store_id = ?", storeID).Order("czd.id")
	err := scanRows(ctx, db, p.Apply(q), &out)
	return out, err
}

// GetCzDesign reads one design of the store; lock takes its row for the
// transaction, so that its elements' cap, paint order and deletion are
// decided by one writer at a time.
func GetCzDesign(ctx context.Context, db bun.IDB, storeID, id int64, lock bool) (*CzDesign, error) {
	d := new(CzDesign)
	q := db.NewSelect().Model(d).Where("czd.store_id = ? AND czd.id = ?", storeID, id)
	if lock {
		q = q.For("UPDATE")
	}
	return d, classify(q.Scan(ctx), "the design")
}

// InsertCzDesign stores a new design; it receives its id.
func InsertCzDesign(ctx context.Context, db bun.IDB, d *CzDesign) error {
	_, err := db.NewInsert().Model(d).Returning("id, created_at, updated_at").Exec(ctx)
	return classify(err, "the design")
}

// UpdateCzDesign writes a design's name and size and bumps updated_at.
func UpdateCzDesign(ctx context.Context, db bun.IDB, d *CzDesign) error {
	res, err := db.NewUpdate().Model(d).Column("name", "width_px", "height_px").Set("updated_at = now()").
		Where("store_id = ? AND id = ?", d.StoreID, d.ID).Exec(ctx)
	return notFoundIfNone(res, err, "the design")
}

// DeleteCzDesign deletes a design and its elements, unless a template uses
// it: a conflict naming the template. The design's row is locked first, so
// that no template can take it between the check and the delete.
func DeleteCzDesign(ctx context.Context, db bun.IDB, storeID, id int64) error {
	if _, err := GetCzDesign(ctx, db, storeID, id, true); err != nil {
		return err
	}
	var users []CzTemplate
	err := db.NewSelect().Model(&users).Column("id", "name").Where("store_id = ? AND design_id = ?", storeID, id).
		Order("name", "id").Limit(4).Scan(ctx)
	if err != nil {
		return err
	}
	if len(users) > 0 {
		return apperr.Conflictf("the design is used by %s; delete the templates or point them at another design first", templateNames(users))
	}
	res, err := db.NewDelete().Model((*CzDesign)(nil)).Where("store_id = ? AND id = ?", storeID, id).Exec(ctx)
	return notFoundIfNone(res, err, "the design")
}

// ListCzElements lists every element of a design in paint order (z_index,
// then id).
func ListCzElements(ctx context.Context, db bun.IDB, storeID, designID int64, cols Columns) ([]CzElement, error) {
	return ElementsByDesign(ctx, db, storeID, []int64{designID}, cols)
}

// CzElementIDs are the ids of a design's elements in paint order.
func CzElementIDs(ctx context.Context, db bun.IDB, storeID, designID int64) ([]int64, error) {
	ids := []int64{}
	err := db.NewSelect().Model((*CzElement)(nil)).Column("id").
		Where("store_id = ? AND design_id = ?", storeID, designID).Order("z_index", "id").Scan(ctx, &ids)
	return ids, err
}

// GetCzElement reads one element of the store; lock first takes its
// design's row (the lock every write of the design's elements takes), so
// that the copy read is the one stored until the transaction ends: an
// update or delete checks and writes no stale copy.
func GetCzElement(ctx context.Context, db bun.IDB, storeID, id int64, lock bool) (*CzElement, error) {
	if lock {
		err := db.NewSelect().Model((*CzDesign)(nil)).Column("czd.id").
			Where("czd.store_id = ? AND czd.id = (SELECT design_id FROM cz_elements WHERE store_id = ? AND id = ?)", storeID, storeID, id).
			For("UPDATE").Scan(ctx, new(int64))
		if err != nil {
			return nil, classify(err, "the element")
		}
	}
	el := new(CzElement)
	err := db.NewSelect().Model(el).Where("cze.store_id = ? AND cze.id = ?", storeID, id).Scan(ctx)
	return el, classify(err, "the element")
}

// CzElementTop is how many elements a design has and the z_index above
// them all (0 for none): where a new element goes.
func CzElementTop(ctx context.Context, db bun.IDB, storeID, designID int64) (count, top int64, err error) {
	err = db.NewSelect().Model((*CzElement)(nil)).ColumnExpr("count(*), coalesce(max(z_index) + 1, 0)").
		Where("store_id = ? AND design_id = ?", storeID, designID).Scan(ctx, &count, &top)
	return count, top, err
}

// elementKeyTaken words a duplicate element_key for classify.
func elementKeyTaken(key string) string {
	return fmt.Sprintf("an element with element_key %q in this design", key)
}

// InsertCzElement stores a new element; it receives its id.
func InsertCzElement(ctx context.Context, db bun.IDB, el *CzElement) error {
	_, err := db.NewInsert().Model(el).Returning("id, created_at").Exec(ctx)
	return classify(err, elementKeyTaken(el.ElementKey))
}

// UpdateCzElement writes an element's key, group, type, geometry and
// settings.
func UpdateCzElement(ctx context.Context, db bun.IDB, el *CzElement) error {
	res, err := db.NewUpdate().Model(el).
		Column("element_key", "group_key", "type", "x", "y", "w", "h", "rotation_deg", "settings").
		Where("store_id = ? AND id = ?", el.StoreID, el.ID).Exec(ctx)
	if err != nil {
		return classify(err, elementKeyTaken(el.ElementKey))
	}
	return notFoundIfNone(res, nil, "the element")
}

// DeleteCzElement deletes an element.
func DeleteCzElement(ctx context.Context, db bun.IDB, storeID, id int64) error {
	res, err := db.NewDelete().Model((*CzElement)(nil)).Where("store_id = ? AND id = ?", storeID, id).Exec(ctx)
	return notFoundIfNone(res, err, "the element")
}

// SetCzElementOrder gives the listed elements of a design z_index 0, 1, …
// in the list's order, in one statement.
func SetCzElementOrder(ctx context.Context, db bun.IDB, storeID, designID int64, ids []int64) error {
	return setCzOrder(ctx, db, "cz_elements", "z_index", "design_id", storeID, designID, ids)
}

// setCzOrder numbers the listed rows of one parent (parent = parentID) of
// a customizer table 0, 1, … in column, in the list's order, in one
// statement; rows already in place are not written.
func setCzOrder(ctx context.Context, db bun.IDB, table, column, parent string, storeID, parentID int64, ids []int64) error {
	_, err := db.NewRaw(`UPDATE ? AS r SET ? = k.ord - 1
		FROM unnest(?::bigint[]) WITH ORDINALITY AS k(id, ord)
		WHERE r.store_id = ? AND r.? = ? AND r.id = k.id AND r.? <> k.ord - 1`,
		bun.Ident(table), bun.Ident(column), pgdialect.Array(ids), storeID, bun.Ident(parent), parentID, bun.Ident(column)).Exec(ctx)
	return err
}

// CzFunctionTarget is an option value whose function targets an element.
type CzFunctionTarget struct {
	ValueID     int64  `bun:"value_id"`
	ValueLabel  string `bun:"value_label"`
	OptionLabel string `bun:"option_label"`
}

// CzElementTargetedBy finds an option value whose function targets the
// element of a design with elementKey (empty: none), or its group
// groupKey (empty: none) while no other element of the design is in that
// group, among the option sets bound to a product with a template of the
// design (cz_product_bindings). Those functions would point at nothing
// once the element went or changed its key or group. nil: none does.
func CzElementTargetedBy(ctx context.Context, db bun.IDB, storeID, designID, elementID int64, elementKey, groupKey string) (*CzFunctionTarget, error) {
	if elementKey == "" && groupKey == "" {
		return nil, nil
	}
	var out []CzFunctionTarget
	err := db.NewRaw(`SELECT v.id AS value_id, v.label AS value_label, o.label AS option_label
		FROM cz_option_values AS v
		JOIN cz_options AS o ON o.store_id = v.store_id AND o.id = v.option_id
		WHERE v.store_id = ?0
		  AND EXISTS (SELECT 1 FROM cz_product_bindings AS b
			JOIN cz_templates AS t ON t.store_id = b.store_id AND t.id = b.template_id
			WHERE b.store_id = o.store_id AND b.option_set_id = o.option_set_id AND t.design_id = ?1)
		  AND EXISTS (SELECT 1 FROM jsonb_array_elements(v.functions) AS f
			WHERE (?3 <> '' AND f->>'element_key' = ?3)
			   OR (?4 <> '' AND f->>'group_key' = ?4 AND NOT EXISTS (SELECT 1 FROM cz_elements AS e
				WHERE e.store_id = ?0 AND e.design_id = ?1 AND e.group_key = ?4 AND e.id <> ?2)))
		ORDER BY v.id LIMIT 1`, storeID, designID, elementID, elementKey, groupKey).Scan(ctx, &out)
	if err != nil || len(out) == 0 {
		return nil, err
	}
	return &out[0], nil
}
