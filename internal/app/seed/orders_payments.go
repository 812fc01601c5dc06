package seed

import (
	"fmt"
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

// externalID is the gateway's id of a payment, authorization or capture
// the seed makes (the domain names the voids and refunds it makes); empty
// for manual payments.
func (g *ordGen) externalID(provider, kind string) string {
	switch provider {
	case "stripe":
		if kind == models.TxAuthorization {
			return "pi_3" + g.chars(ordAlnum, 23)
		}
		return "ch_3" + g.chars(ordAlnum, 23)
	case "shop_pay":
		return "sp_" + g.chars("0123456789abcdef", 24)
	case "paypal":
		return g.chars("0123456789ABCDEFGHJKLMNPRSTUVWXY", 17)
	}
	return ""
}

// checkout is how the order's payment starts: taken at once, authorized
// for a capture when it ships, awaited (a bank transfer), or nothing yet
// (an invoice, a wholesale deposit). A sale pays the order (oo.paid).
func (g *ordGen) checkout(oo *ordOrder) models.Payment {
	p := models.Payment{Provider: oo.pay.provider, Method: oo.pay.method}
	switch {
	case oo.o.Source == "pos":
	case oo.cancel != nil:
		if oo.cancel.void {
			p.Kind = models.PaymentAuthorization
		}
	case oo.cust != nil && oo.cust.wholesale, oo.o.Source == "draft_order":
		p.Kind = models.PaymentNone
	case oo.pay.method == "bank_transfer":
		p.Kind = models.PaymentPending
	case oo.pay.auth:
		p.Kind = models.PaymentAuthorization
	}
	kind := models.TxSale
	if p.Kind == models.PaymentAuthorization {
		kind = models.TxAuthorization
	}
	p.Reference = g.externalID(p.Provider, kind)
	oo.paid = p.Kind == models.PaymentSale
	return p
}

// ordCancel is a cancellation within hours of checkout.
type ordCancel struct {
	at      time.Time
	reason  string
	restock bool
	void    bool // the payment was authorized (voided) rather than taken (refunded)
}

// planCancel cancels about one order in thirty within hours of checkout,
// giving the money back: an authorization is voided, a sale refunded.
func (g *ordGen) planCancel(oo *ordOrder) {
	o := &oo.o
	if oo.pay.provider == "manual" || o.Source == "pos" { // a sale at the till is final
		return
	}
	at := o.CreatedAt.Add(g.dur(15*time.Minute, 30*time.Hour))
	if at.After(g.now) || !g.want("cancelled", 0.03) {
		return
	}
	c := &ordCancel{at: at, reason: models.CancelReasons[g.weighted(45, 15, 20, 8, 12)], restock: g.want("cancel_restock", 0.85), void: oo.pay.auth}
	switch {
	case g.seen["cancel_void"] == 0:
		c.void = true
	case g.seen["cancel_refund"] == 0:
		c.void = false
	}
	if c.void {
		g.seen["cancel_void"]++
	} else {
		g.seen["cancel_refund"]++
	}
	oo.cancel = c
}

// cancelSoon plans the cancellation decided at checkout: the domain voids
// an authorization, or refunds a sale.
func (g *ordGen) cancelSoon(oo *ordOrder) {
	c := oo.cancel
	g.cancelOrder(oo, c.at, models.Cancellation{Reason: c.reason, Restock: c.restock, Refund: !c.void})
}

// bankTransfer waits for the transfer, pending since checkout; once it
// arrives it is recorded as paid. It returns when the order may ship.
func (g *ordGen) bankTransfer(oo *ordOrder) time.Time {
	o := &oo.o
	arrived := o.CreatedAt.Add(g.dur(16*time.Hour, 96*time.Hour))
	if arrived.After(g.now) || (g.now.Sub(o.CreatedAt) < 5*24*time.Hour && g.want("bank_pending", 0.3)) {
		return time.Time{}
	}
	g.received(oo, arrived, o.TotalCents, g.bankReference(arrived), "Bank transfer received", "admin", true)
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
	g.received(oo, at, o.TotalCents, g.externalID(oo.pay.provider, models.TxSale), "", "checkout", true)
	return at
}

// deposit takes half of a wholesale order up front, ships it, and takes
// the balance within a month.
func (g *ordGen) deposit(oo *ordOrder) {
	o := &oo.o
	at := o.CreatedAt.Add(g.dur(2*time.Hour, 48*time.Hour))
	if at.After(g.now) {
		return
	}
	dep := o.TotalCents / 2
	g.received(oo, at, dep, g.bankReference(at), "50% deposit", "admin", false)
	if ship := g.shipTime(at); !ship.After(g.now) {
		g.fulfil(oo, ship)
	}
	balance := o.CreatedAt.Add(g.dur(12*24*time.Hour, 30*24*time.Hour))
	if g.now.Sub(o.CreatedAt) < 30*24*time.Hour && g.want("partially_paid", 0.3) {
		return
	}
	if balance.After(oo.last) && balance.Before(g.now) {
		g.received(oo, balance, o.TotalCents-dep, g.bankReference(balance), "Balance received", "admin", true)
	}
}

// bankReference is a bank transfer's reference.
func (g *ordGen) bankReference(at time.Time) string {
	return fmt.Sprintf("BT-%s-%05d", at.Format("20060102"), g.rng.IntN(100000))
}

// authorizeAndShip captures the authorization made at checkout when the
// order ships. Some authorizations are still open: not shipped yet, held
// (and soon expiring), or with a failed capture.
func (g *ordGen) authorizeAndShip(oo *ordOrder) {
	o := &oo.o
	age := g.now.Sub(o.CreatedAt)
	day := 24 * time.Hour
	expires := o.CreatedAt.Add(models.AuthorizationLifetime)
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
		g.capture(oo, at, errs[g.rng.IntN(len(errs))], "system")
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
			// The authorization lapsed: give up and cancel (the domain voids it).
			at := expires.Add(g.dur(time.Hour, 20*time.Hour))
			if at.After(g.now) {
				at = g.now
			}
			g.cancelOrder(oo, at, models.Cancellation{Reason: "declined", Restock: true})
			return
		}
		at = retry
	}
	g.capture(oo, at.Add(-g.dur(time.Minute, 10*time.Minute)), "", []string{"system", "admin"}[g.rng.IntN(2)])
	g.fulfil(oo, at)
	g.afterShip(oo)
}

