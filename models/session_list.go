package models

import (
	"context"
	"time"

	"github.com/uptrace/bun"
)

// Session outcomes: how far a visit went, the furthest step it reached.
const (
	OutcomePurchased = "purchased" // an order came from it
	OutcomeCheckout  = "checkout"  // it opened a checkout, placed no order
	OutcomeCarted    = "carted"    // it added to a cart, opened no checkout
	OutcomeBrowsed   = "browsed"   // more than one page or a product page
	OutcomeBounced   = "bounced"   // one page and nothing else
)

// SessionOutcomes lists the outcomes, furthest first.
var SessionOutcomes = []string{OutcomePurchased, OutcomeCheckout, OutcomeCarted, OutcomeBrowsed, OutcomeBounced}

// SessionGroupDimensions are what GET /store/sessions can group by.
var SessionGroupDimensions = []string{"country", "city", "device", "browser", "product"}

// WindowView is a date window, [from, to) in UTC.
type WindowView struct {
	From time.Time `json:"from"`
	To   time.Time `json:"to"`
}

// SessionFilter is what a client asks of the sessions (a query's filter,
// GET /store/sessions' query parameters): a window in the store's time zone
// and conditions. The resolvers check it into a SessionScope.
type SessionFilter struct {
	From        *string `json:"from"`
	To          *string `json:"to"`
	Days        *int64  `json:"days"`
	Country     *string `json:"country"`
	City        *string `json:"city"`
	Device      *string `json:"device"`
	Browser     *string `json:"browser"`
	Outcome     *string `json:"outcome"`
	HasOrders   *bool   `json:"has_orders"`
	LandingPath *string `json:"landing_path"`
	UTMSource   *string `json:"utm_source"`
	UTMMedium   *string `json:"utm_medium"`
	UTMCampaign *string `json:"utm_campaign"`
	IncludeBots *bool   `json:"include_bots"`
}

// SessionScope is a checked SessionFilter: the sessions that began in
// Window and meet every set condition. Bots are left out unless
// IncludeBots.
type SessionScope struct {
	Window WindowView
	SessionFilter
}

// SessionlistRow is one visit of GET /store/sessions with what came of it.
type SessionlistRow struct {
	ID               int64     `bun:"id" json:"-"`
	SessionID        string    `bun:"session_id" json:"session_id"`
	VisitorID        *int64    `bun:"visitor_id" json:"visitor_id"`
	VisitorEmail     *string   `bun:"visitor_email" json:"visitor_email"`
	CustomerID       *int64    `bun:"customer_id" json:"customer_id"`
	FirstSeenAt      time.Time `bun:"first_seen_at" json:"first_seen_at"`
	LastSeenAt       time.Time `bun:"last_seen_at" json:"last_seen_at"`
	DurationSeconds  int64     `bun:"duration_seconds" json:"duration_seconds"`
	Browser          *string   `bun:"browser" json:"browser"`
	OS               *string   `bun:"os" json:"os"`
	Device           *string   `bun:"device" json:"device"`
	Country          *string   `bun:"country" json:"country"`
	Region           *string   `bun:"region" json:"region"`
	City             *string   `bun:"city" json:"city"`
	Currency         *string   `bun:"currency" json:"currency"`
	Language         *string   `bun:"language" json:"language"`
	LandingPath      *string   `bun:"landing_path" json:"landing_path"`
	Referrer         *string   `bun:"referrer" json:"referrer"`
	IsBot            bool      `bun:"is_bot" json:"is_bot"`
	PageViews        int64     `bun:"page_views" json:"page_views"`
	Events           int64     `bun:"events" json:"events"`
	CheckoutAttempts int64     `bun:"checkout_attempts" json:"checkout_attempts"`
	Orders           int64     `bun:"orders" json:"orders"`
	RevenueCents     int64     `bun:"revenue_cents" json:"revenue_cents"`
	Outcome          string    `bun:"outcome" json:"outcome"`
	// The steps the outcome and the funnel read.
	ViewedProduct   bool `bun:"viewed_product" json:"-"`
	Carted          bool `bun:"carted" json:"-"`
	ReachedCheckout bool `bun:"reached_checkout" json:"-"`
}

