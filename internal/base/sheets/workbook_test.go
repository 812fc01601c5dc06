package sheets

import (
	"archive/zip"
	"bytes"
	"encoding/xml"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
)

// The parts of a worksheet and its styles that decide how a workbook
// opens, as the XML has them.
type (
	xmlWorksheet struct {
		Dimension struct {
			Ref string `xml:"ref,attr"`
		} `xml:"dimension"`
		Pane struct {
			State       string `xml:"state,attr"`
			YSplit      string `xml:"ySplit,attr"`
			TopLeftCell string `xml:"topLeftCell,attr"`
		} `xml:"sheetViews>sheetView>pane"`
		Cols []struct {
			Min   int     `xml:"min,attr"`
			Max   int     `xml:"max,attr"`
			Width float64 `xml:"width,attr"`
		} `xml:"cols>col"`
		Rows []struct {
			Cells []xmlCell `xml:"c"`
		} `xml:"sheetData>row"`
	}
	xmlCell struct {
		Ref   string `xml:"r,attr"`
		Type  string `xml:"t,attr"`
		Style int    `xml:"s,attr"`
		Value string `xml:"v"`
		Text  string `xml:"is>t"`
	}
	xmlStyles struct {
		NumFmts []struct {
			ID   int    `xml:"numFmtId,attr"`
			Code string `xml:"formatCode,attr"`
		} `xml:"numFmts>numFmt"`
		CellXfs []struct {
			NumFmtID int `xml:"numFmtId,attr"`
		} `xml:"cellXfs>xf"`
	}
)

// workbookParts unzips a one-sheet workbook and decodes its sheet and
// styles.
func workbookParts(t *testing.T, data []byte) (xmlWorksheet, xmlStyles) {
	t.Helper()
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	var ws xmlWorksheet
	var st xmlStyles
	decode := func(name string, v any) {
		f, err := zr.Open(name)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		raw, err := io.ReadAll(f)
		if err != nil {
			t.Fatal(err)
		}
		if err := xml.Unmarshal(raw, v); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
	}
	decode("xl/worksheets/sheet1.xml", &ws)
	decode("xl/styles.xml", &st)
	return ws, st
}

// numFmt is the number format code of a cell's style.
func (st xmlStyles) numFmt(c xmlCell) string {
	if c.Style >= len(st.CellXfs) {
		return ""
	}
	id := st.CellXfs[c.Style].NumFmtID
	for _, f := range st.NumFmts {
		if f.ID == id {
			return f.Code
		}
	}
	return "builtin " + strconv.Itoa(id)
}

var typedHeader = []string{"Order", "Zip", "Quantity", "Total", "Paid", "Created at", "Note"}

var typedLayout = Layout{Types: []Type{Text, Text, Number, Money, Bool, Time, Text}, Currency: "EUR"}

// typedRows are n rows of every type, the last with cells that do not
// read as their column's type.
func typedRows(n int) [][]string {
	rows := make([][]string, n)
	for i := range rows {
		rows[i] = []string{"#" + strconv.Itoa(1001+i), "01067", strconv.Itoa(i + 1), "1234.50", "yes",
			"2026-11-21 15:03:00 +0100", "a note that is rather longer than its header"}
	}
	rows[n-1] = []string{"#9999", "", "many", "", "perhaps", "2026-11-21 15:03:00 UTC", ""}
	return rows
}

// TestWriteXLSXDimension: the sheet declares the range its cells fill, so
// a reader that streams the sheet sees every row. The stream writer alone
// declares A1.
func TestWriteXLSXDimension(t *testing.T) {
	for _, tt := range []struct {
		header []string
		rows   [][]string
		want   string
	}{
		{typedHeader, typedRows(1233), "A1:G1234"},
		{[]string{"A", "B"}, [][]string{{"1", "2", "3"}}, "A1:C2"}, // a row wider than the header
		{[]string{"Handle"}, nil, "A1:A1"},
	} {
		var buf bytes.Buffer
		if err := WriteXLSX(&buf, "Orders", tt.header, tt.rows, typedLayout); err != nil {
			t.Fatal(err)
		}
		ws, _ := workbookParts(t, buf.Bytes())
		if ws.Dimension.Ref != tt.want {
			t.Errorf("%d rows: dimension %q, want %q", len(tt.rows), ws.Dimension.Ref, tt.want)
		}
		if len(ws.Rows) != len(tt.rows)+1 {
			t.Errorf("%d rows written, want %d", len(ws.Rows), len(tt.rows)+1)
		}
	}
}

