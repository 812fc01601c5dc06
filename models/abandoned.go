package models

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"time"

	"github.com/uptrace/bun"

	"storeadmin/internal/base/apperr"
)

// Abandonment: the storefront's carts and checkouts that the shopper left
// without paying. internal/abandonment flags them (abandoned_at, once);
// the recovery area counts its reminders into recovery_emails; an order
// placed from them sets recovered_at. These functions read them for the
// admin lists and details, and do the flagging's writes.

// AbandonedCart is a storefront cart as the abandonment area reads it (a
// row of GET /store/abandoned-carts, AbandonedCartRowView).
type AbandonedCart struct {
	bun.BaseModel `bun:"table:carts,alias:c"`

	ID               int64      `bun:"id,pk" json:"-"`
	StoreID          int64      `bun:"store_id" json:"-"`
	Token            string     `bun:"token" json:"token"`
	VisitorID        *int64     `bun:"visitor_id" json:"-"`
	SessionID        *int64     `bun:"session_id" json:"-"`
	Currency         string     `bun:"currency" json:"currency"`
	Email            string     `bun:"email" json:"email"`
	Phone            string     `bun:"phone" json:"-"`
	FirstName        string     `bun:"first_name" json:"-"`
	LastName         string     `bun:"last_name" json:"-"`
	MarketingConsent bool       `bun:"marketing_consent" json:"-"`
	ItemCount        int64      `bun:"item_count" json:"item_count"`
	SubtotalCents    int64      `bun:"subtotal_cents" json:"subtotal_cents"`
	AbandonedAt      *time.Time `bun:"abandoned_at" json:"abandoned_at"`
	RecoveredAt      *time.Time `bun:"recovered_at" json:"recovered_at"`
	RecoveryEmails   int64      `bun:"recovery_emails" json:"recovery_emails"`
	CreatedAt        time.Time  `bun:"created_at" json:"-"`
	UpdatedAt        time.Time  `bun:"updated_at" json:"-"`
	// Recovered: an order was placed from the cart after it was abandoned
	// (recovered_at is set).
	Recovered bool `bun:"recovered,scanonly" json:"recovered"`
	// CheckoutToken is the token of the checkout the cart went on to, the
	// latest when there are several; empty when none.
	CheckoutToken string `bun:"checkout_token,scanonly" json:"-"`
}

