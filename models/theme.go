package models

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/uptrace/bun"

	"storeadmin/internal/base/apperr"
)

// Theme is a theme of a store: a draft that follows the settings schema of
// one market template release (BaseKey, TemplateVersion), kept for life.
type Theme struct {
	bun.BaseModel `bun:"table:themes,alias:th"`

	ID                 int64     `bun:"id,pk,autoincrement" json:"id"`
	StoreID            int64     `bun:"store_id" json:"-"`
	Name               string    `bun:"name" json:"name"`
	BaseKey            string    `bun:"base_key" json:"base_key"`
	TemplateVersion    int64     `bun:"template_version" json:"-"`
	DraftSettings      any       `bun:"draft_settings,type:jsonb" json:"draft_settings"`
	SourceTemplateKey  *string   `bun:"source_template_key" json:"source_template_key"`
	SourceThemeVersion *string   `bun:"source_theme_version" json:"source_theme_version"`
	CreatedAt          time.Time `bun:"created_at,nullzero,default:now()" json:"-"`
	UpdatedAt          time.Time `bun:"updated_at,nullzero,default:now()" json:"updated_at"`
	// Computed by the query that reads the theme: whether it is live, its
	// template's thumbnail and number, and its source template's latest
	// release.
	Live               bool    `bun:"live,scanonly" json:"live"`
	ThumbnailURL       *string `bun:"thumbnail_url,scanonly" json:"thumbnail_url"`
	TemplateID         int64   `bun:"template_id,scanonly" json:"-"`
	LatestThemeVersion *string `bun:"latest_theme_version,scanonly" json:"latest_theme_version"`
	UpdateAvailable    *bool   `bun:"update_available,scanonly" json:"update_available"`
}

// selectThemes reads a store's themes with what is computed of them.
func selectThemes(db bun.IDB, storeID int64, out any) *bun.SelectQuery {
	return db.NewSelect().Model(out).ColumnExpr("th.*").
		ColumnExpr("EXISTS (SELECT 1 FROM store_live_themes AS l WHERE l.store_id = th.store_id AND l.theme_id = th.id) AS live").
		ColumnExpr("mt.thumbnail_url, mt.id AS template_id").
		Join("JOIN market_templates AS mt ON mt.key = th.base_key").
		ColumnExpr("lv.theme_version AS latest_theme_version").
		ColumnExpr("CASE WHEN lv.version IS NOT NULL THEN lv.version > th.template_version END AS update_available").
		Join(`LEFT JOIN LATERAL (SELECT v.version, v.theme_version FROM market_template_versions AS v
			WHERE v.template_key = th.source_template_key ORDER BY v.version DESC LIMIT 1) AS lv ON true`).
		Where("th.store_id = ?", storeID)
}

// ListThemes lists a store's themes by id. A store has a handful: the
// list is not paged.
func ListThemes(ctx context.Context, db bun.IDB, storeID int64) ([]Theme, error) {
	out := []Theme{}
	err := selectThemes(db, storeID, &out).Order("th.id").Scan(ctx)
	return out, err
}

// GetTheme reads one theme of the store.
func GetTheme(ctx context.Context, db bun.IDB, storeID, id int64) (*Theme, error) {
	t := new(Theme)
	err := selectThemes(db, storeID, t).Where("th.id = ?", id).Scan(ctx)
	return t, classify(err, "the theme")
}

// LiveThemeID is the id of the store's live theme; nil only for a store
// without one, which the default theme every store starts with rules out.
func LiveThemeID(ctx context.Context, db bun.IDB, storeID int64) (*int64, error) {
	var id int64
	err := db.NewRaw("SELECT theme_id FROM store_live_themes WHERE store_id = ?", storeID).Scan(ctx, &id)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return &id, nil
}

// errNoLiveTheme is the answer of the live theme's writes for a store
// without one (see LiveThemeID).
var errNoLiveTheme = apperr.NotFoundf("the store has no live theme: publish a theme")

// GetLiveTheme reads the store's live theme (nil for a store without
// one: see LiveThemeID).
func GetLiveTheme(ctx context.Context, db bun.IDB, storeID int64) (*Theme, error) {
	id, err := LiveThemeID(ctx, db, storeID)
	if err != nil || id == nil {
		return nil, err
	}
	return GetTheme(ctx, db, storeID, *id)
}

// LiveThemeIDForUpdate is the live theme's id, its row locked until the
// transaction ends, so a publish cannot move it meanwhile; 404 when none.
func LiveThemeIDForUpdate(ctx context.Context, tx bun.IDB, storeID int64) (int64, error) {
	var id int64
	err := tx.NewRaw("SELECT theme_id FROM store_live_themes WHERE store_id = ? FOR UPDATE", storeID).Scan(ctx, &id)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, errNoLiveTheme
	}
	return id, err
}

// ThemeSettingsSchema is the settings schema a theme's draft follows,
// with the theme's row locked until the transaction ends.
func ThemeSettingsSchema(ctx context.Context, tx bun.IDB, storeID, id int64) ([]byte, error) {
	var schema []byte
	err := tx.NewRaw(`SELECT v.settings_schema::text FROM themes AS th
		JOIN market_template_versions AS v ON v.template_key = th.base_key AND v.version = th.template_version
		WHERE th.store_id = ? AND th.id = ? FOR UPDATE OF th`, storeID, id).Scan(ctx, &schema)
	return schema, classify(err, "the theme")
}

