package customizer

import (
	"context"
	"fmt"
	"maps"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/uptrace/bun"

	"storeadmin/internal/base/apperr"
	"storeadmin/models"
)

// The bounds of an option set, its options and their values. Each is far
// above what a shopper can fill in one product page; they keep one set's
// preview and a bundle's import bounded.
const (
	MaxOptionsPerSet       = 100
	MaxValuesPerOption     = 200
	MaxConditionsPerOption = 20
	MaxConditionValues     = 50
	MaxFunctionsPerValue   = 20
	MaxTextRule            = 10000 // max_length, max_lines, chars_per_line
	MaxPatternLength       = 500
	MaxPricePerCharCents   = 100_000_000
	MaxPriceDeltaCents     = 100_000_000
	MaxOptionLabel         = 255
	MaxOptionSection       = 100
	MaxOptionHelpText      = 1000
	MaxConditionText       = 255
	MaxFunctionText        = 1000
	MaxFontFamily          = 100
	MaxUploadURL           = 2048
	maxSettingText         = 255
)

// The condition ops.
const (
	OpEquals    = "equals"
	OpNotEquals = "not_equals"
	OpIn        = "in"
	OpNotIn     = "not_in"
	OpFilled    = "filled"
	OpEmpty     = "empty"
)

var conditionOps = []string{OpEquals, OpNotEquals, OpIn, OpNotIn, OpFilled, OpEmpty}

// The properties a value's function sets.
const (
	PropertyText       = "text"
	PropertyColor      = "color"
	PropertyImage      = "image"
	PropertyVisibility = "visibility"
	PropertyFont       = "font"
)

var functionProperties = []string{PropertyText, PropertyColor, PropertyImage, PropertyVisibility, PropertyFont}

var (
	// optionSlug is a value slug, an element_key or a group_key, as the
	// migration's CHECKs spell them.
	optionSlug = regexp.MustCompile(`^[a-z0-9][a-z0-9_-]{0,63}$`)
	optionHex  = regexp.MustCompile(`^#[0-9a-f]{6}$`)
)

// ChoiceType reports whether options of type t take values (select,
// swatch, image_choice).
func ChoiceType(t string) bool {
	return t == models.CzOptionSelect || t == models.CzOptionSwatch || t == models.CzOptionImageChoice
}

// TextType reports whether options of type t take a typed answer that
// validation and price_per_char_cents apply to (text, textarea).
func TextType(t string) bool { return t == models.CzOptionText || t == models.CzOptionTextarea }

// CheckOption checks an option's own fields and normalises them in place:
// label, type, section, help_text, settings (the type's keys only),
// validation and price_per_char_cents (text types only). at prefixes the
// fields a failure names ("" for a lone option, "options[2]." in a
// bundle). Conditions need the other options of the set: CheckConditions.
func CheckOption(at string, o *models.CzOption) error {
	var err error
	if o.Label, err = optionText(at+"label", o.Label, MaxOptionLabel, true); err != nil {
		return err
	}
	if !slices.Contains(models.CzOptionTypes, o.Type) {
		return apperr.InvalidField(at+"type", "must be one of %s, not %q", strings.Join(models.CzOptionTypes, ", "), o.Type)
	}
	if o.Section, err = optionText(at+"section", o.Section, MaxOptionSection, false); err != nil {
		return err
	}
	if o.HelpText, err = optionText(at+"help_text", o.HelpText, MaxOptionHelpText, false); err != nil {
		return err
	}
	if o.Settings, err = checkOptionSettings(at+"settings", o.Type, o.Settings); err != nil {
		return err
	}
	if !TextType(o.Type) {
		if o.Validation != (models.CzTextValidation{}) {
			return apperr.InvalidField(at+"validation", "applies to text and textarea options only; send {} for a %s option", o.Type)
		}
		if o.PricePerCharCents != 0 {
			return apperr.InvalidField(at+"price_per_char_cents", "applies to text and textarea options only; send 0 for a %s option", o.Type)
		}
	} else if err := CheckTextValidation(at+"validation", o.Type, &o.Validation); err != nil {
		return err
	}
	if o.PricePerCharCents < 0 || o.PricePerCharCents > MaxPricePerCharCents {
		return apperr.InvalidField(at+"price_per_char_cents", "must be between 0 and %d cents", MaxPricePerCharCents)
	}
	if o.Conditions == nil {
		o.Conditions = []models.CustomizerCondition{}
	}
	return nil
}

