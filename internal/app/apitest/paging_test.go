package apitest_test

// Keyset cursors (README Conventions, Paging) and the exact order totals
// kept by triggers (docs/architecture.md, "Lists at a million orders").

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/uptrace/bun"

	"storeadmin/internal/app/apitest"
	"storeadmin/internal/auth"
	"storeadmin/models"
)

// pgOrders makes 23 orders whose totals and creation times repeat, so
// every sort has ties that only the id breaks; every third is tagged vip.
func pgOrders(t *testing.T, e *apitest.Env, storeID int64) {
	t.Helper()
	base := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	for i := range 23 {
		spec := orderSpec{
			lines:     []orderLine{{sku: fmt.Sprintf("SKU-%d", i%4), price: int64(1000 * (1 + i%3)), quantity: 1}},
			createdAt: base.Add(time.Duration(i%5) * time.Hour).Add(123456 * time.Microsecond),
		}
		if i%3 == 0 {
			spec.tags = []string{"vip"}
		}
		createOrder(t, e, storeID, spec)
	}
}

// pgWalk reads a REST list twice, page by page of 4: by offset, and by the
// cursors each page gives. It fails unless both give the same ids in the
// same order, the cursor of the last page is null, and the walk read
// every row (want). The list's payload holds rows, total, next_cursor and
// extra.
func pgWalk(t *testing.T, e *apitest.Env, key, path, rows string, want int, extra ...string) []int64 {
	t.Helper()
	sep := "?"
	if strings.Contains(path, "?") {
		sep = "&"
	}
	var byOffset []int64
	for offset := 0; ; offset += 4 {
		r := e.Do(http.MethodGet, fmt.Sprintf("%s%slimit=4&offset=%d", path, sep, offset), key, nil).Expect(t, http.StatusOK)
		page := pgIDs(r.List(rows))
		byOffset = append(byOffset, page...)
		if len(page) < 4 {
			break
		}
	}
	var byCursor []int64
	cursor := ""
	for pages := 0; ; pages++ {
		if pages > want {
			t.Fatalf("%s: the cursors never end", path)
		}
		q := path + sep + "limit=4"
		if cursor != "" {
			q += "&cursor=" + url.QueryEscape(cursor)
		}
		r := e.Do(http.MethodGet, q, key, nil).Expect(t, http.StatusOK)
		expectPayload(t, r, append([]string{rows, "total", "next_cursor"}, extra...)...)
		byCursor = append(byCursor, pgIDs(r.List(rows))...)
		next, ok := r.Body["next_cursor"].(string)
		if !ok {
			if r.Body["next_cursor"] != nil {
				t.Fatalf("%s: next_cursor %v", q, r.Body["next_cursor"])
			}
			break
		}
		if strings.ContainsAny(next, "+/=%& ") {
			t.Fatalf("%s: cursor %q is not URL-safe", q, next)
		}
		cursor = next
	}
	if !slices.Equal(byOffset, byCursor) {
		t.Fatalf("%s: by offset %v, by cursor %v", path, byOffset, byCursor)
	}
	if len(byCursor) != want || slices.Contains(byCursor, 0) || len(slices.Compact(slices.Sorted(slices.Values(byCursor)))) != want {
		t.Fatalf("%s: walked %v, want %d distinct rows", path, byCursor, want)
	}
	return byCursor
}

// TestCursorWalkMatchesOffsetOrders walks the orders list by cursor under
// every sort, and under a filter, and gets what offset paging gives.
func TestCursorWalkMatchesOffsetOrders(t *testing.T) {
	e, s, key := newAcme(t)
	pgOrders(t, e, s.ID)
	for _, sort := range []string{"", "created_at", "-created_at", "order_number", "-order_number", "total", "-total", "updated_at", "-updated_at"} {
		path := "/store/orders"
		if sort != "" {
			path += "?sort=" + sort
		}
		pgWalk(t, e, key, path, "orders", 23)
	}
	pgWalk(t, e, key, "/store/orders?tag=vip&sort=-total", "orders", 8)
	pgWalk(t, e, key, "/store/orders?q=sku-1&sort=created_at", "orders", 6)
}

