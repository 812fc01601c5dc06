package models

import (
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"storeadmin/internal/base/apperr"
)

// A checkout page's sections (README "Checkout pages"): an array of
// sections, top to bottom, each {"type": one of CheckoutSectionTypes,
// "settings": an object of that type's settings}. The types and their
// settings are a fixed list, as checkout builders have: the checkout's own
// steps (contact, delivery, shipping_method, payment, order_summary, tip),
// each at most once, contact and payment required, and content blocks
// (text, image, trust_badges, testimonial, countdown, divider) placed
// anywhere. Settings left out take the storefront's defaults, so {} is
// always valid; an unknown type, an unknown setting or a value out of its
// bounds is a 400 naming its path (sections[2].settings.heading).

// Bounds of a page's sections.
const (
	MaxCheckoutSections      = 30
	MaxCheckoutSectionsBytes = 32 << 10
	maxSectionHeading        = 120
	maxSectionURL            = 2048
)

// sectionSetting checks one setting's value and returns it as stored.
type sectionSetting func(path string, v any) (any, error)

// checkoutSection is one type of section: its settings, and whether it is
// a step of the checkout (at most once a page) that every page must have.
type checkoutSection struct {
	settings map[string]sectionSetting
	step     bool
	required bool
}

// The values a setting may take.
var (
	sectionPhoneModes  = []string{"hidden", "optional", "required"}
	sectionAlignments  = []string{"left", "center", "right"}
	sectionTrustBadges = []string{"secure_checkout", "ssl", "money_back", "free_returns", "free_shipping", "support"}
)

// checkoutSections are the section types, by name.
var checkoutSections = map[string]checkoutSection{
	"contact": {step: true, required: true, settings: map[string]sectionSetting{
		"heading": sectionText(maxSectionHeading, false), "show_login_link": sectionBool, "marketing_opt_in": sectionBool,
		"marketing_opt_in_checked": sectionBool,
	}},
	"delivery": {step: true, settings: map[string]sectionSetting{
		"heading": sectionText(maxSectionHeading, false), "show_company": sectionBool, "show_address_line2": sectionBool,
		"phone": sectionOneOf(sectionPhoneModes...),
	}},
	"shipping_method": {step: true, settings: map[string]sectionSetting{
		"heading": sectionText(maxSectionHeading, false), "show_delivery_estimates": sectionBool,
	}},
	"payment": {step: true, required: true, settings: map[string]sectionSetting{
		"heading": sectionText(maxSectionHeading, false), "show_payment_icons": sectionBool, "billing_same_as_shipping": sectionBool,
	}},
	"order_summary": {step: true, settings: map[string]sectionSetting{
		"heading": sectionText(maxSectionHeading, false), "show_images": sectionBool, "show_discount_field": sectionBool,
		"collapsed_on_mobile": sectionBool,
	}},
	"tip": {step: true, settings: map[string]sectionSetting{
		"heading": sectionText(maxSectionHeading, false),
	}},
	"text": {settings: map[string]sectionSetting{
		"heading": sectionText(maxSectionHeading, false), "body": sectionText(2000, true), "align": sectionOneOf(sectionAlignments...),
	}},
	"image": {settings: map[string]sectionSetting{
		"url": sectionURL(true), "alt": sectionText(200, false), "link_url": sectionURL(false), "width_percent": sectionWhole(10, 100),
	}},
	"trust_badges": {settings: map[string]sectionSetting{
		"heading": sectionText(maxSectionHeading, false), "badges": sectionBadges,
	}},
	"testimonial": {settings: map[string]sectionSetting{
		"quote": sectionText(500, true), "author": sectionText(100, false), "rating": sectionWhole(1, 5),
	}},
	"countdown": {settings: map[string]sectionSetting{
		"heading": sectionText(maxSectionHeading, false), "minutes": sectionWhole(1, 120), "expired_text": sectionText(maxSectionHeading, false),
	}},
	"divider": {settings: map[string]sectionSetting{}},
}

// CheckoutSectionTypes are the section types, steps first.
var CheckoutSectionTypes = []string{"contact", "delivery", "shipping_method", "payment", "order_summary", "tip",
	"text", "image", "trust_badges", "testimonial", "countdown", "divider"}

