package apitest_test

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/uptrace/bun"

	"storeadmin/internal/app/apitest"
	"storeadmin/internal/auth"
	"storeadmin/internal/base/apperr"
	"storeadmin/internal/base/sheets"
	"storeadmin/internal/base/sheets/ordersheet"
	"storeadmin/models"
)

// oexT0 is when the export tests' first order was placed.
var oexT0 = time.Date(2026, 11, 21, 14, 3, 0, 0, time.UTC)

// oexOrder stores an order with lines straight through the models, as a
// checkout would; edit adjusts the order and its lines before they are
// stored, after runs in the same transaction once they are.
func oexOrder(t testing.TB, e *apitest.Env, storeID int64, created time.Time, lines []models.OrderLineItem,
	edit func(*models.Order), after func(context.Context, bun.Tx, *models.Order, []models.OrderLineItem) error) *models.Order {
	t.Helper()
	var o *models.Order
	err := e.DB.RunInTx(context.Background(), nil, func(ctx context.Context, tx bun.Tx) error {
		n, display, err := models.NextOrderNumber(ctx, tx, storeID)
		if err != nil {
			return err
		}
		var subtotal int64
		for i := range lines {
			subtotal += lines[i].PriceCents * lines[i].Quantity
			if lines[i].Source == "" {
				lines[i].Source = "checkout"
			}
		}
		o = &models.Order{
			StoreID: storeID, OrderNumber: n, OrderNumberDisplay: display, Email: "shopper@example.com",
			Currency: "EUR", Status: models.OrderOpen, FinancialStatus: models.FinancialPending,
			FulfillmentStatus: models.FulfillmentUnfulfilled, SubtotalCents: subtotal, TotalCents: subtotal,
			Tags: []string{}, SystemTags: []string{}, Source: "web", CreatedAt: created, UpdatedAt: created,
		}
		if edit != nil {
			edit(o)
		}
		if err := models.InsertOrder(ctx, tx, o, lines); err != nil {
			return err
		}
		if after != nil {
			return after(ctx, tx, o, lines)
		}
		return nil
	})
	if err != nil {
		t.Fatalf("store order: %v", err)
	}
	return o
}

// oexLine is a line of a test order.
func oexLine(title, sku string, price, quantity int64) models.OrderLineItem {
	return models.OrderLineItem{Title: title, VariantTitle: "Default Title", SKU: sku, PriceCents: price, Quantity: quantity, RequiresShipping: true}
}

// oexRead reads an exported file with the sheets reader.
func oexRead(t *testing.T, raw []byte, format string) *sheets.Table {
	t.Helper()
	tbl, err := sheets.Read(bytes.NewReader(raw), 32<<20)
	if err != nil {
		t.Fatalf("read the %s export: %v", format, err)
	}
	if tbl.Format != format {
		t.Fatalf("the %s export reads as %s", format, tbl.Format)
	}
	if !reflect.DeepEqual(tbl.Header, ordersheet.Header()) {
		t.Fatalf("header %q", tbl.Header)
	}
	return tbl
}

// oexCell is the cell of a column in a row of an export.
func oexCell(t *testing.T, tbl *sheets.Table, row int, column string) string {
	t.Helper()
	c := tbl.Col(column)
	if c < 0 {
		t.Fatalf("no column %q", column)
	}
	return tbl.Rows[row][c]
}

