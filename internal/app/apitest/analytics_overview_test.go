package apitest_test

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/url"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"storeadmin/internal/analytics"
	"storeadmin/internal/app/apitest"
	"storeadmin/internal/auth"
)

// The overview's tests (GET /store/analytics). Helpers are prefixed ov.

// ovStore is a store filled with ~60 days of orders around the 2026-11-01
// change of clocks in New York: customers and guests, discount codes,
// sources and campaigns, lines of 14 products with their discount shares,
// orders cancelled unpaid (which do not count) and cancelled after payment
// (which do), refunds partial and full on later days, failed refunds.
type ovStore struct {
	t   *testing.T
	e   *apitest.Env
	id  int64
	rng *rand.Rand
	n   int64 // orders inserted
}

var (
	ovStart   = time.Date(2026, 10, 5, 0, 0, 0, 0, time.UTC)
	ovDays    = 60
	ovSources = []struct{ source, campaign string }{{"google", "autumn"}, {"google", "brand"}, {"google", ""},
		{"facebook", "autumn"}, {"newsletter", "vip"}, {"", ""}, {"", "orphan"}}
)

func (f *ovStore) exec(query string, args ...any) {
	f.t.Helper()
	if _, err := f.e.DB.ExecContext(context.Background(), query, args...); err != nil {
		f.t.Fatalf("%s: %v", query, err)
	}
}

func (f *ovStore) ids(query string, args ...any) []int64 {
	f.t.Helper()
	var out []int64
	if err := f.e.DB.NewRaw(query, args...).Scan(context.Background(), &out); err != nil {
		f.t.Fatalf("%s: %v", query, err)
	}
	return out
}

// seed inserts customers, products and orders in batches of several
// statements (each batch one trigger call per table).
func (f *ovStore) seed(orders int) {
	f.t.Helper()
	customers := f.ids(`INSERT INTO customers (store_id, email) SELECT ?, 'c' || g || '-' || ? || '@example.com' FROM generate_series(1, 25) AS g RETURNING id`, f.id, f.n)
	products := f.ids(`INSERT INTO products (store_id, title, handle) SELECT ?, 'Product ' || chr(64 + g), 'p-' || g || '-' || ?
		FROM generate_series(1, 14) AS g RETURNING id`, f.id, f.n)
	for batch := 0; batch < orders; batch += 50 {
		var values, lines []string
		for range min(50, orders-batch) {
			f.n++
			at := ovStart.Add(time.Duration(f.rng.Int64N(int64(ovDays) * int64(24*time.Hour))))
			status, financial := "open", "paid"
			switch f.rng.IntN(12) {
			case 0:
				status, financial = "cancelled", "voided"
			case 1:
				status, financial = "cancelled", "pending"
			case 2:
				status, financial = "cancelled", "refunded"
			case 3:
				status, financial = "archived", "paid"
			case 4:
				financial = "authorized"
			}
			customer := "NULL"
			if f.rng.IntN(5) > 0 {
				customer = fmt.Sprint(customers[f.rng.IntN(len(customers))])
			}
			src := ovSources[f.rng.IntN(len(ovSources))]
			attribution := "NULL"
			if src.source != "" || src.campaign != "" || f.rng.IntN(2) == 0 {
				attribution = fmt.Sprintf(`'{"utm_source": %q, "utm_campaign": %q}'`, src.source, src.campaign)
			}
			code := ""
			if f.rng.IntN(3) == 0 {
				code = fmt.Sprintf("CODE%d", f.rng.IntN(12))
			}
			var subtotal int64
			var discount int64
			for l := range 1 + f.rng.IntN(3) {
				price, qty := int64(100+f.rng.IntN(5000)), int64(1+f.rng.IntN(3))
				share := int64(0)
				if code != "" {
					share = price * qty / 10
				}
				subtotal += price * qty
				discount += share
				product := fmt.Sprint(products[f.rng.IntN(len(products))])
				if f.rng.IntN(15) == 0 {
					product = "NULL" // a custom line
				}
				lines = append(lines, fmt.Sprintf("(%d, %d, %s, 'Line', %d, %d, %d, %d)", f.id, f.n, product, price, qty, share, l))
			}
			values = append(values, fmt.Sprintf("(%d, %d, '#%d', 'ov-%d-%d', %s, 'EUR', '%s', '%s', %d, %d, '%s', %d, %d, %d, %s, '%s')",
				f.id, f.n, f.n, f.id, f.n, customer, status, financial, subtotal, discount, code,
				f.rng.IntN(900), f.rng.IntN(700), f.rng.IntN(3)*100, attribution, at.Format(time.RFC3339Nano)))
		}
		// Lines name their order by number; the insert maps them to ids.
		f.exec(`INSERT INTO orders (store_id, order_number, order_number_display, token, customer_id, currency, status, financial_status,
			subtotal_cents, discount_cents, discount_code, shipping_cents, tax_cents, tip_cents, attribution, created_at) VALUES ` + strings.Join(values, ", "))
		f.exec(`INSERT INTO order_line_items (store_id, order_id, product_id, title, price_cents, quantity, discount_cents, position)
			SELECT v.store_id, o.id, v.product_id, v.title, v.price, v.qty, v.share, v.pos
			FROM (VALUES ` + strings.Join(lines, ", ") + `) AS v (store_id, number, product_id, title, price, qty, share, pos)
			JOIN orders AS o ON o.store_id = v.store_id AND o.order_number = v.number`)
	}
	// Refunds, on later days: some partial, some full, a few failed, some
	// orders twice.
	f.exec(`INSERT INTO refunds (store_id, order_id, amount_cents, currency, status, created_at)
		SELECT o.store_id, o.id, CASE WHEN o.id % 3 = 0 THEN o.subtotal_cents - o.discount_cents ELSE (o.subtotal_cents / 4) END, 'EUR',
			CASE WHEN o.id % 11 = 0 THEN 'failure' ELSE 'success' END,
			o.created_at + (o.id % 9) * interval '1 day 3 hours 7 minutes'
		FROM orders AS o WHERE o.store_id = ? AND o.financial_status IN ('paid', 'refunded') AND o.id % 4 = 0`, f.id)
	f.exec(`INSERT INTO refunds (store_id, order_id, amount_cents, currency, created_at)
		SELECT o.store_id, o.id, 150, 'EUR', o.created_at + interval '2 days 11 minutes'
		FROM orders AS o WHERE o.store_id = ? AND o.financial_status = 'paid' AND o.id % 8 = 0`, f.id)
}

