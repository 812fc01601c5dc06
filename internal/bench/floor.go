// Package bench measures the service's four list reads of issue 13 (the
// GraphQL products and orders pages with their counts, and the REST product
// and order lists) next to a floor for each: a hand-written handler that
// serves the same rows in the same JSON with one pgx statement and
// encoding/json, over loopback HTTP like the service. What the service
// spends beyond its floor is what its machinery costs. The benchmark and
// the test that keeps each floor equal to the service's answer are in
// bench_test.go; see the README, "Benchmarks".
package bench

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"storeadmin/models"
)

// PageSize is the page every read asks for.
const PageSize = 50

// Floor paths: the REST reads at their own paths, the GraphQL ones at a
// path per read, since a floor answers one fixed query each.
const (
	FloorGraphQLProducts = "/graphql/products"
	FloorGraphQLOrders   = "/graphql/orders"
	FloorRESTProducts    = "/api/v1/store/products"
	FloorRESTOrders      = "/api/v1/store/orders"
)

// Floor serves the four reads of one store by hand. It checks no key and
// reads no parameters: it is the least a server can do to answer them.
type Floor struct {
	pool    *pgxpool.Pool
	storeID int64
	// statements counts the statements it ran, to show it runs one a read.
	statements atomic.Int64
}

// NewFloor serves store storeID's reads from pool.
func NewFloor(pool *pgxpool.Pool, storeID int64) *Floor {
	return &Floor{pool: pool, storeID: storeID}
}

// Statements is how many statements the floor has run.
func (f *Floor) Statements() int64 { return f.statements.Load() }

// Handler routes the floor's four paths.
func (f *Floor) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("POST "+FloorGraphQLProducts, f.serve(f.graphQLProducts))
	mux.HandleFunc("POST "+FloorGraphQLOrders, f.serve(f.graphQLOrders))
	mux.HandleFunc("GET "+FloorRESTProducts, f.serve(f.restProducts))
	mux.HandleFunc("GET "+FloorRESTOrders, f.serve(f.restOrders))
	return mux
}

// serve answers read's value as JSON. The request body is read, as the
// service must read its GraphQL query.
func (f *Floor) serve(read func(context.Context) (any, error)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body) //nolint:errcheck // a floor reads what it is sent and ignores it
		f.statements.Add(1)
		v, err := read(r.Context())
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(v) //nolint:errcheck // the client went away
	}
}

// graphQLProducts is { products(limit: 50) { id title handle variants { id
// sku price_cents inventory_quantity } } productsCount }.
func (f *Floor) graphQLProducts(ctx context.Context) (any, error) {
	type variant struct {
		ID                int64  `json:"id"`
		SKU               string `json:"sku"`
		PriceCents        int64  `json:"price_cents"`
		InventoryQuantity int64  `json:"inventory_quantity"`
	}
	type product struct {
		ID       int64     `json:"id"`
		Title    string    `json:"title"`
		Handle   string    `json:"handle"`
		Variants []variant `json:"variants"`
	}
	var data struct {
		Products []product `json:"products"`
		Count    int64     `json:"productsCount"`
	}
	data.Products = make([]product, 0, PageSize)
	rows, err := f.pool.Query(ctx, `
		SELECT p.id, p.title, p.handle, p.total, v.ids, v.skus, v.prices, v.stock
		FROM (SELECT id, title, handle, updated_at, count(*) OVER () AS total FROM products
		      WHERE store_id = $1 ORDER BY updated_at DESC, id DESC LIMIT $2) p
		LEFT JOIN LATERAL (
			SELECT array_agg(id ORDER BY position, id) AS ids, array_agg(sku ORDER BY position, id) AS skus,
			       array_agg(price_cents ORDER BY position, id) AS prices,
			       array_agg(inventory_quantity ORDER BY position, id) AS stock
			FROM product_variants WHERE product_id = p.id) v ON true
		ORDER BY p.updated_at DESC, p.id DESC`, f.storeID, PageSize)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var p product
		var ids, prices, stock []int64
		var skus []string
		if err := rows.Scan(&p.ID, &p.Title, &p.Handle, &data.Count, &ids, &skus, &prices, &stock); err != nil {
			return nil, err
		}
		p.Variants = make([]variant, len(ids))
		for i := range ids {
			p.Variants[i] = variant{ID: ids[i], SKU: skus[i], PriceCents: prices[i], InventoryQuantity: stock[i]}
		}
		data.Products = append(data.Products, p)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	return map[string]any{"data": data}, nil
}

