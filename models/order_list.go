package models

import (
	"context"
	"slices"
	"strings"
	"time"

	"github.com/uptrace/bun"

	"storeadmin/internal/base/apperr"
)

// OrderFilter narrows an orders list; Sort orders it.
type OrderFilter struct {
	Status            *string    `json:"status"`
	FinancialStatus   *string    `json:"financial_status"`
	FulfillmentStatus *string    `json:"fulfillment_status"`
	CreatedAtMin      *time.Time `json:"created_at_min"`
	CreatedAtMax      *time.Time `json:"created_at_max"`
	Tag               *string    `json:"tag"`
	Email             *string    `json:"email"`
	CustomerID        *int64     `json:"customer_id"`
	Q                 *string    `json:"q"`
	Sort              *string    `json:"sort"`
}

// orderSorts maps the sort names a client may send to ORDER BY terms.
var orderSorts = map[string]string{
	"created_at":    "o.created_at ASC, o.id ASC",
	"-created_at":   "o.created_at DESC, o.id DESC",
	"order_number":  "o.order_number ASC",
	"-order_number": "o.order_number DESC",
	"total":         "o.total_cents ASC, o.id ASC",
	"-total":        "o.total_cents DESC, o.id DESC",
	"updated_at":    "o.updated_at ASC, o.id ASC",
	"-updated_at":   "o.updated_at DESC, o.id DESC",
}

// Check refuses values the filter cannot mean.
func (f OrderFilter) Check() error {
	checks := []struct {
		name  string
		value *string
		set   []string
	}{
		{"status", f.Status, OrderStatuses},
		{"financial_status", f.FinancialStatus, FinancialStatuses},
		{"fulfillment_status", f.FulfillmentStatus, FulfillmentStatuses},
	}
	for _, c := range checks {
		if c.value != nil && !slices.Contains(c.set, *c.value) {
			return apperr.Invalidf("%s must be one of %s, not %q", c.name, strings.Join(c.set, ", "), *c.value)
		}
	}
	if f.CreatedAtMin != nil && f.CreatedAtMax != nil && f.CreatedAtMax.Before(*f.CreatedAtMin) {
		return apperr.Invalidf("created_at_max must not be before created_at_min")
	}
	if f.Sort != nil {
		if _, ok := orderSorts[*f.Sort]; !ok {
			return apperr.Invalidf("sort must be one of created_at, -created_at, order_number, -order_number, total, -total, updated_at, -updated_at, not %q", *f.Sort)
		}
	}
	return nil
}

func (f OrderFilter) apply(q *bun.SelectQuery) *bun.SelectQuery {
	if f.Status != nil {
		q = q.Where("o.status = ?", *f.Status)
	}
	if f.FinancialStatus != nil {
		q = q.Where("o.financial_status = ?", *f.FinancialStatus)
	}
	if f.FulfillmentStatus != nil {
		q = q.Where("o.fulfillment_status = ?", *f.FulfillmentStatus)
	}
	if f.CreatedAtMin != nil {
		q = q.Where("o.created_at >= ?", *f.CreatedAtMin)
	}
	if f.CreatedAtMax != nil {
		q = q.Where("o.created_at <= ?", *f.CreatedAtMax)
	}
	if f.Tag != nil {
		q = q.Where("? = ANY (o.tags)", strings.TrimSpace(*f.Tag))
	}
	if f.Email != nil {
		q = q.Where("lower(o.email) = lower(?)", strings.TrimSpace(*f.Email))
	}
	if f.CustomerID != nil {
		q = q.Where("o.customer_id = ?", *f.CustomerID)
	}
	if f.Q != nil {
		if s := strings.TrimSpace(*f.Q); s != "" {
			like := containsPattern(s)
			q = q.WhereGroup(" AND ", func(q *bun.SelectQuery) *bun.SelectQuery {
				q = q.Where("o.email ILIKE ?", like).
					WhereOr("o.order_number_display ILIKE ?", like).
					WhereOr("EXISTS (SELECT 1 FROM order_line_items li WHERE li.order_id = o.id AND li.sku ILIKE ?)", like)
				if n := strings.TrimLeft(s, "#"); isDigits(n) && len(n) < 19 {
					q = q.WhereOr("o.order_number::text = ?", n)
				}
				return q
			})
		}
	}
	return q
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

func (f OrderFilter) order() string {
	if f.Sort != nil {
		return orderSorts[*f.Sort]
	}
	return orderSorts["-created_at"]
}

// ListOrders lists a store's orders under f, newest first unless f.Sort
// says otherwise.
func ListOrders(ctx context.Context, db bun.IDB, storeID int64, f OrderFilter, p Paging) ([]Order, error) {
	var out []Order
	q := db.NewSelect().Model(&out).Where("o.store_id = ?", storeID).
		Apply(f.apply).OrderExpr(f.order())
	return out, p.Apply(q).Scan(ctx)
}

// CountOrders counts what ListOrders would list without paging.
func CountOrders(ctx context.Context, db bun.IDB, storeID int64, f OrderFilter) (int64, error) {
	return db.NewSelect().Model((*Order)(nil)).Where("o.store_id = ?", storeID).
		Apply(f.apply).Count(ctx)
}
