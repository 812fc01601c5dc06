package resolvers

import (
	"context"
	"strconv"

	"storeadmin/graph"
	"storeadmin/internal/analytics"
	"storeadmin/internal/base/sheets"
	"storeadmin/internal/base/sheets/ordersheet"
	"storeadmin/models"
)

// landingPageQuery checks the landing pages report's window and type.
func (r *Resolver) landingPageQuery(ctx context.Context, storeID int64, from, to, typ *string) (analytics.Window, analytics.LandingPageQuery, error) {
	var q analytics.LandingPageQuery
	if typ != nil {
		if err := analytics.CheckPageType(*typ); err != nil {
			return analytics.Window{}, q, err
		}
		q.Type = *typ
	}
	w, err := r.analyticsWindow(ctx, storeID, analytics.WindowArgs{From: from, To: to})
	return w, q, err
}

// landingSheetHeader and landingSheetTypes are the export's columns: the
// report's fields in its order, counts as numbers, the rate as a
// percentage and the revenue as money in the store's currency.
var (
	landingSheetHeader = []string{"Landing page", "Type", "Sessions", "Visitors", "Carted sessions",
		"Checkout sessions", "Converted sessions", "Conversion rate", "Revenue"}
	landingSheetTypes = []sheets.Type{sheets.Text, sheets.Text, sheets.Number, sheets.Number, sheets.Number,
		sheets.Number, sheets.Number, sheets.Percent, sheets.Money}
)

// exportLandingPages writes every landing page of the report as a file:
// one row per page, as the JSON report's rows, the "(not set)" row with an
// empty path.
func (r *queryResolver) exportLandingPages(ctx context.Context, storeID int64, w analytics.Window, q analytics.LandingPageQuery, format graph.SheetFormat) (*graph.Download, error) {
	q.Limit = 0
	report, err := analytics.LandingPages(ctx, r.db(ctx), storeID, w, q)
	if err != nil {
		return nil, err
	}
	store, err := models.GetStore(ctx, r.db(ctx), storeID)
	if err != nil {
		return nil, err
	}
	itoa := func(v int64) string { return strconv.FormatInt(v, 10) }
	rows := make([][]string, len(report.LandingPages))
	for i, p := range report.LandingPages {
		rows[i] = []string{p.Path, p.Type, itoa(p.Sessions), itoa(p.Visitors), itoa(p.CartedSessions),
			itoa(p.CheckoutSessions), itoa(p.ConvertedSessions), strconv.FormatFloat(p.ConversionRate, 'f', -1, 64),
			ordersheet.FormatMoney(p.RevenueCents, store.Currency)}
	}
	return r.sheetDownload(ctx, storeID, "landing_pages", &format, landingSheetHeader, landingSheetTypes, rows)
}
