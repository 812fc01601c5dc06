package resolvers

import (
	"context"

	"storeadmin/graph"
	"storeadmin/internal/base/apperr"
	"storeadmin/models"
)

// applyCheckoutPageInput checks in and writes its fields into p, the stored
// page on update (a merge: what is left out stays; sections sent as null
// go back to the standard checkout). On create the name is required.
func applyCheckoutPageInput(ctx context.Context, p *models.CheckoutPage, in graph.CheckoutPageInput, create bool) error {
	var err error
	if in.Name != nil || create {
		if p.Name, err = text("name", deref(in.Name), 255, true); err != nil {
			return err
		}
	}
	if in.Sections != nil || sentNulls(ctx, "input")["sections"] {
		p.Sections, err = models.CheckCheckoutSections("sections", in.Sections)
	}
	return err
}

// checkoutPageSections checks the sections of PUT …/sections, which must
// be sent (null: the standard checkout).
func checkoutPageSections(ctx context.Context, in graph.CheckoutPageSectionsInput) (any, error) {
	if in.Sections == nil && !sentNulls(ctx, "input")["sections"] {
		return nil, apperr.Invalidf("sections is required: the page's sections, or null for the platform's standard checkout")
	}
	return models.CheckCheckoutSections("sections", in.Sections)
}
