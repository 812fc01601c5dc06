package models

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/pgdialect"

	"storeadmin/internal/base/apperr"
)

// A run walks its funnel's steps from position 1 (funnel_run.go has the
// records): each step reached is an offer row; one that cannot be sold is
// recorded unavailable and the run follows its decline branch at once; a
// branch to nothing completes the run, and a completed or timed-out run
// captures the order's authorization (captureRun). Every change runs under
// the order's row lock (LockOrder) and then the run's, in that order, so
// answers, the timeout job and cancellations take turns.

// runWalk is a run being moved, with what moving it reads.
type runWalk struct {
	run   *FunnelRun
	order *Order // locked by the caller
	// funnel is the run's funnel, nil once it was deleted.
	funnel *UpsellFunnel
	steps  []FunnelStep
	// timeout is the funnel's timeout_seconds as a duration.
	timeout time.Duration
}

// step is the funnel's step at position, nil when it has none (the funnel
// was cut shorter, or deleted, since the run began).
func (w *runWalk) step(position int64) *FunnelStep {
	for i := range w.steps {
		if w.steps[i].Position == position {
			return &w.steps[i]
		}
	}
	return nil
}

// loadRunWalk reads what moving run needs: its funnel's timeout and steps
// (with their availability now). A funnel deleted since the run began has
// no steps left: the next move ends the run.
func loadRunWalk(ctx context.Context, db bun.IDB, run *FunnelRun, o *Order) (*runWalk, error) {
	w := &runWalk{run: run, order: o, timeout: DefaultFunnelTimeout * time.Second}
	if run.FunnelID == nil {
		return w, nil
	}
	f, err := GetUpsellFunnel(ctx, db, run.StoreID, *run.FunnelID)
	if apperr.CodeOf(err) == apperr.NotFound {
		return w, nil
	}
	if err != nil {
		return nil, err
	}
	w.funnel, w.timeout = f, time.Duration(f.TimeoutSeconds)*time.Second
	w.steps, err = FunnelSteps(ctx, db, run.StoreID, f.ID)
	return w, err
}

// StartFunnelRun starts the run of the funnel checkout c's pricing picked
// (c.UpsellFunnelID), behind the order o it just placed, in the placement's
// transaction: when o's payment is an open authorization (a sale took the
// money already: no run) and the funnel has a step. The first step that
// can be sold becomes the run's offer; none left completes the run at once,
// which captures. nil when no run starts.
func StartFunnelRun(ctx context.Context, tx bun.IDB, c *StorefrontCheckout, o *Order, now time.Time) (*FunnelRun, error) {
	if c.UpsellFunnelID == nil {
		return nil, nil
	}
	txs, err := OrderTransactions(ctx, tx, o.StoreID, o.ID)
	if err != nil {
		return nil, err
	}
	open := SumMoney(txs).OpenAuthorizations
	if len(open) == 0 {
		return nil, nil
	}
	run := &FunnelRun{StoreID: o.StoreID, OrderID: o.ID, CheckoutID: &c.ID, TransactionID: open[0].ID, FunnelID: c.UpsellFunnelID,
		ZoneID: c.CheckoutZoneID, Status: RunRunning, EnteredAt: now, SurchargeCents: o.SurchargeCents}
	w, err := loadRunWalk(ctx, tx, run, o)
	if err != nil || len(w.steps) == 0 {
		return nil, err
	}
	run.FunnelName = w.funnel.Name
	if c.CheckoutZoneID != nil {
		err := tx.NewSelect().Model((*CheckoutZone)(nil)).Column("name").Where("id = ?", *c.CheckoutZoneID).Scan(ctx, &run.ZoneName)
		if err != nil && !errors.Is(err, sql.ErrNoRows) {
			return nil, err
		}
	}
	first := int64(1)
	run.CurrentPosition, run.ExpiresAt = &first, now.Add(w.timeout)
	if _, err := tx.NewInsert().Model(run).Returning("id").Exec(ctx); err != nil {
		return nil, classify(err, "the funnel run")
	}
	return run, w.reach(ctx, tx, &first, now)
}

