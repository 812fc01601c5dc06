package apitest_test

import (
	"context"
	"fmt"
	"maps"
	"net/http"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"storeadmin/graph"
	"storeadmin/internal/app/apitest"
	"storeadmin/internal/auth"
	"storeadmin/rest"
)

// The fields of the spec's checkout page views, exactly.
var (
	ckPageSpec     = map[string]string{"id": "i", "is_default": "b", "name": "s", "sections": "any", "updated_at": "ts"}
	ckPageListSpec = map[string]string{"id": "i", "is_default": "b", "name": "s", "sections": "any", "updated_at": "ts", "funnel_count": "i"}
)

func ckPagePath(id int64) string { return "/store/checkout-pages/" + strconv.FormatInt(id, 10) }

// ckPages is the REST resource of checkout pages: a list row carries
// funnel_count, a page read or written does not.
var ckPages = crudResource{path: "/store/checkout-pages", item: ckPagePath, one: "page", many: "pages",
	view:   func(t *testing.T, v any) map[string]any { return checkObject(t, "page", v, ckPageSpec) },
	detail: func(t *testing.T, v any) map[string]any { return checkObject(t, "page", v, ckPageSpec) }}

// ckPageRows lists the store's pages over REST, each checked as a list row.
func ckPageRows(t *testing.T, e *apitest.Env, key string) ([]map[string]any, *apitest.Response) {
	t.Helper()
	r := e.Do(http.MethodGet, "/store/checkout-pages?limit=250", key, nil).Expect(t, 200)
	expectPayload(t, r, "pages", "total")
	return checkObjects(t, "pages", r.Body["pages"], ckPageListSpec), r
}

// ckInsertFunnel stores an upsell funnel with plain SQL (the funnels API
// is another area's), using the checkout page pageID (0: none).
func ckInsertFunnel(t *testing.T, e *apitest.Env, storeID int64, name string, pageID int64, enabled bool) int64 {
	t.Helper()
	var page *int64
	if pageID != 0 {
		page = &pageID
	}
	var id int64
	err := e.DB.QueryRowContext(context.Background(),
		`INSERT INTO upsell_funnels (store_id, name, enabled, timeout_seconds, checkout_page_id) VALUES (?, ?, ?, 600, ?) RETURNING id`,
		storeID, name, enabled, page).Scan(&id)
	if err != nil {
		t.Fatal(err)
	}
	return id
}

// ckDefaults are the ids of the store's default pages, as stored.
func ckDefaults(t *testing.T, e *apitest.Env, storeID int64) []int64 {
	t.Helper()
	var ids []int64
	if err := e.DB.NewSelect().Table("checkout_pages").Column("id").Where("store_id = ? AND is_default", storeID).
		Scan(context.Background(), &ids); err != nil {
		t.Fatal(err)
	}
	return ids
}

// ckSections is a valid page design touching every section type.
func ckSections() []any {
	return []any{
		map[string]any{"type": "contact", "settings": map[string]any{"heading": "  Contact  ", "marketing_opt_in": true}},
		map[string]any{"type": "delivery", "settings": map[string]any{"phone": "required", "show_company": false}},
		map[string]any{"type": "shipping_method"},
		map[string]any{"type": "tip", "settings": map[string]any{}},
		map[string]any{"type": "payment", "settings": map[string]any{"show_payment_icons": true, "heading": nil}},
		map[string]any{"type": "order_summary", "settings": map[string]any{"show_discount_field": true, "collapsed_on_mobile": true}},
		map[string]any{"type": "trust_badges", "settings": map[string]any{"badges": []any{"secure_checkout", "money_back"}}},
		map[string]any{"type": "text", "settings": map[string]any{"body": "Ships in 2 days ✓", "align": "center"}},
		map[string]any{"type": "image", "settings": map[string]any{"url": "https://cdn.example.com/b.png", "alt": "Badge", "width_percent": 50}},
		map[string]any{"type": "testimonial", "settings": map[string]any{"quote": "Great", "rating": 5}},
		map[string]any{"type": "countdown", "settings": map[string]any{"minutes": 15}},
		map[string]any{"type": "divider"},
	}
}

