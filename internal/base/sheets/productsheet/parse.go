package productsheet

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"storeadmin/internal/base/handle"
	"storeadmin/internal/base/sheets"
)

// columns holds the index of every column Parse reads, -1 when absent. Each
// field accepts the classic header and the current template's name.
type columns struct {
	handle, title, body, vendor, category, productType, tags   int
	published, status, seoTitle, seoDescription                int
	optionName, optionValue                                    [3]int
	sku, barcode, grams, tracker, qty, policy, continueSelling int
	price, compareAt, cost, requiresShipping, taxable          int
	imageSrc, imagePosition, imageAlt, variantImage            int
	weightUnit                                                 int
}

func findColumns(t *sheets.Table) columns {
	c := columns{
		handle:           t.Col("Handle", "URL handle"),
		title:            t.Col("Title"),
		body:             t.Col("Body (HTML)", "Description"),
		vendor:           t.Col("Vendor"),
		category:         t.Col("Product Category"),
		productType:      t.Col("Type"),
		tags:             t.Col("Tags"),
		published:        t.Col("Published", "Published on online store"),
		status:           t.Col("Status"),
		seoTitle:         t.Col("SEO Title"),
		seoDescription:   t.Col("SEO Description"),
		sku:              t.Col("Variant SKU", "SKU"),
		barcode:          t.Col("Variant Barcode", "Barcode"),
		grams:            t.Col("Variant Grams", "Weight value (grams)"),
		tracker:          t.Col("Variant Inventory Tracker", "Inventory tracker"),
		qty:              t.Col("Variant Inventory Qty", "Inventory quantity"),
		policy:           t.Col("Variant Inventory Policy"),
		continueSelling:  t.Col("Continue selling when out of stock"),
		price:            t.Col("Variant Price", "Price"),
		compareAt:        t.Col("Variant Compare At Price", "Compare-at price"),
		cost:             t.Col("Cost per item"),
		requiresShipping: t.Col("Variant Requires Shipping", "Requires shipping"),
		taxable:          t.Col("Variant Taxable", "Charge tax"),
		imageSrc:         t.Col("Image Src", "Product image URL"),
		imagePosition:    t.Col("Image Position"),
		imageAlt:         t.Col("Image Alt Text"),
		variantImage:     t.Col("Variant Image", "Variant image URL"),
		weightUnit:       t.Col("Variant Weight Unit", "Weight unit for display"),
	}
	for k := range 3 {
		c.optionName[k] = t.Col(fmt.Sprintf("Option%d Name", k+1))
		c.optionValue[k] = t.Col(fmt.Sprintf("Option%d Value", k+1))
	}
	return c
}

// read lists the columns Parse reads, to tell a row that carries something
// from one that only repeats the handle.
func (c columns) read() []int {
	all := []int{
		c.title, c.body, c.vendor, c.category, c.productType, c.tags, c.published, c.status,
		c.seoTitle, c.seoDescription, c.sku, c.barcode, c.grams, c.tracker, c.qty, c.policy,
		c.continueSelling, c.price, c.compareAt, c.cost, c.requiresShipping, c.taxable,
		c.imageSrc, c.imagePosition, c.imageAlt, c.variantImage, c.weightUnit,
	}
	all = append(all, c.optionName[:]...)
	all = append(all, c.optionValue[:]...)
	return slices.DeleteFunc(all, func(i int) bool { return i < 0 })
}

// Parse turns a product sheet into products and a report. It fails as a
// whole only when the file is not a product sheet (its header has no Handle
// or no Title column: a JSON body, say); everything else is reported per
// row, and a product with any error is left out entirely.
func Parse(t *sheets.Table, opt Options) (Result, error) {
	var res Result
	c := findColumns(t)
	var missing []string
	if c.handle < 0 {
		missing = append(missing, `the "Handle" column is missing (the current template calls it "URL handle"); it says which rows belong to which product`)
	}
	if c.title < 0 {
		missing = append(missing, `the "Title" column is missing`)
	}
	if err := sheets.NotThisSheet("product", missing); err != nil {
		return res, err
	}

	p := &parser{c: c, used: c.read(), byHandle: map[string]*group{}}
	for i := range t.Rows {
		p.row(t.Row(i))
	}

	res.Errors = p.loose
	for _, g := range p.groups {
		if len(g.errs) > 0 {
			res.Errors = append(res.Errors, g.errs...)
			res.Skipped = append(res.Skipped, Skip{Row: g.p.Row, Handle: g.p.Handle, Reason: "has errors"})
			continue
		}
		g.finishImages()
		res.Products = append(res.Products, g.p)
		res.Cleaned = append(res.Cleaned, g.cleaned...)
	}
	res.Renamed = dedupeSKUs(res.Products, opt.ExistingSKUs)
	slices.SortStableFunc(res.Errors, func(a, b Problem) int { return cmp.Compare(a.Row, b.Row) })
	slices.SortStableFunc(res.Cleaned, func(a, b Cleaned) int { return cmp.Compare(a.Row, b.Row) })
	return res, nil
}

