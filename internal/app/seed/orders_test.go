package seed

import (
	"context"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/uptrace/bun"

	"storeadmin/models"
)

func TestOrders(t *testing.T) {
	ctx := context.Background()
	db, files, sid := newSeedStore(t)
	now := seedNow

	// Everything the orders need, then the orders alone, timed.
	for _, a := range areas {
		if err := db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error { return a.fill(ctx, tx, sid, now) }); err != nil {
			t.Fatal(a.name, err)
		}
	}
	for _, a := range mediaAreas {
		if a.name == "orders" {
			continue
		}
		if err := db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error { return a.fill(ctx, tx, files, sid, now) }); err != nil {
			t.Fatal(a.name, err)
		}
	}
	stock := func() map[int64]int64 {
		var rows []struct {
			ID       int64 `bun:"id"`
			Quantity int64 `bun:"inventory_quantity"`
		}
		if err := db.NewSelect().Table("product_variants").Column("id", "inventory_quantity").
			Where("store_id = ?", sid).Scan(ctx, &rows); err != nil {
			t.Fatal(err)
		}
		out := map[int64]int64{}
		for _, r := range rows {
			out[r.ID] = r.Quantity
		}
		return out
	}
	seeded := stock()
	start := time.Now()
	if err := db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error { return orders(ctx, tx, sid, now) }); err != nil {
		t.Fatal(err)
	}
	t.Logf("orders took %v", time.Since(start))
	// The history is placed through the domain, which takes stock; the
	// catalogue still holds what it seeded.
	if after := stock(); !reflect.DeepEqual(after, seeded) {
		for id, q := range seeded {
			if after[id] != q {
				t.Errorf("variant %d: seeded with %d in stock, %d after the history", id, q, after[id])
			}
		}
	}

	// The areas after the orders that place orders of their own (completed
	// storefront checkouts, the A/B tests' shoppers), so that the second
	// seed below must add nothing of theirs either.
	for _, a := range mediaAreas {
		if a.name == "storefront checkout" || a.name == "a/b tests" {
			if err := db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error { return a.fill(ctx, tx, files, sid, now) }); err != nil {
				t.Fatal(a.name, err)
			}
		}
	}

	count := storeCounter(t, db, sid)
	counts := func() map[string]int64 {
		out := tableCounts(count, "customers", "orders", "order_line_items", "order_transactions", "refunds", "fulfillments", "order_events")
		out["refund_line_items"] = count("refund_line_items ri JOIN refunds r ON r.id = ri.refund_id", "true")
		out["fulfillment_items"] = count("fulfillment_items fi JOIN fulfillments f ON f.id = fi.fulfillment_id", "true")
		return out
	}
	first := counts()
	t.Logf("counts: %v", first)

	var orders []struct {
		ID                 int64      `bun:"id"`
		OrderNumber        int64      `bun:"order_number"`
		OrderNumberDisplay string     `bun:"order_number_display"`
		CustomerID         *int64     `bun:"customer_id"`
		Currency           string     `bun:"currency"`
		Status             string     `bun:"status"`
		FinancialStatus    string     `bun:"financial_status"`
		FulfillmentStatus  string     `bun:"fulfillment_status"`
		SubtotalCents      int64      `bun:"subtotal_cents"`
		DiscountCents      int64      `bun:"discount_cents"`
		ShippingCents      int64      `bun:"shipping_cents"`
		TaxCents           int64      `bun:"tax_cents"`
		TipCents           int64      `bun:"tip_cents"`
		SurchargeCents     int64      `bun:"surcharge_cents"`
		TotalCents         int64      `bun:"total_cents"`
		CancelReason       string     `bun:"cancel_reason"`
		CancelledAt        *time.Time `bun:"cancelled_at"`
		ArchivedAt         *time.Time `bun:"archived_at"`
		PaidAt             *time.Time `bun:"paid_at"`
		CreatedAt          time.Time  `bun:"created_at"`
		UpdatedAt          time.Time  `bun:"updated_at"`
	}
	if err := db.NewSelect().Table("orders").Column("id", "order_number", "order_number_display", "customer_id", "currency",
		"status", "financial_status", "fulfillment_status", "subtotal_cents", "discount_cents", "shipping_cents", "tax_cents",
		"tip_cents", "surcharge_cents", "total_cents", "cancel_reason", "cancelled_at", "archived_at", "paid_at", "created_at", "updated_at").
		Where("store_id = ?", sid).Order("id").Scan(ctx, &orders); err != nil {
		t.Fatal(err)
	}
	if len(orders) < 2000 {
		t.Fatalf("%d orders, want at least 2000", len(orders))
	}
	ids := make([]int64, len(orders))
	for i, o := range orders {
		ids[i] = o.ID
	}
	// One statement each for every order's transactions and lines.
	allTxs, err := models.TransactionsByOrder(ctx, db, sid, ids, models.AllColumns)
	if err != nil {
		t.Fatal(err)
	}
	allLines, err := models.LineItemsByOrder(ctx, db, sid, ids, models.AllColumns)
	if err != nil {
		t.Fatal(err)
	}
	txs := map[int64][]models.OrderTransaction{}
	for _, x := range allTxs {
		txs[x.OrderID] = append(txs[x.OrderID], x)
	}
	lines := map[int64][]models.OrderLineItem{}
	for _, l := range allLines {
		lines[l.OrderID] = append(lines[l.OrderID], l)
	}

	financial, fulfillment, status := map[string]int{}, map[string]int{}, map[string]int{}
	numbers := map[int64]bool{}
	var maxNumber int64
	for _, o := range orders {
		financial[o.FinancialStatus]++
		fulfillment[o.FulfillmentStatus]++
		status[o.Status]++
		numbers[o.OrderNumber] = true
		maxNumber = max(maxNumber, o.OrderNumber)
		if o.OrderNumberDisplay != models.OrderNumberDisplay("#", o.OrderNumber, "-US") {
			t.Errorf("order %d displays as %q", o.OrderNumber, o.OrderNumberDisplay)
		}
		if !o.CreatedAt.After(now.Add(-ordDays*24*time.Hour)) || o.CreatedAt.After(now) || o.UpdatedAt.Before(o.CreatedAt) || o.UpdatedAt.After(now) {
			t.Errorf("order %d created %v, updated %v: outside the last 90 days", o.ID, o.CreatedAt, o.UpdatedAt)
		}
		if got := models.FinancialStatus(o.TotalCents, txs[o.ID]); got != o.FinancialStatus {
			t.Errorf("order %d: stored financial status %s, derived %s", o.ID, o.FinancialStatus, got)
		}
		if got := models.FulfillmentStatus(o.FulfillmentStatus, lines[o.ID]); got != o.FulfillmentStatus {
			t.Errorf("order %d: stored fulfillment status %s, derived %s", o.ID, o.FulfillmentStatus, got)
		}
		if len(lines[o.ID]) == 0 || len(lines[o.ID]) > 8 {
			t.Errorf("order %d has %d lines", o.ID, len(lines[o.ID]))
		}
		var sub int64
		for _, l := range lines[o.ID] {
			sub += l.PriceCents * l.Quantity
			if l.OriginalPriceCents != nil && *l.OriginalPriceCents < l.PriceCents {
				t.Errorf("line %d: original price %d below price %d", l.ID, *l.OriginalPriceCents, l.PriceCents)
			}
		}
		if sub != o.SubtotalCents || o.DiscountCents > sub ||
			o.TotalCents != o.SubtotalCents-o.DiscountCents+o.ShippingCents+o.TaxCents+o.TipCents+o.SurchargeCents {
			t.Errorf("order %d: lines %d, subtotal %d - discount %d + shipping %d + tax %d + tip %d + surcharge %d != total %d",
				o.ID, sub, o.SubtotalCents, o.DiscountCents, o.ShippingCents, o.TaxCents, o.TipCents, o.SurchargeCents, o.TotalCents)
		}
		m := models.SumMoney(txs[o.ID])
		if m.Refunded > m.Captured || m.Captured > o.TotalCents {
			t.Errorf("order %d: captured %d of %d, refunded %d", o.ID, m.Captured, o.TotalCents, m.Refunded)
		}
		if (m.Captured > 0) != (o.PaidAt != nil) {
			t.Errorf("order %d: captured %d but paid_at %v", o.ID, m.Captured, o.PaidAt)
		}
		for _, x := range txs[o.ID] {
			if x.Currency != o.Currency || x.Provider == "" || x.CreatedAt.Before(o.CreatedAt) || x.CreatedAt.After(now) {
				t.Errorf("order %d: transaction %+v", o.ID, x)
			}
			if (x.Kind == models.TxCapture || x.Kind == models.TxVoid || x.Kind == models.TxRefund) && x.ParentID == nil {
				t.Errorf("order %d: %s without parent", o.ID, x.Kind)
			}
		}
		switch o.Status {
		case models.OrderCancelled:
			if !slices.Contains(models.CancelReasons, o.CancelReason) || o.CancelledAt == nil ||
				(o.FinancialStatus != models.FinancialVoided && o.FinancialStatus != models.FinancialRefunded) {
				t.Errorf("cancelled order %d: reason %q at %v, %s", o.ID, o.CancelReason, o.CancelledAt, o.FinancialStatus)
			}
		case models.OrderArchived:
			if o.ArchivedAt == nil || o.ArchivedAt.After(now) || o.FulfillmentStatus != models.FulfillmentFulfilled || o.FinancialStatus != models.FinancialPaid {
				t.Errorf("archived order %d: at %v, %s, %s", o.ID, o.ArchivedAt, o.FinancialStatus, o.FulfillmentStatus)
			}
		}
		if o.FulfillmentStatus == models.FulfillmentRestocked && o.Status != models.OrderCancelled {
			t.Errorf("order %d restocked but %s", o.ID, o.Status)
		}
	}
	t.Logf("financial: %v", financial)
	t.Logf("fulfillment: %v", fulfillment)
	t.Logf("status: %v", status)
	for _, s := range models.FinancialStatuses {
		if financial[s] == 0 {
			t.Errorf("no %s order", s)
		}
	}
	for _, s := range models.FulfillmentStatuses {
		if fulfillment[s] == 0 {
			t.Errorf("no %s order", s)
		}
	}
	for _, s := range models.OrderStatuses {
		if status[s] == 0 {
			t.Errorf("no %s order", s)
		}
	}
	if status[models.OrderOpen] < len(orders)/2 {
		t.Errorf("only %d of %d orders open", status[models.OrderOpen], len(orders))
	}
	// The daily shape: weekends and evenings busier than the small hours,
	// the last month busier than the first.
	loc, err := time.LoadLocation("America/Los_Angeles")
	if err != nil {
		t.Fatal(err)
	}
	var byHour [24]int
	var weekend, weekday, firstMonth, lastMonth int
	for _, o := range orders {
		l := o.CreatedAt.In(loc)
		byHour[l.Hour()]++
		if l.Weekday() == time.Saturday || l.Weekday() == time.Sunday {
			weekend++
		} else {
			weekday++
		}
		switch age := now.Sub(o.CreatedAt); {
		case age < 30*24*time.Hour:
			lastMonth++
		case age >= 60*24*time.Hour:
			firstMonth++
		}
	}
	t.Logf("by hour %v; weekend %d, weekday %d; first month %d, last %d", byHour, weekend, weekday, firstMonth, lastMonth)
	if byHour[20] < 3*byHour[4] || weekend*5 < weekday*2*11/10 || lastMonth <= firstMonth {
		t.Errorf("no daily shape: by hour %v, weekend %d, weekday %d, first month %d, last %d", byHour, weekend, weekday, firstMonth, lastMonth)
	}

	var last int64
	if err := db.NewSelect().Table("stores").Column("last_order_number").Where("id = ?", sid).Scan(ctx, &last); err != nil {
		t.Fatal(err)
	}
	if len(numbers) != len(orders) || last != maxNumber {
		t.Errorf("%d distinct numbers for %d orders; last %d, highest %d", len(numbers), len(orders), last, maxNumber)
	}

	// Stored quantities and refunds agree with the rows they sum.
	for what, where := range map[string]string{
		"lines whose SKU or title is not their variant's": `NOT EXISTS (SELECT 1 FROM product_variants v JOIN products p ON p.id = v.product_id
			WHERE v.id = li.variant_id AND v.sku = li.sku AND p.title = li.title AND p.id = li.product_id)`,
	} {
		if n := count("order_line_items li", where); n != 0 {
			t.Errorf("%d %s", n, what)
		}
	}
	refunded := `order_line_items li LEFT JOIN (SELECT line_item_id, sum(quantity) AS q FROM refund_line_items
		GROUP BY line_item_id) r ON r.line_item_id = li.id`
	if n := count(refunded, "li.refunded_quantity <> coalesce(r.q, 0)"); n != 0 {
		t.Errorf("%d lines whose refunded_quantity disagrees with their refunds", n)
	}
	shipped := `order_line_items li LEFT JOIN (SELECT fi.line_item_id, sum(fi.quantity) AS q FROM fulfillment_items fi
		JOIN fulfillments f ON f.id = fi.fulfillment_id WHERE f.status = 'success' GROUP BY fi.line_item_id) s ON s.line_item_id = li.id`
	if n := count(shipped, "li.fulfilled_quantity <> coalesce(s.q, 0)"); n != 0 {
		t.Errorf("%d lines whose fulfilled_quantity disagrees with their shipments", n)
	}
	if n := count("refunds r", "amount_cents <> (SELECT sum(amount_cents) FROM order_transactions x WHERE x.refund_id = r.id AND x.kind = 'refund' AND x.status = 'success')"); n != 0 {
		t.Errorf("%d refunds whose transactions disagree", n)
	}
	if n := count("order_transactions x", "kind = 'refund' AND (refund_id IS NULL OR NOT EXISTS (SELECT 1 FROM order_transactions p WHERE p.id = x.parent_id AND p.kind IN ('capture', 'sale') AND p.status = 'success'))"); n != 0 {
		t.Errorf("%d refund transactions not on a capture or sale", n)
	}
	if n := count("order_transactions x", "kind = 'capture' AND status = 'failure' AND (error IS NULL OR NOT EXISTS (SELECT 1 FROM order_transactions p WHERE p.id = x.parent_id AND p.kind = 'authorization'))"); n != 0 {
		t.Errorf("%d failed captures without error or authorization", n)
	}
	if n := count("order_transactions", "kind = 'authorization' AND expires_at <> created_at + interval '7 days'"); n != 0 {
		t.Errorf("%d authorizations not expiring after 7 days", n)
	}
	if n := count("order_line_items", "image_src <> '' AND image_thumbhash <> ''"); n*10 < first["order_line_items"]*8 {
		t.Errorf("only %d of %d lines have a picture", n, first["order_line_items"])
	}
	for what, where := range map[string]string{
		"discounted lines": "original_price_cents > price_cents", "lines with properties": "properties IS NOT NULL",
		"bundle lines": "bundle_group IS NOT NULL AND bundle_title IS NOT NULL",
	} {
		if count("order_line_items", where) == 0 {
			t.Errorf("no %s", what)
		}
	}
	if n := count("fulfillments", "status = 'success' AND carrier IN ('UPS', 'USPS', 'FedEx', 'DHL') AND tracking_number <> '' AND tracking_url LIKE 'https://%'"); n*10 < first["fulfillments"]*8 {
		t.Errorf("only %d of %d shipments tracked", n, first["fulfillments"])
	}
	if count("fulfillments", "status = 'cancelled' AND cancelled_at IS NOT NULL") == 0 {
		t.Error("no cancelled shipments")
	}
	for what, where := range map[string]string{
		"discount codes":      "discount_code <> '' AND discount_cents > 0",
		"tips":                "tip_cents > 0",
		"google ads clicks":   "attribution->>'utm_source' = 'google' AND attribution->>'utm_medium' = 'cpc' AND attribution->'click_ids'->>'gclid' <> ''",
		"facebook clicks":     "attribution->>'utm_medium' = 'paid_social' AND attribution->'click_ids'->>'fbclid' <> ''",
		"newsletter orders":   "attribution->>'utm_source' = 'newsletter' AND attribution->>'utm_medium' = 'email'",
		"direct orders":       "attribution->>'utm_source' = 'direct'",
		"ad sources":          "attribution->>'ad_source' <> ''",
		"vip tags":            "'vip' = ANY (tags)",
		"wholesale tags":      "'wholesale' = ANY (tags)",
		"draft orders":        "source = 'draft_order' AND 'draft_order' = ANY (system_tags)",
		"pos orders":          "source = 'pos'",
		"gift orders":         "'gift' = ANY (system_tags) AND note <> ''",
		"guest orders":        "customer_id IS NULL",
		"international":       "shipping_address->>'country_code' <> 'US'",
		"shipping lines":      "shipping_line->>'carrier' <> '' AND (shipping_line->>'price_cents')::bigint = shipping_cents",
		"addresses":           "shipping_address->>'first_name' <> '' AND shipping_address->>'zip' <> '' AND billing_address IS NOT NULL",
		"started checkouts":   "checkout_started_at < created_at AND checkout_started_at > created_at - interval '1 hour'",
		"partially paid dues": "financial_status = 'partially_paid' AND paid_at IS NOT NULL",
		"transfers pending":   "financial_status = 'pending' AND EXISTS (SELECT 1 FROM order_transactions x WHERE x.order_id = orders.id AND x.status = 'pending')",
		"invoices unpaid":     "financial_status = 'pending' AND source = 'draft_order' AND NOT EXISTS (SELECT 1 FROM order_transactions x WHERE x.order_id = orders.id)",
		"guests with emails":  "customer_id IS NULL AND email <> ''",
	} {
		if count("orders", where) == 0 {
			t.Errorf("no %s", what)
		}
	}
	web := count("orders", "source = 'web'")
	if n := count("orders", "source = 'web' AND attribution IS NOT NULL"); n*10 < web*8 {
		t.Errorf("only %d of %d web orders attributed", n, web)
	}

	// Customers: most order once, some come back, a few very often.
	var perCustomer []int64
	if err := db.NewSelect().Table("orders").ColumnExpr("count(*)").Where("store_id = ? AND customer_id IS NOT NULL", sid).
		Group("customer_id").Scan(ctx, &perCustomer); err != nil {
		t.Fatal(err)
	}
	var once, repeat, loyal int
	for _, n := range perCustomer {
		switch {
		case n == 1:
			once++
		case n >= 10:
			loyal++
			repeat++
		default:
			repeat++
		}
	}
	t.Logf("customers: %d (once %d, repeat %d, 10+ %d)", first["customers"], once, repeat, loyal)
	if first["customers"] < 600 || first["customers"] > 900 || once <= repeat || repeat < 100 || loyal == 0 {
		t.Errorf("customers: %d, once %d, repeat %d, 10+ %d", first["customers"], once, repeat, loyal)
	}
	if n := count("customers", "accepts_marketing"); n == 0 || n == first["customers"] {
		t.Errorf("%d of %d customers accept marketing", n, first["customers"])
	}
	if n := count("customers c", "phone <> '' AND NOT EXISTS (SELECT 1 FROM orders o WHERE o.customer_id = c.id AND o.created_at < c.created_at)"); n == 0 {
		t.Error("no customer with a phone")
	}

	// Payments awaiting capture, some needing attention.
	all, attention, err := models.CountAwaitingCapture(ctx, db, sid, now)
	if err != nil {
		t.Fatal(err)
	}
	waiting, err := models.ListAwaitingCapture(ctx, db, sid, now, models.Paging{Limit: 250})
	if err != nil {
		t.Fatal(err)
	}
	states := map[string]int{}
	for _, w := range waiting {
		states[w.State]++
	}
	t.Logf("awaiting capture: %d, needing attention %d, by state %v", all, attention, states)
	if all == 0 || attention == 0 || int64(len(waiting)) != all || states["capture_failed"] == 0 || states["expiring"] == 0 || states["authorized"] == 0 {
		t.Errorf("awaiting capture: %d, attention %d, states %v", all, attention, states)
	}
	if int64(financial[models.FinancialAuthorized]) < all {
		t.Errorf("%d awaiting capture but %d authorized orders", all, financial[models.FinancialAuthorized])
	}

	// Timelines: every order has one, within its life, naming what happened.
	names := map[string]bool{"created": true, "authorized": true, "paid": true, "payment_failed": true, "captured": true,
		"voided": true, "refunded": true, "fulfilled": true, "fulfillment_cancelled": true, "cancelled": true, "archived": true, "note_updated": true,
		"upsell_accepted": true}
	var byName []struct {
		Name string `bun:"name"`
		N    int64  `bun:"n"`
	}
	if err := db.NewSelect().Table("order_events").ColumnExpr("name, count(*) AS n").Where("store_id = ?", sid).
		Group("name").Scan(ctx, &byName); err != nil {
		t.Fatal(err)
	}
	t.Logf("events: %v", byName)
	seenNames := map[string]bool{}
	for _, e := range byName {
		if !names[e.Name] {
			t.Errorf("event %q", e.Name)
		}
		seenNames[e.Name] = true
	}
	for n := range names {
		if !seenNames[n] {
			t.Errorf("no %s event", n)
		}
	}
	if n := count("order_events e", "at > ? OR at < (SELECT created_at FROM orders o WHERE o.id = e.order_id) OR source NOT IN ('checkout', 'admin', 'system', 'api')", now); n != 0 {
		t.Errorf("%d events outside their order's life or of an unknown source", n)
	}
	if n := count("orders o", "(SELECT count(*) FROM order_events e WHERE e.order_id = o.id AND e.name = 'created') <> 1"); n != 0 {
		t.Errorf("%d orders without exactly one created event", n)
	}
	if n := count("order_events e", "transaction_id IS NOT NULL AND NOT EXISTS (SELECT 1 FROM order_transactions x WHERE x.id = e.transaction_id AND x.order_id = e.order_id)"); n != 0 {
		t.Errorf("%d events naming another order's transaction", n)
	}

	// The list the API serves reads seeded orders.
	list, err := models.ListOrders(ctx, db, sid, models.OrderFilter{}, models.Paging{Limit: 250})
	if err != nil || len(list) != 250 {
		t.Errorf("list: %d orders, %v", len(list), err)
	}

	// A second seed adds nothing.
	seedAll(t, db, files, sid)
	expectSameCounts(t, first, counts())
	var last2 int64
	if err := db.NewSelect().Table("stores").Column("last_order_number").Where("id = ?", sid).Scan(ctx, &last2); err != nil {
		t.Fatal(err)
	}
	if last2 != last {
		t.Errorf("second run moved the order sequence: %d -> %d", last, last2)
	}
}