// AbandonedCheckout is a storefront checkout as the abandonment area reads
// it (a row of GET /store/abandoned-checkouts, AbandonedCheckoutRowView,
// and the record its detail is made from).
type AbandonedCheckout struct {
	bun.BaseModel `bun:"table:checkouts,alias:co"`

	ID               int64           `bun:"id,pk" json:"-"`
	StoreID          int64           `bun:"store_id" json:"-"`
	Token            string          `bun:"token" json:"token"`
	SessionID        *int64          `bun:"session_id" json:"-"`
	CheckoutState    string          `bun:"state" json:"-"`
	Currency         string          `bun:"currency" json:"currency"`
	Email            string          `bun:"email" json:"email"`
	Phone            string          `bun:"phone" json:"-"`
	MarketingConsent bool            `bun:"marketing_consent" json:"-"`
	ShippingAddress  json.RawMessage `bun:"shipping_address,type:jsonb" json:"-"`
	BillingAddress   json.RawMessage `bun:"billing_address,type:jsonb" json:"-"`
	ShippingLine     json.RawMessage `bun:"shipping_line,type:jsonb" json:"-"`
	DiscountCode     string          `bun:"discount_code" json:"-"`
	ItemCount        int64           `bun:"item_count" json:"item_count"`
	SubtotalCents    int64           `bun:"subtotal_cents" json:"-"`
	DiscountCents    int64           `bun:"discount_cents" json:"-"`
	ShippingCents    int64           `bun:"shipping_cents" json:"-"`
	TaxCents         int64           `bun:"tax_cents" json:"-"`
	TipCents         int64           `bun:"tip_cents" json:"-"`
	SurchargeCents   int64           `bun:"surcharge_cents" json:"-"`
	TotalCents       int64           `bun:"total_cents" json:"total_cents"`
	Step             string          `bun:"step" json:"-"`
	UTM              json.RawMessage `bun:"utm,type:jsonb" json:"-"`
	Tracking         json.RawMessage `bun:"tracking,type:jsonb" json:"-"`
	CompletedAt      *time.Time      `bun:"completed_at" json:"-"`
	ExpiresAt        time.Time       `bun:"expires_at" json:"-"`
	AbandonedAt      *time.Time      `bun:"abandoned_at" json:"abandoned_at"`
	RecoveredAt      *time.Time      `bun:"recovered_at" json:"recovered_at"`
	RecoveryEmails   int64           `bun:"recovery_emails" json:"recovery_emails"`
	CreatedAt        time.Time       `bun:"created_at" json:"created_at"`
	UpdatedAt        time.Time       `bun:"updated_at" json:"-"`

	// What its payment attempts say (abandonedCheckoutColumns): how many
	// there were, and the last one's status and error.
	Attempts      int64   `bun:"attempts,scanonly" json:"attempts"`
	PaymentStatus *string `bun:"payment_status,scanonly" json:"payment_status"`
	PaymentError  *string `bun:"payment_error,scanonly" json:"payment_error"`
	// State is the abandonment's state (abandonedCheckoutState).
	State string `bun:"abandonment_state,scanonly" json:"state"`
	// Recovered: an order was placed from the checkout after it was
	// abandoned (recovered_at is set).
	Recovered bool `bun:"recovered,scanonly" json:"recovered"`
}

// The states of an abandoned checkout (AbandonedCheckoutRowView.state), in
// the order they win: an order placed from it after all, the checkout
// expired, its last payment attempt failed, or simply left.
const (
	AbandonedRecovered     = "recovered"
	AbandonedExpired       = "expired"
	AbandonedPaymentFailed = "payment_failed"
	AbandonedLeft          = "abandoned"
)

// AbandonedCheckoutStates are the states a filter may name.
var AbandonedCheckoutStates = []string{AbandonedLeft, AbandonedPaymentFailed, AbandonedExpired, AbandonedRecovered}

// abandonedCheckoutAttempts sums up each checkout's payment attempts (pa):
// one index range per checkout (checkout_payment_attempts_checkout_idx).
const abandonedCheckoutAttempts = `LEFT JOIN LATERAL (
	SELECT count(*) AS n,
		(array_agg(a.status ORDER BY a.created_at DESC, a.id DESC))[1] AS status,
		(array_agg(coalesce(a.error_message, a.error_code) ORDER BY a.created_at DESC, a.id DESC))[1] AS error
	FROM checkout_payment_attempts AS a WHERE a.checkout_id = co.id) AS pa ON true`

// abandonedCheckoutState is the SQL of AbandonedCheckout.State over co and
// pa.
const abandonedCheckoutState = `CASE WHEN co.recovered_at IS NOT NULL THEN 'recovered'
	WHEN co.state = 'expired' OR (co.state = 'open' AND co.expires_at <= now()) THEN 'expired'
	WHEN pa.status IN ('failure', 'error') THEN 'payment_failed'
	ELSE 'abandoned' END`

// selectAbandonedCheckouts selects whole checkouts with their attempts'
// summary and state.
func selectAbandonedCheckouts(db bun.IDB, storeID int64, rows any) *bun.SelectQuery {
	return db.NewSelect().Model(rows).ColumnExpr("?TableColumns").
		ColumnExpr("pa.n AS attempts, pa.status AS payment_status, pa.error AS payment_error").
		ColumnExpr(abandonedCheckoutState+" AS abandonment_state").
		ColumnExpr("co.recovered_at IS NOT NULL AS recovered").
		Join(abandonedCheckoutAttempts).
		Where("co.store_id = ?", storeID)
}

