package apitest_test

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"testing"

	"storeadmin/internal/app/apitest"
	"storeadmin/internal/auth"
)

// The fields of the spec's URLRedirectView and URLRedirectOwnerView, exactly.
var (
	rdKeys      = []string{"created_at", "id", "path", "shadowed_by", "source", "target", "updated_at"}
	rdOwnerKeys = []string{"handle", "kind", "title"}
)

func rdPath(id int64) string { return "/store/redirects/" + strconv.FormatInt(id, 10) }

// rdView checks v against URLRedirectView and returns it.
func rdView(t *testing.T, v any) map[string]any {
	t.Helper()
	m := objectWithKeys(t, "redirect", v, rdKeys)
	if id := wholeNumber(t, m["id"]); id <= 0 {
		t.Fatalf("redirect id %d", id)
	}
	for _, k := range []string{"created_at", "path", "source", "target", "updated_at"} {
		stringField(t, m, k)
	}
	if m["shadowed_by"] != nil {
		o := objectWithKeys(t, "shadowed_by", m["shadowed_by"], rdOwnerKeys)
		for _, k := range rdOwnerKeys {
			stringField(t, o, k)
		}
	}
	return m
}

// rdRedirects is the REST resource of URL redirects.
var rdRedirects = crudResource{path: "/store/redirects", item: rdPath, one: "redirect", many: "redirects", view: rdView}

// rdCreate creates a redirect from path to target and returns its id.
func rdCreate(t *testing.T, e *apitest.Env, key, path, target string) int64 {
	t.Helper()
	return idOf(t, rdRedirects.create(t, e, key, map[string]any{"path": path, "target": target}))
}

// rdPaths lists the store's redirects as "path → target (source)", by path.
func rdPaths(t *testing.T, e *apitest.Env, key, query string) []string {
	t.Helper()
	rows, total, _ := rdRedirects.list(t, e, key, query)
	if int64(len(rows)) != total {
		t.Fatalf("listed %d redirects of %d: page the check", len(rows), total)
	}
	var out []string
	for _, r := range rows {
		out = append(out, fmt.Sprintf("%s → %s (%s)", r["path"], r["target"], r["source"]))
	}
	slices.Sort(out)
	return out
}

