// Command storeadmin is the one binary of the Store Admin API: it serves
// both surfaces, migrates the database, and administers stores, keys and
// demo data from the command line.
//
//	storeadmin serve [--addr 127.0.0.1:8080] [--demo]
//	storeadmin migrate
//	storeadmin stores create --handle H --name N
//	storeadmin keys create --store H --name N --role admin|staff|publishable [--scopes orders:read,...] [--expires-in 24h]
//	storeadmin keys list --store H
//	storeadmin keys revoke --store H --id N
//	storeadmin seed --store H
//	storeadmin bench-data --store H --products N --customers N --orders N
//	storeadmin events import --store H FILE.jsonl
//	storeadmin insights run --store H
//	storeadmin analytics check --store H [--from D] [--to D]
//	storeadmin analytics rebuild --store H
//	storeadmin market add FILE
//	storeadmin market release KEY FILE
//	storeadmin experiments pool create FILE
//	storeadmin experiments pool end KEY
//
// Every flag has an environment twin, named in its help text.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"syscall"
	_ "time/tzdata" // store time zones are checked against the IANA database, wherever the binary runs
)

const usage = `storeadmin: the Store Admin API.

Usage:
  storeadmin serve [--addr 127.0.0.1:8080] [--demo]   serve REST (/api/v1) and GraphQL (/graphql)
  storeadmin migrate                                  apply database migrations
  storeadmin stores create --handle H --name N        create a store
  storeadmin keys create --store H --name N --role admin|staff|publishable [--scopes s1,s2] [--expires-in 24h]
                                                      create an API key; prints the secret alone
  storeadmin keys list --store H                      list a store's keys
  storeadmin keys revoke --store H --id N             revoke a key
  storeadmin seed --store H                           fill a store with realistic demo data
  storeadmin bench-data --store H --products N --customers N --orders N
                                                      add many rows to a store through COPY, for benchmarks
  storeadmin events import --store H FILE.jsonl       store a file of storefront events (one JSON object a line), e.g. an analytics export
  storeadmin insights run --store H                   run the insights finders for the store's yesterday now, as the daily job does
  storeadmin analytics check --store H [--from D] [--to D]
                                                      compare the analytics rollups with the raw rows; exit 1 on a difference
  storeadmin analytics rebuild --store H              recompute the store's analytics rollups from the raw rows
  storeadmin market add FILE                          add a template to the theme market (JSON: its fields and first release)
  storeadmin market release KEY FILE                  add a template's next release (JSON: theme_version, settings_schema, default_settings)
  storeadmin experiments pool create FILE             create a pooled A/B test, running now (JSON: key, name, kind, metric, surface, variants, store_floor?, max_share?, min_stores?)
  storeadmin experiments pool end KEY                 end a pooled A/B test and every member store's experiment of it

Without DATABASE_URL an embedded PostgreSQL runs in --data-dir.
Run "storeadmin <command> --help" for a command's flags.
`

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	log, err := newLogger(stderr, os.Getenv(logFormatEnv))
	if err != nil {
		fmt.Fprintf(os.Stderr, "storeadmin: %s: %v\n", logFormatEnv, err)
		os.Exit(1)
	}
	err = run(ctx, os.Args[1:], os.Stdout, log)
	if errors.Is(err, flag.ErrHelp) {
		return
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "storeadmin:", err)
		os.Exit(1)
	}
}

// run dispatches a command line; stdout receives what a command prints for
// scripts (a key's secret, say), log everything else.
func run(ctx context.Context, args []string, stdout io.Writer, log *slog.Logger) error {
	if len(args) == 0 {
		fmt.Fprint(os.Stderr, usage)
		return errors.New("a command is required")
	}
	cmd, rest := args[0], args[1:]
	sub := ""
	if len(rest) > 0 && (cmd == "stores" || cmd == "keys" || cmd == "events" || cmd == "insights" || cmd == "analytics" || cmd == "market") {
		sub, rest = rest[0], rest[1:]
	}
	if cmd == "experiments" && len(rest) > 1 { // two words: experiments pool create|end
		sub, rest = rest[0]+" "+rest[1], rest[2:]
	}
	switch cmd + " " + sub {
	case "serve ":
		return serve(ctx, rest, stdout, log)
	case "migrate ":
		return migrate(ctx, rest, log)
	case "stores create":
		return storesCreate(ctx, rest, stdout, log)
	case "keys create":
		return keysCreate(ctx, rest, stdout, log)
	case "keys list":
		return keysList(ctx, rest, stdout, log)
	case "keys revoke":
		return keysRevoke(ctx, rest, stdout, log)
	case "seed ":
		return seedCmd(ctx, rest, stdout, log)
	case "bench-data ":
		return benchDataCmd(ctx, rest, stdout, log)
	case "events import":
		return eventsImport(ctx, rest, stdout, log)
	case "insights run":
		return insightsRun(ctx, rest, stdout, log)
	case "analytics check":
		return analyticsCheck(ctx, rest, stdout, log)
	case "analytics rebuild":
		return analyticsRebuild(ctx, rest, stdout, log)
	case "market add":
		return marketAdd(ctx, rest, stdout, log)
	case "market release":
		return marketRelease(ctx, rest, stdout, log)
	case "experiments pool create":
		return poolCreate(ctx, rest, stdout, log)
	case "experiments pool end":
		return poolEnd(ctx, rest, stdout, log)
	case "help ", "-h ", "--help ":
		fmt.Fprint(stdout, usage)
		return nil
	}
	fmt.Fprint(os.Stderr, usage)
	return fmt.Errorf("unknown command %q", (cmd + " " + sub))
}
