package apitest_test

import (
	"context"
	"fmt"
	"net/http"
	"reflect"
	"testing"
	"time"

	"storeadmin/internal/app/apitest"
	"storeadmin/internal/auth"
	"storeadmin/models"
)

// The spec's AbandonedcartDetail and its parts, field for field.
var (
	ckKeys = []string{"abandoned_at", "activity", "attempts", "billing_address", "created_at", "currency",
		"discount_cents", "discount_code", "email", "expires_at", "lines", "marketing_consent", "phone",
		"recovered_at", "recovery_emails", "session", "shipping_address", "shipping_cents", "shipping_line",
		"state", "subtotal_cents", "surcharge_cents", "tax_cents", "timeline", "tip_cents", "token",
		"total_cents", "tracking", "updated_at", "utm"}
	ckLineKeys     = []string{"image_src", "price_cents", "properties", "quantity", "sku", "title", "variant_title"}
	ckAttemptKeys  = []string{"amount_cents", "capture_model", "created_at", "currency", "error", "payment_method", "provider", "status", "transaction_id"}
	ckTimelineKeys = []string{"amount_cents", "currency", "detail", "error_code", "error_message", "name", "occurred_at",
		"payment_method", "provider", "source", "transaction_id"}
	ckTrackingKeys = []string{"axwrt", "client_ip", "event_source_url", "external_id", "fbc", "fbp", "kx", "ttclid", "ttp", "user_agent"}
)

// ckExec runs one statement of test set-up.
func ckExec(t *testing.T, e *apitest.Env, query string, args ...any) {
	t.Helper()
	if _, err := e.DB.ExecContext(context.Background(), query, args...); err != nil {
		t.Fatal(err)
	}
}

// ckAuthorization is the order's authorization transaction.
func ckAuthorization(t *testing.T, e *apitest.Env, o *models.Order) models.OrderTransaction {
	t.Helper()
	txs, err := models.OrderTransactions(context.Background(), e.DB, o.StoreID, o.ID)
	if err != nil {
		t.Fatal(err)
	}
	for _, tx := range txs {
		if tx.Kind == models.TxAuthorization {
			return tx
		}
	}
	t.Fatalf("order %d has no authorization", o.ID)
	return models.OrderTransaction{}
}

func ckTime(ts time.Time) string { return ts.UTC().Format(time.RFC3339Nano) }

