package apitest_test

import (
	"bytes"
	"encoding/json"
	"io"
	"mime/multipart"
	"net/http"
	"reflect"
	"strings"
	"testing"

	"github.com/xuri/excelize/v2"

	"storeadmin/internal/app/apitest"
	"storeadmin/internal/auth"
)

const (
	czshParse = "/store/customizer/sheets/parse"
	czshBuild = "/store/customizer/sheets/build.xlsx"
	czshXLSX  = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"
)

// czshRows is the rows payload of a parse, checked: exactly {rows}, a list
// of lists of strings.
func czshRows(t *testing.T, r *apitest.Response) [][]string {
	t.Helper()
	expectPayload(t, r, "rows")
	var out [][]string
	for i, row := range r.List("rows") {
		cells, ok := row.([]any)
		if !ok {
			t.Fatalf("row %d is not a list: %s", i, r.Raw)
		}
		strs := make([]string, len(cells))
		for j, c := range cells {
			if strs[j], ok = c.(string); !ok {
				t.Fatalf("cell %d,%d is not text: %s", i, j, r.Raw)
			}
		}
		out = append(out, strs)
	}
	return out
}

// czshMultipart is data as the file part of a multipart body, and its
// content type.
func czshMultipart(name string, data []byte) ([]byte, string) {
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	fw, _ := mw.CreateFormFile("file", name)
	fw.Write(data)
	mw.Close()
	return body.Bytes(), mw.FormDataContentType()
}

// czshGraphQLParse sends data to parseCzSheet as a GraphQL multipart
// request and returns the decoded answer.
func czshGraphQLParse(t *testing.T, e *apitest.Env, key string, data []byte) map[string]any {
	t.Helper()
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	mw.WriteField("operations", `{"query":"mutation($file: Upload!) { parseCzSheet(file: $file) }","variables":{"file":null}}`)
	mw.WriteField("map", `{"0":["variables.file"]}`)
	fw, _ := mw.CreateFormFile("0", "names.csv")
	fw.Write(data)
	mw.Close()
	req, _ := http.NewRequest(http.MethodPost, e.URL+"/graphql", &body)
	req.Header.Set("Content-Type", mw.FormDataContentType())
	req.Header.Set("Authorization", "Bearer "+key)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out map[string]any
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
		t.Fatal(err)
	}
	return out
}

