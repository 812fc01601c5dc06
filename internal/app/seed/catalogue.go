package seed

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"image/png"
	"math"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/uptrace/bun"

	"storeadmin/internal/media"
	"storeadmin/models"
)

// catalogueProducts is how many products the demo store gets.
const catalogueProducts = 232

// catKind is a product type with what its products are made of.
type catKind struct {
	name      string
	items     []catItem
	materials []catCode
	sizes     []string // the size scale; nil: no Size option
	category  int64    // Google product taxonomy id
	price     [2]int64 // cents
	weight    [2]int64 // grams
	tags      []string
	blurb     string
	features  []string
}

type catItem struct {
	name, code string
	unsized    bool  // no Size option even though the kind has sizes
	category   int64 // overrides the kind's category when set
}

type catCode struct{ name, code string }

type catColor struct {
	name, code string
	r, g, b    uint8
}

var catVendors = []catCode{
	{"Northwind Outfitters", "NW"}, {"Alpine Thread Co.", "AT"}, {"Cascade Gear", "CG"}, {"Summit & Pine", "SP"},
	{"Ridgeline Supply", "RL"}, {"Glacier Works", "GW"}, {"Tamarack Trail", "TT"}, {"Harbor Knit", "HK"},
}

var catLines = []string{
	"Alpine", "Ridge", "Cascade", "Summit", "Timberline", "Basecamp", "Cirrus", "Granite", "Tundra", "Coastal",
	"Meadow", "Aspen", "Drift", "Ember", "Nomad", "Switchback", "Headwall", "Scree", "Talus", "Larch",
	"Juniper", "Fjord", "Saddle", "Cairn",
}

var catColors = []catColor{
	{"Black", "BLK", 0x24, 0x26, 0x2b}, {"Navy", "NVY", 0x1f, 0x2e, 0x4f}, {"Forest", "FST", 0x2f, 0x5d, 0x3a},
	{"Slate", "SLT", 0x5a, 0x65, 0x70}, {"Rust", "RST", 0xa4, 0x4a, 0x2a}, {"Sand", "SND", 0xd8, 0xc3, 0x9a},
	{"Ochre", "OCH", 0xc8, 0x8f, 0x2b}, {"Heather Grey", "HGR", 0x9a, 0x9c, 0xa0}, {"Glacier Blue", "GLB", 0x8c, 0xbf, 0xd9},
	{"Plum", "PLM", 0x6b, 0x3a, 0x5e}, {"Olive", "OLV", 0x6b, 0x6f, 0x3a}, {"Ember Red", "EMR", 0xc0, 0x33, 0x2e},
}

// catStyles are the looks of the generated pictures, one picture per colour
// and style.
var catStyles = []string{"gradient", "stripes"}

var (
	catApparelSizes = []string{"XS", "S", "M", "L", "XL", "XXL"}
	catWaistSizes   = []string{"28", "30", "32", "34", "36", "38"}
	catShoeSizes    = []string{"7", "8", "9", "10", "11", "12", "13"}
)

