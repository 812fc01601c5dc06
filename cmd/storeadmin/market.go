package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"

	"storeadmin/internal/themesettings"
	"storeadmin/models"
)

// releaseFile is a template release as an operator writes it: the label,
// the settings schema (internal/themesettings' subset) and the default
// settings, which must pass it.
type releaseFile struct {
	ThemeVersion    string          `json:"theme_version"`
	SettingsSchema  json.RawMessage `json:"settings_schema"`
	DefaultSettings json.RawMessage `json:"default_settings"`
}

// templateFile is a new template as an operator writes it: the market's
// fields and its first release.
type templateFile struct {
	Key           string   `json:"key"`
	Family        string   `json:"family"`
	Name          string   `json:"name"`
	Author        string   `json:"author"`
	Category      string   `json:"category"`
	Tagline       string   `json:"tagline"`
	Description   string   `json:"description"`
	PriceCents    int64    `json:"price_cents"`
	Currency      string   `json:"currency"`
	PreviewImages []string `json:"preview_images"`
	ThumbnailURL  string   `json:"thumbnail_url"`
	releaseFile
}

// marketAdd adds a template to the theme market from a JSON file.
func marketAdd(ctx context.Context, args []string, stdout io.Writer, log *slog.Logger) error {
	fs := flag.NewFlagSet("market add", flag.ContinueOnError)
	var db dbFlags
	db.register(fs)
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return errors.New("market add takes one FILE: the template's JSON")
	}
	var f templateFile
	if err := readJSONFile(fs.Arg(0), &f); err != nil {
		return err
	}
	for _, r := range []struct{ name, v string }{
		{"key", f.Key}, {"family", f.Family}, {"name", f.Name}, {"author", f.Author}, {"category", f.Category},
		{"tagline", f.Tagline}, {"description", f.Description}, {"currency", f.Currency}, {"thumbnail_url", f.ThumbnailURL},
	} {
		if strings.TrimSpace(r.v) == "" {
			return fmt.Errorf("%s: %s is required", fs.Arg(0), r.name)
		}
	}
	if f.PreviewImages == nil {
		f.PreviewImages = []string{}
	}
	release, err := checkRelease(fs.Arg(0), &f.releaseFile)
	if err != nil {
		return err
	}
	bdb, closeDB, err := db.openDB(ctx, log)
	if err != nil {
		return err
	}
	defer closeDB()
	t := &models.MarketTemplate{Key: f.Key, Family: f.Family, Name: f.Name, Author: f.Author, Category: f.Category,
		Tagline: f.Tagline, Description: f.Description, PriceCents: f.PriceCents, Currency: f.Currency,
		PreviewImages: f.PreviewImages, ThumbnailURL: f.ThumbnailURL}
	if err := models.AddMarketTemplate(ctx, bdb, t, release); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "%s\t1\t%s\n", t.Key, release.ThemeVersion)
	return nil
}

// marketRelease adds the next release of a market template from a JSON
// file.
func marketRelease(ctx context.Context, args []string, stdout io.Writer, log *slog.Logger) error {
	fs := flag.NewFlagSet("market release", flag.ContinueOnError)
	var db dbFlags
	db.register(fs)
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() != 2 {
		return errors.New("market release takes a template's KEY and a FILE: the release's JSON")
	}
	var f releaseFile
	if err := readJSONFile(fs.Arg(1), &f); err != nil {
		return err
	}
	release, err := checkRelease(fs.Arg(1), &f)
	if err != nil {
		return err
	}
	release.TemplateKey = fs.Arg(0)
	bdb, closeDB, err := db.openDB(ctx, log)
	if err != nil {
		return err
	}
	defer closeDB()
	if err := models.ReleaseMarketTemplate(ctx, bdb, release); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "%s\t%d\t%s\n", release.TemplateKey, release.Version, release.ThemeVersion)
	return nil
}

// readJSONFile reads one JSON object from path into v, refusing fields v
// does not have: a misspelt field would otherwise be lost silently.
func readJSONFile(path string, v any) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return fmt.Errorf("%s: %v", path, err)
	}
	if dec.More() {
		return fmt.Errorf("%s: more than one JSON value", path)
	}
	return nil
}

// checkRelease checks a release's schema and that its defaults pass it,
// and returns it ready to store.
func checkRelease(path string, f *releaseFile) (*models.MarketTemplateRelease, error) {
	if len(f.SettingsSchema) == 0 || len(f.DefaultSettings) == 0 {
		return nil, fmt.Errorf("%s: settings_schema and default_settings are required", path)
	}
	schema, err := themesettings.Parse(f.SettingsSchema)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	if err := schema.Validate("default_settings", f.DefaultSettings); err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	// Stored as written: the numbers exactly, no round trip through float64.
	return &models.MarketTemplateRelease{ThemeVersion: f.ThemeVersion, SettingsSchema: f.SettingsSchema, DefaultSettings: f.DefaultSettings}, nil
}
