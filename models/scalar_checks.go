package models

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/uptrace/bun/extra/bunjson"

	"storeadmin/internal/base/apperr"
)

// What a free-form JSON value (an address, a setting's value, metadata)
// may be: nested at most MaxJSONDepth deep and at most MaxJSONBytes long
// once encoded. Such values are read back whole on every view of their
// record, so they are kept to what a person could have typed.
const (
	MaxJSONDepth = 32
	MaxJSONBytes = 256 << 10
)

// errNotText is what CheckText says. The REST and GraphQL body readers turn
// invalid UTF-8 and unpaired surrogates (which encoding/json would quietly
// replace with U+FFFD) into NUL, so this one message covers all three.
const errNotText = "must be plain text: it holds a NUL character (\\u0000), invalid UTF-8 or an unpaired surrogate"

// CheckText refuses text PostgreSQL cannot store (a NUL character) or that
// is not UTF-8: such a value fails its INSERT with an internal error, or is
// stored and then breaks every later read.
func CheckText(s string) error {
	if strings.IndexByte(s, 0) >= 0 || !utf8.ValidString(s) {
		return apperr.Invalidf(errNotText)
	}
	return nil
}

// CheckJSON refuses a JSON value that could be stored but not read back or
// written again: a number beyond float64 (1e400), a NUL or invalid UTF-8 in
// a key or a string (jsonb refuses \u0000), nesting deeper than
// MaxJSONDepth, or more than MaxJSONBytes in all.
func CheckJSON(v any) error {
	if err := checkJSON(v, 0); err != nil {
		return err
	}
	if b, err := json.Marshal(v); err != nil {
		return apperr.Invalidf("is not a JSON value: %s", err.Error())
	} else if len(b) > MaxJSONBytes {
		return apperr.Invalidf("is %d bytes of JSON; at most %d are kept", len(b), MaxJSONBytes)
	}
	return nil
}

func checkJSON(v any, depth int) error {
	if depth > MaxJSONDepth {
		return apperr.Invalidf("is nested more than %d levels deep", MaxJSONDepth)
	}
	switch v := v.(type) {
	case nil, bool, int64, int:
		return nil
	case string:
		if CheckText(v) != nil {
			return apperr.Invalidf("holds a string that %s", errNotText)
		}
		return nil
	case float64:
		if math.IsInf(v, 0) || math.IsNaN(v) {
			return apperr.Invalidf("holds a number that is not finite")
		}
		return nil
	case json.Number:
		f, err := strconv.ParseFloat(string(v), 64)
		if err != nil || math.IsInf(f, 0) {
			return apperr.Invalidf("holds the number %.40s, which is out of range (at most about 1.8e308)", string(v))
		}
		return nil
	case map[string]any:
		for key, val := range v {
			if CheckText(key) != nil {
				return apperr.Invalidf("holds a key that %s", errNotText)
			}
			if err := checkJSON(val, depth+1); err != nil {
				return err
			}
		}
		return nil
	case []any:
		for _, val := range v {
			if err := checkJSON(val, depth+1); err != nil {
				return err
			}
		}
		return nil
	}
	return apperr.Invalidf("is not a JSON value (%s)", fmt.Sprintf("%T", v))
}

// jsonbCodec is how bun encodes and decodes jsonb columns; see its methods.
func init() { bunjson.SetProvider(jsonbCodec{}) }

type jsonbCodec struct{ bunjson.StdProvider }

// Marshal writes every backslash of a string as \u005c. bun writes jsonb
// into the statement text and turns each \u0000 it sees there into the text
// "\u0000" (jsonb refuses the NUL itself), but it does not skip escaped
// backslashes: a string holding the six characters \u0000 (encoded
// "\\u0000") came out as a backslash and a NUL, and the write failed
// (SQLSTATE 22P05) for ever after. \u005c is the same backslash, and
// nothing bun rewrites.
func (jsonbCodec) Marshal(v any) ([]byte, error) {
	b, err := json.Marshal(v)
	if err != nil || !bytes.Contains(b, []byte(`\\`)) {
		return b, err
	}
	return bytes.ReplaceAll(b, []byte(`\\`), []byte(`\u005c`)), nil
}

// Free-form jsonb columns scan into any. With encoding/json's defaults a
// number there becomes a float64, so a value stored before it was checked
// (1e400, written by hand or by an older release) made every read of its
// record fail. Numbers scan as json.Number instead: the text PostgreSQL
// holds, written back unchanged.
func (jsonbCodec) Unmarshal(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	return dec.Decode(v)
}

func (p jsonbCodec) NewDecoder(r io.Reader) bunjson.Decoder {
	dec := p.StdProvider.NewDecoder(r)
	dec.UseNumber()
	return dec
}
