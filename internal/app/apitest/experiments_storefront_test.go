package apitest_test

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"storeadmin/internal/app/apitest"
	"storeadmin/internal/auth"
	"storeadmin/models"
)

// A/B tests on the storefront surface: assignment (GET /experiments),
// exposures (experiment_view events), what arms charge, previews of arms.
// Experiments are inserted as rows of the contract's tables (the
// lifecycle's endpoints are another piece). Helpers start with xs.

// xsArm is an arm of xsExperiment: its key, split and payload.
type xsArm struct {
	key     string
	split   int
	payload string
}

// xsExperiment inserts an experiment of the store in status with its arms
// (positions in order), and answers its id and its arms' ids.
func xsExperiment(t *testing.T, e *apitest.Env, storeID int64, key, kind, status, surface string, arms ...xsArm) (int64, []int64) {
	t.Helper()
	ctx := context.Background()
	var started, paused, ended any
	now := time.Now().UTC().Add(-time.Hour)
	if status != models.ExperimentDraft {
		started = now
	}
	if status == models.ExperimentPaused {
		paused = now
	}
	if status == models.ExperimentEnded {
		ended = now
	}
	var id int64
	if err := e.DB.NewRaw(`INSERT INTO experiments (store_id, key, name, kind, metric, surface, status, started_at, paused_at, ended_at)
		VALUES (?, ?, ?, ?, 'conversion', ?::jsonb, ?, ?, ?, ?) RETURNING id`,
		storeID, key, "Test "+key, kind, surface, status, started, paused, ended).Scan(ctx, &id); err != nil {
		t.Fatal(err)
	}
	ids := make([]int64, len(arms))
	for i, a := range arms {
		if err := e.DB.NewRaw(`INSERT INTO experiment_variants (store_id, experiment_id, position, key, name, payload, split_pct)
			VALUES (?, ?, ?, ?, ?, ?::jsonb, ?) RETURNING id`, storeID, id, i+1, a.key, "Arm "+a.key, a.payload, a.split).Scan(ctx, &ids[i]); err != nil {
			t.Fatal(err)
		}
	}
	return id, ids
}

// xsPage inserts a published page of the store and answers its id.
func xsPage(t *testing.T, e *apitest.Env, storeID int64, handle, title, body string) int64 {
	t.Helper()
	var id int64
	if err := e.DB.NewRaw(`INSERT INTO pages (store_id, handle, title, body_html, published_at) VALUES (?, ?, ?, ?, now()) RETURNING id`,
		storeID, handle, title, body).Scan(context.Background(), &id); err != nil {
		t.Fatal(err)
	}
	return id
}

// xsVisitorIn is a visitor id the assignment puts in arm position of the
// test of key with splits: found by trying ids, as the hash decides.
func xsVisitorIn(t *testing.T, key, prefix string, position int64, splits ...int64) string {
	t.Helper()
	arms := make([]models.ExperimentVariant, len(splits))
	for i, s := range splits {
		arms[i] = models.ExperimentVariant{Position: int64(i + 1), SplitPct: s}
	}
	for i := 0; i < 10_000; i++ {
		anon := prefix + strconv.Itoa(i)
		if models.AssignVariant(key, anon, arms).Position == position {
			return anon
		}
	}
	t.Fatalf("no visitor of %s falls in arm %d", key, position)
	return ""
}

// xsArms answers GET /experiments for visitor: each test's key → its view.
func xsArms(t *testing.T, e *apitest.Env, pub, visitor string, more ...string) map[string]map[string]any {
	t.Helper()
	q := url.Values{"visitor_id": {visitor}}
	for i := 0; i+1 < len(more); i += 2 {
		q.Set(more[i], more[i+1])
	}
	r := e.Storefront(http.MethodGet, "/experiments?"+q.Encode(), pub, nil, nil).Expect(t, http.StatusOK)
	out := map[string]map[string]any{}
	for _, x := range r.List("experiments") {
		v := objectWithKeys(t, "experiment", x, []string{"arm", "broken", "key", "kind", "preview", "shows", "surface"})
		out[v["key"].(string)] = v
	}
	return out
}

