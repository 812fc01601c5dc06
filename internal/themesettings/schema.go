// Package themesettings reads a theme template's settings schema and checks
// a theme's settings against it.
//
// A schema is a small, documented subset of JSON Schema, chosen so that a
// theme editor can draw a form from it and a check can name the one setting
// at fault. A schema node has a "type" and the keywords its type takes; any
// other keyword is refused when the schema is read (a misspelt "maximun"
// would otherwise check nothing). Every node may carry "title" and
// "description", which only people read.
//
//	object   properties (name → schema), required (names). Keys the
//	         properties do not name are refused: a setting the theme does
//	         not know is a mistake, never kept.
//	string   enum, maxLength (in characters), format: "color" (#rrggbb,
//	         lower or upper case) or "font" (one of Fonts, or of the node's
//	         enum when it narrows the list).
//	integer  enum, minimum, maximum (whole numbers only: 2.0 is not one).
//	number   minimum, maximum.
//	boolean  nothing more.
//	image    a reference to an uploaded image: {"src": "<the upload's src>"},
//	         or null when the setting is not required.
//	array    items (the schema of each element, typically a section
//	         object), maxItems (required: a list of sections is bounded),
//	         minItems.
//
// The root of a settings schema is an object. Settings are JSON; a failed
// check is an apperr.Invalid whose Field is the setting's path in the style
// of both surfaces (draft_settings.sections[2].heading).
package themesettings

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"regexp"
	"slices"
	"sort"
	"strings"
)

// Fonts are the font families a "font" setting may name: those the
// storefront serves itself.
var Fonts = []string{
	"Inter", "Roboto", "Open Sans", "Lato", "Montserrat", "Poppins",
	"Playfair Display", "Merriweather", "Lora", "Source Serif 4",
	"DM Sans", "Work Sans", "IBM Plex Mono", "system-ui",
}

// MaxDepth bounds how deeply schema nodes nest: sections inside sections
// are as deep as a theme editor goes.
const MaxDepth = 8

// Schema is a read settings schema, ready to check settings with.
type Schema struct {
	root *node
}

// node is one schema node.
type node struct {
	typ        string
	properties map[string]*node
	names      []string // properties' names, sorted, for messages
	required   []string
	enum       []any // strings for string, int64 for integer
	format     string
	maxLength  int // 0: no limit
	minimum    *float64
	maximum    *float64
	items      *node
	minItems   int
	maxItems   int
}

// keywords are those each type takes, besides type, title and description.
var keywords = map[string][]string{
	"object":  {"properties", "required"},
	"string":  {"enum", "maxLength", "format"},
	"integer": {"enum", "minimum", "maximum"},
	"number":  {"minimum", "maximum"},
	"boolean": {},
	"image":   {},
	"array":   {"items", "maxItems", "minItems"},
}

// Parse reads a settings schema. Its error names the schema node at fault
// (properties.colors.properties.accent), for the operator who wrote it.
func Parse(raw []byte) (*Schema, error) {
	v, err := decode(raw)
	if err != nil {
		return nil, fmt.Errorf("settings schema: %w", err)
	}
	root, err := parseNode(v, "", 0)
	if err != nil {
		return nil, err
	}
	if root.typ != "object" {
		return nil, fmt.Errorf("settings schema: the root must be an object, not %s", root.typ)
	}
	return &Schema{root: root}, nil
}

// decode reads one JSON value, numbers kept exact.
func decode(raw []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, fmt.Errorf("not JSON: %v", err)
	}
	if dec.More() {
		return nil, fmt.Errorf("not one JSON value")
	}
	return v, nil
}

func schemaErr(at, format string, args ...any) error {
	if at == "" {
		at = "the root"
	}
	return fmt.Errorf("settings schema: %s: %s", at, fmt.Sprintf(format, args...))
}

func join(at, key string) string {
	if at == "" {
		return key
	}
	return at + "." + key
}

func parseNode(v any, at string, depth int) (*node, error) {
	if depth > MaxDepth {
		return nil, schemaErr(at, "nested deeper than %d", MaxDepth)
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, schemaErr(at, "must be an object")
	}
	typ, _ := m["type"].(string)
	allowed, known := keywords[typ]
	if !known {
		return nil, schemaErr(at, "type must be one of object, string, integer, number, boolean, image, array")
	}
	for k := range m {
		if k != "type" && k != "title" && k != "description" && !slices.Contains(allowed, k) {
			return nil, schemaErr(at, "%q is not a keyword of a %s setting", k, typ)
		}
	}
	for _, k := range []string{"title", "description"} {
		if t, ok := m[k]; ok {
			if _, ok := t.(string); !ok {
				return nil, schemaErr(at, "%s must be a string", k)
			}
		}
	}
	n := &node{typ: typ}
	var err error
	switch typ {
	case "object":
		err = n.parseObject(m, at, depth)
	case "string":
		err = n.parseString(m, at)
	case "integer", "number":
		err = n.parseNumber(m, at)
	case "array":
		err = n.parseArray(m, at, depth)
	}
	if err != nil {
		return nil, err
	}
	return n, nil
}

