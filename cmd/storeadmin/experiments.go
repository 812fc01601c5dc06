package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"regexp"
	"strings"
	"time"

	"github.com/uptrace/bun"

	"storeadmin/models"
)

// poolKey is the form of a pool's key (the table's CHECK).
var poolKey = regexp.MustCompile(`^[a-z][a-z0-9-]{1,62}$`)

// poolVariantFile is a pool's arm as an operator writes it.
type poolVariantFile struct {
	Name     string `json:"name"`
	Payload  any    `json:"payload"`
	SplitPct int64  `json:"split_pct"`
}

// poolFile is a pooled test as an operator writes it (README "Pools"):
// store_floor, max_share and min_stores left out take the database's
// defaults.
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
	if !poolKey.MatchString(f.Key) {
		return fmt.Errorf("%s: key must be 2 to 63 lower-case letters, digits and dashes, starting with a letter, not %q", fs.Arg(0), f.Key)
	}
	if strings.TrimSpace(f.Name) == "" {
		return fmt.Errorf("%s: name is required", fs.Arg(0))
	}
	arms := make([]models.ExperimentArmSpec, len(f.Variants))
	for i, v := range f.Variants {
		arms[i] = models.ExperimentArmSpec{Name: strings.TrimSpace(v.Name), Payload: v.Payload, SplitPct: v.SplitPct}
	}
	sh, err := models.CheckExperimentShape(f.Kind, f.Metric, f.Surface, arms, true)
	if err != nil {
		return fmt.Errorf("%s: %v", fs.Arg(0), err)
	}
	p := &models.ExperimentPool{Key: f.Key, Name: strings.TrimSpace(f.Name), StoreFloor: 100, MaxShare: 0.25, MinStores: 5}
	if f.StoreFloor != nil {
		p.StoreFloor = *f.StoreFloor
	}
	if f.MaxShare != nil {
		p.MaxShare = *f.MaxShare
	}
	if f.MinStores != nil {
		p.MinStores = *f.MinStores
	}
	switch {
	case p.StoreFloor < 0:
		return fmt.Errorf("%s: store_floor must be 0 or more", fs.Arg(0))
	case !(p.MaxShare > 0 && p.MaxShare <= 1):
		return fmt.Errorf("%s: max_share must be above 0 and at most 1", fs.Arg(0))
	case p.MinStores < 1:
		return fmt.Errorf("%s: min_stores must be 1 or more", fs.Arg(0))
	}
	bdb, closeDB, err := db.openDB(ctx, log)
	if err != nil {
		return err
	}
	defer closeDB()
	if err := bdb.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error { return models.CreatePool(ctx, tx, p, sh) }); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "%s\t%s\t%d arms\n", p.Key, p.Status, len(arms))
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
