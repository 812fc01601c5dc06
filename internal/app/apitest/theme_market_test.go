package apitest_test

import (
	"context"
	"net/http"
	"reflect"
	"testing"

	"storeadmin/internal/app/apitest"
	"storeadmin/internal/auth"
	"storeadmin/models"
)

// The fields of the spec's MarketTemplateView, exactly; the list's
// MarketTemplateListView adds owned.
var marketTemplateKeys = []string{"author", "category", "currency", "description", "family", "key", "latest_version",
	"name", "preview_images", "price_cents", "tagline", "theme_version", "thumbnail_url"}

var marketListKeys = []string{"author", "category", "currency", "description", "family", "key", "latest_version",
	"name", "owned", "preview_images", "price_cents", "tagline", "theme_version", "thumbnail_url"}

// marketList is GET /store/theme-market as key sees it, checked against
// the list view, by key.
func marketList(t *testing.T, e *apitest.Env, key string) ([]string, map[string]map[string]any) {
	t.Helper()
	r := e.Do(http.MethodGet, "/store/theme-market", key, nil).Expect(t, 200)
	e.SameOnGraphQL(t, r, key, "ListMarketTemplates", nil)
	var keys []string
	byKey := map[string]map[string]any{}
	for _, v := range r.List("templates") {
		m := objectWithKeys(t, "market template", v, marketListKeys)
		keys = append(keys, stringField(t, m, "key"))
		byKey[m["key"].(string)] = m
	}
	return keys, byKey
}

// installedTheme is what the database holds of a theme the market made.
type installedTheme struct {
	Name, BaseKey, SourceTemplateKey, SourceThemeVersion, Draft, Defaults string
	TemplateVersion                                                       int64
}

func readInstalledTheme(t *testing.T, e *apitest.Env, storeID, id int64) installedTheme {
	t.Helper()
	var th installedTheme
	err := e.DB.NewRaw(`SELECT t.name, t.base_key, t.source_template_key, t.source_theme_version, t.draft_settings::text, v.default_settings::text, t.template_version
		FROM themes AS t JOIN market_template_versions AS v ON v.template_key = t.base_key AND v.version = t.template_version
		WHERE t.store_id = ? AND t.id = ?`, storeID, id).
		Scan(context.Background(), &th.Name, &th.BaseKey, &th.SourceTemplateKey, &th.SourceThemeVersion, &th.Draft, &th.Defaults, &th.TemplateVersion)
	if err != nil {
		t.Fatalf("theme %d: %v", id, err)
	}
	return th
}

