package seed

import (
	"context"
	"fmt"
	"time"

	"github.com/uptrace/bun"

	"storeadmin/internal/base/storeurl"
	"storeadmin/models"
)

// redirects seeds the URL redirects of a store that moved here from an
// older shop: manual ones from the old site's addresses (to products,
// collections, the blog and other sites), a sheet's worth imported from
// the old platform's product URLs, and automatic ones left by products and
// collections whose handles changed. Written as the API writes them
// (storeurl, models.SaveURLRedirect, models.RedirectMovedPath), so the
// normalisation and the loop rule hold for them too.
func redirects(ctx context.Context, tx bun.Tx, storeID int64, now time.Time) error {
	n, err := models.CountURLRedirects(ctx, tx, storeID, models.URLRedirectFilter{})
	if err != nil || n > 0 {
		return err
	}
	var products, collections []string
	if err := tx.NewSelect().Table("products").Column("handle").Where("store_id = ? AND status = ?", storeID, models.ProductActive).
		Order("id").Limit(40).Scan(ctx, &products); err != nil {
		return err
	}
	if err := tx.NewSelect().Table("collections").Column("handle").Where("store_id = ?", storeID).
		Order("id").Limit(12).Scan(ctx, &collections); err != nil {
		return err
	}
	if len(products) < 40 || len(collections) < 6 {
		return fmt.Errorf("the redirects need the catalogue: %d products, %d collections", len(products), len(collections))
	}
	own, err := models.StoreHosts(ctx, tx, storeID)
	if err != nil {
		return err
	}
	day := 24 * time.Hour
	save := func(source, path, target string, age time.Duration) error {
		p, err := storeurl.Path(path, own)
		if err != nil {
			return fmt.Errorf("path %q %w", path, err)
		}
		t, err := storeurl.Target(target, own)
		if err != nil {
			return fmt.Errorf("target %q %w", target, err)
		}
		at := now.Add(-age).UTC().Truncate(time.Second)
		return models.SaveURLRedirect(ctx, tx, &models.URLRedirect{StoreID: storeID, Path: p, Target: t, Source: source, CreatedAt: at, UpdatedAt: at})
	}

	// Manual: the old site's pages, written over a few months.
	manual := [][2]string{
		{"/shop", "/collections/all"},
		{"/shop/", "/collections/all"}, // the same path: seeded once (see below)
		{"/new-arrivals", models.CollectionPath(collections[0])},
		{"/sale", models.CollectionPath(collections[1])},
		{"/clearance", "/sale"}, // a chain: /clearance → /sale → a collection
		{"/gift-guide", models.CollectionPath(collections[2])},
		{"/about-us", "/pages/about"},
		{"/faq.html", "/pages/faq"},
		{"/shipping-info", "/pages/shipping-policy"},
		{"/terms-and-conditions", "/pages/terms"},
		{"/news", "/blog"},
		{"/journal", "/blog"},
		{"/journal/trail-guides", "/blog?tag=guides"},
		{"/contact-us", "/pages/contact"},
		{"/instagram", "https://www.instagram.com/demo-outfitters.example"},
		{"/careers", "https://jobs.demo-outfitters.example/openings"},
		{"/wholesale", "https://wholesale.demo-outfitters.example/apply?from=store"},
		{"/store-locator", "https://maps.demo-outfitters.example/stores"},
		{"/returns", "/pages/shipping-policy#returns"},
		{"/catalog.pdf", "https://files.demo-outfitters.example/catalog-2026.pdf"},
	}
	for i := range 7 {
		manual = append(manual, [2]string{"/featured/" + products[i], models.ProductPath(products[i])})
	}
	seen := map[string]bool{}
	for i, m := range manual {
		if p, _ := storeurl.Path(m[0], own); seen[p] {
			continue // "/shop/" is "/shop": a path has one redirect
		} else {
			seen[p] = true
		}
		if err := save(models.RedirectManual, m[0], m[1], time.Duration(120-4*i)*day); err != nil {
			return err
		}
	}

	// Imported: the old platform's product and category URLs, one sheet,
	// 45 days ago; their queries arrive in any order.
	for i, h := range products[7:25] {
		path := fmt.Sprintf("/index.php?product_id=%d&route=product/product", 100+i)
		if i%2 == 1 {
			path = fmt.Sprintf("/index.php?route=product/product&product_id=%d&route=product/product", 100+i)
		}
		if err := save(models.RedirectImport, path, models.ProductPath(h), 45*day); err != nil {
			return err
		}
	}
	for i, h := range collections[3:6] {
		if err := save(models.RedirectImport, fmt.Sprintf("/index.php?route=product/category&path=%d", 20+i), models.CollectionPath(h), 45*day); err != nil {
			return err
		}
	}

	// Automatic: handles renamed since (the old ones carried a year or a
	// season), each leaving a redirect from its old path.
	for i, h := range products[25:37] {
		old := fmt.Sprintf("%s-%d", h, 2024+i%2)
		if err := models.RedirectMovedPath(ctx, tx, storeID, models.ProductPath(old), models.ProductPath(h)); err != nil {
			return err
		}
	}
	for _, h := range collections[6:] {
		if err := models.RedirectMovedPath(ctx, tx, storeID, models.CollectionPath("summer-"+h), models.CollectionPath(h)); err != nil {
			return err
		}
	}
	return nil
}
