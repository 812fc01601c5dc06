package analytics

import (
	"context"
	"errors"

	"github.com/uptrace/bun"
)

// Grains of sales by product.
const (
	GrainProduct = "product"
	GrainSKU     = "sku"
)

// SalesQuery is what sales by product lists: rows of Grain, up to Limit of
// them (every one when 0: the export).
type SalesQuery struct {
	Grain string
	Limit int64
}

// SalesByProduct is sales by product or SKU over w (helper: sales).
func SalesByProduct(ctx context.Context, db bun.IDB, storeID int64, w Window, q SalesQuery) (*AnalyticsProductSalesReport, error) {
	return nil, errors.New("sales by product is not built yet")
}
