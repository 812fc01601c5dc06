package models

import (
	"context"
	"strconv"

	"github.com/uptrace/bun"
)

// The studio of a design, the store's usage figures and the customizer's
// status (README "Product customizer / Preview, studio, usage and
// status").

// CzStudio is everything the studio shows of a design.
type CzStudio struct {
	Design     CzDesign            `json:"design"`
	Elements   []CzStudioElement   `json:"elements"`
	Placements []CzStudioPlacement `json:"placements"`
}

// CzStudioPlacement is one template of a design with its product base.
// The base's mockups are a relation (czPlacementMockups), so that the
// mockups of every placement are one load, and their print areas another.
type CzStudioPlacement struct {
	Template CzTemplate    `json:"template"`
	Base     CzProductBase `json:"base"`
}

// CzStoreUsage maps the id (as a string) of each of a store's designs,
// option sets and product bases to what uses it.
type CzStoreUsage struct {
	Designs      any `json:"designs"`
	OptionSets   any `json:"option_sets"`
	ProductBases any `json:"product_bases"`
}

// CzStatus is the customizer's state for a store.
type CzStatus struct {
	PlatformEnabled bool `json:"platform_enabled"`
}

// functionTargets is true for a function f (a jsonb object of an option
// value's functions) that targets the element e: by its element_key, or by
// its group_key when it has one.
const functionTargets = `(f->>'element_key' = e.element_key OR (e.group_key <> '' AND f->>'group_key' = e.group_key))`

// boundValues are the ids of the option values of the option sets bound
// to a template of the design of e (the elements' alias).
const boundValues = `SELECT v.id FROM cz_option_values AS v
	JOIN cz_options AS o ON o.store_id = v.store_id AND o.id = v.option_id
	WHERE v.store_id = e.store_id AND o.option_set_id IN (
		SELECT b.option_set_id FROM cz_product_bindings AS b
		JOIN cz_templates AS t ON t.store_id = b.store_id AND t.id = b.template_id
		WHERE b.store_id = e.store_id AND t.design_id = e.design_id)`

// CzStudioOf reads a design's studio in four statements whatever its size:
// the design, its elements with referenced_by, its templates and their
// bases. The mockups and their print areas are the loaders'.
func CzStudioOf(ctx context.Context, db bun.IDB, storeID, designID int64) (*CzStudio, error) {
	s := &CzStudio{Elements: []CzStudioElement{}, Placements: []CzStudioPlacement{}}
	err := db.NewSelect().Model(&s.Design).Where("store_id = ? AND id = ?", storeID, designID).Scan(ctx)
	if err != nil {
		return nil, classify(err, "the design")
	}
	err = db.NewSelect().Model(&s.Elements).ColumnExpr("e.*").
		ColumnExpr(`(SELECT count(*) FROM cz_option_values AS fv, jsonb_array_elements(fv.functions) AS f
			WHERE fv.store_id = e.store_id AND fv.id IN (`+boundValues+`) AND `+functionTargets+`) AS referenced_by`).
		ModelTableExpr("cz_elements AS e").
		Where("e.store_id = ? AND e.design_id = ?", storeID, designID).OrderExpr("e.z_index, e.id").Scan(ctx)
	if err != nil {
		return nil, err
	}
	var templates []CzTemplate
	if err := db.NewSelect().Model(&templates).Where("store_id = ? AND design_id = ?", storeID, designID).
		Order("name", "id").Scan(ctx); err != nil || len(templates) == 0 {
		return s, err
	}
	baseIDs := make([]int64, len(templates))
	for i, t := range templates {
		baseIDs[i] = t.ProductBaseID
	}
	var bases []CzProductBase
	if err := db.NewSelect().Model(&bases).Where("store_id = ? AND id IN (?)", storeID, bun.List(baseIDs)).Scan(ctx); err != nil {
		return nil, err
	}
	baseByID := map[int64]CzProductBase{}
	for _, b := range bases {
		baseByID[b.ID] = b
	}
	for _, t := range templates {
		s.Placements = append(s.Placements, CzStudioPlacement{Template: t, Base: baseByID[t.ProductBaseID]})
	}
	return s, nil
}

