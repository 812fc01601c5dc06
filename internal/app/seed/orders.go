package seed

import (
	"context"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/uptrace/bun"

	"storeadmin/models"
)

// ordDays is how far back the order history reaches.
const ordDays = 90

// ordPerDay is the mean number of orders a day at the start of the history;
// it grows gently towards the present.
const ordPerDay = 24.0

// ordVariant is a sellable variant of the seeded catalogue.
type ordVariant struct {
	id, productID       int64
	title, sku          string
	price               int64
	compareAt           *int64
	imageSrc, thumbhash string
}

// ordProduct is a product of the seeded catalogue with its variants.
type ordProduct struct {
	title                    string
	archived                 bool
	variants                 []ordVariant
	engrave, sock, baseLayer bool
}

// ordOrder is an order of the history: what its placement needs, then,
// once placed, the order as the domain keeps it (its statuses follow each
// change) and what the generator remembers of its life.
type ordOrder struct {
	o       models.Order
	lines   []models.OrderLineItem // ids once placed
	cust    *ordCustomer           // nil: a guest
	country *ordCountry
	region  ordRegion
	pay     ordPay
	actor   string // who placed it: "checkout", "admin" (a draft), "api" (the till)
	carrier string
	cancel  *ordCancel // cancelled within hours of checkout
	note    *ordNote   // a staff note, written when its time comes

	steps []ordStep // its life after checkout, in time order

	// What the generator knows of the life planned so far.
	paid       bool      // everything due was taken
	refunded   bool      // something was given back
	cancelled  bool      // cancelled
	allShipped bool      // every line shipped
	lastShip   time.Time // last successful shipment
	last       time.Time // last change
}

type ordGen struct {
	rng      *rand.Rand
	now      time.Time
	storeID  int64
	currency string
	loc      *time.Location
	products []ordProduct // most popular first
	socks    []int        // indexes into products
	bases    []int
	promo    [2]time.Time // a flash sale: FLASH20 is everywhere
	seen     map[string]int

	customers []*ordCustomer
	orders    []*ordOrder
	emails    map[string]bool

	// The seed's transaction, which the history is written in.
	ctx context.Context
	tx  bun.Tx
}

// orders seeds ninety days of order history on the seeded catalogue, through
// the domain as the API would have made it: the orders are placed
// (models.PlaceOrders, which finds or creates their customers), then each
// order's life after checkout is played at its historic times by the
// domain's functions (captures, payments, shipments, refunds,
// cancellations, notes, archiving).
func orders(ctx context.Context, tx bun.Tx, storeID int64, now time.Time) error {
	n, err := models.CountOrders(ctx, tx, storeID, models.OrderFilter{})
	if err != nil || n > 0 {
		return err
	}
	s, err := models.GetStore(ctx, tx, storeID)
	if err != nil {
		return err
	}
	products, err := ordCatalogue(ctx, tx, storeID)
	if err != nil || len(products) == 0 {
		return err // nothing to sell, nothing to order
	}
	g := &ordGen{
		rng: rand.New(rand.NewPCG(uint64(storeID), 43)), now: now, storeID: storeID, currency: s.Currency,
		loc: time.UTC, seen: map[string]int{}, emails: map[string]bool{}, ctx: ctx, tx: tx,
	}
	if g.currency == "" {
		g.currency = "USD"
	}
	if loc, err := time.LoadLocation(s.Timezone); err == nil && s.Timezone != "" {
		g.loc = loc
	}
	g.setProducts(products)
	g.generate()
	return g.play()
}

