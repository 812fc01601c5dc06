package benchdata

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"time"

	"storeadmin/internal/base/handle"
	"storeadmin/models"
)

var (
	adjectives = []string{"Classic", "Everyday", "Organic", "Vintage", "Relaxed", "Slim", "Heavyweight", "Lightweight",
		"Essential", "Premium", "Recycled", "Soft", "Cropped", "Oversized", "Tailored", "Washed"}
	materials = []string{"Cotton", "Linen", "Wool", "Denim", "Fleece", "Merino", "Hemp", "Canvas", "Corduroy", "Jersey"}
	garments  = []string{"Tee", "Hoodie", "Sweater", "Shirt", "Jacket", "Chinos", "Shorts", "Cap", "Tote", "Socks",
		"Beanie", "Overshirt", "Joggers", "Polo", "Scarf"}
	vendors  = []string{"Northwind", "Fjord & Pine", "Atlas Goods", "Harbor Supply", "Meridian", "Kestrel"}
	tagPool  = []string{"summer", "winter", "new", "sale", "bestseller", "gift", "eco", "limited"}
	sizes    = []string{"S", "M", "L"}
	statuses = []string{models.ProductActive, models.ProductDraft, models.ProductArchived}
)

// variant is what an order line needs of a variant it sells.
type variant struct {
	id, productID, price int64
	title, sku, product  string
	image                string
}

// catalogue is what was copied of the products, for the orders to sell.
type catalogue struct {
	variants []variant
}

// catalogue copies n products, each with one image and three variants.
func (w *writer) catalogue(ctx context.Context, rng *rand.Rand, n int, now time.Time) (catalogue, error) {
	var cat catalogue
	if n == 0 {
		return cat, nil
	}
	productIDs, err := w.ids(ctx, "products", n)
	if err != nil {
		return cat, err
	}
	variantIDs, err := w.ids(ctx, "product_variants", n*len(sizes))
	if err != nil {
		return cat, err
	}
	options, _ := json.Marshal([]models.ProductOption{{Name: "Size", Position: 1, Values: sizes}})
	products := make([][]any, 0, n)
	images := make([][]any, 0, n)
	variants := make([][]any, 0, n*len(sizes))
	cat.variants = make([]variant, 0, n*len(sizes))
	for i, id := range productIDs {
		garment := pick(rng, garments)
		title := pick(rng, adjectives) + " " + pick(rng, materials) + " " + garment
		// The id makes the handle unique without a lookup, in any store.
		h := fmt.Sprintf("%s-%d", handle.From(title), id)
		created := between(rng, now.Add(-Span-90*24*time.Hour), now.Add(-24*time.Hour))
		updated := between(rng, created, now)
		tags := []string{pick(rng, tagPool), pick(rng, tagPool)}
		if tags[0] == tags[1] {
			tags = tags[:1]
		}
		status := statuses[weighted(rng, []float64{85, 10, 5})]
		products = append(products, []any{id, w.storeID, h, title, "<p>" + title + ", made to last.</p>", pick(rng, vendors),
			garment, status, tags, string(options), created, updated})
		src := "https://cdn.example.com/bench/" + h + ".jpg"
		images = append(images, []any{w.storeID, id, int64(1), src, title, int64(1200), int64(1200), created})
		price := int64(rng.IntN(140)+10)*100 - 1
		prefix := strings.ToUpper(garment[:3])
		for k, size := range sizes {
			vid := variantIDs[i*len(sizes)+k]
			p := price
			if size == "L" {
				p += 200
			}
			sku := fmt.Sprintf("%s-%d-%s", prefix, id, size)
			variants = append(variants, []any{vid, w.storeID, id, int64(k + 1), size, size, sku, p, p * 2 / 5,
				int64(rng.IntN(1000) + 200), int64(rng.IntN(250)), created, updated})
			cat.variants = append(cat.variants, variant{id: vid, productID: id, price: p, title: size, sku: sku, product: title, image: src})
		}
	}
	if err := w.copy(ctx, "products", []string{"id", "store_id", "handle", "title", "body_html", "vendor",
		"product_type", "status", "tags", "options", "created_at", "updated_at"}, products); err != nil {
		return cat, err
	}
	if err := w.copy(ctx, "product_images", []string{"store_id", "product_id", "position", "src", "alt",
		"width", "height", "created_at"}, images); err != nil {
		return cat, err
	}
	return cat, w.copy(ctx, "product_variants", []string{"id", "store_id", "product_id", "position", "title",
		"option1", "sku", "price_cents", "cost_cents", "weight_grams", "inventory_quantity", "created_at", "updated_at"}, variants)
}
