package resolvers

import (
	"context"
	"io"
	"math"
	"regexp"
	"sort"
	"strconv"

	"github.com/99designs/gqlgen/graphql"
	"github.com/uptrace/bun"

	"storeadmin/graph"
	"storeadmin/internal/audit"
	"storeadmin/internal/base/apperr"
	"storeadmin/internal/base/sheets"
	"storeadmin/internal/base/sheets/productsheet"
	"storeadmin/models"
)

// maxSheetBytes bounds an uploaded sheet.
const maxSheetBytes = 32 << 20

// Content types of the sheets this service writes.
const (
	csvType  = "text/csv; charset=utf-8"
	xlsxType = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"
)

// sheetDownload writes a table as CSV (the default) or XLSX and stores it
// as a short-lived download named base plus the time and extension. types
// says what each column holds; a workbook shows amounts in the store's
// currency.
func (r *Resolver) sheetDownload(ctx context.Context, storeID int64, base string, format *graph.SheetFormat, header []string, types []sheets.Type, rows [][]string) (*graph.Download, error) {
	if format == nil || *format != graph.SheetFormatXlsx {
		return r.download(ctx, storeID, base, format, func(w io.Writer) error {
			return sheets.WriteCSV(w, header, rows)
		})
	}
	store, err := models.GetStore(ctx, r.db(ctx), storeID)
	if err != nil {
		return nil, err
	}
	layout := sheets.Layout{Types: types, Currency: store.Currency}
	return r.download(ctx, storeID, base, format, func(w io.Writer) error {
		return sheets.WriteXLSX(w, base, header, rows, layout)
	})
}

// download stores what write writes, a sheet in format (CSV unless XLSX),
// as a short-lived download named base plus the time and extension.
func (r *Resolver) download(ctx context.Context, storeID int64, base string, format *graph.SheetFormat, write func(io.Writer) error) (*graph.Download, error) {
	name := base + "_" + r.Now().UTC().Format("20060102-150405")
	contentType := csvType
	if format != nil && *format == graph.SheetFormatXlsx {
		name += ".xlsx"
		contentType = xlsxType
	} else {
		name += ".csv"
	}
	d, err := r.Media.WriteDownload(ctx, storeID, name, contentType, write)
	if err != nil {
		return nil, err
	}
	return &graph.Download{Filename: d.Filename, ContentType: d.ContentType, URL: d.URL, ExpiresAt: d.ExpiresAt}, nil
}

// readSheet reads an uploaded CSV or XLSX file.
func readSheet(file graphql.Upload) (*sheets.Table, error) {
	if file.File == nil {
		return nil, apperr.Invalidf("send the file: a multipart part named file, or the raw bytes as the body")
	}
	t, err := sheets.Read(file.File, maxSheetBytes)
	if err != nil {
		return nil, apperr.Invalidf("%s", err.Error())
	}
	return t, nil
}

// exportProducts writes the products matching f as a product sheet.
func (r *Resolver) exportProducts(ctx context.Context, storeID int64, f models.ProductFilter, format *graph.SheetFormat) (*graph.Download, error) {
	if f.Sort == nil {
		byTitle := "title"
		f.Sort = &byTitle
	}
	products, err := models.ListProducts(ctx, r.db(ctx), storeID, f, models.Paging{Limit: math.MaxInt32})
	if err != nil {
		return nil, err
	}
	ids := make([]int64, len(products))
	for i, p := range products {
		ids[i] = p.ID
	}
	variants, images := map[int64][]models.ProductVariant{}, map[int64][]models.ProductImage{}
	for start := 0; start < len(ids); start += 1000 {
		chunk := ids[start:min(start+1000, len(ids))]
		vs, err := models.VariantsByProduct(ctx, r.db(ctx), storeID, chunk, models.AllColumns)
		if err != nil {
			return nil, err
		}
		for _, v := range vs {
			variants[v.ProductID] = append(variants[v.ProductID], v)
		}
		is, err := models.ImagesByProduct(ctx, r.db(ctx), storeID, chunk, models.AllColumns)
		if err != nil {
			return nil, err
		}
		for _, i := range is {
			images[i.ProductID] = append(images[i.ProductID], i)
		}
	}
	out := make([]productsheet.Product, len(products))
	for i := range products {
		out[i] = toSheetProduct(&products[i], variants[products[i].ID], images[products[i].ID])
	}
	return r.sheetDownload(ctx, storeID, "products", format, productsheet.Header(), productsheet.Types(), productsheet.Rows(out))
}

