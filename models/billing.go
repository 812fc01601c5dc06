package models

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/uptrace/bun"

	"storeadmin/internal/base/apperr"
)

// Subscription statuses. Only the rows' times are stored; the status is
// what they say at the moment of reading (BillingSubscription.settle).
const (
	SubscriptionTrialing = "trialing"
	SubscriptionActive   = "active"
	SubscriptionPastDue  = "past_due"
	SubscriptionCanceled = "canceled"
)

// Plan statuses: a retired plan keeps its stores and takes no new ones.
const (
	PlanActive  = "active"
	PlanRetired = "retired"
)

// Invoice statuses.
const (
	InvoiceDraft         = "draft"
	InvoiceOpen          = "open"
	InvoicePaid          = "paid"
	InvoiceVoid          = "void"
	InvoiceUncollectible = "uncollectible"
)

// BillingPlan is a plan of the platform, shared by every store.
type BillingPlan struct {
	bun.BaseModel `bun:"table:billing_plans,alias:bp"`

	ID                       int64     `bun:"id,pk,autoincrement" json:"id"`
	Key                      string    `bun:"key" json:"key"`
	Name                     string    `bun:"name" json:"name"`
	Description              string    `bun:"description" json:"description"`
	PriceCents               int64     `bun:"price_cents" json:"price_cents"`
	Currency                 string    `bun:"currency" json:"currency"`
	BillingInterval          string    `bun:"billing_interval" json:"billing_interval"`
	Features                 []string  `bun:"features,array" json:"features"`
	TransactionFeeBps        int64     `bun:"transaction_fee_bps" json:"transaction_fee_bps"`
	TransactionFeeFixedCents int64     `bun:"transaction_fee_fixed_cents" json:"transaction_fee_fixed_cents"`
	TrialDays                int64     `bun:"trial_days" json:"trial_days"`
	IsDefault                bool      `bun:"is_default" json:"is_default"`
	Sort                     int64     `bun:"sort" json:"sort"`
	Status                   string    `bun:"status" json:"status"`
	CreatedAt                time.Time `bun:"created_at,nullzero,default:now()" json:"-"`
	UpdatedAt                time.Time `bun:"updated_at,nullzero,default:now()" json:"-"`
}

// BillingSubscription is a store's subscription. The trigger of migration
// billing makes one with every store, on the default plan.
type BillingSubscription struct {
	bun.BaseModel `bun:"table:billing_subscriptions,alias:bs"`

	ID                       int64  `bun:"id,pk,autoincrement" json:"id"`
	StoreID                  int64  `bun:"store_id" json:"store_id"`
	PlanID                   int64  `bun:"plan_id" json:"plan_id"`
	PriceCents               int64  `bun:"price_cents" json:"price_cents"`
	Currency                 string `bun:"currency" json:"currency"`
	BillingInterval          string `bun:"billing_interval" json:"billing_interval"`
	TransactionFeeBps        int64  `bun:"transaction_fee_bps" json:"transaction_fee_bps"`
	TransactionFeeFixedCents int64  `bun:"transaction_fee_fixed_cents" json:"transaction_fee_fixed_cents"`
	// StartedAt anchors the periods: each is one billing interval from
	// the one before, the first starting here.
	StartedAt   time.Time  `bun:"started_at" json:"-"`
	TrialEndsAt *time.Time `bun:"trial_ends_at" json:"trial_ends_at"`
	// CancelAt is when the subscription ends: the end of the period in
	// which cancellation was asked; nil while it runs on.
	CancelAt  *time.Time `bun:"cancel_at" json:"-"`
	CreatedAt time.Time  `bun:"created_at,nullzero,default:now()" json:"-"`
	UpdatedAt time.Time  `bun:"updated_at,nullzero,default:now()" json:"-"`
	// PastDue says that an open invoice is past its due date; read with
	// the row.
	PastDue bool `bun:"past_due,scanonly" json:"-"`

	// What the times say at the moment the subscription was read.
	Status             string    `bun:"-" json:"status"`
	CurrentPeriodStart time.Time `bun:"-" json:"current_period_start"`
	CurrentPeriodEnd   time.Time `bun:"-" json:"current_period_end"`
	CancelAtPeriodEnd  bool      `bun:"-" json:"cancel_at_period_end"`
}

