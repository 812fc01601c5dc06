package apitest_test

import (
	"fmt"
	"net/http"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"storeadmin/internal/app/apitest"
	"storeadmin/internal/auth"
	"storeadmin/models"
)

// The fields of the spec's PageView and ArticleView, with their types.
var (
	ctPageSpec = map[string]string{"body_html": "s", "created_at": "ts", "handle": "s", "id": "i", "published": "b",
		"published_at": "ts?", "seo": "any", "title": "s", "updated_at": "ts"}
	ctArticleSpec = map[string]string{"author": "s", "body_html": "s", "created_at": "ts", "excerpt": "s", "handle": "s",
		"id": "i", "image_src": "s", "image_thumbhash": "s", "published": "b", "published_at": "ts?", "seo": "any",
		"tags": "s[]", "title": "s", "updated_at": "ts"}
)

func ctPagePath(id int64) string    { return "/store/pages/" + strconv.FormatInt(id, 10) }
func ctArticlePath(id int64) string { return "/store/articles/" + strconv.FormatInt(id, 10) }

// ctPages and ctArticles are the REST resources of pages and articles.
var (
	ctPages = crudResource{path: "/store/pages", item: ctPagePath, one: "page", many: "pages",
		view: func(t *testing.T, v any) map[string]any { t.Helper(); return checkObject(t, "page", v, ctPageSpec) }}
	ctArticles = crudResource{path: "/store/articles", item: ctArticlePath, one: "article", many: "articles",
		view: func(t *testing.T, v any) map[string]any {
			t.Helper()
			return checkObject(t, "article", v, ctArticleSpec)
		}}
)

// ctPageList reads GET /store/pages?query: the spec's payload is the pages
// alone, with no total.
func ctPageList(t *testing.T, e *apitest.Env, key, query string) ([]map[string]any, *apitest.Response) {
	t.Helper()
	r := e.Do(http.MethodGet, "/store/pages?"+query, key, nil).Expect(t, 200)
	expectPayload(t, r, "pages")
	var out []map[string]any
	for _, v := range r.List("pages") {
		out = append(out, ctPages.view(t, v))
	}
	return out, r
}

// ctHandles are the handles of rows, in order.
func ctHandles(rows []map[string]any) []string {
	out := make([]string, len(rows))
	for i, r := range rows {
		out[i], _ = r["handle"].(string)
	}
	return out
}

// ctUpload uploads a PNG to the store of key through the media flow and
// returns the finalised image (src, thumbhash, ...).
func ctUpload(t *testing.T, e *apitest.Env, key, name string) map[string]any {
	t.Helper()
	data := mdPNG(t, 32, 24)
	ticket := mdRequest(t, e, key, map[string]any{"filename": name, "size": len(data)})
	if st := mdPut(t, ticket, data, nil); st != http.StatusCreated {
		t.Fatalf("PUT upload: status %d", st)
	}
	return mdFinalize(t, e, key, ticket["key"].(string))
}

// ctRecent fails unless ts, an RFC 3339 time, is within a minute of now.
func ctRecent(t *testing.T, what string, ts any) {
	t.Helper()
	s, _ := ts.(string)
	at, err := time.Parse(time.RFC3339Nano, s)
	if err != nil || at.Before(time.Now().Add(-time.Minute)) || at.After(time.Now().Add(time.Minute)) {
		t.Fatalf("%s = %v, want about now", what, ts)
	}
}

