package seed

import (
	"context"
	"testing"
)

// TestFunnelRuns: storefront orders routed to a funnel entered it, and
// their runs ended every way the seed plays them: offers accepted (lines
// on the order, charged), declined, and a run timed out on an offer it
// showed; cards captured the raised total, wallets took a second charge.
func TestFunnelRuns(t *testing.T) {
	ctx := context.Background()
	db, files, sid := newSeedStore(t)
	seedAll(t, db, files, sid)

	var got struct {
		Runs       int `bun:"runs"`
		Completed  int `bun:"completed"`
		TimedOut   int `bun:"timed_out"`
		Accepted   int `bun:"accepted"`
		Declined   int `bun:"declined"`
		Undecided  int `bun:"undecided"`
		Uncharged  int `bun:"uncharged"`
		Lines      int `bun:"lines"`
		Second     int `bun:"second"`
		Unrouted   int `bun:"unrouted"`
		Unfinished int `bun:"unfinished"`
	}
	err := db.NewRaw(`SELECT
		(SELECT count(*) FROM funnel_runs WHERE store_id = ?0) AS runs,
		(SELECT count(*) FROM funnel_runs WHERE store_id = ?0 AND status = 'completed') AS completed,
		(SELECT count(*) FROM funnel_runs WHERE store_id = ?0 AND status = 'timed_out') AS timed_out,
		(SELECT count(*) FROM funnel_offers WHERE store_id = ?0 AND status = 'accepted') AS accepted,
		(SELECT count(*) FROM funnel_offers WHERE store_id = ?0 AND status = 'declined') AS declined,
		(SELECT count(*) FROM funnel_offers WHERE store_id = ?0 AND status = 'shown') AS undecided,
		(SELECT count(*) FROM funnel_offers WHERE store_id = ?0 AND status = 'accepted' AND charged_at IS NULL) AS uncharged,
		(SELECT count(*) FROM order_line_items l JOIN funnel_offers f ON f.line_item_id = l.id
			WHERE f.store_id = ?0 AND l.source = 'upsell') AS lines,
		(SELECT count(*) FROM order_transactions t JOIN funnel_runs r ON r.order_id = t.order_id
			WHERE r.store_id = ?0 AND t.kind = 'sale' AND t.provider = 'wallet') AS second,
		(SELECT count(*) FROM checkouts co JOIN orders o ON o.id = co.order_id
			WHERE co.store_id = ?0 AND co.upsell_funnel_id IS NOT NULL AND o.financial_status = 'authorized'
			AND NOT EXISTS (SELECT 1 FROM funnel_runs r WHERE r.order_id = o.id)) AS unrouted,
		(SELECT count(*) FROM funnel_runs r JOIN orders o ON o.id = r.order_id
			WHERE r.store_id = ?0 AND (r.status = 'running' OR o.financial_status <> 'paid' OR o.upsell->>'status' <> r.status)) AS unfinished`,
		sid).Scan(ctx, &got)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("funnel runs: %+v", got)
	if got.Runs < 4 || got.Completed == 0 || got.TimedOut == 0 || got.Accepted == 0 || got.Declined == 0 || got.Undecided == 0 ||
		got.Second == 0 || got.Uncharged != 0 || got.Lines != got.Accepted || got.Unrouted != 0 || got.Unfinished != 0 {
		t.Fatalf("funnel runs: %+v", got)
	}
}