// TestThemeMarket: the market lists the shipped templates with their
// latest release, the same on both surfaces; a template reads by key;
// installing a free one makes a theme from its latest release and the
// template the store's own; a paid one installs only once the store owns
// it, and a refused install writes nothing.
func TestThemeMarket(t *testing.T) {
	e, s, admin := newAcme(t)
	keys, byKey := marketList(t, e, admin)
	if want := []string{"atelier-bloom", "atelier-classic", "atelier-noir", "harbor", "harbor-market"}; !reflect.DeepEqual(keys, want) {
		t.Fatalf("market %v, want %v (by family, name, key)", keys, want)
	}
	classic := byKey["atelier-classic"]
	if classic["latest_version"] != float64(2) || classic["theme_version"] != "1.1.0" || classic["price_cents"] != float64(0) ||
		classic["owned"] != false || classic["family"] != "atelier" || len(classic["preview_images"].([]any)) != 2 {
		t.Fatalf("atelier-classic: %v", classic)
	}
	if byKey["harbor"]["owned"] != true {
		t.Fatalf("harbor, the default theme's template, is not owned: %v", byKey["harbor"])
	}
	if noir := byKey["atelier-noir"]; noir["price_cents"] != float64(18000) || noir["currency"] != "USD" || noir["owned"] != false {
		t.Fatalf("atelier-noir: %v", noir)
	}

	r := e.Do(http.MethodGet, "/store/theme-market/harbor-market", admin, nil).Expect(t, 200)
	e.SameOnGraphQL(t, r, admin, "GetMarketTemplate", map[string]any{"key": "harbor-market"})
	one := objectWithKeys(t, "market template", r.Body["template"], marketTemplateKeys)
	want := map[string]any{}
	for k, v := range byKey["harbor-market"] {
		if k != "owned" {
			want[k] = v
		}
	}
	if !reflect.DeepEqual(one, want) {
		t.Fatalf("detail %v\nwant the list's %v", one, want)
	}
	r = e.Do(http.MethodGet, "/store/theme-market/nope", admin, nil).Expect(t, 404)
	if r.Message() != `the theme market has no template "nope"` {
		t.Fatalf("unknown key: %s", r.Raw)
	}
	expectGraphQLCode(t, e, admin, "NOT_FOUND", nil, `{ marketTemplate(key: "nope") { key } }`)

	// A free template: a theme from its latest release, and owned.
	r = e.Do(http.MethodPost, "/store/theme-market/install", admin, map[string]any{"key": "atelier-classic"}).Expect(t, 201)
	classicID := wholeNumber(t, r.Body["theme_id"])
	th := readInstalledTheme(t, e, s.ID, classicID)
	if th.Name != "Atelier Classic" || th.BaseKey != "atelier-classic" || th.TemplateVersion != 2 || th.SourceTemplateKey != "atelier-classic" ||
		th.SourceThemeVersion != "1.1.0" || th.Draft != th.Defaults {
		t.Fatalf("installed atelier-classic: %+v", th)
	}
	if _, byKey = marketList(t, e, admin); byKey["atelier-classic"]["owned"] != true || byKey["harbor-market"]["owned"] != false {
		t.Fatalf("owned after installing atelier-classic: %v, harbor-market %v", byKey["atelier-classic"]["owned"], byKey["harbor-market"]["owned"])
	}

	// A paid template the store does not own: 409 on both surfaces, nothing written.
	r = e.Do(http.MethodPost, "/store/theme-market/install", admin, map[string]any{"key": "atelier-noir"}).Expect(t, 409)
	if r.Message() != `the template "atelier-noir" costs 180.00 USD and the store does not own it: a paid template is installed only once the store owns it` {
		t.Fatalf("paid, not owned: %s", r.Raw)
	}
	expectGraphQLCode(t, e, admin, "CONFLICT", nil, `mutation { installMarketTemplate(key: "atelier-noir") }`)
	var themes int
	if err := e.DB.NewRaw("SELECT count(*) FROM themes WHERE store_id = ?", s.ID).Scan(context.Background(), &themes); err != nil || themes != 2 {
		t.Fatalf("%d themes after refused installs (%v), want 2 (the default and atelier-classic)", themes, err)
	}
	// Once owned (recorded; there is no payment flow), it installs.
	if err := models.OwnMarketTemplate(context.Background(), e.DB, s.ID, "atelier-noir"); err != nil {
		t.Fatal(err)
	}
	g := e.GraphQL(admin, `mutation { installMarketTemplate(key: "atelier-noir") }`, nil)
	noirID, ok := asWhole(g.Data()["installMarketTemplate"])
	if !ok || noirID == classicID {
		t.Fatalf("installing owned atelier-noir: %s", g.Raw)
	}
	if th := readInstalledTheme(t, e, s.ID, noirID); th.SourceThemeVersion != "2.1.0" || th.Name != "Atelier Noir" || th.Draft != th.Defaults {
		t.Fatalf("installed atelier-noir: %+v", th)
	}

	// Bad input: 400s naming the field; an unknown key is a 404.
	r = e.Do(http.MethodPost, "/store/theme-market/install", admin, map[string]any{}).Expect(t, 400)
	if r.Body["field"] != "key" {
		t.Fatalf("no key: %s", r.Raw)
	}
	e.Do(http.MethodPost, "/store/theme-market/install", admin, map[string]any{"key": 7}).Expect(t, 400)
	e.Do(http.MethodPost, "/store/theme-market/install", admin, map[string]any{"key": "nope"}).Expect(t, 404)
}

// TestThemeMarketAccess: reads are themes:read (any role), installing is
// themes:write and admin; no key is 401. Ownership is the store's: another
// store does not own what this one installed.
func TestThemeMarketAccess(t *testing.T) {
	e, s, admin := newAcme(t)
	otherScope := e.Key(s.ID, auth.RoleAdmin, "tax:read", "tax:write")
	reads := []apitest.Call{
		{Method: http.MethodGet, Path: "/store/theme-market"},
		{Method: http.MethodGet, Path: "/store/theme-market/harbor"},
	}
	writes := []apitest.Call{{Method: http.MethodPost, Path: "/store/theme-market/install", Body: map[string]any{"key": "atelier-classic"}}}
	k := checkAccess(t, e, s.ID, "themes", map[string]string{"other scope": otherScope}, reads, writes)
	expectGraphQLCode(t, e, k.staffWrite, "FORBIDDEN", nil, `mutation { installMarketTemplate(key: "atelier-classic") }`)
	expectGraphQLCode(t, e, otherScope, "FORBIDDEN", nil, `{ marketTemplates { key } }`)
	if _, byKey := marketList(t, e, admin); byKey["atelier-classic"]["owned"] != false {
		t.Fatal("a refused install recorded ownership")
	}
	e.Do(http.MethodPost, "/store/theme-market/install", k.writer, map[string]any{"key": "atelier-classic"}).Expect(t, 201)

	other := e.Store("Bolt")
	if _, byKey := marketList(t, e, e.Key(other.ID, auth.RoleAdmin)); byKey["atelier-classic"]["owned"] != false {
		t.Fatal("another store owns what Acme installed")
	}
}
