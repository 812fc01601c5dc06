package models

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/uptrace/bun"

	"storeadmin/internal/base/apperr"
)

// The shopper's answers to a run's offer: shown, accept, decline. Each
// runs in one transaction under the order's lock and the run's. Repeating
// the answer an offer already has changes nothing; an answer for another
// position than the run's, one that contradicts the answer given, or one
// to a run that ended is a conflict.

// The answers a shopper gives an offer.
const (
	AnswerShown   = "shown"
	AnswerAccept  = "accept"
	AnswerDecline = "decline"
)

// RunAnswer is one answer to the offer at Position.
type RunAnswer struct {
	Verb     string // AnswerShown, AnswerAccept or AnswerDecline
	Position int64
	// VariantID is the variant accepted, required when the offer is of a
	// product with several variants that can be sold.
	VariantID *int64
	Now       time.Time
}

// RunOutcome is what an answer did.
type RunOutcome struct {
	// Changed is false when the answer had been given already.
	Changed bool
	// Offer is the offer answered, as it is now.
	Offer FunnelRunOffer
	// Unavailable says why an accepted offer could not be sold when it was
	// accepted (an OfferUnavailable… reason, or "step_removed"): it was
	// recorded unavailable and the run followed its decline branch.
	Unavailable *string
	// Line is the line an accepted offer added to the order.
	Line *OrderLineItem
}

// offerRemoved is why an offer cannot be sold whose step left the funnel
// (or whose funnel was deleted) while the shopper looked at it.
const offerRemoved = "step_removed"

// RunOfCheckout reads the run behind the order of the store's checkout of
// token. Another store's token, or a checkout with no run (not completed,
// paid by a sale, routed to no funnel), is not found.
func RunOfCheckout(ctx context.Context, db bun.IDB, storeID int64, token string) (*FunnelRun, error) {
	c, err := CheckoutByToken(ctx, db, storeID, token, false)
	if err != nil {
		return nil, err
	}
	run := new(FunnelRun)
	err = db.NewSelect().Model(run).Where("store_id = ? AND checkout_id = ?", storeID, c.ID).Scan(ctx)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, apperr.NotFoundf("this checkout has no post-purchase offers: its order was paid by a sale, or its zone routes to no funnel, or it is not completed yet")
	}
	return run, err
}

// RunOffers reads the offers a run reached, by position.
func RunOffers(ctx context.Context, db bun.IDB, storeID, runID int64) ([]FunnelRunOffer, error) {
	var out []FunnelRunOffer
	err := db.NewSelect().Model(&out).Where("store_id = ? AND run_id = ?", storeID, runID).Order("position").Scan(ctx)
	return out, err
}

