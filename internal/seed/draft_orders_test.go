package seed

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/uptrace/bun"

	"storeadmin/internal/media"
	"storeadmin/internal/testdb"
	"storeadmin/models"
)

func TestDraftOrders(t *testing.T) {
	ctx := context.Background()
	db, _ := testdb.New(t)
	files, err := media.Open(ctx, media.Config{
		BucketURL: "mem://", PublicURL: "http://127.0.0.1:8080", SigningKey: []byte(strings.Repeat("k", 32)),
	}, time.Now)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { files.Close() })
	store := &models.Store{Handle: "demo-outfitters", Name: "Demo Outfitters"}
	if err := models.CreateStore(ctx, db, store); err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)
	if err := Store(ctx, db, files, store.ID, now); err != nil {
		t.Fatal(err)
	}

	drafts, err := models.ListDraftOrders(ctx, db, store.ID, models.DraftOrderFilter{}, models.Page{Limit: 250})
	if err != nil {
		t.Fatal(err)
	}
	byStatus := map[string]int{}
	for _, d := range drafts {
		byStatus[d.Status]++
		if d.Status == models.DraftCompleted {
			o, err := models.GetOrder(ctx, db, store.ID, *d.OrderID)
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
			lines, err := models.DraftLines(ctx, tx, store.ID, d.ID)
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
	if err := Store(ctx, db, files, store.ID, now); err != nil {
		t.Fatal(err)
	}
	n, err := models.CountDraftOrders(ctx, db, store.ID, models.DraftOrderFilter{})
	if err != nil || n != int64(len(drafts)) {
		t.Fatalf("after a second seed: %d drafts, %v", n, err)
	}
}

type rollback struct{}

func (rollback) Error() string { return "rollback" }

var errRollback error = rollback{}
