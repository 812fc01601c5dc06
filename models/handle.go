package models

import (
	"regexp"
	"strings"
	"unicode"

	"golang.org/x/text/runes"
	"golang.org/x/text/transform"
	"golang.org/x/text/unicode/norm"
)

// MaxHandleLength bounds product and collection handles.
const MaxHandleLength = 255

// HandleRE is the shape of a handle: lowercase words of letters and digits
// joined by single dashes.
var HandleRE = regexp.MustCompile(`^[a-z0-9]+(-[a-z0-9]+)*$`)

// Handleize turns a title into a handle: accents dropped, lowercase, every
// run of other characters one dash ("Crème Brûlée 2" -> "creme-brulee-2").
// It returns "" when nothing usable is left.
func Handleize(title string) string {
	folded, _, err := transform.String(transform.Chain(norm.NFD, runes.Remove(runes.In(unicode.Mn)), norm.NFC), title)
	if err != nil {
		folded = title
	}
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(folded) {
		if (r >= 'a' && r <= 'z') || (r >= '0' && r <= '9') {
			if dash && b.Len() > 0 {
				b.WriteByte('-')
			}
			dash = false
			b.WriteRune(r)
			continue
		}
		dash = true
	}
	h := b.String()
	if len(h) > MaxHandleLength-8 { // room for a -N suffix
		h = strings.TrimRight(h[:MaxHandleLength-8], "-")
	}
	return h
}
