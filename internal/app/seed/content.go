package seed

import (
	"context"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/uptrace/bun"

	"storeadmin/internal/media"
	"storeadmin/models"
)

// ctPage is a seeded page of the online store.
type ctPage struct{ title, body string }

var ctPages = []ctPage{
	{"About us", "<h2>Made for the trail since 2014</h2><p>Demo Outfitters started in a garage in Bend, Oregon, with three sewing machines and a stubborn idea: gear that lasts longer than the trip. Today we work with eight mills and makers we know by name.</p><p>Every product is tested by our own staff on weekend hikes before it reaches the shop.</p>"},
	{"FAQ", "<h2>Frequently asked questions</h2><h3>How do I choose a size?</h3><p>Each product page has a size chart; between two sizes, take the larger one for layering.</p><h3>Can I change my order?</h3><p>Write to us within two hours of ordering and we will change it before it ships.</p><h3>Do you repair gear?</h3><p>Yes: send it back with a note and we will quote the repair.</p>"},
	{"Shipping policy", "<h2>Shipping</h2><p>Orders placed before 2 pm ship the same business day. Standard shipping takes 3-5 business days in the US, and is free over $75.</p><p>We ship to Canada, Europe and Asia-Pacific; duties are shown at checkout.</p>"},
	{"Terms of service", "<h2>Terms of service</h2><p>By using this store you agree to these terms. Prices are in US dollars and may change without notice. We may refuse or cancel an order we cannot fulfil, with a full refund.</p><p>Returns are accepted within 30 days of delivery, unworn and with tags.</p>"},
}

// ctArticle is a seeded blog article's topic: its title and tags (its
// author and body are drawn).
type ctArticle struct {
	title string
	tags  []string
}

var ctAuthors = []string{"Maya Chen", "Jonas Berg", "Priya Nair", "Sam Okafor"}

var ctArticleTopics = []ctArticle{
	{title: "Layering 101: staying warm without overheating", tags: []string{"guides", "layering"}},
	{title: "How we test a rain shell", tags: []string{"behind the scenes", "rain"}},
	{title: "Five day hikes within two hours of Portland", tags: []string{"trails", "oregon"}},
	{title: "Caring for merino wool", tags: []string{"care", "wool"}},
	{title: "Meet the mill: Harbor Knit", tags: []string{"makers", "wool"}},
	{title: "Packing list for a first overnight trip", tags: []string{"guides", "camping"}},
	{title: "Why we switched to recycled nylon", tags: []string{"sustainability", "materials"}},
	{title: "Winter trail running: what to wear", tags: []string{"running", "layering"}},
	{title: "Repair, don't replace: our repair program", tags: []string{"sustainability", "care"}},
	{title: "The story behind the Summit parka", tags: []string{"behind the scenes", "jackets"}},
	{title: "Choosing socks for long distances", tags: []string{"guides", "socks"}},
	{title: "Spring cleaning your gear closet", tags: []string{"care"}},
	{title: "Trail etiquette for busy weekends", tags: []string{"trails"}},
	{title: "A week on the Wonderland Trail", tags: []string{"trails", "stories"}},
	{title: "Down versus synthetic insulation", tags: []string{"guides", "materials"}},
	{title: "Our favourite fall colours, in the woods and in the shop", tags: []string{"stories", "new arrivals"}},
	{title: "How to wash a waterproof jacket", tags: []string{"care", "rain"}},
	{title: "Meet the maker: Alpine Thread Co.", tags: []string{"makers"}},
	{title: "Kids on the trail: tips from parents on staff", tags: []string{"stories", "family"}},
	{title: "Headlamps, batteries and the dark months", tags: []string{"guides", "camping"}},
	{title: "What a carbon-neutral shipment means", tags: []string{"sustainability"}},
	{title: "New arrivals: the Granite collection", tags: []string{"new arrivals", "jackets"}},
	{title: "Snowshoeing for beginners", tags: []string{"guides", "winter"}},
	{title: "Holiday gift guide for hikers", tags: []string{"gifts", "new arrivals"}},
}

