package analytics

import "math"

// The reports' records, named as the API names them (graph binds them).

// AnalyticsMetrics are the figures of the orders of a window (metrics.go
// defines them).
type AnalyticsMetrics struct {
	GrossCents         int64 `json:"gross_cents"`
	DiscountCents      int64 `json:"discount_cents"`
	RefundCents        int64 `json:"refund_cents"`
	NetCents           int64 `json:"net_cents"`
	ShippingCents      int64 `json:"shipping_cents"`
	TaxCents           int64 `json:"tax_cents"`
	TipCents           int64 `json:"tip_cents"`
	OrderCount         int64 `json:"order_count"`
	RefundedOrderCount int64 `json:"refunded_order_count"`
	Units              int64 `json:"units"`
	AOVCents           int64 `json:"aov_cents"`
}

// AnalyticsDeltas are the changes of a window's metrics from the previous
// window's, in percent.
type AnalyticsDeltas struct {
	GrossPct  *float64 `json:"gross_pct"`
	OrdersPct *float64 `json:"orders_pct"`
	AOVPct    *float64 `json:"aov_pct"`
}

// AnalyticsCustomers are the customers who ordered in a window.
type AnalyticsCustomers struct {
	New           int64   `json:"new"`
	Returning     int64   `json:"returning"`
	ReturningRate float64 `json:"returning_rate"`
}

// AnalyticsSourceStat is the orders of one source.
type AnalyticsSourceStat struct {
	Source     string `json:"source"`
	OrderCount int64  `json:"order_count"`
	GrossCents int64  `json:"gross_cents"`
}

// AnalyticsCampaignStat is the orders of one campaign of one source.
type AnalyticsCampaignStat struct {
	Campaign   string `json:"campaign"`
	Source     string `json:"source"`
	OrderCount int64  `json:"order_count"`
	GrossCents int64  `json:"gross_cents"`
}

// AnalyticsDiscountStat is the orders that used one code.
type AnalyticsDiscountStat struct {
	Code          string `json:"code"`
	OrderCount    int64  `json:"order_count"`
	DiscountCents int64  `json:"discount_cents"`
}

// AnalyticsProductStat is one product's sales.
type AnalyticsProductStat struct {
	ProductID    int64  `json:"product_id"`
	Title        string `json:"title"`
	Units        int64  `json:"units"`
	RevenueCents int64  `json:"revenue_cents"`
}

// AnalyticsSeriesPoint is one bucket of the overview's series.
type AnalyticsSeriesPoint struct {
	Bucket     string `json:"bucket"`
	GrossCents int64  `json:"gross_cents"`
	OrderCount int64  `json:"order_count"`
}

// AnalyticsOverview is GET /store/analytics.
type AnalyticsOverview struct {
	From         string                  `json:"from"`
	To           string                  `json:"to"`
	Interval     string                  `json:"interval"`
	Metrics      AnalyticsMetrics        `json:"metrics"`
	Previous     AnalyticsMetrics        `json:"previous"`
	Deltas       AnalyticsDeltas         `json:"deltas"`
	Series       []AnalyticsSeriesPoint  `json:"series"`
	Customers    AnalyticsCustomers      `json:"customers"`
	BySource     []AnalyticsSourceStat   `json:"by_source"`
	ByCampaign   []AnalyticsCampaignStat `json:"by_campaign"`
	TopDiscounts []AnalyticsDiscountStat `json:"top_discounts"`
	TopProducts  []AnalyticsProductStat  `json:"top_products"`
}

// AnalyticsTrafficTotals are the storefront sessions of a window and what
// came of them.
type AnalyticsTrafficTotals struct {
	Sessions          int64   `json:"sessions"`
	Visitors          int64   `json:"visitors"`
	CartedSessions    int64   `json:"carted_sessions"`
	CheckoutSessions  int64   `json:"checkout_sessions"`
	ConvertedSessions int64   `json:"converted_sessions"`
	NotSetSessions    int64   `json:"not_set_sessions"`
	ConversionRate    float64 `json:"conversion_rate"`
	RevenueCents      int64   `json:"revenue_cents"`
}

// AnalyticsTrafficDeltas are traffic's changes from the previous window.
type AnalyticsTrafficDeltas struct {
	SessionsPct   *float64 `json:"sessions_pct"`
	VisitorsPct   *float64 `json:"visitors_pct"`
	ConversionPct *float64 `json:"conversion_pct"`
	RevenuePct    *float64 `json:"revenue_pct"`
}

