package resolvers

import (
	"context"
	"fmt"
	"net/url"
	"strings"

	"github.com/uptrace/bun"

	"storeadmin/graph"
	"storeadmin/internal/base/apperr"
	"storeadmin/models"
)

// Bounds of a product's fields.
const (
	maxTitle     = 255
	maxBodyHTML  = 512 << 10
	maxTags      = 250
	maxImages    = 250
	maxSEOBytes  = 4096
	maxURLLength = 2048
)

// productDraft is a product as a write will leave it. nil variants or
// images mean the write leaves them as they are.
type productDraft struct {
	p *models.Product
	// handle is the product's handle before the write: SKUs it owns are
	// its own.
	handle   string
	variants []models.ProductVariant
	images   []models.ProductImage
}

// checkProduct applies in to cur (a new, empty product on create) and
// checks the result; variants of cur are needed when in changes them.
func checkProduct(ctx context.Context, db bun.IDB, cur *models.Product, curVariants []models.ProductVariant, in graph.ProductInput) (*productDraft, error) {
	creating := cur.ID == 0
	p := *cur
	d := &productDraft{p: &p, handle: cur.Handle}
	var err error
	if in.Title != nil || creating {
		if p.Title, err = text("title", deref(in.Title), maxTitle, true); err != nil {
			return nil, err
		}
	}
	if in.BodyHTML != nil {
		if len(*in.BodyHTML) > maxBodyHTML {
			return nil, apperr.Invalidf("body_html must be at most %d KiB", maxBodyHTML>>10)
		}
		p.BodyHTML = *in.BodyHTML
	}
	if in.Vendor != nil {
		if p.Vendor, err = text("vendor", *in.Vendor, maxTitle, false); err != nil {
			return nil, err
		}
	}
	if in.ProductType != nil {
		if p.ProductType, err = text("product_type", *in.ProductType, maxTitle, false); err != nil {
			return nil, err
		}
	}
	if creating {
		p.Status = models.ProductDraft
	}
	if in.Status != nil {
		if p.Status, err = oneOf("status", *in.Status, models.ProductStatuses...); err != nil {
			return nil, err
		}
	}
	if in.Tags != nil || creating {
		if p.Tags, err = checkTags(in.Tags); err != nil {
			return nil, err
		}
	}
	if in.Seo != nil || creating {
		if p.SEO, err = checkSEO(in.Seo); err != nil {
			return nil, err
		}
	}
	if in.AdplatformCategoryID != nil {
		if *in.AdplatformCategoryID < 0 {
			return nil, apperr.Invalidf("adplatform_category_id must not be negative")
		}
		p.AdplatformCategoryID = *in.AdplatformCategoryID
	}
	if in.Handle != nil {
		if p.Handle, err = checkHandle(*in.Handle, "blue-cotton-shirt"); err != nil {
			return nil, err
		}
	}

	if in.Images != nil {
		if d.images, err = checkImages(ctx, db, p.StoreID, in.Images); err != nil {
			return nil, err
		}
	}
	if in.Options != nil || in.Variants != nil || creating {
		// The images a variant may name: those sent, else those the
		// product has (read only when a variant names one).
		images := d.images
		if images == nil && cur.ID != 0 && namesImage(in.Variants) {
			if images, err = models.ImagesByProduct(ctx, db, p.StoreID, []int64{cur.ID}, models.AllColumns); err != nil {
				return nil, err
			}
		}
		if err := checkVariants(d, cur, curVariants, images, in); err != nil {
			return nil, err
		}
	}
	return d, nil
}

// namesImage reports whether a variant input names an image.
func namesImage(vs []graph.ProductVariantInput) bool {
	for _, v := range vs {
		if v.ImageSrc != nil && strings.TrimSpace(*v.ImageSrc) != "" {
			return true
		}
	}
	return false
}

