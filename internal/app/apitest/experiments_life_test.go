package apitest_test

import (
	"context"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/uptrace/bun"

	"storeadmin/internal/app/apitest"
	"storeadmin/internal/auth"
	"storeadmin/internal/experiments"
	"storeadmin/models"
)

// The fields of the spec's ExperimentView, exactly.
var experimentKeys = []string{"created_at", "ended_at", "id", "key", "kind", "metric", "name", "pause_log", "paused_at",
	"paused_reason", "pool_key", "started_at", "status", "surface", "updated_at", "variants", "winner_variant_id"}

func experimentPath(id int64, action ...string) string {
	p := "/store/experiments/" + strconv.FormatInt(id, 10)
	for _, a := range action {
		p += "/" + a
	}
	return p
}

// experimentFixture is a store ready for every kind of test: a live theme
// (harbor, version 1), a page, a shipping rate and three products.
type experimentFixture struct {
	store             *models.Store
	admin             string
	theme, page, rate int64
	products          []int64
	themeSurface      map[string]any
	contentSurface    map[string]any
	shippingSurface   map[string]any
}

func newExperimentFixture(t *testing.T, e *apitest.Env, name string) experimentFixture {
	t.Helper()
	ctx := context.Background()
	s := e.Store(name)
	f := experimentFixture{store: s, admin: e.Key(s.ID, auth.RoleAdmin)}
	f.theme = defaultTheme(t, e, f.admin)
	if err := e.DB.NewRaw("INSERT INTO pages (store_id, handle, title) VALUES (?, 'about', 'About') RETURNING id", s.ID).Scan(ctx, &f.page); err != nil {
		t.Fatal(err)
	}
	if err := e.DB.NewRaw(`WITH z AS (INSERT INTO shipping_zones (store_id, name, countries) VALUES (?, 'All', '{*}') RETURNING id)
		INSERT INTO shipping_rates (store_id, zone_id, name, price_cents) SELECT ?, id, 'Standard', 500 FROM z RETURNING id`, s.ID, s.ID).Scan(ctx, &f.rate); err != nil {
		t.Fatal(err)
	}
	for _, title := range []string{"Mug", "Cap", "Tee"} {
		f.products = append(f.products, createSimpleProduct(t, e, f.admin, title, 1000, nil))
	}
	f.themeSurface = map[string]any{"theme_id": f.theme, "version": 1}
	f.contentSurface = map[string]any{"page_id": f.page}
	f.shippingSurface = map[string]any{"shipping_rate_id": f.rate}
	return f
}

// experimentBody is an ExperimentReq of two arms.
func experimentBody(name, kind string, surface, payload map[string]any) map[string]any {
	control := map[string]any{}
	if kind == models.ExperimentKindPrice {
		control = map[string]any{"price_change_pct": 0}
	}
	return map[string]any{"name": name, "kind": kind, "metric": "conversion", "surface": surface, "variants": []any{
		map[string]any{"name": "Control", "payload": control, "split_pct": 50},
		map[string]any{"name": "Challenger", "payload": payload, "split_pct": 50},
	}}
}

func priceBody(name string, products ...int64) map[string]any {
	return experimentBody(name, models.ExperimentKindPrice, map[string]any{"product_ids": products}, map[string]any{"price_change_pct": 10})
}

func themeBody(f experimentFixture, name, primary string) map[string]any {
	return experimentBody(name, models.ExperimentKindTheme, f.themeSurface,
		map[string]any{"settings": map[string]any{"colors": map[string]any{"primary": primary}}})
}

// createExperiment posts body and answers the experiment, checking its
// view's fields.
func createExperiment(t *testing.T, e *apitest.Env, key string, body any) map[string]any {
	t.Helper()
	r := e.Do(http.MethodPost, "/store/experiments", key, body).Expect(t, 201)
	expectPayload(t, r, "experiment")
	return objectWithKeys(t, "experiment", r.Body["experiment"], experimentKeys)
}

// experimentAction posts a transition and answers the experiment.
func experimentAction(t *testing.T, e *apitest.Env, key string, id int64, action string, body any, status int) *apitest.Response {
	t.Helper()
	return e.Do(http.MethodPost, experimentPath(id, action), key, body).Expect(t, status)
}

// getExperiment is GET /store/experiments/{id}, the same on GraphQL.
func getExperiment(t *testing.T, e *apitest.Env, key string, id int64) (map[string]any, []int64) {
	t.Helper()
	r := e.Do(http.MethodGet, experimentPath(id), key, nil).Expect(t, 200)
	expectPayload(t, r, "experiment", "price_products")
	e.SameOnGraphQL(t, r, key, "GetExperiment", map[string]any{"id": id})
	return objectWithKeys(t, "experiment", r.Body["experiment"], experimentKeys), wholeNumbers(t, r.Body["price_products"])
}

func armIDs(t *testing.T, x map[string]any) []int64 {
	t.Helper()
	var out []int64
	for _, v := range objectsOf(x["variants"]) {
		out = append(out, idOf(t, v))
	}
	return out
}

