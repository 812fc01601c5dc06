package apitest_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"reflect"
	"sync"
	"testing"

	"storeadmin/internal/app/apitest"
	"storeadmin/internal/auth"
)

// The fields of the spec's ThemeVersionView, exactly.
var themeVersionKeys = []string{"publication_id", "published_at", "version"}

// themeVersions is GET path (a versions list), the same on GraphQL: the
// versions' numbers, newest first.
func themeVersions(t *testing.T, e *apitest.Env, key, path, op string, vars map[string]any) []int64 {
	t.Helper()
	r := e.Do(http.MethodGet, path, key, nil).Expect(t, 200)
	e.SameOnGraphQL(t, r, key, op, vars)
	out := []int64{}
	for _, v := range r.List("versions") {
		m := objectWithKeys(t, "theme version", v, themeVersionKeys)
		wholeNumber(t, m["publication_id"])
		stringField(t, m, "published_at")
		out = append(out, wholeNumber(t, m["version"]))
	}
	return out
}

// publishedSettings are a theme's published settings by version: as the
// graph answers them (JSON text) and as the database holds them.
func publishedSettings(t *testing.T, e *apitest.Env, key string, themeID int64) map[int64][2]string {
	t.Helper()
	g := e.GraphQL(key, `query($id: Int!) { themeVersions(id: $id) { version settings } }`, map[string]any{"id": themeID})
	out := map[int64][2]string{}
	for _, v := range g.Data()["themeVersions"].([]any) {
		m := v.(map[string]any)
		b, _ := json.Marshal(m["settings"])
		var stored string
		if err := e.DB.NewRaw("SELECT settings::text FROM theme_versions WHERE theme_id = ? AND version = ?", themeID, m["version"]).Scan(context.Background(), &stored); err != nil {
			t.Fatal(err)
		}
		out[wholeNumber(t, m["version"])] = [2]string{string(b), stored}
	}
	return out
}

func liveThemeID(t *testing.T, e *apitest.Env, key string) any {
	t.Helper()
	live, _ := themeList(t, e, key)
	return live
}

