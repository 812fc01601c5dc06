package models

import (
	"regexp"
	"strings"

	"storeadmin/internal/handle"
)

// MaxHandleLength bounds product and collection handles.
const MaxHandleLength = handle.MaxLength

// HandleRE is the shape of a handle: lowercase words of letters and digits
// joined by single dashes.
var HandleRE = regexp.MustCompile(`^[a-z0-9]+(-[a-z0-9]+)*$`)

// Handleize turns a title into a handle by the rule sheets use too
// ("Crème Brûlée 2" -> "creme-brulee-2", "Women's" -> "womens"), leaving
// room for a -N suffix. It returns "" when nothing usable is left.
func Handleize(title string) string {
	h := handle.From(title)
	if len(h) > MaxHandleLength-8 {
		h = strings.TrimRight(h[:MaxHandleLength-8], "-")
	}
	return h
}
