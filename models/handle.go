package models

import (
	"strings"

	"storeadmin/internal/base/handle"
)

// MaxHandleLength bounds product and collection handles.
const MaxHandleLength = handle.MaxLength

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
