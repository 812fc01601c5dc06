package productsheet

import (
	"strconv"
	"strings"

	"storeadmin/internal/base/sheets"
)

// header is the classic product CSV header, in the platform's order.
var header = []string{
	"Handle", "Title", "Body (HTML)", "Vendor", "Product Category", "Type", "Tags", "Published",
	"Option1 Name", "Option1 Value", "Option2 Name", "Option2 Value", "Option3 Name", "Option3 Value",
	"Variant SKU", "Variant Grams", "Variant Inventory Tracker", "Variant Inventory Qty",
	"Variant Inventory Policy", "Variant Fulfillment Service", "Variant Price", "Variant Compare At Price",
	"Variant Requires Shipping", "Variant Taxable", "Variant Barcode", "Image Src", "Image Position",
	"Image Alt Text", "Gift Card", "SEO Title", "SEO Description", "Variant Image", "Variant Weight Unit",
	"Cost per item", "Status",
}

// Column positions in header.
const (
	colHandle = iota
	colTitle
	colBody
	colVendor
	colCategory
	colType
	colTags
	colPublished
	colOption1Name
	colOption1Value
	colOption2Name
	colOption2Value
	colOption3Name
	colOption3Value
	colSKU
	colGrams
	colTracker
	colQty
	colPolicy
	colFulfillment
	colPrice
	colCompareAt
	colRequiresShipping
	colTaxable
	colBarcode
	colImageSrc
	colImagePosition
	colImageAlt
	colGiftCard
	colSEOTitle
	colSEODescription
	colVariantImage
	colWeightUnit
	colCost
	colStatus
	numCols
)

// Header returns the classic product CSV header. It is the layout Rows
// writes, chosen because every importer of the platform's files reads it.
func Header() []string {
	return append([]string(nil), header...)
}

// Types says what each column of Header holds, for a workbook to store
// prices, counts and flags as such.
func Types() []sheets.Type {
	types := make([]sheets.Type, numCols)
	for _, c := range []int{colPrice, colCompareAt, colCost} {
		types[c] = sheets.Money
	}
	for _, c := range []int{colGrams, colQty, colImagePosition} {
		types[c] = sheets.Number
	}
	for _, c := range []int{colPublished, colRequiresShipping, colTaxable, colGiftCard} {
		types[c] = sheets.Bool
	}
	return types
}

// Rows writes products in the classic layout: one row per variant, the
// first carrying the product fields and the first image, then one row per
// remaining image. Prices are written as "12.50" and booleans as TRUE/FALSE,
// which every spreadsheet and importer reads the same way.
func Rows(products []Product) [][]string {
	var rows [][]string
	for _, p := range products {
		options := p.Options
		if len(options) == 0 {
			options = []Option{{Name: "Title", Values: []string{"Default Title"}}}
		}
		variants := p.Variants
		if len(variants) == 0 {
			variants = []Variant{{}} // still write the product's own fields
		}
		for i, v := range variants {
			row := make([]string, numCols)
			row[colHandle] = p.Handle
			if i == 0 {
				row[colTitle] = p.Title
				row[colBody] = p.BodyHTML
				row[colVendor] = p.Vendor
				row[colCategory] = p.Category
				if row[colCategory] == "" && p.CategoryID != 0 {
					row[colCategory] = strconv.FormatInt(p.CategoryID, 10)
				}
				row[colType] = p.Type
				row[colTags] = strings.Join(p.Tags, ", ")
				row[colPublished] = boolCell(p.Status == "" || p.Status == "active")
				row[colGiftCard] = "FALSE"
				row[colSEOTitle] = p.SEOTitle
				row[colSEODescription] = p.SEODescription
				row[colStatus] = p.Status
				for k, o := range options[:min(3, len(options))] {
					row[colOption1Name+2*k] = o.Name
				}
				if len(p.Images) > 0 {
					setImage(row, p.Images[0])
				}
			}
			if len(p.Variants) > 0 {
				setVariant(row, v, options)
			}
			rows = append(rows, row)
		}
		for _, img := range p.Images[min(1, len(p.Images)):] {
			row := make([]string, numCols)
			row[colHandle] = p.Handle
			setImage(row, img)
			rows = append(rows, row)
		}
	}
	return rows
}

func setImage(row []string, img Image) {
	row[colImageSrc] = img.Src
	if img.Position > 0 {
		row[colImagePosition] = strconv.Itoa(img.Position)
	}
	row[colImageAlt] = img.Alt
}

