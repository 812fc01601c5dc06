package productsheet

import (
	"bytes"
	"fmt"
	"os"
	"reflect"
	"storeadmin/internal/base/handle"
	"strings"
	"testing"

	"golang.org/x/text/encoding/unicode"

	"storeadmin/internal/base/sheets"
)

func readTable(t testing.TB, data []byte) *sheets.Table {
	t.Helper()
	tbl, err := sheets.Read(bytes.NewReader(data), 10<<20)
	if err != nil {
		t.Fatalf("Read: %v", err)
	}
	return tbl
}

func parseCSV(t testing.TB, text string, opt Options) Result {
	t.Helper()
	return mustParse(t, readTable(t, []byte(text)), opt)
}

// mustParse parses a table that is a product sheet.
func mustParse(t testing.TB, tbl *sheets.Table, opt Options) Result {
	t.Helper()
	res, err := Parse(tbl, opt)
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	return res
}

// TestNotAProductSheet: a file without the Handle and Title columns (a JSON
// body sent to the import, say) is refused whole, naming both.
func TestNotAProductSheet(t *testing.T) {
	_, err := Parse(readTable(t, []byte(`{"title":"x"}`)), Options{})
	if err == nil || !strings.Contains(err.Error(), "not a product sheet") || !strings.Contains(err.Error(), `"Handle"`) || !strings.Contains(err.Error(), `"Title"`) {
		t.Fatalf("err = %v", err)
	}
}

func noErrors(t *testing.T, res Result) {
	t.Helper()
	if len(res.Errors) > 0 || len(res.Skipped) > 0 {
		t.Fatalf("unexpected errors %+v, skipped %+v", res.Errors, res.Skipped)
	}
}

// withoutRows zeroes the row numbers, which depend on the layout of the
// sheet rather than on the product.
func withoutRows(ps []Product) []Product {
	out := make([]Product, len(ps))
	for i, p := range ps {
		p.Row = 0
		p.Variants = append([]Variant(nil), p.Variants...)
		for j := range p.Variants {
			p.Variants[j].Row = 0
		}
		out[i] = p
	}
	return out
}

func ptr(n int64) *int64 { return &n }

// richProducts exercises every field Rows writes.
func richProducts() []Product {
	ps := templateProducts()
	ps = append(ps,
		Product{
			Handle:         "desk-lamp",
			Title:          "=Desk Lamp, \"Bright\"",
			BodyHTML:       "<p>Line one</p>\n<p>Línea dos — ünïcödé</p>",
			Vendor:         "Lumen",
			Category:       "Home & Garden > Lighting",
			Type:           "Lamps",
			Tags:           []string{"home", "lighting, office"[:8], "-sale"},
			Status:         "draft",
			SEOTitle:       "+Lamp",
			SEODescription: "@lamp",
			Options: []Option{
				{Name: "Finish", Values: []string{"Brass", "Chrome"}},
				{Name: "Plug", Values: []string{"EU", "US"}},
				{Name: "Bulb", Values: []string{"Warm", "Cold"}},
			},
			Variants: []Variant{
				{Option1: "Brass", Option2: "EU", Option3: "Warm", SKU: "LAMP-1", Barcode: "00123", Grams: 1500, TrackInventory: false, InventoryQty: -2, InventoryPolicy: "continue", PriceCents: 129900, CostCents: ptr(0), RequiresShipping: true, Taxable: false, WeightUnit: "kg"},
				{Option1: "Chrome", Option2: "US", Option3: "Cold", SKU: "1.10", Grams: 1500, TrackInventory: true, InventoryQty: 4, InventoryPolicy: "deny", PriceCents: 5, CompareAtCents: ptr(0), RequiresShipping: false, Taxable: true, ImageSrc: "https://cdn.example.com/lamp-chrome.jpg", WeightUnit: "lb"},
			},
			Images: []Image{
				{Src: "https://cdn.example.com/lamp.jpg", Position: 1},
				{Src: "https://cdn.example.com/lamp-side.jpg", Position: 2, Alt: "Side view"},
				{Src: "https://cdn.example.com/lamp-chrome.jpg", Position: 3, Alt: "Chrome"},
			},
		},
		Product{
			Handle:   "archived-thing",
			Title:    "Archived Thing",
			Status:   "archived",
			Options:  []Option{{Name: "Title", Values: []string{"Default Title"}}},
			Variants: []Variant{{Option1: "Default Title", PriceCents: 0, InventoryPolicy: "deny", RequiresShipping: true, Taxable: true, WeightUnit: "oz"}},
		},
	)
	return ps
}

