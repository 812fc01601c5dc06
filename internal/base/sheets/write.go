package sheets

import (
	"encoding/csv"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/xuri/excelize/v2"
)

// WriteCSV writes a header and rows as comma-separated UTF-8 without a BOM,
// with "\n" line ends (every spreadsheet program and Read accept both).
//
// Formula injection: a spreadsheet opening a CSV runs any cell that starts
// with =, +, - or @ (and, in some programs, a leading tab or carriage
// return) as a formula, so text taken from customers or other systems could
// make the person exporting run a command or leak data. Such cells are
// written with a leading apostrophe, which spreadsheets show as "this is
// text" and hide. Cells that are plain numbers ("-5", "+1", "-0.5") are left
// alone, since they are not formulas and prices and stock counts must stay
// numbers. Read removes the apostrophe again, so an export imports back
// unchanged. XLSX needs no such guard: WriteXLSX stores text as text and never
// writes formulas.
func WriteCSV(w io.Writer, header []string, rows [][]string) error {
	cw, err := NewCSVWriter(w, header)
	if err != nil {
		return err
	}
	if err := cw.Write(rows); err != nil {
		return err
	}
	return cw.Close()
}

// CSVWriter writes a CSV sheet a few rows at a time, as WriteCSV writes a
// whole one, so that a large export is written as it is read.
type CSVWriter struct{ cw *csv.Writer }

// NewCSVWriter starts a CSV sheet on w with its header.
func NewCSVWriter(w io.Writer, header []string) (*CSVWriter, error) {
	cw := csv.NewWriter(w)
	return &CSVWriter{cw}, cw.Write(escapeRow(header))
}

// Write adds rows to the sheet.
func (c *CSVWriter) Write(rows [][]string) error {
	for _, row := range rows {
		if err := c.cw.Write(escapeRow(row)); err != nil {
			return err
		}
	}
	return nil
}

// Close writes out what is buffered.
func (c *CSVWriter) Close() error {
	c.cw.Flush()
	return c.cw.Error()
}

func escapeRow(row []string) []string {
	out := make([]string, len(row))
	for i, c := range row {
		out[i] = escapeFormula(c)
	}
	return out
}

func escapeFormula(s string) string {
	if s != "" && isFormulaTrigger(s[0]) && !isNumber(s) {
		return "'" + s
	}
	return s
}

func isFormulaTrigger(c byte) bool {
	switch c {
	case '=', '+', '-', '@', '\t', '\r':
		return true
	}
	return false
}

// isNumber reports whether s is a plain decimal number with an optional
// sign and exponent ("-5", "+1.25", "1e3"); ParseFloat alone would also
// accept "Inf", "NaN" and hexadecimal.
func isNumber(s string) bool {
	i := 0
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		i++
	}
	digits := 0
	for i < len(s) && isDigit(s[i]) {
		i++
		digits++
	}
	if i < len(s) && s[i] == '.' {
		i++
		for i < len(s) && isDigit(s[i]) {
			i++
			digits++
		}
	}
	if digits == 0 {
		return false
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		exp := 0
		for i < len(s) && isDigit(s[i]) {
			i++
			exp++
		}
		if exp == 0 {
			return false
		}
	}
	return i == len(s)
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// WriteXLSX writes a header and rows as a one-sheet workbook: the header bold
// and frozen so it stays visible while scrolling, columns sized to their
// content, and cells that are plain numbers stored as numbers (so totals and
// sorting work) with a number format that shows them exactly as given, so
// "12.50" stays "12.50" when the workbook is read back. Everything else is
// stored as text, never as a formula.
//
// A cell longer than a spreadsheet cell can hold (32,767 characters) is an
// error rather than being cut short, because a truncated description would
// come back truncated on the next import.
func WriteXLSX(w io.Writer, sheet string, header []string, rows [][]string) error {
	f := excelize.NewFile()
	defer func() { _ = f.Close() }()

	name := sheetName(sheet)
	if name != "Sheet1" {
		if err := f.SetSheetName("Sheet1", name); err != nil {
			return err
		}
	}
	sw, err := f.NewStreamWriter(name)
	if err != nil {
		return err
	}
	bold, err := f.NewStyle(&excelize.Style{Font: &excelize.Font{Bold: true}})
	if err != nil {
		return err
	}

	for col, width := range columnWidths(header, rows) {
		if err := sw.SetColWidth(col+1, col+1, width); err != nil {
			return err
		}
	}
	if len(rows) > 0 {
		err := sw.SetPanes(&excelize.Panes{
			Freeze:      true,
			YSplit:      1,
			TopLeftCell: "A2",
			ActivePane:  "bottomLeft",
			Selection:   []excelize.Selection{{SQRef: "A2", ActiveCell: "A2", Pane: "bottomLeft"}},
		})
		if err != nil {
			return err
		}
	}

	headerCells := make([]any, len(header))
	for i, h := range header {
		v, err := xlsxText(h, 1, i)
		if err != nil {
			return err
		}
		headerCells[i] = excelize.Cell{StyleID: bold, Value: v}
	}
	if err := sw.SetRow("A1", headerCells); err != nil {
		return err
	}

	numStyles := map[int]int{}
	numStyle := func(decimals int) (int, error) {
		if id, ok := numStyles[decimals]; ok {
			return id, nil
		}
		format := "0"
		if decimals > 0 {
			format = "0." + strings.Repeat("0", decimals)
		}
		id, err := f.NewStyle(&excelize.Style{CustomNumFmt: &format})
		if err != nil {
			return 0, err
		}
		numStyles[decimals] = id
		return id, nil
	}

	for r, row := range rows {
		cells := make([]any, len(row))
		for c, s := range row {
			if v, decimals, ok := plainNumber(s); ok {
				id, err := numStyle(decimals)
				if err != nil {
					return err
				}
				cells[c] = excelize.Cell{StyleID: id, Value: v}
				continue
			}
			v, err := xlsxText(s, r+2, c)
			if err != nil {
				return err
			}
			cells[c] = v
		}
		ref, err := excelize.CoordinatesToCellName(1, r+2)
		if err != nil {
			return err
		}
		if err := sw.SetRow(ref, cells); err != nil {
			return err
		}
	}
	if err := sw.Flush(); err != nil {
		return err
	}
	return f.Write(w)
}

