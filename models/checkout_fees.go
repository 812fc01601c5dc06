package models

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/uptrace/bun"

	"storeadmin/internal/base/apperr"
	"storeadmin/internal/base/pricing"
)

// The handling surcharge (pp15) and tipping a checkout can carry: the
// store's (checkout_settings, migration 20261124180000), overridden per
// upsell funnel (upsell_funnels.pp15 and .tipping; null inherits). Both
// enter the pricing engine, so they show in order totals exactly once.

// PP15Config is the handling surcharge: value_bps of the goods (basis
// points, 100 = 1%), at most cap_cents, when active.
type PP15Config struct {
	Active   bool  `json:"active"`
	ValueBps int64 `json:"value_bps"`
	CapCents int64 `json:"cap_cents"`
}

// PP15Platform is what the platform allows the store: the surcharge, and
// post-purchase upsells.
type PP15Platform struct {
	PP15Enabled       bool `json:"pp15_enabled"`
	PostUpsellEnabled bool `json:"post_upsell_enabled"`
}

// TippingConfig is what a checkout offers shoppers to tip.
type TippingConfig struct {
	Enabled       bool    `json:"enabled"`
	Mode          *string `json:"mode"`
	Label         *string `json:"label"`
	Description   *string `json:"description"`
	Presets       []int64 `json:"presets"`
	DefaultPreset *int64  `json:"default_preset"`
	AllowCustom   bool    `json:"allow_custom"`
	MaxPercent    *int64  `json:"max_percent"`
}

// DefaultPP15 is the surcharge of a store that has not set one: none.
func DefaultPP15() PP15Config { return PP15Config{} }

// DefaultTipping is the tipping of a store that has not set it: off.
func DefaultTipping() TippingConfig { return TippingConfig{Presets: []int64{}} }

// Bounds of the surcharge and tipping configs.
const (
	// MaxSurchargeBps is the largest surcharge: the whole of the goods.
	MaxSurchargeBps = 10_000
	// MaxSurchargeCapCents bounds cap_cents as MaxTipCents bounds a tip.
	MaxSurchargeCapCents = MaxTipCents
	// MaxTipPresets is how many preset tips a checkout offers at most.
	MaxTipPresets = 5
	// MaxTipLabel and MaxTipDescription bound the texts, in characters.
	MaxTipLabel       = 80
	MaxTipDescription = 500
)

// Tipping modes: how presets are read.
const (
	// TipPercentage: presets are whole percents (1 to 100) of the goods.
	TipPercentage = "percentage"
	// TipAmount: presets are amounts in minor units (1 to MaxTipCents).
	TipAmount = "amount"
)

// TippingModes are the modes a tipping config may have.
var TippingModes = []string{TipPercentage, TipAmount}

// Platform is what the deployment allows every store, whatever the store
// sets (serve's flags).
type Platform struct {
	// SurchargesOff: no store charges the handling surcharge (serve
	// --surcharges=false). Stores keep their configs; checkouts carry none,
	// and switching a surcharge on is refused.
	SurchargesOff bool
	// MoneyExperimentsOff: no store runs price or shipping tests (serve
	// --money-experiments=false), whatever its own opt-in says.
	MoneyExperimentsOff bool
	// CustomizerOff: the platform offers no product customizer (serve
	// --customizer=false). Stores keep their designs, templates and
	// bindings; GET /store/customizer/status says platform_enabled false.
	CustomizerOff bool
}

// PP15PlatformOf is what the platform allows the store: the surcharge when
// the deployment allows surcharges, and post-purchase upsells when the
// store has an enabled payment provider of a kind that can charge them
// (PaymentFeatures.Upsell).
func PP15PlatformOf(ctx context.Context, db bun.IDB, storeID int64, p Platform) (PP15Platform, error) {
	var upsell []string
	for _, k := range ProviderKinds {
		if k.Features.Upsell {
			upsell = append(upsell, k.Provider)
		}
	}
	out := PP15Platform{PP15Enabled: !p.SurchargesOff}
	if len(upsell) == 0 {
		return out, nil
	}
	var err error
	out.PostUpsellEnabled, err = db.NewSelect().Model((*PaymentProvider)(nil)).
		Where("store_id = ? AND enabled AND provider IN (?)", storeID, bun.List(upsell)).Exists(ctx)
	return out, err
}