// intervalMonths is the length of a billing interval in months.
func intervalMonths(interval string) int {
	if interval == "year" {
		return 12
	}
	return 1
}

// addMonths is t moved n calendar months, its day of the month kept, or
// the month's last day when the month is shorter (Jan 31 + 1 = Feb 28), so
// that periods anchored on the 31st do not drift.
func addMonths(t time.Time, n int) time.Time {
	y, m, d := t.Date()
	first := time.Date(y, m+time.Month(n), 1, t.Hour(), t.Minute(), t.Second(), t.Nanosecond(), t.Location())
	last := first.AddDate(0, 1, -1).Day()
	return first.AddDate(0, 0, min(d, last)-1)
}

// BillingPeriod is the period of a subscription anchored at anchor, with
// periods of interval, that holds at: [start, end).
func BillingPeriod(anchor time.Time, interval string, at time.Time) (start, end time.Time) {
	anchor, at = anchor.UTC(), at.UTC()
	step := intervalMonths(interval)
	if at.Before(anchor) {
		return anchor, addMonths(anchor, step)
	}
	// A guess from the calendar, corrected by at most a step either way.
	k := ((at.Year()-anchor.Year())*12 + int(at.Month()-anchor.Month())) / step * step
	for k > 0 && addMonths(anchor, k).After(at) {
		k -= step
	}
	for !addMonths(anchor, k+step).After(at) {
		k += step
	}
	return addMonths(anchor, k), addMonths(anchor, k+step)
}

// settle fills in what the subscription's times say at now: its status,
// its current period (for one that has ended, its last) and whether it
// ends with that period.
func (s *BillingSubscription) settle(now time.Time) {
	at := now
	ended := s.CancelAt != nil && !s.CancelAt.After(now)
	if ended {
		at = s.CancelAt.Add(-time.Nanosecond)
	}
	s.CurrentPeriodStart, s.CurrentPeriodEnd = BillingPeriod(s.StartedAt, s.BillingInterval, at)
	s.CancelAtPeriodEnd = s.CancelAt != nil
	switch {
	case ended:
		s.Status = SubscriptionCanceled
	case s.TrialEndsAt != nil && s.TrialEndsAt.After(now):
		s.Status = SubscriptionTrialing
	case s.PastDue:
		s.Status = SubscriptionPastDue
	default:
		s.Status = SubscriptionActive
	}
}

// selectBillingSubscription reads the store's subscription with what its
// status needs.
func selectBillingSubscription(db bun.IDB, storeID int64, s *BillingSubscription, now time.Time) *bun.SelectQuery {
	return db.NewSelect().Model(s).ColumnExpr("bs.*").
		ColumnExpr(`EXISTS (SELECT 1 FROM billing_invoices AS i
			WHERE i.store_id = bs.store_id AND i.status = ? AND i.due_at < ?) AS past_due`, InvoiceOpen, now).
		Where("bs.store_id = ?", storeID)
}

// GetBillingSubscription reads the store's subscription as it stands at
// now.
func GetBillingSubscription(ctx context.Context, db bun.IDB, storeID int64, now time.Time) (*BillingSubscription, error) {
	s := new(BillingSubscription)
	if err := selectBillingSubscription(db, storeID, s, now).Scan(ctx); err != nil {
		return nil, classify(err, "the store's subscription")
	}
	s.settle(now)
	return s, nil
}

// lockBillingSubscription reads the store's subscription for a change, in
// the caller's transaction, locked until it ends.
func lockBillingSubscription(ctx context.Context, tx bun.IDB, storeID int64, now time.Time) (*BillingSubscription, error) {
	s := new(BillingSubscription)
	if err := selectBillingSubscription(tx, storeID, s, now).For("UPDATE OF bs").Scan(ctx); err != nil {
		return nil, classify(err, "the store's subscription")
	}
	s.settle(now)
	return s, nil
}