// TestURLRedirects: the life of redirects over REST, paths normalised, with
// the same answers on GraphQL.
func TestURLRedirects(t *testing.T) {
	e, s, admin := newAcme(t)
	reader := e.Key(s.ID, auth.RoleStaff, "navigation:read")
	// The store's own domain: a full URL on it is cut to its path.
	if _, err := e.DB.ExecContext(context.Background(), `INSERT INTO domains (store_id, hostname, verification_token) VALUES (?, 'shop.acme.example', 't')`, s.ID); err != nil {
		t.Fatal(err)
	}

	created := rdRedirects.create(t, e, admin, map[string]any{"path": " old-shop/hats/?b=2&a=1&b=2 ", "target": "HTTPS://Shop.Acme.example/collections/hats/#top"})
	if created["path"] != "/old-shop/hats?a=1&b=2" || created["target"] != "/collections/hats#top" || created["source"] != "manual" ||
		created["shadowed_by"] != nil || created["created_at"] != created["updated_at"] {
		t.Fatalf("created %v", created)
	}
	hats := idOf(t, created)
	away := rdRedirects.create(t, e, admin, map[string]any{"path": "https://shop.acme.example/instagram", "target": "https://Www.Instagram.com/Acme?x=1"})
	if away["path"] != "/instagram" || away["target"] != "https://www.instagram.com/Acme?x=1" {
		t.Fatalf("external target %v", away)
	}
	awayID := idOf(t, away)
	cafe := rdCreate(t, e, admin, "/café", "/pages/coffee")

	// Read, list, page: newest first, the same on GraphQL.
	got, get := rdRedirects.get(t, e, reader, hats)
	if got["path"] != "/old-shop/hats?a=1&b=2" {
		t.Fatalf("get %v", got)
	}
	e.SameOnGraphQL(t, get, reader, "GetURLRedirect", map[string]any{"id": hats})
	rows, total, list := rdRedirects.list(t, e, reader, "")
	if ids := rowIDs(rows); total != 3 || !slices.Equal(ids, []int64{cafe, awayID, hats}) {
		t.Fatalf("list %v (total %d)", ids, total)
	}
	if rows[0]["path"] != "/caf%C3%A9" {
		t.Fatalf("a path's letters are percent-encoded: %v", rows[0]["path"])
	}
	e.SameOnGraphQL(t, list, reader, "ListURLRedirects", nil)
	_, _, page := rdRedirects.list(t, e, reader, "limit=1&offset=1")
	if ids := rowIDs(objectsOf(page.List("redirects"))); !slices.Equal(ids, []int64{awayID}) || page.Body["total"] != float64(3) {
		t.Fatalf("page: %s", page.Raw)
	}
	e.SameOnGraphQL(t, page, reader, "ListURLRedirects", map[string]any{"limit": 1, "offset": 1})

	// Filters: q over path and target, source, the created range.
	if _, total, _ := rdRedirects.list(t, e, reader, "q=INSTAGRAM"); total != 1 {
		t.Fatalf("q: total %d", total)
	}
	if _, total, _ := rdRedirects.list(t, e, reader, "q=hats&source=manual"); total != 1 {
		t.Fatalf("q and source: total %d", total)
	}
	if _, total, _ := rdRedirects.list(t, e, reader, "source=import"); total != 0 {
		t.Fatalf("source import: total %d", total)
	}
	if _, err := e.DB.ExecContext(context.Background(), `UPDATE url_redirects SET created_at = '2026-03-15T12:00:00Z' WHERE id = ?`, hats); err != nil {
		t.Fatal(err)
	}
	for query, want := range map[string][]int64{
		"created_from=2026-03-15&created_to=2026-03-15":                  {hats},
		"created_to=2026-03-14":                                          nil,
		"created_from=2026-03-15T12:00:01Z":                              {cafe, awayID},
		"created_from=2026-03-01&created_to=2026-03-15T12:00:00%2B00:00": {hats},
	} {
		rows, _, r := rdRedirects.list(t, e, reader, query)
		if ids := rowIDs(rows); !slices.Equal(ids, want) {
			t.Fatalf("%s: %v, want %v", query, ids, want)
		}
		e.SameOnGraphQL(t, r, reader, "ListURLRedirects", map[string]any{"filter": queryFilter(t, query)})
	}
	if g := e.GraphQL(reader, `{ urlRedirectsCount(filter: {source: "manual"}) }`, nil); g.Data()["urlRedirectsCount"] != float64(3) {
		t.Fatalf("urlRedirectsCount: %s", g.Raw)
	}

	// Updates merge, and make the redirect manual.
	u, _ := rdRedirects.put(t, e, admin, hats, map[string]any{"target": "/collections/caps"})
	if u["path"] != "/old-shop/hats?a=1&b=2" || u["target"] != "/collections/caps" || u["source"] != "manual" {
		t.Fatalf("target only: %v", u)
	}
	u, _ = rdRedirects.put(t, e, admin, hats, map[string]any{"path": "/hats"})
	if u["path"] != "/hats" || u["target"] != "/collections/caps" {
		t.Fatalf("path only: %v", u)
	}
	// A record read can be sent back.
	rdRedirects.put(t, e, admin, hats, u)

	// GraphQL creates answer the REST shape.
	g := e.GraphQL(admin, `mutation { createURLRedirect(input: {path: "/gifts/", target: "/collections/gifts"}) { path target source shadowed_by { kind } } }`, nil)
	if gr, _ := g.Data()["createURLRedirect"].(map[string]any); g.Body["errors"] != nil || gr["path"] != "/gifts" || gr["source"] != "manual" {
		t.Fatalf("GraphQL createURLRedirect: %s", g.Raw)
	}

	expectAuditRecord(t, e, admin, "action=updateURLRedirect&limit=1", "url_redirect", hats)

	// Delete answers the bare envelope.
	expectBareDelete(t, e, admin, rdPath(cafe))
	e.Do(http.MethodGet, rdPath(cafe), admin, nil).Expect(t, 404)
	e.Do(http.MethodPut, rdPath(cafe), admin, map[string]any{"target": "/x"}).Expect(t, 404)
	e.Do(http.MethodDelete, rdPath(cafe), admin, nil).Expect(t, 404)
	expectGraphQLCode(t, e, admin, "NOT_FOUND", map[string]any{"id": cafe}, `mutation($id: Int!) { deleteURLRedirect(id: $id) }`, `query($id: Int!) { urlRedirect(id: $id) { id } }`)
}

// queryFilter is a list's query string as the GraphQL filter it binds to.
func queryFilter(t *testing.T, query string) map[string]any {
	t.Helper()
	f := map[string]any{}
	for kv := range strings.SplitSeq(query, "&") {
		k, v, _ := strings.Cut(kv, "=")
		f[k] = strings.ReplaceAll(v, "%2B", "+")
	}
	return f
}