// selectAbandonedCarts selects whole carts with the token of the last
// checkout each went on to.
func selectAbandonedCarts(db bun.IDB, storeID int64, rows any) *bun.SelectQuery {
	return db.NewSelect().Model(rows).ColumnExpr("?TableColumns").ColumnExpr("c.recovered_at IS NOT NULL AS recovered").
		ColumnExpr(`coalesce((SELECT k.token FROM checkouts AS k WHERE k.cart_id = c.id ORDER BY k.created_at DESC, k.id DESC LIMIT 1), '') AS checkout_token`).
		Where("c.store_id = ?", storeID)
}

// AbandonedFilter narrows a list of abandoned carts or checkouts, and its
// stats. The window is on abandoned_at: From inclusive, To exclusive.
// State is a checkout's (AbandonedCheckoutStates); carts have Recovered.
type AbandonedFilter struct {
	From      *time.Time `json:"from"`
	To        *time.Time `json:"to"`
	State     *string    `json:"state,omitempty"`
	Recovered *bool      `json:"recovered"`
	Email     *string    `json:"email"`
	MinCents  *int64     `json:"min_cents"`
	MaxCents  *int64     `json:"max_cents"`
}

// Check refuses a filter the lists cannot run.
func (f AbandonedFilter) Check() error {
	if f.From != nil && f.To != nil && !f.From.Before(*f.To) {
		return apperr.Invalidf("from must be before to")
	}
	if f.State != nil {
		if !slices.Contains(AbandonedCheckoutStates, *f.State) {
			return apperr.Invalidf("state must be one of %s, not %q", strings.Join(AbandonedCheckoutStates, ", "), *f.State)
		}
	}
	if f.Email != nil && len(*f.Email) > 254 {
		return apperr.Invalidf("email must be at most 254 characters")
	}
	for _, b := range []struct {
		name string
		v    *int64
	}{{"min_cents", f.MinCents}, {"max_cents", f.MaxCents}} {
		if b.v != nil && *b.v < 0 {
			return apperr.Invalidf("%s must be 0 or more, not %d", b.name, *b.v)
		}
	}
	if f.MinCents != nil && f.MaxCents != nil && *f.MinCents > *f.MaxCents {
		return apperr.Invalidf("min_cents must be at most max_cents")
	}
	return nil
}

// apply narrows q, a statement over alias (c or co), whose amount is the
// column amount, to the abandoned records under f. State is applied by
// the checkouts' list only.
func (f AbandonedFilter) apply(q *bun.SelectQuery, alias, amount string) *bun.SelectQuery {
	q = q.Where("?.abandoned_at IS NOT NULL", bun.Ident(alias))
	if f.From != nil {
		q = q.Where("?.abandoned_at >= ?", bun.Ident(alias), *f.From)
	}
	if f.To != nil {
		q = q.Where("?.abandoned_at < ?", bun.Ident(alias), *f.To)
	}
	if f.Recovered != nil {
		if *f.Recovered {
			q = q.Where("?.recovered_at IS NOT NULL", bun.Ident(alias))
		} else {
			q = q.Where("?.recovered_at IS NULL", bun.Ident(alias))
		}
	}
	if f.Email != nil && strings.TrimSpace(*f.Email) != "" {
		q = q.Where("lower(?.email) = ?", bun.Ident(alias), strings.ToLower(strings.TrimSpace(*f.Email)))
	}
	if f.MinCents != nil {
		q = q.Where("?.? >= ?", bun.Ident(alias), bun.Ident(amount), *f.MinCents)
	}
	if f.MaxCents != nil {
		q = q.Where("?.? <= ?", bun.Ident(alias), bun.Ident(amount), *f.MaxCents)
	}
	return q
}

func (f AbandonedFilter) applyCarts(q *bun.SelectQuery) *bun.SelectQuery {
	return f.apply(q, "c", "subtotal_cents")
}