// AnswerRun records answer a to the run of the store's checkout of token
// and moves the run on: shown marks the offer shown; decline follows the
// step's decline branch; accept re-checks the offer (unavailable now: it
// is recorded so and the run follows the decline branch), adds its line to
// the order (source "upsell", the order tagged "upsell"), takes its stock,
// prices the order again (repriceUpsellOrder) and follows the accept
// branch. A branch to nothing completes the run, which captures. It
// answers the run as it is after. Run it in a transaction.
func AnswerRun(ctx context.Context, tx bun.IDB, storeID int64, token string, a RunAnswer, p Platform) (*FunnelRun, RunOutcome, error) {
	var out RunOutcome
	found, err := RunOfCheckout(ctx, tx, storeID, token)
	if err != nil {
		return nil, out, err
	}
	o, err := LockOrder(ctx, tx, storeID, found.OrderID)
	if err != nil {
		return nil, out, err
	}
	run, err := lockRunOf(ctx, tx, storeID, o.ID)
	if err != nil {
		return nil, out, err
	}
	offers, err := RunOffers(ctx, tx, storeID, run.ID)
	if err != nil {
		return nil, out, err
	}
	at := slices.IndexFunc(offers, func(f FunnelRunOffer) bool { return f.Position == a.Position })
	if at >= 0 {
		out.Offer = offers[at]
		if done, err := answered(a.Verb, out.Offer); done || err != nil {
			return run, out, err
		}
	}
	switch {
	case run.Status != RunRunning:
		return nil, out, apperr.Conflictf("this checkout's post-purchase offers ended (%s): they take no more answers", run.Status)
	case run.CurrentPosition == nil || *run.CurrentPosition != a.Position || at < 0:
		return nil, out, apperr.Conflictf("the offer at position %d is not the one the shopper is at: that is position %d", a.Position, *run.CurrentPosition)
	}
	w, err := loadRunWalk(ctx, tx, run, o)
	if err != nil {
		return nil, out, err
	}
	offer := &out.Offer
	out.Changed = true
	if a.Verb == AnswerShown {
		offer.Status, offer.ShownAt = OfferShown, &a.Now
		_, err := tx.NewUpdate().Model(offer).Column("status", "shown_at").WherePK().Exec(ctx)
		return run, out, err
	}
	step := w.step(a.Position)
	var next *int64
	if step != nil {
		next = step.DeclineNextPosition
	}
	offer.Status, offer.DecidedAt = OfferDeclined, &a.Now
	if offer.ShownAt == nil {
		// An answer is proof the offer was shown, reported or not: the
		// reports' shown figures count every answered offer.
		offer.ShownAt = &a.Now
	}
	if a.Verb == AnswerAccept {
		var reason *string
		if out.Line, reason, err = acceptOffer(ctx, tx, w, step, a, p); err != nil {
			return nil, out, err
		}
		if out.Line == nil {
			offer.Status, out.Unavailable = OfferUnavailable, reason
		} else {
			offer.Status, next = OfferAccepted, step.AcceptNextPosition
			offer.LineItemID, offer.Quantity = &out.Line.ID, out.Line.Quantity
			offer.AmountCents, offer.VariantID = out.Line.PriceCents*out.Line.Quantity, out.Line.VariantID
		}
	}
	if _, err := tx.NewUpdate().Model(offer).Column("status", "shown_at", "decided_at", "line_item_id", "quantity", "amount_cents", "variant_id").
		WherePK().Exec(ctx); err != nil {
		return nil, out, err
	}
	run.SurchargeCents = o.SurchargeCents
	return run, out, w.reach(ctx, tx, next, a.Now)
}

// answered says whether the offer has answer verb already (done: nothing
// to change), and refuses one that contradicts the answer it has. An offer
// recorded unavailable took every answer it could.
func answered(verb string, f FunnelRunOffer) (done bool, err error) {
	switch {
	case f.Status == OfferPending:
		return false, nil
	case f.Status == OfferUnavailable:
		return true, nil
	case verb == AnswerShown:
		return true, nil
	case f.Status == OfferShown:
		return false, nil
	case verb == AnswerAccept && f.Status == OfferAccepted, verb == AnswerDecline && f.Status == OfferDeclined:
		return true, nil
	}
	return false, apperr.Conflictf("the offer at position %d was %s already; it cannot be %sd now", f.Position, f.Status, map[string]string{AnswerAccept: "accepte", AnswerDecline: "decline"}[verb])
}