// TestURLRedirectRules: each bad path or target is a 400 naming its field,
// a redirect to itself and a loop of any length too, and a path's second
// redirect a 409; nothing refused is written.
func TestURLRedirectRules(t *testing.T) {
	e, _, admin := newAcme(t)
	a := rdCreate(t, e, admin, "/a", "/b")
	rdCreate(t, e, admin, "/b", "/c")
	x := rdCreate(t, e, admin, "/x", "https://elsewhere.example/x")

	for name, c := range map[string]struct {
		body  map[string]any
		field string
		msg   string
	}{
		"no path":       {map[string]any{"target": "/b"}, "path", "path must not be empty"},
		"no target":     {map[string]any{"path": "/q"}, "target", "target must not be empty"},
		"blank path":    {map[string]any{"path": "  ", "target": "/b"}, "path", "path must not be empty"},
		"home page":     {map[string]any{"path": "/", "target": "/b"}, "path", "path must not be the home page, which the storefront always answers"},
		"fragment":      {map[string]any{"path": "/q#x", "target": "/b"}, "path", "path must not have a #fragment"},
		"another host":  {map[string]any{"path": "https://elsewhere.example/q", "target": "/b"}, "path", "path must be a path of this store, and elsewhere.example is not one of its domains"},
		"no scheme":     {map[string]any{"path": "/q", "target": "//elsewhere.example/q"}, "target", "target must start with the scheme (https://)"},
		"mailto":        {map[string]any{"path": "/q", "target": "mailto:ana@example.com"}, "target", "target must be a path (/sale) or an http or https URL, not a mailto: address"},
		"ftp":           {map[string]any{"path": "/q", "target": "ftp://elsewhere.example/q"}, "target", "not a ftp: address"},
		"control":       {map[string]any{"path": "/q\nr", "target": "/b"}, "path", "must not contain control characters"},
		"bad escape":    {map[string]any{"path": "/q%zz", "target": "/b"}, "path", "path is not a well-formed path"},
		"bad query":     {map[string]any{"path": "/q?a=%zz", "target": "/b"}, "path", "query parameter that is not well-formed"},
		"too long":      {map[string]any{"path": "/" + strings.Repeat("a", 1024), "target": "/b"}, "path", "path must be at most 1024 bytes"},
		"self":          {map[string]any{"path": "/q/", "target": "/q#top"}, "target", "target must not be the path itself"},
		"self, own URL": {map[string]any{"path": "/q?b=1&a=2", "target": "/q?a=2&b=1"}, "target", "target must not be the path itself"},
		"loop of three": {map[string]any{"path": "/c", "target": "/a"}, "target", "target would close a loop of redirects, which shoppers would follow forever: /c → /a → /b → /c"},
		"unknown field": {map[string]any{"path": "/q", "target": "/b", "from": "/r"}, "from", "from is not a field this input takes"},
		"not a string":  {map[string]any{"path": 5, "target": "/b"}, "path", "path must be a string"},
	} {
		r := e.Do(http.MethodPost, "/store/redirects", admin, c.body).Expect(t, 400)
		if !strings.HasPrefix(r.Message(), c.field+" ") || !strings.Contains(r.Message(), c.msg) {
			t.Errorf("%s: %s", name, r.Raw)
		}
	}
	// A path's second redirect, however it is written, is a conflict naming the first.
	r := e.Do(http.MethodPost, "/store/redirects", admin, map[string]any{"path": "a/", "target": "/z"}).Expect(t, 409)
	if r.Message() != fmt.Sprintf("the path /a already has a redirect (id %d); change that one instead", a) {
		t.Fatalf("conflict: %s", r.Raw)
	}
	e.Do(http.MethodPut, rdPath(x), admin, map[string]any{"path": "/b"}).Expect(t, 409)
	// Updates meet the loop rule too: /x moved to /c, to /a, would loop.
	r = e.Do(http.MethodPut, rdPath(x), admin, map[string]any{"path": "/c", "target": "/a"}).Expect(t, 400)
	if r.Message() != "target would close a loop of redirects, which shoppers would follow forever: /c → /a → /b → /c" {
		t.Fatalf("update to a loop: %s", r.Raw)
	}
	expectGraphQLCode(t, e, admin, "BAD_USER_INPUT", nil, `mutation { createURLRedirect(input: {path: "/c", target: "/a"}) { id } }`)
	if got := rdPaths(t, e, admin, ""); !slices.Equal(got, []string{"/a → /b (manual)", "/b → /c (manual)", "/x → https://elsewhere.example/x (manual)"}) {
		t.Fatalf("a refused write was written: %v", got)
	}
	// A redirect's own row is not part of its loop: /a may move to /c, and
	// /b may point back to /a once /a no longer leads to it.
	rdRedirects.put(t, e, admin, a, map[string]any{"target": "/d"})
	rdCreate(t, e, admin, "/c", "/a")
	// The filters refuse what they cannot read.
	for query, field := range map[string]string{"source=robot": "source", "created_from=yesterday": "created_from", "created_to=2026-02-30": "created_to",
		"created_from=2026-03-02&created_to=2026-03-01": "created_to"} {
		if r := e.Do(http.MethodGet, "/store/redirects?"+query, admin, nil).Expect(t, 400); !strings.HasPrefix(r.Message(), field+" ") {
			t.Errorf("%s: %s", query, r.Raw)
		}
	}
}

