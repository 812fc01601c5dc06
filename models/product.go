package models

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/uptrace/bun"

	"storeadmin/internal/base/apperr"
)

// Product statuses.
const (
	ProductDraft    = "draft"
	ProductActive   = "active"
	ProductArchived = "archived"
)

// ProductStatuses lists the statuses a product can have.
var ProductStatuses = []string{ProductDraft, ProductActive, ProductArchived}

// Inventory policies: what happens when a tracked variant runs out.
const (
	InventoryDeny     = "deny"
	InventoryContinue = "continue"
)

// MaxVariants bounds a product's variants, as the largest platforms do.
const MaxVariants = 100

// Product is a catalogue entry: options, variants and images hang off it.
type Product struct {
	bun.BaseModel `bun:"table:products"`
	ListTotal

	ID                   int64           `bun:"id,pk,autoincrement" json:"id"`
	StoreID              int64           `bun:"store_id" json:"-"`
	Handle               string          `bun:"handle" json:"handle"`
	Title                string          `bun:"title" json:"title"`
	BodyHTML             string          `bun:"body_html" json:"body_html"`
	Vendor               string          `bun:"vendor" json:"vendor"`
	ProductType          string          `bun:"product_type" json:"product_type"`
	Status               string          `bun:"status" json:"status"`
	Tags                 []string        `bun:"tags,array" json:"tags"`
	SEO                  any             `bun:"seo,type:jsonb" json:"seo"`
	Options              []ProductOption `bun:"options,type:jsonb" json:"options"`
	AdplatformCategoryID int64           `bun:"adplatform_category_id" json:"adplatform_category_id"`
	RatingAvg            int64           `bun:"rating_avg" json:"rating_avg"`
	RatingCount          int64           `bun:"rating_count" json:"rating_count"`
	CreatedAt            time.Time       `bun:"created_at,nullzero,default:now()" json:"created_at"`
	UpdatedAt            time.Time       `bun:"updated_at,nullzero,default:now()" json:"updated_at"`
	// MinPriceCents is the lowest variant price, kept by a trigger on
	// variants for the price sort (productPrice); nil without variants.
	// Never written from here (scanonly), and read where a statement
	// selects every column of products (linkedTo).
	MinPriceCents *int64 `bun:"min_price_cents,scanonly" json:"-"`

	// Summary is the product's summary when the statement that read the
	// product joined it (Paging.Join: ProductSummaryJoin); nil otherwise.
	// The API reads it through its relation, which a joined page primes.
	Summary *ProductSummary `bun:"rel:has-one,join:id=product_id" json:"-"`
}

// ProductOption is one of up to three option names and the values its
// variants use, in order.
type ProductOption struct {
	Name     string   `json:"name"`
	Position int64    `json:"position"`
	Values   []string `json:"values"`
}

// ProductVariant is a purchasable combination of option values.
type ProductVariant struct {
	bun.BaseModel `bun:"table:product_variants"`

	ID                  int64     `bun:"id,pk,autoincrement" json:"id"`
	StoreID             int64     `bun:"store_id" json:"-"`
	ProductID           int64     `bun:"product_id" json:"product_id"`
	Position            int64     `bun:"position" json:"position"`
	Title               string    `bun:"title" json:"title"`
	Option1             string    `bun:"option1" json:"option1"`
	Option2             string    `bun:"option2" json:"option2"`
	Option3             string    `bun:"option3" json:"option3"`
	SKU                 string    `bun:"sku" json:"sku"`
	Barcode             string    `bun:"barcode" json:"barcode"`
	PriceCents          int64     `bun:"price_cents" json:"price_cents"`
	CompareAtPriceCents *int64    `bun:"compare_at_price_cents" json:"compare_at_price_cents"`
	CostCents           *int64    `bun:"cost_cents" json:"cost_cents"`
	WeightGrams         int64     `bun:"weight_grams" json:"weight_grams"`
	InventoryQuantity   int64     `bun:"inventory_quantity" json:"inventory_quantity"`
	InventoryPolicy     string    `bun:"inventory_policy" json:"inventory_policy"`
	TrackInventory      bool      `bun:"track_inventory" json:"track_inventory"`
	Taxable             bool      `bun:"taxable" json:"taxable"`
	RequiresShipping    bool      `bun:"requires_shipping" json:"requires_shipping"`
	ImageID             *int64    `bun:"image_id" json:"image_id"`
	CreatedAt           time.Time `bun:"created_at,nullzero,default:now()" json:"-"`
	UpdatedAt           time.Time `bun:"updated_at,nullzero,default:now()" json:"-"`

	// ImageSrc names the image to link while saving (ImageID follows it).
	ImageSrc string `bun:"-" json:"-"`
}

