package apitest_test

import (
	"context"
	"fmt"
	"net/http"
	"reflect"
	"testing"
	"time"

	"storeadmin/internal/app/apitest"
	"storeadmin/internal/auth"
)

func sessionKeys(rows []any) []string {
	var out []string
	for _, r := range rows {
		out = append(out, r.(map[string]any)["session_id"].(string))
	}
	return out
}

func TestSessionsList(t *testing.T) {
	e := apitest.New(t)
	s := e.Store("shop")
	f := newSessionsFixture(t, e, s.ID)
	key := e.Key(s.ID, auth.RoleStaff, "analytics:read")

	r := e.Do(http.MethodGet, "/store/sessions", key, nil).Expect(t, http.StatusOK)
	expectPayload(t, r, "grouped", "sessions", "total", "window")
	if r.Body["grouped"] != nil || wholeNumber(t, r.Body["total"]) != 3 {
		t.Fatalf("grouped %v total %v", r.Body["grouped"], r.Body["total"])
	}
	rows := r.List("sessions")
	if got := sessionKeys(rows); !reflect.DeepEqual(got, []string{"s_bounced", "s_carted", "s_buyer"}) {
		t.Fatalf("sessions newest first, bots and the old visit left out: %v", got)
	}
	buyer := rows[2].(map[string]any)
	if buyer["outcome"] != "purchased" || wholeNumber(t, buyer["orders"]) != 1 || wholeNumber(t, buyer["revenue_cents"]) != f.order.TotalCents ||
		wholeNumber(t, buyer["checkout_attempts"]) != 1 || buyer["visitor_email"] != "ana@example.com" || buyer["country"] != "US" ||
		wholeNumber(t, buyer["page_views"]) != 2 || wholeNumber(t, buyer["duration_seconds"]) != 12*60 {
		t.Fatalf("buyer %v", buyer)
	}
	if o := rows[1].(map[string]any)["outcome"]; o != "carted" {
		t.Fatalf("carted outcome %v", o)
	}
	if o := rows[0].(map[string]any)["outcome"]; o != "bounced" {
		t.Fatalf("bounced outcome %v", o)
	}
	window := r.Obj("window")
	from, _ := time.Parse(time.RFC3339, window["from"].(string))
	to, _ := time.Parse(time.RFC3339, window["to"].(string))
	if d := to.Sub(from); d != 30*24*time.Hour || !to.After(time.Now()) {
		t.Fatalf("default window %v", window)
	}
	e.SameOnGraphQL(t, r, key, "ListSessions", nil)

	// Filters.
	for query, want := range map[string][]string{
		"include_bots=true":            {"s_bounced", "s_bot", "s_carted", "s_buyer"},
		"country=de":                   {"s_bounced", "s_carted"},
		"city=austin":                  {"s_buyer"},
		"device=MOBILE&browser=safari": {"s_bounced", "s_carted"},
		"outcome=carted":               {"s_carted"},
		"has_orders=true":              {"s_buyer"},
		"has_orders=false":             {"s_bounced", "s_carted"},
		"utm_source=Google":            {"s_buyer"},
		"landing_path=/":               {"s_bounced", "s_carted", "s_buyer"},
		"days=60":                      {"s_bounced", "s_carted", "s_buyer", "s_old"},
		"limit=1&offset=1":             {"s_carted"},
		"from=" + time.Now().UTC().AddDate(0, 0, -45).Format("2006-01-02") + "&to=" + time.Now().UTC().AddDate(0, 0, -35).Format("2006-01-02"): {"s_old"},
	} {
		r := e.Do(http.MethodGet, "/store/sessions?"+query, key, nil).Expect(t, http.StatusOK)
		if got := sessionKeys(r.List("sessions")); !reflect.DeepEqual(got, want) {
			t.Errorf("%s: %v, want %v", query, got, want)
		}
		if query != "limit=1&offset=1" && wholeNumber(t, r.Body["total"]) != int64(len(want)) {
			t.Errorf("%s: total %v", query, r.Body["total"])
		}
	}
	e.SameOnGraphQL(t, e.Do(http.MethodGet, "/store/sessions?country=DE&days=7", key, nil).Expect(t, http.StatusOK),
		key, "ListSessions", map[string]any{"filter": map[string]any{"country": "DE", "days": 7}})

	// Another store sees none of them.
	other := e.Store("other")
	r = e.Do(http.MethodGet, "/store/sessions?include_bots=true&days=60", e.Key(other.ID, auth.RoleAdmin), nil).Expect(t, http.StatusOK)
	if len(r.List("sessions")) != 0 || wholeNumber(t, r.Body["total"]) != 0 {
		t.Fatalf("other store: %v", r.Body)
	}
}

