package sheets

import (
	"archive/zip"
	"bytes"
	"reflect"
	"strings"
	"testing"

	"github.com/xuri/excelize/v2"
	"golang.org/x/text/encoding/unicode"
)

func mustRead(t *testing.T, data []byte) *Table {
	t.Helper()
	tbl, err := Read(bytes.NewReader(data), 1<<20)
	if err != nil {
		t.Fatalf("Read: %v", err)
	}
	return tbl
}

func readErr(t *testing.T, data []byte, maxBytes int64) string {
	t.Helper()
	_, err := Read(bytes.NewReader(data), maxBytes)
	if err == nil {
		t.Fatalf("Read(%q) succeeded, want an error", data)
	}
	return err.Error()
}

func TestReadCSVBasic(t *testing.T) {
	tbl := mustRead(t, []byte(" Handle , Title ,Price\nshirt,Shirt,12.50\nmug,\"Mug, large\",3\n"))
	if tbl.Format != "csv" {
		t.Errorf("Format = %q", tbl.Format)
	}
	if want := []string{"Handle", "Title", "Price"}; !reflect.DeepEqual(tbl.Header, want) {
		t.Errorf("Header = %q, want %q", tbl.Header, want)
	}
	want := [][]string{{"shirt", "Shirt", "12.50"}, {"mug", "Mug, large", "3"}}
	if !reflect.DeepEqual(tbl.Rows, want) {
		t.Errorf("Rows = %q, want %q", tbl.Rows, want)
	}
	if !reflect.DeepEqual(tbl.RowNumbers, []int{2, 3}) {
		t.Errorf("RowNumbers = %v", tbl.RowNumbers)
	}
}

