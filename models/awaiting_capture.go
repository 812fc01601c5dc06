package models

import (
	"context"
	"time"

	"github.com/uptrace/bun"
)

// AttentionWindow is how close to its expiry an authorization needs
// attention.
const AttentionWindow = 48 * time.Hour

// AwaitingCapture is a payment authorized and not yet captured or voided,
// on an order that is not cancelled.
type AwaitingCapture struct {
	TransactionID  int64      `bun:"transaction_id" json:"transaction_id"`
	OrderID        int64      `bun:"order_id" json:"order_id"`
	AmountCents    int64      `bun:"amount_cents" json:"amount_cents"`
	Attempts       int64      `bun:"attempts" json:"attempts"`
	AuthorizedAt   time.Time  `bun:"authorized_at" json:"authorized_at"`
	CaptureModel   string     `bun:"capture_model" json:"capture_model"`
	DraftName      string     `bun:"draft_name" json:"draft_name"`
	DraftOrderID   int64      `bun:"draft_order_id" json:"draft_order_id"`
	Email          string     `bun:"email" json:"email"`
	Error          string     `bun:"error" json:"error"`
	ExpiresAt      *time.Time `bun:"expires_at" json:"expires_at"`
	ItemCount      int64      `bun:"item_count" json:"item_count"`
	LastAttemptAt  *time.Time `bun:"last_attempt_at" json:"last_attempt_at"`
	NeedsAttention bool       `bun:"needs_attention" json:"needs_attention"`
	PaymentMethod  *string    `bun:"payment_method" json:"payment_method"`
	Provider       string     `bun:"provider" json:"provider"`
	State          string     `bun:"state" json:"state"`
	SurchargeCents int64      `bun:"surcharge_cents" json:"surcharge_cents"`
	TotalCents     int64      `bun:"total_cents" json:"total_cents"`
	Currency       string     `bun:"currency" json:"currency"`

	// The post-purchase funnel run that holds the payment open (a run of
	// funnel_runs on this authorization, still running); read by
	// withRunningFunnel, null and false without one.
	CurrentPosition *int64  `bun:"current_position" json:"current_position"`
	FunnelID        *int64  `bun:"funnel_id" json:"funnel_id"`
	FunnelName      *string `bun:"funnel_name" json:"funnel_name"`
	HasFunnel       bool    `bun:"has_funnel" json:"has_funnel"`
	OfferCount      *int64  `bun:"offer_count" json:"offer_count"`
}

// awaitingCaptureQuery selects the store's open authorizations with their
// capture attempts and state as of now. The state is computed here so that
// the attention count and the list agree.
func awaitingCaptureQuery(db bun.IDB, storeID int64, now time.Time) *bun.SelectQuery {
	attempts := db.NewSelect().Table("order_transactions").ColumnExpr("count(*)").
		Where("parent_id = t.id AND kind = 'capture'")
	lastAttempt := db.NewSelect().Table("order_transactions").ColumnExpr("max(created_at)").
		Where("parent_id = t.id AND kind = 'capture'")
	lastError := db.NewSelect().Table("order_transactions").ColumnExpr("coalesce(error, status)").
		Where("parent_id = t.id AND kind = 'capture' AND status IN ('failure', 'error')").
		OrderExpr("created_at DESC, id DESC").Limit(1)
	items := db.NewSelect().Table("order_line_items").ColumnExpr("coalesce(sum(quantity), 0)").
		Where("order_id = o.id")
	state := `CASE WHEN coalesce((?), '') <> '' THEN 'capture_failed'
		WHEN t.expires_at IS NOT NULL AND t.expires_at <= ? THEN 'expired'
		WHEN t.expires_at IS NOT NULL AND t.expires_at <= ? THEN 'expiring'
		ELSE 'authorized' END`
	return awaitingCaptureRows(db, storeID).
		Join("JOIN orders AS o ON o.id = t.order_id").
		Join("LEFT JOIN draft_orders AS dr ON dr.id = o.draft_order_id").
		ColumnExpr("t.id AS transaction_id, o.id AS order_id, t.amount_cents, t.created_at AS authorized_at").
		ColumnExpr("'manual' AS capture_model, coalesce(dr.name, o.order_number_display) AS draft_name").
		ColumnExpr("coalesce(o.draft_order_id, 0) AS draft_order_id, o.email, t.expires_at").
		ColumnExpr("t.payment_method, t.provider, o.surcharge_cents, o.total_cents, t.currency").
		ColumnExpr("(?) AS attempts, (?) AS last_attempt_at, coalesce((?), '') AS error, (?) AS item_count",
			attempts, lastAttempt, lastError, items).
		ColumnExpr("("+state+") AS state", lastError, now, now.Add(AttentionWindow))
}

