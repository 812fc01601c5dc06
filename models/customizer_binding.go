package models

import (
	"context"

	"github.com/uptrace/bun"

	"storeadmin/internal/base/apperr"
)

// Product bindings (README "Product customizer / Bindings"): at most one
// binding per product and scope (every variant, or one option value); a
// binding outlives its product (product_id is no foreign key), so a deleted
// product's bindings stay readable and deletable by its id.

// ListCzBindings lists the bindings of one product of the store: the
// every-variant one first, then by option name and value.
func ListCzBindings(ctx context.Context, db bun.IDB, storeID, productID int64) ([]CzProductBinding, error) {
	out := []CzProductBinding{}
	err := db.NewSelect().Model(&out).Where("store_id = ? AND product_id = ?", storeID, productID).
		Order("option_name", "option_value", "id").Scan(ctx)
	return out, err
}

// CzBindingsVisible says whether productID names something of the store a
// bindings call may act on: a product of the store, or a deleted product
// whose bindings remain. Another store's product is neither (404).
func CzBindingsVisible(ctx context.Context, db bun.IDB, storeID, productID int64) error {
	var ok bool
	err := db.NewRaw(`SELECT EXISTS (SELECT 1 FROM products WHERE store_id = ? AND id = ?)
		OR EXISTS (SELECT 1 FROM cz_product_bindings WHERE store_id = ? AND product_id = ?)`,
		storeID, productID, storeID, productID).Scan(ctx, &ok)
	if err != nil {
		return err
	}
	if !ok {
		return apperr.NotFoundf("the product was not found")
	}
	return nil
}

// UpsertCzBinding stores b as the binding of its product and scope,
// replacing the one there (its id is kept), and answers it as stored.
func UpsertCzBinding(ctx context.Context, tx bun.IDB, b *CzProductBinding) (*CzProductBinding, error) {
	if b.DefaultSelections == nil {
		b.DefaultSelections = map[string]any{}
	}
	var id int64
	_, err := tx.NewInsert().Model(b).ExcludeColumn("id", "created_at", "updated_at").
		On("CONFLICT (store_id, product_id, option_name, option_value) DO UPDATE").
		Set("template_id = EXCLUDED.template_id, option_set_id = EXCLUDED.option_set_id").
		Set("library_scope = EXCLUDED.library_scope, default_selections = EXCLUDED.default_selections, updated_at = now()").
		Returning("id").Exec(ctx, &id)
	if err != nil {
		return nil, classify(err, "the binding")
	}
	out := new(CzProductBinding)
	err = tx.NewSelect().Model(out).Where("store_id = ? AND id = ?", b.StoreID, id).Scan(ctx)
	return out, classify(err, "the binding")
}

// DeleteCzBindings deletes every binding of the product and answers their
// ids.
func DeleteCzBindings(ctx context.Context, tx bun.IDB, storeID, productID int64) ([]int64, error) {
	var ids []int64
	_, err := tx.NewDelete().Model((*CzProductBinding)(nil)).Where("store_id = ? AND product_id = ?", storeID, productID).
		Returning("id").Exec(ctx, &ids)
	return ids, err
}

// DeleteCzBinding deletes one binding of the product.
func DeleteCzBinding(ctx context.Context, tx bun.IDB, storeID, productID, bindingID int64) error {
	res, err := tx.NewDelete().Model((*CzProductBinding)(nil)).
		Where("store_id = ? AND product_id = ? AND id = ?", storeID, productID, bindingID).Exec(ctx)
	return notFoundIfNone(res, err, "the binding")
}

// CzRecordExists says whether the store has a record of model's table with
// id; a missing one (or another store's) is a 404 naming what.
func czRecordExists(ctx context.Context, db bun.IDB, model any, storeID, id int64, what string) error {
	ok, err := db.NewSelect().Model(model).Where("store_id = ? AND id = ?", storeID, id).Exists(ctx)
	if err != nil {
		return err
	}
	if !ok {
		return apperr.NotFoundf("%s was not found", what)
	}
	return nil
}

// CheckCzBindingTargets checks that the binding's template and option set
// are the store's (404 otherwise).
func CheckCzBindingTargets(ctx context.Context, db bun.IDB, b *CzProductBinding) error {
	if err := czRecordExists(ctx, db, (*CzTemplate)(nil), b.StoreID, b.TemplateID, "the template (template_id)"); err != nil {
		return err
	}
	return czRecordExists(ctx, db, (*CzOptionSet)(nil), b.StoreID, b.OptionSetID, "the option set (option_set_id)")
}
