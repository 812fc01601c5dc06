package resolvers

import (
	"cmp"
	"context"
	"slices"
	"time"

	"storeadmin/graph"
	"storeadmin/internal/base/apperr"
	"storeadmin/models"
)

// Bounds of one activity log; coverage says when the records held more.
const (
	maxActivityEvents = 500
	maxActivityOrders = 10
)

// The origin of each order timeline entry: what part of the order it
// concerns.
var activityOrigins = map[string]string{
	"authorized":            "payment",
	"paid":                  "payment",
	"captured":              "payment",
	"payment_failed":        "payment",
	"voided":                "payment",
	"refunded":              "payment",
	"fulfilled":             "fulfillment",
	"fulfillment_cancelled": "fulfillment",
}

// activityAnchor is what a log is about, and what leads from it to the
// rest of the shopper's records.
type activityAnchor struct {
	view graph.UseractivityAnchor
	// session is the storefront visit that led to the record (the record
	// itself for a session); nil when none was recorded.
	session *models.StoreeventsSession
	// order is the anchor's order (an order or a payment awaiting
	// capture); cart and checkout the anchor's cart or checkout.
	order    *models.Order
	cart     *models.Cart
	checkout *models.StorefrontCheckout
}

// activity builds the one log every activity call answers: the session's
// browsing, the carts and checkouts linked to the anchor (the session's,
// the order's, the checkout's cart, the cart's checkouts) with their
// payment attempts and recovery reminders, the orders they became (at most
// maxActivityOrders, with their own timelines) and the draft orders those
// came from, merged oldest first, runs of similar browsing folded and cut
// at maxActivityEvents.
func (r *Resolver) activity(ctx context.Context, storeID int64, a activityAnchor) (*graph.UseractivityLog, error) {
	db := r.db(ctx)
	links := models.ActivityLinks{}
	var sessionID int64
	if a.session != nil {
		sessionID = a.session.ID
		links.SessionID = &a.session.ID
	}
	if a.order != nil {
		links.OrderIDs = append(links.OrderIDs, a.order.ID)
	}
	if a.cart != nil {
		links.CartIDs = append(links.CartIDs, a.cart.ID)
	}
	if a.checkout != nil {
		links.CheckoutIDs = append(links.CheckoutIDs, a.checkout.ID)
	}
	recs, err := models.ReadActivityRecords(ctx, db, storeID, links)
	if err != nil {
		return nil, err
	}
	orderIDs := append([]int64{}, links.OrderIDs...)
	for _, c := range recs.Checkouts {
		orderIDs = appendID(appendID(orderIDs, c.OrderID), c.RecoveredOrderID)
	}
	for _, c := range recs.Carts {
		orderIDs = appendID(orderIDs, c.RecoveredOrderID)
	}
	orders, ordersMore, err := models.SessionOrders(ctx, db, storeID, sessionID, orderIDs, maxActivityOrders)
	if err != nil {
		return nil, err
	}
	if a.order != nil && !slices.ContainsFunc(orders, func(o models.Order) bool { return o.ID == a.order.ID }) {
		// The anchor's own order always makes the cut.
		orders, ordersMore = append([]models.Order{*a.order}, orders[:min(len(orders), maxActivityOrders-1)]...), true
	}

	b := &logBuilder{anchor: a, summary: graph.UseractivitySummary{}, coverage: graph.UseractivityCoverage{OrdersTruncated: ordersMore}}
	if a.session != nil {
		events, more, err := models.SessionEvents(ctx, db, storeID, a.session.ID, maxActivityEvents)
		if err != nil {
			return nil, err
		}
		b.coverage.Browsing, b.coverage.SessionScoped = true, true
		b.coverage.EventsTruncated = b.coverage.EventsTruncated || more
		b.coverage.Purged = r.EventsRetention > 0 && a.session.FirstSeenAt.Before(r.Now().Add(-r.EventsRetention))
		b.browsing(events, recs.Carts)
	}
	b.carts(recs.Carts)
	b.checkouts(recs.Checkouts, recs.Attempts)
	b.reminders(recs.Messages)
	var draftIDs []int64
	for i := range orders {
		o := &orders[i]
		entries, more, err := models.OrderEvents(ctx, db, storeID, o.ID, maxActivityEvents)
		if err != nil {
			return nil, err
		}
		txs, err := models.OrderTransactions(ctx, db, storeID, o.ID)
		if err != nil {
			return nil, err
		}
		b.coverage.EventsTruncated = b.coverage.EventsTruncated || more
		b.order(o, entries, txs)
		draftIDs = appendID(draftIDs, o.DraftOrderID)
	}
	drafts, err := models.ActivityDrafts(ctx, db, storeID, draftIDs)
	if err != nil {
		return nil, err
	}
	b.drafts(drafts)
	b.coverage.Drafts, b.coverage.DraftsTruncated = int64(len(drafts)), ordersMore
	return b.log(), nil
}

