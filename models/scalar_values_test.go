package models

import (
	"bytes"
	"math"
	"strings"
	"testing"

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
		}
	}
	for _, s := range []string{"", "plain", `quote " and \ backslash`, "tab\tcr\rlf\n", "\x00\x01\x1f\x7f", "héllo ☃ 😀", "\u2028"} {
		for _, buffer := range []bool{true, false} {
			if got, want := write(MarshalString(s), buffer), write(graphql.MarshalString(s), buffer); got != want {
				t.Errorf("string %q: %s, want %s", s, got, want)
			}
		}
	}
}
