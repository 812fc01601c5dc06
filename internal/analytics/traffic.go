package analytics

import (
	"context"
	"errors"

	"github.com/uptrace/bun"
)

// LandingPageQuery is what the landing pages report lists: pages of Type
// (any when empty), up to Limit of them (every one when 0: the export).
type LandingPageQuery struct {
	Type  string
	Limit int64
}

// Traffic is the storefront's traffic over w (helper: traffic).
func Traffic(ctx context.Context, db bun.IDB, storeID int64, w Window) (*AnalyticsTrafficSummary, error) {
	return nil, errors.New("traffic is not built yet")
}

// LandingPages is traffic by landing page over w (helper: traffic).
func LandingPages(ctx context.Context, db bun.IDB, storeID int64, w Window, q LandingPageQuery) (*AnalyticsLandingPageReport, error) {
	return nil, errors.New("landing pages are not built yet")
}
