package seed

import (
	"context"
	"math/rand/v2"
	"time"

	"github.com/uptrace/bun"

	"storeadmin/internal/placement"
	"storeadmin/models"
)

// The storefront's carts and checkouts at every stage, made by the domain
// functions the storefront surface calls (models' basket, pricing and
// checkout functions, and placement.Announcer.Place for completion), so
// their lines carry the catalogue's prices and their totals are the
// pricing engine's.

// scStages are the stages a seeded cart or checkout reaches, in order.
const (
	scCartOpen    = iota // a cart, no email
	scCartEmail          // a cart with an email
	scContact            // a checkout at the contact step
	scShipping           // a checkout with an address and a rate
	scPaymentFail        // a checkout whose payment failed
	scCompleted          // a completed checkout: a storefront order
	scStageCount
)

// scBaskets is how many carts the seed makes.
const scBaskets = 48

// storefrontCheckout seeds carts and checkouts over the last 30 days, for
// shoppers of recent orders (their emails and addresses), a sixth at each
// stage; the completed ones placed their orders, which are the store's
// storefront orders (checkout_id set). A cart takes a storefront session
// of the seeded traffic when there is one (the latest visits first), at
// its time, and its checkout and order the same session.
func storefrontCheckout(ctx context.Context, tx bun.Tx, storeID int64, now time.Time) error {
	n, err := tx.NewSelect().Table("carts").Where("store_id = ?", storeID).Count(ctx)
	if err != nil || n > 0 {
		return err
	}
	shop, err := scShopOf(ctx, tx, storeID)
	if err != nil || shop == nil {
		return err
	}
	var visits []struct {
		ID        int64     `bun:"id"`
		VisitorID int64     `bun:"visitor_id"`
		At        time.Time `bun:"first_seen_at"`
	}
	if err := tx.NewSelect().Table("storefront_sessions").Column("id", "visitor_id", "first_seen_at").
		Where("store_id = ? AND NOT is_bot AND first_seen_at < ?", storeID, now.Add(-time.Hour)).
		OrderExpr("first_seen_at DESC, id DESC").Limit(scBaskets).Scan(ctx, &visits); err != nil {
		return err
	}
	rng := rand.New(rand.NewPCG(16, 2))
	for i := range scBaskets {
		buyer := shop.buyers[rng.IntN(len(shop.buyers))]
		at := now.Add(-time.Duration(1+rng.IntN(30*24)) * time.Hour)
		c := &models.Cart{StoreID: storeID, Currency: shop.store.Currency}
		if i < len(visits) {
			at = visits[i].At.Add(time.Duration(2+rng.IntN(20)) * time.Minute)
			c.VisitorID, c.SessionID = &visits[i].VisitorID, &visits[i].ID
		}
		stage := i % scStageCount
		if stage >= scCartEmail {
			c.Email, c.MarketingConsent = buyer.Email, rng.IntN(3) > 0
		}
		if err := scBasket(ctx, tx, shop, c, buyer, shop.asks(rng), stage, rng, at); err != nil {
			return err
		}
	}
	return nil
}

// scShop is what the storefront's shoppers buy from and as: the store,
// buyers of its orders (their emails and addresses), its active variants
// and its tipping.
type scShop struct {
	store      *models.Store
	buyers     []models.Order
	variantIDs []int64
	variants   map[int64]models.CatalogueVariant
	tipping    models.TippingConfig
}

