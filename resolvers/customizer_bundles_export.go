package resolvers

import (
	"archive/zip"
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"io"
	"path"

	"github.com/uptrace/bun"

	"storeadmin/graph"
	"storeadmin/internal/base/apperr"
	"storeadmin/internal/customizer"
	"storeadmin/models"
)

// bundleContentType is a template bundle's media type.
const bundleContentType = "application/zip"

// exportCzTemplate writes the store's template id as a template bundle
// (internal/customizer's format) and answers it as a download. Everything
// is read in one repeatable-read transaction, so the bundle is one moment
// of the template even while the seller edits it.
func (r *Resolver) exportCzTemplate(ctx context.Context, storeID, id int64) (*graph.Download, error) {
	var (
		tree  *models.CzTemplateTree
		libs  []models.CzLibrary
		items []models.CzLibraryItem
		media map[string]models.Media
	)
	err := r.db(ctx).RunInTx(ctx, &sql.TxOptions{ReadOnly: true, Isolation: sql.LevelRepeatableRead}, func(ctx context.Context, tx bun.Tx) error {
		var err error
		if tree, err = models.ReadCzTemplateTree(ctx, tx, storeID, id); err != nil {
			return err
		}
		if libs, items, err = models.CzLibrariesByGroup(ctx, tx, storeID, customizer.ArtworkGroups(tree.Elements, tree.Options)); err != nil {
			return err
		}
		media, err = models.MediaBySrc(ctx, tx, storeID, bundleImageCandidates(tree, items))
		return err
	})
	if err != nil {
		return nil, err
	}
	ex := &bundleExport{taken: map[string]bool{}, entries: map[string]string{}, image: func(src string) (string, string, bool) {
		if m, ok := media[src]; ok {
			return m.Key, m.Filename, true
		}
		// An image of the store's stored without its record (by hand, an
		// older seed) travels all the same.
		key, ok := r.Media.KeyOf(storeID, src)
		return key, path.Base(key), ok
	}}
	b, err := ex.bundle(tree, libs, items)
	if err != nil {
		return nil, err
	}
	var manifest bytes.Buffer
	enc := json.NewEncoder(&manifest)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(b); err != nil {
		return nil, err
	}
	name := "customizer_template_" + r.Now().UTC().Format("20060102-150405") + ".zip"
	d, err := r.Media.WriteDownload(ctx, storeID, name, bundleContentType, func(w io.Writer) error {
		zw := zip.NewWriter(w)
		fw, err := zw.Create(customizer.BundleManifest)
		if err != nil {
			return err
		}
		if _, err := fw.Write(manifest.Bytes()); err != nil {
			return err
		}
		for _, f := range ex.files {
			data, err := r.Media.ReadImage(ctx, storeID, f.key)
			if err != nil {
				// A recorded image whose bytes are gone is the service's
				// fault, not the caller's: no 404 for a template that exists.
				return fmt.Errorf("customizer: the image %s of template %d: %v", f.key, id, err)
			}
			// Images are compressed already: stored as they are.
			fw, err := zw.CreateHeader(&zip.FileHeader{Name: customizer.BundleFilesDir + f.name, Method: zip.Store, Modified: r.Now()})
			if err != nil {
				return err
			}
			if _, err := fw.Write(data); err != nil {
				return err
			}
		}
		return zw.Close()
	})
	if err != nil {
		return nil, err
	}
	return &graph.Download{Filename: d.Filename, ContentType: d.ContentType, URL: d.URL, ExpiresAt: d.ExpiresAt}, nil
}

// bundleImageCandidates are the strings of a template's tree that may be
// the srcs of the store's images: what the bundle carries as files when
// they are.
func bundleImageCandidates(t *models.CzTemplateTree, items []models.CzLibraryItem) []string {
	var out []string
	add := func(s string) string {
		if s != "" {
			out = append(out, s)
		}
		return s
	}
	for _, m := range t.Mockups {
		add(m.ImageSrc)
	}
	for _, el := range t.Elements {
		customizer.WalkStrings(el.Settings, add)
	}
	for _, v := range t.Values {
		add(v.ThumbnailURL)
		for _, f := range v.Functions {
			add(f.Value)
		}
	}
	for _, it := range items {
		customizer.WalkStrings(it.Value, add)
	}
	return out
}

// bundleFile is an image the bundle carries: its media key and its entry
// name under files/.
type bundleFile struct{ key, name string }

// bundleExport turns a template's records into bundle.json, replacing the
// store's images by references to the files it collects.
type bundleExport struct {
	image   func(src string) (key, filename string, ok bool) // the store's image at src
	taken   map[string]bool                                  // entry names given
	entries map[string]string                                // src → entry name
	files   []bundleFile
}

// text is a string of a record as the bundle writes it: a reference to a
// file when it is the src of one of the store's images, else the string.
func (ex *bundleExport) text(s string) string {
	name, ok := ex.entries[s]
	if !ok {
		key, filename, isImage := ex.image(s)
		if !isImage {
			return customizer.EscapeText(s)
		}
		name = customizer.EntryName(filename, ex.taken)
		ex.entries[s] = name
		ex.files = append(ex.files, bundleFile{key: key, name: name})
	}
	return customizer.FileRef(name)
}

// object is a free-form JSON object of a record (settings, an item's
// value) as the bundle writes it.
func (ex *bundleExport) object(v any) map[string]any {
	m, _ := customizer.WalkStrings(v, ex.text).(map[string]any)
	if m == nil {
		m = map[string]any{}
	}
	return m
}

