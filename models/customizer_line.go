package models

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/uptrace/bun"

	"storeadmin/internal/base/apperr"
	"storeadmin/internal/base/pricing"
)

// A customised line (README "Product customizer / Pricing and selections"):
// a line asks with customization {binding_id?, selections: {"<option id>":
// answer}}; the answers are checked against the binding's option set when
// the line is added, kept on the line as CzSelections under the property
// CzPropertyKey, and the line's unit price is worked out from them here, the
// one rule draft orders, storefront carts and checkouts (and so orders)
// share.

// CzPropertyKey is the line property a customised line keeps its
// customisation under; a client may not send it as a property.
const CzPropertyKey = "_customization"

// The option types (README "Option sets, options and values").
const (
	CzOptionText        = "text"
	CzOptionTextarea    = "textarea"
	CzOptionSelect      = "select"
	CzOptionSwatch      = "swatch"
	CzOptionImageChoice = "image_choice"
	CzOptionArtwork     = "artwork"
	CzOptionCheckbox    = "checkbox"
	CzOptionNumber      = "number"
)

// CzOptionTypes are the option types, in the order the README lists them.
var CzOptionTypes = []string{CzOptionText, CzOptionTextarea, CzOptionSelect, CzOptionSwatch, CzOptionImageChoice, CzOptionArtwork, CzOptionCheckbox, CzOptionNumber}

// CzChoiceTypes are the option types answered by one of their values' slug.
var CzChoiceTypes = []string{CzOptionSelect, CzOptionSwatch, CzOptionImageChoice}

// CzTextModes are the modes of a text option's validation: which characters
// an answer may hold ("": any; czModeAllows says what each other allows).
var CzTextModes = []string{"", "letters", "letters_digits", "digits", "upper"}

// Bounds of a customised line's answers whatever their option says.
const (
	maxCzTextAnswer = 1_000
	maxCzSelections = 200
)

// MaxCzNumber bounds a number answer and a number option's settings
// (min, max, step) either side of 0.
const MaxCzNumber = 1e9

// CzLineAsk is how a line asks to be customised: the binding (left out:
// the one of the line's variant) and the answers by option id.
type CzLineAsk struct {
	BindingID  *int64         `json:"binding_id"`
	Selections map[string]any `json:"selections"`
	// kept are the selections of a line already customised (a cart's line
	// becoming a checkout's, a stored line repriced): checked again as its
	// answers.
	kept map[string]CzSelection
}

// CzLineCustomization is what a customised line carries: its binding, the
// template and option set it was checked against, and each answered
// option's selection by option id.
type CzLineCustomization struct {
	BindingID   int64                  `json:"binding_id"`
	TemplateID  int64                  `json:"template_id"`
	OptionSetID int64                  `json:"option_set_id"`
	Selections  map[string]CzSelection `json:"selections"`
}

// CzCustomizationOf reads the customisation a line's properties keep; nil
// for a line that is not customised.
func CzCustomizationOf(props map[string]any) *CzLineCustomization {
	raw, ok := props[CzPropertyKey]
	if !ok {
		return nil
	}
	if c, ok := raw.(*CzLineCustomization); ok {
		return c
	}
	b, err := json.Marshal(raw)
	c := new(CzLineCustomization)
	if err != nil || json.Unmarshal(b, c) != nil {
		return nil
	}
	return c
}

// Ask is the ask that customises a line again as c did.
func (c *CzLineCustomization) Ask() *CzLineAsk {
	id := c.BindingID
	return &CzLineAsk{BindingID: &id, kept: c.Selections}
}

// SplitLineProperties separates what a stored line's properties hold: the
// shopper's text properties, and the ask that customises it again (nil for a
// line that is not customised).
func SplitLineProperties(props map[string]any) (map[string]any, *CzLineAsk) {
	c := CzCustomizationOf(props)
	if c == nil {
		return props, nil
	}
	rest := make(map[string]any, len(props))
	for k, v := range props {
		if k != CzPropertyKey {
			rest[k] = v
		}
	}
	return rest, c.Ask()
}

