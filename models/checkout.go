package models

import (
	"context"
	"database/sql"
	"errors"
	"strconv"
	"time"

	"github.com/uptrace/bun"

	"storeadmin/internal/base/apperr"
	"storeadmin/internal/base/pricing"
)

// Checkout states: open while the shopper fills it in, completed once it
// placed its order; an open checkout past its expires_at reads as expired.
const (
	CheckoutOpen      = "open"
	CheckoutCompleted = "completed"
	CheckoutExpired   = "expired"
)

// Checkout steps, in the order a shopper reaches them.
var CheckoutSteps = []string{"contact", "shipping", "payment"}

// CheckoutLifetime is how long a checkout stays open after its last
// change: a shopper coming back within two weeks finds it as they left
// it; after that it expires and cannot be completed (the cart can start a
// new one).
const CheckoutLifetime = 14 * 24 * time.Hour

// MaxTipCents bounds a checkout's tip: an amount preset or a custom tip.
const MaxTipCents = 1_000_000_00

// Checkout is a storefront checkout.
type StorefrontCheckout struct {
	bun.BaseModel `bun:"table:checkouts,alias:co"`
	ShopperContact

	ID               int64          `bun:"id,pk,autoincrement"`
	StoreID          int64          `bun:"store_id"`
	Token            string         `bun:"token"`
	CartID           *int64         `bun:"cart_id"`
	VisitorID        *int64         `bun:"visitor_id"`
	SessionID        *int64         `bun:"session_id"`
	CustomerID       *int64         `bun:"customer_id"`
	State            string         `bun:"state"`
	Currency         string         `bun:"currency"`
	ShippingAddress  any            `bun:"shipping_address,type:jsonb"`
	BillingAddress   any            `bun:"billing_address,type:jsonb"`
	ShippingLine     *ShippingLine  `bun:"shipping_line,type:jsonb"`
	DiscountCode     string         `bun:"discount_code"`
	ItemCount        int64          `bun:"item_count"`
	SubtotalCents    int64          `bun:"subtotal_cents"`
	DiscountCents    int64          `bun:"discount_cents"`
	ShippingCents    int64          `bun:"shipping_cents"`
	TaxCents         int64          `bun:"tax_cents"`
	Tip              *TipChoice     `bun:"tip,type:jsonb"` // the shopper's choice; TipCents what it came to
	TipCents         int64          `bun:"tip_cents"`
	SurchargeCents   int64          `bun:"surcharge_cents"`
	TotalCents       int64          `bun:"total_cents"`
	Step             string         `bun:"step"`
	UTM              map[string]any `bun:"utm,type:jsonb"`
	Tracking         map[string]any `bun:"tracking,type:jsonb"`
	OrderID          *int64         `bun:"order_id"`
	CompletedAt      *time.Time     `bun:"completed_at"`
	ExpiresAt        time.Time      `bun:"expires_at"`
	AbandonedAt      *time.Time     `bun:"abandoned_at"`
	RecoveredAt      *time.Time     `bun:"recovered_at"`
	RecoveredOrderID *int64         `bun:"recovered_order_id"`
	RecoveryEmails   int64          `bun:"recovery_emails"`
	// CheckoutZoneID and UpsellFunnelID are the route the last pricing
	// used: the zone of the shipping country and the funnel the token
	// picked there (nil: none), whose fee overrides priced the checkout.
	CheckoutZoneID *int64    `bun:"checkout_zone_id"`
	UpsellFunnelID *int64    `bun:"upsell_funnel_id"`
	CreatedAt      time.Time `bun:"created_at"`
	UpdatedAt      time.Time `bun:"updated_at"`

	// discountID is the code's discount when the last pricing applied it.
	discountID *int64 `bun:"-"`
	// Tipping is the tipping the checkout offers, as the last pricing read
	// it (CheckoutTipping reads it without pricing).
	Tipping TippingConfig `bun:"-"`
}

// ShippingLine is the shipping rate a checkout chose, as priced.
type ShippingLine struct {
	RateID     int64  `json:"rate_id"`
	Title      string `json:"title"`
	Code       string `json:"code"`
	PriceCents int64  `json:"price_cents"`
}

// StateAt is the checkout's state as of now: an open checkout past its
// expiry is expired.
func (c *StorefrontCheckout) StateAt(now time.Time) string {
	if c.State == CheckoutOpen && !now.Before(c.ExpiresAt) {
		return CheckoutExpired
	}
	return c.State
}

