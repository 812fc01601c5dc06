package resolvers

import (
	"context"
	"encoding/json"
	"slices"

	"github.com/uptrace/bun"

	"storeadmin/graph"
	"storeadmin/models"
)

// The abandoned carts and checkouts: their lists' pages and stats, and the
// details made from what the storefront recorded of one.

func (r *queryResolver) abandonedCartsPage(ctx context.Context, filter *models.AbandonedFilter, limit, offset *int64, cursor *string) (models.Page[models.AbandonedCart], error) {
	return filteredCursorPage(ctx, "abandoned-carts", filter, limit, offset, cursor, func(sid int64, f models.AbandonedFilter, p models.Paging) (models.Page[models.AbandonedCart], error) {
		return models.PageAbandonedCarts(ctx, r.db(ctx), sid, f, p)
	})
}

func (r *queryResolver) abandonedCheckoutsPage(ctx context.Context, filter *models.AbandonedFilter, limit, offset *int64, cursor *string) (models.Page[models.AbandonedCheckout], error) {
	return filteredCursorPage(ctx, "abandoned-checkouts", filter, limit, offset, cursor, func(sid int64, f models.AbandonedFilter, p models.Paging) (models.Page[models.AbandonedCheckout], error) {
		return models.PageAbandonedCheckouts(ctx, r.db(ctx), sid, f, p)
	})
}

// abandonedCartStats are the stats of the abandoned carts under filter: one
// statement per operation for the list's total and its stats, which count
// the same rows (graph.SharedRead).
func (r *queryResolver) abandonedCartStats(ctx context.Context, filter *models.AbandonedFilter) (models.AbandonmentStats, error) {
	return inStoreFiltered(ctx, filter, func(sid int64, f models.AbandonedFilter) (models.AbandonmentStats, error) {
		return sharedStats(ctx, "abandoned-cart-stats", f, func() (models.AbandonmentStats, error) {
			return models.AbandonedCartStats(ctx, r.db(ctx), sid, f)
		})
	})
}

// abandonedCheckoutStats: abandonedCartStats for checkouts.
func (r *queryResolver) abandonedCheckoutStats(ctx context.Context, filter *models.AbandonedFilter) (models.AbandonmentStats, error) {
	return inStoreFiltered(ctx, filter, func(sid int64, f models.AbandonedFilter) (models.AbandonmentStats, error) {
		return sharedStats(ctx, "abandoned-checkout-stats", f, func() (models.AbandonmentStats, error) {
			return models.AbandonedCheckoutStats(ctx, r.db(ctx), sid, f)
		})
	})
}

// sharedStats reads stats once per operation for the list and filter.
func sharedStats(ctx context.Context, list string, f models.AbandonedFilter, read func() (models.AbandonmentStats, error)) (models.AbandonmentStats, error) {
	key, err := json.Marshal(struct {
		List   string
		Filter models.AbandonedFilter
	}{list, f})
	if err != nil {
		return models.AbandonmentStats{}, err
	}
	return graph.SharedRead(ctx, string(key), read)
}

// abandonedCartDetail is the store's abandoned cart token in full: a
// statement each for the cart, its lines, and its session, visitor and
// browsing when they were recorded, whatever the cart holds.
func abandonedCartDetail(ctx context.Context, db bun.IDB, storeID int64, token string) (*graph.AbandonedCartDetail, error) {
	c, err := models.GetAbandonedCart(ctx, db, storeID, token)
	if err != nil {
		return nil, err
	}
	lines, err := models.CartLines(ctx, db, storeID, c.ID)
	if err != nil {
		return nil, err
	}
	d := &graph.AbandonedCartDetail{
		AbandonedAt: c.AbandonedAt, CheckoutToken: nonEmpty(c.CheckoutToken), CreatedAt: c.CreatedAt,
		Currency: c.Currency, Email: c.Email, FirstName: nonEmpty(c.FirstName), ItemCount: c.ItemCount,
		LastName: nonEmpty(c.LastName), Lines: make([]graph.AbandonedCartLine, len(lines)),
		MarketingConsent: c.MarketingConsent, Phone: nonEmpty(c.Phone), RecoveredAt: c.RecoveredAt,
		RecoveryEmails: c.RecoveryEmails, SubtotalCents: c.SubtotalCents, Token: c.Token, UpdatedAt: c.UpdatedAt,
	}
	for i, l := range lines {
		d.Lines[i] = graph.AbandonedCartLine{
			Handle: nonEmpty(l.Handle), ImageSrc: nonEmpty(l.ImageSrc), PriceCents: l.PriceCents,
			Quantity: l.Quantity, Title: l.Title, VariantTitle: nonEmpty(l.VariantTitle),
		}
	}
	if c.VisitorID != nil {
		v, err := models.GetVisitorTimes(ctx, db, storeID, *c.VisitorID)
		if err != nil {
			return nil, err
		}
		d.VisitorIdentifiedAt, d.VisitorLastSeenAt = v.IdentifiedAt, v.LastSeenAt
	}
	if d.Session, d.Activity, err = sessionBrowsing(ctx, db, storeID, c.SessionID); err != nil {
		return nil, err
	}
	return d, nil
}