// czBinding is everything a line of one binding is checked and priced
// against, read once per binding.
type czBinding struct {
	binding  CzProductBinding
	template CzTemplate
	tiers    []CzQuantityTier // by min_qty
	options  []CzOption       // by position
	values   map[int64][]CzOptionValue
	// groups maps a group_key of the template's design to its element keys.
	groups map[string][]string
}

// AllowsCustomization refuses a line asking to be customised while the
// platform offers no product customizer (serve --customizer=false): field
// names the line's customization. Lines customised before the switch (a
// kept ask: a cart's line becoming a checkout's) keep their customisation
// and price.
func (p Platform) AllowsCustomization(field string, ask *CzLineAsk) error {
	if p.CustomizerOff && ask.kept == nil {
		return apperr.Conflictf("%s: the platform offers no product customizer now (GET /store/customizer/status); add the product without customization", field)
	}
	return nil
}

// CzLines checks and prices customised lines of one store; it reads each
// product's bindings and each binding's template and option set once.
type CzLines struct {
	db        bun.IDB
	storeID   int64
	byProduct map[int64][]CzProductBinding
	bindings  map[int64]*czBinding
}

// NewCzLines starts checking customised lines of the store.
func NewCzLines(db bun.IDB, storeID int64) *CzLines {
	return &CzLines{db: db, storeID: storeID, byProduct: map[int64][]CzProductBinding{}, bindings: map[int64]*czBinding{}}
}

// CzLine is a customised line as checked: what it keeps and its price's
// parts.
type CzLine struct {
	Customization *CzLineCustomization
	// BaseCents is the unit price before the customisation's surcharges: the
	// quantity tier's, else the variant's.
	BaseCents int64
	// SurchargeCents is what the picked values, text, extra colours and
	// extra elements add to each unit (may be negative: a value's delta).
	SurchargeCents int64
}

// UnitPrice is the line's unit price when the base is charged baseCents (a
// running price test's arm changes the base only): never below 0, at most
// pricing.MaxCents.
func (l CzLine) UnitPrice(baseCents int64) int64 {
	return czClamp(baseCents + l.SurchargeCents)
}

// Customize checks ask for a line of quantity units of the variant v and
// prices it. field names the ask in errors (lines[2].customization): a
// broken rule is a 400 naming the option by label and id. A line already
// customised (a kept ask) the customizer no longer fits is a 409 instead:
// its client sent no field to fix, and removes the line.
func (r *CzLines) Customize(ctx context.Context, field string, v CatalogueVariant, quantity int64, ask *CzLineAsk) (CzLine, error) {
	line, err := r.customize(ctx, field, v, quantity, ask)
	if ask.kept != nil && apperr.CodeOf(err) == apperr.Invalid {
		return CzLine{}, apperr.Conflictf("the customisation of %s no longer fits its product's customizer (%s); remove the line", v.label(), err.Error())
	}
	return line, err
}

// customize is Customize, every refusal a 400 on field.
func (r *CzLines) customize(ctx context.Context, field string, v CatalogueVariant, quantity int64, ask *CzLineAsk) (CzLine, error) {
	b, err := r.bindingFor(ctx, field, v, ask.BindingID)
	if err != nil {
		return CzLine{}, err
	}
	answers := ask.Selections
	if ask.kept != nil {
		answers = b.answersOf(ask.kept)
	}
	sels, err := r.selections(ctx, b, field+".selections", answers, true)
	if err != nil {
		return CzLine{}, err
	}
	c := &CzLineCustomization{BindingID: b.binding.ID, TemplateID: b.template.ID, OptionSetID: b.binding.OptionSetID, Selections: sels}
	base, surcharge := b.price(v.PriceCents, quantity, sels)
	return CzLine{Customization: c, BaseCents: base, SurchargeCents: surcharge}, nil
}