// orderActivity is the log of an order (or of a payment awaiting capture
// of it): its timeline, the checkout that placed it and the browsing of the
// session that led to it.
func (r *Resolver) orderActivity(ctx context.Context, o *models.Order, view graph.UseractivityAnchor) (*graph.UseractivityLog, error) {
	session, err := r.recordSession(ctx, o.StoreID, o.SessionID)
	if err != nil {
		return nil, err
	}
	return r.activity(ctx, o.StoreID, activityAnchor{view: view, order: o, session: session})
}

// recordSession reads the session a record came from (its session_id);
// nil when it has none.
func (r *Resolver) recordSession(ctx context.Context, storeID int64, id *int64) (*models.StoreeventsSession, error) {
	if id == nil {
		return nil, nil
	}
	sessions, err := models.SessionsByID(ctx, r.db(ctx), storeID, []int64{*id}, models.AllColumns)
	if err != nil || len(sessions) == 0 {
		return nil, err
	}
	return &sessions[0], nil
}

// appendID appends *id to ids when it is set and not there yet.
func appendID(ids []int64, id *int64) []int64 {
	if id == nil || slices.Contains(ids, *id) {
		return ids
	}
	return append(ids, *id)
}

// logBuilder gathers the entries of one log.
type logBuilder struct {
	anchor   activityAnchor
	entries  []graph.UseractivityEvent
	summary  graph.UseractivitySummary
	coverage graph.UseractivityCoverage
}

var yes = true

// mark marks an entry as the anchor record's own.
func mark(ev *graph.UseractivityEvent, own bool) {
	if own {
		ev.Anchor = &yes
	}
}

func (b *logBuilder) browsing(events []models.StoreeventsActivity, carts []models.Cart) {
	cartByToken := map[string]int64{}
	for _, c := range carts {
		cartByToken[c.Token] = c.ID
	}
	for _, e := range events {
		ev := graph.UseractivityEvent{
			Name: e.Name, At: e.OccurredAt, Origin: "browsing", Source: "storefront", Exact: true,
			AmountCents: e.ValueCents, Currency: e.Currency, ProductID: e.ProductID, ProductTitle: e.ProductTitle,
			VariantID: e.VariantID, Path: e.Path, ElSelector: e.ElSelector, ElText: e.ElText,
			PageDwellMs: e.DwellMS, ScrollPct: e.ScrollPct, ResultCount: e.ResultCount,
		}
		if e.ValueCents == nil {
			ev.Currency = nil
		}
		if e.DwellMS != nil {
			s := *e.DwellMS / 1000
			ev.DwellSeconds = &s
		}
		if e.CartToken != nil {
			if id, ok := cartByToken[*e.CartToken]; ok {
				ev.CartID = &id
			}
		}
		detail := map[string]any{}
		if e.SearchQuery != nil {
			detail["query"] = *e.SearchQuery
		}
		if e.Quantity != nil {
			detail["quantity"] = *e.Quantity
		}
		if e.Step != nil {
			detail["step"] = *e.Step
		}
		if len(detail) > 0 {
			ev.Detail = detail
		}
		mark(&ev, b.anchor.view.Kind == "session")
		switch e.Name {
		case "page_view":
			b.summary.PageViews++
		case "product_view":
			b.summary.ProductViews++
		case "add_to_cart":
			b.summary.CartAdds++
		case "checkout_step":
			b.summary.CheckoutSteps++
		}
		b.entries = append(b.entries, ev)
	}
}

func (b *logBuilder) carts(carts []models.Cart) {
	for i := range carts {
		c := &carts[i]
		own := b.anchor.cart != nil && b.anchor.cart.ID == c.ID
		add := func(name string, at time.Time, source string, amount *int64) {
			ev := graph.UseractivityEvent{Name: name, At: at, Origin: "cart", Source: source, Exact: true, CartID: &c.ID,
				AmountCents: amount, Detail: map[string]any{"token": c.Token, "item_count": c.ItemCount}}
			if amount != nil {
				ev.Currency = &c.Currency
			}
			mark(&ev, own)
			b.entries = append(b.entries, ev)
		}
		add("cart_created", c.CreatedAt, "storefront", nil)
		if c.UpdatedAt.After(c.CreatedAt) {
			add("cart_updated", c.UpdatedAt, "storefront", &c.SubtotalCents)
		}
		if c.AbandonedAt != nil {
			add("cart_abandoned", *c.AbandonedAt, "system", &c.SubtotalCents)
		}
		if c.RecoveredAt != nil {
			add("cart_recovered", *c.RecoveredAt, "system", nil)
		}
	}
}