func (f AbandonedFilter) applyCheckouts(q *bun.SelectQuery) *bun.SelectQuery {
	q = f.apply(q, "co", "total_cents")
	if f.State != nil {
		q = q.Where(abandonedCheckoutState+" = ?", *f.State)
	}
	return q
}

// The lists' one order: the latest abandoned first.
var (
	abandonedCartsNewestFirst = Sort[AbandonedCart]{Desc: true, Keys: []SortKey[AbandonedCart]{
		{SQL: "c.abandoned_at", Of: func(c *AbandonedCart) any { return c.AbandonedAt }},
		{SQL: "c.id", Of: func(c *AbandonedCart) any { return c.ID }},
	}}
	abandonedCheckoutsNewestFirst = Sort[AbandonedCheckout]{Desc: true, Keys: []SortKey[AbandonedCheckout]{
		{SQL: "co.abandoned_at", Of: func(c *AbandonedCheckout) any { return c.AbandonedAt }},
		{SQL: "co.id", Of: func(c *AbandonedCheckout) any { return c.ID }},
	}}
)

// PageAbandonedCarts lists a store's abandoned carts under f, the latest
// abandoned first, with the cursor of the next page.
func PageAbandonedCarts(ctx context.Context, db bun.IDB, storeID int64, f AbandonedFilter, p Paging) (Page[AbandonedCart], error) {
	scope, err := PageScope("abandoned-carts", storeID, f)
	if err != nil {
		return Page[AbandonedCart]{}, err
	}
	p.Columns = AllColumns // the statement names its columns
	var out []AbandonedCart
	q := selectAbandonedCarts(db, storeID, &out).Apply(f.applyCarts)
	return ReadPage(ctx, db, q, &out, abandonedCartsNewestFirst, scope, p)
}

// PageAbandonedCheckouts lists a store's abandoned checkouts under f, the
// latest abandoned first, with the cursor of the next page.
func PageAbandonedCheckouts(ctx context.Context, db bun.IDB, storeID int64, f AbandonedFilter, p Paging) (Page[AbandonedCheckout], error) {
	scope, err := PageScope("abandoned-checkouts", storeID, f)
	if err != nil {
		return Page[AbandonedCheckout]{}, err
	}
	p.Columns = AllColumns
	var out []AbandonedCheckout
	q := selectAbandonedCheckouts(db, storeID, &out).Apply(f.applyCheckouts)
	return ReadPage(ctx, db, q, &out, abandonedCheckoutsNewestFirst, scope, p)
}

// AbandonmentStats sums up a list of abandoned carts or checkouts
// (AbandonmentStatsView).
type AbandonmentStats struct {
	// Total is how many the list holds (its total).
	Total int64 `bun:"total" json:"total"`
	// Recovered is how many of them an order was placed from.
	Recovered int64 `bun:"recovered" json:"recovered"`
	// RecoveredCents is what those orders came to: each recovered order's
	// total, or the cart's subtotal (the checkout's total) when the order
	// is not known.
	RecoveredCents int64 `bun:"recovered_cents" json:"recovered_cents"`
}

// RecoveryRate is Recovered over Total, from 0 to 1 (0 without any).
func (s *AbandonmentStats) RecoveryRate() float64 {
	if s.Total == 0 {
		return 0
	}
	return float64(s.Recovered) / float64(s.Total)
}

// abandonmentStatsColumns sums what a list holds, over alias, amount its
// own amount.
func abandonmentStats(q *bun.SelectQuery, alias, amount string) *bun.SelectQuery {
	return q.ColumnExpr("count(*) AS total").
		ColumnExpr("count(?.recovered_at) AS recovered", bun.Ident(alias)).
		ColumnExpr(`coalesce(sum(CASE WHEN ?0.recovered_at IS NOT NULL THEN coalesce(
			(SELECT o.total_cents FROM orders AS o WHERE o.id = ?0.recovered_order_id AND o.store_id = ?0.store_id), ?0.?1) END), 0) AS recovered_cents`,
			bun.Ident(alias), bun.Ident(amount))
}

