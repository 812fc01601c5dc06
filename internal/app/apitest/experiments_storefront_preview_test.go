package apitest_test

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"storeadmin/internal/app/apitest"
	"storeadmin/internal/auth"
	"storeadmin/models"
)

func xsPreviewPath(id int64) string { return fmt.Sprintf("/store/experiments/%d/preview-token", id) }

// TestExperimentPreviewTokens: POST /store/experiments/{id}/preview-token
// signs a token of one arm (by id or position; a draft's too) that
// GET /storefront/v1/experiments?preview= answers as that visitor's arm of
// that test; events carrying it are never exposures; it expires; a theme's
// token opens no arm; another store's experiment is a 404 and its tokens
// open nothing here; the access rules are the experiments scope's.
func TestExperimentPreviewTokens(t *testing.T) {
	t0 := time.Now().UTC().Truncate(time.Second)
	clock := apitest.NewClock(t0)
	e := apitest.New(t, apitest.WithClock(clock.Now))
	s := e.Store("Acme")
	pub := e.PublishableKey(s.ID)
	page := xsPage(t, e, s.ID, "about", "About", "<p>A</p>")
	surface := fmt.Sprintf(`{"page_id": %d}`, page)
	draft, draftArms := xsExperiment(t, e, s.ID, "new-hero", models.ExperimentKindContent, models.ExperimentDraft, surface,
		xsArm{"a", 50, `{}`}, xsArm{"b", 50, `{"title": "Brand new"}`})
	running, runningArms := xsExperiment(t, e, s.ID, "hero", models.ExperimentKindContent, models.ExperimentRunning, surface,
		xsArm{"a", 90, `{}`}, xsArm{"b", 10, `{"title": "B"}`})

	k := checkAccess(t, e, s.ID, "experiments", map[string]string{"themes": e.Key(s.ID, auth.RoleAdmin, "themes:write")}, nil,
		[]apitest.Call{{Method: http.MethodPost, Path: xsPreviewPath(draft), Body: map[string]any{"position": 2}}})

	// By position, on both surfaces; by id the same token.
	r := e.Do(http.MethodPost, xsPreviewPath(draft), k.writer, map[string]any{"position": 2}).Expect(t, http.StatusOK)
	e.SameOnGraphQL(t, r, k.writer, "CreateExperimentPreviewToken", map[string]any{"id": draft, "position": 2})
	objectWithKeys(t, "preview token", map[string]any{"token": r.Body["token"], "expires_at": r.Body["expires_at"], "url": r.Body["url"],
		"experiment_id": r.Body["experiment_id"], "variant_id": r.Body["variant_id"]}, []string{"experiment_id", "expires_at", "token", "url", "variant_id"})
	if wholeNumber(t, r.Body["variant_id"]) != draftArms[1] || wholeNumber(t, r.Body["experiment_id"]) != draft ||
		r.Body["expires_at"] != t0.Add(24*time.Hour).Format(time.RFC3339) {
		t.Fatalf("preview token: %v", r.Body)
	}
	token := r.Body["token"].(string)
	byID := e.Do(http.MethodPost, xsPreviewPath(draft), k.writer, map[string]any{"variant_id": draftArms[1]}).Expect(t, http.StatusOK)
	if byID.Body["token"] != token {
		t.Fatalf("by id %v, by position %v", byID.Body["token"], token)
	}
	u, err := url.Parse(r.Body["url"].(string))
	if err != nil || !strings.HasSuffix(u.Path, "/storefront/v1/experiments") || u.Query().Get("preview") != token {
		t.Fatalf("url %v", r.Body["url"])
	}

	// The draft shows, with its forced arm, beside the running tests.
	got := xsArms(t, e, pub, "anyone", "preview", token)
	if v := got["new-hero"]; v == nil || xsArmKey(t, v) != "b" || v["preview"] != true || v["shows"].(map[string]any)["title"] != "Brand new" {
		t.Fatalf("the previewed draft: %v", got)
	}
	if got["hero"] == nil || got["hero"]["preview"] != false {
		t.Fatalf("the running test beside it: %v", got)
	}
	if plain := xsArms(t, e, pub, "anyone"); plain["new-hero"] != nil {
		t.Fatalf("a draft without a token: %v", plain)
	}
	// A running test's arm forced for a visitor the hash puts elsewhere.
	a := xsVisitorIn(t, "hero", "pv-", 1, 90, 10)
	forced := e.Do(http.MethodPost, xsPreviewPath(running), k.writer, map[string]any{"variant_id": runningArms[1], "expires_in": 300}).Expect(t, http.StatusOK)
	if v := xsArms(t, e, pub, a, "preview", forced.Body["token"].(string))["hero"]; xsArmKey(t, v) != "b" || v["preview"] != true {
		t.Fatalf("forced arm: %v", v)
	}
	// The page unpublished: its tests leave the storefront's answer (its
	// text is not the shoppers' to read), but for a preview browser, whose
	// token is the merchant's.
	publish := func(at string) {
		if _, err := e.DB.NewRaw("UPDATE pages SET published_at = "+at+" WHERE id = ?", page).Exec(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	publish("NULL")
	if plain := xsArms(t, e, pub, "anyone"); len(plain) != 0 {
		t.Fatalf("tests of an unpublished page: %v", plain)
	}
	if got := xsArms(t, e, pub, "anyone", "preview", token); len(got) != 1 || got["new-hero"] == nil {
		t.Fatalf("a previewed test of an unpublished page: %v", got)
	}
	publish("now()")
	// Its events are never exposures.
	e.Storefront(http.MethodPost, "/events", pub, sfBatch(xsView("pv1", a, "hero", t0.Add(-time.Second),
		map[string]any{"preview": forced.Body["token"]})), nil).Expect(t, http.StatusOK)
	if got := xsExposures(t, e, s.ID); len(got) != 0 {
		t.Fatalf("a preview browser was exposed: %v", got)
	}

	// Refusals: the arm named wrong, the lifetime, another store.
	for name, body := range map[string]any{
		"neither":          map[string]any{},
		"both":             map[string]any{"position": 1, "variant_id": draftArms[0]},
		"position 3":       map[string]any{"position": 3},
		"another's arm":    map[string]any{"variant_id": runningArms[0]},
		"too short":        map[string]any{"position": 1, "expires_in": 299},
		"too long":         map[string]any{"position": 1, "expires_in": 604801},
		"position as text": map[string]any{"position": "2"},
	} {
		if r := e.Do(http.MethodPost, xsPreviewPath(draft), k.writer, body).Expect(t, http.StatusBadRequest); r.Message() == "" {
			t.Fatalf("%s: no message", name)
		}
	}
	expectGraphQLCode(t, e, k.writer, "BAD_USER_INPUT", map[string]any{"id": draft},
		`mutation($id: Int!) { createExperimentPreviewToken(id: $id) { token } }`)
	bolt := e.Store("Bolt")
	boltAdmin := e.Key(bolt.ID, auth.RoleAdmin)
	e.Do(http.MethodPost, xsPreviewPath(draft), boltAdmin, map[string]any{"position": 1}).Expect(t, http.StatusNotFound)
	e.Do(http.MethodPost, xsPreviewPath(1<<40), k.writer, map[string]any{"position": 1}).Expect(t, http.StatusNotFound)
	expectGraphQLCode(t, e, boltAdmin, "NOT_FOUND", map[string]any{"id": draft},
		`mutation($id: Int!) { createExperimentPreviewToken(id: $id, position: 1) { token } }`)
	e.Storefront(http.MethodGet, "/experiments?visitor_id=v&preview="+url.QueryEscape(token), e.PublishableKey(bolt.ID), nil, nil).Expect(t, http.StatusUnauthorized)

	// A theme's token opens no arm; an altered one, none; an expired one, none.
	theme := installTheme(t, e, e.Key(s.ID, auth.RoleAdmin), "harbor")
	themeToken := e.Do(http.MethodPost, themePath(theme)+"/preview-token", e.Key(s.ID, auth.RoleAdmin), nil).Expect(t, http.StatusOK).Body["token"].(string)
	for _, bad := range []string{themeToken, token[:len(token)-1], strings.Replace(token, ".", ".1", 1)} {
		r := e.Storefront(http.MethodGet, "/experiments?visitor_id=v&preview="+url.QueryEscape(bad), pub, nil, nil).Expect(t, http.StatusUnauthorized)
		if !strings.Contains(r.Message(), "not valid") {
			t.Fatalf("token %q: %s", bad, r.Message())
		}
	}
	clock.Set(t0.Add(5 * time.Minute))
	r = e.Storefront(http.MethodGet, "/experiments?visitor_id=v&preview="+url.QueryEscape(forced.Body["token"].(string)), pub, nil, nil).Expect(t, http.StatusUnauthorized)
	if !strings.Contains(r.Message(), "expired") {
		t.Fatalf("an expired token: %s", r.Message())
	}
	xsArms(t, e, pub, "v", "preview", token) // the day-long one still works
}
