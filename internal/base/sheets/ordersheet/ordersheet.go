// Package ordersheet writes orders in the layout of Shopify's orders CSV
// export, the sheet accountants, fulfilment partners and reporting tools
// already know how to read: one row per line item, the column names and
// order of that export for everything the store records, and a few columns
// of its own at the end (order status, cancel reason, UTM source, medium and
// campaign).
//
// Order-level columns (statuses, money, addresses, payment, notes, tags,
// ...) are written on the first row of each order only and left empty on
// its following rows, as Shopify does, so that summing a money column counts
// every order once. Name, Email, Created at and Id are written on every row,
// so each row can be told apart, filtered and sorted on its own; the
// Lineitem columns and Vendor belong to the row's line. An order without
// lines still gets one row, with the line columns empty.
//
// Money is written in major units with the currency's decimals ("12.50";
// "1200" for yen), times as "2006-01-02 15:04:05 -0700" in the location
// given, booleans as the export writes them (true/false, yes/no).
//
// The package only lays out cells (and says with Types what they hold): the
// protection against formula injection is applied by sheets.WriteCSV, and
// sheets.WriteXLSX stores text as text.
package ordersheet

import (
	"strconv"
	"strings"
	"time"

	"storeadmin/internal/base/sheets"
)

// Order is one order with what the sheet shows of it.
type Order struct {
	ID                int64
	Name              string // the number as shown: #1001
	Email             string
	FinancialStatus   string
	PaidAt            *time.Time
	FulfillmentStatus string
	FulfilledAt       *time.Time
	AcceptsMarketing  *bool // nil when the order has no customer: the cell is left empty
	Currency          string
	SubtotalCents     int64
	ShippingCents     int64
	TaxCents          int64
	TotalCents        int64
	DiscountCode      string
	DiscountCents     int64
	ShippingMethod    string
	CreatedAt         time.Time
	Billing           Address
	Shipping          Address
	Note              string
	CancelledAt       *time.Time
	PaymentMethod     string
	PaymentReference  string
	RefundedCents     int64
	Tags              []string
	Source            string
	TipCents          int64
	Phone             string
	Status            string // open, archived or cancelled
	CancelReason      string
	UTMSource         string
	UTMMedium         string
	UTMCampaign       string
	Lines             []Line
}

// Line is one line item of an order.
type Line struct {
	Quantity          int64
	Title             string
	VariantTitle      string
	SKU               string
	PriceCents        int64
	CompareAtCents    *int64 // the price before a discount or bundle lowered it
	RequiresShipping  bool
	RefundedQuantity  int64
	FulfilledQuantity int64
	Vendor            string
}

// Address is a billing or shipping address, as read by AddressFrom.
type Address struct {
	Name     string
	Address1 string
	Address2 string
	Company  string
	City     string
	Zip      string
	Province string
	Country  string
	Phone    string
}

// Street is the address lines joined as Shopify's "Street" column joins
// them: "12 High St, Flat 3".
func (a Address) Street() string {
	switch {
	case a.Address1 == "":
		return a.Address2
	case a.Address2 == "":
		return a.Address1
	}
	return a.Address1 + ", " + a.Address2
}

// header is the layout Rows writes: Shopify's order export columns the
// store has data for, in that export's order, then this store's own.
var header = []string{
	"Name", "Email", "Financial Status", "Paid at", "Fulfillment Status", "Fulfilled at",
	"Accepts Marketing", "Currency", "Subtotal", "Shipping", "Taxes", "Total", "Discount Code",
	"Discount Amount", "Shipping Method", "Created at",
	"Lineitem quantity", "Lineitem name", "Lineitem price", "Lineitem compare at price",
	"Lineitem sku", "Lineitem requires shipping", "Lineitem fulfillment status",
	"Billing Name", "Billing Street", "Billing Address1", "Billing Address2", "Billing Company",
	"Billing City", "Billing Zip", "Billing Province", "Billing Country", "Billing Phone",
	"Shipping Name", "Shipping Street", "Shipping Address1", "Shipping Address2", "Shipping Company",
	"Shipping City", "Shipping Zip", "Shipping Province", "Shipping Country", "Shipping Phone",
	"Notes", "Cancelled at", "Payment Method", "Payment Reference", "Refunded Amount", "Vendor",
	"Id", "Tags", "Source", "Tip", "Phone",
	"Order status", "Cancel reason", "UTM source", "UTM medium", "UTM campaign",
}

// Column positions in header.
const (
	colName = iota
	colEmail
	colFinancialStatus
	colPaidAt
	colFulfillmentStatus
	colFulfilledAt
	colAcceptsMarketing
	colCurrency
	colSubtotal
	colShipping
	colTaxes
	colTotal
	colDiscountCode
	colDiscountAmount
	colShippingMethod
	colCreatedAt
	colLineQuantity
	colLineName
	colLinePrice
	colLineCompareAt
	colLineSKU
	colLineRequiresShipping
	colLineFulfillmentStatus
)

// An address takes addressCols columns: Name, Street, Address1, Address2,
// Company, City, Zip, Province, Country, Phone.
const (
	addressCols     = 10
	colBillingName  = colLineFulfillmentStatus + 1
	colShippingName = colBillingName + addressCols
)

const (
	colNotes = colShippingName + addressCols + iota
	colCancelledAt
	colPaymentMethod
	colPaymentReference
	colRefundedAmount
	colVendor
	colID
	colTags
	colSource
	colTip
	colPhone
	colStatus
	colCancelReason
	colUTMSource
	colUTMMedium
	colUTMCampaign
	numCols
)

// Header returns the column names Rows writes.
func Header() []string {
	return append([]string(nil), header...)
}