func (b *logBuilder) checkouts(checkouts []models.StorefrontCheckout, attempts []models.PaymentAttempt) {
	tries := map[int64]int64{}
	for i := range checkouts {
		c := &checkouts[i]
		own := b.anchor.checkout != nil && b.anchor.checkout.ID == c.ID
		add := func(name string, at time.Time, source string, amount *int64) {
			ev := graph.UseractivityEvent{Name: name, At: at, Origin: "checkout", Source: source, Exact: true, CartID: c.CartID,
				OrderID: c.OrderID, AmountCents: amount, Detail: map[string]any{"token": c.Token, "state": c.State, "step": c.Step}}
			if amount != nil {
				ev.Currency = &c.Currency
			}
			mark(&ev, own)
			b.entries = append(b.entries, ev)
		}
		add("checkout_started", c.CreatedAt, "checkout", nil)
		if c.UpdatedAt.After(c.CreatedAt) && (c.CompletedAt == nil || c.UpdatedAt.Before(*c.CompletedAt)) {
			add("checkout_updated", c.UpdatedAt, "checkout", &c.TotalCents)
		}
		if c.CompletedAt != nil {
			add("checkout_completed", *c.CompletedAt, "checkout", &c.TotalCents)
		}
		if c.AbandonedAt != nil {
			add("checkout_abandoned", *c.AbandonedAt, "system", &c.TotalCents)
		}
		if c.RecoveredAt != nil {
			add("checkout_recovered", *c.RecoveredAt, "system", nil)
		}
		if c.State == "open" && (b.summary.RecoveryLinkValidUntil == nil || c.ExpiresAt.After(*b.summary.RecoveryLinkValidUntil)) {
			until := c.ExpiresAt
			b.summary.RecoveryLinkValidUntil = &until
		}
	}
	for i := range attempts {
		t := &attempts[i]
		tries[t.CheckoutID]++
		n := tries[t.CheckoutID]
		ev := graph.UseractivityEvent{Name: "payment_attempt_" + t.Status, At: t.CreatedAt, Origin: "payment", Source: "checkout", Exact: true,
			AmountCents: &t.AmountCents, Currency: &t.Currency, TransactionID: t.TransactionID, Attempt: &n, Provider: &t.Provider,
			PaymentMethod: t.PaymentMethod, ErrorCode: t.ErrorCode, ErrorMessage: t.ErrorMessage}
		mark(&ev, b.anchor.checkout != nil && b.anchor.checkout.ID == t.CheckoutID)
		// A successful attempt became an order transaction, counted there.
		if t.TransactionID == nil && (t.Status == models.TxFailure || t.Status == models.TxError) {
			b.summary.FailedPayments++
		}
		b.entries = append(b.entries, ev)
	}
}

func (b *logBuilder) reminders(messages []models.RecoveryMessage) {
	for i := range messages {
		m := &messages[i]
		at := m.CreatedAt
		if m.SentAt != nil {
			at = *m.SentAt
		}
		detail := map[string]any{"step": m.Step, "status": m.Status, "subject": m.Subject}
		if m.DiscountCode != "" {
			detail["discount_code"] = m.DiscountCode
		}
		if m.Error != "" {
			detail["error"] = m.Error
		}
		ev := graph.UseractivityEvent{Name: "recovery_email_" + m.Status, At: at, Origin: "recovery", Source: "system",
			Exact: m.SentAt != nil, CartID: m.CartID, Detail: detail}
		if m.Step == 0 {
			ev.Source = "admin" // a resend
		}
		mark(&ev, (b.anchor.cart != nil && m.CartID != nil && *m.CartID == b.anchor.cart.ID) ||
			(b.anchor.checkout != nil && m.CheckoutID != nil && *m.CheckoutID == b.anchor.checkout.ID))
		if m.Status == models.RecoverySent || m.Status == models.RecoveryOutboxed {
			b.summary.RecoveryEmails++
		}
		b.entries = append(b.entries, ev)
	}
}