// MockupsByBases loads the mockups of several product bases, in their
// order, for a dataloader (the studio's placements, a template's preview).
func MockupsByBases(ctx context.Context, db bun.IDB, storeID int64, ids []int64, cols Columns) ([]CzMockup, error) {
	out := manyRows[CzMockup](len(ids))
	err := scanRows(ctx, db, db.NewSelect().Model(&out).Apply(cols.Apply).Where("store_id = ? AND product_base_id IN (?)", storeID, bun.List(ids)).
		Order("product_base_id", "position", "id"), &out)
	return out, err
}

// usageRow is one record's usage as CzUsageOf reads it.
type usageRow struct {
	Kind          string `bun:"kind"`
	ID            int64  `bun:"id"`
	TemplateCount int64  `bun:"template_count"`
	ProductCount  int64  `bun:"product_count"`
}

// usageSQL counts, for every design, product base and option set of a
// store, the templates that use it and the distinct products (that still
// exist: an orphaned binding binds nothing) bound through them; an option
// set's templates are the distinct templates of its bindings. Each kind
// is counted once, grouped, and joined to its records: no subquery per row.
const usageSQL = `
WITH bound AS (
	SELECT b.template_id, b.option_set_id, b.product_id, p.id IS NOT NULL AS live
	FROM cz_product_bindings AS b
	LEFT JOIN products AS p ON p.store_id = b.store_id AND p.id = b.product_id
	WHERE b.store_id = ?0
), tpl AS (
	SELECT id, design_id, product_base_id FROM cz_templates WHERE store_id = ?0
), tpl_bound AS (
	SELECT tpl.design_id, tpl.product_base_id, bound.product_id FROM bound JOIN tpl ON tpl.id = bound.template_id WHERE bound.live
)
SELECT 'design' AS kind, d.id, coalesce(t.n, 0) AS template_count, coalesce(p.n, 0) AS product_count
FROM cz_designs AS d
LEFT JOIN (SELECT design_id, count(*) AS n FROM tpl GROUP BY design_id) AS t ON t.design_id = d.id
LEFT JOIN (SELECT design_id, count(DISTINCT product_id) AS n FROM tpl_bound GROUP BY design_id) AS p ON p.design_id = d.id
WHERE d.store_id = ?0
UNION ALL
SELECT 'product_base', pb.id, coalesce(t.n, 0), coalesce(p.n, 0)
FROM cz_product_bases AS pb
LEFT JOIN (SELECT product_base_id, count(*) AS n FROM tpl GROUP BY product_base_id) AS t ON t.product_base_id = pb.id
LEFT JOIN (SELECT product_base_id, count(DISTINCT product_id) AS n FROM tpl_bound GROUP BY product_base_id) AS p ON p.product_base_id = pb.id
WHERE pb.store_id = ?0
UNION ALL
SELECT 'option_set', os.id, coalesce(u.templates, 0), coalesce(u.products, 0)
FROM cz_option_sets AS os
LEFT JOIN (SELECT option_set_id, count(DISTINCT template_id) AS templates, count(DISTINCT product_id) FILTER (WHERE live) AS products
	FROM bound GROUP BY option_set_id) AS u ON u.option_set_id = os.id
WHERE os.store_id = ?0`

// CzUsageOf reads what uses each of a store's designs, product bases and
// option sets, in one statement.
func CzUsageOf(ctx context.Context, db bun.IDB, storeID int64) (*CzStoreUsage, error) {
	var rows []usageRow
	if err := db.NewRaw(usageSQL, storeID).Scan(ctx, &rows); err != nil {
		return nil, err
	}
	byKind := map[string]map[string]CzUsage{"design": {}, "product_base": {}, "option_set": {}}
	for _, r := range rows {
		byKind[r.Kind][strconv.FormatInt(r.ID, 10)] = CzUsage{ProductCount: r.ProductCount, TemplateCount: r.TemplateCount}
	}
	return &CzStoreUsage{Designs: byKind["design"], OptionSets: byKind["option_set"], ProductBases: byKind["product_base"]}, nil
}
