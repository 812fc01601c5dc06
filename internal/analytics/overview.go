package analytics

import (
	"context"
	"errors"

	"github.com/uptrace/bun"
)

// Overview is the sales overview of w (helper: overview).
func Overview(ctx context.Context, db bun.IDB, storeID int64, w Window) (*AnalyticsOverview, error) {
	return nil, errors.New("the overview is not built yet")
}
