package apitest_test

import (
	"context"
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

// The fields of the spec's review views, exactly.
var (
	rvViewKeys  = []string{"author", "body", "created_at", "email", "featured", "id", "order_id", "photos", "product_id", "rating", "replied_at", "reply", "source", "status", "title", "verified"}
	rvRowKeys   = []string{"author", "body", "created_at", "email", "featured", "id", "order_id", "photos", "product_handle", "product_id", "product_title", "rating", "replied_at", "reply", "source", "status", "title", "verified"}
	rvCountKeys = []string{"all", "pending", "published", "rejected"}
)

func rvPath(id int64, rest ...string) string {
	return "/store/reviews/" + strconv.FormatInt(id, 10) + strings.Join(rest, "")
}

func rvID(id int64) string { return strconv.FormatInt(id, 10) }

// rvView checks v against ReviewView (ReviewRowView when row) and returns
// it.
func rvView(t *testing.T, v any, row bool) map[string]any {
	t.Helper()
	m, ok := v.(map[string]any)
	if !ok {
		t.Fatalf("review is not an object: %#v", v)
	}
	want := rvViewKeys
	if row {
		want = rvRowKeys
	}
	if keys := sortedKeys(m); !reflect.DeepEqual(keys, want) {
		t.Fatalf("review fields %v, want %v", keys, want)
	}
	for _, k := range []string{"id", "product_id"} {
		s, ok := m[k].(string)
		if n, err := strconv.ParseInt(s, 10, 64); !ok || err != nil || n <= 0 {
			t.Fatalf("review %s = %#v, want a string of digits", k, m[k])
		}
	}
	if m["order_id"] != nil {
		s, ok := m["order_id"].(string)
		if _, err := strconv.ParseInt(s, 10, 64); !ok || err != nil {
			t.Fatalf("review order_id = %#v, want a string of digits or null", m["order_id"])
		}
	}
	strs := []string{"author", "body", "email", "reply", "source", "status", "title", "created_at"}
	if row {
		strs = append(strs, "product_handle", "product_title")
	}
	for _, k := range strs {
		if _, ok := m[k].(string); !ok {
			t.Fatalf("review %s = %#v, want a string", k, m[k])
		}
	}
	if _, err := time.Parse(time.RFC3339Nano, m["created_at"].(string)); err != nil {
		t.Fatalf("created_at %v: %v", m["created_at"], err)
	}
	if m["replied_at"] != nil {
		s, _ := m["replied_at"].(string)
		if _, err := time.Parse(time.RFC3339Nano, s); err != nil {
			t.Fatalf("replied_at %#v: %v", m["replied_at"], err)
		}
	}
	if r, ok := asWhole(m["rating"]); !ok || r < 1 || r > 5 {
		t.Fatalf("rating = %#v", m["rating"])
	}
	for _, k := range []string{"featured", "verified"} {
		if _, ok := m[k].(bool); !ok {
			t.Fatalf("review %s = %#v, want a boolean", k, m[k])
		}
	}
	photos, ok := m["photos"].([]any)
	if !ok {
		t.Fatalf("photos = %#v, want an array", m["photos"])
	}
	for _, p := range photos {
		pm, ok := p.(map[string]any)
		if !ok {
			t.Fatalf("photo = %#v", p)
		}
		if keys := sortedKeys(pm); !reflect.DeepEqual(keys, []string{"height", "src", "thumbhash", "width"}) {
			t.Fatalf("photo fields %v", keys)
		}
		wholeNumber(t, pm["height"])
		wholeNumber(t, pm["width"])
		if _, ok := pm["src"].(string); !ok {
			t.Fatalf("photo src = %#v", pm["src"])
		}
		if _, ok := pm["thumbhash"].(string); pm["thumbhash"] != nil && !ok {
			t.Fatalf("photo thumbhash = %#v", pm["thumbhash"])
		}
	}
	return m
}

// rvFixture is two stores with products and reviews.
type rvFixture struct {
	e          *apitest.Env
	a, b       *models.Store
	aKey, bKey string
	p1, p2, pb int64            // store A's products p1, p2; store B's pb
	rv         []models.Review  // store A's reviews, newest first
	theirs     []models.Review  // store B's reviews
	byID       map[int64]string // product handle by id
}

// rvReviewsFixture makes store A with products p1 and p2 and 8 reviews
// (newest first: r0..r7; r2 and r3 share their created_at), and store B
// with one product and 2 reviews. Ratings of the products start from the
// published reviews.
func rvReviewsFixture(t *testing.T) *rvFixture {
	t.Helper()
	e := apitest.New(t)
	f := &rvFixture{e: e, a: e.Store("Acme"), b: e.Store("Bolt")}
	f.aKey, f.bKey = e.Key(f.a.ID, auth.RoleAdmin), e.Key(f.b.ID, auth.RoleAdmin)
	f.p1, f.p2 = insertProduct(t, e, f.a.ID, "mug"), insertProduct(t, e, f.a.ID, "cap")
	f.pb = insertProduct(t, e, f.b.ID, "bolt-mug")
	f.byID = map[int64]string{f.p1: "mug", f.p2: "cap", f.pb: "bolt-mug"}

	base := time.Now().UTC().Add(-time.Hour).Truncate(time.Second)
	order := int64(1001)
	thumb := "3OcRJYB4d3h/iIeHeEh3eIhw+j2w"
	replied := base.Add(-time.Minute)
	mk := func(i int, product int64, rating int64, status string) models.Review {
		return models.Review{StoreID: f.a.ID, ProductID: product, Rating: rating, Status: status, Title: "Title " + strconv.Itoa(i),
			Body: "Body " + strconv.Itoa(i), Author: "Author " + strconv.Itoa(i), Email: "a" + strconv.Itoa(i) + "@example.com",
			Source: "storefront", CreatedAt: base.Add(-time.Duration(i) * time.Minute), UpdatedAt: base}
	}
	rs := []models.Review{
		mk(0, f.p1, 5, models.ReviewPublished),
		mk(1, f.p1, 4, models.ReviewPublished),
		mk(2, f.p1, 1, models.ReviewPending),
		mk(3, f.p2, 2, models.ReviewPending),
		mk(4, f.p2, 3, models.ReviewRejected),
		mk(5, f.p2, 5, models.ReviewPublished),
		mk(6, f.p1, 2, models.ReviewPending),
		mk(7, f.p2, 4, models.ReviewPending),
	}
	rs[1].Featured, rs[1].Verified, rs[1].OrderID = true, true, &order
	rs[1].Photos = []models.ReviewPhoto{{Src: "https://cdn.example.com/r1.jpg", Width: 800, Height: 600, Thumbhash: &thumb}, {Src: "https://cdn.example.com/r1b.jpg", Width: 10, Height: 20}}
	rs[3].CreatedAt = rs[2].CreatedAt // a tie: the higher id is newer
	rs[3].Title, rs[3].Body = "Strap broke", "The STRAP came off after a week"
	rs[4].Reply, rs[4].RepliedAt = "Sorry to hear that", &replied
	rs[5].Featured, rs[5].Source = true, "import"
	ctx := context.Background()
	// Insert r3 before r2 so that r2, sharing its time, has the higher id.
	ins := []models.Review{rs[0], rs[1], rs[3], rs[2], rs[4], rs[5], rs[6], rs[7]}
	if err := models.InsertReviews(ctx, e.DB, ins); err != nil {
		t.Fatalf("insert reviews: %v", err)
	}
	rs[0], rs[1], rs[3], rs[2], rs[4], rs[5], rs[6], rs[7] = ins[0], ins[1], ins[2], ins[3], ins[4], ins[5], ins[6], ins[7]
	f.rv = rs

	theirs := []models.Review{
		{StoreID: f.b.ID, ProductID: f.pb, Rating: 1, Status: models.ReviewPending, Author: "B0", Source: "storefront", CreatedAt: base},
		{StoreID: f.b.ID, ProductID: f.pb, Rating: 3, Status: models.ReviewPublished, Author: "B1", Source: "storefront", CreatedAt: base},
	}
	if err := models.InsertReviews(ctx, e.DB, theirs); err != nil {
		t.Fatalf("insert reviews: %v", err)
	}
	f.theirs = theirs
	if err := models.RefreshProductRatings(ctx, e.DB, f.a.ID, []int64{f.p1, f.p2}); err != nil {
		t.Fatal(err)
	}
	if err := models.RefreshProductRatings(ctx, e.DB, f.b.ID, []int64{f.pb}); err != nil {
		t.Fatal(err)
	}
	return f
}

// rvRating reads a product's rating_avg and rating_count from the database.
func rvRating(t *testing.T, e *apitest.Env, productID int64) [2]int64 {
	t.Helper()
	p := new(models.Product)
	if err := e.DB.NewSelect().Model(p).Column("rating_avg", "rating_count").Where("id = ?", productID).Scan(context.Background()); err != nil {
		t.Fatalf("read product %d: %v", productID, err)
	}
	return [2]int64{p.RatingAvg, p.RatingCount}
}

// rvWantRating is what rating_avg and rating_count must be for the
// published ratings: the mean rounded half up, and the count.
func rvWantRating(published ...int64) [2]int64 {
	if len(published) == 0 {
		return [2]int64{0, 0}
	}
	var sum int64
	for _, r := range published {
		sum += r
	}
	n := int64(len(published))
	return [2]int64{(2*sum + n) / (2 * n), n}
}

func (f *rvFixture) checkRatings(t *testing.T, p1, p2, pb [2]int64) {
	t.Helper()
	for _, c := range []struct {
		id   int64
		want [2]int64
	}{{f.p1, p1}, {f.p2, p2}, {f.pb, pb}} {
		if got := rvRating(t, f.e, c.id); got != c.want {
			t.Fatalf("product %s: rating_avg, rating_count = %v, want %v", f.byID[c.id], got, c.want)
		}
	}
}

// rvStatus reads a review's status from the database ("" when gone).
func rvStatus(t *testing.T, e *apitest.Env, id int64) string {
	t.Helper()
	var out []string
	if err := e.DB.NewSelect().Model((*models.Review)(nil)).Column("status").Where("id = ?", id).Scan(context.Background(), &out); err != nil {
		t.Fatal(err)
	}
	if len(out) == 0 {
		return ""
	}
	return out[0]
}

// rvList reads GET /store/reviews?query and returns the rows, the counts,
// the total and the answer.
func rvList(t *testing.T, e *apitest.Env, key, query string) ([]map[string]any, map[string]any, int64, *apitest.Response) {
	t.Helper()
	path := "/store/reviews"
	if query != "" {
		path += "?" + query
	}
	r := e.Do(http.MethodGet, path, key, nil).Expect(t, 200)
	if keys := sortedKeys(r.Body); !reflect.DeepEqual(keys, []string{"counts", "next_cursor", "reviews", "status", "total"}) {
		t.Fatalf("GET %s payload keys %v: %s", path, keys, r.Raw)
	}
	counts := r.Obj("counts")
	if keys := sortedKeys(counts); !reflect.DeepEqual(keys, rvCountKeys) {
		t.Fatalf("counts fields %v: %s", keys, r.Raw)
	}
	for _, k := range rvCountKeys {
		wholeNumber(t, counts[k])
	}
	var rows []map[string]any
	for _, v := range r.List("reviews") {
		rows = append(rows, rvView(t, v, true))
	}
	return rows, counts, wholeNumber(t, r.Body["total"]), r
}

func rvIDs(rows []map[string]any) []int64 {
	out := []int64{}
	for _, r := range rows {
		id, _ := strconv.ParseInt(r["id"].(string), 10, 64)
		out = append(out, id)
	}
	return out
}

func rvModelIDs(rs []models.Review, keep func(models.Review) bool) []int64 {
	out := []int64{}
	for _, r := range rs {
		if keep == nil || keep(r) {
			out = append(out, r.ID)
		}
	}
	return out
}

func rvCounts(all, pending, published, rejected int) map[string]any {
	return map[string]any{"all": float64(all), "pending": float64(pending), "published": float64(published), "rejected": float64(rejected)}
}

// TestReviewsList: GET /store/reviews lists the store's reviews newest
// first as ReviewRowView, with counts per status and total, filters and
// pages, on both surfaces.
func TestReviewsList(t *testing.T) {
	f := rvReviewsFixture(t)
	e := f.e
	reader := e.Key(f.a.ID, auth.RoleStaff, "reviews:read")

	rows, counts, total, r := rvList(t, e, reader, "")
	want := rvModelIDs(f.rv, nil)
	if !slices.Equal(rvIDs(rows), want) || total != 8 {
		t.Fatalf("ids %v total %d, want %v total 8", rvIDs(rows), total, want)
	}
	if !reflect.DeepEqual(counts, rvCounts(8, 4, 3, 1)) {
		t.Fatalf("counts %v", counts)
	}
	e.SameOnGraphQL(t, r, reader, "ListReviews", nil)

	// Every field of one row, exactly.
	r1 := f.rv[1]
	wantRow := map[string]any{
		"id": rvID(r1.ID), "product_id": rvID(f.p1), "order_id": "1001", "rating": float64(4), "title": "Title 1", "body": "Body 1",
		"author": "Author 1", "email": "a1@example.com", "status": "published", "featured": true, "verified": true, "source": "storefront",
		"reply": "", "replied_at": nil, "created_at": r1.CreatedAt.UTC().Format(time.RFC3339Nano),
		"photos": []any{
			map[string]any{"src": "https://cdn.example.com/r1.jpg", "width": float64(800), "height": float64(600), "thumbhash": "3OcRJYB4d3h/iIeHeEh3eIhw+j2w"},
			map[string]any{"src": "https://cdn.example.com/r1b.jpg", "width": float64(10), "height": float64(20), "thumbhash": nil},
		},
		"product_handle": "mug", "product_title": "Product mug",
	}
	if !reflect.DeepEqual(rows[1], wantRow) {
		t.Fatalf("row:\n got  %v\n want %v", rows[1], wantRow)
	}
	if rows[0]["order_id"] != nil || !reflect.DeepEqual(rows[0]["photos"], []any{}) {
		t.Fatalf("a review without order and photos: %v", rows[0])
	}
	if rows[4]["reply"] != "Sorry to hear that" || rows[4]["replied_at"] == nil || rows[3]["product_handle"] != "cap" || rows[5]["source"] != "import" {
		t.Fatalf("rows: %v\n%v", rows[4], rows[3])
	}

	// Filters; counts follow every condition but the status.
	for _, c := range []struct {
		query  string
		keep   func(models.Review) bool
		counts map[string]any
	}{
		{"status=pending", func(r models.Review) bool { return r.Status == "pending" }, rvCounts(8, 4, 3, 1)},
		{"status=published", func(r models.Review) bool { return r.Status == "published" }, rvCounts(8, 4, 3, 1)},
		{"status=rejected", func(r models.Review) bool { return r.Status == "rejected" }, rvCounts(8, 4, 3, 1)},
		{"rating=5", func(r models.Review) bool { return r.Rating == 5 }, rvCounts(2, 0, 2, 0)},
		{"product_id=" + rvID(f.p2), func(r models.Review) bool { return r.ProductID == f.p2 }, rvCounts(4, 2, 1, 1)},
		{"product_id=" + rvID(f.p2) + "&status=pending", func(r models.Review) bool { return r.ProductID == f.p2 && r.Status == "pending" }, rvCounts(4, 2, 1, 1)},
		{"featured=true", func(r models.Review) bool { return r.Featured }, rvCounts(2, 0, 2, 0)},
		{"featured=false", func(r models.Review) bool { return !r.Featured }, rvCounts(6, 4, 1, 1)},
		{"has_photos=true", func(r models.Review) bool { return len(r.Photos) > 0 }, rvCounts(1, 0, 1, 0)},
		{"has_photos=false", func(r models.Review) bool { return len(r.Photos) == 0 }, rvCounts(7, 4, 2, 1)},
		{"q=strap", func(r models.Review) bool { return r.ID == f.rv[3].ID }, rvCounts(1, 1, 0, 0)},
		{"q=A5%40EXAMPLE", func(r models.Review) bool { return r.ID == f.rv[5].ID }, rvCounts(1, 0, 1, 0)},
		{"q=author+7", func(r models.Review) bool { return r.ID == f.rv[7].ID }, rvCounts(1, 1, 0, 0)},
		{"q=%25", func(r models.Review) bool { return false }, rvCounts(0, 0, 0, 0)},
		{"product_id=" + rvID(f.pb), func(r models.Review) bool { return false }, rvCounts(0, 0, 0, 0)},
	} {
		rows, counts, total, r := rvList(t, e, f.aKey, c.query)
		want := rvModelIDs(f.rv, c.keep)
		if !slices.Equal(rvIDs(rows), want) || total != int64(len(want)) || !reflect.DeepEqual(counts, c.counts) {
			t.Fatalf("?%s: ids %v total %d counts %v; want %v, %d, %v", c.query, rvIDs(rows), total, counts, want, len(want), c.counts)
		}
		if c.query == "product_id="+rvID(f.p2)+"&status=pending" {
			e.SameOnGraphQL(t, r, f.aKey, "ListReviews", map[string]any{"filter": map[string]any{"product_id": rvID(f.p2), "status": "pending"}})
		}
	}

	// Paging: total ignores limit and offset.
	for _, c := range []struct {
		query  string
		lo, hi int
	}{{"limit=3", 0, 3}, {"limit=3&offset=3", 3, 6}, {"limit=3&offset=6", 6, 8}, {"offset=8", 8, 8}} {
		rows, _, total, r := rvList(t, e, f.aKey, c.query)
		if !slices.Equal(rvIDs(rows), want[c.lo:c.hi]) || total != 8 {
			t.Fatalf("?%s: ids %v total %d", c.query, rvIDs(rows), total)
		}
		if c.query == "limit=3&offset=3" {
			e.SameOnGraphQL(t, r, f.aKey, "ListReviews", map[string]any{"limit": 3, "offset": 3})
		}
	}

	// Store B sees its own reviews only.
	rows, counts, total, _ = rvList(t, e, f.bKey, "")
	if !slices.Equal(rvIDs(rows), []int64{f.theirs[1].ID, f.theirs[0].ID}) || total != 2 || !reflect.DeepEqual(counts, rvCounts(2, 1, 1, 0)) {
		t.Fatalf("store B: %v %v %d", rvIDs(rows), counts, total)
	}

	for _, q := range []string{"status=done", "status=PENDING", "rating=0", "rating=6", "rating=x", "product_id=abc", "product_id=0", "featured=maybe", "limit=0", "limit=251", "offset=-1"} {
		e.Do(http.MethodGet, "/store/reviews?"+q, f.aKey, nil).Expect(t, 400)
	}
	if g := e.GraphQL(f.aKey, `{ reviewCounts(filter: {status: "nope"}) { all } }`, nil); g.ErrorCode() != "BAD_USER_INPUT" {
		t.Fatalf("GraphQL bad status: %s", g.Raw)
	}
	// The GraphQL product relation.
	g := e.GraphQL(f.aKey, `{ reviews(limit: 1) { product { id handle } } }`, nil)
	if !reflect.DeepEqual(g.Data()["reviews"], []any{map[string]any{"product": map[string]any{"id": float64(f.p1), "handle": "mug"}}}) {
		t.Fatalf("review product: %s", g.Raw)
	}
}

// rvPut sends PUT /store/reviews/{id}/what and returns the ReviewView.
func rvPut(t *testing.T, e *apitest.Env, key string, id int64, what string, body any) (map[string]any, *apitest.Response) {
	t.Helper()
	r := e.Do(http.MethodPut, rvPath(id, "/"+what), key, body).Expect(t, 200)
	if keys := sortedKeys(r.Body); !reflect.DeepEqual(keys, []string{"review", "status"}) {
		t.Fatalf("PUT %s payload keys %v: %s", what, keys, r.Raw)
	}
	return rvView(t, r.Body["review"], false), r
}

// TestReviewsStatus: PUT /store/reviews/{id}/status moves a review between
// pending, published and rejected and keeps the product's rating to its
// published reviews.
func TestReviewsStatus(t *testing.T) {
	f := rvReviewsFixture(t)
	e := f.e
	// p1: published 5, 4; p2: published 5; B: published 3.
	f.checkRatings(t, rvWantRating(5, 4), rvWantRating(5), rvWantRating(3))
	if got := rvRating(t, e, f.p1); got != [2]int64{5, 2} {
		t.Fatalf("4.5 must round up to 5: %v", got)
	}

	r2 := f.rv[2] // p1, rating 1, pending
	v, r := rvPut(t, e, f.aKey, r2.ID, "status", map[string]any{"status": "published"})
	if v["status"] != "published" || v["id"] != rvID(r2.ID) || v["rating"] != float64(1) || v["title"] != "Title 2" || v["product_id"] != rvID(f.p1) {
		t.Fatalf("published: %v", v)
	}
	f.checkRatings(t, rvWantRating(5, 4, 1), rvWantRating(5), rvWantRating(3))
	e.SameOnGraphQL(t, r, f.aKey, "SetReviewStatus", map[string]any{"id": rvID(r2.ID), "input": map[string]any{"status": "published"}})
	f.checkRatings(t, rvWantRating(5, 4, 1), rvWantRating(5), rvWantRating(3))

	v, _ = rvPut(t, e, f.aKey, f.rv[0].ID, "status", map[string]any{"status": "rejected"})
	if v["status"] != "rejected" {
		t.Fatalf("rejected: %v", v)
	}
	f.checkRatings(t, rvWantRating(4, 1), rvWantRating(5), rvWantRating(3))
	rvPut(t, e, f.aKey, f.rv[1].ID, "status", map[string]any{"status": "pending"})
	rvPut(t, e, f.aKey, r2.ID, "status", map[string]any{"status": "pending"})
	f.checkRatings(t, rvWantRating(), rvWantRating(5), rvWantRating(3))
	rvPut(t, e, f.aKey, f.rv[3].ID, "status", map[string]any{"status": "published"}) // p2, rating 2
	f.checkRatings(t, rvWantRating(), rvWantRating(5, 2), rvWantRating(3))
	if got := rvRating(t, e, f.p2); got != [2]int64{4, 2} {
		t.Fatalf("3.5 must round up to 4: %v", got)
	}
	if rvStatus(t, e, f.rv[0].ID) != "rejected" {
		t.Fatal("status not stored")
	}

	for _, body := range []any{map[string]any{"status": "approved"}, map[string]any{"status": "PUBLISHED"}, map[string]any{"status": ""}, map[string]any{}, map[string]any{"status": 1}, nil, `{"status":`} {
		e.Do(http.MethodPut, rvPath(f.rv[4].ID, "/status"), f.aKey, body).Expect(t, 400)
	}
	e.Do(http.MethodPut, rvPath(987654, "/status"), f.aKey, map[string]any{"status": "published"}).Expect(t, 404)
	e.Do(http.MethodPut, rvPath(f.theirs[0].ID, "/status"), f.aKey, map[string]any{"status": "published"}).Expect(t, 404)
	e.Do(http.MethodPut, "/store/reviews/abc/status", f.aKey, map[string]any{"status": "published"}).Expect(t, 400)
	if g := e.GraphQL(f.aKey, `mutation($id: ID!) { setReviewStatus(id: $id, input: {status: "published"}) { id } }`, map[string]any{"id": rvID(f.theirs[0].ID)}); g.ErrorCode() != "NOT_FOUND" {
		t.Fatalf("another store's review: %s", g.Raw)
	}
	if rvStatus(t, e, f.rv[4].ID) != "rejected" || rvStatus(t, e, f.theirs[0].ID) != "pending" {
		t.Fatal("a refused status change was written")
	}
	f.checkRatings(t, rvWantRating(), rvWantRating(5, 2), rvWantRating(3))

	logs, _, _ := listAuditLogs(t, e, f.aKey, "action=setReviewStatus&limit=1&status_code=200")
	if m := metadataOf(logs[0]); !reflect.DeepEqual(m["records"], []any{map[string]any{"type": "review", "id": float64(f.rv[3].ID)}}) {
		t.Fatalf("setReviewStatus audit metadata: %v", m)
	}
}

// TestReviewsReplyAndFeatured: PUT /store/reviews/{id}/reply sets or (empty)
// clears the store's answer and its time; PUT .../featured flags a review.
// Neither touches the product's rating.
func TestReviewsReplyAndFeatured(t *testing.T) {
	f := rvReviewsFixture(t)
	e := f.e
	id := f.rv[0].ID
	before := time.Now().Add(-time.Second)
	v, _ := rvPut(t, e, f.aKey, id, "reply", map[string]any{"reply": "  Thanks for the kind words!  "})
	if v["reply"] != "Thanks for the kind words!" || v["status"] != "published" {
		t.Fatalf("reply: %v", v)
	}
	at, err := time.Parse(time.RFC3339Nano, v["replied_at"].(string))
	if err != nil || at.Before(before) || at.After(time.Now().Add(time.Second)) || !strings.HasSuffix(v["replied_at"].(string), "Z") {
		t.Fatalf("replied_at %v (%v)", v["replied_at"], err)
	}
	rows, _, _, _ := rvList(t, e, f.aKey, "limit=1")
	if rows[0]["reply"] != v["reply"] || rows[0]["replied_at"] != v["replied_at"] {
		t.Fatalf("listed %v, answered %v", rows[0], v)
	}

	long := strings.Repeat("ü", 5000)
	if v, _ := rvPut(t, e, f.aKey, id, "reply", map[string]any{"reply": long}); v["reply"] != long {
		t.Fatal("a 5000-character reply was not kept")
	}
	for _, body := range []any{map[string]any{"reply": long + "x"}, map[string]any{"reply": 5}, map[string]any{}, nil} {
		e.Do(http.MethodPut, rvPath(id, "/reply"), f.aKey, body).Expect(t, 400)
	}
	v, r := rvPut(t, e, f.aKey, id, "reply", map[string]any{"reply": "   "})
	if v["reply"] != "" || v["replied_at"] != nil {
		t.Fatalf("an empty reply must clear reply and replied_at: %v", v)
	}
	e.SameOnGraphQL(t, r, f.aKey, "ReplyToReview", map[string]any{"id": rvID(id), "input": map[string]any{"reply": ""}})
	v, _ = rvPut(t, e, f.aKey, f.rv[4].ID, "reply", map[string]any{"reply": ""})
	if v["reply"] != "" || v["replied_at"] != nil {
		t.Fatalf("clear an existing reply: %v", v)
	}

	v, r = rvPut(t, e, f.aKey, id, "featured", map[string]any{"featured": true})
	if v["featured"] != true {
		t.Fatalf("featured: %v", v)
	}
	e.SameOnGraphQL(t, r, f.aKey, "SetReviewFeatured", map[string]any{"id": rvID(id), "input": map[string]any{"featured": true}})
	if rows, _, _, _ := rvList(t, e, f.aKey, "featured=true"); !slices.Equal(rvIDs(rows), []int64{id, f.rv[1].ID, f.rv[5].ID}) {
		t.Fatalf("featured list %v", rvIDs(rows))
	}
	if v, _ := rvPut(t, e, f.aKey, f.rv[1].ID, "featured", map[string]any{"featured": false}); v["featured"] != false || v["verified"] != true {
		t.Fatalf("unfeatured: %v", v)
	}
	for _, body := range []any{map[string]any{"featured": "yes"}, map[string]any{}, nil} {
		e.Do(http.MethodPut, rvPath(id, "/featured"), f.aKey, body).Expect(t, 400)
	}
	for what, body := range map[string]map[string]any{"/reply": {"reply": "x"}, "/featured": {"featured": true}} {
		e.Do(http.MethodPut, rvPath(987654, what), f.aKey, body).Expect(t, 404)
		e.Do(http.MethodPut, rvPath(f.theirs[0].ID, what), f.aKey, body).Expect(t, 404)
	}
	rows, _, _, _ = rvList(t, e, f.bKey, "")
	for _, row := range rows {
		if row["reply"] != "" || row["featured"] != false {
			t.Fatalf("store B's review changed: %v", row)
		}
	}
	f.checkRatings(t, rvWantRating(5, 4), rvWantRating(5), rvWantRating(3))
}

// TestReviewsDelete: DELETE /store/reviews/{id} removes a review and
// refreshes its product's rating; missing and other stores' ids are 404.
func TestReviewsDelete(t *testing.T) {
	f := rvReviewsFixture(t)
	e := f.e
	del := e.Do(http.MethodDelete, rvPath(f.rv[0].ID), f.aKey, nil).Expect(t, 200)
	if string(del.Raw) != `{"status":true}` {
		t.Fatalf("DELETE answered %s", del.Raw)
	}
	f.checkRatings(t, rvWantRating(4), rvWantRating(5), rvWantRating(3))
	e.Do(http.MethodDelete, rvPath(f.rv[0].ID), f.aKey, nil).Expect(t, 404)
	e.Do(http.MethodPut, rvPath(f.rv[0].ID, "/status"), f.aKey, map[string]any{"status": "published"}).Expect(t, 404)
	e.Do(http.MethodDelete, rvPath(987654), f.aKey, nil).Expect(t, 404)
	e.Do(http.MethodDelete, rvPath(f.theirs[1].ID), f.aKey, nil).Expect(t, 404)
	e.Do(http.MethodDelete, "/store/reviews/abc", f.aKey, nil).Expect(t, 400)
	if g := e.GraphQL(f.aKey, `mutation($id: ID!) { deleteReview(id: $id) }`, map[string]any{"id": rvID(f.theirs[1].ID)}); g.ErrorCode() != "NOT_FOUND" {
		t.Fatalf("deleteReview of another store's: %s", g.Raw)
	}
	if rvStatus(t, e, f.theirs[1].ID) != "published" {
		t.Fatal("another store's review was deleted")
	}
	// A pending review's delete leaves the rating; a GraphQL delete works too.
	if g := e.GraphQL(f.aKey, `mutation($id: ID!) { deleteReview(id: $id) }`, map[string]any{"id": f.rv[3].ID}); g.Data()["deleteReview"] != true {
		t.Fatalf("deleteReview: %s", g.Raw)
	}
	e.Do(http.MethodDelete, rvPath(f.rv[5].ID), f.aKey, nil).Expect(t, 200)
	f.checkRatings(t, rvWantRating(4), rvWantRating(), rvWantRating(3))
	if _, counts, total, _ := rvList(t, e, f.aKey, ""); total != 5 || !reflect.DeepEqual(counts, rvCounts(5, 3, 1, 1)) {
		t.Fatalf("after deletes: total %d counts %v", total, counts)
	}
	logs, _, _ := listAuditLogs(t, e, f.aKey, "action=deleteReview&limit=1")
	if m := metadataOf(logs[0]); !reflect.DeepEqual(m["records"], []any{map[string]any{"type": "review", "id": float64(f.rv[5].ID)}}) {
		t.Fatalf("deleteReview audit metadata: %v", m)
	}
}

// rvBulk sends POST /store/reviews/bulk and returns applied.
func rvBulk(t *testing.T, e *apitest.Env, key string, body any) (int64, *apitest.Response) {
	t.Helper()
	r := e.Do(http.MethodPost, "/store/reviews/bulk", key, body).Expect(t, 200)
	if keys := sortedKeys(r.Body); !reflect.DeepEqual(keys, []string{"applied", "status"}) {
		t.Fatalf("bulk payload keys %v: %s", keys, r.Raw)
	}
	return wholeNumber(t, r.Body["applied"]), r
}

// TestReviewsBulk: POST /store/reviews/bulk approves, rejects or deletes
// the store's listed reviews, answers how many changed, ignores missing and
// other stores' ids, and keeps every product's rating right.
func TestReviewsBulk(t *testing.T) {
	f := rvReviewsFixture(t)
	e := f.e
	rv := f.rv
	foreign := []string{rvID(f.theirs[0].ID), rvID(f.theirs[1].ID), "987654"}

	// Approve: r2 (p1, 1) and r3 (p2, 2) and r7 (p2, 4) are pending; r0 is
	// already published; repeats and ids as numbers count once.
	ids := append([]any{rvID(rv[2].ID), rv[3].ID, rvID(rv[7].ID), rvID(rv[0].ID), rvID(rv[2].ID)}, foreign[0], foreign[1], foreign[2])
	n, _ := rvBulk(t, e, f.aKey, map[string]any{"action": "approve", "ids": ids})
	if n != 3 {
		t.Fatalf("approve applied %d, want 3", n)
	}
	f.checkRatings(t, rvWantRating(5, 4, 1), rvWantRating(5, 2, 4), rvWantRating(3))
	if rvStatus(t, e, f.theirs[0].ID) != "pending" || rvStatus(t, e, f.theirs[1].ID) != "published" {
		t.Fatal("another store's reviews changed")
	}
	logs, _, _ := listAuditLogs(t, e, f.aKey, "action=bulkUpdateReviews&limit=1")
	var wantRecords []any
	for _, id := range []int64{rv[2].ID, rv[3].ID, rv[7].ID, rv[0].ID} {
		wantRecords = append(wantRecords, map[string]any{"type": "review", "id": float64(id)})
	}
	if m := metadataOf(logs[0]); !reflect.DeepEqual(m["records"], wantRecords) {
		t.Fatalf("bulk audit records %v, want %v", m["records"], wantRecords)
	}

	// Approving again changes nothing; both surfaces say so.
	n, r := rvBulk(t, e, f.aKey, map[string]any{"action": "approve", "ids": []string{rvID(rv[2].ID)}})
	if n != 0 {
		t.Fatalf("approve again applied %d", n)
	}
	e.SameOnGraphQL(t, r, f.aKey, "BulkUpdateReviews", map[string]any{"input": map[string]any{"action": "approve", "ids": []string{rvID(rv[2].ID)}}})

	// Reject: r0 (published), r4 (already rejected), r6 (pending).
	n, _ = rvBulk(t, e, f.aKey, map[string]any{"action": "reject", "ids": []string{rvID(rv[0].ID), rvID(rv[4].ID), rvID(rv[6].ID), foreign[1]}})
	if n != 2 {
		t.Fatalf("reject applied %d, want 2", n)
	}
	f.checkRatings(t, rvWantRating(4, 1), rvWantRating(5, 2, 4), rvWantRating(3))

	// Delete: r1 (p1 published), r5 (p2 published), r6 (rejected), foreign.
	n, _ = rvBulk(t, e, f.aKey, map[string]any{"action": "delete", "ids": append([]string{rvID(rv[1].ID), rvID(rv[5].ID), rvID(rv[6].ID)}, foreign...)})
	if n != 3 {
		t.Fatalf("delete applied %d, want 3", n)
	}
	f.checkRatings(t, rvWantRating(1), rvWantRating(2, 4), rvWantRating(3))
	for _, id := range []int64{rv[1].ID, rv[5].ID, rv[6].ID} {
		if rvStatus(t, e, id) != "" {
			t.Fatalf("review %d not deleted", id)
		}
	}
	if rvStatus(t, e, f.theirs[0].ID) != "pending" || rvStatus(t, e, f.theirs[1].ID) != "published" {
		t.Fatal("another store's reviews were deleted")
	}
	// Only other stores' ids: nothing happens.
	if n, _ := rvBulk(t, e, f.aKey, map[string]any{"action": "delete", "ids": foreign}); n != 0 {
		t.Fatalf("foreign delete applied %d", n)
	}
	if n, _ := rvBulk(t, e, f.aKey, map[string]any{"action": "reject", "ids": foreign[:2]}); n != 0 {
		t.Fatalf("foreign reject applied %d", n)
	}
	f.checkRatings(t, rvWantRating(1), rvWantRating(2, 4), rvWantRating(3))
	if _, counts, _, _ := rvList(t, e, f.bKey, ""); !reflect.DeepEqual(counts, rvCounts(2, 1, 1, 0)) {
		t.Fatalf("store B counts %v", counts)
	}

	// Bad bulks.
	many := make([]string, 501)
	for i := range many {
		many[i] = strconv.Itoa(i + 1)
	}
	for name, body := range map[string]any{
		"unknown action": map[string]any{"action": "publish", "ids": []string{rvID(rv[2].ID)}},
		"action case":    map[string]any{"action": "APPROVE", "ids": []string{rvID(rv[2].ID)}},
		"no action":      map[string]any{"ids": []string{rvID(rv[2].ID)}},
		"no ids":         map[string]any{"action": "delete"},
		"empty ids":      map[string]any{"action": "delete", "ids": []string{}},
		"501 ids":        map[string]any{"action": "delete", "ids": many},
		"bad id":         map[string]any{"action": "delete", "ids": []string{"abc"}},
		"zero id":        map[string]any{"action": "delete", "ids": []string{"0"}},
		"ids not a list": map[string]any{"action": "delete", "ids": map[string]any{"a": 1}},
		"no body":        nil,
		"malformed":      `{"action":`,
	} {
		r := e.Do(http.MethodPost, "/store/reviews/bulk", f.aKey, body)
		if r.Status != 400 {
			t.Fatalf("%s: status %d, want 400: %s", name, r.Status, r.Raw)
		}
		r.Expect(t, 400)
	}
	// 500 ids (every review id of both stores among them): the store's
	// published r2, r3 and r7 are rejected; store B's stay.
	if n, _ := rvBulk(t, e, f.aKey, map[string]any{"action": "reject", "ids": many[:500]}); n != 3 {
		t.Fatalf("500 ids: applied %d, want 3", n)
	}
	f.checkRatings(t, rvWantRating(), rvWantRating(), rvWantRating(3))
	if rvStatus(t, e, f.theirs[0].ID) != "pending" || rvStatus(t, e, f.theirs[1].ID) != "published" {
		t.Fatal("another store's reviews changed")
	}
}

// TestReviewsAccess: reads are reviews:read (any role), writes are
// reviews:write and admin; no key is 401; access comes before the body.
func TestReviewsAccess(t *testing.T) {
	f := rvReviewsFixture(t)
	e := f.e
	id := f.rv[2].ID
	staff := e.Key(f.a.ID, auth.RoleStaff)
	staffRead := e.Key(f.a.ID, auth.RoleStaff, "reviews:read")
	readOnly := e.Key(f.a.ID, auth.RoleAdmin, "reviews:read")
	writer := e.Key(f.a.ID, auth.RoleAdmin, "reviews:write")
	otherScope := e.Key(f.a.ID, auth.RoleAdmin, "bundles:read", "bundles:write")

	reads := []apitest.Call{{Method: http.MethodGet, Path: "/store/reviews"}, {Method: http.MethodGet, Path: "/store/reviews?status=pending"}}
	writes := []apitest.Call{
		{Method: http.MethodPost, Path: "/store/reviews/bulk", Body: map[string]any{"action": "approve", "ids": []string{rvID(id)}}},
		{Method: http.MethodPut, Path: rvPath(id, "/status"), Body: map[string]any{"status": "published"}},
		{Method: http.MethodPut, Path: rvPath(id, "/reply"), Body: map[string]any{"reply": "Thanks"}},
		{Method: http.MethodPut, Path: rvPath(id, "/featured"), Body: map[string]any{"featured": true}},
		{Method: http.MethodDelete, Path: rvPath(id)},
	}
	all := append(slices.Clone(reads), writes...)
	e.ExpectEach(t, 401, map[string]string{"no key": "", "unknown key": "sa_api_nope"}, all)
	e.ExpectEach(t, 403, map[string]string{"other scope": otherScope}, all)
	e.ExpectEach(t, 403, map[string]string{"staff read": staffRead, "read only": readOnly}, writes)
	e.ExpectEach(t, 200, map[string]string{"staff": staff, "staff read": staffRead, "read only": readOnly, "writer": writer}, reads)
	e.Do(http.MethodPost, "/store/reviews/bulk", readOnly, `{"action":`).Expect(t, 403)
	e.Do(http.MethodPut, rvPath(id, "/status"), "", `{"status":`).Expect(t, 401)
	if g := e.GraphQL(readOnly, `mutation($id: ID!) { deleteReview(id: $id) }`, map[string]any{"id": rvID(id)}); g.ErrorCode() != "FORBIDDEN" {
		t.Fatalf("read-only deleteReview: %s", g.Raw)
	}
	if g := e.GraphQL(otherScope, `{ reviews { id } }`, nil); g.ErrorCode() != "FORBIDDEN" {
		t.Fatalf("reviews without the scope: %s", g.Raw)
	}
	// Nothing refused was written.
	if rvStatus(t, e, id) != "pending" {
		t.Fatal("a refused write changed the review")
	}
	f.checkRatings(t, rvWantRating(5, 4), rvWantRating(5), rvWantRating(3))
	// The write scope holds the read, and may write.
	e.ExpectEach(t, 200, map[string]string{"writer": writer}, writes)
	if rvStatus(t, e, id) != "" {
		t.Fatal("the writer's delete did not delete")
	}
}

// TestReviewsStaffWritesRefused: the spec's "w" is the write scope and the
// admin role, so staff keys may not moderate reviews.
func TestReviewsStaffWritesRefused(t *testing.T) {
	f := rvReviewsFixture(t)
	id := f.rv[2].ID
	f.e.ExpectEach(t, 403, map[string]string{"staff": f.e.Key(f.a.ID, auth.RoleStaff), "staff write": f.e.Key(f.a.ID, auth.RoleStaff, "reviews:write")}, []apitest.Call{
		{Method: http.MethodPost, Path: "/store/reviews/bulk", Body: map[string]any{"action": "approve", "ids": []string{rvID(id)}}},
		{Method: http.MethodPut, Path: rvPath(id, "/status"), Body: map[string]any{"status": "published"}},
		{Method: http.MethodPut, Path: rvPath(id, "/reply"), Body: map[string]any{"reply": "Thanks"}},
		{Method: http.MethodPut, Path: rvPath(id, "/featured"), Body: map[string]any{"featured": true}},
		{Method: http.MethodDelete, Path: rvPath(id)},
	})
	if rvStatus(t, f.e, id) != "pending" {
		t.Fatal("a staff write changed the review")
	}
}

// TestReviewListStatementsDoNotGrowWithRows: the product fields of a
// review list load through a dataloader: 60 reviews of 60 products cost as
// many statements as 5.
func TestReviewListStatementsDoNotGrowWithRows(t *testing.T) {
	e := apitest.New(t)
	s := e.Store("Acme")
	key := e.Key(s.ID, auth.RoleAdmin)
	var rs []models.Review
	for i := range 60 {
		p := insertProduct(t, e, s.ID, "p"+strconv.Itoa(i))
		rs = append(rs, models.Review{StoreID: s.ID, ProductID: p, Rating: 4, Author: "A", Status: models.ReviewPublished, Source: "storefront"})
	}
	if err := models.InsertReviews(context.Background(), e.DB, rs); err != nil {
		t.Fatal(err)
	}
	e.Do(http.MethodGet, "/store", key, nil).Expect(t, 200) // records the key's last use
	stmts := map[int]int64{}
	for _, n := range []int{5, 60} {
		before := e.Statements()
		rows, _, total, _ := rvList(t, e, key, "limit="+strconv.Itoa(n))
		stmts[n] = e.Statements() - before
		if len(rows) != n || total != 60 {
			t.Fatalf("listed %d of %d", len(rows), total)
		}
		for _, r := range rows {
			if !strings.HasPrefix(r["product_handle"].(string), "p") || !strings.HasPrefix(r["product_title"].(string), "Product p") {
				t.Fatalf("row %v", r)
			}
		}
	}
	if stmts[5] != stmts[60] {
		t.Fatalf("5 reviews cost %d statements, 60 cost %d", stmts[5], stmts[60])
	}
}