// CheckCheckoutSections checks a page's sections, sent as JSON (nil: the
// platform's standard checkout, kept as nil), and returns them as stored:
// each section exactly {"type", "settings"}, texts trimmed. field names
// the value in errors ("sections").
func CheckCheckoutSections(field string, v any) (any, error) {
	if v == nil {
		return nil, nil
	}
	list, ok := v.([]any)
	if !ok {
		return nil, apperr.Invalidf("%s must be a list of sections ({\"type\": ..., \"settings\": {...}}), or null for the standard checkout", field)
	}
	if len(list) > MaxCheckoutSections {
		return nil, apperr.Invalidf("%s may hold at most %d sections, not %d", field, MaxCheckoutSections, len(list))
	}
	out := make([]any, len(list))
	seen := map[string]int{}
	for i, s := range list {
		at := fmt.Sprintf("%s[%d]", field, i)
		typ, sec, err := checkCheckoutSection(at, s)
		if err != nil {
			return nil, err
		}
		if prev, twice := seen[typ]; twice && checkoutSections[typ].step {
			return nil, apperr.Invalidf("%s.type: a page has one %s section, and %s[%d] is one already", at, typ, field, prev)
		}
		if _, ok := seen[typ]; !ok {
			seen[typ] = i
		}
		out[i] = sec
	}
	for _, typ := range CheckoutSectionTypes {
		if _, ok := seen[typ]; !ok && checkoutSections[typ].required {
			return nil, apperr.Invalidf("%s must include a %s section: a checkout cannot complete without it", field, typ)
		}
	}
	if b, err := json.Marshal(out); err != nil {
		return nil, err
	} else if len(b) > MaxCheckoutSectionsBytes {
		return nil, apperr.Invalidf("%s must be at most %d bytes of JSON, not %d", field, MaxCheckoutSectionsBytes, len(b))
	}
	return out, nil
}

// checkCheckoutSection checks the section at (sections[i]) and returns its
// type and the section as stored.
func checkCheckoutSection(at string, v any) (string, map[string]any, error) {
	m, ok := v.(map[string]any)
	if !ok {
		return "", nil, apperr.Invalidf("%s must be an object: {\"type\": ..., \"settings\": {...}}", at)
	}
	for _, k := range slices.Sorted(maps.Keys(m)) {
		if k != "type" && k != "settings" {
			return "", nil, apperr.Invalidf("%s.%s is not a field of a section; a section has type and settings", at, k)
		}
	}
	raw := m["type"]
	typ, isString := raw.(string)
	switch {
	case raw == nil:
		return "", nil, apperr.Invalidf("%s.type is required: one of %s", at, strings.Join(CheckoutSectionTypes, ", "))
	case !isString:
		return "", nil, apperr.Invalidf("%s.type must be a string, one of %s", at, strings.Join(CheckoutSectionTypes, ", "))
	}
	sec, ok := checkoutSections[typ]
	if !ok {
		return "", nil, apperr.Invalidf("%s.type must be one of %s, not %q", at, strings.Join(CheckoutSectionTypes, ", "), typ)
	}
	settings := map[string]any{}
	if raw, sent := m["settings"]; sent && raw != nil {
		in, ok := raw.(map[string]any)
		if !ok {
			return "", nil, apperr.Invalidf("%s.settings must be an object", at)
		}
		for _, k := range slices.Sorted(maps.Keys(in)) {
			val := in[k]
			check, known := sec.settings[k]
			if !known {
				return "", nil, apperr.Invalidf("%s.settings.%s is not a setting of a %s section; it takes %s", at, k, typ, settingNames(sec))
			}
			if val == nil {
				continue // null: the default, as left out
			}
			stored, err := check(at+".settings."+k, val)
			if err != nil {
				return "", nil, err
			}
			settings[k] = stored
		}
	}
	for _, k := range slices.Sorted(maps.Keys(sec.settings)) {
		if _, ok := settings[k]; !ok {
			if _, err := sec.settings[k](at+".settings."+k, nil); err != nil {
				return "", nil, err // a required setting left out
			}
		}
	}
	return typ, map[string]any{"type": typ, "settings": settings}, nil
}