// Changeable refuses a change to a checkout that is completed or expired.
func (c *StorefrontCheckout) Changeable(now time.Time) error {
	switch c.StateAt(now) {
	case CheckoutCompleted:
		return apperr.Conflictf("this checkout is completed: it placed its order already")
	case CheckoutExpired:
		return apperr.Conflictf("this checkout expired at %s; start a new checkout from the cart", c.ExpiresAt.UTC().Format(time.RFC3339))
	}
	return nil
}

// Region is where the checkout ships to (else bills to).
func (c *StorefrontCheckout) Region() (country, province string) {
	return DraftRegion(&DraftOrder{ShippingAddress: c.ShippingAddress, BillingAddress: c.BillingAddress})
}

// StorefrontCheckoutLine is a line of a checkout.
type StorefrontCheckoutLine struct {
	bun.BaseModel `bun:"table:checkout_lines,alias:col"`
	BasketLine
	CheckoutID int64 `bun:"checkout_id" json:"-"`
}

// PaymentAttempt is what the shopper's payment provider said of one
// attempt to pay a checkout, as the storefront reports it.
type PaymentAttempt struct {
	bun.BaseModel `bun:"table:checkout_payment_attempts,alias:cpa"`

	ID            int64     `bun:"id,pk,autoincrement"`
	StoreID       int64     `bun:"store_id"`
	CheckoutID    int64     `bun:"checkout_id"`
	Provider      string    `bun:"provider"`
	PaymentMethod *string   `bun:"payment_method"`
	CaptureModel  *string   `bun:"capture_model"`
	AmountCents   int64     `bun:"amount_cents"`
	Currency      string    `bun:"currency"`
	Status        string    `bun:"status"`
	ErrorCode     *string   `bun:"error_code"`
	ErrorMessage  *string   `bun:"error_message"`
	TransactionID *int64    `bun:"transaction_id"`
	CreatedAt     time.Time `bun:"created_at"`
}

// Payment attempt statuses and capture models.
const (
	AttemptSuccess = "success"
	AttemptFailure = "failure"
	AttemptError   = "error"
	AttemptPending = "pending"

	CaptureAutomatic = "automatic"
	CaptureManual    = "manual"
)

// AttemptStatuses and CaptureModels are the values an attempt may have.
var (
	AttemptStatuses = []string{AttemptSuccess, AttemptFailure, AttemptError, AttemptPending}
	CaptureModels   = []string{CaptureAutomatic, CaptureManual}
)

// PriceCheckout reprices the checkout as of now with the pricing engine
// (the catalogue's prices, its code, the store's automatic discounts, its
// rate when it still matches, the tax of its region, the handling
// surcharge and its visitor's arms of running price and shipping tests
// when the platform p allows them, the tip its shopper chose) and
// sets its totals, the engine's. The surcharge and tipping are those of
// its route (CheckoutZoneFor its shipping country, PickFunnel there: the
// funnel's overrides, else the store's), which it records as
// CheckoutZoneID and UpsellFunnelID. A code that no longer applies stays but
// takes nothing off; a rate that no longer matches is dropped; a tip the
// store's tipping no longer offers stays but tips nothing.
func PriceCheckout(ctx context.Context, db bun.IDB, c *StorefrontCheckout, lines []StorefrontCheckoutLine, p Platform, now time.Time) (pricing.Result, error) {
	basket := make([]BasketLine, len(lines))
	for i := range lines {
		basket[i] = lines[i].BasketLine
	}
	arms, err := MoneyArmsOf(ctx, db, c.StoreID, c.VisitorID, p)
	if err != nil {
		return pricing.Result{}, err
	}
	pl, err := RepriceBasket(ctx, db, c.StoreID, basket, arms)
	if err != nil {
		return pricing.Result{}, err
	}
	for i := range lines {
		lines[i].BasketLine = basket[i]
	}
	country, province := c.Region()
	ask := PricingAsk{StoreID: c.StoreID, Lines: pl, Code: c.DiscountCode, Country: country, Province: province, Arms: arms}
	if c.ShippingLine != nil {
		ask.RateID = c.ShippingLine.RateID
	}
	in, found, err := gatherPricing(ctx, db, ask, now)
	if err != nil {
		return pricing.Result{}, err
	}
	// The route of the shipping country: its zone, and the funnel the
	// token picks there, whose fee overrides apply to its shoppers. A new
	// checkout gets its token now, so its first pricing picks as the next.
	if c.Token == "" {
		c.Token = NewStorefrontToken()
	}
	route, err := CheckoutZoneFor(ctx, db, c.StoreID, country)
	if err != nil {
		return pricing.Result{}, err
	}
	c.CheckoutZoneID, c.UpsellFunnelID = nil, nil
	if route != nil {
		c.CheckoutZoneID = &route.Zone.ID
		if f := PickFunnel(route, c.Token); f != nil {
			c.UpsellFunnelID = &f.FunnelID
		}
	}
	pp15, tipping, err := EffectiveFees(ctx, db, c.StoreID, c.UpsellFunnelID)
	if err != nil {
		return pricing.Result{}, err
	}
	in.Surcharge, in.Tip, c.Tipping = pp15.PricingSurcharge(p), tipping.PricingTip(c.Tip), tipping
	res := pricing.Price(in)
	c.ShippingLine, c.discountID = nil, nil
	if found.Rate != nil {
		c.ShippingLine = &ShippingLine{RateID: found.Rate.ID, Title: found.Rate.Name,
			Code: "rate-" + strconv.FormatInt(found.Rate.ID, 10), PriceCents: res.ShippingCents}
	}
	if found.DiscountID != nil {
		for _, a := range res.Applied {
			if a.DiscountID == *found.DiscountID { // a code that applied nothing is not used
				c.discountID = found.DiscountID
			}
		}
	}
	c.ItemCount = 0
	for _, l := range lines {
		c.ItemCount += l.Quantity
	}
	c.SubtotalCents, c.DiscountCents, c.ShippingCents, c.TaxCents = res.SubtotalCents, res.DiscountCents, res.ShippingCents, res.TaxCents
	c.SurchargeCents, c.TipCents, c.TotalCents = res.SurchargeCents, res.TipCents, min(res.TotalCents, pricing.MaxCents)
	return res, nil
}