// toSheetProduct is a product as a row group of the product sheet.
func toSheetProduct(p *models.Product, vs []models.ProductVariant, imgs []models.ProductImage) productsheet.Product {
	sp := productsheet.Product{
		Handle: p.Handle, Title: p.Title, BodyHTML: p.BodyHTML, Vendor: p.Vendor, Type: p.ProductType,
		Tags: p.Tags, Status: p.Status, CategoryID: p.AdplatformCategoryID,
	}
	if p.AdplatformCategoryID > 0 {
		sp.Category = strconv.FormatInt(p.AdplatformCategoryID, 10)
	}
	if seo, ok := p.SEO.(map[string]any); ok {
		sp.SEOTitle, _ = seo["title"].(string)
		sp.SEODescription, _ = seo["description"].(string)
	}
	for _, o := range p.Options {
		sp.Options = append(sp.Options, productsheet.Option{Name: o.Name, Values: o.Values})
	}
	srcByID := map[int64]string{}
	for _, img := range imgs {
		sp.Images = append(sp.Images, productsheet.Image{Src: img.Src, Position: int(img.Position), Alt: img.Alt})
		srcByID[img.ID] = img.Src
	}
	for _, v := range vs {
		sv := productsheet.Variant{
			Option1: v.Option1, Option2: v.Option2, Option3: v.Option3, SKU: v.SKU, Barcode: v.Barcode,
			Grams: v.WeightGrams, TrackInventory: v.TrackInventory, InventoryQty: v.InventoryQuantity,
			InventoryPolicy: v.InventoryPolicy, PriceCents: v.PriceCents, CompareAtCents: v.CompareAtPriceCents,
			CostCents: v.CostCents, RequiresShipping: v.RequiresShipping, Taxable: v.Taxable, WeightUnit: "g",
		}
		if v.ImageID != nil {
			sv.ImageSrc = srcByID[*v.ImageID]
		}
		sp.Variants = append(sp.Variants, sv)
	}
	return sp
}

// variantIndexRE finds the variant a checking error is about.
var variantIndexRE = regexp.MustCompile(`^variants\[(\d+)\]`)

// importProducts creates and updates products by handle from a product
// sheet. Each product is written in its own transaction, all or nothing;
// smart collections are recomputed once, at the end, for every product
// written.
func (r *Resolver) importProducts(ctx context.Context, storeID int64, file graphql.Upload) (*graph.ImportReport, error) {
	t, err := readSheet(file)
	if err != nil {
		return nil, err
	}
	owners, err := models.SKUOwners(ctx, r.db(ctx), storeID, nil)
	if err != nil {
		return nil, err
	}
	res, err := productsheet.Parse(t, productsheet.Options{ExistingSKUs: owners})
	if err != nil {
		return nil, apperr.Invalidf("%s", err.Error())
	}
	handles := make([]string, len(res.Products))
	for i, sp := range res.Products {
		handles[i] = sp.Handle
	}
	existing, err := models.ProductsByHandle(ctx, r.db(ctx), storeID, handles)
	if err != nil {
		return nil, err
	}
	byHandle := make(map[string]*models.Product, len(existing))
	ids := make([]int64, len(existing))
	for i := range existing {
		byHandle[existing[i].Handle] = &existing[i]
		ids[i] = existing[i].ID
	}
	// The variants of every product the sheet updates, in one statement.
	variantsOf := map[int64][]models.ProductVariant{}
	if len(ids) > 0 {
		vs, err := models.VariantsByProduct(ctx, r.db(ctx), storeID, ids, models.AllColumns)
		if err != nil {
			return nil, err
		}
		for _, v := range vs {
			variantsOf[v.ProductID] = append(variantsOf[v.ProductID], v)
		}
	}
	report := &graph.ImportReport{}
	problems, skipped := append([]sheets.Problem{}, res.Errors...), append([]sheets.Skip{}, res.Skipped...)
	var written []int64
	for _, sp := range res.Products {
		cur := byHandle[sp.Handle]
		var d *productDraft
		err := r.db(ctx).RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
			base, variants := &models.Product{StoreID: storeID}, []models.ProductVariant(nil)
			if cur != nil {
				base, variants = cur, variantsOf[cur.ID]
			}
			var err error
			if d, err = checkProduct(ctx, tx, base, variants, sheetProductInput(sp, variants)); err != nil {
				return err
			}
			return saveProduct(ctx, tx, d, false)
		})
		if err != nil {
			code := apperr.CodeOf(err)
			if code != apperr.Invalid && code != apperr.Conflict {
				return nil, err
			}
			row := sp.Row
			if m := variantIndexRE.FindStringSubmatch(err.Error()); m != nil {
				if n, _ := strconv.Atoi(m[1]); n < len(sp.Variants) {
					row = sp.Variants[n].Row
				}
			}
			problems = append(problems, sheets.Problem{Row: row, Message: err.Error()})
			skipped = append(skipped, sheets.Skip{Row: sp.Row, Handle: sp.Handle, Reason: "has errors"})
			continue
		}
		written = append(written, d.p.ID)
		if cur != nil {
			report.Updated++
		} else {
			report.Created++
		}
	}
	if err := models.RefreshSmartCollections(ctx, r.db(ctx), storeID, nil, written); err != nil {
		return nil, err
	}
	sort.SliceStable(problems, func(i, j int) bool { return problems[i].Row < problems[j].Row })
	report.Errors, report.Skipped = problems, skipped
	report.RenamedSkus = nonNil(res.Renamed)
	report.CleanedCells = nonNil(res.Cleaned)
	audit.Note(ctx, "imported", map[string]int64{"created": report.Created, "updated": report.Updated, "errors": int64(len(problems))})
	return report, nil
}