// TestWriteXLSXTypedCells: numbers are numbers, amounts numbers with the
// currency's format, flags booleans, times dates with a date format; text
// (a ZIP code with a leading zero) stays text, and a cell that does not
// read as its column's type is kept as text.
func TestWriteXLSXTypedCells(t *testing.T) {
	var buf bytes.Buffer
	if err := WriteXLSX(&buf, "Orders", typedHeader, typedRows(2), typedLayout); err != nil {
		t.Fatal(err)
	}
	ws, st := workbookParts(t, buf.Bytes())
	cells := map[string]xmlCell{}
	for _, r := range ws.Rows {
		for _, c := range r.Cells {
			cells[c.Ref] = c
		}
	}
	check := func(ref, typ, value, format string) {
		t.Helper()
		c, ok := cells[ref]
		if !ok {
			t.Errorf("%s is missing", ref)
			return
		}
		got := c.Value
		if c.Type == "inlineStr" {
			got = c.Text
		}
		if c.Type != typ || got != value || (format != "" && st.numFmt(c) != format) {
			t.Errorf("%s: type %q value %q format %q, want %q %q %q", ref, c.Type, got, st.numFmt(c), typ, value, format)
		}
	}
	check("A2", "inlineStr", "#1001", "")
	check("B2", "inlineStr", "01067", "")
	check("C2", "", "1", "0")
	check("D2", "", "1234.5", "[$€]#,##0.00")
	check("E2", "b", "1", "")
	check("F2", "", "46347.62708333333", "yyyy-mm-dd hh:mm:ss") // 15:03 as written, not 14:03 UTC
	// The last row: text where the type does not fit, nothing where empty.
	check("C3", "inlineStr", "many", "")
	check("E3", "inlineStr", "perhaps", "")
	check("F3", "", "46347.62708333333", "yyyy-mm-dd hh:mm:ss")
	for _, ref := range []string{"B3", "D3", "G3"} {
		if c, ok := cells[ref]; ok && (c.Value != "" || c.Text != "") {
			t.Errorf("%s holds %+v, want nothing", ref, c)
		}
	}
	header := cells["A1"]
	if header.Type != "inlineStr" || header.Text != "Order" {
		t.Errorf("A1 %+v", header)
	}
}

// TestWriteXLSXCurrencyFormats: amounts show the store's currency, by
// symbol where it has one of its own and by code otherwise, with the
// decimals written; the importers read every form back.
func TestWriteXLSXCurrencyFormats(t *testing.T) {
	for _, tt := range []struct {
		currency, amount, format, shown string
	}{
		{"USD", "12.50", "[$$]#,##0.00", "$12.50"},
		{"eur", "-1234.50", "[$€]#,##0.00", "-€1,234.50"},
		{"JPY", "1200", "[$¥]#,##0", "¥1,200"},
		{"CHF", "0.05", "#,##0.00 [$CHF]", "0.05 CHF"},
		{"KWD", "1.250", "#,##0.000 [$KWD]", "1.250 KWD"},
		{"", "3.10", "#,##0.00", "3.10"},
	} {
		var buf bytes.Buffer
		layout := Layout{Types: []Type{Money}, Currency: tt.currency}
		if err := WriteXLSX(&buf, "x", []string{"Total"}, [][]string{{tt.amount}}, layout); err != nil {
			t.Fatal(err)
		}
		ws, st := workbookParts(t, buf.Bytes())
		if got := st.numFmt(ws.Rows[1].Cells[0]); got != tt.format {
			t.Errorf("%s: format %q, want %q", tt.currency, got, tt.format)
		}
		if got := mustRead(t, buf.Bytes()).Rows[0][0]; got != tt.shown {
			t.Errorf("%s: shown as %q, want %q", tt.currency, got, tt.shown)
		}
	}
}