func xsArmKey(t *testing.T, view map[string]any) string {
	t.Helper()
	arm, _ := view["arm"].(map[string]any)
	if arm == nil {
		t.Fatalf("no arm: %v", view)
	}
	return arm["key"].(string)
}

// TestExperimentAssignment: GET /experiments answers the running tests
// only, each visitor's arm is the hash's (the same from two servers on one
// database and after a restart), what each arm shows is concrete (page
// content, merged theme settings, prices, the rate's price), a broken test
// shows the control, nothing is recorded, and its statements do not grow
// with the tests.
func TestExperimentAssignment(t *testing.T) {
	e := apitest.New(t)
	ds := scStore(t, e, "Acme")
	sid := ds.store.ID
	pub := e.PublishableKey(sid)
	ctx := context.Background()
	page := xsPage(t, e, sid, "about", "About us", "<p>Hello</p>")
	xsExperiment(t, e, sid, "about-copy", models.ExperimentKindContent, models.ExperimentRunning,
		fmt.Sprintf(`{"page_id": %d}`, page), xsArm{"a", 50, `{}`}, xsArm{"b", 50, `{"title": "Who we are"}`})
	var productID int64
	if err := e.DB.NewRaw("SELECT product_id FROM product_variants WHERE id = ?", ds.variantID).Scan(ctx, &productID); err != nil {
		t.Fatal(err)
	}
	xsExperiment(t, e, sid, "tee-price", models.ExperimentKindPrice, models.ExperimentRunning,
		fmt.Sprintf(`{"product_ids": [%d]}`, productID), xsArm{"a", 50, `{"price_change_pct": 0}`}, xsArm{"b", 50, `{"price_change_pct": 12.5}`})
	xsExperiment(t, e, sid, "ship", models.ExperimentKindShipping, models.ExperimentRunning,
		fmt.Sprintf(`{"shipping_rate_id": %d}`, ds.standardID), xsArm{"a", 30, `{}`}, xsArm{"b", 70, `{"price_cents": 0}`})
	for _, status := range []string{models.ExperimentDraft, models.ExperimentPaused, models.ExperimentEnded} {
		xsExperiment(t, e, sid, "not-"+status, models.ExperimentKindContent, status,
			fmt.Sprintf(`{"page_id": %d}`, page), xsArm{"a", 50, `{}`}, xsArm{"b", 50, `{"title": "x"}`})
	}

	// Two servers on one database, and a third started later, agree with
	// the pure function for every visitor.
	other := apitest.New(t, apitest.WithDatabase(e.DB))
	visitors := []string{"v-1", "v-2", "v-3", "0f8fad5b-d9cb-469f-a165-70867728950e", "x", "{visitor:42}"}
	first := map[string]map[string]map[string]any{}
	for _, v := range visitors {
		got := xsArms(t, e, pub, v)
		if len(got) != 3 || got["about-copy"] == nil || got["tee-price"] == nil || got["ship"] == nil {
			t.Fatalf("running tests only, got %v", got)
		}
		again := xsArms(t, other, pub, v)
		for key, view := range got {
			if xsArmKey(t, view) != xsArmKey(t, again[key]) {
				t.Fatalf("visitor %s, test %s: arm %s on one server, %s on the other", v, key, xsArmKey(t, view), xsArmKey(t, again[key]))
			}
		}
		first[v] = got
	}
	restarted := apitest.New(t, apitest.WithDatabase(e.DB))
	for _, v := range visitors {
		for key, view := range xsArms(t, restarted, pub, v) {
			if xsArmKey(t, view) != xsArmKey(t, first[v][key]) {
				t.Fatalf("visitor %s, test %s: arm moved after a restart", v, key)
			}
		}
	}

	// What each arm shows.
	b := xsVisitorIn(t, "about-copy", "c-", 2, 50, 50)
	shows := xsArms(t, e, pub, b)["about-copy"]
	if xsArmKey(t, shows) != "b" || shows["broken"] != false || shows["preview"] != false {
		t.Fatalf("content arm b: %v", shows)
	}
	if s := shows["shows"].(map[string]any); s["title"] != "Who we are" || s["body_html"] != "<p>Hello</p>" || wholeNumber(t, s["page_id"]) != page {
		t.Fatalf("content arm b shows %v", s)
	}
	a := xsVisitorIn(t, "about-copy", "c-", 1, 50, 50)
	if s := xsArms(t, e, pub, a)["about-copy"]["shows"].(map[string]any); s["title"] != "About us" {
		t.Fatalf("the control shows %v", s)
	}
	pb := xsVisitorIn(t, "tee-price", "p-", 2, 50, 50)
	price := xsArms(t, e, pub, pb)["tee-price"]["shows"].(map[string]any)
	v0 := price["variants"].([]any)[0].(map[string]any)
	if wholeNumber(t, v0["variant_id"]) != ds.variantID || wholeNumber(t, v0["catalogue_price_cents"]) != 2500 || wholeNumber(t, v0["price_cents"]) != 2813 {
		t.Fatalf("price arm +12.5%% of 25.00 shows %v, want 28.13 (28.125 rounded half up)", price)
	}
	sb := xsVisitorIn(t, "ship", "s-", 2, 30, 70)
	if s := xsArms(t, e, pub, sb)["ship"]["shows"].(map[string]any); wholeNumber(t, s["price_cents"]) != 0 || wholeNumber(t, s["rate_price_cents"]) != 500 {
		t.Fatalf("shipping arm b shows %v", s)
	}

	// Nothing is recorded by reading.
	if n := sfCount(t, e, "experiment_exposures", sid) + sfCount(t, e, "visitors", sid); n != 0 {
		t.Fatalf("GET /experiments recorded %d rows", n)
	}

	// Its statements do not grow with the tests.
	count := countStatements(e)
	three := count(func() { xsArms(t, e, pub, "v-1") })
	for i := 0; i < 6; i++ {
		xsExperiment(t, e, sid, "more-"+strconv.Itoa(i), models.ExperimentKindContent, models.ExperimentRunning,
			fmt.Sprintf(`{"page_id": %d}`, page), xsArm{"a", 50, `{}`}, xsArm{"b", 50, `{"body_html": "<p>x</p>"}`})
	}
	if nine := count(func() { xsArms(t, e, pub, "v-1") }); nine != three {
		t.Fatalf("3 tests took %d statements, 9 took %d", three, nine)
	}

	// A broken test (its page deleted) shows everyone the control.
	if _, err := e.DB.NewRaw("DELETE FROM pages WHERE id = ?", page).Exec(ctx); err != nil {
		t.Fatal(err)
	}
	broken := xsArms(t, e, pub, b)["about-copy"]
	if xsArmKey(t, broken) != "a" || broken["broken"] != true || broken["shows"] != nil {
		t.Fatalf("a broken test: %v", broken)
	}

	// Refusals.
	for path, status := range map[string]int{
		"/experiments":                          400,
		"/experiments?visitor_id=":              400,
		"/experiments?visitor_id=v-1&color=red": 400,
		"/experiments?visitor_id=" + url.QueryEscape(string(make([]byte, 65))): 400,
		"/experiments?visitor_id=v-1&preview=nope":                             401,
	} {
		if r := e.Storefront(http.MethodGet, path, pub, nil, nil).Expect(t, status); r.Message() == "" {
			t.Fatalf("%s: no message", path)
		}
	}
	e.Storefront(http.MethodGet, "/experiments?visitor_id=v-1", "", nil, nil).Expect(t, 401)
	e.Storefront(http.MethodGet, "/experiments?visitor_id=v-1", ds.admin, nil, nil).Expect(t, 401)
}

