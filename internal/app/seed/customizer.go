package seed

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/uptrace/bun"

	"storeadmin/internal/customizer"
	"storeadmin/internal/media"
	"storeadmin/models"
)

// The product customizer's slice of the store (README "Product customizer /
// Seed"): three product bases photographed with their print areas, two
// artwork libraries of generated pictures, four designs, three option sets
// with conditions and functions, four templates with quantity tiers, and
// bindings on fifteen of the catalogue's products. Every record passes the
// checks the API runs on it (internal/customizer, models).

// czBaseSeed is a product base and its photos: each mockup's picture kind
// and its print areas, in fractions of the photo.
type czBaseSeed struct {
	name    string
	mockups []czMockupSeed
}

type czMockupSeed struct {
	name, photo string
	areas       []czAreaSeed
}

type czAreaSeed struct {
	name       string
	x, y, w, h float64 // fractions of the photo's side
}

var czBases = []czBaseSeed{
	{"Ceramic mug 11 oz", []czMockupSeed{{"Front", "mug", []czAreaSeed{{"Wrap", 0.28, 0.32, 0.38, 0.40}}}}},
	{"Classic tee", []czMockupSeed{
		{"Front", "tee-front", []czAreaSeed{{"Chest", 0.34, 0.24, 0.32, 0.36}, {"Left sleeve", 0.13, 0.27, 0.08, 0.06}}},
		{"Back", "tee-back", []czAreaSeed{{"Back", 0.30, 0.20, 0.40, 0.50}}},
	}},
	{"Canvas tote", []czMockupSeed{{"Front", "tote", []czAreaSeed{{"Panel", 0.26, 0.38, 0.48, 0.42}}}}},
}

// czLibrarySeed is an artwork library of generated pictures: icons in
// one ink, or pattern tiles of ink on paper.
type czLibrarySeed struct {
	name, group string
	items       []string
	ink, paper  uint32
}

var czLibraries = []czLibrarySeed{
	{"Icons", "icons", []string{"star", "heart", "moon", "sun"}, 0x1d3557, 0},
	{"Patterns", "patterns", []string{"stripes", "dots", "checks", "waves"}, 0x2a9d8f, 0xf1faee},
}

// czSeeded is what the slice made, for the parts that follow.
type czSeeded struct {
	bases     map[string]int64 // by name
	designs   map[string]int64
	templates map[string]int64
	sets      map[string]*czSetSeeded
	images    map[string]models.Media // the artworks' uploads, by item name
}

// czSetSeeded is an option set and its options' ids by label.
type czSetSeeded struct {
	id       int64
	options  map[string]int64
	defaults map[string]any
}

func customizerSlice(ctx context.Context, tx bun.Tx, files *media.Media, storeID int64, now time.Time) error {
	existing, err := models.ListCzDesigns(ctx, tx, storeID, models.Paging{Limit: 1})
	if err != nil || len(existing) > 0 {
		return err
	}
	at := now.AddDate(0, -4, 0)
	s := &czSeeded{bases: map[string]int64{}, designs: map[string]int64{}, templates: map[string]int64{},
		sets: map[string]*czSetSeeded{}, images: map[string]models.Media{}}
	if err := s.seedBases(ctx, tx, files, storeID, at); err != nil {
		return err
	}
	if err := s.seedLibraries(ctx, tx, files, storeID, at); err != nil {
		return err
	}
	if err := s.seedDesigns(ctx, tx, storeID); err != nil {
		return err
	}
	if err := s.seedOptionSets(ctx, tx, storeID); err != nil {
		return err
	}
	if err := s.seedTemplates(ctx, tx, storeID); err != nil {
		return err
	}
	return s.seedBindings(ctx, tx, storeID)
}

// uploads is the customizer's view of the store's uploads the slice made,
// as the API reads them from the media records.
func (s *czSeeded) uploads(src string) (models.Media, bool) {
	for _, m := range s.images {
		if m.Src == src {
			return m, true
		}
	}
	return models.Media{}, false
}

