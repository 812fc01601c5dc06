package resolvers

import (
	"context"

	"storeadmin/internal/experimentreport"
)

// storePower is what the store's traffic of the last days can test: the
// root field experimentPower and each experiment's power.
func (r *Resolver) storePower(ctx context.Context, days *int64) (*experimentreport.ExperimentPowerReport, error) {
	n, err := experimentreport.CheckPowerDays(days)
	if err != nil {
		return nil, err
	}
	return inStore(ctx, func(sid int64) (*experimentreport.ExperimentPowerReport, error) {
		return experimentreport.Power(ctx, r.db(ctx), sid, n, r.Now())
	})
}