// CheckBinding checks a binding about to be stored against its template
// and option set: every function of a value of the set must target an
// element_key or group_key of the template's design (a 400 on
// option_set_id naming the value and the key), and defaults (its
// default_selections) must name options of the set with answers valid for
// them (a 400 on default_selections.<option id>). Required options and
// conditions are not enforced on defaults: they are where the customiser
// starts, not an order. It answers the defaults to store, normalised ({}
// for none).
func (r *CzLines) CheckBinding(ctx context.Context, b *CzProductBinding, defaults map[string]any) (map[string]any, error) {
	cb, err := r.load(ctx, b)
	if err != nil {
		return nil, err
	}
	if err := cb.checkFunctions(); err != nil {
		return nil, apperr.InvalidField("option_set_id", "%v", err)
	}
	sels, err := r.selections(ctx, cb, "default_selections", defaults, false)
	if err != nil {
		return nil, err
	}
	// Stored as checked, not as sent: 3.0 is 3, text trimmed, nulls and
	// blank text (unanswered) dropped.
	return cb.answersOf(sels), nil
}

// checkFunctions reports the first function of a value of the option set
// that targets an element_key or group_key the template's design lacks,
// naming the set, the value and the key.
func (b *czBinding) checkFunctions() error {
	elements := map[string]bool{}
	for _, keys := range b.groups {
		for _, k := range keys {
			elements[k] = true
		}
	}
	for _, o := range b.options {
		for _, v := range b.values[o.ID] {
			for _, f := range v.Functions {
				switch {
				case f.ElementKey != nil && !elements[*f.ElementKey]:
					return fmt.Errorf("%d: value %q (%d) of option %q (%d) sets element_key %q, which design %d of template %d lacks",
						b.binding.OptionSetID, v.Value, v.ID, o.Label, o.ID, *f.ElementKey, b.template.DesignID, b.template.ID)
				case f.GroupKey != nil && len(b.groups[*f.GroupKey]) == 0:
					return fmt.Errorf("%d: value %q (%d) of option %q (%d) sets group_key %q, which design %d of template %d lacks",
						b.binding.OptionSetID, v.Value, v.ID, o.Label, o.ID, *f.GroupKey, b.template.DesignID, b.template.ID)
				}
			}
		}
	}
	return nil
}

// ProductBindings reads the bindings of the products at once (one
// statement), so checking lines of many products reads none again.
func (r *CzLines) ProductBindings(ctx context.Context, productIDs []int64) error {
	var missing []int64
	for _, id := range productIDs {
		if _, ok := r.byProduct[id]; !ok && !slices.Contains(missing, id) {
			missing = append(missing, id)
		}
	}
	if len(missing) == 0 {
		return nil
	}
	var bs []CzProductBinding
	if err := r.db.NewSelect().Model(&bs).Where("store_id = ? AND product_id IN (?)", r.storeID, bun.List(missing)).
		Order("option_name", "option_value", "id").Scan(ctx); err != nil {
		return err
	}
	for _, id := range missing {
		r.byProduct[id] = []CzProductBinding{}
	}
	for _, b := range bs {
		r.byProduct[b.ProductID] = append(r.byProduct[b.ProductID], b)
	}
	return nil
}

// CheckUncustomized refuses a line of v sent without customization when a
// binding covers v and its option set has a required option shown with no
// answers: a personalisable product is not bought bare (a 400 on field,
// the line's customization, naming the option). While the platform offers
// no customizer (p), such a product sells without it.
func (r *CzLines) CheckUncustomized(ctx context.Context, field string, v CatalogueVariant, p Platform) error {
	if p.CustomizerOff {
		return nil
	}
	b, err := r.bindingFor(ctx, field, v, nil)
	if apperr.CodeOf(err) == apperr.Invalid {
		return nil // no binding covers v: not personalisable
	}
	if err != nil {
		return err
	}
	for _, o := range b.options {
		if o.Required && czShown(o, nil) {
			return apperr.InvalidField(field, "is needed: %s is personalised (binding %d) and option %q (%d) is required",
				v.label(), b.binding.ID, o.Label, o.ID)
		}
	}
	return nil
}

// covers says whether b applies to v: an every-variant binding, or one
// whose option_name v has at option_value.
func (b CzProductBinding) covers(v CatalogueVariant) bool {
	return b.OptionName == "" || v.HasOption(b.OptionName, b.OptionValue)
}