// ckSameWrite sends the persisted write op with vars on GraphQL and fails
// unless it answers the REST answer r's page, but for updated_at, which
// the second write moved.
func ckSameWrite(t *testing.T, e *apitest.Env, r *apitest.Response, key, op string, vars map[string]any) {
	t.Helper()
	text, err := rest.OperationText(graph.Schema(), op)
	if err != nil {
		t.Fatal(err)
	}
	g := e.GraphQL(key, text, vars)
	got, _ := g.Data()["page"].(map[string]any)
	want := maps.Clone(r.Obj("page"))
	if got == nil || !hasType("ts", got["updated_at"]) {
		t.Fatalf("GraphQL %s: %s", op, g.Raw)
	}
	got = maps.Clone(got)
	delete(got, "updated_at")
	delete(want, "updated_at")
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("REST and GraphQL disagree on %s:\nREST:    %v\nGraphQL: %v", op, want, got)
	}
}

// TestCheckoutPages: the life of checkout pages over REST, with the same
// answers on GraphQL: the first is the default, the default moves, and a
// page funnels use cannot go.
func TestCheckoutPages(t *testing.T) {
	e, s, admin := newAcme(t)
	reader := e.Key(s.ID, auth.RoleStaff, "checkout:read")

	// The first page is the default; sections left out are the standard
	// checkout (null).
	std := ckPages.create(t, e, admin, map[string]any{"name": "  Standard "})
	stdID := idOf(t, std)
	if std["name"] != "Standard" || std["is_default"] != true || std["sections"] != nil {
		t.Fatalf("first page %v", std)
	}
	// Sections are stored normalised: each exactly {type, settings}, texts
	// trimmed, null settings dropped.
	express := ckPages.create(t, e, admin, map[string]any{"name": "Express", "sections": ckSections()})
	expressID := idOf(t, express)
	if express["is_default"] != false {
		t.Fatalf("second page is default: %v", express)
	}
	sections := express["sections"].([]any)
	if len(sections) != 12 {
		t.Fatalf("sections %v", sections)
	}
	if got, want := sections[0], map[string]any{"type": "contact", "settings": map[string]any{"heading": "Contact", "marketing_opt_in": true}}; !reflect.DeepEqual(got, want) {
		t.Fatalf("contact section %v, want %v", got, want)
	}
	if got, want := sections[2], map[string]any{"type": "shipping_method", "settings": map[string]any{}}; !reflect.DeepEqual(got, want) {
		t.Fatalf("a section without settings %v, want %v", got, want)
	}
	if got := sections[4].(map[string]any)["settings"]; !reflect.DeepEqual(got, map[string]any{"show_payment_icons": true}) {
		t.Fatalf("a null setting is kept: %v", got)
	}

	// Reads: one page, and the list by id with funnel counts.
	got, one := ckPages.get(t, e, reader, expressID)
	if !reflect.DeepEqual(got, express) {
		t.Fatalf("GET %v\nwant %v", got, express)
	}
	e.SameOnGraphQL(t, one, reader, "GetCheckoutPage", map[string]any{"id": expressID})
	// A page read can be sent back as it is: what is read-only is dropped.
	if back, _ := ckPages.put(t, e, admin, expressID, got); back["is_default"] != false || !reflect.DeepEqual(back["sections"], express["sections"]) {
		t.Fatalf("PUT of the GET %v", back)
	}
	funnelA := ckInsertFunnel(t, e, s.ID, "Summer upsell", expressID, true)
	funnelB := ckInsertFunnel(t, e, s.ID, "Bundle builder", expressID, false)
	ckInsertFunnel(t, e, s.ID, "No page", 0, true)
	rows, list := ckPageRows(t, e, reader)
	if !slices.Equal(rowIDs(rows), []int64{stdID, expressID}) || list.Body["total"] != float64(2) ||
		rows[0]["funnel_count"] != float64(0) || rows[1]["funnel_count"] != float64(2) {
		t.Fatalf("list %s", list.Raw)
	}
	e.SameOnGraphQL(t, list, reader, "ListCheckoutPages", map[string]any{"limit": 250})
	// A list that asks only for the counts still reads the ids they need.
	g := e.GraphQL(reader, `{ checkoutPages { funnel_count } }`, nil)
	if want := []any{map[string]any{"funnel_count": float64(0)}, map[string]any{"funnel_count": float64(2)}}; !reflect.DeepEqual(g.Data()["checkoutPages"], want) {
		t.Fatalf("counts alone: %s", g.Raw)
	}
	page := e.Do(http.MethodGet, "/store/checkout-pages?limit=1&offset=1", reader, nil).Expect(t, 200)
	if l := page.List("pages"); len(l) != 1 || l[0].(map[string]any)["id"] != float64(expressID) || page.Body["total"] != float64(2) {
		t.Fatalf("page 2: %s", page.Raw)
	}

	// Updates merge: left out stays, sections null goes back to the
	// standard checkout.
	u, put := ckPages.put(t, e, admin, expressID, map[string]any{"name": "Express checkout"})
	if u["name"] != "Express checkout" || !reflect.DeepEqual(u["sections"], express["sections"]) || u["is_default"] != false {
		t.Fatalf("rename %v", u)
	}
	ckSameWrite(t, e, put, admin, "UpdateCheckoutPage", map[string]any{"id": expressID, "input": map[string]any{"name": "Express checkout"}})
	if u, _ = ckPages.put(t, e, admin, expressID, map[string]any{"sections": nil}); u["sections"] != nil || u["name"] != "Express checkout" {
		t.Fatalf("sections null: %v", u)
	}
	// PUT …/sections replaces them; it must send them.
	design := []any{map[string]any{"type": "contact"}, map[string]any{"type": "payment"}}
	r := e.Do(http.MethodPut, ckPagePath(expressID)+"/sections", admin, map[string]any{"sections": design}).Expect(t, 200)
	expectPayload(t, r, "page")
	if secs := checkObject(t, "page", r.Body["page"], ckPageSpec)["sections"].([]any); len(secs) != 2 {
		t.Fatalf("sections %s", r.Raw)
	}
	ckSameWrite(t, e, r, admin, "SetCheckoutPageSections", map[string]any{"id": expressID, "input": map[string]any{"sections": design}})
	if r := e.Do(http.MethodPut, ckPagePath(expressID)+"/sections", admin, map[string]any{}).Expect(t, 400); !strings.Contains(r.Message(), "sections is required") {
		t.Fatalf("no sections: %q", r.Message())
	}
	r = e.Do(http.MethodPut, ckPagePath(stdID)+"/sections", admin, map[string]any{"sections": nil}).Expect(t, 200)
	if r.Obj("page")["sections"] != nil {
		t.Fatalf("null sections: %s", r.Raw)
	}

	// The default moves; the old one stops being it in the same write.
	r = e.Do(http.MethodPut, ckPagePath(expressID)+"/default", admin, nil).Expect(t, 200)
	expectPayload(t, r, "page")
	if r.Obj("page")["is_default"] != true || !slices.Equal(ckDefaults(t, e, s.ID), []int64{expressID}) {
		t.Fatalf("move default: %s; defaults %v", r.Raw, ckDefaults(t, e, s.ID))
	}
	e.SameOnGraphQL(t, r, admin, "SetDefaultCheckoutPage", map[string]any{"id": expressID})
	if !slices.Equal(ckDefaults(t, e, s.ID), []int64{expressID}) {
		t.Fatalf("defaults after moving to the default again: %v", ckDefaults(t, e, s.ID))
	}

	// A page funnels use cannot go: 409 naming them, name and id.
	r = e.Do(http.MethodDelete, ckPagePath(expressID), admin, nil).Expect(t, 409)
	if want := fmt.Sprintf("used by the upsell funnels Summer upsell (%d), Bundle builder (%d)", funnelA, funnelB); !strings.Contains(r.Message(), want) {
		t.Fatalf("delete a used page: %q, want it to say %q", r.Message(), want)
	}
	// Nor the default while there are others.
	if _, err := e.DB.ExecContext(context.Background(), `UPDATE upsell_funnels SET checkout_page_id = NULL`); err != nil {
		t.Fatal(err)
	}
	if r = e.Do(http.MethodDelete, ckPagePath(expressID), admin, nil).Expect(t, 409); !strings.Contains(r.Message(), "default") {
		t.Fatalf("delete the default: %q", r.Message())
	}
	expectGraphQLCode(t, e, admin, "CONFLICT", map[string]any{"id": expressID}, `mutation($id: Int!) { deleteCheckoutPage(id: $id) }`)
	// Another page goes; then the last one, default or not.
	expectBareDelete(t, e, admin, ckPagePath(stdID))
	e.Do(http.MethodGet, ckPagePath(stdID), admin, nil).Expect(t, 404)
	expectBareDelete(t, e, admin, ckPagePath(expressID))
	if rows, _ := ckPageRows(t, e, admin); len(rows) != 0 {
		t.Fatalf("pages left: %v", rows)
	}
	// A new first page is the default again.
	if p := ckPages.create(t, e, admin, map[string]any{"name": "Again"}); p["is_default"] != true {
		t.Fatalf("first page after deleting them all: %v", p)
	}

	// The writes name their records in the audit log.
	expectAuditRecord(t, e, admin, "action=setDefaultCheckoutPage&limit=1", "checkout_page", expressID)
	expectAuditRecord(t, e, admin, "action=updateCheckoutPage&limit=1", "checkout_page", expressID)
}

