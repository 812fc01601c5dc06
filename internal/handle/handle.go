// Package handle makes the URL handles of products and collections: one
// rule for handles generated from titles and for handles read from sheets.
package handle

import (
	"strings"
	"unicode"

	"golang.org/x/text/unicode/norm"
)

// MaxLength bounds a handle, which becomes part of a URL.
const MaxLength = 255

var handleFolds = map[rune]string{
	'ß': "ss", 'æ': "ae", 'Æ': "ae", 'ø': "o", 'Ø': "o", 'œ': "oe", 'Œ': "oe",
	'ł': "l", 'Ł': "l", 'đ': "d", 'Đ': "d", 'þ': "th", 'Þ': "th",
}

// From makes a handle usable in a URL: lower case ASCII letters,
// digits and single dashes. Accents are folded ("Café" -> "cafe"),
// apostrophes dropped ("Women's" -> "womens") and any other run of
// characters becomes one dash.
func From(s string) string {
	if isHandle(s) {
		return s
	}
	var b strings.Builder
	dash := false
	write := func(str string) {
		b.WriteString(str)
		dash = false
	}
	for _, r := range norm.NFKD.String(s) {
		switch {
		case unicode.Is(unicode.Mn, r):
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9':
			write(string(r))
		case r >= 'A' && r <= 'Z':
			write(string(r + ('a' - 'A')))
		case r == '\'' || r == '’' || r == '`':
		case handleFolds[r] != "":
			write(handleFolds[r])
		default:
			if b.Len() > 0 && !dash {
				b.WriteByte('-')
				dash = true
			}
		}
	}
	return strings.TrimRight(b.String(), "-")
}

func isHandle(s string) bool {
	if s == "" || s[0] == '-' || s[len(s)-1] == '-' {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'a' && c <= 'z', c >= '0' && c <= '9':
		case c == '-':
			if s[i-1] == '-' {
				return false
			}
		default:
			return false
		}
	}
	return true
}