// ctParagraphs are the sentences article bodies are made of.
var ctParagraphs = []string{
	"We spent the last few weeks on the trail with this in mind, and came back with notes, blisters and a few surprises.",
	"The short answer is that fit matters more than any fabric: a layer that moves with you keeps you warmer than a thicker one that does not.",
	"Our staff tested every piece in rain, wind and the odd snow flurry before we wrote a word of this.",
	"If you remember one thing, make it this: start cold. You will warm up within ten minutes of walking.",
	"We asked our customers too, and more than four hundred of you wrote back with advice we had not thought of.",
	"Good gear is the gear you keep using. Wash it gently, dry it slowly and repair it early.",
}

// content seeds the online store's content: four pages, a blog of 24
// articles over eight months with images and tags (some drafts, one
// scheduled), and the two default menus with nested items pointing at the
// catalogue's collections and products, the pages and the articles. Each
// part is left alone when the store has some already.
func content(ctx context.Context, tx bun.Tx, files *media.Media, storeID int64, now time.Time) error {
	pages, err := ctSeedPages(ctx, tx, storeID, now)
	if err != nil {
		return err
	}
	articles, err := ctSeedArticles(ctx, tx, files, storeID, now)
	if err != nil {
		return err
	}
	return ctSeedMenus(ctx, tx, storeID, now, pages, articles)
}

// ctSeedPages stores the pages, published a year ago, unless the store has
// pages; it returns the store's pages.
func ctSeedPages(ctx context.Context, tx bun.Tx, storeID int64, now time.Time) ([]models.ContentPage, error) {
	existing, err := models.ListContentPages(ctx, tx, storeID, models.ContentPageFilter{}, models.Paging{Limit: models.MaxLimit})
	if err != nil || len(existing) > 0 {
		return existing, err
	}
	published := now.AddDate(-1, 0, 0)
	out := make([]models.ContentPage, 0, len(ctPages))
	for _, p := range ctPages {
		page := models.ContentPage{StoreID: storeID, Handle: models.Handleize(p.title), Title: p.title, BodyHTML: p.body,
			PublishedAt: &published, SEO: map[string]any{"title": p.title + " | Demo Outfitters"}}
		if err := models.InsertContentPage(ctx, tx, &page); err != nil {
			return nil, fmt.Errorf("page %q: %w", p.title, err)
		}
		out = append(out, page)
	}
	return out, nil
}

// ctSeedArticles stores the blog, unless the store has articles: one
// article every ten days back from now, the newest two drafts and one
// scheduled a week ahead, each with an uploaded image (eight pictures
// shared round the blog) and its ThumbHash. It returns the store's
// articles, newest first.
func ctSeedArticles(ctx context.Context, tx bun.Tx, files *media.Media, storeID int64, now time.Time) ([]models.Article, error) {
	filter, all := models.ArticleFilter{}, models.Paging{Limit: models.MaxLimit}
	if n, err := models.CountArticles(ctx, tx, storeID, filter); err != nil || n > 0 {
		if err != nil {
			return nil, err
		}
		return models.ListArticles(ctx, tx, storeID, filter, all)
	}
	images, err := ctImages(ctx, tx, files, storeID, now)
	if err != nil {
		return nil, err
	}
	rng := rand.New(rand.NewPCG(uint64(storeID), 15))
	articles := make([]models.Article, 0, len(ctArticleTopics))
	for i, topic := range ctArticleTopics {
		// Oldest first: the last topic is the newest.
		age := time.Duration(len(ctArticleTopics)-1-i) * 10 * 24 * time.Hour
		created := now.Add(-age - 3*24*time.Hour)
		var published *time.Time
		switch newest := len(ctArticleTopics) - 1 - i; {
		case newest == 0: // scheduled
			at := now.Add(7 * 24 * time.Hour).Truncate(time.Hour)
			published = &at
		case newest <= 2: // drafts
		default:
			at := now.Add(-age).Truncate(time.Hour)
			published = &at
		}
		body := ""
		for range 3 {
			body += "<p>" + ctParagraphs[rng.IntN(len(ctParagraphs))] + "</p>"
		}
		img := images[i%len(images)]
		articles = append(articles, models.Article{
			StoreID: storeID, Handle: models.Handleize(topic.title), Title: topic.title,
			BodyHTML: "<h2>" + topic.title + "</h2>" + body, Author: ctAuthors[rng.IntN(len(ctAuthors))], Tags: topic.tags,
			ImageSrc: img.Src, ImageThumbhash: img.Thumbhash, PublishedAt: published,
			SEO:       map[string]any{"title": topic.title, "description": ctParagraphs[i%len(ctParagraphs)]},
			CreatedAt: created, UpdatedAt: created,
		})
	}
	if err := models.InsertArticles(ctx, tx, articles); err != nil {
		return nil, err
	}
	return models.ListArticles(ctx, tx, storeID, filter, all)
}

