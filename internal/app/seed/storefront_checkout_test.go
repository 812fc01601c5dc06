package seed

import (
	"context"
	"testing"

	"storeadmin/models"
)

// TestStorefrontCheckout: carts and checkouts at every stage, priced by
// the engine; the completed checkouts are exactly the orders linked to a
// checkout, each paid by its last attempt (the total it paid, unless an
// accepted post-purchase offer raised the order's since).
func TestStorefrontCheckout(t *testing.T) {
	ctx := context.Background()
	db, files, sid := newSeedStore(t)
	seedAll(t, db, files, sid)

	var stages []struct {
		Stage string `bun:"stage"`
		N     int    `bun:"n"`
	}
	if err := db.NewRaw(`SELECT coalesce(co.state || ':' || co.step, 'cart:' || (c.email <> '')::text) AS stage, count(*) AS n
		FROM carts c LEFT JOIN checkouts co ON co.cart_id = c.id WHERE c.store_id = ? GROUP BY 1 ORDER BY 1`, sid).Scan(ctx, &stages); err != nil {
		t.Fatal(err)
	}
	got := map[string]int{}
	for _, s := range stages {
		got[s.Stage] = s.N
	}
	t.Logf("carts by stage: %v", got)
	for _, stage := range []string{"cart:false", "cart:true", "open:contact", "open:shipping", "open:payment", "completed:payment"} {
		if got[stage] == 0 {
			t.Errorf("no cart at stage %s: %v", stage, got)
		}
	}
	var mismatched, orders, completed int
	if err := db.NewRaw(`SELECT
		(SELECT count(*) FROM orders o FULL JOIN checkouts co ON co.order_id = o.id AND o.checkout_id = co.id
			WHERE (o.store_id = ? AND o.checkout_id IS NOT NULL OR co.store_id = ? AND co.state = 'completed')
			AND (o.id IS NULL OR co.id IS NULL OR o.total_cents <> co.total_cents AND NOT 'upsell' = ANY (o.system_tags))),
		(SELECT count(*) FROM orders WHERE store_id = ? AND checkout_id IS NOT NULL),
		(SELECT count(*) FROM checkouts WHERE store_id = ? AND state = 'completed')`, sid, sid, sid, sid).Scan(ctx, &mismatched, &orders, &completed); err != nil {
		t.Fatal(err)
	}
	if mismatched != 0 || orders == 0 || orders != completed {
		t.Fatalf("%d storefront orders, %d completed checkouts, %d unmatched", orders, completed, mismatched)
	}
	var unpriced int
	if err := db.NewRaw(`SELECT count(*) FROM checkouts WHERE store_id = ?
		AND total_cents <> subtotal_cents - discount_cents + shipping_cents + tax_cents + tip_cents + surcharge_cents`, sid).Scan(ctx, &unpriced); err != nil || unpriced != 0 {
		t.Fatalf("%d checkouts whose totals do not add up (%v)", unpriced, err)
	}
	// Priced with the store's surcharge and tipping (checkoutFees): every
	// checkout with goods carries a surcharge, a third of those past
	// contact a tip, and their orders keep both.
	var surcharged, tipped, ordersSurcharged, ordersTipped int
	if err := db.NewRaw(`SELECT
		(SELECT count(*) FROM checkouts WHERE store_id = ? AND surcharge_cents > 0),
		(SELECT count(*) FROM checkouts WHERE store_id = ? AND tip IS NOT NULL AND tip_cents > 0),
		(SELECT count(*) FROM orders WHERE store_id = ? AND checkout_id IS NOT NULL AND surcharge_cents > 0),
		(SELECT count(*) FROM orders o JOIN checkouts co ON co.id = o.checkout_id WHERE o.store_id = ? AND o.tip_cents = co.tip_cents AND o.tip_cents > 0)`,
		sid, sid, sid, sid).Scan(ctx, &surcharged, &tipped, &ordersSurcharged, &ordersTipped); err != nil {
		t.Fatal(err)
	}
	if surcharged == 0 || tipped == 0 || ordersSurcharged != orders || ordersTipped == 0 {
		t.Errorf("%d checkouts surcharged, %d tipped; of %d storefront orders %d surcharged, %d tipped", surcharged, tipped, orders, ordersSurcharged, ordersTipped)
	}
	var unpaid int
	if err := db.NewRaw(`SELECT count(*) FROM checkouts co WHERE co.store_id = ? AND co.state = 'completed' AND NOT EXISTS
		(SELECT 1 FROM checkout_payment_attempts a WHERE a.checkout_id = co.id AND a.status = ? AND a.transaction_id IS NOT NULL)`,
		sid, models.AttemptSuccess).Scan(ctx, &unpaid); err != nil || unpaid != 0 {
		t.Fatalf("%d completed checkouts without their payment (%v)", unpaid, err)
	}
}
