package storefront

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/uptrace/bun"

	"storeadmin/internal/base/apperr"
	"storeadmin/internal/base/failure"
	"storeadmin/models"
)

// Checkouts by token: POST /checkouts starts one from a cart (or from
// lines), GET and PUT /checkouts/{token} read and change it, GET
// .../shipping-rates lists the rates it can take, POST
// .../payment-attempts reports what the payment provider said, and POST
// .../complete places its order. Every change reprices it with the pricing
// engine; its totals are never the client's.

// maxTrackingValue bounds each utm and tracking value.
const maxTrackingValue = 1024

// trackingKeys are the server-side conversion context a storefront may
// report (AbandonedcartTrackingContext); client_ip and user_agent are the
// request's own, never the body's.
var trackingKeys = []string{"fbp", "fbc", "ttclid", "ttp", "kx", "axwrt", "external_id", "event_source_url"}

// checkoutBody is what POST and PUT /checkouts take; each field left out
// keeps its value.
type checkoutBody struct {
	contactBody
	// CartToken starts the checkout from the cart (POST only).
	CartToken *string `json:"cart_token"`
	// Lines, when sent, replace the checkout's lines.
	Lines           *[]models.LineAsk `json:"lines"`
	ShippingAddress any               `json:"shipping_address"`
	BillingAddress  any               `json:"billing_address"`
	// DiscountCode: "" removes the code.
	DiscountCode *string `json:"discount_code"`
	// ShippingRateID: one of GET .../shipping-rates; 0 removes it.
	ShippingRateID *int64            `json:"shipping_rate_id"`
	Tip            tipField          `json:"tip"`
	Step           *string           `json:"step"`
	UTM            map[string]string `json:"utm"`
	Tracking       map[string]string `json:"tracking"`
}

// tipField is the body's tip: {"preset": n} (one of the store's presets)
// or {"amount_cents": n} (a custom tip), null for none. Sent tells null
// from left out; applyCheckout reads raw, so that a bad tip is a 400
// naming it rather than a body that is not JSON.
type tipField struct {
	Sent bool
	raw  []byte
}

// UnmarshalJSON keeps the tip sent, for choice.
func (t *tipField) UnmarshalJSON(raw []byte) error {
	t.Sent, t.raw = true, bytes.Clone(raw)
	return nil
}

// choice is the tip chosen; nil for none.
func (t tipField) choice() (*models.TipChoice, error) {
	if !t.Sent || string(bytes.TrimSpace(t.raw)) == "null" {
		return nil, nil
	}
	dec := json.NewDecoder(bytes.NewReader(t.raw))
	dec.DisallowUnknownFields()
	var c models.TipChoice
	if err := dec.Decode(&c); err != nil {
		return nil, apperr.InvalidField("tip", `must be {"preset": n}, {"amount_cents": n} or null, n a whole number`)
	}
	return &c, nil
}

// tippingView is the tipping a checkout offers, for the browser to show;
// null when the store takes no tips.
func tippingView(t models.TippingConfig) any {
	if !t.Enabled {
		return nil
	}
	return map[string]any{"mode": t.Mode, "label": t.Label, "description": t.Description, "presets": t.Presets,
		"default_preset": t.DefaultPreset, "allow_custom": t.AllowCustom, "max_percent": t.MaxPercent}
}

// checkoutView is a checkout as its browser sees it.
func checkoutView(c *models.StorefrontCheckout, lines []models.StorefrontCheckoutLine, now time.Time) map[string]any {
	ls := make([]lineView, len(lines))
	for i, l := range lines {
		ls[i] = basketView(l.BasketLine)
	}
	v := map[string]any{
		"token": c.Token, "state": c.StateAt(now), "currency": c.Currency, "email": c.Email, "phone": c.Phone,
		"first_name": c.FirstName, "last_name": c.LastName, "marketing_consent": c.MarketingConsent,
		"recovery_opt_out": c.RecoveryOptOut, "shipping_address": c.ShippingAddress, "billing_address": c.BillingAddress,
		"shipping_line": c.ShippingLine, "discount_code": c.DiscountCode, "item_count": c.ItemCount,
		"subtotal_cents": c.SubtotalCents, "discount_cents": c.DiscountCents, "shipping_cents": c.ShippingCents,
		"tax_cents": c.TaxCents, "tip": c.Tip, "tip_cents": c.TipCents, "tipping": tippingView(c.Tipping),
		"surcharge_cents": c.SurchargeCents, "total_cents": c.TotalCents, "step": c.Step, "utm": c.UTM, "lines": ls, "expires_at": c.ExpiresAt.UTC(), "completed_at": c.CompletedAt,
		"created_at": c.CreatedAt.UTC(), "updated_at": c.UpdatedAt.UTC(),
	}
	if c.UTM == nil {
		v["utm"] = map[string]any{}
	}
	return v
}

