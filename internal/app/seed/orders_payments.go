package seed

import (
	"fmt"
	"slices"
	"time"

	"storeadmin/models"
)

type ordPay struct {
	provider, method string
	auth             bool // authorize at checkout, capture on shipping
}

// payment picks how the order is paid.
func (g *ordGen) payment(source string, wholesale bool) ordPay {
	brand := func() string { return []string{"visa", "mastercard", "amex", "discover"}[g.weighted(52, 27, 15, 6)] }
	switch {
	case wholesale:
		return ordPay{provider: "manual", method: "bank_transfer"}
	case source == "pos":
		if g.rng.Float64() < 0.2 {
			return ordPay{provider: "manual", method: "cash"}
		}
		return ordPay{provider: "stripe", method: brand()}
	case source == "draft_order":
		return ordPay{provider: "stripe", method: brand()} // the invoice's payment link
	}
	switch g.weighted(56, 16, 24, 4) {
	case 0:
		return ordPay{provider: "stripe", method: brand(), auth: g.rng.Float64() < 0.3}
	case 1:
		return ordPay{provider: "shop_pay", method: brand(), auth: g.rng.Float64() < 0.3}
	case 2:
		return ordPay{provider: "paypal", method: "paypal", auth: g.rng.Float64() < 0.4}
	}
	return ordPay{provider: "manual", method: "bank_transfer"}
}

// externalID is the gateway's id of a transaction.
func (g *ordGen) externalID(provider, kind string) string {
	switch provider {
	case "stripe":
		switch kind {
		case models.TxAuthorization, models.TxVoid:
			return "pi_3" + g.chars(ordAlnum, 23)
		case models.TxRefund:
			return "re_3" + g.chars(ordAlnum, 23)
		}
		return "ch_3" + g.chars(ordAlnum, 23)
	case "shop_pay":
		return "sp_" + g.chars("0123456789abcdef", 24)
	case "paypal":
		return g.chars("0123456789ABCDEFGHJKLMNPRSTUVWXY", 17)
	}
	return ""
}

// addTx records a transaction at at and returns its local id.
func (g *ordGen) addTx(oo *ordOrder, kind, status string, amount int64, at time.Time, parent int64) int64 {
	g.txN++
	t := models.OrderTransaction{
		ID: g.txN, StoreID: g.storeID, OrderID: oo.local, Kind: kind, Status: status, AmountCents: amount,
		Currency: oo.o.Currency, Provider: oo.pay.provider, ExternalID: g.externalID(oo.pay.provider, kind),
		CreatedAt: at.Truncate(time.Second),
	}
	if oo.pay.method != "" {
		t.PaymentMethod = ptr(oo.pay.method)
	}
	if parent != 0 {
		t.ParentID = ptr(parent)
		if kind == models.TxVoid {
			for _, p := range oo.txs {
				if p.ID == parent {
					t.ExternalID = p.ExternalID
				}
			}
		}
	}
	if oo.pay.method == "bank_transfer" && status == models.TxSuccess {
		t.ExternalID = fmt.Sprintf("BT-%s-%05d", at.Format("20060102"), g.rng.IntN(100000))
	}
	if kind == models.TxAuthorization {
		exp := t.CreatedAt.Add(7 * 24 * time.Hour)
		t.ExpiresAt = &exp
	}
	oo.txs = append(oo.txs, t)
	return t.ID
}

// cancel cancels about one order in thirty within hours of checkout, giving
// the money back: an authorization is voided, a sale refunded.
func (g *ordGen) cancel(oo *ordOrder) bool {
	o := &oo.o
	if oo.pay.provider == "manual" {
		return false
	}
	at := o.CreatedAt.Add(g.dur(15*time.Minute, 30*time.Hour))
	if at.After(g.now) || !g.want("cancelled", 0.03) {
		return false
	}
	reason := models.CancelReasons[g.weighted(45, 15, 20, 8, 12)]
	restock := g.want("cancel_restock", 0.85)
	auth := oo.pay.auth
	switch {
	case g.seen["cancel_void"] == 0:
		auth = true
	case g.seen["cancel_refund"] == 0:
		auth = false
	}
	payAt := o.CreatedAt.Add(g.secs(2, 30))
	if auth {
		g.seen["cancel_void"]++
		id := g.addTx(oo, models.TxAuthorization, models.TxSuccess, o.TotalCents, payAt, 0)
		g.event(oo, "authorized", "checkout", payAt, o.TotalCents, id, nil)
		v := g.addTx(oo, models.TxVoid, models.TxSuccess, o.TotalCents, at, id)
		g.event(oo, "voided", "admin", at, o.TotalCents, v, nil)
	} else {
		g.seen["cancel_refund"]++
		id := g.addTx(oo, models.TxSale, models.TxSuccess, o.TotalCents, payAt, 0)
		g.event(oo, "paid", "checkout", payAt, o.TotalCents, id, nil)
		items := make(map[int]int64, len(oo.lines))
		for i, l := range oo.lines {
			items[i] = l.Quantity
		}
		g.refund(oo, at, o.TotalCents, items, restock, "Order cancelled", id)
	}
	g.markCancelled(oo, at, reason, restock)
	return true
}