// CheckoutTipping reads the tipping the checkout offers into c.Tipping,
// as PriceCheckout does, for a read that does not price it.
func CheckoutTipping(ctx context.Context, db bun.IDB, c *StorefrontCheckout) error {
	_, tipping, err := EffectiveFees(ctx, db, c.StoreID, c.UpsellFunnelID)
	c.Tipping = tipping
	return err
}

// CheckoutRates lists the shipping rates the checkout can choose now, at
// the prices its visitor's arms of running tests charge (as the platform p
// allows them).
func CheckoutRates(ctx context.Context, db bun.IDB, c *StorefrontCheckout, lines []StorefrontCheckoutLine, p Platform) ([]ShippingRate, error) {
	basket := make([]BasketLine, len(lines))
	for i := range lines {
		basket[i] = lines[i].BasketLine
	}
	arms, err := MoneyArmsOf(ctx, db, c.StoreID, c.VisitorID, p)
	if err != nil {
		return nil, err
	}
	pl, err := RepriceBasket(ctx, db, c.StoreID, basket, arms)
	if err != nil {
		return nil, err
	}
	country, _ := c.Region()
	rates, err := RatesFor(ctx, db, c.StoreID, country, pl)
	arms.Rates(rates)
	return rates, err
}

// InsertCheckout stores a new checkout with its token (a new one when
// its pricing has not given it one).
func InsertCheckout(ctx context.Context, tx bun.IDB, c *StorefrontCheckout) error {
	if c.Token == "" {
		c.Token = NewStorefrontToken()
	}
	_, err := tx.NewInsert().Model(c).Returning("id").Exec(ctx)
	return classify(err, "the checkout")
}

// SaveCheckout writes the checkout's columns but those of abandonment and
// recovery (recoveryColumns), which their own jobs and MarkRecovered write.
func SaveCheckout(ctx context.Context, tx bun.IDB, c *StorefrontCheckout) error {
	_, err := tx.NewUpdate().Model(c).ExcludeColumn(recoveryColumns...).WherePK().Where("store_id = ?", c.StoreID).Exec(ctx)
	return classify(err, "the checkout")
}

// CheckoutByToken reads the store's checkout of the token; lock takes its
// row for the caller's transaction. Another store's token is not found.
func CheckoutByToken(ctx context.Context, db bun.IDB, storeID int64, token string, lock bool) (*StorefrontCheckout, error) {
	return byToken[StorefrontCheckout](ctx, db, storeID, token, lock, "no checkout has this token")
}

// OpenCheckoutOfCart is the cart's latest checkout that is open and not
// expired, its row locked for the caller's transaction; nil when it has
// none. Checking out a cart again takes up that checkout rather than
// starting a second one.
func OpenCheckoutOfCart(ctx context.Context, tx bun.IDB, storeID, cartID int64, now time.Time) (*StorefrontCheckout, error) {
	c := new(StorefrontCheckout)
	err := tx.NewSelect().Model(c).Where("store_id = ? AND cart_id = ? AND state = ? AND expires_at > ?", storeID, cartID, CheckoutOpen, now).
		OrderExpr("id DESC").Limit(1).For("UPDATE").Scan(ctx)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	return c, err
}

