package seed

import (
	"context"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/uptrace/bun"

	"storeadmin/models"
)

// draftOrders gives the store the drafts a merchant has around: the
// completed drafts behind its draft_order orders (with those orders' lines
// and totals, as they were paid), and a dozen open ones, some invoiced,
// priced by the pricing engine against the seeded discounts, shipping
// rates and tax.
func draftOrders(ctx context.Context, tx bun.Tx, storeID int64, now time.Time) error {
	n, err := models.CountDraftOrders(ctx, tx, storeID, models.DraftOrderFilter{})
	if err != nil || n > 0 {
		return err
	}
	store, err := models.GetStore(ctx, tx, storeID)
	if err != nil {
		return err
	}
	rng := rand.New(rand.NewPCG(17, 5))
	if err := completedDrafts(ctx, tx, store, now); err != nil {
		return err
	}
	return openDrafts(ctx, tx, store, rng, now)
}

// completedDrafts makes, for every order placed from a draft, the draft it
// came from.
func completedDrafts(ctx context.Context, tx bun.Tx, store *models.Store, now time.Time) error {
	source := "draft_order"
	orders, err := models.ListOrders(ctx, tx, store.ID, models.OrderFilter{Sort: ptr("created_at")}, models.Paging{Limit: 100_000})
	if err != nil {
		return err
	}
	for i := range orders {
		o := &orders[i]
		if o.Source != source {
			continue
		}
		n, name, err := models.NextDraftNumber(ctx, tx, store.ID)
		if err != nil {
			return err
		}
		created := o.CreatedAt.Add(-time.Duration(20+o.ID%180) * time.Minute)
		d := &models.DraftOrder{
			StoreID: store.ID, Number: n, Name: name, Status: models.DraftCompleted, Email: o.Email, Currency: o.Currency,
			Note: o.Note, Tags: o.Tags, BillingAddress: o.BillingAddress, ShippingAddress: o.ShippingAddress,
			SubtotalCents: o.SubtotalCents, DiscountCents: o.DiscountCents, ShippingCents: o.ShippingCents,
			TaxCents: o.TaxCents, TotalCents: o.TotalCents, DiscountCode: o.DiscountCode, OrderID: &o.ID,
			CompletedAt: &o.CreatedAt, CreatedAt: created, UpdatedAt: o.CreatedAt,
		}
		if title, ok := shippingTitle(o.ShippingLine); ok {
			d.ShippingTitle = title
		}
		if err := models.InsertDraftOrder(ctx, tx, d); err != nil {
			return err
		}
		items, err := models.OrderLines(ctx, tx, store.ID, o.ID)
		if err != nil {
			return err
		}
		lines := make([]models.DraftOrderLine, len(items))
		for j, it := range items {
			d.RequiresShipping = d.RequiresShipping || it.RequiresShipping
			lines[j] = models.DraftOrderLine{
				Custom: it.VariantID == nil, VariantID: it.VariantID, ProductID: it.ProductID, Title: it.Title,
				VariantTitle: it.VariantTitle, SKU: it.SKU, PriceCents: it.PriceCents, Quantity: it.Quantity,
				LineTotalCents: it.PriceCents * it.Quantity, RequiresShipping: it.RequiresShipping, Taxable: true,
			}
		}
		if err := models.InsertDraftLines(ctx, tx, d, lines); err != nil {
			return err
		}
		if err := models.SaveDraftOrder(ctx, tx, d); err != nil {
			return err
		}
		if _, err := tx.NewUpdate().Table("orders").Set("draft_order_id = ?", d.ID).Where("id = ?", o.ID).Exec(ctx); err != nil {
			return err
		}
	}
	return nil
}

func shippingTitle(line any) (string, bool) {
	obj, _ := line.(map[string]any)
	title, ok := obj["title"].(string)
	return title, ok
}

