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

// insightsRun runs the insights finders for one store now, as the daily
// job does for its local yesterday (replacing that day's findings if the
// job computed it already), and prints what they found.
func insightsRun(ctx context.Context, args []string, stdout io.Writer, log *slog.Logger) error {
	fs := flag.NewFlagSet("insights run", flag.ContinueOnError)
	return storeCommand(ctx, fs, args, log, func(bdb *bun.DB, s *models.Store, _ *dbFlags) error {
		start := time.Now()
		run, err := analytics.ComputeInsights(ctx, bdb, s.ID, start)
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "insights of store %s for %s: %d findings, in %s\n", s.Handle, run.Day, run.Findings, time.Since(start).Round(time.Millisecond))
		found, err := analytics.Insights(ctx, bdb, s.ID)
		if err != nil {
			return err
		}
		for _, f := range found {
			fmt.Fprintf(stdout, "%s: %s\n", f.Kind, f.Headline)
		}
		return nil
	})
}
