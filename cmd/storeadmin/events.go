package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"time"

	"github.com/uptrace/bun"

	"storeadmin/internal/base/geoip"
	"storeadmin/internal/storefront"
	"storeadmin/models"
)

// eventsImport stores a JSON Lines file of storefront events in a store
// (storefront.Import): a backfill from an analytics export.
func eventsImport(ctx context.Context, args []string, stdout io.Writer, log *slog.Logger) error {
	fs := flag.NewFlagSet("events import", flag.ContinueOnError)
	var sf storefrontFlags
	sf.register(fs)
	return storeCommand(ctx, fs, args, log, func(bdb *bun.DB, s *models.Store, _ *dbFlags) error {
		if fs.NArg() != 1 {
			return errors.New("name one file of events, one JSON object a line: storeadmin events import --store H FILE.jsonl")
		}
		f, err := os.Open(fs.Arg(0))
		if err != nil {
			return err
		}
		defer f.Close()
		policy, err := storefront.ParseIPPolicy(sf.ipPolicy)
		if err != nil {
			return fmt.Errorf("--storefront-ip: %w", err)
		}
		geo, err := geoip.Open(sf.geoIPDB)
		if err != nil {
			return err
		}
		defer geo.Close()
		start := time.Now()
		rep, err := storefront.Import(ctx, bdb, s.ID, f, storefront.ImportConfig{GeoIP: geo, IPPolicy: policy, Now: start})
		for _, b := range rep.BadLines {
			fmt.Fprintf(stdout, "line %d skipped: %s\n", b.Line, b.Problem)
		}
		if more := rep.Skipped - len(rep.BadLines); more > 0 {
			fmt.Fprintf(stdout, "... and %d more bad lines skipped\n", more)
		}
		if err != nil {
			return fmt.Errorf("import stopped after %d stored events: %w", rep.Stored, err)
		}
		fmt.Fprintf(stdout, "imported into store %s: %d lines, %d events stored, %d duplicates, %d bad lines skipped, %d new sessions, in %s\n",
			s.Handle, rep.Lines, rep.Stored, rep.Duplicates, rep.Skipped, rep.NewSessions, time.Since(start).Round(time.Millisecond))
		return nil
	})
}

// storefrontFlags are what the storefront surface and the import share:
// the GeoIP database and the IP policy.
type storefrontFlags struct {
	geoIPDB  string
	ipPolicy string
}

func (f *storefrontFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.geoIPDB, "geoip-db", os.Getenv("STOREADMIN_GEOIP_DB"),
		"a MaxMind-format city database (GeoLite2-City.mmdb) resolving shoppers' addresses to places, and with its coordinates putting them on the live view's map; default: none, places stay empty (env STOREADMIN_GEOIP_DB)")
	fs.StringVar(&f.ipPolicy, "storefront-ip", envOr("STOREADMIN_STOREFRONT_IP", string(storefront.IPTruncated)),
		"how much of a shopper's address sessions keep: full, truncated (/24, /48) or none (env STOREADMIN_STOREFRONT_IP)")
}