// TestExperimentLifecycle: a theme test's life over REST with the same
// reads on GraphQL: create (key from the name, unique), the list with the
// storefront's state and the money gate, edit a draft (arms replaced
// whole, key kept), rename in any status, start, pause with a reason,
// resume, end with a winner, delete; every impossible transition a 409
// naming the status; another store's ids 404.
func TestExperimentLifecycle(t *testing.T) {
	e := apitest.New(t)
	f := newExperimentFixture(t, e, "Acme")
	other := newExperimentFixture(t, e, "Other")
	admin := f.admin

	r := e.Do(http.MethodGet, "/store/experiments", admin, nil).Expect(t, 200)
	expectPayload(t, r, "enabled", "experiments", "money")
	e.SameOnGraphQL(t, r, admin, "ListExperiments", nil)
	if r.Body["enabled"] != true || len(r.List("experiments")) != 0 || r.Obj("money")["opt_in"] != false || r.Obj("money")["platform"] != true {
		t.Fatalf("empty list: %s", r.Raw)
	}

	x := createExperiment(t, e, admin, themeBody(f, " Hero colour ", "#000080"))
	id := idOf(t, x)
	if x["key"] != "hero-colour" || x["name"] != "Hero colour" || x["status"] != "draft" || x["started_at"] != nil || x["kind"] != "theme" {
		t.Fatalf("created: %v", x)
	}
	arms := objectsOf(x["variants"])
	if len(arms) != 2 || arms[0]["key"] != "a" || arms[1]["key"] != "b" || wholeNumber(t, arms[1]["position"]) != 2 {
		t.Fatalf("arms: %v", arms)
	}
	expectAuditRecord(t, e, admin, "action=createExperiment&limit=1", "experiment", id)
	twin := createExperiment(t, e, admin, themeBody(f, "Hero colour", "#000081"))
	if twin["key"] != "hero-colour-2" {
		t.Fatalf("a second test of the same name: key %v", twin["key"])
	}
	if idOf(t, createExperiment(t, e, other.admin, themeBody(other, "Hero colour", "#000080"))) == 0 {
		t.Fatal("no id")
	}

	// The list: newest first, only the store's.
	r = e.Do(http.MethodGet, "/store/experiments", admin, nil).Expect(t, 200)
	e.SameOnGraphQL(t, r, admin, "ListExperiments", nil)
	if list := r.List("experiments"); len(list) != 2 || idOf(t, list[0].(map[string]any)) != idOf(t, twin) {
		t.Fatalf("list: %s", r.Raw)
	}

	// Edit the draft: three arms replace two, the key stays.
	body := themeBody(f, "Hero colours", "#000080")
	body["variants"] = append(body["variants"].([]any), map[string]any{"name": "Third", "split_pct": 20,
		"payload": map[string]any{"settings": map[string]any{"colors": map[string]any{"primary": "#800000"}}}})
	body["variants"].([]any)[0].(map[string]any)["split_pct"] = 30
	r = e.Do(http.MethodPut, experimentPath(id), admin, body).Expect(t, 200)
	x = objectWithKeys(t, "experiment", r.Body["experiment"], experimentKeys)
	if x["key"] != "hero-colour" || x["name"] != "Hero colours" || len(objectsOf(x["variants"])) != 3 || objectsOf(x["variants"])[2]["key"] != "c" {
		t.Fatalf("edited: %v", x)
	}
	got, products := getExperiment(t, e, admin, id)
	if len(products) != 0 || len(objectsOf(got["variants"])) != 3 {
		t.Fatalf("read after edit: %v %v", got, products)
	}

	// Start, pause, resume, end; what cannot be is a 409 naming the status.
	experimentAction(t, e, admin, id, "resume", nil, 409)
	experimentAction(t, e, admin, id, "pause", map[string]any{"reason": "x"}, 409)
	experimentAction(t, e, admin, id, "end", nil, 409)
	x = experimentAction(t, e, admin, id, "start", nil, 200).Obj("experiment")
	if x["status"] != "running" || x["started_at"] == nil {
		t.Fatalf("started: %v", x)
	}
	for _, c := range []struct {
		method, path string
		body         any
	}{
		{http.MethodPost, experimentPath(id, "start"), nil},
		{http.MethodPost, experimentPath(id, "resume"), nil},
		{http.MethodPut, experimentPath(id), body},
		{http.MethodDelete, experimentPath(id), nil},
	} {
		r := e.Do(c.method, c.path, admin, c.body).Expect(t, 409)
		if !strings.Contains(r.Message(), "is running") {
			t.Fatalf("%s %s while running: %s", c.method, c.path, r.Raw)
		}
	}
	x = experimentAction(t, e, admin, id, "pause", map[string]any{"reason": "Black Friday"}, 200).Obj("experiment")
	if x["status"] != "paused" || x["paused_reason"] != "Black Friday" || x["paused_at"] == nil {
		t.Fatalf("paused: %v", x)
	}
	if r := experimentAction(t, e, admin, id, "pause", nil, 409); !strings.Contains(r.Message(), "is paused") {
		t.Fatalf("pausing twice: %s", r.Raw)
	}
	x = e.Do(http.MethodPatch, experimentPath(id), admin, map[string]any{"name": "Renamed while paused"}).Expect(t, 200).Obj("experiment")
	if x["name"] != "Renamed while paused" || x["key"] != "hero-colour" || x["status"] != "paused" {
		t.Fatalf("renamed: %v", x)
	}
	x = experimentAction(t, e, admin, id, "resume", nil, 200).Obj("experiment")
	if x["status"] != "running" || x["paused_at"] != nil || x["paused_reason"] != "" {
		t.Fatalf("resumed: %v", x)
	}
	experimentAction(t, e, admin, id, "pause", map[string]any{}, 200)
	got, _ = getExperiment(t, e, admin, id)
	log := objectsOf(got["pause_log"])
	if len(log) != 2 || log[0]["reason"] != "Black Friday" || log[0]["to"] == nil || log[1]["reason"] != nil || log[1]["to"] != nil {
		t.Fatalf("pause log: %v", log)
	}

	// End from a pause, with a winner of its own arms only.
	r = experimentAction(t, e, admin, id, "end", map[string]any{"winner_variant_id": armIDs(t, twin)[1]}, 400)
	if r.Message() != "winner_variant_id must be one of the experiment's arms: "+strconv.FormatInt(armIDs(t, twin)[1], 10)+" is not" {
		t.Fatalf("a winner of another test: %s", r.Raw)
	}
	winner := armIDs(t, got)[2]
	x = experimentAction(t, e, admin, id, "end", map[string]any{"winner_variant_id": winner}, 200).Obj("experiment")
	if x["status"] != "ended" || x["ended_at"] == nil || wholeNumber(t, x["winner_variant_id"]) != winner || x["paused_at"] != nil {
		t.Fatalf("ended: %v", x)
	}
	got, _ = getExperiment(t, e, admin, id)
	if objectsOf(got["pause_log"])[1]["to"] == nil {
		t.Fatalf("ending left the pause open: %v", got["pause_log"])
	}
	for _, a := range []string{"start", "pause", "resume", "end"} {
		if r := experimentAction(t, e, admin, id, a, nil, 409); !strings.Contains(r.Message(), "is ended") {
			t.Fatalf("%s after the end: %s", a, r.Raw)
		}
	}

	// Another store's ids are not found, on every call.
	theirs := createExperiment(t, e, other.admin, themeBody(other, "Theirs", "#000080"))
	tid := idOf(t, theirs)
	for _, c := range []struct {
		method, path string
		body         any
	}{
		{http.MethodGet, experimentPath(tid), nil},
		{http.MethodPut, experimentPath(tid), themeBody(f, "x", "#000080")},
		{http.MethodPatch, experimentPath(tid), map[string]any{"name": "Mine"}},
		{http.MethodDelete, experimentPath(tid), nil},
		{http.MethodPost, experimentPath(tid, "start"), nil},
		{http.MethodPost, experimentPath(tid, "pause"), nil},
		{http.MethodPost, experimentPath(tid, "resume"), nil},
		{http.MethodPost, experimentPath(tid, "end"), nil},
	} {
		e.Do(c.method, c.path, admin, c.body).Expect(t, 404)
	}
	expectGraphQLNotFound(t, e, admin, `query($id: Int!) { experiment(id: $id) { id } }`, map[string]any{"id": tid})
	if x, _ := getExperiment(t, e, other.admin, tid); x["status"] != "draft" || x["name"] != "Theirs" {
		t.Fatalf("another store's test changed: %v", x)
	}

	// Delete: a draft or an ended test.
	expectBareDelete(t, e, admin, experimentPath(id))
	expectBareDelete(t, e, admin, experimentPath(idOf(t, twin)))
	e.Do(http.MethodGet, experimentPath(id), admin, nil).Expect(t, 404)
}