// sessionBrowsing is the store's session id (nil: none recorded) and its
// first browsing events, as a detail shows them; nil when the session was
// not recorded or is gone.
func sessionBrowsing(ctx context.Context, db bun.IDB, storeID int64, id *int64) (*models.StoreeventsSession, []models.StoreeventsActivity, error) {
	if id == nil {
		return nil, nil, nil
	}
	sessions, err := models.SessionsByID(ctx, db, storeID, []int64{*id}, models.AllColumns)
	if err != nil || len(sessions) == 0 {
		return nil, nil, err
	}
	events, _, err := models.SessionEvents(ctx, db, storeID, *id, models.MaxSessionActivity)
	if err != nil {
		return nil, nil, err
	}
	return &sessions[0], events, nil
}

// abandonedCheckoutDetail is the store's abandoned checkout token as a
// Checkout: a statement each for the checkout, its lines, attempts and
// reminders, and its session and browsing when recorded, whatever it
// holds.
func abandonedCheckoutDetail(ctx context.Context, db bun.IDB, storeID int64, token string) (*graph.Checkout, error) {
	co, err := models.GetAbandonedCheckout(ctx, db, storeID, token)
	if err != nil {
		return nil, err
	}
	lines, err := models.CheckoutLines(ctx, db, storeID, co.ID)
	if err != nil {
		return nil, err
	}
	attempts, err := models.PaymentAttempts(ctx, db, storeID, co.ID)
	if err != nil {
		return nil, err
	}
	reminders, err := models.CheckoutRecoveryMessages(ctx, db, storeID, co.ID)
	if err != nil {
		return nil, err
	}
	c := &graph.Checkout{
		AbandonedAt: co.AbandonedAt, Attempts: make([]graph.CheckoutPaymentAttempt, len(attempts)),
		BillingAddress: jsonValue(co.BillingAddress), CreatedAt: co.CreatedAt, Currency: co.Currency,
		DiscountCents: co.DiscountCents, DiscountCode: nonEmpty(co.DiscountCode), Email: co.Email,
		ExpiresAt: co.ExpiresAt, Lines: make([]graph.CheckoutLine, len(lines)), MarketingConsent: co.MarketingConsent,
		Phone: co.Phone, RecoveredAt: co.RecoveredAt, RecoveryEmails: co.RecoveryEmails,
		ShippingAddress: jsonValue(co.ShippingAddress), ShippingCents: co.ShippingCents,
		ShippingLine: jsonValue(co.ShippingLine), State: co.State, SubtotalCents: co.SubtotalCents,
		SurchargeCents: co.SurchargeCents, TaxCents: co.TaxCents, TipCents: co.TipCents, Token: co.Token,
		TotalCents: co.TotalCents, UpdatedAt: co.UpdatedAt, Utm: jsonValue(co.UTM),
	}
	for i, l := range lines {
		c.Lines[i] = graph.CheckoutLine{
			ImageSrc: nonEmpty(l.ImageSrc), PriceCents: l.PriceCents, Properties: properties(l.Properties),
			Quantity: l.Quantity, Sku: nonEmpty(l.SKU), Title: l.Title, VariantTitle: nonEmpty(l.VariantTitle),
		}
	}
	for i, a := range attempts {
		c.Attempts[i] = graph.CheckoutPaymentAttempt{
			AmountCents: a.AmountCents, CaptureModel: a.CaptureModel, CreatedAt: a.CreatedAt, Currency: a.Currency,
			Error: a.ErrorMessage, PaymentMethod: a.PaymentMethod, Provider: a.Provider, Status: a.Status,
			TransactionID: deref(a.TransactionID),
		}
		if c.Attempts[i].Error == nil {
			c.Attempts[i].Error = a.ErrorCode
		}
	}
	if len(co.Tracking) > 0 && string(co.Tracking) != "null" {
		c.Tracking = new(graph.CheckoutTracking)
		if err := json.Unmarshal(co.Tracking, c.Tracking); err != nil {
			return nil, err
		}
	}
	if c.Session, c.Activity, err = sessionBrowsing(ctx, db, storeID, co.SessionID); err != nil {
		return nil, err
	}
	c.Timeline = abandonedTimeline(co, attempts, reminders, c.Activity)
	return c, nil
}

