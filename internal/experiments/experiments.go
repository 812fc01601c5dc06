// Package experiments holds the A/B tests' writes that read a store's
// records beyond the experiment's own rows (README "A/B tests"): an
// experiment's shape checked against the store (its theme's schema, its
// page, products and rate, the money gate), starting past the money gate,
// ending with the report's winner, joining a pool, and a pool's
// definition. The API, the operators' CLI and the seed write through
// these, so one rule holds whoever writes; models keeps the rows'
// transitions.
package experiments

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/uptrace/bun"

	"storeadmin/internal/base/apperr"
	"storeadmin/internal/experimentreport"
	"storeadmin/internal/themesettings"
	"storeadmin/models"
)

// Shape checks an experiment's kind, metric, surface and arms for the
// store: their shape (models.CheckExperimentShape), the records the
// surface names, a theme test's arms merged over the version's settings
// against the theme's schema, and, for a price or shipping test, the
// money gate (409 when closed).
func Shape(ctx context.Context, tx bun.IDB, storeID int64, p models.Platform, kind, metric string, surface any, arms []models.ExperimentArmSpec) (*models.ExperimentShape, error) {
	sh, err := models.CheckExperimentShape(kind, metric, surface, arms, false)
	if err != nil {
		return nil, err
	}
	if sh.Kind == models.ExperimentKindTheme {
		settings, schema, err := models.ThemeTestBase(ctx, tx, storeID, sh.ThemeID, sh.ThemeVersion)
		if err != nil {
			return nil, err
		}
		if err := checkThemeArms(ctx, tx, storeID, sh, settings, schema); err != nil {
			return nil, err
		}
	} else if err := models.CheckExperimentRecords(ctx, tx, storeID, sh); err != nil {
		return nil, err
	}
	if err := moneyGateOpen(ctx, tx, storeID, p, sh.Kind); err != nil {
		return nil, err
	}
	return sh, nil
}

// moneyGateOpen refuses a price or shipping test while the store's money
// gate is closed (its opt-in row share-locked until the transaction ends).
func moneyGateOpen(ctx context.Context, tx bun.IDB, storeID int64, p models.Platform, kind string) error {
	if !models.IsMoneyKind(kind) {
		return nil
	}
	g, err := models.LockedMoneyGate(ctx, tx, storeID, p)
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
// (themesettings.Check), a failure naming the path under the arm's
// payload (variants[1].payload.settings.colors.primary).
func checkThemeArms(ctx context.Context, db bun.IDB, storeID int64, sh *models.ExperimentShape, settings, schema []byte) error {
	var base any
	if err := json.Unmarshal(settings, &base); err != nil {
		return err
	}
	for i, p := range sh.Payloads {
		at := fmt.Sprintf("variants[%d].payload.settings", i)
		if _, err := themesettings.Check(ctx, db, storeID, schema, at, themesettings.Merge(base, p["settings"])); err != nil {
			return err
		}
	}
	return nil
}

// Start starts a draft past the money gate, which may have closed since
// the draft was written; any other status is models.StartExperiment's
// 409. e is locked in tx.
func Start(ctx context.Context, tx bun.IDB, e *models.Experiment, p models.Platform, now time.Time) error {
	if e.Status == models.ExperimentDraft {
		if err := moneyGateOpen(ctx, tx, e.StoreID, p, e.Kind); err != nil {
			return err
		}
		if err := surfaceStands(ctx, tx, e); err != nil {
			return err
		}
	}
	return models.StartExperiment(ctx, tx, e, now)
}

// surfaceStands refuses to start a draft whose surface went since it was
// written (its theme version is no longer the live theme's, its page,
// products or rate deleted): it would test nothing. A 409, as the draft
// itself is fine until then; editing it (PUT) names a surface that is.
func surfaceStands(ctx context.Context, tx bun.IDB, e *models.Experiment) error {
	var err error
	if e.Kind == models.ExperimentKindTheme {
		themeID, _ := models.SurfaceNumber(e.Surface, "theme_id")
		version, _ := models.SurfaceNumber(e.Surface, "version")
		_, _, err = models.ThemeTestBase(ctx, tx, e.StoreID, int64(themeID), int64(version))
	} else {
		page, _ := models.SurfaceNumber(e.Surface, "page_id")
		rate, _ := models.SurfaceNumber(e.Surface, "shipping_rate_id")
		err = models.CheckExperimentRecords(ctx, tx, e.StoreID, &models.ExperimentShape{Kind: e.Kind,
			PageID: int64(page), ShippingRateID: int64(rate), ProductIDs: models.SurfaceIDs(e.Surface, "product_ids")})
	}
	if apperr.CodeOf(err) == apperr.Invalid {
		return apperr.Conflictf("the test cannot start: its %s; edit the draft first", err.Error())
	}
	return err
}

// End ends a running or paused experiment with its winner: the caller's
// given arm, which must be one of its arms (400 otherwise); or, when the
// caller names none, the arm its report names (a winner, or the control
// when every other arm lost), read in the ending's transaction; none when
// the report has no verdict either way. e is locked in tx.
func End(ctx context.Context, tx bun.IDB, e *models.Experiment, given *int64, now time.Time) error {
	if e.Status != models.ExperimentRunning && e.Status != models.ExperimentPaused {
		return models.EndExperiment(ctx, tx, e, nil, now) // the 409 naming the status
	}
	winner, err := winnerOf(ctx, tx, e, given, now)
	if err != nil {
		return err
	}
	return models.EndExperiment(ctx, tx, e, winner, now)
}

func winnerOf(ctx context.Context, tx bun.IDB, e *models.Experiment, given *int64, now time.Time) (*int64, error) {
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
