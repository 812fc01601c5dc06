package seed

import (
	"context"
	"testing"
	"time"

	"github.com/uptrace/bun"

	"storeadmin/models"
)

func TestContent(t *testing.T) {
	ctx := context.Background()
	db, files, sid := newSeedStore(t)
	run := func(fill func(context.Context, bun.Tx) error) {
		t.Helper()
		if err := db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error { return fill(ctx, tx) }); err != nil {
			t.Fatal(err)
		}
	}
	seedContent := func(ctx context.Context, tx bun.Tx) error { return content(ctx, tx, files, sid, seedNow) }
	run(func(ctx context.Context, tx bun.Tx) error { return catalogue(ctx, tx, files, sid, seedNow) })
	run(seedContent)

	count := storeCounter(t, db, sid)
	first := tableCounts(count, "pages", "articles", "menus", "media")
	t.Logf("counts: %v", first)
	if first["pages"] != 4 || first["articles"] < 20 || first["menus"] != 2 {
		t.Errorf("counts %v", first)
	}
	for _, h := range []string{"about-us", "faq", "shipping-policy", "terms-of-service"} {
		if count("pages", "handle = ? AND published_at < ?", h, seedNow) != 1 {
			t.Errorf("no published page %s", h)
		}
	}
	// The blog spans months, with images uploaded here, tags, excerpts,
	// drafts and one scheduled article.
	var months int
	if err := db.NewSelect().TableExpr("articles").ColumnExpr("count(DISTINCT date_trunc('month', published_at))").
		Where("store_id = ? AND published_at IS NOT NULL", sid).Scan(ctx, &months); err != nil {
		t.Fatal(err)
	}
	if months < 5 {
		t.Errorf("articles over %d months", months)
	}
	if n := count("articles a", "a.image_thumbhash <> '' AND EXISTS (SELECT 1 FROM media m WHERE m.store_id = a.store_id AND m.src = a.image_src AND m.thumbhash = a.image_thumbhash)"); n != first["articles"] {
		t.Errorf("%d of %d articles have an uploaded image with its ThumbHash", n, first["articles"])
	}
	if n := count("articles", "cardinality(tags) > 0 AND excerpt <> '' AND author <> ''"); n != first["articles"] {
		t.Errorf("%d of %d articles have tags, an excerpt and an author", n, first["articles"])
	}
	if count("articles", "published_at IS NULL") < 1 || count("articles", "published_at > ?", seedNow) != 1 {
		t.Error("want drafts and one scheduled article")
	}

	// Both default menus are filled; every reference resolves, to each kind
	// of record, nested three levels.
	kinds := map[string]int{}
	var depth func(items []models.MenuItemView, level int) int
	depth = func(items []models.MenuItemView, level int) int {
		deepest := 0
		for _, it := range items {
			kinds[it.Type]++
			if it.Broken {
				t.Errorf("broken item %q", it.Title)
			}
			deepest = max(deepest, level, depth(it.Items, level+1))
		}
		return deepest
	}
	menus, err := models.ListMenus(ctx, db, sid, models.Paging{Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	ids := []int64{menus[0].ID, menus[1].ID}
	targets, err := models.MenuTargetsByMenu(ctx, db, sid, ids, models.AllColumns)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range menus {
		if len(m.Tree) == 0 {
			t.Errorf("menu %s is empty", m.Handle)
		}
		var mine []models.MenuTarget
		for _, tg := range targets {
			if tg.MenuID == m.ID {
				mine = append(mine, tg)
			}
		}
		if d := depth(models.MenuItemViews(m.Tree, mine), 1); m.Handle == models.MainMenu && d != 3 {
			t.Errorf("main menu is %d levels deep", d)
		}
	}
	for _, k := range models.MenuLinkTypes {
		if kinds[k] == 0 {
			t.Errorf("no menu item of type %s (%v)", k, kinds)
		}
	}

	// A second run adds nothing and changes no menu.
	before := time.Now()
	run(seedContent)
	expectSameCounts(t, first, tableCounts(count, "pages", "articles", "menus", "media"))
	if n := count("menus", "updated_at >= ?", before); n != 0 {
		t.Errorf("a second run rewrote %d menus", n)
	}
}