// sessionFacts selects the sessions of the store in scope, one row each
// with what the visit did: its steps (viewed_product, carted,
// reached_checkout), the checkouts it opened, the orders it led to
// (orders.session_id) and their revenue, and its outcome. The steps are
// columns of the session's row, kept by triggers on the events, carts,
// checkouts and orders that say them (migration 20261124170300 defines
// them), so this list and the traffic reports read one definition. Every
// read of this file (the list, groups, facets, the funnel) stands on it,
// so they agree on what a step is.
func sessionFacts(db bun.IDB, storeID int64, sc SessionScope) *bun.SelectQuery {
	q := db.NewSelect().TableExpr("storefront_sessions AS s").
		Join("JOIN visitors AS v ON v.id = s.visitor_id").
		ColumnExpr("s.id, s.session_key AS session_id, s.visitor_id, nullif(v.email, '') AS visitor_email, v.customer_id").
		ColumnExpr("s.first_seen_at, s.last_seen_at, floor(extract(epoch FROM s.last_seen_at - s.first_seen_at))::bigint AS duration_seconds").
		ColumnExpr("s.browser, s.os, s.device, s.country, s.region, s.city, s.currency, s.language, s.landing_path, s.referrer, s.is_bot").
		ColumnExpr("s.page_views, s.events, s.checkout_attempts, s.orders, s.revenue_cents").
		ColumnExpr("s.viewed_product, s.carted, s.reached_checkout").
		ColumnExpr(`CASE WHEN s.orders > 0 THEN 'purchased'
			WHEN s.reached_checkout THEN 'checkout'
			WHEN s.carted THEN 'carted'
			WHEN s.page_views > 1 OR s.viewed_product THEN 'browsed'
			ELSE 'bounced' END AS outcome`).
		Where("s.store_id = ? AND s.first_seen_at >= ? AND s.first_seen_at < ?", storeID, sc.Window.From, sc.Window.To)
	f := sc.SessionFilter
	if f.IncludeBots == nil || !*f.IncludeBots {
		q = q.Where("NOT s.is_bot")
	}
	eq := func(cond string, v *string) {
		if v != nil {
			q = q.Where(cond, *v)
		}
	}
	eq("upper(s.country) = upper(?)", f.Country)
	eq("lower(s.city) = lower(?)", f.City)
	eq("lower(s.device) = lower(?)", f.Device)
	eq("lower(s.browser) = lower(?)", f.Browser)
	eq("s.landing_path = ?", f.LandingPath)
	eq("lower(s.utm->>'utm_source') = lower(?)", f.UTMSource)
	eq("lower(s.utm->>'utm_medium') = lower(?)", f.UTMMedium)
	eq("lower(s.utm->>'utm_campaign') = lower(?)", f.UTMCampaign)
	return q
}

// scopedSessions selects sessionFacts' rows that also meet the conditions
// on what a visit did (outcome, has_orders), as the table session_row.
func scopedSessions(db bun.IDB, storeID int64, sc SessionScope) *bun.SelectQuery {
	q := db.NewSelect().TableExpr("(?) AS session_row", sessionFacts(db, storeID, sc))
	if sc.Outcome != nil {
		q = q.Where("session_row.outcome = ?", *sc.Outcome)
	}
	if sc.HasOrders != nil {
		q = q.Where("(session_row.orders > 0) = ?", *sc.HasOrders)
	}
	return q
}

// ListSessions reads a page of the sessions in scope, newest first, with
// the count of all of them (p.Total is not used: the count is a column of
// the same statement).
func ListSessions(ctx context.Context, db bun.IDB, storeID int64, sc SessionScope, p Paging) ([]SessionlistRow, error) {
	out := make([]SessionlistRow, 0, p.Limit)
	err := scopedSessions(db, storeID, sc).ColumnExpr("session_row.*").
		OrderExpr("session_row.first_seen_at DESC, session_row.id DESC").Limit(p.Limit).Offset(p.Offset).
		Scan(ctx, &out)
	return out, err
}

// CountSessions counts the sessions in scope.
func CountSessions(ctx context.Context, db bun.IDB, storeID int64, sc SessionScope) (int64, error) {
	var n int64
	err := scopedSessions(db, storeID, sc).ColumnExpr("count(*)").Scan(ctx, &n)
	return n, err
}

