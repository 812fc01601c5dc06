package customizer

import (
	"archive/zip"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"path"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"unicode/utf8"

	"storeadmin/internal/base/apperr"
	"storeadmin/models"
)

// A template bundle (README "Product customizer / Template bundles") is a
// zip holding BundleManifest, the JSON below, and the image files it
// references under BundleFilesDir. It carries no database ids: records refer
// to each other by bundle-local keys (element keys, option keys, value
// slugs, a library's group_key and scope_value, file names), so any store
// can import it. The format is versioned: a reader refuses a format or a
// version it does not know rather than guess.
const (
	BundleFormat   = "storeadmin.customizer-template"
	BundleVersion  = 1
	BundleManifest = "bundle.json"
	BundleFilesDir = "files/"
)

// FileRefPrefix marks a string of bundle.json that is an image of the
// bundle: "bundle:files/mug.png" names the zip entry files/mug.png. Export
// writes every image of the store it meets (a mockup's photo, a value's
// thumbnail, an image element's or an artwork's src, a function's image)
// this way; import re-stores the file in the importing store and writes
// its new src in the reference's place. A string of the record that itself
// starts with the prefix is written with the prefix doubled
// ("bundle:bundle:…"), which import reads back as the string.
const FileRefPrefix = "bundle:"

// Bounds of a bundle's import: the zip never costs more than these to read,
// whatever its entries declare (a zip bomb declares small sizes and
// inflates to gigabytes, so sizes are counted as the bytes come out).
const (
	MaxBundleBytes     = 32 << 20  // the upload itself
	MaxBundleEntries   = 2001      // bundle.json and up to 2000 files
	MaxBundleManifest  = 8 << 20   // bundle.json, inflated
	MaxBundleFileBytes = 20 << 20  // one image, inflated (the media upload cap)
	MaxBundleInflated  = 256 << 20 // every entry read, inflated
	// The caps of the API's parts, so that an import makes nothing the
	// API would not let a seller make (the others are the parts' own:
	// MaxElementsPerDesign, MaxOptionsPerSet, MaxValuesPerOption,
	// MaxItemsPerLibrary, models.MaxCzQuantityTiers, MaxMockupsPerBase and
	// MaxPrintAreasPerMockup).
	// What one template may use.
	MaxBundleOptionSets  = 20
	MaxBundleLibraries   = 50
	maxBundleKeyRunes    = 64
	maxBundleNameRunes   = 255
	maxBundleTextRunes   = 2000
	maxBundleMoneyCents  = 100_000_000
	maxBundleIncluded    = 1000      // a template's included colours and elements
	maxBundleMinQty      = 1_000_000 // a tier's min_qty
	maxBundleCoordinate  = 1_000_000
	maxBundleDesignSide  = 20000
	minBundlePPI         = 72
	maxBundlePPI         = 1200
	maxBundleValidation  = 10000
	maxBundlePatternSize = 500
)

// Bundle is bundle.json. Lists are in their records' order (positions are
// not written: the n-th mockup is at position n). Every field is
// documented in README "Template bundles"; a field this version does not
// know is refused.
type Bundle struct {
	Format        string          `json:"format"`
	Version       int             `json:"version"`
	Template      BundleTemplate  `json:"template"`
	QuantityTiers []BundleTier    `json:"quantity_tiers"`
	Design        BundleDesign    `json:"design"`
	ProductBase   BundleBase      `json:"product_base"`
	OptionSets    []BundleSet     `json:"option_sets"`
	Libraries     []BundleLibrary `json:"libraries"`
}

// BundleTemplate is the template's own fields; its design and product base
// are the bundle's.
type BundleTemplate struct {
	Name                      string `json:"name"`
	ExportFormat              string `json:"export_format"`
	PPI                       int64  `json:"ppi"`
	IncludedColors            int64  `json:"included_colors"`
	IncludedElements          int64  `json:"included_elements"`
	PricePerExtraColorCents   int64  `json:"price_per_extra_color_cents"`
	PricePerExtraElementCents int64  `json:"price_per_extra_element_cents"`
}

