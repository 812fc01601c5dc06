package resolvers

import (
	"context"

	"storeadmin/internal/experimentreport"
	"storeadmin/internal/loaders"
)

// storePower is what the store's traffic of the last days can test: the
// root field experimentPower and each experiment's power, which is the
// store's: computed once per request and days, however many experiments
// of a list ask it.
func (r *Resolver) storePower(ctx context.Context, days *int64) (*experimentreport.ExperimentPowerReport, error) {
	n, err := experimentreport.CheckPowerDays(days)
	if err != nil {
		return nil, err
	}
	return loaders.Once(ctx, storePowerKey{n}, func() (*experimentreport.ExperimentPowerReport, error) {
		return inStore(ctx, func(sid int64) (*experimentreport.ExperimentPowerReport, error) {
			return experimentreport.Power(ctx, r.db(ctx), sid, n, r.Now())
		})
	})
}

// storePowerKey is the key of the store's power of days in the request.
type storePowerKey struct{ days int }