// TestCursorWalkMatchesOffsetProducts does the same for products, whose
// sorts include computed keys (lower(title), the lowest variant price of
// a product, none for one without variants).
func TestCursorWalkMatchesOffsetProducts(t *testing.T) {
	e, s, key := newAcme(t)
	seedProducts(t, e, s.ID, 9)
	for i := range 3 {
		insertProduct(t, e, s.ID, fmt.Sprintf("bare-%d", i))
	}
	for _, sort := range []string{"", "title", "-title", "created_at", "-created_at", "updated_at", "-updated_at", "price", "-price", "vendor", "-vendor"} {
		path := "/store/products"
		if sort != "" {
			path += "?sort=" + sort
		}
		pgWalk(t, e, key, path, "products", 12)
	}
	pgWalk(t, e, key, "/store/products?status=active&sort=-price", "products", 12)
}

// TestCursorRefused: a cursor that was altered or cut, or that another
// sort, filter or store made, is a 400 saying so, never rows of another
// list; so is a cursor sent with an offset.
func TestCursorRefused(t *testing.T) {
	e, s, key := newAcme(t)
	pgOrders(t, e, s.ID)
	r := e.Do(http.MethodGet, "/store/orders?limit=4&sort=-total", key, nil).Expect(t, http.StatusOK)
	cursor := r.Body["next_cursor"].(string)
	data, sum, _ := strings.Cut(cursor, ".")
	flipped := []byte(data)
	flipped[2] ^= 1
	for _, tc := range []struct{ name, query string }{
		{"altered", "sort=-total&cursor=" + string(flipped) + "." + sum},
		{"cut", "sort=-total&cursor=" + cursor[:len(cursor)-2]},
		{"no checksum", "sort=-total&cursor=" + data},
		{"garbage", "sort=-total&cursor=%21%21"},
		{"another sort", "sort=total&cursor=" + cursor},
		{"another filter", "sort=-total&tag=vip&cursor=" + cursor},
		{"empty", "sort=-total&cursor="},
	} {
		r := e.Do(http.MethodGet, "/store/orders?limit=4&"+tc.query, key, nil).Expect(t, http.StatusBadRequest)
		if !strings.Contains(r.Message(), "cursor") {
			t.Fatalf("%s: message %q does not name the cursor", tc.name, r.Message())
		}
	}
	r = e.Do(http.MethodGet, "/store/orders?limit=4&offset=4&sort=-total&cursor="+cursor, key, nil).Expect(t, http.StatusBadRequest)
	if !strings.Contains(r.Message(), "offset or cursor") {
		t.Fatalf("offset with cursor: %q", r.Message())
	}

	// Another store, with orders of its own: the first store's cursor shows
	// it none of them and none of the first store's.
	other := e.Store("Other")
	otherKey := e.Key(other.ID, auth.RoleAdmin)
	pgOrders(t, e, other.ID)
	e.Do(http.MethodGet, "/store/orders?limit=4&sort=-total&cursor="+cursor, otherKey, nil).Expect(t, http.StatusBadRequest)
	g := e.GraphQL(otherKey, `query($c: String) { orders(limit: 4, cursor: $c, filter: {sort: "-total"}) { id } }`, map[string]any{"c": cursor})
	if g.ErrorCode() != "BAD_USER_INPUT" || g.Data() != nil && g.Data()["orders"] != nil {
		t.Fatalf("another store's cursor on GraphQL: %s", g.Raw)
	}
}

