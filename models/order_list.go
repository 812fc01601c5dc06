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

// orderSorts are the sorts a client may name; id breaks ties so that a
// row's keys are its position (order numbers are unique already).
var orderSorts = map[string]Sort[Order]{
	"created_at":    {Keys: []SortKey[Order]{orderCreated, orderID}},
	"-created_at":   {Keys: []SortKey[Order]{orderCreated, orderID}, Desc: true},
	"order_number":  {Keys: []SortKey[Order]{orderNumber}},
	"-order_number": {Keys: []SortKey[Order]{orderNumber}, Desc: true},
	"total":         {Keys: []SortKey[Order]{orderTotal, orderID}},
	"-total":        {Keys: []SortKey[Order]{orderTotal, orderID}, Desc: true},
	"updated_at":    {Keys: []SortKey[Order]{orderUpdated, orderID}},
	"-updated_at":   {Keys: []SortKey[Order]{orderUpdated, orderID}, Desc: true},
}

var (
	orderID      = SortKey[Order]{SQL: "o.id", Of: func(o *Order) any { return o.ID }}
	orderCreated = SortKey[Order]{SQL: "o.created_at", Of: func(o *Order) any { return o.CreatedAt }}
	orderNumber  = SortKey[Order]{SQL: "o.order_number", Of: func(o *Order) any { return o.OrderNumber }}
	orderTotal   = SortKey[Order]{SQL: "o.total_cents", Of: func(o *Order) any { return o.TotalCents }}
	orderUpdated = SortKey[Order]{SQL: "o.updated_at", Of: func(o *Order) any { return o.UpdatedAt }}
)

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
		// @>, not = ANY: the tags' GIN index answers only the former.
		q = q.Where("o.tags @> ARRAY[?]::text[]", strings.TrimSpace(*f.Tag))
	}
	if f.Email != nil {
		q = q.Where("lower(o.email) = lower(?)", strings.TrimSpace(*f.Email))
	}
	if f.CustomerID != nil {
		q = q.Where("o.customer_id = ?", *f.CustomerID)
	}
	if f.Q != nil {
		if s := strings.TrimSpace(*f.Q); s != "" {
			q = q.Where("o.id IN (?)", orderSearch(q.DB(), s))
		}
	}
	return q
}

// orderSearch selects the ids of the orders the search text s finds: its
// email, its number as displayed (#1001) or a line's SKU contains s, or s
// is its number. Each part is an index scan (the trigram indexes of
// migrations/20261124100000_large_lists.up.sql), which one WHERE joining
// them with OR, an EXISTS among them, could not use.
func orderSearch(db bun.IDB, s string) *bun.SelectQuery {
	like := containsPattern(s)
	q := db.NewSelect().TableExpr("orders").Column("id").Where("lower(email) LIKE ?", like).
		UnionAll(db.NewSelect().TableExpr("orders").Column("id").Where("lower(order_number_display) LIKE ?", like)).
		UnionAll(db.NewSelect().TableExpr("order_line_items").ColumnExpr("order_id").Where("lower(sku) LIKE ?", like))
	if n := strings.TrimLeft(s, "#"); isDigits(n) && len(n) < 19 {
		q = q.UnionAll(db.NewSelect().TableExpr("orders").Column("id").Where("order_number = ?", n))
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

func (f OrderFilter) sort() Sort[Order] {
	if f.Sort != nil {
		return orderSorts[*f.Sort]
	}
	return orderSorts["-created_at"]
}

// ListOrders lists a store's orders under f, newest first unless f.Sort
// says otherwise.
func ListOrders(ctx context.Context, db bun.IDB, storeID int64, f OrderFilter, p Paging) ([]Order, error) {
	page, err := PageOrders(ctx, db, storeID, f, p)
	return page.Rows, err
}

// PageOrders is ListOrders with the cursor of the next page.
func PageOrders(ctx context.Context, db bun.IDB, storeID int64, f OrderFilter, p Paging) (Page[Order], error) {
	scope, err := PageScope("orders", storeID, f)
	if err != nil {
		return Page[Order]{}, err
	}
	var out []Order
	q := db.NewSelect().Model(&out).Where("o.store_id = ?", storeID).Apply(f.apply)
	return ReadPage(ctx, db, q, &out, f.sort(), scope, p)
}

// CountOrders counts what ListOrders would list without paging, from the
// counts triggers keep in the transaction of every change to orders
// (migrations/20261124100000), where count(*) read a million rows: a
// filter of statuses only (or none) is a sum over order_counts (at most
// 84 rows); one that also has a created_at range sums order_day_counts
// over the range's whole days (UTC) and counts the orders of its partial
// days from their index. Any other filter is counted from its indexes.
func CountOrders(ctx context.Context, db bun.IDB, storeID int64, f OrderFilter) (int64, error) {
	var n int64
	err := OrdersTotal(db, storeID, f).Scan(ctx, &n)
	return n, err
}

// OrdersTotal is the statement CountOrders runs, for a page of orders to
// read with its rows (Paging.Total).
func OrdersTotal(db bun.IDB, storeID int64, f OrderFilter) *bun.SelectQuery {
	if !f.countable() {
		return db.NewSelect().Model((*Order)(nil)).ColumnExpr("count(*)").Where("o.store_id = ?", storeID).
			Apply(f.apply)
	}
	statuses := f
	statuses.CreatedAtMin, statuses.CreatedAtMax = nil, nil
	if f.CreatedAtMin == nil && f.CreatedAtMax == nil {
		return db.NewSelect().TableExpr("order_counts AS o").ColumnExpr("coalesce(sum(o.n), 0)").
			Where("o.store_id = ?", storeID).Apply(statuses.apply)
	}
	// Whole days are those from the first midnight at or after the range's
	// start to the last midnight at or before its end; the rest of the
	// range is its partial days, at most two.
	days := db.NewSelect().TableExpr("order_day_counts AS o").ColumnExpr("coalesce(sum(o.n), 0)").
		Where("o.store_id = ?", storeID).Apply(statuses.apply)
	edges := db.NewSelect().TableExpr("orders AS o").ColumnExpr("count(*)").
		Where("o.store_id = ?", storeID).Apply(f.apply)
	var from, to *time.Time
	if f.CreatedAtMin != nil {
		day := f.CreatedAtMin.UTC().Truncate(24 * time.Hour)
		if day.Before(*f.CreatedAtMin) {
			day = day.Add(24 * time.Hour)
		}
		from = &day
		days = days.Where("o.day >= ?::date", day.Format(time.DateOnly))
	}
	if f.CreatedAtMax != nil {
		day := f.CreatedAtMax.UTC().Truncate(24 * time.Hour)
		to = &day
		days = days.Where("o.day < ?::date", day.Format(time.DateOnly))
	}
	if from != nil && to != nil && !from.Before(*to) {
		return db.NewSelect().Model((*Order)(nil)).ColumnExpr("count(*)").Where("o.store_id = ?", storeID).
			Apply(f.apply)
	}
	edges = edges.WhereGroup(" AND ", func(q *bun.SelectQuery) *bun.SelectQuery {
		if from != nil {
			q = q.WhereOr("o.created_at < ?", *from)
		}
		if to != nil {
			q = q.WhereOr("o.created_at >= ?", *to)
		}
		return q
	})
	return db.NewSelect().ColumnExpr("(?) + (?)", days, edges)
}

// countable says whether f filters by the statuses and creation time
// alone, which the counts tables count.
func (f OrderFilter) countable() bool {
	return f.Tag == nil && f.Email == nil && f.CustomerID == nil && (f.Q == nil || strings.TrimSpace(*f.Q) == "")
}