// checkTags trims tags, drops empty and repeated ones (case-insensitively),
// and bounds them.
func checkTags(in []string) ([]string, error) {
	out := []string{}
	seen := map[string]bool{}
	for _, t := range in {
		t = strings.TrimSpace(t)
		if t == "" || seen[strings.ToLower(t)] {
			continue
		}
		if len([]rune(t)) > maxTitle {
			return nil, apperr.Invalidf("a tag must be at most %d characters", maxTitle)
		}
		seen[strings.ToLower(t)] = true
		out = append(out, t)
	}
	if len(out) > maxTags {
		return nil, apperr.Invalidf("tags may list at most %d tags", maxTags)
	}
	return out, nil
}

// checkSEO accepts {title, description} with string values.
func checkSEO(v any) (any, error) {
	if v == nil {
		return map[string]any{}, nil
	}
	obj, ok := v.(map[string]any)
	if !ok {
		return nil, apperr.Invalidf("seo must be an object such as {\"title\": \"...\", \"description\": \"...\"}")
	}
	for k, val := range obj {
		if k != "title" && k != "description" {
			return nil, apperr.Invalidf("seo may hold title and description, not %q", k)
		}
		if _, ok := val.(string); !ok {
			return nil, apperr.Invalidf("seo.%s must be a string", k)
		}
	}
	return obj, jsonSize("seo", obj, maxSEOBytes)
}

// checkImageURL accepts absolute http(s) URLs.
func checkImageURL(field, src string) (string, error) {
	src = strings.TrimSpace(src)
	u, err := url.Parse(src)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" || len(src) > maxURLLength {
		return "", apperr.Invalidf("%s must be an absolute http or https URL (an uploaded image's src, for instance), not %q", field, src)
	}
	return src, nil
}

// checkImages checks image srcs and fills the size and ThumbHash of the
// ones uploaded here.
func checkImages(ctx context.Context, db bun.IDB, storeID int64, in []graph.ProductImageInput) ([]models.ProductImage, error) {
	if len(in) > maxImages {
		return nil, apperr.Invalidf("a product has at most %d images", maxImages)
	}
	out := make([]models.ProductImage, 0, len(in))
	srcs := make([]string, 0, len(in))
	seen := map[string]bool{}
	for i, img := range in {
		src, err := checkImageURL(fmt.Sprintf("images[%d].src", i), img.Src)
		if err != nil {
			return nil, err
		}
		if seen[src] {
			return nil, apperr.Invalidf("images[%d].src repeats an earlier image", i)
		}
		seen[src] = true
		alt, err := text(fmt.Sprintf("images[%d].alt", i), deref(img.Alt), 512, false)
		if err != nil {
			return nil, err
		}
		out = append(out, models.ProductImage{Src: src, Alt: alt})
		srcs = append(srcs, src)
	}
	return out, fillImageFacts(ctx, db, storeID, out, srcs)
}

// fillImageFacts copies width, height and ThumbHash from the store's
// uploaded media onto images with the same src.
func fillImageFacts(ctx context.Context, db bun.IDB, storeID int64, imgs []models.ProductImage, srcs []string) error {
	media, err := models.MediaBySrc(ctx, db, storeID, srcs)
	if err != nil {
		return err
	}
	for i := range imgs {
		if m, ok := media[imgs[i].Src]; ok {
			imgs[i].Width, imgs[i].Height, imgs[i].Thumbhash = m.Width, m.Height, m.Thumbhash
		}
	}
	return nil
}

// checkVariants settles options and variants: options name up to three
// dimensions; every variant has a value for each and no two variants share
// a combination. Without options the product has the one option Title and
// a single variant.
func checkVariants(d *productDraft, cur *models.Product, curVariants []models.ProductVariant, images []models.ProductImage, in graph.ProductInput) error {
	names, err := optionNamesOf(cur, in)
	if err != nil {
		return err
	}
	inputs, settle := variantInputs(cur, in)
	if !settle {
		return nil
	}
	defaultOnly := onlyDefaultOption(names, in.Options)
	if err := checkVariantCount(len(inputs), defaultOnly); err != nil {
		return err
	}
	if defaultOnly {
		names = []string{"Title"}
	}
	c := newVariantChecker(names, defaultOnly, curVariants, images)
	out := make([]models.ProductVariant, len(inputs))
	for i, vi := range inputs {
		if out[i], err = c.check(i, vi); err != nil {
			return err
		}
	}
	d.variants = out
	d.p.Options = orderOptions(names, c.values, in.Options)
	return nil
}

