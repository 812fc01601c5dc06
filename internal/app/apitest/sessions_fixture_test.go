package apitest_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"storeadmin/internal/app/apitest"
	"storeadmin/models"
)

// The storefront tables are written by the storefront surface (ingestion,
// carts and checkouts); these tests of what reads them fill them straight
// with SQL, as those writers leave them.

// visit is one storefront session of a fixture and what it did.
type visit struct {
	key, anon, email               string
	country, city, device, browser string
	bot                            bool
	utmSource                      string
	at                             time.Time // first_seen_at
	events                         []visitEvent
	carts                          []visitCart
	checkouts                      []visitCheckout
}

type visitEvent struct {
	name, path string
	product    *int64
	after      time.Duration // after the visit began
}

type visitCart struct {
	token     string
	items     int64
	abandoned bool
	reminders int // sent recovery emails
}

type visitCheckout struct {
	token    string
	cart     string // token of a cart of the same visit
	attempts []string
	order    *models.Order // the order it became
	// recovered: flagged abandoned before the order, which recovered it.
	recovered bool
}

// addVisit stores v for the store and returns the session's row id.
func addVisit(t testing.TB, e *apitest.Env, storeID int64, v visit) int64 {
	t.Helper()
	ctx := context.Background()
	exec := func(q string, args ...any) int64 {
		t.Helper()
		var id int64
		if err := e.DB.NewRaw(q, args...).Scan(ctx, &id); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		return id
	}
	nullable := func(s string) *string {
		if s == "" {
			return nil
		}
		return &s
	}
	last := v.at
	pageViews := 0
	for _, ev := range v.events {
		if at := v.at.Add(ev.after); at.After(last) {
			last = at
		}
		if ev.name == "page_view" {
			pageViews++
		}
	}
	visitor := exec(`INSERT INTO visitors (store_id, anon_id, email, first_seen_at, last_seen_at) VALUES (?, ?, ?, ?, ?)
		ON CONFLICT (store_id, anon_id) DO UPDATE SET last_seen_at = excluded.last_seen_at RETURNING id`,
		storeID, v.anon, v.email, v.at, last)
	var utm any
	if v.utmSource != "" {
		b, _ := json.Marshal(map[string]string{"utm_source": v.utmSource})
		utm = string(b)
	}
	session := exec(`INSERT INTO storefront_sessions (store_id, session_key, visitor_id, first_seen_at, last_seen_at, landing_path,
		referrer, utm, user_agent, browser, os, device, is_bot, ip, country, city, language, currency, page_views, events)
		VALUES (?, ?, ?, ?, ?, '/', 'https://www.google.com/', ?::jsonb, 'Mozilla/5.0', ?, 'macOS', ?, ?, '203.0.113.9', ?, ?, 'en-US', 'EUR', ?, ?)
		RETURNING id`,
		storeID, v.key, visitor, v.at, last, utm, nullable(v.browser), nullable(v.device), v.bot, nullable(v.country), nullable(v.city),
		pageViews, len(v.events))
	for i, ev := range v.events {
		exec(`INSERT INTO storefront_events (store_id, session_id, visitor_id, client_event_id, name, occurred_at, path, product_id, dwell_ms)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, 1500) RETURNING id`,
			storeID, session, visitor, v.key+"-"+string(rune('a'+i)), ev.name, v.at.Add(ev.after), nullable(ev.path), ev.product)
	}
	carts := map[string]int64{}
	for _, c := range v.carts {
		var abandoned *time.Time
		if c.abandoned {
			at := last.Add(time.Hour)
			abandoned = &at
		}
		carts[c.token] = exec(`INSERT INTO carts (store_id, token, visitor_id, session_id, currency, email, item_count, subtotal_cents,
			abandoned_at, recovery_emails, created_at, updated_at) VALUES (?, ?, ?, ?, 'EUR', ?, ?, 2500, ?, ?, ?, ?) RETURNING id`,
			storeID, c.token, visitor, session, v.email, c.items, abandoned, c.reminders, v.at.Add(time.Minute), v.at.Add(2*time.Minute))
		for i := 1; i <= c.reminders; i++ {
			exec(`INSERT INTO recovery_messages (store_id, cart_id, step, status, to_email, subject, created_at, sent_at, sequence_at)
				VALUES (?, ?, ?, 'sent', ?, 'You left something behind', ?, ?, ?) RETURNING id`,
				storeID, carts[c.token], i, v.email, last.Add(2*time.Hour), last.Add(2*time.Hour), last.Add(time.Hour))
		}
	}
	for _, k := range v.checkouts {
		var cart *int64
		if id, ok := carts[k.cart]; ok {
			cart = &id
		}
		var orderID *int64
		var completed *time.Time
		state := "open"
		if k.order != nil {
			orderID, state = &k.order.ID, "completed"
			at := v.at.Add(20 * time.Minute)
			completed = &at
		}
		var abandonedAt, recoveredAt *time.Time
		var recoveredBy *int64
		if k.recovered {
			at := v.at.Add(15 * time.Minute)
			abandonedAt, recoveredAt, recoveredBy = &at, completed, orderID
		}
		checkout := exec(`INSERT INTO checkouts (store_id, token, cart_id, visitor_id, session_id, state, currency, email, total_cents,
			order_id, completed_at, expires_at, created_at, updated_at, abandoned_at, recovered_at, recovered_order_id)
			VALUES (?, ?, ?, ?, ?, ?, 'EUR', ?, 6200, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`,
			storeID, k.token, cart, visitor, session, state, v.email, orderID, completed, v.at.Add(7*24*time.Hour), v.at.Add(10*time.Minute), v.at.Add(10*time.Minute),
			abandonedAt, recoveredAt, recoveredBy)
		for i, status := range k.attempts {
			var code, msg *string
			if status == "failure" {
				c, m := "card_declined", "Your card was declined."
				code, msg = &c, &m
			}
			exec(`INSERT INTO checkout_payment_attempts (store_id, checkout_id, provider, payment_method, amount_cents, currency, status,
				error_code, error_message, created_at) VALUES (?, ?, 'stripe', 'card', 6200, 'EUR', ?, ?, ?, ?) RETURNING id`,
				storeID, checkout, status, code, msg, v.at.Add(time.Duration(15+i)*time.Minute))
		}
		if k.order != nil {
			exec(`UPDATE orders SET session_id = ?, checkout_id = ? WHERE id = ? RETURNING id`, session, checkout, k.order.ID)
			k.order.SessionID = &session
		}
	}
	return session
}