// ProductImage is one picture of a product.
type ProductImage struct {
	bun.BaseModel `bun:"table:product_images"`

	ID        int64     `bun:"id,pk,autoincrement" json:"id"`
	StoreID   int64     `bun:"store_id" json:"-"`
	ProductID int64     `bun:"product_id" json:"-"`
	Position  int64     `bun:"position" json:"position"`
	Src       string    `bun:"src" json:"src"`
	Alt       string    `bun:"alt" json:"alt"`
	Width     int64     `bun:"width" json:"width"`
	Height    int64     `bun:"height" json:"height"`
	Thumbhash string    `bun:"thumbhash" json:"thumbhash"`
	CreatedAt time.Time `bun:"created_at,nullzero,default:now()" json:"-"`
}

// CatalogProductOption is a product as a picker shows it.
type CatalogProductOption struct {
	ID       int64  `bun:"id" json:"id"`
	Title    string `bun:"title" json:"title"`
	Handle   string `bun:"handle" json:"handle"`
	Status   string `bun:"status" json:"status"`
	ImageSrc string `bun:"image_src" json:"image_src"`
}

// ProductFilter narrows a products list; Sort orders it.
type ProductFilter struct {
	Status       *string `json:"status"`
	Vendor       *string `json:"vendor"`
	ProductType  *string `json:"product_type"`
	Tag          *string `json:"tag"`
	CollectionID *int64  `json:"collection_id"`
	Q            *string `json:"q"`
	Sort         *string `json:"sort"`
}

// productSorts are the sorts a client may name; id breaks ties so that a
// row's keys are its position.
var productSorts = map[string]Sort[Product]{
	"title":       {Keys: []SortKey[Product]{productTitle, productID}},
	"-title":      {Keys: []SortKey[Product]{productTitle, productID}, Desc: true},
	"created_at":  {Keys: []SortKey[Product]{productCreated, productID}},
	"-created_at": {Keys: []SortKey[Product]{productCreated, productID}, Desc: true},
	"updated_at":  {Keys: []SortKey[Product]{productUpdated, productID}},
	"-updated_at": {Keys: []SortKey[Product]{productUpdated, productID}, Desc: true},
	"price":       {Keys: []SortKey[Product]{productPrice(priceUnknownLast), productID}},
	"-price":      {Keys: []SortKey[Product]{productPrice(-1), productID}, Desc: true},
	"vendor":      {Keys: []SortKey[Product]{productVendor, productID}},
	"-vendor":     {Keys: []SortKey[Product]{productVendor, productID}, Desc: true},
}

var (
	productID      = SortKey[Product]{SQL: "product.id", Of: func(p *Product) any { return p.ID }}
	productTitle   = SortKey[Product]{SQL: "lower(product.title)", Of: func(p *Product) any { return p.Title }, From: "lower(?)"}
	productCreated = SortKey[Product]{SQL: "product.created_at", Of: func(p *Product) any { return p.CreatedAt }}
	productUpdated = SortKey[Product]{SQL: "product.updated_at", Of: func(p *Product) any { return p.UpdatedAt }}
	productVendor  = SortKey[Product]{SQL: "lower(product.vendor)", Of: func(p *Product) any { return p.Vendor }, From: "lower(?)"}
)