func (b *logBuilder) order(o *models.Order, entries []models.OrderEvent, txs []models.OrderTransaction) {
	own := b.anchor.order != nil && b.anchor.order.ID == o.ID
	txByID := map[int64]models.OrderTransaction{}
	for _, t := range txs {
		txByID[t.ID] = t
		if t.Status == models.TxFailure || t.Status == models.TxError {
			b.summary.FailedPayments++
		}
	}
	for _, e := range entries {
		ev := graph.UseractivityEvent{
			Name: e.Name, At: e.At, Origin: "order", Source: e.Source, Exact: true,
			AmountCents: e.AmountCents, OrderID: &o.ID, TransactionID: e.TransactionID, DraftOrderID: o.DraftOrderID,
			Detail: e.Detail,
		}
		if origin, ok := activityOrigins[e.Name]; ok {
			ev.Origin = origin
		}
		if e.AmountCents != nil {
			ev.Currency = &o.Currency
		}
		if e.TransactionID != nil {
			if t, ok := txByID[*e.TransactionID]; ok {
				ev.Provider, ev.PaymentMethod = &t.Provider, t.PaymentMethod
				if t.Error != nil {
					ev.ErrorMessage = t.Error
				}
			}
		}
		mark(&ev, own)
		b.entries = append(b.entries, ev)
	}
}

func (b *logBuilder) drafts(drafts []models.DraftOrder) {
	for i := range drafts {
		d := &drafts[i]
		b.entries = append(b.entries, graph.UseractivityEvent{Name: "draft_order_created", At: d.CreatedAt, Origin: "draft_order",
			Source: "admin", Exact: true, DraftOrderID: &d.ID, OrderID: d.OrderID, AmountCents: &d.TotalCents, Currency: &d.Currency,
			Detail: map[string]any{"name": d.Name}})
	}
}

// log sorts the entries oldest first (entries of one time keep the order
// they were gathered in), folds runs of similar browsing, cuts the log at
// maxActivityEvents and works out its gaps and summary.
func (b *logBuilder) log() *graph.UseractivityLog {
	slices.SortStableFunc(b.entries, func(x, y graph.UseractivityEvent) int { return x.At.Compare(y.At) })
	out := make([]graph.UseractivityEvent, 0, min(len(b.entries), maxActivityEvents))
	repeated := 0
	for _, ev := range b.entries {
		if n := len(out); n > 0 && similarBrowsing(&out[n-1], &ev) {
			repeated++
			d, _ := out[n-1].Detail.(map[string]any)
			if d == nil {
				d = map[string]any{}
				out[n-1].Detail = d
			}
			d["repeated"], d["last_at"] = cmp.Or(asInt(d["repeated"]), 1)+1, ev.At
			b.coverage.BrowsingCollapsed = true
			continue
		}
		if len(out) == maxActivityEvents {
			b.coverage.EventsTruncated = true
			break
		}
		out = append(out, ev)
	}
	for i := 1; i < len(out); i++ {
		if h := int64(out[i].At.Sub(out[i-1].At) / time.Hour); h >= 1 {
			out[i].GapHours = &h
		}
	}
	s := &b.summary
	a := b.anchor
	switch {
	case a.session != nil:
		s.VisitBasis, s.FirstSeenAt = "session", &a.session.FirstSeenAt
	case a.order != nil:
		s.VisitBasis, s.FirstSeenAt = "order", cmp.Or(a.order.CheckoutStartedAt, &a.order.CreatedAt)
	case a.checkout != nil:
		s.VisitBasis, s.FirstSeenAt = "checkout", &a.checkout.CreatedAt
	case a.cart != nil:
		s.VisitBasis, s.FirstSeenAt = "cart", &a.cart.CreatedAt
	}
	if n := len(out); n > 0 {
		last := out[n-1].At
		s.LastSeenAt = &last
		if s.FirstSeenAt != nil && last.After(*s.FirstSeenAt) {
			s.VisitSeconds = int64(last.Sub(*s.FirstSeenAt).Seconds())
		}
	}
	view := a.view
	return &graph.UseractivityLog{Anchor: &view, Coverage: &b.coverage, Events: out, Session: a.session, Summary: s}
}

// similarBrowsing says whether next repeats prev: browsing of the same
// kind on the same page, product and element, back to back.
func similarBrowsing(prev, next *graph.UseractivityEvent) bool {
	if prev.Origin != "browsing" || next.Origin != "browsing" || prev.Name != next.Name {
		return false
	}
	switch prev.Name {
	case "page_view", "product_view", "click", "scroll":
	default:
		return false
	}
	return eqPtr(prev.Path, next.Path) && eqPtr(prev.ProductID, next.ProductID) && eqPtr(prev.ElSelector, next.ElSelector)
}

func eqPtr[T comparable](a, b *T) bool { return (a == nil) == (b == nil) && (a == nil || *a == *b) }

func asInt(v any) int {
	n, _ := v.(int)
	return n
}

// errNotAbandoned answers a cart or checkout that was never flagged
// abandoned as the abandoned lists and details do: there is no such
// abandoned record.
func errNotAbandoned(what string) error {
	return apperr.NotFoundf("the abandoned %s was not found", what)
}