// optionNamesOf is the product's option names after in: those sent (at
// most 3, each a title, none repeated ignoring case), else cur's. Options
// changed on a product that has variants must come with its variants.
func optionNamesOf(cur *models.Product, in graph.ProductInput) ([]string, error) {
	names := optionNames(cur.Options)
	if in.Options == nil {
		return names, nil
	}
	if len(in.Options) > 3 {
		return nil, apperr.Invalidf("a product has at most 3 options")
	}
	names = names[:0]
	seen := map[string]bool{}
	for i, o := range in.Options {
		name, err := text(fmt.Sprintf("options[%d].name", i), o.Name, maxTitle, true)
		if err != nil {
			return nil, err
		}
		if seen[strings.ToLower(name)] {
			return nil, apperr.Invalidf("options[%d].name repeats %q", i, name)
		}
		seen[strings.ToLower(name)] = true
		names = append(names, name)
	}
	if in.Variants == nil && cur.ID != 0 {
		return nil, apperr.Invalidf("send variants with options: each variant needs a value for each option")
	}
	return names, nil
}

// variantInputs is the variants to settle: those sent, else one default
// variant for a new product; settle is false when an existing product
// keeps its variants.
func variantInputs(cur *models.Product, in graph.ProductInput) (inputs []graph.ProductVariantInput, settle bool) {
	switch {
	case in.Variants != nil:
		return in.Variants, true
	case cur.ID == 0:
		return []graph.ProductVariantInput{{}}, true
	}
	return nil, false
}

// onlyDefaultOption reports whether the product has no option of its own:
// none named, or only the implicit Title kept from before.
func onlyDefaultOption(names []string, sent []graph.ProductOptionInput) bool {
	return len(names) == 0 || (len(names) == 1 && names[0] == "Title" && sent == nil)
}

// checkVariantCount refuses no variant, more than models.MaxVariants, and
// more than one without options to tell them apart.
func checkVariantCount(n int, defaultOnly bool) error {
	if n == 0 {
		return apperr.Invalidf("a product needs at least one variant")
	}
	if n > models.MaxVariants {
		return apperr.Invalidf("a product has at most %d variants", models.MaxVariants)
	}
	if defaultOnly && n > 1 {
		return apperr.Invalidf("name the options (such as Size or Color) that tell %d variants apart", n)
	}
	return nil
}

// variantChecker checks the variant inputs of one product in turn: each
// alone, and against those before it (combinations and SKUs repeated).
type variantChecker struct {
	names       []string
	defaultOnly bool
	// existing are the product's variants by id: an input with an id
	// changes one of them.
	existing map[int64]models.ProductVariant
	// imageSrcs are the images a variant may name (those sent, or the
	// product's own when none are sent); the save would silently leave
	// any other src unlinked, so it is refused here.
	imageSrcs map[string]bool
	// combos and skus map what earlier variants used to their index.
	combos map[string]int
	skus   map[string]int
	// values are the values used of each option, in first-use order.
	values [][]string
}

func newVariantChecker(names []string, defaultOnly bool, curVariants []models.ProductVariant, images []models.ProductImage) *variantChecker {
	c := &variantChecker{
		names: names, defaultOnly: defaultOnly,
		existing: map[int64]models.ProductVariant{}, imageSrcs: map[string]bool{},
		combos: map[string]int{}, skus: map[string]int{}, values: make([][]string, len(names)),
	}
	for _, v := range curVariants {
		c.existing[v.ID] = v
	}
	for _, img := range images {
		c.imageSrcs[img.Src] = true
	}
	return c
}

