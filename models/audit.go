package models

import (
	"context"
	"time"

	"github.com/uptrace/bun"
)

// AuditLog records one write through either surface, successful or not.
type AuditLog struct {
	bun.BaseModel `bun:"table:audit_logs"`

	ID         int64     `bun:"id,pk,autoincrement" json:"id"`
	StoreID    *int64    `bun:"store_id" json:"store_id"`
	ActorType  string    `bun:"actor_type" json:"actor_type"`
	ActorID    *int64    `bun:"actor_id" json:"actor_id"`
	Action     string    `bun:"action" json:"action"`
	Method     string    `bun:"method" json:"method"`
	Path       string    `bun:"path" json:"path"`
	StatusCode int64     `bun:"status_code" json:"status_code"`
	IP         string    `bun:"ip" json:"ip"`
	UserAgent  string    `bun:"user_agent" json:"user_agent"`
	Country    string    `bun:"country" json:"country"`
	Metadata   any       `bun:"metadata,type:jsonb" json:"metadata"`
	CreatedAt  time.Time `bun:"created_at,nullzero,default:now()" json:"created_at"`
}

// AuditLogFilter narrows the audit log. From is inclusive, To exclusive.
type AuditLogFilter struct {
	ActorType  *string    `json:"actor_type"`
	ActorID    *int64     `json:"actor_id"`
	Action     *string    `json:"action"`
	Method     *string    `json:"method"`
	StatusCode *int64     `json:"status_code"`
	From       *time.Time `json:"from"`
	To         *time.Time `json:"to"`
}

func (f *AuditLogFilter) apply(q *bun.SelectQuery) *bun.SelectQuery {
	if f == nil {
		return q
	}
	if f.ActorType != nil {
		q = q.Where("actor_type = ?", *f.ActorType)
	}
	if f.ActorID != nil {
		q = q.Where("actor_id = ?", *f.ActorID)
	}
	if f.Action != nil {
		q = q.Where("action = ?", *f.Action)
	}
	if f.Method != nil {
		q = q.Where("method = upper(?)", *f.Method)
	}
	if f.StatusCode != nil {
		q = q.Where("status_code = ?", *f.StatusCode)
	}
	if f.From != nil {
		q = q.Where("created_at >= ?", *f.From)
	}
	if f.To != nil {
		q = q.Where("created_at < ?", *f.To)
	}
	return q
}

// InsertAuditLog records one entry.
func InsertAuditLog(ctx context.Context, db bun.IDB, l *AuditLog) error {
	if l.Metadata == nil {
		l.Metadata = map[string]any{}
	}
	_, err := db.NewInsert().Model(l).Exec(ctx)
	return err
}

// auditNewestFirst is the audit log's one order.
var auditNewestFirst = Sort[AuditLog]{Desc: true, Keys: []SortKey[AuditLog]{
	{SQL: "audit_log.created_at", Of: func(l *AuditLog) any { return l.CreatedAt }},
	{SQL: "audit_log.id", Of: func(l *AuditLog) any { return l.ID }},
}}

// PageAuditLogs lists a store's audit log, newest first, with the cursor
// of the next page.
func PageAuditLogs(ctx context.Context, db bun.IDB, storeID int64, f *AuditLogFilter, p Paging) (Page[AuditLog], error) {
	scope, err := PageScope("audit-logs", storeID, f)
	if err != nil {
		return Page[AuditLog]{}, err
	}
	var out []AuditLog
	q := db.NewSelect().Model(&out).Where("audit_log.store_id = ?", storeID).Apply(f.apply)
	return ReadPage(ctx, db, q, &out, auditNewestFirst, scope, p)
}

// CountAuditLogs counts what ListAuditLogs would list without paging.
func CountAuditLogs(ctx context.Context, db bun.IDB, storeID int64, f *AuditLogFilter) (int64, error) {
	return db.NewSelect().Model((*AuditLog)(nil)).Where("store_id = ?", storeID).Apply(f.apply).Count(ctx)
}
