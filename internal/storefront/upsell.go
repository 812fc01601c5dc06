package storefront

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/go-chi/chi/v5"
	"github.com/uptrace/bun"

	"storeadmin/internal/base/apperr"
	"storeadmin/internal/base/failure"
	"storeadmin/internal/events"
	"storeadmin/models"
)

// The post-purchase funnel at run time, by checkout token: GET
// /checkouts/{token}/upsell reads the run its completion started, and
// POST .../upsell/{position}/shown, /accept and /decline answer its
// offer (models.AnswerRun). Each answers the run as it is after
// (runView).

// runView is a run as the shopper's browser sees it: its state, the order's
// totals and the offer it is at (null once it ended).
func runView(p *models.RunPage) map[string]any {
	r, o := p.Run, p.Order
	v := map[string]any{
		"status": r.Status, "funnel_id": r.FunnelID, "current_position": r.CurrentPosition, "expires_at": r.ExpiresAt.UTC(),
		"entered_at": r.EnteredAt.UTC(), "ended_at": r.EndedAt,
		"order": map[string]any{"id": o.ID, "order_number_display": o.OrderNumberDisplay, "currency": o.Currency,
			"subtotal_cents": o.SubtotalCents, "discount_cents": o.DiscountCents, "shipping_cents": o.ShippingCents,
			"tax_cents": o.TaxCents, "tip_cents": o.TipCents, "surcharge_cents": o.SurchargeCents, "total_cents": o.TotalCents},
		"offer": nil,
	}
	if p.Offer == nil || p.Step == nil {
		return v
	}
	s := p.Step
	sellable := map[int64]bool{}
	for _, sv := range models.SellableVariants(p.Variants, s.Offer.Quantity) {
		sellable[sv.ID] = true
	}
	variants := make([]map[string]any, len(p.Variants))
	var product map[string]any
	for i, cv := range p.Variants {
		variants[i] = map[string]any{"id": cv.ID, "title": cv.LineTitle(), "sku": cv.SKU, "price_cents": cv.PriceCents,
			"offer_price_cents": models.OfferPrice(cv.PriceCents, s.Offer.Discount), "available": sellable[cv.ID]}
		product = map[string]any{"id": cv.ProductID, "title": cv.ProductTitle, "handle": cv.ProductHandle}
	}
	var discount any
	if d := s.Offer.Discount; d != nil {
		discount = map[string]any{"type": d.Type, "value": d.Value}
	}
	v["offer"] = map[string]any{"position": s.Position, "name": s.Name, "type": s.Type, "status": p.Offer.Status,
		"quantity": s.Offer.Quantity, "discount": discount, "product": product, "variants": variants,
		"choose_variant": s.Offer.VariantID == nil && len(sellable) > 1, "upsell_page": p.Design}
	return v
}

// getUpsell is GET /checkouts/{token}/upsell: the run of the checkout's
// order; a checkout without one is a 404.
func (s *service) getUpsell(w http.ResponseWriter, r *http.Request) {
	token, err := tokenParam(r, "checkout")
	if err != nil {
		failure.WriteREST(w, r, err)
		return
	}
	run, err := models.RunOfCheckout(r.Context(), s.DB, storeOf(r), token)
	if err != nil {
		failure.WriteREST(w, r, err)
		return
	}
	page, err := models.ReadRunPage(r.Context(), s.DB, run)
	if err != nil {
		failure.WriteREST(w, r, err)
		return
	}
	answer(w, r, http.StatusOK, map[string]any{"upsell": runView(page)})
}

// acceptBody is what POST .../accept takes.
type acceptBody struct {
	VariantID *int64 `json:"variant_id"`
}