// checkoutLines makes checkout lines of basket lines.
func checkoutLines(basket []models.BasketLine) []models.StorefrontCheckoutLine {
	out := make([]models.StorefrontCheckoutLine, len(basket))
	for i, l := range basket {
		l.ID = 0
		out[i].BasketLine = l
	}
	return out
}

// changeCheckout applies the body to c (new when c.ID is 0) and its lines
// in tx, reprices it and stores it, with the request's tracking context.
func (s *service) changeCheckout(ctx context.Context, tx bun.Tx, r *http.Request, c *models.StorefrontCheckout, lines []models.StorefrontCheckoutLine, in checkoutBody, now time.Time) ([]models.StorefrontCheckoutLine, error) {
	if err := in.contactBody.apply(&c.ShopperContact); err != nil {
		return nil, err
	}
	if v, sess, ok, err := in.visit(ctx, tx, c.StoreID); err != nil {
		return nil, err
	} else if ok {
		c.VisitorID, c.SessionID = v, sess
	}
	replace := in.Lines != nil || c.ID == 0
	if in.Lines != nil {
		basket, err := models.BasketLines(ctx, tx, c.StoreID, *in.Lines, s.Platform)
		if err != nil {
			return nil, err
		}
		lines = checkoutLines(basket)
	}
	if err := applyCheckout(ctx, tx, c, in, now); err != nil {
		return nil, err
	}
	c.Tracking = tracking(c.Tracking, in.Tracking, r, s.keptIP(r))
	if _, err := models.PriceCheckout(ctx, tx, c, lines, s.Platform, now); err != nil {
		return nil, err
	}
	if in.ShippingRateID != nil && *in.ShippingRateID != 0 && c.ShippingLine == nil {
		return nil, apperr.Invalidf("shipping_rate_id %d is not a rate this checkout can ship with; GET /checkouts/{token}/shipping-rates lists them", *in.ShippingRateID)
	}
	// A tip sent is checked against the tipping the pricing read (one it
	// does not offer tipped nothing); a custom one must be within its bound
	// of the goods as priced.
	if tip := c.Tip; in.Tip.Sent && tip != nil {
		if err := c.Tipping.Offers(*tip); err != nil {
			return nil, err
		}
		if tip.AmountCents != nil && c.TipCents < *tip.AmountCents {
			return nil, apperr.InvalidField("tip.amount_cents", "must be at most %d: a custom tip is at most %d%% of the goods (%d), not %d",
				c.TipCents, *c.Tipping.MaxPercent, c.SubtotalCents-c.DiscountCents, *tip.AmountCents)
		}
	}
	c.UpdatedAt, c.ExpiresAt = now, now.Add(models.CheckoutLifetime)
	if c.ID == 0 {
		c.CreatedAt = now
		if err := models.InsertCheckout(ctx, tx, c); err != nil {
			return nil, err
		}
	} else if err := models.SaveCheckout(ctx, tx, c); err != nil {
		return nil, err
	}
	if replace {
		return lines, models.ReplaceCheckoutLines(ctx, tx, c, lines)
	}
	return lines, models.SaveCheckoutLines(ctx, tx, lines)
}