// sessionsFixture is a store's storefront traffic of the last hours: a
// visit that bought, one that carted and was abandoned, one that bounced,
// a bot, and a visit 40 days ago.
type sessionsFixture struct {
	product  int64
	order    *models.Order
	sessions map[string]int64
}

func newSessionsFixture(t testing.TB, e *apitest.Env, storeID int64) sessionsFixture {
	t.Helper()
	p := &models.Product{StoreID: storeID, Handle: "linen-shirt", Title: "Linen shirt", Status: models.ProductActive,
		Tags: []string{}, SEO: map[string]any{}, Options: []models.ProductOption{{Name: "Size", Position: 1, Values: []string{"M"}}}}
	if err := models.InsertProduct(context.Background(), e.DB, p); err != nil {
		t.Fatal(err)
	}
	now := time.Now().UTC().Truncate(time.Second)
	f := sessionsFixture{product: p.ID, sessions: map[string]int64{}}
	f.order = createOrder(t, e, storeID, orderSpec{email: "ana@example.com", createdAt: now.Add(-150 * time.Minute)})
	browse := func(extra ...visitEvent) []visitEvent {
		return append([]visitEvent{{name: "page_view", path: "/"}, {name: "page_view", path: "/", after: time.Minute},
			{name: "product_view", path: "/products/linen-shirt", product: &p.ID, after: 2 * time.Minute}}, extra...)
	}
	f.sessions["buyer"] = addVisit(t, e, storeID, visit{key: "s_buyer", anon: "a1", email: "ana@example.com", country: "US", city: "Austin",
		device: "desktop", browser: "Chrome", utmSource: "google", at: now.Add(-3 * time.Hour),
		events: browse(visitEvent{name: "add_to_cart", path: "/products/linen-shirt", product: &p.ID, after: 3 * time.Minute},
			visitEvent{name: "checkout_step", path: "/checkout", after: 12 * time.Minute}),
		carts:     []visitCart{{token: "cart_buyer", items: 2}},
		checkouts: []visitCheckout{{token: "chk_buyer", cart: "cart_buyer", attempts: []string{"failure", "success"}, order: f.order, recovered: true}}})
	f.sessions["carted"] = addVisit(t, e, storeID, visit{key: "s_carted", anon: "a2", email: "ben@example.com", country: "DE", city: "Berlin",
		device: "mobile", browser: "Safari", at: now.Add(-2 * time.Hour),
		events: browse(visitEvent{name: "add_to_cart", path: "/products/linen-shirt", product: &p.ID, after: 3 * time.Minute}),
		carts:  []visitCart{{token: "cart_abandoned", items: 1, abandoned: true, reminders: 1}}})
	f.sessions["bounced"] = addVisit(t, e, storeID, visit{key: "s_bounced", anon: "a3", country: "DE", city: "Munich",
		device: "mobile", browser: "Safari", at: now.Add(-time.Hour), events: []visitEvent{{name: "page_view", path: "/"}}})
	f.sessions["bot"] = addVisit(t, e, storeID, visit{key: "s_bot", anon: "a4", country: "US", device: "desktop", bot: true,
		at: now.Add(-90 * time.Minute), events: browse()})
	f.sessions["old"] = addVisit(t, e, storeID, visit{key: "s_old", anon: "a5", country: "FR", city: "Paris", device: "desktop",
		browser: "Firefox", at: now.Add(-40 * 24 * time.Hour), events: browse()})
	return f
}