func TestReadEncodings(t *testing.T) {
	utf16le := func(s string) []byte {
		b, err := unicode.UTF16(unicode.LittleEndian, unicode.UseBOM).NewEncoder().Bytes([]byte(s))
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	utf16be := func(s string) []byte {
		b, err := unicode.UTF16(unicode.BigEndian, unicode.UseBOM).NewEncoder().Bytes([]byte(s))
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	tests := []struct {
		name string
		data []byte
	}{
		{"utf-8", []byte("Name,City\nCafé,Zürich\n")},
		{"utf-8 with BOM", append([]byte{0xEF, 0xBB, 0xBF}, "Name,City\nCafé,Zürich\n"...)},
		{"windows-1252", []byte("Name,City\nCaf\xe9,Z\xfcrich\n")},
		{"utf-16 LE with BOM", utf16le("Name,City\r\nCafé,Zürich\r\n")},
		{"utf-16 BE with BOM", utf16be("Name,City\r\nCafé,Zürich\r\n")},
		{"utf-16 LE tab separated (Excel Unicode text)", utf16le("Name\tCity\r\nCafé\tZürich\r\n")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tbl := mustRead(t, tt.data)
			if want := []string{"Name", "City"}; !reflect.DeepEqual(tbl.Header, want) {
				t.Errorf("Header = %q, want %q", tbl.Header, want)
			}
			if want := [][]string{{"Café", "Zürich"}}; !reflect.DeepEqual(tbl.Rows, want) {
				t.Errorf("Rows = %q, want %q", tbl.Rows, want)
			}
			if tbl.Col("name") != 0 {
				t.Errorf("Col(name) = %d; a BOM must not stick to the first header", tbl.Col("name"))
			}
		})
	}
}

func TestReadWindows1252Bytes(t *testing.T) {
	// "Café" as Excel on Western Windows saves it: 0x43 0x61 0x66 0xE9.
	tbl := mustRead(t, []byte{'T', 'i', 't', 'l', 'e', '\n', 0x43, 0x61, 0x66, 0xE9, '\n'})
	if got := tbl.Rows[0][0]; got != "Café" {
		t.Errorf("got %q, want Café", got)
	}
	// 0x80 is the euro sign in Windows-1252.
	tbl = mustRead(t, []byte("Price\n\x80 12.50\n"))
	if got := tbl.Rows[0][0]; got != "€ 12.50" {
		t.Errorf("got %q, want € 12.50", got)
	}
}

func TestReadDelimiters(t *testing.T) {
	tests := []struct {
		name, data string
		want       [][]string
	}{
		{"comma", "a,b,c\n1,2,3\n", [][]string{{"1", "2", "3"}}},
		{"semicolon", "a;b;c\n1,5;2;3\n", [][]string{{"1,5", "2", "3"}}},
		{"tab", "a\tb\tc\n1\t2,5\t3\n", [][]string{{"1", "2,5", "3"}}},
		{"semicolon with comma in quoted header", "\"a,x\";b;c\n1;2;3\n", [][]string{{"1", "2", "3"}}},
		{"single column", "handle\nshirt\n", [][]string{{"shirt"}}},
		{"Excel sep= line", "sep=;\r\na;b;c\r\n1,5;2;3\r\n", [][]string{{"1,5", "2", "3"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tbl := mustRead(t, []byte(tt.data))
			if !reflect.DeepEqual(tbl.Rows, tt.want) {
				t.Errorf("Rows = %q, want %q", tbl.Rows, tt.want)
			}
		})
	}
}

func TestReadRowNumbersAndBlankRows(t *testing.T) {
	data := "Handle,Body\n" + // row 1
		"\n" + // row 2: blank line
		"a,one\n" + // row 3
		",\n" + // row 4: only delimiters
		"b,\"two\nlines\"\n" + // row 5, one row in a spreadsheet
		"  ,  \n" + // row 6: only spaces
		"c,three\n" // row 7
	tbl := mustRead(t, []byte(data))
	if want := []int{3, 5, 7}; !reflect.DeepEqual(tbl.RowNumbers, want) {
		t.Errorf("RowNumbers = %v, want %v", tbl.RowNumbers, want)
	}
	if got := tbl.Rows[1][1]; got != "two\nlines" {
		t.Errorf("multi-line cell = %q", got)
	}
}

func TestReadLeadingBlankLinesAndCRLF(t *testing.T) {
	tbl := mustRead(t, []byte("\r\n\r\nA,B\r\n1,2\r\n"))
	if !reflect.DeepEqual(tbl.Header, []string{"A", "B"}) || !reflect.DeepEqual(tbl.RowNumbers, []int{4}) {
		t.Errorf("Header %q RowNumbers %v", tbl.Header, tbl.RowNumbers)
	}
	// Classic Mac OS line ends.
	tbl = mustRead(t, []byte("A,B\r1,2\r3,4"))
	if !reflect.DeepEqual(tbl.Rows, [][]string{{"1", "2"}, {"3", "4"}}) {
		t.Errorf("Rows = %q", tbl.Rows)
	}
}

func TestReadPadsTruncatesAndLazyQuotes(t *testing.T) {
	tbl := mustRead(t, []byte("a,b,c,,\n1\n1,2,3,4,5\n1,2\"x,3\n"))
	if !reflect.DeepEqual(tbl.Header, []string{"a", "b", "c"}) {
		t.Errorf("Header = %q (trailing empty header cells are dropped)", tbl.Header)
	}
	want := [][]string{{"1", "", ""}, {"1", "2", "3"}, {"1", "2\"x", "3"}}
	if !reflect.DeepEqual(tbl.Rows, want) {
		t.Errorf("Rows = %q, want %q", tbl.Rows, want)
	}
	// A row whose only content is under unnamed columns is empty.
	tbl = mustRead(t, []byte("a,b\n,,x\n1,2\n"))
	if !reflect.DeepEqual(tbl.RowNumbers, []int{3}) {
		t.Errorf("RowNumbers = %v", tbl.RowNumbers)
	}
}

func TestReadErrors(t *testing.T) {
	tests := []struct {
		name     string
		data     []byte
		maxBytes int64
		want     string
	}{
		{"empty", nil, 100, "the file is empty"},
		{"only blank lines", []byte("\n \n,,\n"), 100, "the file is empty"},
		{"too large", bytes.Repeat([]byte("a"), 1<<20+1), 1 << 20, "the file is larger than 1 MB"},
		{"too large, fractional", bytes.Repeat([]byte("a"), 3<<19+1), 3 << 19, "the file is larger than 1.5 MB"},
		{"legacy xls", append([]byte{0xD0, 0xCF, 0x11, 0xE0, 0xA1, 0xB1, 0x1A, 0xE1}, make([]byte, 100)...), 1 << 20, "this is an old Excel .xls file; save it as .xlsx or CSV"},
		{"png", append([]byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"), make([]byte, 50)...), 1 << 20, "the file is neither CSV nor XLSX"},
		{"zip that is not a workbook", zipWith(t, "word/document.xml", "<w/>"), 1 << 20, "the file is neither CSV nor XLSX"},
		{"damaged workbook", zipWith(t, "xl/workbook.xml", "not xml"), 1 << 20, "the XLSX file is damaged"},
		{"truncated zip", []byte("PK\x03\x04garbage"), 1 << 20, "the XLSX file is damaged"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := readErr(t, tt.data, tt.maxBytes); !strings.Contains(got, tt.want) {
				t.Errorf("error %q, want it to contain %q", got, tt.want)
			}
		})
	}
	// Exactly maxBytes is fine.
	if _, err := Read(strings.NewReader("a\nb\n"), 4); err != nil {
		t.Errorf("file of exactly maxBytes: %v", err)
	}
}

func zipWith(t *testing.T, name, content string) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	w, err := zw.Create(name)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Write([]byte(content)); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestFormatSize(t *testing.T) {
	for n, want := range map[int64]string{
		10 << 20: "10 MB", 3 << 19: "1.5 MB", 512 << 10: "512 KB", 1500: "1.5 KB", 100: "100 bytes",
	} {
		if got := formatSize(n); got != want {
			t.Errorf("formatSize(%d) = %q, want %q", n, got, want)
		}
	}
}

func TestCol(t *testing.T) {
	tbl := &Table{Header: []string{"Handle", "Body (HTML)", "Compare-at price", "Variant Compare At Price", "SEO title", "product_handle"}}
	tests := []struct {
		names []string
		want  int
	}{
		{[]string{"handle"}, 0},
		{[]string{"BODY HTML"}, 1},
		{[]string{"compare_at_price"}, 2},
		{[]string{"Variant Compare At Price", "Compare-at price"}, 2}, // first matching header wins
		{[]string{"seo-title"}, 4},
		{[]string{"Product Handle"}, 5},
		{[]string{"title"}, -1},
		{[]string{""}, -1},
		{nil, -1},
	}
	for _, tt := range tests {
		if got := tbl.Col(tt.names...); got != tt.want {
			t.Errorf("Col(%q) = %d, want %d", tt.names, got, tt.want)
		}
	}
	var nilTable *Table
	if nilTable.Col("x") != -1 {
		t.Error("nil table")
	}
}

func TestReadXLSX(t *testing.T) {
	f := excelize.NewFile()
	// The first sheet stays empty; the data is on the second, with gaps.
	if _, err := f.NewSheet("Data"); err != nil {
		t.Fatal(err)
	}
	set := func(cell string, v any) {
		if err := f.SetCellValue("Data", cell, v); err != nil {
			t.Fatal(err)
		}
	}
	set("A1", "Handle")
	set("B1", " Price ")
	set("A2", "shirt")
	set("B2", 12.5)
	set("A4", "mug") // row 3 empty
	set("B4", 3)
	set("A6", "  ") // row 6 only spaces
	set("A7", "cap")
	var buf bytes.Buffer
	if err := f.Write(&buf); err != nil {
		t.Fatal(err)
	}
	tbl := mustRead(t, buf.Bytes())
	if tbl.Format != "xlsx" {
		t.Errorf("Format = %q", tbl.Format)
	}
	if !reflect.DeepEqual(tbl.Header, []string{"Handle", "Price"}) {
		t.Errorf("Header = %q", tbl.Header)
	}
	if want := [][]string{{"shirt", "12.5"}, {"mug", "3"}, {"cap", ""}}; !reflect.DeepEqual(tbl.Rows, want) {
		t.Errorf("Rows = %q, want %q", tbl.Rows, want)
	}
	if want := []int{2, 4, 7}; !reflect.DeepEqual(tbl.RowNumbers, want) {
		t.Errorf("RowNumbers = %v, want %v", tbl.RowNumbers, want)
	}
}

func TestReadXLSXAllEmpty(t *testing.T) {
	f := excelize.NewFile()
	var buf bytes.Buffer
	if err := f.Write(&buf); err != nil {
		t.Fatal(err)
	}
	if got := readErr(t, buf.Bytes(), 1<<20); got != "the file is empty" {
		t.Errorf("error %q", got)
	}
}

func TestWriteCSVFormulaGuard(t *testing.T) {
	header := []string{"A", "B"}
	rows := [][]string{
		{"=HYPERLINK(\"http://x\")", "-5"},
		{"+1", "+cmd|' /C calc'!A0"},
		{"@SUM(1)", "-foo"},
		{"\tx", "plain"},
		{"-1.5e3", "a=b"},
		{"", "'=already"},
	}
	var buf bytes.Buffer
	if err := WriteCSV(&buf, header, rows); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	for _, want := range []string{
		`"'=HYPERLINK(""http://x"")",-5`,
		`+1,'+cmd|' /C calc'!A0`,
		`'@SUM(1),'-foo`,
		"'\tx,plain",
		"-1.5e3,a=b",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if !strings.HasPrefix(out, "\xEF\xBB\xBFA,B\n") || strings.Contains(out, "\r\n") {
		t.Errorf("want UTF-8 with a BOM and \\n line ends: %q", out)
	}
	// Read undoes the guard, so what was written comes back.
	tbl := mustRead(t, buf.Bytes())
	want := append([][]string(nil), rows...)
	want[5] = []string{"", "=already"} // an apostrophe before a trigger is always taken as the guard
	if !reflect.DeepEqual(tbl.Rows, want) {
		t.Errorf("round trip:\n got %q\nwant %q", tbl.Rows, want)
	}
}

func TestWriteXLSXRoundTrip(t *testing.T) {
	header := []string{"Handle", "Price", "Barcode", "Note", "Qty"}
	rows := [][]string{
		{"shirt", "12.50", "0012345", "=1+1", "-3"},
		{"mug", "3", "4006381333931", "multi\nline", "0"},
		{"cap", "1.10", "12345678901234567890", "ctrl\x01char", "1e5"},
		{"short"},
	}
	var buf bytes.Buffer
	if err := WriteXLSX(&buf, "Products", header, rows, Layout{Types: []Type{Text, Number, Text, Text, Number}}); err != nil {
		t.Fatal(err)
	}
	tbl := mustRead(t, buf.Bytes())
	if tbl.Format != "xlsx" || !reflect.DeepEqual(tbl.Header, header) {
		t.Fatalf("Format %q Header %q", tbl.Format, tbl.Header)
	}
	want := [][]string{
		{"shirt", "12.50", "0012345", "=1+1", "-3"},
		{"mug", "3", "4006381333931", "multi\nline", "0"},
		{"cap", "1.10", "12345678901234567890", "ctrlchar", "1e5"},
		{"short", "", "", "", ""},
	}
	if !reflect.DeepEqual(tbl.Rows, want) {
		t.Errorf("round trip:\n got %q\nwant %q", tbl.Rows, want)
	}

	f, err := excelize.OpenReader(bytes.NewReader(buf.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if got := f.GetSheetName(0); got != "Products" {
		t.Errorf("sheet name %q", got)
	}
	if formula, _ := f.GetCellFormula("Products", "D2"); formula != "" {
		t.Errorf("D2 is a formula %q; text must stay text", formula)
	}
	isText := func(cell string) bool {
		got, _ := f.GetCellType("Products", cell)
		return got == excelize.CellTypeSharedString || got == excelize.CellTypeInlineString
	}
	for cell, text := range map[string]bool{"B2": false, "C2": true, "C3": true, "D2": true, "E2": false, "E4": true} {
		if isText(cell) != text {
			t.Errorf("%s stored as text: %v, want %v", cell, !text, text)
		}
	}
	styleID, _ := f.GetCellStyle("Products", "A1")
	style, err := f.GetStyle(styleID)
	if err != nil || style.Font == nil || !style.Font.Bold {
		t.Errorf("header not bold: %+v %v", style, err)
	}
	panes, err := f.GetPanes("Products")
	if err != nil || !panes.Freeze || panes.YSplit != 1 {
		t.Errorf("header not frozen: %+v %v", panes, err)
	}
	if w, _ := f.GetColWidth("Products", "A"); w < 8 || w > 60 {
		t.Errorf("column A width %v", w)
	}
	if w, _ := f.GetColWidth("Products", "C"); w < 20 {
		t.Errorf("column C width %v, want room for a 20-digit code", w)
	}
}

func TestWriteXLSXTooLongCell(t *testing.T) {
	err := WriteXLSX(&bytes.Buffer{}, "x", []string{"A"}, [][]string{{strings.Repeat("a", excelize.TotalCellChars+1)}}, Layout{})
	if err == nil || !strings.Contains(err.Error(), "cell A2") {
		t.Errorf("err = %v", err)
	}
}

func TestSheetName(t *testing.T) {
	for in, want := range map[string]string{
		"":                      "Sheet1",
		"Products":              "Products",
		"a/b:c*d?e[f]g\\h":      "abcdefgh",
		"'quoted'":              "quoted",
		strings.Repeat("x", 40): strings.Repeat("x", 31),
		"Sheet1":                "Sheet1",
		"Ünïcödé names are fine in Excel 🎉": "Ünïcödé names are fine in Excel",
	} {
		if got := sheetName(in); got != want {
			t.Errorf("sheetName(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestPlainNumber(t *testing.T) {
	tests := []struct {
		in       string
		ok       bool
		decimals int
	}{
		{"0", true, 0}, {"12", true, 0}, {"-3", true, 0}, {"12.50", true, 2}, {"0.5", true, 1},
		{"007", false, 0}, {"-0", false, 0}, {"1e5", false, 0}, {"1,000", false, 0}, {"12.", false, 0},
		{".5", false, 0}, {"", false, 0}, {"1234567890123456", false, 0}, {"+1", false, 0}, {"abc", false, 0},
	}
	for _, tt := range tests {
		_, decimals, ok := plainNumber(tt.in)
		if ok != tt.ok || decimals != tt.decimals {
			t.Errorf("plainNumber(%q) = %d, %v; want %d, %v", tt.in, decimals, ok, tt.decimals, tt.ok)
		}
	}
}

func TestCleanCell(t *testing.T) {
	tests := map[string]string{
		"plain":                        "plain",
		"  padded\t":                   "padded",
		"non\u00a0breaking":            "non breaking",
		"\ufeffbom":                    "bom",
		"zero\u200bwidth":              "zerowidth",
		"ctrl\x07char\x7f":             "ctrlchar",
		"line\r\nbreaks\rkept":         "line\nbreaks\nkept",
		"tab\tinside":                  "tab inside",
		"\u200dedge joiner\u200d":      "edge joiner",
		"family 👨\u200d👩\u200d👧 emoji": "family 👨\u200d👩\u200d👧 emoji",
		"\u00a0\u202f":                 "",
		"":                             "",
	}
	for in, want := range tests {
		if got := CleanCell(in); got != want {
			t.Errorf("CleanCell(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestClip(t *testing.T) {
	if got := Clip("short", 80); got != "short" {
		t.Errorf("got %q", got)
	}
	long := strings.Repeat("é", 100)
	got := Clip(long, 80)
	if n := len([]rune(got)); n != 80 || !strings.HasSuffix(got, "…") {
		t.Errorf("Clip gave %d runes: %q", n, got)
	}
}

func TestParseBool(t *testing.T) {
	for in, want := range map[string]bool{"TRUE": true, "yes": true, "Y": true, "1": true, "false": false, "No": false, "n": false, "0": false} {
		if got, ok := ParseBool(in); !ok || got != want {
			t.Errorf("ParseBool(%q) = %v, %v", in, got, ok)
		}
	}
	for _, in := range []string{"", "maybe", "2", "on"} {
		if _, ok := ParseBool(in); ok {
			t.Errorf("ParseBool(%q) accepted", in)
		}
	}
}
