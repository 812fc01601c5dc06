package models

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/uptrace/bun"

	"storeadmin/internal/base/apperr"
)

// MaxCzQuantityTiers is the most quantity tiers a template has: a price
// list a shopper can read, far more than stores use.
const MaxCzQuantityTiers = 20

// ListCzTemplates lists a store's templates by id.
func ListCzTemplates(ctx context.Context, db bun.IDB, storeID int64, p Paging) ([]CzTemplate, error) {
	var out []CzTemplate
	q := db.NewSelect().Model(&out).Apply(p.Columns.Apply).Where("czt.store_id = ?", storeID).Order("czt.id")
	err := scanRows(ctx, db, p.Apply(q), &out)
	return out, err
}

// GetCzTemplate reads one template of the store.
func GetCzTemplate(ctx context.Context, db bun.IDB, storeID, id int64) (*CzTemplate, error) {
	t := new(CzTemplate)
	err := db.NewSelect().Model(t).Where("czt.store_id = ? AND czt.id = ?", storeID, id).Scan(ctx)
	return t, classify(err, "the template")
}

// CheckCzTemplateRefs refuses a template whose design or product base is
// not the store's, naming the field: a reference the client sent is a bad
// value, not a missing template.
func CheckCzTemplateRefs(ctx context.Context, db bun.IDB, t *CzTemplate) error {
	if err := recordOfStore(ctx, db, "cz_designs", t.StoreID, t.DesignID, "design_id", "a design"); err != nil {
		return err
	}
	return recordOfStore(ctx, db, "cz_product_bases", t.StoreID, t.ProductBaseID, "product_base_id", "a product base")
}

// InsertCzTemplate stores a new template; its design and base must be the
// store's (CheckCzTemplateRefs).
func InsertCzTemplate(ctx context.Context, db bun.IDB, t *CzTemplate) error {
	_, err := db.NewInsert().Model(t).Returning("id, created_at, updated_at").Exec(ctx)
	return classify(err, "the template")
}

// UpdateCzTemplate writes the template's fields and bumps updated_at.
func UpdateCzTemplate(ctx context.Context, db bun.IDB, t *CzTemplate) error {
	res, err := db.NewUpdate().Model(t).
		Column("name", "design_id", "product_base_id", "export_format", "ppi", "included_colors", "included_elements",
			"price_per_extra_color_cents", "price_per_extra_element_cents").
		Set("updated_at = now()").Where("store_id = ? AND id = ?", t.StoreID, t.ID).Exec(ctx)
	return notFoundIfNone(res, err, "the template")
}

// LockCzTemplate reads a template of the store and locks it for the rest
// of tx (FOR UPDATE): an update checks and writes the copy stored, and no
// binding is made or changed meanwhile (their foreign key check shares the
// lock).
func LockCzTemplate(ctx context.Context, tx bun.IDB, storeID, id int64) (*CzTemplate, error) {
	return lockCzTemplate(ctx, tx, storeID, id, "UPDATE")
}

// CheckCzTemplateBindings runs, for each binding of the template, the
// checks PUT /bindings runs (CheckCzBindingTargets, CzLines.CheckBinding),
// against the template as written in tx: a design swapped for one that
// lacks a key a bound function targets, or that a binding's defaults no
// longer fit, is a 409 naming the binding, its product and the reason.
// The caller holds the template (LockCzTemplate).
func CheckCzTemplateBindings(ctx context.Context, tx bun.IDB, t *CzTemplate) error {
	var bindings []CzProductBinding
	if err := tx.NewSelect().Model(&bindings).Where("store_id = ? AND template_id = ?", t.StoreID, t.ID).
		Order("product_id", "id").Scan(ctx); err != nil {
		return err
	}
	lines := NewCzLines(tx, t.StoreID)
	for i := range bindings {
		b := &bindings[i]
		if err := CheckCzBindingTargets(ctx, tx, b); err != nil {
			return err
		}
		defaults, _ := b.DefaultSelections.(map[string]any)
		if _, err := lines.CheckBinding(ctx, b, defaults); err != nil {
			var ae *apperr.Error
			if errors.As(err, &ae) && ae.Code == apperr.Invalid {
				return apperr.Conflictf("design_id %d does not fit binding %d of product %d: %s; change or delete that binding first",
					t.DesignID, b.ID, b.ProductID, ae.Message)
			}
			return err
		}
	}
	return nil
}