// ListBillingPlans lists the plans a store can choose (not retired), by
// sort.
func ListBillingPlans(ctx context.Context, db bun.IDB) ([]BillingPlan, error) {
	var out []BillingPlan
	err := db.NewSelect().Model(&out).Where("bp.status = ?", PlanActive).Order("bp.sort", "bp.id").Scan(ctx)
	return out, err
}

// GetBillingPlan reads one plan, retired or not.
func GetBillingPlan(ctx context.Context, db bun.IDB, id int64) (*BillingPlan, error) {
	p := new(BillingPlan)
	err := db.NewSelect().Model(p).Where("bp.id = ?", id).Scan(ctx)
	return p, classify(err, fmt.Sprintf("plan %d", id))
}

// GetBillingPlanByKey reads one plan by its key.
func GetBillingPlanByKey(ctx context.Context, db bun.IDB, key string) (*BillingPlan, error) {
	p := new(BillingPlan)
	err := db.NewSelect().Model(p).Where("bp.key = ?", key).Scan(ctx)
	return p, classify(err, "the plan "+key)
}

// StartBillingSubscription starts the store's subscription anew on the
// plan planID at at, with the plan's trial, in the caller's transaction:
// a store's sign-up, as the seed writes a store's billing history.
func StartBillingSubscription(ctx context.Context, tx bun.IDB, storeID, planID int64, at time.Time) (*BillingSubscription, error) {
	s, err := lockBillingSubscription(ctx, tx, storeID, at)
	if err != nil {
		return nil, err
	}
	p, err := GetBillingPlan(ctx, tx, planID)
	if err != nil {
		return nil, err
	}
	s.PlanID, s.PriceCents, s.Currency, s.BillingInterval = p.ID, p.PriceCents, p.Currency, p.BillingInterval
	s.TransactionFeeBps, s.TransactionFeeFixedCents = p.TransactionFeeBps, p.TransactionFeeFixedCents
	s.StartedAt, s.CancelAt, s.TrialEndsAt = at, nil, nil
	if p.TrialDays > 0 {
		end := at.AddDate(0, 0, int(p.TrialDays))
		s.TrialEndsAt = &end
	}
	return updateBillingSubscription(ctx, tx, s, at, []string{"plan_id", "price_cents", "currency", "billing_interval",
		"transaction_fee_bps", "transaction_fee_fixed_cents", "started_at", "cancel_at", "trial_ends_at"})
}

// ChangeBillingPlan moves the store's subscription to the plan planID at
// now, in the caller's transaction: its price and fees become the plan's.
// The current plan is a conflict, and a plan that is unknown or retired
// is refused. A subscription that has ended starts again: a new period
// from now, without a trial. Otherwise the periods and a pending
// cancellation stay as they were.
func ChangeBillingPlan(ctx context.Context, tx bun.IDB, storeID, planID int64, now time.Time) (*BillingSubscription, error) {
	s, err := lockBillingSubscription(ctx, tx, storeID, now)
	if err != nil {
		return nil, err
	}
	p := new(BillingPlan)
	if err := tx.NewSelect().Model(p).Where("bp.id = ?", planID).Scan(ctx); err != nil {
		if errors.Is(err, sql.ErrNoRows) {
			return nil, apperr.InvalidField("plan_id", "names no plan: %d (GET /store/billing/plans lists them)", planID)
		}
		return nil, err
	}
	if s.PlanID == p.ID && s.Status != SubscriptionCanceled {
		return nil, apperr.Conflictf("the store is already on the %s plan", p.Name)
	}
	if p.Status != PlanActive {
		return nil, apperr.InvalidField("plan_id", "names the %s plan, which is retired and takes no new subscriptions", p.Name)
	}
	interval := s.BillingInterval
	s.PlanID, s.PriceCents, s.Currency, s.BillingInterval = p.ID, p.PriceCents, p.Currency, p.BillingInterval
	s.TransactionFeeBps, s.TransactionFeeFixedCents = p.TransactionFeeBps, p.TransactionFeeFixedCents
	columns := []string{"plan_id", "price_cents", "currency", "billing_interval", "transaction_fee_bps", "transaction_fee_fixed_cents"}
	switch {
	case s.Status == SubscriptionCanceled:
		s.StartedAt, s.CancelAt = now, nil
		columns = append(columns, "started_at", "cancel_at")
	case s.BillingInterval != interval:
		// Periods of the new length run from the start of the period in
		// progress, which keeps its start.
		s.StartedAt = s.CurrentPeriodStart
		columns = append(columns, "started_at")
	}
	return updateBillingSubscription(ctx, tx, s, now, columns)
}