// TestPages: the life of pages over REST, with the same answers on
// GraphQL: handles generated and unique, merges, filters, deletes.
func TestPages(t *testing.T) {
	e, s, admin := newAcme(t)

	about := ctPages.create(t, e, admin, map[string]any{"title": " About us ", "body_html": "<p>We knit.</p>",
		"seo": map[string]any{"title": "About Acme"}})
	aboutID := idOf(t, about)
	if about["handle"] != "about-us" || about["title"] != "About us" || about["published"] != false || about["published_at"] != nil ||
		!reflect.DeepEqual(about["seo"], map[string]any{"title": "About Acme"}) {
		t.Fatalf("created %v", about)
	}
	// The same title again: the generated handle takes a suffix.
	again := ctPages.create(t, e, admin, map[string]any{"title": "About us", "published": true})
	if again["handle"] != "about-us-2" || again["published"] != true || !reflect.DeepEqual(again["seo"], map[string]any{}) {
		t.Fatalf("second page %v", again)
	}
	ctRecent(t, "published_at", again["published_at"])
	faq := ctPages.create(t, e, admin, map[string]any{"title": "FAQ", "handle": "help", "published": true})
	faqID := idOf(t, faq)
	// A handle another page has, sent: 409, on create and on update.
	r := e.Do(http.MethodPost, "/store/pages", admin, map[string]any{"title": "Help", "handle": "help"}).Expect(t, 409)
	if !strings.Contains(r.Message(), `"help"`) {
		t.Fatalf("conflict message: %s", r.Raw)
	}
	e.Do(http.MethodPut, ctPagePath(aboutID), admin, map[string]any{"handle": "about-us-2"}).Expect(t, 409)
	// Another store may use the same handles.
	o := e.Store("Other")
	oKey := e.Key(o.ID, auth.RoleAdmin)
	theirs := idOf(t, ctPages.create(t, e, oKey, map[string]any{"title": "FAQ", "handle": "help"}))

	// Read, and the same on GraphQL.
	got, get := ctPages.get(t, e, admin, aboutID)
	if !reflect.DeepEqual(got, about) {
		t.Fatalf("read %v\nwant %v", got, about)
	}
	e.SameOnGraphQL(t, get, admin, "GetPage", map[string]any{"id": aboutID})

	// Updates merge; the handle changes only when sent.
	u, put := ctPages.put(t, e, admin, aboutID, map[string]any{"title": "Our story"})
	if u["handle"] != "about-us" || u["title"] != "Our story" || u["body_html"] != "<p>We knit.</p>" ||
		!reflect.DeepEqual(u["seo"], map[string]any{"title": "About Acme"}) {
		t.Fatalf("title only: %v", u)
	}
	// GraphQL updates the same way (its answer is the REST read's).
	g := e.GraphQL(admin, `mutation($id: Int!) { updatePage(id: $id, input: {body_html: "<p>We knit socks.</p>"}) { title handle body_html } }`, map[string]any{"id": aboutID})
	if gp, _ := g.Data()["updatePage"].(map[string]any); gp["title"] != "Our story" || gp["body_html"] != "<p>We knit socks.</p>" {
		t.Fatalf("GraphQL updatePage: %s", g.Raw)
	}
	_, get = ctPages.get(t, e, admin, aboutID)
	e.SameOnGraphQL(t, get, admin, "GetPage", map[string]any{"id": aboutID})
	if get.Body["page"].(map[string]any)["updated_at"] == put.Body["page"].(map[string]any)["updated_at"] {
		t.Fatalf("updated_at did not move: %s", get.Raw)
	}
	if u, _ = ctPages.put(t, e, admin, aboutID, map[string]any{"handle": "our-story"}); u["handle"] != "our-story" {
		t.Fatalf("handle change: %v", u)
	}
	// A read view sent back is accepted: its read-only fields are dropped.
	if u, _ = ctPages.put(t, e, admin, aboutID, u); u["handle"] != "our-story" || u["title"] != "Our story" {
		t.Fatalf("view sent back: %v", u)
	}

	// The list: by title; the spec's payload has no total.
	rows, list := ctPageList(t, e, admin, "")
	if h := ctHandles(rows); !slices.Equal(h, []string{"about-us-2", "help", "our-story"}) {
		t.Fatalf("list %v", h)
	}
	e.SameOnGraphQL(t, list, admin, "ListPages", nil)
	rows, list = ctPageList(t, e, admin, "published=true")
	if h := ctHandles(rows); !slices.Equal(h, []string{"about-us-2", "help"}) {
		t.Fatalf("published %v", h)
	}
	e.SameOnGraphQL(t, list, admin, "ListPages", map[string]any{"filter": map[string]any{"published": true}})
	if rows, _ = ctPageList(t, e, admin, "published=false"); !slices.Equal(ctHandles(rows), []string{"our-story"}) {
		t.Fatalf("drafts %v", ctHandles(rows))
	}
	if rows, _ = ctPageList(t, e, admin, "q=HEL"); !slices.Equal(ctHandles(rows), []string{"help"}) {
		t.Fatalf("q=HEL %v", ctHandles(rows))
	}
	if rows, _ = ctPageList(t, e, admin, "q=story&limit=1&offset=0"); len(rows) != 1 {
		t.Fatalf("q=story %v", ctHandles(rows))
	}
	if rows, _ = ctPageList(t, e, admin, "limit=2&offset=1"); !slices.Equal(ctHandles(rows), []string{"help", "our-story"}) {
		t.Fatalf("page 2 %v", ctHandles(rows))
	}
	e.Do(http.MethodGet, "/store/pages?tag=x", admin, nil).Expect(t, 400)

	// Writes name the page in the audit log.
	expectAuditRecord(t, e, admin, "action=updatePage&limit=1", "page", aboutID)

	// Another store's page is not found, and is left alone.
	for _, c := range []apitest.Call{{Method: http.MethodGet, Path: ctPagePath(theirs)},
		{Method: http.MethodPut, Path: ctPagePath(theirs), Body: map[string]any{"title": "Mine"}},
		{Method: http.MethodDelete, Path: ctPagePath(theirs)}} {
		e.Do(c.Method, c.Path, admin, c.Body).Expect(t, 404)
	}
	expectGraphQLNotFound(t, e, admin, `query($id: Int!) { page(id: $id) { id } }`, map[string]any{"id": theirs})
	if p, _ := ctPages.get(t, e, oKey, theirs); p["title"] != "FAQ" {
		t.Fatalf("their page: %v", p)
	}

	// Delete answers the bare envelope; then the page is gone.
	expectBareDelete(t, e, admin, ctPagePath(faqID))
	e.Do(http.MethodGet, ctPagePath(faqID), admin, nil).Expect(t, 404)
	e.Do(http.MethodDelete, ctPagePath(faqID), admin, nil).Expect(t, 404)
	expectGraphQLCode(t, e, admin, "NOT_FOUND", map[string]any{"id": faqID}, `mutation($id: Int!) { deletePage(id: $id) }`)
	e.Do(http.MethodGet, ctPagePath(0), admin, nil).Expect(t, 404)
	_ = s
}