// InsertPaymentAttempt records an attempt to pay the checkout.
func InsertPaymentAttempt(ctx context.Context, tx bun.IDB, a *PaymentAttempt) error {
	_, err := tx.NewInsert().Model(a).Returning("id").Exec(ctx)
	return classify(err, "the payment attempt")
}

// PaymentAttempts lists the checkout's attempts, oldest first.
func PaymentAttempts(ctx context.Context, db bun.IDB, storeID, checkoutID int64) ([]PaymentAttempt, error) {
	out := []PaymentAttempt{}
	err := db.NewSelect().Model(&out).Where("store_id = ? AND checkout_id = ?", storeID, checkoutID).Order("created_at", "id").Scan(ctx)
	return out, err
}

// CheckoutPayment is the payment a checkout is completed with: its last
// successful attempt, which must pay its total in its currency.
func CheckoutPayment(c *StorefrontCheckout, attempts []PaymentAttempt) (*PaymentAttempt, error) {
	for i := len(attempts) - 1; i >= 0; i-- {
		a := &attempts[i]
		if a.Status != AttemptSuccess {
			continue
		}
		if a.AmountCents != c.TotalCents || a.Currency != c.Currency {
			return nil, apperr.Conflictf("the last successful payment (%d %s) does not pay the checkout's total of %d %s; report a payment of the total",
				a.AmountCents, a.Currency, c.TotalCents, c.Currency)
		}
		return a, nil
	}
	if c.TotalCents == 0 {
		return nil, nil // nothing to pay
	}
	return nil, apperr.Conflictf("this checkout has no successful payment attempt; report the provider's successful payment before completing it")
}

// CheckoutPlacement is the order checkout c becomes, as priced (each
// line keeps its share of the discount and tax), paid by
// attempt (nil for a free order): its header, totals and lines, the
// attribution of its utm (else its session's), its code's use when the
// pricing applied it, and the link to the checkout and its session.
func CheckoutPlacement(c *StorefrontCheckout, lines []StorefrontCheckoutLine, priced pricing.Result, attempt *PaymentAttempt, session *SessionSource) OrderPlacement {
	o := &Order{
		StoreID: c.StoreID, Email: c.Email, Currency: c.Currency,
		SubtotalCents: c.SubtotalCents, DiscountCents: c.DiscountCents, ShippingCents: c.ShippingCents,
		TaxCents: c.TaxCents, TipCents: c.TipCents, SurchargeCents: c.SurchargeCents, TotalCents: c.TotalCents,
		ShippingAddress: c.ShippingAddress, BillingAddress: c.BillingAddress,
		Tags: []string{}, SystemTags: []string{}, Source: "web",
		CheckoutStartedAt: &c.CreatedAt, CheckoutID: &c.ID, SessionID: c.SessionID,
		Attribution: checkoutAttribution(c.UTM, session),
	}
	if c.discountID != nil {
		o.DiscountCode = c.DiscountCode
	}
	if c.ShippingLine != nil {
		o.ShippingLine = map[string]any{"title": c.ShippingLine.Title, "code": c.ShippingLine.Code, "price_cents": c.ShippingLine.PriceCents}
	}
	items := make([]OrderLineItem, len(lines))
	for i, l := range lines {
		items[i] = OrderLineItem{
			VariantID: l.VariantID, ProductID: l.ProductID, Title: l.Title, VariantTitle: l.VariantTitle, SKU: l.SKU,
			PriceCents: l.PriceCents, Quantity: l.Quantity, RequiresShipping: l.RequiresShipping, Source: "web",
			Properties: LineProperties(l.Properties),
		}
		if i < len(priced.Lines) {
			items[i].DiscountCents, items[i].TaxCents = priced.Lines[i].DiscountCents, priced.Lines[i].TaxCents
		}
	}
	p := OrderPlacement{Order: o, Lines: items, DiscountID: c.discountID, AcceptsMarketing: c.MarketingConsent,
		Created: map[string]any{"checkout_token": c.Token}, Payment: Payment{Kind: PaymentNone}}
	if attempt != nil {
		p.Payment = Payment{Provider: attempt.Provider}
		if attempt.PaymentMethod != nil {
			p.Payment.Method = *attempt.PaymentMethod
		}
		if attempt.CaptureModel != nil && *attempt.CaptureModel == CaptureManual {
			p.Payment.Kind = PaymentAuthorization
		}
	}
	return p
}