func TestTemplateParses(t *testing.T) {
	header, rows := Template()
	if !reflect.DeepEqual(header, Header()) {
		t.Fatalf("template header differs from Header()")
	}
	var buf bytes.Buffer
	if err := sheets.WriteCSV(&buf, header, rows); err != nil {
		t.Fatal(err)
	}
	res := parseCSV(t, buf.String(), Options{})
	noErrors(t, res)
	if got, want := withoutRows(res.Products), templateProducts(); !reflect.DeepEqual(got, want) {
		t.Errorf("template products:\n got %+v\nwant %+v", got, want)
	}
	if len(res.Cleaned) > 0 {
		t.Errorf("the template needed cleaning: %+v", res.Cleaned)
	}
	tee := res.Products[0]
	if len(tee.Options) != 2 || len(tee.Variants) != 3 || len(tee.Images) != 2 {
		t.Errorf("tee has %d options, %d variants, %d images", len(tee.Options), len(tee.Variants), len(tee.Images))
	}
	if len(res.Products[1].Variants) != 1 {
		t.Errorf("the simple product has %d variants", len(res.Products[1].Variants))
	}
}

func TestHeader(t *testing.T) {
	h := Header()
	if len(h) != 35 || h[0] != "Handle" || h[34] != "Status" || h[20] != "Variant Price" {
		t.Errorf("Header() = %q", h)
	}
	h[0] = "changed"
	if Header()[0] != "Handle" {
		t.Error("Header() returns shared state")
	}
}

func TestRoundTrip(t *testing.T) {
	want := richProducts()
	rows := Rows(want)
	for _, format := range []string{"csv", "xlsx"} {
		t.Run(format, func(t *testing.T) {
			var buf bytes.Buffer
			var err error
			if format == "csv" {
				err = sheets.WriteCSV(&buf, Header(), rows)
			} else {
				err = sheets.WriteXLSX(&buf, "Products", Header(), rows, sheets.Layout{Types: Types(), Currency: "EUR"})
			}
			if err != nil {
				t.Fatal(err)
			}
			tbl := readTable(t, buf.Bytes())
			if tbl.Format != format {
				t.Fatalf("read back as %q", tbl.Format)
			}
			res := mustParse(t, tbl, Options{})
			noErrors(t, res)
			if got := withoutRows(res.Products); !reflect.DeepEqual(got, want) {
				for i := range min(len(got), len(want)) {
					if !reflect.DeepEqual(got[i], want[i]) {
						t.Errorf("product %d:\n got %+v\nwant %+v", i, got[i], want[i])
					}
				}
				t.Fatalf("got %d products, want %d", len(got), len(want))
			}
			if len(res.Cleaned) > 0 || len(res.Renamed) > 0 {
				t.Errorf("round trip changed cells: %+v %+v", res.Cleaned, res.Renamed)
			}
			if again := Rows(res.Products); !reflect.DeepEqual(again, rows) {
				t.Errorf("Rows after the round trip differ")
			}
		})
	}
}

func TestRowsLayout(t *testing.T) {
	rows := Rows(templateProducts())
	// Tee: 3 variant rows + 1 extra image row; mug: 1 row.
	if len(rows) != 5 {
		t.Fatalf("%d rows", len(rows))
	}
	first := rows[0]
	checks := map[int]string{
		colHandle: "classic-tee", colTitle: "Classic Tee", colPublished: "TRUE", colOption1Name: "Size",
		colOption2Name: "Color", colOption1Value: "S", colPrice: "19.00", colCompareAt: "25.00",
		colTracker: "shopify", colRequiresShipping: "TRUE", colImagePosition: "1", colStatus: "active",
		colGiftCard: "FALSE", colFulfillment: "manual", colTags: "cotton, summer",
	}
	for col, want := range checks {
		if first[col] != want {
			t.Errorf("first row %s = %q, want %q", header[col], first[col], want)
		}
	}
	if rows[1][colTitle] != "" || rows[1][colOption1Name] != "" {
		t.Errorf("product fields repeated on a variant row: %q", rows[1])
	}
	img := rows[3]
	if img[colHandle] != "classic-tee" || img[colImageSrc] == "" || img[colImagePosition] != "2" || img[colPrice] != "" || img[colOption1Value] != "" {
		t.Errorf("image row %q", img)
	}
	for _, r := range rows {
		if len(r) != len(header) {
			t.Fatalf("row of %d cells", len(r))
		}
	}
}