func (g *ordGen) markCancelled(oo *ordOrder, at time.Time, reason string, restock bool) {
	at = at.Truncate(time.Second)
	oo.o.Status, oo.o.CancelReason, oo.o.CancelledAt = models.OrderCancelled, reason, &at
	oo.restock = restock
	g.event(oo, "cancelled", "admin", at, 0, 0, map[string]any{"reason": reason, "restock": restock})
}

// bankTransfer waits for the transfer: a pending transaction until it
// arrives, a sale once it has.
func (g *ordGen) bankTransfer(oo *ordOrder) time.Time {
	o := &oo.o
	arrived := o.CreatedAt.Add(g.dur(16*time.Hour, 96*time.Hour))
	if arrived.After(g.now) || (g.now.Sub(o.CreatedAt) < 5*24*time.Hour && g.want("bank_pending", 0.3)) {
		g.addTx(oo, models.TxSale, models.TxPending, o.TotalCents, o.CreatedAt.Add(g.secs(2, 30)), 0)
		return time.Time{}
	}
	id := g.addTx(oo, models.TxSale, models.TxSuccess, o.TotalCents, arrived, 0)
	g.event(oo, "paid", "admin", arrived, o.TotalCents, id, map[string]any{"note": "Bank transfer received"})
	return arrived
}

// invoice waits for the shopper to pay a draft order's invoice by card.
func (g *ordGen) invoice(oo *ordOrder) time.Time {
	o := &oo.o
	at := o.CreatedAt.Add(g.dur(2*time.Hour, 6*24*time.Hour))
	if g.rng.Float64() < 0.4 { // paid over the phone
		at = o.CreatedAt.Add(g.secs(30, 600))
	}
	if at.After(g.now) || (g.now.Sub(o.CreatedAt) < 7*24*time.Hour && g.want("invoice_pending", 0.4)) {
		return time.Time{}
	}
	id := g.addTx(oo, models.TxSale, models.TxSuccess, o.TotalCents, at, 0)
	g.event(oo, "paid", "checkout", at, o.TotalCents, id, nil)
	return at
}

// deposit takes half of a wholesale order up front and the balance within
// a month; it ships after the deposit.
func (g *ordGen) deposit(oo *ordOrder) time.Time {
	o := &oo.o
	at := o.CreatedAt.Add(g.dur(2*time.Hour, 48*time.Hour))
	if at.After(g.now) {
		return time.Time{}
	}
	dep := o.TotalCents / 2
	id := g.addTx(oo, models.TxSale, models.TxSuccess, dep, at, 0)
	g.event(oo, "paid", "admin", at, dep, id, map[string]any{"note": "50% deposit"})
	balance := o.CreatedAt.Add(g.dur(12*24*time.Hour, 30*24*time.Hour))
	if g.now.Sub(o.CreatedAt) < 30*24*time.Hour && g.want("partially_paid", 0.3) {
		balance = g.now.Add(24 * time.Hour)
	}
	if balance.Before(g.now) {
		id := g.addTx(oo, models.TxSale, models.TxSuccess, o.TotalCents-dep, balance, 0)
		g.event(oo, "paid", "admin", balance, o.TotalCents-dep, id, map[string]any{"note": "Balance received"})
	}
	return at
}

// authorizeAndShip authorizes at checkout and captures when the order
// ships. Some authorizations are still open: not shipped yet, held (and
// soon expiring), or with a failed capture.
func (g *ordGen) authorizeAndShip(oo *ordOrder) {
	o := &oo.o
	total := o.TotalCents
	age := g.now.Sub(o.CreatedAt)
	day := 24 * time.Hour
	authAt := o.CreatedAt.Add(g.secs(2, 30))
	auth := g.addTx(oo, models.TxAuthorization, models.TxSuccess, total, authAt, 0)
	expires := *oo.txs[len(oo.txs)-1].ExpiresAt
	g.event(oo, "authorized", "checkout", authAt, total, auth, map[string]any{"expires_at": expires})

	if (age >= 5*day && age < 7*day && g.want("auth_expiring", 0.3)) || (age >= 7*day && age < 9*day && g.rng.Float64() < 0.15) {
		return // held: backordered, waiting to capture when it ships
	}
	at := g.shipTime(o.CreatedAt)
	if at.After(g.now) {
		return
	}
	if !at.Before(expires) {
		at = expires.Add(-g.dur(2*time.Hour, 12*time.Hour))
	}
	errs := ordCaptureErrors[oo.pay.provider]
	fail := func(at time.Time) {
		msg := errs[g.rng.IntN(len(errs))]
		id := g.addTx(oo, models.TxCapture, models.TxFailure, total, at, auth)
		oo.txs[len(oo.txs)-1].Error = ptr(msg)
		g.event(oo, "payment_failed", "system", at, total, id, map[string]any{"error": msg})
	}
	if expires.After(g.now) && g.want("auth_capture_failed", 0.12) {
		fail(at) // the attempt failed and nobody has retried yet
		return
	}
	if g.rng.Float64() < 0.05 {
		fail(at)
		retry := at.Add(g.dur(3*time.Hour, 40*time.Hour))
		if retry.After(g.now) || !retry.Before(expires) || g.rng.Float64() < 0.25 {
			if expires.After(g.now) {
				return // still open, needing attention
			}
			// The authorization lapsed: give up, void it and cancel.
			at := expires.Add(g.dur(time.Hour, 20*time.Hour))
			if at.After(g.now) {
				at = g.now
			}
			v := g.addTx(oo, models.TxVoid, models.TxSuccess, total, at, auth)
			g.event(oo, "voided", "admin", at, total, v, nil)
			g.markCancelled(oo, at, "declined", true)
			return
		}
		at = retry
	}
	capAt := at.Add(-g.dur(time.Minute, 10*time.Minute))
	id := g.addTx(oo, models.TxCapture, models.TxSuccess, total, capAt, auth)
	g.event(oo, "captured", []string{"system", "admin"}[g.rng.IntN(2)], capAt, total, id, nil)
	g.fulfil(oo, at)
	g.afterShip(oo)
}

