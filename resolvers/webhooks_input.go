package resolvers

import (
	"context"
	"slices"
	"strings"

	"storeadmin/internal/base/apperr"
	"storeadmin/models"
)

// deliveryFilter checks that the subscription is the caller's (so another
// store's id is a 404, not an empty list) and the status filter.
func (r *Resolver) deliveryFilter(ctx context.Context, id int64, status *string) (int64, models.DeliveryFilter, error) {
	sid, err := storeID(ctx)
	if err != nil {
		return 0, models.DeliveryFilter{}, err
	}
	if status != nil {
		if _, err := oneOf("status", *status, models.DeliveryPending, models.DeliverySucceeded, models.DeliveryFailed); err != nil {
			return 0, models.DeliveryFilter{}, err
		}
	}
	if _, err := models.GetWebhook(ctx, r.db(ctx), sid, id); err != nil {
		return 0, models.DeliveryFilter{}, err
	}
	return sid, models.DeliveryFilter{Status: status}, nil
}

// checkTopics requires at least one known topic and drops duplicates.
func checkTopics(in []string) ([]string, error) {
	if len(in) == 0 {
		return nil, apperr.Invalidf("topics must name at least one of: %s", strings.Join(models.WebhookTopics, ", "))
	}
	out := make([]string, 0, len(in))
	for _, t := range in {
		t = strings.TrimSpace(t)
		if !slices.Contains(models.WebhookTopics, t) {
			return nil, apperr.Invalidf("unknown topic %q; topics are: %s", t, strings.Join(models.WebhookTopics, ", "))
		}
		if !slices.Contains(out, t) {
			out = append(out, t)
		}
	}
	return out, nil
}
