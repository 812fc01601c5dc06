package seed

import (
	"context"
	"testing"
	"time"

	"storeadmin/models"
)

func TestBilling(t *testing.T) {
	ctx := context.Background()
	db, files, sid := newSeedStore(t)
	seedAll(t, db, files, sid)
	count := storeCounter(t, db, sid)
	tables := []string{"billing_subscriptions", "billing_cards", "billing_invoices", "billing_invoice_lines", "billing_charges"}
	first := tableCounts(count, tables...)
	if first["billing_subscriptions"] != 1 || first["billing_cards"] != 2 || first["billing_invoices"] != billingMonths ||
		first["billing_charges"] != billingMonths+1 {
		t.Fatalf("counts %v", first)
	}

	// On Growth since the first of the month six months back; the current
	// period is the seed's month.
	sub, err := models.GetBillingSubscription(ctx, db, sid, seedNow)
	if err != nil {
		t.Fatal(err)
	}
	growth, err := models.GetBillingPlanByKey(ctx, db, "growth")
	if err != nil {
		t.Fatal(err)
	}
	if sub.PlanID != growth.ID || sub.PriceCents != growth.PriceCents || sub.Status != models.SubscriptionActive || sub.CancelAtPeriodEnd ||
		!sub.CurrentPeriodStart.Equal(time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)) || !sub.CurrentPeriodEnd.Equal(time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)) {
		t.Fatalf("subscription %+v", sub)
	}
	cards, err := models.ListBillingCards(ctx, db, sid)
	if err != nil {
		t.Fatal(err)
	}
	if len(cards) != 2 || !cards[0].IsDefault || cards[0].Brand != "visa" || cards[0].Last4 != "4242" || cards[1].IsDefault {
		t.Fatalf("cards %+v", cards)
	}

	// Six paid invoices, newest first, one a month; each totals its lines
	// and was paid by its last charge. The months of the order history
	// bill its fees, as AccruedFees counts them.
	invoices, err := models.ListBillingInvoices(ctx, db, sid, models.Paging{Limit: 50})
	if err != nil {
		t.Fatal(err)
	}
	withFees := 0
	for i, inv := range invoices {
		wantStart := time.Date(2026, time.Month(10-i), 1, 0, 0, 0, 0, time.UTC)
		if inv.Status != models.InvoicePaid || !inv.PeriodStart.Equal(wantStart) || inv.PaidAt == nil || inv.AmountPaidCents != inv.TotalCents ||
			inv.StoreHandle == nil || *inv.StoreHandle != "demo-outfitters" {
			t.Fatalf("invoice %d: %+v", i, inv)
		}
		lines, err := models.BillingInvoiceLines(ctx, db, sid, inv.ID)
		if err != nil {
			t.Fatal(err)
		}
		var sum int64
		for _, l := range lines {
			sum += l.AmountCents
			if l.Kind == "transaction_fees" {
				withFees++
				fees, err := models.AccruedFees(ctx, db, sub, inv.PeriodStart, inv.PeriodEnd)
				if err != nil {
					t.Fatal(err)
				}
				if l.AmountCents != fees.FeeCents || l.Quantity != fees.Orders || fees.Orders == 0 {
					t.Fatalf("invoice %s fees %+v, accrued %+v", inv.Number, l, fees)
				}
			}
		}
		if sum != inv.TotalCents || sum <= 0 {
			t.Fatalf("invoice %s: lines sum to %d, total %d", inv.Number, sum, inv.TotalCents)
		}
		charges, err := models.BillingInvoiceCharges(ctx, db, sid, inv.ID)
		if err != nil {
			t.Fatal(err)
		}
		if last := charges[len(charges)-1]; last.Status != "succeeded" || int64(len(charges)) != inv.AttemptCount {
			t.Fatalf("invoice %s charges %+v", inv.Number, charges)
		}
	}
	// The history covers the last 90 days: the last two full months, and
	// the one before in part.
	if withFees < 2 {
		t.Fatalf("%d invoices bill transaction fees", withFees)
	}
	accrued, err := models.AccruedFees(ctx, db, sub, sub.CurrentPeriodStart, sub.CurrentPeriodEnd)
	if err != nil || accrued.Orders == 0 || accrued.FeeCents <= accrued.Orders*sub.TransactionFeeFixedCents {
		t.Fatalf("accrued %+v, %v", accrued, err)
	}

	// Seeding again adds nothing.
	seedAll(t, db, files, sid)
	expectSameCounts(t, first, tableCounts(count, tables...))
}