// graphQLOrders is { orders(limit: 50) { id order_number status
// financial_status total_cents customer { id email } line_items { id
// quantity variant { id sku } } } ordersCount }.
func (f *Floor) graphQLOrders(ctx context.Context) (any, error) {
	type variant struct {
		ID  int64  `json:"id"`
		SKU string `json:"sku"`
	}
	type line struct {
		ID       int64    `json:"id"`
		Quantity int64    `json:"quantity"`
		Variant  *variant `json:"variant"`
	}
	type customer struct {
		ID    int64  `json:"id"`
		Email string `json:"email"`
	}
	type order struct {
		ID              int64     `json:"id"`
		OrderNumber     int64     `json:"order_number"`
		Status          string    `json:"status"`
		FinancialStatus string    `json:"financial_status"`
		TotalCents      int64     `json:"total_cents"`
		Customer        *customer `json:"customer"`
		LineItems       []line    `json:"line_items"`
	}
	var data struct {
		Orders []order `json:"orders"`
		Count  int64   `json:"ordersCount"`
	}
	data.Orders = make([]order, 0, PageSize)
	rows, err := f.pool.Query(ctx, `
		SELECT o.id, o.order_number, o.status, o.financial_status, o.total_cents, o.total,
		       c.id, c.email, l.ids, l.quantities, l.variant_ids, l.skus
		FROM (SELECT id, order_number, status, financial_status, total_cents, customer_id, created_at,
		             count(*) OVER () AS total
		      FROM orders WHERE store_id = $1 ORDER BY created_at DESC, id DESC LIMIT $2) o
		LEFT JOIN customers c ON c.id = o.customer_id
		LEFT JOIN LATERAL (
			SELECT array_agg(li.id ORDER BY li.position, li.id) AS ids,
			       array_agg(li.quantity ORDER BY li.position, li.id) AS quantities,
			       array_agg(v.id ORDER BY li.position, li.id) AS variant_ids,
			       array_agg(v.sku ORDER BY li.position, li.id) AS skus
			FROM order_line_items li LEFT JOIN product_variants v ON v.id = li.variant_id
			WHERE li.order_id = o.id) l ON true
		ORDER BY o.created_at DESC, o.id DESC`, f.storeID, PageSize)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var o order
		var customerID *int64
		var email *string
		var ids, quantities []int64
		var variantIDs []*int64
		var skus []*string
		if err := rows.Scan(&o.ID, &o.OrderNumber, &o.Status, &o.FinancialStatus, &o.TotalCents, &data.Count,
			&customerID, &email, &ids, &quantities, &variantIDs, &skus); err != nil {
			return nil, err
		}
		if customerID != nil {
			o.Customer = &customer{ID: *customerID, Email: *email}
		}
		o.LineItems = make([]line, len(ids))
		for i := range ids {
			o.LineItems[i] = line{ID: ids[i], Quantity: quantities[i]}
			if variantIDs[i] != nil {
				o.LineItems[i].Variant = &variant{ID: *variantIDs[i], SKU: *skus[i]}
			}
		}
		data.Orders = append(data.Orders, o)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	return map[string]any{"data": data}, nil
}

