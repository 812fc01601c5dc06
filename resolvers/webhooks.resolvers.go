package resolvers

import (
	"context"
	"slices"
	"strings"

	"storeadmin/graph"
	"storeadmin/internal/apperr"
	"storeadmin/internal/audit"
	"storeadmin/internal/webhooks"
	"storeadmin/models"
)

func (r *mutationResolver) CreateWebhook(ctx context.Context, input graph.WebhookInput) (*models.WebhookSubscription, error) {
	sid, err := storeID(ctx)
	if err != nil {
		return nil, err
	}
	url, err := webhooks.CheckURL(input.URL, r.AllowPrivateWebhooks)
	if err != nil {
		return nil, err
	}
	topics, err := checkTopics(input.Topics)
	if err != nil {
		return nil, err
	}
	w := &models.WebhookSubscription{StoreID: sid, URL: url, Topics: topics, Active: true, SigningSecret: webhooks.NewSecret()}
	if input.Active != nil {
		w.Active = *input.Active
	}
	if err := models.CreateWebhook(ctx, r.DB, w); err != nil {
		return nil, err
	}
	audit.Touch(ctx, "webhook_subscription", w.ID)
	return w, nil
}

func (r *mutationResolver) UpdateWebhook(ctx context.Context, id int64, input graph.WebhookUpdateInput) (*models.WebhookSubscription, error) {
	sid, err := storeID(ctx)
	if err != nil {
		return nil, err
	}
	w, err := models.GetWebhook(ctx, r.DB, sid, id)
	if err != nil {
		return nil, err
	}
	if input.URL != nil {
		if w.URL, err = webhooks.CheckURL(*input.URL, r.AllowPrivateWebhooks); err != nil {
			return nil, err
		}
	}
	if input.Topics != nil {
		if w.Topics, err = checkTopics(input.Topics); err != nil {
			return nil, err
		}
	}
	if input.Active != nil {
		w.Active = *input.Active
	}
	if err := models.UpdateWebhook(ctx, r.DB, w); err != nil {
		return nil, err
	}
	audit.Touch(ctx, "webhook_subscription", w.ID)
	return w, nil
}

func (r *mutationResolver) DeleteWebhook(ctx context.Context, id int64) (bool, error) {
	sid, err := storeID(ctx)
	if err != nil {
		return false, err
	}
	if err := models.DeleteWebhook(ctx, r.DB, sid, id); err != nil {
		return false, err
	}
	audit.Touch(ctx, "webhook_subscription", id)
	return true, nil
}

func (r *queryResolver) Webhooks(ctx context.Context, limit *int64, offset *int64) ([]models.WebhookSubscription, error) {
	sid, err := storeID(ctx)
	if err != nil {
		return nil, err
	}
	p, err := models.NewPage(limit, offset)
	if err != nil {
		return nil, err
	}
	return models.ListWebhooks(ctx, r.DB, sid, p)
}

func (r *queryResolver) WebhooksCount(ctx context.Context) (int64, error) {
	sid, err := storeID(ctx)
	if err != nil {
		return 0, err
	}
	return models.CountWebhooks(ctx, r.DB, sid)
}

func (r *queryResolver) Webhook(ctx context.Context, id int64) (*models.WebhookSubscription, error) {
	sid, err := storeID(ctx)
	if err != nil {
		return nil, err
	}
	return models.GetWebhook(ctx, r.DB, sid, id)
}

func (r *queryResolver) WebhookTopics(ctx context.Context) ([]string, error) {
	return models.WebhookTopics, nil
}

func (r *queryResolver) WebhookDeliveries(ctx context.Context, id int64, status *string, limit *int64, offset *int64) ([]models.WebhookDelivery, error) {
	sid, f, err := r.deliveryFilter(ctx, id, status)
	if err != nil {
		return nil, err
	}
	p, err := models.NewPage(limit, offset)
	if err != nil {
		return nil, err
	}
	return models.ListDeliveries(ctx, r.DB, sid, id, f, p)
}

func (r *queryResolver) WebhookDeliveriesCount(ctx context.Context, id int64, status *string) (int64, error) {
	sid, f, err := r.deliveryFilter(ctx, id, status)
	if err != nil {
		return 0, err
	}
	return models.CountDeliveries(ctx, r.DB, sid, id, f)
}

func (r *webhookSubscriptionResolver) RecentDeliveries(ctx context.Context, obj *models.WebhookSubscription) ([]models.WebhookDelivery, error) {
	l, err := graph.LoadersFrom(ctx)
	if err != nil {
		return nil, err
	}
	return l.RecentDeliveriesBySubs.Load(ctx, obj.ID)()
}

func (r *Resolver) WebhookSubscription() graph.WebhookSubscriptionResolver {
	return &webhookSubscriptionResolver{r}
}

type webhookSubscriptionResolver struct{ *Resolver }

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
	if _, err := models.GetWebhook(ctx, r.DB, sid, id); err != nil {
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
