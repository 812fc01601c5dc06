package sheets

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// CleanCell returns s without the debris that copy-pasting from web pages,
// PDFs and word processors leaves in cells: surrounding spaces, control
// characters, zero-width characters and byte-order marks; non-breaking and
// other fixed-width spaces become ordinary spaces and tabs become spaces.
//
// Line breaks inside the text are kept (normalised to "\n") because
// descriptions and reviews legitimately have paragraphs. The zero-width
// joiner and non-joiner are only removed at the ends: inside the text they
// hold emoji sequences and some scripts (Persian, Indic) together.
func CleanCell(s string) string {
	if isClean(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		i += size
		switch {
		case r == '\r':
			if i < len(s) && s[i] == '\n' {
				i++
			}
			b.WriteByte('\n')
		case r == '\n':
			b.WriteByte('\n')
		case r == '\t', r == '\u00a0', r == '\u2007', r == '\u202f':
			b.WriteByte(' ')
		case r == '\u200b', r == '\u2060', r == '\ufeff':
			// Zero-width space, word joiner, BOM: invisible and never meant.
		case unicode.IsControl(r):
		default:
			b.WriteRune(r)
		}
	}
	return strings.TrimFunc(b.String(), func(r rune) bool {
		return unicode.IsSpace(r) || r == '\u200c' || r == '\u200d'
	})
}

// isClean is the fast path of CleanCell: printable ASCII (plus inner line
// feeds) with nothing to trim, which is what nearly every cell is.
func isClean(s string) bool {
	if s == "" {
		return true
	}
	if s[0] == ' ' || s[0] == '\n' || s[len(s)-1] == ' ' || s[len(s)-1] == '\n' {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if (c < 0x20 && c != '\n') || c >= 0x7f {
			return false
		}
	}
	return true
}

// Clip shortens s to at most n characters (runes), ending it with "…" when
// something was cut, so reports stay readable when a cell holds a whole
// description.
func Clip(s string, n int) string {
	if n <= 0 {
		return ""
	}
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	i, count := 0, 0
	for i = range s {
		if count == n-1 {
			break
		}
		count++
	}
	return s[:i] + "…"
}

// ParseBool reads the ways spreadsheets spell yes and no: true/false,
// yes/no, y/n and 1/0, in any case. ok is false for anything else, so a typo
// is reported instead of silently meaning "no".
func ParseBool(s string) (v, ok bool) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "true", "yes", "y", "1":
		return true, true
	case "false", "no", "n", "0":
		return false, true
	}
	return false, false
}