// TestPublishing: published and published_at on pages and articles alike:
// publishing dates it now (once), unpublishing clears it, a future date
// schedules, a past one publishes as of then, and the two must agree.
func TestPublishing(t *testing.T) {
	e, _, admin := newAcme(t)
	for _, res := range []crudResource{ctPages, ctArticles} {
		t.Run(res.one, func(t *testing.T) {
			m := res.create(t, e, admin, map[string]any{"title": "Spring", "published": true})
			id := idOf(t, m)
			ctRecent(t, "published_at", m["published_at"])
			first := m["published_at"]
			// Publishing what is published keeps its date.
			if m, _ = res.put(t, e, admin, id, map[string]any{"published": true, "title": "Spring!"}); m["published_at"] != first || m["published"] != true {
				t.Fatalf("published again: %v", m)
			}
			if m, _ = res.put(t, e, admin, id, map[string]any{"published": false}); m["published"] != false || m["published_at"] != nil {
				t.Fatalf("unpublished: %v", m)
			}
			// A future date schedules: not published until then, and
			// listed with the drafts.
			future := time.Now().Add(48 * time.Hour).UTC().Truncate(time.Second).Format(time.RFC3339)
			if m, _ = res.put(t, e, admin, id, map[string]any{"published_at": future}); m["published"] != false || m["published_at"] != future {
				t.Fatalf("scheduled: %v", m)
			}
			r := e.Do(http.MethodGet, res.path+"?published=false", admin, nil).Expect(t, 200)
			if rows := objectsOf(r.Body[res.many]); len(rows) != 1 || idOf(t, rows[0]) != id {
				t.Fatalf("scheduled among drafts: %s", r.Raw)
			}
			// A scheduled record read and sent back stays as it is.
			if m, _ = res.put(t, e, admin, id, m); m["published"] != false || m["published_at"] != future {
				t.Fatalf("scheduled, sent back: %v", m)
			}
			// published true on a scheduled record publishes it now.
			if m, _ = res.put(t, e, admin, id, map[string]any{"published": true}); m["published"] != true {
				t.Fatalf("published now: %v", m)
			}
			ctRecent(t, "published_at", m["published_at"])
			// A past date publishes as of then; null makes a draft.
			if m, _ = res.put(t, e, admin, id, map[string]any{"published_at": "2025-03-01T09:00:00Z", "published": true}); m["published"] != true || m["published_at"] != "2025-03-01T09:00:00Z" {
				t.Fatalf("backdated: %v", m)
			}
			if m, _ = res.put(t, e, admin, id, map[string]any{"published_at": nil}); m["published"] != false || m["published_at"] != nil {
				t.Fatalf("null: %v", m)
			}
			// The two fields must agree.
			expectEach400(t, e, admin, res.one, http.MethodPut, res.item(id), map[string]map[string]any{
				"false with a past date":  {"published": false, "published_at": "2025-03-01T09:00:00Z"},
				"true with a future date": {"published": true, "published_at": future},
				"true with null":          {"published": true, "published_at": nil},
				"not a boolean":           {"published": "yes"},
				"not a time":              {"published_at": "tomorrow"},
			})
		})
	}
}