// TestExperimentValidation: every family of bad ExperimentReq is a 400
// naming the field, on create and on edit, and writes nothing.
func TestExperimentValidation(t *testing.T) {
	e := apitest.New(t)
	f := newExperimentFixture(t, e, "Acme")
	other := newExperimentFixture(t, e, "Other")
	admin := f.admin
	e.Do(http.MethodPut, "/store/experiments/money-opt-in", admin, map[string]any{"enabled": true}).Expect(t, 200)
	draft := idOf(t, createExperiment(t, e, admin, themeBody(f, "Draft", "#000080")))

	with := func(base map[string]any, edit func(b map[string]any)) map[string]any {
		b := map[string]any{}
		for k, v := range base {
			b[k] = v
		}
		vs := []any{}
		for _, v := range base["variants"].([]any) {
			arm := map[string]any{}
			for k, x := range v.(map[string]any) {
				arm[k] = x
			}
			vs = append(vs, arm)
		}
		b["variants"] = vs
		edit(b)
		return b
	}
	arm := func(b map[string]any, i int) map[string]any { return b["variants"].([]any)[i].(map[string]any) }
	theme := themeBody(f, "T", "#000080")
	content := experimentBody("C", "content", f.contentSurface, map[string]any{"title": "New title"})
	ship := experimentBody("S", "shipping", f.shippingSurface, map[string]any{"price_cents": 0})
	price := priceBody("P", f.products[0])
	cases := map[string]struct {
		body any
		says string
	}{
		"no name":           {with(theme, func(b map[string]any) { b["name"] = " " }), "name "},
		"unknown kind":      {with(theme, func(b map[string]any) { b["kind"] = "colour" }), `kind must be one of theme, content, price, shipping, not "colour"`},
		"unknown metric":    {with(theme, func(b map[string]any) { b["metric"] = "clicks" }), "metric must be one of"},
		"one arm":           {with(theme, func(b map[string]any) { b["variants"] = b["variants"].([]any)[:1] }), "variants must be 2 to 4 arms, not 1"},
		"splits not 100":    {with(theme, func(b map[string]any) { arm(b, 1)["split_pct"] = 40 }), "variants split_pct must sum to 100, not 90"},
		"split 0":           {with(theme, func(b map[string]any) { arm(b, 0)["split_pct"] = 0 }), "variants[0].split_pct must be 1 to 99, not 0"},
		"arm without name":  {with(theme, func(b map[string]any) { arm(b, 1)["name"] = "" }), "variants[1].name must not be empty"},
		"surface not obj":   {with(theme, func(b map[string]any) { b["surface"] = []any{1} }), "surface must be a JSON object"},
		"surface extra key": {with(theme, func(b map[string]any) { b["surface"] = map[string]any{"theme_id": f.theme, "version": 1, "x": 1} }), "surface.x is not a known key"},
		"not live theme": {with(theme, func(b map[string]any) { b["surface"] = map[string]any{"theme_id": other.theme, "version": 1} }),
			"must name a published version of the store's live theme"},
		"unpublished version": {with(theme, func(b map[string]any) { b["surface"] = map[string]any{"theme_id": f.theme, "version": 2} }), "has no version 2"},
		"bad setting": {with(theme, func(b map[string]any) {
			arm(b, 1)["payload"] = map[string]any{"settings": map[string]any{"colors": map[string]any{"primary": "navy"}}}
		}), "variants[1].payload.settings.colors.primary "},
		"image not uploaded": {with(theme, func(b map[string]any) {
			arm(b, 1)["payload"] = map[string]any{"settings": map[string]any{"sections": []any{
				map[string]any{"kind": "slideshow", "image": map[string]any{"src": "https://elsewhere.example/x.jpg"}}}}}
		}), "variants[1].payload.settings.sections[0].image.src names no image uploaded to this store"},
		"payload extra key": {with(theme, func(b map[string]any) { arm(b, 1)["payload"] = map[string]any{"css": "x"} }), "variants[1].payload.css is not a known key"},
		"control changes":   {with(theme, func(b map[string]any) { arm(b, 0)["payload"] = arm(b, 1)["payload"] }), "variants[0].payload must be {}"},
		"arm changes none":  {with(content, func(b map[string]any) { arm(b, 1)["payload"] = map[string]any{} }), "variants[1].payload must change something"},
		"another's page":    {with(content, func(b map[string]any) { b["surface"] = map[string]any{"page_id": other.page} }), "surface.page_id must be a page of the store"},
		"title not text":    {with(content, func(b map[string]any) { arm(b, 1)["payload"] = map[string]any{"title": 5} }), "variants[1].payload.title must be text"},
		"another's rate":    {with(ship, func(b map[string]any) { b["surface"] = map[string]any{"shipping_rate_id": other.rate} }), "surface.shipping_rate_id must be a shipping rate of the store"},
		"negative shipping": {with(ship, func(b map[string]any) { arm(b, 1)["payload"] = map[string]any{"price_cents": -1} }), "variants[1].payload.price_cents must be"},
		"no products":       {with(price, func(b map[string]any) { b["surface"] = map[string]any{"product_ids": []any{}} }), "surface.product_ids must be a list of 1 to 50"},
		"another's product": {with(price, func(b map[string]any) { b["surface"] = map[string]any{"product_ids": []any{other.products[0]}} }), "surface.product_ids must be products of the store"},
		"repeated product": {with(price, func(b map[string]any) {
			b["surface"] = map[string]any{"product_ids": []any{f.products[0], f.products[0]}}
		}), "surface.product_ids[1] repeats"},
		"price change -91":   {with(price, func(b map[string]any) { arm(b, 1)["payload"] = map[string]any{"price_change_pct": -91} }), "variants[1].payload.price_change_pct must be an integer from -90 to 100"},
		"price change 1.5":   {with(price, func(b map[string]any) { arm(b, 1)["payload"] = map[string]any{"price_change_pct": 1.5} }), "variants[1].payload.price_change_pct must be an integer"},
		"control price move": {with(price, func(b map[string]any) { arm(b, 0)["payload"] = map[string]any{"price_change_pct": 5} }), "variants[0].payload.price_change_pct must be 0"},
	}
	for name, c := range cases {
		for _, call := range []struct{ method, path string }{{http.MethodPost, "/store/experiments"}, {http.MethodPut, experimentPath(draft)}} {
			r := e.Do(call.method, call.path, admin, c.body).Expect(t, 400)
			if !strings.Contains(r.Message(), c.says) {
				t.Fatalf("%s (%s): %q, want it to say %q", name, call.method, r.Message(), c.says)
			}
		}
	}
	var n int
	if err := e.DB.NewRaw("SELECT count(*) FROM experiments WHERE store_id = ?", f.store.ID).Scan(context.Background(), &n); err != nil || n != 1 {
		t.Fatalf("bad bodies wrote experiments: %d, %v", n, err)
	}
	if x, _ := getExperiment(t, e, admin, draft); x["name"] != "Draft" {
		t.Fatalf("a refused edit changed the draft: %v", x)
	}
	// Each valid kind is accepted.
	for _, b := range []map[string]any{content, ship, price} {
		createExperiment(t, e, admin, b)
	}
}

