package resolvers

import (
	"context"
	"fmt"

	"storeadmin/graph"
	"storeadmin/internal/audit"
	"storeadmin/models"
)

// applyFunnelInput writes in's fields into f (the stored funnel on
// update: enabled, timeout_seconds and checkout_page_id left out keep
// their value, checkout_page_id sent as null clears it) and reads its
// steps. models.SaveUpsellFunnel checks the whole.
func applyFunnelInput(ctx context.Context, f *models.UpsellFunnel, in graph.UpsellFunnelInput) ([]models.FunnelStep, error) {
	f.Name = in.Name
	if in.Enabled != nil {
		f.Enabled = *in.Enabled
	}
	if in.TimeoutSeconds != nil {
		f.TimeoutSeconds = *in.TimeoutSeconds
	}
	switch {
	case in.CheckoutPageID != nil:
		f.CheckoutPageID = in.CheckoutPageID
	case sentNulls(ctx, "input")["checkout_page_id"]:
		f.CheckoutPageID = nil
	}
	steps := make([]models.FunnelStep, len(in.Offers))
	for i, s := range in.Offers {
		offer, err := models.ParseFunnelOffer(fmt.Sprintf("offers[%d].config", i), s.Config)
		if err != nil {
			return nil, err
		}
		steps[i] = models.FunnelStep{Position: s.Position, Name: s.Name, Type: s.Type, Offer: offer,
			AcceptNextPosition: s.AcceptNextPosition, DeclineNextPosition: s.DeclineNextPosition}
	}
	return steps, nil
}

// writeStepUpsellPage sets (page) or clears (nil) one step's own design
// and notes the funnel in the audit log.
func (r *mutationResolver) writeStepUpsellPage(ctx context.Context, funnelID, stepID int64, page map[string]any) (bool, error) {
	sid, err := storeID(ctx)
	if err != nil {
		return false, err
	}
	if err := models.SetFunnelStepUpsellPage(ctx, r.db(ctx), sid, funnelID, stepID, page); err != nil {
		return false, err
	}
	audit.Touch(ctx, "upsell_funnel", funnelID)
	return true, nil
}
