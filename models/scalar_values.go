package models

import (
	"bytes"
	"io"
	"strconv"
	"time"

	"github.com/99designs/gqlgen/graphql"
)

// intValue and stringValue are the marshallers of the Int and String
// scalars: a value each, where gqlgen's are a closure each and an Int's
// also formats its digits into a new string. A page of 50 products with
// their variants writes some 750 scalars, and these were a sixth of its
// allocations. The executor writes the answer into a bytes.Buffer, which
// they append to in place.
type (
	intValue    int64
	stringValue string
	timeValue   time.Time
)

func (n intValue) MarshalGQL(w io.Writer) {
	if b, ok := w.(*bytes.Buffer); ok {
		b.Write(strconv.AppendInt(b.AvailableBuffer(), int64(n), 10))
		return
	}
	io.WriteString(w, strconv.FormatInt(int64(n), 10))
}

// MarshalGQL quotes s as gqlgen's String does: the control characters
// below U+0020, the quote and the backslash escaped, everything else
// (stored text is valid UTF-8) as it is.
func (s stringValue) MarshalGQL(w io.Writer) {
	const hex = "0123456789ABCDEF"
	io.WriteString(w, `"`)
	start := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x20 && c != '\\' && c != '"' {
			continue
		}
		io.WriteString(w, string(s[start:i]))
		switch c {
		case '\t':
			io.WriteString(w, `\t`)
		case '\r':
			io.WriteString(w, `\r`)
		case '\n':
			io.WriteString(w, `\n`)
		case '\\':
			io.WriteString(w, `\\`)
		case '"':
			io.WriteString(w, `\"`)
		default:
			io.WriteString(w, `\u00`+hex[c>>4:c>>4+1]+hex[c&0xf:c&0xf+1])
		}
		start = i + 1
	}
	io.WriteString(w, string(s[start:]))
	io.WriteString(w, `"`)
}

// MarshalGQL writes t as a quoted RFC 3339 time in UTC, appended to the
// answer's buffer (gqlgen's is a closure, a formatted string and its
// quoted copy).
func (t timeValue) MarshalGQL(w io.Writer) {
	if b, ok := w.(*bytes.Buffer); ok {
		out := append(b.AvailableBuffer(), '"')
		out = time.Time(t).UTC().AppendFormat(out, time.RFC3339Nano)
		b.Write(append(out, '"'))
		return
	}
	io.WriteString(w, `"`+time.Time(t).UTC().Format(time.RFC3339Nano)+`"`)
}

// StringAt, IntAt and TimeAt marshal the String, Int or Time a record holds
// at p, and StringOrNull, IntOrNull and TimeOrNull its nullable ones: the
// executor writes a record's plain fields with them (graph/generate,
// plain.go). A value copied into an interface is an allocation (a string
// is two words, a time three); the address of the field, in a record that
// is already on the heap, is not. The record must not change until the
// answer is written, which holds for what resolvers return.
func StringAt(p *string) graphql.Marshaler { return (*stringAt)(p) }

// IntAt: see StringAt.
func IntAt(p *int64) graphql.Marshaler { return (*intAt)(p) }

// TimeAt: see StringAt.
func TimeAt(p *time.Time) graphql.Marshaler { return (*timeAt)(p) }

// StringOrNull: see StringAt; nil is null.
func StringOrNull(p *string) graphql.Marshaler {
	if p == nil {
		return graphql.Null
	}
	return (*stringAt)(p)
}

// IntOrNull: see StringAt; nil is null.
func IntOrNull(p *int64) graphql.Marshaler {
	if p == nil {
		return graphql.Null
	}
	return (*intAt)(p)
}

// TimeOrNull: see StringAt; nil is null.
func TimeOrNull(p *time.Time) graphql.Marshaler {
	if p == nil {
		return graphql.Null
	}
	return (*timeAt)(p)
}

// StringsAt and IntsAt marshal a record's list of Strings or Ints at p
// (see StringAt): the list as one value, where gqlgen's made a value for
// each element and an array to hold them. A nil list is empty, as
// gqlgen's non-null list writes it.
func StringsAt(p *[]string) graphql.Marshaler { return (*stringsAt)(p) }

// IntsAt: see StringsAt.
func IntsAt(p *[]int64) graphql.Marshaler { return (*intsAt)(p) }

type (
	stringAt  string
	intAt     int64
	timeAt    time.Time
	stringsAt []string
	intsAt    []int64
)

func (l *stringsAt) MarshalGQL(w io.Writer) {
	io.WriteString(w, "[")
	for i, s := range *l {
		if i > 0 {
			io.WriteString(w, ",")
		}
		stringValue(s).MarshalGQL(w)
	}
	io.WriteString(w, "]")
}

func (l *intsAt) MarshalGQL(w io.Writer) {
	io.WriteString(w, "[")
	for i, n := range *l {
		if i > 0 {
			io.WriteString(w, ",")
		}
		intValue(n).MarshalGQL(w)
	}
	io.WriteString(w, "]")
}

func (s *stringAt) MarshalGQL(w io.Writer) { stringValue(*s).MarshalGQL(w) }
func (n *intAt) MarshalGQL(w io.Writer)    { intValue(*n).MarshalGQL(w) }
func (t *timeAt) MarshalGQL(w io.Writer)   { timeValue(*t).MarshalGQL(w) }
