package models

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/pgdialect"

	"storeadmin/internal/base/apperr"
	"storeadmin/internal/base/handle"
)

// The lifecycle of a store's experiments (README "A/B tests", "Endpoints"):
// their writes, each in the caller's transaction with the experiment's row
// locked (LockExperiment), so racing transitions serialize and the second
// sees the first's status.

// MaxListedExperiments bounds the store's list: a store runs a handful of
// tests at a time and keeps a history a person reads; the newest are
// listed.
const MaxListedExperiments = 500

// ListExperiments lists the store's experiments, newest first, at most
// MaxListedExperiments.
func ListExperiments(ctx context.Context, db bun.IDB, storeID int64) ([]Experiment, error) {
	out := []Experiment{}
	err := db.NewSelect().Model(&out).Where("store_id = ?", storeID).Order("id DESC").Limit(MaxListedExperiments).Scan(ctx)
	return out, err
}

// ExperimentsEnabled tells whether the store's tests can run: they run
// only through the storefront, which takes calls when the store is not
// closed and its storefront is on (the storefront's gate).
func ExperimentsEnabled(ctx context.Context, db bun.IDB, storeID int64) (bool, error) {
	g, err := StorefrontGate(ctx, db, storeID, "")
	return g.Open, err
}

// ExperimentPriceProducts lists the products of one of the store's
// experiments (a price test's; none for other kinds), by id.
func ExperimentPriceProducts(ctx context.Context, db bun.IDB, storeID, id int64) ([]int64, error) {
	if _, err := GetExperiment(ctx, db, storeID, id); err != nil {
		return nil, err
	}
	out := []int64{}
	err := db.NewRaw("SELECT product_id FROM experiment_price_products WHERE store_id = ? AND experiment_id = ? ORDER BY product_id",
		storeID, id).Scan(ctx, &out)
	return out, err
}

// PublishedTheme is the live theme's live published version.
type PublishedTheme struct {
	Settings any   `bun:"settings,type:jsonb" json:"settings"`
	Version  int64 `bun:"version" json:"version"`
}

// LivePublishedTheme reads the settings and number of the store's live
// theme's live version; nil until a theme is first published (as the live
// theme's reads answer).
func LivePublishedTheme(ctx context.Context, db bun.IDB, storeID int64) (*PublishedTheme, error) {
	p := new(PublishedTheme)
	err := db.NewRaw(`SELECT tv.settings, tv.version FROM store_live_themes AS l
		JOIN theme_versions AS tv ON tv.id = l.publication_id WHERE l.store_id = ?`, storeID).Scan(ctx, p)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	return p, err
}

// ThemeTestBase is what a theme test's arms are merged over: the settings
// of a published version of the store's live theme, and the settings
// schema the theme follows. A theme that is not live, or a version it
// never published, is a 400 naming the surface.
func ThemeTestBase(ctx context.Context, db bun.IDB, storeID, themeID, version int64) (settings, schema []byte, err error) {
	var s, sch string // text: bun scans a []byte destination as a list
	err = db.NewRaw(`SELECT tv.settings::text, mv.settings_schema::text FROM store_live_themes AS l
		JOIN themes AS th ON th.store_id = l.store_id AND th.id = l.theme_id
		JOIN theme_versions AS tv ON tv.theme_id = th.id AND tv.version = ?
		JOIN market_template_versions AS mv ON mv.template_key = th.base_key AND mv.version = th.template_version
		WHERE l.store_id = ? AND l.theme_id = ?`, version, storeID, themeID).Scan(ctx, &s, &sch)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil, apperr.InvalidField("surface", "must name a published version of the store's live theme: theme %d has no version %d live or published", themeID, version)
	}
	return []byte(s), []byte(sch), err
}

// LiveThemeTestBase is ThemeTestBase of the live theme's live version,
// for a pooled theme test; 409 when the store has no live theme.
func LiveThemeTestBase(ctx context.Context, db bun.IDB, storeID int64) (themeID, version int64, settings, schema []byte, err error) {
	var s, sch string // text: bun scans a []byte destination as a list
	err = db.NewRaw(`SELECT th.id, tv.version, tv.settings::text, mv.settings_schema::text FROM store_live_themes AS l
		JOIN themes AS th ON th.store_id = l.store_id AND th.id = l.theme_id
		JOIN theme_versions AS tv ON tv.id = l.publication_id
		JOIN market_template_versions AS mv ON mv.template_key = th.base_key AND mv.version = th.template_version
		WHERE l.store_id = ?`, storeID).Scan(ctx, &themeID, &version, &s, &sch)
	if errors.Is(err, sql.ErrNoRows) {
		err = apperr.Conflictf("the store has no live theme yet: publish a theme before joining a theme test")
	}
	return themeID, version, []byte(s), []byte(sch), err
}

