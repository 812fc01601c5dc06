package apitest_test

import (
	"context"
	"net/http"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"storeadmin/internal/app/apitest"
	"storeadmin/internal/auth"
	"storeadmin/models"
)

// The fields of the spec's theme views, exactly.
var (
	themeListKeys   = []string{"id", "latest_theme_version", "live", "name", "source_template_key", "source_theme_version", "thumbnail_url", "update_available", "updated_at"}
	themeDetailKeys = []string{"base_key", "draft_settings", "id", "name", "source_template_key", "source_theme_version", "thumbnail_url"}
	themeDraftKeys  = []string{"base_key", "draft_settings", "id", "name"}
)

func themePath(id int64) string { return "/store/themes/" + strconv.FormatInt(id, 10) }

// installTheme installs a market template for key's store: the theme's id.
func installTheme(t *testing.T, e *apitest.Env, key, template string) int64 {
	t.Helper()
	r := e.Do(http.MethodPost, "/store/theme-market/install", key, map[string]any{"key": template}).Expect(t, 201)
	return wholeNumber(t, r.Body["theme_id"])
}

// defaultTheme is the id of the theme every store starts with, live: the
// first theme of the list, checked to be the live one.
func defaultTheme(t *testing.T, e *apitest.Env, key string) int64 {
	t.Helper()
	liveID, themes := themeList(t, e, key)
	if len(themes) == 0 || themes[0]["live"] != true || themes[0]["name"] != "Harbor" || liveID != themes[0]["id"] {
		t.Fatalf("the store's default theme: live_id %v, %v", liveID, themes)
	}
	return idOf(t, themes[0])
}

// themeList is GET /store/themes, the same on GraphQL: live_id and the
// themes by id.
func themeList(t *testing.T, e *apitest.Env, key string) (any, []map[string]any) {
	t.Helper()
	r := e.Do(http.MethodGet, "/store/themes", key, nil).Expect(t, 200)
	e.SameOnGraphQL(t, r, key, "ListThemes", nil)
	var out []map[string]any
	for _, v := range r.List("themes") {
		out = append(out, objectWithKeys(t, "theme", v, themeListKeys))
	}
	return r.Body["live_id"], out
}

// themeDetail is GET /store/themes/{id}, the same on GraphQL.
func themeDetail(t *testing.T, e *apitest.Env, key string, id int64) map[string]any {
	t.Helper()
	r := e.Do(http.MethodGet, themePath(id), key, nil).Expect(t, 200)
	e.SameOnGraphQL(t, r, key, "GetTheme", map[string]any{"id": id})
	return objectWithKeys(t, "theme", r.Body["theme"], themeDetailKeys)
}