func TestSessionsGrouped(t *testing.T) {
	e := apitest.New(t)
	s := e.Store("shop")
	f := newSessionsFixture(t, e, s.ID)
	key := e.Key(s.ID, auth.RoleStaff, "analytics:read")

	r := e.Do(http.MethodGet, "/store/sessions?group_by=country", key, nil).Expect(t, http.StatusOK)
	if len(r.List("sessions")) != 0 || wholeNumber(t, r.Body["total"]) != 3 {
		t.Fatalf("grouped answers no visits: %v", r.Body)
	}
	page := r.Obj("grouped")
	if page["dimension"] != "country" || page["sums_to_sessions"] != true || page["truncated"] != false || wholeNumber(t, page["total"]) != 2 {
		t.Fatalf("country page %v", page)
	}
	groups := objectsOf(page["groups"])
	if groups[0]["key"] != "DE" || wholeNumber(t, groups[0]["sessions"]) != 2 || wholeNumber(t, groups[0]["carted_sessions"]) != 1 ||
		wholeNumber(t, groups[0]["converted_sessions"]) != 0 || wholeNumber(t, groups[0]["revenue_cents"]) != 0 {
		t.Fatalf("DE %v", groups[0])
	}
	if groups[1]["key"] != "US" || wholeNumber(t, groups[1]["converted_sessions"]) != 1 || wholeNumber(t, groups[1]["revenue_cents"]) != f.order.TotalCents ||
		wholeNumber(t, groups[1]["checkout_sessions"]) != 1 || wholeNumber(t, groups[1]["visitors"]) != 1 {
		t.Fatalf("US %v", groups[1])
	}
	e.SameOnGraphQL(t, r, key, "ListSessions", map[string]any{"group_by": "country"})

	// A page short of the groups does not sum to the sessions.
	page = e.Do(http.MethodGet, "/store/sessions?group_by=city&limit=2", key, nil).Expect(t, http.StatusOK).Obj("grouped")
	if page["truncated"] != true || page["sums_to_sessions"] != false || wholeNumber(t, page["total"]) != 3 || len(objectsOf(page["groups"])) != 2 {
		t.Fatalf("city page %v", page)
	}
	// Sessions without a value are one group, (not set).
	page = e.Do(http.MethodGet, "/store/sessions?group_by=browser&include_bots=true", key, nil).Expect(t, http.StatusOK).Obj("grouped")
	labels := map[string]int64{}
	for _, g := range objectsOf(page["groups"]) {
		labels[g["label"].(string)] = wholeNumber(t, g["sessions"])
	}
	if !reflect.DeepEqual(labels, map[string]int64{"Safari": 2, "Chrome": 1, "(not set)": 1}) || page["sums_to_sessions"] != true {
		t.Fatalf("browser groups %v", page)
	}
	// Products: a session views many, so they never sum to the sessions.
	page = e.Do(http.MethodGet, "/store/sessions?group_by=product", key, nil).Expect(t, http.StatusOK).Obj("grouped")
	groups = objectsOf(page["groups"])
	if page["sums_to_sessions"] != false || len(groups) != 1 || groups[0]["key"] != fmt.Sprint(f.product) || groups[0]["label"] != "Linen shirt" ||
		groups[0]["handle"] != "linen-shirt" || wholeNumber(t, groups[0]["sessions"]) != 2 || groups[0]["revenue_cents"] != nil {
		t.Fatalf("product groups %v", page)
	}
}