// check settles input i: the variant it names (or a new one) with what
// it sends applied and checked.
func (c *variantChecker) check(i int, vi graph.ProductVariantInput) (models.ProductVariant, error) {
	field := fmt.Sprintf("variants[%d]", i)
	v, err := c.base(field, vi)
	if err != nil {
		return v, err
	}
	if err := c.setOptionValues(field, &v, vi); err != nil {
		return v, err
	}
	if err := c.claimCombination(field, i, v); err != nil {
		return v, err
	}
	v.Title = variantTitle(v)
	if err := setVariantPrices(field, &v, vi); err != nil {
		return v, err
	}
	if err := setVariantStock(field, &v, vi); err != nil {
		return v, err
	}
	if err := c.setSKU(field, i, &v, vi); err != nil {
		return v, err
	}
	if err := setVariantBarcode(field, &v, vi); err != nil {
		return v, err
	}
	setVariantFlags(&v, vi)
	return v, c.setImage(field, &v, vi)
}

// base is the variant vi changes: the product's variant of its id, or a
// new one with the defaults.
func (c *variantChecker) base(field string, vi graph.ProductVariantInput) (models.ProductVariant, error) {
	if vi.ID == nil {
		return models.ProductVariant{InventoryPolicy: models.InventoryDeny, TrackInventory: true, Taxable: true, RequiresShipping: true}, nil
	}
	old, ok := c.existing[*vi.ID]
	if !ok {
		return old, apperr.Invalidf("%s.id %d is not a variant of this product", field, *vi.ID)
	}
	return old, nil
}

// setOptionValues gives v a value for each option of the product and none
// beyond: sent values trimmed, else kept; Default Title when the product
// has no option of its own. A kept variant loses values of options the
// product no longer has; a new one may not send them.
func (c *variantChecker) setOptionValues(field string, v *models.ProductVariant, vi graph.ProductVariantInput) error {
	sent := []*string{vi.Option1, vi.Option2, vi.Option3}
	have := []*string{&v.Option1, &v.Option2, &v.Option3}
	for k := 0; k < 3; k++ {
		val := *have[k]
		if sent[k] != nil {
			val = strings.TrimSpace(*sent[k])
		}
		if c.defaultOnly && k == 0 {
			val = "Default Title"
		}
		if k >= len(c.names) {
			if val != "" && vi.ID == nil {
				return apperr.Invalidf("%s.option%d has a value, but the product has %d option(s)", field, k+1, len(c.names))
			}
			val = ""
		} else if val == "" {
			return apperr.Invalidf("%s.option%d (%s) must not be empty", field, k+1, c.names[k])
		} else if len([]rune(val)) > maxTitle {
			return apperr.Invalidf("%s.option%d must be at most %d characters", field, k+1, maxTitle)
		}
		*have[k] = val
		if k < len(c.names) && !containsFold(c.values[k], val) {
			c.values[k] = append(c.values[k], val)
		}
	}
	return nil
}

// claimCombination refuses v's option values (ignoring case) when an
// earlier variant has them, else records them as variant i's.
func (c *variantChecker) claimCombination(field string, i int, v models.ProductVariant) error {
	combo := strings.ToLower(v.Option1 + "\x00" + v.Option2 + "\x00" + v.Option3)
	if j, dup := c.combos[combo]; dup {
		return apperr.Invalidf("%s has the same option values as variants[%d]", field, j)
	}
	c.combos[combo] = i
	return nil
}

// setVariantPrices sets the price, and the compare-at price and cost when
// sent; none may be negative.
func setVariantPrices(field string, v *models.ProductVariant, vi graph.ProductVariantInput) error {
	if vi.PriceCents < 0 {
		return apperr.Invalidf("%s.price_cents must not be negative", field)
	}
	v.PriceCents = vi.PriceCents
	for _, n := range []struct {
		name string
		in   *int64
		out  **int64
	}{{"compare_at_price_cents", vi.CompareAtPriceCents, &v.CompareAtPriceCents}, {"cost_cents", vi.CostCents, &v.CostCents}} {
		if n.in != nil {
			if *n.in < 0 {
				return apperr.Invalidf("%s.%s must not be negative", field, n.name)
			}
			val := *n.in
			*n.out = &val
		}
	}
	return nil
}

