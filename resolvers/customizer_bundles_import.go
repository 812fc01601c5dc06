package resolvers

import (
	"context"
	"fmt"
	"io"
	"path"
	"strings"

	"github.com/99designs/gqlgen/graphql"
	"github.com/uptrace/bun"

	"storeadmin/graph"
	"storeadmin/internal/audit"
	"storeadmin/internal/base/apperr"
	"storeadmin/internal/customizer"
	"storeadmin/models"
)

// importCzTemplate re-creates a template bundle in the store: every record
// new, in one transaction, except the artwork catalogues the store already
// has (a library of the same group_key and scope_value), which are reused
// and not filled. The bundle's own rules are checked whole before anything
// is written; each record then passes its part's own checks as it is made,
// and a failure rolls everything back. Its images are stored as the
// store's own uploads (and taken back if the transaction fails).
func (r *Resolver) importCzTemplate(ctx context.Context, storeID int64, file graphql.Upload) (*models.CustomizerImportResult, error) {
	if file.File == nil {
		return nil, apperr.InvalidField("file", "is required: a multipart part named file, or the raw bytes as the body")
	}
	data, err := io.ReadAll(io.LimitReader(file.File, customizer.MaxBundleBytes+1))
	if err != nil {
		return nil, apperr.InvalidField("file", "could not be read: %s", err.Error())
	}
	b, files, err := customizer.ReadBundle(data)
	if err != nil {
		return nil, err
	}
	im := &bundleImport{r: r, storeID: storeID, files: files, images: map[string]models.Media{}}
	res := &models.CustomizerImportResult{OptionSetIDs: []int64{}}
	err = r.db(ctx).RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		im.tx = tx
		return im.run(ctx, b, res)
	})
	if err != nil {
		r.Media.DeleteImages(context.WithoutCancel(ctx), storeID, im.stored)
		return nil, err
	}
	audit.Touch(ctx, "cz_template", res.TemplateID)
	audit.Note(ctx, "imported", res)
	return res, nil
}

// bundleImport is one import's state: its transaction and the images it
// has stored, by their entry in the bundle.
type bundleImport struct {
	r       *Resolver
	storeID int64
	tx      bun.Tx
	files   *customizer.BundleFiles
	images  map[string]models.Media
	stored  []string // media keys, to delete if the import fails
}

// image stores the bundle's file entry as an image of the store, once,
// and answers its record; path names where the bundle refers to it.
func (im *bundleImport) image(ctx context.Context, at, entry string) (models.Media, error) {
	if m, ok := im.images[entry]; ok {
		return m, nil
	}
	data, err := im.files.Read(entry)
	if err != nil {
		return models.Media{}, err
	}
	img, err := im.r.Media.PutImage(ctx, im.storeID, path.Base(entry), data)
	if err != nil {
		if apperr.CodeOf(err) == apperr.Invalid {
			return models.Media{}, customizer.BundleError(at, "names %s: %s", entry, err.Error())
		}
		return models.Media{}, err
	}
	im.stored = append(im.stored, img.Key)
	m := img.Record(im.storeID)
	if err := models.InsertMedia(ctx, im.tx, &m); err != nil {
		return models.Media{}, err
	}
	im.images[entry] = m
	return m, nil
}

// text is a string of bundle.json as the store keeps it: a file reference
// becomes the src of the image stored for it, any other string is
// unescaped.
func (im *bundleImport) text(ctx context.Context, at, s string) (string, error) {
	text, entry, isFile, err := customizer.ParseRef(s)
	if err != nil {
		return "", customizer.BundleError(at, "%s", err.Error())
	}
	if !isFile {
		return text, nil
	}
	m, err := im.image(ctx, at, entry)
	return m.Src, err
}

// object is a free-form JSON object of bundle.json (settings, an item's
// value) as the store keeps it, never nil.
func (im *bundleImport) object(ctx context.Context, at string, v map[string]any) (map[string]any, error) {
	if v == nil {
		return map[string]any{}, nil
	}
	var first error
	customizer.WalkStrings(v, func(s string) string {
		if first != nil {
			return s
		}
		out, err := im.text(ctx, at, s)
		first = err
		return out
	})
	return v, first
}

