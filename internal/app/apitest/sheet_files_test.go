package apitest_test

import (
	"archive/zip"
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"mime/multipart"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/xuri/excelize/v2"

	"storeadmin/internal/app/apitest"
	"storeadmin/internal/auth"
	"storeadmin/models"
)

// TestSheetExportsOpenRight: the orders and products exports, as a
// spreadsheet program opens them. A CSV starts with the UTF-8 byte-order
// mark (without it Excel shows "Crème" as "CrÃ¨me"); a workbook declares
// the range it fills, freezes its header, sizes its columns and stores
// amounts as numbers in the store's currency, counts as numbers, flags as
// booleans and times as dates.
func TestSheetExportsOpenRight(t *testing.T) {
	e := apitest.New(t)
	ctx := context.Background()
	s := e.Store("sheets-open-right")
	s.Currency = "EUR"
	if err := models.UpdateStore(ctx, e.DB, s, "currency"); err != nil {
		t.Fatal(err)
	}
	key := e.Key(s.ID, auth.RoleAdmin)
	e.Do(http.MethodPost, "/store/products", key, map[string]any{
		"title": "Café Crème Mug", "variants": []map[string]any{{"price_cents": 123450, "sku": "MUG-1", "inventory_quantity": 7}},
	}).Expect(t, http.StatusCreated)
	for i := range 3 {
		oexOrder(t, e, s.ID, oexT0.Add(time.Duration(i)*time.Hour), []models.OrderLineItem{oexLine("Café Crème Mug", "MUG-1", 123450, 2)}, nil, nil)
	}

	for _, tt := range []struct {
		path          string
		rows          int    // data rows
		lastCol       string // the header's last column
		money, number string // a cell of each type on the first data row
		flag, date    string
	}{
		{"/store/orders/export", 3, "BG", "S2", "Q2", "V2", "P2"}, // Lineitem price, quantity, requires shipping, Created at
		{"/store/products/export", 1, "AI", "U2", "R2", "W2", ""}, // Variant Price, Inventory Qty, Requires Shipping
	} {
		csv := e.Do(http.MethodGet, tt.path, key, nil).Expect(t, http.StatusOK)
		if !bytes.HasPrefix(csv.Raw, []byte("\xEF\xBB\xBF")) || !bytes.Contains(csv.Raw, []byte("Café Crème Mug")) {
			t.Errorf("%s: the CSV does not start with a UTF-8 byte-order mark: %q", tt.path, csv.Raw[:min(20, len(csv.Raw))])
		}

		raw := e.Do(http.MethodGet, tt.path+"?format=xlsx", key, nil).Expect(t, http.StatusOK).Raw
		f, err := excelize.OpenReader(bytes.NewReader(raw))
		if err != nil {
			t.Fatalf("%s: %v", tt.path, err)
		}
		sheet := f.GetSheetName(0)
		if dim, err := f.GetSheetDimension(sheet); err != nil || dim != fmt.Sprintf("A1:%s%d", tt.lastCol, tt.rows+1) {
			t.Errorf("%s: dimension %q (%v), want A1:%s%d", tt.path, dim, err, tt.lastCol, tt.rows+1)
		}
		if panes, err := f.GetPanes(sheet); err != nil || !panes.Freeze || panes.YSplit != 1 {
			t.Errorf("%s: header not frozen: %+v %v", tt.path, panes, err)
		}
		if w, err := f.GetColWidth(sheet, "B"); err != nil || w <= 8 {
			t.Errorf("%s: column B width %v %v, want room for its header", tt.path, w, err)
		}
		format := func(cell string) string {
			id, err := f.GetCellStyle(sheet, cell)
			if err != nil {
				t.Fatal(err)
			}
			st, err := f.GetStyle(id)
			if err != nil || st.CustomNumFmt == nil {
				return ""
			}
			return *st.CustomNumFmt
		}
		typeOf := func(cell string) excelize.CellType {
			typ, err := f.GetCellType(sheet, cell)
			if err != nil {
				t.Fatal(err)
			}
			return typ
		}
		if typ, ft := typeOf(tt.money), format(tt.money); typ != excelize.CellTypeUnset || !strings.Contains(ft, "[$€]") {
			t.Errorf("%s: %s is of type %v with format %q, want a number in euros", tt.path, tt.money, typ, ft)
		}
		if v, _ := f.GetCellValue(sheet, tt.money); v != "€1,234.50" {
			t.Errorf("%s: %s shows %q", tt.path, tt.money, v)
		}
		if typ := typeOf(tt.number); typ != excelize.CellTypeUnset {
			t.Errorf("%s: %s is of type %v, want a number", tt.path, tt.number, typ)
		}
		if typ := typeOf(tt.flag); typ != excelize.CellTypeBool {
			t.Errorf("%s: %s is of type %v, want a boolean", tt.path, tt.flag, typ)
		}
		if tt.date != "" {
			if typ, ft := typeOf(tt.date), format(tt.date); typ != excelize.CellTypeUnset || ft != "yyyy-mm-dd hh:mm:ss" {
				t.Errorf("%s: %s is of type %v with format %q, want a date", tt.path, tt.date, typ, ft)
			}
		}
		_ = f.Close()
	}
}

