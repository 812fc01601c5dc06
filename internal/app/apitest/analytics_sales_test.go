package apitest_test

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"math/big"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/xuri/excelize/v2"

	"storeadmin/internal/analytics"
	"storeadmin/internal/app/apitest"
	"storeadmin/internal/auth"
	"storeadmin/internal/base/pricing"
	"storeadmin/internal/base/sheets"
	"storeadmin/internal/base/sheets/salessheet"
	"storeadmin/models"
)

// salesStore is a store with a history for sales by product: orders
// priced by the pricing engine from drafts (an order-wide code, a code for
// one product, a custom line, VAT on goods and shipping), orders with
// markdowns and tax on shipping, a cancelled unpaid order, and partial,
// full and line-less refunds on later days, spread over days around the
// zone's DST change.
type salesStore struct {
	store *models.Store
	admin string
	loc   *time.Location
}

// salesOrderAt moves an order (and its timeline's creation) to at, as if
// placed then: the rollups follow through the orders trigger.
func salesOrderAt(t *testing.T, e *apitest.Env, orderID int64, at time.Time) {
	t.Helper()
	if _, err := e.DB.NewRaw("UPDATE orders SET created_at = ? WHERE id = ?", at, orderID).Exec(context.Background()); err != nil {
		t.Fatal(err)
	}
}

// salesRefund refunds an order over REST and moves the refund to at.
func salesRefund(t *testing.T, e *apitest.Env, key string, orderID int64, input map[string]any, at time.Time) {
	t.Helper()
	r := e.Do(http.MethodPost, orderPath(orderID, "/refund"), key, input).Expect(t, http.StatusOK)
	id := wholeNumber(t, r.Obj("refund")["id"])
	if _, err := e.DB.NewRaw("UPDATE refunds SET created_at = ? WHERE id = ?", at, id).Exec(context.Background()); err != nil {
		t.Fatal(err)
	}
}

// salesDraftOrder places an order from a draft over REST, with code when
// given, and returns its id and its lines' ids in order.
func salesDraftOrder(t *testing.T, e *apitest.Env, key string, code string, lines ...map[string]any) (int64, []int64) {
	t.Helper()
	id := createDraftOrder(t, e, key, map[string]any{"email": "ada@example.com", "shipping_address": parisAddress, "lines": lines})
	if code != "" {
		e.Do(http.MethodPut, draftOrderPath(id, "/discount"), key, map[string]any{"code": code}).Expect(t, http.StatusOK)
	}
	paid := e.Do(http.MethodPost, draftOrderPath(id, "/mark-as-paid"), key, map[string]any{"provider": "bank_transfer"}).Expect(t, http.StatusOK)
	orderID := wholeNumber(t, paid.Body["order_id"])
	o := e.Do(http.MethodGet, orderPath(orderID), key, nil).Expect(t, http.StatusOK).Obj("order")
	var ids []int64
	for _, l := range o["line_items"].([]any) {
		ids = append(ids, wholeNumber(t, l.(map[string]any)["id"]))
	}
	return orderID, ids
}