var catKinds = []catKind{
	{
		name: "Base Layers", sizes: catApparelSizes, category: 5322, price: [2]int64{3500, 9500}, weight: [2]int64{150, 320},
		items: []catItem{{name: "Crew", code: "CRW"}, {name: "Hoodie", code: "HDY"}, {name: "Quarter Zip", code: "QZP"},
			{name: "Tee", code: "TEE"}, {name: "Leggings", code: "LEG"}, {name: "Long Sleeve", code: "LSL"}},
		materials: []catCode{{"Merino", "MER"}, {"Merino Wool", "MWL"}, {"Recycled Poly", "RPY"}, {"Bamboo", "BMB"}, {"Wool Blend", "WBL"}},
		tags:      []string{"base-layer", "layering"},
		blurb:     "a next-to-skin layer that breathes on the climb and keeps you warm when you stop",
		features:  []string{"Flatlock seams that never chafe under a pack", "Naturally odour resistant", "Drop-tail hem stays tucked", "Thumb loops keep sleeves in place", "Machine washable, cold"},
	},
	{
		name: "Jackets", sizes: catApparelSizes, category: 5598, price: [2]int64{9900, 24500}, weight: [2]int64{250, 900},
		items: []catItem{{name: "Rain Shell", code: "SHL"}, {name: "Down Jacket", code: "DWN"}, {name: "Insulated Parka", code: "PRK"},
			{name: "Softshell", code: "SFT"}, {name: "Wind Shirt", code: "WND"}, {name: "Anorak", code: "ANK"}},
		materials: []catCode{{"Ripstop", "RIP"}, {"Recycled Nylon", "RNY"}, {"800-Fill", "FIL"}, {"Waxed Canvas", "WXC"}, {"Wool", "WOL"}},
		tags:      []string{"outerwear", "jacket"},
		blurb:     "a jacket for the days the forecast gets it wrong",
		features:  []string{"Fully taped seams", "Helmet-compatible hood", "Pit zips for venting on the climb", "Packs into its own chest pocket", "PFC-free water repellent finish"},
	},
	{
		name: "Fleece", sizes: catApparelSizes, category: 203, price: [2]int64{5500, 14900}, weight: [2]int64{280, 600},
		items: []catItem{{name: "Pullover", code: "PUL"}, {name: "Grid Hoodie", code: "GRD"}, {name: "Vest", code: "VST"},
			{name: "Pile Jacket", code: "PIL"}, {name: "Half Zip", code: "HZP"}},
		materials: []catCode{{"Recycled", "RCY"}, {"Sherpa", "SHP"}, {"Wool", "WOL"}, {"Microgrid", "MGR"}, {"Boiled Wool", "BWL"}},
		tags:      []string{"fleece", "layering"},
		blurb:     "a mid layer that traps heat without trapping sweat",
		features:  []string{"Grid back dumps heat fast", "Zippered chest pocket", "Stretch-bound cuffs", "Made from recycled bottles", "Cosy around camp, light in the pack"},
	},
	{
		name: "Pants", sizes: catWaistSizes, category: 204, price: [2]int64{4500, 12900}, weight: [2]int64{220, 560},
		items: []catItem{{name: "Trail Pant", code: "TRP"}, {name: "Hiking Short", code: "HSH"}, {name: "Rain Pant", code: "RNP"},
			{name: "Climbing Pant", code: "CLP"}, {name: "Jogger", code: "JOG"}, {name: "Convertible Pant", code: "CVP"}},
		materials: []catCode{{"Stretch Nylon", "SNY"}, {"Canvas", "CNV"}, {"Ripstop", "RIP"}, {"Hemp", "HMP"}, {"Softshell", "SFS"}},
		tags:      []string{"bottoms"},
		blurb:     "a pant that moves like you do, from the scramble to the brewery",
		features:  []string{"Gusseted crotch for high steps", "Articulated knees", "Zippered thigh pocket fits a phone", "Integrated webbing belt", "Quick-drying fabric"},
	},
	{
		name: "Footwear", sizes: catShoeSizes, category: 187, price: [2]int64{4900, 22900}, weight: [2]int64{300, 1200},
		items: []catItem{{name: "Trail Runner", code: "TRN"}, {name: "Hiking Boot", code: "HBT"}, {name: "Camp Slipper", code: "SLP"},
			{name: "Approach Shoe", code: "APR"}, {name: "Sandal", code: "SDL"}},
		materials: []catCode{{"Suede", "SDE"}, {"Mesh", "MSH"}, {"Leather", "LTH"}, {"Wool", "WOL"}, {"Recycled", "RCY"}},
		tags:      []string{"footwear"},
		blurb:     "a shoe that grips wet rock and forgives long miles",
		features:  []string{"Sticky rubber outsole with 4 mm lugs", "Rock plate under the forefoot", "Wide toe box", "Gaiter-ready heel tab", "Resoleable"},
	},
	{
		name: "Packs", category: 100, price: [2]int64{2900, 18900}, weight: [2]int64{200, 1400},
		items: []catItem{{name: "Daypack 22L", code: "DPK"}, {name: "Hip Pack", code: "HIP"}, {name: "Duffel 40L", code: "DUF"},
			{name: "Rolltop 28L", code: "RTP"}, {name: "Sling", code: "SLG"}, {name: "Tote", code: "TOT"}},
		materials: []catCode{{"Ripstop", "RIP"}, {"Waxed Canvas", "WXC"}, {"Recycled Nylon", "RNY"}, {"Ballistic", "BAL"}},
		tags:      []string{"packs", "travel"},
		blurb:     "a pack that carries the day's kit and nothing it doesn't need",
		features:  []string{"Padded laptop sleeve", "Stowable hip belt", "Hydration compatible", "Water-resistant zips", "Lifetime repair guarantee"},
	},
	{
		name: "Headwear", category: 173, price: [2]int64{1500, 4500}, weight: [2]int64{40, 140},
		items: []catItem{{name: "Beanie", code: "BNE"}, {name: "Trucker Cap", code: "TRK"}, {name: "Sun Hat", code: "SUN"},
			{name: "Neck Gaiter", code: "GTR"}, {name: "Bucket Hat", code: "BKT"}, {name: "Headband", code: "HBD"}},
		materials: []catCode{{"Merino", "MER"}, {"Wool", "WOL"}, {"Organic Cotton", "OCT"}, {"Recycled", "RCY"}, {"Alpaca", "ALP"}},
		tags:      []string{"headwear", "accessories"},
		blurb:     "the small thing you will be glad you packed",
		features:  []string{"One size fits most", "Soft, itch-free knit", "UPF 50 sun protection", "Packs flat", "Knit in Portland"},
	},
	{
		name: "Accessories", sizes: []string{"S", "M", "L"}, category: 166, price: [2]int64{900, 6900}, weight: [2]int64{60, 520},
		items: []catItem{{name: "Hiking Sock", code: "SCK", category: 209}, {name: "Liner Glove", code: "GLV", category: 170},
			{name: "Water Bottle", code: "BTL", unsized: true}, {name: "Trekking Poles", code: "TPL", unsized: true},
			{name: "Dry Bag", code: "DRY", unsized: true}, {name: "Camp Mug", code: "MUG", unsized: true}},
		materials: []catCode{{"Merino", "MER"}, {"Wool", "WOL"}, {"Recycled", "RCY"}, {"Titanium", "TTN"}, {"Steel", "STL"}},
		tags:      []string{"accessories"},
		blurb:     "trail-tested gear for the details that make a day out",
		features:  []string{"Lifetime guarantee", "Light enough to forget about", "Made to be repaired, not replaced", "Fits in a hip-belt pocket", "Gift ready"},
	},
}