// TestURLRedirectShadowedBy: a redirect from a path a live product,
// collection, page or article answers names it; drafts, unpublished and
// scheduled records and other stores' do not shadow; a list reads them in
// a fixed number of statements whatever its length.
func TestURLRedirectShadowedBy(t *testing.T) {
	e, s, admin := newAcme(t)
	ctx := context.Background()
	createSimpleProduct(t, e, admin, "Mug", 1200, map[string]any{"handle": "mug", "status": "active"})
	createSimpleProduct(t, e, admin, "Cup", 900, map[string]any{"handle": "cup", "status": "draft"})
	e.Do(http.MethodPost, "/store/collections", admin, map[string]any{"title": "Kitchen", "handle": "kitchen", "published": true}).Expect(t, 201)
	e.Do(http.MethodPost, "/store/collections", admin, map[string]any{"title": "Later", "handle": "later", "published": false}).Expect(t, 201)
	other := e.Store("Other")
	insertProduct(t, e, other.ID, "teapot")
	for _, q := range []string{
		`INSERT INTO pages (store_id, handle, title, published_at) VALUES (?0, 'about', 'About us', now() - interval '1 day')`,
		`INSERT INTO pages (store_id, handle, title) VALUES (?0, 'hidden', 'Hidden')`,
		`INSERT INTO articles (store_id, handle, title, published_at) VALUES (?0, 'hello', 'Hello world', now() - interval '1 hour')`,
		`INSERT INTO articles (store_id, handle, title, published_at) VALUES (?0, 'soon', 'Soon', now() + interval '1 day')`,
	} {
		if _, err := e.DB.NewRaw(q, s.ID).Exec(ctx); err != nil {
			t.Fatal(err)
		}
	}
	kitchen := map[string]any{"kind": "collection", "handle": "kitchen", "title": "Kitchen"}
	for _, c := range []struct {
		path, stored string
		owner        any
	}{
		{"/products/mug?variant=1", "/products/mug?variant=1", map[string]any{"kind": "product", "handle": "mug", "title": "Mug"}},
		{"/products/cup", "/products/cup", nil},       // a draft
		{"/products/teapot", "/products/teapot", nil}, // another store's
		{"/products/mug/reviews", "/products/mug/reviews", nil},
		{"/collections/kitchen", "/collections/kitchen", kitchen},
		{"/collections/later", "/collections/later", nil}, // unpublished
		{"/pages/about/", "/pages/about", map[string]any{"kind": "page", "handle": "about", "title": "About us"}},
		{"/pages/hidden", "/pages/hidden", nil},
		{"/blog/hello", "/blog/hello", map[string]any{"kind": "article", "handle": "hello", "title": "Hello world"}},
		{"/blog/soon", "/blog/soon", nil}, // scheduled
		{"/mug", "/mug", nil},
	} {
		v := rdRedirects.create(t, e, admin, map[string]any{"path": c.path, "target": "/somewhere-else"})
		if v["path"] != c.stored || !equalJSON(v["shadowed_by"], c.owner) {
			t.Errorf("created %s: %v, shadowed_by %v, want %v", c.path, v["path"], v["shadowed_by"], c.owner)
		}
		if got := rdRedirects.byID(t, e, admin, idOf(t, v)); !equalJSON(got["shadowed_by"], c.owner) {
			t.Errorf("listed %s: shadowed_by %v, want %v", c.path, got["shadowed_by"], c.owner)
		}
	}
	_, _, list := rdRedirects.list(t, e, admin, "")
	e.SameOnGraphQL(t, list, admin, "ListURLRedirects", nil)

	// One statement for the owners of a page, whatever its length.
	count := countStatements(e)
	statements := map[int]int64{}
	for _, n := range []int{2, 11} {
		statements[n] = count(func() {
			if r := e.Do(http.MethodGet, "/store/redirects?limit="+strconv.Itoa(n), admin, nil).Expect(t, 200); len(r.List("redirects")) != n {
				t.Fatalf("listed %d, want %d", len(r.List("redirects")), n)
			}
		})
	}
	if statements[2] != statements[11] {
		t.Fatalf("2 redirects cost %d statements, 11 cost %d", statements[2], statements[11])
	}
	t.Logf("%d statements", statements[11])
}