// TestThemes: the life of a store's themes over REST, with the same answers
// on GraphQL: the list with its update flags, detail, replacing the draft
// (checked against the theme's schema, 400s naming the setting), rename,
// duplicate, delete, and the live theme's draft.
func TestThemes(t *testing.T) {
	e, _, admin := newAcme(t)
	ctx := context.Background()
	first := defaultTheme(t, e, admin)
	harbor := installTheme(t, e, admin, "harbor")
	r := e.Do(http.MethodPost, "/store/themes", admin, map[string]any{"name": " Mine ", "base_key": "atelier-classic"}).Expect(t, 201)
	mine := wholeNumber(t, r.Body["id"])
	e.Do(http.MethodPost, "/store/themes", admin, map[string]any{"name": "Paid", "base_key": "harbor-market"}).Expect(t, 409)
	e.Do(http.MethodPost, "/store/themes", admin, map[string]any{"name": "", "base_key": "harbor"}).Expect(t, 400)
	r = e.Do(http.MethodPost, "/store/themes", admin, map[string]any{"name": "Bad", "base_key": "harbor", "draft_settings": map[string]any{"colors": map[string]any{}}}).Expect(t, 400)
	if r.Message() != "draft_settings.typography is required" {
		t.Fatalf("a bad draft on create: %s", r.Raw)
	}
	// Harbor gets a release after the install: an update is available.
	if _, err := e.DB.ExecContext(ctx, `INSERT INTO market_template_versions (template_key, version, theme_version, settings_schema, default_settings)
		SELECT template_key, 3, '3.2.0', settings_schema, default_settings FROM market_template_versions WHERE template_key = 'harbor' AND version = 2`); err != nil {
		t.Fatal(err)
	}

	liveID, themes := themeList(t, e, admin)
	if wholeNumber(t, liveID) != first || len(themes) != 3 || idOf(t, themes[0]) != first || idOf(t, themes[1]) != harbor || idOf(t, themes[2]) != mine {
		t.Fatalf("list: live %v, %v", liveID, themes)
	}
	h, m := themes[1], themes[2]
	if h["name"] != "Harbor" || h["source_template_key"] != "harbor" || h["source_theme_version"] != "3.1.0" || h["latest_theme_version"] != "3.2.0" ||
		h["update_available"] != true || h["live"] != false || h["thumbnail_url"] != "https://themes.storeadmin.dev/harbor/thumb.jpg" {
		t.Fatalf("installed harbor: %v", h)
	}
	if m["name"] != "Mine" || m["source_template_key"] != nil || m["source_theme_version"] != nil || m["latest_theme_version"] != nil ||
		m["update_available"] != nil || m["thumbnail_url"] != "https://themes.storeadmin.dev/atelier-classic/thumb.jpg" {
		t.Fatalf("made from atelier-classic: %v", m)
	}

	d := themeDetail(t, e, admin, harbor)
	draft := d["draft_settings"].(map[string]any)
	if d["base_key"] != "harbor" || draft["layout"].(map[string]any)["cart_type"] != "drawer" {
		t.Fatalf("detail: %v", d)
	}

	// Replacing the draft: checked against the schema, nothing written on a 400.
	draft["colors"].(map[string]any)["primary"] = "#000080"
	r = e.Do(http.MethodPut, themePath(harbor), admin, map[string]any{"draft_settings": draft}).Expect(t, 200)
	stringField(t, r.Body, "updated_at")
	if got := themeDetail(t, e, admin, harbor)["draft_settings"]; !reflect.DeepEqual(got, draft) {
		t.Fatalf("draft after PUT %v\nwant %v", got, draft)
	}
	for _, c := range []struct {
		body  map[string]any
		field string
	}{
		{map[string]any{"draft_settings": map[string]any{"colors": map[string]any{"primary": "navy", "background": "#ffffff", "text": "#000000"},
			"typography": map[string]any{"font": "Inter"}, "layout": map[string]any{"page_width": "wide", "cart_type": "page"}}}, "draft_settings.colors.primary"},
		{map[string]any{"draft_settings": map[string]any{"colours": 1}}, "draft_settings.colours"},
		{map[string]any{"draft_settings": []any{}}, "draft_settings"},
		{map[string]any{}, "draft_settings"},
	} {
		r := e.Do(http.MethodPut, themePath(harbor), admin, c.body).Expect(t, 400)
		if !strings.HasPrefix(r.Message(), c.field+" ") {
			t.Errorf("PUT %v: %s, want field %s", c.body, r.Raw, c.field)
		}
	}
	expectGraphQLCode(t, e, admin, "BAD_USER_INPUT", map[string]any{"id": harbor},
		`mutation($id: Int!) { updateThemeSettings(id: $id, draft_settings: {layout: {page_width: "huge"}}) }`)
	if got := themeDetail(t, e, admin, harbor)["draft_settings"]; !reflect.DeepEqual(got, draft) {
		t.Fatalf("a refused draft was written: %v", got)
	}

	// Rename and duplicate.
	r = e.Do(http.MethodPatch, themePath(harbor), admin, map[string]any{"name": " Harbor main "}).Expect(t, 200)
	if r.Body["name"] != "Harbor main" {
		t.Fatalf("rename: %s", r.Raw)
	}
	e.Do(http.MethodPatch, themePath(harbor), admin, map[string]any{"name": " "}).Expect(t, 400)
	r = e.Do(http.MethodPost, themePath(harbor)+"/duplicate", admin, nil).Expect(t, 201)
	dup := wholeNumber(t, r.Body["id"])
	dd := themeDetail(t, e, admin, dup)
	if dd["name"] != "Copy of Harbor main" || !reflect.DeepEqual(dd["draft_settings"], draft) || dd["source_theme_version"] != "3.1.0" {
		t.Fatalf("duplicate: %v", dd)
	}
	e.Do(http.MethodDelete, themePath(dup), admin, nil).Expect(t, 200)
	e.Do(http.MethodGet, themePath(dup), admin, nil).Expect(t, 404)

	// The live theme: the default one until another is published; its
	// draft reads and writes at /store/theme, and it cannot be deleted.
	r = e.Do(http.MethodGet, "/store/theme", admin, nil).Expect(t, 200)
	e.SameOnGraphQL(t, r, admin, "GetLiveTheme", nil)
	if lv := objectWithKeys(t, "theme", r.Body["theme"], themeDraftKeys); idOf(t, lv) != first || lv["name"] != "Harbor" {
		t.Fatalf("the default live theme: %s", r.Raw)
	}
	e.Do(http.MethodPost, themePath(harbor)+"/publish", admin, nil).Expect(t, 200)
	r = e.Do(http.MethodGet, "/store/theme", admin, nil).Expect(t, 200)
	e.SameOnGraphQL(t, r, admin, "GetLiveTheme", nil)
	lv := objectWithKeys(t, "theme", r.Body["theme"], themeDraftKeys)
	if idOf(t, lv) != harbor || !reflect.DeepEqual(lv["draft_settings"], draft) {
		t.Fatalf("live theme: %v", lv)
	}
	draft["layout"].(map[string]any)["cart_type"] = "page"
	e.Do(http.MethodPut, "/store/theme", admin, map[string]any{"draft_settings": draft}).Expect(t, 200)
	r = e.Do(http.MethodPut, "/store/theme", admin, map[string]any{"draft_settings": map[string]any{"layout": 1}}).Expect(t, 400)
	if r.Message() != "draft_settings.colors is required" {
		t.Fatalf("live draft 400: %s", r.Raw)
	}
	if got := themeDetail(t, e, admin, harbor)["draft_settings"]; !reflect.DeepEqual(got, draft) {
		t.Fatalf("live draft %v\nwant %v", got, draft)
	}
	if liveID, themes = themeList(t, e, admin); wholeNumber(t, liveID) != harbor || themes[0]["live"] != false || themes[1]["live"] != true {
		t.Fatalf("list with a live theme: %v %v", liveID, themes)
	}
	r = e.Do(http.MethodDelete, themePath(harbor), admin, nil).Expect(t, 409)
	if r.Message() != "the theme is live: publish another theme before deleting this one" {
		t.Fatalf("deleting the live theme: %s", r.Raw)
	}
	expectGraphQLCode(t, e, admin, "CONFLICT", map[string]any{"id": harbor}, `mutation($id: Int!) { deleteTheme(id: $id) }`)
	e.Do(http.MethodDelete, themePath(mine), admin, nil).Expect(t, 200)
	e.Do(http.MethodDelete, themePath(first), admin, nil).Expect(t, 200) // no longer live
}

