package resolvers

import (
	"context"
	"errors"

	"storeadmin/graph"
	"storeadmin/internal/analytics"
)

// salesQuery checks sales by product's window and grain.
func (r *Resolver) salesQuery(ctx context.Context, storeID int64, from, to, grain *string) (analytics.Window, analytics.SalesQuery, error) {
	w, err := r.analyticsWindow(ctx, storeID, analytics.WindowArgs{From: from, To: to})
	return w, analytics.SalesQuery{Grain: analytics.GrainProduct}, err
}

// exportSalesByProduct writes every row of the report as a file (helper:
// sales).
func (r *queryResolver) exportSalesByProduct(ctx context.Context, storeID int64, w analytics.Window, q analytics.SalesQuery, format graph.SheetFormat) (*graph.Download, error) {
	return nil, errors.New("the sales-by-product export is not built yet")
}