// TestWriteXLSXRowCurrency: amounts are shown in the currency their row
// names, which the rows under it that leave it empty share (the later rows
// of an order), and in the sheet's currency before any row names one.
func TestWriteXLSXRowCurrency(t *testing.T) {
	layout := Layout{Types: []Type{Text, CurrencyCode, Money}, Currency: "USD"}
	rows := [][]string{
		{"before", "", "1.00"},
		{"#1001", "EUR", "2.00"},
		{"#1001", "", "3.00"},
		{"#1002", "JPY", "400"},
		{"#1002", "", "500"},
	}
	var buf bytes.Buffer
	if err := WriteXLSX(&buf, "Orders", []string{"Name", "Currency", "Total"}, rows, layout); err != nil {
		t.Fatal(err)
	}
	var shown []string
	for _, row := range mustRead(t, buf.Bytes()).Rows {
		shown = append(shown, row[1]+" "+row[2])
	}
	want := []string{" $1.00", "EUR €2.00", " €3.00", "JPY ¥400", " ¥500"}
	if !slices.Equal(shown, want) {
		t.Errorf("shown %q, want %q", shown, want)
	}
}

// TestWriteXLSXFrozenHeaderAndWidths: the header row is frozen, even with
// no rows under it, and every column has a width, in ascending order, that
// fits what it shows: its header, its longest text, an amount with its
// currency and separators, a date.
func TestWriteXLSXFrozenHeaderAndWidths(t *testing.T) {
	for _, rows := range [][][]string{typedRows(3), nil} {
		var buf bytes.Buffer
		if err := WriteXLSX(&buf, "Orders", typedHeader, rows, typedLayout); err != nil {
			t.Fatal(err)
		}
		ws, _ := workbookParts(t, buf.Bytes())
		if ws.Pane.State != "frozen" || ws.Pane.YSplit != "1" || ws.Pane.TopLeftCell != "A2" {
			t.Errorf("%d rows: pane %+v, want the header row frozen", len(rows), ws.Pane)
		}
		if len(ws.Cols) != len(typedHeader) {
			t.Fatalf("%d rows: %d column widths, want %d", len(rows), len(ws.Cols), len(typedHeader))
		}
		for i, c := range ws.Cols {
			if c.Min != i+1 || c.Max != i+1 {
				t.Errorf("col %d covers %d..%d; columns must be in ascending order", i, c.Min, c.Max)
			}
		}
	}
	var buf bytes.Buffer
	if err := WriteXLSX(&buf, "Orders", typedHeader, typedRows(3), typedLayout); err != nil {
		t.Fatal(err)
	}
	ws, _ := workbookParts(t, buf.Bytes())
	for i, want := range []float64{
		8,  // "#1001": the minimum
		8,  // "01067"
		10, // "Quantity" + 2
		11, // "€1,234.50" + 2
		9,  // "perhaps", which is not a flag, + 2
		21, // "2026-11-21 15:03:00" + 2, not the written offset
		46, // the note + 2
	} {
		if got := ws.Cols[i].Width; got != want {
			t.Errorf("column %s width %v, want %v", typedHeader[i], got, want)
		}
	}
}

// TestWriteXLSXOpenpyxl opens a workbook with openpyxl in read-only mode,
// the streaming reader that trusts the sheet's dimension, when a python3
// has it (the one on PATH, or the system's, where Debian's
// python3-openpyxl goes); nothing is installed for the test.
func TestWriteXLSXOpenpyxl(t *testing.T) {
	python := ""
	for _, name := range []string{"python3", "/usr/bin/python3"} {
		if path, err := exec.LookPath(name); err == nil && exec.Command(path, "-c", "import openpyxl").Run() == nil {
			python = path
			break
		}
	}
	if python == "" {
		t.Skip("no python3 with openpyxl")
	}
	path := filepath.Join(t.TempDir(), "orders.xlsx")
	var buf bytes.Buffer
	if err := WriteXLSX(&buf, "Orders", typedHeader, typedRows(1233), typedLayout); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	script := `
import sys, openpyxl
wb = openpyxl.load_workbook(sys.argv[1], read_only=True)
ws = wb.active
rows = list(ws.iter_rows(values_only=True))
r = rows[1]
print(ws.max_row, ws.max_column, len(rows), type(r[2]).__name__, type(r[3]).__name__, type(r[4]).__name__, type(r[5]).__name__, r[5].isoformat(), r[1])
`
	out, err := exec.Command(python, "-c", script, path).CombinedOutput()
	if err != nil {
		t.Fatalf("openpyxl: %v\n%s", err, out)
	}
	want := fmt.Sprintln("1234 7 1234 int float bool datetime 2026-11-21T15:03:00 01067")
	if string(out) != want {
		t.Errorf("openpyxl read %q, want %q", out, want)
	}
}