// applyCheckout checks and sets the checkout's own fields the body sends.
func applyCheckout(ctx context.Context, db bun.IDB, c *models.StorefrontCheckout, in checkoutBody, now time.Time) error {
	var err error
	if in.ShippingAddress != nil {
		if c.ShippingAddress, err = models.CheckAddress("shipping_address", in.ShippingAddress); err != nil {
			return err
		}
	}
	if in.BillingAddress != nil {
		if c.BillingAddress, err = models.CheckAddress("billing_address", in.BillingAddress); err != nil {
			return err
		}
	}
	if in.DiscountCode != nil {
		c.DiscountCode = ""
		if code := strings.TrimSpace(*in.DiscountCode); code != "" {
			disc, err := models.UsableCode(ctx, db, c.StoreID, code, now)
			if err != nil {
				return err
			}
			c.DiscountCode = disc.Code
		}
	}
	if in.ShippingRateID != nil {
		c.ShippingLine = nil
		if *in.ShippingRateID != 0 {
			c.ShippingLine = &models.ShippingLine{RateID: *in.ShippingRateID}
		}
	}
	if in.Tip.Sent {
		if c.Tip, err = in.Tip.choice(); err != nil { // checked against the store's tipping once priced (changeCheckout)
			return err
		}
	}
	if in.Step != nil {
		at := slices.Index(models.CheckoutSteps, *in.Step)
		if at < 0 {
			return apperr.Invalidf("step must be one of %s, not %q", strings.Join(models.CheckoutSteps, ", "), *in.Step)
		}
		if at > slices.Index(models.CheckoutSteps, c.Step) { // the furthest step reached
			c.Step = *in.Step
		}
	}
	if in.UTM != nil {
		if c.UTM, err = textObject("utm", in.UTM, models.UTMKeys); err != nil {
			return err
		}
	}
	if in.Tracking != nil {
		if _, err := textObject("tracking", in.Tracking, trackingKeys); err != nil {
			return err
		}
	}
	return nil
}

// textObject checks an object of short text whose keys are among keys.
func textObject(field string, in map[string]string, keys []string) (map[string]any, error) {
	out := make(map[string]any, len(in))
	for k, v := range in {
		if !slices.Contains(keys, k) {
			return nil, apperr.Invalidf("%s may hold %s, not %q", field, strings.Join(keys, ", "), k)
		}
		if v = strings.TrimSpace(v); utf8.RuneCountInString(v) > maxTrackingValue {
			return nil, apperr.Invalidf("%s.%s must be at most %d characters", field, k, maxTrackingValue)
		}
		if v != "" {
			out[k] = v
		}
	}
	return out, nil
}

// tracking is the checkout's tracking context after this request: the
// values the body sends (checked by applyCheckout) over those kept, and the
// request's client address (ip: as the IP policy keeps it) and user agent.
func tracking(kept map[string]any, sent map[string]string, r *http.Request, ip string) map[string]any {
	out := map[string]any{}
	for k, v := range kept {
		out[k] = v
	}
	for k, v := range sent {
		if v = strings.TrimSpace(v); v != "" {
			out[k] = v
		} else {
			delete(out, k)
		}
	}
	if ip != "" {
		out["client_ip"] = ip
	} else {
		delete(out, "client_ip")
	}
	if ua := r.UserAgent(); ua != "" {
		if utf8.RuneCountInString(ua) > maxTrackingValue {
			ua = string([]rune(ua)[:maxTrackingValue])
		}
		out["user_agent"] = ua
	}
	return out
}

// createCheckout is POST /checkouts: a checkout from the cart of
// cart_token (its lines, contact and visit) or from lines, 201. A cart
// that has an open checkout takes that one up again, with the cart's
// lines as they are now, 200.
func (s *service) createCheckout(w http.ResponseWriter, r *http.Request) {
	var in checkoutBody
	if err := readBody(r, &in); err != nil {
		failure.WriteREST(w, r, err)
		return
	}
	now := s.Now().UTC()
	status := http.StatusCreated
	var view map[string]any
	err := s.DB.RunInTx(r.Context(), nil, func(ctx context.Context, tx bun.Tx) error {
		st, err := models.GetStore(ctx, tx, storeOf(r))
		if err != nil {
			return err
		}
		c := &models.StorefrontCheckout{StoreID: st.ID, State: models.CheckoutOpen, Currency: st.Currency}
		var lines []models.StorefrontCheckoutLine
		switch {
		case in.CartToken != nil:
			if !tokenRE.MatchString(*in.CartToken) {
				return apperr.NotFoundf("no cart has this cart_token")
			}
			cart, err := models.CartByToken(ctx, tx, st.ID, *in.CartToken, false)
			if err != nil {
				return err
			}
			if open, err := models.OpenCheckoutOfCart(ctx, tx, st.ID, cart.ID, now); err != nil {
				return err
			} else if open != nil {
				c, status = open, http.StatusOK
			} else {
				c.CartID, c.VisitorID, c.SessionID, c.ShopperContact = &cart.ID, cart.VisitorID, cart.SessionID, cart.ShopperContact
			}
			if in.Lines == nil {
				cls, err := models.CartLines(ctx, tx, st.ID, cart.ID)
				if err != nil {
					return err
				}
				asks := make([]models.LineAsk, 0, len(cls))
				for _, l := range cls {
					if l.VariantID != nil { // a deleted variant's line is not for sale
						asks = append(asks, models.AskOfLine(l.BasketLine))
					}
				}
				in.Lines = &asks
			}
		case in.Lines == nil:
			return apperr.Invalidf("a checkout starts from a cart (cart_token) or from lines")
		}
		lines, err = s.changeCheckout(ctx, tx, r, c, lines, in, now)
		if err != nil {
			return err
		}
		if len(lines) == 0 {
			return apperr.Invalidf("a checkout needs at least one line")
		}
		view = checkoutView(c, lines, now)
		return nil
	})
	if err != nil {
		failure.WriteREST(w, r, err)
		return
	}
	answer(w, r, status, map[string]any{"checkout": view})
}