// catProduct is a seeded product with what later steps need to know.
type catProduct struct {
	p      *models.Product
	kind   *catKind
	item   catItem
	colors []int // indexes into catColors
	sale   bool
}

// catImage is a generated picture stored in the media bucket.
type catImage struct {
	color, style int
	img          media.Image
}

// catalogue seeds products with variants and images, collections, bundles and reviews.
func catalogue(ctx context.Context, tx bun.Tx, files *media.Media, storeID int64, now time.Time) error {
	n, err := models.CountProducts(ctx, tx, storeID, models.ProductFilter{})
	if err != nil || n > 0 {
		return err
	}
	rng := rand.New(rand.NewPCG(uint64(storeID), 42))

	images, err := catImages(ctx, tx, files, storeID, now)
	if err != nil {
		return err
	}
	products, err := catProducts(ctx, tx, rng, storeID, now, images)
	if err != nil {
		return err
	}
	collections, err := catCollections(ctx, tx, rng, storeID, now, products, images)
	if err != nil {
		return err
	}
	if err := catBundles(ctx, tx, storeID, now, products, collections); err != nil {
		return err
	}
	return catReviews(ctx, tx, rng, storeID, now, products, images)
}

// catImages draws one picture per colour and style, stores each once and
// records it as the store's media.
func catImages(ctx context.Context, tx bun.Tx, files *media.Media, storeID int64, now time.Time) ([]catImage, error) {
	out := make([]catImage, 0, len(catColors)*len(catStyles))
	for ci, c := range catColors {
		for si, style := range catStyles {
			data, err := catSwatch(c, si)
			if err != nil {
				return nil, err
			}
			name := models.Handleize(c.name) + "-" + style + ".png"
			img, _, err := storeImage(ctx, tx, files, storeID, name, data, now.Add(-366*24*time.Hour))
			if err != nil {
				return nil, err
			}
			out = append(out, catImage{color: ci, style: si, img: img})
		}
	}
	return out, nil
}

// storeImage stores a generated picture as the store's upload of at, as an
// upload through the API would be.
func storeImage(ctx context.Context, tx bun.Tx, files *media.Media, storeID int64, name string, data []byte, at time.Time) (media.Image, models.Media, error) {
	img, err := files.PutImage(ctx, storeID, name, data)
	if err != nil {
		return img, models.Media{}, fmt.Errorf("store image %s: %w", name, err)
	}
	m := img.Record(storeID)
	m.CreatedAt = at
	return img, m, models.InsertMedia(ctx, tx, &m)
}