// Types says what each column of Header holds, for a workbook to store
// amounts, counts, flags and times as such.
func Types() []sheets.Type {
	types := make([]sheets.Type, numCols)
	for _, c := range []int{colSubtotal, colShipping, colTaxes, colTotal, colDiscountAmount, colLinePrice,
		colLineCompareAt, colRefundedAmount, colTip} {
		types[c] = sheets.Money
	}
	for _, c := range []int{colPaidAt, colFulfilledAt, colCreatedAt, colCancelledAt} {
		types[c] = sheets.Time
	}
	types[colCurrency] = sheets.CurrencyCode
	types[colAcceptsMarketing] = sheets.Bool
	types[colLineRequiresShipping] = sheets.Bool
	types[colLineQuantity] = sheets.Number
	types[colID] = sheets.Number
	return types
}

// Rows writes orders in Header's layout, one row per line item (one row for
// an order without lines), with times shown in loc (UTC when nil).
func Rows(orders []Order, loc *time.Location) [][]string {
	if loc == nil {
		loc = time.UTC
	}
	n := 0
	for _, o := range orders {
		n += max(1, len(o.Lines))
	}
	rows := make([][]string, 0, n)
	for _, o := range orders {
		lines := o.Lines
		if len(lines) == 0 {
			lines = []Line{{}}
		}
		created := FormatTime(&o.CreatedAt, loc)
		id := strconv.FormatInt(o.ID, 10)
		for i, l := range lines {
			row := make([]string, numCols)
			row[colName] = o.Name
			row[colEmail] = o.Email
			row[colCreatedAt] = created
			row[colID] = id
			if i == 0 {
				setOrder(row, &o, loc)
			}
			if len(o.Lines) > 0 {
				setLine(row, l, o.Currency)
			}
			rows = append(rows, row)
		}
	}
	return rows
}

// setOrder fills the order-level cells of an order's first row.
func setOrder(row []string, o *Order, loc *time.Location) {
	money := func(c int64) string { return FormatMoney(c, o.Currency) }
	row[colFinancialStatus] = o.FinancialStatus
	row[colPaidAt] = FormatTime(o.PaidAt, loc)
	row[colFulfillmentStatus] = o.FulfillmentStatus
	row[colFulfilledAt] = FormatTime(o.FulfilledAt, loc)
	if o.AcceptsMarketing != nil {
		row[colAcceptsMarketing] = yesNo(*o.AcceptsMarketing)
	}
	row[colCurrency] = o.Currency
	row[colSubtotal] = money(o.SubtotalCents)
	row[colShipping] = money(o.ShippingCents)
	row[colTaxes] = money(o.TaxCents)
	row[colTotal] = money(o.TotalCents)
	row[colDiscountCode] = o.DiscountCode
	row[colDiscountAmount] = money(o.DiscountCents)
	row[colShippingMethod] = o.ShippingMethod
	setAddress(row[colBillingName:colBillingName+addressCols], o.Billing)
	setAddress(row[colShippingName:colShippingName+addressCols], o.Shipping)
	row[colNotes] = o.Note
	row[colCancelledAt] = FormatTime(o.CancelledAt, loc)
	row[colPaymentMethod] = o.PaymentMethod
	row[colPaymentReference] = o.PaymentReference
	row[colRefundedAmount] = money(o.RefundedCents)
	row[colTags] = strings.Join(o.Tags, ", ")
	row[colSource] = o.Source
	row[colTip] = money(o.TipCents)
	row[colPhone] = o.Phone
	row[colStatus] = o.Status
	row[colCancelReason] = o.CancelReason
	row[colUTMSource] = o.UTMSource
	row[colUTMMedium] = o.UTMMedium
	row[colUTMCampaign] = o.UTMCampaign
}

func setAddress(cells []string, a Address) {
	cells[0] = a.Name
	cells[1] = a.Street()
	cells[2] = a.Address1
	cells[3] = a.Address2
	cells[4] = a.Company
	cells[5] = a.City
	cells[6] = a.Zip
	cells[7] = a.Province
	cells[8] = a.Country
	cells[9] = a.Phone
}

func setLine(row []string, l Line, currency string) {
	row[colLineQuantity] = strconv.FormatInt(l.Quantity, 10)
	row[colLineName] = LineName(l.Title, l.VariantTitle)
	row[colLinePrice] = FormatMoney(l.PriceCents, currency)
	if l.CompareAtCents != nil {
		row[colLineCompareAt] = FormatMoney(*l.CompareAtCents, currency)
	}
	row[colLineSKU] = l.SKU
	row[colLineRequiresShipping] = strconv.FormatBool(l.RequiresShipping)
	row[colLineFulfillmentStatus] = LineFulfillmentStatus(l)
	row[colVendor] = l.Vendor
}

// LineName is the line's product title with its variant title, as the
// export names lines: "Classic Tee - M / Black". A variant title of
// "Default Title" (a product without options) is left out.
func LineName(title, variantTitle string) string {
	if variantTitle == "" || variantTitle == "Default Title" {
		return title
	}
	if title == "" {
		return variantTitle
	}
	return title + " - " + variantTitle
}

// LineFulfillmentStatus is how much of a line has shipped: fulfilled once
// everything not refunded has shipped, partial when some has, pending when
// nothing has and something is still owed, and refunded when the whole
// line was refunded before any of it shipped.
func LineFulfillmentStatus(l Line) string {
	owed := max(0, l.Quantity-l.RefundedQuantity)
	switch {
	case l.FulfilledQuantity > 0 && l.FulfilledQuantity >= owed:
		return "fulfilled"
	case l.FulfilledQuantity > 0:
		return "partial"
	case owed == 0 && l.Quantity > 0:
		return "refunded"
	}
	return "pending"
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}