// ovRows are the store's raw rows, read plainly.
type ovRows struct {
	orders []struct {
		ID, Subtotal, Discount, Shipping, Tax, Tip int64
		CustomerID                                 *int64
		Status, Financial, Code                    string
		Source, Campaign                           *string
		CreatedAt                                  time.Time
	}
	lines []struct {
		OrderID                        int64
		ProductID                      *int64
		Price, Quantity, DiscountShare int64
	}
	refunds []struct {
		ID, OrderID, Amount int64
		Status              string
		CreatedAt           time.Time
	}
	titles map[int64]string
}

func ovRead(t *testing.T, e *apitest.Env, storeID int64) ovRows {
	t.Helper()
	ctx := context.Background()
	var r ovRows
	scan := func(dest any, q string) {
		if err := e.DB.NewRaw(q, storeID).Scan(ctx, dest); err != nil {
			t.Fatal(err)
		}
	}
	scan(&r.orders, `SELECT id, subtotal_cents AS subtotal, discount_cents AS discount, shipping_cents AS shipping, tax_cents AS tax,
		tip_cents AS tip, customer_id, status, financial_status AS financial, discount_code AS code,
		attribution->>'utm_source' AS source, attribution->>'utm_campaign' AS campaign, created_at FROM orders WHERE store_id = ?`)
	scan(&r.lines, `SELECT order_id, product_id, price_cents AS price, quantity, discount_cents AS discount_share
		FROM order_line_items WHERE store_id = ?`)
	scan(&r.refunds, `SELECT id, order_id, amount_cents AS amount, status, created_at FROM refunds WHERE store_id = ?`)
	var products []struct {
		ID    int64
		Title string
	}
	scan(&products, `SELECT id, title FROM products WHERE store_id = ?`)
	r.titles = map[int64]string{}
	for _, p := range products {
		r.titles[p.ID] = p.Title
	}
	return r
}