// CancelBillingSubscription sets (cancel true) or takes back (false) the
// end of the store's subscription at the end of its current period, in the
// caller's transaction. Asking for what already holds changes nothing; a
// subscription that has ended is a conflict either way.
func CancelBillingSubscription(ctx context.Context, tx bun.IDB, storeID int64, cancel bool, now time.Time) (*BillingSubscription, error) {
	s, err := lockBillingSubscription(ctx, tx, storeID, now)
	if err != nil {
		return nil, err
	}
	if s.Status == SubscriptionCanceled {
		return nil, apperr.Conflictf("the subscription ended on %s; PUT /store/billing/plan starts a new one", s.CancelAt.UTC().Format(time.RFC3339))
	}
	if s.CancelAtPeriodEnd == cancel {
		return s, nil
	}
	s.CancelAt = nil
	if cancel {
		end := s.CurrentPeriodEnd
		s.CancelAt = &end
	}
	return updateBillingSubscription(ctx, tx, s, now, []string{"cancel_at"})
}

// updateBillingSubscription writes columns of s and reads it back as it
// stands at now.
func updateBillingSubscription(ctx context.Context, tx bun.IDB, s *BillingSubscription, now time.Time, columns []string) (*BillingSubscription, error) {
	_, err := tx.NewUpdate().Model(s).Column(columns...).Set("updated_at = ?", now).
		Where("store_id = ?", s.StoreID).Exec(ctx)
	if err != nil {
		return nil, classify(err, "the store's subscription")
	}
	return GetBillingSubscription(ctx, tx, s.StoreID, now)
}

// BillingAccrued is what the store's paid orders of a period owe the
// platform in transaction fees.
type BillingAccrued struct {
	PeriodStart              time.Time `json:"period_start"`
	PeriodEnd                time.Time `json:"period_end"`
	Orders                   int64     `json:"orders"`
	GrossCents               int64     `json:"gross_cents"`
	FeeCents                 int64     `json:"fee_cents"`
	TransactionFeeBps        int64     `json:"transaction_fee_bps"`
	TransactionFeeFixedCents int64     `json:"transaction_fee_fixed_cents"`
	Currency                 string    `json:"currency"`
}

// AccruedFees sums the transaction fees of the store's orders paid in
// [start, end) at the subscription's rates, in one statement (answered by
// the index orders_store_paid_idx): per order, bps of its total rounded
// half up, plus the fixed fee. An order counts when it was paid in the
// period; a later refund or cancellation does not return its fee.
func AccruedFees(ctx context.Context, db bun.IDB, s *BillingSubscription, start, end time.Time) (*BillingAccrued, error) {
	a := &BillingAccrued{PeriodStart: start, PeriodEnd: end, Currency: s.Currency,
		TransactionFeeBps: s.TransactionFeeBps, TransactionFeeFixedCents: s.TransactionFeeFixedCents}
	err := db.NewSelect().TableExpr("orders AS o").
		ColumnExpr("count(*)").
		ColumnExpr("coalesce(sum(o.total_cents), 0)").
		ColumnExpr("coalesce(sum((o.total_cents * ? + 5000) / 10000 + ?), 0)", s.TransactionFeeBps, s.TransactionFeeFixedCents).
		Where("o.store_id = ? AND o.paid_at >= ? AND o.paid_at < ?", s.StoreID, start, end).
		Scan(ctx, &a.Orders, &a.GrossCents, &a.FeeCents)
	return a, err
}

