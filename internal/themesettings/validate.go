package themesettings

import (
	"encoding/json"
	"fmt"
	"math"
	"regexp"
	"slices"
	"strings"
	"unicode/utf8"

	"storeadmin/internal/base/apperr"
)

// Validate checks settings (one JSON value) against the schema. field is
// where the client sent them (draft_settings): the error is an
// apperr.Invalid whose Field is the path of the first setting at fault under
// it, in the order the schema lists them, so one request always reports the
// same setting.
func (s *Schema) Validate(field string, settings []byte) error {
	v, err := decode(settings)
	if err != nil {
		return apperr.InvalidField(field, "must be JSON settings: %s", strings.TrimPrefix(err.Error(), "not JSON: "))
	}
	return s.root.check(field, v)
}

var colour = regexp.MustCompile(`^#[0-9a-fA-F]{6}$`)

func (n *node) check(at string, v any) error {
	switch n.typ {
	case "object":
		return n.checkObject(at, v)
	case "string":
		return n.checkString(at, v)
	case "integer", "number":
		return n.checkNumber(at, v)
	case "boolean":
		if _, ok := v.(bool); !ok {
			return apperr.InvalidField(at, "must be true or false, not %s", describe(v))
		}
	case "image":
		return checkImage(at, v)
	case "array":
		return n.checkArray(at, v)
	}
	return nil
}

func (n *node) checkObject(at string, v any) error {
	m, ok := v.(map[string]any)
	if !ok {
		return apperr.InvalidField(at, "must be an object of settings, not %s", describe(v))
	}
	unknown := make([]string, 0)
	for k := range m {
		if n.properties[k] == nil {
			unknown = append(unknown, k)
		}
	}
	if len(unknown) > 0 {
		slices.Sort(unknown)
		return apperr.InvalidField(join(at, unknown[0]), "is not a setting of this theme (its settings here are %s)", strings.Join(n.names, ", "))
	}
	for _, name := range n.required {
		if _, ok := m[name]; !ok {
			return apperr.InvalidField(join(at, name), "is required")
		}
	}
	for _, name := range n.names {
		if child, ok := m[name]; ok {
			if err := n.properties[name].check(join(at, name), child); err != nil {
				return err
			}
		}
	}
	return nil
}

func (n *node) checkString(at string, v any) error {
	s, ok := v.(string)
	if !ok {
		return apperr.InvalidField(at, "must be a string, not %s", describe(v))
	}
	if n.maxLength > 0 && utf8.RuneCountInString(s) > n.maxLength {
		return apperr.InvalidField(at, "must be at most %d characters, not %d", n.maxLength, utf8.RuneCountInString(s))
	}
	switch n.format {
	case "color":
		if !colour.MatchString(s) {
			return apperr.InvalidField(at, "must be a colour written #rrggbb, not %q", s)
		}
	case "font":
		fonts := Fonts
		if n.enum != nil {
			fonts = nil
			for _, e := range n.enum {
				fonts = append(fonts, e.(string))
			}
		}
		if !slices.Contains(fonts, s) {
			return apperr.InvalidField(at, "must be one of the fonts %s, not %q", strings.Join(fonts, ", "), s)
		}
		return nil
	}
	if n.enum != nil && !slices.Contains(n.enum, any(s)) {
		return apperr.InvalidField(at, "must be one of %s, not %q", listOf(n.enum), s)
	}
	return nil
}

func (n *node) checkNumber(at string, v any) error {
	num, ok := v.(json.Number)
	if !ok {
		return apperr.InvalidField(at, "must be a number, not %s", describe(v))
	}
	f, err := num.Float64()
	if err != nil || math.IsInf(f, 0) {
		return apperr.InvalidField(at, "must be a number, not %s", num)
	}
	if n.typ == "integer" {
		i, ok := wholeNumber(num)
		if !ok {
			return apperr.InvalidField(at, "must be a whole number, not %s", num)
		}
		if n.enum != nil && !slices.Contains(n.enum, any(i)) {
			return apperr.InvalidField(at, "must be one of %s, not %d", listOf(n.enum), i)
		}
	}
	if n.minimum != nil && f < *n.minimum {
		return apperr.InvalidField(at, "must be at least %v, not %s", *n.minimum, num)
	}
	if n.maximum != nil && f > *n.maximum {
		return apperr.InvalidField(at, "must be at most %v, not %s", *n.maximum, num)
	}
	return nil
}

// checkImage checks the shape of an image reference; that src names one of
// the store's uploads is for the caller, who has the database.
func checkImage(at string, v any) error {
	if v == nil {
		return nil
	}
	m, ok := v.(map[string]any)
	if !ok {
		return apperr.InvalidField(at, `must be an image reference {"src": "…"} or null, not %s`, describe(v))
	}
	for k := range m {
		if k != "src" {
			return apperr.InvalidField(join(at, k), `is not part of an image reference (only "src" is)`)
		}
	}
	src, ok := m["src"].(string)
	if !ok || strings.TrimSpace(src) == "" {
		return apperr.InvalidField(join(at, "src"), "must name an uploaded image")
	}
	if len(src) > 2048 {
		return apperr.InvalidField(join(at, "src"), "must be at most 2048 characters")
	}
	return nil
}

func (n *node) checkArray(at string, v any) error {
	list, ok := v.([]any)
	if !ok {
		return apperr.InvalidField(at, "must be a list, not %s", describe(v))
	}
	if len(list) > n.maxItems {
		return apperr.InvalidField(at, "may hold at most %d entries, not %d", n.maxItems, len(list))
	}
	if len(list) < n.minItems {
		return apperr.InvalidField(at, "must hold at least %d entries, not %d", n.minItems, len(list))
	}
	for i, e := range list {
		if err := n.items.check(fmt.Sprintf("%s[%d]", at, i), e); err != nil {
			return err
		}
	}
	return nil
}

// listOf writes an enum's values for a message.
func listOf(enum []any) string {
	parts := make([]string, len(enum))
	for i, e := range enum {
		if s, ok := e.(string); ok {
			parts[i] = fmt.Sprintf("%q", s)
		} else {
			parts[i] = fmt.Sprint(e)
		}
	}
	return strings.Join(parts, ", ")
}

// describe names a JSON value's kind for a message.
func describe(v any) string {
	switch t := v.(type) {
	case nil:
		return "null"
	case bool:
		return fmt.Sprint(t)
	case json.Number:
		return "the number " + string(t)
	case string:
		return fmt.Sprintf("the string %q", t)
	case []any:
		return "a list"
	case map[string]any:
		return "an object"
	}
	return fmt.Sprintf("%T", v)
}