// TestCheckoutPageDefaultTakesTurns: first pages created at once and the
// default moved at once from many requests leave exactly one default, and
// every request succeeds.
func TestCheckoutPageDefaultTakesTurns(t *testing.T) {
	e, s, admin := newAcme(t)
	const n = 6
	ids := make([]int64, n)
	var wg sync.WaitGroup
	statuses := make([]int, n)
	for i := range n {
		wg.Go(func() {
			r := e.Do(http.MethodPost, "/store/checkout-pages", admin, map[string]any{"name": "P" + strconv.Itoa(i)})
			statuses[i] = r.Status
			ids[i], _ = asWhole(r.Obj("page")["id"])
		})
	}
	wg.Wait()
	for i, st := range statuses {
		if st != 201 {
			t.Fatalf("create %d: status %d", i, st)
		}
	}
	if d := ckDefaults(t, e, s.ID); len(d) != 1 {
		t.Fatalf("defaults after concurrent first pages: %v", d)
	}
	for round := range 3 {
		for i := range n {
			wg.Go(func() {
				statuses[i] = e.Do(http.MethodPut, ckPagePath(ids[(i+round)%n])+"/default", admin, nil).Status
			})
		}
		wg.Wait()
		for i, st := range statuses {
			if st != 200 {
				t.Fatalf("round %d, move %d: status %d", round, i, st)
			}
		}
		if d := ckDefaults(t, e, s.ID); len(d) != 1 {
			t.Fatalf("round %d: defaults %v", round, d)
		}
	}
}