// equalJSON compares two decoded JSON values.
func equalJSON(a, b any) bool { return fmt.Sprint(a) == fmt.Sprint(b) }

// TestURLRedirectAutomatic: a product's or collection's changed handle
// leaves a working automatic redirect from the old path, replacing one of
// the old path and dropping one from the new path, so changing it back
// makes no loop.
func TestURLRedirectAutomatic(t *testing.T) {
	e, _, admin := newAcme(t)
	mug := createSimpleProduct(t, e, admin, "Mug", 1200, map[string]any{"handle": "mug", "status": "active"})
	manual := rdCreate(t, e, admin, "/products/big-mug", "/collections/all") // shadowed once the mug moves there
	rdCreate(t, e, admin, "/products/mug", "/collections/mugs")              // shadowed now, replaced then

	putProduct(t, e, admin, mug, map[string]any{"handle": "big-mug"})
	rows, _, _ := rdRedirects.list(t, e, admin, "source=automatic")
	if len(rows) != 1 || rows[0]["path"] != "/products/mug" || rows[0]["target"] != "/products/big-mug" || rows[0]["shadowed_by"] != nil {
		t.Fatalf("automatic redirects %v", rows)
	}
	e.Do(http.MethodGet, rdPath(manual), admin, nil).Expect(t, 404)
	// The redirect works: its target is the live product's path.
	if p, _ := getProduct(t, e, admin, mug); "/products/"+p["handle"].(string) != rows[0]["target"] {
		t.Fatalf("the target is not the product's path: %v", p["handle"])
	}
	// Other fields leave redirects alone.
	putProduct(t, e, admin, mug, map[string]any{"title": "Big mug"})
	if _, total, _ := rdRedirects.list(t, e, admin, ""); total != 1 {
		t.Fatalf("a title change touched redirects: total %d", total)
	}
	// Back to the first handle: the redirect turns round, no loop.
	putProduct(t, e, admin, mug, map[string]any{"handle": "mug"})
	if got := rdPaths(t, e, admin, ""); !slices.Equal(got, []string{"/products/big-mug → /products/mug (automatic)"}) {
		t.Fatalf("after moving back: %v", got)
	}

	// Collections too, through GraphQL.
	c := e.Do(http.MethodPost, "/store/collections", admin, map[string]any{"title": "Kitchen", "handle": "kitchen", "published": true}).Expect(t, 201)
	cid := idOf(t, c.Obj("collection"))
	e.Do(http.MethodPut, "/store/collections/"+strconv.FormatInt(cid, 10), admin, map[string]any{"handle": "kitchenware"}).Expect(t, 200)
	if got := rdPaths(t, e, admin, "source=automatic"); !slices.Equal(got, []string{"/collections/kitchen → /collections/kitchenware (automatic)", "/products/big-mug → /products/mug (automatic)"}) {
		t.Fatalf("after a collection's move: %v", got)
	}
	// A refused update leaves no redirect.
	createSimpleProduct(t, e, admin, "Cup", 900, map[string]any{"handle": "cup"})
	e.Do(http.MethodPut, productPath(mug), admin, map[string]any{"handle": "cup"}).Expect(t, 409)
	if _, total, _ := rdRedirects.list(t, e, admin, ""); total != 2 {
		t.Fatalf("a refused handle change left a redirect: total %d", total)
	}

	// Pages and blog articles too.
	page := idOf(t, e.Do(http.MethodPost, "/store/pages", admin, map[string]any{"title": "About", "handle": "about"}).Expect(t, 201).Obj("page"))
	e.Do(http.MethodPut, "/store/pages/"+strconv.FormatInt(page, 10), admin, map[string]any{"handle": "about-us"}).Expect(t, 200)
	article := idOf(t, e.Do(http.MethodPost, "/store/articles", admin, map[string]any{"title": "Hello", "handle": "hello"}).Expect(t, 201).Obj("article"))
	e.Do(http.MethodPut, "/store/articles/"+strconv.FormatInt(article, 10), admin, map[string]any{"handle": "hello-world"}).Expect(t, 200)
	if got := rdPaths(t, e, admin, "source=automatic"); !slices.Contains(got, "/pages/about → /pages/about-us (automatic)") ||
		!slices.Contains(got, "/blog/hello → /blog/hello-world (automatic)") || len(got) != 4 {
		t.Fatalf("after a page's and an article's move: %v", got)
	}
}