// scShopOf reads the store's shop; nil when it has no orders or no active
// variants of products that are not personalised yet.
func scShopOf(ctx context.Context, tx bun.IDB, storeID int64) (*scShop, error) {
	var shop scShop
	var err error
	if shop.store, err = models.GetStore(ctx, tx, storeID); err != nil {
		return nil, err
	}
	shop.buyers, err = models.ListOrders(ctx, tx, storeID, models.OrderFilter{}, models.Paging{Limit: 200})
	if err != nil || len(shop.buyers) == 0 {
		return nil, err
	}
	// Plain lines only: a personalised product's line needs its
	// customization (the customizer's slice binds products after this area,
	// but a store seeded again, or a test, may have bound them already).
	if err := tx.NewSelect().Table("product_variants").Column("product_variants.id").
		Join("JOIN products AS p ON p.id = product_variants.product_id").
		Where("product_variants.store_id = ? AND p.status = ?", storeID, models.ProductActive).
		Where("NOT EXISTS (SELECT 1 FROM cz_product_bindings AS b WHERE b.store_id = p.store_id AND b.product_id = p.id)").
		Order("product_variants.id").Limit(400).Scan(ctx, &shop.variantIDs); err != nil || len(shop.variantIDs) == 0 {
		return nil, err
	}
	if shop.variants, err = models.CatalogueVariants(ctx, tx, storeID, shop.variantIDs); err != nil {
		return nil, err
	}
	_, shop.tipping, err = models.EffectiveFees(ctx, tx, storeID, nil)
	return &shop, err
}

// asks is what a shopper puts in a cart: one to three lines of active
// variants in stock.
func (shop *scShop) asks(rng *rand.Rand) []models.LineAsk {
	var asks []models.LineAsk
	for range 1 + rng.IntN(3) {
		if v, q, ok := inStock(shop.variants, shop.variantIDs, rng); ok && v.ProductStatus == models.ProductActive {
			asks = append(asks, models.LineAsk{VariantID: v.ID, Quantity: q})
		}
	}
	return asks
}

