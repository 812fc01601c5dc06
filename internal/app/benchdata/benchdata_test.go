package benchdata_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"testing"
	"time"

	"storeadmin/internal/analytics"
	"storeadmin/internal/app/apitest"
	"storeadmin/internal/app/benchdata"
	"storeadmin/internal/auth"
	"storeadmin/models"
)

// readOrder is an order as the GraphQL query below reads it.
type readOrder struct {
	ID                int64  `json:"id"`
	OrderNumber       int64  `json:"order_number"`
	Email             string `json:"email"`
	Status            string `json:"status"`
	FinancialStatus   string `json:"financial_status"`
	FulfillmentStatus string `json:"fulfillment_status"`
	SubtotalCents     int64  `json:"subtotal_cents"`
	ShippingCents     int64  `json:"shipping_cents"`
	TaxCents          int64  `json:"tax_cents"`
	TotalCents        int64  `json:"total_cents"`
	ShippingAddress   struct {
		City string `json:"city"`
	} `json:"shipping_address"`
	Customer *struct {
		Email string `json:"email"`
	} `json:"customer"`
	LineItems []struct {
		SKU               string `json:"sku"`
		PriceCents        int64  `json:"price_cents"`
		Quantity          int64  `json:"quantity"`
		FulfilledQuantity int64  `json:"fulfilled_quantity"`
		RefundedQuantity  int64  `json:"refunded_quantity"`
		Variant           *struct {
			SKU        string `json:"sku"`
			PriceCents int64  `json:"price_cents"`
		} `json:"variant"`
	} `json:"line_items"`
	Transactions []struct {
		ID          int64  `json:"id"`
		Kind        string `json:"kind"`
		Status      string `json:"status"`
		AmountCents int64  `json:"amount_cents"`
		ParentID    *int64 `json:"parent_id"`
	} `json:"transactions"`
}

const ordersQuery = `query($offset: Int) { orders(limit: 250, offset: $offset) {
	id order_number email status financial_status fulfillment_status
	subtotal_cents shipping_cents tax_cents total_cents shipping_address
	customer { email }
	line_items { sku price_cents quantity fulfilled_quantity refunded_quantity variant { sku price_cents } }
	transactions { id kind status amount_cents parent_id }
} }`

