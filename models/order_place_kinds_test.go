package models

import (
	"context"
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/uptrace/bun"

	"storeadmin/internal/base/apperr"
	"storeadmin/internal/testkit/testdb"
)

// placeKinds places, at at, one order of 1000 for each way a payment
// starts (a sale, an authorization, a pending transfer, nothing yet) and
// a guest's sale, in that order; the shoppers accept marketing.
func placeKinds(t *testing.T, db bun.IDB, at time.Time) []*Order {
	t.Helper()
	_, _, fixture := placeFixture(t, db, "kinds", at)
	base := fixture[1] // one mug of 1000, by ada
	var ps []OrderPlacement
	for i, kind := range []PaymentKind{PaymentSale, PaymentAuthorization, PaymentPending, PaymentNone, PaymentSale} {
		p, o := base, *base.Order
		p.Order, p.Lines = &o, []OrderLineItem{base.Lines[0]}
		p.Payment.Kind, p.Payment.Reference = kind, ""
		p.Now, p.AcceptsMarketing = at.Add(time.Duration(i)*time.Minute), true
		ps = append(ps, p)
	}
	ps[4].Order.Email, ps[4].Guest = "guest@example.com", true
	orders, err := PlaceOrders(context.Background(), db, ps)
	if err != nil {
		t.Fatal(err)
	}
	return orders
}

// kindState is what one placed order shows: its statuses, paid_at, its
// transactions (kind, status, how long an authorization holds) and its
// timeline, as text.
func kindState(t *testing.T, db bun.IDB, o *Order) string {
	t.Helper()
	ctx := context.Background()
	stored, err := GetOrder(ctx, db, o.StoreID, o.ID)
	if err != nil {
		t.Fatal(err)
	}
	txs, err := OrderTransactions(ctx, db, o.StoreID, o.ID)
	if err != nil {
		t.Fatal(err)
	}
	events, _, err := OrderEvents(ctx, db, o.StoreID, o.ID, 10)
	if err != nil {
		t.Fatal(err)
	}
	out := fmt.Sprintf("%s/%s paid_at:%v customer:%v", stored.FinancialStatus, stored.FulfillmentStatus, stored.PaidAt != nil, stored.CustomerID != nil)
	for _, x := range txs {
		out += fmt.Sprintf(" %s:%s", x.Kind, x.Status)
		if x.ExpiresAt != nil {
			out += fmt.Sprintf("(%v)", x.ExpiresAt.Sub(x.CreatedAt))
		}
	}
	for _, e := range events {
		out += " " + e.Name
	}
	return out
}

// An order starts as its payment did: a sale is paid, an authorization
// holds the money for seven days, a transfer is pending with no "paid"
// entry, an invoice has no transaction at all; a guest gets no customer.
func TestPlaceOrdersStartsEachKindOfPayment(t *testing.T) {
	db, _ := testdb.New(t)
	at := time.Date(2026, 11, 14, 9, 30, 0, 0, time.UTC)
	orders := placeKinds(t, db, at)
	var got []string
	for _, o := range orders {
		got = append(got, kindState(t, db, o))
	}
	want := []string{
		"paid/unfulfilled paid_at:true customer:true sale:success created paid",
		"authorized/unfulfilled paid_at:false customer:true authorization:success(168h0m0s) created authorized",
		"pending/unfulfilled paid_at:false customer:true sale:pending created",
		"pending/unfulfilled paid_at:false customer:true created",
		"paid/unfulfilled paid_at:true customer:false sale:success created paid",
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("placed:\n%q\nwant:\n%q", got, want)
	}
	// The placements happened a week ago: so did the customer's arrival.
	var c Customer
	if err := db.NewSelect().Model(&c).Where("id = ?", *orders[0].CustomerID).Scan(context.Background()); err != nil {
		t.Fatal(err)
	}
	if !c.CreatedAt.Equal(at) || !c.UpdatedAt.Equal(at.Add(3*time.Minute)) || !c.AcceptsMarketing {
		t.Fatalf("customer created %v, updated %v, accepts marketing %v", c.CreatedAt, c.UpdatedAt, c.AcceptsMarketing)
	}
}

