// Package salessheet writes the sales-by-product report as a sheet: one row
// per product (or SKU), as the report lists them, for a spreadsheet to sum
// and filter. Ids and counts are numbers, amounts are major units of the
// store's currency (sheets.Money, so a workbook shows them with its
// symbol); the report's totals are the sheet's column sums, not a row.
package salessheet

import (
	"strconv"

	"storeadmin/internal/base/sheets"
	"storeadmin/internal/base/sheets/ordersheet"
)

// Row is one row of the sheet; amounts are in minor units.
type Row struct {
	ProductID, VariantID                             int64
	Title, VariantTitle, SKU, Vendor, ProductType    string
	Orders, ItemsSold, RefundedItems, NetItemsSold   int64
	GrossCents, LineDiscountCents, ProductSalesCents int64
	DiscountCents, RefundedCents, NetSalesCents      int64
	TaxCents, TotalSalesCents                        int64
}

var header = []string{"Product id", "Variant id", "Product", "Variant", "SKU", "Vendor", "Product type",
	"Orders", "Items sold", "Items refunded", "Net items sold", "Gross sales", "Markdowns", "Product sales",
	"Discounts", "Refunds", "Net sales", "Taxes", "Total sales"}

const (
	colProductID = iota
	colVariantID
	colTitle
	colVariantTitle
	colSKU
	colVendor
	colProductType
	colOrders
	colItemsSold
	colRefundedItems
	colNetItemsSold
	colGross
	colLineDiscount
	colProductSales
	colDiscount
	colRefunded
	colNetSales
	colTax
	colTotalSales
	numCols
)

// Header is the sheet's first row.
func Header() []string { return append([]string(nil), header...) }

// Types says what each column of Header holds.
func Types() []sheets.Type {
	types := make([]sheets.Type, numCols)
	for c := colProductID; c < numCols; c++ {
		switch {
		case c >= colGross:
			types[c] = sheets.Money
		case c <= colVariantID || c >= colOrders:
			types[c] = sheets.Number
		}
	}
	return types
}

// Rows writes rs in Header's layout, amounts in currency's major units.
func Rows(rs []Row, currency string) [][]string {
	out := make([][]string, len(rs))
	for i, r := range rs {
		row := make([]string, numCols)
		row[colTitle], row[colVariantTitle], row[colSKU], row[colVendor], row[colProductType] =
			r.Title, r.VariantTitle, r.SKU, r.Vendor, r.ProductType
		for c, n := range map[int]int64{colProductID: r.ProductID, colVariantID: r.VariantID, colOrders: r.Orders,
			colItemsSold: r.ItemsSold, colRefundedItems: r.RefundedItems, colNetItemsSold: r.NetItemsSold} {
			row[c] = strconv.FormatInt(n, 10)
		}
		for c, n := range map[int]int64{colGross: r.GrossCents, colLineDiscount: r.LineDiscountCents,
			colProductSales: r.ProductSalesCents, colDiscount: r.DiscountCents, colRefunded: r.RefundedCents,
			colNetSales: r.NetSalesCents, colTax: r.TaxCents, colTotalSales: r.TotalSalesCents} {
			row[c] = ordersheet.FormatMoney(n, currency)
		}
		out[i] = row
	}
	return out
}
