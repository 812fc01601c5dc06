package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"time"

	"github.com/uptrace/bun"

	"storeadmin/internal/experiments"
	"storeadmin/models"
)

// poolVariantFile is a pool's arm as an operator writes it.
type poolVariantFile struct {
	Name     string `json:"name"`
	Payload  any    `json:"payload"`
	SplitPct int64  `json:"split_pct"`
}

// poolFile is a pooled test as an operator writes it (README "Pools"):
// store_floor, max_share and min_stores left out take the defaults.
type poolFile struct {
	Key        string            `json:"key"`
	Name       string            `json:"name"`
	Kind       string            `json:"kind"`
	Metric     string            `json:"metric"`
	Surface    any               `json:"surface"`
	Variants   []poolVariantFile `json:"variants"`
	StoreFloor *int64            `json:"store_floor"`
	MaxShare   *float64          `json:"max_share"`
	MinStores  *int64            `json:"min_stores"`
}

// poolCreate creates a pooled test, running from now, from a JSON file: its
// shape is checked as an experiment's without a store's records (a theme
// pool's settings are checked against each member's live theme when it
// joins).
func poolCreate(ctx context.Context, args []string, stdout io.Writer, log *slog.Logger) error {
	fs := flag.NewFlagSet("experiments pool create", flag.ContinueOnError)
	var db dbFlags
	db.register(fs)
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return errors.New("experiments pool create takes one FILE: the pool's JSON")
	}
	var f poolFile
	if err := readJSONFile(fs.Arg(0), &f); err != nil {
		return err
	}
	d := experiments.PoolDefinition{Key: f.Key, Name: f.Name, Kind: f.Kind, Metric: f.Metric, Surface: f.Surface,
		StoreFloor: f.StoreFloor, MaxShare: f.MaxShare, MinStores: f.MinStores}
	for _, v := range f.Variants {
		d.Arms = append(d.Arms, models.ExperimentArmSpec{Name: v.Name, Payload: v.Payload, SplitPct: v.SplitPct})
	}
	bdb, closeDB, err := db.openDB(ctx, log)
	if err != nil {
		return err
	}
	defer closeDB()
	var p *models.ExperimentPool
	err = bdb.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) (err error) {
		p, err = experiments.CreatePool(ctx, tx, d, time.Now())
		return err
	})
	if err != nil {
		return fmt.Errorf("%s: %v", fs.Arg(0), err)
	}
	fmt.Fprintf(stdout, "%s\t%s\t%d arms\n", p.Key, p.Status, len(d.Arms))
	return nil
}

// poolEnd ends a running pooled test and every member store's experiment
// of it.
func poolEnd(ctx context.Context, args []string, stdout io.Writer, log *slog.Logger) error {
	fs := flag.NewFlagSet("experiments pool end", flag.ContinueOnError)
	var db dbFlags
	db.register(fs)
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return errors.New("experiments pool end takes one KEY: the pool's")
	}
	bdb, closeDB, err := db.openDB(ctx, log)
	if err != nil {
		return err
	}
	defer closeDB()
	var ended int
	err = bdb.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) (err error) {
		ended, err = models.EndPool(ctx, tx, fs.Arg(0), time.Now())
		return err
	})
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "%s\tended\t%d member experiments ended\n", fs.Arg(0), ended)
	return nil
}
