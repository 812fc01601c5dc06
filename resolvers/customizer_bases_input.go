package resolvers

import (
	"context"
	"sort"
	"strings"

	"github.com/uptrace/bun"

	"storeadmin/graph"
	"storeadmin/internal/base/apperr"
	"storeadmin/internal/customizer"
	"storeadmin/models"
)

// The client's input of product bases, mockups and print areas (README
// "Product customizer / Product bases, mockups and print areas").

// Bounds of what the customizer's bases and their parts store.
const (
	czMaxName     = 255
	czMaxImageSrc = 2048
)

// czRefuseNulls refuses the fields of the input argument sent as an
// explicit null: every field of these inputs has a value, and a null
// would otherwise pass for "left out" and be silently kept.
func czRefuseNulls(ctx context.Context) error {
	nulls := sentNulls(ctx, "input")
	if len(nulls) == 0 {
		return nil
	}
	names := make([]string, 0, len(nulls))
	for k := range nulls {
		names = append(names, k)
	}
	sort.Strings(names)
	return apperr.InvalidField(names[0], "must not be null: leave it out to keep its value")
}

// czName checks a name: trimmed, 1 to czMaxName characters.
func czName(field string, v *string, create bool) (string, bool, error) {
	if v == nil && !create {
		return "", false, nil
	}
	if v == nil {
		return "", false, apperr.InvalidField(field, "is required")
	}
	s, err := text(field, *v, czMaxName, true)
	if err != nil {
		return "", false, apperr.InvalidField(field, "must be 1 to %d characters, not blank", czMaxName)
	}
	return s, true, nil
}

// applyCzProductBaseInput checks in and writes its fields into b.
func applyCzProductBaseInput(ctx context.Context, b *models.CzProductBase, in graph.CzProductBaseInput, create bool) error {
	if err := czRefuseNulls(ctx); err != nil {
		return err
	}
	name, set, err := czName("name", in.Name, create)
	if set {
		b.Name = name
	}
	return err
}

// applyCzMockupInput checks in and writes its fields into m; a photo sent
// must be an upload of the store, whose width and height m takes.
func applyCzMockupInput(ctx context.Context, db bun.IDB, m *models.CzMockup, in graph.CzMockupInput, create bool) error {
	if err := czRefuseNulls(ctx); err != nil {
		return err
	}
	name, set, err := czName("name", in.Name, create)
	if err != nil {
		return err
	}
	if set {
		m.Name = name
	}
	if in.Position != nil {
		if m.Position, err = position("position", *in.Position); err != nil {
			return err
		}
	}
	switch {
	case in.ImageSrc != nil:
		return czMockupPhoto(ctx, db, m, *in.ImageSrc)
	case create:
		return apperr.InvalidField("image_src", "is required: the src of one of the store's uploads")
	}
	return nil
}

// czMockupPhoto sets m's photo to src, one of the store's uploads, with
// the upload's size.
func czMockupPhoto(ctx context.Context, db bun.IDB, m *models.CzMockup, src string) error {
	src = strings.TrimSpace(src)
	if src == "" || len(src) > czMaxImageSrc {
		return apperr.InvalidField("image_src", "must be the src of one of the store's uploads (POST /store/uploads/finalize), 1 to %d bytes", czMaxImageSrc)
	}
	found, err := models.MediaBySrc(ctx, db, m.StoreID, []string{src})
	if err != nil {
		return err
	}
	media, ok := found[src]
	if !ok || media.Width <= 0 || media.Height <= 0 {
		return apperr.InvalidField("image_src", "must be the src of one of the store's uploaded images (POST /store/uploads/finalize), not %q", src)
	}
	m.ImageSrc, m.ImageWidth, m.ImageHeight = src, media.Width, media.Height
	return nil
}

// applyCzPrintAreaInput checks in and writes its fields into p, then
// checks the whole rectangle against the mockup's photo
// (customizer.PrintArea.Check, which a bundle's import runs too): a merge
// is checked as it will be stored.
func applyCzPrintAreaInput(ctx context.Context, p *models.CzPrintArea, mockup *models.CzMockup, in graph.CzPrintAreaInput, create bool) error {
	if err := czRefuseNulls(ctx); err != nil {
		return err
	}
	name, set, err := czName("name", in.Name, create)
	if err != nil {
		return err
	}
	if set {
		p.Name = name
	}
	if in.Position != nil {
		if p.Position, err = position("position", *in.Position); err != nil {
			return err
		}
	}
	sent := map[string]bool{}
	for _, f := range []struct {
		field string
		in    *float64
		to    *float64
	}{{"x", in.X, &p.X}, {"y", in.Y, &p.Y}, {"w", in.W, &p.W}, {"h", in.H, &p.H}, {"rotation_deg", in.RotationDeg, &p.RotationDeg}} {
		switch {
		case f.in != nil:
			*f.to, sent[f.field] = *f.in, true
		case create && f.field != "rotation_deg":
			return apperr.InvalidField(f.field, "is required")
		}
	}
	area := customizer.PrintArea{X: p.X, Y: p.Y, W: p.W, H: p.H, RotationDeg: p.RotationDeg}
	return area.Check(mockup.ImageWidth, mockup.ImageHeight, sent)
}