// PageIDByHandle is the id of the store's page of the handle, for a pooled
// content test; 409 when it has none.
func PageIDByHandle(ctx context.Context, db bun.IDB, storeID int64, handle string) (int64, error) {
	var id int64
	err := db.NewRaw("SELECT id FROM pages WHERE store_id = ? AND handle = ?", storeID, handle).Scan(ctx, &id)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, apperr.Conflictf("the store has no page %q, which this test changes", handle)
	}
	return id, err
}

// CheckExperimentRecords checks that the records a content, price or
// shipping test's surface names are the store's, in one statement: the
// first missing one is a 400 naming it.
func CheckExperimentRecords(ctx context.Context, db bun.IDB, storeID int64, sh *ExperimentShape) error {
	switch sh.Kind {
	case ExperimentKindContent:
		return recordOfStore(ctx, db, "pages", storeID, sh.PageID, "surface.page_id", "a page")
	case ExperimentKindShipping:
		return recordOfStore(ctx, db, "shipping_rates", storeID, sh.ShippingRateID, "surface.shipping_rate_id", "a shipping rate")
	case ExperimentKindPrice:
		var missing []int64
		err := db.NewRaw(`SELECT id FROM unnest(?::bigint[]) AS want (id)
			WHERE NOT EXISTS (SELECT 1 FROM products AS p WHERE p.store_id = ? AND p.id = want.id) ORDER BY id`,
			pgdialect.Array(sh.ProductIDs), storeID).Scan(ctx, &missing)
		if err != nil {
			return err
		}
		if len(missing) > 0 {
			return apperr.InvalidField("surface.product_ids", "must be products of the store: %d is not one", missing[0])
		}
	}
	return nil
}

// recordOfStore refuses an id that is not a row of the store in table.
func recordOfStore(ctx context.Context, db bun.IDB, table string, storeID, id int64, at, what string) error {
	var found bool
	err := db.NewRaw("SELECT EXISTS (SELECT 1 FROM ? WHERE store_id = ? AND id = ?)", bun.Ident(table), storeID, id).Scan(ctx, &found)
	if err == nil && !found {
		return apperr.InvalidField(at, "must be %s of the store: %d is not one", what, id)
	}
	return err
}

// maxKeyBase leaves room for a "-NNN" suffix within the key's 63
// characters.
const maxKeyBase = 50

// experimentKey makes a key from a name by the house's handle rule
// (handle.From), free among the store's keys: "Hero colour" is
// hero-colour, then hero-colour-2, hero-colour-3, … Two creates racing
// for one key: the unique index makes the second a 409.
func experimentKey(ctx context.Context, db bun.IDB, storeID int64, name string) (string, error) {
	base := handle.From(name)
	if len(base) > maxKeyBase {
		base = strings.TrimRight(base[:maxKeyBase], "-")
	}
	if base == "" {
		base = "experiment"
	}
	var taken []string
	err := db.NewRaw("SELECT key FROM experiments WHERE store_id = ? AND (key = ? OR key LIKE ?)",
		storeID, base, base+"-%").Scan(ctx, &taken)
	if err != nil {
		return "", err
	}
	key := base
	for n := 2; slices.Contains(taken, key); n++ {
		key = fmt.Sprintf("%s-%d", base, n)
	}
	return key, nil
}

// arms makes an experiment's arm records from the checked shape: keys a,
// b, c, d by position.
func arms(e *Experiment, sh *ExperimentShape) []ExperimentVariant {
	out := make([]ExperimentVariant, len(sh.Arms))
	for i, a := range sh.Arms {
		out[i] = ExperimentVariant{StoreID: e.StoreID, ExperimentID: e.ID, Position: int64(i + 1),
			Key: string(rune('a' + i)), Name: strings.TrimSpace(a.Name), Payload: sh.Payloads[i], SplitPct: a.SplitPct}
	}
	return out
}