// setVariantStock sets the weight (not negative), the quantity in stock
// and the inventory policy (deny or continue) when sent.
func setVariantStock(field string, v *models.ProductVariant, vi graph.ProductVariantInput) error {
	if vi.WeightGrams != nil {
		if *vi.WeightGrams < 0 {
			return apperr.Invalidf("%s.weight_grams must not be negative", field)
		}
		v.WeightGrams = *vi.WeightGrams
	}
	if vi.InventoryQuantity != nil {
		v.InventoryQuantity = *vi.InventoryQuantity
	}
	if vi.InventoryPolicy != nil {
		policy, err := oneOf(field+".inventory_policy", *vi.InventoryPolicy, models.InventoryDeny, models.InventoryContinue)
		if err != nil {
			return err
		}
		v.InventoryPolicy = policy
	}
	return nil
}

// setSKU sets the SKU when sent and refuses one (ignoring case) that an
// earlier variant has; it records the SKU as variant i's.
func (c *variantChecker) setSKU(field string, i int, v *models.ProductVariant, vi graph.ProductVariantInput) error {
	if vi.Sku != nil {
		sku, err := text(field+".sku", *vi.Sku, maxTitle, false)
		if err != nil {
			return err
		}
		v.SKU = sku
	}
	if v.SKU == "" {
		return nil
	}
	if j, dup := c.skus[strings.ToLower(v.SKU)]; dup {
		return apperr.Invalidf("%s.sku %q repeats the SKU of variants[%d]", field, v.SKU, j)
	}
	c.skus[strings.ToLower(v.SKU)] = i
	return nil
}

// setVariantBarcode sets the barcode when sent.
func setVariantBarcode(field string, v *models.ProductVariant, vi graph.ProductVariantInput) error {
	if vi.Barcode != nil {
		barcode, err := text(field+".barcode", *vi.Barcode, maxTitle, false)
		if err != nil {
			return err
		}
		v.Barcode = barcode
	}
	return nil
}

// setVariantFlags sets track_inventory, taxable and requires_shipping when
// sent.
func setVariantFlags(v *models.ProductVariant, vi graph.ProductVariantInput) {
	for _, b := range []struct {
		in  *bool
		out *bool
	}{{vi.TrackInventory, &v.TrackInventory}, {vi.Taxable, &v.Taxable}, {vi.RequiresShipping, &v.RequiresShipping}} {
		if b.in != nil {
			*b.out = *b.in
		}
	}
}

// setImage links the variant to one of the product's images by src:
// image_src left out keeps a variant's image; empty removes it.
func (c *variantChecker) setImage(field string, v *models.ProductVariant, vi graph.ProductVariantInput) error {
	v.ImageSrc = ""
	if vi.ImageSrc == nil {
		return nil
	}
	v.ImageID = nil
	if src := strings.TrimSpace(*vi.ImageSrc); src != "" {
		if !c.imageSrcs[src] {
			return apperr.Invalidf("%s.image_src must be the src of one of the product's images", field)
		}
		v.ImageSrc = src
	}
	return nil
}

func containsFold(list []string, v string) bool {
	for _, s := range list {
		if strings.EqualFold(s, v) {
			return true
		}
	}
	return false
}

func optionNames(opts []models.ProductOption) []string {
	names := make([]string, 0, len(opts))
	for _, o := range opts {
		names = append(names, o.Name)
	}
	return names
}