func (im *bundleImport) run(ctx context.Context, b *customizer.Bundle, res *models.CustomizerImportResult) error {
	design, err := im.design(ctx, b.Design)
	if err != nil {
		return err
	}
	res.DesignID, res.Elements = design, int64(len(b.Design.Elements))
	if res.ProductBaseID, err = im.base(ctx, b.ProductBase); err != nil {
		return err
	}
	if res.TemplateID, err = im.template(ctx, b, res.DesignID, res.ProductBaseID); err != nil {
		return err
	}
	for i, s := range b.OptionSets {
		id, options, values, err := im.optionSet(ctx, fmt.Sprintf("option_sets[%d]", i), s)
		if err != nil {
			return err
		}
		res.OptionSetIDs = append(res.OptionSetIDs, id)
		res.Options += options
		res.Values += values
	}
	return im.libraries(ctx, b.Libraries, res)
}

// design creates the design and its elements with the designs' own checks
// (customizer.CheckElement, with the store's uploads: the images the
// import stored are among them).
func (im *bundleImport) design(ctx context.Context, bd customizer.BundleDesign) (int64, error) {
	d := models.CzDesign{StoreID: im.storeID}
	if err := applyCzDesignInput(&d, graph.CzDesignInput{Name: &bd.Name, WidthPx: &bd.WidthPx, HeightPx: &bd.HeightPx}, true); err != nil {
		return 0, customizer.BundleAt("design", err)
	}
	if err := models.InsertCzRow(ctx, im.tx, &d); err != nil {
		return 0, err
	}
	els := make([]models.CzElement, len(bd.Elements))
	for i, e := range bd.Elements {
		at := fmt.Sprintf("design.elements[%d]", i)
		settings, err := im.object(ctx, at+".settings", e.Settings)
		if err != nil {
			return 0, err
		}
		els[i] = models.CzElement{StoreID: im.storeID, DesignID: d.ID, ElementKey: e.ElementKey, GroupKey: e.GroupKey, Type: e.Type,
			X: e.X, Y: e.Y, W: e.W, H: e.H, RotationDeg: e.RotationDeg, ZIndex: e.ZIndex, Settings: settings}
		if err := checkCzElement(ctx, im.tx, &els[i]); err != nil {
			return 0, customizer.BundleAt(at, err)
		}
	}
	return d.ID, models.InsertCzRows(ctx, im.tx, els)
}

// base creates the product base, its mockups and their print areas with
// the bases' own checks (a photo that is an upload of the store, with its
// size; customizer.PrintArea.Check); the mockups' ids are taken first so
// that their print areas name them.
func (im *bundleImport) base(ctx context.Context, bb customizer.BundleBase) (int64, error) {
	base := models.CzProductBase{StoreID: im.storeID}
	if err := applyCzProductBaseInput(ctx, &base, graph.CzProductBaseInput{Name: &bb.Name}, true); err != nil {
		return 0, customizer.BundleAt("product_base", err)
	}
	if err := models.InsertCzRow(ctx, im.tx, &base); err != nil {
		return 0, err
	}
	ids, err := models.ReserveCzIDs(ctx, im.tx, "cz_mockups", len(bb.Mockups))
	if err != nil {
		return 0, err
	}
	mockups := make([]models.CzMockup, len(bb.Mockups))
	var areas []models.CzPrintArea
	for i, m := range bb.Mockups {
		at := fmt.Sprintf("product_base.mockups[%d]", i)
		_, entry, _, _ := customizer.ParseRef(m.ImageSrc) // Check made it a file
		photo, err := im.image(ctx, at+".image_src", entry)
		if err != nil {
			return 0, err
		}
		if photo.Width != m.ImageWidth || photo.Height != m.ImageHeight {
			return 0, customizer.BundleError(at+".image_src", "names %s, a %d×%d image, but the mockup says %d×%d: its print areas are in the photo's pixels", entry, photo.Width, photo.Height, m.ImageWidth, m.ImageHeight)
		}
		mockups[i] = models.CzMockup{ID: ids[i], StoreID: im.storeID, ProductBaseID: base.ID, Position: int64(i)}
		if err := applyCzMockupInput(ctx, im.tx, &mockups[i], graph.CzMockupInput{Name: &m.Name, ImageSrc: &photo.Src}, true); err != nil {
			return 0, customizer.BundleAt(at, err)
		}
		for j, a := range m.PrintAreas {
			area := models.CzPrintArea{StoreID: im.storeID, MockupID: ids[i], Position: int64(j)}
			in := graph.CzPrintAreaInput{Name: &a.Name, X: &a.X, Y: &a.Y, W: &a.W, H: &a.H, RotationDeg: &a.RotationDeg}
			if err := applyCzPrintAreaInput(ctx, &area, &mockups[i], in, true); err != nil {
				return 0, customizer.BundleAt(fmt.Sprintf("%s.print_areas[%d]", at, j), err)
			}
			areas = append(areas, area)
		}
	}
	if err := models.InsertCzRows(ctx, im.tx, mockups); err != nil {
		return 0, err
	}
	return base.ID, models.InsertCzRows(ctx, im.tx, areas)
}

