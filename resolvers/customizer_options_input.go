package resolvers

import (
	"fmt"
	"reflect"

	"storeadmin/graph"
	"storeadmin/internal/base/apperr"
	"storeadmin/internal/customizer"
	"storeadmin/models"
)

// applyCzOptionSetInput writes the input's fields into s (the stored set
// on update: what is left out stays) and checks the result.
func applyCzOptionSetInput(s *models.CzOptionSet, in graph.CzOptionSetInput) error {
	if in.Name != nil {
		s.Name = *in.Name
	}
	return customizer.CheckOptionSet("", s)
}

// applyCzOptionInput writes the input's fields into o (the stored option
// on update: what is left out stays) and checks its own fields. A new type
// resets the settings, validation and price_per_char_cents the input does
// not send with it: another type's are rarely its. Conditions are written
// as sent; the caller checks them against the set (czOptionConditions).
func applyCzOptionInput(o *models.CzOption, in graph.CzOptionInput) {
	if in.Type != nil && *in.Type != o.Type {
		o.Type = *in.Type
		o.Settings, o.Validation, o.PricePerCharCents = map[string]any{}, models.CzTextValidation{}, 0
	}
	if in.Label != nil {
		o.Label = *in.Label
	}
	if in.Required != nil {
		o.Required = *in.Required
	}
	if in.Section != nil {
		o.Section = *in.Section
	}
	if in.HelpText != nil {
		o.HelpText = *in.HelpText
	}
	if in.Settings != nil {
		o.Settings = in.Settings
	}
	if v := in.Validation; v != nil {
		o.Validation = models.CzTextValidation{MaxLength: deref(v.MaxLength), MaxLines: deref(v.MaxLines),
			CharsPerLine: deref(v.CharsPerLine), Pattern: deref(v.Pattern), Mode: deref(v.Mode)}
	}
	if in.PricePerCharCents != nil {
		o.PricePerCharCents = *in.PricePerCharCents
	}
	if in.Conditions != nil {
		o.Conditions = make([]models.CustomizerCondition, len(in.Conditions))
		for i, c := range in.Conditions {
			o.Conditions[i] = models.CustomizerCondition{Op: c.Op, OptionID: c.OptionID, Value: c.Value, Values: c.Values}
		}
	}
}

// applyCzOptionValueInput writes the input's fields into v (the stored
// value on update, a zero value in a bulk replace: what is left out stays)
// and checks the result; at prefixes the fields a failure names.
func applyCzOptionValueInput(at string, v *models.CzOptionValue, in graph.CzOptionValueInput) error {
	if in.Label != nil {
		v.Label = *in.Label
	}
	if in.Value != nil {
		v.Value = *in.Value
	}
	if in.PriceDeltaCents != nil {
		v.PriceDeltaCents = *in.PriceDeltaCents
	}
	if in.SwatchHex != nil {
		v.SwatchHex = *in.SwatchHex
	}
	if in.ThumbnailURL != nil {
		v.ThumbnailURL = *in.ThumbnailURL
	}
	if in.Functions != nil {
		v.Functions = make([]models.CustomizerFunction, len(in.Functions))
		for i, f := range in.Functions {
			v.Functions[i] = models.CustomizerFunction{ElementKey: f.ElementKey, GroupKey: f.GroupKey, Property: f.Property, Value: f.Value}
		}
	}
	return customizer.CheckOptionValue(at, v)
}

// czOrder checks a reorder's ids: every one of the parent's records (ids
// of kind, in their order now), each once, and nothing else.
func czOrder(kind, parent string, current, ids []int64) error {
	mine := make(map[int64]bool, len(current))
	for _, id := range current {
		mine[id] = true
	}
	seen := make(map[int64]bool, len(ids))
	for i, id := range ids {
		field := fmt.Sprintf("ids[%d]", i)
		if !mine[id] {
			return apperr.InvalidField(field, "names no %s of this %s (%d)", kind, parent, id)
		}
		if seen[id] {
			return apperr.InvalidField(field, "lists %s %d twice", kind, id)
		}
		seen[id] = true
	}
	if len(ids) != len(current) {
		return apperr.InvalidField("ids", "must list every %s of the %s, each once: %d of %d are listed", kind, parent, len(ids), len(current))
	}
	return nil
}

// czOptionOrder checks a new order of a set's options against their
// conditions: each must still come after the options it tests.
func czOptionOrder(options []models.CzOption, ids []int64) error {
	byID := make(map[int64]*models.CzOption, len(options))
	for i := range options {
		byID[options[i].ID] = &options[i]
	}
	placed := make(map[int64]bool, len(ids))
	for i, id := range ids {
		o := byID[id]
		for _, c := range o.Conditions {
			if !placed[c.OptionID] {
				return apperr.InvalidField(fmt.Sprintf("ids[%d]", i), "is option %d (%q), which must come after option %d: its conditions test that option's answer", o.ID, o.Label, c.OptionID)
			}
		}
		placed[id] = true
	}
	return nil
}

// czOptionConditions checks o's conditions against the options of its set
// (all of them, o's stored row included when it has one): each may test
// only an option before o, and a value slug of that option's.
func czOptionConditions(o *models.CzOption, set []models.CzOption, slugs map[int64][]string) error {
	earlier := map[int64]customizer.ConditionTarget{}
	for _, other := range set {
		if other.ID == o.ID {
			break // the set is in order: the rest come after o
		}
		earlier[other.ID] = customizer.ConditionTarget{Type: other.Type, Slugs: slugs[other.ID]}
	}
	return customizer.CheckConditions("conditions", o.Conditions, earlier)
}

// czTestedOptions are the ids of the options o's conditions test.
func czTestedOptions(o *models.CzOption) []int64 {
	ids := make([]int64, len(o.Conditions))
	for i, c := range o.Conditions {
		ids[i] = c.OptionID
	}
	return ids
}

// czConditionUsers are the options of set whose conditions satisfy match,
// worded for a 409: `"Colour" (12), "Size" (14)`.
func czConditionUsers(set []models.CzOption, match func(models.CustomizerCondition) bool) string {
	var out string
	for _, o := range set {
		for _, c := range o.Conditions {
			if match(c) {
				if out != "" {
					out += ", "
				}
				out += fmt.Sprintf("%q (%d)", o.Label, o.ID)
				break
			}
		}
	}
	return out
}

// czValuesAt prefixes the fields of value i of a bulk replace.
func czValuesAt(i int) string { return fmt.Sprintf("values[%d].", i) }

// czLoneValue prefixes the fields of the one value of a create or update.
func czLoneValue(int) string { return "" }

// czChoiceOption refuses values for an option that takes none.
func czChoiceOption(o *models.CzOption) error {
	if !customizer.ChoiceType(o.Type) {
		return apperr.InvalidField("id", "is a %s option: only select, swatch and image_choice options take values", o.Type)
	}
	return nil
}

// czSameAnswers reports whether options of types a and b take the same
// kind of answer, so that conditions testing one against a value still
// make sense for the other.
func czSameAnswers(a, b string) bool {
	return a == b || customizer.ChoiceType(a) && customizer.ChoiceType(b) || customizer.TextType(a) && customizer.TextType(b)
}

// czValueChanged reports whether a value's stored fields differ.
func czValueChanged(a, b models.CzOptionValue) bool {
	b.CreatedAt = a.CreatedAt
	return !reflect.DeepEqual(a, b)
}