// nonNil keeps empty lists as [] rather than null in answers.
func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

// sheetProductInput turns a sheet product into the input the API checks:
// an import is checked exactly as a create or update is. Variants keep
// their ids when their option values match a variant the product has.
func sheetProductInput(sp productsheet.Product, current []models.ProductVariant) graph.ProductInput {
	in := graph.ProductInput{
		Title: &sp.Title, Handle: &sp.Handle, BodyHTML: &sp.BodyHTML, Vendor: &sp.Vendor,
		ProductType: &sp.Type, Tags: nonNil(sp.Tags), AdplatformCategoryID: &sp.CategoryID,
	}
	if sp.Status != "" {
		in.Status = &sp.Status
	}
	seo := map[string]any{}
	if sp.SEOTitle != "" {
		seo["title"] = sp.SEOTitle
	}
	if sp.SEODescription != "" {
		seo["description"] = sp.SEODescription
	}
	in.Seo = seo
	for _, o := range sp.Options {
		in.Options = append(in.Options, graph.ProductOptionInput{Name: o.Name, Values: o.Values})
	}
	in.Images = []graph.ProductImageInput{}
	seen := map[string]bool{}
	for _, img := range sp.Images {
		alt := img.Alt
		in.Images = append(in.Images, graph.ProductImageInput{Src: img.Src, Alt: &alt})
		seen[img.Src] = true
	}
	idByCombo := map[string]int64{}
	for _, v := range current {
		idByCombo[v.Option1+"\x00"+v.Option2+"\x00"+v.Option3] = v.ID
	}
	for _, v := range sp.Variants {
		v := v
		vi := graph.ProductVariantInput{
			Option1: &v.Option1, Option2: &v.Option2, Option3: &v.Option3, Sku: &v.SKU, Barcode: &v.Barcode,
			PriceCents: v.PriceCents, CompareAtPriceCents: v.CompareAtCents, CostCents: v.CostCents,
			WeightGrams: &v.Grams, InventoryQuantity: &v.InventoryQty, InventoryPolicy: &v.InventoryPolicy,
			TrackInventory: &v.TrackInventory, Taxable: &v.Taxable, RequiresShipping: &v.RequiresShipping,
		}
		if id, ok := idByCombo[v.Option1+"\x00"+v.Option2+"\x00"+v.Option3]; ok {
			vi.ID = &id
		}
		vi.ImageSrc = &v.ImageSrc // an empty cell means no image
		if v.ImageSrc != "" {
			if !seen[v.ImageSrc] {
				in.Images = append(in.Images, graph.ProductImageInput{Src: v.ImageSrc})
				seen[v.ImageSrc] = true
			}
		}
		in.Variants = append(in.Variants, vi)
	}
	return in
}