func TestAwaitingCaptureCheckout(t *testing.T) {
	e := apitest.New(t)
	s := e.Store("shop")
	key := e.Key(s.ID, auth.RoleStaff, "orders:read")
	ctx := context.Background()

	// An authorized order whose checkout recorded a discount code, a
	// billing address, click ids and a line image; a capture then failed.
	o := createOrder(t, e, s.ID, orderSpec{payment: "authorized", email: "ck@example.com", discount: 500, shipping: 700, tax: 300,
		lines: []orderLine{{sku: "TEE-S", price: 2500, quantity: 2}, {sku: "", price: 1200, quantity: 1}}})
	ckExec(t, e, `UPDATE orders SET checkout_started_at = created_at - interval '10 minutes', discount_code = 'AUTUMN10',
		billing_address = '{"city": "Lyon", "phone": "+33 4 00 00 00 00"}',
		attribution = '{"utm_source": "tiktok", "utm_medium": "paid_social", "utm_campaign": "autumn", "utm_content": "", "utm_term": "",
			"referrer": "https://www.tiktok.com/", "click_ids": {"ttclid": "tt-123", "fbclid": "fb-456"}}'
		WHERE id = ?`, o.ID)
	ckExec(t, e, `UPDATE order_line_items SET image_src = 'https://cdn.example.com/tee.jpg', properties = '{"engraving": "AL"}'
		WHERE order_id = ? AND sku = 'TEE-S'`, o.ID)
	ckExec(t, e, `UPDATE customers SET accepts_marketing = true WHERE id = ?`, *o.CustomerID)
	authTx := ckAuthorization(t, e, o)
	method, failure := "visa", "card_declined: insufficient funds"
	capture := models.OrderTransaction{StoreID: s.ID, OrderID: o.ID, ParentID: &authTx.ID, Kind: models.TxCapture,
		Status: models.TxFailure, AmountCents: o.TotalCents, Currency: "EUR", Provider: "stripe", ExternalID: "ch_fail",
		PaymentMethod: &method, Error: &failure, CreatedAt: time.Now().UTC().Add(-time.Minute)}
	if err := models.InsertTransaction(ctx, e.DB, &capture); err != nil {
		t.Fatal(err)
	}
	if err := models.AddOrderEvents(ctx, e.DB, models.OrderEvent{StoreID: s.ID, OrderID: o.ID, Name: "payment_failed",
		Source: "admin", AmountCents: &o.TotalCents, TransactionID: &capture.ID, At: capture.CreatedAt}); err != nil {
		t.Fatal(err)
	}
	stored, err := models.GetOrder(ctx, e.DB, s.ID, o.ID)
	if err != nil {
		t.Fatal(err)
	}

	path := fmt.Sprintf("/store/orders/awaiting-capture/%d", authTx.ID)
	r := e.Do(http.MethodGet, path, key, nil).Expect(t, http.StatusOK)
	objectWithKeys(t, "answer", r.Body, []string{"capture", "checkout", "status"})
	c := objectWithKeys(t, "checkout", r.Body["checkout"], ckKeys)
	want := map[string]any{
		"token": stored.Token, "email": "ck@example.com", "currency": "EUR", "state": "completed",
		"discount_code": "AUTUMN10", "phone": "+441234567890", "marketing_consent": true,
		"created_at": ckTime(*stored.CheckoutStartedAt), "updated_at": ckTime(stored.UpdatedAt),
		"expires_at":   ckTime(*authTx.ExpiresAt),
		"abandoned_at": nil, "recovered_at": nil, "activity": nil, "session": nil, "shipping_line": nil,
		"billing_address":  map[string]any{"city": "Lyon", "phone": "+33 4 00 00 00 00"},
		"shipping_address": map[string]any{"city": "Paris", "country_code": "FR"},
	}
	for k, v := range want {
		if !reflect.DeepEqual(c[k], v) {
			t.Errorf("checkout %s = %#v, want %#v", k, c[k], v)
		}
	}
	money := map[string]int64{"subtotal_cents": 6200, "discount_cents": 500, "shipping_cents": 700, "tax_cents": 300,
		"tip_cents": 0, "surcharge_cents": 0, "total_cents": stored.TotalCents, "recovery_emails": 0}
	for k, v := range money {
		if got := wholeNumber(t, c[k]); got != v {
			t.Errorf("checkout %s = %d, want %d", k, got, v)
		}
	}
	if stored.TotalCents != 6700 {
		t.Fatalf("fixture total %d", stored.TotalCents)
	}

	// Lines: the order's, in order; empty values are null.
	lines := c["lines"].([]any)
	if len(lines) != 2 {
		t.Fatalf("lines %v", lines)
	}
	tee := objectWithKeys(t, "line", lines[0], ckLineKeys)
	if tee["title"] != "Item TEE-S" || tee["sku"] != "TEE-S" || tee["variant_title"] != "Default" || wholeNumber(t, tee["price_cents"]) != 2500 ||
		wholeNumber(t, tee["quantity"]) != 2 || tee["image_src"] != "https://cdn.example.com/tee.jpg" ||
		!reflect.DeepEqual(tee["properties"], map[string]any{"engraving": "AL"}) {
		t.Errorf("line 0 %v", tee)
	}
	plain := objectWithKeys(t, "line", lines[1], ckLineKeys)
	if plain["sku"] != nil || plain["image_src"] != nil || plain["properties"] != nil || wholeNumber(t, plain["quantity"]) != 1 || wholeNumber(t, plain["price_cents"]) != 1200 {
		t.Errorf("line 1 %v", plain)
	}

	// Attempts: the authorization (the capture's transaction_id), then the
	// failed capture.
	attempts := c["attempts"].([]any)
	if len(attempts) != 2 {
		t.Fatalf("attempts %v", attempts)
	}
	a0 := objectWithKeys(t, "attempt", attempts[0], ckAttemptKeys)
	if wholeNumber(t, a0["transaction_id"]) != wholeNumber(t, r.Obj("capture")["transaction_id"]) || wholeNumber(t, a0["transaction_id"]) != authTx.ID ||
		a0["capture_model"] != "manual" || a0["status"] != "success" || a0["provider"] != "stripe" || a0["payment_method"] != "visa" ||
		a0["error"] != nil || wholeNumber(t, a0["amount_cents"]) != stored.TotalCents || a0["currency"] != "EUR" || a0["created_at"] != ckTime(authTx.CreatedAt) {
		t.Errorf("attempt 0 %v", a0)
	}
	a1 := objectWithKeys(t, "attempt", attempts[1], ckAttemptKeys)
	if wholeNumber(t, a1["transaction_id"]) != capture.ID || a1["capture_model"] != "manual" || a1["status"] != "failure" || a1["error"] != failure {
		t.Errorf("attempt 1 %v", a1)
	}

	// Timeline: the order's entries, payments with their transaction.
	var names []string
	for _, v := range c["timeline"].([]any) {
		ev := objectWithKeys(t, "timeline event", v, ckTimelineKeys)
		names = append(names, ev["name"].(string))
		switch ev["name"] {
		case "created":
			if ev["source"] != "checkout" || ev["amount_cents"] != nil || ev["currency"] != nil || ev["transaction_id"] != nil || ev["provider"] != nil {
				t.Errorf("created %v", ev)
			}
		case "authorized":
			if wholeNumber(t, ev["transaction_id"]) != authTx.ID || wholeNumber(t, ev["amount_cents"]) != stored.TotalCents || ev["currency"] != "EUR" ||
				ev["provider"] != "stripe" || ev["payment_method"] != "visa" || ev["error_message"] != nil || ev["occurred_at"] != ckTime(authTx.CreatedAt) {
				t.Errorf("authorized %v", ev)
			}
		case "payment_failed":
			if wholeNumber(t, ev["transaction_id"]) != capture.ID || ev["error_message"] != failure || ev["error_code"] != nil || ev["source"] != "admin" {
				t.Errorf("payment_failed %v", ev)
			}
		}
	}
	if !reflect.DeepEqual(names, []string{"created", "authorized", "payment_failed"}) {
		t.Errorf("timeline %v", names)
	}

	// utm: the attribution as one object; tracking: ttclid only (an fbc
	// needs the time the click was first seen, which the order lacks).
	if !reflect.DeepEqual(c["utm"], map[string]any{"utm_source": "tiktok", "utm_medium": "paid_social", "utm_campaign": "autumn",
		"utm_content": "", "utm_term": "", "referrer": "https://www.tiktok.com/",
		"click_ids": map[string]any{"ttclid": "tt-123", "fbclid": "fb-456"}}) {
		t.Errorf("utm %#v", c["utm"])
	}
	tr := objectWithKeys(t, "tracking", c["tracking"], ckTrackingKeys)
	for k, v := range tr {
		if (k == "ttclid") != (v != nil) || (k == "ttclid" && v != "tt-123") {
			t.Errorf("tracking %s = %v", k, v)
		}
	}
	e.SameOnGraphQL(t, r, key, "GetAwaitingCapture", map[string]any{"id": authTx.ID})

	// Without a customer phone the address's; without a provider expiry,
	// 7 days after the authorization; no attribution: utm and tracking null.
	bare := createOrder(t, e, s.ID, orderSpec{payment: "authorized", email: "bare@example.com"})
	ckExec(t, e, `UPDATE customers SET phone = '' WHERE id = ?`, *bare.CustomerID)
	ckExec(t, e, `UPDATE orders SET attribution = NULL, shipping_address = '{"city": "Paris", "phone": "+33 1 00 00 00 00"}' WHERE id = ?`, bare.ID)
	bareAuth := ckAuthorization(t, e, bare)
	ckExec(t, e, `UPDATE order_transactions SET expires_at = NULL WHERE id = ?`, bareAuth.ID)
	bareStored, err := models.GetOrder(ctx, e.DB, s.ID, bare.ID)
	if err != nil {
		t.Fatal(err)
	}
	r = e.Do(http.MethodGet, fmt.Sprintf("/store/orders/awaiting-capture/%d", bareAuth.ID), key, nil).Expect(t, http.StatusOK)
	b := objectWithKeys(t, "checkout", r.Body["checkout"], ckKeys)
	if b["phone"] != "+33 1 00 00 00 00" || b["marketing_consent"] != false || b["utm"] != nil || b["tracking"] != nil ||
		b["discount_code"] != nil || b["expires_at"] != ckTime(bareAuth.CreatedAt.Add(7*24*time.Hour)) ||
		b["created_at"] != ckTime(bareStored.CreatedAt) || len(b["attempts"].([]any)) != 1 {
		t.Errorf("bare checkout %v", b)
	}
	e.SameOnGraphQL(t, r, key, "GetAwaitingCapture", map[string]any{"id": bareAuth.ID})

	// Refusals: no key, a key without orders:read, an unknown id, a sale
	// (never awaiting capture), another store's payment, an id not a number.
	paid := createOrder(t, e, s.ID, orderSpec{})
	paidTxs, err := models.OrderTransactions(ctx, e.DB, s.ID, paid.ID)
	if err != nil {
		t.Fatal(err)
	}
	e.Do(http.MethodGet, path, "", nil).Expect(t, http.StatusUnauthorized)
	e.Do(http.MethodGet, path, e.Key(s.ID, auth.RoleStaff, "products:read"), nil).Expect(t, http.StatusForbidden)
	e.Do(http.MethodGet, "/store/orders/awaiting-capture/999999999", key, nil).Expect(t, http.StatusNotFound)
	e.Do(http.MethodGet, fmt.Sprintf("/store/orders/awaiting-capture/%d", paidTxs[0].ID), key, nil).Expect(t, http.StatusNotFound)
	other := e.Store("other")
	e.Do(http.MethodGet, path, e.Key(other.ID, auth.RoleAdmin), nil).Expect(t, http.StatusNotFound)
	e.Do(http.MethodGet, "/store/orders/awaiting-capture/abc", key, nil).Expect(t, http.StatusBadRequest)

	// GraphQL alone: the same refusals.
	q := `query($id: Int!) { awaitingCaptureCheckout(id: $id) { token } }`
	if g := e.GraphQL(key, q, map[string]any{"id": authTx.ID}); g.Body["errors"] != nil || g.Data()["awaitingCaptureCheckout"].(map[string]any)["token"] != stored.Token {
		t.Errorf("GraphQL checkout: %s", g.Raw)
	}
	if g := e.GraphQL(e.Key(other.ID, auth.RoleAdmin), q, map[string]any{"id": authTx.ID}); g.ErrorCode() != "NOT_FOUND" {
		t.Errorf("another store's checkout on GraphQL: %s", g.Raw)
	}
	if g := e.GraphQL(e.Key(s.ID, auth.RoleStaff, "products:read"), q, map[string]any{"id": authTx.ID}); g.ErrorCode() != "FORBIDDEN" {
		t.Errorf("checkout without orders:read on GraphQL: %s", g.Raw)
	}
}