// TestExperimentMoneyGate: price and shipping tests need the store's
// opt-in and the platform's switch, on create, edit and start (409); a
// withdrawal while one runs is a 409 naming it; a price test holds its
// products while it runs, so another test of one of them cannot start
// (409 naming the product), even when both start at once.
func TestExperimentMoneyGate(t *testing.T) {
	e := apitest.New(t)
	f := newExperimentFixture(t, e, "Acme")
	admin := f.admin
	optIn := func(on bool, status int) *apitest.Response {
		return e.Do(http.MethodPut, "/store/experiments/money-opt-in", admin, map[string]any{"enabled": on}).Expect(t, status)
	}

	if r := e.Do(http.MethodPost, "/store/experiments", admin, priceBody("Price", f.products[0])).Expect(t, 409); !strings.Contains(r.Message(), "money opt-in") {
		t.Fatalf("price test without the opt-in: %s", r.Raw)
	}
	e.Do(http.MethodPost, "/store/experiments", admin, experimentBody("Ship", "shipping", f.shippingSurface, map[string]any{"price_cents": 0})).Expect(t, 409)
	r := optIn(true, 200)
	expectPayload(t, r, "money")
	if r.Obj("money")["opt_in"] != true || r.Obj("money")["platform"] != true {
		t.Fatalf("opt-in: %s", r.Raw)
	}
	first := idOf(t, createExperiment(t, e, admin, priceBody("Price one", f.products[0], f.products[1])))
	second := idOf(t, createExperiment(t, e, admin, priceBody("Price two", f.products[1], f.products[2])))
	third := idOf(t, createExperiment(t, e, admin, priceBody("Price three", f.products[2])))
	if _, products := getExperiment(t, e, admin, first); len(products) != 2 || products[0] != f.products[0] {
		t.Fatalf("price_products: %v", products)
	}

	// Withdrawn: editing and starting a draft are refused.
	optIn(false, 200)
	e.Do(http.MethodPut, experimentPath(first), admin, priceBody("Price one", f.products[0])).Expect(t, 409)
	experimentAction(t, e, admin, first, "start", nil, 409)
	optIn(true, 200)

	experimentAction(t, e, admin, first, "start", nil, 200)
	if r := experimentAction(t, e, admin, second, "start", nil, 409); r.Message() !=
		"product "+strconv.FormatInt(f.products[1], 10)+" is already in another running or paused price test: end that test first" {
		t.Fatalf("an overlapping start: %s", r.Raw)
	}
	if r := optIn(false, 409); !strings.Contains(r.Message(), "Price one (id "+strconv.FormatInt(first, 10)+", running)") {
		t.Fatalf("withdrawing while a price test runs: %s", r.Raw)
	}
	experimentAction(t, e, admin, first, "pause", nil, 200)
	experimentAction(t, e, admin, second, "start", nil, 409) // paused still holds
	experimentAction(t, e, admin, first, "end", nil, 200)

	// Released: the two overlapping drafts start at once, one wins.
	startOneOf(t, e, admin, second, third)
	var held int
	if err := e.DB.NewRaw("SELECT count(*) FROM experiment_price_products WHERE store_id = ? AND held AND product_id = ?", f.store.ID, f.products[2]).
		Scan(context.Background(), &held); err != nil || held != 1 {
		t.Fatalf("product held %d times, %v", held, err)
	}

	// The platform's switch off: the opt-in alone does not open the gate.
	off := apitest.New(t, apitest.WithPlatform(models.Platform{MoneyExperimentsOff: true}))
	g := newExperimentFixture(t, off, "Acme")
	off.Do(http.MethodPut, "/store/experiments/money-opt-in", g.admin, map[string]any{"enabled": true}).Expect(t, 200)
	r = off.Do(http.MethodGet, "/store/experiments", g.admin, nil).Expect(t, 200)
	off.SameOnGraphQL(t, r, g.admin, "ListExperiments", nil)
	if r.Obj("money")["opt_in"] != true || r.Obj("money")["platform"] != false {
		t.Fatalf("money gate with the platform off: %s", r.Raw)
	}
	if r := off.Do(http.MethodPost, "/store/experiments", g.admin, priceBody("Price", g.products[0])).Expect(t, 409); !strings.Contains(r.Message(), "switched off") {
		t.Fatalf("price test with the platform off: %s", r.Raw)
	}
	createExperiment(t, off, g.admin, themeBody(g, "Theme", "#000080")) // other kinds run
}

