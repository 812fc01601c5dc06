package resolvers

import (
	"storeadmin/graph"
	"storeadmin/models"
)

// The surcharge and tipping inputs are their records, whole; models checks
// them (models.CheckPP15, models.CheckTipping), for the seed writes them
// too.

// pp15Of is the surcharge config of its input.
func pp15Of(in graph.PP15ConfigInput) models.PP15Config {
	return models.PP15Config{Active: in.Active, ValueBps: in.ValueBps, CapCents: in.CapCents}
}

// tippingOf is the tipping config of its input.
func tippingOf(in graph.TippingConfigInput) models.TippingConfig {
	return models.TippingConfig{Enabled: in.Enabled, Mode: in.Mode, Label: in.Label, Description: in.Description,
		Presets: in.Presets, DefaultPreset: in.DefaultPreset, AllowCustom: in.AllowCustom, MaxPercent: in.MaxPercent}
}