// ovExpect is the overview computed by brute force from rows, written
// without the report's SQL: every figure from the definitions in README
// "Analytics".
func ovExpect(r ovRows, from, to time.Time, interval string, loc *time.Location) (metrics analytics.AnalyticsMetrics, series map[string][2]int64,
	customers analytics.AnalyticsCustomers, sources []analytics.AnalyticsSourceStat, campaigns []analytics.AnalyticsCampaignStat,
	discounts []analytics.AnalyticsDiscountStat, products []analytics.AnalyticsProductStat) {
	in := func(t time.Time) bool { return !t.Before(from) && t.Before(to) }
	counts := func(status, financial string) bool {
		return !(status == "cancelled" && (financial == "pending" || financial == "authorized" || financial == "voided"))
	}
	units := map[int64]int64{}
	for _, l := range r.lines {
		units[l.OrderID] += l.Quantity
	}
	series = map[string][2]int64{}
	first := map[int64]time.Time{}
	buyers := map[int64]bool{}
	bySource := map[string]*analytics.AnalyticsSourceStat{}
	byCampaign := map[[2]string]*analytics.AnalyticsCampaignStat{}
	byCode := map[string]*analytics.AnalyticsDiscountStat{}
	counted := map[int64]bool{}
	for _, o := range r.orders {
		if !counts(o.Status, o.Financial) {
			continue
		}
		if o.CustomerID != nil {
			if f, ok := first[*o.CustomerID]; !ok || o.CreatedAt.Before(f) {
				first[*o.CustomerID] = o.CreatedAt
			}
		}
		if !in(o.CreatedAt) {
			continue
		}
		counted[o.ID] = true
		metrics.GrossCents += o.Subtotal
		metrics.DiscountCents += o.Discount
		metrics.ShippingCents += o.Shipping
		metrics.TaxCents += o.Tax
		metrics.TipCents += o.Tip
		metrics.OrderCount++
		metrics.Units += units[o.ID]
		label := ovLabel(o.CreatedAt, interval, loc)
		series[label] = [2]int64{series[label][0] + o.Subtotal, series[label][1] + 1}
		if o.CustomerID != nil {
			buyers[*o.CustomerID] = true
		}
		source, campaign := "(direct)", ""
		if o.Source != nil && *o.Source != "" {
			source = *o.Source
		}
		if o.Campaign != nil {
			campaign = *o.Campaign
		}
		if bySource[source] == nil {
			bySource[source] = &analytics.AnalyticsSourceStat{Source: source}
		}
		bySource[source].OrderCount++
		bySource[source].GrossCents += o.Subtotal
		if campaign != "" {
			k := [2]string{source, campaign}
			if byCampaign[k] == nil {
				byCampaign[k] = &analytics.AnalyticsCampaignStat{Source: source, Campaign: campaign}
			}
			byCampaign[k].OrderCount++
			byCampaign[k].GrossCents += o.Subtotal
		}
		if o.Code != "" {
			if byCode[o.Code] == nil {
				byCode[o.Code] = &analytics.AnalyticsDiscountStat{Code: o.Code}
			}
			byCode[o.Code].OrderCount++
			byCode[o.Code].DiscountCents += o.Discount
		}
	}
	firstRefund := map[int64]time.Time{}
	for _, rf := range r.refunds {
		if rf.Status != "success" {
			continue
		}
		if in(rf.CreatedAt) {
			metrics.RefundCents += rf.Amount
		}
		if f, ok := firstRefund[rf.OrderID]; !ok || rf.CreatedAt.Before(f) {
			firstRefund[rf.OrderID] = rf.CreatedAt
		}
	}
	for _, at := range firstRefund {
		if in(at) {
			metrics.RefundedOrderCount++
		}
	}
	metrics.NetCents = metrics.GrossCents - metrics.DiscountCents - metrics.RefundCents
	if metrics.OrderCount > 0 {
		// Half up, on non-negative sums.
		metrics.AOVCents = (2*(metrics.GrossCents-metrics.DiscountCents) + metrics.OrderCount) / (2 * metrics.OrderCount)
	}
	for c := range buyers {
		if in(first[c]) {
			customers.New++
		} else {
			customers.Returning++
		}
	}
	if n := customers.New + customers.Returning; n > 0 {
		customers.ReturningRate = float64(int64(float64(customers.Returning)/float64(n)*10_000+0.5)) / 10_000
	}

	for _, s := range bySource {
		sources = append(sources, *s)
	}
	slices.SortFunc(sources, func(a, b analytics.AnalyticsSourceStat) int {
		return cmp.Or(cmp.Compare(b.GrossCents, a.GrossCents), strings.Compare(a.Source, b.Source))
	})
	campaigns = []analytics.AnalyticsCampaignStat{}
	for _, c := range byCampaign {
		campaigns = append(campaigns, *c)
	}
	slices.SortFunc(campaigns, func(a, b analytics.AnalyticsCampaignStat) int {
		return cmp.Or(cmp.Compare(b.GrossCents, a.GrossCents), strings.Compare(a.Campaign, b.Campaign), strings.Compare(a.Source, b.Source))
	})
	discounts = []analytics.AnalyticsDiscountStat{}
	for _, d := range byCode {
		discounts = append(discounts, *d)
	}
	slices.SortFunc(discounts, func(a, b analytics.AnalyticsDiscountStat) int {
		return cmp.Or(cmp.Compare(b.OrderCount, a.OrderCount), cmp.Compare(b.DiscountCents, a.DiscountCents), strings.Compare(a.Code, b.Code))
	})
	discounts = discounts[:min(10, len(discounts))]
	byProduct := map[int64]*analytics.AnalyticsProductStat{}
	for _, l := range r.lines {
		if l.ProductID == nil || !counted[l.OrderID] {
			continue
		}
		p := byProduct[*l.ProductID]
		if p == nil {
			p = &analytics.AnalyticsProductStat{ProductID: *l.ProductID, Title: r.titles[*l.ProductID]}
			byProduct[*l.ProductID] = p
		}
		p.Units += l.Quantity
		p.RevenueCents += l.Price*l.Quantity - l.DiscountShare
	}
	products = []analytics.AnalyticsProductStat{}
	for _, p := range byProduct {
		products = append(products, *p)
	}
	slices.SortFunc(products, func(a, b analytics.AnalyticsProductStat) int {
		return cmp.Or(cmp.Compare(b.RevenueCents, a.RevenueCents), cmp.Compare(b.Units, a.Units), cmp.Compare(a.ProductID, b.ProductID))
	})
	products = products[:min(10, len(products))]
	if sources == nil {
		sources = []analytics.AnalyticsSourceStat{}
	}
	return
}

