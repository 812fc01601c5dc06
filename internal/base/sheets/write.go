package sheets

import (
	"encoding/csv"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/xuri/excelize/v2"
)

// WriteCSV writes a header and rows as comma-separated UTF-8 with "\n" line
// ends (every spreadsheet program and Read accept them), starting with a
// byte-order mark: without it Excel opens a CSV in the computer's legacy
// code page and shows "Crème" as "CrÃ¨me". Read skips the mark.
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

// NewCSVWriter starts a CSV sheet on w with the byte-order mark and its
// header.
func NewCSVWriter(w io.Writer, header []string) (*CSVWriter, error) {
	cw := csv.NewWriter(w)
	if _, err := io.WriteString(w, "\uFEFF"); err != nil {
		return nil, err
	}
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

// Type is what the cells of a column hold. A CSV cell is the text a layout
// wrote whatever its type; a workbook stores the cell as what it is, so that
// sums, sorting and filters work in every spreadsheet program.
type Type uint8

const (
	// Text is stored as text even when it looks like a number, because ZIP
	// codes, barcodes, SKUs and phone numbers lose their leading zeros and
	// digits as numbers.
	Text Type = iota
	// Number is a plain number ("3", "-0.5", "12.50"), shown with the
	// decimals written.
	Number
	// Money is an amount in major units ("12.50"), shown with the decimals
	// written in the currency of its row (see CurrencyCode), else of the
	// sheet's Layout.
	Money
	// Bool is a yes or no in any spelling ParseBool reads, stored as the
	// spreadsheet's TRUE or FALSE.
	Bool
	// Time is a date and time written "2006-01-02 15:04:05" followed by an
	// offset ("+0100") or a zone name ("UTC"), stored as the date and time
	// written (a workbook has no time zones) with a date format.
	Time
	// CurrencyCode is the ISO 4217 code of the currency of the Money cells
	// of its row, stored as text. A row that leaves it empty continues the
	// currency of the row above, as the later rows of an order do.
	CurrencyCode
	// Percent is a ratio ("0.1234"), stored as the number and shown as a
	// percentage with two decimals (12.34%).
	Percent
)

// Layout tells WriteXLSX what a table's columns hold.
type Layout struct {
	// Types holds each column's type; columns past its end are Text.
	Types []Type
	// Currency is the ISO 4217 code of the currency Money cells are shown
	// in (the store's) when their row names none.
	Currency string
}

func (l Layout) typeOf(col int) Type {
	if col < len(l.Types) {
		return l.Types[col]
	}
	return Text
}

// currencies returns the currency of the Money cells of each row: the
// CurrencyCode cell of the row or of the nearest row above that has one,
// else the Layout's.
func (l Layout) currencies(rows [][]string) []string {
	col := slices.Index(l.Types, CurrencyCode)
	out := make([]string, len(rows))
	cur := l.Currency
	for i, row := range rows {
		if col >= 0 && col < len(row) && strings.TrimSpace(row[col]) != "" {
			cur = row[col]
		}
		out[i] = cur
	}
	return out
}

// timeLayouts are the forms of a Time cell: what the layouts write.
var timeLayouts = []string{"2006-01-02 15:04:05 -0700", "2006-01-02 15:04:05 MST"}

// dateFormat is how Time cells are shown: the text form without its zone,
// a form every spreadsheet program and the importers read as a date.
const dateFormat = "yyyy-mm-dd hh:mm:ss"

// WriteXLSX writes a header and rows as a one-sheet workbook: the header bold
// and frozen so it stays visible while scrolling, columns sized to what they
// show, and each cell stored as its column's type in layout (numbers,
// amounts with a currency format, booleans, dates with a date format), so
// that the workbook works in a spreadsheet as its data does. A cell that does
// not read as its column's type is stored as text rather than lost, and text
// is never stored as a formula.
//
// The sheet declares its dimension (the range its cells fill), which
// excelize's stream writer leaves at A1: readers that stream a sheet, such
// as openpyxl's read-only mode, trust it and would see one cell.
//
// A cell longer than a spreadsheet cell can hold (32,767 characters) is an
// error rather than being cut short, because a truncated description would
// come back truncated on the next import.
func WriteXLSX(w io.Writer, sheet string, header []string, rows [][]string, layout Layout) error {
	f := excelize.NewFile()
	defer func() { _ = f.Close() }()

	name := sheetName(sheet)
	if name != "Sheet1" {
		if err := f.SetSheetName("Sheet1", name); err != nil {
			return err
		}
	}
	currencies := layout.currencies(rows)
	widths := columnWidths(header, rows, layout, currencies)
	last, err := excelize.CoordinatesToCellName(max(1, len(widths)), len(rows)+1)
	if err != nil {
		return err
	}
	// Before the stream writer starts: it writes the dimension first.
	if err := f.SetSheetDimension(name, "A1:"+last); err != nil {
		return err
	}
	sw, err := f.NewStreamWriter(name)
	if err != nil {
		return err
	}
	bold, err := f.NewStyle(&excelize.Style{Font: &excelize.Font{Bold: true}})
	if err != nil {
		return err
	}
	// Last column first: excelize puts each column it is given before
	// those it has, and programs expect the columns in ascending order.
	for col := len(widths); col >= 1; col-- {
		if err := sw.SetColWidth(col, col, widths[col-1]); err != nil {
			return err
		}
	}
	err = sw.SetPanes(&excelize.Panes{
		Freeze:      true,
		YSplit:      1,
		TopLeftCell: "A2",
		ActivePane:  "bottomLeft",
		Selection:   []excelize.Selection{{SQRef: "A2", ActiveCell: "A2", Pane: "bottomLeft"}},
	})
	if err != nil {
		return err
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

	styles := cellStyles{f: f, ids: map[styleKey]int{}}
	for r, row := range rows {
		cells := make([]any, len(row))
		for c, s := range row {
			if s == "" {
				continue // no cell at all, rather than an empty one
			}
			v, err := styles.cell(layout.typeOf(c), s, currencies[r])
			if err != nil {
				return err
			}
			if v == nil {
				if v, err = xlsxText(s, r+2, c); err != nil {
					return err
				}
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

// styleKey names a number format: a type, how many decimals it shows and,
// for Money, the currency.
type styleKey struct {
	typ      Type
	decimals int
	currency string
}

// cellStyles makes the typed cells of a workbook, creating each number
// format once.
type cellStyles struct {
	f   *excelize.File
	ids map[styleKey]int
}

// cell is s stored as typ (amounts in currency): a value with its style,
// or nil when s does not read as typ (the caller stores it as text).
func (cs *cellStyles) cell(typ Type, s, currency string) (any, error) {
	var v any
	key := styleKey{typ: typ}
	switch typ {
	case Number, Money, Percent:
		n, decimals, ok := plainNumber(s)
		if !ok {
			return nil, nil
		}
		v, key.decimals = n, decimals
		if typ == Money {
			key.currency = currency
		}
	case Bool:
		b, ok := ParseBool(s)
		if !ok {
			return nil, nil
		}
		return b, nil
	case Time:
		t, ok := parseTime(s)
		if !ok {
			return nil, nil
		}
		v = t
	default:
		return nil, nil
	}
	id, ok := cs.ids[key]
	if !ok {
		format := numberFormat(key)
		var err error
		if id, err = cs.f.NewStyle(&excelize.Style{CustomNumFmt: &format}); err != nil {
			return nil, err
		}
		cs.ids[key] = id
	}
	return excelize.Cell{StyleID: id, Value: v}, nil
}

// numberFormat is the number format of a typed cell: numbers with the
// decimals written, amounts also with thousands separators and the
// currency, times as dateFormat.
func numberFormat(key styleKey) string {
	switch key.typ {
	case Time:
		return dateFormat
	case Percent:
		return "0.00%"
	}
	format := "0"
	if key.typ == Money {
		format = "#,##0"
	}
	if key.decimals > 0 {
		format += "." + strings.Repeat("0", key.decimals)
	}
	if key.typ == Money {
		prefix, suffix := currencyAround(key.currency)
		format = prefix + format + suffix
	}
	return format
}

// currencySymbols are the currencies whose one-character symbol names them
// alone; "$" is the US dollar's, other dollars are shown by code.
var currencySymbols = map[string]string{
	"USD": "$", "EUR": "€", "GBP": "£", "JPY": "¥", "CNY": "¥", "INR": "₹", "KRW": "₩", "ILS": "₪",
	"NGN": "₦", "PHP": "₱", "UAH": "₴", "VND": "₫", "TRY": "₺", "RUB": "₽", "KZT": "₸", "THB": "฿",
}

// currencyAround is what a Money format puts before and after the amount:
// the currency's symbol before it ("$12.50", "€12.50"), or its code after
// it ("12.50 CHF") when it has no symbol of its own. Both forms are read
// back by the importers, which strip a symbol or code around an amount.
func currencyAround(currency string) (prefix, suffix string) {
	code := strings.ToUpper(strings.TrimSpace(currency))
	if sym, ok := currencySymbols[code]; ok {
		return "[$" + sym + "]", ""
	}
	if len(code) == 3 && strings.Trim(code, "ABCDEFGHIJKLMNOPQRSTUVWXYZ") == "" {
		return "", " [$" + code + "]"
	}
	return "", ""
}

// currencyLength is how many characters the currency adds to an amount:
// what currencyAround puts around it, less the brackets of "[$…]".
func currencyLength(currency string) int {
	prefix, suffix := currencyAround(currency)
	if s := prefix + suffix; s != "" {
		return utf8.RuneCountInString(s) - len("[$]")
	}
	return 0
}

// parseTime reads a Time cell as the wall clock it shows: a workbook has
// no zones, and a person reading "15:03 +0100" expects 15:03.
func parseTime(s string) (time.Time, bool) {
	for _, layout := range timeLayouts {
		if t, err := time.Parse(layout, s); err == nil {
			return time.Date(t.Year(), t.Month(), t.Day(), t.Hour(), t.Minute(), t.Second(), 0, time.UTC), true
		}
	}
	return time.Time{}, false
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

// columnWidths sizes each column to the longest line it shows, header
// included, within limits that keep a description column from pushing
// everything else off screen.
func columnWidths(header []string, rows [][]string, layout Layout, currencies []string) []float64 {
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
	// A typed cell shows other text than it was given: an amount with
	// its currency and thousands separators, TRUE or FALSE, a date in
	// dateFormat.
	for r, row := range rows {
		for i, c := range row {
			switch layout.typeOf(i) {
			case Money:
				if _, _, ok := plainNumber(c); ok {
					intDigits := strings.IndexByte(c+".", '.') - strings.Count(c, "-")
					longest[i] = max(longest[i], len(c)+currencyLength(currencies[r])+(intDigits-1)/3)
					continue
				}
			case Bool:
				if _, ok := ParseBool(c); ok {
					longest[i] = max(longest[i], len("FALSE"))
					continue
				}
			case Time:
				if _, ok := parseTime(c); ok {
					longest[i] = max(longest[i], len(dateFormat))
					continue
				}
			}
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
