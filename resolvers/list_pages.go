package resolvers

import (
	"context"
	"encoding/json"

	"storeadmin/graph"
	"storeadmin/models"
)

// Reads that two root fields of one operation share (graph.SharedRead):
// the lists that answer the cursor of their next page, each read once for
// its list field and its NextCursor field (cursorPage), the counts a page
// of orders or products reads when the query asks for them after it
// (listCount, shareTotal), and the counts of payments awaiting capture.

// listCount is the count of list with filter f: the one a page of the list
// read on its way when the same query asked for both (shareTotal),
// otherwise count's.
func listCount[F any](ctx context.Context, list string, f F, count func() (int64, error)) (int64, error) {
	key, err := countKey(list, f)
	if err != nil {
		return 0, err
	}
	return graph.SharedRead(ctx, key, count)
}

// shareTotal shares the total a page of list with filter f read
// (models.Paging.Total; nil: none) as the count of list with f.
func shareTotal[F any](ctx context.Context, list string, f F, total *int64) {
	if total == nil {
		return
	}
	if key, err := countKey(list, f); err == nil {
		graph.ShareRead(ctx, key, *total)
	}
}

// countKey names the shared read of the count of list with filter f.
func countKey[F any](list string, f F) (string, error) {
	key, err := json.Marshal(struct {
		Count  string
		Filter F
	}{list, f})
	return string(key), err
}

func (r *queryResolver) ordersPage(ctx context.Context, filter *models.OrderFilter, limit, offset *int64, cursor *string) (models.Page[models.Order], error) {
	withBuyers := graph.Selects[models.Order](ctx, "customer")
	withTotal := graph.CountFollows(ctx, "ordersCount")
	page, err := filteredCursorPage(ctx, "orders", filter, limit, offset, cursor, func(sid int64, f models.OrderFilter, p models.Paging) (models.Page[models.Order], error) {
		if withBuyers {
			p.Join = []string{models.OrderBuyer}
		}
		if withTotal {
			p.Total = models.OrdersTotal(r.db(ctx), sid, f)
		}
		page, err := models.PageOrders(ctx, r.db(ctx), sid, f, p)
		if err == nil {
			shareTotal(ctx, "orders", f, page.Total)
		}
		return page, err
	})
	if err == nil && withBuyers {
		// The page read its orders' customers (unless its NextCursor
		// sibling read it first): their relation answers from them.
		err = orderCustomer.Prime(ctx, page.Rows, func(o *models.Order) *models.Customer { return o.Buyer })
	}
	return page, err
}

func (r *queryResolver) productsPage(ctx context.Context, filter *models.ProductFilter, limit, offset *int64, cursor *string) (models.Page[models.Product], error) {
	withSummaries := graph.Selects[models.Product](ctx, "price_cents", "image_src")
	withTotal := graph.CountFollows(ctx, "productsCount")
	page, err := filteredCursorPage(ctx, "products", filter, limit, offset, cursor, func(sid int64, f models.ProductFilter, p models.Paging) (models.Page[models.Product], error) {
		if withSummaries {
			p.Join = []string{models.ProductSummaryJoin}
		}
		if withTotal {
			p.Total = models.ProductsTotal(r.db(ctx), sid, f)
		}
		page, err := models.PageProducts(ctx, r.db(ctx), sid, f, p)
		if err == nil {
			shareTotal(ctx, "products", f, page.Total)
		}
		return page, err
	})
	if err == nil && withSummaries {
		// The page read its products' summaries (a list shows each
		// product's price and image): their relation answers from them.
		err = productSummary.Prime(ctx, page.Rows, func(p *models.Product) *models.ProductSummary { return p.Summary })
	}
	return page, err
}

func (r *queryResolver) draftOrdersPage(ctx context.Context, filter *models.DraftOrderFilter, limit, offset *int64, cursor *string) (models.Page[models.DraftOrder], error) {
	return filteredCursorPage(ctx, "draft-orders", filter, limit, offset, cursor, func(sid int64, f models.DraftOrderFilter, p models.Paging) (models.Page[models.DraftOrder], error) {
		return models.PageDraftOrders(ctx, r.db(ctx), sid, f, p)
	})
}

func (r *queryResolver) reviewsPage(ctx context.Context, filter *models.ReviewFilter, limit, offset *int64, cursor *string) (models.Page[models.Review], error) {
	return filteredCursorPage(ctx, "reviews", filter, limit, offset, cursor, func(sid int64, f models.ReviewFilter, p models.Paging) (models.Page[models.Review], error) {
		return models.PageReviews(ctx, r.db(ctx), sid, f, p)
	})
}

func (r *queryResolver) formSubmissionsPage(ctx context.Context, filter *models.FormSubmissionFilter, limit, offset *int64, cursor *string) (models.Page[models.FormSubmission], error) {
	return filteredCursorPage(ctx, "form-submissions", filter, limit, offset, cursor, func(sid int64, f models.FormSubmissionFilter, p models.Paging) (models.Page[models.FormSubmission], error) {
		return models.PageFormSubmissions(ctx, r.db(ctx), sid, f, p)
	})
}

// auditLogsPage: the audit log's filter refuses nothing, so it is not
// checked.
func (r *queryResolver) auditLogsPage(ctx context.Context, filter *models.AuditLogFilter, limit, offset *int64, cursor *string) (models.Page[models.AuditLog], error) {
	return cursorPage(ctx, "audit-logs", filter, limit, offset, cursor, func(sid int64, f *models.AuditLogFilter, p models.Paging) (models.Page[models.AuditLog], error) {
		return models.PageAuditLogs(ctx, r.db(ctx), sid, f, p)
	})
}

// awaitingCaptureCounts counts the payments awaiting capture and those
// needing attention, in one statement per operation for the two root
// fields that answer them.
func (r *queryResolver) awaitingCaptureCounts(ctx context.Context) (awaitingCounts, error) {
	return inStore(ctx, func(sid int64) (awaitingCounts, error) {
		return graph.SharedRead(ctx, "awaitingCaptureCounts", func() (awaitingCounts, error) {
			all, attention, err := models.CountAwaitingCapture(ctx, r.db(ctx), sid, r.Now())
			return awaitingCounts{all, attention}, err
		})
	})
}

type awaitingCounts struct{ all, attention int64 }
