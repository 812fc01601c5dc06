package sheets

import (
	"archive/zip"
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/xuri/excelize/v2"
	"golang.org/x/text/encoding/charmap"
	"golang.org/x/text/encoding/unicode"
)

var (
	zipSignature  = []byte("PK\x03\x04")
	oleSignature  = []byte{0xD0, 0xCF, 0x11, 0xE0, 0xA1, 0xB1, 0x1A, 0xE1}
	utf8BOM       = []byte{0xEF, 0xBB, 0xBF}
	utf16LEBOM    = []byte{0xFF, 0xFE}
	utf16BEBOM    = []byte{0xFE, 0xFF}
	errNotASheet  = errors.New("the file is neither CSV nor XLSX")
	errEmpty      = errors.New("the file is empty")
	errLegacyXLS  = errors.New("this is an old Excel .xls file; save it as .xlsx or CSV")
	errXLSXBroken = errors.New("the XLSX file is damaged and could not be read; open it in a spreadsheet program and save it again")
)

// Read reads one table from r, which holds at most maxBytes bytes.
//
// XLSX is recognised by the zip signature and read with excelize: the first
// sheet, or the first non-empty one when the first is empty, since people
// keep their data on a later tab of an otherwise blank workbook. Cell values
// are read as the spreadsheet program displays them (number formats
// applied), because that is what the person checked before uploading.
//
// Anything else is read as delimited text: UTF-8 with or without BOM, UTF-16
// with BOM (what Excel's "Unicode text" writes), and, when the bytes are not
// valid UTF-8, Windows-1252, the encoding of CSV saved by Excel on Western
// Windows. The delimiter is sniffed from the header line (comma, semicolon as
// written by Excel in locales with a decimal comma, or tab). Parsing is
// lenient: stray quotes and rows of different lengths are accepted, because
// rejecting a whole file over one odd quote helps nobody.
//
// Errors are plain errors whose text is meant to be shown to the person who
// uploaded the file.
func Read(r io.Reader, maxBytes int64) (*Table, error) {
	if maxBytes <= 0 {
		return nil, errors.New("sheets: maxBytes must be positive")
	}
	data, err := io.ReadAll(io.LimitReader(r, maxBytes+1))
	if err != nil {
		return nil, fmt.Errorf("the file could not be read: %w", err)
	}
	if int64(len(data)) > maxBytes {
		return nil, fmt.Errorf("the file is larger than %s", formatSize(maxBytes))
	}
	if len(data) == 0 {
		return nil, errEmpty
	}
	switch {
	case bytes.HasPrefix(data, zipSignature):
		return readXLSX(data, maxBytes)
	case bytes.HasPrefix(data, oleSignature):
		// Compound File Binary: a legacy .xls workbook (or an encrypted
		// .xlsx, which people also fix by saving it again without a
		// password).
		return nil, errLegacyXLS
	}
	text, err := decodeText(data)
	if err != nil {
		return nil, err
	}
	return readCSV(text)
}

// formatSize writes a byte limit the way people talk about file sizes.
func formatSize(n int64) string {
	const kb, mb = 1 << 10, 1 << 20
	switch {
	case n >= mb:
		return strconv.FormatFloat(float64(n)/mb, 'f', decimalsFor(n, mb), 64) + " MB"
	case n >= kb:
		return strconv.FormatFloat(float64(n)/kb, 'f', decimalsFor(n, kb), 64) + " KB"
	default:
		return strconv.FormatInt(n, 10) + " bytes"
	}
}

func decimalsFor(n, unit int64) int {
	if n%unit == 0 {
		return 0
	}
	return 1
}

// decodeText turns the bytes of a text file into a UTF-8 string.
func decodeText(data []byte) (string, error) {
	var text string
	switch {
	case bytes.HasPrefix(data, utf8BOM):
		text = strings.ToValidUTF8(string(data[len(utf8BOM):]), "\uFFFD")
	case bytes.HasPrefix(data, utf16LEBOM):
		s, err := unicode.UTF16(unicode.LittleEndian, unicode.ExpectBOM).NewDecoder().Bytes(data)
		if err != nil {
			return "", errNotASheet
		}
		text = string(s)
	case bytes.HasPrefix(data, utf16BEBOM):
		s, err := unicode.UTF16(unicode.BigEndian, unicode.ExpectBOM).NewDecoder().Bytes(data)
		if err != nil {
			return "", errNotASheet
		}
		text = string(s)
	case utf8.Valid(data):
		text = string(data)
	default:
		s, err := charmap.Windows1252.NewDecoder().Bytes(data)
		if err != nil {
			return "", errNotASheet
		}
		text = string(s)
	}
	if looksBinary(text) {
		return "", errNotASheet
	}
	return text, nil
}

// looksBinary tells a PDF, image or other binary upload from text: text
// files have no NUL bytes and almost no other control characters.
func looksBinary(s string) bool {
	if strings.IndexByte(s, 0) >= 0 {
		return true
	}
	controls, total := 0, 0
	for _, r := range s {
		total++
		if r < 0x20 && r != '\t' && r != '\n' && r != '\r' && r != '\f' && r != '\v' {
			controls++
		}
	}
	return controls*100 > total
}

