package resolvers

import (
	"context"
	"encoding/json"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/uptrace/bun"

	"storeadmin/internal/audit"
	"storeadmin/internal/base/apperr"
	"storeadmin/internal/themesettings"
	"storeadmin/models"
)

// maxThemeName is the longest theme name, in characters.
const maxThemeName = 100

// themeName checks a theme's name.
func themeName(v string) (string, error) { return text("name", v, maxThemeName, true) }

// copyName is the name of a theme's copy, within the limit.
func copyName(name string) string {
	n := "Copy of " + name
	if utf8.RuneCountInString(n) > maxThemeName {
		n = string([]rune(n)[:maxThemeName])
	}
	return strings.TrimSpace(n)
}

// themeDraft checks draft settings against a theme's settings schema (as
// stored) and answers them as JSON to store (themesettings.Check at
// draft_settings).
func themeDraft(ctx context.Context, db bun.IDB, sid int64, schema []byte, draft any) ([]byte, error) {
	return themesettings.Check(ctx, db, sid, schema, "draft_settings", draft)
}

// setThemeDraft replaces the draft of the theme which picks (in the
// transaction, its row locked) after checking it against the theme's
// schema, and answers when.
func (r *mutationResolver) setThemeDraft(ctx context.Context, sid int64, which func(bun.Tx) (int64, error), draft any) (*time.Time, error) {
	var at time.Time
	var id int64
	err := r.db(ctx).RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		var err error
		if id, err = which(tx); err != nil {
			return err
		}
		schema, err := models.ThemeSettingsSchema(ctx, tx, sid, id)
		if err != nil {
			return err
		}
		b, err := themeDraft(ctx, tx, sid, schema, draft)
		if err != nil {
			return err
		}
		at, err = models.SetThemeDraft(ctx, tx, sid, id, b)
		return err
	})
	if err != nil {
		return nil, err
	}
	audit.Touch(ctx, "theme", id)
	return &at, nil
}

// publishTheme publishes the theme id names, or the live one when nil.
func (r *mutationResolver) publishTheme(ctx context.Context, id *int64) (*models.ThemePublication, error) {
	sid, err := storeID(ctx)
	if err != nil {
		return nil, err
	}
	var p *models.ThemePublication
	err = r.db(ctx).RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		p, err = models.PublishTheme(ctx, tx, sid, id)
		return err
	})
	if err != nil {
		return nil, err
	}
	audit.Touch(ctx, "theme_version", p.PublicationID)
	return p, nil
}

// rollbackTheme rolls back the theme id names, or the live one when nil.
func (r *mutationResolver) rollbackTheme(ctx context.Context, id, version *int64) (int64, error) {
	sid, err := storeID(ctx)
	if err != nil {
		return 0, err
	}
	if version != nil && *version < 1 {
		return 0, apperr.InvalidField("version", "must be a version number, 1 or more, not %d", *version)
	}
	var v int64
	err = r.db(ctx).RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		v, err = models.RollbackTheme(ctx, tx, sid, id, version)
		return err
	})
	if err != nil {
		return 0, err
	}
	if id != nil {
		audit.Touch(ctx, "theme", *id)
	}
	return v, nil
}

// updateThemeFromTemplate makes a new theme from the latest release of a
// theme's source template, the draft carried over (themesettings'
// CarryOver), and reports what did not carry.
func (r *mutationResolver) updateThemeFromTemplate(ctx context.Context, id int64) (*models.ThemeTemplateUpdate, error) {
	sid, err := storeID(ctx)
	if err != nil {
		return nil, err
	}
	var u *models.ThemeTemplateUpdate
	err = r.db(ctx).RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		t, err := models.GetTheme(ctx, tx, sid, id)
		if err != nil {
			return err
		}
		if t.SourceTemplateKey == nil {
			return apperr.Conflictf("the theme was not installed from the theme market: it has no template to update from")
		}
		if t.UpdateAvailable == nil || !*t.UpdateAvailable {
			return apperr.Conflictf("the theme follows the latest release of %q already (%s)", *t.SourceTemplateKey, *t.LatestThemeVersion)
		}
		_, release, err := models.TemplateReleaseForStore(ctx, tx, sid, *t.SourceTemplateKey)
		if err != nil {
			return err
		}
		draft, err := models.ThemeDraft(ctx, tx, sid, id)
		if err != nil {
			return err
		}
		schemaJSON, err := json.Marshal(release.SettingsSchema)
		if err != nil {
			return err
		}
		defaults, err := json.Marshal(release.DefaultSettings)
		if err != nil {
			return err
		}
		schema, err := themesettings.Parse(schemaJSON)
		if err != nil {
			return err
		}
		settings, dropped, reset, err := schema.CarryOver(defaults, draft)
		if err != nil {
			return err
		}
		u = &models.ThemeTemplateUpdate{Name: updatedName(t.Name, release.ThemeVersion), Dropped: dropped, Reset: reset}
		u.ThemeID, err = models.CreateTheme(ctx, tx, sid, u.Name, release, settings, true)
		return err
	})
	if err != nil {
		return nil, err
	}
	audit.Touch(ctx, "theme", u.ThemeID)
	return u, nil
}

// updatedName is the name of a theme updated to a release: the old name
// and the release's label, within the limit.
func updatedName(name, themeVersion string) string {
	suffix := " (" + themeVersion + ")"
	if max := maxThemeName - utf8.RuneCountInString(suffix); utf8.RuneCountInString(name) > max {
		name = string([]rune(name)[:max])
	}
	return name + suffix
}