func newSalesStore(t *testing.T, e *apitest.Env, name, zone string, day time.Time) salesStore {
	t.Helper()
	ctx := context.Background()
	s := e.Store(name)
	s.Timezone, s.Currency = zone, "EUR"
	if err := models.UpdateStore(ctx, e.DB, s, "timezone", "currency"); err != nil {
		t.Fatal(err)
	}
	loc, err := time.LoadLocation(zone)
	if err != nil {
		t.Fatal(err)
	}
	ss := salesStore{store: s, admin: e.Key(s.ID, auth.RoleAdmin), loc: loc}
	key := ss.admin
	tee := e.Do(http.MethodPost, "/store/products", key, map[string]any{"title": "Crème Tee 👕", "vendor": "Acme", "product_type": "Shirts", "options": []any{map[string]any{"name": "Size"}},
		"variants": []any{
			map[string]any{"sku": "TEE-S-" + name, "option1": "S", "price_cents": 2500, "inventory_quantity": 100},
			map[string]any{"sku": "TEE-M-" + name, "option1": "M", "price_cents": 2700, "inventory_quantity": 100},
		}}).Expect(t, http.StatusCreated).Obj("product")
	teeID := wholeNumber(t, tee["id"])
	teeS := wholeNumber(t, tee["variants"].([]any)[0].(map[string]any)["id"])
	teeM := wholeNumber(t, tee["variants"].([]any)[1].(map[string]any)["id"])
	mug := e.Do(http.MethodPost, "/store/products", key, map[string]any{"title": "Mug", "vendor": "Kiln", "product_type": "Kitchen",
		"variants": []any{map[string]any{"sku": "MUG-" + name, "price_cents": 1333, "inventory_quantity": 100}}}).Expect(t, http.StatusCreated).Obj("product")
	mugID := wholeNumber(t, mug["id"])
	mugV := wholeNumber(t, mug["variants"].([]any)[0].(map[string]any)["id"])
	insertShippingZone(t, e, s.ID, "Europe", 0, []string{"FR"}, models.ShippingRate{Name: "Standard", PriceCents: 495})
	if err := models.InsertTaxRate(ctx, e.DB, &models.TaxRate{StoreID: s.ID, Name: "TVA", Country: "FR", RateBps: 2000}); err != nil {
		t.Fatal(err)
	}
	insertDiscount(t, e, &models.Discount{StoreID: s.ID, Code: "SAVE10", Type: models.DiscountPercentage, Value: 10, Enabled: true})
	insertDiscount(t, e, &models.Discount{StoreID: s.ID, Code: "TEE30", Type: models.DiscountPercentage, Value: 30, Enabled: true,
		AppliesTo: models.AppliesToProducts, ProductIDs: []int64{teeID}})

	at := func(dayOffset, hour, minute int) time.Time {
		return time.Date(day.Year(), day.Month(), day.Day()+dayOffset, hour, minute, 0, 0, loc)
	}
	// Engine-priced orders.
	o1, l1 := salesDraftOrder(t, e, key, "TEE30",
		map[string]any{"variant_id": teeS, "quantity": 3}, map[string]any{"variant_id": mugV, "quantity": 1})
	salesOrderAt(t, e, o1, at(-1, 23, 50))
	o2, l2 := salesDraftOrder(t, e, key, "SAVE10",
		map[string]any{"variant_id": teeM, "quantity": 1}, map[string]any{"variant_id": teeS, "quantity": 1},
		map[string]any{"title": "Gift wrap", "price_cents": 333, "quantity": 1, "requires_shipping": false})
	salesOrderAt(t, e, o2, at(0, 1, 7))
	o3, _ := salesDraftOrder(t, e, key, "", map[string]any{"variant_id": mugV, "quantity": 3})
	salesOrderAt(t, e, o3, at(0, 14, 30))
	o4, l4 := salesDraftOrder(t, e, key, "SAVE10", map[string]any{"variant_id": teeM, "quantity": 2}, map[string]any{"variant_id": mugV, "quantity": 2})
	salesOrderAt(t, e, o4, at(1, 9, 15))

	// Markdowns, tax on shipping (the lines' tax is less than the order's),
	// a custom line; and an unpaid order cancelled, which does not count.
	marked := func(price, original, quantity, discount, tax int64, product, variant *int64) models.OrderLineItem {
		l := oexLine("Line", "SKU", price, quantity)
		l.OriginalPriceCents, l.DiscountCents, l.TaxCents, l.ProductID, l.VariantID = &original, discount, tax, product, variant
		return l
	}
	oexOrder(t, e, s.ID, at(2, 3, 0), []models.OrderLineItem{
		marked(2000, 2500, 2, 300, 700, &teeID, &teeS), marked(1333, 1000, 1, 133, 240, &mugID, &mugV),
		marked(999, 1499, 1, 100, 180, nil, nil),
	}, func(o *models.Order) {
		o.DiscountCents, o.ShippingCents, o.TaxCents = 533, 495, 1219
		o.TotalCents = o.SubtotalCents - 533 + 495 + 1219
		o.FinancialStatus = models.FinancialPaid
	}, nil)
	cancelled := oexOrder(t, e, s.ID, at(1, 10, 0), []models.OrderLineItem{marked(2500, 2500, 4, 0, 0, &teeID, &teeS)}, nil, nil)
	e.Do(http.MethodPost, orderPath(cancelled.ID, "/cancel"), key, map[string]any{}).Expect(t, http.StatusOK)

	// Refunds on later days: one tee of the first order (computed from the
	// line), the fourth order's mugs with shipping, money with no line.
	salesRefund(t, e, key, o1, map[string]any{"line_items": []any{map[string]any{"line_item_id": l1[0], "quantity": 1}}}, at(1, 0, 20))
	salesRefund(t, e, key, o4, map[string]any{"line_items": []any{map[string]any{"line_item_id": l4[1], "quantity": 2},
		map[string]any{"line_item_id": l4[0], "quantity": 1}}, "refund_shipping": true}, at(2, 16, 45))
	salesRefund(t, e, key, o2, map[string]any{"amount_cents": 250}, at(2, 17, 0))
	salesRefund(t, e, key, o2, map[string]any{"line_items": []any{map[string]any{"line_item_id": l2[2], "quantity": 1}}, "amount_cents": 100}, at(3, 8, 0))
	return ss
}