// TestURLRedirectBulkDelete: by ids (other stores' and unknown ids
// ignored) and by all_matching a filter, or all; bad requests are 400s
// that delete nothing.
func TestURLRedirectBulkDelete(t *testing.T) {
	e, _, admin := newAcme(t)
	var ids []int64
	for i := range 6 {
		ids = append(ids, rdCreate(t, e, admin, fmt.Sprintf("/old/%d", i), "/new"))
	}
	o := e.Store("Other")
	theirs := rdCreate(t, e, e.Key(o.ID, auth.RoleAdmin), "/old/0", "/new")
	if _, err := e.DB.ExecContext(context.Background(), `UPDATE url_redirects SET source = 'import' WHERE id IN (?, ?)`, ids[4], ids[5]); err != nil {
		t.Fatal(err)
	}
	expectEach400(t, e, admin, "bulk delete", http.MethodPost, "/store/redirects/bulk-delete", map[string]any{
		"nothing":               map[string]any{},
		"empty ids":             map[string]any{"ids": []int64{}},
		"both":                  map[string]any{"ids": []int64{ids[0]}, "all_matching": true},
		"filter without all":    map[string]any{"source": "import"},
		"bad source":            map[string]any{"all_matching": true, "source": "robot"},
		"bad date":              map[string]any{"all_matching": true, "created_from": "May"},
		"too many":              map[string]any{"ids": make([]int64, 501)},
		"unknown field":         map[string]any{"ids": []int64{ids[0]}, "everything": true},
		"all_matching not bool": map[string]any{"all_matching": "yes"},
	})
	r := e.Do(http.MethodPost, "/store/redirects/bulk-delete", admin, map[string]any{"ids": []int64{ids[0], ids[1], theirs, 999999}}).Expect(t, 200)
	expectPayload(t, r, "deleted", "ids")
	if r.Body["deleted"] != float64(2) || !slices.Equal(wholeNumbers(t, r.Body["ids"]), ids[:2]) {
		t.Fatalf("by ids: %s", r.Raw)
	}
	e.SameOnGraphQL(t, e.Do(http.MethodPost, "/store/redirects/bulk-delete", admin, map[string]any{"ids": []int64{999999}}).Expect(t, 200),
		admin, "BulkDeleteURLRedirects", map[string]any{"input": map[string]any{"ids": []int64{999999}}})
	r = e.Do(http.MethodPost, "/store/redirects/bulk-delete", admin, map[string]any{"all_matching": true, "source": "import", "q": "old"}).Expect(t, 200)
	if r.Body["deleted"] != float64(2) || !slices.Equal(wholeNumbers(t, r.Body["ids"]), ids[4:]) {
		t.Fatalf("all matching import: %s", r.Raw)
	}
	r = e.Do(http.MethodPost, "/store/redirects/bulk-delete", admin, map[string]any{"all_matching": true}).Expect(t, 200)
	if r.Body["deleted"] != float64(2) || !slices.Equal(wholeNumbers(t, r.Body["ids"]), ids[2:4]) {
		t.Fatalf("all matching: %s", r.Raw)
	}
	if _, total, _ := rdRedirects.list(t, e, e.Key(o.ID, auth.RoleAdmin), ""); total != 1 {
		t.Fatalf("another store's redirects were deleted: %d left", total)
	}
}

