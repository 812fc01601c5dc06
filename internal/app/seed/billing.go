package seed

import (
	"context"
	"fmt"
	"time"

	"github.com/uptrace/bun"

	"storeadmin/models"
)

// billingMonths is how many billed periods the demo store's history has
// before the current one.
const billingMonths = 6

// billing puts the store on the Growth plan since the first of the month
// six months ago, with two saved cards (the Visa the default) and an
// invoice for each period since: the plan's price (the first less its
// trial days) and the transaction fees of the period's paid orders, as
// AccruedFees computes them, collected from the card (one of them after a
// declined first attempt). The current period's fees accrue from the
// orders the orders area placed. A store with cards or invoices is left
// alone.
func billing(ctx context.Context, tx bun.Tx, storeID int64, now time.Time) error {
	if has, err := models.HasBillingHistory(ctx, tx, storeID); err != nil || has {
		return err
	}
	plan, err := models.GetBillingPlanByKey(ctx, tx, "growth")
	if err != nil {
		return err
	}
	now = now.UTC()
	start := time.Date(now.Year(), now.Month()-billingMonths, 1, 0, 0, 0, 0, time.UTC)
	sub, err := models.StartBillingSubscription(ctx, tx, storeID, plan.ID, start)
	if err != nil {
		return err
	}
	for _, c := range []models.BillingCard{
		{Brand: "mastercard", Last4: "4444", ExpMonth: 3, ExpYear: int64(now.Year()), ProviderRef: "pm_demo_mastercard", CreatedAt: start},
		{Brand: "visa", Last4: "4242", ExpMonth: 8, ExpYear: int64(now.Year() + 2), ProviderRef: "pm_demo_visa", CreatedAt: start.AddDate(0, 3, 1)},
	} {
		c.StoreID = storeID
		if err := models.SaveBillingCard(ctx, tx, &c); err != nil {
			return err
		}
	}
	var invoices []models.BillingInvoice
	for i := range billingMonths {
		from, to := models.BillingPeriod(sub.StartedAt, sub.BillingInterval, start.AddDate(0, i, 0))
		fees, err := models.AccruedFees(ctx, tx, sub, from, to)
		if err != nil {
			return err
		}
		inv := billingInvoice(storeID, i+1, plan, from, to, fees)
		if i == 0 && sub.TrialEndsAt != nil {
			trialDays := int64(sub.TrialEndsAt.Sub(from).Hours() / 24)
			periodDays := int64(to.Sub(from).Hours() / 24)
			credit := plan.PriceCents * trialDays / periodDays
			inv.Lines = append(inv.Lines, models.BillingInvoiceLine{Kind: "adjustment",
				Description: fmt.Sprintf("Free trial, %d days", trialDays), Quantity: 1, UnitAmountCents: -credit, AmountCents: -credit,
				PeriodStart: &from, PeriodEnd: sub.TrialEndsAt})
		}
		settleSeedInvoice(&inv, i, from, to)
		invoices = append(invoices, inv)
	}
	return models.InsertBillingInvoices(ctx, tx, storeID, invoices)
}

// billingInvoice is the invoice n of the store for the period [from, to):
// the plan's price and the period's fees.
func billingInvoice(storeID int64, n int, plan *models.BillingPlan, from, to time.Time, fees *models.BillingAccrued) models.BillingInvoice {
	span := from.Format("Jan 2") + " – " + to.Format("Jan 2, 2006")
	lines := []models.BillingInvoiceLine{{Kind: "subscription", Description: plan.Name + " plan, " + span, Quantity: 1,
		UnitAmountCents: plan.PriceCents, AmountCents: plan.PriceCents, PeriodStart: &from, PeriodEnd: &to}}
	if fees.Orders > 0 {
		lines = append(lines, models.BillingInvoiceLine{Kind: "transaction_fees",
			Description: fmt.Sprintf("Transaction fees on %d paid orders, %s", fees.Orders, span), Quantity: fees.Orders,
			UnitAmountCents: (fees.FeeCents + fees.Orders/2) / fees.Orders, AmountCents: fees.FeeCents, PeriodStart: &from, PeriodEnd: &to})
	}
	return models.BillingInvoice{Number: fmt.Sprintf("INV-%06d-%04d", storeID, n), Status: models.InvoiceOpen,
		Currency: plan.Currency, ExternalID: fmt.Sprintf("in_demo_%d_%d", storeID, n),
		PeriodStart: from, PeriodEnd: to, IssuedAt: to, Lines: lines}
}

// settleSeedInvoice totals the invoice and collects it when it was issued
// from the default card of the time: the Mastercard, until it declined the
// third invoice and the Visa saved the next day paid it.
func settleSeedInvoice(inv *models.BillingInvoice, i int, from, to time.Time) {
	for _, l := range inv.Lines {
		inv.SubtotalCents += l.AmountCents
	}
	inv.TotalCents = inv.SubtotalCents
	brand, last4 := "mastercard", "4444"
	if i >= 2 {
		brand, last4 = "visa", "4242"
	}
	at := to.Add(time.Hour)
	if i == 2 {
		inv.Charges = append(inv.Charges, models.BillingCharge{AmountCents: inv.TotalCents, Status: "failed",
			CardBrand: "mastercard", CardLast4: "4444", FailureMessage: "Your card was declined.",
			ExternalID: fmt.Sprintf("ch_demo_%s_declined", inv.Number), CreatedAt: at})
		at = at.Add(26 * time.Hour)
	}
	inv.Charges = append(inv.Charges, models.BillingCharge{AmountCents: inv.TotalCents, Status: "succeeded",
		CardBrand: brand, CardLast4: last4, ExternalID: fmt.Sprintf("ch_demo_%s", inv.Number), CreatedAt: at})
	inv.Status, inv.AmountPaidCents, inv.AttemptCount = models.InvoicePaid, inv.TotalCents, int64(len(inv.Charges))
	inv.PaidAt, inv.PaidVia = &at, brand+" •••• "+last4
}