// reach moves the run to position (nil: the end). A step whose offer
// cannot be sold now is recorded unavailable and the run follows its
// decline branch; the first that can be sold is the run's offer, pending,
// and the run waits for the shopper until now + the funnel's timeout; no
// step left completes the run, which captures.
func (w *runWalk) reach(ctx context.Context, tx bun.IDB, position *int64, now time.Time) error {
	var offers []FunnelRunOffer
	for position != nil {
		s := w.step(*position)
		if s == nil {
			position = nil
			break
		}
		o := FunnelRunOffer{StoreID: w.run.StoreID, RunID: w.run.ID, StepID: &s.ID, Position: s.Position, StepName: s.Name,
			ProductID: &s.Offer.ProductID, VariantID: s.Offer.VariantID, Status: OfferPending, ReachedAt: now}
		if s.Offer.ProductID == 0 {
			o.ProductID = nil
		}
		if s.Unavailable != nil {
			o.Status, o.DecidedAt = OfferUnavailable, &now
			offers = append(offers, o)
			position = s.DeclineNextPosition
			continue
		}
		offers = append(offers, o)
		break
	}
	if len(offers) > 0 {
		if _, err := tx.NewInsert().Model(&offers).Exec(ctx); err != nil {
			return classify(err, "the funnel offer")
		}
	}
	if position == nil {
		return w.end(ctx, tx, RunCompleted, now)
	}
	w.run.CurrentPosition, w.run.ExpiresAt = position, now.Add(w.timeout)
	return w.save(ctx, tx)
}

// end ends the run with status; a completed or timed-out run captures the
// order's authorization (captureRun).
func (w *runWalk) end(ctx context.Context, tx bun.IDB, status string, now time.Time) error {
	w.run.Status, w.run.CurrentPosition, w.run.EndedAt = status, nil, &now
	if err := w.save(ctx, tx); err != nil {
		return err
	}
	if status == RunCancelled {
		return nil
	}
	return captureRun(ctx, tx, w.run, w.order, now)
}

// save writes the run's state, and the order's upsell (entered_at,
// funnel_name, status) in step with it.
func (w *runWalk) save(ctx context.Context, tx bun.IDB) error {
	_, err := tx.NewUpdate().Model(w.run).Column("status", "current_position", "expires_at", "ended_at", "surcharge_cents").
		WherePK().Exec(ctx)
	if err != nil {
		return err
	}
	w.order.Upsell = &OrderUpsell{EnteredAt: w.run.EnteredAt, FunnelName: w.run.FunnelName, Status: w.run.Status}
	_, err = tx.NewUpdate().Model(w.order).Column("upsell").Where("store_id = ? AND id = ?", w.order.StoreID, w.order.ID).Exec(ctx)
	return err
}

// captureRun takes the money of an ended run's order: the order's total
// as it is now (its accepted offers included) against the run's
// authorization when its provider can capture more than it authorized
// (CanCaptureMore); otherwise the authorized amount, and a second charge
// for the difference, a successful sale of its own. The accepted offers
// are marked charged. An authorization no longer open (voided, captured
// by hand) is left as it is.
func captureRun(ctx context.Context, tx bun.IDB, run *FunnelRun, o *Order, now time.Time) error {
	txs, err := OrderTransactions(ctx, tx, o.StoreID, o.ID)
	if err != nil {
		return err
	}
	var auth *OrderTransaction
	for _, t := range SumMoney(txs).OpenAuthorizations {
		if t.ID == run.TransactionID {
			auth = &t
		}
	}
	if auth == nil || o.Status == OrderCancelled {
		return nil
	}
	// The service takes the money when the run ends (the shopper's last
	// answer, or the timeout job): the timeline's source "system".
	const actor = "system"
	more := o.TotalCents - auth.AmountCents
	if more <= 0 || CanCaptureMore(auth.Provider) {
		if _, err := CapturePayment(ctx, tx, Capture{Order: o, Actor: actor, Now: now, AmountCents: o.TotalCents}); err != nil {
			return err
		}
	} else {
		if _, err := CapturePayment(ctx, tx, Capture{Order: o, Actor: actor, Now: now}); err != nil {
			return err
		}
		second := Received{Order: o, Provider: auth.Provider, AmountCents: more, Actor: actor, Now: now,
			Note: "post-purchase offers: the second charge, beyond the authorization"}
		if auth.PaymentMethod != nil {
			second.Method = *auth.PaymentMethod
		}
		if _, err := RecordPayment(ctx, tx, second); err != nil {
			return err
		}
	}
	_, err = tx.NewUpdate().Model((*FunnelRunOffer)(nil)).Set("charged_at = ?", now).
		Where("run_id = ? AND status = ? AND charged_at IS NULL", run.ID, OfferAccepted).Exec(ctx)
	return err
}