// startOneOf starts two drafts that hold the same thing at once: one
// starts (200), the other is refused (409), whichever comes first.
func startOneOf(t *testing.T, e *apitest.Env, key string, a, b int64) {
	t.Helper()
	statuses := make([]int, 2)
	var wg sync.WaitGroup
	for i, id := range []int64{a, b} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			statuses[i] = e.Do(http.MethodPost, experimentPath(id, "start"), key, nil).Status
		}()
	}
	wg.Wait()
	if !(statuses[0] == 200 && statuses[1] == 409 || statuses[0] == 409 && statuses[1] == 200) {
		t.Fatalf("two starts at once of tests holding the same thing: %v", statuses)
	}
}

// TestExperimentSurfaceGone: a draft whose surface was deleted after it
// was written (a product of a price test, a content test's page) cannot
// start: a 409 naming what went, and nothing held; the draft edited onto
// what exists starts.
func TestExperimentSurfaceGone(t *testing.T) {
	e := apitest.New(t)
	f := newExperimentFixture(t, e, "Acme")
	admin := f.admin
	e.Do(http.MethodPut, "/store/experiments/money-opt-in", admin, map[string]any{"enabled": true}).Expect(t, 200)
	price := idOf(t, createExperiment(t, e, admin, priceBody("Price", f.products[0], f.products[1])))
	content := idOf(t, createExperiment(t, e, admin, experimentBody("Copy", "content", f.contentSurface, map[string]any{"title": "New"})))

	e.Do(http.MethodDelete, "/store/products/"+strconv.FormatInt(f.products[1], 10), admin, nil).Expect(t, 200)
	if r := experimentAction(t, e, admin, price, "start", nil, 409); r.Message() !=
		"the test cannot start: its surface.product_ids must be products of the store: "+strconv.FormatInt(f.products[1], 10)+" is not one; edit the draft first" {
		t.Fatalf("starting a price test of a deleted product: %s", r.Raw)
	}
	if x, _ := getExperiment(t, e, admin, price); x["status"] != "draft" {
		t.Fatalf("after a refused start: %v", x["status"])
	}
	if _, err := e.DB.NewRaw("DELETE FROM pages WHERE id = ?", f.page).Exec(context.Background()); err != nil {
		t.Fatal(err)
	}
	if r := experimentAction(t, e, admin, content, "start", nil, 409); !strings.Contains(r.Message(), "surface.page_id must be a page of the store") {
		t.Fatalf("starting a content test of a deleted page: %s", r.Raw)
	}
	e.Do(http.MethodPut, experimentPath(price), admin, priceBody("Price", f.products[0])).Expect(t, 200)
	experimentAction(t, e, admin, price, "start", nil, 200)
}