func (ex *bundleExport) bundle(t *models.CzTemplateTree, libs []models.CzLibrary, items []models.CzLibraryItem) (*customizer.Bundle, error) {
	tp := t.Template
	b := &customizer.Bundle{
		Format:  customizer.BundleFormat,
		Version: customizer.BundleVersion,
		Template: customizer.BundleTemplate{Name: tp.Name, ExportFormat: tp.ExportFormat, PPI: tp.PPI,
			IncludedColors: tp.IncludedColors, IncludedElements: tp.IncludedElements,
			PricePerExtraColorCents: tp.PricePerExtraColorCents, PricePerExtraElementCents: tp.PricePerExtraElementCents},
		QuantityTiers: make([]customizer.BundleTier, len(t.Tiers)),
		Design:        customizer.BundleDesign{Name: t.Design.Name, WidthPx: t.Design.WidthPx, HeightPx: t.Design.HeightPx, Elements: make([]customizer.BundleElement, len(t.Elements))},
		ProductBase:   customizer.BundleBase{Name: t.Base.Name, Mockups: []customizer.BundleMockup{}},
		OptionSets:    make([]customizer.BundleSet, len(t.OptionSets)),
		Libraries:     make([]customizer.BundleLibrary, len(libs)),
	}
	for i, q := range t.Tiers {
		b.QuantityTiers[i] = customizer.BundleTier{MinQty: q.MinQty, PriceCents: q.PriceCents}
	}
	for i, el := range t.Elements {
		b.Design.Elements[i] = customizer.BundleElement{ElementKey: el.ElementKey, GroupKey: el.GroupKey, Type: el.Type,
			X: el.X, Y: el.Y, W: el.W, H: el.H, RotationDeg: el.RotationDeg, ZIndex: el.ZIndex, Settings: ex.object(el.Settings)}
	}
	mockups := map[int64]int{}
	for _, m := range t.Mockups {
		mockups[m.ID] = len(b.ProductBase.Mockups)
		b.ProductBase.Mockups = append(b.ProductBase.Mockups, customizer.BundleMockup{Name: m.Name, ImageSrc: ex.text(m.ImageSrc),
			ImageWidth: m.ImageWidth, ImageHeight: m.ImageHeight, PrintAreas: []customizer.BundlePrintArea{}})
	}
	for _, a := range t.PrintAreas {
		m := &b.ProductBase.Mockups[mockups[a.MockupID]]
		m.PrintAreas = append(m.PrintAreas, customizer.BundlePrintArea{Name: a.Name, X: a.X, Y: a.Y, W: a.W, H: a.H, RotationDeg: a.RotationDeg})
	}
	if err := ex.optionSets(b, t); err != nil {
		return nil, err
	}
	libIndex := map[int64]int{}
	for i, l := range libs {
		libIndex[l.ID] = i
		b.Libraries[i] = customizer.BundleLibrary{Name: l.Name, Kind: l.Kind, GroupKey: l.GroupKey, ScopeValue: l.ScopeValue, Items: []customizer.BundleItem{}}
	}
	for _, it := range items {
		l := &b.Libraries[libIndex[it.LibraryID]]
		l.Items = append(l.Items, customizer.BundleItem{Value: ex.object(it.Value)})
	}
	return b, nil
}

// optionSets writes the option sets with their options and values; an
// option is known in the bundle by its place in its set ("option-1", …),
// which its later options' conditions name instead of its id.
func (ex *bundleExport) optionSets(b *customizer.Bundle, t *models.CzTemplateTree) error {
	sets := map[int64]int{}
	for i, s := range t.OptionSets {
		sets[s.ID] = i
		b.OptionSets[i] = customizer.BundleSet{Name: s.Name, Options: []customizer.BundleOption{}}
	}
	type place struct{ set, option int }
	options := map[int64]place{}
	keys := map[int64]string{}
	for _, o := range t.Options {
		s := &b.OptionSets[sets[o.OptionSetID]]
		key := fmt.Sprintf("option-%d", len(s.Options)+1)
		conds := make([]customizer.BundleCondition, len(o.Conditions))
		for i, c := range o.Conditions {
			target, ok := keys[c.OptionID]
			if !ok || options[c.OptionID].set != sets[o.OptionSetID] {
				return apperr.Conflictf("option %q has a condition on option %d, which is no earlier option of its set: correct it before exporting", o.Label, c.OptionID)
			}
			conds[i] = customizer.BundleCondition{Op: c.Op, Option: target, Value: c.Value, Values: c.Values}
		}
		options[o.ID] = place{sets[o.OptionSetID], len(s.Options)}
		keys[o.ID] = key
		s.Options = append(s.Options, customizer.BundleOption{Key: key, Label: o.Label, Type: o.Type, Required: o.Required,
			Section: o.Section, HelpText: o.HelpText, Settings: ex.object(o.Settings), Validation: o.Validation,
			PricePerCharCents: o.PricePerCharCents, Conditions: conds, Values: []customizer.BundleValue{}})
	}
	for _, v := range t.Values {
		p := options[v.OptionID]
		o := &b.OptionSets[p.set].Options[p.option]
		fns := make([]models.CustomizerFunction, len(v.Functions))
		for i, f := range v.Functions {
			f.Value = ex.text(f.Value)
			fns[i] = f
		}
		thumb := v.ThumbnailURL
		if thumb != "" {
			thumb = ex.text(thumb)
		}
		o.Values = append(o.Values, customizer.BundleValue{Label: v.Label, Value: v.Value, PriceDeltaCents: v.PriceDeltaCents,
			SwatchHex: v.SwatchHex, ThumbnailURL: thumb, Functions: fns})
	}
	return nil
}
