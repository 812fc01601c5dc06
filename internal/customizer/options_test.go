package customizer

import (
	"reflect"
	"slices"
	"testing"

	"storeadmin/internal/base/apperr"
	"storeadmin/models"
)

// fieldOf is the field err names, or "ok" for none.
func fieldOf(err error) string {
	if err == nil {
		return "ok"
	}
	if apperr.CodeOf(err) != apperr.Invalid {
		return "not a 400: " + err.Error()
	}
	return apperr.FieldOf(err)
}

func TestCheckOption(t *testing.T) {
	o := models.CzOption{Label: " Age ", Type: models.CzOptionNumber, Settings: map[string]any{"min": int64(1), "max": 9.5}}
	if err := CheckOption("options[2].", &o); err != nil {
		t.Fatal(err)
	}
	if o.Label != "Age" || !reflect.DeepEqual(o.Settings, map[string]any{"min": 1.0, "max": 9.5}) || o.Conditions == nil {
		t.Fatalf("normalised %+v", o)
	}
	for name, c := range map[string]struct {
		o     models.CzOption
		field string
	}{
		"unknown type":         {models.CzOption{Label: "x", Type: "radio"}, "options[2].type"},
		"settings of another":  {models.CzOption{Label: "x", Type: models.CzOptionCheckbox, Settings: map[string]any{"rows": 2}}, "options[2].settings.rows"},
		"validation on select": {models.CzOption{Label: "x", Type: models.CzOptionSelect, Validation: models.CzTextValidation{Mode: "digits"}}, "options[2].validation"},
		"bad pattern":          {models.CzOption{Label: "x", Type: models.CzOptionText, Validation: models.CzTextValidation{Pattern: "a{2,1}"}}, "options[2].validation.pattern"},
		"artwork without key":  {models.CzOption{Label: "x", Type: models.CzOptionArtwork}, "options[2].settings.group_key"},
		"a pattern only whole": {models.CzOption{Label: "x", Type: models.CzOptionText, Validation: models.CzTextValidation{Pattern: "a)(b"}}, "options[2].validation.pattern"},
	} {
		if got := fieldOf(CheckOption("options[2].", &c.o)); got != c.field {
			t.Errorf("%s: %s, want %s", name, got, c.field)
		}
	}
}

func TestCheckConditions(t *testing.T) {
	earlier := map[int64]ConditionTarget{
		1: {Type: models.CzOptionSelect, Slugs: []string{"red", "blue"}},
		2: {Type: models.CzOptionCheckbox},
		3: {Type: models.CzOptionArtwork},
	}
	red := "red"
	conds := []models.CustomizerCondition{{Op: OpEquals, OptionID: 1, Value: &red}, {Op: OpIn, OptionID: 1, Values: []string{"blue"}}, {Op: OpFilled, OptionID: 3}}
	if err := CheckConditions("conditions", conds, earlier); err != nil {
		t.Fatal(err)
	}
	// A number option's values are kept in the form its answers are
	// (models.CzNumberText), so "5.0" and "1e3" match 5 and 1000.
	numbers := map[int64]ConditionTarget{5: {Type: models.CzOptionNumber}}
	five := "5.0"
	nums := []models.CustomizerCondition{{Op: OpEquals, OptionID: 5, Value: &five}, {Op: OpIn, OptionID: 5, Values: []string{"1e3", "0.50"}}}
	if err := CheckConditions("conditions", nums, numbers); err != nil {
		t.Fatal(err)
	}
	if *nums[0].Value != "5" || !slices.Equal(nums[1].Values, []string{"1000", "0.5"}) {
		t.Fatalf("number values kept as sent: %q %q", *nums[0].Value, nums[1].Values)
	}
	if !models.CzConditionPasses(nums[1], models.CzNumberText(1000), true) {
		t.Fatal("1e3 does not match the answer 1000")
	}
	yes, no := "yes", "false"
	for name, c := range map[string]struct {
		c     models.CustomizerCondition
		field string
	}{
		"a later option":     {models.CustomizerCondition{Op: OpFilled, OptionID: 4}, "conditions[0].option_id"},
		"an unknown slug":    {models.CustomizerCondition{Op: OpNotEquals, OptionID: 1, Value: &yes}, "conditions[0].value"},
		"a checkbox's yes":   {models.CustomizerCondition{Op: OpEquals, OptionID: 2, Value: &yes}, "conditions[0].value"},
		"a checkbox's false": {models.CustomizerCondition{Op: OpEquals, OptionID: 2, Value: &no}, "conditions[0].value"},
		"artwork tested":     {models.CustomizerCondition{Op: OpIn, OptionID: 3, Values: []string{"a"}}, "conditions[0].op"},
		"filled with value":  {models.CustomizerCondition{Op: OpFilled, OptionID: 2, Value: &yes}, "conditions[0].value"},
		"not_in, no values":  {models.CustomizerCondition{Op: OpNotIn, OptionID: 1}, "conditions[0].values"},
		"an op of no one's":  {models.CustomizerCondition{Op: "is", OptionID: 1}, "conditions[0].op"},
		"values with equals": {models.CustomizerCondition{Op: OpEquals, OptionID: 1, Value: &red, Values: []string{"red"}}, "conditions[0].values"},
	} {
		if got := fieldOf(CheckConditions("conditions", []models.CustomizerCondition{c.c}, earlier)); got != c.field {
			t.Errorf("%s: %s, want %s", name, got, c.field)
		}
	}
	if !ConditionNames(conds[1], 1, "blue") || ConditionNames(conds[1], 2, "blue") || !ConditionTests(conds[0], 1) || ConditionTests(conds[2], 3) {
		t.Fatal("ConditionNames / ConditionTests")
	}
}

func TestCheckOptionValue(t *testing.T) {
	key := "title"
	v := models.CzOptionValue{Label: " Red ", Value: "red", SwatchHex: "#FF00AA", Functions: []models.CustomizerFunction{{ElementKey: &key, Property: PropertyColor, Value: " #ABCDEF "}}}
	if err := CheckOptionValue("values[0].", &v); err != nil {
		t.Fatal(err)
	}
	if v.Label != "Red" || v.SwatchHex != "#ff00aa" || v.Functions[0].Value != "#abcdef" {
		t.Fatalf("normalised %+v", v)
	}
	empty := models.CzOptionValue{Label: "x", Value: "x"}
	if err := CheckOptionValue("", &empty); err != nil || empty.Functions == nil {
		t.Fatalf("functions must be stored as [], not null: %v %v", empty.Functions, err)
	}
	for name, c := range map[string]struct {
		v     models.CzOptionValue
		field string
	}{
		"a slug with a capital": {models.CzOptionValue{Label: "x", Value: "Red"}, "values[0].value"},
		"price beyond":          {models.CzOptionValue{Label: "x", Value: "x", PriceDeltaCents: -MaxPriceDeltaCents - 1}, "values[0].price_delta_cents"},
		"no target":             {models.CzOptionValue{Label: "x", Value: "x", Functions: []models.CustomizerFunction{{Property: PropertyText}}}, "values[0].functions[0].element_key"},
		"visibility as a bool":  {models.CzOptionValue{Label: "x", Value: "x", Functions: []models.CustomizerFunction{{GroupKey: &key, Property: PropertyVisibility, Value: "false"}}}, "values[0].functions[0].value"},
	} {
		if got := fieldOf(CheckOptionValue("values[0].", &c.v)); got != c.field {
			t.Errorf("%s: %s, want %s", name, got, c.field)
		}
	}
}
