package models

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/uptrace/bun"

	"storeadmin/internal/base/apperr"
)

// What a recovery reminder is about: a cart or a checkout.
const (
	RecoveryCart     = "cart"
	RecoveryCheckout = "checkout"
)

// Recovery message statuses (recovery_messages.status).
const (
	// RecoverySent: the SMTP server accepted it.
	RecoverySent = "sent"
	// RecoveryOutboxed: no SMTP server is configured; it is in the mail
	// outbox.
	RecoveryOutboxed = "outboxed"
	// RecoveryFailed: the SMTP server refused it or could not be reached.
	RecoveryFailed = "failed"
	// RecoverySkipped: not sent because the shopper opted out or left no
	// email address.
	RecoverySkipped = "skipped"
)

// RecoveryMessage is one recovery reminder (recovery_messages).
type RecoveryMessage struct {
	bun.BaseModel `bun:"table:recovery_messages,alias:rm"`

	ID         int64  `bun:"id,pk,autoincrement"`
	StoreID    int64  `bun:"store_id"`
	CartID     *int64 `bun:"cart_id"`
	CheckoutID *int64 `bun:"checkout_id"`
	// Step is the sequence's step (1-based); 0 for a resend.
	Step int `bun:"step"`
	// SequenceAt is the abandoned_at of the abandonment a scheduled
	// reminder belongs to; nil for a resend.
	SequenceAt   *time.Time `bun:"sequence_at"`
	Status       string     `bun:"status"`
	ToEmail      string     `bun:"to_email"`
	Subject      string     `bun:"subject"`
	DiscountCode string     `bun:"discount_code"`
	Error        string     `bun:"error"`
	CreatedAt    time.Time  `bun:"created_at"`
	SentAt       *time.Time `bun:"sent_at"`
	ClickedAt    *time.Time `bun:"clicked_at"`
}

// Kind is what the message is about: RecoveryCart or RecoveryCheckout.
func (m *RecoveryMessage) Kind() string {
	if m.CartID != nil {
		return RecoveryCart
	}
	return RecoveryCheckout
}

// TargetID is the id of the cart or checkout the message is about.
func (m *RecoveryMessage) TargetID() int64 {
	if m.CartID != nil {
		return *m.CartID
	}
	return *m.CheckoutID
}

// recoveryTables are the tables of each kind: the record's, its lines',
// and the recovery_messages column that points at it.
var recoveryTables = map[string]struct{ table, lines, ref string }{
	RecoveryCart:     {"carts", "cart_lines", "cart_id"},
	RecoveryCheckout: {"checkouts", "checkout_lines", "checkout_id"},
}

func recoveryTable(kind string) (struct{ table, lines, ref string }, error) {
	t, ok := recoveryTables[kind]
	if !ok {
		return t, fmt.Errorf("recovery: unknown kind %q", kind)
	}
	return t, nil
}

// UpdateRecoveryPolicy replaces the store's policy with what change makes
// of the stored one (or the default), in tx, holding the store's policy
// until tx ends: two changes of different surfaces at once both hold.
func UpdateRecoveryPolicy(ctx context.Context, tx bun.Tx, storeID int64, change func(RecoveryPolicy) (RecoveryPolicy, error)) (RecoveryPolicy, error) {
	// A store without a row has nothing to lock: the first change inserts
	// the default and locks that.
	def, err := json.Marshal(DefaultRecoveryPolicy())
	if err != nil {
		return RecoveryPolicy{}, err
	}
	if _, err := tx.NewRaw("INSERT INTO recovery_settings (store_id, policy) VALUES (?, ?) ON CONFLICT (store_id) DO NOTHING", storeID, string(def)).Exec(ctx); err != nil {
		return RecoveryPolicy{}, classify(err, "the recovery settings")
	}
	var raw []byte
	if err := tx.NewRaw("SELECT policy FROM recovery_settings WHERE store_id = ? FOR UPDATE", storeID).Scan(ctx, &raw); err != nil {
		return RecoveryPolicy{}, err
	}
	var stored RecoveryPolicy
	if err := json.Unmarshal(raw, &stored); err != nil {
		return RecoveryPolicy{}, fmt.Errorf("recovery policy of store %d: %w", storeID, err)
	}
	p, err := change(stored)
	if err != nil {
		return p, err
	}
	return p, PutRecoveryPolicy(ctx, tx, storeID, p)
}

// PutRecoveryPolicy stores the store's policy whole (the caller checked
// it): the seed's way in, and UpdateRecoveryPolicy's last step.
func PutRecoveryPolicy(ctx context.Context, db bun.IDB, storeID int64, p RecoveryPolicy) error {
	raw, err := json.Marshal(p)
	if err != nil {
		return err
	}
	_, err = db.NewRaw(`INSERT INTO recovery_settings (store_id, policy) VALUES (?, ?)
		ON CONFLICT (store_id) DO UPDATE SET policy = excluded.policy, updated_at = now()`, storeID, string(raw)).Exec(ctx)
	return classify(err, "the recovery settings")
}