// CheckTextValidation checks the validation of an option of type typ
// (text or textarea): each count 0 to MaxTextRule, a pattern that compiles
// as RE2 within MaxPatternLength characters, a known mode. A text option
// is one line: max_lines is 0 or 1 there.
func CheckTextValidation(at, typ string, v *models.CzTextValidation) error {
	for _, c := range []struct {
		field string
		n     int64
	}{{"max_length", v.MaxLength}, {"max_lines", v.MaxLines}, {"chars_per_line", v.CharsPerLine}} {
		if c.n < 0 || c.n > MaxTextRule {
			return apperr.InvalidField(at+"."+c.field, "must be between 0 and %d (0: no limit)", MaxTextRule)
		}
	}
	if typ == models.CzOptionText && v.MaxLines > 1 {
		return apperr.InvalidField(at+".max_lines", "must be 0 or 1: a text option is one line (use a textarea for more)")
	}
	if utf8.RuneCountInString(v.Pattern) > MaxPatternLength {
		return apperr.InvalidField(at+".pattern", "must be at most %d characters", MaxPatternLength)
	}
	if v.Pattern != "" {
		if _, err := compilePattern(v.Pattern); err != nil {
			return apperr.InvalidField(at+".pattern", "is not an RE2 regular expression: %v", err)
		}
	}
	if !slices.Contains(models.CzTextModes, v.Mode) {
		return apperr.InvalidField(at+".mode", "must be empty (any characters), letters, letters_digits, digits or upper, not %q", v.Mode)
	}
	return nil
}

// compilePattern compiles a validation pattern to match a whole answer.
// The pattern must compile on its own too: "a)(b" would pass once
// wrapped, and a storefront testing it as written would fail.
func compilePattern(p string) (*regexp.Regexp, error) {
	if _, err := regexp.Compile(p); err != nil {
		return nil, err
	}
	return regexp.Compile(`^(?:` + p + `)$`)
}

// settingKind is how one settings key is checked.
type settingKind int

const (
	settingText    settingKind = iota // a string of at most maxSettingText characters
	settingSlug                       // a group_key
	settingNumber                     // a finite number within ±models.MaxCzNumber
	settingShape                      // circle or square
	settingCount                      // a whole number 1 to 50
	settingColumns                    // a whole number 1 to 6
)

// optionSettings are the settings keys of each option type; what the
// README documents.
var optionSettings = map[string]map[string]settingKind{
	models.CzOptionText:        {"placeholder": settingText},
	models.CzOptionTextarea:    {"placeholder": settingText, "rows": settingCount},
	models.CzOptionSelect:      {"placeholder": settingText},
	models.CzOptionSwatch:      {"shape": settingShape},
	models.CzOptionImageChoice: {"columns": settingColumns},
	models.CzOptionArtwork:     {"group_key": settingSlug},
	models.CzOptionCheckbox:    {"label": settingText},
	models.CzOptionNumber:      {"min": settingNumber, "max": settingNumber, "step": settingNumber},
}

// checkOptionSettings checks the settings of an option of type typ: an
// object (null is {}) of the type's keys only, each of its kind; an
// artwork option needs its library group_key; a number's min is at most
// its max and its step positive. It answers them normalised (trimmed
// strings, numbers as float64).
func checkOptionSettings(at, typ string, v any) (map[string]any, error) {
	if v == nil {
		v = map[string]any{}
	}
	in, ok := v.(map[string]any)
	if !ok {
		return nil, apperr.InvalidField(at, "must be an object")
	}
	allowed := optionSettings[typ]
	out := make(map[string]any, len(in))
	for _, k := range slices.Sorted(maps.Keys(in)) {
		kind, ok := allowed[k]
		if !ok {
			return nil, apperr.InvalidField(at+"."+k, "is not a setting of a %s option (its settings: %s)", typ, settingNames(allowed))
		}
		val, err := checkSetting(at+"."+k, kind, in[k])
		if err != nil {
			return nil, err
		}
		out[k] = val
	}
	if typ == models.CzOptionArtwork && out["group_key"] == nil {
		return nil, apperr.InvalidField(at+".group_key", "is required: the group_key of the artwork libraries the shopper picks from")
	}
	if typ == models.CzOptionNumber {
		lo, hasLo := out["min"].(float64)
		hi, hasHi := out["max"].(float64)
		if hasLo && hasHi && lo > hi {
			return nil, apperr.InvalidField(at+".max", "must be at least min (%v)", lo)
		}
		if step, ok := out["step"].(float64); ok && step <= 0 {
			return nil, apperr.InvalidField(at+".step", "must be more than 0")
		}
	}
	return out, nil
}

