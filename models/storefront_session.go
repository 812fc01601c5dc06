package models

import (
	"context"
	"time"

	"github.com/uptrace/bun"
)

// StoreeventsSession is a storefront visit as the storefront surface
// recorded it (storefront_sessions; the ingestion writes it). The API
// names it by session_key, never by its row id.
type StoreeventsSession struct {
	bun.BaseModel `bun:"table:storefront_sessions,alias:storefront_session"`

	ID             int64     `bun:"id,pk" json:"-"`
	StoreID        int64     `bun:"store_id" json:"-"`
	SessionKey     string    `bun:"session_key" json:"session_id"`
	VisitorID      int64     `bun:"visitor_id" json:"-"`
	FirstSeenAt    time.Time `bun:"first_seen_at" json:"first_seen_at"`
	LastSeenAt     time.Time `bun:"last_seen_at" json:"last_seen_at"`
	LandingPath    *string   `bun:"landing_path" json:"landing_path"`
	Referrer       *string   `bun:"referrer" json:"referrer"`
	UserAgent      *string   `bun:"user_agent" json:"user_agent"`
	Browser        *string   `bun:"browser" json:"browser"`
	BrowserVersion *string   `bun:"browser_version" json:"browser_version"`
	OS             *string   `bun:"os" json:"os"`
	OSVersion      *string   `bun:"os_version" json:"os_version"`
	Device         *string   `bun:"device" json:"device"`
	IsBot          *bool     `bun:"is_bot" json:"is_bot"`
	// IP is read as text (host(ip)): the column is inet.
	IP        *string `bun:"ip,scanonly" json:"ip"`
	Country   *string `bun:"country" json:"country"`
	Region    *string `bun:"region" json:"region"`
	City      *string `bun:"city" json:"city"`
	Language  *string `bun:"language" json:"language"`
	Timezone  *string `bun:"timezone" json:"timezone"`
	ScreenW   *int64  `bun:"screen_w" json:"screen_w"`
	ScreenH   *int64  `bun:"screen_h" json:"screen_h"`
	ViewportW *int64  `bun:"viewport_w" json:"viewport_w"`
	ViewportH *int64  `bun:"viewport_h" json:"viewport_h"`
}

// sessionColumns reads a whole session, its inet address as text.
func sessionColumns(q *bun.SelectQuery) *bun.SelectQuery {
	return q.ColumnExpr("storefront_session.id, storefront_session.store_id, storefront_session.session_key, storefront_session.visitor_id, " +
		"storefront_session.first_seen_at, storefront_session.last_seen_at, storefront_session.landing_path, storefront_session.referrer, " +
		"storefront_session.user_agent, storefront_session.browser, storefront_session.browser_version, storefront_session.os, " +
		"storefront_session.os_version, storefront_session.device, storefront_session.is_bot, host(storefront_session.ip) AS ip, " +
		"storefront_session.country, storefront_session.region, storefront_session.city, storefront_session.language, " +
		"storefront_session.timezone, storefront_session.screen_w, storefront_session.screen_h, storefront_session.viewport_w, " +
		"storefront_session.viewport_h")
}

// GetSessionByKey reads one session of the store by its public key.
func GetSessionByKey(ctx context.Context, db bun.IDB, storeID int64, key string) (*StoreeventsSession, error) {
	s := new(StoreeventsSession)
	err := db.NewSelect().Model(s).Apply(sessionColumns).
		Where("storefront_session.store_id = ? AND storefront_session.session_key = ?", storeID, key).Scan(ctx)
	return s, classify(err, "the session")
}

// SessionsByID loads several sessions, for a dataloader (the session of an
// order, a cart, a checkout). It names its own columns.
func SessionsByID(ctx context.Context, db bun.IDB, storeID int64, ids []int64, _ Columns) ([]StoreeventsSession, error) {
	out := make([]StoreeventsSession, 0, len(ids)) // at most one row per id
	err := db.NewSelect().Model(&out).Apply(sessionColumns).
		Where("storefront_session.store_id = ? AND storefront_session.id IN (?)", storeID, bun.List(ids)).Scan(ctx)
	return out, err
}

