package seed

import (
	"context"
	"math"
	"testing"

	"storeadmin/internal/experimentreport"
	"storeadmin/models"
)

// TestExperimentTests: one test of each life, written as the API writes
// them, whose reports tell the truth their traffic was drawn from: the
// running theme test's winner is found, the ended one's recorded; every
// arm's rates are within four standard errors of its truth; the price
// test's orders were charged their arm's price; bots are never exposed;
// the store is in the pool; seeding again adds nothing.
func TestExperimentTests(t *testing.T) {
	ctx := context.Background()
	db, files, sid := newSeedStore(t)
	seedAll(t, db, files, sid)
	count := storeCounter(t, db, sid)
	first := tableCounts(count, "experiments", "experiment_variants", "experiment_exposures", "experiment_pauses", "orders", "storefront_sessions")

	list, err := models.ListExperiments(ctx, db, sid)
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]models.Experiment{}
	for _, e := range list {
		byName[e.Name] = e
	}
	want := map[string]string{
		"Product grid: three columns":                        models.ExperimentEnded,
		"Shipping page: lead with the free-shipping promise": models.ExperimentPaused,
		"Beanie price: ten percent more":                     models.ExperimentRunning,
		"Announcement bar: free shipping over $75":           models.ExperimentRunning,
		"FAQ: sizing first":                                  models.ExperimentRunning,
		"Express shipping a dollar cheaper":                  models.ExperimentDraft,
	}
	if len(list) != len(want) {
		t.Fatalf("%d experiments, want %d: %v", len(list), len(want), list)
	}
	for name, status := range want {
		if byName[name].Status != status {
			t.Errorf("%s: %q, want %q", name, byName[name].Status, status)
		}
	}
	if p := byName["FAQ: sizing first"].PoolKey; p == nil || *p != abPoolKey {
		t.Errorf("the pool's experiment has pool_key %v", p)
	}

	reports := map[string]*experimentreport.ExperimentReport{}
	for name, e := range byName {
		arms, err := models.ExperimentArms(ctx, db, sid, e.ID)
		if err != nil {
			t.Fatal(err)
		}
		if reports[name], err = experimentreport.Report(ctx, db, &e, arms, seedNow); err != nil {
			t.Fatal(err)
		}
		for _, a := range reports[name].Arms {
			t.Logf("%s, arm %d: %d exposed, add %.4f, checkout %.4f, conversion %.4f; %s", name, a.Position, a.Exposed,
				a.AddRate, a.CheckoutRate, a.ConversionRate, reports[name].Verdict)
		}
	}
	for _, name := range []string{"Product grid: three columns", "Announcement bar: free shipping over $75"} {
		r := reports[name]
		if r.Verdict != "winner" || r.WinnerPosition == nil || *r.WinnerPosition != 2 || r.SRM.Failed {
			t.Errorf("%s: verdict %s at %v, srm %+v; want arm 2 the winner", name, r.Verdict, r.WinnerPosition, r.SRM)
		}
	}
	ended := byName["Product grid: three columns"]
	arms, err := models.ExperimentArms(ctx, db, sid, ended.ID)
	if err != nil {
		t.Fatal(err)
	}
	if ended.WinnerVariantID == nil || *ended.WinnerVariantID != arms[1].ID {
		t.Errorf("the ended test recorded winner %v, want its arm %d", ended.WinnerVariantID, arms[1].ID)
	}
	if r := reports["Announcement bar: free shipping over $75"]; r.Guardrails.ExcludedInPauses == 0 || len(r.Segments) == 0 ||
		r.Guardrails.ConsentCoverage < 0.7 || r.Guardrails.ConsentCoverage > 0.9 {
		t.Errorf("the running theme test's guardrails %+v and %d segments", r.Guardrails, len(r.Segments))
	}
	if n := count("experiment_pauses", "reason = ? AND resumed_at IS NULL", "Legal is reviewing the same-day promise"); n != 1 {
		t.Errorf("%d open pauses of the paused test", n)
	}
	if r := reports["Express shipping a dollar cheaper"]; r.Verdict != "insufficient_data" || len(r.Timeline) != 0 {
		t.Errorf("the draft's report: %+v", r)
	}

	// The truth: each arm's observed rates against the rates its visitors
	// were drawn from (abTests), within four standard errors.
	truths := map[string][]abRates{}
	shop, err := scShopOf(ctx, db, sid)
	if err != nil {
		t.Fatal(err)
	}
	tests, err := abTests(ctx, db, sid, shop, seedNow)
	if err != nil || tests == nil {
		t.Fatalf("no tests: %v", err)
	}
	for _, tt := range tests {
		truths[tt.name] = tt.truth
	}
	for name, r := range reports {
		for i, a := range r.Arms {
			if len(truths[name]) == 0 {
				continue
			}
			truth := truths[name][i]
			for _, c := range []struct {
				what      string
				got, want float64
			}{{"add", a.AddRate, truth.add}, {"checkout", a.CheckoutRate, truth.checkout}, {"conversion", a.ConversionRate, truth.order}} {
				se := math.Sqrt(c.want * (1 - c.want) / float64(a.Exposed))
				if a.Exposed < 100 || math.Abs(c.got-c.want) > 4*se+1e-9 {
					t.Errorf("%s, arm %d: %s rate %.4f of %d exposed, truth %.4f", name, a.Position, c.what, c.got, a.Exposed, c.want)
				}
			}
		}
	}

	// The price test's orders paid the price their visitor's arm shows.
	price := byName["Beanie price: ten percent more"]
	var lines []struct {
		Paid      int64   `bun:"paid"`
		Catalogue int64   `bun:"catalogue"`
		Pct       float64 `bun:"pct"`
	}
	if err := db.NewRaw(`SELECT li.price_cents AS paid, v.price_cents AS catalogue, (xv.payload->>'price_change_pct')::float8 AS pct
		FROM orders o JOIN order_line_items li ON li.order_id = o.id AND li.source = 'web'
		JOIN product_variants v ON v.id = li.variant_id
		JOIN experiment_price_products pp ON pp.experiment_id = ?1 AND pp.product_id = v.product_id
		JOIN storefront_sessions s ON s.id = o.session_id
		JOIN experiment_exposures x ON x.experiment_id = ?1 AND x.visitor_id = s.visitor_id
		JOIN experiment_variants xv ON xv.id = x.variant_id
		WHERE o.store_id = ?0`, sid, price.ID).Scan(ctx, &lines); err != nil {
		t.Fatal(err)
	}
	raised := 0
	for _, l := range lines {
		if l.Paid != models.ArmPriceCents(l.Catalogue, l.Pct) {
			t.Errorf("a line paid %d, its arm's price is %d", l.Paid, models.ArmPriceCents(l.Catalogue, l.Pct))
		}
		if l.Pct > 0 {
			raised++
		}
	}
	if len(lines) < 40 || raised == 0 || raised == len(lines) {
		t.Errorf("%d price test lines, %d at the raised price", len(lines), raised)
	}

	// Bots saw the tests and were never exposed.
	if n := count("experiment_exposures x", "EXISTS (SELECT 1 FROM storefront_sessions s WHERE s.id = x.session_id AND s.is_bot)"); n != 0 {
		t.Errorf("%d exposures of bots", n)
	}
	if n := count("storefront_sessions", "is_bot AND client_session_id LIKE 'seed-ab-%'"); n == 0 {
		t.Error("no bots among the tests' visitors")
	}
	var membership string
	if err := db.NewRaw("SELECT count(*) FROM experiment_pools WHERE key = ?", abPoolKey).Scan(ctx, &membership); err != nil || membership != "1" {
		t.Errorf("the pool: %v %v", membership, err)
	}

	seedAll(t, db, files, sid)
	expectSameCounts(t, first, tableCounts(count, "experiments", "experiment_variants", "experiment_exposures", "experiment_pauses", "orders", "storefront_sessions"))
}