func TestCurrentTemplateFixture(t *testing.T) {
	data, err := os.ReadFile("testdata/current_template.csv")
	if err != nil {
		t.Fatal(err)
	}
	res := mustParse(t, readTable(t, data), Options{})
	noErrors(t, res)
	if len(res.Products) != 3 {
		t.Fatalf("%d products", len(res.Products))
	}
	shirt, tote, card := res.Products[0], res.Products[1], res.Products[2]

	if shirt.Handle != "linen-shirt" || shirt.Title != "Linen Shirt" || shirt.Vendor != "Harbor & Co" || shirt.Status != "active" {
		t.Errorf("shirt %+v", shirt)
	}
	if shirt.BodyHTML != "<p>Breathable linen shirt.</p>" || shirt.SEOTitle != "Linen Shirt" || shirt.CategoryID != 0 || !strings.HasSuffix(shirt.Category, "> Shirts") {
		t.Errorf("shirt fields %+v", shirt)
	}
	if !reflect.DeepEqual(shirt.Tags, []string{"linen", "summer"}) {
		t.Errorf("tags %q", shirt.Tags)
	}
	wantOptions := []Option{{Name: "Size", Values: []string{"S", "M", "L"}}, {Name: "Color", Values: []string{"Sand", "Navy"}}}
	if !reflect.DeepEqual(shirt.Options, wantOptions) {
		t.Errorf("options %+v", shirt.Options)
	}
	if len(shirt.Variants) != 4 {
		t.Fatalf("%d variants", len(shirt.Variants))
	}
	v0, v2 := shirt.Variants[0], shirt.Variants[2]
	if v0.SKU != "LS-S-SAND" || v0.Barcode != "0712345678911" || v0.PriceCents != 4900 || *v0.CompareAtCents != 5900 || *v0.CostCents != 1850 ||
		!v0.TrackInventory || v0.InventoryQty != 14 || v0.InventoryPolicy != "deny" || v0.Grams != 250 || v0.WeightUnit != "kg" ||
		!v0.Taxable || !v0.RequiresShipping || v0.Row != 2 {
		t.Errorf("first variant %+v", v0)
	}
	if v2.Option1 != "M" || v2.Option2 != "Navy" || v2.InventoryPolicy != "continue" || v2.CompareAtCents != nil || v2.Row != 4 {
		t.Errorf("third variant %+v", v2)
	}
	wantImages := []Image{
		{Src: "https://cdn.example.com/files/linen-sand.jpg", Position: 1, Alt: "Linen Shirt in sand"},
		{Src: "https://cdn.example.com/files/linen-navy.jpg", Position: 2, Alt: "Linen Shirt in navy"},
		{Src: "https://cdn.example.com/files/linen-detail.jpg", Position: 3, Alt: "Linen weave close-up"},
	}
	if !reflect.DeepEqual(shirt.Images, wantImages) {
		t.Errorf("images %+v", shirt.Images)
	}

	if tote.Status != "draft" || len(tote.Variants) != 1 || tote.Variants[0].Option1 != "Default Title" || tote.Variants[0].Taxable || tote.Variants[0].TrackInventory || tote.Variants[0].PriceCents != 2450 {
		t.Errorf("tote %+v", tote)
	}
	if !reflect.DeepEqual(tote.Options, []Option{{Name: "Title", Values: []string{"Default Title"}}}) {
		t.Errorf("tote options %+v", tote.Options)
	}
	if len(card.Variants) != 3 || card.Variants[2].PriceCents != 10000 || card.Variants[0].RequiresShipping || card.Options[0].Name != "Amount" {
		t.Errorf("gift card %+v", card)
	}
}

func TestEncodingsAndDelimiters(t *testing.T) {
	utf16le, err := unicode.UTF16(unicode.LittleEndian, unicode.UseBOM).NewEncoder().Bytes([]byte("Handle\tTitle\tVariant Price\r\ncafe\tCafé au lait\t3.50\r\n"))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name  string
		data  []byte
		title string
		cents int64
	}{
		{"utf-8 BOM", append([]byte("\xEF\xBB\xBF"), "Handle,Title,Variant Price\ncafe,Café au lait,3.50\n"...), "Café au lait", 350},
		{"windows-1252", []byte("Handle,Title,Variant Price\ncafe,Caf\xe9,3.50\n"), "Café", 350},
		{"semicolon with decimal comma", []byte("Handle;Title;Variant Price\ncafe;Café;\"1.299,00\"\n"), "Café", 129900},
		{"semicolon, plain decimal comma", []byte("Handle;Title;Variant Price\ncafe;Café;3,50\n"), "Café", 350},
		{"utf-16 LE", utf16le, "Café au lait", 350},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := mustParse(t, readTable(t, tt.data), Options{})
			noErrors(t, res)
			if len(res.Products) != 1 {
				t.Fatalf("%d products", len(res.Products))
			}
			p := res.Products[0]
			if p.Title != tt.title || p.Variants[0].PriceCents != tt.cents {
				t.Errorf("title %q price %d", p.Title, p.Variants[0].PriceCents)
			}
		})
	}
}