// AnalyticsTrafficSummary is GET /store/analytics/traffic.
type AnalyticsTrafficSummary struct {
	From     string                 `json:"from"`
	To       string                 `json:"to"`
	Totals   AnalyticsTrafficTotals `json:"totals"`
	Previous AnalyticsTrafficTotals `json:"previous"`
	Deltas   AnalyticsTrafficDeltas `json:"deltas"`
}

// AnalyticsLandingPageStat is the sessions that landed on one page.
type AnalyticsLandingPageStat struct {
	Path              string  `json:"path"`
	Type              string  `json:"type"`
	Sessions          int64   `json:"sessions"`
	Visitors          int64   `json:"visitors"`
	CartedSessions    int64   `json:"carted_sessions"`
	CheckoutSessions  int64   `json:"checkout_sessions"`
	ConvertedSessions int64   `json:"converted_sessions"`
	ConversionRate    float64 `json:"conversion_rate"`
	RevenueCents      int64   `json:"revenue_cents"`
}

// AnalyticsLandingPageReport is GET /store/analytics/landing-pages.
type AnalyticsLandingPageReport struct {
	From             string                     `json:"from"`
	To               string                     `json:"to"`
	Limit            int64                      `json:"limit"`
	LandingPageCount int64                      `json:"landing_page_count"`
	LandingPages     []AnalyticsLandingPageStat `json:"landing_pages"`
	Totals           AnalyticsTrafficTotals     `json:"totals"`
	Previous         AnalyticsTrafficTotals     `json:"previous"`
	Deltas           AnalyticsTrafficDeltas     `json:"deltas"`
}

// AnalyticsProductSalesBasis is what sales by product reconciles to.
type AnalyticsProductSalesBasis struct {
	OrderSubtotalCents  int64 `json:"order_subtotal_cents"`
	OrderDiscountCents  int64 `json:"order_discount_cents"`
	OrderTaxCents       int64 `json:"order_tax_cents"`
	RefundedCents       int64 `json:"refunded_cents"`
	RefundedOrders      int64 `json:"refunded_orders"`
	RefundsWithoutLines int64 `json:"refunds_without_lines"`
}

// AnalyticsProductSalesRow is one product's or SKU's sales.
type AnalyticsProductSalesRow struct {
	ProductID         int64  `json:"product_id"`
	VariantID         int64  `json:"variant_id"`
	Title             string `json:"title"`
	VariantTitle      string `json:"variant_title"`
	SKU               string `json:"sku"`
	Vendor            string `json:"vendor"`
	ProductType       string `json:"product_type"`
	OrderCount        int64  `json:"order_count"`
	ItemsSold         int64  `json:"items_sold"`
	RefundedItems     int64  `json:"refunded_items"`
	NetItemsSold      *int64 `json:"net_items_sold"`
	GrossCents        int64  `json:"gross_cents"`
	LineDiscountCents int64  `json:"line_discount_cents"`
	ProductSalesCents int64  `json:"product_sales_cents"`
	DiscountCents     *int64 `json:"discount_cents"`
	RefundedCents     int64  `json:"refunded_cents"`
	NetSalesCents     *int64 `json:"net_sales_cents"`
	TaxCents          *int64 `json:"tax_cents"`
	TotalSalesCents   *int64 `json:"total_sales_cents"`
}

// AnalyticsProductSalesTotals are the sums of every row of the report.
type AnalyticsProductSalesTotals struct {
	Rows              int64  `json:"rows"`
	ItemsSold         int64  `json:"items_sold"`
	RefundedItems     int64  `json:"refunded_items"`
	NetItemsSold      *int64 `json:"net_items_sold"`
	GrossCents        int64  `json:"gross_cents"`
	LineDiscountCents int64  `json:"line_discount_cents"`
	ProductSalesCents int64  `json:"product_sales_cents"`
	DiscountCents     *int64 `json:"discount_cents"`
	RefundedCents     int64  `json:"refunded_cents"`
	NetSalesCents     *int64 `json:"net_sales_cents"`
	TaxCents          *int64 `json:"tax_cents"`
	TotalSalesCents   *int64 `json:"total_sales_cents"`
}

// AnalyticsProductSalesReport is GET /store/analytics/sales-by-product.
type AnalyticsProductSalesReport struct {
	From   string                      `json:"from"`
	To     string                      `json:"to"`
	Grain  string                      `json:"grain"`
	Limit  int64                       `json:"limit"`
	Rows   []AnalyticsProductSalesRow  `json:"rows"`
	Totals AnalyticsProductSalesTotals `json:"totals"`
	Basis  AnalyticsProductSalesBasis  `json:"basis"`
}