// CreateExperiment writes a new draft of the store with its arms and, for
// a price test, its products: e's key is made from its name. poolKey: the
// pool it runs for a member store (nil for the store's own tests).
func CreateExperiment(ctx context.Context, tx bun.IDB, storeID int64, name string, sh *ExperimentShape, poolKey *string, now time.Time) (*Experiment, error) {
	base := name
	if poolKey != nil {
		base = *poolKey
	}
	key, err := experimentKey(ctx, tx, storeID, base)
	if err != nil {
		return nil, err
	}
	e := &Experiment{StoreID: storeID, Key: key, Name: name, Kind: sh.Kind, Metric: sh.Metric, Surface: sh.Surface,
		Status: ExperimentDraft, PoolKey: poolKey, CreatedAt: now, UpdatedAt: now}
	if _, err := tx.NewInsert().Model(e).ExcludeColumn("started_at", "paused_at", "ended_at", "winner_variant_id").Returning("id").Exec(ctx); err != nil {
		return nil, classify(err, "an experiment of that key")
	}
	return e, writeArms(ctx, tx, e, sh)
}

// ReplaceExperiment replaces a locked draft's content whole: its kind,
// metric, surface, name, arms and products; its key stays.
func ReplaceExperiment(ctx context.Context, tx bun.IDB, e *Experiment, name string, sh *ExperimentShape, now time.Time) error {
	if err := transition(e, "edited", ExperimentDraft); err != nil {
		return err
	}
	e.Name, e.Kind, e.Metric, e.Surface, e.UpdatedAt = name, sh.Kind, sh.Metric, sh.Surface, now
	if _, err := tx.NewUpdate().Model(e).Column("name", "kind", "metric", "surface", "updated_at").WherePK().Exec(ctx); err != nil {
		return err
	}
	for _, table := range []string{"experiment_variants", "experiment_price_products"} {
		if _, err := tx.NewRaw("DELETE FROM ? WHERE store_id = ? AND experiment_id = ?", bun.Ident(table), e.StoreID, e.ID).Exec(ctx); err != nil {
			return err
		}
	}
	return writeArms(ctx, tx, e, sh)
}

// writeArms inserts the experiment's arms and a price test's products.
func writeArms(ctx context.Context, tx bun.IDB, e *Experiment, sh *ExperimentShape) error {
	rows := arms(e, sh)
	if _, err := tx.NewInsert().Model(&rows).Exec(ctx); err != nil {
		return err
	}
	if len(sh.ProductIDs) == 0 {
		return nil
	}
	_, err := tx.NewRaw(`INSERT INTO experiment_price_products (store_id, experiment_id, product_id)
		SELECT ?, ?, unnest(?::bigint[])`, e.StoreID, e.ID, pgdialect.Array(sh.ProductIDs)).Exec(ctx)
	return err
}

// LockExperiment reads one experiment of the store with its row locked
// until the transaction ends: another store's is not found.
func LockExperiment(ctx context.Context, tx bun.IDB, storeID, id int64) (*Experiment, error) {
	e := new(Experiment)
	err := tx.NewSelect().Model(e).Where("store_id = ? AND id = ?", storeID, id).For("UPDATE").Scan(ctx)
	return e, classify(err, "the experiment")
}

// RenameExperiment renames one of the store's experiments, in any status.
func RenameExperiment(ctx context.Context, db bun.IDB, storeID, id int64, name string, now time.Time) (*Experiment, error) {
	e := new(Experiment)
	err := db.NewUpdate().Model(e).Set("name = ?, updated_at = ?", name, now).
		Where("store_id = ? AND id = ?", storeID, id).Returning("*").Scan(ctx)
	return e, classify(err, "the experiment")
}

// transition refuses to move e unless its status is one of from: a 409
// naming the status.
func transition(e *Experiment, action string, from ...string) error {
	if slices.Contains(from, e.Status) {
		return nil
	}
	return apperr.Conflictf("the experiment is %s: only a %s experiment can be %s", e.Status, strings.Join(from, " or "), action)
}

// DeleteExperiment deletes a locked draft or ended experiment.
func DeleteExperiment(ctx context.Context, tx bun.IDB, e *Experiment) error {
	if err := transition(e, "deleted", ExperimentDraft, ExperimentEnded); err != nil {
		return err
	}
	_, err := tx.NewDelete().Model(e).WherePK().Exec(ctx)
	return err
}