func TestDuplicateSKUs(t *testing.T) {
	csv := "Handle,Title,Variant SKU,Variant Price,Option1 Name,Option1 Value\n" +
		"a,A,X,1,Size,S\n" + // row 2: first owner of X in the file
		"a,,X,1,,M\n" + // row 3: same product, second variant with X -> X-3 (X-2 is taken below)
		"b,B,X,1,,\n" + // row 4: another handle -> X-4
		"c,C,X-2,1,,\n" + // row 5: X-2 as given
		"d,D,STORE-1,1,,\n" + // row 6: owned by another product in the store -> STORE-1-3 (STORE-1-2 in the store)
		"e,E,MINE,1,,\n" // row 7: owned by this same handle in the store -> kept
	res := parseCSV(t, csv, Options{ExistingSKUs: map[string]string{"STORE-1": "other", "STORE-1-2": "other", "MINE": "e"}})
	noErrors(t, res)
	want := []Renamed{
		{Row: 3, Handle: "a", From: "X", To: "X-3"},
		{Row: 4, Handle: "b", From: "X", To: "X-4"},
		{Row: 6, Handle: "d", From: "STORE-1", To: "STORE-1-3"},
	}
	if !reflect.DeepEqual(res.Renamed, want) {
		t.Errorf("Renamed:\n got %+v\nwant %+v", res.Renamed, want)
	}
	var skus []string
	for _, p := range res.Products {
		for _, v := range p.Variants {
			skus = append(skus, v.SKU)
		}
	}
	if want := []string{"X", "X-3", "X-4", "X-2", "STORE-1-3", "MINE"}; !reflect.DeepEqual(skus, want) {
		t.Errorf("SKUs %q, want %q", skus, want)
	}
}

func TestDroppedProductKeepsNoSKU(t *testing.T) {
	// A product that is left out for errors must not push others' SKUs
	// to a new name.
	res := parseCSV(t, "Handle,Title,Variant SKU,Variant Price\nbad,Bad,X,abc\ngood,Good,X,1\n", Options{})
	if len(res.Renamed) != 0 || len(res.Products) != 1 || res.Products[0].Variants[0].SKU != "X" {
		t.Errorf("renamed %+v products %+v", res.Renamed, res.Products)
	}
}

func TestParseMoney(t *testing.T) {
	tests := []struct {
		in    string
		cents int64
		err   string
	}{
		{"12.50", 1250, ""},
		{"12,50", 1250, ""},
		{"1,299.00", 129900, ""},
		{"1.299,00", 129900, ""},
		{"$12.50", 1250, ""},
		{"€ 12,50", 1250, ""},
		{"12,50 €", 1250, ""},
		{"EUR 12.50", 1250, ""},
		{"12.50 USD", 1250, ""},
		{"£0.99", 99, ""},
		{"12", 1200, ""},
		{"12.5", 1250, ""},
		{".5", 50, ""},
		{"0,05", 5, ""},
		{"1 299,00", 129900, ""},
		{"1'299.00", 129900, ""},
		{"1,299,000", 129900000, ""},
		{"1.299.000,50", 129900050, ""},
		{"12.500", 0, "ambiguous"},
		{"1,299", 0, "ambiguous"},
		{"0.125", 0, "more than 2 decimals"},
		{"12.505", 0, "ambiguous"},
		{"19.999", 0, "ambiguous"},
		{"12.3456", 0, "more than 2 decimals"},
		{"12.5000", 1250, ""},
		{"-5.00", -500, ""},
		{"$-5", -500, ""},
		{"-$5", -500, ""},
		{"(5.00)", -500, ""},
		{"+5", 500, ""},
		{"0.1", 10, ""},
		{"0.29", 29, ""},
		{"4.35", 435, ""},
		{"abc", 0, "not a number"},
		{"12 50", 0, "not a number"},
		{"1,2.50", 0, "not a number"},
		{"12.50.1", 0, "not a number"},
		{"1..2", 0, "not a number"},
		{"$", 0, "not a number"},
		{"12a", 0, "not a number"},
		{"99999999999999", 0, "too large"},
		{"", 0, "empty"},
	}
	for _, tt := range tests {
		got, err := parseMoney(tt.in)
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("parseMoney(%q) = %d, %v; want error containing %q", tt.in, got, err, tt.err)
			}
			continue
		}
		if err != nil || got != tt.cents {
			t.Errorf("parseMoney(%q) = %d, %v; want %d", tt.in, got, err, tt.cents)
		}
	}
}