// TestOrdersExport: one row per line item, order columns on an order's
// first row, amounts in major units, times in the store's zone, the list's
// filter and order, both formats, on REST and GraphQL.
func TestOrdersExport(t *testing.T) {
	e := apitest.New(t)
	ctx := context.Background()
	s := e.Store("orders-export")
	s.Timezone = "Europe/Berlin"
	if err := models.UpdateStore(ctx, e.DB, s, "timezone"); err != nil {
		t.Fatal(err)
	}
	key := e.Key(s.ID, auth.RoleAdmin)

	p := &models.Product{StoreID: s.ID, Handle: "classic-tee", Title: "Classic Tee", Vendor: "Acme Apparel",
		Status: models.ProductActive, Tags: []string{}, SEO: map[string]any{}}
	if err := models.InsertProduct(ctx, e.DB, p); err != nil {
		t.Fatal(err)
	}
	c := &models.Customer{StoreID: s.ID, Email: "ana@example.com", FirstName: "Ana", LastName: "Lima", Phone: "+4930123", AcceptsMarketing: true}
	if err := models.UpsertCustomer(ctx, e.DB, c); err != nil {
		t.Fatal(err)
	}

	tee := oexLine("Classic Tee", "TEE-M", 1900, 3)
	tee.VariantTitle, tee.ProductID, tee.OriginalPriceCents = "M / Black", &p.ID, int64Ptr(2500)
	shipped := oexT0.Add(26 * time.Hour)
	paid := oexT0.Add(time.Minute)
	first := oexOrder(t, e, s.ID, oexT0, []models.OrderLineItem{tee, oexLine("Gift Mug", "MUG", 1250, 1)},
		func(o *models.Order) {
			o.Email, o.CustomerID = c.Email, &c.ID
			o.DiscountCode, o.DiscountCents, o.ShippingCents, o.TaxCents, o.TipCents = "WELCOME10", 505, 495, 900, 100
			o.TotalCents = o.SubtotalCents - 505 + 495 + 900 + 100
			o.FinancialStatus, o.FulfillmentStatus, o.PaidAt = models.FinancialPartiallyRefunded, models.FulfillmentFulfilled, &paid
			o.ShippingLine = map[string]any{"title": "Standard", "code": "STD", "price_cents": 495}
			o.BillingAddress = map[string]any{"first_name": "Ana", "last_name": "Lima", "address1": "Hauptstr. 1",
				"address2": "2. OG", "city": "Berlin", "zip": "01067", "country_code": "DE", "phone": "+4930123"}
			o.ShippingAddress = map[string]any{"name": "Ana at work", "city": "Potsdam", "zip": 14467}
			o.Note = "=HYPERLINK(\"http://evil.example\")"
			o.Tags, o.SystemTags = []string{"vip"}, []string{"upsell"}
			o.Attribution = &models.OrderAttribution{UTMSource: "newsletter", UTMMedium: "email", UTMCampaign: "bf"}
		},
		func(ctx context.Context, tx bun.Tx, o *models.Order, lines []models.OrderLineItem) error {
			method := "card"
			for _, tr := range []models.OrderTransaction{
				{Kind: models.TxSale, Status: models.TxFailure, Provider: "paypal", ExternalID: "failed", CreatedAt: oexT0},
				{Kind: models.TxSale, Status: models.TxSuccess, Provider: "stripe", ExternalID: "ch_123", PaymentMethod: &method, CreatedAt: paid},
				{Kind: models.TxRefund, Status: models.TxSuccess, Provider: "stripe", ExternalID: "re_1", CreatedAt: paid.Add(time.Hour)},
			} {
				tr.StoreID, tr.OrderID, tr.Currency, tr.AmountCents = o.StoreID, o.ID, "EUR", o.TotalCents
				if err := models.InsertTransaction(ctx, tx, &tr); err != nil {
					return err
				}
			}
			for _, cents := range []int64{1000, 250} {
				r := &models.Refund{StoreID: o.StoreID, OrderID: o.ID, AmountCents: cents, Currency: "EUR", Status: "success"}
				if err := models.InsertRefund(ctx, tx, r, nil); err != nil {
					return err
				}
			}
			r := &models.Refund{StoreID: o.StoreID, OrderID: o.ID, AmountCents: 1, Currency: "EUR", Status: "failure"}
			if err := models.InsertRefund(ctx, tx, r, nil); err != nil {
				return err
			}
			// Two shipments, the tee's and the mug's, and a cancelled one,
			// which is not when the order shipped.
			for i, at := range []time.Time{oexT0.Add(time.Hour), shipped, shipped.Add(time.Hour)} {
				f := &models.Fulfillment{StoreID: o.StoreID, OrderID: o.ID, Status: models.ShipmentSuccess, CreatedAt: at}
				line := lines[0]
				switch i {
				case 1:
					line = lines[1]
				case 2:
					f.Status = models.ShipmentCancelled
				}
				if err := models.InsertFulfillment(ctx, tx, f, []models.FulfillmentItem{{LineItemID: line.ID, Quantity: 1}}); err != nil {
					return err
				}
			}
			return nil
		})
	second := oexOrder(t, e, s.ID, oexT0.Add(48*time.Hour), []models.OrderLineItem{oexLine("Gift Mug", "MUG", 1250, 3)},
		func(o *models.Order) {
			cancelled := oexT0.Add(50 * time.Hour)
			o.Status, o.CancelReason, o.CancelledAt = models.OrderCancelled, "customer", &cancelled
		}, nil)
	noLines := oexOrder(t, e, s.ID, oexT0.Add(-time.Hour), nil, nil, nil)
	other := e.Store("other")
	oexOrder(t, e, other.ID, oexT0, []models.OrderLineItem{oexLine("Not ours", "X", 100, 1)}, nil, nil)

	file := e.Do(http.MethodGet, "/store/orders/export", key, nil).Expect(t, http.StatusOK)
	if cd := file.Header.Get("Content-Disposition"); !strings.Contains(cd, "orders") || !strings.Contains(cd, ".csv") {
		t.Errorf("Content-Disposition %q", cd)
	}
	if ct := file.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/csv") {
		t.Errorf("Content-Type %q", ct)
	}
	if !bytes.Contains(file.Raw, []byte(`"'=HYPERLINK(""http://evil.example"")"`)) {
		t.Errorf("the note is not guarded against formula injection:\n%s", file.Raw)
	}
	csv := oexRead(t, file.Raw, "csv")
	// Newest first, as the orders list: the second order, the first (two
	// lines), the order without lines; not the other store's.
	var names []string
	for i := range csv.Rows {
		names = append(names, oexCell(t, csv, i, "Name")+"/"+oexCell(t, csv, i, "Lineitem sku"))
	}
	want := []string{second.OrderNumberDisplay + "/MUG", first.OrderNumberDisplay + "/TEE-M", first.OrderNumberDisplay + "/MUG", noLines.OrderNumberDisplay + "/"}
	if !reflect.DeepEqual(names, want) {
		t.Fatalf("rows %v, want %v", names, want)
	}
	for column, want := range map[string]string{
		"Email": "ana@example.com", "Financial Status": "partially_refunded", "Paid at": "2026-11-21 15:04:00 +0100",
		"Fulfillment Status": "fulfilled", "Fulfilled at": "2026-11-22 17:03:00 +0100", "Accepts Marketing": "yes",
		"Currency": "EUR", "Subtotal": "69.50", "Shipping": "4.95", "Taxes": "9.00", "Total": "79.40",
		"Discount Code": "WELCOME10", "Discount Amount": "5.05", "Shipping Method": "Standard",
		"Created at": "2026-11-21 15:03:00 +0100", "Lineitem quantity": "3", "Lineitem name": "Classic Tee - M / Black",
		"Lineitem price": "19.00", "Lineitem compare at price": "25.00", "Lineitem requires shipping": "true",
		"Lineitem fulfillment status": "partial", "Billing Name": "Ana Lima", "Billing Street": "Hauptstr. 1, 2. OG",
		"Billing Zip": "01067", "Billing Country": "DE", "Billing Phone": "+4930123", "Shipping Name": "Ana at work",
		"Shipping City": "Potsdam", "Shipping Zip": "14467", "Shipping Country": "", "Notes": first.Note,
		"Payment Method": "stripe", "Payment Reference": "ch_123", "Refunded Amount": "12.50", "Vendor": "Acme Apparel",
		"Id": fmt.Sprint(first.ID), "Tags": "vip, upsell", "Source": "web", "Tip": "1.00", "Phone": "+4930123",
		"Order status": "open", "Cancel reason": "", "UTM source": "newsletter", "UTM medium": "email", "UTM campaign": "bf",
	} {
		if got := oexCell(t, csv, 1, column); got != want {
			t.Errorf("first order's first row: %s = %q, want %q", column, got, want)
		}
	}
	// Its second line: the order's identity and the line, nothing else.
	for i, h := range csv.Header {
		got := csv.Rows[2][i]
		switch h {
		case "Name", "Email", "Created at", "Id":
			if got != csv.Rows[1][i] {
				t.Errorf("second line: %s = %q, want the order's %q", h, got, csv.Rows[1][i])
			}
		case "Lineitem quantity", "Lineitem name", "Lineitem price", "Lineitem sku", "Lineitem requires shipping", "Lineitem fulfillment status":
			if got == "" {
				t.Errorf("second line: %s is empty", h)
			}
		default:
			if got != "" {
				t.Errorf("second line repeats the order's %s: %q", h, got)
			}
		}
	}
	for column, want := range map[string]string{
		"Financial Status": "pending", "Order status": "cancelled", "Cancel reason": "customer",
		"Cancelled at": "2026-11-23 17:03:00 +0100", "Accepts Marketing": "", "Payment Method": "", "Fulfilled at": "",
		"Refunded Amount": "0.00", "Total": "37.50", "Vendor": "",
	} {
		if got := oexCell(t, csv, 0, column); got != want {
			t.Errorf("second order: %s = %q, want %q", column, got, want)
		}
	}
	if got := oexCell(t, csv, 3, "Lineitem quantity"); got != "" {
		t.Errorf("an order without lines has line cells: %q", got)
	}

	// The same sheet as a workbook.
	file = e.Do(http.MethodGet, "/store/orders/export?format=xlsx", key, nil).Expect(t, http.StatusOK)
	if cd := file.Header.Get("Content-Disposition"); !strings.Contains(cd, ".xlsx") {
		t.Errorf("Content-Disposition %q", cd)
	}
	// Its text and counts read back as in the CSV; amounts, flags and times
	// are typed and read back as a spreadsheet shows them, amounts in the
	// orders' currency (not the store's dollars).
	xlsx := oexRead(t, file.Raw, "xlsx")
	if len(xlsx.Rows) != len(csv.Rows) {
		t.Fatalf("the workbook has %d rows, the CSV %d", len(xlsx.Rows), len(csv.Rows))
	}
	types := ordersheet.Types()
	for i := range csv.Rows {
		for c, h := range csv.Header {
			got, want := xlsx.Rows[i][c], csv.Rows[i][c]
			switch types[c] {
			case sheets.Text, sheets.Number, sheets.CurrencyCode:
				if got != want {
					t.Errorf("workbook row %d: %s = %q, the CSV has %q", i, h, got, want)
				}
			default:
				if (got == "") != (want == "") {
					t.Errorf("workbook row %d: %s = %q, the CSV has %q", i, h, got, want)
				}
			}
		}
	}
	for column, want := range map[string]string{
		"Total": "€79.40", "Lineitem price": "€19.00", "Paid at": "2026-11-21 15:04:00", "Accepts Marketing": "TRUE",
		"Lineitem requires shipping": "TRUE", "Lineitem quantity": "3", "Billing Zip": "01067",
	} {
		if got := oexCell(t, xlsx, 1, column); got != want {
			t.Errorf("workbook, first order's first row: %s = %q, want %q", column, got, want)
		}
	}

	// The list's filter and sort.
	file = e.Do(http.MethodGet, "/store/orders/export?status=open&sort=created_at", key, nil).Expect(t, http.StatusOK)
	tbl := oexRead(t, file.Raw, "csv")
	names = nil
	for i := range tbl.Rows {
		names = append(names, oexCell(t, tbl, i, "Name"))
	}
	if want := []string{noLines.OrderNumberDisplay, first.OrderNumberDisplay, first.OrderNumberDisplay}; !reflect.DeepEqual(names, want) {
		t.Errorf("status=open, oldest first: %v, want %v", names, want)
	}
	file = e.Do(http.MethodGet, "/store/orders/export?q=TEE-M", key, nil).Expect(t, http.StatusOK)
	if tbl := oexRead(t, file.Raw, "csv"); len(tbl.Rows) != 2 || oexCell(t, tbl, 1, "Lineitem sku") != "MUG" {
		t.Errorf("q=TEE-M: every line of the matching order, got %q", tbl.Rows)
	}
	file = e.Do(http.MethodGet, "/store/orders/export?financial_status=refunded", key, nil).Expect(t, http.StatusOK)
	if tbl := oexRead(t, file.Raw, "csv"); len(tbl.Rows) != 0 {
		t.Errorf("nothing matches: %q", tbl.Rows)
	}
	e.Do(http.MethodGet, "/store/orders/export?status=lost", key, nil).Expect(t, http.StatusBadRequest)
	e.Do(http.MethodGet, "/store/orders/export?sort=name", key, nil).Expect(t, http.StatusBadRequest)
	e.Do(http.MethodGet, "/store/orders/export", e.Key(s.ID, auth.RoleStaff), nil).Expect(t, http.StatusForbidden)
	e.Do(http.MethodGet, "/store/orders/export", e.Key(s.ID, auth.RoleAdmin, "products:read"), nil).Expect(t, http.StatusForbidden)

	// GraphQL answers a download of the same file.
	r := e.GraphQL(key, `query($f: OrderFilter) { ordersExport(filter: $f, format: XLSX) { filename content_type url } }`,
		map[string]any{"f": map[string]any{"status": "cancelled"}})
	d := r.Data()["ordersExport"].(map[string]any)
	if name := d["filename"].(string); !strings.HasPrefix(name, "orders") || !strings.HasSuffix(name, ".xlsx") {
		t.Errorf("filename %q", name)
	}
	resp, err := http.Get(d["url"].(string))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var buf bytes.Buffer
	if _, err := buf.ReadFrom(resp.Body); err != nil {
		t.Fatal(err)
	}
	if tbl := oexRead(t, buf.Bytes(), "xlsx"); len(tbl.Rows) != 1 || oexCell(t, tbl, 0, "Name") != second.OrderNumberDisplay {
		t.Errorf("GraphQL export of cancelled orders: %q", tbl.Rows)
	}
}