// getCheckout is GET /checkouts/{token}.
func (s *service) getCheckout(w http.ResponseWriter, r *http.Request) {
	c, lines, err := s.readCheckout(r.Context(), s.DB, r, false)
	if err == nil {
		err = models.CheckoutTipping(r.Context(), s.DB, c)
	}
	if err != nil {
		failure.WriteREST(w, r, err)
		return
	}
	answer(w, r, http.StatusOK, map[string]any{"checkout": checkoutView(c, lines, s.Now().UTC())})
}

// readCheckout reads the checkout of the path's token and its lines.
func (s *service) readCheckout(ctx context.Context, db bun.IDB, r *http.Request, lock bool) (*models.StorefrontCheckout, []models.StorefrontCheckoutLine, error) {
	token, err := tokenParam(r, "checkout")
	if err != nil {
		return nil, nil, err
	}
	c, err := models.CheckoutByToken(ctx, db, storeOf(r), token, lock)
	if err != nil {
		return nil, nil, err
	}
	lines, err := models.CheckoutLines(ctx, db, c.StoreID, c.ID)
	return c, lines, err
}

// updateCheckout is PUT /checkouts/{token}: the fields sent change, the
// checkout is repriced. A completed or expired checkout is a 409.
func (s *service) updateCheckout(w http.ResponseWriter, r *http.Request) {
	var in checkoutBody
	if err := readBody(r, &in); err != nil {
		failure.WriteREST(w, r, err)
		return
	}
	if in.CartToken != nil {
		failure.WriteREST(w, r, apperr.Invalidf("cart_token starts a checkout (POST /checkouts); send lines to change this one's"))
		return
	}
	now := s.Now().UTC()
	var view map[string]any
	err := s.DB.RunInTx(r.Context(), nil, func(ctx context.Context, tx bun.Tx) error {
		c, lines, err := s.readCheckout(ctx, tx, r, true)
		if err != nil {
			return err
		}
		if err := c.Changeable(now); err != nil {
			return err
		}
		if lines, err = s.changeCheckout(ctx, tx, r, c, lines, in, now); err != nil {
			return err
		}
		if len(lines) == 0 {
			return apperr.Invalidf("a checkout needs at least one line")
		}
		view = checkoutView(c, lines, now)
		return nil
	})
	if err != nil {
		failure.WriteREST(w, r, err)
		return
	}
	answer(w, r, http.StatusOK, map[string]any{"checkout": view})
}

// checkoutRates is GET /checkouts/{token}/shipping-rates: the rates the
// checkout can choose now (its address's zone, its weight and subtotal),
// cheapest first; none until it has an address.
func (s *service) checkoutRates(w http.ResponseWriter, r *http.Request) {
	c, lines, err := s.readCheckout(r.Context(), s.DB, r, false)
	if err != nil {
		failure.WriteREST(w, r, err)
		return
	}
	rates, err := models.CheckoutRates(r.Context(), s.DB, c, lines, s.Platform)
	if err != nil {
		failure.WriteREST(w, r, err)
		return
	}
	out := make([]map[string]any, len(rates))
	for i, rt := range rates {
		out[i] = map[string]any{"id": rt.ID, "title": rt.Name, "price_cents": rt.PriceCents}
	}
	answer(w, r, http.StatusOK, map[string]any{"shipping_rates": out})
}

