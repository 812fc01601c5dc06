package salessheet

import (
	"slices"
	"testing"

	"storeadmin/internal/base/sheets"
)

func TestRows(t *testing.T) {
	rows := Rows([]Row{{ProductID: 7, VariantID: 9, Title: "Crème 🍦", VariantTitle: "Large", SKU: "0012", Vendor: "Acme",
		ProductType: "Food", Orders: 2, ItemsSold: 3, RefundedItems: 1, NetItemsSold: 2, GrossCents: 3000,
		LineDiscountCents: 300, ProductSalesCents: 2700, DiscountCents: 270, RefundedCents: 810, NetSalesCents: 1620,
		TaxCents: 130, TotalSalesCents: 1750}}, "JPY")
	want := []string{"7", "9", "Crème 🍦", "Large", "0012", "Acme", "Food", "2", "3", "1", "2",
		"3000", "300", "2700", "270", "810", "1620", "130", "1750"}
	if !slices.Equal(rows[0], want) {
		t.Errorf("row %q, want %q", rows[0], want)
	}
	types := Types()
	if len(Header()) != len(types) || len(types) != len(want) {
		t.Fatalf("header %d, types %d, row %d", len(Header()), len(types), len(want))
	}
	if types[colSKU] != sheets.Text || types[colOrders] != sheets.Number || types[colTotalSales] != sheets.Money {
		t.Errorf("types %v", types)
	}
}
