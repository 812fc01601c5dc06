package models

import (
	"context"
	"reflect"
	"testing"
	"time"

	"storeadmin/internal/base/apperr"
)

// An order of two lines, half of it shipped and one unit refunded: 2 × 1000
// and 1 × 3000, a 500 discount, 400 tax and 700 shipping, all captured.
func refundFixture() (*Order, []OrderLineItem) {
	o := &Order{ID: 9, OrderNumberDisplay: "#1009", SubtotalCents: 5000, DiscountCents: 500, TaxCents: 400, ShippingCents: 700, TotalCents: 5600}
	lines := []OrderLineItem{
		{ID: 1, Title: "Mug", PriceCents: 1000, Quantity: 2, RefundedQuantity: 1, FulfilledQuantity: 1},
		{ID: 2, Title: "Teapot", PriceCents: 3000, Quantity: 1},
	}
	return o, lines
}

func TestPlanRefundAmounts(t *testing.T) {
	o, lines := refundFixture()
	amount := func(n int64) *int64 { return &n }
	for _, c := range []struct {
		name       string
		req        RefundRequest
		refundable int64
		want       int64
	}{
		// 3000 of 5000 of goods: 3000 × (5000 − 500 + 400) / 5000 = 2940.
		{"lines' share of what was paid", RefundRequest{Lines: []LineQuantity{{2, 1}}}, 5600, 2940},
		{"plus shipping", RefundRequest{Lines: []LineQuantity{{2, 1}}, Shipping: true}, 5600, 3640},
		{"capped at what is refundable", RefundRequest{Lines: []LineQuantity{{2, 1}}, Shipping: true}, 1000, 1000},
		{"an amount as asked", RefundRequest{AmountCents: amount(123)}, 5600, 123},
		// 1000 × 4900 / 5000 = 980.
		{"one mug", RefundRequest{Lines: []LineQuantity{{1, 1}}}, 5600, 980},
	} {
		plan, err := planRefund(c.req, o, lines, c.refundable)
		if err != nil || plan.amount != c.want {
			t.Errorf("%s: %d, %v; want %d", c.name, plan.amount, err, c.want)
		}
	}
	if got := shareOf(1, 1, 2); got != 1 {
		t.Errorf("shareOf(1, 1, 2) = %d, want 1 (half rounds up)", got)
	}
}

func TestPlanRefundRefusals(t *testing.T) {
	o, lines := refundFixture()
	amount := func(n int64) *int64 { return &n }
	for _, c := range []struct {
		name string
		req  RefundRequest
		code apperr.Code
	}{
		{"negative amount", RefundRequest{AmountCents: amount(-1)}, apperr.Invalid},
		{"a line of another order", RefundRequest{Lines: []LineQuantity{{7, 1}}}, apperr.Invalid},
		{"a line twice", RefundRequest{Lines: []LineQuantity{{2, 1}, {2, 1}}}, apperr.Invalid},
		{"no quantity", RefundRequest{Lines: []LineQuantity{{2, 0}}}, apperr.Invalid},
		{"more than is left to refund", RefundRequest{Lines: []LineQuantity{{1, 2}}}, apperr.Conflict},
		{"more than is refundable", RefundRequest{AmountCents: amount(5601)}, apperr.Conflict},
		{"nothing", RefundRequest{}, apperr.Conflict},
	} {
		if _, err := planRefund(c.req, o, lines, 5600); apperr.CodeOf(err) != c.code {
			t.Errorf("%s: %v, want %s", c.name, err, c.code)
		}
	}
}

func TestShipmentItems(t *testing.T) {
	o, lines := refundFixture()
	// Everything left: the mug's one unit is refunded and one shipped.
	got, err := ShipmentItems(nil, o, lines)
	want := []FulfillmentItem{{LineItemID: 2, Quantity: 1}}
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("everything left: %+v, %v; want %+v", got, err, want)
	}
	if _, err := ShipmentItems([]LineQuantity{{1, 1}}, o, lines); apperr.CodeOf(err) != apperr.Conflict {
		t.Errorf("shipping the mug again: %v, want a conflict", err)
	}
	lines[1].FulfilledQuantity = 1
	if _, err := ShipmentItems(nil, o, lines); apperr.CodeOf(err) != apperr.Conflict {
		t.Errorf("nothing left to ship: %v, want a conflict", err)
	}
}

func TestPlaceOrderRefusesOrdersWithoutGoods(t *testing.T) {
	// Refused before any statement, so no database is needed.
	for name, lines := range map[string][]OrderLineItem{
		"no lines":   nil,
		"a quantity": {{Title: "Mug", Quantity: 0}},
	} {
		_, err := PlaceOrder(context.Background(), nil, OrderPlacement{Order: &Order{}, Lines: lines, Now: time.Now()})
		if apperr.CodeOf(err) != apperr.Invalid {
			t.Errorf("%s: %v, want invalid", name, err)
		}
	}
}

// TestShareTotals: lines placed without their shares of the order's
// discount and tax get them by the pricing engine's rule, summing to the
// order's figures; lines placed with shares that sum to them keep them.
func TestShareTotals(t *testing.T) {
	lines := []OrderLineItem{{PriceCents: 333, Quantity: 1}, {PriceCents: 333, Quantity: 1}, {PriceCents: 334, Quantity: 1}}
	ShareTotals(&Order{DiscountCents: 101, TaxCents: 37}, lines)
	var discount, tax int64
	for _, l := range lines {
		discount += l.DiscountCents
		tax += l.TaxCents
	}
	if discount != 101 || tax != 37 || lines[2].DiscountCents != 34 || lines[0].DiscountCents != 34 || lines[1].DiscountCents != 33 {
		t.Fatalf("shares %+v", lines)
	}
	priced := []OrderLineItem{{PriceCents: 500, Quantity: 1, DiscountCents: 0, TaxCents: 5}, {PriceCents: 500, Quantity: 1, DiscountCents: 100, TaxCents: 4}}
	ShareTotals(&Order{DiscountCents: 100, TaxCents: 9}, priced)
	if priced[0].DiscountCents != 0 || priced[1].DiscountCents != 100 || priced[0].TaxCents != 5 || priced[1].TaxCents != 4 {
		t.Fatalf("priced shares changed: %+v", priced)
	}
}