// TestCheckoutPageSectionsValidation: a design that is not one is a 400
// naming the path at fault, on create, update and PUT …/sections, and
// nothing is written.
func TestCheckoutPageSectionsValidation(t *testing.T) {
	e, _, admin := newAcme(t)
	withSection := func(extra ...any) []any {
		return append([]any{map[string]any{"type": "contact"}, map[string]any{"type": "payment"}}, extra...)
	}
	many := withSection()
	for range 29 {
		many = append(many, map[string]any{"type": "divider"})
	}
	big := withSection()
	for range 20 {
		big = append(big, map[string]any{"type": "text", "settings": map[string]any{"body": strings.Repeat("x", 1900)}})
	}
	cases := []struct {
		name     string
		sections any
		says     string
	}{
		{"not a list", map[string]any{"type": "contact"}, "sections must be a list"},
		{"empty", []any{}, "sections must include a contact section"},
		{"no payment", []any{map[string]any{"type": "contact"}}, "sections must include a payment section"},
		{"a section not an object", withSection("text"), "sections[2] must be an object"},
		{"unknown type", withSection(map[string]any{"type": "video"}), `sections[2].type must be one of contact, delivery, shipping_method, payment, order_summary, tip, text, image, trust_badges, testimonial, countdown, divider, not "video"`},
		{"no type", withSection(map[string]any{"settings": map[string]any{}}), "sections[2].type is required"},
		{"type not a string", withSection(map[string]any{"type": 3}), "sections[2].type must be a string"},
		{"unknown field", withSection(map[string]any{"type": "divider", "id": "x"}), "sections[2].id is not a field of a section"},
		{"settings not an object", withSection(map[string]any{"type": "text", "settings": []any{}}), "sections[2].settings must be an object"},
		{"unknown setting", withSection(map[string]any{"type": "text", "settings": map[string]any{"body": "b", "colour": "red"}}),
			"sections[2].settings.colour is not a setting of a text section; it takes align, body, heading"},
		{"a setting of another type", []any{map[string]any{"type": "contact", "settings": map[string]any{"badges": []any{"ssl"}}}, map[string]any{"type": "payment"}},
			"sections[0].settings.badges is not a setting of a contact section"},
		{"long heading", withSection(map[string]any{"type": "text", "settings": map[string]any{"body": "b", "heading": strings.Repeat("é", 121)}}),
			"sections[2].settings.heading must be at most 120 characters, not 121"},
		{"required setting", withSection(map[string]any{"type": "text"}), "sections[2].settings.body is required"},
		{"blank required setting", withSection(map[string]any{"type": "text", "settings": map[string]any{"body": "  "}}), "sections[2].settings.body must not be empty"},
		{"bool not a bool", []any{map[string]any{"type": "contact", "settings": map[string]any{"marketing_opt_in": "yes"}}, map[string]any{"type": "payment"}},
			"sections[0].settings.marketing_opt_in must be true or false"},
		{"not one of", withSection(map[string]any{"type": "delivery", "settings": map[string]any{"phone": "maybe"}}),
			`sections[2].settings.phone must be one of hidden, optional, required, not "maybe"`},
		{"number out of range", withSection(map[string]any{"type": "countdown", "settings": map[string]any{"minutes": 121}}),
			"sections[2].settings.minutes must be a whole number from 1 to 120, not 121"},
		{"number not whole", withSection(map[string]any{"type": "testimonial", "settings": map[string]any{"quote": "q", "rating": 4.5}}),
			"sections[2].settings.rating must be a whole number from 1 to 5, not 4.5"},
		{"http image", withSection(map[string]any{"type": "image", "settings": map[string]any{"url": "http://x.example/a.png"}}),
			`sections[2].settings.url must be an https:// URL`},
		{"unknown badge", withSection(map[string]any{"type": "trust_badges", "settings": map[string]any{"badges": []any{"ssl", "cheap"}}}),
			`sections[2].settings.badges[1] must be one of`},
		{"badge twice", withSection(map[string]any{"type": "trust_badges", "settings": map[string]any{"badges": []any{"ssl", "ssl"}}}),
			`sections[2].settings.badges[1]: ssl is listed twice`},
		{"two payment steps", withSection(map[string]any{"type": "payment"}), "sections[2].type: a page has one payment section, and sections[1] is one already"},
		{"too many", many, "sections may hold at most 30 sections, not 31"},
		{"too big", big, "sections must be at most 32768 bytes of JSON"},
	}
	pageID := idOf(t, ckPages.create(t, e, admin, map[string]any{"name": "Kept"}))
	before, _ := ckPages.get(t, e, admin, pageID)
	for _, c := range cases {
		for _, call := range []apitest.Call{
			{Method: http.MethodPost, Path: "/store/checkout-pages", Body: map[string]any{"name": "x", "sections": c.sections}},
			{Method: http.MethodPut, Path: ckPagePath(pageID), Body: map[string]any{"sections": c.sections}},
			{Method: http.MethodPut, Path: ckPagePath(pageID) + "/sections", Body: map[string]any{"sections": c.sections}},
		} {
			r := e.Do(call.Method, call.Path, admin, call.Body)
			if r.Status != 400 || !strings.Contains(r.Message(), c.says) {
				t.Fatalf("%s, %s %s: %d %q, want 400 saying %q", c.name, call.Method, call.Path, r.Status, r.Message(), c.says)
			}
			r.Expect(t, 400)
		}
	}
	g := e.GraphQL(admin, `mutation { createCheckoutPage(input: {name: "x", sections: [{type: "video"}]}) { id } }`, nil)
	if g.ErrorCode() != "BAD_USER_INPUT" || !strings.Contains(string(g.Raw), "sections[0].type must be one of") {
		t.Fatalf("GraphQL: %s", g.Raw)
	}
	// Names too.
	expectEach400(t, e, admin, "page create", http.MethodPost, "/store/checkout-pages", map[string]any{
		"no body": nil, "no name": map[string]any{}, "blank name": map[string]any{"name": " "},
		"long name": map[string]any{"name": strings.Repeat("a", 256)}, "name not a string": map[string]any{"name": 1},
		"unknown field": map[string]any{"name": "x", "colour": "red"},
	})
	expectEach400(t, e, admin, "page update", http.MethodPut, ckPagePath(pageID), map[string]any{
		"blank name": map[string]any{"name": ""}, "malformed JSON": `{"name": `,
	})
	if rows, _ := ckPageRows(t, e, admin); len(rows) != 1 {
		t.Fatalf("a refused create was written: %v", rows)
	}
	if after, _ := ckPages.get(t, e, admin, pageID); !reflect.DeepEqual(after, before) {
		t.Fatalf("a refused update was written:\n got  %v\n want %v", after, before)
	}
}