// salesBrute is sales by product computed in Go from the rows read
// plainly: the report's definitions, written again without its SQL.
type salesBrute struct {
	rows   map[[2]int64]*analytics.AnalyticsProductSalesRow
	orders map[[2]int64]map[int64]bool
	basis  analytics.AnalyticsProductSalesBasis
	// shippingTax is the orders' tax in no line; offLines the refunds'
	// money in no line.
	shippingTax, offLines int64
}

func salesBruteForce(t *testing.T, e *apitest.Env, storeID int64, from, to time.Time, grain string) salesBrute {
	t.Helper()
	ctx := context.Background()
	var orders []models.Order
	var lines []models.OrderLineItem
	var refunds []models.Refund
	var rls []models.RefundLineItem
	var products []models.Product
	var variants []models.ProductVariant
	for _, q := range []struct {
		dst   any
		query string
	}{
		{&orders, "SELECT * FROM orders WHERE store_id = ?"},
		{&lines, "SELECT * FROM order_line_items WHERE store_id = ?"},
		{&refunds, "SELECT * FROM refunds WHERE store_id = ?"},
		{&rls, "SELECT rl.* FROM refund_line_items AS rl JOIN refunds AS r ON r.id = rl.refund_id WHERE r.store_id = ?"},
		{&products, "SELECT * FROM products WHERE store_id = ?"},
		{&variants, "SELECT v.* FROM product_variants AS v JOIN products AS p ON p.id = v.product_id WHERE p.store_id = ?"},
	} {
		if err := e.DB.NewRaw(q.query, storeID).Scan(ctx, q.dst); err != nil {
			t.Fatal(err)
		}
	}
	orderOf := map[int64]models.Order{}
	for _, o := range orders {
		orderOf[o.ID] = o
	}
	lineOf := map[int64]models.OrderLineItem{}
	linesOf := map[int64][]models.OrderLineItem{}
	for _, l := range lines {
		lineOf[l.ID] = l
		linesOf[l.OrderID] = append(linesOf[l.OrderID], l)
	}
	b := salesBrute{rows: map[[2]int64]*analytics.AnalyticsProductSalesRow{}, orders: map[[2]int64]map[int64]bool{}}
	keyOf := func(l models.OrderLineItem) [2]int64 {
		if l.ProductID == nil {
			return [2]int64{0, 0}
		}
		if grain == analytics.GrainSKU && l.VariantID != nil {
			return [2]int64{*l.ProductID, *l.VariantID}
		}
		return [2]int64{*l.ProductID, 0}
	}
	row := func(k [2]int64) *analytics.AnalyticsProductSalesRow {
		if b.rows[k] == nil {
			zero := int64(0)
			b.rows[k] = &analytics.AnalyticsProductSalesRow{ProductID: k[0], VariantID: k[1], DiscountCents: &zero, TaxCents: new(int64)}
			b.orders[k] = map[int64]bool{}
			_ = zero
		}
		return b.rows[k]
	}
	in := func(at time.Time) bool { return !at.Before(from) && at.Before(to) }
	for _, o := range orders {
		counted := !(o.Status == "cancelled" && slices.Contains([]string{"pending", "authorized", "voided"}, o.FinancialStatus))
		if !counted || !in(o.CreatedAt) {
			continue
		}
		b.basis.OrderSubtotalCents += o.SubtotalCents
		b.basis.OrderDiscountCents += o.DiscountCents
		b.basis.OrderTaxCents += o.TaxCents
		b.shippingTax += o.TaxCents
		for _, l := range linesOf[o.ID] {
			r := row(keyOf(l))
			b.orders[keyOf(l)][o.ID] = true
			original := l.PriceCents
			if l.OriginalPriceCents != nil && *l.OriginalPriceCents > original {
				original = *l.OriginalPriceCents
			}
			r.ItemsSold += l.Quantity
			r.GrossCents += original * l.Quantity
			r.LineDiscountCents += (original - l.PriceCents) * l.Quantity
			r.ProductSalesCents += l.PriceCents * l.Quantity
			*r.DiscountCents += l.DiscountCents
			*r.TaxCents += l.TaxCents
			b.shippingTax -= l.TaxCents
		}
	}
	firstRefund := map[int64]time.Time{}
	for _, rf := range refunds {
		if rf.Status != "success" {
			continue
		}
		if f, ok := firstRefund[rf.OrderID]; !ok || rf.CreatedAt.Before(f) {
			firstRefund[rf.OrderID] = rf.CreatedAt
		}
		if !in(rf.CreatedAt) {
			continue
		}
		b.basis.RefundedCents += rf.AmountCents
		var mine []models.RefundLineItem
		for _, rl := range rls {
			if rl.RefundID == rf.ID {
				mine = append(mine, rl)
			}
		}
		if len(mine) == 0 {
			b.basis.RefundsWithoutLines++
			b.offLines += rf.AmountCents
			continue
		}
		// The lines' money: their share of what was paid for the goods,
		// as models.planRefund computes it, at most the refund's amount.
		slices.SortFunc(mine, func(a, c models.RefundLineItem) int { return cmp.Compare(a.LineItemID, c.LineItemID) })
		o := orderOf[rf.OrderID]
		weights := make([]int64, len(mine))
		var goods int64
		for i, rl := range mine {
			weights[i] = lineOf[rl.LineItemID].PriceCents * rl.Quantity
			goods += weights[i]
		}
		var money int64
		if o.SubtotalCents > 0 {
			n := new(big.Int).Mul(big.NewInt(goods), big.NewInt(o.SubtotalCents-o.DiscountCents+o.TaxCents))
			n.Add(n, big.NewInt(o.SubtotalCents/2))
			money = min(rf.AmountCents, n.Quo(n, big.NewInt(o.SubtotalCents)).Int64())
		}
		b.offLines += rf.AmountCents - money
		for i, share := range pricing.Allocate(money, weights) {
			r := row(keyOf(lineOf[mine[i].LineItemID]))
			r.RefundedItems += mine[i].Quantity
			r.RefundedCents += share
		}
	}
	for _, at := range firstRefund {
		if in(at) {
			b.basis.RefundedOrders++
		}
	}
	titles := map[int64]models.Product{}
	for _, p := range products {
		titles[p.ID] = p
	}
	variantOf := map[int64]models.ProductVariant{}
	for _, v := range variants {
		variantOf[v.ID] = v
	}
	for k, r := range b.rows {
		r.OrderCount = int64(len(b.orders[k]))
		if k[0] == 0 {
			r.Title = "custom"
		} else {
			p := titles[k[0]]
			r.Title, r.Vendor, r.ProductType = p.Title, p.Vendor, p.ProductType
		}
		if k[1] != 0 {
			r.VariantTitle, r.SKU = variantOf[k[1]].Title, variantOf[k[1]].SKU
		}
		net := r.ProductSalesCents - *r.DiscountCents - r.RefundedCents
		items, total := r.ItemsSold-r.RefundedItems, net+*r.TaxCents
		r.NetItemsSold, r.NetSalesCents, r.TotalSalesCents = &items, &net, &total
	}
	return b
}

