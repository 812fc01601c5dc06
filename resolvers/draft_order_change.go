package resolvers

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"time"

	"github.com/uptrace/bun"

	"storeadmin/graph"
	"storeadmin/internal/base/apperr"
	"storeadmin/models"
)

// Every change to a draft runs in changeDraft: one transaction, the draft
// row locked, then the pricing engine recomputes every total from what is
// stored, so the money fields are never edited by hand and never stale.

const (
	maxDraftLines   = 250
	maxLineQuantity = 100_000
)

// draftChange changes a locked draft and its lines (which it may replace).
type draftChange func(ctx context.Context, tx bun.Tx, d *models.DraftOrder, lines *[]models.DraftOrderLine, now time.Time) error

// changeDraft applies change to the open draft id of the caller's store and
// reprices it.
func (r *Resolver) changeDraft(ctx context.Context, id int64, change draftChange) (*models.DraftOrder, error) {
	sid, err := storeID(ctx)
	if err != nil {
		return nil, err
	}
	var out *models.DraftOrder
	err = r.db(ctx).RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		d, err := models.LockDraftOrder(ctx, tx, sid, id)
		if err != nil {
			return err
		}
		if d.Status == models.DraftCompleted {
			return apperr.Conflictf("draft order %s is completed: it is an order now", d.Name)
		}
		lines, err := models.DraftLines(ctx, tx, sid, d.ID)
		if err != nil {
			return err
		}
		now := r.Now().UTC()
		if err := change(ctx, tx, d, &lines, now); err != nil {
			return err
		}
		if _, err := models.RepriceDraft(ctx, tx, d, lines, now); err != nil {
			return err
		}
		out = d
		return nil
	})
	return out, err
}

// newDraft creates a draft from the input and prices it.
func (r *Resolver) newDraft(ctx context.Context, in graph.DraftOrderInput) (*models.DraftOrder, error) {
	sid, err := storeID(ctx)
	if err != nil {
		return nil, err
	}
	var out *models.DraftOrder
	err = r.db(ctx).RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		store, err := models.GetStore(ctx, tx, sid)
		if err != nil {
			return err
		}
		d := &models.DraftOrder{StoreID: sid, Status: models.DraftOpen, Currency: store.Currency, Tags: []string{}}
		contact := graph.DraftContactInput{Email: in.Email, ShippingAddress: in.ShippingAddress, BillingAddress: in.BillingAddress, Note: in.Note, Tags: in.Tags}
		if err := applyContact(d, contact); err != nil {
			return err
		}
		if len(in.Lines) > maxDraftLines {
			return apperr.Invalidf("lines may list at most %d lines", maxDraftLines)
		}
		lines, err := draftLines(ctx, tx, sid, in.Lines, "lines", r.Platform)
		if err != nil {
			return err
		}
		now := r.Now().UTC()
		if in.DiscountCode != nil {
			if err := setCode(ctx, tx, d, *in.DiscountCode, now); err != nil {
				return err
			}
		}
		if d.Number, d.Name, err = models.NextDraftNumber(ctx, tx, sid); err != nil {
			return err
		}
		d.CreatedAt, d.UpdatedAt = now, now
		if err := models.InsertDraftOrder(ctx, tx, d); err != nil {
			return err
		}
		if err := models.InsertDraftLines(ctx, tx, d, lines); err != nil {
			return err
		}
		switch {
		case in.ShippingRateID != nil:
			if err := r.chooseRate(ctx, tx, d, lines, *in.ShippingRateID); err != nil {
				return err
			}
		default:
			if err := r.defaultRate(ctx, tx, d, lines); err != nil {
				return err
			}
		}
		if _, err := models.RepriceDraft(ctx, tx, d, lines, now); err != nil {
			return err
		}
		out = d
		return nil
	})
	return out, err
}

// applyContact checks and sets the contact fields the input sends.
func applyContact(d *models.DraftOrder, in graph.DraftContactInput) error {
	var err error
	if in.Email != nil {
		if d.Email, err = email("email", *in.Email, false); err != nil {
			return err
		}
	}
	if in.Note != nil {
		if d.Note, err = text("note", *in.Note, maxNote, false); err != nil {
			return err
		}
	}
	if in.Tags != nil {
		if d.Tags, err = parseTags(in.Tags); err != nil {
			return err
		}
	}
	if in.ShippingAddress != nil {
		if d.ShippingAddress, err = models.CheckAddress("shipping_address", in.ShippingAddress); err != nil {
			return err
		}
	}
	if in.BillingAddress != nil {
		if d.BillingAddress, err = models.CheckAddress("billing_address", in.BillingAddress); err != nil {
			return err
		}
	}
	return nil
}