// lockRunOf locks the order's run for the caller's transaction (the
// caller holds the order's lock); nil when the order has none.
func lockRunOf(ctx context.Context, tx bun.IDB, storeID, orderID int64) (*FunnelRun, error) {
	run := new(FunnelRun)
	err := tx.NewSelect().Model(run).Where("store_id = ? AND order_id = ?", storeID, orderID).For("UPDATE").Scan(ctx)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	return run, err
}

// endCancelledRuns ends the running runs of orders being cancelled
// (CancelOrders: the authorizations they held are voided there), each
// cancelled at its cancellation's time, with the orders' upsell status, in
// one statement.
func endCancelledRuns(ctx context.Context, tx bun.IDB, storeID int64, orderIDs []int64, nows []time.Time) error {
	_, err := tx.NewRaw(`WITH ended AS (
			UPDATE funnel_runs AS r SET status = ?, current_position = NULL, ended_at = v.at
			FROM unnest(?::bigint[], ?::timestamptz[]) AS v(order_id, at)
			WHERE r.store_id = ? AND r.order_id = v.order_id AND r.status = ?
			RETURNING r.order_id)
		UPDATE orders AS o SET upsell = jsonb_set(o.upsell, '{status}', to_jsonb(?::text))
		FROM ended WHERE o.store_id = ? AND o.id = ended.order_id AND o.upsell IS NOT NULL`,
		RunCancelled, pgdialect.Array(orderIDs), pgdialect.Array(nows), storeID, RunRunning, RunCancelled, storeID).Exec(ctx)
	return err
}

// TimeOutRuns ends the runs whose expires_at passed by now, at most limit
// of them, each timed out in a transaction of its own (TimeOutRun). It
// answers how many it ended. Safe to run on several servers at once.
func TimeOutRuns(ctx context.Context, db *bun.DB, now time.Time, limit int) (int, error) {
	var due []FunnelRun
	err := db.NewSelect().Model(&due).Column("id", "store_id", "order_id").
		Where("status = ? AND expires_at <= ?", RunRunning, now).OrderExpr("expires_at, id").Limit(int64(limit)).Scan(ctx)
	if err != nil {
		return 0, err
	}
	ended := 0
	for _, d := range due {
		err := db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
			done, err := TimeOutRun(ctx, tx, d.StoreID, d.OrderID, now)
			if done {
				ended++
			}
			return err
		})
		if err != nil {
			return ended, err
		}
	}
	return ended, nil
}

// TimeOutRun ends the order's run when its expires_at passed by now,
// captured as a completed run is; the offer it was at stays as it was
// (pending or shown: undecided). It says whether it ended the run. The
// order is taken with SKIP LOCKED (another server, or the shopper's
// answer, has it: it is left for them) and the run is checked again under
// the lock. Run it in a transaction.
func TimeOutRun(ctx context.Context, tx bun.IDB, storeID, orderID int64, now time.Time) (bool, error) {
	var orders []Order
	if err := tx.NewSelect().Model(&orders).Where("store_id = ? AND id = ?", storeID, orderID).
		For("UPDATE SKIP LOCKED").Scan(ctx); err != nil || len(orders) == 0 {
		return false, err
	}
	run, err := lockRunOf(ctx, tx, storeID, orderID)
	if err != nil || run == nil || run.Status != RunRunning || run.ExpiresAt.After(now) {
		return false, err
	}
	return true, (&runWalk{run: run, order: &orders[0]}).end(ctx, tx, RunTimedOut, now)
}