// StoreeventsActivity is one browsing event of a session
// (storefront_events; the ingestion writes it).
type StoreeventsActivity struct {
	bun.BaseModel `bun:"table:storefront_events,alias:storefront_event"`

	ID            int64     `bun:"id,pk" json:"-"`
	StoreID       int64     `bun:"store_id" json:"-"`
	SessionID     int64     `bun:"session_id" json:"-"`
	Name          string    `bun:"name" json:"name"`
	OccurredAt    time.Time `bun:"occurred_at" json:"occurred_at"`
	Path          *string   `bun:"path" json:"path"`
	ProductID     *int64    `bun:"product_id" json:"product_id"`
	VariantID     *int64    `bun:"variant_id" json:"variant_id"`
	ProductTitle  *string   `bun:"product_title" json:"-"`
	SearchQuery   *string   `bun:"search_query" json:"-"`
	ResultCount   *int64    `bun:"result_count" json:"result_count"`
	ElSelector    *string   `bun:"el_selector" json:"el_selector"`
	ElText        *string   `bun:"el_text" json:"el_text"`
	DwellMS       *int64    `bun:"dwell_ms" json:"dwell_ms"`
	ScrollPct     *int64    `bun:"scroll_pct" json:"scroll_pct"`
	ValueCents    *int64    `bun:"value_cents" json:"value_cents"`
	Currency      *string   `bun:"currency" json:"currency"`
	Quantity      *int64    `bun:"quantity" json:"-"`
	Step          *string   `bun:"step" json:"-"`
	CartToken     *string   `bun:"cart_token" json:"-"`
	CheckoutToken *string   `bun:"checkout_token" json:"-"`
	Detail        any       `bun:"detail,type:jsonb" json:"-"`
}

// EventsBySession loads the first limit events of several sessions, oldest
// first, for a dataloader.
func EventsBySession(ctx context.Context, db bun.IDB, storeID int64, sessionIDs []int64, limit int64, cols Columns) ([]StoreeventsActivity, error) {
	var out []StoreeventsActivity
	ranked := db.NewSelect().Model((*StoreeventsActivity)(nil)).
		ColumnExpr("*, row_number() OVER (PARTITION BY session_id ORDER BY occurred_at, id) AS rank").
		Where("store_id = ? AND session_id IN (?)", storeID, bun.List(sessionIDs))
	err := db.NewSelect().Model(&out).Apply(cols.Apply).ModelTableExpr("(?) AS storefront_event", ranked).
		Where("rank <= ?", limit).Order("session_id", "occurred_at", "id").Scan(ctx)
	return out, err
}

// StorefrontVisitor is a browser the storefront knows by the visitor id it
// keeps, a customer once the shopper identifies (visitors).
type StorefrontVisitor struct {
	bun.BaseModel `bun:"table:visitors,alias:visitor"`

	ID           int64      `bun:"id,pk" json:"id"`
	StoreID      int64      `bun:"store_id" json:"-"`
	AnonID       string     `bun:"anon_id" json:"anon_id"`
	CustomerID   *int64     `bun:"customer_id" json:"customer_id"`
	Email        string     `bun:"email" json:"email"`
	IdentifiedAt *time.Time `bun:"identified_at" json:"identified_at"`
	FirstSeenAt  time.Time  `bun:"first_seen_at" json:"first_seen_at"`
	LastSeenAt   time.Time  `bun:"last_seen_at" json:"last_seen_at"`
}

// VisitorsByID loads several visitors, for a dataloader.
func VisitorsByID(ctx context.Context, db bun.IDB, storeID int64, ids []int64, cols Columns) ([]StorefrontVisitor, error) {
	out := make([]StorefrontVisitor, 0, len(ids)) // at most one row per id
	err := db.NewSelect().Model(&out).Apply(cols.Apply).Where("store_id = ? AND id IN (?)", storeID, bun.List(ids)).Scan(ctx)
	return out, err
}

// OrdersBySession loads the orders several sessions led to, oldest first,
// for a dataloader.
func OrdersBySession(ctx context.Context, db bun.IDB, storeID int64, sessionIDs []int64, cols Columns) ([]Order, error) {
	out := manyRows[Order](len(sessionIDs))
	err := db.NewSelect().Model(&out).Apply(cols.Apply).Where("store_id = ? AND session_id IN (?)", storeID, bun.List(sessionIDs)).
		Order("session_id", "created_at", "id").Scan(ctx)
	return out, err
}

// PurgeStorefrontEvents deletes the browsing events of every store that
// happened before horizon, at most batch of them, and says how many went:
// the retention job calls it until a batch comes back short, so no
// statement holds locks on millions of rows. The events are found store
// by store, so each look-up is a range of the (store_id, occurred_at)
// index.
func PurgeStorefrontEvents(ctx context.Context, db bun.IDB, before time.Time, batch int) (int64, error) {
	res, err := db.NewRaw(`DELETE FROM storefront_events WHERE id IN (
		SELECT old.id FROM stores CROSS JOIN LATERAL (
			SELECT id FROM storefront_events WHERE store_id = stores.id AND occurred_at < ? LIMIT ?) AS old
		LIMIT ?)`, before, batch, batch).Exec(ctx)
	if err != nil {
		return 0, err
	}
	return res.RowsAffected()
}
