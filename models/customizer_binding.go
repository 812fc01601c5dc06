package models

import (
	"context"
	"slices"

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

// CheckCzBindingTargets checks that the binding's template and option set
// are the store's (a 400 naming template_id or option_set_id otherwise, as
// every reference in a body) and locks the option set (lockCzOptionSet), so
// no write to its options and values slips between the binding's checks
// and its upsert.
func CheckCzBindingTargets(ctx context.Context, db bun.IDB, b *CzProductBinding) error {
	if err := recordOfStore(ctx, db, "cz_templates", b.StoreID, b.TemplateID, "template_id", "a template"); err != nil {
		return err
	}
	if err := recordOfStore(ctx, db, "cz_option_sets", b.StoreID, b.OptionSetID, "option_set_id", "an option set"); err != nil {
		return err
	}
	_, err := LockCzOptionSet(ctx, db, b.StoreID, b.OptionSetID)
	return err
}

// CheckCzSetBindings runs the binding checks (CheckBinding) again for
// every binding of the option set setID after a write to its options or
// values, under the set's lock: a function aimed at a key a bound design
// lacks is a 400 on functions, stored defaults the set no longer fits a 409;
// both name the binding and its product.
func CheckCzSetBindings(ctx context.Context, db bun.IDB, storeID, setID int64) error {
	var bs []CzProductBinding
	if err := db.NewSelect().Model(&bs).Where("store_id = ? AND option_set_id = ?", storeID, setID).Order("id").Scan(ctx); err != nil {
		return err
	}
	lines := NewCzLines(db, storeID)
	for i := range bs {
		b := &bs[i]
		cb, err := lines.load(ctx, b)
		if err != nil {
			return err
		}
		if err := cb.checkFunctions(); err != nil {
			return apperr.InvalidField("functions", "binding %d of product %d uses option set %v", b.ID, b.ProductID, err)
		}
		defaults, _ := b.DefaultSelections.(map[string]any)
		if _, err := lines.selections(ctx, cb, "default_selections", defaults, false); err != nil {
			return apperr.Conflictf("the default_selections of binding %d of product %d would no longer fit the option set: %s; change the binding first",
				b.ID, b.ProductID, err)
		}
	}
	return nil
}

// CheckCzBindingOverlap refuses a scoped binding b of product p that
// would cover a variant another scoped binding of the product covers (Color
// = Red and Size = L both cover a red L): a variant takes one binding, so
// overlapping scopes are a 409 naming the other binding rather than a
// precedence to learn. A binding of the same option name replaces or sits
// beside it without overlap.
func CheckCzBindingOverlap(ctx context.Context, db bun.IDB, p *Product, b *CzProductBinding) error {
	if b.OptionName == "" {
		return nil
	}
	bs, err := ListCzBindings(ctx, db, b.StoreID, b.ProductID)
	if err != nil {
		return err
	}
	var variants []ProductVariant
	if err := db.NewSelect().Model(&variants).Where("product_id = ?", p.ID).Order("position").Scan(ctx); err != nil {
		return err
	}
	covers := func(v ProductVariant, name, value string) bool {
		i := slices.IndexFunc(p.Options, func(o ProductOption) bool { return o.Name == name })
		return i >= 0 && i < 3 && []string{v.Option1, v.Option2, v.Option3}[i] == value
	}
	for _, o := range bs {
		if o.OptionName == "" || o.OptionName == b.OptionName {
			continue
		}
		for _, v := range variants {
			if covers(v, b.OptionName, b.OptionValue) && covers(v, o.OptionName, o.OptionValue) {
				return apperr.Conflictf("binding %d (%s = %q) of product %d covers variant %q too: a variant takes one binding; delete it first or bind by one option",
					o.ID, o.OptionName, o.OptionValue, p.ID, v.Title)
			}
		}
	}
	return nil
}