// TestContentValidation: every rule of a page's and an article's fields
// is a 400 naming what is wrong, and changes nothing.
func TestContentValidation(t *testing.T) {
	e, s, admin := newAcme(t)
	pageID := idOf(t, ctPages.create(t, e, admin, map[string]any{"title": "Terms"}))
	articleID := idOf(t, ctArticles.create(t, e, admin, map[string]any{"title": "Hello"}))
	common := map[string]map[string]any{
		"empty title":      {"title": "  "},
		"long title":       {"title": strings.Repeat("t", 256)},
		"title a number":   {"title": 5},
		"bad handle":       {"title": "x", "handle": "Not A Handle"},
		"dashes handle":    {"title": "x", "handle": "a--b"},
		"long handle":      {"title": "x", "handle": strings.Repeat("h", 256)},
		"huge body":        {"title": "x", "body_html": strings.Repeat("b", 512<<10+1)},
		"seo a string":     {"title": "x", "seo": "fast"},
		"seo other key":    {"title": "x", "seo": map[string]any{"keywords": "x"}},
		"seo not a string": {"title": "x", "seo": map[string]any{"title": 1}},
		"unknown field":    {"title": "x", "slug": "x"},
	}
	expectEach400(t, e, admin, "page", http.MethodPost, "/store/pages", common)
	expectEach400(t, e, admin, "page", http.MethodPut, ctPagePath(pageID), common)
	// A page takes none of an article's fields.
	expectEach400(t, e, admin, "page", http.MethodPost, "/store/pages", map[string]map[string]any{
		"author": {"title": "x", "author": "Ana"}, "tags": {"title": "x", "tags": []string{"a"}},
	})
	up := ctUpload(t, e, admin, "cover.png")
	other := e.Store("Other")
	theirs := ctUpload(t, e, e.Key(other.ID, auth.RoleAdmin), "theirs.png")
	article := map[string]map[string]any{
		"long author":       {"title": "x", "author": strings.Repeat("a", 256)},
		"long tag":          {"title": "x", "tags": []string{strings.Repeat("t", 256)}},
		"tags a string":     {"title": "x", "tags": "a,b"},
		"long excerpt":      {"title": "x", "excerpt": strings.Repeat("e", 1001)},
		"image not ours":    {"title": "x", "image_src": theirs["src"]},
		"image elsewhere":   {"title": "x", "image_src": "https://example.com/cat.png"},
		"image a path":      {"title": "x", "image_src": strings.TrimPrefix(up["src"].(string), e.URL)},
		"published_at text": {"title": "x", "published_at": "next week"},
	}
	for name, b := range common {
		article[name] = b
	}
	expectEach400(t, e, admin, "article", http.MethodPost, "/store/articles", article)
	expectEach400(t, e, admin, "article", http.MethodPut, ctArticlePath(articleID), article)
	r := e.Do(http.MethodPost, "/store/articles", admin, map[string]any{"title": "x", "image_src": theirs["src"]}).Expect(t, 400)
	if !strings.Contains(r.Message(), "image_src must be the src of an image uploaded to this store") {
		t.Fatalf("foreign image: %s", r.Raw)
	}
	// Nothing was written.
	if _, total, _ := ctArticles.list(t, e, admin, ""); total != 1 {
		t.Fatalf("%d articles after refusals", total)
	}
	if rows, _ := ctPageList(t, e, admin, ""); len(rows) != 1 || rows[0]["title"] != "Terms" {
		t.Fatalf("pages after refusals: %v", rows)
	}
	_ = s
}

