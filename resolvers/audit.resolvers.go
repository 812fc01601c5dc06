package resolvers

import (
	"context"

	"storeadmin/models"
)

func (r *queryResolver) AuditLogs(ctx context.Context, filter *models.AuditLogFilter, limit *int64, offset *int64) ([]models.AuditLog, error) {
	sid, err := storeID(ctx)
	if err != nil {
		return nil, err
	}
	p, err := models.NewPage(limit, offset)
	if err != nil {
		return nil, err
	}
	return models.ListAuditLogs(ctx, r.DB, sid, filter, p)
}

func (r *queryResolver) AuditLogsCount(ctx context.Context, filter *models.AuditLogFilter) (int64, error) {
	sid, err := storeID(ctx)
	if err != nil {
		return 0, err
	}
	return models.CountAuditLogs(ctx, r.DB, sid, filter)
}
