package models

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/pgdialect"
)

// What a bundle applies to.
const (
	BundleAll         = "all"
	BundleProducts    = "products"
	BundleCollections = "collections"
)

// MaxBundleTiers bounds the tiers of one bundle.
const MaxBundleTiers = 10

// BundleOffer is a volume bundle: buy more, pay less per item.
type BundleOffer struct {
	bun.BaseModel `bun:"table:bundles"`

	ID                     int64     `bun:"id,pk,autoincrement" json:"id"`
	StoreID                int64     `bun:"store_id" json:"-"`
	Title                  string    `bun:"title" json:"title"`
	Enabled                bool      `bun:"enabled" json:"enabled"`
	AppliesTo              string    `bun:"applies_to" json:"applies_to"`
	IncludePlainItems      bool      `bun:"include_plain_items" json:"include_plain_items"`
	VariantSelectors       bool      `bun:"variant_selectors" json:"variant_selectors"`
	VariantSelectorsSingle bool      `bun:"variant_selectors_single" json:"variant_selectors_single"`
	CreatedAt              time.Time `bun:"created_at,nullzero,default:now()" json:"created_at"`
	UpdatedAt              time.Time `bun:"updated_at,nullzero,default:now()" json:"updated_at"`
}

// BundleOfferTier is one quantity step of a bundle.
type BundleOfferTier struct {
	bun.BaseModel `bun:"table:bundle_tiers"`

	ID           int64  `bun:"id,pk,autoincrement" json:"id"`
	StoreID      int64  `bun:"store_id" json:"-"`
	BundleID     int64  `bun:"bundle_id" json:"-"`
	Position     int64  `bun:"position" json:"-"`
	Quantity     int64  `bun:"quantity" json:"quantity"`
	DiscountBps  int64  `bun:"discount_bps" json:"discount_bps"`
	FreeShipping bool   `bun:"free_shipping" json:"free_shipping"`
	Label        string `bun:"label" json:"label"`
	Title        string `bun:"title" json:"title"`
	Caption      string `bun:"caption" json:"caption"`
	BenefitLabel string `bun:"benefit_label" json:"benefit_label"`
	Preselected  bool   `bun:"preselected" json:"preselected"`
}

// DiscountDisplay words the discount for shoppers: "10% off", "12.5% off",
// or empty without a discount.
func (t *BundleOfferTier) DiscountDisplay() string {
	if t.DiscountBps <= 0 {
		return ""
	}
	pct := strconv.FormatFloat(float64(t.DiscountBps)/100, 'f', 2, 64)
	pct = strings.TrimRight(strings.TrimRight(pct, "0"), ".")
	return fmt.Sprintf("%s%% off", pct)
}

// BundleLink ties a bundle to a product or a collection.
type BundleLink struct {
	BundleID int64 `bun:"bundle_id"`
	TargetID int64 `bun:"target_id"`
}

// ListBundles lists a store's bundles, newest first.
func ListBundles(ctx context.Context, db bun.IDB, storeID int64, p Paging) ([]BundleOffer, error) {
	var out []BundleOffer
	q := db.NewSelect().Model(&out).Where("store_id = ?", storeID).Order("id DESC")
	err := scanRows(ctx, db, p.Apply(q), &out)
	return out, err
}

// CountBundles counts a store's bundles.
func CountBundles(ctx context.Context, db bun.IDB, storeID int64) (int64, error) {
	return db.NewSelect().Model((*BundleOffer)(nil)).Where("store_id = ?", storeID).Count(ctx)
}

// GetBundle reads one bundle of the store.
func GetBundle(ctx context.Context, db bun.IDB, storeID, id int64) (*BundleOffer, error) {
	b := new(BundleOffer)
	err := db.NewSelect().Model(b).Where("store_id = ? AND id = ?", storeID, id).Scan(ctx)
	return b, classify(err, "the bundle")
}

