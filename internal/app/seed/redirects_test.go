package seed

import (
	"context"
	"testing"

	"github.com/uptrace/bun"

	"storeadmin/models"
)

// TestRedirects seeds the catalogue and the redirects: 50 or more, of
// every source, none looping, the automatic ones leading to live records
// whose old paths nothing answers; seeding again adds nothing.
func TestRedirects(t *testing.T) {
	ctx := context.Background()
	db, files, sid := newSeedStore(t)
	run := func() {
		t.Helper()
		err := db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
			if err := catalogue(ctx, tx, files, sid, seedNow); err != nil {
				return err
			}
			return redirects(ctx, tx, sid, seedNow)
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	count := storeCounter(t, db, sid)
	run()
	first := map[string]int64{}
	for _, source := range models.RedirectSources {
		first[source] = count("url_redirects", "source = ?", source)
	}
	t.Logf("redirects by source: %v", first)
	if first[models.RedirectManual] < 20 || first[models.RedirectImport] < 15 || first[models.RedirectAutomatic] < 12 ||
		first[models.RedirectManual]+first[models.RedirectImport]+first[models.RedirectAutomatic] < 50 {
		t.Errorf("redirects by source %v, want 50 or more, of every source", first)
	}

	all, err := models.AllURLRedirects(ctx, db, sid, models.URLRedirectFilter{})
	if err != nil {
		t.Fatal(err)
	}
	ids := make([]int64, len(all))
	for i, r := range all {
		ids[i] = r.ID
		// Each saves again unchanged: no loop, no conflict.
		if err := db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error { return models.SaveURLRedirect(ctx, tx, &r) }); err != nil {
			t.Errorf("redirect %s → %s: %v", r.Path, r.Target, err)
		}
	}
	owners, err := models.URLRedirectOwners(ctx, db, sid, ids, models.AllColumns)
	if err != nil {
		t.Fatal(err)
	}
	if len(owners) != 0 {
		t.Errorf("seeded redirects shadowed by live records: %v", owners)
	}
	if n := count("url_redirects r", "source = 'automatic' AND NOT EXISTS (SELECT 1 FROM products p WHERE p.store_id = r.store_id AND '/products/' || p.handle = r.target) AND NOT EXISTS (SELECT 1 FROM collections c WHERE c.store_id = r.store_id AND '/collections/' || c.handle = r.target)"); n != 0 {
		t.Errorf("%d automatic redirects lead to no product or collection", n)
	}

	run()
	for source, n := range first {
		if again := count("url_redirects", "source = ?", source); again != n {
			t.Errorf("%s redirects: %d, then %d after seeding again", source, n, again)
		}
	}
}