// TestThemePublishing: publishing makes the draft the theme's next
// immutable version and the theme live; editing the draft leaves published
// versions exactly as they were; rollback makes an earlier version live
// again, recorded, without rewriting or renumbering any.
func TestThemePublishing(t *testing.T) {
	e, s, admin := newAcme(t)
	ctx := context.Background()
	defaultID := defaultTheme(t, e, admin)
	harbor := installTheme(t, e, admin, "harbor")
	classic := installTheme(t, e, admin, "atelier-classic")

	// The default theme is live at its one version: nothing to roll back to.
	if v := themeVersions(t, e, admin, "/store/theme/versions", "ListLiveThemeVersions", nil); !reflect.DeepEqual(v, []int64{1}) {
		t.Fatalf("the default theme's versions: %v", v)
	}
	e.Do(http.MethodPost, "/store/theme/rollback", admin, map[string]any{}).Expect(t, 409)

	r := e.Do(http.MethodPost, themePath(harbor)+"/publish", admin, nil).Expect(t, 200)
	first := objectWithKeys(t, "publication", map[string]any{"publication_id": r.Body["publication_id"], "version": r.Body["version"]}, []string{"publication_id", "version"})
	if first["version"] != float64(1) || wholeNumber(t, liveThemeID(t, e, admin)) != harbor {
		t.Fatalf("first publish: %s", r.Raw)
	}
	v1 := publishedSettings(t, e, admin, harbor)[1]
	draft := themeDetail(t, e, admin, harbor)["draft_settings"].(map[string]any)
	if want, _ := json.Marshal(draft); v1[0] != string(want) {
		t.Fatalf("version 1 %s, want the draft %s", v1[0], want)
	}

	// Edit and publish the live theme's draft: version 2.
	draft["layout"].(map[string]any)["page_width"] = "wide"
	e.Do(http.MethodPut, "/store/theme", admin, map[string]any{"draft_settings": draft}).Expect(t, 200)
	r = e.Do(http.MethodPost, "/store/theme/publish", admin, nil).Expect(t, 200)
	if r.Body["version"] != float64(2) || r.Body["publication_id"] == first["publication_id"] {
		t.Fatalf("second publish: %s", r.Raw)
	}
	// Edit the draft again without publishing: versions stay as published.
	draft["colors"].(map[string]any)["primary"] = "#abcdef"
	e.Do(http.MethodPut, themePath(harbor), admin, map[string]any{"draft_settings": draft}).Expect(t, 200)
	published := publishedSettings(t, e, admin, harbor)
	if published[1] != v1 {
		t.Fatalf("version 1 changed: %v, was %v", published[1], v1)
	}
	var v2 map[string]any
	if err := json.Unmarshal([]byte(published[2][0]), &v2); err != nil || v2["layout"].(map[string]any)["page_width"] != "wide" || v2["colors"].(map[string]any)["primary"] == "#abcdef" {
		t.Fatalf("version 2: %v (%v)", published[2], err)
	}
	if v := themeVersions(t, e, admin, themePath(harbor)+"/versions", "ListThemeVersions", map[string]any{"id": harbor}); !reflect.DeepEqual(v, []int64{2, 1}) {
		t.Fatalf("versions %v, want [2 1]", v)
	}

	// Rollback: version 1 live again, recorded; versions unchanged.
	r = e.Do(http.MethodPost, "/store/theme/rollback", admin, map[string]any{}).Expect(t, 200)
	if r.Body["version"] != float64(1) {
		t.Fatalf("rollback: %s", r.Raw)
	}
	r = e.Do(http.MethodPost, "/store/theme/rollback", admin, map[string]any{}).Expect(t, 409)
	if r.Message() != "the theme has no version before its live one (1)" {
		t.Fatalf("rollback below 1: %s", r.Raw)
	}
	if v := themeVersions(t, e, admin, "/store/theme/versions", "ListLiveThemeVersions", nil); !reflect.DeepEqual(v, []int64{2, 1}) {
		t.Fatalf("versions after rollback %v", v)
	}
	if published := publishedSettings(t, e, admin, harbor); published[1] != v1 {
		t.Fatalf("version 1 changed by the rollback: %v", published[1])
	}
	e.Do(http.MethodPost, themePath(harbor)+"/rollback", admin, map[string]any{"version": 2}).Expect(t, 200)
	r = e.Do(http.MethodPost, themePath(harbor)+"/rollback", admin, map[string]any{"version": 2}).Expect(t, 409)
	if r.Message() != "version 2 of the theme is live already" {
		t.Fatalf("rollback to the live version: %s", r.Raw)
	}
	e.Do(http.MethodPost, themePath(harbor)+"/rollback", admin, map[string]any{"version": 9}).Expect(t, 404)
	e.Do(http.MethodPost, themePath(harbor)+"/rollback", admin, map[string]any{"version": 0}).Expect(t, 400)
	r = e.Do(http.MethodPost, themePath(classic)+"/rollback", admin, map[string]any{}).Expect(t, 400)
	if r.Message() != "version is required: the theme is not live, so there is no version before its live one" {
		t.Fatalf("rollback of a theme not live: %s", r.Raw)
	}
	var changes []string
	if err := e.DB.NewRaw("SELECT reason || ' ' || theme_id FROM theme_live_changes WHERE store_id = ? ORDER BY id", s.ID).Scan(ctx, &changes); err != nil {
		t.Fatal(err)
	}
	h := fmt.Sprint(harbor)
	if want := []string{"publish " + fmt.Sprint(defaultID), "publish " + h, "publish " + h, "rollback " + h, "rollback " + h}; !reflect.DeepEqual(changes, want) {
		t.Fatalf("live changes %v, want %v", changes, want)
	}

	// Publishing another theme (on GraphQL) makes it the live one.
	g := e.GraphQL(admin, `mutation($id: Int!) { publishTheme(id: $id) { version } }`, map[string]any{"id": classic})
	if g.Data()["publishTheme"].(map[string]any)["version"] != float64(1) {
		t.Fatalf("publishTheme: %s", g.Raw)
	}
	_, themes := themeList(t, e, admin)
	if wholeNumber(t, liveThemeID(t, e, admin)) != classic || themes[1]["live"] != false || themes[2]["live"] != true {
		t.Fatalf("after publishing classic: %v", themes)
	}
	// The theme that was live can go now, with its versions.
	e.Do(http.MethodDelete, themePath(harbor), admin, nil).Expect(t, 200)

	// Another store's themes are 404s here.
	other := e.Store("Bolt")
	bKey := e.Key(other.ID, auth.RoleAdmin)
	e.ExpectEach(t, 404, map[string]string{"another store's key": bKey}, []apitest.Call{
		{Method: http.MethodPost, Path: themePath(classic) + "/publish"},
		{Method: http.MethodPost, Path: themePath(classic) + "/rollback", Body: map[string]any{"version": 1}},
		{Method: http.MethodGet, Path: themePath(classic) + "/versions"},
	})
	expectGraphQLCode(t, e, bKey, "NOT_FOUND", map[string]any{"id": classic}, `mutation($id: Int!) { publishTheme(id: $id) { version } }`)
}

