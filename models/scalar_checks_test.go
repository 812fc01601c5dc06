package models

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/uptrace/bun/extra/bunjson"
	"github.com/uptrace/bun/schema"

	"storeadmin/internal/base/apperr"
)

func TestUnmarshalStringRefusesUnstorableText(t *testing.T) {
	for _, s := range []string{"a\x00b", "a\xffb", "\xed\xa0\x80" /* a surrogate, UTF-8 encoded */} {
		if _, err := UnmarshalString(s); err == nil {
			t.Errorf("%q accepted", s)
		}
	}
	for _, s := range []string{"", "plain", "Ünïcödé 😀", `C:\u0000 as text`} {
		if got, err := UnmarshalString(s); err != nil || got != s {
			t.Errorf("%q: %q, %v", s, got, err)
		}
	}
}

func TestUnmarshalTimeRange(t *testing.T) {
	for _, s := range []string{"0000-01-01T00:00:00Z", "0001-01-01T00:00:00Z", "1899-12-31T23:59:59Z", "1900-01-01T00:30:00+01:00", "9999-12-31T23:00:00-05:00", "0000-01-01"} {
		if _, err := UnmarshalTime(s); err == nil || !strings.Contains(err.Error(), "1900 and 9999") {
			t.Errorf("%s: %v", s, err)
		}
	}
	for _, s := range []string{"1900-01-01T00:00:00Z", "9999-12-31T23:59:59.999Z", "2026-01-31", "2026-01-31T09:00:00+02:00"} {
		if _, err := UnmarshalTime(s); err != nil {
			t.Errorf("%s: %v", s, err)
		}
	}
}

func TestCheckJSON(t *testing.T) {
	deep := strings.Repeat("[", MaxJSONDepth+2) + strings.Repeat("]", MaxJSONDepth+2)
	for name, text := range map[string]string{
		"1e400": `{"n":1e400}`, "-1e400": `[-1e400]`, "NUL in a string": `{"a":"\u0000"}`, "NUL in a key": `{"\u0000":1}`,
		"too deep": deep, "too large": `"` + strings.Repeat("x", MaxJSONBytes) + `"`,
	} {
		if err := CheckJSON(decodeJSON(t, text)); err == nil {
			t.Errorf("%s accepted", name)
		}
	}
	if _, err := UnmarshalJSON(1.0 / zero()); err == nil {
		t.Errorf("+Inf accepted")
	}
	for _, text := range []string{`null`, `{"a":[1,2.5e300,-0,"x",true,null]}`, `12345678901234567890`, strings.Repeat("[", MaxJSONDepth) + strings.Repeat("]", MaxJSONDepth)} {
		if err := CheckJSON(decodeJSON(t, text)); err != nil {
			t.Errorf("%s: %v", text, err)
		}
	}
}

func zero() float64 { return 0 }

// TestMarshalJSONOfStoredOutOfRangeNumber: a number float64 cannot hold,
// stored before the checks, is written as a string, without touching the
// stored value.
func TestMarshalJSONOfStoredOutOfRangeNumber(t *testing.T) {
	stored := map[string]any{"n": json.Number("1e400"), "ok": json.Number("2"), "list": []any{json.Number("-1e999")}}
	var buf bytes.Buffer
	MarshalJSON(stored).MarshalGQL(&buf)
	if got := buf.String(); got != `{"list":["-1e999"],"n":"1e400","ok":2}` {
		t.Fatalf("written %s", got)
	}
	if stored["n"] != json.Number("1e400") || stored["list"].([]any)[0] != json.Number("-1e999") {
		t.Fatalf("the stored value was modified: %v", stored)
	}
}

// TestJSONBRoundTripsThroughBun: text holding a backslash and u0000 (not a
// NUL) survives bun's jsonb literal; it used to become a NUL, which
// PostgreSQL refuses.
func TestJSONBRoundTripsThroughBun(t *testing.T) {
	v := map[string]any{"note": `C:\u0000 and \\ and \"`, `k\u0000`: "x"}
	if got := throughBun(t, v); !reflect.DeepEqual(got, v) {
		t.Fatalf("got %#v", got)
	}
}