// SessionSource is where a session came from, as ingestion recorded its
// landing.
type SessionSource struct {
	UTM      map[string]any `bun:"utm,type:jsonb"`
	ClickIDs map[string]any `bun:"click_ids,type:jsonb"`
	Referrer *string        `bun:"referrer"`
}

// SessionSourceOf reads the session's source; nil when there is no
// session.
func SessionSourceOf(ctx context.Context, db bun.IDB, storeID int64, sessionID *int64) (*SessionSource, error) {
	if sessionID == nil {
		return nil, nil
	}
	s := new(SessionSource)
	err := db.NewSelect().Table("storefront_sessions").Column("utm", "click_ids", "referrer").
		Where("store_id = ? AND id = ?", storeID, *sessionID).Scan(ctx, s)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	return s, err
}

// UTMKeys are the keys a checkout's utm may hold: the landing URL's UTM
// parameters, its referrer and the ad platforms' click ids.
var UTMKeys = []string{"utm_source", "utm_medium", "utm_campaign", "utm_term", "utm_content", "utm_id",
	"utm_source_platform", "utm_creative_format", "utm_marketing_tactic", "referrer",
	"gclid", "gbraid", "wbraid", "dclid", "fbclid", "ttclid", "msclkid", "li_fat_id", "twclid", "epik", "sccid"}

// clickSources names the ad platform of each click id.
var clickSources = []struct{ key, source string }{
	{"gclid", "google_ads"}, {"gbraid", "google_ads"}, {"wbraid", "google_ads"}, {"dclid", "google_ads"},
	{"fbclid", "meta"}, {"ttclid", "tiktok_ads"}, {"msclkid", "microsoft_ads"}, {"li_fat_id", "linkedin_ads"},
	{"twclid", "x_ads"}, {"epik", "pinterest_ads"}, {"sccid", "snapchat_ads"},
}

// checkoutAttribution is the order's attribution: the checkout's utm when
// it has any, else its session's landing; nil when neither says anything.
func checkoutAttribution(utm map[string]any, s *SessionSource) *OrderAttribution {
	fields := map[string]string{}
	clicks := map[string]any{}
	take := func(m map[string]any) {
		for k, v := range m {
			if str, ok := v.(string); ok && str != "" {
				fields[k] = str
			}
		}
	}
	if len(utm) > 0 {
		take(utm)
	} else if s != nil {
		take(s.UTM)
		take(s.ClickIDs)
		if s.Referrer != nil && *s.Referrer != "" {
			fields["referrer"] = *s.Referrer
		}
	}
	if len(fields) == 0 {
		return nil
	}
	a := &OrderAttribution{UTMSource: fields["utm_source"], UTMMedium: fields["utm_medium"], UTMCampaign: fields["utm_campaign"],
		UTMTerm: fields["utm_term"], UTMContent: fields["utm_content"]}
	opt := func(k string) *string {
		if v, ok := fields[k]; ok {
			return &v
		}
		return nil
	}
	a.UTMID, a.UTMSourcePlatform, a.UTMCreativeFormat = opt("utm_id"), opt("utm_source_platform"), opt("utm_creative_format")
	a.UTMMarketingTactic, a.Referrer = opt("utm_marketing_tactic"), opt("referrer")
	for _, cs := range clickSources {
		if v, ok := fields[cs.key]; ok {
			clicks[cs.key] = v
			if a.AdSource == nil {
				src := cs.source
				a.AdSource = &src
			}
		}
	}
	if len(clicks) > 0 {
		a.ClickIDs = clicks
	}
	return a
}

// CompleteCheckout links the checkout to the order it placed, and the
// attempt that paid it to the order's payment transaction.
func CompleteCheckout(ctx context.Context, tx bun.IDB, c *StorefrontCheckout, o *Order, attempt *PaymentAttempt, now time.Time) error {
	c.State, c.OrderID, c.CompletedAt, c.CustomerID, c.UpdatedAt = CheckoutCompleted, &o.ID, &now, o.CustomerID, now
	if err := SaveCheckout(ctx, tx, c); err != nil {
		return err
	}
	if attempt == nil {
		return nil
	}
	_, err := tx.NewRaw(`UPDATE checkout_payment_attempts SET transaction_id =
		(SELECT min(id) FROM order_transactions WHERE store_id = ? AND order_id = ?)
		WHERE store_id = ? AND id = ?`, c.StoreID, o.ID, c.StoreID, attempt.ID).Exec(ctx)
	return err
}
