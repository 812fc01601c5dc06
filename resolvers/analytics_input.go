package resolvers

import (
	"context"

	"storeadmin/internal/analytics"
	"storeadmin/internal/base/apperr"
)

// Report rows: limit's default and bound.
const (
	defaultReportRows = 50
	maxReportRows     = 1000
)

// analyticsWindow checks a report's window in the store's time zone.
func (r *Resolver) analyticsWindow(ctx context.Context, storeID int64, args analytics.WindowArgs) (analytics.Window, error) {
	loc, err := r.storeLocation(ctx, storeID)
	if err != nil {
		return analytics.Window{}, err
	}
	return analytics.ParseWindow(args, r.Now(), loc)
}

// reportLimit checks how many rows a report answers.
func reportLimit(limit *int64) (int64, error) {
	if limit == nil {
		return defaultReportRows, nil
	}
	if *limit < 1 || *limit > maxReportRows {
		return 0, apperr.InvalidField("limit", "must be between 1 and %d, not %d", maxReportRows, *limit)
	}
	return *limit, nil
}