// TestCheckoutPagesAccess: reads are checkout:read (any role), writes
// checkout:write and admin; no key is 401; another store's page is 404.
func TestCheckoutPagesAccess(t *testing.T) {
	e, s, admin := newAcme(t)
	pageID := idOf(t, ckPages.create(t, e, admin, map[string]any{"name": "A"}))
	otherID := idOf(t, ckPages.create(t, e, admin, map[string]any{"name": "B"}))
	otherScope := e.Key(s.ID, auth.RoleAdmin, "shipping:read", "shipping:write")
	reads := []apitest.Call{{Method: http.MethodGet, Path: "/store/checkout-pages"}, {Method: http.MethodGet, Path: ckPagePath(pageID)}}
	writes := []apitest.Call{
		{Method: http.MethodPost, Path: "/store/checkout-pages", Body: map[string]any{"name": "C"}},
		{Method: http.MethodPut, Path: ckPagePath(pageID), Body: map[string]any{"name": "x"}},
		{Method: http.MethodPut, Path: ckPagePath(otherID) + "/default"},
		{Method: http.MethodPut, Path: ckPagePath(pageID) + "/sections", Body: map[string]any{"sections": nil}},
		{Method: http.MethodDelete, Path: ckPagePath(otherID)},
	}
	k := checkAccess(t, e, s.ID, "checkout", map[string]string{"other scope": otherScope}, reads, writes)
	expectGraphQLCode(t, e, k.readOnly, "FORBIDDEN", map[string]any{"id": pageID}, `mutation($id: Int!) { setDefaultCheckoutPage(id: $id) { id } }`)
	expectGraphQLCode(t, e, otherScope, "FORBIDDEN", nil, `{ checkoutPages { id } }`)
	expectGraphQLCode(t, e, "", "UNAUTHENTICATED", nil, `{ checkoutPagesCount }`)
	if rows, _ := ckPageRows(t, e, admin); len(rows) != 2 || rows[0]["is_default"] != true || rows[0]["name"] != "A" {
		t.Fatalf("a refused write was written: %v", rows)
	}

	// Another store's page is not found anywhere, and stays as it was.
	o := e.Store("Other")
	oKey := e.Key(o.ID, auth.RoleAdmin)
	theirs := ckPages.create(t, e, oKey, map[string]any{"name": "Theirs"})
	theirID := idOf(t, theirs)
	e.ExpectEach(t, 404, map[string]string{"this store's key": admin}, []apitest.Call{
		{Method: http.MethodGet, Path: ckPagePath(theirID)},
		{Method: http.MethodPut, Path: ckPagePath(theirID), Body: map[string]any{"name": "Hijacked"}},
		{Method: http.MethodPut, Path: ckPagePath(theirID) + "/default"},
		{Method: http.MethodPut, Path: ckPagePath(theirID) + "/sections", Body: map[string]any{"sections": nil}},
		{Method: http.MethodDelete, Path: ckPagePath(theirID)},
		{Method: http.MethodGet, Path: ckPagePath(987654)},
	})
	expectGraphQLCode(t, e, admin, "NOT_FOUND", map[string]any{"id": theirID},
		`query($id: Int!) { checkoutPage(id: $id) { id } }`,
		`mutation($id: Int!) { setDefaultCheckoutPage(id: $id) { id } }`,
		`mutation($id: Int!) { deleteCheckoutPage(id: $id) }`)
	if got, _ := ckPages.get(t, e, oKey, theirID); !reflect.DeepEqual(got, theirs) || !slices.Equal(ckDefaults(t, e, o.ID), []int64{theirID}) {
		t.Fatalf("their page changed: %v", got)
	}
	if !slices.Equal(ckDefaults(t, e, s.ID), []int64{pageID}) {
		t.Fatalf("this store's default: %v", ckDefaults(t, e, s.ID))
	}
	// Another store's funnels do not count.
	ckInsertFunnel(t, e, o.ID, "Theirs", theirID, true)
	if rows, _ := ckPageRows(t, e, admin); rows[0]["funnel_count"] != float64(0) {
		t.Fatalf("funnel count %v", rows[0])
	}
	e.Do(http.MethodGet, "/store/checkout-pages/abc", admin, nil).Expect(t, 400)
	e.Do(http.MethodPut, "/store/checkout-pages/1.5/default", admin, nil).Expect(t, 400)
}

