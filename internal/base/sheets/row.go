package sheets

import (
	"cmp"
	"fmt"
	"slices"
)

// ClipLength is how much of a cell Cleaned reports show before and after a
// change: enough to recognise the cell, short enough for a report.
const ClipLength = 80

// Row hands out the cleaned cells of one table row and collects what was
// changed and what was wrong, so every layout reports cells the same way:
// each changed cell once, from its original to its final text.
type Row struct {
	// Num is the row number the person sees in the spreadsheet.
	Num     int
	cells   []string
	header  []string
	cleaned []cleanedCell
	errs    []Problem
}

type cleanedCell struct {
	col int
	Cleaned
}

// Row returns a reader for Rows[i].
func (t *Table) Row(i int) *Row {
	num := i + 2
	if i < len(t.RowNumbers) {
		num = t.RowNumbers[i]
	}
	return &Row{Num: num, cells: t.Rows[i], header: t.Header}
}

// Cell returns the cleaned text of column col ("" when col is -1, as Col
// returns for a missing column) and records the cleaning if it changed
// anything.
func (r *Row) Cell(col int) string {
	if col < 0 || col >= len(r.cells) {
		return ""
	}
	raw := r.cells[col]
	v := CleanCell(raw)
	if v != raw {
		r.Changed(col, v)
	}
	return v
}

// Blank reports whether column col is empty once cleaned, without recording
// anything.
func (r *Row) Blank(col int) bool {
	return col < 0 || col >= len(r.cells) || CleanCell(r.cells[col]) == ""
}

// Changed records after as the final value of column col. A cell changed
// twice (cleaned, then normalised) is reported once.
func (r *Row) Changed(col int, after string) {
	if col < 0 || col >= len(r.cells) {
		return
	}
	for i := range r.cleaned {
		if r.cleaned[i].col == col {
			r.cleaned[i].After = after
			return
		}
	}
	r.cleaned = append(r.cleaned, cleanedCell{col, Cleaned{Row: r.Num, Column: r.header[col], Before: r.cells[col], After: after}})
}

// Fail records a problem with column col (-1 for the row as a whole).
func (r *Row) Fail(col int, format string, args ...any) {
	p := Problem{Row: r.Num, Message: fmt.Sprintf(format, args...)}
	if col >= 0 && col < len(r.header) {
		p.Column = r.header[col]
	}
	r.errs = append(r.errs, p)
}

// Problems returns the problems recorded so far.
func (r *Row) Problems() []Problem { return r.errs }

// Cleaned returns the changed cells in column order, with Before and After
// clipped to ClipLength characters.
func (r *Row) Cleaned() []Cleaned {
	if len(r.cleaned) == 0 {
		return nil
	}
	slices.SortFunc(r.cleaned, func(a, b cleanedCell) int { return cmp.Compare(a.col, b.col) })
	out := make([]Cleaned, len(r.cleaned))
	for i, c := range r.cleaned {
		c.Before = Clip(c.Before, ClipLength)
		c.After = Clip(c.After, ClipLength)
		out[i] = c.Cleaned
	}
	return out
}