// TestCursorSameOnBothSurfaces: GraphQL's ordersNextCursor and
// productsNextCursor answer REST's next_cursor, and asking for the cursor
// with the list costs no statement.
func TestCursorSameOnBothSurfaces(t *testing.T) {
	e, s, key := newAcme(t)
	pgOrders(t, e, s.ID)
	seedProducts(t, e, s.ID, 6)
	rest := e.Do(http.MethodGet, "/store/orders?limit=5&sort=total", key, nil).Expect(t, http.StatusOK)
	g := e.GraphQL(key, `{ orders(limit: 5, filter: {sort: "total"}) { id } ordersNextCursor(limit: 5, filter: {sort: "total"}) }`, nil)
	if got := g.Data()["ordersNextCursor"]; got == nil || got != rest.Body["next_cursor"] {
		t.Fatalf("GraphQL cursor %v, REST %v", got, rest.Body["next_cursor"])
	}
	next := g.Data()["ordersNextCursor"].(string)
	rest = e.Do(http.MethodGet, "/store/orders?limit=5&sort=total&cursor="+next, key, nil).Expect(t, http.StatusOK)
	g = e.GraphQL(key, `query($c: String) { orders(limit: 5, cursor: $c, filter: {sort: "total"}) { id } }`, map[string]any{"c": next})
	if !slices.Equal(pgIDs(rest.List("orders")), pgIDs(g.Data()["orders"].([]any))) {
		t.Fatalf("page after the cursor: REST %s, GraphQL %s", rest.Raw, g.Raw)
	}
	prest := e.Do(http.MethodGet, "/store/products?limit=2&sort=price", key, nil).Expect(t, http.StatusOK)
	pg := e.GraphQL(key, `{ productsNextCursor(limit: 2, filter: {sort: "price"}) }`, nil)
	if pg.Data()["productsNextCursor"] != prest.Body["next_cursor"] {
		t.Fatalf("products: GraphQL %s, REST %v", pg.Raw, prest.Body["next_cursor"])
	}

	count := countStatements(e)
	list := count(func() { e.GraphQL(key, `{ orders(limit: 5) { id } }`, nil) })
	both := count(func() { e.GraphQL(key, `{ orders(limit: 5) { id } ordersNextCursor(limit: 5) }`, nil) })
	if both != list {
		t.Fatalf("the list cost %d statements, with its cursor %d", list, both)
	}
}