// salesRows decodes a report's rows from JSON.
func salesRows(t *testing.T, v any) []analytics.AnalyticsProductSalesRow {
	t.Helper()
	raw, _ := json.Marshal(v)
	var rows []analytics.AnalyticsProductSalesRow
	if err := json.Unmarshal(raw, &rows); err != nil {
		t.Fatal(err)
	}
	return rows
}

// TestSalesByProductReconciles: for windows of dates across the DST
// change and date-times with ragged edges, in two zones and at both
// grains, the report (rollups and raw edges) equals the brute force in Go,
// its totals reconcile to the orders' own figures as the README says, both
// surfaces agree, and the raw-only path and the rollup check agree too;
// after a rebuild, nothing changes.
func TestSalesByProductReconciles(t *testing.T) {
	e := apitest.New(t)
	ctx := context.Background()
	for _, tc := range []struct {
		zone string
		day  time.Time // the DST change
	}{
		{"Europe/Berlin", time.Date(2026, 10, 25, 0, 0, 0, 0, time.UTC)},
		{"America/New_York", time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)},
	} {
		ss := newSalesStore(t, e, "sales-"+tc.zone[:6], tc.zone, tc.day)
		d := func(offset int) string { return tc.day.AddDate(0, 0, offset).Format(time.DateOnly) }
		windows := [][2]string{
			{d(-2), d(4)}, {d(-1), d(-1)}, {d(0), d(0)}, {d(1), d(2)}, {d(3), d(3)},
			{d(-1) + "T23:49:30", d(2) + "T16:45:00"}, {d(0) + "T01:07:00", d(0) + "T14:30:00"},
		}
		check := func(stage string) {
			for _, win := range windows {
				for _, grain := range []string{"product", "sku"} {
					from, _ := time.ParseInLocation(time.DateOnly, win[0], ss.loc)
					if len(win[0]) > 10 {
						from, _ = time.ParseInLocation("2006-01-02T15:04:05", win[0], ss.loc)
					}
					to, _ := time.ParseInLocation(time.DateOnly, win[1], ss.loc)
					if len(win[1]) > 10 {
						to, _ = time.ParseInLocation("2006-01-02T15:04:05", win[1], ss.loc)
					} else {
						to = to.AddDate(0, 0, 1)
					}
					what := fmt.Sprintf("%s %s %s..%s by %s", stage, tc.zone, win[0], win[1], grain)
					q := url.Values{"from": {win[0]}, "to": {win[1]}, "grain": {grain}, "limit": {"1000"}}
					r := e.Do(http.MethodGet, "/store/analytics/sales-by-product?"+q.Encode(), ss.admin, nil).Expect(t, http.StatusOK)
					e.SameOnGraphQL(t, r, ss.admin, "AnalyticsSalesByProduct",
						map[string]any{"from": win[0], "to": win[1], "grain": grain, "limit": 1000})
					report := r.Obj("report")
					got := salesRows(t, report["rows"])
					b := salesBruteForce(t, e, ss.store.ID, from, to, grain)
					want := make([]analytics.AnalyticsProductSalesRow, 0, len(b.rows))
					for _, row := range b.rows {
						want = append(want, *row)
					}
					slices.SortFunc(want, func(a, c analytics.AnalyticsProductSalesRow) int {
						return cmp.Or(cmp.Compare(c.ProductSalesCents, a.ProductSalesCents), cmp.Compare(a.Title, c.Title),
							cmp.Compare(a.ProductID, c.ProductID), cmp.Compare(a.VariantID, c.VariantID))
					})
					gj, _ := json.Marshal(got)
					wj, _ := json.Marshal(want)
					if !bytes.Equal(gj, wj) {
						t.Fatalf("%s: rows\n got %s\nwant %s", what, gj, wj)
					}
					var basis analytics.AnalyticsProductSalesBasis
					raw, _ := json.Marshal(report["basis"])
					_ = json.Unmarshal(raw, &basis)
					if basis != b.basis {
						t.Fatalf("%s: basis %+v, want %+v", what, basis, b.basis)
					}
					var totals analytics.AnalyticsProductSalesTotals
					raw, _ = json.Marshal(report["totals"])
					_ = json.Unmarshal(raw, &totals)
					// The README's identities.
					if totals.Rows != int64(len(want)) || totals.ProductSalesCents != basis.OrderSubtotalCents ||
						*totals.DiscountCents != basis.OrderDiscountCents || *totals.TaxCents != basis.OrderTaxCents-b.shippingTax ||
						totals.RefundedCents != basis.RefundedCents-b.offLines ||
						totals.GrossCents-totals.LineDiscountCents != totals.ProductSalesCents ||
						*totals.NetSalesCents != totals.ProductSalesCents-*totals.DiscountCents-totals.RefundedCents {
						t.Fatalf("%s: totals %s do not reconcile to %+v (shipping tax %d, refunds off lines %d)", what, raw, basis, b.shippingTax, b.offLines)
					}
					// A short list is the head of the whole one, with the same
					// totals: the rows cut in the database, the edges' rows
					// among those that may climb into it.
					for _, limit := range []int{1, 3} {
						q.Set("limit", fmt.Sprint(limit))
						short := e.Do(http.MethodGet, "/store/analytics/sales-by-product?"+q.Encode(), ss.admin, nil).Expect(t, http.StatusOK).Obj("report")
						head := want[:min(limit, len(want))]
						sj, _ := json.Marshal(salesRows(t, short["rows"]))
						hj, _ := json.Marshal(head)
						if !bytes.Equal(sj, hj) {
							t.Fatalf("%s, limit %d: rows\n got %s\nwant %s", what, limit, sj, hj)
						}
						if tj, _ := json.Marshal(short["totals"]); !bytes.Equal(tj, raw) {
							t.Fatalf("%s, limit %d: totals %s, want %s", what, limit, tj, raw)
						}
					}
					w := analytics.Window{Span: analytics.Span{From: from, To: to}, Interval: analytics.Day, Loc: ss.loc}
					fromRaw, err := analytics.SalesByProductFromRaw(ctx, e.DB, ss.store.ID, w, analytics.SalesQuery{Grain: grain, Limit: 1000})
					if err != nil {
						t.Fatal(err)
					}
					if rj, _ := json.Marshal(fromRaw.Rows); !bytes.Equal(rj, gj) {
						t.Fatalf("%s: the raw path's rows\n%s\ndiffer from\n%s", what, rj, gj)
					}
				}
			}
			problems, err := analytics.CheckSalesRollups(ctx, e.DB, ss.store.ID,
				analytics.Span{From: tc.day.AddDate(0, 0, -3), To: tc.day.AddDate(0, 0, 5)})
			if err != nil || len(problems) > 0 {
				t.Fatalf("%s: check: %v %q", stage, err, problems)
			}
		}
		check("kept by triggers")
		if err := analytics.RebuildSalesRollups(ctx, e.DB, ss.store.ID); err != nil {
			t.Fatal(err)
		}
		check("rebuilt")
		// Deletions: a refund with lines, then an order with a refund (its
		// lines, refunds and refund lines go by cascade), then one line.
		for _, q := range []string{
			`DELETE FROM refunds WHERE id = (SELECT max(r.id) FROM refunds AS r JOIN refund_line_items AS rl ON rl.refund_id = r.id WHERE r.store_id = ?0)`,
			`DELETE FROM orders WHERE id = (SELECT min(order_id) FROM refunds WHERE store_id = ?0)`,
			`DELETE FROM order_line_items WHERE id = (SELECT max(l.id) FROM order_line_items AS l WHERE l.store_id = ?0
				AND NOT EXISTS (SELECT FROM refund_line_items AS rl WHERE rl.line_item_id = l.id))`,
		} {
			if _, err := e.DB.NewRaw(q, ss.store.ID).Exec(ctx); err != nil {
				t.Fatal(err)
			}
		}
		check("after deletions")
		var n int
		if err := e.DB.NewRaw("SELECT count(*) FROM product_sales_slots WHERE store_id = ?", ss.store.ID).Scan(ctx, &n); err != nil || n == 0 {
			t.Fatalf("the rollups are empty: %v", err)
		}
	}
}