// jsonValue is a stored JSON value as the API answers it; nil for none.
func jsonValue(raw json.RawMessage) any {
	if len(raw) == 0 {
		return nil
	}
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return nil
	}
	return v
}

// properties are a line's properties as the API answers them; nil for
// none.
func properties(p map[string]any) any {
	if len(p) == 0 {
		return nil
	}
	return p
}

// attemptEntry names the timeline entry of a payment attempt by its
// status: paid (authorized when the merchant captures later),
// payment_failed, or payment_pending.
func attemptEntry(a models.PaymentAttempt) string {
	switch a.Status {
	case "success":
		if a.CaptureModel != nil && *a.CaptureModel == "manual" {
			return "authorized"
		}
		return "paid"
	case "failure", "error":
		return "payment_failed"
	default:
		return "payment_pending"
	}
}

// abandonedTimeline is what happened to an abandoned checkout, oldest
// first: its start, the checkout steps its session recorded, its payment
// attempts, its abandonment, its recovery reminders and its recovery; at
// most maxActivityEvents entries.
func abandonedTimeline(co *models.AbandonedCheckout, attempts []models.PaymentAttempt, reminders []models.RecoveryMessage, events []models.StoreeventsActivity) []graph.CheckoutTimelineEvent {
	out := []graph.CheckoutTimelineEvent{{Name: "created", OccurredAt: co.CreatedAt, Source: "checkout"}}
	for _, e := range events {
		if e.Name == "checkout_step" && e.CheckoutToken != nil && *e.CheckoutToken == co.Token {
			out = append(out, graph.CheckoutTimelineEvent{Name: "checkout_step", OccurredAt: e.OccurredAt, Source: "checkout",
				Detail: map[string]any{"step": deref(e.Step)}})
		}
	}
	for _, a := range attempts {
		out = append(out, graph.CheckoutTimelineEvent{
			Name: attemptEntry(a), OccurredAt: a.CreatedAt, Source: "checkout",
			AmountCents: &a.AmountCents, Currency: &a.Currency, ErrorCode: a.ErrorCode, ErrorMessage: a.ErrorMessage,
			PaymentMethod: a.PaymentMethod, Provider: &a.Provider, TransactionID: a.TransactionID,
		})
	}
	if co.AbandonedAt != nil {
		out = append(out, graph.CheckoutTimelineEvent{Name: "abandoned", OccurredAt: *co.AbandonedAt, Source: "system"})
	}
	for _, m := range reminders {
		at := m.CreatedAt
		if m.SentAt != nil {
			at = *m.SentAt
		}
		detail := map[string]any{"step": m.Step, "status": m.Status}
		if m.DiscountCode != "" {
			detail["discount_code"] = m.DiscountCode
		}
		out = append(out, graph.CheckoutTimelineEvent{Name: "recovery_email", OccurredAt: at, Source: "system", Detail: detail})
	}
	if co.RecoveredAt != nil {
		out = append(out, graph.CheckoutTimelineEvent{Name: "recovered", OccurredAt: *co.RecoveredAt, Source: "checkout"})
	}
	// Stable: entries of one moment keep the order above (a checkout's
	// start before the step recorded with it).
	slices.SortStableFunc(out, func(a, b graph.CheckoutTimelineEvent) int { return a.OccurredAt.Compare(b.OccurredAt) })
	if len(out) > maxActivityEvents {
		out = out[:maxActivityEvents]
	}
	return out
}
