package customizer

import (
	"encoding/json"
	"math"
	"regexp"
	"slices"
	"strings"

	"storeadmin/internal/base/apperr"
	"storeadmin/models"
)

// MaxElementsPerDesign caps a design's elements: a design is a print
// layout a shopper personalises, not a scene; the studio and the render
// handle every element at once.
const MaxElementsPerDesign = 200

// The bounds of an element's geometry, in the design's pixels (a design is
// at most 20000 pixels a side; an element may reach beyond its canvas).
const (
	MaxElementCoordinate = 100_000
	MaxElementSize       = 100_000
)

// The element types (README "Product customizer / Designs and elements").
const (
	ElementText    = "text"
	ElementImage   = "image"
	ElementArtwork = "artwork"
	ElementShape   = "shape"
)

// ElementTypes are the types an element may have.
var ElementTypes = []string{ElementText, ElementImage, ElementArtwork, ElementShape}

// keyPattern is an element_key, a group_key or a library's group_key: the
// tables' own check.
var keyPattern = regexp.MustCompile(`^[a-z0-9][a-z0-9_-]{0,63}$`)

// keyShape says what keyPattern accepts, for people.
const keyShape = "1 to 64 lower-case letters, digits, - and _, starting with a letter or digit"

// CheckKey checks a key (an element_key, a library's group_key) at field.
func CheckKey(field, v string) error {
	if !keyPattern.MatchString(v) {
		return apperr.InvalidField(field, "must be %s, not %q", keyShape, v)
	}
	return nil
}

// Uploads finds the store's uploaded image with src: whoever checks an
// element or a library item says where the store's uploads are (the API
// reads them in its transaction, an import from what it uploaded).
type Uploads func(src string) (models.Media, bool)

// CheckElement checks an element as it is to be stored (its key, group,
// type, geometry and settings) and normalises its settings: every setting
// of its type present, defaults filled in, colours lower-case. Failures
// name the field (settings.font_size). It is the one check of an element,
// for the API and a template bundle's import alike; the element's design
// and its key's uniqueness are the caller's.
func CheckElement(el *models.CzElement, uploads Uploads) error {
	if err := CheckKey("element_key", el.ElementKey); err != nil {
		return err
	}
	if el.GroupKey != "" {
		if err := CheckKey("group_key", el.GroupKey); err != nil {
			return err
		}
	}
	schema, ok := elementSettings[el.Type]
	if !ok {
		return apperr.InvalidField("type", "must be one of %s, not %q", strings.Join(ElementTypes, ", "), el.Type)
	}
	if err := checkGeometry(el); err != nil {
		return err
	}
	settings, err := schema.check(el.Settings, uploads)
	if err != nil {
		return err
	}
	el.Settings = settings
	return nil
}

// checkGeometry checks an element's position, size and rotation.
func checkGeometry(el *models.CzElement) error {
	for _, c := range []struct {
		field string
		v     float64
	}{{"x", el.X}, {"y", el.Y}} {
		if !finite(c.v) || math.Abs(c.v) > MaxElementCoordinate {
			return apperr.InvalidField(c.field, "must be between -%d and %d", MaxElementCoordinate, MaxElementCoordinate)
		}
	}
	for _, c := range []struct {
		field string
		v     float64
	}{{"w", el.W}, {"h", el.H}} {
		if !finite(c.v) || c.v < models.MinCzSizePx || c.v > MaxElementSize {
			return apperr.InvalidField(c.field, "must be at least %d and at most %d pixels", models.MinCzSizePx, MaxElementSize)
		}
	}
	if !finite(el.RotationDeg) || el.RotationDeg <= -360 || el.RotationDeg >= 360 {
		return apperr.InvalidField("rotation_deg", "must be above -360 and below 360 degrees")
	}
	return nil
}

func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

