package seed

import (
	"context"
	"testing"
	"time"

	"github.com/uptrace/bun"

	"storeadmin/models"
)

func TestCatalogue(t *testing.T) {
	ctx := context.Background()
	db, files, sid := newSeedStore(t)
	now := seedNow
	run := func() {
		t.Helper()
		start := time.Now()
		err := db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
			return catalogue(ctx, tx, files, sid, now)
		})
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("catalogue took %v", time.Since(start))
	}
	count := storeCounter(t, db, sid)
	tables := []string{"products", "product_variants", "product_images", "media", "collections", "collection_products",
		"bundles", "bundle_tiers", "bundle_products", "bundle_collections", "reviews"}
	counts := func() map[string]int64 { return tableCounts(count, tables...) }

	run()
	first := counts()
	t.Logf("counts: %v", first)

	if n := first["products"]; n < 200 {
		t.Errorf("%d products, want at least 200", n)
	}
	if n := count("products p", "NOT EXISTS (SELECT 1 FROM product_variants v WHERE v.product_id = p.id)"); n != 0 {
		t.Errorf("%d products without variants", n)
	}
	withImages := count("products p", "EXISTS (SELECT 1 FROM product_images i WHERE i.product_id = p.id AND i.thumbhash <> '' AND i.width > 0)")
	if withImages*10 < first["products"]*8 {
		t.Errorf("only %d of %d products have images with a ThumbHash", withImages, first["products"])
	}
	if n := count("product_variants", "image_id IS NOT NULL"); n == 0 {
		t.Error("no variant is linked to an image")
	}
	if n := count("media", "thumbhash <> '' AND width = 480 AND height = 480"); n < 20 {
		t.Errorf("%d generated media, want at least 20", n)
	}
	// SKUs are unique by the database's index; variants are within bounds.
	if n := count("product_variants", "price_cents < 900 OR price_cents > 25000 OR sku = ''"); n != 0 {
		t.Errorf("%d variants with a price out of range or no SKU", n)
	}
	if n := count("products", "status = 'draft'"); n == 0 {
		t.Error("no draft products")
	}
	if n := count("products", "status = 'archived'"); n == 0 {
		t.Error("no archived products")
	}

	var smart []models.Collection
	if err := db.NewSelect().Model(&smart).Where("store_id = ? AND collection_type = 'smart'", sid).Scan(ctx); err != nil {
		t.Fatal(err)
	}
	if len(smart) < 5 {
		t.Errorf("%d smart collections, want at least 5", len(smart))
	}
	for _, c := range smart {
		n, err := models.CountCollectionMembers(ctx, db, sid, c.ID)
		if err != nil {
			t.Fatal(err)
		}
		if n == 0 {
			t.Errorf("smart collection %q has no members", c.Title)
		}
	}
	if n := count("collections", "collection_type = 'manual'"); n < 5 {
		t.Errorf("%d manual collections, want at least 5", n)
	}
	if n := count("collections", "NOT published"); n != 1 {
		t.Errorf("%d unpublished collections, want 1", n)
	}
	if first["bundles"] < 5 || count("bundles", "NOT enabled") != 1 || first["bundle_products"] == 0 || first["bundle_collections"] == 0 {
		t.Errorf("bundles: %d, disabled %d, product links %d, collection links %d",
			first["bundles"], count("bundles", "NOT enabled"), first["bundle_products"], first["bundle_collections"])
	}

	if first["reviews"] < 500 {
		t.Errorf("%d reviews, want at least 500", first["reviews"])
	}
	rc, err := models.CountReviewsByStatus(ctx, db, sid, models.ReviewFilter{})
	if err != nil {
		t.Fatal(err)
	}
	if rc.Published == 0 || rc.Pending == 0 || rc.Rejected == 0 || rc.Published < rc.Pending+rc.Rejected {
		t.Errorf("review counts by status: %+v", rc)
	}
	for what, where := range map[string]string{
		"featured": "featured", "verified": "verified", "replied": "reply <> '' AND replied_at IS NOT NULL",
		"with photos": "jsonb_array_length(photos) > 0", "imported": "source = 'import'", "by email": "source = 'email'",
	} {
		if count("reviews", where) == 0 {
			t.Errorf("no %s reviews", what)
		}
	}
	// Ratings were refreshed: the most reviewed product counts exactly its
	// published reviews, and no product disagrees.
	var top struct {
		ID          int64 `bun:"id"`
		RatingCount int64 `bun:"rating_count"`
		RatingAvg   int64 `bun:"rating_avg"`
		Published   int64 `bun:"published"`
	}
	err = db.NewSelect().TableExpr("products p").ColumnExpr("p.id, p.rating_count, p.rating_avg").
		ColumnExpr("(SELECT count(*) FROM reviews r WHERE r.product_id = p.id AND r.status = 'published') AS published").
		Where("p.store_id = ?", sid).OrderExpr("published DESC, p.id").Limit(1).Scan(ctx, &top)
	if err != nil {
		t.Fatal(err)
	}
	if top.Published < 2 || top.RatingCount != top.Published || top.RatingAvg < 1 || top.RatingAvg > 5 {
		t.Errorf("most reviewed product: %+v", top)
	}
	if n := count("products p", "rating_count <> (SELECT count(*) FROM reviews r WHERE r.product_id = p.id AND r.status = 'published')"); n != 0 {
		t.Errorf("%d products whose rating_count disagrees with their reviews", n)
	}

	run()
	expectSameCounts(t, first, counts())
}