// TestArticles: the life of blog articles: 201 on create, tags, the
// derived excerpt that follows the body until one is written, an uploaded
// image with its ThumbHash, handles (409 when taken), filters and total.
func TestArticles(t *testing.T) {
	e, s, admin := newAcme(t)
	img := ctUpload(t, e, admin, "cover.png")

	body := "<h1>Winter</h1><p>Wool &amp; alpaca,<br>knitted   by hand.</p><script>track()</script><style>p{}</style>" +
		"<p>" + strings.Repeat("Warm socks for cold days. ", 12) + "</p>"
	a := ctArticles.create(t, e, admin, map[string]any{"title": "Winter is here", "body_html": body, "author": " Ana Lima ",
		"tags": []string{" wool", "Wool", "", "socks "}, "image_src": img["src"], "published": true})
	aID := idOf(t, a)
	if a["handle"] != "winter-is-here" || a["author"] != "Ana Lima" || !reflect.DeepEqual(a["tags"], []any{"wool", "socks"}) ||
		a["image_src"] != img["src"] || a["image_thumbhash"] != img["thumbhash"] || a["image_thumbhash"] == "" || a["published"] != true {
		t.Fatalf("created %v", a)
	}
	ex := a["excerpt"].(string)
	if !strings.HasPrefix(ex, "Winter Wool & alpaca, knitted by hand. Warm socks for cold days. Warm") || !strings.HasSuffix(ex, "…") ||
		len([]rune(ex)) > models.ExcerptLength || strings.Contains(ex, "track") || strings.HasSuffix(ex, " …") || strings.HasSuffix(ex, "da…") {
		t.Fatalf("derived excerpt %q", ex)
	}
	_, get := ctArticles.get(t, e, admin, aID)
	e.SameOnGraphQL(t, get, admin, "GetArticle", map[string]any{"id": aID})

	// A derived excerpt follows the body; a written one stays.
	u, _ := ctArticles.put(t, e, admin, aID, map[string]any{"body_html": "<p>Short now.</p>"})
	if u["excerpt"] != "Short now." {
		t.Fatalf("excerpt after a body change: %q", u["excerpt"])
	}
	g := e.GraphQL(admin, `mutation($id: Int!) { updateArticle(id: $id, input: {excerpt: " Our winter range. "}) { excerpt } }`, map[string]any{"id": aID})
	if ga, _ := g.Data()["updateArticle"].(map[string]any); ga["excerpt"] != "Our winter range." {
		t.Fatalf("written excerpt: %s", g.Raw)
	}
	_, get = ctArticles.get(t, e, admin, aID)
	e.SameOnGraphQL(t, get, admin, "GetArticle", map[string]any{"id": aID})
	if u, _ = ctArticles.put(t, e, admin, aID, map[string]any{"body_html": "<p>Longer again.</p>"}); u["excerpt"] != "Our winter range." {
		t.Fatalf("a written excerpt followed the body: %q", u["excerpt"])
	}
	if u, _ = ctArticles.put(t, e, admin, aID, map[string]any{"excerpt": ""}); u["excerpt"] != "Longer again." {
		t.Fatalf("an empty excerpt is derived: %q", u["excerpt"])
	}
	// The image goes with an empty src; tags are replaced when sent.
	if u, _ = ctArticles.put(t, e, admin, aID, map[string]any{"image_src": "", "tags": []string{"news"}}); u["image_src"] != "" || u["image_thumbhash"] != "" ||
		!reflect.DeepEqual(u["tags"], []any{"news"}) {
		t.Fatalf("image removed: %v", u)
	}

	// Handles: generated with a suffix; a taken one sent is the spec's 409.
	two := ctArticles.create(t, e, admin, map[string]any{"title": "Winter is here!", "author": "Bo", "tags": []string{"wool"}})
	if two["handle"] != "winter-is-here-2" || two["published"] != false || two["excerpt"] != "" || !reflect.DeepEqual(two["tags"], []any{"wool"}) {
		t.Fatalf("second %v", two)
	}
	r := e.Do(http.MethodPost, "/store/articles", admin, map[string]any{"title": "Again", "handle": "winter-is-here"}).Expect(t, 409)
	if !strings.Contains(r.Message(), `another article already has the handle "winter-is-here"`) {
		t.Fatalf("409: %s", r.Raw)
	}
	e.Do(http.MethodPut, ctArticlePath(idOf(t, two)), admin, map[string]any{"handle": "winter-is-here"}).Expect(t, 409)
	expectGraphQLCode(t, e, admin, "CONFLICT", nil, `mutation { createArticle(input: {title: "x", handle: "winter-is-here"}) { id } }`)
	old := ctArticles.create(t, e, admin, map[string]any{"title": "Autumn notes", "author": "ana lima", "published_at": "2025-10-01T08:00:00Z", "tags": []string{"socks"}})
	sched := ctArticles.create(t, e, admin, map[string]any{"title": "Spring preview", "published_at": time.Now().Add(24 * time.Hour).UTC().Format(time.RFC3339)})

	// The list: drafts, then by published_at, latest first; total ignores
	// paging; filters combine.
	rows, total, list := ctArticles.list(t, e, admin, "")
	if ids := rowIDs(rows); total != 4 || !slices.Equal(ids, []int64{idOf(t, two), idOf(t, sched), aID, idOf(t, old)}) {
		t.Fatalf("list %v total %d", ctHandles(rows), total)
	}
	e.SameOnGraphQL(t, list, admin, "ListArticles", nil)
	for q, want := range map[string][]int64{
		"tag=wool":                      {idOf(t, two)},
		"tag=socks":                     {idOf(t, old)},
		"author=ANA%20LIMA":             {aID, idOf(t, old)},
		"q=lima":                        {aID, idOf(t, old)},
		"q=winter":                      {idOf(t, two), aID},
		"published=true":                {aID, idOf(t, old)},
		"published=false":               {idOf(t, two), idOf(t, sched)},
		"published=true&author=bo":      {},
		"published=true&limit=1":        {aID},
		"published=true&offset=1":       {idOf(t, old)},
		"tag=wool&tag_ignored=1&q=x":    nil,
		"author=ana%20lima&q=autumn":    {idOf(t, old)},
		"published=maybe":               nil,
		"limit=0":                       nil,
		"q=" + strings.Repeat("q", 256): nil,
	} {
		if want == nil {
			e.Do(http.MethodGet, "/store/articles?"+q, admin, nil).Expect(t, 400)
			continue
		}
		rows, total, list := ctArticles.list(t, e, admin, q)
		if ids := rowIDs(rows); !slices.Equal(ids, want) {
			t.Fatalf("%s: %v, want %v", q, ids, want)
		}
		if !strings.Contains(q, "limit") && !strings.Contains(q, "offset") && total != int64(len(want)) {
			t.Fatalf("%s: total %d", q, total)
		}
		if q == "published=true&limit=1" && total != 2 {
			t.Fatalf("total ignores limit: %d", total)
		}
		if q == "author=ANA%20LIMA" {
			e.SameOnGraphQL(t, list, admin, "ListArticles", map[string]any{"filter": map[string]any{"author": "ANA LIMA"}})
		}
	}

	// Another store's article is not found.
	o := e.Store("Other")
	theirs := idOf(t, ctArticles.create(t, e, e.Key(o.ID, auth.RoleAdmin), map[string]any{"title": "Winter is here"}))
	for _, c := range []apitest.Call{{Method: http.MethodGet, Path: ctArticlePath(theirs)},
		{Method: http.MethodPut, Path: ctArticlePath(theirs), Body: map[string]any{"title": "Mine"}},
		{Method: http.MethodDelete, Path: ctArticlePath(theirs)}} {
		e.Do(c.Method, c.Path, admin, c.Body).Expect(t, 404)
	}
	expectGraphQLNotFound(t, e, admin, `query($id: Int!) { article(id: $id) { id } }`, map[string]any{"id": theirs})

	expectAuditRecord(t, e, admin, "action=createArticle&limit=1", "article", idOf(t, sched))
	expectBareDelete(t, e, admin, ctArticlePath(aID))
	e.Do(http.MethodGet, ctArticlePath(aID), admin, nil).Expect(t, 404)
	if _, total, _ := ctArticles.list(t, e, admin, ""); total != 3 {
		t.Fatalf("after delete: %d", total)
	}
	_ = s
}

