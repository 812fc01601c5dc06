package resolvers

import (
	"context"
	"slices"
	"strings"

	"storeadmin/graph"
	"storeadmin/internal/analytics"
	"storeadmin/internal/base/apperr"
	"storeadmin/internal/base/sheets/salessheet"
	"storeadmin/models"
)

// salesQuery checks sales by product's window and grain.
func (r *Resolver) salesQuery(ctx context.Context, storeID int64, from, to, grain *string) (analytics.Window, analytics.SalesQuery, error) {
	q := analytics.SalesQuery{Grain: analytics.GrainProduct}
	if grain != nil {
		if !slices.Contains(analytics.Grains, *grain) {
			return analytics.Window{}, q, apperr.InvalidField("grain", "must be one of %s, not %q", strings.Join(analytics.Grains, ", "), *grain)
		}
		q.Grain = *grain
	}
	w, err := r.analyticsWindow(ctx, storeID, analytics.WindowArgs{From: from, To: to})
	return w, q, err
}

// exportSalesByProduct writes every row of the report as a file, amounts
// in the store's currency.
func (r *queryResolver) exportSalesByProduct(ctx context.Context, storeID int64, w analytics.Window, q analytics.SalesQuery, format graph.SheetFormat) (*graph.Download, error) {
	q.Limit = 0
	report, err := analytics.SalesByProduct(ctx, r.db(ctx), storeID, w, q)
	if err != nil {
		return nil, err
	}
	if len(report.Rows) >= xlsxMaxRows && format == graph.SheetFormatXlsx {
		return nil, apperr.Invalidf("the report has %d rows, more than an XLSX sheet holds (%d); export as CSV or narrow the window", len(report.Rows), xlsxMaxRows-1)
	}
	store, err := models.GetStore(ctx, r.db(ctx), storeID)
	if err != nil {
		return nil, err
	}
	rows := make([]salessheet.Row, len(report.Rows))
	for i, s := range report.Rows {
		rows[i] = salessheet.Row{ProductID: s.ProductID, VariantID: s.VariantID, Title: s.Title, VariantTitle: s.VariantTitle,
			SKU: s.SKU, Vendor: s.Vendor, ProductType: s.ProductType, Orders: s.OrderCount, ItemsSold: s.ItemsSold,
			RefundedItems: s.RefundedItems, NetItemsSold: *s.NetItemsSold, GrossCents: s.GrossCents,
			LineDiscountCents: s.LineDiscountCents, ProductSalesCents: s.ProductSalesCents, DiscountCents: *s.DiscountCents,
			RefundedCents: s.RefundedCents, NetSalesCents: *s.NetSalesCents, TaxCents: *s.TaxCents, TotalSalesCents: *s.TotalSalesCents}
	}
	return r.sheetDownload(ctx, storeID, "sales-by-product_"+q.Grain, &format, salessheet.Header(), salessheet.Types(),
		salessheet.Rows(rows, store.Currency))
}