// TestURLRedirectSheet: the import creates and updates by path and reports
// each refused row (the API's rules, loops with the rows before it
// included); the export is a path,target CSV that imports back unchanged;
// Shopify's columns are read.
func TestURLRedirectSheet(t *testing.T) {
	e, s, admin := newAcme(t)
	kept := rdCreate(t, e, admin, "/kept", "/old-target")
	headers := map[string]string{"Content-Type": "text/csv"}
	sheet := "path,target\n" +
		"/kept/,/new-target\n" + // 2: updates
		"/a,/b\n" + // 3
		"/b,/c\n" + // 4
		"/c,/a\n" + // 5: closes a loop with rows 3 and 4
		",/x\n" + // 6: no path
		"/self,/self?\n" + // 7: to itself
		"/a,/d\n" + // 8: row 3's path again
		"https://elsewhere.example/q,/x\n" + // 9: another host
		"/shop?b=1&a=2,https://elsewhere.example/shop\n" // 10
	rep := e.DoHeaders(http.MethodPost, "/store/redirects/import", admin, sheet, headers).Expect(t, 200)
	expectPayload(t, rep, "created", "errors", "updated")
	if rep.Body["created"] != float64(3) || rep.Body["updated"] != float64(1) {
		t.Fatalf("import: %s", rep.Raw)
	}
	rows := map[int64]string{}
	for _, p := range rep.List("errors") {
		m := p.(map[string]any)
		rows[wholeNumber(t, m["row"])] = fmt.Sprint(m["column"], ": ", m["message"])
	}
	want := map[int64]string{
		5: "target: target would close a loop of redirects, which shoppers would follow forever: /c → /a → /b → /c",
		6: "path: the path must not be empty",
		7: "target: the target must not be the path itself: the redirect would send shoppers back to where they are",
		8: "path: the path /a is also on row 3; a path has one redirect",
		9: "path: the path must be a path of this store, and elsewhere.example is not one of its domains",
	}
	if fmt.Sprint(rows) != fmt.Sprint(want) {
		t.Fatalf("errors %v\nwant %v", rows, want)
	}
	got := rdPaths(t, e, admin, "")
	wantPaths := []string{"/a → /b (import)", "/b → /c (import)", "/kept → /new-target (import)", "/shop?a=2&b=1 → https://elsewhere.example/shop (import)"}
	if !slices.Equal(got, wantPaths) {
		t.Fatalf("after import %v", got)
	}
	if r, _ := rdRedirects.get(t, e, admin, kept); r["target"] != "/new-target" {
		t.Fatalf("updated in place: %v", r)
	}

	// The export: path,target by path, which imports back as updates.
	file := e.Do(http.MethodGet, "/store/redirects/export", admin, nil).Expect(t, 200)
	if ct := file.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/csv") || !strings.Contains(file.Header.Get("Content-Disposition"), ".csv") {
		t.Fatalf("export: %s %s", ct, file.Header.Get("Content-Disposition"))
	}
	wantCSV := "\ufeffpath,target\n/a,/b\n/b,/c\n/kept,/new-target\n/shop?a=2&b=1,https://elsewhere.example/shop\n"
	if string(file.Raw) != wantCSV {
		t.Fatalf("export %q\nwant %q", file.Raw, wantCSV)
	}
	if f := e.Do(http.MethodGet, "/store/redirects/export?q=shop", admin, nil).Expect(t, 200); string(f.Raw) != "\ufeffpath,target\n/shop?a=2&b=1,https://elsewhere.example/shop\n" {
		t.Fatalf("filtered export %q", f.Raw)
	}
	rep = e.DoHeaders(http.MethodPost, "/store/redirects/import", admin, file.Raw, map[string]string{"Content-Type": "application/octet-stream"}).Expect(t, 200)
	if rep.Body["created"] != float64(0) || rep.Body["updated"] != float64(4) || len(rep.List("errors")) != 0 {
		t.Fatalf("re-import of the export: %s", rep.Raw)
	}
	if got := rdPaths(t, e, admin, ""); !slices.Equal(got, wantPaths) {
		t.Fatalf("after the round trip %v", got)
	}

	// Shopify's export, into another store.
	o := e.Store("Other")
	okey := e.Key(o.ID, auth.RoleAdmin)
	rep = e.DoHeaders(http.MethodPost, "/store/redirects/import", okey, "Redirect from,Redirect to\n/old,/products/new\n", headers).Expect(t, 200)
	if rep.Body["created"] != float64(1) {
		t.Fatalf("Shopify's layout: %s", rep.Raw)
	}
	// Not a redirect sheet, no file, a binary file: 400, nothing written.
	for name, body := range map[string]any{"no target column": "path,where\n/a,/b\n", "empty": "", "binary": []byte("%PDF-1.4\n\x00\x01\x02\x03 binary")} {
		if r := e.DoHeaders(http.MethodPost, "/store/redirects/import", okey, body, headers); r.Status != 400 {
			t.Fatalf("%s: %s", name, r.Raw)
		}
	}
	if _, total, _ := rdRedirects.list(t, e, okey, ""); total != 1 {
		t.Fatalf("a refused import wrote: total %d", total)
	}
	// A row is checked against the store as the rows before it left it:
	// back to /old loops while /old leads here, not once a row moved it.
	rep = e.DoHeaders(http.MethodPost, "/store/redirects/import", okey, "path,target\n/products/new,/old\n", headers).Expect(t, 200)
	if rep.Body["created"] != float64(0) || len(rep.List("errors")) != 1 {
		t.Fatalf("a loop through the store's redirect: %s", rep.Raw)
	}
	rep = e.DoHeaders(http.MethodPost, "/store/redirects/import", okey, "path,target\n/old,/elsewhere\n/products/new,/old\n", headers).Expect(t, 200)
	if rep.Body["created"] != float64(1) || rep.Body["updated"] != float64(1) || len(rep.List("errors")) != 0 {
		t.Fatalf("a loop the sheet undid: %s", rep.Raw)
	}

	// Access: the import needs navigation:write and the admin role; the
	// export navigation:read.
	staff := e.Key(s.ID, auth.RoleStaff, "navigation:read")
	e.ExpectEach(t, http.StatusForbidden, map[string]string{"staff": staff, "read only": e.Key(s.ID, auth.RoleAdmin, "navigation:read"), "other scope": e.Key(s.ID, auth.RoleAdmin, "products:write")}, []apitest.Call{
		{Method: http.MethodPost, Path: "/store/redirects/import", Body: sheet},
	})
	e.Do(http.MethodGet, "/store/redirects/export", staff, nil).Expect(t, 200)
	e.Do(http.MethodGet, "/store/redirects/export", e.Key(s.ID, auth.RoleAdmin, "products:read"), nil).Expect(t, 403)
	e.Do(http.MethodGet, "/store/redirects/export", "", nil).Expect(t, 401)
}

