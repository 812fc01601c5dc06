package seed

import (
	"context"
	"testing"
	"time"

	"github.com/uptrace/bun"

	"storeadmin/models"
)

// TestUpsellFunnels seeds the catalogue and the funnels: four funnels,
// three enabled, with branching steps offering products the store can
// sell, and one with a checkout page of its own; seeding again adds
// nothing.
func TestUpsellFunnels(t *testing.T) {
	ctx := context.Background()
	db, files, sid := newSeedStore(t)
	run := func() {
		t.Helper()
		err := db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
			if err := catalogue(ctx, tx, files, sid, seedNow); err != nil {
				return err
			}
			return upsellFunnels(ctx, tx, sid, time.Time{})
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	run()
	count := storeCounter(t, db, sid)
	first := tableCounts(count, "upsell_funnels", "funnel_steps", "checkout_pages")
	if first["upsell_funnels"] != 4 || first["funnel_steps"] != 9 || first["checkout_pages"] != 1 {
		t.Fatalf("counts %v", first)
	}
	funnels, err := models.ListUpsellFunnels(ctx, db, sid, models.Paging{Limit: 250})
	if err != nil {
		t.Fatal(err)
	}
	enabled, branching, withPage := 0, 0, 0
	for _, f := range funnels {
		if f.Enabled {
			enabled++
		}
		if f.CheckoutPageID != nil {
			withPage++
		}
		steps, err := models.FunnelSteps(ctx, db, sid, f.ID)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range steps {
			if s.Unavailable != nil {
				t.Errorf("%s, step %d: unavailable (%s)", f.Name, s.Position, *s.Unavailable)
			}
			if s.AcceptNextPosition != nil && s.DeclineNextPosition != nil && *s.AcceptNextPosition != *s.DeclineNextPosition {
				branching++
			}
		}
	}
	if enabled != 3 || branching == 0 || withPage != 1 {
		t.Errorf("enabled %d, branching steps %d, funnels with a page %d", enabled, branching, withPage)
	}
	run()
	expectSameCounts(t, first, tableCounts(count, "upsell_funnels", "funnel_steps", "checkout_pages"))
}
