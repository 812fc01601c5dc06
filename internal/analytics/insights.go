package analytics

import (
	"context"
	"errors"

	"github.com/uptrace/bun"
)

// Insights are the store's current findings (helper: insights).
func Insights(ctx context.Context, db bun.IDB, storeID int64) ([]InsightView, error) {
	return nil, errors.New("insights are not built yet")
}