// The settings of each element type. A setting left out takes its
// default; a setting the type lacks is refused by name.
var elementSettings = map[string]settingsSchema{
	ElementText: {
		{"text", stringSetting(1000, true, "")},
		{"font_family", stringSetting(100, false, "Helvetica")},
		{"font_size", numberSetting(1, 2000, 24)},
		{"color", colorSetting(false, "#000000")},
		{"align", enumSetting("center", "left", "center", "right")},
		{"curve", numberSetting(-360, 360, 0)},
	},
	ElementImage: {
		{"src", uploadSetting()},
		{"fit", enumSetting("contain", imageFits...)},
	},
	ElementArtwork: {
		{"library_group_key", keySetting()},
		{"fit", enumSetting("contain", imageFits...)},
	},
	ElementShape: {
		{"shape", enumSetting("rect", "rect", "ellipse")},
		{"fill", colorSetting(true, "#cccccc")},
		{"stroke", colorSetting(true, "")},
		{"stroke_width", numberSetting(0, 1000, 0)},
	},
}

// imageFits are how an image or artwork fills its element's box.
var imageFits = []string{"contain", "cover", "fill"}

// ElementSettingNames are the settings of an element type, in the order
// README documents them (nil for an unknown type).
func ElementSettingNames(typ string) []string {
	var out []string
	for _, s := range elementSettings[typ] {
		out = append(out, s.name)
	}
	return out
}

// settingsSchema is the settings of one element type (or the keys of one
// library kind's value), in order.
type settingsSchema []setting

// setting is one key of a settings object and its check.
type setting struct {
	name  string
	check settingCheck
}

// settingCheck checks one setting at field: present is false when the key
// was left out, and the answer is then its default (absent: left out of
// the stored object).
type settingCheck func(field string, v any, present bool, uploads Uploads) (out any, keep bool, err error)

// check checks a settings object (nil: every default) under at.
func (s settingsSchema) check(v any, uploads Uploads) (map[string]any, error) {
	return s.checkAt("settings", v, uploads)
}

// checkAt checks the object v at field at: every key known, each valid.
func (s settingsSchema) checkAt(at string, v any, uploads Uploads) (map[string]any, error) {
	in := map[string]any{}
	if v != nil {
		m, ok := v.(map[string]any)
		if !ok {
			return nil, apperr.InvalidField(at, "must be an object")
		}
		in = m
	}
	names := make([]string, len(s))
	for i, st := range s {
		names[i] = st.name
	}
	keys := make([]string, 0, len(in))
	for k := range in {
		keys = append(keys, k)
	}
	slices.Sort(keys) // the first of several unknown keys is always the same one
	for _, k := range keys {
		if !slices.Contains(names, k) {
			return nil, apperr.InvalidField(at+"."+k, "is not a setting of this type (it takes %s)", strings.Join(names, ", "))
		}
	}
	out := make(map[string]any, len(s))
	for _, st := range s {
		v, present := in[st.name]
		val, keep, err := st.check(at+"."+st.name, v, present, uploads)
		if err != nil {
			return nil, err
		}
		if keep {
			out[st.name] = val
		}
	}
	return out, nil
}

// stringSetting is text of at most maxRunes characters (multiline allows
// line breaks), def when left out.
func stringSetting(maxRunes int, multiline bool, def string) settingCheck {
	return func(field string, v any, present bool, _ Uploads) (any, bool, error) {
		if !present {
			return def, true, nil
		}
		s, err := textValue(field, v, maxRunes, multiline)
		return s, true, err
	}
}

// textValue checks a JSON string of at most maxRunes characters, without
// control characters (but line breaks when multiline).
func textValue(field string, v any, maxRunes int, multiline bool) (string, error) {
	s, ok := v.(string)
	if !ok {
		return "", apperr.InvalidField(field, "must be a string")
	}
	if n := len([]rune(s)); n > maxRunes {
		return "", apperr.InvalidField(field, "must be at most %d characters", maxRunes)
	}
	for _, r := range s {
		if r < 0x20 && !(multiline && r == '\n') || r == 0x7f {
			return "", apperr.InvalidField(field, "must not hold control characters")
		}
	}
	return s, nil
}

