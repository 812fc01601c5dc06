package seed

import (
	"context"
	"testing"

	"github.com/uptrace/bun"

	"storeadmin/models"
)

// TestThemes seeds the themes: two templates owned, three themes, the live
// one with four published versions, one draft-only, one with an update
// available; seeding again adds nothing.
func TestThemes(t *testing.T) {
	ctx := context.Background()
	db, _, sid := newSeedStore(t)
	count := storeCounter(t, db, sid)
	for range 2 {
		if err := db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error { return themes(ctx, tx, sid, seedNow) }); err != nil {
			t.Fatal(err)
		}
		if n := count("store_templates", "true"); n != 2 {
			t.Fatalf("%d templates owned, want 2", n)
		}
		list, err := models.ListThemes(ctx, db, sid)
		if err != nil || len(list) != 3 {
			t.Fatalf("themes %v (%v), want 3", list, err)
		}
		live, updates := 0, 0
		for _, th := range list {
			versions, err := models.ListThemeVersions(ctx, db, sid, th.ID)
			if err != nil {
				t.Fatal(err)
			}
			if th.Live {
				live++
				if len(versions) != 4 || versions[0].Version != 4 {
					t.Errorf("the live theme has versions %v, want 4", versions)
				}
			} else if len(versions) != 0 {
				t.Errorf("%s has %d versions, want none", th.Name, len(versions))
			}
			if th.UpdateAvailable != nil && *th.UpdateAvailable {
				updates++
			}
		}
		if live != 1 || updates != 1 {
			t.Fatalf("%d live and %d with an update, want 1 and 1", live, updates)
		}
	}
}