// afterShip gives money back on some delivered orders: a returned line,
// a goodwill refund, or everything for a parcel lost in transit.
func (g *ordGen) afterShip(oo *ordOrder) {
	o := &oo.o
	if !oo.allShipped {
		return
	}
	m := models.SumMoney(oo.txs)
	if m.Captured < o.TotalCents {
		return
	}
	var parent int64
	for _, t := range oo.txs {
		if t.Status == models.TxSuccess && (t.Kind == models.TxSale || t.Kind == models.TxCapture) {
			parent = t.ID
		}
	}
	switch r := g.rng.Float64(); {
	case r < 0.07: // a return
		at := oo.lastShip.Add(g.dur(4*24*time.Hour, 25*24*time.Hour))
		if at.After(g.now) {
			return
		}
		i := g.rng.IntN(len(oo.lines))
		l := oo.lines[i]
		q := 1 + g.rng.Int64N(l.Quantity)
		gross := l.PriceCents * q
		disc := int64(0)
		if o.SubtotalCents > 0 {
			disc = o.DiscountCents * gross / o.SubtotalCents
		}
		tax := int64(0)
		if base := o.SubtotalCents - o.DiscountCents; base > 0 {
			tax = o.TaxCents * (gross - disc) / base
		}
		amount := min(gross-disc+tax, m.Refundable())
		if amount <= 0 {
			return
		}
		g.refund(oo, at, amount, map[int]int64{i: q}, g.rng.Float64() < 0.85, ordReturnReasons[g.rng.IntN(len(ordReturnReasons))], parent)
	case r < 0.085: // goodwill
		at := oo.lastShip.Add(g.dur(2*24*time.Hour, 10*24*time.Hour))
		amount := o.ShippingCents
		if amount == 0 {
			amount = o.SubtotalCents / 10
		}
		if at.After(g.now) || amount <= 0 || amount >= m.Refundable() {
			return
		}
		g.refund(oo, at, amount, nil, false, "Goodwill: shipping delay", parent)
	case r < 0.095: // lost in transit
		at := oo.lastShip.Add(g.dur(10*24*time.Hour, 20*24*time.Hour))
		if at.After(g.now) {
			return
		}
		items := make(map[int]int64, len(oo.lines))
		for i, l := range oo.lines {
			items[i] = l.Quantity
		}
		g.refund(oo, at, m.Refundable(), items, false, "Lost in transit", parent)
	}
}

// refund gives amount back at at, with quantities by line index, through
// a refund transaction on parent.
func (g *ordGen) refund(oo *ordOrder, at time.Time, amount int64, items map[int]int64, restock bool, reason string, parent int64) {
	g.refundN++
	r := models.Refund{
		ID: g.refundN, StoreID: g.storeID, OrderID: oo.local, AmountCents: amount, Currency: oo.o.Currency,
		Status: "success", Reason: reason, Restock: restock, CreatedAt: at.Truncate(time.Second),
	}
	idx := make([]int, 0, len(items))
	for i := range items {
		idx = append(idx, i)
	}
	slices.Sort(idx)
	for _, i := range idx {
		oo.refundItems = append(oo.refundItems, models.RefundLineItem{RefundID: r.ID, LineItemID: oo.lines[i].ID, Quantity: items[i]})
		oo.lines[i].RefundedQuantity += items[i]
	}
	oo.refunds = append(oo.refunds, r)
	id := g.addTx(oo, models.TxRefund, models.TxSuccess, amount, at, parent)
	oo.txs[len(oo.txs)-1].RefundID = ptr(r.ID)
	g.event(oo, "refunded", "admin", at, amount, id, map[string]any{"reason": reason, "restock": restock, "line_items": len(items)})
}