// TestURLRedirectAccess: the navigation scope's matrix, and another
// store's redirect is a 404 on every call that names it.
func TestURLRedirectAccess(t *testing.T) {
	e, s, admin := newAcme(t)
	id := rdCreate(t, e, admin, "/from", "/to")
	reads := []apitest.Call{
		{Method: http.MethodGet, Path: "/store/redirects"},
		{Method: http.MethodGet, Path: rdPath(id)},
		{Method: http.MethodGet, Path: "/store/redirects/export"},
	}
	writes := []apitest.Call{
		{Method: http.MethodPost, Path: "/store/redirects", Body: map[string]any{"path": "/new", "target": "/to"}},
		{Method: http.MethodPut, Path: rdPath(id), Body: map[string]any{"target": "/elsewhere"}},
		{Method: http.MethodDelete, Path: rdPath(id)},
		{Method: http.MethodPost, Path: "/store/redirects/bulk-delete", Body: map[string]any{"all_matching": true}},
	}
	k := checkAccess(t, e, s.ID, "navigation", map[string]string{"other scope": e.Key(s.ID, auth.RoleAdmin, "products:write")}, reads, writes)
	expectGraphQLCode(t, e, k.staffWrite, "FORBIDDEN", nil, `mutation { createURLRedirect(input: {path: "/x", target: "/y"}) { id } }`)
	expectGraphQLCode(t, e, e.Key(s.ID, auth.RoleAdmin, "products:read"), "FORBIDDEN", nil, `{ urlRedirects { id } }`)
	if got := rdPaths(t, e, admin, ""); !slices.Equal(got, []string{"/from → /to (manual)"}) {
		t.Fatalf("a refused write was written: %v", got)
	}
	e.Do(http.MethodPut, rdPath(id), k.writer, map[string]any{"target": "/elsewhere"}).Expect(t, 200)

	o := e.Store("Other")
	okey := e.Key(o.ID, auth.RoleAdmin)
	e.ExpectEach(t, 404, map[string]string{"another store": okey}, []apitest.Call{
		{Method: http.MethodGet, Path: rdPath(id)},
		{Method: http.MethodPut, Path: rdPath(id), Body: map[string]any{"target": "/x"}},
		{Method: http.MethodDelete, Path: rdPath(id)},
	})
	expectGraphQLNotFound(t, e, okey, `query($id: Int!) { urlRedirect(id: $id) { id } }`, map[string]any{"id": id})
	e.Do(http.MethodGet, "/store/redirects/abc", admin, nil).Expect(t, 400)
	e.Do(http.MethodGet, "/store/redirects?page=2", admin, nil).Expect(t, 400)
	if got := rdPaths(t, e, admin, ""); !slices.Equal(got, []string{"/from → /elsewhere (manual)"}) {
		t.Fatalf("another store changed it: %v", got)
	}
}