// BundleTier is a quantity tier of the template.
type BundleTier struct {
	MinQty     int64 `json:"min_qty"`
	PriceCents int64 `json:"price_cents"`
}

// BundleDesign is the template's design with its elements.
type BundleDesign struct {
	Name     string          `json:"name"`
	WidthPx  int64           `json:"width_px"`
	HeightPx int64           `json:"height_px"`
	Elements []BundleElement `json:"elements"`
}

// BundleElement is an element of the design, by its element_key.
type BundleElement struct {
	ElementKey  string         `json:"element_key"`
	GroupKey    string         `json:"group_key"`
	Type        string         `json:"type"`
	X           float64        `json:"x"`
	Y           float64        `json:"y"`
	W           float64        `json:"w"`
	H           float64        `json:"h"`
	RotationDeg float64        `json:"rotation_deg"`
	ZIndex      int64          `json:"z_index"`
	Settings    map[string]any `json:"settings"`
}

// BundleBase is the template's product base with its mockups.
type BundleBase struct {
	Name    string         `json:"name"`
	Mockups []BundleMockup `json:"mockups"`
}

// BundleMockup is a photo of the base: ImageSrc is a file reference, and
// the file must be ImageWidth × ImageHeight pixels.
type BundleMockup struct {
	Name        string            `json:"name"`
	ImageSrc    string            `json:"image_src"`
	ImageWidth  int64             `json:"image_width"`
	ImageHeight int64             `json:"image_height"`
	PrintAreas  []BundlePrintArea `json:"print_areas"`
}

// BundlePrintArea is a print area of its mockup, in the photo's pixels.
type BundlePrintArea struct {
	Name        string  `json:"name"`
	X           float64 `json:"x"`
	Y           float64 `json:"y"`
	W           float64 `json:"w"`
	H           float64 `json:"h"`
	RotationDeg float64 `json:"rotation_deg"`
}

// BundleSet is an option set bound to the template.
type BundleSet struct {
	Name    string         `json:"name"`
	Options []BundleOption `json:"options"`
}

// BundleOption is an option; Key names it for the conditions of the
// options after it (unique in its set).
type BundleOption struct {
	Key               string                  `json:"key"`
	Label             string                  `json:"label"`
	Type              string                  `json:"type"`
	Required          bool                    `json:"required"`
	Section           string                  `json:"section"`
	HelpText          string                  `json:"help_text"`
	Settings          map[string]any          `json:"settings"`
	Validation        models.CzTextValidation `json:"validation"`
	PricePerCharCents int64                   `json:"price_per_char_cents"`
	Conditions        []BundleCondition       `json:"conditions"`
	Values            []BundleValue           `json:"values"`
}

// BundleCondition is a condition of an option: Option is the key of the
// earlier option of the set whose answer it tests.
type BundleCondition struct {
	Op     string   `json:"op"`
	Option string   `json:"option"`
	Value  *string  `json:"value,omitempty"`
	Values []string `json:"values,omitempty"`
}

// BundleValue is a value of a choice option, by its slug; its functions
// target the design's element keys and group keys.
type BundleValue struct {
	Label           string                      `json:"label"`
	Value           string                      `json:"value"`
	PriceDeltaCents int64                       `json:"price_delta_cents"`
	SwatchHex       string                      `json:"swatch_hex"`
	ThumbnailURL    string                      `json:"thumbnail_url"`
	Functions       []models.CustomizerFunction `json:"functions"`
}

// BundleLibrary is an artwork library the template uses, known by its
// group_key and scope_value.
type BundleLibrary struct {
	Name       string       `json:"name"`
	Kind       string       `json:"kind"`
	GroupKey   string       `json:"group_key"`
	ScopeValue string       `json:"scope_value"`
	Items      []BundleItem `json:"items"`
}

// BundleItem is an item of a library, in position order: its value as the
// library's kind has it.
type BundleItem struct {
	Value map[string]any `json:"value"`
}