// After checkout: a refused capture leaves the authorization open, a
// successful one pays the order; money received later pays what is due
// and no more (paid_at is the first money's time); each change is on the
// timeline and dates the order at its own time.
func TestOrderPaymentsAfterCheckout(t *testing.T) {
	db, _ := testdb.New(t)
	ctx := context.Background()
	at := time.Date(2026, 11, 14, 9, 30, 0, 0, time.UTC)
	orders := placeKinds(t, db, at)
	authorized, invoiced := orders[1], orders[3]

	if _, err := CapturePayment(ctx, db, Capture{Order: authorized, Failure: "Your card was declined.", Actor: "system", Now: at.Add(time.Hour)}); err != nil {
		t.Fatal(err)
	}
	if authorized.FinancialStatus != FinancialAuthorized {
		t.Fatalf("after a refused capture: %s", authorized.FinancialStatus)
	}
	if _, err := CapturePayment(ctx, db, Capture{Order: authorized, Actor: "admin", Now: at.Add(2 * time.Hour)}); err != nil {
		t.Fatal(err)
	}
	if _, err := CapturePayment(ctx, db, Capture{Order: authorized, Now: at.Add(3 * time.Hour)}); apperr.CodeOf(err) != apperr.Conflict {
		t.Fatalf("capturing twice: %v", err)
	}
	if got := kindState(t, db, authorized); got != "paid/unfulfilled paid_at:true customer:true authorization:success(168h0m0s) capture:failure capture:success created authorized payment_failed captured" {
		t.Fatalf("captured: %s", got)
	}
	if authorized.PaidAt == nil || !authorized.PaidAt.Equal(at.Add(2*time.Hour)) {
		t.Fatalf("paid at %v", authorized.PaidAt)
	}

	if _, err := RecordPayment(ctx, db, Received{Order: invoiced, Provider: "manual", AmountCents: 400, Note: "deposit", Actor: "admin", Now: at.Add(time.Hour)}); err != nil {
		t.Fatal(err)
	}
	if invoiced.FinancialStatus != FinancialPartiallyPaid {
		t.Fatalf("after a deposit: %s", invoiced.FinancialStatus)
	}
	if _, err := RecordPayment(ctx, db, Received{Order: invoiced, Provider: "manual", AmountCents: 601, Now: at.Add(2 * time.Hour)}); apperr.CodeOf(err) != apperr.Conflict {
		t.Fatalf("paying more than is due: %v", err)
	}
	if _, err := RecordPayment(ctx, db, Received{Order: invoiced, Provider: "manual", AmountCents: 600, Now: at.Add(2 * time.Hour)}); err != nil {
		t.Fatal(err)
	}
	if _, err := FulfilOrder(ctx, db, Shipment{Order: invoiced, Carrier: "UPS", Actor: "api", Now: at.Add(3 * time.Hour)}); err != nil {
		t.Fatal(err)
	}
	if err := ArchiveOrder(ctx, db, invoiced, "system", at.Add(4*time.Hour)); err != nil {
		t.Fatal(err)
	}
	if got := kindState(t, db, invoiced); got != "paid/fulfilled paid_at:true customer:true sale:success sale:success created paid paid fulfilled archived" {
		t.Fatalf("invoice paid, shipped, archived: %s", got)
	}
	stored, err := GetOrder(ctx, db, invoiced.StoreID, invoiced.ID)
	if err != nil {
		t.Fatal(err)
	}
	if !stored.UpdatedAt.Equal(at.Add(4*time.Hour)) || !stored.PaidAt.Equal(at.Add(time.Hour)) || stored.Status != OrderArchived {
		t.Fatalf("stored: updated %v, paid %v, %s", stored.UpdatedAt, stored.PaidAt, stored.Status)
	}
}

// A batch names each order once: it reads each order's state once, so
// two changes of one order must follow each other.
func TestOrderChangesRefuseAnOrderTwiceInABatch(t *testing.T) {
	db, _ := testdb.New(t)
	at := time.Date(2026, 11, 14, 9, 30, 0, 0, time.UTC)
	o := placeKinds(t, db, at)[0]
	_, err := FulfilOrders(context.Background(), db, []Shipment{{Order: o}, {Order: o}})
	if err == nil {
		t.Fatal("an order shipped twice in one batch")
	}
}

// Cancelling in bulk keeps each order's rules: an authorization is voided,
// a sale refunded with its quantity restocked, an invoice just cancelled;
// a batch with a shipped order is refused whole.
func TestCancelOrdersInBulk(t *testing.T) {
	db, _ := testdb.New(t)
	ctx := context.Background()
	at := time.Date(2026, 11, 14, 9, 30, 0, 0, time.UTC)
	orders := placeKinds(t, db, at)
	sale, authorized, invoiced, guest := orders[0], orders[1], orders[3], orders[4]
	lines, err := OrderLines(ctx, db, sale.StoreID, sale.ID)
	if err != nil {
		t.Fatal(err)
	}
	stock := func() (q int64) {
		if err := db.NewSelect().Table("product_variants").Column("inventory_quantity").
			Where("id = ?", *lines[0].VariantID).Scan(ctx, &q); err != nil {
			t.Fatal(err)
		}
		return q
	}
	if _, err := FulfilOrder(ctx, db, Shipment{Order: guest, Now: at.Add(time.Hour)}); err != nil {
		t.Fatal(err)
	}
	then := at.Add(2 * time.Hour)
	refused := []Cancellation{{Order: invoiced, Reason: "other", Now: then}, {Order: guest, Reason: "other", Now: then}}
	if _, err := CancelOrders(ctx, db, refused); apperr.CodeOf(err) != apperr.Conflict {
		t.Fatalf("a batch with a shipped order: %v", err)
	}
	before := stock()
	refunded, err := CancelOrders(ctx, db, []Cancellation{
		{Order: sale, Reason: "customer", Refund: true, Restock: true, Actor: "admin", Now: then},
		{Order: authorized, Reason: "fraud", Actor: "admin", Now: then},
		{Order: invoiced, Reason: "other", Actor: "admin", Now: then},
	})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(refunded, []bool{true, false, false}) || stock() != before+1 {
		t.Fatalf("refunded %v, stock %d -> %d", refunded, before, stock())
	}
	var got []string
	for _, o := range []*Order{sale, authorized, invoiced} {
		got = append(got, kindState(t, db, o))
	}
	want := []string{
		"refunded/restocked paid_at:true customer:true sale:success refund:success created paid refunded cancelled",
		"voided/unfulfilled paid_at:false customer:true authorization:success(168h0m0s) void:success created authorized voided cancelled",
		"pending/unfulfilled paid_at:false customer:true created cancelled",
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("cancelled:\n%q\nwant:\n%q", got, want)
	}
}