// withRunningFunnel adds to q (awaitingCaptureQuery) the funnel run that
// holds the authorization open: the run on t whose status is running (a
// run ended leaves none), and the offers it has reached so far, whatever
// their state. A join, not a loader: the list keeps its one statement. At
// most one run holds an authorization, as a run is its order's only one.
// The counts leave it out: a run changes no state.
func withRunningFunnel(db bun.IDB, q *bun.SelectQuery) *bun.SelectQuery {
	offers := db.NewSelect().Table("funnel_offers").ColumnExpr("count(*)").Where("run_id = fr.id")
	return q.Join("LEFT JOIN funnel_runs AS fr ON fr.transaction_id = t.id AND fr.store_id = t.store_id AND fr.status = ?", RunRunning).
		ColumnExpr("fr.id IS NOT NULL AS has_funnel, fr.funnel_id, fr.funnel_name, fr.current_position").
		ColumnExpr("CASE WHEN fr.id IS NOT NULL THEN (?) END AS offer_count", offers)
}

// awaitingCaptureRows selects the store's open authorizations (t),
// without columns: what the list, its page of ids and the counts share.
// Cancelled orders are left out by NOT EXISTS, not by a join: the few
// cancelled orders are read from their index, where a join read every
// order of the store (a million: 0.9 s).
func awaitingCaptureRows(db bun.IDB, storeID int64) *bun.SelectQuery {
	closed := db.NewSelect().Table("order_transactions").ColumnExpr("1").
		Where("parent_id = t.id AND kind IN ('capture', 'void') AND status = 'success'")
	cancelled := db.NewSelect().TableExpr("orders AS c").ColumnExpr("1").
		Where("c.id = t.order_id AND c.store_id = t.store_id AND c.status = ?", OrderCancelled)
	return db.NewSelect().TableExpr("order_transactions AS t").
		Where("t.store_id = ? AND t.kind = 'authorization' AND t.status = 'success'", storeID).
		Where("NOT EXISTS (?)", cancelled).
		Where("NOT EXISTS (?)", closed)
}

// ListAwaitingCapture lists the store's payments awaiting capture, oldest
// authorization first.
func ListAwaitingCapture(ctx context.Context, db bun.IDB, storeID int64, now time.Time, p Paging) ([]AwaitingCapture, error) {
	// The page's ids come first, so that the attempts, state and item
	// count are computed for its rows only, not for every row an offset
	// skips.
	ids := p.Apply(awaitingCaptureRows(db, storeID).ColumnExpr("t.id").OrderExpr("t.created_at, t.id"))
	var out []AwaitingCapture
	err := withRunningFunnel(db, awaitingCaptureQuery(db, storeID, now)).Where("t.id IN (?)", ids).OrderExpr("t.created_at, t.id").Scan(ctx, &out)
	return withAttention(out), err
}

// CountAwaitingCapture counts the store's payments awaiting capture, and
// those of them that need attention.
func CountAwaitingCapture(ctx context.Context, db bun.IDB, storeID int64, now time.Time) (all, attention int64, err error) {
	var c struct {
		All       int64 `bun:"all"`
		Attention int64 `bun:"attention"`
	}
	err = db.NewSelect().TableExpr("(?) AS a", awaitingCaptureQuery(db, storeID, now)).
		ColumnExpr("count(*) AS all, count(*) FILTER (WHERE state <> 'authorized') AS attention").
		Scan(ctx, &c)
	return c.All, c.Attention, err
}

// GetAwaitingCapture reads one payment awaiting capture by its
// authorization transaction id.
func GetAwaitingCapture(ctx context.Context, db bun.IDB, storeID, transactionID int64, now time.Time) (*AwaitingCapture, error) {
	var out []AwaitingCapture
	err := withRunningFunnel(db, awaitingCaptureQuery(db, storeID, now)).Where("t.id = ?", transactionID).Scan(ctx, &out)
	if err != nil {
		return nil, err
	}
	if len(out) == 0 {
		return nil, classify(errNoRows, "the payment awaiting capture")
	}
	return &withAttention(out)[0], nil
}

func withAttention(rows []AwaitingCapture) []AwaitingCapture {
	for i := range rows {
		rows[i].NeedsAttention = rows[i].State != "authorized"
	}
	return rows
}
