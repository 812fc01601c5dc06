// Package jsonbody reads a JSON request body, the one way both surfaces do:
// at most MaxBytes, exactly one JSON value, numbers as json.Number, and text
// that PostgreSQL could not store made visible to the scalars that check it.
package jsonbody

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"reflect"
	"strings"
	"unicode/utf8"

	"storeadmin/internal/base/apperr"
)

// MaxBytes bounds a JSON request body (uploads and multipart bodies have
// their own limits).
const MaxBytes = 1 << 20

// Read reads r's body whole. A body over MaxBytes is a TooLarge error, read
// no further than one byte past the limit.
//
// Invalid UTF-8 and unpaired UTF-16 surrogate escapes (\ud800) come back as
// the escape \u0000: encoding/json would otherwise replace them with U+FFFD
// without a word, and NUL is what the String and JSON scalars refuse, with
// the name of the field that holds it. Outside a string the escape is a
// syntax error, as the byte it replaces was.
func Read(r *http.Request) ([]byte, error) {
	if r.Body == nil {
		return nil, nil
	}
	raw, err := io.ReadAll(io.LimitReader(r.Body, MaxBytes+1))
	if err != nil {
		return nil, apperr.New(apperr.BadRequest, "the request body could not be read")
	}
	if len(raw) > MaxBytes {
		return nil, apperr.New(apperr.TooLarge, "the request body is larger than %d bytes (1 MiB)", MaxBytes)
	}
	return markUnstorable(raw), nil
}

// Decode decodes raw, which must hold exactly one JSON value (white space
// around it aside), into v; numbers decode as json.Number.
func Decode(raw []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(v); err != nil {
		var typ *json.UnmarshalTypeError
		if errors.As(err, &typ) && typ.Field != "" {
			// JSON, but a field of the wrong kind ({"query": 5}).
			return &apperr.Error{Code: apperr.BadRequest, Field: typ.Field,
				Message: fmt.Sprintf("%s must be %s, not %s", typ.Field, goKind(typ.Type), jsonKind(typ.Value))}
		}
		return apperr.New(apperr.BadRequest, "the request body is not valid JSON: %s", problem(err))
	}
	if rest := bytes.TrimSpace(raw[dec.InputOffset():]); len(rest) > 0 {
		return apperr.New(apperr.BadRequest, "the request body must hold one JSON value, but more follows it at byte %d", len(raw)-len(rest))
	}
	return nil
}

// problem says where a body stopped being JSON, without quoting it.
func problem(err error) string {
	var syn *json.SyntaxError
	if errors.As(err, &syn) {
		return fmt.Sprintf("%s (at byte %d)", syn.Error(), syn.Offset)
	}
	var typ *json.UnmarshalTypeError
	if errors.As(err, &typ) {
		return fmt.Sprintf("it must be %s, not %s", goKind(typ.Type), jsonKind(typ.Value))
	}
	if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
		return "it ends too early"
	}
	return err.Error()
}

// goKind is the JSON a Go value of type t decodes from, in a message's
// words: never a Go type name.
func goKind(t reflect.Type) string {
	switch t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "true or false"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "an integer"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.Slice, reflect.Array:
		return "a list"
	case reflect.Map, reflect.Struct:
		return "an object"
	}
	return "another kind of value"
}

// jsonKind words encoding/json's name of the JSON it met ("number",
// "number 1.5", "array", "bool" ...).
func jsonKind(value string) string {
	switch {
	case strings.HasPrefix(value, "number"):
		return "a number"
	case value == "string":
		return "a string"
	case value == "array":
		return "a list"
	case value == "object":
		return "an object"
	case value == "bool":
		return "true or false"
	}
	return value
}

// markUnstorable replaces invalid UTF-8 bytes and unpaired surrogate
// escapes with the escape \u0000; raw itself comes back when there are none.
func markUnstorable(raw []byte) []byte {
	var out []byte
	copied := 0 // raw[:copied] is in out
	mark := func(at, n int) {
		if out == nil {
			out = make([]byte, 0, len(raw)+16)
		}
		out = append(append(out, raw[copied:at]...), `\u0000`...)
		copied = at + n
	}
	for i := 0; i < len(raw); {
		c := raw[i]
		switch {
		case c == '\\' && i+1 < len(raw) && raw[i+1] == 'u':
			r, ok := hex4(raw[i+2:])
			switch {
			case !ok:
				i += 2 // a syntax error the decoder will report
			case r >= 0xD800 && r < 0xDC00:
				if low, ok := escapeAt(raw, i+6); ok && low >= 0xDC00 && low < 0xE000 {
					i += 12 // a pair: one character
					continue
				}
				mark(i, 6)
				i += 6
			case r >= 0xDC00 && r < 0xE000:
				mark(i, 6)
				i += 6
			default:
				i += 6
			}
		case c == '\\' && i+1 < len(raw) && raw[i+1] < utf8.RuneSelf:
			i += 2 // \" \\ \n ...: the next byte is not a string's end
		case c < utf8.RuneSelf:
			i++
		default:
			r, n := utf8.DecodeRune(raw[i:])
			if r == utf8.RuneError && n == 1 {
				mark(i, 1)
			}
			i += n
		}
	}
	if out == nil {
		return raw
	}
	return append(out, raw[copied:]...)
}

// escapeAt reads a \uXXXX escape at raw[i:].
func escapeAt(raw []byte, i int) (rune, bool) {
	if i+1 >= len(raw) || raw[i] != '\\' || raw[i+1] != 'u' {
		return 0, false
	}
	return hex4(raw[i+2:])
}

func hex4(b []byte) (rune, bool) {
	if len(b) < 4 {
		return 0, false
	}
	var r rune
	for _, c := range b[:4] {
		switch {
		case c >= '0' && c <= '9':
			r = r<<4 | rune(c-'0')
		case c >= 'a' && c <= 'f':
			r = r<<4 | rune(c-'a'+10)
		case c >= 'A' && c <= 'F':
			r = r<<4 | rune(c-'A'+10)
		default:
			return 0, false
		}
	}
	return r, true
}

// Kind names the kind of v, a decoded JSON value, in the words of a
// message ("must be an integer, not 1.5"): a number short
// enough to read is quoted ("1.5"), a string is not (it is the client's
// text).
func Kind(v any) string {
	switch v := v.(type) {
	case json.Number:
		if len(v) <= 24 {
			return string(v)
		}
		return "a number"
	case float64, int64, int:
		return fmt.Sprint(v)
	case bool:
		return fmt.Sprint(v)
	case string:
		return "a string"
	case map[string]any:
		return "an object"
	case []any:
		return "a list"
	case nil:
		return "null"
	}
	return "a value of another kind"
}