// catSwatch draws a 480x480 PNG in colour c: a soft diagonal gradient
// (style 0) or diagonal stripes (style 1).
func catSwatch(c catColor, style int) ([]byte, error) {
	const size = 480
	img := image.NewNRGBA(image.Rect(0, 0, size, size))
	for y := range size {
		for x := range size {
			k := 1.0
			if style == 0 {
				k = 1.35 - 0.7*float64(x+y)/float64(2*size)
			} else if ((x+y)/40)%2 == 1 {
				k = 0.72
			}
			i := img.PixOffset(x, y)
			img.Pix[i+0], img.Pix[i+1], img.Pix[i+2], img.Pix[i+3] = catShade(c.r, k), catShade(c.g, k), catShade(c.b, k), 0xff
		}
	}
	var buf bytes.Buffer
	enc := png.Encoder{CompressionLevel: png.BestSpeed}
	if err := enc.Encode(&buf, img); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// catShade darkens v for k < 1 and blends it towards white for k > 1.
func catShade(v uint8, k float64) uint8 {
	f := float64(v)
	if k > 1 {
		f += (255 - f) * (k - 1)
	} else {
		f *= k
	}
	return uint8(math.Max(0, math.Min(255, math.Round(f))))
}

func catProducts(ctx context.Context, tx bun.Tx, rng *rand.Rand, storeID int64, now time.Time, images []catImage) ([]catProduct, error) {
	const year = 365 * 24 * time.Hour
	titles := map[string]bool{}
	skuBases := map[string]int{}
	out := make([]catProduct, 0, catalogueProducts)
	for i := range catalogueProducts {
		kind := &catKinds[i%len(catKinds)]
		vendor := catVendors[rng.IntN(len(catVendors))]
		var item catItem
		var material catCode
		var title string
		for {
			item = kind.items[rng.IntN(len(kind.items))]
			material = kind.materials[rng.IntN(len(kind.materials))]
			title = catLines[rng.IntN(len(catLines))] + " " + material.name + " " + item.name
			if !titles[title] {
				titles[title] = true
				break
			}
		}

		// Spread creation over the last year, oldest first.
		slot := year / catalogueProducts
		created := now.Add(-year + time.Duration(i)*slot + time.Duration(rng.Int64N(int64(slot)))).Truncate(time.Second)
		updated := created.Add(time.Duration(rng.Int64N(int64(now.Sub(created)) + 1))).Truncate(time.Second)

		status := models.ProductActive
		switch r := rng.Float64(); {
		case r > 0.95:
			status = models.ProductArchived
		case r > 0.85:
			status = models.ProductDraft
		}

		// Options: Size and/or Color, or a single Default Title variant.
		var sizes []string
		if kind.sizes != nil && !item.unsized {
			sizes = kind.sizes
		}
		var colors []int
		single := false
		switch {
		case sizes != nil:
			colors = catPickColors(rng, 1+rng.IntN(3))
			want := min(3+rng.IntN(len(sizes)-2), 12/len(colors))
			start := rng.IntN(len(sizes) - want + 1)
			sizes = sizes[start : start+want]
		case rng.Float64() < 0.3:
			single = true
		default:
			colors = catPickColors(rng, 2+rng.IntN(3))
		}
		if single && rng.Float64() < 0.5 {
			colors = catPickColors(rng, 1) // only to choose the pictures
		}

		sale := rng.Float64() < 0.2
		p := &models.Product{
			StoreID: storeID, Handle: models.Handleize(title), Title: title, Vendor: vendor.name,
			ProductType: kind.name, Status: status, CreatedAt: created, UpdatedAt: updated,
		}
		p.BodyHTML, p.SEO = catDescription(rng, kind, title, material, vendor)
		p.Tags = catTags(rng, kind, material, item, sale, now.Sub(created) < 60*24*time.Hour)
		if rng.Float64() < 0.7 {
			p.AdplatformCategoryID = kind.category
			if item.category != 0 {
				p.AdplatformCategoryID = item.category
			}
		}
		switch {
		case single:
			p.Options = []models.ProductOption{{Name: "Title", Position: 1, Values: []string{"Default Title"}}}
		default:
			if sizes != nil {
				p.Options = append(p.Options, models.ProductOption{Name: "Size", Position: 1, Values: sizes})
			}
			names := make([]string, len(colors))
			for j, c := range colors {
				names[j] = catColors[c].name
			}
			p.Options = append(p.Options, models.ProductOption{Name: "Color", Position: int64(len(p.Options) + 1), Values: names})
		}
		if err := models.InsertProduct(ctx, tx, p); err != nil {
			return nil, fmt.Errorf("product %q: %w", title, err)
		}

		imgs := catProductImages(rng, title, colors, images, created, status)
		if err := models.SaveImages(ctx, tx, storeID, p.ID, imgs); err != nil {
			return nil, err
		}

		base := vendor.code + "-" + material.code + "-" + item.code
		if k := skuBases[base]; k > 0 {
			skuBases[base] = k + 1
			base = fmt.Sprintf("%s%d", base, k+1)
		} else {
			skuBases[base] = 1
		}
		vs := catVariants(rng, kind, base, sizes, colors, single, sale, status, created, images, imgs)
		if err := models.SaveVariants(ctx, tx, storeID, p.ID, vs, imgs); err != nil {
			return nil, fmt.Errorf("variants of %q: %w", title, err)
		}
		out = append(out, catProduct{p: p, kind: kind, item: item, colors: colors, sale: sale})
	}
	return out, nil
}

// catPickColors picks n distinct colours, in palette order.
func catPickColors(rng *rand.Rand, n int) []int {
	perm := rng.Perm(len(catColors))[:n]
	out := make([]int, 0, n)
	for c := range catColors {
		for _, q := range perm {
			if q == c {
				out = append(out, c)
			}
		}
	}
	return out
}

func catDescription(rng *rand.Rand, kind *catKind, title string, material, vendor catCode) (string, map[string]any) {
	feats := rng.Perm(len(kind.features))[:3]
	var b strings.Builder
	fmt.Fprintf(&b, "<p>The %s is %s.</p>", title, kind.blurb)
	fmt.Fprintf(&b, "<p>Made by %s in %s.</p><ul>", vendor.name, strings.ToLower(material.name))
	for _, f := range feats {
		fmt.Fprintf(&b, "<li>%s</li>", kind.features[f])
	}
	b.WriteString("</ul>")
	desc := fmt.Sprintf("%s by %s: %s.", title, vendor.name, kind.blurb)
	if len(desc) > 160 {
		desc = desc[:157] + "..."
	}
	return b.String(), map[string]any{"title": title + " | " + vendor.name, "description": desc}
}

func catTags(rng *rand.Rand, kind *catKind, material catCode, item catItem, sale, fresh bool) []string {
	tags := append([]string{}, kind.tags...)
	m := strings.ToLower(material.name)
	switch {
	case strings.Contains(m, "merino"):
		tags = append(tags, "merino", "wool")
	case strings.Contains(m, "wool") || strings.Contains(m, "alpaca"):
		tags = append(tags, "wool")
	case strings.Contains(m, "recycled"):
		tags = append(tags, "recycled")
	}
	if strings.Contains(item.name, "Rain") || item.code == "DRY" {
		tags = append(tags, "waterproof")
	}
	if sale {
		tags = append(tags, "sale")
	}
	if fresh {
		tags = append(tags, "new")
	}
	if rng.Float64() < 0.15 {
		tags = append(tags, "bestseller")
	}
	if rng.Float64() < 0.12 {
		tags = append(tags, "gift")
	}
	return tags
}

// catProductImages picks 1..3 of the generated pictures: one per colour in
// the product's style when it has colours, else any.
func catProductImages(rng *rand.Rand, title string, colors []int, images []catImage, created time.Time, status string) []models.ProductImage {
	if status == models.ProductDraft && rng.Float64() < 0.3 {
		return []models.ProductImage{} // a draft still waiting for its photo shoot
	}
	style := rng.IntN(len(catStyles))
	var picks []catImage
	alts := []string{}
	for _, c := range colors {
		if len(picks) == 3 {
			break
		}
		picks = append(picks, images[c*len(catStyles)+style])
		alts = append(alts, title+" in "+catColors[c].name)
	}
	if len(colors) == 1 && rng.Float64() < 0.6 {
		picks = append(picks, images[colors[0]*len(catStyles)+(style+1)%len(catStyles)])
		alts = append(alts, title+", detail")
	}
	if len(colors) == 0 {
		for _, k := range rng.Perm(len(images))[:1+rng.IntN(3)] {
			picks = append(picks, images[k])
			alts = append(alts, title)
		}
	}
	out := make([]models.ProductImage, len(picks))
	for i, im := range picks {
		out[i] = models.ProductImage{
			Src: im.img.Src, Alt: alts[i], Width: int64(im.img.Width), Height: int64(im.img.Height),
			Thumbhash: im.img.Thumbhash, CreatedAt: created,
		}
	}
	return out
}

func catVariants(rng *rand.Rand, kind *catKind, base string, sizes []string, colors []int, single, sale bool, status string,
	created time.Time, images []catImage, imgs []models.ProductImage) []models.ProductVariant {
	price := kind.price[0] + rng.Int64N(kind.price[1]-kind.price[0]+1)
	price = max(900, price/100*100-1) // 4999, not 5013
	weight := kind.weight[0] + rng.Int64N(kind.weight[1]-kind.weight[0]+1)
	policy := models.InventoryDeny
	if rng.Float64() < 0.1 {
		policy = models.InventoryContinue
	}
	var compareAt *int64
	if sale {
		c := price * (120 + rng.Int64N(26)) / 100 / 100 * 100
		c = max(c+99, price+100)
		compareAt = &c
	}
	barcodes := rng.Float64() < 0.6
	srcOf := map[int]string{} // colour -> picture src among the product's images
	for _, c := range colors {
		for _, im := range images {
			if im.color != c {
				continue
			}
			for _, pi := range imgs {
				if pi.Src == im.img.Src && srcOf[c] == "" {
					srcOf[c] = pi.Src
				}
			}
		}
	}

	type combo struct {
		size  string
		sizeI int
		color int
	}
	var combos []combo
	switch {
	case single:
		combos = []combo{{color: -1}}
	case sizes == nil:
		for _, c := range colors {
			combos = append(combos, combo{color: c})
		}
	default:
		for si, s := range sizes {
			for _, c := range colors {
				combos = append(combos, combo{size: s, sizeI: si, color: c})
			}
		}
	}

	out := make([]models.ProductVariant, len(combos))
	for i, cb := range combos {
		v := models.ProductVariant{
			InventoryPolicy: policy, TrackInventory: true, Taxable: true, RequiresShipping: true,
			CreatedAt: created, UpdatedAt: created, CompareAtPriceCents: compareAt,
		}
		var values []string
		sku := base
		v.PriceCents = price
		v.WeightGrams = weight + int64(cb.sizeI)*15
		if cb.size != "" {
			values = append(values, cb.size)
			sku += "-" + cb.size
			if cb.size == "XXL" || cb.size == "38" || cb.size == "13" {
				v.PriceCents = min(25000, price+300)
			}
		}
		if cb.color >= 0 {
			values = append(values, catColors[cb.color].name)
			sku += "-" + catColors[cb.color].code
			v.ImageSrc = srcOf[cb.color]
		}
		if single {
			values = []string{"Default Title"}
		}
		v.Title = strings.Join(values, " / ")
		v.Option1 = values[0]
		if len(values) > 1 {
			v.Option2 = values[1]
		}
		v.SKU = sku
		cost := v.PriceCents * (38 + rng.Int64N(18)) / 100
		v.CostCents = &cost
		switch r := rng.Float64(); {
		case status == models.ProductArchived || r < 0.12:
			v.InventoryQuantity = 0
		case r < 0.3:
			v.InventoryQuantity = 1 + rng.Int64N(5) // running low
		default:
			v.InventoryQuantity = 6 + rng.Int64N(140)
		}
		if barcodes {
			v.Barcode = fmt.Sprintf("0%011d", rng.Int64N(100_000_000_000))
		}
		out[i] = v
	}
	return out
}

// catCollectionIDs names the collections later steps refer to.
type catCollectionIDs struct {
	layering, jacketsWool int64
}

func catCollections(ctx context.Context, tx bun.Tx, rng *rand.Rand, storeID int64, now time.Time, products []catProduct, images []catImage) (catCollectionIDs, error) {
	var ids catCollectionIDs
	day := 24 * time.Hour
	pick := func(limit int, keep func(cp catProduct) bool) []int64 {
		var out []int64
		for _, k := range rng.Perm(len(products)) {
			cp := products[k]
			if cp.p.Status != models.ProductArchived && keep(cp) {
				out = append(out, cp.p.ID)
			}
			if len(out) == limit {
				break
			}
		}
		return out
	}
	active := func(cp catProduct) bool { return cp.p.Status == models.ProductActive }
	ofKind := func(names ...string) func(cp catProduct) bool {
		return func(cp catProduct) bool {
			for _, n := range names {
				if cp.kind.name == n && cp.p.Status == models.ProductActive {
					return true
				}
			}
			return false
		}
	}
	imageOf := func(c, style int) string { return images[c*len(catStyles)+style].img.Src }

	manual := []struct {
		title, description string
		published          bool
		created            time.Duration
		image              string
		members            []int64
	}{
		{"Staff Picks", "What our team actually wears on the trail this season.", true, 300 * day, imageOf(2, 0), pick(14, active)},
		{"Gift Guide", "Thoughtful gifts for the outdoors people in your life, most under $60.", true, 200 * day, imageOf(11, 1),
			pick(20, func(cp catProduct) bool {
				return cp.p.Status == models.ProductActive && (cp.kind.name == "Headwear" || cp.kind.name == "Accessories" || catHasTag(cp.p, "gift"))
			})},
		{"Layering System", "Base, mid and shell: build a kit that works from the trailhead to the summit.", true, 250 * day, imageOf(1, 0),
			pick(24, ofKind("Base Layers", "Fleece", "Jackets"))},
		{"Trail Day Essentials", "Shoes, packs and the small things for a long day out.", true, 180 * day, imageOf(6, 0),
			pick(18, ofKind("Footwear", "Packs", "Accessories"))},
		{"Camp Comfort", "Slippers, pile and warm hats for the evening by the fire.", true, 120 * day, imageOf(4, 1),
			pick(12, func(cp catProduct) bool {
				return cp.p.Status == models.ProductActive && (cp.item.code == "SLP" || cp.item.code == "PIL" || cp.item.code == "BNE" || cp.item.code == "MUG" || cp.kind.name == "Fleece")
			})},
		{"Holiday 2026 Preview", "Not live yet: the holiday edit, waiting for photography.", false, 20 * day, imageOf(9, 1),
			pick(10, func(cp catProduct) bool { return true })},
	}
	for _, m := range manual {
		c := &models.Collection{
			StoreID: storeID, Handle: models.Handleize(m.title), Title: m.title, Description: m.description,
			CollectionType: models.CollectionManual, SortOrder: "manual", Published: m.published, ImageSrc: m.image,
			SEO:       map[string]any{"title": m.title + " | Demo Outfitters", "description": m.description},
			CreatedAt: now.Add(-m.created).Truncate(time.Second), UpdatedAt: now.Add(-m.created / 3).Truncate(time.Second),
		}
		if err := models.InsertCollection(ctx, tx, c); err != nil {
			return ids, fmt.Errorf("collection %q: %w", m.title, err)
		}
		if _, err := models.AddCollectionProducts(ctx, tx, storeID, c.ID, m.members); err != nil {
			return ids, err
		}
		if m.title == "Layering System" {
			ids.layering = c.ID
		}
	}

	smart := []struct {
		title, description, sort string
		disjunctive              bool
		rules                    []models.CollectionRule
		created                  time.Duration
		image                    string
	}{
		{"Northwind Outfitters", "Everything from our Portland neighbours at Northwind.", "alpha-asc", false,
			[]models.CollectionRule{{Column: "vendor", Relation: "equals", Condition: "Northwind Outfitters"}}, 330 * day, imageOf(3, 0)},
		{"Sale", "Last season's colours, this season's prices.", "price-desc", false,
			[]models.CollectionRule{{Column: "tag", Relation: "equals", Condition: "sale"}}, 150 * day, imageOf(11, 0)},
		{"Under $30", "Stocking stuffers and small upgrades.", "price-asc", false,
			[]models.CollectionRule{{Column: "variant_price", Relation: "less_than", Condition: "3000"}}, 90 * day, imageOf(5, 1)},
		{"Jackets & Wool", "Warmth for the cold months: every jacket, and anything wool.", "created-desc", true,
			[]models.CollectionRule{{Column: "type", Relation: "equals", Condition: "Jackets"}, {Column: "title", Relation: "contains", Condition: "wool"}}, 60 * day, imageOf(0, 1)},
		{"Ready to Ship Bestsellers", "Our most loved pieces that are in stock today.", "manual", false,
			[]models.CollectionRule{{Column: "tag", Relation: "equals", Condition: "bestseller"}, {Column: "variant_inventory", Relation: "greater_than", Condition: "0"}}, 30 * day, imageOf(8, 0)},
	}
	for _, s := range smart {
		rules, err := models.CheckRules(s.rules)
		if err != nil {
			return ids, fmt.Errorf("collection %q: %w", s.title, err)
		}
		c := &models.Collection{
			StoreID: storeID, Handle: models.Handleize(s.title), Title: s.title, Description: s.description,
			CollectionType: models.CollectionSmart, Disjunctive: s.disjunctive, RuleList: rules, SortOrder: s.sort,
			Published: true, ImageSrc: s.image,
			SEO:       map[string]any{"title": s.title + " | Demo Outfitters", "description": s.description},
			CreatedAt: now.Add(-s.created).Truncate(time.Second), UpdatedAt: now.Add(-s.created / 2).Truncate(time.Second),
		}
		if err := models.InsertCollection(ctx, tx, c); err != nil {
			return ids, fmt.Errorf("collection %q: %w", s.title, err)
		}
		if s.title == "Jackets & Wool" {
			ids.jacketsWool = c.ID
		}
	}
	return ids, models.RefreshSmartCollections(ctx, tx, storeID, nil, nil)
}

func catHasTag(p *models.Product, tag string) bool {
	for _, t := range p.Tags {
		if t == tag {
			return true
		}
	}
	return false
}

func catBundles(ctx context.Context, tx bun.Tx, storeID int64, now time.Time, products []catProduct, cols catCollectionIDs) error {
	day := 24 * time.Hour
	var socks, baseLayers []int64
	for _, cp := range products {
		if cp.p.Status != models.ProductActive {
			continue
		}
		switch {
		case cp.item.code == "SCK":
			socks = append(socks, cp.p.ID)
		case cp.item.code == "TEE" || cp.item.code == "CRW":
			baseLayers = append(baseLayers, cp.p.ID)
		}
	}
	tier := func(qty, bps int64, label string, free, pre bool) models.BundleOfferTier {
		t := models.BundleOfferTier{Quantity: qty, DiscountBps: bps, Label: label, FreeShipping: free, Preselected: pre}
		t.Title = fmt.Sprintf("Buy %d", qty)
		if qty == 1 {
			t.Title = "Just one"
		}
		t.Caption = "Standard price"
		if bps > 0 {
			t.Caption = t.DiscountDisplay() + " each"
		}
		if free {
			t.BenefitLabel = "Free shipping"
		}
		return t
	}
	bundles := []struct {
		b           models.BundleOffer
		tiers       []models.BundleOfferTier
		products    []int64
		collections []int64
		created     time.Duration
	}{
		{models.BundleOffer{Title: "Buy more, save more", Enabled: true, AppliesTo: models.BundleAll, VariantSelectors: true},
			[]models.BundleOfferTier{tier(1, 0, "", false, false), tier(2, 500, "", false, false), tier(3, 1000, "Most popular", false, true), tier(5, 1500, "Best value", true, false)},
			nil, nil, 240 * day},
		{models.BundleOffer{Title: "Sock drawer refresh", Enabled: true, AppliesTo: models.BundleProducts, VariantSelectors: true, VariantSelectorsSingle: true},
			[]models.BundleOfferTier{tier(3, 1000, "Most popular", false, true), tier(5, 1500, "Best value", true, false)},
			socks, nil, 160 * day},
		{models.BundleOffer{Title: "Base layer multipack", Enabled: true, AppliesTo: models.BundleProducts, VariantSelectors: true, IncludePlainItems: true},
			[]models.BundleOfferTier{tier(2, 500, "", false, false), tier(3, 1000, "Most popular", false, true), tier(5, 1500, "Stock up", true, false)},
			baseLayers, nil, 120 * day},
		{models.BundleOffer{Title: "Layer up", Enabled: true, AppliesTo: models.BundleCollections, VariantSelectors: true},
			[]models.BundleOfferTier{tier(2, 500, "", false, true), tier(3, 1000, "Full system", true, false)},
			nil, []int64{cols.layering}, 75 * day},
		{models.BundleOffer{Title: "Winter warmers (paused)", Enabled: false, AppliesTo: models.BundleCollections},
			[]models.BundleOfferTier{tier(2, 500, "", false, false), tier(3, 1000, "Most popular", false, true), tier(5, 1500, "", true, false)},
			nil, []int64{cols.jacketsWool}, 40 * day},
	}
	for _, spec := range bundles {
		b := spec.b
		b.StoreID = storeID
		b.CreatedAt = now.Add(-spec.created).Truncate(time.Second)
		b.UpdatedAt = now.Add(-spec.created / 4).Truncate(time.Second)
		if err := models.InsertBundle(ctx, tx, &b); err != nil {
			return fmt.Errorf("bundle %q: %w", b.Title, err)
		}
		if err := models.SaveBundleTiers(ctx, tx, storeID, b.ID, spec.tiers); err != nil {
			return fmt.Errorf("bundle %q: %w", b.Title, err)
		}
		if err := models.SaveBundleTargets(ctx, tx, storeID, b.ID, spec.products, spec.collections); err != nil {
			return fmt.Errorf("bundle %q: %w", b.Title, err)
		}
	}
	return nil
}

var (
	catFirstNames = []string{"Olivia", "Ethan", "Priya", "Mateo", "Hannah", "Kenji", "Grace", "Omar", "Chloe", "Lucas",
		"Aisha", "Ben", "Freya", "Diego", "Nora", "Sam", "Ingrid", "Tomás", "Zoe", "Malik", "Elena", "Jonah", "Yuki", "Rosa",
		"Felix", "Amara", "Owen", "Leila", "Caleb", "Mei"}
	catLastNames = []string{"Anderson", "Nakamura", "Okonkwo", "García", "Lindqvist", "Brennan", "Kowalski", "Haddad",
		"Fischer", "Moreau", "Singh", "Walsh", "Delgado", "Park", "Novak", "Murphy", "Jensen", "Costa", "Whitfield", "Tanaka"}
	catReviewTitles = map[int64][]string{
		5: {"Best layer I own", "Worth every penny", "Perfect fit", "Exceeded expectations", "My new favourite", "Bought a second one", "Bombproof"},
		4: {"Really good", "Great, runs a bit small", "Solid choice", "Almost perfect", "Would buy again"},
		3: {"It's okay", "Mixed feelings", "Decent for the price", "Fine, not amazing"},
		2: {"Not for me", "Disappointed with the fit", "Wore out quickly"},
		1: {"Fell apart", "Would not buy again", "Wrong size arrived"},
	}
	catReviewBodies = map[int64][]string{
		5: {"Wore it for a three-day trip in the Cascades and it never let me down.", "Fits true to size and the colour is even better in person.",
			"I have washed it twenty times and it still looks new.", "Light, warm and it packs down to nothing. Exactly what I wanted.",
			"Took it up Mt. Hood in sideways rain and stayed dry. Impressed."},
		4: {"Great quality. I'd size up if you are between sizes.", "Does everything I need; the pockets could be a bit deeper.",
			"Comfortable from the first wear. Took a star off because shipping took a week.", "Very good, though the colour is slightly darker than the photos."},
		3: {"Does the job, but I expected more for the price.", "Quality is fine, the fit is boxy on me.", "Nice material, but it pills after a few washes."},
		2: {"The sizing is way off, I had to return it.", "Seams started to come apart after a month of use."},
		1: {"Zipper broke on the second outing.", "Arrived damaged and it took weeks to hear back."},
	}
	catSpam       = []string{"Great site!!! Check my profile for cheap deals", "First!!!", "asdf test review please ignore"}
	catReplyGood  = []string{"Thanks so much, %s! Happy trails.", "So glad it's working for you, %s. See you out there!", "Thank you for the kind words, %s!"}
	catReplyWorse = []string{"Sorry to hear this, %s. We've emailed you a prepaid return label.", "Thanks for the honest feedback, %s. Our team will reach out about a replacement.",
		"%s, that's not the experience we want. Please reply to your order email and we'll make it right."}
)

func catReviews(ctx context.Context, tx bun.Tx, rng *rand.Rand, storeID int64, now time.Time, products []catProduct, images []catImage) error {
	const total = 620
	day := 24 * time.Hour
	var eligible []catProduct
	allIDs := make([]int64, len(products))
	for i, cp := range products {
		allIDs[i] = cp.p.ID
		if cp.p.Status != models.ProductDraft {
			eligible = append(eligible, cp)
		}
	}
	rng.Shuffle(len(eligible), func(i, j int) { eligible[i], eligible[j] = eligible[j], eligible[i] })

	batch := make([]models.Review, 0, 200)
	for range total {
		// Squaring skews towards the front: a few products collect most
		// reviews, as in a real shop.
		cp := eligible[int(float64(len(eligible))*math.Pow(rng.Float64(), 2))]
		var rating int64
		switch r := rng.Float64(); {
		case r < 0.56:
			rating = 5
		case r < 0.81:
			rating = 4
		case r < 0.91:
			rating = 3
		case r < 0.95:
			rating = 2
		default:
			rating = 1
		}
		first, last := catFirstNames[rng.IntN(len(catFirstNames))], catLastNames[rng.IntN(len(catLastNames))]
		author := first + " " + last[:1] + "."
		if rng.Float64() < 0.3 {
			author = first + " " + last
		}
		email := fmt.Sprintf("%s.%s%d@example.com", strings.ToLower(first), models.Handleize(last), rng.IntN(100))

		window := max(time.Minute, min(180*day, now.Sub(cp.p.CreatedAt)))
		created := now.Add(-time.Duration(rng.Int64N(int64(window)))).Truncate(time.Second)

		status := models.ReviewPublished
		switch r := rng.Float64(); {
		case r < 0.06 || (rating == 1 && r < 0.25):
			status = models.ReviewRejected
		case r < 0.18:
			status = models.ReviewPending
		}
		source := "storefront"
		switch r := rng.Float64(); {
		case r < 0.25:
			source = "email"
		case r < 0.35:
			source = "import"
		}
		rv := models.Review{
			StoreID: storeID, ProductID: cp.p.ID, Rating: rating, Author: author, Email: email, Status: status,
			Source: source, Verified: source != "import" && rng.Float64() < 0.65,
			Title:     catReviewTitles[rating][rng.IntN(len(catReviewTitles[rating]))],
			Body:      catReviewBodies[rating][rng.IntN(len(catReviewBodies[rating]))],
			CreatedAt: created, UpdatedAt: created,
		}
		if status == models.ReviewRejected && (rating >= 4 || rng.Float64() < 0.5) { // praise that gets rejected is spam
			rv.Title, rv.Body, rv.Verified = "", catSpam[rng.IntN(len(catSpam))], false
		}
		if status == models.ReviewPublished {
			rv.Featured = rating == 5 && rng.Float64() < 0.1
			if rng.Float64() < 0.08+0.3*float64(5-rating)/4 {
				replies := catReplyGood
				if rating <= 3 {
					replies = catReplyWorse
				}
				rv.Reply = fmt.Sprintf(replies[rng.IntN(len(replies))], first)
				at := created.Add(6*time.Hour + time.Duration(rng.Int64N(int64(4*day))))
				if at.After(now) {
					at = now.Add(-time.Minute)
				}
				at = at.Truncate(time.Second)
				rv.RepliedAt, rv.UpdatedAt = &at, at
			}
		}
		if status != models.ReviewRejected && rng.Float64() < 0.12 {
			for _, k := range rng.Perm(len(images))[:1+rng.IntN(3)] {
				im := images[k].img
				th := im.Thumbhash
				rv.Photos = append(rv.Photos, models.ReviewPhoto{Src: im.Src, Width: int64(im.Width), Height: int64(im.Height), Thumbhash: &th})
			}
		}
		batch = append(batch, rv)
		if len(batch) == cap(batch) {
			if err := models.InsertReviews(ctx, tx, batch); err != nil {
				return err
			}
			batch = batch[:0]
		}
	}
	if err := models.InsertReviews(ctx, tx, batch); err != nil {
		return err
	}
	return models.RefreshProductRatings(ctx, tx, storeID, allIDs)
}