// restProducts is GET /api/v1/store/products?limit=50: the list view (the
// first image, the lowest variant price) and the total.
func (f *Floor) restProducts(ctx context.Context) (any, error) {
	type product struct {
		Handle      string    `json:"handle"`
		ID          int64     `json:"id"`
		ImageSrc    *string   `json:"image_src"`
		PriceCents  *int64    `json:"price_cents"`
		ProductType string    `json:"product_type"`
		RatingAvg   int64     `json:"rating_avg"`
		RatingCount int64     `json:"rating_count"`
		Status      string    `json:"status"`
		Tags        []string  `json:"tags"`
		Title       string    `json:"title"`
		UpdatedAt   time.Time `json:"updated_at"`
		Vendor      string    `json:"vendor"`
	}
	var page struct {
		Status     bool      `json:"status"`
		NextCursor *string   `json:"next_cursor"`
		Products   []product `json:"products"`
		Total      int64     `json:"total"`
	}
	page.Status, page.Products = true, make([]product, 0, PageSize)
	rows, err := f.pool.Query(ctx, `
		SELECT p.handle, p.id,
		       (SELECT src FROM product_images i WHERE i.product_id = p.id ORDER BY position, id LIMIT 1),
		       (SELECT min(price_cents) FROM product_variants v WHERE v.product_id = p.id),
		       p.product_type, p.rating_avg, p.rating_count, p.status, p.tags, p.title, p.updated_at, p.vendor, p.total
		FROM (SELECT *, count(*) OVER () AS total FROM products
		      WHERE store_id = $1 ORDER BY updated_at DESC, id DESC LIMIT $2) p
		ORDER BY p.updated_at DESC, p.id DESC`, f.storeID, PageSize+1)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var p product
		if err := rows.Scan(&p.Handle, &p.ID, &p.ImageSrc, &p.PriceCents, &p.ProductType, &p.RatingAvg,
			&p.RatingCount, &p.Status, &p.Tags, &p.Title, &p.UpdatedAt, &p.Vendor, &page.Total); err != nil {
			return nil, err
		}
		p.UpdatedAt = p.UpdatedAt.UTC()
		page.Products = append(page.Products, p)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	if len(page.Products) > PageSize {
		page.Products = page.Products[:PageSize]
		last := page.Products[PageSize-1]
		next, err := f.cursor("products", models.ProductFilter{}, last.UpdatedAt, last.ID)
		if err != nil {
			return nil, err
		}
		page.NextCursor = &next
	}
	return page, nil
}

// restOrders is GET /api/v1/store/orders?limit=50: the summary view and
// the total.
func (f *Floor) restOrders(ctx context.Context) (any, error) {
	type order struct {
		CreatedAt          time.Time `json:"created_at"`
		Currency           string    `json:"currency"`
		Email              string    `json:"email"`
		FinancialStatus    string    `json:"financial_status"`
		FulfillmentStatus  string    `json:"fulfillment_status"`
		ID                 int64     `json:"id"`
		OrderNumber        int64     `json:"order_number"`
		OrderNumberDisplay string    `json:"order_number_display"`
		Status             string    `json:"status"`
		SystemTags         []string  `json:"system_tags"`
		Tags               []string  `json:"tags"`
		TotalCents         int64     `json:"total_cents"`
	}
	var page struct {
		Status     bool    `json:"status"`
		NextCursor *string `json:"next_cursor"`
		Orders     []order `json:"orders"`
		Total      int64   `json:"total"`
	}
	page.Status, page.Orders = true, make([]order, 0, PageSize)
	rows, err := f.pool.Query(ctx, `
		SELECT created_at, currency, email, financial_status, fulfillment_status, id, order_number,
		       order_number_display, status, system_tags, tags, total_cents, count(*) OVER ()
		FROM orders WHERE store_id = $1 ORDER BY created_at DESC, id DESC LIMIT $2`, f.storeID, PageSize+1)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var o order
		if err := rows.Scan(&o.CreatedAt, &o.Currency, &o.Email, &o.FinancialStatus, &o.FulfillmentStatus, &o.ID,
			&o.OrderNumber, &o.OrderNumberDisplay, &o.Status, &o.SystemTags, &o.Tags, &o.TotalCents, &page.Total); err != nil {
			return nil, err
		}
		o.CreatedAt = o.CreatedAt.UTC()
		page.Orders = append(page.Orders, o)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	if len(page.Orders) > PageSize {
		page.Orders = page.Orders[:PageSize]
		last := page.Orders[PageSize-1]
		next, err := f.cursor("orders", models.OrderFilter{}, last.CreatedAt, last.ID)
		if err != nil {
			return nil, err
		}
		page.NextCursor = &next
	}
	return page, nil
}

// cursor is the next_cursor of a first page of list (unfiltered, in its
// default sort) whose last row has the sort keys keys: the list reads one
// row more than its page to know there is a next one, as the service does.
func (f *Floor) cursor(list string, filter any, keys ...any) (string, error) {
	scope, err := models.PageScope(list, f.storeID, filter)
	if err != nil {
		return "", err
	}
	return models.EncodeCursor(keys, scope)
}