// lockCzTemplate locks a template of the store for the rest of tx, with
// strength FOR UPDATE or FOR NO KEY UPDATE, and returns it.
func lockCzTemplate(ctx context.Context, tx bun.IDB, storeID, id int64, strength string) (*CzTemplate, error) {
	t := new(CzTemplate)
	err := tx.NewSelect().Model(t).Where("czt.store_id = ? AND czt.id = ?", storeID, id).For(strength).Scan(ctx)
	return t, classify(err, "the template")
}

// czBindingUser is a product a binding of a template is for, as a 409
// names it.
type czBindingUser struct {
	ProductID int64  `bun:"product_id"`
	Title     string `bun:"title"`
}

func (u czBindingUser) String() string {
	if u.Title == "" {
		return fmt.Sprintf("product %d (deleted)", u.ProductID)
	}
	return fmt.Sprintf("%q (%d)", u.Title, u.ProductID)
}

// DeleteCzTemplate deletes a template and its quantity tiers (their
// foreign key cascades). A template a product binding uses is kept: 409
// naming the products, to unbind first. The template's row lock keeps new
// bindings off between the check and the delete (their foreign key check
// shares it).
func DeleteCzTemplate(ctx context.Context, tx bun.IDB, storeID, id int64) error {
	t, err := lockCzTemplate(ctx, tx, storeID, id, "UPDATE")
	if err != nil {
		return err
	}
	var users []czBindingUser
	if err := tx.NewSelect().TableExpr("cz_product_bindings AS b").
		ColumnExpr("DISTINCT b.product_id, coalesce(p.title, '') AS title").
		Join("LEFT JOIN products AS p ON p.store_id = b.store_id AND p.id = b.product_id").
		Where("b.store_id = ? AND b.template_id = ?", storeID, id).Order("b.product_id").Scan(ctx, &users); err != nil {
		return err
	}
	if len(users) > 0 {
		names := make([]string, len(users))
		for i, u := range users {
			names[i] = u.String()
		}
		noun := "product"
		if len(users) > 1 {
			noun = "products"
		}
		return apperr.Conflictf("the template %q is bound to the %s %s: delete those bindings first (DELETE /store/customizer/bindings/{productId})",
			t.Name, noun, strings.Join(names, ", "))
	}
	res, err := tx.NewDelete().Model((*CzTemplate)(nil)).Where("store_id = ? AND id = ?", storeID, id).Exec(ctx)
	return notFoundIfNone(res, err, "the template")
}

// QuantityTiersByTemplate loads the quantity tiers of several templates,
// by min_qty, for a list or a dataloader.
func QuantityTiersByTemplate(ctx context.Context, db bun.IDB, storeID int64, ids []int64, cols Columns) ([]CzQuantityTier, error) {
	out := manyRows[CzQuantityTier](len(ids))
	err := scanRows(ctx, db, db.NewSelect().Model(&out).Apply(cols.Apply).
		Where("store_id = ? AND template_id IN (?)", storeID, bun.List(ids)).Order("template_id", "position", "id"), &out)
	return out, err
}

// ListCzQuantityTiers lists a template's tiers by min_qty; a template that
// is not the store's is a 404.
func ListCzQuantityTiers(ctx context.Context, db bun.IDB, storeID, templateID int64, cols Columns) ([]CzQuantityTier, error) {
	if _, err := GetCzTemplate(ctx, db, storeID, templateID); err != nil {
		return nil, err
	}
	return QuantityTiersByTemplate(ctx, db, storeID, []int64{templateID}, cols)
}