// bindingFor finds the binding of a line of v: the one named (which must
// be of v's product and cover v, so a shopper cannot take another
// variant's tiers and options), else the product's binding whose
// option_name v has at option_value, else its every-variant binding.
func (r *CzLines) bindingFor(ctx context.Context, field string, v CatalogueVariant, bindingID *int64) (*czBinding, error) {
	bs, ok := r.byProduct[v.ProductID]
	if !ok {
		var err error
		if bs, err = ListCzBindings(ctx, r.db, r.storeID, v.ProductID); err != nil {
			return nil, err
		}
		r.byProduct[v.ProductID] = bs
	}
	if len(bs) == 0 {
		return nil, apperr.InvalidField(field, "is for a product that is not personalisable: product %d has no customizer binding", v.ProductID)
	}
	if bindingID != nil {
		i := slices.IndexFunc(bs, func(b CzProductBinding) bool { return b.ID == *bindingID })
		if i < 0 {
			return nil, apperr.InvalidField(field+".binding_id", "%d is not a binding of product %d", *bindingID, v.ProductID)
		}
		if !bs[i].covers(v) {
			return nil, apperr.InvalidField(field+".binding_id", "%d does not cover variant %d: it is the binding of %s = %q",
				*bindingID, v.ID, bs[i].OptionName, bs[i].OptionValue)
		}
		return r.load(ctx, &bs[i])
	}
	every := -1
	for i, b := range bs {
		if b.OptionName == "" {
			every = i
		} else if b.covers(v) {
			return r.load(ctx, &bs[i])
		}
	}
	if every < 0 {
		return nil, apperr.InvalidField(field, "is for variant %d, which no customizer binding of product %d covers", v.ID, v.ProductID)
	}
	return r.load(ctx, &bs[every])
}

// load reads what checking and pricing lines of b needs, once per binding.
func (r *CzLines) load(ctx context.Context, b *CzProductBinding) (*czBinding, error) {
	if cb, ok := r.bindings[b.ID]; ok && b.ID != 0 {
		return cb, nil
	}
	cb := &czBinding{binding: *b, values: map[int64][]CzOptionValue{}, groups: map[string][]string{}}
	err := r.db.NewSelect().Model(&cb.template).Where("store_id = ? AND id = ?", r.storeID, b.TemplateID).Scan(ctx)
	if err != nil {
		return nil, classify(err, "the template")
	}
	if err := r.db.NewSelect().Model(&cb.tiers).Where("store_id = ? AND template_id = ?", r.storeID, b.TemplateID).
		Order("min_qty").Scan(ctx); err != nil {
		return nil, err
	}
	if err := r.db.NewSelect().Model(&cb.options).Where("store_id = ? AND option_set_id = ?", r.storeID, b.OptionSetID).
		Order("position", "id").Scan(ctx); err != nil {
		return nil, err
	}
	var values []CzOptionValue
	if err := r.db.NewSelect().Model(&values).
		Where("store_id = ? AND option_id IN (SELECT id FROM cz_options WHERE store_id = ? AND option_set_id = ?)", r.storeID, r.storeID, b.OptionSetID).
		Order("option_id", "position", "id").Scan(ctx); err != nil {
		return nil, err
	}
	for _, v := range values {
		cb.values[v.OptionID] = append(cb.values[v.OptionID], v)
	}
	var elements []CzElement
	if err := r.db.NewSelect().Model(&elements).Column("element_key", "group_key").
		Where("store_id = ? AND design_id = ?", r.storeID, cb.template.DesignID).Order("z_index", "id").Scan(ctx); err != nil {
		return nil, err
	}
	for _, e := range elements {
		cb.groups[e.GroupKey] = append(cb.groups[e.GroupKey], e.ElementKey)
	}
	if b.ID != 0 {
		r.bindings[b.ID] = cb
	}
	return cb, nil
}

// answersOf turns kept selections back into the answers that made them.
func (b *czBinding) answersOf(kept map[string]CzSelection) map[string]any {
	out := make(map[string]any, len(kept))
	types := make(map[string]string, len(b.options))
	for _, o := range b.options {
		types[strconv.FormatInt(o.ID, 10)] = o.Type
	}
	for k, s := range kept {
		switch types[k] {
		case CzOptionCheckbox:
			out[k] = s.Picked
		case CzOptionNumber:
			f, err := strconv.ParseFloat(s.Raw, 64)
			if err != nil {
				out[k] = s.Raw // refused as not a number, naming the option
			} else {
				out[k] = f
			}
		case CzOptionArtwork:
			out[k] = float64(s.ValueID)
		default:
			out[k] = s.Raw
		}
	}
	return out
}

