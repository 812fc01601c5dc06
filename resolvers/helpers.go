package resolvers

import (
	"bytes"
	"context"
	"encoding/json"
	"net/mail"
	"regexp"
	"slices"
	"strings"
	"unicode/utf8"

	"storeadmin/internal/apperr"
	"storeadmin/internal/auth"
)

// storeID is the caller's store; every tenant query starts here.
func storeID(ctx context.Context) (int64, error) { return auth.StoreID(ctx) }

// text checks a free-text field: trimmed, within max runes, and present
// when required.
func text(field, v string, maxRunes int, required bool) (string, error) {
	v = strings.TrimSpace(v)
	if required && v == "" {
		return "", apperr.Invalidf("%s must not be empty", field)
	}
	if utf8.RuneCountInString(v) > maxRunes {
		return "", apperr.Invalidf("%s must be at most %d characters", field, maxRunes)
	}
	return v, nil
}

// email checks an email address; empty is allowed unless required.
func email(field, v string, required bool) (string, error) {
	v = strings.TrimSpace(v)
	if v == "" && !required {
		return "", nil
	}
	a, err := mail.ParseAddress(v)
	if err != nil || a.Address != v || !strings.Contains(v, "@") {
		return "", apperr.Invalidf("%s must be an email address such as ana@example.com", field)
	}
	return v, nil
}

// oneOf checks that v is one of allowed.
func oneOf(field, v string, allowed ...string) (string, error) {
	if !slices.Contains(allowed, v) {
		return "", apperr.Invalidf("%s must be one of %s, not %q", field, strings.Join(allowed, ", "), v)
	}
	return v, nil
}

// matches checks v against re, described for people by shape.
func matches(field, v string, re *regexp.Regexp, shape string) (string, error) {
	if !re.MatchString(v) {
		return "", apperr.Invalidf("%s must be %s", field, shape)
	}
	return v, nil
}

// jsonSize checks that a JSON value encodes within max bytes, as stored:
// without HTML escaping, which would count each < as six bytes.
func jsonSize(field string, v any, max int) error {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return apperr.Invalidf("%s is not a JSON value", field)
	}
	if buf.Len()-1 > max { // Encode appends a newline
		return apperr.Invalidf("%s must be at most %d bytes of JSON", field, max)
	}
	return nil
}

// firstErr returns the first non-nil error.
func firstErr(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}
