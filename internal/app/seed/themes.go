package seed

import (
	"context"
	"encoding/json"
	"time"

	"github.com/uptrace/bun"

	"storeadmin/internal/themesettings"
	"storeadmin/models"
)

// themes seeds the store's themes: it owns two templates (Atelier Noir,
// paid and recorded as owned, and Harbor, free, the default theme's);
// Atelier Noir is installed and live with four published versions, each a
// new accent colour, in place of the default theme, which goes; Harbor is
// installed at its latest release as a draft never published; and a
// second Harbor theme follows the older release 3.0.0, so it has an update
// available. Written as the API writes them (install, draft checked
// against its schema, publish, delete).
func themes(ctx context.Context, tx bun.Tx, storeID int64, _ time.Time) error {
	existing, err := models.ListThemes(ctx, tx, storeID)
	if err != nil {
		return err
	}
	for _, th := range existing {
		if th.BaseKey == "atelier-noir" {
			return nil // seeded already
		}
	}
	if err := models.OwnMarketTemplate(ctx, tx, storeID, "atelier-noir"); err != nil {
		return err
	}
	noir, err := models.InstallMarketTemplate(ctx, tx, storeID, "atelier-noir")
	if err != nil {
		return err
	}
	for _, accent := range []string{"#c9a227", "#b8860b", "#d4af37", "#e0b84c"} {
		if err := setAccent(ctx, tx, storeID, noir, accent); err != nil {
			return err
		}
		if _, err := models.PublishTheme(ctx, tx, storeID, &noir); err != nil {
			return err
		}
	}
	for _, th := range existing {
		if err := models.DeleteTheme(ctx, tx, storeID, th.ID); err != nil {
			return err
		}
	}
	if _, err := models.InstallMarketTemplate(ctx, tx, storeID, "harbor"); err != nil {
		return err
	}
	older, err := models.GetTemplateRelease(ctx, tx, "harbor", 1)
	if err != nil {
		return err
	}
	_, err = models.CreateTheme(ctx, tx, storeID, "Harbor (spring campaign)", older, nil, true)
	return err
}

// setAccent replaces a theme's accent colour in its draft, checked
// against the theme's schema as the API checks a draft.
func setAccent(ctx context.Context, tx bun.Tx, storeID, themeID int64, accent string) error {
	raw, err := models.ThemeDraft(ctx, tx, storeID, themeID)
	if err != nil {
		return err
	}
	var draft map[string]any
	if err := json.Unmarshal(raw, &draft); err != nil {
		return err
	}
	draft["colors"].(map[string]any)["accent"] = accent
	schema, err := models.ThemeSettingsSchema(ctx, tx, storeID, themeID)
	if err != nil {
		return err
	}
	b, err := themesettings.Check(ctx, tx, storeID, schema, "draft_settings", draft)
	if err != nil {
		return err
	}
	_, err = models.SetThemeDraft(ctx, tx, storeID, themeID, b)
	return err
}
