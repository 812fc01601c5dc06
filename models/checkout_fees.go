package models

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
