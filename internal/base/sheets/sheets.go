// Package sheets reads and writes the spreadsheets people exchange with the
// store: CSV from any program (Excel, Numbers, LibreOffice, Google Sheets,
// other platforms' exports) and XLSX workbooks.
//
// The format is decided from the bytes, never from the file name, because
// uploads routinely arrive misnamed ("products.csv" that is really a workbook,
// or a name the browser made up). What comes out is a plain Table of strings;
// giving the cells meaning is the job of the packages for each layout
// (productsheet, reviewsheet), which share the report types defined here so a
// client sees the same shape of problems for every kind of import.
//
// Everything here is pure: no database, no HTTP, no files on disk, so an
// import can be previewed (parsed and reported) without touching the store.
package sheets

import (
	"fmt"
	"strings"
	"unicode"
)

// Table is one sheet of a spreadsheet: a header row and the data rows under
// it, all as text.
type Table struct {
	// Format is "csv" or "xlsx": what the bytes turned out to be.
	Format string
	// Header holds the trimmed header cells. Trailing empty header cells are
	// dropped, because data under a column without a name cannot be given a
	// meaning.
	Header []string
	// Rows are the data rows, each padded or truncated to len(Header). Fully
	// empty rows are left out.
	Rows [][]string
	// RowNumbers[i] is the number a spreadsheet program shows for Rows[i]
	// (the header being row 1 when the file starts with it). It is kept
	// because empty rows are dropped: error messages must name the row the
	// person sees, not the position in Rows. In a CSV a quoted cell spanning
	// several lines still counts as one row, as it does in a spreadsheet.
	RowNumbers []int
}

// Col returns the index of the first header cell that matches any of names,
// or -1. Matching ignores case, spaces, underscores, hyphens and punctuation,
// so "Compare-at price", "compare_at_price" and "Compare At Price" are the
// same column: files are edited by hand and exported by many programs, and
// none of them agree on spelling.
func (t *Table) Col(names ...string) int {
	if t == nil || len(names) == 0 {
		return -1
	}
	keys := make([]string, 0, len(names))
	for _, n := range names {
		if k := HeaderKey(n); k != "" {
			keys = append(keys, k)
		}
	}
	for i, h := range t.Header {
		hk := HeaderKey(h)
		for _, k := range keys {
			if hk == k {
				return i
			}
		}
	}
	return -1
}

// HeaderKey is the form in which header names are compared by Col: lower
// case letters and digits only.
func HeaderKey(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	for _, r := range s {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			b.WriteRune(unicode.ToLower(r))
		}
	}
	return b.String()
}

// Problem is an error found in one row (or, with Row 1, in the header).
// Column is the header text as it appears in the file, so the person can
// find the cell.
type Problem struct {
	Row     int    `json:"row"`
	Column  string `json:"column,omitempty"`
	Message string `json:"message"`
}

// Skip is a record that was not imported, with the reason.
type Skip struct {
	Row    int    `json:"row"`
	Handle string `json:"handle"`
	Reason string `json:"reason"`
}

// Cleaned reports a cell whose value was changed on the way in (stray
// spaces, invisible characters, a normalised handle, a rounded weight), so
// the change is never silent.
type Cleaned struct {
	Row    int    `json:"row"`
	Column string `json:"column"`
	Before string `json:"before"`
	After  string `json:"after"`
}

// NotThisSheet is the error of a file that is not the kind of sheet an
// import reads, because its header lacks the columns every row needs
// (missing says which, for the person who sent it); nil when none is
// missing. An import refuses such a file whole rather than reporting
// nothing imported as a success.
func NotThisSheet(kind string, missing []string) error {
	if len(missing) == 0 {
		return nil
	}
	return fmt.Errorf("this is not a %s sheet: %s", kind, strings.Join(missing, "; "))
}