// TestContentAccess: the scope and role gates of pages (pages) and
// articles (blog).
func TestContentAccess(t *testing.T) {
	e, s, admin := newAcme(t)
	page := ctPagePath(idOf(t, ctPages.create(t, e, admin, map[string]any{"title": "About"})))
	article := ctArticlePath(idOf(t, ctArticles.create(t, e, admin, map[string]any{"title": "News"})))
	body := map[string]any{"title": "New"}
	checkAccess(t, e, s.ID, "pages", map[string]string{"blog:write": e.Key(s.ID, auth.RoleAdmin, "blog:write")},
		[]apitest.Call{{Method: http.MethodGet, Path: "/store/pages"}, {Method: http.MethodGet, Path: page}},
		[]apitest.Call{{Method: http.MethodPost, Path: "/store/pages", Body: body}, {Method: http.MethodPut, Path: page, Body: body},
			{Method: http.MethodPost, Path: "/store/pages", Body: "{not json"}, {Method: http.MethodDelete, Path: page}})
	checkAccess(t, e, s.ID, "blog", map[string]string{"pages:write": e.Key(s.ID, auth.RoleAdmin, "pages:write")},
		[]apitest.Call{{Method: http.MethodGet, Path: "/store/articles"}, {Method: http.MethodGet, Path: article}},
		[]apitest.Call{{Method: http.MethodPost, Path: "/store/articles", Body: body}, {Method: http.MethodPut, Path: article, Body: body},
			{Method: http.MethodDelete, Path: article}})
	// The refused writes changed nothing.
	if rows, _ := ctPageList(t, e, admin, ""); len(rows) != 1 || rows[0]["title"] != "About" {
		t.Fatalf("pages: %v", rows)
	}
	if rows, total, _ := ctArticles.list(t, e, admin, ""); total != 1 || rows[0]["title"] != "News" {
		t.Fatalf("articles: %v", rows)
	}
	expectUnauthorized(t, e, s.ID, http.MethodGet, "/store/articles", nil)
}

