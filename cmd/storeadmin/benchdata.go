package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"time"

	"github.com/uptrace/bun"

	"storeadmin/internal/app/benchdata"
	"storeadmin/models"
)

// benchDataCmd fills a store with many rows through COPY, for benchmarks
// and for trying the service at scale (internal/app/benchdata).
func benchDataCmd(ctx context.Context, args []string, stdout io.Writer, log *slog.Logger) error {
	fs := flag.NewFlagSet("bench-data", flag.ContinueOnError)
	var n benchdata.Sizes
	fs.IntVar(&n.Products, "products", 0, "products to add, each with three variants and an image")
	fs.IntVar(&n.Customers, "customers", 0, "customers to add")
	fs.IntVar(&n.Orders, "orders", 0, "orders to add, of 1-4 lines of the products added, bought by the customers added")
	fs.IntVar(&n.Sessions, "sessions", 0, "storefront sessions to add, of returning visitors and bots, a fifth of the store's orders bought in them")
	return storeCommand(ctx, fs, args, log, func(bdb *bun.DB, s *models.Store, _ *dbFlags) error {
		start := time.Now()
		if err := benchdata.Fill(ctx, bdb, s.ID, n, start, log); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "filled store %s with %d products, %d customers, %d orders and %d sessions in %s\n",
			s.Handle, n.Products, n.Customers, n.Orders, n.Sessions, time.Since(start).Round(time.Millisecond))
		return nil
	})
}
