package seed

import (
	"context"
	"testing"

	"github.com/uptrace/bun"

	"storeadmin/models"
)

func TestDraftOrders(t *testing.T) {
	ctx := context.Background()
	db, files, sid := newSeedStore(t)
	now := seedNow
	seedAll(t, db, files, sid)

	drafts, err := models.ListDraftOrders(ctx, db, sid, models.DraftOrderFilter{}, models.Paging{Limit: 250})
	if err != nil {
		t.Fatal(err)
	}
	byStatus := map[string]int{}
	for _, d := range drafts {
		byStatus[d.Status]++
		if d.Status == models.DraftCompleted {
			o, err := models.GetOrder(ctx, db, sid, *d.OrderID)
			if err != nil || o.DraftOrderID == nil || *o.DraftOrderID != d.ID || o.TotalCents != d.TotalCents {
				t.Fatalf("completed draft %s and its order: %+v, %v", d.Name, o, err)
			}
			continue
		}
		if d.TotalCents != d.SubtotalCents-d.DiscountCents+d.ShippingCents+d.TaxCents || d.SubtotalCents == 0 {
			t.Fatalf("draft %s totals do not add up: %+v", d.Name, d)
		}
	}
	t.Logf("drafts by status: %v", byStatus)
	if byStatus[models.DraftOpen] < 6 || byStatus[models.DraftInvoiceSent] < 1 || byStatus[models.DraftCompleted] < 1 {
		t.Fatalf("drafts by status %v", byStatus)
	}
	var withShipping, withDiscount int
	for _, d := range drafts {
		if d.Status != models.DraftCompleted && d.ShippingRateID != 0 {
			withShipping++
		}
		if d.Status != models.DraftCompleted && d.DiscountCents > 0 {
			withDiscount++
		}
	}
	if withShipping == 0 || withDiscount == 0 {
		t.Fatalf("open drafts with a shipping rate: %d, with a discount: %d", withShipping, withDiscount)
	}

	// Stored totals are what the pricing engine says now.
	err = db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		for _, d := range drafts {
			if d.Status == models.DraftCompleted {
				continue
			}
			lines, err := models.DraftLines(ctx, tx, sid, d.ID)
			if err != nil {
				return err
			}
			again := d
			if _, err := models.RepriceDraft(ctx, tx, &again, lines, now); err != nil {
				return err
			}
			if again.TotalCents != d.TotalCents || again.TaxCents != d.TaxCents || again.ShippingCents != d.ShippingCents {
				t.Errorf("draft %s: stored %d, repriced %d", d.Name, d.TotalCents, again.TotalCents)
			}
		}
		return errRollback
	})
	if err != errRollback {
		t.Fatal(err)
	}

	// A second seed adds no drafts.
	seedAll(t, db, files, sid)
	n, err := models.CountDraftOrders(ctx, db, sid, models.DraftOrderFilter{})
	if err != nil || n != int64(len(drafts)) {
		t.Fatalf("after a second seed: %d drafts, %v", n, err)
	}
}

type rollback struct{}

func (rollback) Error() string { return "rollback" }

var errRollback error = rollback{}
