package models

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/uptrace/bun"

	"storeadmin/internal/base/apperr"
)

// MarketTemplate is a template of the theme market, the same for every
// store, with its latest release and whether the store reading it owns it.
type MarketTemplate struct {
	bun.BaseModel `bun:"table:market_templates,alias:mt"`

	Key string `bun:"key,pk" json:"key"`
	// ID is the template's number, which the graph's loaders batch on;
	// the API names templates by key.
	ID            int64     `bun:"id,autoincrement" json:"-"`
	Family        string    `bun:"family" json:"family"`
	Name          string    `bun:"name" json:"name"`
	Author        string    `bun:"author" json:"author"`
	Category      string    `bun:"category" json:"category"`
	Tagline       string    `bun:"tagline" json:"tagline"`
	Description   string    `bun:"description" json:"description"`
	PriceCents    int64     `bun:"price_cents" json:"price_cents"`
	Currency      string    `bun:"currency" json:"currency"`
	PreviewImages any       `bun:"preview_images,type:jsonb" json:"preview_images"`
	ThumbnailURL  string    `bun:"thumbnail_url" json:"thumbnail_url"`
	CreatedAt     time.Time `bun:"created_at,nullzero,default:now()" json:"-"`
	// The latest release's number and label, and ownership by the reading
	// store: computed by the query that reads the template.
	LatestVersion int64  `bun:"latest_version,scanonly" json:"latest_version"`
	ThemeVersion  string `bun:"theme_version,scanonly" json:"theme_version"`
	Owned         bool   `bun:"owned,scanonly" json:"owned"`
}

// MarketTemplateRelease is a released version of a template: immutable
// (the database refuses updates).
type MarketTemplateRelease struct {
	bun.BaseModel `bun:"table:market_template_versions,alias:mtv"`

	TemplateKey     string    `bun:"template_key,pk" json:"template_key"`
	Version         int64     `bun:"version,pk" json:"version"`
	ThemeVersion    string    `bun:"theme_version" json:"theme_version"`
	SettingsSchema  any       `bun:"settings_schema,type:jsonb" json:"settings_schema"`
	DefaultSettings any       `bun:"default_settings,type:jsonb" json:"default_settings"`
	ReleasedAt      time.Time `bun:"released_at,nullzero,default:now()" json:"released_at"`
	// TemplateID is its template's number, read by the graph's loader.
	TemplateID int64 `bun:"template_id,scanonly" json:"-"`
}

// selectMarketTemplates reads templates with their latest release and
// whether storeID owns them.
func selectMarketTemplates(db bun.IDB, storeID int64, out any) *bun.SelectQuery {
	return db.NewSelect().Model(out).ColumnExpr("mt.*").
		ColumnExpr("lv.version AS latest_version, lv.theme_version").
		ColumnExpr("EXISTS (SELECT 1 FROM store_templates AS st WHERE st.store_id = ? AND st.template_key = mt.key) AS owned", storeID).
		Join(`JOIN LATERAL (SELECT v.version, v.theme_version FROM market_template_versions AS v
			WHERE v.template_key = mt.key ORDER BY v.version DESC LIMIT 1) AS lv ON true`)
}

// ListMarketTemplates lists the market's templates by family, name and
// key, as storeID sees them (owned or not). The market is small and the
// same for everyone: it is not paged.
func ListMarketTemplates(ctx context.Context, db bun.IDB, storeID int64) ([]MarketTemplate, error) {
	out := []MarketTemplate{}
	err := selectMarketTemplates(db, storeID, &out).Order("mt.family", "mt.name", "mt.key").Scan(ctx)
	return out, err
}

// GetMarketTemplate reads one template of the market by its key.
func GetMarketTemplate(ctx context.Context, db bun.IDB, storeID int64, key string) (*MarketTemplate, error) {
	t := new(MarketTemplate)
	err := selectMarketTemplates(db, storeID, t).Where("mt.key = ?", key).Scan(ctx)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, apperr.NotFoundf("the theme market has no template %q", key)
	}
	return t, err
}

// InstallMarketTemplate installs a template's latest release for a store:
// a new theme named after the template whose draft is the release's
// default settings, with the template and release as its source. A free
// template becomes the store's own on install; a paid one is installed
// only when the store owns it already (there is no payment flow: ownership
// is recorded by an operator or the seed, OwnMarketTemplate). Run it in a
// transaction.
func InstallMarketTemplate(ctx context.Context, tx bun.IDB, storeID int64, key string) (themeID int64, err error) {
	t, release, err := TemplateReleaseForStore(ctx, tx, storeID, key)
	if err != nil {
		return 0, err
	}
	if err := OwnMarketTemplate(ctx, tx, storeID, key); err != nil {
		return 0, err
	}
	return CreateTheme(ctx, tx, storeID, t.Name, release, nil, true)
}

// OwnMarketTemplate records that a store owns a template (again: no-op).
func OwnMarketTemplate(ctx context.Context, db bun.IDB, storeID int64, key string) error {
	_, err := db.NewRaw(`INSERT INTO store_templates (store_id, template_key) VALUES (?, ?)
		ON CONFLICT (store_id, template_key) DO NOTHING`, storeID, key).Exec(ctx)
	return classify(err, "the template")
}