// Choices the bundle is checked against; the areas' own checks (element
// settings, option settings) run on import as well.
var (
	bundleExportFormats   = []string{"png", "jpeg"}
	bundleFileNamePattern = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$`)
	errFileReference      = "must be an image of the bundle (bundle:files/<name>)"
)

// FileRef is the reference bundle.json writes for the file files/name.
func FileRef(name string) string { return FileRefPrefix + BundleFilesDir + name }

// EscapeText is how export writes a string of a record: a string that
// would read as a file reference is escaped.
func EscapeText(s string) string {
	if strings.HasPrefix(s, FileRefPrefix) {
		return FileRefPrefix + s
	}
	return s
}

// ParseRef tells what a string of bundle.json is: a file (its entry name,
// ok) or text (the string, unescaped). A string with the prefix that is
// neither is an error.
func ParseRef(s string) (text, entry string, isFile bool, err error) {
	rest, ok := strings.CutPrefix(s, FileRefPrefix)
	if !ok {
		return s, "", false, nil
	}
	if strings.HasPrefix(rest, FileRefPrefix) {
		return rest, "", false, nil
	}
	name, ok := strings.CutPrefix(rest, BundleFilesDir)
	if !ok || !bundleFileNamePattern.MatchString(name) {
		return "", "", false, fmt.Errorf("%q is no file of the bundle: write bundle:files/<name>, the name letters, digits, '.', '_' and '-'", s)
	}
	return "", BundleFilesDir + name, true, nil
}

// BundleFiles is a read bundle's zip: its entries by name, each read at
// most once and within the bounds.
type BundleFiles struct {
	entries  map[string]*zip.File
	inflated int64
}

// BundleError is a fault of bundle.json at path (design.elements[2].x):
// a 400 naming the path, its message leading with it as every 400 of the
// API does, for the bundle's checks and its import's alike.
func BundleError(path, format string, args ...any) error {
	return apperr.InvalidField(path, format, args...)
}

// BundleAt is an error of a record's own check (which names the record's
// field, as the API answers it) as a fault of the bundle at the record's
// path: "name must not be empty" of the template is "bundle.json:
// template.name must not be empty". A conflict (a cap, a duplicate) is a
// fault of the bundle too; other errors pass unchanged.
func BundleAt(path string, err error) error {
	var e *apperr.Error
	if !errors.As(err, &e) || e.Code != apperr.Invalid && e.Code != apperr.Conflict {
		return err
	}
	if e.Field == "" {
		return BundleError(path, "%s", e.Message)
	}
	at := e.Field
	if path != "" {
		at = path + "." + e.Field
	}
	return BundleError(at, "%s", strings.TrimPrefix(strings.TrimPrefix(e.Message, e.Field), " "))
}

// fileErr is a fault of the zip itself.
func fileErr(format string, args ...any) error {
	return apperr.InvalidField("file", format, args...)
}

// ReadBundle opens a bundle's bytes: a zip of at most MaxBundleEntries
// entries with a bundle.json of this format and version, whose every
// value is checked (Check) and whose every file reference names an entry.
func ReadBundle(data []byte) (*Bundle, *BundleFiles, error) {
	if len(data) > MaxBundleBytes {
		return nil, nil, fileErr("is larger than %d MiB, the most a bundle may be", MaxBundleBytes>>20)
	}
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return nil, nil, fileErr("is not a template bundle: not a zip file (%s)", err.Error())
	}
	if len(zr.File) > MaxBundleEntries {
		return nil, nil, fileErr("holds %d entries; a bundle holds at most %d", len(zr.File), MaxBundleEntries)
	}
	files := &BundleFiles{entries: make(map[string]*zip.File, len(zr.File))}
	for _, f := range zr.File {
		if strings.HasSuffix(f.Name, "/") {
			continue // a folder
		}
		if _, dup := files.entries[f.Name]; dup {
			return nil, nil, fileErr("holds %s twice", f.Name)
		}
		files.entries[f.Name] = f
	}
	if files.entries[BundleManifest] == nil {
		return nil, nil, fileErr("is not a template bundle: it holds no %s", BundleManifest)
	}
	manifest, err := files.read(BundleManifest, MaxBundleManifest)
	if err != nil {
		return nil, nil, err
	}
	b, err := DecodeBundle(manifest)
	if err != nil {
		return nil, nil, err
	}
	if err := b.Check(files.has); err != nil {
		return nil, nil, err
	}
	return b, files, nil
}

// Read inflates the entry name (a name ParseRef gave), at most
// MaxBundleFileBytes of it.
func (f *BundleFiles) Read(name string) ([]byte, error) {
	return f.read(name, MaxBundleFileBytes)
}

func (f *BundleFiles) has(name string) bool { return f.entries[name] != nil }

func (f *BundleFiles) read(name string, max int64) ([]byte, error) {
	e := f.entries[name]
	if e == nil {
		return nil, fileErr("holds no %s", name)
	}
	rc, err := e.Open()
	if err != nil {
		return nil, fileErr("cannot be read: %s: %s", name, err.Error())
	}
	defer rc.Close()
	budget := min(max, MaxBundleInflated-f.inflated)
	data, err := io.ReadAll(io.LimitReader(rc, budget+1))
	f.inflated += int64(len(data))
	switch {
	case err != nil:
		return nil, fileErr("cannot be read: %s: %s", name, err.Error())
	case int64(len(data)) > budget && budget < max:
		return nil, fileErr("inflates to more than %d MiB in all; a bundle holds at most that", MaxBundleInflated>>20)
	case int64(len(data)) > budget:
		return nil, fileErr("holds %s, larger than %d MiB inflated", name, max>>20)
	}
	return data, nil
}

// DecodeBundle reads bundle.json: its format and version first (so a
// later version's fields are not mistaken for faults), then the whole of
// it strictly: an unknown field is an error, not ignored.
func DecodeBundle(manifest []byte) (*Bundle, error) {
	var head struct {
		Format  any `json:"format"`
		Version any `json:"version"`
	}
	if err := json.Unmarshal(manifest, &head); err != nil {
		return nil, fileErr("holds a %s that is not a JSON object: %s", BundleManifest, err.Error())
	}
	if head.Format != BundleFormat {
		return nil, BundleError("format", "must be %q, not %v: this is not a template bundle", BundleFormat, head.Format)
	}
	if v, ok := head.Version.(float64); !ok || v != BundleVersion {
		return nil, BundleError("version", "is %v; this service reads version %d", head.Version, BundleVersion)
	}
	var b Bundle
	dec := json.NewDecoder(bytes.NewReader(manifest))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&b); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			return nil, BundleError(te.Field, "must be %s, not %s", jsonKind(te.Type), te.Value)
		}
		return nil, fileErr("holds a %s this version cannot read: %s", BundleManifest, err.Error())
	}
	return &b, nil
}

// jsonKind names what JSON a Go type of the bundle reads.
func jsonKind(t reflect.Type) string {
	switch t.Kind() {
	case reflect.Struct, reflect.Map:
		return "an object"
	case reflect.Slice:
		return "a list"
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "true or false"
	case reflect.Int, reflect.Int64, reflect.Int32:
		return "a whole number"
	case reflect.Float64:
		return "a number"
	case reflect.Pointer:
		return jsonKind(t.Elem())
	}
	return "another JSON value"
}

// checker walks a bundle, stopping at its first fault.
type checker struct {
	err     error
	hasFile func(entry string) bool
}

func (c *checker) fail(path, format string, args ...any) {
	if c.err == nil {
		c.err = BundleError(path, format, args...)
	}
}

func (c *checker) text(path, s string, maxRunes int, required bool) {
	switch {
	case required && strings.TrimSpace(s) == "":
		c.fail(path, "must not be empty")
	case utf8.RuneCountInString(s) > maxRunes:
		c.fail(path, "must be at most %d characters", maxRunes)
	case models.CheckText(s) != nil:
		c.fail(path, "must be plain text (no NUL, valid UTF-8)")
	}
}

func (c *checker) slug(path, s string, required bool) {
	if s == "" && !required {
		return
	}
	if !keyPattern.MatchString(s) {
		c.fail(path, "must be 1 to 64 lower-case letters, digits, '-' and '_', starting with a letter or digit, not %q", s)
	}
}

func (c *checker) oneOf(path, s string, allowed []string) {
	for _, a := range allowed {
		if s == a {
			return
		}
	}
	c.fail(path, "must be one of %s, not %q", strings.Join(allowed, ", "), s)
}

func (c *checker) between(path string, v, lo, hi int64) {
	if v < lo || v > hi {
		c.fail(path, "must be between %d and %d, not %d", lo, hi, v)
	}
}

func (c *checker) finite(path string, v float64, lo, hi float64) {
	if math.IsNaN(v) || math.IsInf(v, 0) || v < lo || v > hi {
		c.fail(path, "must be a number between %g and %g", lo, hi)
	}
}

func (c *checker) positive(path string, v float64) {
	if !(v > 0) || v > maxBundleCoordinate {
		c.fail(path, "must be greater than 0 and at most %d", maxBundleCoordinate)
	}
}

func (c *checker) rotation(path string, v float64) {
	if !(v > -360 && v < 360) {
		c.fail(path, "must be between -360 and 360 (exclusive)")
	}
}

func (c *checker) most(path string, n, max int) {
	if n > max {
		c.fail(path, "holds %d entries; a bundle holds at most %d", n, max)
	}
}

// file checks a string that must be a file reference of the bundle.
func (c *checker) file(path, s string) {
	_, entry, isFile, err := ParseRef(s)
	switch {
	case err != nil:
		c.fail(path, "%s", err.Error())
	case !isFile:
		c.fail(path, "%s", errFileReference)
	case !c.hasFile(entry):
		c.fail(path, "names %s, which the bundle does not hold", entry)
	}
}

// json checks a free-form value (settings, an item's value): storable, and
// every file reference in it names an entry.
func (c *checker) json(path string, v any) {
	if err := models.CheckJSON(v); err != nil {
		c.fail(path, "%s", err.Error())
		return
	}
	WalkStrings(v, func(s string) string {
		if _, entry, isFile, err := ParseRef(s); err != nil {
			c.fail(path, "holds %s", err.Error())
		} else if isFile && !c.hasFile(entry) {
			c.fail(path, "names %s, which the bundle does not hold", entry)
		}
		return s
	})
}

// Check runs the bundle's own rules: every value within what the tables
// and the API accept, every key unique where it must be, every reference
// (a condition's option, a function's element or group, a file) to
// something the bundle holds. hasFile says whether the zip holds an entry.
func (b *Bundle) Check(hasFile func(entry string) bool) error {
	c := &checker{hasFile: hasFile}
	t := b.Template
	c.text("template.name", t.Name, maxBundleNameRunes, true)
	c.oneOf("template.export_format", t.ExportFormat, bundleExportFormats)
	c.between("template.ppi", t.PPI, minBundlePPI, maxBundlePPI)
	c.between("template.included_colors", t.IncludedColors, 0, maxBundleIncluded)
	c.between("template.included_elements", t.IncludedElements, 0, maxBundleIncluded)
	c.between("template.price_per_extra_color_cents", t.PricePerExtraColorCents, 0, maxBundleMoneyCents)
	c.between("template.price_per_extra_element_cents", t.PricePerExtraElementCents, 0, maxBundleMoneyCents)

	c.most("quantity_tiers", len(b.QuantityTiers), models.MaxCzQuantityTiers)
	minQty := map[int64]bool{}
	for i, q := range b.QuantityTiers {
		p := fmt.Sprintf("quantity_tiers[%d]", i)
		c.between(p+".min_qty", q.MinQty, 1, maxBundleMinQty)
		c.between(p+".price_cents", q.PriceCents, 0, maxBundleMoneyCents)
		if minQty[q.MinQty] {
			c.fail(p+".min_qty", "is %d again: a template has one tier per min_qty", q.MinQty)
		}
		minQty[q.MinQty] = true
	}

	keys := b.checkDesign(c)
	b.checkBase(c)
	c.most("option_sets", len(b.OptionSets), MaxBundleOptionSets)
	for i := range b.OptionSets {
		b.OptionSets[i].check(c, fmt.Sprintf("option_sets[%d]", i), keys)
	}
	c.most("libraries", len(b.Libraries), MaxBundleLibraries)
	for i, l := range b.Libraries {
		p := fmt.Sprintf("libraries[%d]", i)
		c.text(p+".name", l.Name, maxBundleNameRunes, true)
		c.oneOf(p+".kind", l.Kind, LibraryKinds)
		c.slug(p+".group_key", l.GroupKey, true)
		c.text(p+".scope_value", l.ScopeValue, maxBundleKeyRunes*2, false)
		c.most(p+".items", len(l.Items), MaxItemsPerLibrary)
		for j, it := range l.Items {
			if it.Value == nil {
				c.fail(fmt.Sprintf("%s.items[%d].value", p, j), "must be a JSON object (the item's value)")
			}
			c.json(fmt.Sprintf("%s.items[%d].value", p, j), it.Value)
		}
	}
	return c.err
}

// designKeys are the element keys and group keys a function may target.
type designKeys struct{ elements, groups map[string]bool }

func (b *Bundle) checkDesign(c *checker) designKeys {
	d := b.Design
	c.text("design.name", d.Name, maxBundleNameRunes, true)
	c.between("design.width_px", d.WidthPx, 1, maxBundleDesignSide)
	c.between("design.height_px", d.HeightPx, 1, maxBundleDesignSide)
	c.most("design.elements", len(d.Elements), MaxElementsPerDesign)
	keys := designKeys{elements: map[string]bool{}, groups: map[string]bool{}}
	for i, el := range d.Elements {
		p := fmt.Sprintf("design.elements[%d]", i)
		c.slug(p+".element_key", el.ElementKey, true)
		if keys.elements[el.ElementKey] {
			c.fail(p+".element_key", "is %q again: element keys are unique in a design", el.ElementKey)
		}
		keys.elements[el.ElementKey] = true
		c.slug(p+".group_key", el.GroupKey, false)
		if el.GroupKey != "" {
			keys.groups[el.GroupKey] = true
		}
		c.text(p+".type", el.Type, maxBundleKeyRunes, true)
		c.finite(p+".x", el.X, -maxBundleCoordinate, maxBundleCoordinate)
		c.finite(p+".y", el.Y, -maxBundleCoordinate, maxBundleCoordinate)
		c.positive(p+".w", el.W)
		c.positive(p+".h", el.H)
		c.rotation(p+".rotation_deg", el.RotationDeg)
		c.between(p+".z_index", el.ZIndex, math.MinInt32, math.MaxInt32)
		c.json(p+".settings", el.Settings)
	}
	return keys
}

func (b *Bundle) checkBase(c *checker) {
	base := b.ProductBase
	c.text("product_base.name", base.Name, maxBundleNameRunes, true)
	c.most("product_base.mockups", len(base.Mockups), models.MaxMockupsPerBase)
	for i, m := range base.Mockups {
		p := fmt.Sprintf("product_base.mockups[%d]", i)
		c.text(p+".name", m.Name, maxBundleNameRunes, true)
		c.file(p+".image_src", m.ImageSrc)
		c.between(p+".image_width", m.ImageWidth, 1, math.MaxInt32)
		c.between(p+".image_height", m.ImageHeight, 1, math.MaxInt32)
		c.most(p+".print_areas", len(m.PrintAreas), models.MaxPrintAreasPerMockup)
		for j, a := range m.PrintAreas {
			q := fmt.Sprintf("%s.print_areas[%d]", p, j)
			c.text(q+".name", a.Name, maxBundleNameRunes, true)
			if err := (PrintArea{X: a.X, Y: a.Y, W: a.W, H: a.H, RotationDeg: a.RotationDeg}).Check(m.ImageWidth, m.ImageHeight, nil); err != nil && c.err == nil {
				c.err = BundleAt(q, err)
			}
		}
	}
}

func (s *BundleSet) check(c *checker, p string, keys designKeys) {
	c.text(p+".name", s.Name, maxBundleNameRunes, true)
	c.most(p+".options", len(s.Options), MaxOptionsPerSet)
	earlier := map[string]*BundleOption{}
	for i := range s.Options {
		o := &s.Options[i]
		q := fmt.Sprintf("%s.options[%d]", p, i)
		c.text(q+".key", o.Key, maxBundleKeyRunes, true)
		if earlier[o.Key] != nil {
			c.fail(q+".key", "is %q again: option keys are unique in an option set", o.Key)
		}
		c.text(q+".label", o.Label, maxBundleNameRunes, true)
		c.oneOf(q+".type", o.Type, models.CzOptionTypes)
		c.text(q+".section", o.Section, maxBundleNameRunes, false)
		c.text(q+".help_text", o.HelpText, maxBundleTextRunes, false)
		c.json(q+".settings", o.Settings)
		v := o.Validation
		c.between(q+".validation.max_length", v.MaxLength, 0, maxBundleValidation)
		c.between(q+".validation.max_lines", v.MaxLines, 0, maxBundleValidation)
		c.between(q+".validation.chars_per_line", v.CharsPerLine, 0, maxBundleValidation)
		c.text(q+".validation.pattern", v.Pattern, maxBundlePatternSize, false)
		if _, err := regexp.Compile(v.Pattern); err != nil {
			c.fail(q+".validation.pattern", "is not a regular expression (RE2): %s", err.Error())
		}
		c.text(q+".validation.mode", v.Mode, maxBundleKeyRunes, false)
		c.between(q+".price_per_char_cents", o.PricePerCharCents, 0, maxBundleMoneyCents)
		for j, cond := range o.Conditions {
			checkBundleCondition(c, fmt.Sprintf("%s.conditions[%d]", q, j), cond, earlier)
		}
		if !slices.Contains(models.CzChoiceTypes, o.Type) && len(o.Values) > 0 {
			c.fail(q+".values", "must be empty: only %s options take values", strings.Join(models.CzChoiceTypes, ", "))
		}
		c.most(q+".values", len(o.Values), MaxValuesPerOption)
		slugs := map[string]bool{}
		for j, val := range o.Values {
			checkBundleValue(c, fmt.Sprintf("%s.values[%d]", q, j), val, keys)
			if slugs[val.Value] {
				c.fail(fmt.Sprintf("%s.values[%d].value", q, j), "is %q again: value slugs are unique in an option", val.Value)
			}
			slugs[val.Value] = true
		}
		earlier[o.Key] = o
	}
}

// checkBundleCondition checks a condition against the options before its own.
func checkBundleCondition(c *checker, p string, cond BundleCondition, earlier map[string]*BundleOption) {
	c.oneOf(p+".op", cond.Op, conditionOps)
	target := earlier[cond.Option]
	if target == nil {
		c.fail(p+".option", "names %q, which is no earlier option of the set: a condition tests an option before its own", cond.Option)
		return
	}
	known := func(path, slug string) {
		if len(target.Values) == 0 {
			return // a text answer: any text
		}
		for _, v := range target.Values {
			if v.Value == slug {
				return
			}
		}
		c.fail(path, "names %q, which is no value of option %q", slug, cond.Option)
	}
	switch cond.Op {
	case "equals", "not_equals":
		if cond.Value == nil || cond.Values != nil {
			c.fail(p, "%s takes value and no values", cond.Op)
			return
		}
		c.text(p+".value", *cond.Value, maxBundleTextRunes, false)
		known(p+".value", *cond.Value)
	case "in", "not_in":
		if cond.Value != nil || len(cond.Values) == 0 {
			c.fail(p, "%s takes a non-empty values and no value", cond.Op)
			return
		}
		for k, v := range cond.Values {
			known(fmt.Sprintf("%s.values[%d]", p, k), v)
		}
	case "filled", "empty":
		if cond.Value != nil || cond.Values != nil {
			c.fail(p, "%s takes neither value nor values", cond.Op)
		}
	}
}

// checkBundleValue checks a value of a choice option and its functions, which
// must target what the bundle's design holds.
func checkBundleValue(c *checker, p string, v BundleValue, keys designKeys) {
	c.text(p+".label", v.Label, maxBundleNameRunes, true)
	c.slug(p+".value", v.Value, true)
	c.between(p+".price_delta_cents", v.PriceDeltaCents, -maxBundleMoneyCents, maxBundleMoneyCents)
	if v.SwatchHex != "" && !optionHex.MatchString(v.SwatchHex) {
		c.fail(p+".swatch_hex", "must be #rrggbb in lower case, or empty")
	}
	if v.ThumbnailURL != "" {
		c.file(p+".thumbnail_url", v.ThumbnailURL)
	}
	for k, f := range v.Functions {
		q := fmt.Sprintf("%s.functions[%d]", p, k)
		switch {
		case (f.ElementKey == nil) == (f.GroupKey == nil):
			c.fail(q, "must target exactly one of element_key and group_key")
		case f.ElementKey != nil && !keys.elements[*f.ElementKey]:
			c.fail(q+".element_key", "names %q, which is no element of the bundle's design", *f.ElementKey)
		case f.GroupKey != nil && !keys.groups[*f.GroupKey]:
			c.fail(q+".group_key", "names %q, which is no group of the bundle's design", *f.GroupKey)
		}
		c.oneOf(q+".property", f.Property, functionProperties)
		c.text(q+".value", f.Value, maxBundleTextRunes, false)
		if f.Property == "image" {
			c.file(q+".value", f.Value)
		} else {
			c.json(q+".value", f.Value)
		}
	}
}

// WalkStrings calls fn on every string of a JSON value (map keys aside)
// and puts what it returns in its place; it returns the value rewritten.
// Maps and slices are rewritten in place.
func WalkStrings(v any, fn func(string) string) any {
	switch x := v.(type) {
	case string:
		return fn(x)
	case map[string]any:
		for k, e := range x {
			x[k] = WalkStrings(e, fn)
		}
	case []any:
		for i, e := range x {
			x[i] = WalkStrings(e, fn)
		}
	}
	return v
}

// EntryName is the zip entry files/name holds a file under: a clean file
// name (ParseRef's rule) made from the name an image had, unique among
// taken.
func EntryName(original string, taken map[string]bool) string {
	base := strings.Map(func(r rune) rune {
		if r < 128 && (r == '.' || r == '_' || r == '-' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') {
			return r
		}
		return '-'
	}, path.Base(original))
	base = strings.TrimLeft(base, ".-_")
	if len(base) > 100 {
		base = base[len(base)-100:]
	}
	if base == "" {
		base = "image"
	}
	name := base
	for n := 2; taken[name]; n++ {
		name = fmt.Sprintf("%d-%s", n, base)
	}
	taken[name] = true
	return name
}

// ArtworkGroups are the library catalogues (group keys) a template's
// design and option sets draw artwork from: the library_group_key of its
// artwork elements and the group_key of its artwork options, in the order
// met, each once.
func ArtworkGroups(elements []models.CzElement, options []models.CzOption) []string {
	var out []string
	seen := map[string]bool{}
	add := func(settings any, key string) {
		m, _ := settings.(map[string]any)
		if g, ok := m[key].(string); ok && g != "" && !seen[g] {
			seen[g] = true
			out = append(out, g)
		}
	}
	for _, el := range elements {
		if el.Type == ElementArtwork {
			add(el.Settings, "library_group_key")
		}
	}
	for _, o := range options {
		if o.Type == models.CzOptionArtwork {
			add(o.Settings, "group_key")
		}
	}
	return out
}