// TestExperimentThemeAndAccess: GET /store/experiments/theme answers the
// live theme's published version; every endpoint of the
// area refuses without a key (401), with another scope or role (403), and
// the list's statements do not grow with experiments.
func TestExperimentThemeAndAccess(t *testing.T) {
	e := apitest.New(t)
	f := newExperimentFixture(t, e, "Acme")
	admin := f.admin
	r := e.Do(http.MethodGet, "/store/experiments/theme", admin, nil).Expect(t, 200)
	expectPayload(t, r, "theme")
	e.SameOnGraphQL(t, r, admin, "GetExperimentTheme", nil)
	if wholeNumber(t, r.Obj("theme")["version"]) != 1 || r.Obj("theme")["settings"].(map[string]any)["colors"] == nil {
		t.Fatalf("theme: %s", r.Raw)
	}
	// A new store's is its default theme's first version.
	bare := e.Store("Bare")
	if r := e.Do(http.MethodGet, "/store/experiments/theme", e.Key(bare.ID, auth.RoleAdmin), nil).Expect(t, 200); wholeNumber(t, r.Obj("theme")["version"]) != 1 {
		t.Fatalf("the theme of a new store: %s", r.Raw)
	}

	id := idOf(t, createExperiment(t, e, admin, themeBody(f, "Access", "#000080")))
	reads := []apitest.Call{
		{Method: http.MethodGet, Path: "/store/experiments"},
		{Method: http.MethodGet, Path: experimentPath(id)},
		{Method: http.MethodGet, Path: "/store/experiments/theme"},
		{Method: http.MethodGet, Path: "/store/experiments/pooled"},
	}
	writes := []apitest.Call{
		{Method: http.MethodPost, Path: "/store/experiments", Body: themeBody(f, "Nope", "#000080")},
		{Method: http.MethodPut, Path: experimentPath(id), Body: themeBody(f, "Nope", "#000080")},
		{Method: http.MethodPatch, Path: experimentPath(id), Body: map[string]any{"name": "Nope"}},
		{Method: http.MethodDelete, Path: experimentPath(id)},
		{Method: http.MethodPost, Path: experimentPath(id, "start")},
		{Method: http.MethodPost, Path: experimentPath(id, "pause")},
		{Method: http.MethodPost, Path: experimentPath(id, "resume")},
		{Method: http.MethodPost, Path: experimentPath(id, "end")},
		{Method: http.MethodPut, Path: "/store/experiments/money-opt-in", Body: map[string]any{"enabled": true}},
		{Method: http.MethodPost, Path: "/store/experiments/pooled/hero/join"},
		{Method: http.MethodPost, Path: "/store/experiments/pooled/hero/leave"},
	}
	checkAccess(t, e, f.store.ID, "experiments", map[string]string{"themes only": e.Key(f.store.ID, auth.RoleAdmin, "themes:write")}, reads, writes)
	if x, _ := getExperiment(t, e, admin, id); x["name"] != "Access" || x["status"] != "draft" {
		t.Fatalf("a refused write changed the test: %v", x)
	}
	expectUnauthorized(t, e, f.store.ID, http.MethodPost, experimentPath(id, "start"), nil)

	count := countStatements(e)
	list := func() { e.Do(http.MethodGet, "/store/experiments", admin, nil).Expect(t, 200) }
	one := count(list)
	for i := range 4 {
		x := createExperiment(t, e, admin, themeBody(f, "More "+strconv.Itoa(i), "#000080"))
		experimentAction(t, e, admin, idOf(t, x), "start", nil, 200)
		experimentAction(t, e, admin, idOf(t, x), "pause", map[string]any{"reason": "r"}, 200)
	}
	if five := count(list); five != one {
		t.Fatalf("the list ran %d statements for 1 experiment, %d for 5", one, five)
	}

	// A closed storefront: tests cannot run.
	e.Do(http.MethodPut, "/store/storefront-enabled", admin, map[string]any{"enabled": false}).Expect(t, 200)
	if r := e.Do(http.MethodGet, "/store/experiments", admin, nil).Expect(t, 200); r.Body["enabled"] != false {
		t.Fatalf("enabled with the storefront off: %v", r.Body["enabled"])
	}
}

