package models

import (
	"context"

	"github.com/uptrace/bun"
)

// CzStoreBinding is a product binding with what the store-wide list and a
// template's preview show of its product, template and option set. The
// product is read through a left join (product_id is no foreign key): a
// binding whose product was deleted has an empty title, handle and status.
type CzStoreBinding struct {
	bun.BaseModel `bun:"table:cz_product_bindings,alias:czpb"`

	ID                int64  `bun:"id" json:"id"`
	ProductID         int64  `bun:"product_id" json:"product_id"`
	ProductTitle      string `bun:"product_title,scanonly" json:"product_title"`
	ProductHandle     string `bun:"product_handle,scanonly" json:"product_handle"`
	ProductStatus     string `bun:"product_status,scanonly" json:"product_status"`
	TemplateID        int64  `bun:"template_id" json:"template_id"`
	TemplateName      string `bun:"template_name,scanonly" json:"template_name"`
	OptionSetID       int64  `bun:"option_set_id" json:"option_set_id"`
	OptionSetName     string `bun:"option_set_name,scanonly" json:"option_set_name"`
	OptionName        string `bun:"option_name" json:"option_name"`
	OptionValue       string `bun:"option_value" json:"option_value"`
	LibraryScope      string `bun:"library_scope" json:"library_scope"`
	DefaultSelections any    `bun:"default_selections,type:jsonb" json:"default_selections"`
	// UsesArtworkRefs: the option set has an option of type artwork, or the
	// template's design an element of type artwork.
	UsesArtworkRefs bool `bun:"uses_artwork_refs,scanonly" json:"uses_artwork_refs"`
}

// selectCzStoreBindings reads bindings of the store with their product,
// template and option set, in one statement, by product then id.
func selectCzStoreBindings(db bun.IDB, storeID int64, out *[]CzStoreBinding) *bun.SelectQuery {
	return db.NewSelect().Model(out).
		ColumnExpr("czpb.id, czpb.product_id, czpb.template_id, czpb.option_set_id, czpb.option_name, czpb.option_value, czpb.library_scope, czpb.default_selections").
		ColumnExpr("coalesce(p.title, '') AS product_title, coalesce(p.handle, '') AS product_handle, coalesce(p.status, '') AS product_status").
		ColumnExpr("t.name AS template_name, s.name AS option_set_name").
		ColumnExpr(`EXISTS (SELECT 1 FROM cz_options AS o WHERE o.store_id = czpb.store_id AND o.option_set_id = czpb.option_set_id AND o.type = 'artwork')
			OR EXISTS (SELECT 1 FROM cz_elements AS e WHERE e.store_id = czpb.store_id AND e.design_id = t.design_id AND e.type = 'artwork') AS uses_artwork_refs`).
		Join("JOIN cz_templates AS t ON t.store_id = czpb.store_id AND t.id = czpb.template_id").
		Join("JOIN cz_option_sets AS s ON s.store_id = czpb.store_id AND s.id = czpb.option_set_id").
		Join("LEFT JOIN products AS p ON p.store_id = czpb.store_id AND p.id = czpb.product_id").
		Where("czpb.store_id = ?", storeID).
		Order("czpb.product_id", "czpb.id")
}

// ListCzStoreBindings lists every binding of the store, orphaned ones
// included, by product then id.
func ListCzStoreBindings(ctx context.Context, db bun.IDB, storeID int64, p Paging) ([]CzStoreBinding, error) {
	var out []CzStoreBinding
	err := p.Apply(selectCzStoreBindings(db, storeID, &out)).Scan(ctx)
	return out, err
}

// CzBindingsOfTemplate lists every binding of one template of the store,
// by product then id.
func CzBindingsOfTemplate(ctx context.Context, db bun.IDB, storeID, templateID int64) ([]CzStoreBinding, error) {
	out := []CzStoreBinding{}
	err := selectCzStoreBindings(db, storeID, &out).Where("czpb.template_id = ?", templateID).Scan(ctx)
	return out, err
}

// CzTemplatePreview is what a storefront needs to draw the customiser of a
// template: the template and its bindings are read first (the binding and
// the option set are chosen from them); the design, base, elements,
// mockups, tiers and option set are read when the operation asks for them.
type CzTemplatePreview struct {
	Template CzTemplate       `json:"template"`
	Bindings []CzStoreBinding `json:"bindings"`
	Binding  *CzStoreBinding  `json:"binding"`
	// OptionSetID is the option set shown: the binding's, or the one every
	// binding uses; nil for none.
	OptionSetID *int64 `json:"-"`
}

// DesignsByID loads designs of the store by id.
func DesignsByID(ctx context.Context, db bun.IDB, storeID int64, ids []int64, cols Columns) ([]CzDesign, error) {
	out := manyRows[CzDesign](len(ids))
	err := scanRows(ctx, db, db.NewSelect().Model(&out).Apply(cols.Apply).
		Where("store_id = ? AND id IN (?)", storeID, bun.List(ids)).Order("id"), &out)
	return out, err
}

// ProductBasesByID loads product bases of the store by id.
func ProductBasesByID(ctx context.Context, db bun.IDB, storeID int64, ids []int64, cols Columns) ([]CzProductBase, error) {
	out := manyRows[CzProductBase](len(ids))
	err := scanRows(ctx, db, db.NewSelect().Model(&out).Apply(cols.Apply).
		Where("store_id = ? AND id IN (?)", storeID, bun.List(ids)).Order("id"), &out)
	return out, err
}

// OptionSetsByID loads option sets of the store by id.
func OptionSetsByID(ctx context.Context, db bun.IDB, storeID int64, ids []int64, cols Columns) ([]CzOptionSet, error) {
	out := manyRows[CzOptionSet](len(ids))
	err := scanRows(ctx, db, db.NewSelect().Model(&out).Apply(cols.Apply).
		Where("store_id = ? AND id IN (?)", storeID, bun.List(ids)).Order("id"), &out)
	return out, err
}

// ElementsByDesign loads the elements of several designs, in paint order
// (z_index, then id).
func ElementsByDesign(ctx context.Context, db bun.IDB, storeID int64, ids []int64, cols Columns) ([]CzElement, error) {
	out := manyRows[CzElement](len(ids))
	err := scanRows(ctx, db, db.NewSelect().Model(&out).Apply(cols.Apply).
		Where("store_id = ? AND design_id IN (?)", storeID, bun.List(ids)).Order("design_id", "z_index", "id"), &out)
	return out, err
}

// OptionsByOptionSet loads the options of several option sets, in order.
func OptionsByOptionSet(ctx context.Context, db bun.IDB, storeID int64, ids []int64, cols Columns) ([]CzOption, error) {
	out := manyRows[CzOption](len(ids))
	err := scanRows(ctx, db, db.NewSelect().Model(&out).Apply(cols.Apply).
		Where("store_id = ? AND option_set_id IN (?)", storeID, bun.List(ids)).Order("option_set_id", "position", "id"), &out)
	return out, err
}

// OptionValuesByOption loads the values of several options, in order.
func OptionValuesByOption(ctx context.Context, db bun.IDB, storeID int64, ids []int64, cols Columns) ([]CzOptionValue, error) {
	out := manyRows[CzOptionValue](len(ids))
	err := scanRows(ctx, db, db.NewSelect().Model(&out).Apply(cols.Apply).
		Where("store_id = ? AND option_id IN (?)", storeID, bun.List(ids)).Order("option_id", "position", "id"), &out)
	return out, err
}