// draftLines checks line inputs and fills variant lines from the catalogue.
func draftLines(ctx context.Context, db bun.IDB, storeID int64, in []graph.DraftLineInput, field string, p models.Platform) ([]models.DraftOrderLine, error) {
	var ids []int64
	for _, l := range in {
		if l.VariantID != nil {
			ids = append(ids, *l.VariantID)
		}
	}
	variants := map[int64]models.CatalogueVariant{}
	if len(ids) > 0 {
		var err error
		if variants, err = models.CatalogueVariants(ctx, db, storeID, ids); err != nil {
			return nil, err
		}
	}
	out := make([]models.DraftOrderLine, 0, len(in))
	for i, l := range in {
		line, err := draftLine(l, variants)
		if err != nil {
			return nil, apperr.Invalidf("%s[%d]: %s", field, i, err.Error())
		}
		out = append(out, line)
	}
	return out, customizeDraftLines(ctx, db, storeID, in, variants, out, field, p)
}

// draftLine builds one line: from its variant (whose values the input may
// override) or, without one, a custom line.
func draftLine(in graph.DraftLineInput, variants map[int64]models.CatalogueVariant) (models.DraftOrderLine, error) {
	l := models.DraftOrderLine{Quantity: in.Quantity, RequiresShipping: true, Taxable: true}
	if in.Quantity < 1 || in.Quantity > maxLineQuantity {
		return l, errors.New("quantity must be between 1 and 100000")
	}
	if in.VariantID != nil {
		v, ok := variants[*in.VariantID]
		if !ok {
			return l, errors.New("variant_id " + strconv.FormatInt(*in.VariantID, 10) + " is not a variant of this store")
		}
		l.VariantID, l.ProductID = &v.ID, &v.ProductID
		l.Title, l.VariantTitle, l.SKU, l.PriceCents = v.ProductTitle, v.LineTitle(), v.SKU, v.PriceCents
		l.WeightGrams, l.Taxable, l.RequiresShipping = v.WeightGrams, v.Taxable, v.RequiresShipping
	} else {
		l.Custom = true
		if in.Title == nil || in.PriceCents == nil {
			return l, errors.New("a custom line (no variant_id) needs title and price_cents")
		}
	}
	var err error
	if in.Title != nil {
		if l.Title, err = text("title", *in.Title, maxTitle, true); err != nil {
			return l, err
		}
	}
	if in.Sku != nil {
		if l.SKU, err = text("sku", *in.Sku, maxTitle, false); err != nil {
			return l, err
		}
	}
	if in.PriceCents != nil {
		if *in.PriceCents < 0 {
			return l, errors.New("price_cents must not be negative")
		}
		l.PriceCents = *in.PriceCents
	}
	if in.WeightGrams != nil {
		if *in.WeightGrams < 0 {
			return l, errors.New("weight_grams must not be negative")
		}
		l.WeightGrams = *in.WeightGrams
	}
	if in.RequiresShipping != nil {
		l.RequiresShipping = *in.RequiresShipping
	}
	if in.Taxable != nil {
		l.Taxable = *in.Taxable
	}
	l.LineTotalCents = l.PriceCents * l.Quantity
	return l, nil
}

// setCode applies a discount code to the draft, or removes it (empty).
func setCode(ctx context.Context, db bun.IDB, d *models.DraftOrder, code string, now time.Time) error {
	code = strings.TrimSpace(code)
	if code == "" {
		d.DiscountCode, d.DiscountID = "", nil
		return nil
	}
	disc, err := models.UsableCode(ctx, db, d.StoreID, code, now)
	if err != nil {
		return err
	}
	d.DiscountCode, d.DiscountID = disc.Code, &disc.ID
	return nil
}

// chooseRate sets the draft's shipping rate: one that matches it, or 0 for
// none.
func (r *Resolver) chooseRate(ctx context.Context, db bun.IDB, d *models.DraftOrder, lines []models.DraftOrderLine, rateID int64) error {
	if rateID == 0 {
		d.ShippingRateID, d.ShippingTitle = 0, ""
		return nil
	}
	rates, err := models.DraftRates(ctx, db, d, lines)
	if err != nil {
		return err
	}
	for _, rate := range rates {
		if rate.ID == rateID {
			d.ShippingRateID, d.ShippingTitle = rate.ID, rate.Name
			return nil
		}
	}
	return apperr.Invalidf("shipping rate %d does not match this draft (its address, weight and subtotal); GET its shipping-rates for those that do", rateID)
}

// defaultRate gives the draft its default shipping rate, if one matches.
func (r *Resolver) defaultRate(ctx context.Context, db bun.IDB, d *models.DraftOrder, lines []models.DraftOrderLine) error {
	rate, err := models.DefaultDraftRate(ctx, db, d, lines)
	if err != nil || rate == nil {
		return err
	}
	d.ShippingRateID, d.ShippingTitle = rate.ID, rate.Name
	return nil
}