// TestOrdersExportBounds: more orders than the export holds is a 400 that
// asks to narrow the filter, and the statements an export costs do not grow
// with its orders.
func TestOrdersExportBounds(t *testing.T) {
	e := apitest.New(t)
	ctx := context.Background()
	few, many := e.Store("few"), e.Store("many")
	for i := range 3 {
		oexOrder(t, e, few.ID, oexT0.Add(time.Duration(i)*time.Hour), []models.OrderLineItem{oexLine("Mug", "MUG", 1250, 1)}, nil, nil)
	}
	for i := range 40 {
		oexOrder(t, e, many.ID, oexT0.Add(time.Duration(i)*time.Hour),
			[]models.OrderLineItem{oexLine("Mug", "MUG", 1250, 1), oexLine("Tee", "TEE", 1900, 2)},
			func(o *models.Order) { o.BillingAddress = map[string]any{"city": "Lyon"} },
			func(ctx context.Context, tx bun.Tx, o *models.Order, _ []models.OrderLineItem) error {
				return models.InsertTransaction(ctx, tx, &models.OrderTransaction{StoreID: o.StoreID, OrderID: o.ID,
					Kind: models.TxSale, Status: models.TxSuccess, AmountCents: o.TotalCents, Currency: "EUR", Provider: "stripe"})
			})
	}

	var got []models.OrderExport
	collect := func(chunk []models.OrderExport) error { got = append(got, chunk...); return nil }
	if err := models.ExportOrders(ctx, e.DB, few.ID, models.OrderFilter{}, 2, collect); apperr.CodeOf(err) != apperr.Invalid ||
		!strings.Contains(err.Error(), "narrow") || len(got) != 0 {
		t.Fatalf("3 orders over a bound of 2: %v, %d handed on", err, len(got))
	}
	if err := models.ExportOrders(ctx, e.DB, few.ID, models.OrderFilter{}, 3, collect); err != nil || len(got) != 3 {
		t.Fatalf("3 orders within a bound of 3: %d, %v", len(got), err)
	}

	keys := map[int64]string{few.ID: e.Key(few.ID, auth.RoleAdmin), many.ID: e.Key(many.ID, auth.RoleAdmin)}
	statements := map[int64]int64{}
	for _, s := range []*models.Store{few, many} {
		e.Do(http.MethodGet, "/store", keys[s.ID], nil).Expect(t, http.StatusOK) // records the key's last use
		before := e.Statements()
		file := e.Do(http.MethodGet, "/store/orders/export", keys[s.ID], nil).Expect(t, http.StatusOK)
		statements[s.ID] = e.Statements() - before
		if n := len(oexRead(t, file.Raw, "csv").Rows); s == many && n != 80 {
			t.Fatalf("%d rows for 40 orders of two lines", n)
		}
	}
	if statements[few.ID] != statements[many.ID] {
		t.Fatalf("3 orders cost %d statements, 40 cost %d", statements[few.ID], statements[many.ID])
	}
	t.Logf("statements per export: %d", statements[many.ID])
}

