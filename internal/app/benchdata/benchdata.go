// Package benchdata fills an existing store with many realistic rows at
// once, for benchmarks and for trying the service on a large store: products
// with three variants and an image, customers, and orders of one to four
// lines with their payments, shipments, refunds, cancellations and
// timelines, spread over two years.
//
// It writes through PostgreSQL COPY (pgx CopyFrom on the pool's underlying
// connection), which is what makes a million orders take minutes: the seed
// and the API write through models, a statement per batch, which is right
// for their sizes and far too slow for this one. What COPY skips, the rows
// still keep: the order numbers are taken from the store's counter as
// placing an order takes them, and each order's financial and fulfilment
// statuses are derived from its transactions and lines by the domain's own
// rules (models.FinancialStatus, models.FulfillmentStatus), so every order
// reads back as if the API had placed and handled it.
//
// Everything is written in one transaction: a failure leaves the store as
// it was. ANALYZE follows, so the planner knows the new sizes at once.
// Connected as a superuser, the fill skips the foreign-key checks of its
// own rows (see fill).
package benchdata

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"
	"github.com/uptrace/bun"
)

// Sizes is how many rows of each kind to add.
type Sizes struct {
	Products  int // each with three variants (sizes S, M, L) and one image
	Customers int
	Orders    int // each of one to four lines of the products added
	Sessions  int // storefront sessions (sessions.go), a fifth of the store's orders bought in them
}

// Span is how far back the orders go: their created_at spreads over the
// two years before now, more of them recently, as a growing store's do.
const Span = 2 * 365 * 24 * time.Hour

// batchOrders is how many orders are generated and copied at a time: enough
// for COPY to stream, few enough to keep memory flat at any size.
const batchOrders = 20_000

// Check refuses sizes that cannot be filled: negative ones, and orders
// without the products and customers they need.
func (n Sizes) Check() error {
	switch {
	case n.Products < 0 || n.Customers < 0 || n.Orders < 0 || n.Sessions < 0:
		return errors.New("sizes must not be negative")
	case n.Orders > 0 && n.Products == 0:
		return errors.New("orders need products to sell: --products must be at least 1")
	case n.Orders > 0 && n.Customers == 0:
		return errors.New("orders need customers to buy: --customers must be at least 1")
	}
	return nil
}

// Fill adds n's rows to the store storeID, as of now, and vacuums and
// analyzes the tables it wrote. log, when not nil, hears of each step.
func Fill(ctx context.Context, db *bun.DB, storeID int64, n Sizes, now time.Time, log *slog.Logger) error {
	if err := n.Check(); err != nil {
		return err
	}
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	conn, err := db.DB.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	return conn.Raw(func(dc any) error {
		pc := dc.(*stdlib.Conn).Conn()
		if err := fill(ctx, pc, storeID, n, now.UTC(), log); err != nil {
			return err
		}
		// VACUUM (ANALYZE), as autovacuum leaves a store at rest: the
		// planner's statistics, and the pages marked all-visible that the
		// reports' index-only reads need (without it the 90-day overview of
		// a million orders read the orders' heap: 884 ms against 377 ms).
		start := time.Now()
		for _, t := range tables {
			if _, err := pc.Exec(ctx, "VACUUM (ANALYZE) "+t); err != nil {
				return fmt.Errorf("vacuum %s: %w", t, err)
			}
		}
		log.Info("vacuumed and analyzed", "took", time.Since(start).Round(time.Millisecond))
		return nil
	})
}

// tables are those Fill writes, in the order their rows must be copied,
// then the rollups their triggers keep (a report summing a never-analysed
// rollup was planned for 4 rows and sorted 400,000 on disk).
var tables = []string{"products", "product_images", "product_variants", "customers", "orders",
	"order_line_items", "refunds", "order_transactions", "refund_line_items", "fulfillments",
	"fulfillment_items", "order_events", "visitors", "storefront_sessions", "storefront_events",
	"analytics_order_slots", "analytics_source_slots", "analytics_discount_slots", "analytics_product_slots",
	"analytics_product_months", "analytics_customer_orders", "product_sales_slots", "traffic_slots", "traffic_landing_slots"}