type parser struct {
	c        columns
	used     []int
	groups   []*group
	byHandle map[string]*group
	loose    []Problem // errors of rows that belong to no product
}

// group collects the rows of one handle.
type group struct {
	p        Product
	errs     []Problem
	cleaned  []Cleaned
	combos   map[string]int // option values of each variant -> its row
	images   []pendingImage
	imageSet map[string]bool
	tooMany  bool
	// defaultOption is set when the first row names no option, so every
	// variant gets the single option Title = "Default Title".
	defaultOption bool
}

type pendingImage struct {
	Image
	key int // explicit position, or order of appearance
}

func (p *parser) row(r *sheets.Row) {
	c := p.c
	rawHandle := r.Cell(c.handle)
	carries := false
	for _, col := range p.used {
		if !r.Blank(col) {
			carries = true
			break
		}
	}
	if !carries {
		return // only a handle: nothing to import, nothing to complain about
	}
	if rawHandle == "" {
		r.Fail(c.handle, "the handle is empty; every row needs the handle of the product it belongs to")
		p.loose = append(p.loose, r.Problems()...)
		return
	}
	h := handle.From(rawHandle)
	if h == "" {
		r.Fail(c.handle, "the handle %q has no letters or digits", rawHandle)
		p.loose = append(p.loose, r.Problems()...)
		return
	}
	if len(h) > handle.MaxLength {
		r.Fail(c.handle, "the handle is longer than %d characters", handle.MaxLength)
		p.loose = append(p.loose, r.Problems()...)
		return
	}
	if h != rawHandle {
		r.Changed(c.handle, h)
	}

	g := p.byHandle[h]
	first := g == nil
	if first {
		g = &group{
			p:        Product{Row: r.Num, Handle: h},
			combos:   map[string]int{},
			imageSet: map[string]bool{},
		}
		p.byHandle[h] = g
		p.groups = append(p.groups, g)
		p.productFields(r, g)
	}
	p.variant(r, g, first)
	p.image(r, g)
	g.errs = append(g.errs, r.Problems()...)
	g.cleaned = append(g.cleaned, r.Cleaned()...)
}

// productFields reads the product-level cells of a product's first row.
func (p *parser) productFields(r *sheets.Row, g *group) {
	c, pr := p.c, &g.p
	pr.Title = r.Cell(c.title)
	if pr.Title == "" {
		r.Fail(c.title, "the title is empty; the first row of a product needs its title")
	}
	pr.BodyHTML = r.Cell(c.body)
	pr.Vendor = r.Cell(c.vendor)
	pr.Type = r.Cell(c.productType)
	pr.Category = r.Cell(c.category)
	pr.CategoryID = categoryID(pr.Category)
	pr.Tags = splitTags(r.Cell(c.tags))
	pr.SEOTitle = r.Cell(c.seoTitle)
	pr.SEODescription = r.Cell(c.seoDescription)

	pr.Status = "active"
	if s := r.Cell(c.status); s != "" {
		switch v := strings.ToLower(s); v {
		case "active", "draft", "archived":
			pr.Status = v
		default:
			r.Fail(c.status, "status %q must be active, draft or archived", s)
		}
	} else if s := r.Cell(c.published); s != "" {
		if v, ok := sheets.ParseBool(s); !ok {
			r.Fail(c.published, "%q must be TRUE or FALSE", s)
		} else if !v {
			pr.Status = "draft"
		}
	}

	var names []string
	for k := range 3 {
		name := r.Cell(c.optionName[k])
		if name == "" {
			// A gap ("Option2 name" without "Option1 name") is caught
			// below when the value under the missing name is read.
			break
		}
		names = append(names, name)
	}
	for k := len(names); k < 3; k++ {
		if later := r.Cell(c.optionName[k]); later != "" && k > len(names) {
			r.Fail(c.optionName[k], "Option%d name is set but Option%d name is empty", k+1, len(names)+1)
		}
	}
	for _, n := range names {
		pr.Options = append(pr.Options, Option{Name: n})
	}
	if len(pr.Options) == 0 {
		// The platform's convention for a product without options.
		pr.Options = []Option{{Name: "Title"}}
		g.defaultOption = true
	}
}

