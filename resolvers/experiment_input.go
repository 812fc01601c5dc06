package resolvers

import (
	"context"

	"github.com/uptrace/bun"

	"storeadmin/graph"
	"storeadmin/internal/experiments"
	"storeadmin/models"
)

// experimentShape checks an experiment the client sent for the store: its
// name, and its shape against the store's records and money gate
// (experiments.Shape). It answers the trimmed name and the shape to write.
func (r *Resolver) experimentShape(ctx context.Context, tx bun.IDB, sid int64, in graph.ExperimentInput) (string, *models.ExperimentShape, error) {
	name, err := text("name", in.Name, models.MaxExperimentNameLen, true)
	if err != nil {
		return "", nil, err
	}
	arms := make([]models.ExperimentArmSpec, len(in.Variants))
	for i, v := range in.Variants {
		arms[i] = models.ExperimentArmSpec{Name: v.Name, Payload: v.Payload, SplitPct: v.SplitPct}
	}
	sh, err := experiments.Shape(ctx, tx, sid, r.Platform, in.Kind, in.Metric, in.Surface, arms)
	return name, sh, err
}