// czshWorkbook is a workbook whose first sheet holds rows.
func czshWorkbook(t *testing.T, rows [][]any) []byte {
	t.Helper()
	f := excelize.NewFile()
	for i, row := range rows {
		cell, _ := excelize.CoordinatesToCellName(1, i+1)
		if err := f.SetSheetRow("Sheet1", cell, &row); err != nil {
			t.Fatal(err)
		}
	}
	var buf bytes.Buffer
	if err := f.Write(&buf); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// TestCzSheetParse: an uploaded CSV (encoding and delimiter detected) or
// XLSX becomes rows of text, header first, on both surfaces, as the raw
// body or a multipart file part.
func TestCzSheetParse(t *testing.T) {
	e, _, admin := newAcme(t)

	// Windows-1252, semicolons, a blank line, stray spaces.
	csv := []byte("Name;Colour;\r\nCr\xe8me ; Red\r\n\r\nAna;\r\n")
	want := [][]string{{"Name", "Colour"}, {"Crème", "Red"}, {"Ana", ""}}
	raw := e.DoHeaders(http.MethodPost, czshParse, admin, csv, map[string]string{"Content-Type": "text/csv"}).Expect(t, 200)
	if got := czshRows(t, raw); !reflect.DeepEqual(got, want) {
		t.Fatalf("CSV rows %q, want %q", got, want)
	}
	body, ct := czshMultipart("names.csv", csv)
	part := e.DoHeaders(http.MethodPost, czshParse, admin, body, map[string]string{"Content-Type": ct}).Expect(t, 200)
	if got := czshRows(t, part); !reflect.DeepEqual(got, want) {
		t.Fatalf("multipart rows %q", got)
	}
	g := czshGraphQLParse(t, e, admin, csv)
	if data, _ := g["data"].(map[string]any); g["errors"] != nil || !reflect.DeepEqual(data["parseCzSheet"], raw.Body["rows"]) {
		t.Fatalf("GraphQL %v, REST %v", g, raw.Body["rows"])
	}

	// A workbook: the displayed text of each cell.
	book := czshWorkbook(t, [][]any{{"Name", "Qty", "Note"}, {"Ana", 3, "=not a formula"}, {"Bo", 12.5, nil}})
	r := e.DoHeaders(http.MethodPost, czshParse, admin, book, map[string]string{"Content-Type": czshXLSX}).Expect(t, 200)
	if got, want := czshRows(t, r), [][]string{{"Name", "Qty", "Note"}, {"Ana", "3", "=not a formula"}, {"Bo", "12.5", ""}}; !reflect.DeepEqual(got, want) {
		t.Fatalf("XLSX rows %q, want %q", got, want)
	}
}

// TestCzSheetParseBounds: what is not a sheet, and sheets past the bounds,
// are 400s that say why.
func TestCzSheetParseBounds(t *testing.T) {
	e, _, admin := newAcme(t)
	for name, c := range map[string]struct {
		body string
		says string
	}{
		"empty":          {"", "empty"},
		"old Excel":      {"\xD0\xCF\x11\xE0\xA1\xB1\x1A\xE1rest", ".xls"},
		"binary":         {"%PDF-1.4\x00\x01\x02\x03\x00\x00\x00\x00\x01\x02", "neither CSV nor XLSX"},
		"too many rows":  {"h\n" + strings.Repeat("a\n", 5000), "at most 5000"},
		"too many cols":  {strings.Repeat("h,", 100) + "h\n", "at most 100"},
		"a long cell":    {"h\n" + strings.Repeat("x", 1001) + "\n", "more than 1000 characters: row 2, column 1"},
		"a long heading": {strings.Repeat("é", 1001) + "\n", "the header row"},
	} {
		r := e.DoHeaders(http.MethodPost, czshParse, admin, []byte(c.body), map[string]string{"Content-Type": "text/csv"})
		if r.Status != 400 || !strings.Contains(r.Message(), c.says) {
			t.Fatalf("%s: %d %s, want 400 saying %q", name, r.Status, r.Raw, c.says)
		}
		r.Expect(t, 400)
	}
	// The bounds are inclusive.
	ok := e.DoHeaders(http.MethodPost, czshParse, admin, []byte(strings.Repeat("h,", 99)+"h\n"+strings.Repeat(strings.Repeat("y", 1000)+"\n", 4999)),
		map[string]string{"Content-Type": "text/csv"}).Expect(t, 200)
	if rows := czshRows(t, ok); len(rows) != 5000 || len(rows[0]) != 100 || len(rows[1][0]) != 1000 {
		t.Fatalf("at the bounds: %d rows", len(rows))
	}
	if g := czshGraphQLParse(t, e, admin, []byte("h\n"+strings.Repeat("x", 1001))); g["errors"] == nil {
		t.Fatalf("GraphQL took a long cell: %v", g)
	}
}

// TestCzSheetBuild: rows become a workbook download, the first row its
// header, every cell text (a formula stays text); parsing it gives the rows
// back; GraphQL answers a signed URL, in CSV if asked.
func TestCzSheetBuild(t *testing.T) {
	e, _, admin := newAcme(t)
	rows := [][]string{{"Name", "Code", "Formula"}, {"Crème", "00123", "=HYPERLINK(\"http://x\")"}, {"Ana", "-5", ""}, {"", "", "@SUM(A1)"}}
	r := e.Do(http.MethodPost, czshBuild, admin, map[string]any{"rows": rows}).Expect(t, 200)
	if ct := r.Header.Get("Content-Type"); ct != czshXLSX {
		t.Fatalf("content type %q", ct)
	}
	if cd := r.Header.Get("Content-Disposition"); !strings.HasPrefix(cd, "attachment; filename=customizer_sheet_") || !strings.HasSuffix(cd, ".xlsx") {
		t.Fatalf("content disposition %q", cd)
	}
	f, err := excelize.OpenReader(bytes.NewReader(r.Raw))
	if err != nil {
		t.Fatal(err)
	}
	sheet := f.GetSheetList()[0]
	for cell, want := range map[string]string{"A1": "Name", "A2": "Crème", "B2": "00123", "C2": `=HYPERLINK("http://x")`, "B3": "-5", "C4": "@SUM(A1)"} {
		if got, _ := f.GetCellValue(sheet, cell); got != want {
			t.Fatalf("%s = %q, want %q", cell, got, want)
		}
		if formula, _ := f.GetCellFormula(sheet, cell); formula != "" {
			t.Fatalf("%s holds the formula %q", cell, formula)
		}
	}
	back := e.DoHeaders(http.MethodPost, czshParse, admin, r.Raw, map[string]string{"Content-Type": czshXLSX}).Expect(t, 200)
	if got := czshRows(t, back); !reflect.DeepEqual(got, rows) {
		t.Fatalf("built then parsed %q, want %q", got, rows)
	}

	g := e.GraphQL(admin, `mutation($rows: [[String!]!]!) { buildCzSheet(rows: $rows, format: CSV) { filename content_type url } }`, map[string]any{"rows": rows})
	d, _ := g.Data()["buildCzSheet"].(map[string]any)
	if g.Body["errors"] != nil || d["content_type"] != "text/csv; charset=utf-8" || !strings.HasSuffix(d["filename"].(string), ".csv") {
		t.Fatalf("GraphQL build: %s", g.Raw)
	}
	resp, err := http.Get(d["url"].(string))
	if err != nil {
		t.Fatal(err)
	}
	csv, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !bytes.Contains(csv, []byte(`"'=HYPERLINK(""http://x"")"`)) || !bytes.Contains(csv, []byte("Ana,-5,")) {
		t.Fatalf("CSV download %q: a formula must be escaped, a number left alone", csv)
	}
	g = e.GraphQL(admin, `mutation { buildCzSheet(rows: [["a"]]) { filename } }`, nil)
	if name, _ := g.Data()["buildCzSheet"].(map[string]any)["filename"].(string); !strings.HasSuffix(name, ".xlsx") {
		t.Fatalf("the default format: %s", g.Raw)
	}

	row := func(n int, cell string) []string { return strings.Split(strings.Repeat(cell+"\x00", n-1)+cell, "\x00") }
	many := make([][]string, 5001)
	for i := range many {
		many[i] = []string{"a"}
	}
	expectEach400(t, e, admin, "build", http.MethodPost, czshBuild, map[string]any{
		"no rows":        map[string]any{},
		"empty rows":     map[string]any{"rows": []any{}},
		"rows an object": map[string]any{"rows": map[string]any{"a": 1}},
		"a number cell":  map[string]any{"rows": []any{[]any{"a", 5}}},
		"a null cell":    map[string]any{"rows": []any{[]any{"a", nil}}},
		"too many rows":  map[string]any{"rows": many},
		"too many cells": map[string]any{"rows": [][]string{row(101, "a")}},
		"a long cell":    map[string]any{"rows": [][]string{{"h"}, {strings.Repeat("é", 1001)}}},
		"unknown field":  map[string]any{"rows": [][]string{{"h"}}, "format": "CSV"},
	})
	if r := e.Do(http.MethodPost, czshBuild, admin, map[string]any{"rows": [][]string{{"h"}, {strings.Repeat("é", 1001)}}}).Expect(t, 400); !strings.HasPrefix(r.Message(), "rows[1][0] must be at most 1000 characters") {
		t.Fatalf("long cell: %s", r.Raw)
	}
	at := e.Do(http.MethodPost, czshBuild, admin, map[string]any{"rows": [][]string{row(100, strings.Repeat("é", 1000))}}).Expect(t, 200)
	if !bytes.HasPrefix(at.Raw, []byte("PK")) {
		t.Fatalf("at the bounds: %q", at.Raw[:min(len(at.Raw), 20)])
	}
}

// TestCzSheetAccess: both helpers are writes: customizer:write, admin.
func TestCzSheetAccess(t *testing.T) {
	e, s, _ := newAcme(t)
	otherScope := e.Key(s.ID, auth.RoleAdmin, "products:read", "products:write")
	writes := []apitest.Call{
		{Method: http.MethodPost, Path: czshParse, Body: "a,b\n1,2\n"},
		{Method: http.MethodPost, Path: czshBuild, Body: map[string]any{"rows": [][]string{{"a"}}}},
	}
	k := checkAccess(t, e, s.ID, "customizer", map[string]string{"other scope": otherScope}, nil, writes)
	for _, c := range writes {
		e.Do(c.Method, c.Path, k.writer, c.Body).Expect(t, 200)
	}
	expectGraphQLCode(t, e, k.readOnly, "FORBIDDEN", nil, `mutation { buildCzSheet(rows: [["a"]]) { url } }`)
}