// GetCzQuantityTier reads one quantity tier of the store; lock first takes
// its template's row (the lock every tier write takes), so that the copy
// read is the one stored until the transaction ends: an update writes back
// no field another writer changed meanwhile.
func GetCzQuantityTier(ctx context.Context, db bun.IDB, storeID, id int64, lock bool) (*CzQuantityTier, error) {
	if lock {
		err := db.NewSelect().Model((*CzTemplate)(nil)).Column("czt.id").
			Where("czt.store_id = ? AND czt.id = (SELECT template_id FROM cz_quantity_tiers WHERE store_id = ? AND id = ?)", storeID, storeID, id).
			For("NO KEY UPDATE").Scan(ctx, new(int64))
		if err != nil {
			return nil, classify(err, "the quantity tier")
		}
	}
	q := new(CzQuantityTier)
	err := db.NewSelect().Model(q).Where("czq.store_id = ? AND czq.id = ?", storeID, id).Scan(ctx)
	return q, classify(err, "the quantity tier")
}

// InsertCzQuantityTier adds a tier to its template, within the template's
// cap, and renumbers the template's tiers. The template's row lock
// serialises its tier writes, so two creates cannot both pass the cap.
func InsertCzQuantityTier(ctx context.Context, tx bun.IDB, q *CzQuantityTier) error {
	if _, err := lockCzTemplate(ctx, tx, q.StoreID, q.TemplateID, "NO KEY UPDATE"); err != nil {
		return err
	}
	n, err := tx.NewSelect().Model((*CzQuantityTier)(nil)).Where("store_id = ? AND template_id = ?", q.StoreID, q.TemplateID).Count(ctx)
	if err != nil {
		return err
	}
	if n >= MaxCzQuantityTiers {
		return apperr.Conflictf("the template has %d quantity tiers, the most a template has (%d): change or delete one instead", n, MaxCzQuantityTiers)
	}
	q.Position = int64(n) // renumbered below
	_, err = tx.NewInsert().Model(q).Returning("id, created_at").Exec(ctx)
	if err != nil {
		return tierConflict(err, q.MinQty)
	}
	return renumberCzQuantityTiers(ctx, tx, q.StoreID, q.TemplateID)
}

// UpdateCzQuantityTier writes a tier's min_qty and price and renumbers its
// template's tiers. The caller read q locked (GetCzQuantityTier).
func UpdateCzQuantityTier(ctx context.Context, tx bun.IDB, q *CzQuantityTier) error {
	res, err := tx.NewUpdate().Model(q).Column("min_qty", "price_cents").Where("store_id = ? AND id = ?", q.StoreID, q.ID).Exec(ctx)
	if err != nil {
		return tierConflict(err, q.MinQty)
	}
	if err := notFoundIfNone(res, nil, "the quantity tier"); err != nil {
		return err
	}
	return renumberCzQuantityTiers(ctx, tx, q.StoreID, q.TemplateID)
}

// DeleteCzQuantityTier deletes a tier and renumbers its template's others.
func DeleteCzQuantityTier(ctx context.Context, tx bun.IDB, storeID, id int64) error {
	q, err := GetCzQuantityTier(ctx, tx, storeID, id, true)
	if err != nil {
		return err
	}
	res, err := tx.NewDelete().Model((*CzQuantityTier)(nil)).Where("store_id = ? AND id = ?", storeID, id).Exec(ctx)
	if err := notFoundIfNone(res, err, "the quantity tier"); err != nil {
		return err
	}
	return renumberCzQuantityTiers(ctx, tx, storeID, q.TemplateID)
}

// tierConflict words a duplicate min_qty as a 409 naming it.
func tierConflict(err error, minQty int64) error {
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) && pgErr.Code == "23505" {
		return apperr.Conflictf("min_qty %d: the template already has a quantity tier from %d units", minQty, minQty)
	}
	return classify(err, "the quantity tier")
}

// renumberCzQuantityTiers sets the positions of a template's tiers to their
// rank by min_qty (0, 1, …), in one statement, touching only the rows that
// move.
func renumberCzQuantityTiers(ctx context.Context, db bun.IDB, storeID, templateID int64) error {
	_, err := db.NewRaw(`UPDATE cz_quantity_tiers AS q SET position = r.rank
		FROM (SELECT id, row_number() OVER (ORDER BY min_qty, id) - 1 AS rank
			FROM cz_quantity_tiers WHERE store_id = ? AND template_id = ?) AS r
		WHERE q.store_id = ? AND q.id = r.id AND q.position <> r.rank`, storeID, templateID, storeID).Exec(ctx)
	return err
}