// heldProduct reads the product a unique violation of the held index
// names ("Key (product_id)=(42) already exists.").
var heldProduct = regexp.MustCompile(`\(product_id\)=\((\d+)\)`)

// StartExperiment starts a locked draft; a price test holds its products,
// and a product another running or paused price test holds is a 409
// naming it; a shipping test holds its rate, and a rate another holds is
// a 409 naming the rate and that test (unique indexes decide, so
// concurrent starts cannot both hold it). The caller checks the money gate
// first.
func StartExperiment(ctx context.Context, tx bun.IDB, e *Experiment, now time.Time) error {
	if err := transition(e, "started", ExperimentDraft); err != nil {
		return err
	}
	if e.Kind == ExperimentKindPrice {
		_, err := tx.NewRaw("UPDATE experiment_price_products SET held = true WHERE store_id = ? AND experiment_id = ?", e.StoreID, e.ID).Exec(ctx)
		var pgErr *pgconn.PgError
		if errors.As(err, &pgErr) && pgErr.Code == "23505" {
			if m := heldProduct.FindStringSubmatch(pgErr.Detail); m != nil {
				return apperr.Conflictf("product %s is already in another running or paused price test: end that test first", m[1])
			}
			return apperr.Conflictf("a product of this test is already in another running or paused price test")
		}
		if err != nil {
			return err
		}
	}
	e.Status, e.StartedAt, e.UpdatedAt = ExperimentRunning, &now, now
	start := tx.NewUpdate().Model(e).Column("status", "started_at", "updated_at").WherePK()
	if e.Kind == ExperimentKindShipping {
		return holdRate(ctx, tx, e, start)
	}
	_, err := start.Exec(ctx)
	return err
}

// heldRateIndex holds a shipping test's rate while it runs or is paused
// (migration 20261125010100_shipping_test_hold).
const heldRateIndex = "experiments_shipping_rate_held_idx"

// holdRate runs start, the update that makes shipping test e running and
// so holds its rate, under a savepoint: when heldRateIndex refuses it, the
// transaction goes back to the savepoint (a failed statement would leave
// it unusable) and reads the test that holds the rate, for a 409 naming
// both.
func holdRate(ctx context.Context, tx bun.IDB, e *Experiment, start *bun.UpdateQuery) error {
	if _, err := tx.ExecContext(ctx, "SAVEPOINT hold_rate"); err != nil {
		return err
	}
	_, err := start.Exec(ctx)
	var pgErr *pgconn.PgError
	if !errors.As(err, &pgErr) || pgErr.Code != "23505" || pgErr.ConstraintName != heldRateIndex {
		return err
	}
	if _, err := tx.ExecContext(ctx, "ROLLBACK TO SAVEPOINT hold_rate"); err != nil {
		return err
	}
	var holders []string
	if err := tx.NewRaw(`SELECT format(', %s (id %s, %s)', x.name, x.id, x.status) FROM experiments x JOIN experiments e
		ON x.store_id = e.store_id AND x.surface -> 'shipping_rate_id' = e.surface -> 'shipping_rate_id' AND x.id <> e.id
		WHERE e.id = ? AND x.kind = ? AND x.status IN (?, ?)`,
		e.ID, ExperimentKindShipping, ExperimentRunning, ExperimentPaused).Scan(ctx, &holders); err != nil {
		return err
	}
	rate, _ := SurfaceNumber(e.Surface, "shipping_rate_id")
	return apperr.Conflictf("shipping rate %d is already in another running or paused shipping test%s: end that test first",
		int64(rate), strings.Join(holders, ""))
}

// PauseExperiment pauses a locked running experiment and opens its pause.
func PauseExperiment(ctx context.Context, tx bun.IDB, e *Experiment, reason string, now time.Time) error {
	if err := transition(e, "paused", ExperimentRunning); err != nil {
		return err
	}
	p := &ExperimentPauseInterval{StoreID: e.StoreID, ExperimentID: e.ID, From: now}
	if reason != "" {
		p.Reason = &reason
	}
	if _, err := tx.NewInsert().Model(p).ExcludeColumn("resumed_at").Exec(ctx); err != nil {
		return err
	}
	e.Status, e.PausedAt, e.PausedReason, e.UpdatedAt = ExperimentPaused, &now, reason, now
	_, err := tx.NewUpdate().Model(e).Column("status", "paused_at", "paused_reason", "updated_at").WherePK().Exec(ctx)
	return err
}

