package resolvers

import (
	"context"
	"slices"

	"github.com/uptrace/bun"

	"storeadmin/graph"
	"storeadmin/internal/base/apperr"
	"storeadmin/internal/customizer"
	"storeadmin/models"
)

// czOptionsTx runs a write to option sets, options or values in one
// transaction for the caller's store; fn takes the set's lock first
// (models.LockCzOptionSet and its kin) and answers the set it wrote. The
// set's bindings are then checked against it as written, still under the
// lock, so no write leaves a binding a design key its values aim at is
// missing from, or defaults the set no longer fits.
func (r *mutationResolver) czOptionsTx(ctx context.Context, fn func(ctx context.Context, tx bun.Tx, sid int64) (setID int64, err error)) error {
	sid, err := storeID(ctx)
	if err != nil {
		return err
	}
	return r.db(ctx).RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		setID, err := fn(ctx, tx, sid)
		if err != nil {
			return err
		}
		return models.CheckCzSetBindings(ctx, tx, sid, setID)
	})
}

// czCheckConditions checks o's conditions against set, the options of its
// set in order (a new o comes after all of them), reading the value slugs
// of the options they test.
func czCheckConditions(ctx context.Context, tx bun.Tx, sid int64, o *models.CzOption, set []models.CzOption) error {
	if len(o.Conditions) == 0 {
		return nil
	}
	slugs, err := models.CzOptionValueSlugs(ctx, tx, sid, czTestedOptions(o))
	if err != nil {
		return err
	}
	return czOptionConditions(o, set, slugs)
}

// czTypeChange refuses a new type for o that its values or other options'
// conditions do not fit: values belong to choice options only, and a
// condition that tests o against a value was written for the answers of
// its old type.
func czTypeChange(ctx context.Context, tx bun.Tx, sid int64, o *models.CzOption, oldType string, set []models.CzOption) error {
	if !customizer.ChoiceType(o.Type) {
		values, err := models.ListCzOptionValues(ctx, tx, sid, o.ID)
		if err != nil {
			return err
		}
		if len(values) > 0 {
			return apperr.Conflictf("the option has %d values, and a %s option takes none: delete them first (or keep a choice type: select, swatch, image_choice)", len(values), o.Type)
		}
	}
	if czSameAnswers(oldType, o.Type) {
		return nil
	}
	if users := czConditionUsers(set, func(c models.CustomizerCondition) bool { return customizer.ConditionTests(c, o.ID) }); users != "" {
		return apperr.Conflictf("the conditions of option %s test this %s option's answer against a value; change them before the option's type", users, oldType)
	}
	return nil
}

// czSlugsUnnamed refuses to delete or rename value slugs of an option
// while a condition of its set names one of them.
func czSlugsUnnamed(ctx context.Context, tx bun.Tx, sid, optionID int64, slugs []string, what string) error {
	if len(slugs) == 0 {
		return nil
	}
	o, err := models.GetCzOption(ctx, tx, sid, optionID)
	if err != nil {
		return err
	}
	set, err := models.ListCzOptions(ctx, tx, sid, o.OptionSetID)
	if err != nil {
		return err
	}
	for _, slug := range slugs {
		if users := czConditionUsers(set, func(c models.CustomizerCondition) bool { return customizer.ConditionNames(c, optionID, slug) }); users != "" {
			return apperr.Conflictf("the value %q cannot be %s: the conditions of option %s name it; change them first", slug, what, users)
		}
	}
	return nil
}

// czReplacementValues checks the values of a bulk replace, before any
// read: at most MaxValuesPerOption, each valid, each slug once; positions
// follow the list.
func czReplacementValues(sid, optionID int64, in []graph.CzOptionValueInput) ([]models.CzOptionValue, error) {
	if len(in) > customizer.MaxValuesPerOption {
		return nil, apperr.InvalidField("values", "must list at most %d values, the most an option may have", customizer.MaxValuesPerOption)
	}
	out := make([]models.CzOptionValue, len(in))
	seen := make(map[string]int, len(in))
	for i, v := range in {
		out[i] = models.CzOptionValue{StoreID: sid, OptionID: optionID, Position: int64(i)}
		if err := applyCzOptionValueInput(czValuesAt(i), &out[i], v); err != nil {
			return nil, err
		}
		if j, dup := seen[out[i].Value]; dup {
			return nil, apperr.InvalidField(czValuesAt(i)+"value", "%q is listed twice (also values[%d])", out[i].Value, j)
		}
		seen[out[i].Value] = i
	}
	return out, nil
}