// selections checks answers against b's option set and answers the
// selections they make. enforce applies the required options and the
// conditions (a line's answers); without it only each answer's own validity
// is checked (a binding's defaults).
func (r *CzLines) selections(ctx context.Context, b *czBinding, field string, answers map[string]any, enforce bool) (map[string]CzSelection, error) {
	if len(answers) > maxCzSelections {
		return nil, apperr.InvalidField(field, "may answer at most %d options", maxCzSelections)
	}
	byKey := make(map[string]*CzOption, len(b.options))
	for i := range b.options {
		byKey[strconv.FormatInt(b.options[i].ID, 10)] = &b.options[i]
	}
	for k := range answers {
		if byKey[k] == nil {
			return nil, apperr.InvalidField(field+"."+k, "is not an option of option set %d (keys are option ids)", b.binding.OptionSetID)
		}
	}
	sels := make(map[string]CzSelection, len(answers))
	var artwork []int64
	for _, o := range b.options {
		key := strconv.FormatInt(o.ID, 10)
		answer, given := answers[key]
		if given && answer == nil {
			given = false
		}
		if given {
			s, err := b.selection(field+"."+key, &o, answer)
			if err != nil {
				return nil, err
			}
			if s == nil {
				given = false
			} else {
				sels[key] = *s
				if o.Type == CzOptionArtwork {
					artwork = append(artwork, s.ValueID)
				}
			}
		}
		if !enforce {
			continue
		}
		shown := czShown(o, sels)
		switch {
		case given && !shown:
			return nil, apperr.InvalidField(field+"."+key, "answers option %q (%d), which its conditions hide for these selections", o.Label, o.ID)
		case !given && shown && o.Required:
			return nil, apperr.InvalidField(field+"."+key, "is missing: option %q (%d) is required", o.Label, o.ID)
		case given && o.Type == CzOptionCheckbox && o.Required && !sels[key].Picked:
			return nil, apperr.InvalidField(field+"."+key, "must be true: option %q (%d) is required", o.Label, o.ID)
		}
	}
	if err := r.checkArtwork(ctx, b, field, artwork, byKey, sels); err != nil {
		return nil, err
	}
	return sels, nil
}