// createPool makes a pool through what the CLI runs.
func createPool(t *testing.T, e *apitest.Env, key, kind string, surface any, payload map[string]any, minStores int64) {
	t.Helper()
	d := experiments.PoolDefinition{Key: key, Name: "Pool " + key, Kind: kind, Metric: "conversion", Surface: surface, MinStores: &minStores,
		Arms: []models.ExperimentArmSpec{{Name: "Control", Payload: map[string]any{}, SplitPct: 50}, {Name: "New", Payload: payload, SplitPct: 50}}}
	ctx := context.Background()
	err := e.DB.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		_, err := experiments.CreatePool(ctx, tx, d, time.Now())
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}

// storePools is GET /store/experiments/pooled, the same on GraphQL: its
// pools by key.
func storePools(t *testing.T, e *apitest.Env, key string) (int64, map[string]map[string]any) {
	t.Helper()
	r := e.Do(http.MethodGet, "/store/experiments/pooled", key, nil).Expect(t, 200)
	expectPayload(t, r, "min_stores", "pools")
	e.SameOnGraphQL(t, r, key, "ListExperimentPools", nil)
	out := map[string]map[string]any{}
	for _, p := range r.List("pools") {
		row := objectWithKeys(t, "pool", p, []string{"changes_nothing", "experiment_id", "membership", "pool"})
		out[row["pool"].(map[string]any)["key"].(string)] = row
	}
	return wholeNumber(t, r.Body["min_stores"]), out
}