func settingNames(m map[string]settingKind) string {
	return strings.Join(slices.Sorted(maps.Keys(m)), ", ")
}

// checkSetting checks one setting's value by its kind.
func checkSetting(field string, kind settingKind, v any) (any, error) {
	switch kind {
	case settingText:
		s, ok := v.(string)
		if !ok {
			return nil, apperr.InvalidField(field, "must be a string")
		}
		return optionText(field, s, maxSettingText, false)
	case settingSlug:
		s, ok := v.(string)
		if !ok || !optionSlug.MatchString(s) {
			return nil, apperr.InvalidField(field, "must be a group_key: lower-case letters, digits, - and _, 1 to 64, starting with a letter or digit")
		}
		return s, nil
	case settingShape:
		s, ok := v.(string)
		if !ok || (s != "circle" && s != "square") {
			return nil, apperr.InvalidField(field, "must be circle or square")
		}
		return s, nil
	}
	f, ok := models.CzNumber(v)
	if !ok || math.IsNaN(f) || math.IsInf(f, 0) {
		return nil, apperr.InvalidField(field, "must be a number")
	}
	switch kind {
	case settingCount, settingColumns:
		top := 50.0
		if kind == settingColumns {
			top = 6
		}
		if f != math.Trunc(f) || f < 1 || f > top {
			return nil, apperr.InvalidField(field, "must be a whole number from 1 to %v", top)
		}
		return int64(f), nil
	}
	if math.Abs(f) > models.MaxCzNumber {
		return nil, apperr.InvalidField(field, "must be between %d and %d", -int64(models.MaxCzNumber), int64(models.MaxCzNumber))
	}
	return f, nil
}

// optionText checks a free-text field: trimmed, at most max characters,
// no control characters but line breaks, present when required.
func optionText(field, v string, max int, required bool) (string, error) {
	v = strings.TrimSpace(v)
	if required && v == "" {
		return "", apperr.InvalidField(field, "must not be empty")
	}
	if utf8.RuneCountInString(v) > max {
		return "", apperr.InvalidField(field, "must be at most %d characters", max)
	}
	if strings.ContainsFunc(v, func(r rune) bool { return unicode.IsControl(r) && r != '\n' && r != '\t' }) {
		return "", apperr.InvalidField(field, "must not hold control characters")
	}
	return v, nil
}

// ConditionTarget is an option a condition may test: an earlier option of
// the same set, with its type and, for a choice option, its value slugs.
type ConditionTarget struct {
	Type  string
	Slugs []string
}

// CheckConditions checks an option's conditions against earlier, the
// options of its set that come before it (by id): only those may be
// tested, which makes a cycle impossible. at is the conditions' path
// ("conditions", "options[2].conditions"). It normalises them in place.
func CheckConditions(at string, conds []models.CustomizerCondition, earlier map[int64]ConditionTarget) error {
	if len(conds) > MaxConditionsPerOption {
		return apperr.InvalidField(at, "must hold at most %d conditions", MaxConditionsPerOption)
	}
	for i := range conds {
		if err := checkCondition(fmt.Sprintf("%s[%d]", at, i), &conds[i], earlier); err != nil {
			return err
		}
	}
	return nil
}

