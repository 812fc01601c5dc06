package experiments

import (
	"context"
	"regexp"
	"strings"
	"time"

	"github.com/uptrace/bun"

	"storeadmin/internal/base/apperr"
	"storeadmin/internal/experimentreport"
	"storeadmin/models"
)

// poolKey is the form of a pool's key (the table's CHECK).
var poolKey = regexp.MustCompile(`^[a-z][a-z0-9-]{1,62}$`)

// A pool's bounds when its definition leaves them out (README "Pools").
const (
	DefaultStoreFloor = 100
	DefaultMaxShare   = 0.25
	DefaultMinStores  = 5
)

// PoolDefinition is a pooled test as an operator writes it (README
// "Pools"); StoreFloor, MaxShare and MinStores left nil take the defaults.
type PoolDefinition struct {
	Key, Name, Kind, Metric string
	Surface                 any
	Arms                    []models.ExperimentArmSpec
	StoreFloor              *int64
	MaxShare                *float64
	MinStores               *int64
}

// CreatePool checks a pool's definition and creates it, running from now:
// its shape is checked as an experiment's without a store's records (a
// theme pool's settings are checked against each member's live theme when
// it joins). A key taken is a 409.
func CreatePool(ctx context.Context, tx bun.IDB, d PoolDefinition, now time.Time) (*models.ExperimentPool, error) {
	if !poolKey.MatchString(d.Key) {
		return nil, apperr.InvalidField("key", "must be 2 to 63 lower-case letters, digits and dashes, starting with a letter, not %q", d.Key)
	}
	p := &models.ExperimentPool{Key: d.Key, Name: strings.TrimSpace(d.Name), StoreFloor: DefaultStoreFloor, MaxShare: DefaultMaxShare, MinStores: DefaultMinStores}
	if p.Name == "" {
		return nil, apperr.InvalidField("name", "is required")
	}
	arms := make([]models.ExperimentArmSpec, len(d.Arms))
	for i, a := range d.Arms {
		arms[i] = models.ExperimentArmSpec{Name: strings.TrimSpace(a.Name), Payload: a.Payload, SplitPct: a.SplitPct}
	}
	sh, err := models.CheckExperimentShape(d.Kind, d.Metric, d.Surface, arms, true)
	if err != nil {
		return nil, err
	}
	if d.StoreFloor != nil {
		p.StoreFloor = *d.StoreFloor
	}
	if d.MaxShare != nil {
		p.MaxShare = *d.MaxShare
	}
	if d.MinStores != nil {
		p.MinStores = *d.MinStores
	}
	switch {
	case p.StoreFloor < 0:
		return nil, apperr.InvalidField("store_floor", "must be 0 or more")
	case !(p.MaxShare > 0 && p.MaxShare <= 1):
		return nil, apperr.InvalidField("max_share", "must be above 0 and at most 1")
	case p.MinStores < experimentreport.MinPooledStores:
		return nil, apperr.InvalidField("min_stores", "must be %d or more: with fewer, a member could read another store's figures off the pooled report", experimentreport.MinPooledStores)
	}
	return p, models.CreatePool(ctx, tx, p, sh, now)
}

// Join makes the store a member of the running pool key: it runs the
// pool's arms, over the store's own records (poolShape), as an experiment
// of its own started now. 404: no such pool; 409: the pool ended, the
// store is in it already, or its records cannot take the arms.
func Join(ctx context.Context, tx bun.IDB, storeID int64, key string, now time.Time) (*models.Experiment, error) {
	p, arms, err := models.LockPool(ctx, tx, key)
	if err != nil {
		return nil, err
	}
	if p.Status != models.PoolRunning {
		return nil, apperr.Conflictf("the pool %s is %s: only a running pool can be joined", key, p.Status)
	}
	sh, err := poolShape(ctx, tx, storeID, p, arms)
	if err != nil {
		return nil, err
	}
	e, err := models.CreateExperiment(ctx, tx, storeID, p.Name, sh, &p.Key, now)
	if err != nil {
		if apperr.CodeOf(err) == apperr.Conflict {
			return nil, apperr.Conflictf("the store is in the pool %s already", key)
		}
		return nil, err
	}
	return e, models.StartExperiment(ctx, tx, e, now)
}

// poolShape makes the shape of the experiment a store runs for a pool:
// the pool's arms over the store's records (a theme pool: the live theme's
// live version, each arm checked against its schema; a content pool: the
// store's page of the pool's handle). A store whose records cannot take
// the pool is a 409.
func poolShape(ctx context.Context, tx bun.IDB, storeID int64, p *models.ExperimentPool, arms []models.ExperimentPoolVariant) (*models.ExperimentShape, error) {
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
		if themeID, version, settings, schema, err = models.LiveThemeTestBase(ctx, tx, storeID); err != nil {
			return nil, err
		}
		surface = map[string]any{"theme_id": themeID, "version": version}
	default:
		pageID, err := models.PageIDByHandle(ctx, tx, storeID, pooled.PageHandle)
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
		if err := checkThemeArms(ctx, tx, storeID, sh, settings, schema); err != nil {
			if apperr.CodeOf(err) != apperr.Invalid {
				return nil, err
			}
			return nil, apperr.Conflictf("the store's live theme cannot take this pool's arms: %s", err.Error())
		}
	}
	return sh, nil
}