// SessionlistGroup is the sessions in scope that share one value of a
// dimension.
type SessionlistGroup struct {
	Key               string  `bun:"key" json:"key"`
	Label             string  `bun:"label" json:"label"`
	Country           *string `bun:"country" json:"country"`
	Handle            *string `bun:"handle" json:"handle"`
	Sessions          int64   `bun:"sessions" json:"sessions"`
	Visitors          int64   `bun:"visitors" json:"visitors"`
	CartedSessions    int64   `bun:"carted_sessions" json:"carted_sessions"`
	CheckoutSessions  int64   `bun:"checkout_sessions" json:"checkout_sessions"`
	ConvertedSessions int64   `bun:"converted_sessions" json:"converted_sessions"`
	RevenueCents      *int64  `bun:"revenue_cents" json:"revenue_cents"`
	GroupCount        int64   `bun:"group_count" json:"-"`
}

// SessionlistGroupPage is a page of groups of one dimension.
type SessionlistGroupPage struct {
	Dimension      string             `json:"dimension"`
	Groups         []SessionlistGroup `json:"groups"`
	SumsToSessions bool               `json:"sums_to_sessions"`
	Total          int64              `json:"total"`
	Truncated      bool               `json:"truncated"`
}

// NotSet is the label of the group of sessions without the dimension's
// value (no GeoIP database, an unknown user agent).
const NotSet = "(not set)"

// GroupSessions groups the sessions in scope by dimension (one of
// SessionGroupDimensions), most sessions first, and answers a page of the
// groups. Every session is in exactly one group of country, city, device
// or browser (those without a value in "(not set)", key ""), so such
// groups sum to the sessions when the page holds them all; a session views
// many products and one that viewed none is in no product group, so
// product groups never do, and carry no revenue (an order's revenue is not
// one product's).
func GroupSessions(ctx context.Context, db bun.IDB, storeID int64, sc SessionScope, dimension string, p Paging) (*SessionlistGroupPage, error) {
	groups := make([]SessionlistGroup, 0, p.Limit)
	err := groupedSessions(db, storeID, sc, dimension).ColumnExpr("count(*) OVER () AS group_count").
		OrderExpr("sessions DESC, key").Limit(p.Limit).Offset(p.Offset).Scan(ctx, &groups)
	if err != nil {
		return nil, err
	}
	page := &SessionlistGroupPage{Dimension: dimension, Groups: groups}
	if len(groups) > 0 {
		page.Total = groups[0].GroupCount
	} else if p.Offset > 0 {
		// Past the last group: count them on their own.
		if page.Total, err = db.NewSelect().TableExpr("(?) AS counted", groupedSessions(db, storeID, sc, dimension)).Count(ctx); err != nil {
			return nil, err
		}
	}
	page.Truncated = p.Offset > 0 || int64(len(groups)) < page.Total
	page.SumsToSessions = dimension != "product" && !page.Truncated
	return page, nil
}

// groupedSessions selects one row per group of the sessions in scope.
func groupedSessions(db bun.IDB, storeID int64, sc SessionScope, dimension string) *bun.SelectQuery {
	rows := db.NewSelect().TableExpr("(?) AS g", scopedSessions(db, storeID, sc).ColumnExpr("session_row.*")).
		ColumnExpr("count(*) AS sessions, count(DISTINCT g.visitor_id) AS visitors").
		ColumnExpr("count(*) FILTER (WHERE g.carted) AS carted_sessions, count(*) FILTER (WHERE g.reached_checkout) AS checkout_sessions").
		ColumnExpr("count(*) FILTER (WHERE g.orders > 0) AS converted_sessions")
	switch dimension {
	case "country":
		return rows.ColumnExpr("coalesce(upper(g.country), '') AS key, coalesce(upper(g.country), ?) AS label, upper(g.country) AS country, NULL AS handle", NotSet).
			ColumnExpr("sum(g.revenue_cents)::bigint AS revenue_cents").GroupExpr("upper(g.country)")
	case "city":
		return rows.ColumnExpr("coalesce(upper(g.country), '') || '/' || coalesce(g.city, '') AS key, coalesce(g.city, ?) AS label, upper(g.country) AS country, NULL AS handle", NotSet).
			ColumnExpr("sum(g.revenue_cents)::bigint AS revenue_cents").GroupExpr("upper(g.country), g.city")
	case "product":
		return rows.Join(`JOIN LATERAL (SELECT DISTINCT e.product_id FROM storefront_events AS e
				WHERE e.session_id = g.id AND e.name = 'product_view' AND e.product_id IS NOT NULL) AS viewed ON true`).
			Join("LEFT JOIN products AS prod ON prod.id = viewed.product_id AND prod.store_id = ?", storeID).
			ColumnExpr("viewed.product_id::text AS key, coalesce(min(prod.title), '#' || viewed.product_id::text) AS label, NULL AS country, min(prod.handle) AS handle").
			ColumnExpr("NULL::bigint AS revenue_cents").GroupExpr("viewed.product_id")
	default: // device, browser: one group whatever the case
		return rows.ColumnExpr("coalesce(lower(g."+dimension+"), '') AS key, coalesce(min(g."+dimension+"), ?) AS label, NULL AS country, NULL AS handle", NotSet).
			ColumnExpr("sum(g.revenue_cents)::bigint AS revenue_cents").GroupExpr("lower(g." + dimension + ")")
	}
}