// DueReminder is a step of a reminder sequence that is due.
type DueReminder struct {
	Kind       string
	StoreID    int64     `bun:"store_id"`
	ID         int64     `bun:"id"`
	SequenceAt time.Time `bun:"sequence_at"`
	Step       int       `bun:"step"`
}

// RecoveryLateness is how late a reminder may still go out: one due longer
// ago (the service was down, the policy changed) is never sent, since the
// shopper has moved on; a seller's resend still can.
const RecoveryLateness = 24 * time.Hour

// RecoveryHorizon bounds how long after its abandonment a cart or checkout
// is looked at for reminders: past the longest delay a policy may set.
const RecoveryHorizon = 31 * 24 * time.Hour

// DueRecoveryReminders finds up to limit reminders of kind (RecoveryCart or
// RecoveryCheckout), of every store, that are due at now: the record is
// abandoned, neither recovered nor completed, its store's policy for kind is
// email, no reminder of this abandonment was clicked, and the latest step
// whose delay has passed is past the last one recorded for this
// abandonment and due less than RecoveryLateness ago. Steps that came due
// together (after an outage) go out as one, the latest: a shopper gets no
// burst of reminders. A cart that went on to a checkout is left to the
// checkout's sequence: the shopper gets one sequence, about the furthest
// they got. Oldest abandonment first.
// storeID 0 reads every store's.
func DueRecoveryReminders(ctx context.Context, db bun.IDB, kind string, storeID int64, now time.Time, limit int) ([]DueReminder, error) {
	return dueRecoveryReminders(ctx, db, kind, storeID, 0, now, limit)
}

// RecoveryReminderDue tells whether d is still due at now: the sequence
// asks again once it holds d's row, since a click, a recovery, a policy
// change or another replica may have come in between.
func RecoveryReminderDue(ctx context.Context, db bun.IDB, d DueReminder, now time.Time) (bool, error) {
	due, err := dueRecoveryReminders(ctx, db, d.Kind, d.StoreID, d.ID, now, 1)
	if err != nil || len(due) == 0 {
		return false, err
	}
	return due[0].Step == d.Step && due[0].SequenceAt.Equal(d.SequenceAt), nil
}

// dueRecoveryReminders is DueRecoveryReminders, of the record id only
// when id is not 0.
func dueRecoveryReminders(ctx context.Context, db bun.IDB, kind string, storeID, id int64, now time.Time, limit int) ([]DueReminder, error) {
	t, err := recoveryTable(kind)
	if err != nil {
		return nil, err
	}
	def := DefaultRecoveryPolicy().Cart
	extra := "NOT EXISTS (SELECT 1 FROM checkouts k WHERE k.cart_id = t.id)"
	if kind == RecoveryCheckout {
		def = DefaultRecoveryPolicy().Checkout
		extra = "t.completed_at IS NULL AND t.order_id IS NULL AND t.state <> 'completed'"
	}
	defRaw, err := json.Marshal(def)
	if err != nil {
		return nil, err
	}
	var out []DueReminder
	err = db.NewRaw(`
		SELECT t.store_id, t.id, t.abandoned_at AS sequence_at, s.step
		FROM ? AS t
		LEFT JOIN recovery_settings rs ON rs.store_id = t.store_id
		CROSS JOIN LATERAL (SELECT coalesce(rs.policy -> ?, ?::jsonb) AS p) pol
		CROSS JOIN LATERAL (
			SELECT max(d.i)::int AS step, max(t.abandoned_at + make_interval(mins => d.v::int)) AS due_at
			FROM jsonb_array_elements_text(pol.p -> 'delays_minutes') WITH ORDINALITY AS d(v, i)
			WHERE t.abandoned_at + make_interval(mins => d.v::int) <= ?) s
		CROSS JOIN LATERAL (
			SELECT coalesce(max(m.step), 0) AS last, bool_or(m.clicked_at IS NOT NULL) AS clicked
			FROM recovery_messages m WHERE m.? = t.id AND m.sequence_at = t.abandoned_at) n
		WHERE t.abandoned_at IS NOT NULL AND t.recovered_at IS NULL AND t.abandoned_at > ?
		  AND pol.p ->> 'mode' = ?
		  AND s.step > n.last AND s.due_at > ?
		  AND n.clicked IS NOT TRUE
		  AND `+extra+`
		  AND (? = 0 OR t.store_id = ?) AND (? = 0 OR t.id = ?)
		ORDER BY t.abandoned_at, t.id
		LIMIT ?`,
		bun.Ident(t.table), kind, string(defRaw), now, bun.Ident(t.ref), now.Add(-RecoveryHorizon), RecoveryEmail, now.Add(-RecoveryLateness),
		storeID, storeID, id, id, limit).Scan(ctx, &out)
	for i := range out {
		out[i].Kind = kind
	}
	return out, err
}