// xsView is an experiment_view event of visitor for the test of key.
func xsView(id, visitor, key string, at time.Time, more map[string]any) map[string]any {
	m := map[string]any{"experiment": key}
	for k, v := range more {
		m[k] = v
	}
	return sfEvent(id, "experiment_view", visitor, at, m)
}

// xsExposures lists the store's exposures as "visitor anon id/test key/arm key".
func xsExposures(t *testing.T, e *apitest.Env, storeID int64) []string {
	t.Helper()
	var out []string
	err := e.DB.NewRaw(`SELECT v.anon_id || '/' || ex.key || '/' || ev.key FROM experiment_exposures x
		JOIN visitors v ON v.id = x.visitor_id JOIN experiments ex ON ex.id = x.experiment_id
		JOIN experiment_variants ev ON ev.id = x.variant_id WHERE x.store_id = ? ORDER BY 1`, storeID).Scan(context.Background(), &out)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// xsIdentify identifies the visitor anon as the storefront does: a cart of
// theirs carries another email, then the shop's checkout form puts email
// in it. The visitor keeps the latest email, identified at the first
// cart's time (which the second email does not move), and the admin's
// list of visits shows them by it.
func xsIdentify(t *testing.T, e *apitest.Env, storeID int64, pub, anon, email string) {
	t.Helper()
	cart := e.Storefront(http.MethodPost, "/carts", pub, map[string]any{"visitor_id": anon, "email": "first-" + email},
		nil).Expect(t, http.StatusCreated).Obj("cart")
	e.Storefront(http.MethodPut, "/carts/"+cart["token"].(string), pub, map[string]any{"email": email}, nil).Expect(t, http.StatusOK)
	var got struct {
		Email        string     `bun:"email"`
		IdentifiedAt *time.Time `bun:"identified_at"`
	}
	if err := e.DB.NewRaw("SELECT email, identified_at FROM visitors WHERE store_id = ? AND anon_id = ?", storeID, anon).
		Scan(context.Background(), &got.Email, &got.IdentifiedAt); err != nil {
		t.Fatal(err)
	}
	created, err := time.Parse(time.RFC3339Nano, cart["updated_at"].(string))
	if err != nil {
		t.Fatal(err)
	}
	created = created.Truncate(time.Microsecond) // as PostgreSQL keeps it
	if got.Email != email || got.IdentifiedAt == nil || !got.IdentifiedAt.Equal(created) {
		t.Fatalf("visitor %s: email %q identified at %v, want %q at the first cart's %v", anon, got.Email, got.IdentifiedAt, email, created)
	}
	reader := e.Key(storeID, auth.RoleStaff, "analytics:read")
	r := e.Do(http.MethodGet, "/store/sessions", reader, nil).Expect(t, http.StatusOK)
	shown := false
	for _, row := range objectsOf(r.Body["sessions"]) {
		shown = shown || row["visitor_email"] == email
	}
	if !shown {
		t.Fatalf("no visit of %s shows its email: %s", email, r.Raw)
	}
}

// TestExperimentExposures: an experiment_view of a running test records
// the visitor's first exposure with the server's arm and the event's
// session and time; bots, the store's staff, preview browsers, paused,
// ended and unknown tests record none (their events are stored); consent
// reaches the session, the last reported winning.
func TestExperimentExposures(t *testing.T) {
	e := apitest.New(t)
	s := e.Store("Acme")
	pub := e.PublishableKey(s.ID)
	ctx := context.Background()
	page := xsPage(t, e, s.ID, "about", "About", "")
	surface := fmt.Sprintf(`{"page_id": %d}`, page)
	xsExperiment(t, e, s.ID, "hero", models.ExperimentKindContent, models.ExperimentRunning, surface, xsArm{"a", 50, `{}`}, xsArm{"b", 50, `{"title": "B"}`})
	xsExperiment(t, e, s.ID, "resting", models.ExperimentKindContent, models.ExperimentPaused, surface, xsArm{"a", 50, `{}`}, xsArm{"b", 50, `{}`})
	xsExperiment(t, e, s.ID, "over", models.ExperimentKindContent, models.ExperimentEnded, surface, xsArm{"a", 50, `{}`}, xsArm{"b", 50, `{}`})
	now := time.Now().UTC().Add(-time.Minute)
	post := func(ua string, events ...map[string]any) {
		t.Helper()
		e.Storefront(http.MethodPost, "/events", pub, sfBatch(events...), map[string]string{"User-Agent": ua}).Expect(t, http.StatusOK)
	}

	// A shopper: one exposure, with the arm the hash gives, whatever the
	// browser claims; a second view (and a retried batch) keeps the first.
	b := xsVisitorIn(t, "hero", "shopper-", 2, 50, 50)
	post(chromeUA, xsView("e1", b, "hero", now, map[string]any{"consent": true}), sfEvent("e2", "page_view", b, now.Add(time.Second), nil))
	post(chromeUA, xsView("e3", b, "hero", now.Add(2*time.Second), nil), xsView("e1", b, "hero", now, nil))
	if got := xsExposures(t, e, s.ID); len(got) != 1 || got[0] != b+"/hero/b" {
		t.Fatalf("exposures: %v", got)
	}
	var sameTime, sameSession bool
	if err := e.DB.NewRaw(`SELECT x.exposed_at = ev.occurred_at, x.session_id = ev.session_id FROM experiment_exposures x
		JOIN storefront_events ev ON ev.store_id = x.store_id AND ev.client_event_id = 'e1' WHERE x.store_id = ?`, s.ID).Scan(ctx, &sameTime, &sameSession); err != nil {
		t.Fatal(err)
	}
	if !sameTime || !sameSession {
		t.Fatalf("the exposure has the first event's time (%v) and session (%v)", sameTime, sameSession)
	}

	// Not exposed: a bot; the store's staff (identified with a member's
	// email); a preview browser; paused, ended and unknown tests.
	bot, staff, preview := "bot-1", "staff-1", "preview-1"
	post(googlebotUA, xsView("b1", bot, "hero", now, nil))
	var userID int64
	if err := e.DB.NewRaw(`INSERT INTO users (email) VALUES ('Owner@Acme.example') RETURNING id`).Scan(ctx, &userID); err != nil {
		t.Fatal(err)
	}
	if _, err := e.DB.NewRaw(`INSERT INTO store_members (store_id, user_id, role) VALUES (?, ?, 'owner')`, s.ID, userID).Exec(ctx); err != nil {
		t.Fatal(err)
	}
	post(chromeUA, sfEvent("s0", "page_view", staff, now, nil))
	xsIdentify(t, e, s.ID, pub, staff, "owner@acme.example")
	post(chromeUA, xsView("s1", staff, "hero", now.Add(time.Second), nil))
	token := "1.2.3.lw9vqk.AAAAAAAAAAAAAAAAAAAAAA" // any arm token marks the browser a preview one
	post(chromeUA, xsView("p1", preview, "hero", now, map[string]any{"preview": token}))
	post(chromeUA, xsView("r1", b, "resting", now, nil), xsView("o1", b, "over", now, nil), xsView("u1", b, "nobody-knows", now, nil))
	if got := xsExposures(t, e, s.ID); len(got) != 1 {
		t.Fatalf("exposures after bots, staff, previews, stopped tests: %v", got)
	}
	var stored int
	if err := e.DB.NewRaw(`SELECT count(*) FROM storefront_events WHERE store_id = ? AND name = 'experiment_view'
		AND client_event_id IN ('b1', 's1', 'p1', 'r1', 'o1', 'u1')`, s.ID).Scan(ctx, &stored); err != nil {
		t.Fatal(err)
	}
	var previewDetail string
	if err := e.DB.NewRaw(`SELECT detail::text FROM storefront_events WHERE store_id = ? AND client_event_id = 'p1'`, s.ID).Scan(ctx, &previewDetail); err != nil {
		t.Fatal(err)
	}
	if stored != 6 || previewDetail != `{"preview": true, "experiment": "hero"}` {
		t.Fatalf("the events are stored all the same: %d, preview's detail %s", stored, previewDetail)
	}

	// Consent: the session keeps the last reported.
	consent := func() *bool {
		t.Helper()
		var c *bool
		if err := e.DB.NewRaw(`SELECT s.analytics_consent FROM storefront_sessions s JOIN visitors v ON v.id = s.visitor_id
			WHERE v.store_id = ? AND v.anon_id = ?`, s.ID, b).Scan(ctx, &c); err != nil {
			t.Fatal(err)
		}
		return c
	}
	if c := consent(); c == nil || !*c {
		t.Fatalf("consent after true: %v", c)
	}
	post(chromeUA, sfEvent("c1", "page_view", b, now.Add(3*time.Second), map[string]any{"consent": true}),
		sfEvent("c2", "page_view", b, now.Add(4*time.Second), map[string]any{"consent": false}))
	if c := consent(); c == nil || *c {
		t.Fatalf("consent after true then false: %v", c)
	}

	// Refusals name the field; a refused batch stores nothing.
	for name, ev := range map[string]map[string]any{
		"no experiment":        sfEvent("x1", "experiment_view", b, now, nil),
		"a bad key":            xsView("x2", b, "Hero Banner", now, nil),
		"experiment elsewhere": sfEvent("x3", "page_view", b, now, map[string]any{"experiment": "hero"}),
		"a bad token":          xsView("x4", b, "hero", now, map[string]any{"preview": "nope"}),
		"consent as text":      sfEvent("x5", "page_view", b, now, map[string]any{"consent": "yes"}),
	} {
		r := e.Storefront(http.MethodPost, "/events", pub, sfBatch(ev), nil).Expect(t, http.StatusBadRequest)
		if r.Body["field"] == nil || r.Message() == "" {
			t.Fatalf("%s: %v", name, r.Body)
		}
	}
}

// TestExperimentExposuresAreTheStoredEvents: the stored event is the
// evidence of an exposure or a consent, never the batch's copy of its id.
// A second copy of an event id in a batch (dropped: the first is stored),
// or an id stored before and sent again, never records its visitor in a
// test, nor another visitor in its own arm, nor a preview's view as an
// exposure, nor another visitor's consent.
func TestExperimentExposuresAreTheStoredEvents(t *testing.T) {
	e := apitest.New(t)
	s := e.Store("Acme")
	pub := e.PublishableKey(s.ID)
	ctx := context.Background()
	page := xsPage(t, e, s.ID, "about", "About", "")
	xsExperiment(t, e, s.ID, "hero", models.ExperimentKindContent, models.ExperimentRunning, fmt.Sprintf(`{"page_id": %d}`, page),
		xsArm{"a", 50, `{}`}, xsArm{"b", 50, `{"title": "B"}`})
	now := time.Now().UTC().Add(-time.Minute)
	post := func(events ...map[string]any) {
		t.Helper()
		e.Storefront(http.MethodPost, "/events", pub, sfBatch(events...), map[string]string{"User-Agent": chromeUA}).Expect(t, http.StatusOK)
	}
	a, b := xsVisitorIn(t, "hero", "a-", 1, 50, 50), xsVisitorIn(t, "hero", "b-", 2, 50, 50)

	// The hostile batch: a's page view, then b's view of the test under
	// the same id (which would record a in b's arm), and b's word on
	// consent under it.
	post(sfEvent("x", "page_view", a, now, map[string]any{"consent": true}),
		xsView("x", b, "hero", now, map[string]any{"consent": false}))
	// Ids stored before, sent again: b's consent on a's page view; a's
	// page view and a's preview's view resent as views of the test.
	post(sfEvent("x", "page_view", b, now, map[string]any{"consent": false}))
	post(sfEvent("y", "page_view", a, now.Add(time.Second), nil))
	post(xsView("y", a, "hero", now.Add(time.Second), nil))
	post(xsView("p", a, "hero", now.Add(2*time.Second), map[string]any{"preview": "1.2.3.lw9vqk.AAAAAAAAAAAAAAAAAAAAAA"}))
	post(xsView("p", a, "hero", now.Add(2*time.Second), nil))
	if got := xsExposures(t, e, s.ID); len(got) != 0 {
		t.Fatalf("exposures of forged views: %v", got)
	}
	var consent *bool
	if err := e.DB.NewRaw(`SELECT s.analytics_consent FROM storefront_sessions s JOIN visitors v ON v.id = s.visitor_id
		WHERE v.store_id = ? AND v.anon_id = ?`, s.ID, a).Scan(ctx, &consent); err != nil {
		t.Fatal(err)
	}
	if consent == nil || !*consent {
		t.Fatalf("a's consent, which only a gave (true): %v", consent)
	}

	// a's own view records a, in a's arm.
	post(xsView("z", a, "hero", now.Add(3*time.Second), nil))
	if got := xsExposures(t, e, s.ID); len(got) != 1 || got[0] != a+"/hero/a" {
		t.Fatalf("exposures after a's own view: %v", got)
	}
}

// TestExperimentExposuresLeavePausesOut: a view dated inside a pause of the
// test (from paused_at, until resumed_at) is no exposure, even when it
// arrives after the test resumed (a browser's time may be days old); one
// dated before the pause or from the resume on is.
func TestExperimentExposuresLeavePausesOut(t *testing.T) {
	clock := apitest.NewClock(time.Now().UTC().Truncate(time.Second).Add(-3 * time.Hour))
	e := apitest.New(t, apitest.WithClock(clock.Now))
	f := newExperimentFixture(t, e, "Acme")
	pub := e.PublishableKey(f.store.ID)
	start := clock.Now()
	id := idOf(t, createExperiment(t, e, f.admin, experimentBody("Hero", models.ExperimentKindContent, f.contentSurface, map[string]any{"title": "B"})))
	experimentAction(t, e, f.admin, id, "start", nil, http.StatusOK)
	paused, resumed := start.Add(time.Hour), start.Add(2*time.Hour)
	clock.Set(paused)
	experimentAction(t, e, f.admin, id, "pause", map[string]any{"reason": "Black Friday"}, http.StatusOK)
	clock.Set(resumed)
	experimentAction(t, e, f.admin, id, "resume", nil, http.StatusOK)
	clock.Set(start.Add(3 * time.Hour))
	post := func(events ...map[string]any) {
		t.Helper()
		e.Storefront(http.MethodPost, "/events", pub, sfBatch(events...), map[string]string{"User-Agent": chromeUA}).Expect(t, http.StatusOK)
	}

	post(xsView("p1", "paused-1", "hero", paused, nil), xsView("p2", "paused-1", "hero", paused.Add(30*time.Minute), nil),
		xsView("p3", "paused-2", "hero", resumed.Add(-time.Millisecond), nil))
	if got := xsExposures(t, e, f.store.ID); len(got) != 0 {
		t.Fatalf("exposures of views in the pause: %v", got)
	}
	post(xsView("r1", "paused-1", "hero", resumed, nil), xsView("b1", "before-1", "hero", start.Add(30*time.Minute), nil))
	got := xsExposures(t, e, f.store.ID)
	if len(got) != 2 || !strings.HasPrefix(got[0], "before-1/hero/") || !strings.HasPrefix(got[1], "paused-1/hero/") {
		t.Fatalf("exposures of views before the pause and from the resume on: %v", got)
	}
	var exposedAt time.Time
	if err := e.DB.NewRaw(`SELECT x.exposed_at FROM experiment_exposures x JOIN visitors v ON v.id = x.visitor_id
		WHERE x.experiment_id = ? AND v.anon_id = 'paused-1'`, id).Scan(context.Background(), &exposedAt); err != nil {
		t.Fatal(err)
	}
	if !exposedAt.Equal(resumed) {
		t.Fatalf("paused-1 exposed at %v, want its first view from the resume on, %v", exposedAt, resumed)
	}
}

// TestExperimentPriceIsCharged: the price a price test's arm shows is the
// price its checkout totals and its order's line carry, and a shipping
// test's arm is the rate's price in the rates, the checkout and the order;
// the control pays the catalogue's prices, and a paused test charges them
// to everyone.
func TestExperimentPriceIsCharged(t *testing.T) {
	e := apitest.New(t)
	ds := scStore(t, e, "Acme")
	sid := ds.store.ID
	pub := e.PublishableKey(sid)
	ctx := context.Background()
	var productID int64
	if err := e.DB.NewRaw("SELECT product_id FROM product_variants WHERE id = ?", ds.variantID).Scan(ctx, &productID); err != nil {
		t.Fatal(err)
	}
	priceTest, _ := xsExperiment(t, e, sid, "tee-price", models.ExperimentKindPrice, models.ExperimentRunning,
		fmt.Sprintf(`{"product_ids": [%d]}`, productID), xsArm{"a", 50, `{"price_change_pct": 0}`}, xsArm{"b", 50, `{"price_change_pct": -33.33}`})
	xsExperiment(t, e, sid, "ship", models.ExperimentKindShipping, models.ExperimentRunning,
		fmt.Sprintf(`{"shipping_rate_id": %d}`, ds.standardID), xsArm{"a", 50, `{}`}, xsArm{"b", 50, `{"price_cents": 199}`})

	// A visitor in arm b of both tests, and one in both controls.
	var treated, control string
	for i := 0; treated == "" || control == ""; i++ {
		anon := "buyer-" + strconv.Itoa(i)
		arms := []models.ExperimentVariant{{Position: 1, SplitPct: 50}, {Position: 2, SplitPct: 50}}
		p, s := models.AssignVariant("tee-price", anon, arms).Position, models.AssignVariant("ship", anon, arms).Position
		if p == 2 && s == 2 && treated == "" {
			treated = anon
		}
		if p == 1 && s == 1 && control == "" {
			control = anon
		}
	}

	buy := func(anon string) (shown, rate, line, shipping, total int64) {
		t.Helper()
		scVisit(t, e, sid, anon, "cs-"+anon)
		views := xsArms(t, e, pub, anon)
		shown = wholeNumber(t, views["tee-price"]["shows"].(map[string]any)["variants"].([]any)[0].(map[string]any)["price_cents"])
		rate = wholeNumber(t, views["ship"]["shows"].(map[string]any)["price_cents"])
		cart := e.Storefront(http.MethodPost, "/carts", pub, map[string]any{"visitor_id": anon,
			"lines": []any{map[string]any{"variant_id": ds.variantID, "quantity": 2}}}, nil).Expect(t, http.StatusCreated).Obj("cart")
		if got := wholeNumber(t, cart["subtotal_cents"]); got != 2*shown {
			t.Fatalf("%s: the cart's subtotal %d, shown 2 × %d", anon, got, shown)
		}
		co := e.Storefront(http.MethodPost, "/checkouts", pub, map[string]any{"cart_token": cart["token"], "email": anon + "@example.com",
			"shipping_address": map[string]any{"first_name": "Ana", "address1": "1 rue de Rivoli", "city": "Paris", "zip": "75001", "country_code": "fr"},
		}, nil).Expect(t, http.StatusCreated).Obj("checkout")
		path := "/checkouts/" + co["token"].(string)
		rates := e.Storefront(http.MethodGet, path+"/shipping-rates", pub, nil, nil).Expect(t, http.StatusOK).List("shipping_rates")
		for _, r := range rates {
			if r := r.(map[string]any); wholeNumber(t, r["id"]) == ds.standardID && wholeNumber(t, r["price_cents"]) != rate {
				t.Fatalf("%s: the rates list Standard at %v, shown %d", anon, r["price_cents"], rate)
			}
		}
		co = e.Storefront(http.MethodPut, path, pub, map[string]any{"shipping_rate_id": ds.standardID}, nil).Expect(t, http.StatusOK).Obj("checkout")
		total = wholeNumber(t, co["total_cents"])
		scPay(t, e, pub, co, models.AttemptSuccess, total).Expect(t, http.StatusCreated)
		order := e.Storefront(http.MethodPost, path+"/complete", pub, nil, nil).Expect(t, http.StatusCreated).Obj("order")
		if err := e.DB.NewRaw(`SELECT li.price_cents, o.shipping_cents FROM order_line_items li JOIN orders o ON o.id = li.order_id
			WHERE o.id = ?`, wholeNumber(t, order["id"])).Scan(ctx, &line, &shipping); err != nil {
			t.Fatal(err)
		}
		return shown, rate, line, shipping, total
	}

	shown, rate, line, shipping, _ := buy(treated)
	if shown != 1667 || line != shown || rate != 199 || shipping != rate {
		t.Fatalf("arm b: shown %d (want 16.67: 25.00 − 33.33%%), charged %d; rate shown %d, charged %d", shown, line, rate, shipping)
	}
	shown, rate, line, shipping, _ = buy(control)
	if shown != 2500 || line != 2500 || rate != 500 || shipping != 500 {
		t.Fatalf("the control: shown %d, charged %d; rate %d, charged %d", shown, line, rate, shipping)
	}

	// Paused: everyone pays the catalogue's price.
	if _, err := e.DB.NewRaw(`UPDATE experiments SET status = 'paused', paused_at = now() WHERE id = ?`, priceTest).Exec(ctx); err != nil {
		t.Fatal(err)
	}
	cart := e.Storefront(http.MethodPost, "/carts", pub, map[string]any{"visitor_id": treated,
		"lines": []any{map[string]any{"variant_id": ds.variantID, "quantity": 1}}}, nil).Expect(t, http.StatusCreated).Obj("cart")
	if got := wholeNumber(t, cart["subtotal_cents"]); got != 2500 {
		t.Fatalf("a paused price test still charges %d", got)
	}
}
