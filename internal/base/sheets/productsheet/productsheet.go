// Package productsheet reads and writes products in the layout of Shopify's
// product CSV, the de-facto exchange format of online stores: merchants
// moving in bring one, suppliers and feed tools produce one, and a file this
// package writes can be taken anywhere.
//
// Both generations of the layout are read: the classic export header
// ("Handle", "Body (HTML)", "Variant SKU", "Variant Price", ...) and the
// renamed columns of the platform's current template ("URL handle",
// "Description", "SKU", "Price", "Continue selling when out of stock", ...).
// Files are written in the classic layout, which every importer understands.
//
// Parse never stops at the first mistake: it reports every problem with its
// row and column so the person can fix the file in one go, and imports each
// product all-or-nothing, since half a product (some variants missing) is
// worse than none.
package productsheet

import "storeadmin/internal/base/sheets"

// Product is one product: the fields of its first row plus its variants and
// images from all of its rows.
type Product struct {
	Row            int // first spreadsheet row of this product
	Handle         string
	Title          string
	BodyHTML       string
	Vendor         string
	Type           string
	Category       string   // the "Product Category" cell as written
	CategoryID     int64    // Google product taxonomy id when Category is "1604" or "1604 - Apparel & ..."; else 0
	Tags           []string // split on commas, trimmed, de-duplicated (ignoring case), empty ones dropped
	Status         string   // "active", "draft" or "archived"
	SEOTitle       string
	SEODescription string
	Options        []Option // up to 3; a product without options has the single option "Title" = "Default Title"
	Variants       []Variant
	Images         []Image // in position order, de-duplicated by Src, positions 1..n
}

// Option is a product option and its values in first-seen order.
type Option struct {
	Name   string
	Values []string
}

// Variant is one purchasable combination of option values.
type Variant struct {
	Row              int
	Option1          string
	Option2          string
	Option3          string
	SKU              string
	Barcode          string
	Grams            int64
	TrackInventory   bool
	InventoryQty     int64
	InventoryPolicy  string // "deny" or "continue" selling when out of stock
	PriceCents       int64
	CompareAtCents   *int64
	CostCents        *int64
	RequiresShipping bool   // true when the cell is empty
	Taxable          bool   // true when the cell is empty
	ImageSrc         string // the variant's image; always also among the product's Images
	WeightUnit       string // unit the weight is shown in: g, kg, lb or oz
}

// Image is a product image.
type Image struct {
	Src      string
	Position int
	Alt      string
}

// Problem, Skip and Cleaned are the report types shared by every sheet
// import.
type (
	Problem = sheets.Problem
	Skip    = sheets.Skip
	Cleaned = sheets.Cleaned
)

// Renamed reports a SKU that was changed because another product already
// uses it: SKUs identify stock in warehouses and feeds, so two products must
// never share one.
type Renamed struct {
	Row    int    `json:"row"`
	Handle string `json:"handle"`
	From   string `json:"from"`
	To     string `json:"to"`
}

// Result is everything Parse found: the products that can be imported and
// the report for the person who uploaded the file.
type Result struct {
	Products []Product
	Errors   []Problem // sorted by row
	Skipped  []Skip    // products left out because of errors, in file order
	Cleaned  []Cleaned // changed cells of the imported products, sorted by row
	Renamed  []Renamed
}

// Options adjust Parse to the store being imported into.
type Options struct {
	// ExistingSKUs maps SKUs already in the store to the handle of the
	// product that owns them. A SKU in the file that another handle already
	// owns (in the store or earlier in the file) is renamed to SKU-2, SKU-3,
	// ... (the first free one) and reported in Result.Renamed.
	ExistingSKUs map[string]string
}

// MaxVariants is the most variants one product may have, the platform's
// classic limit and a guard against a runaway file.
const MaxVariants = 100