// SessionlistFacet is one value of a facet and how many sessions have it.
type SessionlistFacet struct {
	Value    string `bun:"value" json:"value"`
	Sessions int64  `bun:"sessions" json:"sessions"`
}

// SessionlistFacets are the values the sessions in scope have, to filter
// them by.
type SessionlistFacets struct {
	Cities    []SessionlistFacet `json:"cities"`
	Countries []SessionlistFacet `json:"countries"`
	Devices   []SessionlistFacet `json:"devices"`
}

// MaxFacetValues bounds each facet: its values with the most sessions.
const MaxFacetValues = 100

// SessionFacets counts the sessions in scope per city, country and device
// (values recorded only; most sessions first), in one statement.
func SessionFacets(ctx context.Context, db bun.IDB, storeID int64, sc SessionScope) (*SessionlistFacets, error) {
	var rows []struct {
		Facet    string `bun:"facet"`
		Value    string `bun:"value"`
		Sessions int64  `bun:"sessions"`
	}
	err := db.NewRaw(`WITH f AS (?)
		SELECT facet, value, sessions FROM (
			SELECT facet, value, count(*) AS sessions,
				row_number() OVER (PARTITION BY facet ORDER BY count(*) DESC, value) AS rank
			FROM f CROSS JOIN LATERAL (VALUES ('city', f.city), ('country', upper(f.country)), ('device', lower(f.device))) AS v (facet, value)
			WHERE value IS NOT NULL AND value <> ''
			GROUP BY facet, value) AS counted
		WHERE rank <= ? ORDER BY facet, sessions DESC, value`,
		scopedSessions(db, storeID, sc).ColumnExpr("session_row.*"), MaxFacetValues).Scan(ctx, &rows)
	if err != nil {
		return nil, err
	}
	out := &SessionlistFacets{Cities: []SessionlistFacet{}, Countries: []SessionlistFacet{}, Devices: []SessionlistFacet{}}
	for _, r := range rows {
		v := SessionlistFacet{Value: r.Value, Sessions: r.Sessions}
		switch r.Facet {
		case "city":
			out.Cities = append(out.Cities, v)
		case "country":
			out.Countries = append(out.Countries, v)
		case "device":
			out.Devices = append(out.Devices, v)
		}
	}
	return out, nil
}

// StoreeventsFunnel counts the sessions in scope that reached each step
// and every step before it, so each count is a subset of the one before.
type StoreeventsFunnel struct {
	Sessions        int64 `bun:"sessions" json:"sessions"`
	ViewedProduct   int64 `bun:"viewed_product" json:"viewed_product"`
	AddedToCart     int64 `bun:"added_to_cart" json:"added_to_cart"`
	ReachedCheckout int64 `bun:"reached_checkout" json:"reached_checkout"`
	Purchased       int64 `bun:"purchased" json:"purchased"`
}

// StorefrontFunnel counts the funnel of the sessions in scope in one
// statement.
func StorefrontFunnel(ctx context.Context, db bun.IDB, storeID int64, sc SessionScope) (*StoreeventsFunnel, error) {
	out := new(StoreeventsFunnel)
	err := scopedSessions(db, storeID, sc).
		ColumnExpr("count(*) AS sessions").
		ColumnExpr("count(*) FILTER (WHERE viewed_product) AS viewed_product").
		ColumnExpr("count(*) FILTER (WHERE viewed_product AND carted) AS added_to_cart").
		ColumnExpr("count(*) FILTER (WHERE viewed_product AND carted AND reached_checkout) AS reached_checkout").
		ColumnExpr("count(*) FILTER (WHERE viewed_product AND carted AND reached_checkout AND orders > 0) AS purchased").
		Scan(ctx, out)
	return out, err
}