// afterShip gives money back on some delivered, paid orders: a returned
// line (the domain works out its share of what was paid), a goodwill
// refund, or everything for a parcel lost in transit.
func (g *ordGen) afterShip(oo *ordOrder) {
	o := &oo.o
	if !oo.allShipped || !oo.paid {
		return
	}
	switch r := g.rng.Float64(); {
	case r < 0.07: // a return
		at := oo.lastShip.Add(g.dur(4*24*time.Hour, 25*24*time.Hour))
		if at.After(g.now) {
			return
		}
		l := oo.lines[g.rng.IntN(len(oo.lines))]
		q := 1 + g.rng.Int64N(l.Quantity)
		g.refund(oo, at, models.RefundRequest{Lines: []models.LineQuantity{{LineID: l.ID, Quantity: q}},
			Restock: g.rng.Float64() < 0.85, Reason: ordReturnReasons[g.rng.IntN(len(ordReturnReasons))]})
	case r < 0.085: // goodwill
		at := oo.lastShip.Add(g.dur(2*24*time.Hour, 10*24*time.Hour))
		amount := o.ShippingCents
		if amount == 0 {
			amount = o.SubtotalCents / 10
		}
		if at.After(g.now) || amount <= 0 || amount >= o.TotalCents {
			return
		}
		g.refund(oo, at, models.RefundRequest{AmountCents: &amount, Reason: "Goodwill: shipping delay"})
	case r < 0.095: // lost in transit
		at := oo.lastShip.Add(g.dur(10*24*time.Hour, 20*24*time.Hour))
		if at.After(g.now) {
			return
		}
		all := o.TotalCents // nothing refunded yet: all of it is refundable
		req := models.RefundRequest{AmountCents: &all, Reason: "Lost in transit"}
		for _, l := range oo.lines {
			req.Lines = append(req.Lines, models.LineQuantity{LineID: l.ID, Quantity: l.Quantity})
		}
		g.refund(oo, at, req)
	}
}
