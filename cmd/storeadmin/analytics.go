package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"time"

	"github.com/uptrace/bun"

	"storeadmin/internal/analytics"
	"storeadmin/models"
)

// analyticsRollups are the reports' rollups: each compares its tables with
// the raw rows over a span and recomputes them from the raw rows. A report
// that keeps rollups adds its line here.
var analyticsRollups = []struct {
	name    string
	check   func(ctx context.Context, db bun.IDB, storeID int64, span analytics.Span) ([]string, error)
	rebuild func(ctx context.Context, db bun.IDB, storeID int64) error
}{
	{"orders", analytics.CheckOrderRollups, analytics.RebuildOrderRollups},
	{"sales by product", analytics.CheckSalesRollups, analytics.RebuildSalesRollups},
	{"traffic", analytics.CheckTrafficRollups, analytics.RebuildTrafficRollups},
}

// analyticsCheck prints every difference between a store's rollups and
// its raw rows over the window (every slot when none is given) and fails
// when there is one.
func analyticsCheck(ctx context.Context, args []string, stdout io.Writer, log *slog.Logger) error {
	fs := flag.NewFlagSet("analytics check", flag.ContinueOnError)
	from := fs.String("from", "", "the first day to check (YYYY-MM-DD, in the store's time zone); default: the first order")
	to := fs.String("to", "", "the last day to check, included; default: the last")
	return storeCommand(ctx, fs, args, log, func(bdb *bun.DB, s *models.Store, _ *dbFlags) error {
		span, err := analyticsCheckSpan(s, *from, *to)
		if err != nil {
			return err
		}
		differences := 0
		for _, r := range analyticsRollups {
			diffs, err := r.check(ctx, bdb, s.ID, span)
			if err != nil {
				return fmt.Errorf("%s: %w", r.name, err)
			}
			for _, d := range diffs {
				fmt.Fprintf(stdout, "%s: %s\n", r.name, d)
			}
			differences += len(diffs)
			log.Info("rollups checked", "rollups", r.name, "differences", len(diffs))
		}
		if differences > 0 {
			return fmt.Errorf("%d differences between the rollups of store %s and its raw rows: storeadmin analytics rebuild --store %s recomputes them",
				differences, s.Handle, s.Handle)
		}
		fmt.Fprintf(stdout, "the rollups of store %s equal its raw rows\n", s.Handle)
		return nil
	})
}

// analyticsCheckSpan is the span of --from and --to, local days of the
// store.
func analyticsCheckSpan(s *models.Store, from, to string) (analytics.Span, error) {
	span := analytics.AllTime
	loc, err := time.LoadLocation(s.Timezone)
	if err != nil {
		loc = time.UTC
	}
	if from != "" {
		if span.From, err = time.ParseInLocation(time.DateOnly, from, loc); err != nil {
			return span, fmt.Errorf("--from must be a date such as 2026-11-01, not %q", from)
		}
	}
	if to != "" {
		day, err := time.ParseInLocation(time.DateOnly, to, loc)
		if err != nil {
			return span, fmt.Errorf("--to must be a date such as 2026-11-01, not %q", to)
		}
		span.To = day.AddDate(0, 0, 1)
	}
	if span.Empty() {
		return span, fmt.Errorf("--from must not be after --to")
	}
	return span, nil
}

// analyticsRebuild recomputes a store's rollups from its raw rows, in one
// transaction: readers see the old sums or the new, and writers of the
// store's orders wait.
func analyticsRebuild(ctx context.Context, args []string, stdout io.Writer, log *slog.Logger) error {
	fs := flag.NewFlagSet("analytics rebuild", flag.ContinueOnError)
	return storeCommand(ctx, fs, args, log, func(bdb *bun.DB, s *models.Store, _ *dbFlags) error {
		start := time.Now()
		err := bdb.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
			for _, r := range analyticsRollups {
				if err := r.rebuild(ctx, tx, s.ID); err != nil {
					return fmt.Errorf("%s: %w", r.name, err)
				}
			}
			return nil
		})
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "rebuilt the rollups of store %s in %s\n", s.Handle, time.Since(start).Round(time.Millisecond))
		return nil
	})
}