// selection checks one answer to o; nil for an answer that answers nothing
// (empty text).
func (b *czBinding) selection(field string, o *CzOption, answer any) (*CzSelection, error) {
	name := fmt.Sprintf("option %q (%d)", o.Label, o.ID)
	switch {
	case slices.Contains(CzChoiceTypes, o.Type):
		slug, ok := answer.(string)
		if !ok {
			return nil, apperr.InvalidField(field, "must be the slug of a value of %s", name)
		}
		i := slices.IndexFunc(b.values[o.ID], func(v CzOptionValue) bool { return v.Value == slug })
		if i < 0 {
			return nil, apperr.InvalidField(field, "%q is not a value of %s", slug, name)
		}
		return &CzSelection{Picked: true, Raw: slug, ValueID: b.values[o.ID][i].ID}, nil
	case o.Type == CzOptionText || o.Type == CzOptionTextarea:
		s, ok := answer.(string)
		if !ok {
			return nil, apperr.InvalidField(field, "must be text for %s", name)
		}
		// Normalised as conditions' text values are (trimmed), so a
		// condition compares like with like; blank text answers nothing (it
		// prints nothing, so it neither satisfies a required option nor is
		// charged), and a browser's \r\n line breaks are \n.
		s = strings.TrimSpace(strings.ReplaceAll(s, "\r\n", "\n"))
		if s == "" {
			return nil, nil
		}
		if err := CheckCzText(o.Type, o.Validation, s); err != nil {
			return nil, apperr.InvalidField(field, "for %s %s", name, err.Error())
		}
		return &CzSelection{Picked: true, Raw: s}, nil
	case o.Type == CzOptionCheckbox:
		t, ok := answer.(bool)
		if !ok {
			return nil, apperr.InvalidField(field, "must be true or false for %s", name)
		}
		return &CzSelection{Picked: t, Raw: strconv.FormatBool(t)}, nil
	case o.Type == CzOptionNumber:
		f, ok := CzNumber(answer)
		if !ok || math.IsNaN(f) || math.IsInf(f, 0) || math.Abs(f) > MaxCzNumber {
			return nil, apperr.InvalidField(field, "must be a number between %g and %g for %s", -MaxCzNumber, MaxCzNumber, name)
		}
		settings, _ := o.Settings.(map[string]any)
		if lo, ok := CzNumber(settings["min"]); ok && f < lo {
			return nil, apperr.InvalidField(field, "must be at least %g for %s", lo, name)
		}
		if hi, ok := CzNumber(settings["max"]); ok && f > hi {
			return nil, apperr.InvalidField(field, "must be at most %g for %s", hi, name)
		}
		if step, ok := CzNumber(settings["step"]); ok && step > 0 {
			lo, _ := CzNumber(settings["min"]) // steps count from min, else 0
			// Within a float tolerance, so 0.1 + 0.2 is a step of 0.1.
			if k := (f - lo) / step; math.Abs(k-math.Round(k)) > 1e-9*math.Max(1, math.Abs(k)) {
				return nil, apperr.InvalidField(field, "must be %g plus a whole number of steps of %g for %s", lo, step, name)
			}
		}
		return &CzSelection{Picked: true, Raw: CzNumberText(f)}, nil
	case o.Type == CzOptionArtwork:
		f, ok := CzNumber(answer)
		if !ok || f < 1 || f > math.MaxInt32*1e6 || f != math.Trunc(f) {
			return nil, apperr.InvalidField(field, "must be the id of an artwork library item for %s", name)
		}
		return &CzSelection{Picked: true, Raw: strconv.FormatInt(int64(f), 10), ValueID: int64(f)}, nil
	}
	return nil, apperr.InvalidField(field, "cannot be answered: %s has the type %q, which no answer fits", name, o.Type)
}

// checkArtwork refuses artwork answers that are not items of the store's
// libraries offered to the option and the binding: artwork libraries of
// the option's settings.group_key, of the binding's library_scope or
// unscoped.
func (r *CzLines) checkArtwork(ctx context.Context, b *czBinding, field string, ids []int64, byKey map[string]*CzOption, sels map[string]CzSelection) error {
	if len(ids) == 0 {
		return nil
	}
	var found []int64
	var groups []string
	err := r.db.NewSelect().TableExpr("cz_library_items AS i").Join("JOIN cz_libraries AS l ON l.store_id = i.store_id AND l.id = i.library_id").
		ColumnExpr("i.id, l.group_key").Where("i.store_id = ? AND i.id IN (?) AND l.kind = ? AND l.scope_value IN ('', ?)",
		r.storeID, bun.List(ids), CzOptionArtwork, b.binding.LibraryScope).
		Scan(ctx, &found, &groups)
	if err != nil {
		return err
	}
	for k, s := range sels {
		o := byKey[k]
		if o.Type != CzOptionArtwork {
			continue
		}
		settings, _ := o.Settings.(map[string]any)
		group, _ := settings["group_key"].(string)
		if i := slices.Index(found, s.ValueID); i < 0 || groups[i] != group {
			return apperr.InvalidField(field+"."+k, "for option %q (%d): %d is not an artwork item offered to this binding (artwork libraries of group_key %q, library_scope %q)",
				o.Label, o.ID, s.ValueID, group, b.binding.LibraryScope)
		}
	}
	return nil
}