// readCSV parses delimited text.
func readCSV(text string) (*Table, error) {
	if strings.IndexByte(text, '\n') < 0 && strings.IndexByte(text, '\r') >= 0 {
		// Classic Mac OS line ends, which encoding/csv does not split on.
		text = strings.ReplaceAll(text, "\r", "\n")
	}
	delimiter, ok := sepLine(text)
	if ok {
		// Excel's "sep=;" hint line: honoured and, as Excel does, not
		// counted as a row.
		_, text, _ = strings.Cut(text, "\n")
	} else {
		delimiter = sniffDelimiter(text)
	}
	cr := csv.NewReader(strings.NewReader(text))
	cr.Comma = delimiter
	cr.LazyQuotes = true
	cr.FieldsPerRecord = -1

	var records [][]string
	var numbers []int
	// encoding/csv reports physical line numbers; a spreadsheet shows a
	// quoted cell with line breaks as one row, so the breaks inside earlier
	// records are subtracted. Blank lines, which encoding/csv skips, still
	// count as rows, as they do when the file is opened in a spreadsheet.
	embedded := 0
	for {
		rec, err := cr.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			var pe *csv.ParseError
			if errors.As(err, &pe) {
				return nil, fmt.Errorf("row %d: %v", pe.StartLine-embedded, pe.Err)
			}
			return nil, fmt.Errorf("the CSV could not be read: %v", err)
		}
		line, _ := cr.FieldPos(0)
		records = append(records, rec)
		numbers = append(numbers, line-embedded)
		for i, cell := range rec {
			embedded += strings.Count(cell, "\n")
			rec[i] = unescapeFormula(cell)
		}
	}
	return buildTable("csv", records, numbers)
}

// unescapeFormula undoes the apostrophe WriteCSV puts before cells that a
// spreadsheet would run as a formula, so an export can be imported again
// unchanged.
func unescapeFormula(s string) string {
	if len(s) >= 2 && s[0] == '\'' && isFormulaTrigger(s[1]) {
		return s[1:]
	}
	return s
}

// sepLine reads the "sep=X" first line Excel writes and honours to name the
// delimiter.
func sepLine(text string) (rune, bool) {
	line, _, _ := strings.Cut(text, "\n")
	line = strings.TrimRight(line, "\r")
	if len(line) != 5 || !strings.EqualFold(line[:4], "sep=") {
		return 0, false
	}
	switch d := rune(line[4]); d {
	case ',', ';', '\t', '|':
		return d, true
	}
	return 0, false
}

// sniffDelimiter picks the delimiter that occurs most often outside quotes
// in the first line; the comma wins ties and single-column files.
func sniffDelimiter(text string) rune {
	counts := map[rune]int{}
	inQuotes := false
	for _, r := range text {
		if r == '"' {
			inQuotes = !inQuotes
			continue
		}
		if inQuotes {
			continue
		}
		if r == '\n' || r == '\r' {
			break
		}
		if r == ',' || r == ';' || r == '\t' {
			counts[r]++
		}
	}
	best := ','
	for _, d := range []rune{';', '\t'} {
		if counts[d] > counts[best] {
			best = d
		}
	}
	return best
}

// readXLSX reads the first non-empty sheet of a workbook.
func readXLSX(data []byte, maxBytes int64) (*Table, error) {
	// A small zip can unpack to gigabytes; cap what excelize will inflate
	// well above what a genuine workbook of the accepted size needs.
	unzipLimit := max(64<<20, 40*maxBytes)
	f, err := excelize.OpenReader(bytes.NewReader(data), excelize.Options{
		UnzipSizeLimit:    unzipLimit,
		UnzipXMLSizeLimit: min(16<<20, unzipLimit),
	})
	if err != nil {
		if f != nil {
			_ = f.Close()
		}
		return nil, explainZip(data)
	}
	defer func() { _ = f.Close() }()

	sheetNames := f.GetSheetList()
	if len(sheetNames) == 0 {
		return nil, explainZip(data)
	}
	for _, name := range sheetNames {
		rows, err := f.GetRows(name)
		if err != nil {
			return nil, fmt.Errorf("sheet %q could not be read: %v", name, err)
		}
		numbers := make([]int, len(rows))
		empty := true
		for i, row := range rows {
			numbers[i] = i + 1
			if empty && !blank(row) {
				empty = false
			}
		}
		if !empty {
			return buildTable("xlsx", rows, numbers)
		}
	}
	return nil, errEmpty
}

// explainZip says what a zip that excelize refused is: some other zipped
// document (ODS, DOCX, a folder) or a damaged workbook.
func explainZip(data []byte) error {
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return errXLSXBroken
	}
	for _, f := range zr.File {
		if strings.EqualFold(f.Name, "xl/workbook.xml") {
			return errXLSXBroken
		}
	}
	return errNotASheet
}

// buildTable takes the first non-empty record as the header and the
// non-empty records after it as rows.
func buildTable(format string, records [][]string, numbers []int) (*Table, error) {
	start := -1
	for i, rec := range records {
		if !blank(rec) {
			start = i
			break
		}
	}
	if start < 0 {
		return nil, errEmpty
	}
	header := make([]string, len(records[start]))
	for i, h := range records[start] {
		header[i] = CleanCell(h)
	}
	for len(header) > 0 && header[len(header)-1] == "" {
		header = header[:len(header)-1]
	}
	t := &Table{Format: format, Header: header}
	width := len(header)
	for i := start + 1; i < len(records); i++ {
		rec := records[i]
		if len(rec) > width {
			rec = rec[:width]
		}
		if blank(rec) {
			continue
		}
		if len(rec) < width {
			padded := make([]string, width)
			copy(padded, rec)
			rec = padded
		}
		t.Rows = append(t.Rows, rec)
		t.RowNumbers = append(t.RowNumbers, numbers[i])
	}
	return t, nil
}

func blank(rec []string) bool {
	for _, c := range rec {
		if CleanCell(c) != "" {
			return false
		}
	}
	return true
}