// AbandonedCartStats sums up the abandoned carts under f.
func AbandonedCartStats(ctx context.Context, db bun.IDB, storeID int64, f AbandonedFilter) (AbandonmentStats, error) {
	var s AbandonmentStats
	q := db.NewSelect().TableExpr("carts AS c").Where("c.store_id = ?", storeID).Apply(f.applyCarts)
	err := abandonmentStats(q, "c", "subtotal_cents").Scan(ctx, &s)
	return s, err
}

// AbandonedCheckoutStats sums up the abandoned checkouts under f.
func AbandonedCheckoutStats(ctx context.Context, db bun.IDB, storeID int64, f AbandonedFilter) (AbandonmentStats, error) {
	var s AbandonmentStats
	q := db.NewSelect().TableExpr("checkouts AS co").Join(abandonedCheckoutAttempts).
		Where("co.store_id = ?", storeID).Apply(f.applyCheckouts)
	err := abandonmentStats(q, "co", "total_cents").Scan(ctx, &s)
	return s, err
}

// GetAbandonedCart reads the store's cart token, if it was abandoned: a
// cart never flagged is not found here.
func GetAbandonedCart(ctx context.Context, db bun.IDB, storeID int64, token string) (*AbandonedCart, error) {
	c := new(AbandonedCart)
	err := selectAbandonedCarts(db, storeID, c).Where("c.token = ? AND c.abandoned_at IS NOT NULL", token).Scan(ctx)
	return c, classify(err, "the abandoned cart")
}

// GetAbandonedCheckout reads the store's checkout token, if it was
// abandoned: a checkout never flagged is not found here.
func GetAbandonedCheckout(ctx context.Context, db bun.IDB, storeID int64, token string) (*AbandonedCheckout, error) {
	c := new(AbandonedCheckout)
	err := selectAbandonedCheckouts(db, storeID, c).Where("co.token = ? AND co.abandoned_at IS NOT NULL", token).Scan(ctx)
	return c, classify(err, "the abandoned checkout")
}

// AbandonedCheckoutsByID reads the store's checkouts ids as the list does.
func AbandonedCheckoutsByID(ctx context.Context, db bun.IDB, storeID int64, ids []int64) ([]AbandonedCheckout, error) {
	var out []AbandonedCheckout
	err := selectAbandonedCheckouts(db, storeID, &out).Where("co.id IN (?)", bun.List(ids)).Order("co.id").Scan(ctx)
	return out, err
}

// AbandonedCartsByID reads the store's carts ids as the list does.
func AbandonedCartsByID(ctx context.Context, db bun.IDB, storeID int64, ids []int64) ([]AbandonedCart, error) {
	var out []AbandonedCart
	err := selectAbandonedCarts(db, storeID, &out).Where("c.id IN (?)", bun.List(ids)).Order("c.id").Scan(ctx)
	return out, err
}

// CheckoutRecoveryMessages reads the reminders of the store's checkout id,
// oldest first.
func CheckoutRecoveryMessages(ctx context.Context, db bun.IDB, storeID, checkoutID int64) ([]RecoveryMessage, error) {
	var out []RecoveryMessage
	err := db.NewSelect().Model(&out).Where("store_id = ? AND checkout_id = ?", storeID, checkoutID).
		Order("created_at", "id").Scan(ctx)
	return out, err
}

// MaxSessionActivity is how many browsing events a detail shows: the
// session's first ones.
const MaxSessionActivity = 500

// VisitorTimes are when a cart's visitor identified and was last seen.
type VisitorTimes struct {
	IdentifiedAt *time.Time `bun:"identified_at"`
	LastSeenAt   *time.Time `bun:"last_seen_at"`
}