// CheckPP15 refuses a surcharge config out of bounds, naming the field.
func CheckPP15(c PP15Config) error {
	if c.ValueBps < 0 || c.ValueBps > MaxSurchargeBps {
		return apperr.InvalidField("value_bps", "must be between 0 and %d basis points (100 = 1%% of the goods), not %d", MaxSurchargeBps, c.ValueBps)
	}
	if c.CapCents < 0 || c.CapCents > MaxSurchargeCapCents {
		return apperr.InvalidField("cap_cents", "must be between 0 and %d (minor units), not %d", int64(MaxSurchargeCapCents), c.CapCents)
	}
	return nil
}

// allowPP15 refuses to switch the surcharge on where the platform does
// not allow it.
func allowPP15(c PP15Config, p Platform) error {
	if c.Active && p.SurchargesOff {
		return apperr.Conflictf("the platform does not allow handling surcharges (pp15_enabled is false); send active false to keep the settings")
	}
	return nil
}

// CheckTipping refuses a tipping config out of bounds, naming the field,
// and answers it tidied: texts trimmed, an empty text null, presets never
// null.
func CheckTipping(c TippingConfig) (TippingConfig, error) {
	text := func(field string, v *string, most int) (*string, error) {
		if v == nil {
			return nil, nil
		}
		s := strings.TrimSpace(*v)
		if n := utf8.RuneCountInString(s); n > most {
			return nil, apperr.InvalidField(field, "must be at most %d characters, not %d", most, n)
		}
		if s == "" {
			return nil, nil
		}
		return &s, nil
	}
	var err error
	if c.Label, err = text("label", c.Label, MaxTipLabel); err != nil {
		return c, err
	}
	if c.Description, err = text("description", c.Description, MaxTipDescription); err != nil {
		return c, err
	}
	if c.Presets == nil {
		c.Presets = []int64{}
	}
	switch {
	case c.Mode != nil && !slices.Contains(TippingModes, *c.Mode):
		return c, apperr.InvalidField("mode", "must be percentage (presets are percents of the goods) or amount (presets are minor units), not %q", *c.Mode)
	case c.Mode == nil && (c.Enabled || len(c.Presets) > 0):
		return c, apperr.InvalidField("mode", "is required when tipping is enabled or has presets: percentage or amount")
	case len(c.Presets) > MaxTipPresets:
		return c, apperr.InvalidField("presets", "may hold at most %d tips, not %d", MaxTipPresets, len(c.Presets))
	case c.Enabled && len(c.Presets) == 0:
		return c, apperr.InvalidField("presets", "must hold at least one tip when tipping is enabled")
	}
	most, unit := int64(MaxTipCents), "minor units"
	if c.Mode != nil && *c.Mode == TipPercentage {
		most, unit = 100, "percent"
	}
	for i, p := range c.Presets {
		field := fmt.Sprintf("presets[%d]", i)
		if p < 1 || p > most {
			return c, apperr.InvalidField(field, "must be between 1 and %d (%s), not %d", most, unit, p)
		}
		if i > 0 && p <= c.Presets[i-1] {
			return c, apperr.InvalidField(field, "must be more than the preset before it (%d), not %d", c.Presets[i-1], p)
		}
	}
	if c.DefaultPreset != nil && !slices.Contains(c.Presets, *c.DefaultPreset) {
		return c, apperr.InvalidField("default_preset", "must be one of the presets %v or null, not %d", c.Presets, *c.DefaultPreset)
	}
	if c.MaxPercent != nil && (*c.MaxPercent < 1 || *c.MaxPercent > 100) {
		return c, apperr.InvalidField("max_percent", "must be between 1 and 100 (percent of the goods), not %d", *c.MaxPercent)
	}
	if c.AllowCustom && c.MaxPercent == nil {
		return c, apperr.InvalidField("max_percent", "is required when allow_custom is true: the largest custom tip, 1 to 100 percent of the goods")
	}
	return c, nil
}

