package models

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/pgdialect"

	"storeadmin/internal/base/apperr"
)

// Option sets, their options and the options' values (README "Product
// customizer / Option sets, options and values"). Positions of a set's
// options and of an option's values run 0, 1, … without gaps: a delete
// renumbers what follows, a reorder writes them all.

// ListCzOptionSets lists a store's option sets by id.
func ListCzOptionSets(ctx context.Context, db bun.IDB, storeID int64, p Paging) ([]CzOptionSet, error) {
	out := []CzOptionSet{}
	q := db.NewSelect().Model(&out).Apply(p.Columns.Apply).Where("czs.store_id = ?", storeID).Order("czs.id")
	err := scanRows(ctx, db, p.Apply(q), &out)
	return out, err
}

// GetCzOptionSet reads one option set of the store.
func GetCzOptionSet(ctx context.Context, db bun.IDB, storeID, id int64) (*CzOptionSet, error) {
	s := new(CzOptionSet)
	err := db.NewSelect().Model(s).Where("store_id = ? AND id = ?", storeID, id).Scan(ctx)
	return s, classify(err, "the option set")
}

// lockCzOptionSet reads the store's option set whose id setID (a value or
// a subquery) gives and locks it until the transaction ends. Every write
// to a set's options and values takes this lock first, so its positions,
// caps, conditions and value slugs are checked against a set no one else
// changes meanwhile. NO KEY UPDATE leaves a binding free to refer to the
// set. what names the record looked for in the not-found error.
func lockCzOptionSet(ctx context.Context, db bun.IDB, storeID int64, setID any, what string) (*CzOptionSet, error) {
	s := new(CzOptionSet)
	err := db.NewSelect().Model(s).Where("store_id = ? AND id = (?)", storeID, setID).For("NO KEY UPDATE").Scan(ctx)
	return s, classify(err, what)
}

// LockCzOptionSet reads an option set of the store and locks it (see
// lockCzOptionSet).
func LockCzOptionSet(ctx context.Context, db bun.IDB, storeID, id int64) (*CzOptionSet, error) {
	return lockCzOptionSet(ctx, db, storeID, id, "the option set")
}

// LockCzOption locks the option set of an option of the store, then reads
// the option.
func LockCzOption(ctx context.Context, db bun.IDB, storeID, id int64) (*CzOption, error) {
	setID := db.NewSelect().Model((*CzOption)(nil)).Column("option_set_id").Where("store_id = ? AND id = ?", storeID, id)
	if _, err := lockCzOptionSet(ctx, db, storeID, setID, "the option"); err != nil {
		return nil, err
	}
	return GetCzOption(ctx, db, storeID, id)
}

// LockCzOptionValue locks the option set of an option value of the store,
// then reads the value; it answers the set's id too.
func LockCzOptionValue(ctx context.Context, db bun.IDB, storeID, id int64) (*CzOptionValue, int64, error) {
	setID := db.NewSelect().TableExpr("cz_option_values AS v").
		Join("JOIN cz_options AS o ON o.store_id = v.store_id AND o.id = v.option_id").
		ColumnExpr("o.option_set_id").Where("v.store_id = ? AND v.id = ?", storeID, id)
	set, err := lockCzOptionSet(ctx, db, storeID, setID, "the option value")
	if err != nil {
		return nil, 0, err
	}
	v := new(CzOptionValue)
	err = db.NewSelect().Model(v).Where("store_id = ? AND id = ?", storeID, id).Scan(ctx)
	return v, set.ID, classify(err, "the option value")
}

// InsertCzOptionSet stores a new option set; it receives its id.
func InsertCzOptionSet(ctx context.Context, db bun.IDB, s *CzOptionSet) error {
	_, err := db.NewInsert().Model(s).Returning("id, created_at, updated_at").Exec(ctx)
	return classify(err, "the option set")
}

// UpdateCzOptionSet writes an option set's name and bumps updated_at.
func UpdateCzOptionSet(ctx context.Context, db bun.IDB, s *CzOptionSet) error {
	res, err := db.NewUpdate().Model(s).Column("name").Set("updated_at = now()").
		Where("store_id = ? AND id = ?", s.StoreID, s.ID).Exec(ctx)
	return notFoundIfNone(res, err, "the option set")
}