// TestCheckoutPagesListStatementsDoNotGrowWithRows: funnel counts load for
// a whole list at once: 40 pages cost as many statements as 5.
func TestCheckoutPagesListStatementsDoNotGrowWithRows(t *testing.T) {
	e, s, key := newAcme(t)
	for i := range 40 {
		id := idOf(t, ckPages.create(t, e, key, map[string]any{"name": "P" + strconv.Itoa(i)}))
		ckInsertFunnel(t, e, s.ID, "F"+strconv.Itoa(i), id, true)
	}
	count := countStatements(e)
	gql, rest := map[int]int64{}, map[int]int64{}
	for _, n := range []int{5, 40} {
		gql[n] = count(func() {
			g := e.GraphQL(key, `query($n: Int) { checkoutPages(limit: $n) { id funnel_count } }`, map[string]any{"n": n})
			rows, _ := g.Data()["checkoutPages"].([]any)
			if len(rows) != n || rows[n-1].(map[string]any)["funnel_count"] != float64(1) {
				t.Fatalf("listed %d pages: %s", len(rows), g.Raw)
			}
		})
		rest[n] = count(func() {
			r := e.Do(http.MethodGet, "/store/checkout-pages?limit="+strconv.Itoa(n), key, nil).Expect(t, 200)
			if len(r.List("pages")) != n {
				t.Fatalf("REST list of %d: %s", n, r.Raw)
			}
		})
	}
	t.Logf("statements: GraphQL %d, REST %d, for 5 rows as for 40", gql[40], rest[40])
	if gql[5] != gql[40] || rest[5] != rest[40] {
		t.Fatalf("statements: GraphQL 5 → %d, 40 → %d; REST 5 → %d, 40 → %d", gql[5], gql[40], rest[5], rest[40])
	}
}