// priceUnknownLast is the price a product without variants sorts as, so
// that it comes last in the ascending order, as -1 puts it last in the
// descending one.
const priceUnknownLast = math.MaxInt64

// productPrice sorts by a product's lowest variant price (min_price_cents,
// which a trigger on variants keeps; migrations/20261124100000), unknown
// when it has none. The cursor keeps the product's id, and the price is
// read from the product it names.
func productPrice(unknown int64) SortKey[Product] {
	return SortKey[Product]{
		SQL:  fmt.Sprintf("coalesce(product.min_price_cents, %d)", unknown),
		Of:   func(p *Product) any { return p.ID },
		From: fmt.Sprintf("(SELECT coalesce(min_price_cents, %d) FROM products WHERE id = ?)", unknown),
	}
}

// Check refuses a filter the list cannot run.
func (f ProductFilter) Check() error {
	if f.Status != nil && !slices.Contains(ProductStatuses, *f.Status) {
		return apperr.Invalidf("status must be one of draft, active, archived, not %q", *f.Status)
	}
	if f.Sort != nil {
		if _, ok := productSorts[*f.Sort]; !ok {
			return apperr.Invalidf("sort must be one of title, -title, created_at, -created_at, updated_at, -updated_at, price, -price, vendor, -vendor, not %q", *f.Sort)
		}
	}
	return nil
}

func (f ProductFilter) apply(q *bun.SelectQuery) *bun.SelectQuery {
	if f.Status != nil {
		q = q.Where("product.status = ?", *f.Status)
	}
	if f.Vendor != nil {
		q = q.Where("lower(product.vendor) = lower(?)", *f.Vendor)
	}
	if f.ProductType != nil {
		q = q.Where("lower(product.product_type) = lower(?)", *f.ProductType)
	}
	if f.Tag != nil {
		// @>, not = ANY: the tags' GIN index answers only the former.
		q = q.Where("product.tags @> ARRAY[?]::text[]", *f.Tag)
	}
	if f.CollectionID != nil {
		q = q.Where("EXISTS (SELECT 1 FROM collection_products cp WHERE cp.product_id = product.id AND cp.collection_id = ?)", *f.CollectionID)
	}
	if f.Q != nil && strings.TrimSpace(*f.Q) != "" {
		// Each part is an index scan (trigram indexes), which one WHERE
		// joining them with OR, an EXISTS among them, could not use.
		like := containsPattern(*f.Q)
		db := q.DB()
		q = q.Where("product.id IN (?)", db.NewSelect().TableExpr("products").Column("id").Where("lower(title) LIKE ?", like).
			UnionAll(db.NewSelect().TableExpr("products").Column("id").Where("handle LIKE ?", like)).
			UnionAll(db.NewSelect().TableExpr("product_variants").ColumnExpr("product_id").Where("lower(sku) LIKE ?", like)))
	}
	return q
}