// TestFillReadsBackThroughTheAPI fills a store at small sizes and reads it
// back over HTTP: the lists count what was filled, and every order's lines,
// customer, totals, transactions and statuses agree as the domain has them.
func TestFillReadsBackThroughTheAPI(t *testing.T) {
	e := apitest.New(t)
	s := e.Store("Bench data")
	key := e.Key(s.ID, auth.RoleAdmin)
	now := time.Now()
	n := benchdata.Sizes{Products: 12, Customers: 40, Orders: 400}
	if err := benchdata.Fill(context.Background(), e.DB, s.ID, n, now, nil); err != nil {
		t.Fatal(err)
	}

	list := e.Do(http.MethodGet, "/store/orders?limit=50", key, nil).Expect(t, http.StatusOK)
	if list.Body["total"] != float64(n.Orders) || len(list.List("orders")) != 50 {
		t.Fatalf("orders list: total %v, %d rows; want %d, 50", list.Body["total"], len(list.List("orders")), n.Orders)
	}
	products := e.Do(http.MethodGet, "/store/products?limit=50", key, nil).Expect(t, http.StatusOK)
	if products.Body["total"] != float64(n.Products) || len(products.List("products")) != n.Products {
		t.Fatalf("products list: total %v, %d rows; want %d", products.Body["total"], len(products.List("products")), n.Products)
	}
	// Orders spread over two years, denser recently: the last 90 days hold
	// some of them, not all.
	since := url.QueryEscape(now.Add(-90 * 24 * time.Hour).UTC().Format(time.RFC3339))
	recent := e.Do(http.MethodGet, "/store/orders?limit=1&created_at_min="+since, key, nil).Expect(t, http.StatusOK)
	if got := recent.Body["total"].(float64); got <= 0 || got >= float64(n.Orders) {
		t.Fatalf("orders of the last 90 days: %v of %d; want some, not all", got, n.Orders)
	}

	orders := readAll(t, e, key)
	if len(orders) != n.Orders {
		t.Fatalf("read %d orders, want %d", len(orders), n.Orders)
	}
	financial, status := map[string]int{}, map[string]int{}
	for i, o := range orders {
		// Newest first, and numbered from the store's counter in the order
		// they were placed.
		if want := int64(1000 + n.Orders - i); o.OrderNumber != want {
			t.Fatalf("order %d of the list is number %d, want %d", i, o.OrderNumber, want)
		}
		if o.Customer == nil || o.Customer.Email != o.Email {
			t.Fatalf("order %d: customer %+v, email %q", o.OrderNumber, o.Customer, o.Email)
		}
		if o.ShippingAddress.City == "" {
			t.Fatalf("order %d has no shipping address", o.OrderNumber)
		}
		if len(o.LineItems) < 1 || len(o.LineItems) > 4 {
			t.Fatalf("order %d has %d lines", o.OrderNumber, len(o.LineItems))
		}
		var subtotal int64
		lines := make([]models.OrderLineItem, len(o.LineItems))
		for k, l := range o.LineItems {
			if l.Variant == nil || l.Variant.SKU != l.SKU || l.Variant.PriceCents != l.PriceCents {
				t.Fatalf("order %d line %d: sku %s at %d, variant %+v", o.OrderNumber, k, l.SKU, l.PriceCents, l.Variant)
			}
			subtotal += l.PriceCents * l.Quantity
			lines[k] = models.OrderLineItem{Quantity: l.Quantity, FulfilledQuantity: l.FulfilledQuantity, RefundedQuantity: l.RefundedQuantity}
		}
		if o.SubtotalCents != subtotal || o.TotalCents != o.SubtotalCents+o.ShippingCents+o.TaxCents {
			t.Fatalf("order %d: subtotal %d (lines add up to %d), total %d = %d + %d + %d?", o.OrderNumber,
				o.SubtotalCents, subtotal, o.TotalCents, o.SubtotalCents, o.ShippingCents, o.TaxCents)
		}
		txs := make([]models.OrderTransaction, len(o.Transactions))
		for k, tx := range o.Transactions {
			txs[k] = models.OrderTransaction{ID: tx.ID, Kind: tx.Kind, Status: tx.Status, AmountCents: tx.AmountCents, ParentID: tx.ParentID}
		}
		if want := models.FinancialStatus(o.TotalCents, txs); o.FinancialStatus != want {
			t.Fatalf("order %d: financial status %s, its transactions make it %s", o.OrderNumber, o.FinancialStatus, want)
		}
		if want := models.FulfillmentStatus(o.FulfillmentStatus, lines); o.FulfillmentStatus != want {
			t.Fatalf("order %d: fulfilment status %s, its lines make it %s", o.OrderNumber, o.FulfillmentStatus, want)
		}
		financial[o.FinancialStatus]++
		status[o.Status]++
	}
	if len(financial) < 5 || len(status) != 3 {
		t.Fatalf("statuses are not varied: financial %v, status %v", financial, status)
	}

	// Sales by product reconciles: the lines carry their shares of the
	// tax (there is no tax on shipping here), and the rollups the triggers
	// kept in the replica role agree with the raw rows.
	from := now.AddDate(0, 0, -730).Format(time.DateOnly)
	report := e.Do(http.MethodGet, "/store/analytics/sales-by-product?limit=1000&from="+from, key, nil).Expect(t, http.StatusOK).Obj("report")
	totals, basis := report["totals"].(map[string]any), report["basis"].(map[string]any)
	if totals["product_sales_cents"] != basis["order_subtotal_cents"] || totals["tax_cents"] != basis["order_tax_cents"] ||
		totals["discount_cents"] != basis["order_discount_cents"] || basis["order_tax_cents"] == float64(0) {
		t.Fatalf("sales by product does not reconcile: totals %v, basis %v", totals, basis)
	}
	problems, err := analytics.CheckSalesRollups(context.Background(), e.DB, s.ID, analytics.Span{From: now.AddDate(-3, 0, 0), To: now.Add(time.Hour)})
	if err != nil || len(problems) > 0 {
		t.Fatalf("sales rollups: %v %q", err, problems)
	}

	// A second fill adds to the first: its orders take the next numbers.
	if err := benchdata.Fill(context.Background(), e.DB, s.ID, benchdata.Sizes{Products: 1, Customers: 1, Orders: 3}, now, nil); err != nil {
		t.Fatal(err)
	}
	list = e.Do(http.MethodGet, "/store/orders?limit=1&sort=-order_number", key, nil).Expect(t, http.StatusOK)
	if list.Body["total"] != float64(n.Orders+3) || list.List("orders")[0].(map[string]any)["order_number"] != float64(1000+n.Orders+3) {
		t.Fatalf("after a second fill: %s", list.Raw)
	}
}