// DeleteCzOptionSet deletes an option set with its options and values. A
// product binding that uses it keeps it (409, naming the binding and its
// product).
func DeleteCzOptionSet(ctx context.Context, db bun.IDB, storeID, id int64) error {
	var use struct {
		ID        int64 `bun:"id"`
		ProductID int64 `bun:"product_id"`
		Count     int64 `bun:"n"`
	}
	err := db.NewSelect().Model((*CzProductBinding)(nil)).Column("id", "product_id").ColumnExpr("count(*) OVER () AS n").
		Where("store_id = ? AND option_set_id = ?", storeID, id).Order("id").Limit(1).Scan(ctx, &use)
	switch {
	case err == nil:
		return apperr.Conflictf("the option set is used by product binding %d (product %d)%s; remove %s first (DELETE /store/customizer/bindings/{productId}/{bindingId})",
			use.ID, use.ProductID, czoOthers(use.Count-1, "binding"), czoThem(use.Count))
	case !errors.Is(err, errNoRows):
		return err
	}
	res, err := db.NewDelete().Model((*CzOptionSet)(nil)).Where("store_id = ? AND id = ?", storeID, id).Exec(ctx)
	if czoStillReferred(err) { // a binding made since the check
		return apperr.Conflictf("the option set is used by a product binding; remove the binding first")
	}
	return notFoundIfNone(res, err, "the option set")
}

// czoOthers words how many more records of kind there are: "" for none,
// " and 2 other bindings".
func czoOthers(n int64, kind string) string {
	switch n {
	case 0:
		return ""
	case 1:
		return " and 1 other " + kind
	}
	return fmt.Sprintf(" and %d other %ss", n, kind)
}

func czoThem(n int64) string {
	if n == 1 {
		return "it"
	}
	return "them"
}

// czoStillReferred reports a statement refused by a foreign key: a
// row still referred to (ON DELETE RESTRICT).
func czoStillReferred(err error) bool {
	var pgErr *pgconn.PgError
	return errors.As(err, &pgErr) && pgErr.Code == "23503"
}

// ListCzOptions lists an option set's options in order (a set holds at
// most a hundred: the whole list).
func ListCzOptions(ctx context.Context, db bun.IDB, storeID, setID int64) ([]CzOption, error) {
	return OptionsByOptionSet(ctx, db, storeID, []int64{setID}, AllColumns)
}

// GetCzOption reads one option of the store.
func GetCzOption(ctx context.Context, db bun.IDB, storeID, id int64) (*CzOption, error) {
	o := new(CzOption)
	err := db.NewSelect().Model(o).Where("store_id = ? AND id = ?", storeID, id).Scan(ctx)
	return o, classify(err, "the option")
}

// InsertCzOption stores a new option at the end of its set; it receives
// its id and position.
func InsertCzOption(ctx context.Context, db bun.IDB, o *CzOption) error {
	next := db.NewSelect().Model((*CzOption)(nil)).ColumnExpr("coalesce(max(position) + 1, 0)").
		Where("store_id = ? AND option_set_id = ?", o.StoreID, o.OptionSetID)
	_, err := db.NewInsert().Model(o).Value("position", "(?)", next).Returning("id, position, created_at").Exec(ctx)
	return classify(err, "the option")
}

// UpdateCzOption writes an option's fields (not its set or position).
func UpdateCzOption(ctx context.Context, db bun.IDB, o *CzOption) error {
	res, err := db.NewUpdate().Model(o).
		Column("label", "type", "required", "section", "help_text", "settings", "validation", "price_per_char_cents", "conditions").
		Where("store_id = ? AND id = ?", o.StoreID, o.ID).Exec(ctx)
	return notFoundIfNone(res, err, "the option")
}

// DeleteCzOption deletes an option with its values and closes the gap in
// its set's positions.
func DeleteCzOption(ctx context.Context, db bun.IDB, o *CzOption) error {
	res, err := db.NewDelete().Model((*CzOption)(nil)).Where("store_id = ? AND id = ?", o.StoreID, o.ID).Exec(ctx)
	if err := notFoundIfNone(res, err, "the option"); err != nil {
		return err
	}
	return czoRenumber(ctx, db, "cz_options", "option_set_id", o.StoreID, o.OptionSetID)
}

// SetCzOptionOrder gives an option set's options the positions of ids (the
// whole set, checked by the caller), in one statement.
func SetCzOptionOrder(ctx context.Context, db bun.IDB, storeID, setID int64, ids []int64) error {
	return czoSetPositions(ctx, db, "cz_options", "option_set_id", storeID, setID, ids)
}

