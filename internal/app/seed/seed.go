// Package seed fills a store with realistic demo data, area by area, so that
// a newcomer sees real records on every endpoint. Seeding is idempotent:
// running it again adds nothing that is already there.
//
// Every area writes through models, with the functions and rules the API's
// writes use, so a rule added to the domain holds for demo data too; where
// it writes by the thousand it uses their bulk forms. The order history is
// placed by models.PlaceOrders and its life after checkout (captures,
// payments, shipments, refunds, cancellations, notes, archiving) is played
// at its historic times by models' functions (orders_play.go).
package seed

import (
	"context"
	"fmt"
	"time"

	"github.com/uptrace/bun"

	"storeadmin/internal/media"
)

// area seeds one part of a store.
type area struct {
	name string
	fill func(ctx context.Context, tx bun.Tx, storeID int64, now time.Time) error
}

// mediaArea seeds one part of a store that needs blobs (images).
type mediaArea struct {
	name string
	fill func(ctx context.Context, tx bun.Tx, files *media.Media, storeID int64, now time.Time) error
}

// areas run in order; later areas may use what earlier ones made.
var areas = []area{
	{"profile", profile},
	{"settings", settings},
	{"staff", staff},
	{"api keys", apiKeys},
	{"ai connector", mcp},
	{"webhooks", webhookSubscriptions},
	{"shipping and tax", shippingAndTax}, // zones for the profile's country
	{"payment providers", paymentProviders},
	// Before the storefront checkouts, which are priced with them.
	{"checkout surcharge and tipping", checkoutFees},
	{"domains", domains},
	{"forms and email", formsAndEmail}, // the sender's name is the profile's
	{"checkout pages", checkoutPages},  // before the upsell funnels, which may use them
}

// mediaAreas run after areas, in order.
var mediaAreas = []mediaArea{
	{"catalogue", catalogue},
	// Post-purchase offers of the catalogue's products.
	{"upsell funnels", withoutMedia(upsellFunnels)},
	// Routes countries to the upsell funnels.
	{"checkout zones", withoutMedia(checkoutZones)},
	// To the catalogue's products and collections.
	{"redirects", withoutMedia(redirects)},
	{"orders", withoutMedia(orders)}, // sells the catalogue's variants
	// Browses the catalogue; its campaigns are the orders' attribution's.
	{"storefront traffic", withoutMedia(storefrontTraffic)},
	// Targets the catalogue; the codes the orders used count as redeemed.
	{"discounts", withoutMedia(discounts)},
	// Last: priced against the discounts, shipping rates and tax rates, and
	// behind the orders placed from drafts.
	{"draft orders", withoutMedia(draftOrders)},
	// Carts and checkouts of recent buyers (after the orders and drafts:
	// their completed checkouts are orders too); to the traffic's sessions.
	{"storefront checkout", withoutMedia(storefrontCheckout)},
	// Pages, the blog and the menus, which link to the catalogue.
	{"content", content},
	{"themes", withoutMedia(themes)},
	// On the themes, pages, catalogue and rates; it places orders of its
	// own through the checkout, after the storefront checkout's.
	{"a/b tests", withoutMedia(experimentTests)},
	// The transaction fees its invoices bill are every order's, placed
	// before it.
	{"billing", withoutMedia(billing)},
	// After the storefront's carts and checkouts: flags the old open ones.
	{"abandoned carts and checkouts", withoutMedia(abandoned)},
	// After abandonment: reminds the abandoned carts and checkouts.
	{"recovery", withoutMedia(recoveryReminders)},
	// Personalises the catalogue's mugs, tees and bags.
	{"product customizer", customizerSlice},
	// Last: the findings of what every area before made.
	{"insights", withoutMedia(insights)},
}

// withoutMedia runs an area that needs no blobs among the media areas, for
// it needs what one of them made.
func withoutMedia(fill func(ctx context.Context, tx bun.Tx, storeID int64, now time.Time) error) func(context.Context, bun.Tx, *media.Media, int64, time.Time) error {
	return func(ctx context.Context, tx bun.Tx, _ *media.Media, storeID int64, now time.Time) error {
		return fill(ctx, tx, storeID, now)
	}
}

// Store seeds every area of the store, each in its own transaction.
func Store(ctx context.Context, db *bun.DB, files *media.Media, storeID int64, now time.Time) error {
	for _, a := range areas {
		err := db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
			return a.fill(ctx, tx, storeID, now)
		})
		if err != nil {
			return fmt.Errorf("seed %s: %w", a.name, err)
		}
	}
	for _, a := range mediaAreas {
		err := db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
			return a.fill(ctx, tx, files, storeID, now)
		})
		if err != nil {
			return fmt.Errorf("seed %s: %w", a.name, err)
		}
	}
	return nil
}