// scBasket makes the cart c of asks at its time and, from the contact
// stage on, its checkout, carried to stage; from the shipping stage on, a
// third of the shoppers tip the store's first suggestion (tipping's
// default preset).
func scBasket(ctx context.Context, tx bun.Tx, shop *scShop, c *models.Cart, buyer models.Order,
	asks []models.LineAsk, stage int, rng *rand.Rand, at time.Time) error {
	store, tipping := shop.store, shop.tipping
	basket, err := models.BasketLines(ctx, tx, store.ID, asks, models.Platform{})
	if err != nil || len(basket) == 0 {
		return err
	}
	cartLines := make([]models.CartLine, len(basket))
	for i, l := range basket {
		cartLines[i].BasketLine = l
	}
	if err := models.PriceCart(ctx, tx, c, cartLines, models.Platform{}); err != nil {
		return err
	}
	c.CreatedAt, c.UpdatedAt = at, at
	if err := models.InsertCart(ctx, tx, c); err != nil {
		return err
	}
	if err := models.ReplaceCartLines(ctx, tx, c, cartLines); err != nil {
		return err
	}
	if stage < scContact {
		return nil
	}
	at = at.Add(time.Duration(1+rng.IntN(10)) * time.Minute)
	co := &models.StorefrontCheckout{StoreID: store.ID, State: models.CheckoutOpen, Currency: store.Currency, CartID: &c.ID,
		VisitorID: c.VisitorID, SessionID: c.SessionID, ShopperContact: c.ShopperContact, Step: "contact",
		CreatedAt: at, UpdatedAt: at, ExpiresAt: at.Add(models.CheckoutLifetime)}
	co.FirstName, co.LastName = scName(buyer.ShippingAddress)
	lines := make([]models.StorefrontCheckoutLine, len(basket))
	for i, l := range basket {
		l.ID = 0
		lines[i].BasketLine = l
	}
	if stage >= scShipping && buyer.ShippingAddress != nil {
		co.Step, co.ShippingAddress, co.BillingAddress = "shipping", buyer.ShippingAddress, buyer.BillingAddress
		if buyer.Attribution != nil {
			co.UTM = scUTM(buyer.Attribution)
		}
		rates, err := models.CheckoutRates(ctx, tx, co, lines, models.Platform{})
		if err != nil {
			return err
		}
		if len(rates) > 0 {
			co.ShippingLine = &models.ShippingLine{RateID: rates[rng.IntN(len(rates))].ID}
		}
		// By the checkout's minute, not the random source: the rest of the
		// seed draws what it drew before tips existed.
		if tip := tipping.DefaultPreset; tip != nil && at.Unix()/60%3 == 0 && tipping.Offers(models.TipChoice{Preset: tip}) == nil {
			co.Tip = &models.TipChoice{Preset: tip}
		}
	}
	priced, err := models.PriceCheckout(ctx, tx, co, lines, models.Platform{}, at) // the default deployment
	if err != nil {
		return err
	}
	if err := models.InsertCheckout(ctx, tx, co); err != nil {
		return err
	}
	if err := models.ReplaceCheckoutLines(ctx, tx, co, lines); err != nil {
		return err
	}
	if stage < scPaymentFail || co.ShippingAddress == nil {
		return nil
	}
	method := []string{"card", "card", "paypal", "apple_pay"}[rng.IntN(4)]
	// A checkout routed to a funnel is paid by an authorization, which
	// holds the money while its shopper sees the offers (funnelRun).
	provider, capture := "stripe", models.CaptureAutomatic
	if co.UpsellFunnelID != nil {
		play, err := funnelTurn(ctx, tx, store.ID)
		if err != nil {
			return err
		}
		provider, capture = funnelProvider(play), models.CaptureManual
	}
	attempt := func(status, code, message string) (*models.PaymentAttempt, error) {
		at = at.Add(time.Duration(1+rng.IntN(4)) * time.Minute)
		a := &models.PaymentAttempt{StoreID: store.ID, CheckoutID: co.ID, Provider: provider, PaymentMethod: &method,
			CaptureModel: &capture, AmountCents: co.TotalCents, Currency: co.Currency, Status: status, CreatedAt: at}
		if code != "" {
			a.ErrorCode, a.ErrorMessage = &code, &message
		}
		return a, models.InsertPaymentAttempt(ctx, tx, a)
	}
	co.Step = "payment"
	if stage == scPaymentFail || rng.IntN(4) == 0 {
		if _, err := attempt(models.AttemptFailure, "card_declined", "Your card was declined."); err != nil {
			return err
		}
	}
	if stage == scPaymentFail {
		co.UpdatedAt = at
		return models.SaveCheckout(ctx, tx, co)
	}
	paid, err := attempt(models.AttemptSuccess, "", "")
	if err != nil {
		return err
	}
	source, err := models.SessionSourceOf(ctx, tx, store.ID, co.SessionID)
	if err != nil {
		return err
	}
	at = at.Add(time.Minute)
	p := models.CheckoutPlacement(co, lines, priced, paid, source)
	p.Actor, p.Now = "checkout", at
	o, err := placement.Announcer{}.Place(ctx, tx, p) // no subscribers are told of demo data
	if err != nil {
		return err
	}
	if err := models.CompleteCheckout(ctx, tx, co, o, paid, at); err != nil {
		return err
	}
	return funnelRun(ctx, tx, co, o, at)
}

// scName is the first and last name of an address.
func scName(address any) (first, last string) {
	obj, _ := address.(map[string]any)
	first, _ = obj["first_name"].(string)
	last, _ = obj["last_name"].(string)
	return first, last
}

// scUTM is the utm a checkout recorded for a shopper who came the way a
// past order of theirs did.
func scUTM(a *models.OrderAttribution) map[string]any {
	out := map[string]any{}
	for k, v := range map[string]string{"utm_source": a.UTMSource, "utm_medium": a.UTMMedium, "utm_campaign": a.UTMCampaign,
		"utm_content": a.UTMContent, "utm_term": a.UTMTerm} {
		if v != "" {
			out[k] = v
		}
	}
	if a.Referrer != nil {
		out["referrer"] = *a.Referrer
	}
	if ids, ok := a.ClickIDs.(map[string]any); ok {
		for k, v := range ids {
			out[k] = v
		}
	}
	return out
}
