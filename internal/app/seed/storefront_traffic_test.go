package seed

import (
	"context"
	"testing"
	"time"

	"github.com/uptrace/bun"
)

// The traffic is 90 days of visits, bots among them, from several
// countries, devices and sources, with the orders' campaigns; seeding it
// again stores nothing new.
func TestStorefrontTraffic(t *testing.T) {
	ctx := context.Background()
	db, files, sid := newSeedStore(t)
	for _, a := range areas {
		if err := db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error { return a.fill(ctx, tx, sid, seedNow) }); err != nil {
			t.Fatal(a.name, err)
		}
	}
	for _, a := range mediaAreas {
		if a.name == "catalogue" || a.name == "orders" {
			if err := db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error { return a.fill(ctx, tx, files, sid, seedNow) }); err != nil {
				t.Fatal(a.name, err)
			}
		}
	}
	traffic := func() {
		start := time.Now()
		if err := db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error { return storefrontTraffic(ctx, tx, sid, seedNow) }); err != nil {
			t.Fatal(err)
		}
		t.Logf("storefront traffic: %s", time.Since(start))
	}
	traffic()
	count := storeCounter(t, db, sid)
	sessions, events := count("storefront_sessions", "true"), count("storefront_events", "true")
	if sessions < 50_000 {
		t.Fatalf("%d sessions", sessions)
	}
	if bots := count("storefront_sessions", "is_bot"); bots == 0 || bots > sessions/5 {
		t.Fatalf("%d bots of %d sessions", bots, sessions)
	}
	distinct := func(col string) int {
		var n int
		if err := db.NewRaw("SELECT count(DISTINCT "+col+") FROM storefront_sessions WHERE store_id = ?", sid).Scan(ctx, &n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	if c, d, s := distinct("country"), distinct("device"), distinct("utm->>'utm_source'"); c < 5 || d < 3 || s < 5 {
		t.Fatalf("%d countries, %d devices, %d sources", c, d, s)
	}
	var first, last time.Time
	if err := db.NewRaw("SELECT min(first_seen_at), max(last_seen_at) FROM storefront_sessions WHERE store_id = ?", sid).Scan(ctx, &first, &last); err != nil {
		t.Fatal(err)
	}
	if seedNow.Sub(first) < 85*24*time.Hour || last.After(seedNow) {
		t.Fatalf("traffic from %s to %s", first, last)
	}
	// Every campaign of the traffic is one the orders were attributed to.
	var stray []string
	if err := db.NewRaw(`SELECT DISTINCT s.utm->>'utm_campaign' FROM storefront_sessions s WHERE s.store_id = ? AND s.utm ? 'utm_campaign'
		AND NOT EXISTS (SELECT 1 FROM orders o WHERE o.store_id = s.store_id AND o.attribution->>'utm_campaign' = s.utm->>'utm_campaign')`, sid, bun.Safe("?")).Scan(ctx, &stray); err != nil {
		t.Fatal(err)
	}
	if len(stray) > 0 {
		t.Fatalf("campaigns no order has: %v", stray)
	}
	traffic()
	if s, e := count("storefront_sessions", "true"), count("storefront_events", "true"); s != sessions || e != events {
		t.Fatalf("seeding again: %d -> %d sessions, %d -> %d events", sessions, s, events, e)
	}
}