// TestSalesByProductLimitAndExports: limit cuts the rows but not the
// totals; the CSV (with a byte-order mark) and the XLSX (read back by a
// streaming reader, which trusts the sheet's dimension) hold exactly the
// JSON's rows, money as numbers in the store's currency.
func TestSalesByProductLimitAndExports(t *testing.T) {
	e := apitest.New(t)
	day := time.Date(2026, 10, 25, 0, 0, 0, 0, time.UTC)
	ss := newSalesStore(t, e, "sales-export", "Europe/Berlin", day)
	q := "from=2026-10-20&to=2026-10-30&grain=sku"
	all := e.Do(http.MethodGet, "/store/analytics/sales-by-product?"+q+"&limit=1000", ss.admin, nil).Expect(t, http.StatusOK).Obj("report")
	rows := salesRows(t, all["rows"])
	if len(rows) < 4 {
		t.Fatalf("%d rows", len(rows))
	}
	two := e.Do(http.MethodGet, "/store/analytics/sales-by-product?"+q+"&limit=2", ss.admin, nil).Expect(t, http.StatusOK).Obj("report")
	if got := salesRows(t, two["rows"]); len(got) != 2 || got[0] != rows[0] && got[0].Title != rows[0].Title {
		t.Fatalf("limit 2: %v", got)
	}
	if fmt.Sprint(two["totals"]) != fmt.Sprint(all["totals"]) || wholeNumber(t, two["limit"]) != 2 {
		t.Fatalf("totals with limit %v, without %v", two["totals"], all["totals"])
	}
	def := e.Do(http.MethodGet, "/store/analytics/sales-by-product?from=2026-10-20&to=2026-10-30", ss.admin, nil).Expect(t, http.StatusOK).Obj("report")
	if def["grain"] != "product" || wholeNumber(t, def["limit"]) != 50 {
		t.Fatalf("defaults: %v %v", def["grain"], def["limit"])
	}

	want := salessheet.Header()
	wantRows := [][]string{}
	for _, r := range rows {
		cells := []string{strconv.FormatInt(r.ProductID, 10), strconv.FormatInt(r.VariantID, 10), r.Title, r.VariantTitle, r.SKU, r.Vendor,
			r.ProductType, strconv.FormatInt(r.OrderCount, 10), strconv.FormatInt(r.ItemsSold, 10), strconv.FormatInt(r.RefundedItems, 10),
			strconv.FormatInt(*r.NetItemsSold, 10)}
		for _, c := range []int64{r.GrossCents, r.LineDiscountCents, r.ProductSalesCents, *r.DiscountCents, r.RefundedCents,
			*r.NetSalesCents, *r.TaxCents, *r.TotalSalesCents} {
			cells = append(cells, fmt.Sprintf("%d.%02d", c/100, c%100))
		}
		wantRows = append(wantRows, cells)
	}

	csv := e.Do(http.MethodGet, "/store/analytics/sales-by-product/export.csv?"+q, ss.admin, nil).Expect(t, http.StatusOK)
	if !bytes.HasPrefix(csv.Raw, []byte("\xEF\xBB\xBF")) || !bytes.Contains(csv.Raw, []byte("Crème Tee 👕")) {
		t.Fatalf("the CSV starts %q", csv.Raw[:min(40, len(csv.Raw))])
	}
	tbl, err := sheets.Read(bytes.NewReader(csv.Raw), 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(tbl.Header, want) || fmt.Sprint(tbl.Rows) != fmt.Sprint(wantRows) {
		t.Fatalf("CSV\n%q\n%q\nwant\n%q", tbl.Header, tbl.Rows, wantRows)
	}

	raw := e.Do(http.MethodGet, "/store/analytics/sales-by-product/export.xlsx?"+q, ss.admin, nil).Expect(t, http.StatusOK).Raw
	f, err := excelize.OpenReader(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sheet := f.GetSheetName(0)
	if dim, err := f.GetSheetDimension(sheet); err != nil || dim != fmt.Sprintf("A1:S%d", len(rows)+1) {
		t.Errorf("dimension %q %v", dim, err)
	}
	it, err := f.Rows(sheet)
	if err != nil {
		t.Fatal(err)
	}
	var got [][]string
	for it.Next() {
		cols, err := it.Columns(excelize.Options{RawCellValue: true})
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, cols)
	}
	_ = it.Close()
	if len(got) != len(rows)+1 || !slices.Equal(got[0], want) {
		t.Fatalf("XLSX rows %q", got)
	}
	for i, r := range wantRows {
		for c, cell := range r {
			g := ""
			if c < len(got[i+1]) {
				g = got[i+1][c]
			}
			if n, err := strconv.ParseFloat(cell, 64); err == nil && c != 4 {
				if gn, err := strconv.ParseFloat(g, 64); err != nil || gn != n {
					t.Fatalf("XLSX row %d column %s: %q, want %s", i+1, want[c], g, cell)
				}
			} else if g != cell {
				t.Fatalf("XLSX row %d column %s: %q, want %q", i+1, want[c], g, cell)
			}
		}
	}
	cell, _ := excelize.CoordinatesToCellName(12, 2) // Gross sales
	id, _ := f.GetCellStyle(sheet, cell)
	if st, err := f.GetStyle(id); err != nil || st.CustomNumFmt == nil || !bytes.Contains([]byte(*st.CustomNumFmt), []byte("€")) {
		t.Errorf("gross sales are not shown in euros: %+v %v", st, err)
	}
	if typ, _ := f.GetCellType(sheet, cell); typ != excelize.CellTypeUnset {
		t.Errorf("gross sales are of type %v, want a number", typ)
	}
}

// TestSalesByProductRefusals: 401 without a key, 403 without the
// analytics scope, 400 naming the argument for a bad window, grain or
// limit, on both surfaces.
func TestSalesByProductRefusals(t *testing.T) {
	e := apitest.New(t)
	s := e.Store("sales-refusals")
	admin := e.Key(s.ID, auth.RoleAdmin)
	paths := []string{"/store/analytics/sales-by-product", "/store/analytics/sales-by-product/export.csv", "/store/analytics/sales-by-product/export.xlsx"}
	var reads []apitest.Call
	for _, p := range paths {
		reads = append(reads, apitest.Call{Method: http.MethodGet, Path: p})
	}
	e.ExpectEach(t, http.StatusUnauthorized, map[string]string{"no key": "", "unknown key": "sa_api_nope"}, reads)
	e.ExpectEach(t, http.StatusForbidden, map[string]string{"orders only": e.Key(s.ID, auth.RoleAdmin, "orders:read")}, reads)
	e.ExpectEach(t, http.StatusOK, map[string]string{"analytics": e.Key(s.ID, auth.RoleAdmin, "analytics:read"), "admin": admin}, reads)
	for query, field := range map[string]string{
		"from=yesterday": "from", "to=2026-13-01": "to", "from=2026-11-02&to=2026-11-01": "from",
		"from=2023-01-01&to=2026-11-01": "from", "grain=variant": "grain", "grain=": "grain",
	} {
		for _, p := range paths {
			r := e.Do(http.MethodGet, p+"?"+query, admin, nil).Expect(t, http.StatusBadRequest)
			if r.Body["field"] != field && fmt.Sprint(r.Body["error"]) == "" {
				t.Errorf("%s?%s: %s", p, query, r.Raw)
			}
			if !bytes.Contains(r.Raw, []byte(field)) {
				t.Errorf("%s?%s: the message does not name %s: %s", p, query, field, r.Raw)
			}
		}
	}
	for _, limit := range []string{"0", "1001", "-1", "ten"} {
		e.Do(http.MethodGet, "/store/analytics/sales-by-product?limit="+limit, admin, nil).Expect(t, http.StatusBadRequest)
	}
	expectGraphQLCode(t, e, admin, "BAD_USER_INPUT", nil, `{ analyticsSalesByProduct(grain: "variant") { grain } }`)
	expectGraphQLCode(t, e, admin, "BAD_USER_INPUT", nil, `{ analyticsSalesByProduct(limit: 0) { grain } }`)
}
