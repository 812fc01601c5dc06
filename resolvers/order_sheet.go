package resolvers

import (
	"context"
	"io"

	"storeadmin/graph"
	"storeadmin/internal/base/apperr"
	"storeadmin/internal/base/sheets"
	"storeadmin/internal/base/sheets/ordersheet"
	"storeadmin/models"
)

// xlsxMaxRows is how many rows a worksheet holds, the header included.
const xlsxMaxRows = 1 << 20

// xlsxMaxOrders bounds an XLSX export, which is made in memory (its column
// widths and text need every row before the file is written); CSV streams
// and holds up to models.MaxOrderExport.
const xlsxMaxOrders = 50_000

// exportOrders writes the store's orders matching f, in the orders list's
// order, as the orders sheet (one row per line item): CSV, or XLSX when
// format says so. Times are shown in the store's time zone. CSV is written
// to the download as the orders are read, a chunk at a time, so its memory
// does not grow with the export. More orders than the format's bound is a
// 400 asking to narrow the filter.
func (r *queryResolver) exportOrders(ctx context.Context, sid int64, f models.OrderFilter, format *graph.SheetFormat) (*graph.Download, error) {
	loc, err := r.storeLocation(ctx, sid)
	if err != nil {
		return nil, err
	}
	rowsOf := func(chunk []models.OrderExport) [][]string {
		out := make([]ordersheet.Order, len(chunk))
		for i := range chunk {
			out[i] = toSheetOrder(&chunk[i])
		}
		return ordersheet.Rows(out, loc)
	}
	if format != nil && *format == graph.SheetFormatXlsx {
		var rows [][]string
		err := models.ExportOrders(ctx, r.db(ctx), sid, f, xlsxMaxOrders, func(chunk []models.OrderExport) error {
			rows = append(rows, rowsOf(chunk)...)
			return nil
		})
		if err != nil {
			return nil, err
		}
		if len(rows) >= xlsxMaxRows {
			return nil, apperr.Invalidf("the orders have %d line items, more than an XLSX sheet holds (%d rows); export as CSV or narrow the filter", len(rows), xlsxMaxRows-1)
		}
		return r.sheetDownload(ctx, sid, "orders", format, ordersheet.Header(), ordersheet.Types(), rows)
	}
	return r.download(ctx, sid, "orders", format, func(w io.Writer) error {
		cw, err := sheets.NewCSVWriter(w, ordersheet.Header())
		if err != nil {
			return err
		}
		err = models.ExportOrders(ctx, r.db(ctx), sid, f, models.MaxOrderExport, func(chunk []models.OrderExport) error {
			return cw.Write(rowsOf(chunk))
		})
		if err != nil {
			return err
		}
		return cw.Close()
	})
}

// toSheetOrder is an order as a row group of the orders sheet.
func toSheetOrder(o *models.OrderExport) ordersheet.Order {
	so := ordersheet.Order{
		ID: o.ID, Name: o.OrderNumberDisplay, Email: o.Email, FinancialStatus: o.FinancialStatus,
		PaidAt: o.PaidAt, FulfillmentStatus: o.FulfillmentStatus, Currency: o.Currency,
		SubtotalCents: o.SubtotalCents, ShippingCents: o.ShippingCents, TaxCents: o.TaxCents,
		TotalCents: o.TotalCents, DiscountCode: o.DiscountCode, DiscountCents: o.DiscountCents,
		ShippingMethod: ordersheet.ShippingMethodFrom(o.ShippingLine), CreatedAt: o.CreatedAt,
		Billing: ordersheet.AddressFrom(o.BillingAddress), Shipping: ordersheet.AddressFrom(o.ShippingAddress),
		Note: o.Note, CancelledAt: o.CancelledAt, RefundedCents: o.RefundedCents,
		Tags: orderTags(o.Tags, o.SystemTags), Source: o.Source, TipCents: o.TipCents,
		Status: o.Status, CancelReason: o.CancelReason,
	}
	// Fulfilled at: when the order became fulfilled, as the export means
	// it; a partly shipped order has no such time yet.
	if o.FulfillmentStatus == models.FulfillmentFulfilled {
		so.FulfilledAt = o.FulfilledAt
	}
	if c := o.Customer; c != nil {
		accepts := c.AcceptsMarketing
		so.AcceptsMarketing = &accepts
		so.Phone = c.Phone
	}
	if so.Phone == "" {
		so.Phone = firstNonEmpty(so.Billing.Phone, so.Shipping.Phone)
	}
	if p := o.Payment; p != nil {
		so.PaymentMethod = p.Provider
		if so.PaymentMethod == "" && p.PaymentMethod != nil {
			so.PaymentMethod = *p.PaymentMethod
		}
		so.PaymentReference = p.ExternalID
	}
	if a := o.Attribution; a != nil {
		so.UTMSource, so.UTMMedium, so.UTMCampaign = a.UTMSource, a.UTMMedium, a.UTMCampaign
	}
	so.Lines = make([]ordersheet.Line, len(o.Lines))
	for i, l := range o.Lines {
		so.Lines[i] = ordersheet.Line{
			Quantity: l.Quantity, Title: l.Title, VariantTitle: l.VariantTitle, SKU: l.SKU,
			PriceCents: l.PriceCents, CompareAtCents: l.OriginalPriceCents, RequiresShipping: l.RequiresShipping,
			RefundedQuantity: l.RefundedQuantity, FulfilledQuantity: l.FulfilledQuantity, Vendor: l.Vendor,
		}
	}
	return so
}

// orderTags are the merchant's tags followed by the store's own (upsell,
// draft_order, ...), each once: the export's Tags column holds every tag of
// the order.
func orderTags(tags, system []string) []string {
	out := make([]string, 0, len(tags)+len(system))
	seen := make(map[string]bool, cap(out))
	for _, t := range append(append([]string(nil), tags...), system...) {
		if t != "" && !seen[t] {
			seen[t] = true
			out = append(out, t)
		}
	}
	return out
}

func firstNonEmpty(s ...string) string {
	for _, v := range s {
		if v != "" {
			return v
		}
	}
	return ""
}