// replaceCzOptionValues upserts named (checked, in their new order) by
// slug into an option's values: a named value that exists keeps its id
// and counts as updated when a stored field (its position included)
// changes; one that does not is created. The values not named are deleted
// with prune, otherwise kept after the named ones in their order.
// o is the option, read under its set's lock.
func (r *mutationResolver) replaceCzOptionValues(ctx context.Context, tx bun.Tx, sid int64, o *models.CzOption, named []models.CzOptionValue, prune bool) (*models.CzReplaceOptionValues, error) {
	optionID := o.ID
	if err := czChoiceOption(o); err != nil {
		return nil, err
	}
	existing, err := models.ListCzOptionValues(ctx, tx, sid, optionID)
	if err != nil {
		return nil, err
	}
	bySlug := make(map[string]models.CzOptionValue, len(existing))
	for _, v := range existing {
		bySlug[v.Value] = v
	}
	var unnamed []models.CzOptionValue
	for _, v := range existing {
		if !czNamesSlug(named, v.Value) {
			unnamed = append(unnamed, v)
		}
	}
	if !prune && len(named)+len(unnamed) > customizer.MaxValuesPerOption {
		return nil, apperr.Conflictf("the option would have %d values (%d named, %d kept without prune), more than the %d an option may have",
			len(named)+len(unnamed), len(named), len(unnamed), customizer.MaxValuesPerOption)
	}
	if err := customizer.CheckOptionValueUploads(ctx, tx, sid, named, czValuesAt); err != nil {
		return nil, err
	}
	out := &models.CzReplaceOptionValues{}
	if prune {
		slugs := make([]string, len(unnamed))
		ids := make([]int64, len(unnamed))
		for i, v := range unnamed {
			slugs[i], ids[i] = v.Value, v.ID
		}
		if err := czSlugsUnnamed(ctx, tx, sid, optionID, slugs, "pruned"); err != nil {
			return nil, err
		}
		if err := models.DeleteCzOptionValues(ctx, tx, sid, optionID, ids); err != nil {
			return nil, err
		}
		out.Deleted, unnamed = int64(len(ids)), nil
	}
	// Fields change one statement per changed value; positions, the
	// list's order then the kept values', change in one statement at the end.
	var created []models.CzOptionValue
	for _, v := range named {
		old, ok := bySlug[v.Value]
		if !ok {
			created = append(created, v)
			continue
		}
		v.ID, v.CreatedAt = old.ID, old.CreatedAt
		if !czValueChanged(old, v) {
			continue
		}
		out.Updated++
		if old.Position = v.Position; czValueChanged(old, v) {
			if err := models.UpdateCzOptionValue(ctx, tx, &v); err != nil {
				return nil, err
			}
		}
	}
	if err := models.InsertCzOptionValues(ctx, tx, created); err != nil {
		return nil, err
	}
	out.Created = int64(len(created))
	ids := make(map[string]int64, len(named))
	for _, v := range slices.Concat(existing, created) {
		ids[v.Value] = v.ID
	}
	order := make([]int64, 0, len(named)+len(unnamed))
	for _, v := range slices.Concat(named, unnamed) {
		order = append(order, ids[v.Value])
	}
	if err := models.SetCzOptionValueOrder(ctx, tx, sid, optionID, order); err != nil {
		return nil, err
	}
	if out.Values, err = models.ListCzOptionValues(ctx, tx, sid, optionID); err != nil {
		return nil, err
	}
	return out, nil
}

// czNamesSlug reports whether values name slug.
func czNamesSlug(values []models.CzOptionValue, slug string) bool {
	for _, v := range values {
		if v.Value == slug {
			return true
		}
	}
	return false
}
