package models

import (
	"slices"
	"testing"
)

// newTx is a transaction of kind and status for amount cents; id and parent
// link captures and voids to their authorization.
func newTx(id int64, kind, status string, amount int64, parent int64) OrderTransaction {
	t := OrderTransaction{ID: id, Kind: kind, Status: status, AmountCents: amount}
	if parent != 0 {
		t.ParentID = &parent
	}
	return t
}

func TestSumMoney(t *testing.T) {
	auth1 := newTx(1, TxAuthorization, TxSuccess, 5000, 0)
	auth2 := newTx(2, TxAuthorization, TxSuccess, 3000, 0)
	cases := []struct {
		name       string
		txs        []OrderTransaction
		captured   int64
		refunded   int64
		openAuths  []int64
		voided     bool
		refundable int64
	}{
		{name: "none"},
		{name: "a sale", txs: []OrderTransaction{newTx(1, TxSale, TxSuccess, 4000, 0)}, captured: 4000, refundable: 4000},
		{name: "failed and pending transactions count for nothing",
			txs: []OrderTransaction{newTx(1, TxSale, TxFailure, 4000, 0), newTx(2, TxSale, TxPending, 100, 0), newTx(3, TxRefund, TxError, 50, 0), newTx(4, TxVoid, TxFailure, 0, 0)}},
		{name: "captures and sales add up, refunds are subtracted from what is refundable",
			txs:      []OrderTransaction{auth1, newTx(3, TxCapture, TxSuccess, 5000, 1), newTx(4, TxSale, TxSuccess, 1000, 0), newTx(5, TxRefund, TxSuccess, 2500, 0)},
			captured: 6000, refunded: 2500, refundable: 3500},
		{name: "refunds above what was captured leave nothing refundable",
			txs:      []OrderTransaction{newTx(1, TxSale, TxSuccess, 1000, 0), newTx(2, TxRefund, TxSuccess, 1500, 0)},
			captured: 1000, refunded: 1500},
		{name: "an authorization stays open until captured or voided",
			txs:      []OrderTransaction{auth1, auth2, newTx(3, TxCapture, TxSuccess, 5000, 1)},
			captured: 5000, openAuths: []int64{2}, refundable: 5000},
		{name: "a void closes its authorization",
			txs:    []OrderTransaction{auth1, newTx(3, TxVoid, TxSuccess, 0, 1)},
			voided: true},
		{name: "a failed capture does not close its authorization",
			txs:       []OrderTransaction{auth1, newTx(3, TxCapture, TxFailure, 5000, 1)},
			openAuths: []int64{1}},
		{name: "a failed authorization is not open",
			txs: []OrderTransaction{newTx(1, TxAuthorization, TxFailure, 5000, 0)}},
		{name: "a refund naming an authorization does not close it",
			txs:      []OrderTransaction{auth1, newTx(3, TxRefund, TxSuccess, 100, 1)},
			refunded: 100, openAuths: []int64{1}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m := SumMoney(c.txs)
			var open []int64
			for _, a := range m.OpenAuthorizations {
				open = append(open, a.ID)
			}
			if m.Captured != c.captured || m.Refunded != c.refunded || m.Voided != c.voided || !slices.Equal(open, c.openAuths) {
				t.Fatalf("got captured %d refunded %d voided %v open %v, want %d %d %v %v",
					m.Captured, m.Refunded, m.Voided, open, c.captured, c.refunded, c.voided, c.openAuths)
			}
			if got := m.Refundable(); got != c.refundable {
				t.Fatalf("Refundable() = %d, want %d", got, c.refundable)
			}
		})
	}
}