// RecoveryTarget is what a reminder is rendered from and checked against:
// a cart or a checkout, with its lines.
type RecoveryTarget struct {
	Kind          string
	ID            int64      `bun:"id"`
	StoreID       int64      `bun:"store_id"`
	Token         string     `bun:"token"`
	CartToken     string     `bun:"cart_token"` // a checkout's cart's token, if any
	Email         string     `bun:"email"`
	FirstName     string     `bun:"first_name"`
	Currency      string     `bun:"currency"`
	OptOut        bool       `bun:"recovery_opt_out"`
	AbandonedAt   *time.Time `bun:"abandoned_at"`
	RecoveredAt   *time.Time `bun:"recovered_at"`
	Completed     bool       `bun:"completed"`
	SubtotalCents int64      `bun:"subtotal_cents"`
	// TotalCents is a checkout's total; a cart's subtotal.
	TotalCents int64 `bun:"total_cents"`
	Lines      []RecoveryLine
}

// RecoveryLine is a line of a reminder's cart or checkout.
type RecoveryLine struct {
	Title        string `bun:"title"`
	VariantTitle string `bun:"variant_title"`
	Quantity     int64  `bun:"quantity"`
	PriceCents   int64  `bun:"price_cents"`
}

// Label names the target for a person ("cart abc").
func (t *RecoveryTarget) Label() string { return t.Kind + " " + t.Token }

// LockRecoveryTarget reads the store's cart or checkout by id or, when id
// is 0, by token, with its lines, and locks its row until tx ends: the
// sequence, a resend and a link click each hold it while they decide. A
// record of another store is not found.
func LockRecoveryTarget(ctx context.Context, tx bun.IDB, kind string, storeID, id int64, token string) (*RecoveryTarget, error) {
	t, err := recoveryTable(kind)
	if err != nil {
		return nil, err
	}
	cols := "t.id, t.store_id, t.token, '' AS cart_token, t.email, t.first_name, t.currency, t.recovery_opt_out, t.abandoned_at, t.recovered_at, " +
		"EXISTS (SELECT 1 FROM checkouts k WHERE k.cart_id = t.id AND k.completed_at IS NOT NULL) AS completed, t.subtotal_cents, t.subtotal_cents AS total_cents"
	if kind == RecoveryCheckout {
		cols = "t.id, t.store_id, t.token, coalesce((SELECT c.token FROM carts c WHERE c.id = t.cart_id), '') AS cart_token, t.email, t.first_name, t.currency, " +
			"t.recovery_opt_out, t.abandoned_at, t.recovered_at, (t.completed_at IS NOT NULL OR t.order_id IS NOT NULL) AS completed, t.subtotal_cents, t.total_cents"
	}
	q := tx.NewSelect().ColumnExpr(cols).TableExpr("? AS t", bun.Ident(t.table)).Where("t.store_id = ?", storeID).For("UPDATE OF t")
	if id != 0 {
		q.Where("t.id = ?", id)
	} else {
		q.Where("t.token = ?", token)
	}
	target := &RecoveryTarget{Kind: kind}
	if err := q.Scan(ctx, target); err != nil {
		return nil, classify(err, "the "+kind)
	}
	err = tx.NewSelect().ColumnExpr("title, variant_title, quantity, price_cents").TableExpr("?", bun.Ident(t.lines)).
		Where("? = ?", bun.Ident(t.ref), target.ID).OrderExpr("position, id").Scan(ctx, &target.Lines)
	return target, err
}

// RecoveryStepReached is the last step of the sequence recorded for the
// record's abandonment at abandonedAt (0: none yet).
func RecoveryStepReached(ctx context.Context, db bun.IDB, kind string, id int64, abandonedAt time.Time) (int, error) {
	t, err := recoveryTable(kind)
	if err != nil {
		return 0, err
	}
	var step int
	err = db.NewSelect().Model((*RecoveryMessage)(nil)).ColumnExpr("coalesce(max(step), 0)").
		Where("? = ? AND sequence_at = ?", bun.Ident(t.ref), id, abandonedAt).Scan(ctx, &step)
	return step, err
}

// NextRecoveryMessageID reserves the id of a reminder about to be written:
// its links carry it before the row exists.
func NextRecoveryMessageID(ctx context.Context, tx bun.IDB) (int64, error) {
	var id int64
	err := tx.NewRaw("SELECT nextval(pg_get_serial_sequence('recovery_messages', 'id'))").Scan(ctx, &id)
	return id, err
}