// LiveviewMetric is a figure of today so far against yesterday.
type LiveviewMetric struct {
	Value     int64    `json:"value"`
	Yesterday int64    `json:"yesterday"`
	DeltaPct  *float64 `json:"delta_pct"`
	Sparkline []int64  `json:"sparkline"`
}

// LiveviewLocationStat is today's sessions from one place.
type LiveviewLocationStat struct {
	Country  string  `json:"country"`
	Region   *string `json:"region"`
	City     *string `json:"city"`
	Sessions int64   `json:"sessions"`
}

// LiveviewPin is visitors or orders at one place on the map.
type LiveviewPin struct {
	Kind       string  `json:"kind"`
	Lat        float64 `json:"lat"`
	Lon        float64 `json:"lon"`
	Country    *string `json:"country"`
	Region     *string `json:"region"`
	City       *string `json:"city"`
	Count      int64   `json:"count"`
	TotalCents *int64  `json:"total_cents"`
}

// LiveviewBehavior is what the visitors of now are doing.
type LiveviewBehavior struct {
	WindowSeconds int64 `json:"window_seconds"`
	ActiveCarts   int64 `json:"active_carts"`
	CheckingOut   int64 `json:"checking_out"`
	Purchased     int64 `json:"purchased"`
}

// LiveviewPresence is who is on the storefront now.
type LiveviewPresence struct {
	WindowSeconds int64            `json:"window_seconds"`
	VisitorsNow   int64            `json:"visitors_now"`
	Behavior      LiveviewBehavior `json:"behavior"`
	Pins          []LiveviewPin    `json:"pins"`
}

// LiveviewToday is today so far against yesterday.
type LiveviewToday struct {
	From        string                 `json:"from"`
	To          string                 `json:"to"`
	Sales       LiveviewMetric         `json:"sales"`
	Orders      LiveviewMetric         `json:"orders"`
	Sessions    LiveviewMetric         `json:"sessions"`
	Customers   AnalyticsCustomers     `json:"customers"`
	Locations   []LiveviewLocationStat `json:"locations"`
	OrderPins   []LiveviewPin          `json:"order_pins"`
	TopProducts []AnalyticsProductStat `json:"top_products"`
}

// LiveviewView is GET /store/analytics/live.
type LiveviewView struct {
	Now        string           `json:"now"`
	Timezone   string           `json:"timezone"`
	Currency   string           `json:"currency"`
	GeoEnabled bool             `json:"geo_enabled"`
	Presence   LiveviewPresence `json:"presence"`
	Today      LiveviewToday    `json:"today"`
}

// InsightView is one finding of the insights job.
type InsightView struct {
	Day          string  `json:"day"`
	Kind         string  `json:"kind"`
	Headline     string  `json:"headline"`
	Detail       *string `json:"detail"`
	Action       *string `json:"action"`
	SubjectType  *string `json:"subject_type"`
	SubjectID    *int64  `json:"subject_id"`
	SubjectLabel *string `json:"subject_label"`
	Metrics      any     `json:"metrics"`
	SampleSize   int64   `json:"sample_size"`
	EvidenceURL  *string `json:"evidence_url"`
}

// DeltaPct is the change from prev to cur in percent, to two decimals; nil
// when prev is 0 (no change can be told from nothing).
func DeltaPct(cur, prev float64) *float64 {
	if prev == 0 {
		return nil
	}
	d := math.Round((cur-prev)/prev*100*100) / 100
	return &d
}

// Ratio is num / den to four decimals, 0 when den is 0: a rate such as a
// conversion or returning rate, from 0 to 1.
func Ratio(num, den int64) float64 {
	if den == 0 {
		return 0
	}
	return math.Round(float64(num)/float64(den)*10_000) / 10_000
}

// DivRound is num / den rounded half up (half away from zero), 0 when den is 0:
// an average in minor units.
func DivRound(num, den int64) int64 {
	if den == 0 {
		return 0
	}
	q, r := num/den, num%den
	if 2*abs(r) >= abs(den) {
		if (num < 0) != (den < 0) {
			q--
		} else {
			q++
		}
	}
	return q
}

func abs(v int64) int64 {
	if v < 0 {
		return -v
	}
	return v
}