// attemptBody is what POST .../payment-attempts takes.
type attemptBody struct {
	Provider      *string `json:"provider"`
	PaymentMethod *string `json:"payment_method"`
	CaptureModel  *string `json:"capture_model"`
	AmountCents   *int64  `json:"amount_cents"`
	Currency      *string `json:"currency"`
	Status        *string `json:"status"`
	ErrorCode     *string `json:"error_code"`
	ErrorMessage  *string `json:"error_message"`
}

// currencyRE is an ISO 4217 code.
var currencyRE = regexp.MustCompile(`^[A-Z]{3}$`)

// attempt checks the body and makes the attempt of checkout c.
func (b attemptBody) attempt(c *models.StorefrontCheckout, now time.Time) (*models.PaymentAttempt, error) {
	a := &models.PaymentAttempt{StoreID: c.StoreID, CheckoutID: c.ID, CreatedAt: now}
	if b.Provider == nil || strings.TrimSpace(*b.Provider) == "" {
		return nil, apperr.Invalidf("provider is required: the payment provider's name, such as stripe")
	}
	if b.AmountCents == nil || *b.AmountCents < 0 {
		return nil, apperr.Invalidf("amount_cents is required and must not be negative")
	}
	if b.Currency == nil || !currencyRE.MatchString(*b.Currency) {
		return nil, apperr.Invalidf("currency is required: an ISO 4217 code such as EUR")
	}
	if b.Status == nil || !slices.Contains(models.AttemptStatuses, *b.Status) {
		return nil, apperr.Invalidf("status is required: one of %s", strings.Join(models.AttemptStatuses, ", "))
	}
	if b.CaptureModel != nil && !slices.Contains(models.CaptureModels, *b.CaptureModel) {
		return nil, apperr.Invalidf("capture_model must be one of %s, not %q", strings.Join(models.CaptureModels, ", "), *b.CaptureModel)
	}
	for _, f := range []struct {
		field string
		v     *string
		max   int
	}{{"provider", b.Provider, 100}, {"payment_method", b.PaymentMethod, 100}, {"error_code", b.ErrorCode, 100}, {"error_message", b.ErrorMessage, 1000}} {
		if f.v != nil && utf8.RuneCountInString(strings.TrimSpace(*f.v)) > f.max {
			return nil, apperr.Invalidf("%s must be at most %d characters", f.field, f.max)
		}
	}
	trim := func(p *string) *string {
		if p == nil || strings.TrimSpace(*p) == "" {
			return nil
		}
		v := strings.TrimSpace(*p)
		return &v
	}
	a.Provider, a.PaymentMethod, a.CaptureModel = strings.TrimSpace(*b.Provider), trim(b.PaymentMethod), b.CaptureModel
	a.AmountCents, a.Currency, a.Status = *b.AmountCents, *b.Currency, *b.Status
	a.ErrorCode, a.ErrorMessage = trim(b.ErrorCode), trim(b.ErrorMessage)
	return a, nil
}

// attemptView is an attempt as the browser sees it.
func attemptView(a *models.PaymentAttempt) map[string]any {
	return map[string]any{"provider": a.Provider, "payment_method": a.PaymentMethod, "capture_model": a.CaptureModel,
		"amount_cents": a.AmountCents, "currency": a.Currency, "status": a.Status, "error_code": a.ErrorCode,
		"error_message": a.ErrorMessage, "created_at": a.CreatedAt.UTC()}
}

// createPaymentAttempt is POST /checkouts/{token}/payment-attempts: what
// the payment provider said of an attempt to pay, 201. The checkout has
// reached the payment step.
func (s *service) createPaymentAttempt(w http.ResponseWriter, r *http.Request) {
	var in attemptBody
	if err := readBody(r, &in); err != nil {
		failure.WriteREST(w, r, err)
		return
	}
	now := s.Now().UTC()
	var view map[string]any
	err := s.DB.RunInTx(r.Context(), nil, func(ctx context.Context, tx bun.Tx) error {
		token, err := tokenParam(r, "checkout")
		if err != nil {
			return err
		}
		c, err := models.CheckoutByToken(ctx, tx, storeOf(r), token, true)
		if err != nil {
			return err
		}
		if err := c.Changeable(now); err != nil {
			return err
		}
		a, err := in.attempt(c, now)
		if err != nil {
			return err
		}
		if err := models.InsertPaymentAttempt(ctx, tx, a); err != nil {
			return err
		}
		c.Step, c.UpdatedAt, c.ExpiresAt = "payment", now, now.Add(models.CheckoutLifetime)
		view = attemptView(a)
		return models.SaveCheckout(ctx, tx, c)
	})
	if err != nil {
		failure.WriteREST(w, r, err)
		return
	}
	answer(w, r, http.StatusCreated, map[string]any{"payment_attempt": view})
}