func (s *czSeeded) seedBases(ctx context.Context, tx bun.Tx, files *media.Media, storeID int64, at time.Time) error {
	const side = 720
	photos := map[string]models.Media{}
	for _, b := range czBases {
		base := &models.CzProductBase{StoreID: storeID, Name: b.name, CreatedAt: at, UpdatedAt: at}
		if err := models.InsertCzProductBase(ctx, tx, base); err != nil {
			return err
		}
		s.bases[b.name] = base.ID
		for _, m := range b.mockups {
			photo, ok := photos[m.photo]
			if !ok {
				data, err := czMockupPhoto(m.photo, side)
				if err != nil {
					return err
				}
				if _, photo, err = storeImage(ctx, tx, files, storeID, "mockup-"+m.photo+".png", data, at); err != nil {
					return err
				}
				photos[m.photo] = photo
			}
			mock := &models.CzMockup{StoreID: storeID, ProductBaseID: base.ID, Name: m.name, ImageSrc: photo.Src,
				ImageWidth: photo.Width, ImageHeight: photo.Height, CreatedAt: at}
			if err := models.InsertCzMockup(ctx, tx, mock, true); err != nil {
				return err
			}
			for _, a := range m.areas {
				w, h := float64(photo.Width), float64(photo.Height)
				area := customizer.PrintArea{X: a.x * w, Y: a.y * h, W: a.w * w, H: a.h * h}
				if err := area.Check(photo.Width, photo.Height, nil); err != nil {
					return fmt.Errorf("print area %s: %w", a.name, err)
				}
				p := &models.CzPrintArea{StoreID: storeID, MockupID: mock.ID, Name: a.name, X: area.X, Y: area.Y, W: area.W, H: area.H, CreatedAt: at}
				if err := models.InsertCzPrintArea(ctx, tx, p, true); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

func (s *czSeeded) seedLibraries(ctx context.Context, tx bun.Tx, files *media.Media, storeID int64, at time.Time) error {
	const side = 256
	for _, l := range czLibraries {
		for _, name := range l.items {
			data, err := czArtwork(name, side, l.ink, l.paper)
			if err != nil {
				return err
			}
			_, m, err := storeImage(ctx, tx, files, storeID, "artwork-"+name+".png", data, at)
			if err != nil {
				return err
			}
			s.images[name] = m
		}
	}
	for _, l := range czLibraries {
		lib := &models.CzLibrary{StoreID: storeID, Name: l.name, Kind: "artwork", GroupKey: l.group, CreatedAt: at}
		if err := customizer.CheckLibraryKind(lib.Kind); err != nil {
			return err
		}
		if err := models.InsertCzLibrary(ctx, tx, lib); err != nil {
			return err
		}
		for i, name := range l.items {
			title := strings.ToUpper(name[:1]) + name[1:]
			value, err := customizer.CheckLibraryItem(lib.Kind, map[string]any{"src": s.images[name].Src, "name": title}, s.uploads)
			if err != nil {
				return fmt.Errorf("library item %s: %w", name, err)
			}
			item := &models.CzLibraryItem{StoreID: storeID, LibraryID: lib.ID, Position: int64(i), Value: value, CreatedAt: at}
			if err := models.InsertCzLibraryItem(ctx, tx, item); err != nil {
				return err
			}
		}
	}
	return nil
}

// czDesignSeeds are the four designs. The mugs share their keys (name, the
// ink group) so that one option set drives both.
func (s *czSeeded) czDesignSeeds() []struct {
	name     string
	w, h     int64
	elements []models.CzElement
} {
	text := func(key, group, def, font string, size float64, x, y, w, h float64) models.CzElement {
		return models.CzElement{ElementKey: key, GroupKey: group, Type: "text", X: x, Y: y, W: w, H: h,
			Settings: map[string]any{"text": def, "font_family": font, "font_size": size, "color": "#1d3557", "align": "center"}}
	}
	art := func(key, group, library string, x, y, w, h float64) models.CzElement {
		return models.CzElement{ElementKey: key, GroupKey: group, Type: "artwork", X: x, Y: y, W: w, H: h,
			Settings: map[string]any{"library_group_key": library}}
	}
	shape := func(key, kind, fill, stroke string, x, y, w, h float64) models.CzElement {
		return models.CzElement{ElementKey: key, Type: "shape", X: x, Y: y, W: w, H: h,
			Settings: map[string]any{"shape": kind, "fill": fill, "stroke": stroke, "stroke_width": 6.0}}
	}
	image := func(key, src string, x, y, w, h float64) models.CzElement {
		return models.CzElement{ElementKey: key, Type: "image", X: x, Y: y, W: w, H: h, Settings: map[string]any{"src": src, "fit": "contain"}}
	}
	return []struct {
		name     string
		w, h     int64
		elements []models.CzElement
	}{
		{"Name mug", 2400, 1000, []models.CzElement{
			shape("band", "rect", "#f1faee", "", 0, 700, 2400, 300),
			text("name", "ink", "Your name", "Georgia", 260, 300, 300, 1800, 360),
			art("icon", "ink", "icons", 1000, 40, 400, 240),
		}},
		{"Birthday mug", 2400, 1000, []models.CzElement{
			image("confetti", s.images["sun"].Src, 60, 60, 300, 300),
			text("greeting", "", "Happy birthday", "Georgia", 160, 400, 80, 1600, 220),
			text("name", "ink", "Your name", "Georgia", 240, 300, 360, 1800, 320),
			art("icon", "ink", "icons", 1000, 720, 400, 240),
		}},
		{"Initials tee", 3000, 3600, []models.CzElement{
			text("initials", "ink", "ABC", "Futura", 900, 300, 600, 2400, 1200),
			text("tagline", "ink", "", "Futura", 180, 300, 1900, 2400, 300),
			art("badge", "", "icons", 1100, 2400, 800, 800),
		}},
		{"Pattern tote", 2800, 2400, []models.CzElement{
			art("pattern", "", "patterns", 0, 0, 2800, 2400),
			shape("frame", "rect", "", "#264653", 200, 1500, 2400, 600),
			text("caption", "", "", "Helvetica", 220, 300, 1600, 2200, 400),
		}},
	}
}

func (s *czSeeded) seedDesigns(ctx context.Context, tx bun.Tx, storeID int64) error {
	for _, d := range s.czDesignSeeds() {
		design := &models.CzDesign{StoreID: storeID, Name: d.name, WidthPx: d.w, HeightPx: d.h}
		if err := models.InsertCzDesign(ctx, tx, design); err != nil {
			return err
		}
		s.designs[d.name] = design.ID
		for i := range d.elements {
			el := d.elements[i]
			el.StoreID, el.DesignID, el.ZIndex = storeID, design.ID, int64(i)
			if err := customizer.CheckElement(&el, s.uploads); err != nil {
				return fmt.Errorf("design %s, element %s: %w", d.name, el.ElementKey, err)
			}
			if err := models.InsertCzElement(ctx, tx, &el); err != nil {
				return err
			}
		}
	}
	return nil
}

// czOptionSeed is an option with its values; conditions name earlier
// options of the set by label (the seed resolves them to ids).
type czOptionSeed struct {
	option models.CzOption
	values []models.CzOptionValue
	when   []czWhen
}

type czWhen struct {
	label, op string
	value     *string
}

func czSlug(s string) *string { return &s }

func czInk(target *string, group *string) func(slug, label, hex string, delta int64) models.CzOptionValue {
	return func(slug, label, hex string, delta int64) models.CzOptionValue {
		return models.CzOptionValue{Value: slug, Label: label, SwatchHex: hex, PriceDeltaCents: delta,
			Functions: []models.CustomizerFunction{{ElementKey: target, GroupKey: group, Property: "color", Value: hex}}}
	}
}

func czFont(element string) func(slug, label, family string) models.CzOptionValue {
	return func(slug, label, family string) models.CzOptionValue {
		return models.CzOptionValue{Value: slug, Label: label,
			Functions: []models.CustomizerFunction{{ElementKey: &element, Property: "font", Value: family}}}
	}
}

var czOptionSets = []struct {
	name     string
	options  []czOptionSeed
	defaults map[string]any // by option label
}{
	{"Mug personalisation", []czOptionSeed{
		{option: models.CzOption{Label: "Name", Type: "text", Required: true, Section: "Your text", HelpText: "Up to 14 letters, printed on the front.",
			Validation: models.CzTextValidation{MaxLength: 14, MaxLines: 1, Mode: "letters"}}},
		{option: models.CzOption{Label: "Font", Type: "select", Section: "Your text"},
			values: []models.CzOptionValue{czFont("name")("serif", "Serif", "Georgia"), czFont("name")("script", "Script", "Pacifico"),
				czFont("name")("rounded", "Rounded", "Nunito")}},
		{option: models.CzOption{Label: "Ink colour", Type: "swatch", Required: true, Section: "Colours"},
			values: []models.CzOptionValue{czInk(nil, czSlug("ink"))("navy", "Navy", "#1d3557", 0), czInk(nil, czSlug("ink"))("red", "Poppy red", "#c1121f", 0),
				czInk(nil, czSlug("ink"))("gold", "Metallic gold", "#c9a227", 250)}},
		{option: models.CzOption{Label: "Add an icon", Type: "checkbox", Settings: map[string]any{"label": "Print an icon above the name"}}},
		{option: models.CzOption{Label: "Icon", Type: "artwork", Required: true, Settings: map[string]any{"group_key": "icons"}},
			when: []czWhen{{"Add an icon", "equals", czSlug("true")}}},
		{option: models.CzOption{Label: "Gift note", Type: "textarea", Section: "Gift", HelpText: "Printed on the card in the box, 5¢ a character.",
			PricePerCharCents: 5, Validation: models.CzTextValidation{MaxLines: 3, CharsPerLine: 40}}},
	}, map[string]any{"Ink colour": "navy", "Font": "serif"}},
	{"Tee personalisation", []czOptionSeed{
		{option: models.CzOption{Label: "Initials", Type: "text", Required: true, HelpText: "One to three letters.",
			Validation: models.CzTextValidation{MaxLength: 3, MaxLines: 1, Mode: "upper", Pattern: "[A-Z]{1,3}"}}},
		{option: models.CzOption{Label: "Ink", Type: "swatch", Required: true},
			values: []models.CzOptionValue{czInk(nil, czSlug("ink"))("black", "Black", "#111111", 0), czInk(nil, czSlug("ink"))("white", "White", "#fafafa", 0),
				czInk(nil, czSlug("ink"))("forest", "Forest", "#2d6a4f", 0)}},
		{option: models.CzOption{Label: "Tagline", Type: "text", HelpText: "Under the initials, 10¢ a character.", PricePerCharCents: 10,
			Validation: models.CzTextValidation{MaxLength: 24, MaxLines: 1}}},
		{option: models.CzOption{Label: "Badge", Type: "artwork", Settings: map[string]any{"group_key": "icons"}},
			when: []czWhen{{"Tagline", "empty", nil}}},
	}, map[string]any{"Ink": "black"}},
	{"Tote personalisation", []czOptionSeed{
		{option: models.CzOption{Label: "Pattern", Type: "artwork", Required: true, Settings: map[string]any{"group_key": "patterns"}}},
		{option: models.CzOption{Label: "Caption", Type: "text", Validation: models.CzTextValidation{MaxLength: 20, MaxLines: 1}}},
		{option: models.CzOption{Label: "Caption colour", Type: "swatch", Required: true},
			values: []models.CzOptionValue{czInk(czSlug("caption"), nil)("ink", "Ink", "#264653", 0), czInk(czSlug("caption"), nil)("coral", "Coral", "#e76f51", 0)},
			when:   []czWhen{{"Caption", "filled", nil}}},
	}, nil},
}

func (s *czSeeded) seedOptionSets(ctx context.Context, tx bun.Tx, storeID int64) error {
	for _, os := range czOptionSets {
		set := &models.CzOptionSet{StoreID: storeID, Name: os.name}
		if err := customizer.CheckOptionSet("", set); err != nil {
			return err
		}
		if err := models.InsertCzOptionSet(ctx, tx, set); err != nil {
			return err
		}
		seeded := &czSetSeeded{id: set.ID, options: map[string]int64{}, defaults: map[string]any{}}
		earlier := map[int64]customizer.ConditionTarget{}
		for _, seed := range os.options {
			o := seed.option
			o.StoreID, o.OptionSetID = storeID, set.ID
			if o.Settings == nil {
				o.Settings = map[string]any{}
			}
			o.Conditions = []models.CustomizerCondition{}
			for _, w := range seed.when {
				o.Conditions = append(o.Conditions, models.CustomizerCondition{Op: w.op, OptionID: seeded.options[w.label], Value: w.value})
			}
			if err := customizer.CheckOption("", &o); err != nil {
				return fmt.Errorf("option %s: %w", o.Label, err)
			}
			if err := customizer.CheckConditions("conditions", o.Conditions, earlier); err != nil {
				return fmt.Errorf("option %s: %w", o.Label, err)
			}
			if err := models.InsertCzOption(ctx, tx, &o); err != nil {
				return err
			}
			seeded.options[o.Label] = o.ID
			values := make([]models.CzOptionValue, len(seed.values))
			slugs := make([]string, len(seed.values))
			for i, v := range seed.values {
				v.StoreID, v.OptionID, v.Position = storeID, o.ID, int64(i)
				if err := customizer.CheckOptionValue("", &v); err != nil {
					return fmt.Errorf("option %s, value %s: %w", o.Label, v.Value, err)
				}
				values[i], slugs[i] = v, v.Value
			}
			if err := models.InsertCzOptionValues(ctx, tx, values); err != nil {
				return err
			}
			earlier[o.ID] = customizer.ConditionTarget{Type: o.Type, Slugs: slugs}
		}
		for label, answer := range os.defaults {
			seeded.defaults[strconv.FormatInt(seeded.options[label], 10)] = answer
		}
		s.sets[os.name] = seeded
	}
	return nil
}

// czTemplateSeeds: each template, its design and base, its export and its
// quantity tiers (min_qty → unit price).
var czTemplateSeeds = []struct {
	name, design, base, set string
	format                  string
	colors, elements        int64
	extraColor, extraElem   int64
	tiers                   [][2]int64
}{
	{"Name mug", "Name mug", "Ceramic mug 11 oz", "Mug personalisation", "png", 1, 2, 150, 200, [][2]int64{{12, 1600}, {36, 1400}}},
	{"Birthday mug", "Birthday mug", "Ceramic mug 11 oz", "Mug personalisation", "png", 1, 3, 150, 200, [][2]int64{{12, 1700}}},
	{"Initials tee", "Initials tee", "Classic tee", "Tee personalisation", "png", 1, 1, 300, 400, [][2]int64{{10, 2900}, {25, 2500}, {50, 2200}}},
	{"Pattern tote", "Pattern tote", "Canvas tote", "Tote personalisation", "jpeg", 2, 2, 100, 150, [][2]int64{{20, 1800}}},
}

func (s *czSeeded) seedTemplates(ctx context.Context, tx bun.Tx, storeID int64) error {
	for _, ts := range czTemplateSeeds {
		t := &models.CzTemplate{StoreID: storeID, Name: ts.name, DesignID: s.designs[ts.design], ProductBaseID: s.bases[ts.base],
			ExportFormat: ts.format, PPI: 300, IncludedColors: ts.colors, IncludedElements: ts.elements,
			PricePerExtraColorCents: ts.extraColor, PricePerExtraElementCents: ts.extraElem}
		if err := models.CheckCzTemplateRefs(ctx, tx, t); err != nil {
			return err
		}
		if err := models.InsertCzTemplate(ctx, tx, t); err != nil {
			return err
		}
		s.templates[ts.name] = t.ID
		for _, tier := range ts.tiers {
			if err := models.InsertCzQuantityTier(ctx, tx, &models.CzQuantityTier{StoreID: storeID, TemplateID: t.ID, MinQty: tier[0], PriceCents: tier[1]}); err != nil {
				return err
			}
		}
	}
	return nil
}

// czProductTemplates says which template personalises a catalogue product,
// by a word of its title; the first 15 products that match are bound
// (mugs alternate between the two mug templates).
var czProductTemplates = []struct {
	words     []string
	templates []string
}{
	{[]string{"Mug", "Bottle"}, []string{"Name mug", "Birthday mug"}},
	{[]string{"Tee", "Crew", "Long Sleeve", "Hoodie"}, []string{"Initials tee"}},
	{[]string{"Tote", "Dry Bag", "Daypack", "Duffel", "Rolltop"}, []string{"Pattern tote"}},
}

const czBoundProducts = 15

func (s *czSeeded) seedBindings(ctx context.Context, tx bun.Tx, storeID int64) error {
	active := models.ProductActive
	products, err := models.ListProducts(ctx, tx, storeID, models.ProductFilter{Status: &active}, models.Paging{Limit: 250})
	if err != nil {
		return err
	}
	setOf := map[string]string{}
	for _, ts := range czTemplateSeeds {
		setOf[ts.name] = ts.set
	}
	bound, turn := 0, map[int]int{}
	for i := range products {
		p := &products[i]
		if bound == czBoundProducts {
			break
		}
		k := slices.IndexFunc(czProductTemplates, func(m struct {
			words     []string
			templates []string
		}) bool {
			return slices.ContainsFunc(m.words, func(w string) bool { return strings.Contains(p.Title, w) })
		})
		if k < 0 {
			continue
		}
		m := czProductTemplates[k]
		template := m.templates[turn[k]%len(m.templates)]
		turn[k]++
		set := s.sets[setOf[template]]
		b := &models.CzProductBinding{StoreID: storeID, ProductID: p.ID, TemplateID: s.templates[template], OptionSetID: set.id}
		if err := models.CheckCzBindingTargets(ctx, tx, b); err != nil {
			return fmt.Errorf("bind %s to %s: %w", template, p.Title, err)
		}
		if b.DefaultSelections, err = models.NewCzLines(tx, storeID).CheckBinding(ctx, b, set.defaults); err != nil {
			return fmt.Errorf("bind %s to %s: %w", template, p.Title, err)
		}
		if _, err := models.UpsertCzBinding(ctx, tx, b); err != nil {
			return err
		}
		bound++
	}
	if bound < czBoundProducts {
		return fmt.Errorf("the catalogue has %d products to personalise, not %d", bound, czBoundProducts)
	}
	return nil
}
