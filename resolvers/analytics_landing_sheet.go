package resolvers

import (
	"context"
	"errors"

	"storeadmin/graph"
	"storeadmin/internal/analytics"
)

// landingPageQuery checks the landing pages report's window and type.
func (r *Resolver) landingPageQuery(ctx context.Context, storeID int64, from, to, typ *string) (analytics.Window, analytics.LandingPageQuery, error) {
	w, err := r.analyticsWindow(ctx, storeID, analytics.WindowArgs{From: from, To: to})
	return w, analytics.LandingPageQuery{}, err
}

// exportLandingPages writes every landing page of the report as a file
// (helper: traffic).
func (r *queryResolver) exportLandingPages(ctx context.Context, storeID int64, w analytics.Window, q analytics.LandingPageQuery, format graph.SheetFormat) (*graph.Download, error) {
	return nil, errors.New("the landing pages export is not built yet")
}