// TestExperimentPools: a store joins a running pool (its own experiment of
// the pool's arms, started at once, over its live theme or its page of the
// pool's handle), joining twice or an ended pool is a 409, leaving ends the
// experiment (not a member: 404); the graph's ExperimentPool.experiments
// lists only the caller's store's.
func TestExperimentPools(t *testing.T) {
	e := apitest.New(t)
	f := newExperimentFixture(t, e, "Acme")
	other := newExperimentFixture(t, e, "Other")
	admin := f.admin
	createPool(t, e, "hero", "theme", map[string]any{}, map[string]any{"settings": map[string]any{"colors": map[string]any{"primary": "#123456"}}}, 5)
	createPool(t, e, "about-copy", "content", map[string]any{"page_handle": "about"}, map[string]any{"title": "About us"}, 3)
	createPool(t, e, "nowhere", "content", map[string]any{"page_handle": "missing"}, map[string]any{"title": "x"}, 9)
	createPool(t, e, "same-title", "content", map[string]any{"page_handle": "about"}, map[string]any{"title": "About"}, 4)

	count := countStatements(e)
	var minStores int64
	var pools map[string]map[string]any
	statements := count(func() { minStores, pools = storePools(t, e, admin) })
	if minStores != 3 || len(pools) != 4 || pools["hero"]["membership"] != "not_joined" || pools["hero"]["experiment_id"] != nil {
		t.Fatalf("pools: %d %v", minStores, pools)
	}
	// changes_nothing: the arms over the store's live theme or page.
	for key, want := range map[string]any{"hero": false, "about-copy": false, "same-title": true, "nowhere": nil} {
		if got := pools[key]["changes_nothing"]; got != want {
			t.Errorf("%s: changes_nothing %v, want %v", key, got, want)
		}
	}
	createPool(t, e, "more", "theme", map[string]any{}, map[string]any{"settings": map[string]any{"layout": map[string]any{"products_per_row": 3}}}, 5)
	if more := count(func() { storePools(t, e, admin) }); more != statements {
		t.Fatalf("the pools' list ran %d statements for 4 pools, %d for 5", statements, more)
	}

	r := e.Do(http.MethodPost, "/store/experiments/pooled/hero/join", admin, nil).Expect(t, 201)
	x := objectWithKeys(t, "experiment", r.Body["experiment"], experimentKeys)
	if x["status"] != "running" || x["pool_key"] != "hero" || x["key"] != "hero" || x["kind"] != "theme" ||
		x["surface"].(map[string]any)["theme_id"] != float64(f.theme) || len(objectsOf(x["variants"])) != 2 {
		t.Fatalf("joined: %v", x)
	}
	if r := e.Do(http.MethodPost, "/store/experiments/pooled/hero/join", admin, nil).Expect(t, 409); r.Message() != "the store is in the pool hero already" {
		t.Fatalf("joining twice: %s", r.Raw)
	}
	e.Do(http.MethodPost, "/store/experiments/pooled/hero/join", other.admin, nil).Expect(t, 201)
	e.Do(http.MethodPost, "/store/experiments/pooled/nowhere/join", admin, nil).Expect(t, 409)
	e.Do(http.MethodPost, "/store/experiments/pooled/absent/join", admin, nil).Expect(t, 404)
	content := e.Do(http.MethodPost, "/store/experiments/pooled/about-copy/join", admin, nil).Expect(t, 201).Obj("experiment")
	if content["surface"].(map[string]any)["page_id"] != float64(f.page) {
		t.Fatalf("content pool joined: %v", content)
	}

	_, pools = storePools(t, e, admin)
	if pools["hero"]["membership"] != "joined" || wholeNumber(t, pools["hero"]["experiment_id"]) != idOf(t, x) {
		t.Fatalf("after joining: %v", pools["hero"])
	}
	g := e.GraphQL(admin, `{ experimentStorePools { pool { key experiments { id pool_key } } } }`, nil)
	for _, p := range g.Data()["experimentStorePools"].([]any) {
		pool := p.(map[string]any)["pool"].(map[string]any)
		if pool["key"] == "hero" && (len(pool["experiments"].([]any)) != 1 || wholeNumber(t, pool["experiments"].([]any)[0].(map[string]any)["id"]) != idOf(t, x)) {
			t.Fatalf("the pool's experiments: %s", g.Raw)
		}
	}

	e.Do(http.MethodPost, "/store/experiments/pooled/hero/leave", admin, nil).Expect(t, 200)
	e.Do(http.MethodPost, "/store/experiments/pooled/hero/leave", admin, nil).Expect(t, 404)
	if got, _ := getExperiment(t, e, admin, idOf(t, x)); got["status"] != "ended" {
		t.Fatalf("left, the experiment is %v", got["status"])
	}
	_, pools = storePools(t, e, admin)
	if pools["hero"]["membership"] != "left" {
		t.Fatalf("after leaving: %v", pools["hero"])
	}
	// Rejoining makes a new experiment with a key of its own.
	again := e.Do(http.MethodPost, "/store/experiments/pooled/hero/join", admin, nil).Expect(t, 201).Obj("experiment")
	if again["key"] != "hero-2" {
		t.Fatalf("rejoined: %v", again)
	}

	// An operator ends the pool: every member's experiment ends, joining is a 409.
	ctx := context.Background()
	if err := e.DB.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		n, err := models.EndPool(ctx, tx, "hero", time.Now())
		if err == nil && n != 2 {
			t.Errorf("ending the pool ended %d experiments, want 2", n)
		}
		return err
	}); err != nil {
		t.Fatal(err)
	}
	if r := e.Do(http.MethodPost, "/store/experiments/pooled/hero/join", other.admin, nil).Expect(t, 409); r.Message() != "the pool hero is ended: only a running pool can be joined" {
		t.Fatalf("joining an ended pool: %s", r.Raw)
	}
	if minStores, _ = storePools(t, e, admin); minStores != 3 {
		t.Fatalf("min_stores of the running pools: %d", minStores)
	}
}