// ResumeExperiment resumes a locked paused experiment and closes its
// pause.
func ResumeExperiment(ctx context.Context, tx bun.IDB, e *Experiment, now time.Time) error {
	if err := transition(e, "resumed", ExperimentPaused); err != nil {
		return err
	}
	if err := closePause(ctx, tx, e, now); err != nil {
		return err
	}
	e.Status, e.PausedAt, e.PausedReason, e.UpdatedAt = ExperimentRunning, nil, "", now
	_, err := tx.NewUpdate().Model(e).Column("status", "paused_at", "paused_reason", "updated_at").WherePK().Exec(ctx)
	return err
}

// EndExperiment ends a locked running or paused experiment: it closes an
// open pause, releases the products a price test held and records the
// winner (nil: none), which the caller checked is one of its arms.
func EndExperiment(ctx context.Context, tx bun.IDB, e *Experiment, winner *int64, now time.Time) error {
	if err := transition(e, "ended", ExperimentRunning, ExperimentPaused); err != nil {
		return err
	}
	if err := closePause(ctx, tx, e, now); err != nil {
		return err
	}
	if _, err := tx.NewRaw("UPDATE experiment_price_products SET held = false WHERE store_id = ? AND experiment_id = ? AND held",
		e.StoreID, e.ID).Exec(ctx); err != nil {
		return err
	}
	e.Status, e.PausedAt, e.PausedReason, e.EndedAt, e.WinnerVariantID, e.UpdatedAt = ExperimentEnded, nil, "", &now, winner, now
	_, err := tx.NewUpdate().Model(e).Column("status", "paused_at", "paused_reason", "ended_at", "winner_variant_id", "updated_at").WherePK().Exec(ctx)
	return err
}

// closePause closes the experiment's open pause, if any.
func closePause(ctx context.Context, tx bun.IDB, e *Experiment, now time.Time) error {
	_, err := tx.NewRaw("UPDATE experiment_pauses SET resumed_at = ? WHERE store_id = ? AND experiment_id = ? AND resumed_at IS NULL",
		now, e.StoreID, e.ID).Exec(ctx)
	return err
}

// LockedMoneyGate is the store's money gate with its opt-in row, when it
// has one, share-locked until the transaction ends: a withdrawal (which
// writes that row) waits for a start that read it, then sees the test it
// started.
func LockedMoneyGate(ctx context.Context, tx bun.IDB, storeID int64, p Platform) (MoneyGate, error) {
	if _, err := tx.NewRaw("SELECT 1 FROM experiment_money_opt_ins WHERE store_id = ? FOR SHARE", storeID).Exec(ctx); err != nil {
		return MoneyGate{}, err
	}
	return MoneyGateOf(ctx, tx, storeID, p)
}

// SetMoneyOptIn writes the store's money opt-in. Withdrawing while price or
// shipping tests run or are paused is a 409 naming them: they would go on
// changing prices the store no longer accepts, and ending them is the
// merchant's call, not a side effect.
func SetMoneyOptIn(ctx context.Context, tx bun.IDB, storeID int64, enabled bool, now time.Time) error {
	if _, err := tx.NewRaw(`INSERT INTO experiment_money_opt_ins (store_id, enabled, changed_at) VALUES (?, ?, ?)
		ON CONFLICT (store_id) DO UPDATE SET enabled = excluded.enabled, changed_at = excluded.changed_at`, storeID, enabled, now).Exec(ctx); err != nil {
		return err
	}
	if enabled {
		return nil
	}
	var live []string
	err := tx.NewRaw(`SELECT format('%s (id %s, %s)', name, id, status) FROM experiments
		WHERE store_id = ? AND kind IN (?, ?) AND status IN (?, ?) ORDER BY id`,
		storeID, ExperimentKindPrice, ExperimentKindShipping, ExperimentRunning, ExperimentPaused).Scan(ctx, &live)
	if err != nil {
		return err
	}
	if len(live) > 0 {
		return apperr.Conflictf("price and shipping tests cannot be withdrawn while these run or are paused: %s; end them first", strings.Join(live, ", "))
	}
	return nil
}

// IsMoneyKind tells whether an experiment of the kind needs the money
// gate open.
func IsMoneyKind(kind string) bool {
	return kind == ExperimentKindPrice || kind == ExperimentKindShipping
}