// variant reads the variant of a row: always on a product's first row, and
// on later rows that have an option value, a SKU or a price.
func (p *parser) variant(r *sheets.Row, g *group, first bool) {
	c, pr := p.c, &g.p
	var values [3]string
	for k := range 3 {
		values[k] = r.Cell(c.optionValue[k])
	}
	sku := r.Cell(c.sku)
	price := r.Cell(c.price)
	if !first && values == [3]string{} && sku == "" && price == "" {
		for _, col := range []int{c.qty, c.grams, c.barcode, c.compareAt, c.cost, c.variantImage} {
			if r.Cell(col) != "" {
				r.Fail(col, "this row has variant details but no option value, SKU or price, so it is unclear which variant they belong to")
				return
			}
		}
		return
	}

	v := Variant{Row: r.Num, SKU: sku, Barcode: r.Cell(c.barcode)}
	for k := range 3 {
		switch {
		case k == 0 && g.defaultOption:
			if values[0] != "" && values[0] != "Default Title" {
				r.Fail(c.optionValue[0], "Option1 value is set but the product has no Option1 name (option names come from the product's first row)")
			}
			values[0] = "Default Title"
		case k < len(pr.Options):
			if values[k] == "" {
				r.Fail(c.optionValue[k], "the value of option %q is empty", pr.Options[k].Name)
			}
		case values[k] != "":
			r.Fail(c.optionValue[k], "Option%d value is set but the product has no Option%d name (option names come from the product's first row)", k+1, k+1)
		}
	}
	v.Option1, v.Option2, v.Option3 = values[0], values[1], values[2]

	key := strings.Join(values[:], "\x00")
	if prev, dup := g.combos[key]; dup {
		r.Fail(c.optionValue[0], "duplicate variant: %s is already on row %d", describe(pr.Options, values), prev)
	} else {
		g.combos[key] = r.Num
		for k := range pr.Options {
			if values[k] != "" && !slices.Contains(pr.Options[k].Values, values[k]) {
				pr.Options[k].Values = append(pr.Options[k].Values, values[k])
			}
		}
	}

	if s := r.Cell(c.grams); s != "" {
		n, rounded, err := parseRoundedInt(s)
		switch {
		case err != nil:
			r.Fail(c.grams, "weight %s", err)
		case n < 0:
			r.Fail(c.grams, "the weight cannot be negative")
		default:
			v.Grams = n
			if rounded {
				r.Changed(c.grams, strconv.FormatInt(n, 10))
			}
		}
	}

	if s := r.Cell(c.tracker); s != "" {
		b, ok := sheets.ParseBool(s)
		v.TrackInventory = b || !ok // "shopify" or any other tracker's name means tracked
	}
	if s := r.Cell(c.qty); s != "" {
		if n, err := parseInt(s); err != nil {
			r.Fail(c.qty, "inventory quantity %s", err)
		} else {
			v.InventoryQty = n
		}
	}
	v.InventoryPolicy = "deny"
	if s := r.Cell(c.policy); s != "" {
		switch l := strings.ToLower(s); l {
		case "deny", "continue":
			v.InventoryPolicy = l
		default:
			r.Fail(c.policy, "inventory policy %q must be deny or continue", s)
		}
	} else if s := r.Cell(c.continueSelling); s != "" {
		if l := strings.ToLower(s); l == "deny" || l == "continue" {
			v.InventoryPolicy = l
		} else if b, ok := sheets.ParseBool(s); ok {
			if b {
				v.InventoryPolicy = "continue"
			}
		} else {
			r.Fail(c.continueSelling, "%q must be TRUE or FALSE", s)
		}
	}

	if price == "" {
		r.Fail(c.price, "the price is empty")
	} else if cents, err := parseMoney(price); err != nil {
		r.Fail(c.price, "price %s", err)
	} else if cents < 0 {
		r.Fail(c.price, "the price cannot be negative")
	} else {
		v.PriceCents = cents
	}
	v.CompareAtCents = optionalMoney(r, c.compareAt, "compare-at price")
	v.CostCents = optionalMoney(r, c.cost, "cost per item")

	v.RequiresShipping = boolDefaultTrue(r, c.requiresShipping)
	v.Taxable = boolDefaultTrue(r, c.taxable)

	v.WeightUnit = "g"
	if s := r.Cell(c.weightUnit); s != "" {
		switch l := strings.ToLower(s); l {
		case "g", "kg", "lb", "oz":
			v.WeightUnit = l
		default:
			r.Fail(c.weightUnit, "weight unit %q must be g, kg, lb or oz", s)
		}
	}

	if s := r.Cell(c.variantImage); s != "" {
		if !validURL(s) {
			r.Fail(c.variantImage, "the variant image %q is not a web address (http:// or https://)", s)
		} else {
			v.ImageSrc = s
		}
	}

	if len(pr.Variants) == MaxVariants {
		if !g.tooMany {
			g.tooMany = true
			r.Fail(-1, "the product has more than %d variants", MaxVariants)
		}
		return
	}
	pr.Variants = append(pr.Variants, v)
}