// ovLabel is the label of the bucket t is in: its local hour (zones a whole
// number of hours from UTC), day, Monday or first of the month.
func ovLabel(t time.Time, interval string, loc *time.Location) string {
	l := t.In(loc)
	day := time.Date(l.Year(), l.Month(), l.Day(), 0, 0, 0, 0, loc)
	switch interval {
	case "hour":
		return t.Truncate(time.Hour).In(loc).Format(time.RFC3339)
	case "week":
		return day.AddDate(0, 0, -((int(day.Weekday()) + 6) % 7)).Format(time.DateOnly)
	case "month":
		return time.Date(l.Year(), l.Month(), 1, 0, 0, 0, 0, loc).Format(time.DateOnly)
	}
	return day.Format(time.DateOnly)
}

// ovLabels are the labels of every bucket from from to to, counted by
// stepping through local time.
func ovLabels(from, to time.Time, interval string, loc *time.Location) []string {
	var out []string
	for t := from; t.Before(to); t = t.Add(15 * time.Minute) {
		if l := ovLabel(t, interval, loc); len(out) == 0 || out[len(out)-1] != l {
			out = append(out, l)
		}
	}
	if l := ovLabel(to.Add(-time.Nanosecond), interval, loc); out[len(out)-1] != l {
		out = append(out, l)
	}
	return out
}