func TestParseIntegers(t *testing.T) {
	for in, want := range map[string]int64{"3": 3, "3.0": 3, "3,00": 3, "-2": -2, "1,000,000": 1000000, "0": 0} {
		if got, err := parseInt(in); err != nil || got != want {
			t.Errorf("parseInt(%q) = %d, %v", in, got, err)
		}
	}
	for _, in := range []string{"abc", "3.5", "1e3", ""} {
		if _, err := parseInt(in); err == nil {
			t.Errorf("parseInt(%q) accepted", in)
		}
	}
	for in, want := range map[string]int64{"2.5": 3, "2.49": 2, "0.5": 1, "250": 250, "1,5": 2} {
		if got, _, err := parseRoundedInt(in); err != nil || got != want {
			t.Errorf("parseRoundedInt(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
}

func TestAllOrNothing(t *testing.T) {
	csv := "Handle,Title,Option1 Name,Option1 Value,Variant Price,Variant Inventory Qty,Body (HTML)\n" +
		"shirt,Shirt,Size,S,10.00,1, padded \n" + // row 2
		"shirt,,,M,abc,2,\n" + // row 3: bad price
		"shirt,,,L,10.00,x,\n" + // row 4: bad quantity
		"mug,Mug,,,5.00,1,\n" // row 5
	res := parseCSV(t, csv, Options{})
	if len(res.Products) != 1 || res.Products[0].Handle != "mug" {
		t.Fatalf("products %+v", res.Products)
	}
	wantErrs := []Problem{
		{Row: 3, Column: "Variant Price", Message: `price "abc" is not a number`},
		{Row: 4, Column: "Variant Inventory Qty", Message: `inventory quantity "x" is not a number`},
	}
	if !reflect.DeepEqual(res.Errors, wantErrs) {
		t.Errorf("errors:\n got %+v\nwant %+v", res.Errors, wantErrs)
	}
	if want := []Skip{{Row: 2, Handle: "shirt", Reason: "has errors"}}; !reflect.DeepEqual(res.Skipped, want) {
		t.Errorf("skipped %+v", res.Skipped)
	}
	if len(res.Cleaned) != 0 {
		t.Errorf("cleaning of a skipped product reported: %+v", res.Cleaned)
	}
}

func TestRowNumbersWithBlankLines(t *testing.T) {
	csv := "Handle,Title,Variant Price,Body (HTML)\n" + // 1
		"\n" + // 2
		"a,A,1,\"multi\nline\"\n" + // 3 (one row in a spreadsheet)
		",,,\n" + // 4
		"\n" + // 5
		"b,B,oops,\n" + // 6
		"\n" + // 7
		",orphan,1,\n" // 8
	res := parseCSV(t, csv, Options{})
	want := []Problem{
		{Row: 6, Column: "Variant Price", Message: `price "oops" is not a number`},
		{Row: 8, Column: "Handle", Message: "the handle is empty; every row needs the handle of the product it belongs to"},
	}
	if !reflect.DeepEqual(res.Errors, want) {
		t.Errorf("errors:\n got %+v\nwant %+v", res.Errors, want)
	}
	if len(res.Products) != 1 || res.Products[0].Row != 3 || res.Products[0].Variants[0].Row != 3 {
		t.Errorf("products %+v", res.Products)
	}
}

func TestMissingColumns(t *testing.T) {
	for text, want := range map[string]string{
		"Title,Price\nShirt,1\n":  `"Handle"`,
		"Handle,Price\nshirt,1\n": `"Title"`,
	} {
		if _, err := Parse(readTable(t, []byte(text)), Options{}); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: err = %v, want one naming %s", text, err, want)
		}
	}
}

func TestHandleNormalisation(t *testing.T) {
	csv := "Handle,Title,Variant Price,Option1 Name,Option1 Value\n" +
		"Women's Café  Shirt!,Shirt,1,Size,S\n" +
		"womens-cafe-shirt,,1,,M\n" + // same product, already normalised
		"  WOMENS CAFE SHIRT ,,1,,L\n" +
		"Straße_Œuvre,Street,1,,\n" +
		"!!!,Bad,1,,\n" +
		strings.Repeat("x", handle.MaxLength+1) + ",Long,1,,\n"
	res := parseCSV(t, csv, Options{})
	if len(res.Products) != 2 {
		t.Fatalf("products %+v errors %+v", res.Products, res.Errors)
	}
	if p := res.Products[0]; p.Handle != "womens-cafe-shirt" || len(p.Variants) != 3 {
		t.Errorf("product %+v", p)
	}
	if p := res.Products[1]; p.Handle != "strasse-oeuvre" {
		t.Errorf("handle %q", p.Handle)
	}
	want := []Cleaned{
		{Row: 2, Column: "Handle", Before: "Women's Café  Shirt!", After: "womens-cafe-shirt"},
		{Row: 4, Column: "Handle", Before: "  WOMENS CAFE SHIRT ", After: "womens-cafe-shirt"},
		{Row: 5, Column: "Handle", Before: "Straße_Œuvre", After: "strasse-oeuvre"},
	}
	if !reflect.DeepEqual(res.Cleaned, want) {
		t.Errorf("cleaned:\n got %+v\nwant %+v", res.Cleaned, want)
	}
	if len(res.Errors) != 2 || res.Errors[0].Row != 6 || !strings.Contains(res.Errors[0].Message, "no letters or digits") ||
		res.Errors[1].Row != 7 || !strings.Contains(res.Errors[1].Message, "longer than 255") {
		t.Errorf("errors %+v", res.Errors)
	}
}

func TestNonConsecutiveRowsAndEmptyRows(t *testing.T) {
	csv := "Handle,Title,Option1 Name,Option1 Value,Variant Price,Image Src,Variant Grams,Tags\n" +
		"shirt,Shirt,Size,S,1,,,\n" +
		"mug,Mug,,,2,,,\n" +
		"shirt,,,M,1,,,\n" + // back to the shirt
		"shirt,,,,,,,\n" + // only a handle: skipped silently
		"shirt,,,,,https://x.test/a.jpg,,\n" + // image only
		"shirt,,,,,,100,\n" // variant detail without a variant
	res := parseCSV(t, csv, Options{})
	want := []Problem{{Row: 7, Column: "Variant Grams", Message: "this row has variant details but no option value, SKU or price, so it is unclear which variant they belong to"}}
	if !reflect.DeepEqual(res.Errors, want) {
		t.Errorf("errors %+v", res.Errors)
	}
	res = parseCSV(t, strings.Join(strings.Split(csv, "\n")[:6], "\n"), Options{})
	noErrors(t, res)
	if len(res.Products) != 2 || res.Products[0].Handle != "shirt" || len(res.Products[0].Variants) != 2 || len(res.Products[0].Images) != 1 {
		t.Errorf("products %+v", res.Products)
	}
}

func TestProductFieldErrors(t *testing.T) {
	tests := []struct {
		name, header, row string
		column, message   string
	}{
		{"empty title", "Handle,Title,Variant Price", "a,,1", "Title", "the title is empty"},
		{"bad status", "Handle,Title,Variant Price,Status", "a,A,1,live", "Status", "must be active, draft or archived"},
		{"bad published", "Handle,Title,Variant Price,Published", "a,A,1,maybe", "Published", "must be TRUE or FALSE"},
		{"empty price", "Handle,Title,Variant Price", "a,A,", "Variant Price", "the price is empty"},
		{"negative price", "Handle,Title,Variant Price", "a,A,-1", "Variant Price", "cannot be negative"},
		{"negative compare-at", "Handle,Title,Variant Price,Variant Compare At Price", "a,A,1,-2", "Variant Compare At Price", "cannot be negative"},
		{"bad cost", "Handle,Title,Variant Price,Cost per item", "a,A,1,1.2345", "Cost per item", "more than 2 decimals"},
		{"bad policy", "Handle,Title,Variant Price,Variant Inventory Policy", "a,A,1,sometimes", "Variant Inventory Policy", "must be deny or continue"},
		{"bad continue selling", "Handle,Title,Price,Continue selling when out of stock", "a,A,1,perhaps", "Continue selling when out of stock", "must be TRUE or FALSE"},
		{"bad taxable", "Handle,Title,Variant Price,Variant Taxable", "a,A,1,sure", "Variant Taxable", "must be TRUE or FALSE"},
		{"bad weight unit", "Handle,Title,Variant Price,Variant Weight Unit", "a,A,1,stone", "Variant Weight Unit", "must be g, kg, lb or oz"},
		{"negative grams", "Handle,Title,Variant Price,Variant Grams", "a,A,1,-5", "Variant Grams", "cannot be negative"},
		{"bad grams", "Handle,Title,Variant Price,Variant Grams", "a,A,1,heavy", "Variant Grams", "not a number"},
		{"bad image", "Handle,Title,Variant Price,Image Src", "a,A,1,/img/a.jpg", "Image Src", "not a web address"},
		{"bad image position", "Handle,Title,Variant Price,Image Src,Image Position", "a,A,1,https://x.test/a.jpg,0", "Image Position", "whole number from 1"},
		{"bad variant image", "Handle,Title,Variant Price,Variant Image", "a,A,1,ftp://x/a.jpg", "Variant Image", "not a web address"},
		{"option value without name", "Handle,Title,Variant Price,Option1 Value", "a,A,1,Red", "Option1 Value", "no Option1 name"},
		{"option name gap", "Handle,Title,Variant Price,Option1 Name,Option2 Name,Option2 Value", "a,A,1,,Color,Red", "Option2 Name", "Option1 name is empty"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := parseCSV(t, tt.header+"\n"+tt.row+"\n", Options{})
			if len(res.Products) != 0 || len(res.Skipped) != 1 {
				t.Fatalf("products %+v skipped %+v", res.Products, res.Skipped)
			}
			found := false
			for _, e := range res.Errors {
				if e.Row == 2 && e.Column == tt.column && strings.Contains(e.Message, tt.message) {
					found = true
				}
			}
			if !found {
				t.Errorf("errors %+v, want one in %q containing %q", res.Errors, tt.column, tt.message)
			}
		})
	}
}

func TestStatusAndPublished(t *testing.T) {
	csv := "Handle,Title,Variant Price,Published,Status\n" +
		"a,A,1,TRUE,\n" +
		"b,B,1,FALSE,\n" +
		"c,C,1,,\n" +
		"d,D,1,TRUE,ARCHIVED\n" +
		"e,E,1,FALSE,Active\n"
	res := parseCSV(t, csv, Options{})
	noErrors(t, res)
	var got []string
	for _, p := range res.Products {
		got = append(got, p.Status)
	}
	if want := []string{"active", "draft", "active", "archived", "active"}; !reflect.DeepEqual(got, want) {
		t.Errorf("statuses %q, want %q", got, want)
	}
}

func TestVariantsAndOptions(t *testing.T) {
	csv := "Handle,Title,Option1 Name,Option1 Value,Option2 Name,Option2 Value,Variant Price,Variant Requires Shipping,Variant Taxable,Variant Inventory Tracker\n" +
		"a,A,Size,S,Color,Red,1,,,\n" +
		"a,,,M,,Red,1,no,n,\n" +
		"a,,,S,,Blue,1,1,0,FALSE\n" +
		"a,,,M,,Red,1,,,\n" + // row 5: duplicate of row 3
		"a,,,L,,,1,,,\n" // row 6: missing Color
	res := parseCSV(t, csv, Options{})
	want := []Problem{
		{Row: 5, Column: "Option1 Value", Message: `duplicate variant: Size "M", Color "Red" is already on row 3`},
		{Row: 6, Column: "Option2 Value", Message: `the value of option "Color" is empty`},
	}
	if !reflect.DeepEqual(res.Errors, want) {
		t.Errorf("errors:\n got %+v\nwant %+v", res.Errors, want)
	}
	res = parseCSV(t, strings.Join(strings.Split(csv, "\n")[:4], "\n"), Options{})
	noErrors(t, res)
	p := res.Products[0]
	wantOptions := []Option{{Name: "Size", Values: []string{"S", "M"}}, {Name: "Color", Values: []string{"Red", "Blue"}}}
	if !reflect.DeepEqual(p.Options, wantOptions) {
		t.Errorf("options %+v", p.Options)
	}
	v := p.Variants
	if !v[0].RequiresShipping || !v[0].Taxable || v[1].RequiresShipping || v[1].Taxable || !v[2].RequiresShipping || v[2].Taxable || v[2].TrackInventory {
		t.Errorf("booleans %+v", v)
	}
	// Without options, a second variant is a duplicate of Default Title.
	res = parseCSV(t, "Handle,Title,Variant Price,Variant SKU\na,A,1,X\na,,2,Y\n", Options{})
	if len(res.Errors) != 1 || res.Errors[0].Row != 3 || !strings.Contains(res.Errors[0].Message, "duplicate variant") {
		t.Errorf("errors %+v", res.Errors)
	}
}

func TestTooManyVariants(t *testing.T) {
	var b strings.Builder
	b.WriteString("Handle,Title,Option1 Name,Option1 Value,Variant Price\n")
	for i := range MaxVariants + 2 {
		title, name := "", ""
		if i == 0 {
			title, name = "Big", "Size"
		}
		fmt.Fprintf(&b, "big,%s,%s,%d,1\n", title, name, i)
	}
	res := parseCSV(t, b.String(), Options{})
	want := []Problem{{Row: MaxVariants + 2, Message: fmt.Sprintf("the product has more than %d variants", MaxVariants)}}
	if !reflect.DeepEqual(res.Errors, want) || len(res.Products) != 0 {
		t.Errorf("errors %+v", res.Errors)
	}
}

func TestGramsRoundingAndCleaning(t *testing.T) {
	long := strings.Repeat("x", 100)
	csv := "Handle,Title,Variant Price,Variant Grams,Vendor,Body (HTML),Tags\n" +
		"a,\u00a0Lamp\u200b,1,12.5,\tAcme ,  " + long + " ,\"b, a, ,B\"\n"
	res := parseCSV(t, csv, Options{})
	noErrors(t, res)
	p := res.Products[0]
	if p.Title != "Lamp" || p.Vendor != "Acme" || p.Variants[0].Grams != 13 || p.BodyHTML != long {
		t.Errorf("product %+v", p)
	}
	if !reflect.DeepEqual(p.Tags, []string{"b", "a"}) {
		t.Errorf("tags %q", p.Tags)
	}
	want := []Cleaned{
		{Row: 2, Column: "Title", Before: "\u00a0Lamp\u200b", After: "Lamp"},
		{Row: 2, Column: "Variant Grams", Before: "12.5", After: "13"},
		{Row: 2, Column: "Vendor", Before: "\tAcme ", After: "Acme"},
		{Row: 2, Column: "Body (HTML)", Before: sheets.Clip("  "+long+" ", 80), After: sheets.Clip(long, 80)},
	}
	if !reflect.DeepEqual(res.Cleaned, want) {
		t.Errorf("cleaned:\n got %+v\nwant %+v", res.Cleaned, want)
	}
}

func TestImages(t *testing.T) {
	csv := "Handle,Title,Variant Price,Image Src,Image Position,Image Alt Text,Variant Image,Option1 Name,Option1 Value\n" +
		"a,A,1,https://x.test/3.jpg,3,three,https://x.test/v.jpg,Size,S\n" +
		"a,,,https://x.test/1.jpg,1,one,,,\n" +
		"a,,,https://x.test/3.jpg,5,dup,,,\n" + // same Src: ignored
		"a,,,https://x.test/none.jpg,,no position,,,\n" // 3rd image seen: key 3, after "3" (stable)
	res := parseCSV(t, csv, Options{})
	noErrors(t, res)
	want := []Image{
		{Src: "https://x.test/1.jpg", Position: 1, Alt: "one"},
		{Src: "https://x.test/3.jpg", Position: 2, Alt: "three"},
		{Src: "https://x.test/none.jpg", Position: 3, Alt: "no position"},
		{Src: "https://x.test/v.jpg", Position: 4},
	}
	if got := res.Products[0].Images; !reflect.DeepEqual(got, want) {
		t.Errorf("images:\n got %+v\nwant %+v", got, want)
	}
}

func TestCategoryID(t *testing.T) {
	for in, want := range map[string]int64{
		"1604": 1604, "1604 - Apparel & Accessories > Clothing": 1604, "1604 -Apparel": 0,
		"Apparel & Accessories": 0, "": 0, "aa-1-13": 0, "12abc": 0, "- 5": 0,
	} {
		if got := categoryID(in); got != want {
			t.Errorf("categoryID(%q) = %d, want %d", in, got, want)
		}
	}
}

// benchmarkSheet builds a sheet of n variant rows: products of 10 variants
// with an image each, in the classic layout.
func benchmarkSheet(n int) *sheets.Table {
	t := &sheets.Table{Format: "csv", Header: Header()}
	for i := range n {
		p := i / 10
		row := make([]string, numCols)
		row[colHandle] = fmt.Sprintf("product-%d", p)
		if i%10 == 0 {
			row[colTitle] = fmt.Sprintf("Product %d", p)
			row[colBody] = "<p>A fine product with a longer description.</p>"
			row[colVendor] = "Acme"
			row[colTags] = "one, two, three"
			row[colOption1Name] = "Size"
			row[colImageSrc] = fmt.Sprintf("https://cdn.example.com/p%d.jpg", p)
			row[colImagePosition] = "1"
		}
		row[colOption1Value] = fmt.Sprintf("Size %d", i%10)
		row[colSKU] = fmt.Sprintf("SKU-%d", i)
		row[colGrams] = "250"
		row[colTracker] = "shopify"
		row[colQty] = "12"
		row[colPolicy] = "deny"
		row[colFulfillment] = "manual"
		row[colPrice] = "1,299.00"
		row[colCompareAt] = "1499.00"
		row[colRequiresShipping] = "TRUE"
		row[colTaxable] = "TRUE"
		row[colBarcode] = "4006381333931"
		row[colStatus] = "active"
		t.Rows = append(t.Rows, row)
		t.RowNumbers = append(t.RowNumbers, i+2)
	}
	return t
}

func TestParseSpeed(t *testing.T) {
	tbl := benchmarkSheet(5000)
	res := mustParse(t, tbl, Options{ExistingSKUs: map[string]string{"SKU-1": "elsewhere"}})
	if len(res.Errors) != 0 || len(res.Products) != 500 || len(res.Renamed) != 1 {
		t.Fatalf("errors %+v, %d products, renamed %+v", res.Errors[:min(3, len(res.Errors))], len(res.Products), res.Renamed)
	}
}

func BenchmarkParse5000Variants(b *testing.B) {
	tbl := benchmarkSheet(5000)
	b.ReportAllocs()
	for b.Loop() {
		Parse(tbl, Options{})
	}
}