// TestFillRefusesWhatItCannotFill: orders without products or customers,
// and a store that does not exist, are refused before anything is written.
func TestFillRefusesWhatItCannotFill(t *testing.T) {
	e := apitest.New(t)
	s := e.Store("Bench refusals")
	ctx := context.Background()
	for _, n := range []benchdata.Sizes{{Customers: 1, Orders: 1}, {Products: 1, Orders: 1}, {Products: -1}} {
		if err := benchdata.Fill(ctx, e.DB, s.ID, n, time.Now(), nil); err == nil {
			t.Errorf("Fill(%+v) succeeded", n)
		}
	}
	if err := benchdata.Fill(ctx, e.DB, s.ID+1000, benchdata.Sizes{Products: 1}, time.Now(), nil); err == nil {
		t.Error("Fill of a store that does not exist succeeded")
	}
	var count int
	if err := e.DB.NewSelect().Table("products").Where("store_id = ?", s.ID).ColumnExpr("count(*)").Scan(ctx, &count); err != nil || count != 0 {
		t.Fatalf("products written: %d, %v", count, err)
	}
}

// readAll reads every order of the store through GraphQL, newest first.
func readAll(t *testing.T, e *apitest.Env, key string) []readOrder {
	t.Helper()
	var all []readOrder
	for offset := 0; ; offset += 250 {
		r := e.GraphQL(key, ordersQuery, map[string]any{"offset": offset})
		if r.Status != http.StatusOK || r.Body["errors"] != nil {
			t.Fatalf("orders: %d %.500s", r.Status, r.Raw)
		}
		var page struct {
			Data struct {
				Orders []readOrder `json:"orders"`
			} `json:"data"`
		}
		if err := json.Unmarshal(r.Raw, &page); err != nil {
			t.Fatal(err)
		}
		all = append(all, page.Data.Orders...)
		if len(page.Data.Orders) < 250 {
			return all
		}
	}
}

// TestFillSessions fills a store's traffic: the sessions are there, of
// returning visitors, on every kind of landing page, a share of them
// converted in orders of the store, and the traffic rollups, the sessions'
// steps and the visitors' previous starts agree with the rows they come
// from.
func TestFillSessions(t *testing.T) {
	e := apitest.New(t)
	ctx := context.Background()
	s := e.Store("Bench traffic")
	now := time.Now()
	n := benchdata.Sizes{Products: 5, Customers: 20, Orders: 200, Sessions: 3000}
	if err := benchdata.Fill(ctx, e.DB, s.ID, n, now, nil); err != nil {
		t.Fatal(err)
	}
	var got struct {
		Sessions  int64 `bun:"sessions"`
		Visitors  int64 `bun:"visitors"`
		Bots      int64 `bun:"bots"`
		Converted int64 `bun:"converted"`
		Linked    int64 `bun:"linked"`
		Types     int64 `bun:"types"`
	}
	err := e.DB.NewRaw(`SELECT count(*) AS sessions, count(DISTINCT visitor_id) AS visitors, count(*) FILTER (WHERE is_bot) AS bots,
			count(*) FILTER (WHERE orders > 0) AS converted,
			(SELECT count(*) FROM orders WHERE store_id = ?0 AND session_id IS NOT NULL) AS linked,
			count(DISTINCT split_part(coalesce(landing_path, ''), '/', 2)) AS types
		FROM storefront_sessions WHERE store_id = ?0`, s.ID).Scan(ctx, &got)
	if err != nil {
		t.Fatal(err)
	}
	if got.Sessions != int64(n.Sessions) || got.Visitors >= got.Sessions || got.Bots == 0 || got.Converted == 0 || got.Linked != got.Converted || got.Linked < int64(n.Orders/5/2) || got.Types < 7 {
		t.Fatalf("sessions: %+v", got)
	}
	problems, err := analytics.CheckTrafficRollups(ctx, e.DB, s.ID, analytics.Span{From: now.Add(-benchdata.Span - time.Hour), To: now.Add(time.Hour)})
	if err != nil || len(problems) > 0 {
		t.Fatalf("check: %v %v", err, problems[:min(5, len(problems))])
	}
}