// InsertBundle stores a new bundle row.
func InsertBundle(ctx context.Context, db bun.IDB, b *BundleOffer) error {
	_, err := db.NewInsert().Model(b).Returning("id, created_at, updated_at").Exec(ctx)
	return classify(err, "the bundle")
}

// UpdateBundle writes the bundle row and bumps updated_at.
func UpdateBundle(ctx context.Context, db bun.IDB, b *BundleOffer) error {
	res, err := db.NewUpdate().Model(b).
		Column("title", "enabled", "applies_to", "include_plain_items", "variant_selectors", "variant_selectors_single").
		Set("updated_at = now()").Where("store_id = ? AND id = ?", b.StoreID, b.ID).Exec(ctx)
	if err := notFoundIfNone(res, err, "the bundle"); err != nil {
		return err
	}
	return db.NewSelect().Model(b).Column("updated_at").Where("id = ?", b.ID).Scan(ctx)
}

// DeleteBundle removes a bundle with its tiers and links.
func DeleteBundle(ctx context.Context, db bun.IDB, storeID, id int64) error {
	res, err := db.NewDelete().Model((*BundleOffer)(nil)).Where("store_id = ? AND id = ?", storeID, id).Exec(ctx)
	return notFoundIfNone(res, err, "the bundle")
}

// SaveBundleTiers replaces a bundle's tiers.
func SaveBundleTiers(ctx context.Context, db bun.IDB, storeID, bundleID int64, tiers []BundleOfferTier) error {
	if _, err := db.NewDelete().Model((*BundleOfferTier)(nil)).Where("store_id = ? AND bundle_id = ?", storeID, bundleID).Exec(ctx); err != nil {
		return err
	}
	if len(tiers) == 0 {
		return nil
	}
	for i := range tiers {
		tiers[i].StoreID, tiers[i].BundleID, tiers[i].Position = storeID, bundleID, int64(i+1)
	}
	_, err := db.NewInsert().Model(&tiers).Returning("id").Exec(ctx)
	return classify(err, "a tier with this quantity")
}

// SaveBundleTargets replaces the products and collections a bundle names.
func SaveBundleTargets(ctx context.Context, db bun.IDB, storeID, bundleID int64, productIDs, collectionIDs []int64) error {
	for _, t := range []struct {
		table, column string
		ids           []int64
	}{{"bundle_products", "product_id", productIDs}, {"bundle_collections", "collection_id", collectionIDs}} {
		if _, err := db.NewDelete().TableExpr(t.table).Where("store_id = ? AND bundle_id = ?", storeID, bundleID).Exec(ctx); err != nil {
			return err
		}
		if len(t.ids) == 0 {
			continue
		}
		if _, err := db.NewRaw("INSERT INTO "+t.table+" (bundle_id, "+t.column+", store_id) SELECT ?, unnest(?::bigint[]), ? ON CONFLICT DO NOTHING",
			bundleID, pgdialect.Array(t.ids), storeID).Exec(ctx); err != nil {
			return classify(err, "the bundle")
		}
	}
	return nil
}

// TiersByBundle loads the tiers of several bundles, by quantity, for a
// dataloader.
func TiersByBundle(ctx context.Context, db bun.IDB, storeID int64, ids []int64, cols Columns) ([]BundleOfferTier, error) {
	out := manyRows[BundleOfferTier](len(ids))
	err := scanRows(ctx, db, db.NewSelect().Model(&out).Apply(cols.Apply).Where("store_id = ? AND bundle_id IN (?)", storeID, bun.List(ids)).
		Order("bundle_id", "quantity"), &out)
	return out, err
}

// BundleProductLinks loads the product links of several bundles.
func BundleProductLinks(ctx context.Context, db bun.IDB, storeID int64, ids []int64, _ Columns) ([]BundleLink, error) {
	var out []BundleLink
	err := db.NewSelect().TableExpr("bundle_products").ColumnExpr("bundle_id, product_id AS target_id").
		Where("store_id = ? AND bundle_id IN (?)", storeID, bun.List(ids)).Order("bundle_id", "product_id").Scan(ctx, &out)
	return out, err
}