// TestThemesAccessAndOtherStore: reads are themes:read (any role), writes
// themes:write and admin, no key 401; another store's themes are 404s and
// never listed.
func TestThemesAccessAndOtherStore(t *testing.T) {
	e, s, admin := newAcme(t)
	id := installTheme(t, e, admin, "harbor")
	draft := themeDetail(t, e, admin, id)["draft_settings"]
	otherScope := e.Key(s.ID, auth.RoleAdmin, "tax:read", "tax:write")
	reads := []apitest.Call{{Method: http.MethodGet, Path: "/store/themes"}, {Method: http.MethodGet, Path: themePath(id)}}
	writes := []apitest.Call{
		{Method: http.MethodPost, Path: "/store/themes", Body: map[string]any{"name": "x", "base_key": "harbor"}},
		{Method: http.MethodPut, Path: themePath(id), Body: map[string]any{"draft_settings": draft}},
		{Method: http.MethodPatch, Path: themePath(id), Body: map[string]any{"name": "x"}},
		{Method: http.MethodPost, Path: themePath(id) + "/duplicate"},
		{Method: http.MethodDelete, Path: themePath(id)},
		{Method: http.MethodPut, Path: "/store/theme", Body: map[string]any{"draft_settings": draft}},
		{Method: http.MethodPost, Path: themePath(id) + "/preview-token"},
	}
	k := checkAccess(t, e, s.ID, "themes", map[string]string{"other scope": otherScope}, reads, writes)
	expectGraphQLCode(t, e, k.staffWrite, "FORBIDDEN", map[string]any{"id": id}, `mutation($id: Int!) { renameTheme(id: $id, name: "x") }`)
	if _, themes := themeList(t, e, admin); len(themes) != 2 || themes[1]["name"] != "Harbor" {
		t.Fatalf("a refused write was written: %v", themes)
	}

	other := e.Store("Bolt")
	bKey := e.Key(other.ID, auth.RoleAdmin)
	e.ExpectEach(t, 404, map[string]string{"another store's key": bKey}, slices.Concat([]apitest.Call{{Method: http.MethodGet, Path: themePath(id)}}, writes[1:5], writes[6:]))
	expectGraphQLCode(t, e, bKey, "NOT_FOUND", map[string]any{"id": id}, `query($id: Int!) { theme(id: $id) { id } }`, `mutation($id: Int!) { deleteTheme(id: $id) }`)
	if _, themes := themeList(t, e, bKey); len(themes) != 1 || idOf(t, themes[0]) == id {
		t.Fatalf("another store lists %v", themes)
	}
	if _, themes := themeList(t, e, admin); len(themes) != 2 || themes[1]["name"] != "Harbor" {
		t.Fatalf("another store's writes reached this one: %v", themes)
	}
	e.Do(http.MethodPatch, themePath(id), k.writer, map[string]any{"name": "y"}).Expect(t, 200)
}