// TipChoice is the tip a shopper chose at checkout: one of the presets,
// or a custom amount. Kept on the checkout (checkouts.tip), so that a
// percentage follows the goods.
type TipChoice struct {
	Preset      *int64 `json:"preset,omitempty"`
	AmountCents *int64 `json:"amount_cents,omitempty"`
}

// Offers refuses a choice the tipping config does not offer, naming the
// field of the checkout's tip at fault. Whether a custom amount is within
// max_percent depends on the goods: the pricing engine bounds it.
func (t TippingConfig) Offers(c TipChoice) error {
	switch {
	case !t.Enabled:
		return apperr.InvalidField("tip", "this store does not take tips")
	case (c.Preset == nil) == (c.AmountCents == nil):
		return apperr.InvalidField("tip", "must hold preset (one of %v) or amount_cents, not both or neither; null for no tip", t.Presets)
	case c.Preset != nil && !slices.Contains(t.Presets, *c.Preset):
		return apperr.InvalidField("tip.preset", "must be one of %v, not %d", t.Presets, *c.Preset)
	case c.AmountCents != nil && !t.AllowCustom:
		return apperr.InvalidField("tip.amount_cents", "this store takes preset tips only (one of %v)", t.Presets)
	case c.AmountCents != nil && (*c.AmountCents < 1 || *c.AmountCents > MaxTipCents):
		return apperr.InvalidField("tip.amount_cents", "must be between 1 and %d (minor units), not %d; null for no tip", int64(MaxTipCents), *c.AmountCents)
	}
	return nil
}

// PricingTip is the pricing engine's tip for choice c (nil: none): nothing
// when the config does not offer it (any longer: a store that changed its
// presets), as a code that stops applying takes nothing off.
func (t TippingConfig) PricingTip(c *TipChoice) pricing.Tip {
	if c == nil || t.Offers(*c) != nil {
		return pricing.Tip{}
	}
	if c.AmountCents != nil {
		return pricing.Tip{AmountCents: *c.AmountCents, MaxPercent: *t.MaxPercent}
	}
	if *t.Mode == TipPercentage {
		return pricing.Tip{Percent: *c.Preset}
	}
	return pricing.Tip{AmountCents: *c.Preset}
}

// PricingSurcharge is the pricing engine's surcharge of the config:
// nothing unless it is active and the platform allows surcharges.
func (c PP15Config) PricingSurcharge(p Platform) pricing.Surcharge {
	if !c.Active || p.SurchargesOff {
		return pricing.Surcharge{}
	}
	return pricing.Surcharge{Bps: c.ValueBps, CapCents: c.CapCents}
}

// EffectiveFees is the surcharge and tipping that apply to a checkout of
// the store through funnel funnelID (nil: none): the funnel's override,
// else the store's (checkout_settings), else the defaults. Another store's
// funnel, or none with the id, is not found.
func EffectiveFees(ctx context.Context, db bun.IDB, storeID int64, funnelID *int64) (PP15Config, TippingConfig, error) {
	var row struct {
		PP15    []byte `bun:"pp15"`
		Tipping []byte `bun:"tipping"`
		Funnel  bool   `bun:"funnel"`
	}
	var id int64
	if funnelID != nil {
		id = *funnelID
	}
	err := db.NewRaw(`SELECT coalesce(f.pp15, s.pp15) AS pp15, coalesce(f.tipping, s.tipping) AS tipping, f.id IS NOT NULL AS funnel
		FROM (SELECT 1) AS one
		LEFT JOIN checkout_settings AS s ON s.store_id = ?
		LEFT JOIN upsell_funnels AS f ON f.store_id = ? AND f.id = ?`, storeID, storeID, id).Scan(ctx, &row)
	if err != nil {
		return PP15Config{}, TippingConfig{}, err
	}
	if funnelID != nil && !row.Funnel {
		return PP15Config{}, TippingConfig{}, apperr.NotFoundf("no upsell funnel of the store has id %d", id)
	}
	pp15, tipping := DefaultPP15(), DefaultTipping()
	if row.PP15 != nil {
		if err := json.Unmarshal(row.PP15, &pp15); err != nil {
			return pp15, tipping, fmt.Errorf("pp15 of store %d: %w", storeID, err)
		}
	}
	if row.Tipping != nil {
		tipping = TippingConfig{}
		if err := json.Unmarshal(row.Tipping, &tipping); err != nil {
			return pp15, tipping, fmt.Errorf("tipping of store %d: %w", storeID, err)
		}
		if tipping.Presets == nil {
			tipping.Presets = []int64{}
		}
	}
	return pp15, tipping, nil
}