// TestOrderTotalsFollowEveryWrite: the totals the counts tables answer
// (statuses and a created_at range, whole days and partial ones) equal
// count(*) after inserts, status changes through the API, and deletes, in
// every store.
func TestOrderTotalsFollowEveryWrite(t *testing.T) {
	e, s, key := newAcme(t)
	other := e.Store("Other")
	var ids []int64
	day0 := time.Date(2026, 5, 1, 0, 0, 0, 0, time.UTC)
	for i := range 12 {
		payment := []string{"paid", "pending", "authorized"}[i%3]
		at := day0.Add(time.Duration(i) * 9 * time.Hour) // over five days
		ids = append(ids, createOrder(t, e, s.ID, orderSpec{payment: payment, createdAt: at}).ID)
	}
	createOrder(t, e, other.ID, orderSpec{})
	e.Do(http.MethodPost, orderPath(ids[0])+"/cancel", key, map[string]any{"reason": "customer"}).Expect(t, http.StatusOK)
	e.Do(http.MethodPost, orderPath(ids[1])+"/archive", key, nil).Expect(t, http.StatusOK)
	if _, err := e.DB.NewDelete().TableExpr("orders").Where("id = ?", ids[2]).Exec(context.Background()); err != nil {
		t.Fatal(err)
	}
	filters := []string{"", "status=open", "status=cancelled", "status=archived", "financial_status=paid",
		"financial_status=pending", "financial_status=authorized", "fulfillment_status=unfulfilled",
		"status=open&financial_status=pending&fulfillment_status=unfulfilled",
		"created_at_min=2026-05-01T00:00:00Z", "created_at_min=2026-05-02T04:00:00Z",
		"created_at_max=2026-05-03T00:00:00Z", "created_at_max=2026-05-03T20:59:59Z",
		"created_at_min=2026-05-01T09:00:00Z&created_at_max=2026-05-04T09:00:00Z",
		"created_at_min=2026-05-01T10:00:00Z&created_at_max=2026-05-04T08:00:00Z&financial_status=paid",
		"created_at_min=2026-05-02T01:00:00Z&created_at_max=2026-05-02T23:00:00Z",
		"created_at_min=2026-05-02T00:00:00Z&created_at_max=2026-05-03T00:00:00Z"}
	for _, f := range filters {
		r := e.Do(http.MethodGet, "/store/orders?limit=1&"+f, key, nil).Expect(t, http.StatusOK)
		q := e.DB.NewSelect().TableExpr("orders").Where("store_id = ?", s.ID)
		for _, cond := range strings.Split(f, "&") {
			name, value, ok := strings.Cut(cond, "=")
			switch {
			case !ok:
			case name == "created_at_min":
				q = q.Where("created_at >= ?", value)
			case name == "created_at_max":
				q = q.Where("created_at <= ?", value)
			default:
				q = q.Where("? = ?", bun.Ident(name), value)
			}
		}
		want, err := q.Count(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if got := wholeNumber(t, r.Body["total"]); got != int64(want) {
			t.Fatalf("%q: total %d, want %d", f, got, want)
		}
	}
	var rows int
	if err := e.DB.NewRaw("SELECT (SELECT count(*) FROM order_counts WHERE n = 0) + (SELECT count(*) FROM order_day_counts WHERE n = 0)").
		Scan(context.Background(), &rows); err != nil || rows != 0 {
		t.Fatalf("counts of zero kept: %d %v", rows, err)
	}
}

// pgIDs are the ids of a list's rows, in order (a review's id is a
// string).
func pgIDs(rows []any) []int64 {
	out := make([]int64, len(rows))
	for i, r := range rows {
		switch id := r.(map[string]any)["id"].(type) {
		case string:
			out[i], _ = strconv.ParseInt(id, 10, 64)
		default:
			out[i], _ = asWhole(id)
		}
	}
	return out
}

// TestPriceSortFollowsVariants: the price sort reads each product's lowest
// variant price as the variants' trigger keeps it, through every change of
// variants: a new price, a variant added, the variants removed.
func TestPriceSortFollowsVariants(t *testing.T) {
	e, _, key := newAcme(t)
	a := createSimpleProduct(t, e, key, "A", 3000, nil)
	b := createSimpleProduct(t, e, key, "B", 2000, nil)
	c := createSimpleProduct(t, e, key, "C", 1000, nil)
	order := func(sort string) []int64 {
		return pgIDs(e.Do(http.MethodGet, "/store/products?sort="+sort, key, nil).Expect(t, http.StatusOK).List("products"))
	}
	if got := order("price"); !slices.Equal(got, []int64{c, b, a}) {
		t.Fatalf("price: %v", got)
	}
	putProduct(t, e, key, c, map[string]any{"variants": []any{map[string]any{"price_cents": 5000}}})
	putProduct(t, e, key, a, map[string]any{"options": []any{map[string]any{"name": "Size"}},
		"variants": []any{map[string]any{"option1": "S", "price_cents": 3000}, map[string]any{"option1": "M", "price_cents": 500}}})
	if got := order("price"); !slices.Equal(got, []int64{a, b, c}) {
		t.Fatalf("price after new prices: %v", got)
	}
	if _, err := e.DB.NewDelete().TableExpr("product_variants").Where("product_id = ?", a).Exec(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got := order("price"); !slices.Equal(got, []int64{b, c, a}) {
		t.Fatalf("price, a without variants last: %v", got)
	}
	if got := order("-price"); !slices.Equal(got, []int64{c, b, a}) {
		t.Fatalf("-price, a without variants last: %v", got)
	}
}

// TestCursorWalkOtherLists: the audit log, the drafts and the reviews,
// newest first, walked by cursor, are what offset paging gives, with rows
// made in the same instant (one statement) among them.
func TestCursorWalkOtherLists(t *testing.T) {
	e, s, key := newAcme(t)
	for i := range 9 {
		e.Do(http.MethodPut, "/store/settings", key, map[string]any{"namespace": "shop", "key": fmt.Sprintf("k%d", i), "value": i}).Expect(t, http.StatusOK)
	}
	pgWalk(t, e, key, "/store/audit-logs", "logs", 9)
	pgWalk(t, e, key, "/store/audit-logs?action=putStoreSetting", "logs", 9)

	ds := newDraftOrderStore(t, e, "Drafts")
	for i := range 7 {
		createDraftOrder(t, e, ds.admin, map[string]any{"email": fmt.Sprintf("d%d@example.com", i)})
	}
	pgWalk(t, e, ds.admin, "/store/draft-orders", "draft_orders", 7)

	var rs []models.Review
	p := insertProduct(t, e, s.ID, "reviewed")
	for i := range 10 {
		rs = append(rs, models.Review{StoreID: s.ID, ProductID: p, Rating: 1 + int64(i%5), Author: "A", Status: models.ReviewPublished, Source: "storefront"})
	}
	if err := models.InsertReviews(context.Background(), e.DB, rs); err != nil {
		t.Fatal(err)
	}
	pgWalk(t, e, key, "/store/reviews", "reviews", 10, "counts")
}

// TestListCountReadWithItsPage: a query that asks for a page of orders or
// products and, after it, for the list's count with the same filter reads
// both in one statement, and the count is the one it answers alone: for
// every filter (the order counts tables' and a plain count(*)), an offset
// past the end (no row to carry the total: the count reads its own), a
// count asked first or with another filter (its own statement), and on
// both surfaces.
func TestListCountReadWithItsPage(t *testing.T) {
	e := apitest.New(t)
	s := e.Store("Counts")
	key := e.Key(s.ID, auth.RoleAdmin)
	pgOrders(t, e, s.ID)
	seedProducts(t, e, s.ID, 12)
	e.GraphQL(key, `{ currentStoreId }`, nil) // the key, cached
	count := countStatements(e)
	alone := func(field, filter string) float64 {
		t.Helper()
		r := e.GraphQL(key, fmt.Sprintf(`{ n: %s%s }`, field, filter), nil)
		if r.Status != http.StatusOK || r.Body["errors"] != nil {
			t.Fatalf("%s%s: %d %s", field, filter, r.Status, r.Raw)
		}
		return r.Data()["n"].(float64)
	}
	for _, c := range []struct {
		list, count, filter, page string
		statements                int64
	}{
		{"orders", "ordersCount", "", "(limit: 5)", 1},
		{"orders", "ordersCount", `(filter: {financial_status: "paid"})`, `(limit: 5, filter: {financial_status: "paid"})`, 1},
		{"orders", "ordersCount", `(filter: {tag: "vip"})`, `(limit: 5, filter: {tag: "vip"})`, 1},
		{"orders", "ordersCount", `(filter: {created_at_min: "2026-03-01T14:00:00Z"})`, `(limit: 5, filter: {created_at_min: "2026-03-01T14:00:00Z"})`, 1},
		{"orders", "ordersCount", "", "(limit: 5, offset: 500)", 2},
		{"products", "productsCount", "", "(limit: 5)", 1},
		{"products", "productsCount", `(filter: {status: "active"})`, `(limit: 5, filter: {status: "active"})`, 1},
	} {
		want := alone(c.count, c.filter)
		var r *apitest.Response
		n := count(func() {
			r = e.GraphQL(key, fmt.Sprintf(`{ %s%s { id } n: %s%s }`, c.list, c.page, c.count, c.filter), nil)
		})
		if r.Status != http.StatusOK || r.Body["errors"] != nil {
			t.Fatalf("%s%s: %d %s", c.list, c.page, r.Status, r.Raw)
		}
		if got := r.Data()["n"].(float64); got != want || n != c.statements {
			t.Fatalf("%s%s with %s%s: count %v in %d statements, want %v in %d", c.list, c.page, c.count, c.filter, got, n, want, c.statements)
		}
	}
	// A count asked before its list, or with another filter, is read on its own.
	for _, q := range []string{
		`{ n: ordersCount orders(limit: 5) { id } }`,
		`{ orders(limit: 5) { id } n: ordersCount(filter: {tag: "vip"}) }`,
	} {
		if n := count(func() { e.GraphQL(key, q, nil) }); n != 2 {
			t.Fatalf("%s: %d statements, want 2", q, n)
		}
	}
	// REST answers the same total as the count alone, in one statement.
	var r *apitest.Response
	if n := count(func() { r = e.Do(http.MethodGet, "/store/orders?limit=5&tag=vip", key, nil).Expect(t, http.StatusOK) }); n != 1 {
		t.Fatalf("GET /store/orders: %d statements, want 1", n)
	}
	if got, want := r.Body["total"].(float64), alone("ordersCount", `(filter: {tag: "vip"})`); got != want {
		t.Fatalf("GET /store/orders?tag=vip total %v, want %v", got, want)
	}
}