// acceptOffer adds step's offer to w's order, priced again: the variant
// accepted (a.VariantID, or the only one the offer may sell), at the
// offer's price, its stock taken. A nil line with a reason: the offer
// cannot be sold now.
func acceptOffer(ctx context.Context, tx bun.IDB, w *runWalk, step *FunnelStep, a RunAnswer, p Platform) (*OrderLineItem, *string, error) {
	reason := func(r string) (*OrderLineItem, *string, error) { return nil, &r, nil }
	if step == nil {
		return reason(offerRemoved)
	}
	if step.Unavailable != nil {
		return reason(*step.Unavailable)
	}
	vs, err := OfferVariants(ctx, tx, w.run.StoreID, step.Offer)
	if err != nil {
		return nil, nil, err
	}
	sellable := SellableVariants(vs, step.Offer.Quantity)
	var v *CatalogueVariant
	switch {
	case a.VariantID != nil:
		i := slices.IndexFunc(vs, func(v CatalogueVariant) bool { return v.ID == *a.VariantID })
		if i < 0 {
			return nil, nil, apperr.InvalidField("variant_id", "is %d, not a variant this offer sells: it sells %v", *a.VariantID, variantIDs(vs))
		}
		if !slices.ContainsFunc(sellable, func(s CatalogueVariant) bool { return s.ID == *a.VariantID }) {
			return nil, nil, apperr.InvalidField("variant_id", "is %d, which cannot be sold now (the offer adds %d and it has %d in stock); choose one of %v",
				*a.VariantID, step.Offer.Quantity, vs[i].Inventory, variantIDs(sellable))
		}
		v = &vs[i]
	case len(sellable) == 0:
		return reason(OfferOutOfStock)
	case len(sellable) == 1:
		v = &sellable[0]
	default:
		return nil, nil, apperr.InvalidField("variant_id", "is required: this offer's product has several variants to choose from: %v", variantIDs(sellable))
	}
	lines, err := OrderLines(ctx, tx, w.order.StoreID, w.order.ID)
	if err != nil {
		return nil, nil, err
	}
	l := OrderLineItem{StoreID: w.order.StoreID, OrderID: w.order.ID, VariantID: &v.ID, ProductID: &v.ProductID, Title: v.ProductTitle,
		VariantTitle: v.LineTitle(), SKU: v.SKU, PriceCents: OfferPrice(v.PriceCents, step.Offer.Discount), Quantity: step.Offer.Quantity,
		RequiresShipping: v.RequiresShipping, Source: "upsell"}
	if l.PriceCents != v.PriceCents {
		l.OriginalPriceCents = &v.PriceCents
	}
	for _, x := range lines {
		l.Position = max(l.Position, x.Position+1)
	}
	if _, err := tx.NewInsert().Model(&l).Returning("id").Exec(ctx); err != nil {
		return nil, nil, classify(err, "the order's line")
	}
	if err := AdjustInventory(ctx, tx, w.order.StoreID, map[int64]int64{v.ID: -l.Quantity}); err != nil {
		return nil, nil, err
	}
	o := w.order
	if !slices.Contains(o.SystemTags, "upsell") {
		o.SystemTags = append(o.SystemTags, "upsell")
	}
	lines = append(lines, l)
	if err := repriceUpsellOrder(ctx, tx, o, lines, w.run.FunnelID, p, a.Now); err != nil {
		return nil, nil, err
	}
	l = lines[len(lines)-1]
	amount := l.PriceCents * l.Quantity
	entry := timelineEntry(o, "upsell_accepted", "checkout", a.Now, nil, map[string]any{"funnel_name": w.run.FunnelName,
		"position": step.Position, "step_name": step.Name, "line_item_id": l.ID, "variant_id": v.ID, "quantity": l.Quantity,
		"total_cents": o.TotalCents})
	entry.AmountCents = &amount
	return &l, nil, AddOrderEvents(ctx, tx, entry)
}

// OfferVariants reads the variants an offer may sell, with their products:
// the offered variant, or every variant of the offered product (by
// position). None when the product or variant is gone.
func OfferVariants(ctx context.Context, db bun.IDB, storeID int64, offer FunnelOffer) ([]CatalogueVariant, error) {
	var rows []CatalogueVariant
	q := db.NewSelect().TableExpr("product_variants AS v").Join("JOIN products AS p ON p.id = v.product_id").
		ColumnExpr("v.id, v.product_id, p.title AS product_title, p.handle AS product_handle, p.status AS product_status, v.title, v.sku, v.price_cents, v.weight_grams").
		ColumnExpr("v.taxable, v.requires_shipping, v.track_inventory, v.inventory_policy, v.inventory_quantity").
		Where("v.store_id = ? AND v.product_id = ?", storeID, offer.ProductID).OrderExpr("v.position, v.id")
	if offer.VariantID != nil {
		q = q.Where("v.id = ?", *offer.VariantID)
	}
	err := q.Scan(ctx, &rows)
	return rows, err
}

// SellableVariants are the variants of vs that can be sold quantity of
// now: their product is active, and their stock is not tracked, may be
// oversold, or holds quantity (offerUnavailable's rule).
func SellableVariants(vs []CatalogueVariant, quantity int64) []CatalogueVariant {
	var out []CatalogueVariant
	for _, v := range vs {
		if v.ProductStatus == ProductActive && (!v.TrackInventory || v.InventoryPolicy == InventoryContinue || v.Inventory >= quantity) {
			out = append(out, v)
		}
	}
	return out
}

// variantIDs lists the ids of vs, for messages.
func variantIDs(vs []CatalogueVariant) string {
	ids := make([]int64, len(vs))
	for i, v := range vs {
		ids[i] = v.ID
	}
	return fmt.Sprint(ids)
}