// czoSetPositions writes positions 0, 1, … in the order of ids to the rows of
// table whose parent column is parentID, in one statement.
func czoSetPositions(ctx context.Context, db bun.IDB, table, parent string, storeID, parentID int64, ids []int64) error {
	_, err := db.NewRaw(`UPDATE ? AS t SET position = k.ord - 1
		FROM unnest(?::bigint[]) WITH ORDINALITY AS k(id, ord)
		WHERE t.store_id = ? AND t.? = ? AND t.id = k.id AND t.position <> k.ord - 1`,
		bun.Ident(table), pgdialect.Array(ids), storeID, bun.Ident(parent), parentID).Exec(ctx)
	return err
}

// czoRenumber closes the gaps in the positions of the rows of table under
// one parent, keeping their order, in one statement.
func czoRenumber(ctx context.Context, db bun.IDB, table, parent string, storeID, parentID int64) error {
	_, err := db.NewRaw(`UPDATE ? AS t SET position = r.pos
		FROM (SELECT id, row_number() OVER (ORDER BY position, id) - 1 AS pos FROM ? WHERE store_id = ? AND ? = ?) AS r
		WHERE t.store_id = ? AND t.id = r.id AND t.position <> r.pos`,
		bun.Ident(table), bun.Ident(table), storeID, bun.Ident(parent), parentID, storeID).Exec(ctx)
	return err
}

// ListCzOptionValues lists an option's values in order (an option holds
// at most two hundred: the whole list).
func ListCzOptionValues(ctx context.Context, db bun.IDB, storeID, optionID int64) ([]CzOptionValue, error) {
	return OptionValuesByOption(ctx, db, storeID, []int64{optionID}, AllColumns)
}

// CzOptionValueSlugs maps each of the options (of the store) that has
// values to its value slugs, in order.
func CzOptionValueSlugs(ctx context.Context, db bun.IDB, storeID int64, optionIDs []int64) (map[int64][]string, error) {
	out := map[int64][]string{}
	if len(optionIDs) == 0 {
		return out, nil
	}
	var rows []CzOptionValue
	err := db.NewSelect().Model(&rows).Column("option_id", "value").
		Where("store_id = ? AND option_id IN (?)", storeID, bun.List(optionIDs)).Order("option_id", "position", "id").Scan(ctx)
	for _, r := range rows {
		out[r.OptionID] = append(out[r.OptionID], r.Value)
	}
	return out, err
}

// InsertCzOptionValues stores new values of one option in one statement,
// at the positions they carry; each receives its id.
func InsertCzOptionValues(ctx context.Context, db bun.IDB, values []CzOptionValue) error {
	if len(values) == 0 {
		return nil
	}
	_, err := db.NewInsert().Model(&values).Returning("id, created_at").Exec(ctx)
	return classify(err, "a value with this slug in the option")
}

// NextCzOptionValuePosition is the position after an option's last value.
func NextCzOptionValuePosition(ctx context.Context, db bun.IDB, storeID, optionID int64) (int64, error) {
	var n int64
	err := db.NewSelect().Model((*CzOptionValue)(nil)).ColumnExpr("coalesce(max(position) + 1, 0)").
		Where("store_id = ? AND option_id = ?", storeID, optionID).Scan(ctx, &n)
	return n, err
}

// UpdateCzOptionValue writes a value's fields and position (not its
// option).
func UpdateCzOptionValue(ctx context.Context, db bun.IDB, v *CzOptionValue) error {
	res, err := db.NewUpdate().Model(v).
		Column("label", "value", "position", "price_delta_cents", "swatch_hex", "thumbnail_url", "functions").
		Where("store_id = ? AND id = ?", v.StoreID, v.ID).Exec(ctx)
	return notFoundIfNone(res, err, "a value with this slug in the option")
}

// DeleteCzOptionValues deletes values of one option and closes the gaps in
// its positions.
func DeleteCzOptionValues(ctx context.Context, db bun.IDB, storeID, optionID int64, ids []int64) error {
	if len(ids) == 0 {
		return nil
	}
	res, err := db.NewDelete().Model((*CzOptionValue)(nil)).
		Where("store_id = ? AND option_id = ? AND id IN (?)", storeID, optionID, bun.List(ids)).Exec(ctx)
	if err := notFoundIfNone(res, err, "the option value"); err != nil {
		return err
	}
	return czoRenumber(ctx, db, "cz_option_values", "option_id", storeID, optionID)
}

// SetCzOptionValueOrder gives an option's values the positions of ids (the
// whole option, checked by the caller), in one statement.
func SetCzOptionValueOrder(ctx context.Context, db bun.IDB, storeID, optionID int64, ids []int64) error {
	return czoSetPositions(ctx, db, "cz_option_values", "option_id", storeID, optionID, ids)
}