// TestThemeImageSettings: an image setting must name one of the store's
// uploads (another store's is unknown here); a 400 names its path.
func TestThemeImageSettings(t *testing.T) {
	e, s, admin := newAcme(t)
	ctx := context.Background()
	id := installTheme(t, e, admin, "harbor")
	draft := themeDetail(t, e, admin, id)["draft_settings"].(map[string]any)
	other := e.Store("Bolt")
	for _, m := range []*models.Media{
		{StoreID: s.ID, Key: "acme/hero.jpg", Src: "https://cdn.example/acme/hero.jpg", Filename: "hero.jpg", ContentType: "image/jpeg", Width: 10, Height: 10, Bytes: 100},
		{StoreID: other.ID, Key: "bolt/hero.jpg", Src: "https://cdn.example/bolt/hero.jpg", Filename: "hero.jpg", ContentType: "image/jpeg", Width: 10, Height: 10, Bytes: 100},
	} {
		if err := models.InsertMedia(ctx, e.DB, m); err != nil {
			t.Fatal(err)
		}
	}
	sections := draft["sections"].([]any)
	sections[0].(map[string]any)["image"] = map[string]any{"src": "https://cdn.example/acme/hero.jpg"}
	e.Do(http.MethodPut, themePath(id), admin, map[string]any{"draft_settings": draft}).Expect(t, 200)
	for _, src := range []string{"https://cdn.example/bolt/hero.jpg", "https://elsewhere.example/x.jpg"} {
		sections[0].(map[string]any)["image"] = map[string]any{"src": src}
		r := e.Do(http.MethodPut, themePath(id), admin, map[string]any{"draft_settings": draft}).Expect(t, 400)
		if !strings.HasPrefix(r.Message(), `draft_settings.sections[0].image.src names no image uploaded to this store ("`+src+`")`) {
			t.Fatalf("an image not uploaded here: %s", r.Raw)
		}
	}
	got := themeDetail(t, e, admin, id)["draft_settings"].(map[string]any)["sections"].([]any)[0].(map[string]any)["image"]
	if !reflect.DeepEqual(got, map[string]any{"src": "https://cdn.example/acme/hero.jpg"}) {
		t.Fatalf("the draft's image is %v", got)
	}
}