// throughBun encodes v as bun writes a jsonb value into a statement and
// decodes the literal as PostgreSQL would read it.
func throughBun(t testing.TB, v any) any {
	t.Helper()
	b, err := bunjson.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	lit := string(schema.BaseDialect{}.AppendJSON(nil, b))
	if strings.ContainsRune(lit, 0) {
		t.Fatalf("a NUL in the literal %q", lit)
	}
	text := strings.ReplaceAll(lit[1:len(lit)-1], "''", "'")
	var out any
	if err := bunjson.Unmarshal([]byte(text), &out); err != nil {
		t.Fatalf("the literal %s is not JSON: %v", lit, err)
	}
	return out
}

func decodeJSON(t testing.TB, text string) any {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(text))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		t.Fatalf("%.80s: %v", text, err)
	}
	return v
}

// FuzzJSONScalar: whatever JSON a client sends, the JSON scalar either
// refuses it with a client error or accepts a value that bun stores as
// it is (no NUL reaches PostgreSQL) and that every client can read back.
// The seeds run in every go test.
func FuzzJSONScalar(f *testing.F) {
	for _, seed := range []string{
		`{"address1":"1 rue de Rivoli","zip":"75001"}`, `{"n":1e400}`, `[-1e400]`, `{"a":"\u0000"}`, `{"\u0000":1}`,
		`"C:\\u0000"`, `{"a":"\\\\u0000\\"}`, `[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]`, `12345678901234567890`,
		`{"a":[1,2.5,-0,true,null,"x"]}`, `"\ud800"`, `1e-400`, `{"a'b":"'"}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		dec := json.NewDecoder(bytes.NewReader(data))
		dec.UseNumber()
		var v any
		if dec.Decode(&v) != nil {
			return
		}
		got, err := UnmarshalJSON(v)
		if err != nil {
			if apperr.CodeOf(err) != apperr.Invalid {
				t.Fatalf("refused as %s, not as a client error: %v", apperr.CodeOf(err), err)
			}
			return
		}
		if back := throughBun(t, got); !reflect.DeepEqual(normalNumbers(t, back), normalNumbers(t, got)) {
			t.Fatalf("stored %#v, read back %#v", got, back)
		}
		var buf bytes.Buffer
		MarshalJSON(got).MarshalGQL(&buf)
		var plain any // as a client without big numbers reads it
		if err := json.Unmarshal(buf.Bytes(), &plain); err != nil {
			t.Fatalf("a client cannot read %s: %v", buf.Bytes(), err)
		}
	})
}

// normalNumbers re-encodes v so that equal numbers compare equal whatever
// their spelling (1.0 and 1 are the same jsonb number).
func normalNumbers(t *testing.T, v any) any {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var out any
	if err := json.Unmarshal(b, &out); err != nil {
		return string(b) // beyond float64: compare the text
	}
	return out
}

// FuzzTimeScalar: a time is accepted only within the years 1900 to 9999
// (UTC), and then writes back as RFC 3339 that reads as the same instant.
func FuzzTimeScalar(f *testing.F) {
	for _, seed := range []string{"2026-01-31T09:00:00Z", "0000-01-01T00:00:00Z", "9999-12-31T23:59:59-23:59", "1900-01-01", "2026-02-30", "1e400"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, s string) {
		tm, err := UnmarshalTime(s)
		if err != nil {
			return
		}
		if y := tm.UTC().Year(); y < 1900 || y > 9999 {
			t.Fatalf("%q accepted as year %d", s, y)
		}
		var buf bytes.Buffer
		MarshalTime(tm).MarshalGQL(&buf)
		var text string
		if err := json.Unmarshal(buf.Bytes(), &text); err != nil {
			t.Fatal(err)
		}
		back, err := time.Parse(time.RFC3339Nano, text)
		if err != nil || !back.Equal(tm) {
			t.Fatalf("%q written as %s: %v", s, text, err)
		}
	})
}
