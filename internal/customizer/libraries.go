package customizer

import (
	"strings"

	"storeadmin/internal/base/apperr"
)

// MaxItemsPerLibrary caps a library's items: a shopper picks from them in
// one list.
const MaxItemsPerLibrary = 1000

// MaxLibraryScope bounds a library's scope_value and a binding's
// library_scope, in characters: one bound, since a binding's scope picks
// the libraries whose scope_value is it.
const MaxLibraryScope = 255

// The library kinds (README "Product customizer / Artwork libraries").
const (
	LibraryArtwork = "artwork"
	LibraryFinish  = "finish"
	LibraryHole    = "hole"
)

// LibraryKinds are the kinds a library may have.
var LibraryKinds = []string{LibraryArtwork, LibraryFinish, LibraryHole}

// A hole's position and size, in millimetres from the product's top-left
// corner (a template's ppi turns them into the print file's pixels).
const (
	MaxHoleOffsetMM   = 10_000
	MaxHoleDiameterMM = 1_000
)

// maxItemName bounds an item's name, in characters.
const maxItemName = 255

// libraryValues are the keys of each kind's item value.
var libraryValues = map[string]settingsSchema{
	LibraryArtwork: {
		{"src", requiredUpload()},
		// The upload's size: what a client sends is replaced by it.
		{"width", ignored()},
		{"height", ignored()},
		{"name", optionalText(maxItemName)},
	},
	LibraryFinish: {
		{"name", requiredText(maxItemName)},
		{"hex", optionalColor()},
		{"src", optionalUpload()},
	},
	LibraryHole: {
		{"x", requiredNumber(0, MaxHoleOffsetMM)},
		{"y", requiredNumber(0, MaxHoleOffsetMM)},
		{"diameter", requiredPositive(MaxHoleDiameterMM)},
	},
}

// CheckLibraryKind checks a library's kind.
func CheckLibraryKind(kind string) error {
	if _, ok := libraryValues[kind]; !ok {
		return apperr.InvalidField("kind", "must be one of %s, not %q", strings.Join(LibraryKinds, ", "), kind)
	}
	return nil
}

// CheckLibraryScope checks a library's scope_value or a binding's
// library_scope (field names which): one line of text without control
// characters, at most MaxLibraryScope characters; empty for none. The one
// check for both, so every scope a library can hold a binding can name.
func CheckLibraryScope(field, v string) error {
	_, err := textValue(field, v, MaxLibraryScope, false)
	return err
}

// CheckLibraryItem checks the value of an item of a library of kind and
// answers it as stored: only its kind's keys, an artwork's width and
// height those of its upload, a finish's hex lower-case. Failures name the
// field (value.src). It is the one check of an item, for the API and a
// template bundle's import alike.
func CheckLibraryItem(kind string, value any, uploads Uploads) (map[string]any, error) {
	schema, ok := libraryValues[kind]
	if !ok {
		return nil, apperr.InvalidField("kind", "must be one of %s, not %q", strings.Join(LibraryKinds, ", "), kind)
	}
	if value == nil {
		return nil, apperr.InvalidField("value", "is required: an object (README \"Artwork libraries\" gives each kind's)")
	}
	out, err := schema.checkAt("value", value, uploads)
	if err != nil {
		return nil, err
	}
	switch kind {
	case LibraryArtwork:
		m, _ := uploads(out["src"].(string))
		out["width"], out["height"] = m.Width, m.Height
	case LibraryFinish:
		if out["hex"] != nil && out["src"] != nil {
			return nil, apperr.InvalidField("value.src", "cannot go with value.hex: a finish is a colour or a texture image, not both")
		}
	}
	return out, nil
}

// requiredUpload is the src of an image uploaded to the store.
func requiredUpload() settingCheck {
	return func(field string, v any, present bool, uploads Uploads) (any, bool, error) {
		if !present {
			return nil, false, apperr.InvalidField(field, "is required: the src of an image uploaded to this store")
		}
		m, err := uploadValue(field, v, uploads)
		return m.Src, err == nil, err
	}
}

// optionalUpload is the src of an image uploaded to the store, or left
// out.
func optionalUpload() settingCheck {
	return func(field string, v any, present bool, uploads Uploads) (any, bool, error) {
		if !present {
			return nil, false, nil
		}
		m, err := uploadValue(field, v, uploads)
		return m.Src, err == nil, err
	}
}

// ignored is a key a client may send back as it read it, whose value the
// service sets.
func ignored() settingCheck {
	return func(string, any, bool, Uploads) (any, bool, error) { return nil, false, nil }
}

// requiredText is a non-empty single line of at most maxRunes characters.
func requiredText(maxRunes int) settingCheck {
	return func(field string, v any, present bool, _ Uploads) (any, bool, error) {
		if !present {
			return nil, false, apperr.InvalidField(field, "is required")
		}
		s, err := textValue(field, v, maxRunes, false)
		if err == nil && strings.TrimSpace(s) == "" {
			err = apperr.InvalidField(field, "must not be empty")
		}
		return strings.TrimSpace(s), err == nil, err
	}
}

// optionalText is a single line of at most maxRunes characters, or left
// out (empty: left out).
func optionalText(maxRunes int) settingCheck {
	return func(field string, v any, present bool, _ Uploads) (any, bool, error) {
		if !present {
			return nil, false, nil
		}
		s, err := textValue(field, v, maxRunes, false)
		s = strings.TrimSpace(s)
		return s, err == nil && s != "", err
	}
}

// optionalColor is a colour #rrggbb (stored lower-case), or left out.
func optionalColor() settingCheck {
	return func(field string, v any, present bool, _ Uploads) (any, bool, error) {
		if !present {
			return nil, false, nil
		}
		s, err := colorValue(field, v, false)
		return s, err == nil, err
	}
}

// requiredNumber is a finite number from min to max.
func requiredNumber(min, max float64) settingCheck {
	return func(field string, v any, present bool, _ Uploads) (any, bool, error) {
		if !present {
			return nil, false, apperr.InvalidField(field, "is required: a number from %g to %g", min, max)
		}
		n, err := numberValue(field, v, min, max)
		return n, err == nil, err
	}
}

// requiredPositive is a finite number above 0 and at most max.
func requiredPositive(max float64) settingCheck {
	return func(field string, v any, present bool, _ Uploads) (any, bool, error) {
		n, ok := jsonFloat(v)
		if !present || !ok || !finite(n) || n <= 0 || n > max {
			return nil, false, apperr.InvalidField(field, "must be a number above 0 and at most %g", max)
		}
		return n, true, nil
	}
}