// ctImages draws the blog's eight pictures (the catalogue's swatches in
// other colours), stores them and records them as the store's media.
func ctImages(ctx context.Context, tx bun.Tx, files *media.Media, storeID int64, now time.Time) ([]models.Media, error) {
	out := make([]models.Media, 0, 8)
	for i := range 8 {
		c := catColors[(i*5)%len(catColors)]
		data, err := catSwatch(c, i%len(catStyles))
		if err != nil {
			return nil, err
		}
		name := fmt.Sprintf("journal-%d-%s.png", i+1, models.Handleize(c.name))
		_, m, err := storeImage(ctx, tx, files, storeID, name, data, now.AddDate(0, -9, 0))
		if err != nil {
			return nil, err
		}
		out = append(out, m)
	}
	return out, nil
}

// ctSeedMenus fills the default menus, each unless it has items: the main
// menu with the catalogue's first collections (their first products
// below), the blog with its latest articles, and the about page; the footer
// with the other pages, search and the blog.
func ctSeedMenus(ctx context.Context, tx bun.Tx, storeID int64, now time.Time, pages []models.ContentPage, articles []models.Article) error {
	collections, err := models.ListCollections(ctx, tx, storeID, models.CollectionFilter{}, models.Paging{Limit: 3})
	if err != nil {
		return err
	}
	shop := []models.MenuItem{}
	for i := range collections {
		c := &collections[i]
		members, err := models.ListCollectionMembers(ctx, tx, c, models.Paging{Limit: 3})
		if err != nil {
			return err
		}
		item := models.MenuItem{Title: c.Title, Type: models.MenuLinkCollection, ResourceID: c.ID}
		for _, m := range members {
			item.Items = append(item.Items, models.MenuItem{Title: m.Title, Type: models.MenuLinkProduct, ResourceID: m.ID})
		}
		shop = append(shop, item)
	}
	journal := models.MenuItem{Title: "Journal", Type: models.MenuLinkBlog}
	for _, a := range articles {
		if len(journal.Items) < 3 && models.IsPublished(a.PublishedAt, now) {
			journal.Items = append(journal.Items, models.MenuItem{Title: a.Title, Type: models.MenuLinkArticle, ResourceID: a.ID})
		}
	}
	main := []models.MenuItem{
		{Title: "Shop", Type: models.MenuLinkURL, URL: "/collections/all", Items: shop},
		journal,
	}
	var footer []models.MenuItem
	for _, p := range pages {
		item := models.MenuItem{Title: p.Title, Type: models.MenuLinkPage, ResourceID: p.ID}
		if p.Handle == "about-us" {
			main = append(main, item)
			continue
		}
		footer = append(footer, item)
	}
	footer = append(footer, models.MenuItem{Title: "Search", Type: models.MenuLinkURL, URL: "/search"},
		models.MenuItem{Title: "Journal", Type: models.MenuLinkBlog})
	for handle, items := range map[string][]models.MenuItem{models.MainMenu: main, models.FooterMenu: footer} {
		m, err := models.GetMenu(ctx, tx, storeID, handle)
		if err != nil {
			return err
		}
		if len(m.Tree) > 0 {
			continue
		}
		m.Tree = items
		if err := models.PutMenu(ctx, tx, m); err != nil {
			return err
		}
	}
	return nil
}