// ordCatalogue reads the store's sellable variants (not of draft products)
// with their titles and pictures.
func ordCatalogue(ctx context.Context, tx bun.Tx, storeID int64) ([]ordProduct, error) {
	var rows []struct {
		ID           int64  `bun:"id"`
		ProductID    int64  `bun:"product_id"`
		Title        string `bun:"title"`
		VariantTitle string `bun:"variant_title"`
		SKU          string `bun:"sku"`
		PriceCents   int64  `bun:"price_cents"`
		CompareAt    *int64 `bun:"compare_at_price_cents"`
		ProductType  string `bun:"product_type"`
		Status       string `bun:"status"`
		ImageSrc     string `bun:"image_src"`
		Thumbhash    string `bun:"image_thumbhash"`
	}
	err := tx.NewRaw(`SELECT v.id, v.product_id, p.title, v.title AS variant_title, v.sku, v.price_cents,
			v.compare_at_price_cents, p.product_type, p.status,
			coalesce(vi.src, pi.src, '') AS image_src, coalesce(vi.thumbhash, pi.thumbhash, '') AS image_thumbhash
		FROM product_variants v
		JOIN products p ON p.id = v.product_id
		LEFT JOIN product_images vi ON vi.id = v.image_id
		LEFT JOIN LATERAL (SELECT src, thumbhash FROM product_images
			WHERE product_id = p.id ORDER BY position, id LIMIT 1) pi ON true
		WHERE v.store_id = ? AND p.status <> ?
		ORDER BY p.id, v.position, v.id`, storeID, models.ProductDraft).Scan(ctx, &rows)
	if err != nil {
		return nil, err
	}
	var out []ordProduct
	for _, r := range rows {
		if len(out) == 0 || out[len(out)-1].variants[0].productID != r.ProductID {
			t := r.Title
			out = append(out, ordProduct{
				title: t, archived: r.Status == models.ProductArchived,
				engrave: strings.Contains(t, "Water Bottle") || strings.Contains(t, "Camp Mug") ||
					strings.Contains(t, "Trekking Poles") || strings.Contains(t, "Duffel"),
				sock:      strings.Contains(t, "Hiking Sock"),
				baseLayer: r.ProductType == "Base Layers",
			})
		}
		vt := r.VariantTitle
		if vt == "Default Title" {
			vt = ""
		}
		p := &out[len(out)-1]
		p.variants = append(p.variants, ordVariant{
			id: r.ID, productID: r.ProductID, title: vt, sku: r.SKU, price: r.PriceCents, compareAt: r.CompareAt,
			imageSrc: r.ImageSrc, thumbhash: r.Thumbhash,
		})
	}
	return out, nil
}

// setProducts orders the products by a made-up popularity.
func (g *ordGen) setProducts(products []ordProduct) {
	g.rng.Shuffle(len(products), func(i, j int) { products[i], products[j] = products[j], products[i] })
	g.products = products
	for i, p := range products {
		if p.archived {
			continue
		}
		if p.sock {
			g.socks = append(g.socks, i)
		}
		if p.baseLayer {
			g.bases = append(g.bases, i)
		}
	}
	start := g.localDay(g.now.Add(-41 * 24 * time.Hour))
	g.promo = [2]time.Time{start, start.AddDate(0, 0, 3)}
}

// want reports whether an order gets a feature: always the first time one
// may (so every seeded store has each of them), then with probability p.
func (g *ordGen) want(feature string, p float64) bool {
	if g.seen[feature] == 0 || g.rng.Float64() < p {
		g.seen[feature]++
		return true
	}
	return false
}

func (g *ordGen) dur(lo, hi time.Duration) time.Duration {
	return lo + time.Duration(g.rng.Int64N(int64(hi-lo)+1))
}

func (g *ordGen) weighted(weights ...float64) int {
	var sum float64
	for _, w := range weights {
		sum += w
	}
	r := g.rng.Float64() * sum
	for i, w := range weights {
		if r < w {
			return i
		}
		r -= w
	}
	return len(weights) - 1
}

func (g *ordGen) localDay(t time.Time) time.Time {
	l := t.In(g.loc)
	return time.Date(l.Year(), l.Month(), l.Day(), 0, 0, 0, 0, g.loc)
}

const ordAlnum = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"

func (g *ordGen) chars(alphabet string, n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = alphabet[g.rng.IntN(len(alphabet))]
	}
	return string(b)
}

func (g *ordGen) secs(lo, hi int) time.Duration {
	return time.Duration(lo+g.rng.IntN(hi-lo+1)) * time.Second
}

// settle plans the order's life after checkout: payment, cancellation,
// shipments, returns.
func (g *ordGen) settle(oo *ordOrder) {
	o := &oo.o
	if o.Source == "pos" {
		g.fulfil(oo, o.CreatedAt.Add(g.secs(120, 400)))
		g.afterShip(oo)
		return
	}
	if oo.cancel != nil {
		g.cancelSoon(oo)
		return
	}
	var ready time.Time // when it may ship; zero: not yet
	switch {
	case oo.cust != nil && oo.cust.wholesale:
		g.deposit(oo)
		return
	case o.Source == "draft_order":
		ready = g.invoice(oo)
	case oo.pay.method == "bank_transfer":
		ready = g.bankTransfer(oo)
	case oo.pay.auth:
		g.authorizeAndShip(oo)
		return
	default:
		ready = o.CreatedAt
	}
	if ready.IsZero() {
		return
	}
	if at := g.shipTime(ready); !at.After(g.now) {
		g.fulfil(oo, at)
		g.afterShip(oo)
	}
}