// fill writes everything in one transaction on c.
func fill(ctx context.Context, c *pgx.Conn, storeID int64, n Sizes, now time.Time, log *slog.Logger) error {
	tx, err := c.Begin(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback(ctx) //nolint:errcheck // after Commit it does nothing
	// Every reference the fill writes is to a row it copies before, or to
	// the store it checks below, so the foreign-key triggers would only
	// look up what was just written: more than half the time of a large
	// fill. A superuser may skip them for this transaction, as pg_restore
	// --disable-triggers does; anyone else's rows are checked as usual.
	var superuser string
	if err := tx.QueryRow(ctx, "SHOW is_superuser").Scan(&superuser); err != nil {
		return err
	}
	if superuser == "on" {
		if _, err := tx.Exec(ctx, "SET LOCAL session_replication_role = replica"); err != nil {
			return err
		}
	}
	w := &writer{tx: tx, storeID: storeID, unchecked: superuser == "on"}
	if err := tx.QueryRow(ctx, "SELECT currency FROM stores WHERE id = $1", storeID).Scan(&w.currency); err != nil {
		if errors.Is(err, pgx.ErrNoRows) {
			return fmt.Errorf("store %d does not exist", storeID)
		}
		return err
	}
	rng := rand.New(rand.NewPCG(uint64(storeID), 13))
	start := time.Now()
	cat, err := w.catalogue(ctx, rng, n.Products, now)
	if err != nil {
		return fmt.Errorf("products: %w", err)
	}
	log.Info("products copied", "products", n.Products, "variants", len(cat.variants), "took", time.Since(start).Round(time.Millisecond))
	if n.Orders > 0 || n.Customers > 0 {
		if err := w.customersAndOrders(ctx, rng, n, cat, now, log); err != nil {
			return err
		}
	}
	if n.Sessions > 0 {
		start = time.Now()
		if err := w.sessions(ctx, rng, n.Sessions, now, log); err != nil {
			return fmt.Errorf("sessions: %w", err)
		}
		log.Info("sessions copied", "sessions", n.Sessions, "took", time.Since(start).Round(time.Millisecond))
	}
	return tx.Commit(ctx)
}

// customersAndOrders copies n's customers and their orders.
func (w *writer) customersAndOrders(ctx context.Context, rng *rand.Rand, n Sizes, cat catalogue, now time.Time, log *slog.Logger) error {
	start := time.Now()
	plan := planOrders(rng, n, now)
	customerIDs, err := w.customers(ctx, rng, n.Customers, plan, now)
	if err != nil {
		return fmt.Errorf("customers: %w", err)
	}
	log.Info("customers copied", "customers", n.Customers, "took", time.Since(start).Round(time.Millisecond))
	start = time.Now()
	if err := w.orders(ctx, rng, plan, cat, customerIDs, now, log); err != nil {
		return fmt.Errorf("orders: %w", err)
	}
	log.Info("orders copied", "orders", n.Orders, "took", time.Since(start).Round(time.Millisecond))
	return nil
}

// writer copies rows of one store inside one transaction.
type writer struct {
	tx       pgx.Tx
	storeID  int64
	currency string
	// unchecked: the foreign keys are not checked (the replica role), so
	// rows may be copied before those they refer to.
	unchecked bool
}

// ids reserves n ids of table's sequence, in ascending order, so rows can
// refer to each other before they are copied.
func (w *writer) ids(ctx context.Context, table string, n int) ([]int64, error) {
	if n == 0 {
		return nil, nil
	}
	rows, err := w.tx.Query(ctx, "SELECT nextval(pg_get_serial_sequence($1, 'id')) AS id FROM generate_series(1, $2) ORDER BY id", table, n)
	if err != nil {
		return nil, err
	}
	ids, err := pgx.CollectRows(rows, pgx.RowTo[int64])
	if err != nil {
		return nil, fmt.Errorf("ids of %s: %w", table, err)
	}
	return ids, nil
}

// copy writes rows into table's columns with COPY.
func (w *writer) copy(ctx context.Context, table string, columns []string, rows [][]any) error {
	if len(rows) == 0 {
		return nil
	}
	if _, err := w.tx.CopyFrom(ctx, pgx.Identifier{table}, columns, pgx.CopyFromRows(rows)); err != nil {
		return fmt.Errorf("copy %s: %w", table, err)
	}
	return nil
}

// pick returns one of items at random.
func pick[T any](rng *rand.Rand, items []T) T { return items[rng.IntN(len(items))] }

// weighted returns an index of weights, chosen in proportion to them.
func weighted(rng *rand.Rand, weights []float64) int {
	var sum float64
	for _, w := range weights {
		sum += w
	}
	r := rng.Float64() * sum
	for i, w := range weights {
		if r < w {
			return i
		}
		r -= w
	}
	return len(weights) - 1
}

// between is a time between a and b, at random.
func between(rng *rand.Rand, a, b time.Time) time.Time {
	if !b.After(a) {
		return a
	}
	return a.Add(time.Duration(rng.Int64N(int64(b.Sub(a)))))
}