// CheckCzText checks a text answer of an option of type kind (text: one
// line; textarea: lines) against its validation; the error says what is
// wrong, to follow the option's name.
func CheckCzText(kind string, v CzTextValidation, s string) error {
	if !utf8.ValidString(s) {
		return fmt.Errorf("must be UTF-8 text")
	}
	if kind == CzOptionText && strings.ContainsAny(s, "\r\n") {
		return fmt.Errorf("must be one line")
	}
	if strings.ContainsFunc(s, func(r rune) bool { return r != '\n' && unicode.IsControl(r) }) {
		return fmt.Errorf("must not hold control characters")
	}
	n := utf8.RuneCountInString(s)
	if n > maxCzTextAnswer || (v.MaxLength > 0 && int64(n) > v.MaxLength) {
		return fmt.Errorf("must be at most %d characters, not %d", czLimit(v.MaxLength, maxCzTextAnswer), n)
	}
	lines := strings.Split(s, "\n")
	if v.MaxLines > 0 && int64(len(lines)) > v.MaxLines {
		return fmt.Errorf("must be at most %d lines, not %d", v.MaxLines, len(lines))
	}
	for i, l := range lines {
		if c := utf8.RuneCountInString(l); v.CharsPerLine > 0 && int64(c) > v.CharsPerLine {
			return fmt.Errorf("line %d must be at most %d characters, not %d", i+1, v.CharsPerLine, c)
		}
	}
	if ok, shape := czModeAllows(v.Mode, s); !ok {
		return fmt.Errorf("must hold only %s", shape)
	}
	if v.Pattern != "" {
		re, err := regexp.Compile(`^(?:` + v.Pattern + `)$`)
		if err != nil {
			return fmt.Errorf("cannot be checked: the option's pattern is not a regular expression")
		}
		if !re.MatchString(s) {
			return fmt.Errorf("must match the pattern %s", v.Pattern)
		}
	}
	return nil
}

func czLimit(limit int64, hard int) int64 {
	if limit > 0 && limit < int64(hard) {
		return limit
	}
	return int64(hard)
}

// czModeAllows says whether s keeps to mode (CzTextModes), and what the mode
// allows. Line breaks are allowed in every mode (a textarea's lines), spaces
// with letters.
func czModeAllows(mode, s string) (bool, string) {
	var ok func(rune) bool
	var shape string
	switch mode {
	case "letters":
		ok, shape = func(r rune) bool { return unicode.IsLetter(r) || r == ' ' }, "letters and spaces"
	case "letters_digits":
		ok, shape = func(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) || r == ' ' }, "letters, digits and spaces"
	case "digits":
		ok, shape = func(r rune) bool { return r >= '0' && r <= '9' }, "the digits 0 to 9"
	case "upper":
		ok, shape = func(r rune) bool { return !unicode.IsLower(r) }, "text without lower-case letters"
	default:
		return true, ""
	}
	for _, r := range s {
		if r != '\n' && !ok(r) {
			return false, shape
		}
	}
	return true, shape
}

// czShown says whether o is shown for the selections of the options before
// it: every condition passes. A condition's option that is unanswered or
// hidden has no answer (empty).
func czShown(o CzOption, sels map[string]CzSelection) bool {
	for _, c := range o.Conditions {
		s, filled := sels[strconv.FormatInt(c.OptionID, 10)]
		if filled && !s.Picked && s.ValueID == 0 && s.Raw == "false" {
			filled = false // an unticked box is not filled
		}
		answer := ""
		if filled {
			answer = s.Raw
		}
		if !CzConditionPasses(c, answer, filled) {
			return false
		}
	}
	return true
}

// CzNumberText is the one text form of a number answer, kept in its
// selection and in conditions that compare with it.
func CzNumberText(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }

// CzConditionPasses says whether condition c passes for the answer of its
// option (the value's slug, the text, true/false, the number); filled says
// whether there is one.
func CzConditionPasses(c CustomizerCondition, answer string, filled bool) bool {
	value := ""
	if c.Value != nil {
		value = *c.Value
	}
	switch c.Op {
	case "equals":
		return filled && answer == value
	case "not_equals":
		return !filled || answer != value
	case "in":
		return filled && slices.Contains(c.Values, answer)
	case "not_in":
		return !filled || !slices.Contains(c.Values, answer)
	case "filled":
		return filled
	case "empty":
		return !filled
	}
	return false
}

