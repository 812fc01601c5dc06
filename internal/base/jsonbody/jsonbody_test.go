package jsonbody

import (
	"net/http/httptest"
	"strings"
	"testing"
	"unicode/utf8"

	"storeadmin/internal/base/apperr"
)

func TestMarkUnstorable(t *testing.T) {
	for in, want := range map[string]string{
		`{"a":"plain é 😀"}`:        `{"a":"plain é 😀"}`,
		`{"a":"\ud83d\ude00"}`:     `{"a":"\ud83d\ude00"}`, // a pair: one character
		`{"a":"x\ud800y"}`:         `{"a":"x\u0000y"}`,
		`{"a":"\ud800\u0041"}`:     `{"a":"\u0000\u0041"}`,
		`{"a":"\udc00"}`:           `{"a":"\u0000"}`,
		`{"a":"\\ud800"}`:          `{"a":"\\ud800"}`, // an escaped backslash, then text
		"{\"a\":\"x\xffy\"}":       `{"a":"x\u0000y"}`,
		"{\"a\":\"\xe2\x82\"}":     `{"a":"\u0000\u0000"}`,
		"{\"a\":\"\xed\xa0\x80\"}": `{"a":"\u0000\u0000\u0000"}`, // a surrogate in UTF-8
		`{"a":"\u12"}`:             `{"a":"\u12"}`,               // left for the decoder to refuse
		"{\"\xff\":1}":             `{"\u0000":1}`,
	} {
		if got := string(markUnstorable([]byte(in))); got != want {
			t.Errorf("%q: got %q, want %q", in, got, want)
		}
	}
}

func TestReadAndDecode(t *testing.T) {
	req := httptest.NewRequest("POST", "/", strings.NewReader(strings.Repeat(" ", MaxBytes+1)))
	if _, err := Read(req); apperr.CodeOf(err) != apperr.TooLarge {
		t.Fatalf("a body over the limit: %v", err)
	}
	req = httptest.NewRequest("POST", "/", strings.NewReader(strings.Repeat(" ", MaxBytes)))
	if _, err := Read(req); err != nil {
		t.Fatalf("a body at the limit: %v", err)
	}
	for body, says := range map[string]string{
		`{"a":1}}]]`:       "more follows it at byte 7",
		`{"a":1} {}`:       "more follows",
		`{"a":`:            "ends too early",
		`{"a" 1}`:          "at byte",
		``:                 "ends too early",
		`{"query": 5}`:     "query must be a string, not a number",
		`[]`:               "it must be an object, not a list",
		"{\"a\":\"\x00\"}": "invalid character",
	} {
		var v struct {
			Query string `json:"query"`
		}
		err := Decode([]byte(body), &v)
		if apperr.CodeOf(err) != apperr.BadRequest || !strings.Contains(err.Error(), says) {
			t.Errorf("%q: %v, want a BadRequest saying %q", body, err, says)
		}
	}
	var v any
	if err := Decode([]byte(" {\"a\":[1,2]}\n\t "), &v); err != nil {
		t.Fatal(err)
	}
}

// FuzzMarkUnstorable: the marked body is valid UTF-8, and a body that was
// valid UTF-8 without surrogate escapes comes back unchanged.
func FuzzMarkUnstorable(f *testing.F) {
	for _, seed := range []string{`{"a":"\ud800"}`, "\xff", `\\ud800`, `"\ud83d\ude00"`, `\u`, `\`} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		out := markUnstorable(raw)
		if !utf8.Valid(out) {
			t.Fatalf("%q marked as %q: not UTF-8", raw, out)
		}
		if utf8.Valid(raw) && !strings.Contains(strings.ToLower(string(raw)), `\ud`) && string(out) != string(raw) {
			t.Fatalf("%q changed to %q", raw, out)
		}
	})
}