// BillingCard is a saved card: what the billing provider tells of it.
type BillingCard struct {
	bun.BaseModel `bun:"table:billing_cards,alias:bc"`

	ID        int64  `bun:"id,pk,autoincrement" json:"id"`
	StoreID   int64  `bun:"store_id" json:"-"`
	Brand     string `bun:"brand" json:"brand"`
	Last4     string `bun:"last4" json:"last4"`
	ExpMonth  int64  `bun:"exp_month" json:"exp_month"`
	ExpYear   int64  `bun:"exp_year" json:"exp_year"`
	IsDefault bool   `bun:"is_default" json:"is_default"`
	// ProviderRef is the provider's id of the card (a payment method),
	// which charges it; never answered.
	ProviderRef string    `bun:"provider_ref" json:"-"`
	CreatedAt   time.Time `bun:"created_at,nullzero,default:now()" json:"-"`
}

// ListBillingCards lists the store's saved cards, the default first, then
// newest first.
func ListBillingCards(ctx context.Context, db bun.IDB, storeID int64) ([]BillingCard, error) {
	var out []BillingCard
	err := db.NewSelect().Model(&out).Where("bc.store_id = ?", storeID).
		OrderExpr("bc.is_default DESC, bc.id DESC").Scan(ctx)
	return out, err
}

// HasBillingHistory says whether the store has saved a card or been
// invoiced.
func HasBillingHistory(ctx context.Context, db bun.IDB, storeID int64) (bool, error) {
	var has bool
	err := db.NewRaw(`SELECT EXISTS (SELECT 1 FROM billing_cards WHERE store_id = ?)
		OR EXISTS (SELECT 1 FROM billing_invoices WHERE store_id = ?)`, storeID, storeID).Scan(ctx, &has)
	return has, err
}

// HasDefaultBillingCard says whether the store has a card to charge.
func HasDefaultBillingCard(ctx context.Context, db bun.IDB, storeID int64) (bool, error) {
	return db.NewSelect().Model((*BillingCard)(nil)).Where("store_id = ? AND is_default", storeID).Exists(ctx)
}

// SaveBillingCard stores c as the store's default card, in the caller's
// transaction: the card saved last is the one charged. A card the store
// saved before (the same ProviderRef) is a conflict. Two saves of one
// store take turns on its subscription row, so each finds the default the
// other left.
func SaveBillingCard(ctx context.Context, tx bun.IDB, c *BillingCard) error {
	if _, err := tx.NewSelect().Model((*BillingSubscription)(nil)).Column("id").
		Where("store_id = ?", c.StoreID).For("UPDATE").Exec(ctx); err != nil {
		return err
	}
	if _, err := tx.NewUpdate().Model((*BillingCard)(nil)).Set("is_default = false").
		Where("store_id = ? AND is_default", c.StoreID).Exec(ctx); err != nil {
		return err
	}
	c.IsDefault = true
	_, err := tx.NewInsert().Model(c).Returning("id, created_at").Exec(ctx)
	if apperr.CodeOf(classify(err, "")) == apperr.Conflict {
		return apperr.Conflictf("this card is saved already")
	}
	return classify(err, "the card")
}

// DeleteBillingCard removes a saved card that is not the default: the
// store's invoices are charged to the default, which is replaced by saving
// another card (it becomes the default), never left without one.
func DeleteBillingCard(ctx context.Context, db bun.IDB, storeID, id int64) error {
	res, err := db.NewDelete().Model((*BillingCard)(nil)).
		Where("store_id = ? AND id = ? AND NOT is_default", storeID, id).Exec(ctx)
	if err != nil {
		return classify(err, "the card")
	}
	if n, _ := res.RowsAffected(); n > 0 {
		return nil
	}
	isDefault, err := db.NewSelect().Model((*BillingCard)(nil)).Where("store_id = ? AND id = ?", storeID, id).Exists(ctx)
	if err != nil {
		return err
	}
	if isDefault {
		return apperr.Conflictf("card %d is the default card, which invoices are charged to: save another card first (it becomes the default), then delete this one", id)
	}
	return apperr.NotFoundf("the card was not found")
}