// openDrafts makes a dozen drafts in progress for recent customers, priced
// by the engine; a few were invoiced.
func openDrafts(ctx context.Context, tx bun.Tx, store *models.Store, rng *rand.Rand, now time.Time) error {
	recent, err := models.ListOrders(ctx, tx, store.ID, models.OrderFilter{}, models.Paging{Limit: 60})
	if err != nil || len(recent) == 0 {
		return err
	}
	var variantIDs []int64
	if err := tx.NewSelect().Table("product_variants").Column("id").Where("store_id = ?", store.ID).
		Order("id").Limit(400).Scan(ctx, &variantIDs); err != nil {
		return err
	}
	if len(variantIDs) == 0 {
		return nil
	}
	variants, err := models.CatalogueVariants(ctx, tx, store.ID, variantIDs)
	if err != nil {
		return err
	}
	codes := []string{"", "", "WELCOME10", "SUMMER25", "FREESHIP", ""}
	notes := []string{"", "Phone order: call before delivery", "Wholesale: invoice on 30 days", "Replacement for a damaged parcel", ""}
	for i := 0; i < 12; i++ {
		o := recent[rng.IntN(len(recent))]
		n, name, err := models.NextDraftNumber(ctx, tx, store.ID)
		if err != nil {
			return err
		}
		created := now.Add(-time.Duration(rng.IntN(10*24*60)) * time.Minute)
		d := &models.DraftOrder{
			StoreID: store.ID, Number: n, Name: name, Status: models.DraftOpen, Email: o.Email, Currency: store.Currency,
			Note: notes[i%len(notes)], Tags: []string{}, BillingAddress: o.BillingAddress, ShippingAddress: o.ShippingAddress,
			DiscountCode: codes[i%len(codes)], CreatedAt: created, UpdatedAt: created,
		}
		if i%4 == 3 {
			sent := created.Add(2 * time.Hour)
			if sent.Before(now) {
				d.Status, d.InvoiceSentAt = models.DraftInvoiceSent, &sent
			}
		}
		if err := models.InsertDraftOrder(ctx, tx, d); err != nil {
			return err
		}
		var lines []models.DraftOrderLine
		for k := 0; k < 1+rng.IntN(3); k++ {
			v, q, ok := inStock(variants, variantIDs, rng)
			if !ok {
				continue
			}
			lines = append(lines, models.DraftOrderLine{
				VariantID: &v.ID, ProductID: &v.ProductID, Title: v.ProductTitle, VariantTitle: v.Title, SKU: v.SKU,
				PriceCents: v.PriceCents, Quantity: q, WeightGrams: v.WeightGrams,
				RequiresShipping: v.RequiresShipping, Taxable: v.Taxable,
			})
		}
		if i%3 == 0 {
			lines = append(lines, models.DraftOrderLine{Custom: true, Title: "Gift wrapping", PriceCents: 450, Quantity: 1, Taxable: true})
		}
		if err := models.InsertDraftLines(ctx, tx, d, lines); err != nil {
			return err
		}
		rate, err := models.DefaultDraftRate(ctx, tx, d, lines)
		if err != nil {
			return err
		}
		if rate != nil {
			d.ShippingRateID, d.ShippingTitle = rate.ID, rate.Name
		}
		if _, err := models.RepriceDraft(ctx, tx, d, lines, now); err != nil {
			return fmt.Errorf("price draft %s: %w", d.Name, err)
		}
	}
	return nil
}

// inStock picks a variant and a quantity the store can sell, so that every
// seeded draft can be marked paid.
func inStock(variants map[int64]models.CatalogueVariant, ids []int64, rng *rand.Rand) (models.CatalogueVariant, int64, bool) {
	for range 20 {
		v := variants[ids[rng.IntN(len(ids))]]
		q := int64(1 + rng.IntN(3))
		if !v.TrackInventory || v.InventoryPolicy == "continue" || v.Inventory >= q*4 {
			return v, q, true
		}
	}
	return models.CatalogueVariant{}, 0, false
}
