// Package handle holds the one rule for handles: the URL handles of
// products and collections (checked, generated from titles, read from
// sheets) and the handles of stores.
package handle

import (
	"strings"
	"unicode"

	"golang.org/x/text/unicode/norm"
)

// MaxLength bounds a product or collection handle, which becomes part of
// a URL.
const MaxLength = 255

// MaxStoreLength bounds a store handle, the length of a DNS label.
const MaxStoreLength = 63

// Valid reports whether h is a product or collection handle: lower-case
// words of ASCII letters and digits joined by single dashes, at most
// MaxLength bytes ("blue-cotton-shirt").
func Valid(h string) bool { return len(h) <= MaxLength && shape(h, false) }

// ValidStore reports whether h is a store handle: 1 to MaxStoreLength
// lower-case ASCII letters, digits and dashes, neither first nor last a
// dash. It has the shape of a DNS label, which, unlike a product handle,
// may hold dashes in a row ("acme--eu").
func ValidStore(h string) bool { return len(h) <= MaxStoreLength && shape(h, true) }

var handleFolds = map[rune]string{
	'ß': "ss", 'æ': "ae", 'Æ': "ae", 'ø': "o", 'Ø': "o", 'œ': "oe", 'Œ': "oe",
	'ł': "l", 'Ł': "l", 'đ': "d", 'Đ': "d", 'þ': "th", 'Þ': "th",
}

// From makes a handle usable in a URL: lower case ASCII letters,
// digits and single dashes. Accents are folded ("Café" -> "cafe"),
// apostrophes dropped ("Women's" -> "womens") and any other run of
// characters becomes one dash.
func From(s string) string {
	if shape(s, false) {
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

// shape reports whether s is lower-case ASCII letters, digits and dashes,
// neither first nor last a dash, and no two dashes in a row unless
// dashesInARow.
func shape(s string, dashesInARow bool) bool {
	if s == "" || s[0] == '-' || s[len(s)-1] == '-' {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'a' && c <= 'z', c >= '0' && c <= '9':
		case c == '-':
			if !dashesInARow && s[i-1] == '-' {
				return false
			}
		default:
			return false
		}
	}
	return true
}
