package models

import (
	"bytes"
	"io"
	"strconv"
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