// ovGet reads the overview over REST and decodes it.
func ovGet(t *testing.T, e *apitest.Env, key string, query url.Values) (analytics.AnalyticsOverview, *apitest.Response) {
	t.Helper()
	r := e.Do(http.MethodGet, "/store/analytics?"+query.Encode(), key, nil).Expect(t, http.StatusOK)
	expectPayload(t, r, "analytics")
	raw, _ := json.Marshal(r.Body["analytics"])
	var o analytics.AnalyticsOverview
	if err := json.Unmarshal(raw, &o); err != nil {
		t.Fatal(err)
	}
	return o, r
}

// ovWindow is a window of the test: its query and its instants.
type ovWindow struct {
	query    url.Values
	from, to time.Time
}

// ovWindows are random windows of dates and of date-times inside the
// seeded days, at most maxDays long.
func ovWindows(rng *rand.Rand, loc *time.Location, maxDays int) []ovWindow {
	var out []ovWindow
	first := time.Date(ovStart.Year(), ovStart.Month(), ovStart.Day(), 0, 0, 0, 0, loc)
	for i := range 6 {
		start := first.AddDate(0, 0, rng.IntN(ovDays-maxDays))
		days := 1 + rng.IntN(maxDays)
		if i%2 == 0 { // dates: to included
			end := start.AddDate(0, 0, days-1)
			out = append(out, ovWindow{url.Values{"from": {start.Format(time.DateOnly)}, "to": {end.Format(time.DateOnly)}},
				start, end.AddDate(0, 0, 1)})
			continue
		}
		// Date-times, off the quarter hours (ragged edges), one with an
		// offset and one in the store's zone.
		from := start.Add(time.Duration(rng.Int64N(int64(24 * time.Hour)))).Truncate(time.Second)
		to := from.Add(time.Duration(days)*24*time.Hour - time.Duration(rng.Int64N(int64(20*time.Hour)))).Truncate(time.Second)
		q := url.Values{"from": {from.Format(time.RFC3339)}, "to": {to.UTC().Format(time.RFC3339)}}
		if i == 3 {
			q = url.Values{"from": {from.Format("2006-01-02T15:04:05")}, "to": {to.Format(time.RFC3339)}}
		}
		out = append(out, ovWindow{q, from, to})
	}
	return out
}