// template creates the template and its tiers with the checks and writes
// of the templates' API (the same input rules, the tiers' cap and their
// renumbering by min_qty).
func (im *bundleImport) template(ctx context.Context, b *customizer.Bundle, designID, baseID int64) (int64, error) {
	bt := b.Template
	t := models.CzTemplate{StoreID: im.storeID}
	in := graph.CzTemplateInput{Name: &bt.Name, DesignID: &designID, ProductBaseID: &baseID, ExportFormat: &bt.ExportFormat, Ppi: &bt.PPI, IncludedColors: &bt.IncludedColors,
		IncludedElements: &bt.IncludedElements, PricePerExtraColorCents: &bt.PricePerExtraColorCents, PricePerExtraElementCents: &bt.PricePerExtraElementCents}
	if err := applyCzTemplateInput(&t, in, true); err != nil {
		return 0, customizer.BundleAt("template", err)
	}
	if err := models.InsertCzTemplate(ctx, im.tx, &t); err != nil {
		return 0, err
	}
	for i, bq := range b.QuantityTiers {
		q := models.CzQuantityTier{StoreID: im.storeID, TemplateID: t.ID}
		if err := applyCzQuantityTierInput(&q, graph.CzQuantityTierInput{MinQty: &bq.MinQty, PriceCents: &bq.PriceCents}, true); err != nil {
			return 0, customizer.BundleAt(fmt.Sprintf("quantity_tiers[%d]", i), err)
		}
		if err := models.InsertCzQuantityTier(ctx, im.tx, &q); err != nil {
			return 0, customizer.BundleAt(fmt.Sprintf("quantity_tiers[%d]", i), err)
		}
	}
	return t.ID, nil
}

// optionSet creates an option set with its options and values, with the
// options' own checks (customizer.CheckOptionSet, CheckOption,
// CheckConditions, CheckOptionValue, CheckOptionValueUploads); the options'
// ids are taken first so that conditions name them.
func (im *bundleImport) optionSet(ctx context.Context, at string, bs customizer.BundleSet) (id, options, values int64, err error) {
	set := models.CzOptionSet{StoreID: im.storeID, Name: bs.Name}
	if err := customizer.CheckOptionSet("", &set); err != nil {
		return 0, 0, 0, customizer.BundleAt(at, err)
	}
	if err := models.InsertCzRow(ctx, im.tx, &set); err != nil {
		return 0, 0, 0, err
	}
	ids, err := models.ReserveCzIDs(ctx, im.tx, "cz_options", len(bs.Options))
	if err != nil {
		return 0, 0, 0, err
	}
	byKey := map[string]int64{}
	earlier := map[int64]customizer.ConditionTarget{}
	opts := make([]models.CzOption, len(bs.Options))
	var vals []models.CzOptionValue
	var valuePaths []string
	for i, o := range bs.Options {
		q := fmt.Sprintf("%s.options[%d]", at, i)
		settings, err := im.object(ctx, q+".settings", o.Settings)
		if err != nil {
			return 0, 0, 0, err
		}
		conds := make([]models.CustomizerCondition, len(o.Conditions))
		for j, c := range o.Conditions {
			conds[j] = models.CustomizerCondition{Op: c.Op, OptionID: byKey[c.Option], Value: c.Value, Values: c.Values}
		}
		opts[i] = models.CzOption{ID: ids[i], StoreID: im.storeID, OptionSetID: set.ID, Label: o.Label, Type: o.Type, Position: int64(i),
			Required: o.Required, Section: o.Section, HelpText: o.HelpText, Settings: settings, Validation: o.Validation,
			PricePerCharCents: o.PricePerCharCents, Conditions: conds}
		if err := customizer.CheckOption("", &opts[i]); err != nil {
			return 0, 0, 0, customizer.BundleAt(q, err)
		}
		if err := customizer.CheckConditions("conditions", opts[i].Conditions, earlier); err != nil {
			return 0, 0, 0, customizer.BundleAt(q, err)
		}
		target := customizer.ConditionTarget{Type: o.Type}
		for j, v := range o.Values {
			vp := fmt.Sprintf("%s.values[%d]", q, j)
			val, err := im.value(ctx, vp, v)
			if err != nil {
				return 0, 0, 0, err
			}
			if err := customizer.CheckOptionValue("", &val); err != nil {
				return 0, 0, 0, customizer.BundleAt(vp, err)
			}
			val.OptionID, val.Position = ids[i], int64(j)
			vals = append(vals, val)
			valuePaths = append(valuePaths, vp+".")
			target.Slugs = append(target.Slugs, val.Value)
		}
		byKey[o.Key], earlier[ids[i]] = ids[i], target
	}
	if err := customizer.CheckOptionValueUploads(ctx, im.tx, im.storeID, vals, func(i int) string { return valuePaths[i] }); err != nil {
		return 0, 0, 0, customizer.BundleAt("", err)
	}
	if err := models.InsertCzRows(ctx, im.tx, opts); err != nil {
		return 0, 0, 0, err
	}
	return set.ID, int64(len(opts)), int64(len(vals)), models.InsertCzRows(ctx, im.tx, vals)
}