// plainNumber recognises the numbers that can be stored as numbers and read
// back as the same text: an optional minus, no leading zeros (a barcode or
// ZIP code like "00123" must stay text), at most 15 significant digits (what
// a spreadsheet keeps exactly), no exponent or thousands separators.
func plainNumber(s string) (v any, decimals int, ok bool) {
	if s == "" || s == "-0" {
		return nil, 0, false
	}
	body := strings.TrimPrefix(s, "-")
	intPart, frac, hasDot := strings.Cut(body, ".")
	if intPart == "" || (hasDot && frac == "") {
		return nil, 0, false
	}
	if len(intPart) > 1 && intPart[0] == '0' {
		return nil, 0, false
	}
	for i := 0; i < len(intPart); i++ {
		if !isDigit(intPart[i]) {
			return nil, 0, false
		}
	}
	for i := 0; i < len(frac); i++ {
		if !isDigit(frac[i]) {
			return nil, 0, false
		}
	}
	significant := len(strings.TrimLeft(intPart+frac, "0"))
	if significant > 15 || len(intPart)+len(frac) > 17 {
		return nil, 0, false
	}
	if !hasDot {
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return nil, 0, false
		}
		return n, 0, true
	}
	x, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return nil, 0, false
	}
	return x, len(frac), true
}

// xlsxText prepares text for a cell: characters that XML cannot carry are
// dropped (excelize would turn them into U+FFFD), and over-long text is an
// error.
func xlsxText(s string, row, col int) (string, error) {
	s = strings.Map(func(r rune) rune {
		if r < 0x20 && r != '\t' && r != '\n' && r != '\r' {
			return -1
		}
		if r == 0xFFFE || r == 0xFFFF {
			return -1
		}
		return r
	}, s)
	if n := utf16Len(s); n > excelize.TotalCellChars {
		cell, _ := excelize.CoordinatesToCellName(col+1, row)
		return "", fmt.Errorf("cell %s has %d characters, more than the %d a spreadsheet cell can hold; export as CSV instead", cell, n, excelize.TotalCellChars)
	}
	return s, nil
}

func utf16Len(s string) int {
	n := 0
	for _, r := range s {
		n += utf16.RuneLen(r)
	}
	return n
}

// columnWidths sizes each column to its longest line of text, within limits
// that keep a description column from pushing everything else off screen.
func columnWidths(header []string, rows [][]string) []float64 {
	const minWidth, maxWidth = 8, 60
	n := len(header)
	for _, row := range rows {
		n = max(n, len(row))
	}
	longest := make([]int, n)
	measure := func(i int, s string) {
		for line := range strings.SplitSeq(s, "\n") {
			longest[i] = max(longest[i], utf8.RuneCountInString(line))
		}
	}
	for i, h := range header {
		measure(i, h)
	}
	for _, row := range rows {
		for i, c := range row {
			if len(c) > longest[i] { // cheap pre-check: bytes >= runes
				measure(i, c)
			}
		}
	}
	widths := make([]float64, n)
	for i, l := range longest {
		widths[i] = float64(min(max(l+2, minWidth), maxWidth))
	}
	return widths
}

// sheetName makes s acceptable as a worksheet name: no []:*?/\, not starting
// or ending with an apostrophe, at most 31 characters, not empty.
func sheetName(s string) string {
	s = strings.Map(func(r rune) rune {
		switch r {
		case '[', ']', ':', '*', '?', '/', '\\':
			return -1
		}
		if r < 0x20 {
			return -1
		}
		return r
	}, s)
	s = strings.Trim(strings.TrimSpace(s), "'")
	if utf8.RuneCountInString(s) > 31 {
		s = string([]rune(s)[:31])
	}
	if s == "" {
		return "Sheet1"
	}
	return s
}