// TestAnalyticsOverviewReconciles: for random windows of dates and
// date-times, every interval, in UTC and in New York across the 2026-11-01
// change of clocks, every figure of the overview equals a brute-force
// computation from the raw rows; and after refunds, a cancellation and
// edits made later, the rollups still equal the raw rows.
func TestAnalyticsOverviewReconciles(t *testing.T) {
	e, s, _ := newAcme(t)
	key := e.Key(s.ID, auth.RoleStaff, "analytics:read")
	f := &ovStore{t: t, e: e, id: s.ID, rng: rand.New(rand.NewPCG(17, 1))}
	f.seed(400)
	check := func(when string) {
		t.Helper()
		diffs, err := analytics.CheckOrderRollups(context.Background(), e.DB, s.ID, analytics.AllTime)
		if err != nil || len(diffs) > 0 {
			t.Fatalf("%s: the rollups differ from the raw rows (%v):\n%s", when, err, strings.Join(diffs, "\n"))
		}
	}
	check("after the seed")

	reconcile := func(zone string, rng *rand.Rand) {
		t.Helper()
		f.exec(`UPDATE stores SET timezone = ? WHERE id = ?`, zone, s.ID)
		loc, _ := time.LoadLocation(zone)
		rows := ovRead(t, e, s.ID)
		for _, interval := range []string{"hour", "day", "week", "month"} {
			maxDays := 45
			if interval == "hour" {
				maxDays = 4
			}
			for _, w := range ovWindows(rng, loc, maxDays) {
				w.query.Set("interval", interval)
				got, _ := ovGet(t, e, key, w.query)
				what := fmt.Sprintf("%s %s", zone, w.query.Encode())
				metrics, series, customers, sources, campaigns, discounts, products := ovExpect(rows, w.from, w.to, interval, loc)
				if got.Metrics != metrics {
					t.Fatalf("%s: metrics\n got  %+v\n want %+v", what, got.Metrics, metrics)
				}
				if got.Customers != customers {
					t.Fatalf("%s: customers %+v, want %+v", what, got.Customers, customers)
				}
				labels := ovLabels(w.from, w.to, interval, loc)
				if len(got.Series) != len(labels) {
					t.Fatalf("%s: %d points, want %d (%v)", what, len(got.Series), len(labels), labels)
				}
				for i, p := range got.Series {
					if want := series[labels[i]]; p.Bucket != labels[i] || p.GrossCents != want[0] || p.OrderCount != want[1] {
						t.Fatalf("%s: point %d %+v, want %s %v", what, i, p, labels[i], want)
					}
				}
				for name, pair := range map[string][2]any{"by_source": {got.BySource, sources}, "by_campaign": {got.ByCampaign, campaigns},
					"top_discounts": {got.TopDiscounts, discounts}, "top_products": {got.TopProducts, products}} {
					if !reflect.DeepEqual(pair[0], pair[1]) {
						t.Fatalf("%s: %s\n got  %+v\n want %+v", what, name, pair[0], pair[1])
					}
				}
				// The previous window: the same figures just before.
				pw := got.Previous
				prevFrom := w.from.Add(-w.to.Sub(w.from))
				if w.query.Get("from") == w.from.Format(time.DateOnly) {
					days := 0
					for d := w.from; d.Before(w.to); d = d.AddDate(0, 0, 1) {
						days++
					}
					prevFrom = w.from.AddDate(0, 0, -days)
				}
				if prev, _, _, _, _, _, _ := ovExpect(rows, prevFrom, w.from, interval, loc); pw != prev {
					t.Fatalf("%s: previous\n got  %+v\n want %+v", what, pw, prev)
				}
				deltas := analytics.AnalyticsDeltas{
					GrossPct:  analytics.DeltaPct(float64(metrics.GrossCents), float64(pw.GrossCents)),
					OrdersPct: analytics.DeltaPct(float64(metrics.OrderCount), float64(pw.OrderCount)),
					AOVPct:    analytics.DeltaPct(float64(metrics.AOVCents), float64(pw.AOVCents)),
				}
				if !reflect.DeepEqual(got.Deltas, deltas) {
					t.Fatalf("%s: deltas %+v, want %+v", what, got.Deltas, deltas)
				}
			}
		}
	}
	rng := rand.New(rand.NewPCG(17, 2))
	reconcile("UTC", rng)
	reconcile("America/New_York", rng)

	// Changes after the fact, through the API where it has them: a refund
	// of lines, a refund of money, a cancellation of a paid order; and
	// straight in the tables an edit of amounts and lines, a line deleted,
	// a refund that failed late, an order moved in time.
	writer := e.Key(s.ID, auth.RoleAdmin, "orders:write")
	var paid []int64
	for i := range 3 {
		paid = append(paid, createOrder(t, e, s.ID, orderSpec{createdAt: ovStart.AddDate(0, 0, 20+i).Add(7 * time.Minute), discount: 100, tax: 50}).ID)
	}
	check("after orders placed")
	line := f.ids(`SELECT id FROM order_line_items WHERE order_id = ? ORDER BY id LIMIT 1`, paid[0])
	e.Do(http.MethodPost, orderPath(paid[0], "/refund"), writer, map[string]any{
		"line_items": []any{map[string]any{"line_item_id": line[0], "quantity": 1}}}).Expect(t, http.StatusOK)
	e.Do(http.MethodPost, orderPath(paid[1], "/refund"), writer, map[string]any{"amount_cents": 101}).Expect(t, http.StatusOK)
	e.Do(http.MethodPost, orderPath(paid[2], "/cancel"), writer, map[string]any{"reason": "customer"}).Expect(t, http.StatusOK)
	check("after the API's refunds and cancellation")
	f.exec(`UPDATE orders SET subtotal_cents = subtotal_cents + 500, discount_code = 'LATE', attribution = '{"utm_source": "tiktok"}'
		WHERE id IN (SELECT id FROM orders WHERE store_id = ? ORDER BY id LIMIT 5)`, s.ID)
	f.exec(`UPDATE orders SET status = 'cancelled', financial_status = 'voided' WHERE id IN (SELECT id FROM orders WHERE store_id = ? ORDER BY id DESC LIMIT 4)`, s.ID)
	f.exec(`UPDATE orders SET created_at = created_at - interval '3 days 5 minutes' WHERE id IN (SELECT id FROM orders WHERE store_id = ? AND id % 7 = 0)`, s.ID)
	f.exec(`UPDATE order_line_items SET quantity = quantity + 1, price_cents = price_cents + 3 WHERE order_id IN (SELECT id FROM orders WHERE store_id = ? AND id % 5 = 0)`, s.ID)
	f.exec(`DELETE FROM order_line_items WHERE id IN (SELECT max(id) FROM order_line_items WHERE store_id = ? GROUP BY order_id HAVING count(*) > 1 LIMIT 6)`, s.ID)
	f.exec(`UPDATE refunds SET status = 'failure' WHERE id IN (SELECT id FROM refunds WHERE store_id = ? ORDER BY id LIMIT 7)`, s.ID)
	f.exec(`UPDATE refunds SET created_at = created_at + interval '1 day' WHERE id IN (SELECT id FROM refunds WHERE store_id = ? ORDER BY id DESC LIMIT 5)`, s.ID)
	f.exec(`DELETE FROM refunds WHERE id IN (SELECT id FROM refunds WHERE store_id = ? AND id % 6 = 0)`, s.ID)
	f.exec(`DELETE FROM orders WHERE id IN (SELECT id FROM orders WHERE store_id = ? AND id % 13 = 0)`, s.ID)
	f.exec(`UPDATE orders SET customer_id = NULL WHERE id IN (SELECT id FROM orders WHERE store_id = ? AND id % 17 = 0)`, s.ID)
	check("after edits of orders, lines and refunds")
	reconcile("America/New_York", rng)

	// The check sees a rollup row that is off (against the raw rows, and
	// its month's against the slots); a rebuild puts it right; deleting a
	// store drops its rollups.
	f.exec(`UPDATE analytics_product_slots SET units = units + 1 WHERE (store_id, slot, product_id) IN
		(SELECT store_id, slot, product_id FROM analytics_product_slots WHERE store_id = ? LIMIT 1)`, s.ID)
	if diffs, err := analytics.CheckOrderRollups(context.Background(), e.DB, s.ID, analytics.AllTime); err != nil || len(diffs) != 2 ||
		!strings.HasPrefix(diffs[0], "analytics_product_slots: rollup {") || !strings.HasPrefix(diffs[1], "analytics_product_months: rollup {") {
		t.Fatalf("a rollup row off by one unit: %q %v", diffs, err)
	}
	if err := analytics.RebuildOrderRollups(context.Background(), e.DB, s.ID); err != nil {
		t.Fatal(err)
	}
	check("after a rebuild")
	f.exec(`DELETE FROM stores WHERE id = ?`, s.ID)
	for _, table := range []string{"analytics_order_slots", "analytics_source_slots", "analytics_discount_slots", "analytics_product_slots", "analytics_product_months", "analytics_customer_orders"} {
		if n := f.ids(`SELECT count(*) FROM `+table+` WHERE store_id = ?`, s.ID); n[0] != 0 {
			t.Fatalf("%s keeps %d rows of a deleted store", table, n[0])
		}
	}
}