// value is a value of the bundle as the store keeps it, its option and
// position left for the caller.
func (im *bundleImport) value(ctx context.Context, at string, v customizer.BundleValue) (models.CzOptionValue, error) {
	thumb := v.ThumbnailURL
	if thumb != "" {
		var err error
		if thumb, err = im.text(ctx, at+".thumbnail_url", thumb); err != nil {
			return models.CzOptionValue{}, err
		}
	}
	fns := make([]models.CustomizerFunction, len(v.Functions))
	for k, f := range v.Functions {
		var err error
		if f.Value, err = im.text(ctx, fmt.Sprintf("%s.functions[%d].value", at, k), f.Value); err != nil {
			return models.CzOptionValue{}, err
		}
		fns[k] = f
	}
	return models.CzOptionValue{StoreID: im.storeID, Label: v.Label, Value: v.Value, PriceDeltaCents: v.PriceDeltaCents,
		SwatchHex: v.SwatchHex, ThumbnailURL: thumb, Functions: fns}, nil
}

// libraries creates the bundle's artwork libraries with their items, but
// for the catalogues (group_key and scope_value) the store has already:
// those are reused as they are.
func (im *bundleImport) libraries(ctx context.Context, libs []customizer.BundleLibrary, res *models.CustomizerImportResult) error {
	keys := make([]models.CzCatalogueKey, len(libs))
	for i, l := range libs {
		// As the libraries' input keeps them (a scope_value trimmed).
		keys[i] = models.CzCatalogueKey{GroupKey: l.GroupKey, ScopeValue: strings.TrimSpace(l.ScopeValue)}
	}
	present, err := models.CzCataloguesPresent(ctx, im.tx, im.storeID, keys)
	if err != nil {
		return err
	}
	for i, l := range libs {
		if present[keys[i]] {
			res.LibrariesReused++
			continue
		}
		at := fmt.Sprintf("libraries[%d]", i)
		lib := models.CzLibrary{StoreID: im.storeID}
		in := graph.CzLibraryInput{Name: &l.Name, Kind: &l.Kind, GroupKey: &l.GroupKey, ScopeValue: &l.ScopeValue}
		if err := applyCzLibraryInput(&lib, in, true); err != nil {
			return customizer.BundleAt(at, err)
		}
		if err := models.InsertCzRow(ctx, im.tx, &lib); err != nil {
			return err
		}
		items := make([]models.CzLibraryItem, len(l.Items))
		for j, it := range l.Items {
			ip := fmt.Sprintf("%s.items[%d]", at, j)
			value, err := im.object(ctx, ip+".value", it.Value)
			if err != nil {
				return err
			}
			// The libraries' own check of an item (its upload's size filled in).
			checked, err := checkCzLibraryItem(ctx, im.tx, &lib, value)
			if err != nil {
				return customizer.BundleAt(ip, err)
			}
			items[j] = models.CzLibraryItem{StoreID: im.storeID, LibraryID: lib.ID, Position: int64(j), Value: checked}
		}
		if err := models.InsertCzRows(ctx, im.tx, items); err != nil {
			return err
		}
		res.LibrariesCreated++
		res.LibraryItemsCreated += int64(len(items))
	}
	return nil
}