// GetVisitorTimes reads the times of the store's visitor id; zero when it
// is gone.
func GetVisitorTimes(ctx context.Context, db bun.IDB, storeID, id int64) (VisitorTimes, error) {
	var out []VisitorTimes
	err := db.NewSelect().Table("visitors").Column("identified_at", "last_seen_at").
		Where("store_id = ? AND id = ?", storeID, id).Scan(ctx, &out)
	if err != nil || len(out) == 0 {
		return VisitorTimes{}, err
	}
	return out[0], nil
}

// Flagged is a cart or checkout the abandonment job just flagged.
type Flagged struct {
	ID    int64  `bun:"id"`
	Token string `bun:"token"`
}

// FlagAbandonedCarts flags the store's carts idle since before idleSince
// as abandoned at now, at most limit of them, and returns them: carts with
// lines and an email, never flagged, not recovered, that no checkout was
// started from (the checkout is then what was abandoned). Rows another
// transaction holds are skipped (FOR UPDATE SKIP LOCKED): a concurrent run
// flags the others, and each cart is flagged by one run only.
func FlagAbandonedCarts(ctx context.Context, tx bun.Tx, storeID int64, idleSince, now time.Time, limit int) ([]Flagged, error) {
	due := tx.NewSelect().TableExpr("carts AS c").Column("c.id").
		Where("c.store_id = ? AND c.abandoned_at IS NULL AND c.recovered_at IS NULL", storeID).
		Where("c.updated_at <= ? AND c.item_count > 0 AND c.email <> ''", idleSince).
		Where("NOT EXISTS (SELECT 1 FROM checkouts AS k WHERE k.cart_id = c.id)").
		OrderExpr("c.updated_at, c.id").Limit(int64(limit)).For("UPDATE OF c SKIP LOCKED")
	var out []Flagged
	_, err := tx.NewUpdate().Table("carts").Set("abandoned_at = ?", now).
		Where("id IN (?)", due).Returning("id, token").Exec(ctx, &out)
	return out, err
}

// FlagAbandonedCheckouts flags the store's open checkouts idle since
// before idleSince as abandoned at now, at most limit of them, and returns
// them: checkouts with lines and an email, never flagged, not expired.
// Locked rows are skipped as FlagAbandonedCarts does.
func FlagAbandonedCheckouts(ctx context.Context, tx bun.Tx, storeID int64, idleSince, now time.Time, limit int) ([]Flagged, error) {
	due := tx.NewSelect().TableExpr("checkouts AS co").Column("co.id").
		Where("co.store_id = ? AND co.abandoned_at IS NULL AND co.state = 'open'", storeID).
		Where("co.updated_at <= ? AND co.expires_at > ? AND co.item_count > 0 AND co.email <> ''", idleSince, now).
		OrderExpr("co.updated_at, co.id").Limit(int64(limit)).For("UPDATE OF co SKIP LOCKED")
	var out []Flagged
	_, err := tx.NewUpdate().Table("checkouts").Set("abandoned_at = ?", now).
		Where("id IN (?)", due).Returning("id, token").Exec(ctx, &out)
	return out, err
}

// StoresWithIdleCarts lists, by id, the stores after the store id after
// that have carts or checkouts the abandonment job could flag (with lines
// and an email, not yet flagged) idle since before idleSince, at most
// limit of them: the ones the job visits, each with its own policy. The
// partial indexes of migration abandonment hold just those.
func StoresWithIdleCarts(ctx context.Context, db bun.IDB, idleSince time.Time, after int64, limit int) ([]int64, error) {
	var out []int64
	err := db.NewRaw(`SELECT store_id FROM (
		SELECT store_id FROM carts
		WHERE abandoned_at IS NULL AND email <> '' AND item_count > 0 AND updated_at <= ?0 AND store_id > ?1
		UNION
		SELECT store_id FROM checkouts
		WHERE abandoned_at IS NULL AND state = 'open' AND email <> '' AND item_count > 0 AND updated_at <= ?0 AND store_id > ?1
	) AS s ORDER BY store_id LIMIT ?2`, idleSince, after, limit).Scan(ctx, &out)
	return out, err
}