// SetStorePP15 checks and stores the store's surcharge config; switching
// it on where the platform does not allow surcharges is a conflict.
func SetStorePP15(ctx context.Context, db bun.IDB, storeID int64, c PP15Config, p Platform) error {
	if err := CheckPP15(c); err != nil {
		return err
	}
	if err := allowPP15(c, p); err != nil {
		return err
	}
	return putCheckoutSetting(ctx, db, storeID, "pp15", c)
}

// SetStoreTipping checks and stores the store's tipping config, and
// answers it as stored.
func SetStoreTipping(ctx context.Context, db bun.IDB, storeID int64, c TippingConfig) (TippingConfig, error) {
	c, err := CheckTipping(c)
	if err != nil {
		return c, err
	}
	return c, putCheckoutSetting(ctx, db, storeID, "tipping", c)
}

// putCheckoutSetting writes one column of the store's checkout_settings
// row (pp15 or tipping), making the row with the other's default.
func putCheckoutSetting(ctx context.Context, db bun.IDB, storeID int64, column string, v any) error {
	raw, err := json.Marshal(v)
	if err != nil {
		return err
	}
	pp15, tipping := any(DefaultPP15()), any(DefaultTipping())
	if column == "pp15" {
		pp15 = v
	} else {
		tipping = v
	}
	rawPP15, err := json.Marshal(pp15)
	if err != nil {
		return err
	}
	rawTipping, err := json.Marshal(tipping)
	if err != nil {
		return err
	}
	_, err = db.NewRaw(`INSERT INTO checkout_settings (store_id, pp15, tipping) VALUES (?, ?, ?)
		ON CONFLICT (store_id) DO UPDATE SET ? = ?, updated_at = now()`,
		storeID, string(rawPP15), string(rawTipping), bun.Ident(column), string(raw)).Exec(ctx)
	return classify(err, "the checkout settings")
}

// SetFunnelPP15 checks and stores the funnel's surcharge override; nil
// inherits the store's again. Another store's funnel is not found.
func SetFunnelPP15(ctx context.Context, db bun.IDB, storeID, funnelID int64, c *PP15Config, p Platform) error {
	if c != nil {
		if err := CheckPP15(*c); err != nil {
			return err
		}
		if err := allowPP15(*c, p); err != nil {
			return err
		}
	}
	return putFunnelOverride(ctx, db, storeID, funnelID, "pp15", c)
}

// SetFunnelTipping checks and stores the funnel's tipping override; nil
// inherits the store's again. Another store's funnel is not found.
func SetFunnelTipping(ctx context.Context, db bun.IDB, storeID, funnelID int64, c *TippingConfig) error {
	if c != nil {
		checked, err := CheckTipping(*c)
		if err != nil {
			return err
		}
		c = &checked
	}
	return putFunnelOverride(ctx, db, storeID, funnelID, "tipping", c)
}

// putFunnelOverride writes one override column of the store's funnel
// (pp15 or tipping): v's JSON, or NULL when v is a nil pointer.
func putFunnelOverride[T any](ctx context.Context, db bun.IDB, storeID, funnelID int64, column string, v *T) error {
	var raw *string
	if v != nil {
		b, err := json.Marshal(v)
		if err != nil {
			return err
		}
		s := string(b)
		raw = &s
	}
	res, err := db.NewRaw(`UPDATE upsell_funnels SET ? = ?::jsonb, updated_at = now() WHERE store_id = ? AND id = ?`,
		bun.Ident(column), raw, storeID, funnelID).Exec(ctx)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return apperr.NotFoundf("no upsell funnel of the store has id %d", funnelID)
	}
	return nil
}
