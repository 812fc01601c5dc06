package resolvers

import (
	"context"

	"github.com/uptrace/bun"

	"storeadmin/graph"
	"storeadmin/internal/audit"
	"storeadmin/internal/base/apperr"
	"storeadmin/models"
)

// The bounds of a template's and a tier's numbers (README "Product
// customizer / Templates and quantity tiers"); the table's checks hold the
// same, so a value past them is a 400 here and never a 500 there.
const (
	czMaxTemplateName   = 255
	czMinPPI            = 72
	czMaxPPI            = 1200
	czDefaultPPI        = 300
	czMaxIncluded       = 1000
	czMaxPriceCents     = 100_000_000
	czMaxTierMinQty     = 1_000_000
	czDefaultExportType = "png"
)

// czBetween checks that the number sent at field is within lo and hi.
func czBetween(field string, v, lo, hi int64) (int64, error) {
	if v < lo || v > hi {
		return 0, apperr.InvalidField(field, "must be between %d and %d, not %d", lo, hi, v)
	}
	return v, nil
}

// czSetNumber checks the number sent at field into *dst; left out, *dst is
// kept, or when required the field is reported missing.
func czSetNumber(dst *int64, field string, v *int64, lo, hi int64, required bool) error {
	if v == nil {
		if required {
			return apperr.InvalidField(field, "is required")
		}
		return nil
	}
	n, err := czBetween(field, *v, lo, hi)
	if err == nil {
		*dst = n
	}
	return err
}

// czSetRef writes the id sent at field into *dst; left out, *dst is kept,
// or when required the field is reported missing. Whether it names a record
// of the store is the database's to say.
func czSetRef(dst *int64, field string, v *int64, required bool) error {
	if v == nil && required {
		return apperr.InvalidField(field, "is required")
	}
	if v != nil {
		*dst = *v
	}
	return nil
}

// newCzTemplate is a template of the store with the defaults of a create:
// png at 300 ppi, nothing included, nothing charged per extra.
func newCzTemplate(storeID int64) *models.CzTemplate {
	return &models.CzTemplate{StoreID: storeID, ExportFormat: czDefaultExportType, PPI: czDefaultPPI}
}

// applyCzTemplateInput checks in and writes its fields into t, the stored
// template on update (a merge: what is left out stays). On create the
// name, the design and the product base are required. Whether the design
// and the base are the store's is the database's to say
// (models.CheckCzTemplateRefs).
func applyCzTemplateInput(t *models.CzTemplate, in graph.CzTemplateInput, create bool) error {
	if in.Name != nil || create {
		name, err := text("name", deref(in.Name), czMaxTemplateName, true)
		if err != nil {
			return apperr.InvalidField("name", "must be 1 to %d characters", czMaxTemplateName)
		}
		t.Name = name
	}
	if in.ExportFormat != nil {
		if *in.ExportFormat != "png" && *in.ExportFormat != "jpeg" {
			return apperr.InvalidField("export_format", "must be png or jpeg, not %q", *in.ExportFormat)
		}
		t.ExportFormat = *in.ExportFormat
	}
	return firstErr(
		czSetRef(&t.DesignID, "design_id", in.DesignID, create),
		czSetRef(&t.ProductBaseID, "product_base_id", in.ProductBaseID, create),
		czSetNumber(&t.PPI, "ppi", in.Ppi, czMinPPI, czMaxPPI, false),
		czSetNumber(&t.IncludedColors, "included_colors", in.IncludedColors, 0, czMaxIncluded, false),
		czSetNumber(&t.IncludedElements, "included_elements", in.IncludedElements, 0, czMaxIncluded, false),
		czSetNumber(&t.PricePerExtraColorCents, "price_per_extra_color_cents", in.PricePerExtraColorCents, 0, czMaxPriceCents, false),
		czSetNumber(&t.PricePerExtraElementCents, "price_per_extra_element_cents", in.PricePerExtraElementCents, 0, czMaxPriceCents, false),
	)
}

// applyCzQuantityTierInput checks in and writes its fields into q, the
// stored tier on update; on create both fields are required.
func applyCzQuantityTierInput(q *models.CzQuantityTier, in graph.CzQuantityTierInput, create bool) error {
	return firstErr(
		czSetNumber(&q.MinQty, "min_qty", in.MinQty, 1, czMaxTierMinQty, create),
		czSetNumber(&q.PriceCents, "price_cents", in.PriceCents, 0, czMaxPriceCents, create),
	)
}

// writeCzQuantityTier runs a tier's write in one transaction and answers
// the tier as it is afterwards (its position renumbered); write returns
// the tier's id.
func (r *Resolver) writeCzQuantityTier(ctx context.Context, sid int64, write func(tx bun.Tx) (int64, error)) (*models.CzQuantityTier, error) {
	var q *models.CzQuantityTier
	err := r.db(ctx).RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		id, err := write(tx)
		if err != nil {
			return err
		}
		q, err = models.GetCzQuantityTier(ctx, tx, sid, id, false)
		return err
	})
	if err != nil {
		return nil, err
	}
	audit.Touch(ctx, "cz_quantity_tier", q.ID)
	return q, nil
}