// numberSetting is a finite number from min to max, def when left out.
func numberSetting(min, max, def float64) settingCheck {
	return func(field string, v any, present bool, _ Uploads) (any, bool, error) {
		if !present {
			return def, true, nil
		}
		n, err := numberValue(field, v, min, max)
		return n, true, err
	}
}

// numberValue checks a finite JSON number from min to max.
func numberValue(field string, v any, min, max float64) (float64, error) {
	n, ok := jsonFloat(v)
	if !ok || !finite(n) || n < min || n > max {
		return 0, apperr.InvalidField(field, "must be a number from %g to %g", min, max)
	}
	return n, nil
}

// jsonFloat reads a decoded JSON number: a float64 (encoding/json), a
// json.Number (a REST body, bun's jsonb) or a whole number (gqlgen's
// literals).
func jsonFloat(v any) (float64, bool) {
	switch n := v.(type) {
	case float64:
		return n, true
	case json.Number:
		f, err := n.Float64()
		return f, err == nil
	case int64:
		return float64(n), true
	case int:
		return float64(n), true
	}
	return 0, false
}

// hexPattern is a colour: #rrggbb, either case.
var hexPattern = regexp.MustCompile(`^#[0-9a-fA-F]{6}$`)

// colorSetting is a colour #rrggbb (stored lower-case), or empty for none
// when optional; def when left out.
func colorSetting(optional bool, def string) settingCheck {
	return func(field string, v any, present bool, _ Uploads) (any, bool, error) {
		if !present {
			return def, true, nil
		}
		s, err := colorValue(field, v, optional)
		return s, true, err
	}
}

// colorValue checks a colour #rrggbb (answered lower-case); empty is none
// when optional.
func colorValue(field string, v any, optional bool) (string, error) {
	s, ok := v.(string)
	if ok && (hexPattern.MatchString(s) || optional && s == "") {
		return strings.ToLower(s), nil
	}
	if optional {
		return "", apperr.InvalidField(field, "must be a colour #rrggbb, or empty for none")
	}
	return "", apperr.InvalidField(field, "must be a colour #rrggbb")
}

// enumSetting is one of allowed, def when left out.
func enumSetting(def string, allowed ...string) settingCheck {
	return func(field string, v any, present bool, _ Uploads) (any, bool, error) {
		if !present {
			return def, true, nil
		}
		if s, ok := v.(string); ok && slices.Contains(allowed, s) {
			return s, true, nil
		}
		return nil, false, apperr.InvalidField(field, "must be one of %s", strings.Join(allowed, ", "))
	}
}

// keySetting is a library catalogue's group_key, required.
func keySetting() settingCheck {
	return func(field string, v any, present bool, _ Uploads) (any, bool, error) {
		s, ok := v.(string)
		if !present || !ok || !keyPattern.MatchString(s) {
			return nil, false, apperr.InvalidField(field, "must be the group_key of a library catalogue: %s", keyShape)
		}
		return s, true, nil
	}
}

// uploadSetting is the src of an image uploaded to the store, or empty
// (the default) for an image the shopper or an option value supplies.
func uploadSetting() settingCheck {
	return func(field string, v any, present bool, uploads Uploads) (any, bool, error) {
		if !present || v == "" {
			return "", true, nil
		}
		m, err := uploadValue(field, v, uploads)
		return m.Src, true, err
	}
}

// uploadValue checks that v is the src of an image uploaded to the store
// and answers that upload.
func uploadValue(field string, v any, uploads Uploads) (models.Media, error) {
	s, ok := v.(string)
	if !ok {
		return models.Media{}, apperr.InvalidField(field, "must be the src of an image uploaded to this store")
	}
	m, ok := uploads(s)
	if !ok {
		return models.Media{}, apperr.InvalidField(field, "names no image uploaded to this store (%q): upload it first (POST /store/uploads/request) and use the src it answers", s)
	}
	return m, nil
}