func TestFinancialStatus(t *testing.T) {
	auth := newTx(1, TxAuthorization, TxSuccess, 5000, 0)
	cases := []struct {
		name  string
		total int64
		txs   []OrderTransaction
		want  string
	}{
		{"nothing yet", 5000, nil, FinancialPending},
		{"only failures", 5000, []OrderTransaction{newTx(1, TxSale, TxFailure, 5000, 0)}, FinancialPending},
		{"an order of 0 is paid", 0, nil, FinancialPaid},
		{"an open authorization", 5000, []OrderTransaction{auth}, FinancialAuthorized},
		{"an authorization voided", 5000, []OrderTransaction{auth, newTx(2, TxVoid, TxSuccess, 0, 1)}, FinancialVoided},
		{"an open authorization beats a void of another", 5000,
			[]OrderTransaction{auth, newTx(2, TxAuthorization, TxSuccess, 5000, 0), newTx(3, TxVoid, TxSuccess, 0, 2)}, FinancialAuthorized},
		{"captured in full", 5000, []OrderTransaction{auth, newTx(2, TxCapture, TxSuccess, 5000, 1)}, FinancialPaid},
		{"a sale of more than the total", 5000, []OrderTransaction{newTx(1, TxSale, TxSuccess, 6000, 0)}, FinancialPaid},
		{"captured in part", 5000, []OrderTransaction{newTx(1, TxSale, TxSuccess, 2000, 0)}, FinancialPartiallyPaid},
		{"captured in part with an authorization open", 5000,
			[]OrderTransaction{auth, newTx(2, TxSale, TxSuccess, 2000, 0)}, FinancialPartiallyPaid},
		{"refunded in part", 5000, []OrderTransaction{newTx(1, TxSale, TxSuccess, 5000, 0), newTx(2, TxRefund, TxSuccess, 1000, 0)}, FinancialPartiallyRefunded},
		{"refunded in part of a part payment", 5000,
			[]OrderTransaction{newTx(1, TxSale, TxSuccess, 2000, 0), newTx(2, TxRefund, TxSuccess, 1000, 0)}, FinancialPartiallyRefunded},
		{"refunded in full", 5000, []OrderTransaction{newTx(1, TxSale, TxSuccess, 5000, 0), newTx(2, TxRefund, TxSuccess, 5000, 0)}, FinancialRefunded},
		{"refunded all of a part payment", 5000,
			[]OrderTransaction{newTx(1, TxSale, TxSuccess, 2000, 0), newTx(2, TxRefund, TxSuccess, 2000, 0)}, FinancialRefunded},
		{"a failed refund changes nothing", 5000,
			[]OrderTransaction{newTx(1, TxSale, TxSuccess, 5000, 0), newTx(2, TxRefund, TxFailure, 5000, 0)}, FinancialPaid},
		{"a refund without a capture", 5000, []OrderTransaction{newTx(1, TxRefund, TxSuccess, 1000, 0)}, FinancialPending},
	}
	for _, c := range cases {
		if got := FinancialStatus(c.total, c.txs); got != c.want {
			t.Errorf("%s: FinancialStatus = %q, want %q", c.name, got, c.want)
		}
	}
}

func TestFulfillmentStatus(t *testing.T) {
	line := func(quantity, refunded, fulfilled int64) OrderLineItem {
		return OrderLineItem{Quantity: quantity, RefundedQuantity: refunded, FulfilledQuantity: fulfilled}
	}
	cases := []struct {
		name    string
		current string
		lines   []OrderLineItem
		want    string
	}{
		{"no lines", FulfillmentUnfulfilled, nil, FulfillmentUnfulfilled},
		{"nothing shipped", FulfillmentUnfulfilled, []OrderLineItem{line(2, 0, 0), line(1, 0, 0)}, FulfillmentUnfulfilled},
		{"nothing shipped, everything refunded", FulfillmentUnfulfilled, []OrderLineItem{line(2, 2, 0)}, FulfillmentUnfulfilled},
		{"some shipped", FulfillmentUnfulfilled, []OrderLineItem{line(2, 0, 1), line(1, 0, 0)}, FulfillmentPartial},
		{"one line shipped, another not", FulfillmentPartial, []OrderLineItem{line(2, 0, 2), line(1, 0, 0)}, FulfillmentPartial},
		{"everything shipped", FulfillmentPartial, []OrderLineItem{line(2, 0, 2), line(1, 0, 1)}, FulfillmentFulfilled},
		{"the rest refunded", FulfillmentPartial, []OrderLineItem{line(3, 1, 2), line(1, 1, 0)}, FulfillmentFulfilled},
		{"more shipped than bought", FulfillmentUnfulfilled, []OrderLineItem{line(1, 0, 2)}, FulfillmentFulfilled},
		{"a shipment cancelled", FulfillmentFulfilled, []OrderLineItem{line(2, 0, 0)}, FulfillmentUnfulfilled},
		{"restocked stays restocked", FulfillmentRestocked, []OrderLineItem{line(2, 0, 0)}, FulfillmentRestocked},
		{"restocked after a shipment is not restocked", FulfillmentRestocked, []OrderLineItem{line(2, 0, 2)}, FulfillmentFulfilled},
		{"restocked in part shipped", FulfillmentRestocked, []OrderLineItem{line(2, 0, 1)}, FulfillmentPartial},
	}
	for _, c := range cases {
		if got := FulfillmentStatus(c.current, c.lines); got != c.want {
			t.Errorf("%s: FulfillmentStatus(%q) = %q, want %q", c.name, c.current, got, c.want)
		}
	}
}