// BillingInvoice is an invoice of the platform to a store.
type BillingInvoice struct {
	bun.BaseModel `bun:"table:billing_invoices,alias:bi"`

	ID              int64      `bun:"id,pk,autoincrement" json:"id"`
	StoreID         int64      `bun:"store_id" json:"store_id"`
	Number          string     `bun:"number" json:"number"`
	Status          string     `bun:"status" json:"status"`
	Currency        string     `bun:"currency" json:"currency"`
	SubtotalCents   int64      `bun:"subtotal_cents" json:"subtotal_cents"`
	TotalCents      int64      `bun:"total_cents" json:"total_cents"`
	AmountPaidCents int64      `bun:"amount_paid_cents" json:"amount_paid_cents"`
	AttemptCount    int64      `bun:"attempt_count" json:"attempt_count"`
	ExternalID      string     `bun:"external_id" json:"external_id"`
	LastError       string     `bun:"last_error" json:"last_error"`
	Note            string     `bun:"note" json:"note"`
	PaidVia         string     `bun:"paid_via" json:"paid_via"`
	PeriodStart     time.Time  `bun:"period_start" json:"period_start"`
	PeriodEnd       time.Time  `bun:"period_end" json:"period_end"`
	IssuedAt        time.Time  `bun:"issued_at" json:"issued_at"`
	DueAt           *time.Time `bun:"due_at" json:"due_at"`
	PaidAt          *time.Time `bun:"paid_at" json:"paid_at"`
	CreatedAt       time.Time  `bun:"created_at,nullzero,default:now()" json:"-"`
	// The store's handle and name, read with the invoice.
	StoreHandle *string `bun:"store_handle,scanonly" json:"store_handle"`
	StoreName   *string `bun:"store_name,scanonly" json:"store_name"`

	// Lines and Charges are written with the invoice (InsertBillingInvoices).
	Lines   []BillingInvoiceLine `bun:"-" json:"-"`
	Charges []BillingCharge      `bun:"-" json:"-"`
}

// BillingInvoiceLine is one thing an invoice bills.
type BillingInvoiceLine struct {
	bun.BaseModel `bun:"table:billing_invoice_lines,alias:bil"`

	ID              int64      `bun:"id,pk,autoincrement" json:"id"`
	StoreID         int64      `bun:"store_id" json:"-"`
	InvoiceID       int64      `bun:"invoice_id" json:"-"`
	Kind            string     `bun:"kind" json:"kind"`
	Description     string     `bun:"description" json:"description"`
	Quantity        int64      `bun:"quantity" json:"quantity"`
	UnitAmountCents int64      `bun:"unit_amount_cents" json:"unit_amount_cents"`
	AmountCents     int64      `bun:"amount_cents" json:"amount_cents"`
	PeriodStart     *time.Time `bun:"period_start" json:"period_start"`
	PeriodEnd       *time.Time `bun:"period_end" json:"period_end"`
}

// BillingCharge is one attempt to collect an invoice.
type BillingCharge struct {
	bun.BaseModel `bun:"table:billing_charges,alias:bch"`

	ID             int64     `bun:"id,pk,autoincrement" json:"id"`
	StoreID        int64     `bun:"store_id" json:"-"`
	InvoiceID      int64     `bun:"invoice_id" json:"-"`
	AmountCents    int64     `bun:"amount_cents" json:"amount_cents"`
	Status         string    `bun:"status" json:"status"`
	CardBrand      string    `bun:"card_brand" json:"card_brand"`
	CardLast4      string    `bun:"card_last4" json:"card_last4"`
	FailureMessage string    `bun:"failure_message" json:"failure_message"`
	ExternalID     string    `bun:"external_id" json:"external_id"`
	CreatedAt      time.Time `bun:"created_at,nullzero,default:now()" json:"created_at"`
}

