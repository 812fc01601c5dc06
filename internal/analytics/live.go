package analytics

import (
	"context"
	"errors"
	"time"

	"github.com/uptrace/bun"
)

// Live is the store at now (helper: live).
func Live(ctx context.Context, db bun.IDB, storeID int64, now time.Time) (*LiveviewView, error) {
	return nil, errors.New("the live view is not built yet")
}
