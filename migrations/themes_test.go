package migrations_test

import (
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/uptrace/bun"

	"storeadmin/internal/testkit/testdb"
)

// themeStore makes a store with two themes on Harbor 3.0.0, each with one
// published version, and returns the store's and themes' ids and the
// publications' ids.
func themeStore(t *testing.T, db *bun.DB, handle string) (store int64, themes, pubs [2]int64) {
	t.Helper()
	ctx := context.Background()
	if err := db.NewRaw("INSERT INTO stores (handle, name) VALUES (?, ?) RETURNING id", handle, handle).Scan(ctx, &store); err != nil {
		t.Fatal(err)
	}
	for i := range themes {
		err := db.NewRaw(`INSERT INTO themes (store_id, name, base_key, template_version, draft_settings)
			SELECT ?, 'Harbor', template_key, version, default_settings FROM market_template_versions
			WHERE template_key = 'harbor' AND version = 1 RETURNING id`, store).Scan(ctx, &themes[i])
		if err != nil {
			t.Fatal(err)
		}
		err = db.NewRaw(`INSERT INTO theme_versions (store_id, theme_id, version, settings)
			SELECT store_id, id, 1, draft_settings FROM themes WHERE id = ? RETURNING id`, themes[i]).Scan(ctx, &pubs[i])
		if err != nil {
			t.Fatal(err)
		}
	}
	return store, themes, pubs
}

func mustFail(t *testing.T, err error, says string) {
	t.Helper()
	if err == nil || !strings.Contains(err.Error(), says) {
		t.Errorf("error = %v, want one saying %q", err, says)
	}
}

// TestThemeSchemaKeepsOneLiveThemePerStore: the live theme is one row per
// store (concurrent writers of it leave exactly one), it names a
// publication of that theme and a theme of that store, and the live theme
// cannot be deleted while the store itself can.
func TestThemeSchemaKeepsOneLiveThemePerStore(t *testing.T) {
	ctx := context.Background()
	db, _ := testdb.New(t)
	store, themes, pubs := themeStore(t, db, "live")
	other, otherThemes, otherPubs := themeStore(t, db, "other")

	const live = `INSERT INTO store_live_themes (store_id, theme_id, publication_id) VALUES (?, ?, ?)
		ON CONFLICT (store_id) DO UPDATE SET theme_id = excluded.theme_id, publication_id = excluded.publication_id, since = now()`
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			if _, err := db.ExecContext(ctx, live, store, themes[i%2], pubs[i%2]); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	var rows int
	if err := db.NewRaw("SELECT count(*) FROM store_live_themes WHERE store_id = ?", store).Scan(ctx, &rows); err != nil {
		t.Fatal(err)
	}
	if rows != 1 {
		t.Fatalf("%d live themes, want 1", rows)
	}

	_, err := db.ExecContext(ctx, live, store, themes[0], pubs[1])
	mustFail(t, err, "store_live_themes_publication_id_theme_id_fkey")
	_, err = db.ExecContext(ctx, live, store, otherThemes[0], otherPubs[0])
	mustFail(t, err, "store_live_themes_theme_id_store_id_fkey")
	_, err = db.ExecContext(ctx, `INSERT INTO theme_versions (store_id, theme_id, version, settings) VALUES (?, ?, 2, '{}')`, other, themes[0])
	mustFail(t, err, "theme_versions_theme_id_store_id_fkey")

	if _, err := db.ExecContext(ctx, live, store, themes[0], pubs[0]); err != nil {
		t.Fatal(err)
	}
	_, err = db.ExecContext(ctx, "DELETE FROM themes WHERE id = ?", themes[0])
	mustFail(t, err, "store_live_themes_theme_id_store_id_fkey")
	if _, err := db.ExecContext(ctx, "DELETE FROM themes WHERE id = ?", themes[1]); err != nil {
		t.Errorf("deleting a theme that is not live: %v", err)
	}
	if _, err := db.ExecContext(ctx, "DELETE FROM stores WHERE id = ?", store); err != nil {
		t.Errorf("deleting the store with its live theme: %v", err)
	}
}

// TestReleasedAndPublishedVersionsAreImmutable: neither a template's
// released version nor a theme's published one can be changed.
func TestReleasedAndPublishedVersionsAreImmutable(t *testing.T) {
	ctx := context.Background()
	db, _ := testdb.New(t)
	_, _, pubs := themeStore(t, db, "immutable")
	_, err := db.ExecContext(ctx, `UPDATE market_template_versions SET default_settings = '{}' WHERE template_key = 'harbor'`)
	mustFail(t, err, "market_template_versions rows are immutable")
	_, err = db.ExecContext(ctx, `UPDATE theme_versions SET settings = '{}' WHERE id = ?`, pubs[0])
	mustFail(t, err, "theme_versions rows are immutable")
}