// settingNames lists a section's settings for an error, or says it has
// none.
func settingNames(sec checkoutSection) string {
	if len(sec.settings) == 0 {
		return "none"
	}
	return strings.Join(slices.Sorted(maps.Keys(sec.settings)), ", ")
}

// The setting checks. Each is also called with nil for a setting left out:
// nil passes unless the setting is required.

func sectionBool(path string, v any) (any, error) {
	if v == nil {
		return nil, nil
	}
	b, ok := v.(bool)
	if !ok {
		return nil, apperr.Invalidf("%s must be true or false", path)
	}
	return b, nil
}

func sectionText(maxRunes int, required bool) sectionSetting {
	return func(path string, v any) (any, error) {
		if v == nil {
			if required {
				return nil, apperr.Invalidf("%s is required", path)
			}
			return nil, nil
		}
		s, ok := v.(string)
		if !ok {
			return nil, apperr.Invalidf("%s must be a string", path)
		}
		s = strings.TrimSpace(s)
		if required && s == "" {
			return nil, apperr.Invalidf("%s must not be empty", path)
		}
		if n := utf8.RuneCountInString(s); n > maxRunes {
			return nil, apperr.Invalidf("%s must be at most %d characters, not %d", path, maxRunes, n)
		}
		if err := CheckText(s); err != nil {
			return nil, apperr.Invalidf("%s %s", path, errNotText)
		}
		return s, nil
	}
}

func sectionOneOf(values ...string) sectionSetting {
	return func(path string, v any) (any, error) {
		if v == nil {
			return nil, nil
		}
		if s, ok := v.(string); ok && slices.Contains(values, s) {
			return s, nil
		}
		return nil, apperr.Invalidf("%s must be one of %s, not %s", path, strings.Join(values, ", "), quoteJSON(v))
	}
}

func sectionWhole(lo, hi int64) sectionSetting {
	return func(path string, v any) (any, error) {
		if v == nil {
			return nil, nil
		}
		n, ok := wholeJSON(v)
		if !ok || n < lo || n > hi {
			return nil, apperr.Invalidf("%s must be a whole number from %d to %d, not %s", path, lo, hi, quoteJSON(v))
		}
		return n, nil
	}
}

func sectionURL(required bool) sectionSetting {
	text := sectionText(maxSectionURL, required)
	return func(path string, v any) (any, error) {
		s, err := text(path, v)
		if s == nil || err != nil {
			return s, err
		}
		u, perr := url.Parse(s.(string))
		if perr != nil || u.Scheme != "https" || u.Host == "" {
			return nil, apperr.Invalidf("%s must be an https:// URL, not %q", path, s)
		}
		return s, nil
	}
}

func sectionBadges(path string, v any) (any, error) {
	if v == nil {
		return nil, nil
	}
	list, ok := v.([]any)
	if !ok || len(list) == 0 || len(list) > len(sectionTrustBadges) {
		return nil, apperr.Invalidf("%s must be a list of 1 to %d badges of %s", path, len(sectionTrustBadges), strings.Join(sectionTrustBadges, ", "))
	}
	out := make([]any, len(list))
	for i, b := range list {
		s, ok := b.(string)
		if !ok || !slices.Contains(sectionTrustBadges, s) {
			return nil, apperr.Invalidf("%s[%d] must be one of %s, not %s", path, i, strings.Join(sectionTrustBadges, ", "), quoteJSON(b))
		}
		if slices.Contains(out[:i], any(s)) {
			return nil, apperr.Invalidf("%s[%d]: %s is listed twice", path, i, s)
		}
		out[i] = s
	}
	return out, nil
}

// wholeJSON is a JSON number that is whole, as gqlgen and encoding/json
// decode them (json.Number, float64, int64 or int).
func wholeJSON(v any) (int64, bool) {
	switch n := v.(type) {
	case int64:
		return n, true
	case int:
		return int64(n), true
	case float64:
		if n != math.Trunc(n) || math.Abs(n) > 1<<53 {
			return 0, false
		}
		return int64(n), true
	case json.Number:
		i, err := strconv.ParseInt(string(n), 10, 64)
		return i, err == nil
	}
	return 0, false
}

// quoteJSON writes v as JSON for an error message.
func quoteJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}