// formatCents writes an amount of cents as units with two decimals.
func formatCents(c int64) string { return fmt.Sprintf("%d.%02d", c/100, c%100) }

// AddMarketTemplate adds a template to the market with its first release
// (version 1). The caller has checked the release's schema and defaults.
func AddMarketTemplate(ctx context.Context, db bun.IDB, t *MarketTemplate, first *MarketTemplateRelease) error {
	if !themeVersionLabel(first.ThemeVersion) {
		return apperr.Invalidf("theme_version must be a version such as 2.1.0, not %q", first.ThemeVersion)
	}
	return db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		if _, err := tx.NewInsert().Model(t).Exec(ctx); err != nil {
			return classify(err, fmt.Sprintf("the template %q", t.Key))
		}
		first.TemplateKey, first.Version = t.Key, 1
		_, err := tx.NewInsert().Model(first).Exec(ctx)
		return classify(err, "the release")
	})
}

// ReleaseMarketTemplate adds the next release of a template: its number
// follows the latest, and its label must be above the latest's ("1.10.0"
// after "1.9.2"), so the market's order of releases is the authors' too.
// The caller has checked the release's schema and defaults.
func ReleaseMarketTemplate(ctx context.Context, db bun.IDB, v *MarketTemplateRelease) error {
	if !themeVersionLabel(v.ThemeVersion) {
		return apperr.Invalidf("theme_version must be a version such as 2.1.0, not %q", v.ThemeVersion)
	}
	return db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		// The template's row is the lock two releases of it queue on.
		var latest MarketTemplateRelease
		err := tx.NewRaw(`SELECT v.version, v.theme_version FROM market_templates AS t
			JOIN market_template_versions AS v ON v.template_key = t.key
			WHERE t.key = ? ORDER BY v.version DESC LIMIT 1 FOR UPDATE OF t`, v.TemplateKey).Scan(ctx, &latest.Version, &latest.ThemeVersion)
		if errors.Is(err, sql.ErrNoRows) {
			return apperr.NotFoundf("the theme market has no template %q", v.TemplateKey)
		}
		if err != nil {
			return err
		}
		if !labelAbove(v.ThemeVersion, latest.ThemeVersion) {
			return apperr.Conflictf("theme_version %s must be above the latest release of %q, %s", v.ThemeVersion, v.TemplateKey, latest.ThemeVersion)
		}
		v.Version = latest.Version + 1
		_, err = tx.NewInsert().Model(v).Exec(ctx)
		return classify(err, "the release")
	})
}

// themeVersionLabel tells a release label: three whole numbers and dots.
func themeVersionLabel(s string) bool {
	parts := strings.Split(s, ".")
	if len(parts) != 3 {
		return false
	}
	for _, p := range parts {
		if _, err := strconv.ParseUint(p, 10, 31); err != nil || p == "" || p[0] == '+' {
			return false
		}
	}
	return true
}

// labelAbove compares two release labels number by number.
func labelAbove(a, b string) bool {
	pa, pb := strings.Split(a, "."), strings.Split(b, ".")
	for i := range pa {
		x, _ := strconv.Atoi(pa[i])
		y, _ := strconv.Atoi(pb[i])
		if x != y {
			return x > y
		}
	}
	return false
}

// GetTemplateRelease reads one release of a template.
func GetTemplateRelease(ctx context.Context, db bun.IDB, key string, version int64) (*MarketTemplateRelease, error) {
	v := new(MarketTemplateRelease)
	err := db.NewSelect().Model(v).Where("template_key = ? AND version = ?", key, version).Scan(ctx)
	return v, classify(err, "the template release")
}

// MarketTemplatesByID loads templates by number, as storeID sees them
// (owned or not), for a dataloader (a theme's template).
func MarketTemplatesByID(ctx context.Context, db bun.IDB, storeID int64, ids []int64, _ Columns) ([]MarketTemplate, error) {
	out := make([]MarketTemplate, 0, len(ids)) // at most one row per id
	err := scanRows(ctx, db, selectMarketTemplates(db, storeID, &out).Where("mt.id IN (?)", bun.List(ids)), &out)
	return out, err
}

// ReleasesByTemplate loads the releases of templates by the templates'
// numbers, newest first, for a dataloader: the market is the same for
// every store, so storeID reads nothing.
func ReleasesByTemplate(ctx context.Context, db bun.IDB, _ int64, ids []int64, _ Columns) ([]MarketTemplateRelease, error) {
	out := manyRows[MarketTemplateRelease](len(ids))
	err := scanRows(ctx, db, db.NewSelect().Model(&out).ColumnExpr("mtv.*, mt.id AS template_id").
		Join("JOIN market_templates AS mt ON mt.key = mtv.template_key").
		Where("mt.id IN (?)", bun.List(ids)).Order("mt.id", "mtv.version DESC"), &out)
	return out, err
}