func (n *node) parseObject(m map[string]any, at string, depth int) error {
	props, ok := m["properties"].(map[string]any)
	if !ok || len(props) == 0 {
		return schemaErr(at, "an object needs properties")
	}
	n.properties = make(map[string]*node, len(props))
	for name, p := range props {
		if !settingName.MatchString(name) {
			return schemaErr(at, "%q is not a setting name (lower case letters, digits and _, from a letter)", name)
		}
		child, err := parseNode(p, join(at, "properties."+name), depth+1)
		if err != nil {
			return err
		}
		n.properties[name] = child
		n.names = append(n.names, name)
	}
	sort.Strings(n.names)
	if r, ok := m["required"]; ok {
		list, ok := r.([]any)
		if !ok {
			return schemaErr(at, "required must be a list of property names")
		}
		for _, e := range list {
			name, ok := e.(string)
			if !ok || n.properties[name] == nil {
				return schemaErr(at, "required names %v, which is not one of its properties", e)
			}
			n.required = append(n.required, name)
		}
	}
	return nil
}

var settingName = regexp.MustCompile(`^[a-z][a-z0-9_]{0,63}$`)

func (n *node) parseString(m map[string]any, at string) error {
	if f, ok := m["format"]; ok {
		n.format, _ = f.(string)
		if n.format != "color" && n.format != "font" {
			return schemaErr(at, `format must be "color" or "font"`)
		}
	}
	if l, ok := m["maxLength"]; ok {
		i, ok := wholeNumber(l)
		if !ok || i < 1 {
			return schemaErr(at, "maxLength must be a whole number of at least 1")
		}
		n.maxLength = int(i)
	}
	if e, ok := m["enum"]; ok {
		list, ok := e.([]any)
		if !ok || len(list) == 0 {
			return schemaErr(at, "enum must be a list of at least one value")
		}
		for _, v := range list {
			s, ok := v.(string)
			if !ok {
				return schemaErr(at, "enum of a string setting must list strings")
			}
			if n.format == "font" && !slices.Contains(Fonts, s) {
				return schemaErr(at, "enum names the font %q, which the storefront does not serve", s)
			}
			n.enum = append(n.enum, s)
		}
	}
	return nil
}

func (n *node) parseNumber(m map[string]any, at string) error {
	for _, k := range []string{"minimum", "maximum"} {
		b, ok := m[k]
		if !ok {
			continue
		}
		num, ok := b.(json.Number)
		if !ok {
			return schemaErr(at, "%s must be a number", k)
		}
		f, err := num.Float64()
		if err != nil {
			return schemaErr(at, "%s must be a number", k)
		}
		if n.typ == "integer" && f != math.Trunc(f) {
			return schemaErr(at, "%s of an integer setting must be a whole number", k)
		}
		if k == "minimum" {
			n.minimum = &f
		} else {
			n.maximum = &f
		}
	}
	if n.minimum != nil && n.maximum != nil && *n.minimum > *n.maximum {
		return schemaErr(at, "minimum is above maximum")
	}
	if e, ok := m["enum"]; ok {
		list, ok := e.([]any)
		if !ok || len(list) == 0 {
			return schemaErr(at, "enum must be a list of at least one value")
		}
		for _, v := range list {
			i, ok := wholeNumber(v)
			if !ok {
				return schemaErr(at, "enum of an integer setting must list whole numbers")
			}
			n.enum = append(n.enum, i)
		}
	}
	return nil
}

func (n *node) parseArray(m map[string]any, at string, depth int) error {
	items, err := parseNode(m["items"], join(at, "items"), depth+1)
	if err != nil {
		return err
	}
	n.items = items
	maxItems, ok := wholeNumber(m["maxItems"])
	if !ok || maxItems < 1 || maxItems > 100 {
		return schemaErr(at, "an array needs maxItems, a whole number from 1 to 100")
	}
	n.maxItems = int(maxItems)
	if v, present := m["minItems"]; present {
		minItems, ok := wholeNumber(v)
		if !ok || minItems < 0 || minItems > maxItems {
			return schemaErr(at, "minItems must be a whole number from 0 to maxItems")
		}
		n.minItems = int(minItems)
	}
	return nil
}

// wholeNumber is v as an int64 when it is a JSON whole number.
func wholeNumber(v any) (int64, bool) {
	num, ok := v.(json.Number)
	if !ok {
		return 0, false
	}
	i, err := num.Int64()
	if err != nil || strings.ContainsAny(string(num), ".eE") {
		return 0, false
	}
	return i, true
}
