package models

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"github.com/uptrace/bun"

	"storeadmin/internal/base/apperr"
)

// ThemeVersion is a published version of a theme: immutable (the
// database refuses updates).
type ThemeVersion struct {
	bun.BaseModel `bun:"table:theme_versions,alias:tv"`

	ID          int64     `bun:"id,pk,autoincrement" json:"publication_id"`
	StoreID     int64     `bun:"store_id" json:"-"`
	ThemeID     int64     `bun:"theme_id" json:"-"`
	Version     int64     `bun:"version" json:"version"`
	Settings    any       `bun:"settings,type:jsonb" json:"settings"`
	PublishedAt time.Time `bun:"published_at,nullzero,default:now()" json:"published_at"`
}

// ThemePublication is what a publish made.
type ThemePublication struct {
	PublicationID int64 `json:"publication_id"`
	Version       int64 `json:"version"`
}

// Every change of which theme is live takes the store's live row first
// and a theme's row second (lockLive, then lockTheme), as the live theme's
// draft writes do: two publishes, or a publish and a rollback, queue on the
// live row and never deadlock.

// lockLive locks the store's live row, when it has one, until the
// transaction ends, and answers the live theme and version (0, 0: none).
func lockLive(ctx context.Context, tx bun.IDB, storeID int64) (themeID, version int64, err error) {
	// The row alone, then its version: a locking read that joins would,
	// when a concurrent publish moved the row, recheck the new row against
	// the old join partner and find nothing (READ COMMITTED's recheck).
	var publicationID int64
	err = tx.NewRaw("SELECT theme_id, publication_id FROM store_live_themes WHERE store_id = ? FOR UPDATE", storeID).Scan(ctx, &themeID, &publicationID)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, 0, nil
	}
	if err != nil {
		return 0, 0, err
	}
	err = tx.NewRaw("SELECT version FROM theme_versions WHERE id = ?", publicationID).Scan(ctx, &version)
	return themeID, version, err
}

// lockTheme locks a theme's row of the store until the transaction ends.
func lockTheme(ctx context.Context, tx bun.IDB, storeID, id int64) error {
	var found int64
	err := tx.NewRaw("SELECT id FROM themes WHERE store_id = ? AND id = ? FOR UPDATE", storeID, id).Scan(ctx, &found)
	return classify(err, "the theme")
}

// makeLive points the store's live row at a publication and records why.
func makeLive(ctx context.Context, tx bun.IDB, storeID, themeID, publicationID int64, reason string) error {
	_, err := tx.NewRaw(`INSERT INTO store_live_themes (store_id, theme_id, publication_id) VALUES (?, ?, ?)
		ON CONFLICT (store_id) DO UPDATE SET theme_id = excluded.theme_id, publication_id = excluded.publication_id, since = now()`,
		storeID, themeID, publicationID).Exec(ctx)
	if err != nil {
		return err
	}
	_, err = tx.NewRaw(`INSERT INTO theme_live_changes (store_id, theme_id, publication_id, reason) VALUES (?, ?, ?, ?)`,
		storeID, themeID, publicationID, reason).Exec(ctx)
	return err
}

// PublishTheme publishes a theme's draft as its next version, copied in
// the database (the settings are the draft's bytes as stored), and makes
// the theme live. live picks the theme: the given id, or, when nil, the
// live theme's (404 until one is published). Run it in a transaction.
func PublishTheme(ctx context.Context, tx bun.IDB, storeID int64, id *int64) (*ThemePublication, error) {
	liveID, _, err := lockLive(ctx, tx, storeID)
	if err != nil {
		return nil, err
	}
	themeID, err := pickTheme(id, liveID)
	if err != nil {
		return nil, err
	}
	if err := lockTheme(ctx, tx, storeID, themeID); err != nil {
		return nil, err
	}
	p := new(ThemePublication)
	err = tx.NewRaw(`INSERT INTO theme_versions (store_id, theme_id, version, settings)
		SELECT th.store_id, th.id, coalesce((SELECT max(version) FROM theme_versions WHERE theme_id = th.id), 0) + 1, th.draft_settings
		FROM themes AS th WHERE th.store_id = ? AND th.id = ?
		RETURNING id, version`, storeID, themeID).Scan(ctx, &p.PublicationID, &p.Version)
	if err != nil {
		return nil, err
	}
	return p, makeLive(ctx, tx, storeID, themeID, p.PublicationID, "publish")
}