func checkCondition(at string, c *models.CustomizerCondition, earlier map[int64]ConditionTarget) error {
	if !slices.Contains(conditionOps, c.Op) {
		return apperr.InvalidField(at+".op", "must be one of %s, not %q", strings.Join(conditionOps, ", "), c.Op)
	}
	target, ok := earlier[c.OptionID]
	if !ok {
		return apperr.InvalidField(at+".option_id", "must be an earlier option of the same option set (a lower position), not %d: a condition tests an answer given before", c.OptionID)
	}
	single := c.Op == OpEquals || c.Op == OpNotEquals
	list := c.Op == OpIn || c.Op == OpNotIn
	if !single && c.Value != nil {
		return apperr.InvalidField(at+".value", "is only for equals and not_equals")
	}
	if !list && c.Values != nil {
		return apperr.InvalidField(at+".values", "is only for in and not_in")
	}
	if (single || list) && target.Type == models.CzOptionArtwork {
		return apperr.InvalidField(at+".op", "must be filled or empty for an artwork option (option %d)", c.OptionID)
	}
	switch {
	case single:
		if c.Value == nil {
			return apperr.InvalidField(at+".value", "is required with %s", c.Op)
		}
		v, err := conditionValue(at+".value", *c.Value, c.OptionID, target)
		if err != nil {
			return err
		}
		c.Value = &v
	case list:
		if len(c.Values) == 0 || len(c.Values) > MaxConditionValues {
			return apperr.InvalidField(at+".values", "must list 1 to %d values with %s", MaxConditionValues, c.Op)
		}
		for j, raw := range c.Values {
			v, err := conditionValue(fmt.Sprintf("%s.values[%d]", at, j), raw, c.OptionID, target)
			if err != nil {
				return err
			}
			c.Values[j] = v
		}
	}
	return nil
}

// conditionValue checks what a condition compares an answer with, by the
// tested option's type: a value slug of a choice option, true or false
// for a checkbox, a number for a number option, a text for a text option.
func conditionValue(field, v string, optionID int64, target ConditionTarget) (string, error) {
	switch {
	case ChoiceType(target.Type):
		if !slices.Contains(target.Slugs, v) {
			return "", apperr.InvalidField(field, "must be a value slug of option %d (%s), not %q", optionID, slugList(target.Slugs), v)
		}
	case target.Type == models.CzOptionCheckbox:
		// An unticked box is unanswered (README "Pricing and selections"),
		// so a comparison with false would never pass: only true is
		// compared with.
		if v == "false" {
			return "", apperr.InvalidField(field, "cannot be false for a checkbox option (option %d): an unticked box is unanswered; test it with empty, or not_equals true", optionID)
		}
		if v != "true" {
			return "", apperr.InvalidField(field, "must be true for a checkbox option (option %d)", optionID)
		}
	case target.Type == models.CzOptionNumber:
		f, err := strconv.ParseFloat(v, 64)
		if err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
			return "", apperr.InvalidField(field, "must be a number for a number option (option %d), not %q", optionID, v)
		}
		// Stored in the form a number answer is kept in (5.0 and 5e0 are
		// 5), so the text comparison of CzConditionPasses matches.
		v = models.CzNumberText(f)
	default:
		t, err := optionText(field, v, MaxConditionText, true)
		if err != nil {
			return "", err
		}
		v = t
	}
	return v, nil
}

func slugList(slugs []string) string {
	if len(slugs) == 0 {
		return "it has no values yet"
	}
	return "one of " + strings.Join(slugs, ", ")
}

// ConditionTests reports whether a condition tests the answer of option
// id against a value (equals, not_equals, in, not_in), which ties it to
// that option's type and value slugs.
func ConditionTests(c models.CustomizerCondition, id int64) bool {
	return c.OptionID == id && (c.Value != nil || c.Values != nil)
}

// ConditionNames reports whether a condition on option id names the value
// slug.
func ConditionNames(c models.CustomizerCondition, id int64, slug string) bool {
	return c.OptionID == id && ((c.Value != nil && *c.Value == slug) || slices.Contains(c.Values, slug))
}

// CheckOptionValue checks a value's own fields and normalises them in
// place: label, value (the slug), price_delta_cents, swatch_hex
// (lower-cased), thumbnail_url (its length; CheckOptionValueUploads checks
// it is an upload) and functions. at prefixes the fields a failure names
// ("" for a lone value, "values[3]." in a list).
func CheckOptionValue(at string, v *models.CzOptionValue) error {
	var err error
	if v.Label, err = optionText(at+"label", v.Label, MaxOptionLabel, true); err != nil {
		return err
	}
	if !optionSlug.MatchString(v.Value) {
		return apperr.InvalidField(at+"value", "must be a slug: lower-case letters, digits, - and _, 1 to 64, starting with a letter or digit, not %q", v.Value)
	}
	if v.PriceDeltaCents < -MaxPriceDeltaCents || v.PriceDeltaCents > MaxPriceDeltaCents {
		return apperr.InvalidField(at+"price_delta_cents", "must be between %d and %d cents", -MaxPriceDeltaCents, MaxPriceDeltaCents)
	}
	v.SwatchHex = strings.ToLower(strings.TrimSpace(v.SwatchHex))
	if v.SwatchHex != "" && !optionHex.MatchString(v.SwatchHex) {
		return apperr.InvalidField(at+"swatch_hex", "must be a colour as #rrggbb, or empty for none")
	}
	if v.ThumbnailURL, err = optionText(at+"thumbnail_url", v.ThumbnailURL, MaxUploadURL, false); err != nil {
		return err
	}
	if v.Functions == nil {
		v.Functions = []models.CustomizerFunction{}
	}
	return CheckFunctions(at+"functions", v.Functions)
}