// BundleCollectionLinks loads the collection links of several bundles.
func BundleCollectionLinks(ctx context.Context, db bun.IDB, storeID int64, ids []int64, _ Columns) ([]BundleLink, error) {
	var out []BundleLink
	err := db.NewSelect().TableExpr("bundle_collections").ColumnExpr("bundle_id, collection_id AS target_id").
		Where("store_id = ? AND bundle_id IN (?)", storeID, bun.List(ids)).Order("bundle_id", "collection_id").Scan(ctx, &out)
	return out, err
}

// ProductBundle is a bundle that offers a product.
type ProductBundle struct {
	BundleOffer `bun:",extend"`
	ProductID   int64 `bun:"product_id"`
}

// BundlesByProduct loads, for several products, the bundles that offer
// them: to all products, by name, or through one of their collections.
func BundlesByProduct(ctx context.Context, db bun.IDB, storeID int64, productIDs []int64, _ Columns) ([]ProductBundle, error) {
	out := manyRows[ProductBundle](len(productIDs))
	err := scanRows(ctx, db, db.NewSelect().Model(&out).
		ColumnExpr("bundle_offer.*, p.id AS product_id").
		Join("JOIN products AS p ON p.store_id = bundle_offer.store_id").
		Where("bundle_offer.store_id = ? AND p.id IN (?)", storeID, bun.List(productIDs)).
		Where(`(bundle_offer.applies_to = 'all'
			OR (bundle_offer.applies_to = 'products' AND EXISTS (SELECT 1 FROM bundle_products bp WHERE bp.bundle_id = bundle_offer.id AND bp.product_id = p.id))
			OR (bundle_offer.applies_to = 'collections' AND EXISTS (SELECT 1 FROM bundle_collections bc JOIN collection_products cp ON cp.collection_id = bc.collection_id
			     WHERE bc.bundle_id = bundle_offer.id AND cp.product_id = p.id)))`).
		Order("p.id", "bundle_offer.id"), &out)
	return out, err
}

// ExistingIDs returns which of ids name rows of the store in table.
func ExistingIDs(ctx context.Context, db bun.IDB, table string, storeID int64, ids []int64) (map[int64]bool, error) {
	found := []int64{}
	out := map[int64]bool{}
	if len(ids) == 0 {
		return out, nil
	}
	if err := db.NewSelect().TableExpr(table).Column("id").Where("store_id = ? AND id IN (?)", storeID, bun.List(ids)).Scan(ctx, &found); err != nil {
		return nil, err
	}
	for _, id := range found {
		out[id] = true
	}
	return out, nil
}

// BundleProduct is a product a bundle names.
type BundleProduct struct {
	Product  `bun:",extend"`
	BundleID int64 `bun:"bundle_id"`
}

// ProductsByBundle loads the products several bundles name, for a
// dataloader.
func ProductsByBundle(ctx context.Context, db bun.IDB, storeID int64, ids []int64, _ Columns) ([]BundleProduct, error) {
	return linkedTo[BundleProduct](ctx, db, storeID, link{"bundle_products", "product_id", "bundle_id"}, ids)
}

// BundleCollection is a collection a bundle names.
type BundleCollection struct {
	Collection `bun:",extend"`
	BundleID   int64 `bun:"bundle_id"`
}

// CollectionsByBundle loads the collections several bundles name, for a
// dataloader.
func CollectionsByBundle(ctx context.Context, db bun.IDB, storeID int64, ids []int64, _ Columns) ([]BundleCollection, error) {
	return linkedTo[BundleCollection](ctx, db, storeID, link{"bundle_collections", "collection_id", "bundle_id"}, ids)
}