// price is the line's unit price before a price test: its base (the
// highest tier with min_qty <= quantity, else the variant's price) and the
// surcharge of its selections: picked values' deltas, each character of
// text answers at its option's price_per_char_cents, and each colour and
// element beyond the template's included ones.
func (b *czBinding) price(variantPriceCents, quantity int64, sels map[string]CzSelection) (base, surcharge int64) {
	base = variantPriceCents
	for _, t := range b.tiers {
		if t.MinQty <= quantity {
			base = t.PriceCents
		}
	}
	colours, elements := map[string]bool{}, map[string]bool{}
	for _, o := range b.options {
		s, ok := sels[strconv.FormatInt(o.ID, 10)]
		if !ok {
			continue
		}
		if o.Type == CzOptionText || o.Type == CzOptionTextarea {
			chars := int64(utf8.RuneCountInString(strings.ReplaceAll(s.Raw, "\n", "")))
			surcharge = czAdd(surcharge, czMul(chars, o.PricePerCharCents))
			continue
		}
		if s.ValueID == 0 || o.Type == CzOptionArtwork {
			continue
		}
		i := slices.IndexFunc(b.values[o.ID], func(v CzOptionValue) bool { return v.ID == s.ValueID })
		if i < 0 {
			continue
		}
		v := b.values[o.ID][i]
		surcharge = czAdd(surcharge, v.PriceDeltaCents)
		for _, f := range v.Functions {
			b.countFunction(f, colours, elements)
		}
	}
	extraColours := max(0, int64(len(colours))-b.template.IncludedColors)
	extraElements := max(0, int64(len(elements))-b.template.IncludedElements)
	surcharge = czAdd(surcharge, czMul(extraColours, b.template.PricePerExtraColorCents))
	surcharge = czAdd(surcharge, czMul(extraElements, b.template.PricePerExtraElementCents))
	return base, surcharge
}

// countFunction adds what a picked value's function brings to a line: the
// colour it sets (a colour), the elements it fills with text or an image or
// makes visible (elements; a group counts each of its elements).
func (b *czBinding) countFunction(f CustomizerFunction, colours, elements map[string]bool) {
	var targets []string
	switch {
	case f.ElementKey != nil:
		targets = []string{*f.ElementKey}
	case f.GroupKey != nil:
		targets = b.groups[*f.GroupKey]
	}
	// Functions are stored as customizer.CheckFunctions spells them: the
	// property in lower case, a colour as #rrggbb, visibility visible or
	// hidden.
	switch f.Property {
	case "color":
		colours[f.Value] = true
	case "text", "image":
		for _, t := range targets {
			elements[t] = true
		}
	case "visibility":
		if f.Value == "visible" {
			for _, t := range targets {
				elements[t] = true
			}
		}
	}
}

// czAdd and czMul keep a customised line's money within ±pricing.MaxCents.
func czAdd(a, b int64) int64 { return czClampSigned(a + b) }

func czMul(n, cents int64) int64 {
	if n == 0 || cents == 0 {
		return 0
	}
	if n > pricing.MaxCents/max(cents, -cents) {
		if cents < 0 {
			return -pricing.MaxCents
		}
		return pricing.MaxCents
	}
	return n * cents
}

func czClampSigned(v int64) int64 { return max(-pricing.MaxCents, min(v, pricing.MaxCents)) }

// czClamp is a unit price: never below 0, at most pricing.MaxCents.
func czClamp(v int64) int64 { return max(0, min(v, pricing.MaxCents)) }

// withCustomization is props with c kept under CzPropertyKey (a copy: the
// ask's map is not changed).
func withCustomization(props map[string]any, c *CzLineCustomization) map[string]any {
	out := make(map[string]any, len(props)+1)
	for k, v := range props {
		out[k] = v
	}
	out[CzPropertyKey] = c
	return out
}

// LineProperties is what an order's line keeps of a draft's or checkout's
// line's properties (a customised line's selections among them): nil for
// none, as the order's lines store no properties then.
func LineProperties(props map[string]any) any {
	if len(props) == 0 {
		return nil
	}
	return props
}

// CzNumber reads a JSON number however it was decoded (json.Number from
// a REST body, float64 from GraphQL or jsonb, an int from Go): the one
// reader for option settings and answers.
func CzNumber(v any) (float64, bool) {
	switch n := v.(type) {
	case float64:
		return n, true
	case int64:
		return float64(n), true
	case int:
		return float64(n), true
	case json.Number:
		f, err := n.Float64()
		return f, err == nil
	}
	return 0, false
}