func optionalMoney(r *sheets.Row, col int, what string) *int64 {
	s := r.Cell(col)
	if s == "" {
		return nil
	}
	cents, err := parseMoney(s)
	if err != nil {
		r.Fail(col, "%s %s", what, err)
		return nil
	}
	if cents < 0 {
		r.Fail(col, "the %s cannot be negative", what)
		return nil
	}
	return &cents
}

func boolDefaultTrue(r *sheets.Row, col int) bool {
	s := r.Cell(col)
	if s == "" {
		return true
	}
	v, ok := sheets.ParseBool(s)
	if !ok {
		r.Fail(col, "%q must be TRUE or FALSE", s)
		return true
	}
	return v
}

// image reads the product image of a row, if any.
func (p *parser) image(r *sheets.Row, g *group) {
	c := p.c
	src := r.Cell(c.imageSrc)
	if src == "" {
		return
	}
	if !validURL(src) {
		r.Fail(c.imageSrc, "the image %q is not a web address (http:// or https://)", src)
		return
	}
	key := len(g.images) + 1
	if s := r.Cell(c.imagePosition); s != "" {
		n, err := parseInt(s)
		if err != nil || n < 1 {
			r.Fail(c.imagePosition, "image position %q must be a whole number from 1", s)
			return
		}
		key = int(min(n, 1<<20))
	}
	alt := r.Cell(c.imageAlt)
	if g.imageSet[src] {
		return
	}
	g.imageSet[src] = true
	g.images = append(g.images, pendingImage{Image: Image{Src: src, Alt: alt}, key: key})
}

// finishImages orders the images by position, adds variant images that were
// not listed as product images, and numbers them 1..n.
func (g *group) finishImages() {
	slices.SortStableFunc(g.images, func(a, b pendingImage) int { return cmp.Compare(a.key, b.key) })
	for _, img := range g.images {
		g.p.Images = append(g.p.Images, img.Image)
	}
	for _, v := range g.p.Variants {
		if v.ImageSrc != "" && !g.imageSet[v.ImageSrc] {
			g.imageSet[v.ImageSrc] = true
			g.p.Images = append(g.p.Images, Image{Src: v.ImageSrc})
		}
	}
	for i := range g.p.Images {
		g.p.Images[i].Position = i + 1
	}
}

func describe(options []Option, values [3]string) string {
	parts := make([]string, 0, len(options))
	for k, o := range options {
		parts = append(parts, fmt.Sprintf("%s %q", o.Name, values[k]))
	}
	return strings.Join(parts, ", ")
}

// dedupeSKUs renames SKUs another handle already owns. The candidates skip
// every SKU in the store and in the file, so a rename never collides with a
// SKU that appears further down.
func dedupeSKUs(products []Product, existing map[string]string) []Renamed {
	inFile := map[string]bool{}
	for _, p := range products {
		for _, v := range p.Variants {
			if v.SKU != "" {
				inFile[v.SKU] = true
			}
		}
	}
	used := map[string]bool{}
	var renamed []Renamed
	for pi := range products {
		p := &products[pi]
		for vi := range p.Variants {
			v := &p.Variants[vi]
			if v.SKU == "" {
				continue
			}
			owner, inStore := existing[v.SKU]
			if (inStore && owner != p.Handle) || used[v.SKU] {
				to := ""
				for n := 2; ; n++ {
					to = v.SKU + "-" + strconv.Itoa(n)
					if _, taken := existing[to]; !taken && !inFile[to] && !used[to] {
						break
					}
				}
				renamed = append(renamed, Renamed{Row: v.Row, Handle: p.Handle, From: v.SKU, To: to})
				v.SKU = to
			}
			used[v.SKU] = true
		}
	}
	return renamed
}

// categoryID extracts the Google product taxonomy id from "1604" or
// "1604 - Apparel & Accessories > Clothing".
func categoryID(s string) int64 {
	digits := s
	if i := strings.IndexFunc(s, func(r rune) bool { return r < '0' || r > '9' }); i >= 0 {
		rest := strings.TrimLeft(s[i:], " ")
		if i == 0 || !strings.HasPrefix(rest, "- ") {
			return 0
		}
		digits = s[:i]
	}
	if len(digits) > 15 {
		return 0
	}
	n, err := strconv.ParseInt(digits, 10, 64)
	if err != nil {
		return 0
	}
	return n
}

// splitTags splits a tags cell on commas, trimming each tag and dropping
// empty ones and repeats (tags are matched without regard to case, so the
// first spelling wins).
func splitTags(s string) []string {
	if s == "" {
		return nil
	}
	var tags []string
	seen := map[string]bool{}
	for tag := range strings.SplitSeq(s, ",") {
		tag = strings.TrimSpace(tag)
		key := strings.ToLower(tag)
		if tag == "" || seen[key] {
			continue
		}
		seen[key] = true
		tags = append(tags, tag)
	}
	return tags
}