// selectBillingInvoices reads the store's invoices with its handle and
// name.
func selectBillingInvoices(db bun.IDB, storeID int64, out any) *bun.SelectQuery {
	return db.NewSelect().Model(out).ColumnExpr("bi.*").
		ColumnExpr("s.handle AS store_handle, s.name AS store_name").
		Join("JOIN stores AS s ON s.id = bi.store_id").
		Where("bi.store_id = ?", storeID)
}

// ListBillingInvoices lists the store's invoices, newest first.
func ListBillingInvoices(ctx context.Context, db bun.IDB, storeID int64, p Paging) ([]BillingInvoice, error) {
	var out []BillingInvoice
	q := selectBillingInvoices(db, storeID, &out).OrderExpr("bi.issued_at DESC, bi.id DESC")
	err := scanRows(ctx, db, p.Apply(q), &out)
	return out, err
}

// CountBillingInvoices counts the store's invoices.
func CountBillingInvoices(ctx context.Context, db bun.IDB, storeID int64) (int64, error) {
	return db.NewSelect().Model((*BillingInvoice)(nil)).Where("store_id = ?", storeID).Count(ctx)
}

// GetBillingInvoice reads one invoice of the store.
func GetBillingInvoice(ctx context.Context, db bun.IDB, storeID, id int64) (*BillingInvoice, error) {
	inv := new(BillingInvoice)
	err := selectBillingInvoices(db, storeID, inv).Where("bi.id = ?", id).Scan(ctx)
	return inv, classify(err, "the invoice")
}

// BillingInvoiceLines reads an invoice's lines, in order.
func BillingInvoiceLines(ctx context.Context, db bun.IDB, storeID, invoiceID int64) ([]BillingInvoiceLine, error) {
	out := []BillingInvoiceLine{}
	err := db.NewSelect().Model(&out).Where("store_id = ? AND invoice_id = ?", storeID, invoiceID).Order("id").Scan(ctx)
	return out, err
}

// BillingInvoiceCharges reads an invoice's charges, oldest first.
func BillingInvoiceCharges(ctx context.Context, db bun.IDB, storeID, invoiceID int64) ([]BillingCharge, error) {
	out := []BillingCharge{}
	err := db.NewSelect().Model(&out).Where("store_id = ? AND invoice_id = ?", storeID, invoiceID).Order("created_at", "id").Scan(ctx)
	return out, err
}

// InsertBillingInvoices stores invoices of the store with their lines and
// charges, in four statements whatever their number. Invoices are made
// by the platform's billing run, not through the API; the seed writes its
// history here.
func InsertBillingInvoices(ctx context.Context, db bun.IDB, storeID int64, invoices []BillingInvoice) error {
	if len(invoices) == 0 {
		return nil
	}
	for i := range invoices {
		invoices[i].StoreID = storeID
	}
	if _, err := db.NewInsert().Model(&invoices).Returning("id, created_at").Exec(ctx); err != nil {
		return classify(err, "the invoice")
	}
	var lines []BillingInvoiceLine
	var charges []BillingCharge
	for _, inv := range invoices {
		for _, l := range inv.Lines {
			l.StoreID, l.InvoiceID = storeID, inv.ID
			lines = append(lines, l)
		}
		for _, c := range inv.Charges {
			c.StoreID, c.InvoiceID = storeID, inv.ID
			charges = append(charges, c)
		}
	}
	if len(lines) > 0 {
		if _, err := db.NewInsert().Model(&lines).Exec(ctx); err != nil {
			return err
		}
	}
	if len(charges) > 0 {
		if _, err := db.NewInsert().Model(&charges).Exec(ctx); err != nil {
			return err
		}
	}
	return nil
}

// BillingInvoicePage is a page of the store's invoices as a client asked
// for it; its invoices and total are read when asked.
type BillingInvoicePage struct {
	Paging   Paging `json:"-"`
	Page     int64  `json:"page"`
	PageSize int64  `json:"page_size"`
}

// BillingInvoiceDetail is an invoice whose lines and charges are read when
// asked.
type BillingInvoiceDetail struct {
	Invoice *BillingInvoice `json:"invoice"`
}