func setVariant(row []string, v Variant, options []Option) {
	values := [3]string{v.Option1, v.Option2, v.Option3}
	if len(options) == 1 && options[0].Name == "Title" && values[0] == "" {
		values[0] = "Default Title"
	}
	for k := range min(3, len(options)) {
		row[colOption1Value+2*k] = values[k]
	}
	row[colSKU] = v.SKU
	row[colGrams] = strconv.FormatInt(v.Grams, 10)
	if v.TrackInventory {
		row[colTracker] = "shopify"
	}
	row[colQty] = strconv.FormatInt(v.InventoryQty, 10)
	row[colPolicy] = v.InventoryPolicy
	if row[colPolicy] == "" {
		row[colPolicy] = "deny"
	}
	row[colFulfillment] = "manual"
	row[colPrice] = formatCents(v.PriceCents)
	if v.CompareAtCents != nil {
		row[colCompareAt] = formatCents(*v.CompareAtCents)
	}
	if v.CostCents != nil {
		row[colCost] = formatCents(*v.CostCents)
	}
	row[colRequiresShipping] = boolCell(v.RequiresShipping)
	row[colTaxable] = boolCell(v.Taxable)
	row[colBarcode] = v.Barcode
	row[colVariantImage] = v.ImageSrc
	row[colWeightUnit] = v.WeightUnit
	if row[colWeightUnit] == "" {
		row[colWeightUnit] = "g"
	}
}

func boolCell(b bool) string {
	if b {
		return "TRUE"
	}
	return "FALSE"
}

// Template returns a small example sheet for people starting from scratch:
// one product with two options, three variants and two images, and one
// simple product. It is built by Rows, so it is exactly what an export looks
// like and imports without errors.
func Template() (header []string, rows [][]string) {
	return Header(), Rows(templateProducts())
}

func templateProducts() []Product {
	cents := func(c int64) *int64 { return &c }
	tee := "https://cdn.example.com/images/classic-tee"
	return []Product{
		{
			Handle:         "classic-tee",
			Title:          "Classic Tee",
			BodyHTML:       "<p>Soft organic cotton tee with a relaxed fit.</p>",
			Vendor:         "Acme Apparel",
			Category:       "212 - Apparel & Accessories > Clothing > Shirts & Tops",
			CategoryID:     212,
			Type:           "T-Shirts",
			Tags:           []string{"cotton", "summer"},
			Status:         "active",
			SEOTitle:       "Classic Tee in organic cotton",
			SEODescription: "A soft everyday tee in organic cotton.",
			Options: []Option{
				{Name: "Size", Values: []string{"S", "M"}},
				{Name: "Color", Values: []string{"White", "Black"}},
			},
			Variants: []Variant{
				{Option1: "S", Option2: "White", SKU: "TEE-S-WHT", Barcode: "4006381333931", Grams: 180, TrackInventory: true, InventoryQty: 12, InventoryPolicy: "deny", PriceCents: 1900, CompareAtCents: cents(2500), CostCents: cents(750), RequiresShipping: true, Taxable: true, ImageSrc: tee + "-white.jpg", WeightUnit: "g"},
				{Option1: "M", Option2: "White", SKU: "TEE-M-WHT", Grams: 200, TrackInventory: true, InventoryQty: 8, InventoryPolicy: "deny", PriceCents: 1900, CompareAtCents: cents(2500), CostCents: cents(750), RequiresShipping: true, Taxable: true, ImageSrc: tee + "-white.jpg", WeightUnit: "g"},
				{Option1: "M", Option2: "Black", SKU: "TEE-M-BLK", Grams: 200, TrackInventory: true, InventoryQty: 0, InventoryPolicy: "continue", PriceCents: 2100, CostCents: cents(800), RequiresShipping: true, Taxable: true, ImageSrc: tee + "-black.jpg", WeightUnit: "g"},
			},
			Images: []Image{
				{Src: tee + "-white.jpg", Position: 1, Alt: "Classic Tee in white"},
				{Src: tee + "-black.jpg", Position: 2, Alt: "Classic Tee in black"},
			},
		},
		{
			Handle:   "gift-mug",
			Title:    "Gift Mug",
			BodyHTML: "<p>Stoneware mug, 350 ml.</p>",
			Vendor:   "Acme Home",
			Type:     "Mugs",
			Tags:     []string{"gift"},
			Status:   "active",
			Options:  []Option{{Name: "Title", Values: []string{"Default Title"}}},
			Variants: []Variant{
				{Option1: "Default Title", SKU: "MUG-350", Grams: 350, TrackInventory: true, InventoryQty: 25, InventoryPolicy: "deny", PriceCents: 1250, RequiresShipping: true, Taxable: true, WeightUnit: "g"},
			},
			Images: []Image{{Src: "https://cdn.example.com/images/gift-mug.jpg", Position: 1, Alt: "Gift Mug"}},
		},
	}
}
