package models

import (
	"bytes"
	"math"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/99designs/gqlgen/graphql"
)

// TestScalarValuesWriteWhatGqlgenWrites: the Int and String marshallers
// write byte for byte what gqlgen's own do, into a bytes.Buffer (as the
// executor does) and into any other writer.
func TestScalarValuesWriteWhatGqlgenWrites(t *testing.T) {
	write := func(m graphql.Marshaler, buffer bool) string {
		if buffer {
			var b bytes.Buffer
			m.MarshalGQL(&b)
			return b.String()
		}
		var b strings.Builder
		m.MarshalGQL(&b)
		return b.String()
	}
	for _, n := range []int64{0, 7, 255, 256, 123456789, -42, math.MaxInt64, math.MinInt64} {
		for _, buffer := range []bool{true, false} {
			if got, want := write(MarshalInt(n), buffer), write(graphql.MarshalInt64(n), buffer); got != want {
				t.Errorf("int %d: %s, want %s", n, got, want)
			}
			if got, want := write(IntAt(&n), buffer), write(graphql.MarshalInt64(n), buffer); got != want {
				t.Errorf("int at %d: %s, want %s", n, got, want)
			}
		}
	}
	for _, s := range []string{"", "plain", `quote " and \ backslash`, "tab\tcr\rlf\n", "\x00\x01\x1f\x7f", "héllo ☃ 😀", "\u2028"} {
		for _, buffer := range []bool{true, false} {
			if got, want := write(MarshalString(s), buffer), write(graphql.MarshalString(s), buffer); got != want {
				t.Errorf("string %q: %s, want %s", s, got, want)
			}
			if got, want := write(StringOrNull(&s), buffer), write(graphql.MarshalString(s), buffer); got != want {
				t.Errorf("string at %q: %s, want %s", s, got, want)
			}
		}
	}
}

// TestTimesAndNullsByAddress: a time is written quoted, RFC 3339 in UTC,
// by value and by address; a nil address is null.
func TestTimesAndNullsByAddress(t *testing.T) {
	for _, tm := range []time.Time{
		time.Date(2026, 11, 24, 9, 30, 0, 0, time.UTC),
		time.Date(2026, 1, 2, 3, 4, 5, 600700800, time.FixedZone("CET", 3600)),
	} {
		want := strconv.Quote(tm.UTC().Format(time.RFC3339Nano))
		for _, m := range []graphql.Marshaler{MarshalTime(tm), TimeAt(&tm), TimeOrNull(&tm)} {
			var b bytes.Buffer
			m.MarshalGQL(&b)
			var s strings.Builder
			m.MarshalGQL(&s)
			if b.String() != want || s.String() != want {
				t.Errorf("%v: %s and %s, want %s", tm, b.String(), s.String(), want)
			}
		}
	}
	for _, m := range []graphql.Marshaler{StringOrNull(nil), IntOrNull(nil), TimeOrNull(nil)} {
		if m != graphql.Null {
			t.Errorf("a nil address must be null, not %#v", m)
		}
	}
}

// TestListsByAddress: a list of Strings or Ints is written as gqlgen
// writes it (an array of its elements' values); a nil list is empty.
func TestListsByAddress(t *testing.T) {
	write := func(m graphql.Marshaler) string {
		var b bytes.Buffer
		m.MarshalGQL(&b)
		return b.String()
	}
	for _, l := range [][]string{nil, {}, {"a"}, {"tab\t", `"q"`, "☃"}} {
		want := graphql.Array{}
		for _, s := range l {
			want = append(want, graphql.MarshalString(s))
		}
		if got := write(StringsAt(&l)); got != write(want) {
			t.Errorf("%q: %s, want %s", l, got, write(want))
		}
	}
	for _, l := range [][]int64{nil, {0}, {1, -2, math.MaxInt64}} {
		want := graphql.Array{}
		for _, n := range l {
			want = append(want, graphql.MarshalInt64(n))
		}
		if got := write(IntsAt(&l)); got != write(want) {
			t.Errorf("%v: %s, want %s", l, got, write(want))
		}
	}
}