// TestImportRefusesWhatIsNotASheet: a PNG, random bytes, an empty file
// and a zip that is not a workbook, sent to each import as the body or as
// a multipart file (and on GraphQL as an upload), are a 400 that says what
// is wrong, never a report of nothing imported.
func TestImportRefusesWhatIsNotASheet(t *testing.T) {
	e, _, key := newAcme(t)
	png := append([]byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00\x00"), make([]byte, 64)...)
	noise := make([]byte, 4096)
	rng := rand.New(rand.NewPCG(14, 7))
	for i := range noise {
		noise[i] = byte(rng.UintN(256))
	}
	var zipped bytes.Buffer
	zw := zip.NewWriter(&zipped)
	w, _ := zw.Create("notes.txt")
	_, _ = w.Write([]byte("Handle,Title\ntee,Tee\n"))
	_ = zw.Close()

	files := []struct {
		name, body, says string
	}{
		{"a PNG", string(png), "neither CSV nor XLSX"},
		{"random bytes", string(noise), "neither CSV nor XLSX"},
		{"an empty file", "", "the file is empty"},
		{"a zip that is not a workbook", zipped.String(), "neither CSV nor XLSX"},
	}
	for _, path := range []string{"/store/products/import", "/store/reviews/import"} {
		for _, file := range files {
			raw := e.DoHeaders(http.MethodPost, path, key, []byte(file.body), map[string]string{"Content-Type": "application/octet-stream"})
			if raw.Status != http.StatusBadRequest || !strings.Contains(raw.Message(), file.says) {
				t.Errorf("%s, %s as the body: %d %s, want 400 saying %q", path, file.name, raw.Status, raw.Raw, file.says)
			}
			var body bytes.Buffer
			mw := multipart.NewWriter(&body)
			fw, _ := mw.CreateFormFile("file", "upload.csv")
			_, _ = fw.Write([]byte(file.body))
			_ = mw.Close()
			part := e.DoHeaders(http.MethodPost, path, key, body.Bytes(), map[string]string{"Content-Type": mw.FormDataContentType()})
			if part.Status != http.StatusBadRequest || !strings.Contains(part.Message(), file.says) {
				t.Errorf("%s, %s as a multipart file: %d %s, want 400 saying %q", path, file.name, part.Status, part.Raw, file.says)
			}
		}
	}
	for _, mutation := range []string{"importProducts", "importReviews"} {
		var body bytes.Buffer
		mw := multipart.NewWriter(&body)
		_ = mw.WriteField("operations", `{"query":"mutation($file: Upload!) { `+mutation+`(file: $file) { created } }","variables":{"file":null}}`)
		_ = mw.WriteField("map", `{"0":["variables.file"]}`)
		fw, _ := mw.CreateFormFile("0", "photo.png")
		_, _ = fw.Write(png)
		_ = mw.Close()
		req, _ := http.NewRequest(http.MethodPost, e.URL+"/graphql", &body)
		req.Header.Set("Content-Type", mw.FormDataContentType())
		req.Header.Set("Authorization", "Bearer "+key)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		var out struct {
			Data   map[string]any
			Errors []struct{ Message string }
		}
		err = jsonDecode(resp.Body, &out)
		resp.Body.Close()
		if err != nil || len(out.Errors) != 1 || !strings.Contains(out.Errors[0].Message, "neither CSV nor XLSX") || out.Data[mutation] != nil {
			t.Errorf("GraphQL %s of a PNG: %v %+v", mutation, err, out)
		}
	}
}