func TestSessionFacetsAndFunnel(t *testing.T) {
	e := apitest.New(t)
	s := e.Store("shop")
	newSessionsFixture(t, e, s.ID)
	key := e.Key(s.ID, auth.RoleStaff, "analytics:read")

	r := e.Do(http.MethodGet, "/store/sessions/facets", key, nil).Expect(t, http.StatusOK)
	facets := r.Obj("facets")
	want := map[string]any{
		"cities":    []any{map[string]any{"value": "Austin", "sessions": 1.0}, map[string]any{"value": "Berlin", "sessions": 1.0}, map[string]any{"value": "Munich", "sessions": 1.0}},
		"countries": []any{map[string]any{"value": "DE", "sessions": 2.0}, map[string]any{"value": "US", "sessions": 1.0}},
		"devices":   []any{map[string]any{"value": "mobile", "sessions": 2.0}, map[string]any{"value": "desktop", "sessions": 1.0}},
	}
	if !reflect.DeepEqual(facets, want) {
		t.Fatalf("facets %v", facets)
	}
	e.SameOnGraphQL(t, r, key, "SessionFacets", nil)

	storeKey := e.Key(s.ID, auth.RoleStaff, "store:read")
	r = e.Do(http.MethodGet, "/store/storefront-funnel", storeKey, nil).Expect(t, http.StatusOK)
	funnel := r.Obj("funnel")
	if !reflect.DeepEqual(funnel, map[string]any{"sessions": 3.0, "viewed_product": 2.0, "added_to_cart": 2.0, "reached_checkout": 1.0, "purchased": 1.0}) {
		t.Fatalf("funnel %v", funnel)
	}
	e.SameOnGraphQL(t, r, storeKey, "StorefrontFunnel", nil)
	// The bot viewed a product; counted only when asked.
	funnel = e.Do(http.MethodGet, "/store/storefront-funnel?include_bots=true", storeKey, nil).Expect(t, http.StatusOK).Obj("funnel")
	if wholeNumber(t, funnel["sessions"]) != 4 || wholeNumber(t, funnel["viewed_product"]) != 3 {
		t.Fatalf("funnel with bots %v", funnel)
	}
	// Each step is a subset of the one before: a purchase without a
	// product view is a session, not a purchase of the funnel. (Its
	// product view becomes a page view: deleting events is the retention
	// purge's, which keeps the steps they made.)
	if _, err := e.DB.NewRaw("UPDATE storefront_events SET name = 'page_view' WHERE name = 'product_view' AND session_id = (SELECT id FROM storefront_sessions WHERE session_key = 's_buyer')").Exec(context.Background()); err != nil {
		t.Fatal(err)
	}
	funnel = e.Do(http.MethodGet, "/store/storefront-funnel", storeKey, nil).Expect(t, http.StatusOK).Obj("funnel")
	if !reflect.DeepEqual(funnel, map[string]any{"sessions": 3.0, "viewed_product": 1.0, "added_to_cart": 1.0, "reached_checkout": 0.0, "purchased": 0.0}) {
		t.Fatalf("funnel as a subset %v", funnel)
	}
}

func TestSessionsAccessAndInput(t *testing.T) {
	e := apitest.New(t)
	s := e.Store("shop")
	newSessionsFixture(t, e, s.ID)
	reads := []apitest.Call{{Method: http.MethodGet, Path: "/store/sessions"}, {Method: http.MethodGet, Path: "/store/sessions/facets"},
		{Method: http.MethodGet, Path: "/store/sessions/s_buyer/activity"}}
	checkAccess(t, e, s.ID, "analytics", map[string]string{"other scope": e.Key(s.ID, auth.RoleAdmin, "orders:read")}, reads, nil)
	abandoned := []apitest.Call{{Method: http.MethodGet, Path: "/store/abandoned-carts/cart_abandoned/activity"},
		{Method: http.MethodGet, Path: "/store/abandoned-checkouts/chk_buyer/activity"}}
	checkAccess(t, e, s.ID, "abandoned", map[string]string{"other scope": e.Key(s.ID, auth.RoleAdmin, "analytics:read")}, abandoned, nil)
	checkAccess(t, e, s.ID, "store", map[string]string{"other scope": e.Key(s.ID, auth.RoleAdmin, "analytics:read")},
		[]apitest.Call{{Method: http.MethodGet, Path: "/store/storefront-funnel"}}, nil)

	key := e.Key(s.ID, auth.RoleAdmin)
	for _, q := range []string{"days=0", "days=400", "days=7&from=2026-01-01", "from=yesterday", "to=2026-13-01", "from=2026-02-01&to=2026-01-01",
		"from=2024-01-01&to=2026-01-01", "group_by=planet", "outcome=won", "country=USA", "city=", "limit=0", "offset=-1", "has_orders=maybe", "colour=red"} {
		r := e.Do(http.MethodGet, "/store/sessions?"+q, key, nil).Expect(t, http.StatusBadRequest)
		if r.Message() == "" {
			t.Errorf("%s: no message", q)
		}
	}
	e.Do(http.MethodGet, "/store/sessions/facets?days=0", key, nil).Expect(t, http.StatusBadRequest)
	e.Do(http.MethodGet, "/store/storefront-funnel?outcome=won", key, nil).Expect(t, http.StatusBadRequest)

	// Another store's session, cart and checkout are not there.
	other := e.Store("other")
	okey := e.Key(other.ID, auth.RoleAdmin)
	for _, path := range []string{"/store/sessions/s_buyer/activity", "/store/abandoned-carts/cart_abandoned/activity",
		"/store/abandoned-checkouts/chk_buyer/activity", "/store/sessions/nope/activity"} {
		e.Do(http.MethodGet, path, okey, nil).Expect(t, http.StatusNotFound)
	}
}