// containsPattern is a LIKE pattern matching s anywhere, case-folded, with
// LIKE's own wildcards escaped.
func containsPattern(s string) string {
	s = strings.ToLower(strings.TrimSpace(s))
	s = strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`).Replace(s)
	return "%" + s + "%"
}

// ListProducts lists a store's products.
func ListProducts(ctx context.Context, db bun.IDB, storeID int64, f ProductFilter, p Paging) ([]Product, error) {
	page, err := PageProducts(ctx, db, storeID, f, p)
	return page.Rows, err
}

// PageProducts is ListProducts with the cursor of the next page.
func PageProducts(ctx context.Context, db bun.IDB, storeID int64, f ProductFilter, p Paging) (Page[Product], error) {
	scope, err := PageScope("products", storeID, f)
	if err != nil {
		return Page[Product]{}, err
	}
	sort := productSorts["-updated_at"]
	if f.Sort != nil {
		sort = productSorts[*f.Sort]
	}
	var out []Product
	q := db.NewSelect().Model(&out).Where("product.store_id = ?", storeID).Apply(f.apply)
	return ReadPage(ctx, db, q, &out, sort, scope, p)
}

// CountProducts counts what ListProducts would list without paging.
func CountProducts(ctx context.Context, db bun.IDB, storeID int64, f ProductFilter) (int64, error) {
	var n int64
	err := ProductsTotal(db, storeID, f).Scan(ctx, &n)
	return n, err
}

// ProductsTotal is the statement CountProducts runs, for a page of products
// to read with its rows (Paging.Total).
func ProductsTotal(db bun.IDB, storeID int64, f ProductFilter) *bun.SelectQuery {
	return db.NewSelect().Model((*Product)(nil)).ColumnExpr("count(*)").Where("product.store_id = ?", storeID).Apply(f.apply)
}

// GetProduct reads one product of the store.
func GetProduct(ctx context.Context, db bun.IDB, storeID, id int64) (*Product, error) {
	p := new(Product)
	err := db.NewSelect().Model(p).Where("store_id = ? AND id = ?", storeID, id).Scan(ctx)
	return p, classify(err, "the product")
}

// ProductsByID loads products of the store by id, for a dataloader.
func ProductsByID(ctx context.Context, db bun.IDB, storeID int64, ids []int64, cols Columns) ([]Product, error) {
	out := make([]Product, 0, len(ids)) // at most one row per id
	err := scanRows(ctx, db, db.NewSelect().Model(&out).Apply(cols.Apply).Where("store_id = ? AND id IN (?)", storeID, bun.List(ids)), &out)
	return out, err
}

// ProductsByHandle loads products of the store by handle.
func ProductsByHandle(ctx context.Context, db bun.IDB, storeID int64, handles []string) ([]Product, error) {
	var out []Product
	if len(handles) == 0 {
		return out, nil
	}
	err := db.NewSelect().Model(&out).Where("store_id = ? AND handle IN (?)", storeID, bun.List(handles)).Scan(ctx)
	return out, err
}

// ProductHandleTaken reports whether another product than exceptID has the
// handle.
func ProductHandleTaken(ctx context.Context, db bun.IDB, storeID int64, handle string, exceptID int64) (bool, error) {
	return db.NewSelect().Model((*Product)(nil)).
		Where("store_id = ? AND handle = ? AND id <> ?", storeID, handle, exceptID).Exists(ctx)
}

// InsertProduct stores a new product row.
func InsertProduct(ctx context.Context, db bun.IDB, p *Product) error {
	_, err := db.NewInsert().Model(p).Returning("id, created_at, updated_at").Exec(ctx)
	return classify(err, "a product with this handle")
}

// UpdateProduct writes every column of the product row and bumps
// updated_at. A changed handle leaves a redirect from the old storefront
// path to the new (RedirectMovedPath).
func UpdateProduct(ctx context.Context, db bun.IDB, p *Product) error {
	var oldHandle string
	// Locked until the transaction ends, so the handle read is the one
	// this update replaces.
	err := db.NewSelect().Model((*Product)(nil)).Column("handle").
		Where("store_id = ? AND id = ?", p.StoreID, p.ID).For("UPDATE").Scan(ctx, &oldHandle)
	if err != nil {
		return classify(err, "the product")
	}
	res, err := db.NewUpdate().Model(p).
		Column("handle", "title", "body_html", "vendor", "product_type", "status", "tags", "seo", "options", "adplatform_category_id").
		Set("updated_at = now()").Where("store_id = ? AND id = ?", p.StoreID, p.ID).Exec(ctx)
	if err := notFoundIfNone(res, err, "the product"); err != nil {
		if apperr.CodeOf(err) == apperr.Conflict {
			return apperr.Conflictf("another product already has the handle %q", p.Handle)
		}
		return err
	}
	if err := RedirectMovedPath(ctx, db, p.StoreID, ProductPath(oldHandle), ProductPath(p.Handle)); err != nil {
		return err
	}
	return db.NewSelect().Model(p).Column("updated_at").Where("id = ?", p.ID).Scan(ctx)
}

// DeleteProducts deletes the listed products of the store and returns the
// ids it deleted.
func DeleteProducts(ctx context.Context, db bun.IDB, storeID int64, ids []int64) ([]int64, error) {
	deleted := []int64{}
	if len(ids) == 0 {
		return deleted, nil
	}
	err := db.NewDelete().Model((*Product)(nil)).Where("store_id = ? AND id IN (?)", storeID, bun.List(ids)).
		Returning("id").Scan(ctx, &deleted)
	return deleted, err
}

// SetAdplatformCategory sets the ad-platform category of the listed
// products and returns the ids it changed.
func SetAdplatformCategory(ctx context.Context, db bun.IDB, storeID int64, ids []int64, category int64) ([]int64, error) {
	updated := []int64{}
	if len(ids) == 0 {
		return updated, nil
	}
	err := db.NewUpdate().Model((*Product)(nil)).Set("adplatform_category_id = ?, updated_at = now()", category).
		Where("store_id = ? AND id IN (?)", storeID, bun.List(ids)).Returning("id").Scan(ctx, &updated)
	return updated, err
}

// ListProductOptions lists products for pickers, by title.
func ListProductOptions(ctx context.Context, db bun.IDB, storeID int64, search *string, p Paging) ([]CatalogProductOption, error) {
	var out []CatalogProductOption
	q := db.NewSelect().TableExpr("products AS product").
		ColumnExpr("product.id, product.title, product.handle, product.status").
		ColumnExpr("coalesce((SELECT i.src FROM product_images i WHERE i.product_id = product.id ORDER BY i.position LIMIT 1), '') AS image_src").
		Where("product.store_id = ?", storeID).Apply(pickerSearch(search)).OrderExpr("lower(product.title), product.id")
	return out, p.Apply(q).Scan(ctx, &out)
}

// CountProductOptions counts what ListProductOptions would list.
func CountProductOptions(ctx context.Context, db bun.IDB, storeID int64, search *string) (int64, error) {
	return db.NewSelect().TableExpr("products AS product").Where("product.store_id = ?", storeID).Apply(pickerSearch(search)).Count(ctx)
}

func pickerSearch(search *string) func(*bun.SelectQuery) *bun.SelectQuery {
	return func(q *bun.SelectQuery) *bun.SelectQuery {
		if search == nil || strings.TrimSpace(*search) == "" {
			return q
		}
		like := containsPattern(*search)
		return q.WhereGroup(" AND ", func(q *bun.SelectQuery) *bun.SelectQuery {
			return q.Where("lower(product.title) LIKE ?", like).WhereOr("product.handle LIKE ?", like)
		})
	}
}

// VariantsByProduct loads the variants of several products, in position
// order, for a dataloader.
func VariantsByProduct(ctx context.Context, db bun.IDB, storeID int64, productIDs []int64, cols Columns) ([]ProductVariant, error) {
	out := manyRows[ProductVariant](len(productIDs))
	err := scanRows(ctx, db, db.NewSelect().Model(&out).Apply(cols.Apply).Where("store_id = ? AND product_id IN (?)", storeID, bun.List(productIDs)).
		Order("product_id", "position", "id"), &out)
	return out, err
}

// VariantsByID loads variants by id, for a dataloader.
func VariantsByID(ctx context.Context, db bun.IDB, storeID int64, ids []int64, cols Columns) ([]ProductVariant, error) {
	out := make([]ProductVariant, 0, len(ids)) // at most one row per id
	err := scanRows(ctx, db, db.NewSelect().Model(&out).Apply(cols.Apply).Where("store_id = ? AND id IN (?)", storeID, bun.List(ids)), &out)
	return out, err
}

// ProductSummary is what a product list shows of a product beyond its
// own row: its lowest variant price and its first image (nil when it has
// none). ProductSummaries reads them in the database, so a page of 50
// products costs 50 small rows, not every variant and image of them.
// It is the view product_summaries (migrations/20261124120000), which a
// page of products joins when it shows them (ProductSummaryJoin).
type ProductSummary struct {
	bun.BaseModel `bun:"table:product_summaries,alias:summary"`

	ProductID        int64   `bun:"product_id"`
	StoreID          int64   `bun:"store_id"`
	LowestPriceCents *int64  `bun:"lowest_price_cents"`
	ImageSrc         *string `bun:"image_src"`
}

// ProductSummaryJoin is the relation Paging.Join names to read each
// product's summary in a page's statement.
const ProductSummaryJoin = "Summary"

// ProductSummaries loads the summaries of products, for a dataloader.
func ProductSummaries(ctx context.Context, db bun.IDB, storeID int64, productIDs []int64, _ Columns) ([]ProductSummary, error) {
	var out []ProductSummary
	err := scanRows(ctx, db, db.NewSelect().Model(&out).
		Where("summary.store_id = ? AND summary.product_id IN (?)", storeID, bun.List(productIDs)), &out)
	return out, err
}

// ImagesByProduct loads the images of several products, in position order,
// for a dataloader.
func ImagesByProduct(ctx context.Context, db bun.IDB, storeID int64, productIDs []int64, cols Columns) ([]ProductImage, error) {
	out := manyRows[ProductImage](len(productIDs))
	err := scanRows(ctx, db, db.NewSelect().Model(&out).Apply(cols.Apply).Where("store_id = ? AND product_id IN (?)", storeID, bun.List(productIDs)).
		Order("product_id", "position", "id"), &out)
	return out, err
}

// SKUOwners maps the SKUs (lowercased) of the store's variants that are in
// skus, or all of them when skus is nil, to the handle of their product.
func SKUOwners(ctx context.Context, db bun.IDB, storeID int64, skus []string) (map[string]string, error) {
	var rows []struct {
		SKU    string `bun:"sku"`
		Handle string `bun:"handle"`
	}
	q := db.NewSelect().TableExpr("product_variants AS v").Join("JOIN products AS p ON p.id = v.product_id").
		ColumnExpr("lower(v.sku) AS sku, p.handle").Where("v.store_id = ? AND v.sku <> ''", storeID)
	if skus != nil {
		if len(skus) == 0 {
			return map[string]string{}, nil
		}
		lower := make([]string, len(skus))
		for i, s := range skus {
			lower[i] = strings.ToLower(s)
		}
		q = q.Where("lower(v.sku) IN (?)", bun.List(lower))
	}
	if err := q.Scan(ctx, &rows); err != nil {
		return nil, err
	}
	out := make(map[string]string, len(rows))
	for _, r := range rows {
		out[r.SKU] = r.Handle
	}
	return out, nil
}

// SaveImages makes the product's images exactly imgs, in order: an image
// whose src the product already has keeps its id; the others are inserted,
// and images no longer listed are deleted. imgs get their ids.
func SaveImages(ctx context.Context, db bun.IDB, storeID, productID int64, imgs []ProductImage) error {
	var existing []ProductImage
	if err := db.NewSelect().Model(&existing).Where("store_id = ? AND product_id = ?", storeID, productID).Scan(ctx); err != nil {
		return err
	}
	bySrc := make(map[string]int64, len(existing))
	for _, e := range existing {
		bySrc[e.Src] = e.ID
	}
	keep := []int64{}
	var fresh, kept []*ProductImage
	for i := range imgs {
		img := &imgs[i]
		img.StoreID, img.ProductID, img.Position = storeID, productID, int64(i+1)
		if id, ok := bySrc[img.Src]; ok {
			img.ID = id
			keep = append(keep, id)
			kept = append(kept, img)
			continue
		}
		fresh = append(fresh, img)
	}
	if len(kept) > 0 {
		if _, err := db.NewUpdate().Model(&kept).Column("position", "alt", "width", "height", "thumbhash").Bulk().Exec(ctx); err != nil {
			return err
		}
	}
	if _, err := db.NewDelete().Model((*ProductImage)(nil)).
		Where("store_id = ? AND product_id = ? AND NOT (id IN (?))", storeID, productID, bun.List(append(keep, 0))).Exec(ctx); err != nil {
		return err
	}
	if len(fresh) > 0 {
		if _, err := db.NewInsert().Model(&fresh).Returning("id").Exec(ctx); err != nil {
			return classify(err, "an image")
		}
	}
	return nil
}

// SaveVariants makes the product's variants exactly vs, in order: a
// variant with an id of this product is updated, one without is inserted,
// and variants no longer listed are deleted. A variant with an ImageSrc is
// linked to the product image with that src; one without keeps its ImageID
// while that image is among images. vs get their ids.
func SaveVariants(ctx context.Context, db bun.IDB, storeID, productID int64, vs []ProductVariant, images []ProductImage) error {
	imageBySrc := make(map[string]int64, len(images))
	imageIDs := make(map[int64]bool, len(images))
	for _, img := range images {
		imageBySrc[img.Src] = img.ID
		imageIDs[img.ID] = true
	}
	keep := []int64{}
	var fresh, changed []*ProductVariant
	for i := range vs {
		v := &vs[i]
		v.StoreID, v.ProductID, v.Position = storeID, productID, int64(i+1)
		if v.ImageSrc != "" {
			v.ImageID = nil
			if id, ok := imageBySrc[v.ImageSrc]; ok {
				v.ImageID = &id
			}
		} else if v.ImageID != nil && !imageIDs[*v.ImageID] {
			v.ImageID = nil // its image is gone
		}
		if v.ID != 0 {
			keep = append(keep, v.ID)
			changed = append(changed, v)
		} else {
			fresh = append(fresh, v)
		}
	}
	if _, err := db.NewDelete().Model((*ProductVariant)(nil)).
		Where("store_id = ? AND product_id = ? AND NOT (id IN (?))", storeID, productID, bun.List(append(keep, 0))).Exec(ctx); err != nil {
		return err
	}
	// Clear the SKUs being kept first, so that two variants may swap SKUs
	// without tripping the unique index mid-way.
	if len(changed) > 0 {
		if _, err := db.NewUpdate().Model((*ProductVariant)(nil)).Set("sku = ''").
			Where("store_id = ? AND id IN (?)", storeID, bun.List(keep)).Exec(ctx); err != nil {
			return err
		}
	}
	if len(changed) > 0 {
		res, err := db.NewUpdate().Model(&changed).
			Column("position", "title", "option1", "option2", "option3", "sku", "barcode", "price_cents",
				"compare_at_price_cents", "cost_cents", "weight_grams", "inventory_quantity", "inventory_policy",
				"track_inventory", "taxable", "requires_shipping", "image_id").
			Set("updated_at = now()").Bulk().
			Where("product_variant.store_id = ? AND product_variant.product_id = ?", storeID, productID).Exec(ctx)
		if err != nil {
			return classify(err, "a variant with this SKU")
		}
		if n, _ := res.RowsAffected(); n != int64(len(changed)) {
			return apperr.NotFoundf("a variant of this product was not found")
		}
	}
	if len(fresh) > 0 {
		if _, err := db.NewInsert().Model(&fresh).Returning("id").Exec(ctx); err != nil {
			return classify(err, "a variant with this SKU")
		}
	}
	return nil
}
