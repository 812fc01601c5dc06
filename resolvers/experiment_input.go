package resolvers

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/uptrace/bun"

	"storeadmin/graph"
	"storeadmin/internal/base/apperr"
	"storeadmin/internal/experimentreport"
	"storeadmin/internal/themesettings"
	"storeadmin/models"
)

// experimentShape checks an experiment the client sent for the store: its
// name, its shape (models.CheckExperimentShape), the records its surface
// names, a theme test's arms merged over the version's settings against
// the theme's schema, and, for a price or shipping test, the money gate
// (409 when closed). It answers the trimmed name and the shape to write.
func (r *Resolver) experimentShape(ctx context.Context, tx bun.IDB, sid int64, in graph.ExperimentInput) (string, *models.ExperimentShape, error) {
	name, err := text("name", in.Name, models.MaxExperimentNameLen, true)
	if err != nil {
		return "", nil, err
	}
	arms := make([]models.ExperimentArmSpec, len(in.Variants))
	for i, v := range in.Variants {
		arms[i] = models.ExperimentArmSpec{Name: v.Name, Payload: v.Payload, SplitPct: v.SplitPct}
	}
	sh, err := models.CheckExperimentShape(in.Kind, in.Metric, in.Surface, arms, false)
	if err != nil {
		return "", nil, err
	}
	if sh.Kind == models.ExperimentKindTheme {
		settings, schema, err := models.ThemeTestBase(ctx, tx, sid, sh.ThemeID, sh.ThemeVersion)
		if err != nil {
			return "", nil, err
		}
		if err := checkThemeArms(ctx, tx, sid, sh, settings, schema); err != nil {
			return "", nil, err
		}
	} else if err := models.CheckExperimentRecords(ctx, tx, sid, sh); err != nil {
		return "", nil, err
	}
	if err := r.moneyGateOpen(ctx, tx, sid, sh.Kind); err != nil {
		return "", nil, err
	}
	return name, sh, nil
}

// moneyGateOpen refuses a price or shipping test while the store's money
// gate is closed (its opt-in row share-locked until the transaction ends).
func (r *Resolver) moneyGateOpen(ctx context.Context, tx bun.IDB, sid int64, kind string) error {
	if !models.IsMoneyKind(kind) {
		return nil
	}
	g, err := models.LockedMoneyGate(ctx, tx, sid, r.Platform)
	if err != nil {
		return err
	}
	switch {
	case !g.Platform:
		return apperr.Conflictf("price and shipping tests are switched off on this platform")
	case !g.OptIn:
		return apperr.Conflictf("price and shipping tests need the store's money opt-in: PUT /store/experiments/money-opt-in first")
	}
	return nil
}

// checkThemeArms checks each arm of a theme test: its settings merged over
// the version's (objects key by key, lists whole) must be settings the
// theme's schema accepts, their images uploads of the store, as a draft's
// (themeSettings), a failure naming the path under the arm's payload
// (variants[1].payload.settings.colors.primary).
func checkThemeArms(ctx context.Context, db bun.IDB, sid int64, sh *models.ExperimentShape, settings, schema []byte) error {
	var base any
	if err := json.Unmarshal(settings, &base); err != nil {
		return err
	}
	for i, p := range sh.Payloads {
		if _, err := themeSettings(ctx, db, sid, schema, fmt.Sprintf("variants[%d].payload.settings", i), themesettings.Merge(base, p["settings"])); err != nil {
			return err
		}
	}
	return nil
}

// experimentWinner is the arm an ending experiment declares the winner:
// the caller's, which must be one of its arms (400 otherwise); or, when
// the caller names none, the arm its report names (a winner, or the
// control when every other arm lost), read in the ending's transaction;
// none when the report has no verdict either way.
func experimentWinner(ctx context.Context, tx bun.IDB, e *models.Experiment, given *int64, now time.Time) (*int64, error) {
	arms, err := models.ExperimentArms(ctx, tx, e.StoreID, e.ID)
	if err != nil {
		return nil, err
	}
	if given == nil {
		report, err := experimentreport.Report(ctx, tx, e, arms, now)
		if err != nil || report.WinnerPosition == nil {
			return nil, err
		}
		for _, a := range arms {
			if a.Position == *report.WinnerPosition {
				return &a.ID, nil
			}
		}
		return nil, nil
	}
	for _, a := range arms {
		if a.ID == *given {
			return given, nil
		}
	}
	return nil, apperr.InvalidField("winner_variant_id", "must be one of the experiment's arms: %d is not", *given)
}

// poolShape makes the shape of the experiment a store runs for a pool:
// the pool's arms over the store's records (a theme pool: the live theme's
// live version, each arm checked against its schema; a content pool: the
// store's page of the pool's handle). A store whose records cannot take
// the pool is a 409.
func poolShape(ctx context.Context, tx bun.IDB, sid int64, p *models.ExperimentPool, arms []models.ExperimentPoolVariant) (*models.ExperimentShape, error) {
	specs := make([]models.ExperimentArmSpec, len(arms))
	for i, a := range arms {
		specs[i] = models.ExperimentArmSpec{Name: a.Name, Payload: a.Payload, SplitPct: a.SplitPct}
	}
	pooled, err := models.CheckExperimentShape(p.Kind, p.Metric, p.Surface, specs, true)
	if err != nil {
		return nil, err
	}
	var surface map[string]any
	var settings, schema []byte
	switch p.Kind {
	case models.ExperimentKindTheme:
		var themeID, version int64
		if themeID, version, settings, schema, err = models.LiveThemeTestBase(ctx, tx, sid); err != nil {
			return nil, err
		}
		surface = map[string]any{"theme_id": themeID, "version": version}
	default:
		pageID, err := models.PageIDByHandle(ctx, tx, sid, pooled.PageHandle)
		if err != nil {
			return nil, err
		}
		surface = map[string]any{"page_id": pageID}
	}
	sh, err := models.CheckExperimentShape(p.Kind, p.Metric, surface, specs, false)
	if err != nil {
		return nil, err
	}
	if p.Kind == models.ExperimentKindTheme {
		if err := checkThemeArms(ctx, tx, sid, sh, settings, schema); err != nil {
			if apperr.CodeOf(err) != apperr.Invalid {
				return nil, err
			}
			return nil, apperr.Conflictf("the store's live theme cannot take this pool's arms: %s", err.Error())
		}
	}
	return sh, nil
}