// InsertRecoveryMessage records a reminder (with the id reserved by
// NextRecoveryMessageID), and counts it on its cart or checkout when it
// went out (sent or outboxed). A scheduled step already recorded for the
// same abandonment is a conflict: another replica took it first.
func InsertRecoveryMessage(ctx context.Context, tx bun.IDB, m *RecoveryMessage) error {
	if _, err := tx.NewInsert().Model(m).Exec(ctx); err != nil {
		return classify(err, fmt.Sprintf("step %d of the reminders", m.Step))
	}
	if m.Status != RecoverySent && m.Status != RecoveryOutboxed {
		return nil
	}
	t, err := recoveryTable(m.Kind())
	if err != nil {
		return err
	}
	_, err = tx.NewRaw("UPDATE ? SET recovery_emails = recovery_emails + 1 WHERE store_id = ? AND id = ?",
		bun.Ident(t.table), m.StoreID, m.TargetID()).Exec(ctx)
	return err
}

// GetRecoveryMessage reads a reminder by id, of any store: a recovery link
// names it, and its signature is the credential.
func GetRecoveryMessage(ctx context.Context, db bun.IDB, id int64) (*RecoveryMessage, error) {
	m := new(RecoveryMessage)
	err := db.NewSelect().Model(m).Where("rm.id = ?", id).Scan(ctx)
	return m, classify(err, "the recovery reminder")
}

// MarkRecoveryClicked records the first time the reminder's recovery link
// was followed; a click stops the rest of its sequence.
func MarkRecoveryClicked(ctx context.Context, db bun.IDB, id int64, now time.Time) error {
	_, err := db.NewUpdate().Model((*RecoveryMessage)(nil)).Set("clicked_at = coalesce(clicked_at, ?)", now).
		Where("id = ?", id).Exec(ctx)
	return err
}

// OptOutOfRecovery records that the shopper of the store's cart or checkout
// id wants no more reminders, on it and on what it is linked to (a
// checkout's cart, a cart's checkouts): the opt-out is the person's, not
// one record's.
func OptOutOfRecovery(ctx context.Context, db bun.IDB, kind string, storeID, id int64) error {
	var err error
	if kind == RecoveryCart {
		_, err = db.NewRaw(`WITH c AS (UPDATE carts SET recovery_opt_out = true WHERE store_id = ? AND id = ? RETURNING id)
			UPDATE checkouts SET recovery_opt_out = true WHERE store_id = ? AND cart_id IN (SELECT id FROM c)`,
			storeID, id, storeID).Exec(ctx)
	} else {
		_, err = db.NewRaw(`WITH k AS (UPDATE checkouts SET recovery_opt_out = true WHERE store_id = ? AND id = ? RETURNING cart_id)
			UPDATE carts SET recovery_opt_out = true WHERE store_id = ? AND id IN (SELECT cart_id FROM k)`,
			storeID, id, storeID).Exec(ctx)
	}
	return err
}

// ActiveStorefrontDomain is the store's primary custom domain once its
// records are checked (DomainActive), else "".
func ActiveStorefrontDomain(ctx context.Context, db bun.IDB, storeID int64) (string, error) {
	var hosts []string
	err := db.NewSelect().Model((*Domain)(nil)).Column("hostname").
		Where("store_id = ? AND is_primary AND status = ?", storeID, DomainActive).Limit(1).Scan(ctx, &hosts)
	if err != nil || len(hosts) == 0 {
		return "", err
	}
	return hosts[0], nil
}

// errNotAbandoned is the 409 of a resend of a record that is not abandoned.
func errNotAbandoned(t *RecoveryTarget) error {
	return apperr.Conflictf("the %s is not abandoned: reminders are sent only for abandoned ones", t.Label())
}

// CheckResendable says why a reminder cannot be sent now about t (409s):
// it is not abandoned, it was recovered or completed, the shopper opted
// out (which always wins), or there is no address to send to.
func CheckResendable(t *RecoveryTarget) error {
	switch {
	case t.AbandonedAt == nil:
		return errNotAbandoned(t)
	case t.RecoveredAt != nil || t.Completed:
		return apperr.Conflictf("the %s was already recovered or completed: there is nothing to remind the shopper of", t.Label())
	case t.OptOut:
		return apperr.Conflictf("the shopper of the %s opted out of recovery reminders; their opt-out always wins, also over a resend", t.Label())
	case t.Email == "":
		return apperr.Conflictf("the %s has no email address to send a reminder to", t.Label())
	}
	return nil
}

// HasRecoveryPolicy tells whether the store has stored a policy.
func HasRecoveryPolicy(ctx context.Context, db bun.IDB, storeID int64) (bool, error) {
	return db.NewSelect().Table("recovery_settings").Where("store_id = ?", storeID).Exists(ctx)
}