// TestArticleListStatements: a page of articles costs the same statements
// for 5 articles and for 60, on both surfaces.
func TestArticleListStatements(t *testing.T) {
	e, _, admin := newAcme(t)
	count := countStatements(e)
	live := 0 // articles published
	add := func(n int) {
		for i := range n {
			if i%2 == 0 {
				live++
			}
			ctArticles.create(t, e, admin, map[string]any{"title": fmt.Sprintf("Post %d", i), "tags": []string{"a"}, "published": i%2 == 0})
		}
	}
	measure := func() (int64, int64) {
		rest := count(func() { e.Do(http.MethodGet, "/store/articles?limit=100&tag=a", admin, nil).Expect(t, 200) })
		var g *apitest.Response
		gql := count(func() {
			g = e.GraphQL(admin, `{ articles(limit: 100) { id handle published excerpt } pages { id published } }`, nil)
		})
		// published is read from published_at, which the operation does
		// not name: the statement must read it all the same.
		published := 0
		for _, a := range objectsOf(g.Data()["articles"]) {
			if a["published"] == true {
				published++
			}
		}
		if published != live {
			t.Fatalf("%d articles published, want %d: %s", published, live, g.Raw)
		}
		return rest, gql
	}
	add(5)
	r5, g5 := measure()
	add(55)
	r60, g60 := measure()
	if r5 != r60 || g5 != g60 {
		t.Fatalf("statements: REST %d for 5, %d for 60; GraphQL %d, %d", r5, r60, g5, g60)
	}
}