// CheckFunctions checks a value's functions and normalises them in place:
// exactly one of element_key and group_key (a slug), a known property and
// a value for it: text at most MaxFunctionText characters, color #rrggbb
// (lower-cased), image the src of an upload (CheckOptionValueUploads),
// visibility visible or hidden, font a family name. Whether the keys exist
// in a design is the binding's check, where the design is known.
func CheckFunctions(at string, fns []models.CustomizerFunction) error {
	if len(fns) > MaxFunctionsPerValue {
		return apperr.InvalidField(at, "must hold at most %d functions", MaxFunctionsPerValue)
	}
	for i := range fns {
		if err := checkFunction(fmt.Sprintf("%s[%d]", at, i), &fns[i]); err != nil {
			return err
		}
	}
	return nil
}

func checkFunction(at string, f *models.CustomizerFunction) error {
	if (f.ElementKey == nil) == (f.GroupKey == nil) {
		return apperr.InvalidField(at+".element_key", "or group_key: exactly one must be given, the element or the group the function sets")
	}
	for field, key := range map[string]*string{"element_key": f.ElementKey, "group_key": f.GroupKey} {
		if key != nil && !optionSlug.MatchString(*key) {
			return apperr.InvalidField(at+"."+field, "must be a slug: lower-case letters, digits, - and _, 1 to 64, starting with a letter or digit")
		}
	}
	field := at + ".value"
	var err error
	switch f.Property {
	case PropertyText:
		f.Value, err = optionText(field, f.Value, MaxFunctionText, false)
	case PropertyColor:
		f.Value = strings.ToLower(strings.TrimSpace(f.Value))
		if !optionHex.MatchString(f.Value) {
			return apperr.InvalidField(field, "must be a colour as #rrggbb for the color property")
		}
	case PropertyImage:
		f.Value, err = optionText(field, f.Value, MaxUploadURL, true)
	case PropertyVisibility:
		if f.Value != "visible" && f.Value != "hidden" {
			return apperr.InvalidField(field, "must be visible or hidden for the visibility property")
		}
	case PropertyFont:
		f.Value, err = optionText(field, f.Value, MaxFontFamily, true)
	default:
		return apperr.InvalidField(at+".property", "must be one of %s, not %q", strings.Join(functionProperties, ", "), f.Property)
	}
	return err
}

// CheckOptionValueUploads checks, in one statement, that each value's
// thumbnail_url and image functions name images uploaded to the store;
// at(i) prefixes the fields of value i ("" for a lone value).
func CheckOptionValueUploads(ctx context.Context, db bun.IDB, storeID int64, values []models.CzOptionValue, at func(i int) string) error {
	type use struct{ field, src string }
	var uses []use
	for i, v := range values {
		if v.ThumbnailURL != "" {
			uses = append(uses, use{at(i) + "thumbnail_url", v.ThumbnailURL})
		}
		for j, f := range v.Functions {
			if f.Property == PropertyImage {
				uses = append(uses, use{fmt.Sprintf("%sfunctions[%d].value", at(i), j), f.Value})
			}
		}
	}
	if len(uses) == 0 {
		return nil
	}
	srcs := make([]string, len(uses))
	for i, u := range uses {
		srcs[i] = u.src
	}
	uploaded, err := models.MediaBySrc(ctx, db, storeID, srcs)
	if err != nil {
		return err
	}
	for _, u := range uses {
		if _, ok := uploaded[u.src]; !ok {
			return apperr.InvalidField(u.field, "names no image uploaded to this store (%q): upload it first (POST /store/uploads/request) and use the src it answers", u.src)
		}
	}
	return nil
}

// CheckOptionSet checks an option set's own fields and normalises them in
// place: its name. at prefixes the fields a failure names.
func CheckOptionSet(at string, s *models.CzOptionSet) error {
	var err error
	s.Name, err = optionText(at+"name", s.Name, MaxOptionLabel, true)
	return err
}