// TemplateReleaseForStore is the latest release of a template the store
// may use: a free one, or one it owns; a paid template it does not own is
// a 409.
func TemplateReleaseForStore(ctx context.Context, db bun.IDB, storeID int64, key string) (*MarketTemplate, *MarketTemplateRelease, error) {
	t, err := GetMarketTemplate(ctx, db, storeID, key)
	if err != nil {
		return nil, nil, err
	}
	if t.PriceCents > 0 && !t.Owned {
		return nil, nil, apperr.Conflictf("the template %q costs %s %s and the store does not own it: a paid template is installed only once the store owns it",
			key, formatCents(t.PriceCents), t.Currency)
	}
	v := new(MarketTemplateRelease)
	err = db.NewSelect().Model(v).Where("template_key = ? AND version = ?", key, t.LatestVersion).Scan(ctx)
	return t, v, err
}

// CreateTheme stores a new theme of the store following release, its
// draft the given settings (checked by the caller) or, when nil, the
// release's defaults as stored (byte for byte: they never pass through Go
// values). fromMarket records the release as the theme's source.
func CreateTheme(ctx context.Context, db bun.IDB, storeID int64, name string, release *MarketTemplateRelease, draft []byte, fromMarket bool) (int64, error) {
	var id int64
	var d *string
	if draft != nil {
		s := string(draft)
		d = &s
	}
	err := db.NewRaw(`INSERT INTO themes (store_id, name, base_key, template_version, draft_settings, source_template_key, source_theme_version)
		SELECT ?, ?, template_key, version, coalesce(?::jsonb, default_settings),
			CASE WHEN ? THEN template_key END, CASE WHEN ? THEN theme_version END
		FROM market_template_versions WHERE template_key = ? AND version = ?
		RETURNING id`, storeID, name, d, fromMarket, fromMarket, release.TemplateKey, release.Version).Scan(ctx, &id)
	return id, classify(err, "the theme")
}

// SetThemeDraft replaces a theme's draft settings and answers when.
func SetThemeDraft(ctx context.Context, db bun.IDB, storeID, id int64, draft []byte) (time.Time, error) {
	var at time.Time
	err := db.NewRaw(`UPDATE themes SET draft_settings = ?::jsonb, updated_at = now() WHERE store_id = ? AND id = ? RETURNING updated_at`,
		string(draft), storeID, id).Scan(ctx, &at)
	return at, classify(err, "the theme")
}

// RenameTheme renames a theme.
func RenameTheme(ctx context.Context, db bun.IDB, storeID, id int64, name string) error {
	res, err := db.NewRaw(`UPDATE themes SET name = ?, updated_at = now() WHERE store_id = ? AND id = ?`, name, storeID, id).Exec(ctx)
	return notFoundIfNone(res, err, "the theme")
}

// DuplicateTheme copies a theme's name (prefixed), template release, draft
// and source, not its published versions, and answers the copy's id.
func DuplicateTheme(ctx context.Context, db bun.IDB, storeID, id int64, name string) (int64, error) {
	var copyID int64
	err := db.NewRaw(`INSERT INTO themes (store_id, name, base_key, template_version, draft_settings, source_template_key, source_theme_version)
		SELECT store_id, ?, base_key, template_version, draft_settings, source_template_key, source_theme_version
		FROM themes WHERE store_id = ? AND id = ? RETURNING id`, name, storeID, id).Scan(ctx, &copyID)
	return copyID, classify(err, "the theme")
}

// DeleteTheme deletes a theme and its published versions; the live theme
// is a 409 (the live row's foreign key refuses it, so a publish racing the
// delete cannot leave the store without its live theme).
func DeleteTheme(ctx context.Context, db bun.IDB, storeID, id int64) error {
	res, err := db.NewRaw("DELETE FROM themes WHERE store_id = ? AND id = ?", storeID, id).Exec(ctx)
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) && pgErr.Code == "23503" && pgErr.ConstraintName == "store_live_themes_theme_id_store_id_fkey" {
		return apperr.Conflictf("the theme is live: publish another theme before deleting this one")
	}
	return notFoundIfNone(res, err, "the theme")
}

// ThemeDraft is a theme's draft settings as stored.
func ThemeDraft(ctx context.Context, db bun.IDB, storeID, id int64) ([]byte, error) {
	var draft []byte
	err := db.NewRaw("SELECT draft_settings::text FROM themes WHERE store_id = ? AND id = ?", storeID, id).Scan(ctx, &draft)
	return draft, classify(err, "the theme")
}

// ThemeTemplateUpdate is a theme made from its template's latest release
// and the old draft's settings that did not carry over.
type ThemeTemplateUpdate struct {
	ThemeID int64    `json:"theme_id"`
	Name    string   `json:"name"`
	Dropped []string `json:"dropped"`
	Reset   []string `json:"reset"`
}