// answerUpsell is POST /checkouts/{token}/upsell/{position}/{verb}: the
// shopper's answer to the offer at position, then the run as it is after;
// with the answer's outcome: `answer` {position, status, changed,
// unavailable_reason}. An accepted offer emits upsell.accepted in the
// answer's transaction, once: a repeated accept changes nothing and emits
// nothing.
func (s *service) answerUpsell(verb string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		var in acceptBody
		var err error
		if verb == models.AnswerAccept {
			err = readBody(r, &in)
		} else {
			err = readBody(r, &struct{}{})
		}
		if err != nil {
			failure.WriteREST(w, r, err)
			return
		}
		token, err := tokenParam(r, "checkout")
		if err != nil {
			failure.WriteREST(w, r, err)
			return
		}
		position, err := strconv.ParseInt(chi.URLParam(r, "position"), 10, 64)
		if err != nil || position < 1 {
			failure.WriteREST(w, r, apperr.Invalidf("the position in the path must be a whole number from 1, not %q", chi.URLParam(r, "position")))
			return
		}
		if in.VariantID != nil && *in.VariantID < 1 {
			failure.WriteREST(w, r, apperr.InvalidField("variant_id", "must be the id of a variant, a whole number from 1"))
			return
		}
		now := s.Now().UTC()
		var view, outcome map[string]any
		err = s.DB.RunInTx(r.Context(), nil, func(ctx context.Context, tx bun.Tx) error {
			run, out, err := models.AnswerRun(ctx, tx, storeOf(r), token, models.RunAnswer{Verb: verb, Position: position, VariantID: in.VariantID, Now: now}, s.Platform)
			if err != nil {
				return err
			}
			page, err := models.ReadRunPage(ctx, tx, run)
			if err != nil {
				return err
			}
			if out.Changed && out.Line != nil {
				if err := s.upsellAccepted(ctx, tx, run, page.Order, out, token, now); err != nil {
					return err
				}
			}
			view = runView(page)
			outcome = map[string]any{"position": position, "status": out.Offer.Status, "changed": out.Changed, "unavailable_reason": out.Unavailable}
			return nil
		})
		if err != nil {
			failure.WriteREST(w, r, err)
			return
		}
		answer(w, r, http.StatusOK, map[string]any{"upsell": view, "answer": outcome})
	}
}

// acceptedView is the data of upsell.accepted: the offer accepted and the
// order after it, as GET /store/orders/{id} answers it.
type acceptedView struct {
	Upsell acceptedOffer   `json:"upsell"`
	Order  json.RawMessage `json:"order"`
}

// acceptedOffer is what upsell.accepted says of the offer (README
// "Funnels at run time"): the run, the step, the line it added and what
// it charged, and the order's total after it.
type acceptedOffer struct {
	RunID              int64  `json:"run_id"`
	OrderID            int64  `json:"order_id"`
	CheckoutToken      string `json:"checkout_token"`
	FunnelID           *int64 `json:"funnel_id"`
	FunnelName         string `json:"funnel_name"`
	ZoneName           string `json:"zone_name"`
	Position           int64  `json:"position"`
	StepName           string `json:"step_name"`
	LineItemID         int64  `json:"line_item_id"`
	ProductID          *int64 `json:"product_id"`
	VariantID          *int64 `json:"variant_id"`
	Quantity           int64  `json:"quantity"`
	PriceCents         int64  `json:"price_cents"`
	OriginalPriceCents *int64 `json:"original_price_cents"`
	AmountCents        int64  `json:"amount_cents"`
	OrderTotalCents    int64  `json:"order_total_cents"`
	Currency           string `json:"currency"`
	SurchargeCents     int64  `json:"surcharge_cents"`
	AcceptedAt         string `json:"accepted_at"`
}

// upsellAccepted emits upsell.accepted for the offer out accepted on
// order o (as the accept priced it), in tx.
func (s *service) upsellAccepted(ctx context.Context, tx bun.Tx, run *models.FunnelRun, o *models.Order, out models.RunOutcome, token string, now time.Time) error {
	a := s.Announce
	if a.Events == nil {
		return nil
	}
	order, err := a.OrderObject(ctx, tx, run.StoreID, run.OrderID)
	if err != nil {
		return fmt.Errorf("render upsell.accepted payload: %w", err)
	}
	l := out.Line
	data, err := json.Marshal(acceptedView{Order: order, Upsell: acceptedOffer{RunID: run.ID, OrderID: run.OrderID, CheckoutToken: token,
		FunnelID: run.FunnelID, FunnelName: run.FunnelName, ZoneName: run.ZoneName, Position: out.Offer.Position, StepName: out.Offer.StepName,
		LineItemID: l.ID, ProductID: l.ProductID, VariantID: l.VariantID, Quantity: l.Quantity, PriceCents: l.PriceCents,
		OriginalPriceCents: l.OriginalPriceCents, AmountCents: out.Offer.AmountCents, OrderTotalCents: o.TotalCents, Currency: o.Currency,
		SurchargeCents: run.SurchargeCents, AcceptedAt: now.Format(time.RFC3339)}})
	if err != nil {
		return err
	}
	_, err = a.Events.Emit(ctx, tx, events.Event{StoreID: run.StoreID, Topic: "upsell.accepted", Resource: "funnel_offer", ResourceID: out.Offer.ID, Data: data})
	return err
}
