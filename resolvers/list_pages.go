package resolvers

import (
	"context"

	"storeadmin/models"
)

// The lists that answer the cursor of their next page: each is read once
// per operation for its list field and its NextCursor field (cursorPage).

func (r *queryResolver) ordersPage(ctx context.Context, filter *models.OrderFilter, limit, offset *int64, cursor *string) (models.Page[models.Order], error) {
	return cursorPage(ctx, "orders", filter, limit, offset, cursor, func(sid int64, f models.OrderFilter, p models.Paging) (models.Page[models.Order], error) {
		return models.PageOrders(ctx, r.db(ctx), sid, f, p)
	})
}

func (r *queryResolver) productsPage(ctx context.Context, filter *models.ProductFilter, limit, offset *int64, cursor *string) (models.Page[models.Product], error) {
	return cursorPage(ctx, "products", filter, limit, offset, cursor, func(sid int64, f models.ProductFilter, p models.Paging) (models.Page[models.Product], error) {
		return models.PageProducts(ctx, r.db(ctx), sid, f, p)
	})
}