// orderOptions lists each option's values in the order the client gave,
// then any other value the variants use; values no variant uses are
// dropped.
func orderOptions(names []string, used [][]string, in []graph.ProductOptionInput) []models.ProductOption {
	out := make([]models.ProductOption, len(names))
	for k, name := range names {
		var vals []string
		if k < len(in) {
			for _, v := range in[k].Values {
				v = strings.TrimSpace(v)
				if containsFold(used[k], v) && !containsFold(vals, v) {
					vals = append(vals, v)
				}
			}
		}
		for _, v := range used[k] {
			if !containsFold(vals, v) {
				vals = append(vals, v)
			}
		}
		out[k] = models.ProductOption{Name: name, Position: int64(k + 1), Values: vals}
	}
	return out
}

// variantTitle joins a variant's option values as shoppers read them.
func variantTitle(v models.ProductVariant) string {
	parts := []string{}
	for _, o := range []string{v.Option1, v.Option2, v.Option3} {
		if o != "" {
			parts = append(parts, o)
		}
	}
	return strings.Join(parts, " / ")
}

// uniqueHandle returns base, or base-2, base-3 ... when taken.
func uniqueHandle(base string, taken func(string) (bool, error)) (string, error) {
	if base == "" {
		base = "untitled"
	}
	h := base
	for n := 2; ; n++ {
		t, err := taken(h)
		if err != nil || !t {
			return h, err
		}
		if n > 1000 {
			return "", apperr.Conflictf("too many records have handles like %q; send a handle", base)
		}
		h = fmt.Sprintf("%s-%d", base, n)
	}
}

// saveProduct writes a checked draft in tx: the row (its handle generated
// from the title when unset), images, variants, and, when refresh is set,
// the smart collections the product joins or leaves.
func saveProduct(ctx context.Context, tx bun.IDB, d *productDraft, refresh bool) error {
	p := d.p
	if p.Handle == "" {
		h, err := uniqueHandle(models.Handleize(p.Title), func(h string) (bool, error) {
			return models.ProductHandleTaken(ctx, tx, p.StoreID, h, p.ID)
		})
		if err != nil {
			return err
		}
		p.Handle = h
	} else if taken, err := models.ProductHandleTaken(ctx, tx, p.StoreID, p.Handle, p.ID); err != nil {
		return err
	} else if taken {
		return apperr.Conflictf("another product already has the handle %q", p.Handle)
	}
	if err := checkSKUsFree(ctx, tx, d); err != nil {
		return err
	}
	if p.ID == 0 {
		if err := models.InsertProduct(ctx, tx, p); err != nil {
			return err
		}
	} else if err := models.UpdateProduct(ctx, tx, p); err != nil {
		return err
	}
	images := d.images
	if images != nil {
		if err := models.SaveImages(ctx, tx, p.StoreID, p.ID, images); err != nil {
			return err
		}
	}
	if d.variants != nil {
		if images == nil {
			var err error
			if images, err = models.ImagesByProduct(ctx, tx, p.StoreID, []int64{p.ID}, models.AllColumns); err != nil {
				return err
			}
		}
		if err := models.SaveVariants(ctx, tx, p.StoreID, p.ID, d.variants, images); err != nil {
			return err
		}
	}
	if refresh {
		return models.RefreshSmartCollections(ctx, tx, p.StoreID, nil, []int64{p.ID})
	}
	return nil
}

// checkSKUsFree refuses SKUs that another product of the store has.
func checkSKUsFree(ctx context.Context, db bun.IDB, d *productDraft) error {
	p := d.p
	var skus []string
	for _, v := range d.variants {
		if v.SKU != "" {
			skus = append(skus, v.SKU)
		}
	}
	if len(skus) == 0 {
		return nil
	}
	owners, err := models.SKUOwners(ctx, db, p.StoreID, skus)
	if err != nil {
		return err
	}
	for _, sku := range skus {
		if h, ok := owners[strings.ToLower(sku)]; ok && h != p.Handle && h != d.handle {
			return apperr.Conflictf("the SKU %q belongs to the product %q", sku, h)
		}
	}
	return nil
}