// TestOrdersExportStreamsInChunks: an export longer than one chunk of
// models.ExportOrders (2,000 orders) is every order once, in the list's
// order, across the chunks' seams.
func TestOrdersExportStreamsInChunks(t *testing.T) {
	e, s, key := newAcme(t)
	ctx := context.Background()
	const n = 4_100
	_, err := e.DB.NewRaw(`INSERT INTO orders (store_id, order_number, order_number_display, token, email, currency, total_cents, created_at, updated_at)
		SELECT ?, 1000 + g, '#' || (1000 + g), md5('oex' || g), 'o' || g || '@example.com', 'EUR', 100 * (g % 7),
			timestamptz '2026-01-01' + (g % 50) * interval '1 hour', now()
		FROM generate_series(1, ?) g`, s.ID, n).Exec(ctx)
	if err != nil {
		t.Fatal(err)
	}
	_, err = e.DB.NewRaw(`INSERT INTO order_line_items (store_id, order_id, title, sku, price_cents, quantity)
		SELECT store_id, id, 'Mug', 'MUG', 100, 1 FROM orders WHERE store_id = ?`, s.ID).Exec(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, sort := range []string{"-created_at", "total"} {
		file := e.Do(http.MethodGet, "/store/orders/export?sort="+sort, key, nil).Expect(t, http.StatusOK)
		tbl := oexRead(t, file.Raw, "csv")
		var names []string
		for i := range tbl.Rows {
			names = append(names, oexCell(t, tbl, i, "Name"))
		}
		var want []string
		err := e.DB.NewSelect().TableExpr("orders AS o").Column("order_number_display").Where("store_id = ?", s.ID).
			OrderExpr(map[string]string{"-created_at": "o.created_at DESC, o.id DESC", "total": "o.total_cents, o.id"}[sort]).Scan(ctx, &want)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(names, want) {
			t.Fatalf("sort %s: %d rows, want the %d orders in the list's order", sort, len(names), len(want))
		}
	}
}