// completeCheckout is POST /checkouts/{token}/complete: the checkout,
// repriced as of now and paid by its last successful attempt, places its
// order the way mark-as-paid does (placement.Announcer.Place: pricing,
// stock, the code's use, what it recovers, order.paid), and the order is
// linked to the checkout, its session and attribution, 201. Paid by an
// authorization, the order enters the funnel the checkout's route picked
// (models.StartFunnelRun): `upsell` is its run, null without one.
// Completed already, expired, or without a payment of its total: 409.
func (s *service) completeCheckout(w http.ResponseWriter, r *http.Request) {
	if err := readBody(r, &struct{}{}); err != nil {
		failure.WriteREST(w, r, err)
		return
	}
	now := s.Now().UTC()
	var out map[string]any
	err := s.DB.RunInTx(r.Context(), nil, func(ctx context.Context, tx bun.Tx) error {
		c, lines, err := s.readCheckout(ctx, tx, r, true)
		if err != nil {
			return err
		}
		if err := c.Changeable(now); err != nil {
			return err
		}
		if err := s.readyToComplete(ctx, tx, c, lines); err != nil {
			return err
		}
		priced, err := models.PriceCheckout(ctx, tx, c, lines, s.Platform, now)
		if err != nil {
			return err
		}
		attempts, err := models.PaymentAttempts(ctx, tx, c.StoreID, c.ID)
		if err != nil {
			return err
		}
		paid, err := models.CheckoutPayment(c, attempts)
		if err != nil {
			return err
		}
		source, err := models.SessionSourceOf(ctx, tx, c.StoreID, c.SessionID)
		if err != nil {
			return err
		}
		p := models.CheckoutPlacement(c, lines, priced, paid, source)
		p.Actor, p.Now = "checkout", now
		o, err := s.Announce.Place(ctx, tx, p)
		if err != nil {
			return err
		}
		if err := models.SaveCheckoutLines(ctx, tx, lines); err != nil {
			return err
		}
		if err := models.CompleteCheckout(ctx, tx, c, o, paid, now); err != nil {
			return err
		}
		// An authorization holds the money while the shopper sees the
		// post-purchase offers of the funnel the checkout's route picked.
		var upsell any
		if run, err := models.StartFunnelRun(ctx, tx, c, o, now); err != nil {
			return err
		} else if run != nil {
			page, err := models.ReadRunPage(ctx, tx, run)
			if err != nil {
				return err
			}
			upsell = runView(page)
		}
		out = map[string]any{
			"order": map[string]any{"id": o.ID, "order_number_display": o.OrderNumberDisplay, "token": o.Token,
				"total_cents": o.TotalCents, "currency": o.Currency},
			"checkout": checkoutView(c, lines, now),
			"upsell":   upsell,
		}
		return nil
	})
	if err != nil {
		failure.WriteREST(w, r, err)
		return
	}
	answer(w, r, http.StatusCreated, out)
}

// readyToComplete refuses a checkout the shopper has not finished: no
// lines, no email, no shipping address for what ships, or no shipping rate
// chosen when the address has some.
func (s *service) readyToComplete(ctx context.Context, db bun.IDB, c *models.StorefrontCheckout, lines []models.StorefrontCheckoutLine) error {
	if len(lines) == 0 {
		return apperr.Conflictf("this checkout has no lines")
	}
	if c.Email == "" {
		return apperr.Conflictf("this checkout has no email; the contact step sets it")
	}
	if c.ShippingLine != nil {
		return nil
	}
	if c.ShippingAddress == nil {
		return apperr.Conflictf("this checkout has no shipping address; the shipping step sets it")
	}
	rates, err := models.CheckoutRates(ctx, db, c, lines, s.Platform)
	if err != nil {
		return err
	}
	if len(rates) > 0 {
		return apperr.Conflictf("this checkout has no shipping rate; choose one of GET /checkouts/{token}/shipping-rates")
	}
	return nil
}