// pickTheme is the given theme, or the live one when none is given.
func pickTheme(id *int64, liveID int64) (int64, error) {
	if id != nil {
		return *id, nil
	}
	if liveID == 0 {
		return 0, errNoLiveTheme
	}
	return liveID, nil
}

// RollbackTheme makes a published version of a theme live again (the
// given theme, or the live one when id is nil) and answers its number. The
// version left out is the one before the theme's live version. Nothing is
// copied or renumbered: the live row moves, and the move is recorded.
func RollbackTheme(ctx context.Context, tx bun.IDB, storeID int64, id, version *int64) (int64, error) {
	liveID, liveVersion, err := lockLive(ctx, tx, storeID)
	if err != nil {
		return 0, err
	}
	themeID, err := pickTheme(id, liveID)
	if err != nil {
		return 0, err
	}
	if err := lockTheme(ctx, tx, storeID, themeID); err != nil {
		return 0, err
	}
	q := tx.NewSelect().Model((*ThemeVersion)(nil)).Column("id", "version").Where("theme_id = ?", themeID)
	switch {
	case version != nil:
		if themeID == liveID && *version == liveVersion {
			return 0, apperr.Conflictf("version %d of the theme is live already", *version)
		}
		q = q.Where("version = ?", *version)
	case themeID == liveID:
		q = q.Where("version < ?", liveVersion).Order("version DESC").Limit(1)
	default:
		return 0, apperr.InvalidField("version", "is required: the theme is not live, so there is no version before its live one")
	}
	var target ThemeVersion
	err = q.Scan(ctx, &target.ID, &target.Version)
	if errors.Is(err, sql.ErrNoRows) {
		if version != nil {
			return 0, apperr.NotFoundf("the theme has no published version %d", *version)
		}
		return 0, apperr.Conflictf("the theme has no version before its live one (%d)", liveVersion)
	}
	if err != nil {
		return 0, err
	}
	return target.Version, makeLive(ctx, tx, storeID, themeID, target.ID, "rollback")
}

// ListThemeVersions lists a theme's published versions, newest first (404
// for a theme the store does not have).
func ListThemeVersions(ctx context.Context, db bun.IDB, storeID, themeID int64) ([]ThemeVersion, error) {
	if _, err := GetTheme(ctx, db, storeID, themeID); err != nil {
		return nil, err
	}
	out := []ThemeVersion{}
	err := db.NewSelect().Model(&out).Where("store_id = ? AND theme_id = ?", storeID, themeID).Order("version DESC").Scan(ctx)
	return out, err
}

// ListLiveThemeVersions lists the live theme's published versions, newest
// first.
func ListLiveThemeVersions(ctx context.Context, db bun.IDB, storeID int64) ([]ThemeVersion, error) {
	id, err := LiveThemeID(ctx, db, storeID)
	if err != nil || id == nil {
		return []ThemeVersion{}, err
	}
	return ListThemeVersions(ctx, db, storeID, *id)
}

// VersionsByTheme loads the published versions of the store's themes,
// newest first, for a dataloader.
func VersionsByTheme(ctx context.Context, db bun.IDB, storeID int64, themeIDs []int64, cols Columns) ([]ThemeVersion, error) {
	out := manyRows[ThemeVersion](len(themeIDs))
	err := scanRows(ctx, db, db.NewSelect().Model(&out).Apply(cols.Apply).
		Where("store_id = ? AND theme_id IN (?)", storeID, bun.List(themeIDs)).Order("theme_id", "version DESC"), &out)
	return out, err
}