// TestConcurrentPublishesLeaveOneLiveTheme: publishes of three themes at
// once, through both the theme's and the live theme's call, all succeed
// and leave exactly one live theme, live at its latest version.
func TestConcurrentPublishesLeaveOneLiveTheme(t *testing.T) {
	e, s, admin := newAcme(t)
	ids := []int64{installTheme(t, e, admin, "harbor"), installTheme(t, e, admin, "atelier-classic"), installTheme(t, e, admin, "harbor")}
	e.Do(http.MethodPost, themePath(ids[0])+"/publish", admin, nil).Expect(t, 200)
	const n = 12
	var wg sync.WaitGroup
	statuses := make(chan string, n)
	for i := range n {
		wg.Go(func() {
			path := themePath(ids[i%3]) + "/publish"
			if i%4 == 3 {
				path = "/store/theme/publish"
			}
			r := e.Do(http.MethodPost, path, admin, nil)
			statuses <- fmt.Sprintf("%s %d %s", path, r.Status, r.Raw)
		})
	}
	wg.Wait()
	close(statuses)
	for st := range statuses {
		var path string
		var status int
		fmt.Sscanf(st, "%s %d", &path, &status)
		if status != 200 {
			t.Errorf("concurrent publish: %s", st)
		}
	}
	ctx := context.Background()
	var lives, versions, changes int
	if err := e.DB.NewRaw(`SELECT (SELECT count(*) FROM store_live_themes WHERE store_id = ?),
		(SELECT count(*) FROM theme_versions WHERE store_id = ?), (SELECT count(*) FROM theme_live_changes WHERE store_id = ?)`,
		s.ID, s.ID, s.ID).Scan(ctx, &lives, &versions, &changes); err != nil {
		t.Fatal(err)
	}
	// The default theme's version and live change, the first publish's, and n more.
	if lives != 1 || versions != n+2 || changes != n+2 {
		t.Fatalf("%d live rows, %d versions, %d live changes; want 1, %d, %d", lives, versions, changes, n+2, n+2)
	}
	var atLatest bool
	if err := e.DB.NewRaw(`SELECT v.version = (SELECT max(version) FROM theme_versions WHERE theme_id = l.theme_id)
		FROM store_live_themes AS l JOIN theme_versions AS v ON v.id = l.publication_id WHERE l.store_id = ?`, s.ID).Scan(ctx, &atLatest); err != nil || !atLatest {
		t.Fatalf("the live theme is not at its latest version (%v)", err)
	}
	live, themes := themeList(t, e, admin)
	count := 0
	for _, th := range themes {
		if th["live"] == true {
			count++
			if idOf(t, th) != wholeNumber(t, live) {
				t.Fatalf("live flag on %v, live_id %v", th["id"], live)
			}
		}
	}
	if count != 1 {
		t.Fatalf("%d themes listed live", count)
	}
}