// TestAnalyticsOverviewSurfaces: the overview answers the same on REST and
// GraphQL, with a point for every bucket; only keys with the analytics
// scope read it; a bad window is a 400 that names the argument.
func TestAnalyticsOverviewSurfaces(t *testing.T) {
	e, s, _ := newAcme(t)
	f := &ovStore{t: t, e: e, id: s.ID, rng: rand.New(rand.NewPCG(17, 3))}
	f.seed(60)
	key := e.Key(s.ID, auth.RoleStaff, "analytics:read")
	query := url.Values{"from": {"2026-10-05"}, "to": {"2026-11-03"}, "interval": {"week"}}
	got, r := ovGet(t, e, key, query)
	objectWithKeys(t, "analytics", r.Body["analytics"], []string{"by_campaign", "by_source", "customers", "deltas", "from", "interval",
		"metrics", "previous", "series", "to", "top_discounts", "top_products"})
	if got.From != "2026-10-05T00:00:00Z" || got.To != "2026-11-04T00:00:00Z" || got.Interval != "week" || len(got.Series) != 5 ||
		got.Series[0].Bucket != "2026-10-05" || got.Metrics.OrderCount == 0 || got.Previous.OrderCount != 0 || got.Deltas.GrossPct != nil {
		t.Fatalf("overview: %+v", got)
	}
	e.SameOnGraphQL(t, r, key, "AnalyticsOverview", map[string]any{"from": "2026-10-05", "to": "2026-11-03", "interval": "week"})
	r = e.Do(http.MethodGet, "/store/analytics?from=2026-10-20T10:07:00Z&to=2026-10-22T03:00:00-04:00&interval=hour", key, nil).Expect(t, http.StatusOK)
	e.SameOnGraphQL(t, r, key, "AnalyticsOverview", map[string]any{"from": "2026-10-20T10:07:00Z", "to": "2026-10-22T03:00:00-04:00", "interval": "hour"})

	reads := []apitest.Call{{Method: http.MethodGet, Path: "/store/analytics"}, {Method: http.MethodGet, Path: "/store/analytics?" + query.Encode()}}
	checkAccess(t, e, s.ID, "analytics", map[string]string{"orders only": e.Key(s.ID, auth.RoleAdmin, "orders:read")}, reads, nil)
	e.ExpectEach(t, http.StatusUnauthorized, map[string]string{"storefront key": e.PublishableKey(s.ID)}, reads)
	g := e.GraphQL(e.Key(s.ID, auth.RoleAdmin, "orders:read"), `{ analytics { metrics { gross_cents } } }`, nil)
	if g.ErrorCode() != "FORBIDDEN" {
		t.Fatalf("graphql without the scope: %s", g.Raw)
	}

	for q, want := range map[string]string{
		"from=yesterday":                              `from must be a date such as 2026-11-01 or a date-time such as 2026-11-01T09:00:00Z, not "yesterday"`,
		"to=2026-13-01":                               "to must be a date",
		"from=2026-11-05&to=2026-11-01":               "from must be before to",
		"interval=minute":                             `interval must be one of hour, day, week, month, not "minute"`,
		"from=2024-01-01&to=2026-11-01":               "from the window is too long: at most 731 days by day",
		"from=2026-01-01&to=2026-03-01&interval=hour": "from the window is too long: at most 31 days by hour",
	} {
		r := e.Do(http.MethodGet, "/store/analytics?"+q, key, nil).Expect(t, http.StatusBadRequest)
		if !strings.HasPrefix(r.Message(), want) {
			t.Fatalf("%s: %q, want it to start %q", q, r.Message(), want)
		}
		vars := map[string]any{}
		for k, v := range mustQuery(t, q) {
			vars[k] = v[0]
		}
		if g := e.GraphQL(key, `query($from: String, $to: String, $interval: String) { analytics(from: $from, to: $to, interval: $interval) { from } }`, vars); g.ErrorCode() != "BAD_USER_INPUT" {
			t.Fatalf("graphql %s: %s", q, g.Raw)
		}
	}
}

func mustQuery(t *testing.T, q string) url.Values {
	t.Helper()
	v, err := url.ParseQuery(q)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// TestAnalyticsOverviewStatementsDoNotGrowWithRows: the overview of a
// window with ragged edges is the same number of statements for 20 orders
// and for 300.
func TestAnalyticsOverviewStatementsDoNotGrowWithRows(t *testing.T) {
	e, s, _ := newAcme(t)
	f := &ovStore{t: t, e: e, id: s.ID, rng: rand.New(rand.NewPCG(17, 4))}
	key := e.Key(s.ID, auth.RoleStaff, "analytics:read")
	count := countStatements(e)
	read := func() int64 {
		return count(func() {
			e.Do(http.MethodGet, "/store/analytics?from=2026-10-05T10:07:00Z&to=2026-11-20T03:01:00Z&interval=day", key, nil).Expect(t, http.StatusOK)
		})
	}
	f.seed(20)
	read() // the key's first use reads and touches it
	few := read()
	f.seed(300)
	many := read()
	if few != many || many > 8 {
		t.Fatalf("%d statements for 20 orders, %d for 320", few, many)
	}
	t.Logf("%d statements a request", many)
}
