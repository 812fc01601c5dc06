package apitest_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"reflect"
	"strconv"
	"testing"
	"time"

	"storeadmin/internal/app/apitest"
	"storeadmin/internal/auth"
	"storeadmin/models"
)

// The reads of funnel runs: the awaiting-capture funnel fields and the
// graph's Order → funnel_run. The run time writes runs; these tests write
// them straight through bun, as it would leave them (frInsertRun).

// frFunnel is a funnel of the store as a run records it: its steps, by
// position, and the zone that routes to it.
type frFunnel struct {
	id, zoneID     int64
	name, zoneName string
	steps          []models.FunnelStep
	variants       []int64
}

// frMakeFunnel saves a funnel of n steps on a product with two variants,
// with a zone routing to it (fnInsert), and reads it back.
func frMakeFunnel(t *testing.T, e *apitest.Env, storeID int64, admin, name string, n int) frFunnel {
	t.Helper()
	ctx := context.Background()
	product, variants := fnProduct(t, e, admin, name+" product", 1500, 1800)
	f := frFunnel{id: fnInsert(t, e, storeID, name, n, product, variants), name: name, variants: variants}
	err := e.DB.NewSelect().TableExpr("checkout_zone_funnels AS zf").Join("JOIN checkout_zones AS z ON z.id = zf.zone_id").
		ColumnExpr("z.id, z.name").Where("zf.funnel_id = ?", f.id).Scan(ctx, &f.zoneID, &f.zoneName)
	if err != nil {
		t.Fatal(err)
	}
	if f.steps, err = models.FunnelSteps(ctx, e.DB, storeID, f.id); err != nil || len(f.steps) != n {
		t.Fatalf("steps %v: %v", f.steps, err)
	}
	return f
}

// frRun is a run as the test wrote it, with what GraphQL should answer of
// it: the run, its offers and the lines accepted offers added.
type frRun struct {
	run    models.FunnelRun
	offers []models.FunnelRunOffer
	lines  map[int64]models.OrderLineItem // the lines accepted offers added, by offer position
}

// frAuthorization is the id of the order's authorization transaction.
func frAuthorization(t *testing.T, e *apitest.Env, o *models.Order) int64 {
	t.Helper()
	var id int64
	err := e.DB.NewSelect().Table("order_transactions").Column("id").
		Where("order_id = ? AND kind = ?", o.ID, models.TxAuthorization).Scan(context.Background(), &id)
	if err != nil {
		t.Fatal(err)
	}
	return id
}

// frInsertRun records a run of f on the order's authorization, in status,
// that reached one step a state of offers, position 1 on; an accepted
// offer adds its line to the order (source upsell), charged once the run
// ended. A running run is at its last offer's position.
func frInsertRun(t *testing.T, e *apitest.Env, o *models.Order, f frFunnel, status string, offers ...string) frRun {
	t.Helper()
	ctx := context.Background()
	at := time.Now().UTC().Truncate(time.Second).Add(-30 * time.Minute)
	run := models.FunnelRun{StoreID: o.StoreID, OrderID: o.ID, TransactionID: frAuthorization(t, e, o), FunnelID: &f.id,
		FunnelName: f.name, ZoneID: &f.zoneID, ZoneName: f.zoneName, Status: status, EnteredAt: at,
		ExpiresAt: at.Add(time.Hour), SurchargeCents: 150}
	if status == models.RunRunning {
		run.CurrentPosition = int64Ptr(int64(len(offers)))
	} else {
		ended := at.Add(20 * time.Minute)
		run.EndedAt = &ended
	}
	if _, err := e.DB.NewInsert().Model(&run).Exec(ctx); err != nil {
		t.Fatal(err)
	}
	out := frRun{run: run, lines: map[int64]models.OrderLineItem{}}
	for i, state := range offers {
		step := f.steps[i]
		reached := at.Add(time.Duration(i) * time.Minute)
		offer := models.FunnelRunOffer{StoreID: o.StoreID, RunID: run.ID, StepID: &step.ID, Position: step.Position,
			StepName: step.Name, ProductID: &step.Offer.ProductID, VariantID: step.Offer.VariantID, Status: state, ReachedAt: reached}
		if state != models.OfferPending && state != models.OfferUnavailable {
			shown := reached.Add(10 * time.Second)
			offer.ShownAt = &shown
		}
		if state == models.OfferAccepted || state == models.OfferDeclined || state == models.OfferUnavailable {
			decided := reached.Add(20 * time.Second)
			offer.DecidedAt = &decided
		}
		if state == models.OfferAccepted {
			if offer.VariantID == nil { // an offer of the product: the shopper picked a variant
				offer.VariantID = &f.variants[1]
			}
			line := models.OrderLineItem{StoreID: o.StoreID, OrderID: o.ID, Position: int64(10 + i), VariantID: offer.VariantID,
				ProductID: offer.ProductID, Title: step.Name, SKU: "UP", PriceCents: 1200, Quantity: step.Offer.Quantity,
				RequiresShipping: true, Source: "upsell"}
			if _, err := e.DB.NewInsert().Model(&line).Exec(ctx); err != nil {
				t.Fatal(err)
			}
			out.lines[step.Position] = line
			offer.LineItemID, offer.Quantity, offer.AmountCents = &line.ID, line.Quantity, line.PriceCents*line.Quantity
			if run.EndedAt != nil {
				offer.ChargedAt = run.EndedAt
			}
		}
		if _, err := e.DB.NewInsert().Model(&offer).Exec(ctx); err != nil {
			t.Fatal(err)
		}
		out.offers = append(out.offers, offer)
	}
	return out
}

// frRunFields is the selection of a run that frRunView answers.
const frRunFields = `id status entered_at expires_at ended_at current_position surcharge_cents funnel_id funnel_name zone_id zone_name
	funnel { id name } zone { id name }
	offers { id position step_name status reached_at shown_at decided_at quantity amount_cents charged_at
		step_id product_id variant_id line_item_id step { id position name } product { id } variant { id product_id }
		line_item { id source quantity variant_id } }`

// frRunView is what GraphQL answers of r for frRunFields, as JSON decodes
// it; funnelGone and zoneGone say the funnel (its steps with it) or the
// zone was deleted since.
func frRunView(t *testing.T, r frRun, funnelGone, zoneGone bool) map[string]any {
	t.Helper()
	ref := func(id *int64, fields map[string]any) any {
		if id == nil {
			return nil
		}
		fields["id"] = *id
		return fields
	}
	run := r.run
	funnelID, zoneID := run.FunnelID, run.ZoneID
	if funnelGone {
		funnelID = nil
	}
	if zoneGone {
		zoneID = nil
	}
	offers := []any{}
	for _, o := range r.offers {
		stepID := o.StepID
		if funnelGone {
			stepID = nil
		}
		var step any
		if stepID != nil {
			step = map[string]any{"id": *stepID, "position": o.Position, "name": o.StepName}
		}
		var line any
		if l, ok := r.lines[o.Position]; ok {
			line = map[string]any{"id": l.ID, "source": l.Source, "quantity": l.Quantity, "variant_id": l.VariantID}
		}
		offers = append(offers, map[string]any{
			"id": o.ID, "position": o.Position, "step_name": o.StepName, "status": o.Status, "reached_at": o.ReachedAt,
			"shown_at": o.ShownAt, "decided_at": o.DecidedAt, "quantity": o.Quantity, "amount_cents": o.AmountCents,
			"charged_at": o.ChargedAt, "step_id": stepID, "product_id": o.ProductID, "variant_id": o.VariantID,
			"line_item_id": o.LineItemID, "step": step, "product": ref(o.ProductID, map[string]any{}),
			"variant": ref(o.VariantID, map[string]any{"product_id": o.ProductID}), "line_item": line,
		})
	}
	view := map[string]any{
		"id": run.ID, "status": run.Status, "entered_at": run.EnteredAt, "expires_at": run.ExpiresAt, "ended_at": run.EndedAt,
		"current_position": run.CurrentPosition, "surcharge_cents": run.SurchargeCents, "funnel_id": funnelID,
		"funnel_name": run.FunnelName, "zone_id": zoneID, "zone_name": run.ZoneName,
		"funnel": ref(funnelID, map[string]any{"name": run.FunnelName}), "zone": ref(zoneID, map[string]any{"name": run.ZoneName}),
		"offers": offers,
	}
	return asJSON(t, view)
}

// asJSON is v as JSON decodes it: numbers float64, times RFC 3339 text.
func asJSON(t *testing.T, v any) map[string]any {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var out map[string]any
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// frAwaiting is the awaiting-capture rows of the answer r, by
// authorization transaction id.
func frAwaiting(t *testing.T, r *apitest.Response) map[int64]map[string]any {
	t.Helper()
	out := map[int64]map[string]any{}
	for _, row := range objectsOf(r.Body["awaiting"]) {
		out[wholeNumber(t, row["transaction_id"])] = row
	}
	return out
}

// frExpectFunnel fails unless the awaiting-capture row answers the funnel
// fields want (has_funnel, funnel_id, funnel_name, current_position,
// offer_count; nil values null).
func frExpectFunnel(t *testing.T, what string, row map[string]any, want map[string]any) {
	t.Helper()
	got := map[string]any{}
	for k := range want {
		got[k] = row[k]
	}
	if want = asJSON(t, want); !reflect.DeepEqual(got, want) {
		t.Fatalf("%s: funnel fields %v, want %v (row %v)", what, got, want, row)
	}
}

// noFunnel are the funnel fields of a payment no running run holds.
var noFunnel = map[string]any{"has_funnel": false, "funnel_id": nil, "funnel_name": nil, "current_position": nil, "offer_count": nil}

// TestAwaitingCaptureFunnelFields: a payment a running run holds answers
// its funnel, the step the shopper is at and the offers reached so far,
// on the list and the detail of both surfaces; a run that ended, or none,
// leaves has_funnel false and the rest null; expires_at stays the
// authorization's and the attention count what it was. Another store's
// runs never show, and its payment is a 404.
func TestAwaitingCaptureFunnelFields(t *testing.T) {
	e, s, admin := newAcme(t)
	key := e.Key(s.ID, auth.RoleStaff, "orders:read")
	f := frMakeFunnel(t, e, s.ID, admin, "Mugs", 3)

	soon := time.Now().UTC().Add(10 * time.Hour)
	running := createOrder(t, e, s.ID, orderSpec{payment: "authorized", email: "running@example.com"})
	ended := createOrder(t, e, s.ID, orderSpec{payment: "authorized", email: "ended@example.com"})
	plain := createOrder(t, e, s.ID, orderSpec{payment: "authorized", email: "plain@example.com"})
	expiring := createOrder(t, e, s.ID, orderSpec{payment: "authorized", authExpiry: &soon, createdAt: time.Now().UTC().Add(-6 * 24 * time.Hour)})
	before := e.Do(http.MethodGet, "/store/orders/awaiting-capture", key, nil).Expect(t, http.StatusOK)

	frInsertRun(t, e, running, f, models.RunRunning, models.OfferAccepted, models.OfferShown)
	frInsertRun(t, e, ended, f, models.RunCompleted, models.OfferDeclined) // its capture not yet recorded
	frInsertRun(t, e, expiring, f, models.RunRunning, models.OfferPending)

	// Another store's run on its own payment.
	other := e.Store("other")
	otherAdmin := e.Key(other.ID, auth.RoleAdmin)
	theirs := createOrder(t, e, other.ID, orderSpec{payment: "authorized"})
	frInsertRun(t, e, theirs, frMakeFunnel(t, e, other.ID, otherAdmin, "Theirs", 2), models.RunRunning, models.OfferShown)

	r := e.Do(http.MethodGet, "/store/orders/awaiting-capture", key, nil).Expect(t, http.StatusOK)
	if r.Body["total"] != before.Body["total"] || r.Body["attention"] != before.Body["attention"] || wholeNumber(t, r.Body["attention"]) != 1 {
		t.Fatalf("runs changed the counts: total %v → %v, attention %v → %v", before.Body["total"], r.Body["total"], before.Body["attention"], r.Body["attention"])
	}
	rows := frAwaiting(t, r)
	if len(rows) != 4 {
		t.Fatalf("awaiting %v", rows)
	}
	frExpectFunnel(t, "running", rows[frAuthorization(t, e, running)], map[string]any{"has_funnel": true, "funnel_id": f.id, "funnel_name": "Mugs",
		"current_position": 2, "offer_count": 2})
	frExpectFunnel(t, "expiring", rows[frAuthorization(t, e, expiring)], map[string]any{"has_funnel": true, "funnel_id": f.id, "funnel_name": "Mugs",
		"current_position": 1, "offer_count": 1})
	frExpectFunnel(t, "ended", rows[frAuthorization(t, e, ended)], noFunnel)
	frExpectFunnel(t, "plain", rows[frAuthorization(t, e, plain)], noFunnel)
	for id, row := range rows {
		was := frAwaiting(t, before)[id]
		if row["expires_at"] != was["expires_at"] || row["state"] != was["state"] || row["total_cents"] != was["total_cents"] {
			t.Fatalf("order %d: a run changed expires_at, state or total: %v, was %v", id, row, was)
		}
	}
	e.SameOnGraphQL(t, r, key, "ListAwaitingCapture", nil)

	// The detail answers the same fields.
	txID := frAuthorization(t, e, running)
	path := "/store/orders/awaiting-capture/" + strconv.FormatInt(txID, 10)
	d := e.Do(http.MethodGet, path, key, nil).Expect(t, http.StatusOK)
	frExpectFunnel(t, "detail", d.Obj("capture"), map[string]any{"has_funnel": true, "funnel_id": f.id, "funnel_name": "Mugs",
		"current_position": 2, "offer_count": 2})
	e.SameOnGraphQL(t, d, key, "GetAwaitingCapture", map[string]any{"id": txID})
	ended1 := e.Do(http.MethodGet, "/store/orders/awaiting-capture/"+strconv.FormatInt(frAuthorization(t, e, ended), 10), key, nil).Expect(t, http.StatusOK)
	frExpectFunnel(t, "ended detail", ended1.Obj("capture"), noFunnel)

	// The funnel deleted, the run keeps its name.
	e.Do(http.MethodDelete, fnPath(f.id), admin, nil).Expect(t, http.StatusOK)
	d = e.Do(http.MethodGet, path, key, nil).Expect(t, http.StatusOK)
	frExpectFunnel(t, "funnel deleted", d.Obj("capture"), map[string]any{"has_funnel": true, "funnel_id": nil, "funnel_name": "Mugs",
		"current_position": 2, "offer_count": 2})

	// Another store's payment is a 404 both ways, and its run shows only to it.
	theirPath := "/store/orders/awaiting-capture/" + strconv.FormatInt(frAuthorization(t, e, theirs), 10)
	e.Do(http.MethodGet, theirPath, key, nil).Expect(t, http.StatusNotFound)
	e.Do(http.MethodGet, path, otherAdmin, nil).Expect(t, http.StatusNotFound)
	expectGraphQLNotFound(t, e, key, `query($id: Int!) { awaitingCapturePayment(id: $id) { has_funnel } }`,
		map[string]any{"id": frAuthorization(t, e, theirs)})
	mine := e.Do(http.MethodGet, theirPath, otherAdmin, nil).Expect(t, http.StatusOK).Obj("capture")
	frExpectFunnel(t, "their own", mine, map[string]any{"has_funnel": true, "funnel_name": "Theirs", "current_position": 1, "offer_count": 1})

	// 401 and 403 as every awaiting-capture read.
	checkAccess(t, e, s.ID, "orders", map[string]string{"products only": e.Key(s.ID, auth.RoleAdmin, "products:read")},
		[]apitest.Call{{Method: http.MethodGet, Path: "/store/orders/awaiting-capture"}, {Method: http.MethodGet, Path: path}}, nil)
}

// TestOrderFunnelRun: an order's funnel_run answers the run as the run
// time left it, in each of its states, with its offers in each of theirs,
// the funnel, zone, steps, products, variants and the lines accepted
// offers added; null for an order without one. The funnel counts its runs. Once the funnel and the
// zone are deleted, the run keeps their names and answers them null.
func TestOrderFunnelRun(t *testing.T) {
	e, s, admin := newAcme(t)
	f := frMakeFunnel(t, e, s.ID, admin, "Mugs", 3)
	query := `query($id: Int!) { order(id: $id) { id funnel_run { ` + frRunFields + ` } } }`
	runOf := func(key string, o *models.Order) (map[string]any, *apitest.Response) {
		t.Helper()
		g := e.GraphQL(key, query, map[string]any{"id": o.ID})
		order, _ := g.Data()["order"].(map[string]any)
		if order == nil {
			t.Fatalf("order %d: %s", o.ID, g.Raw)
		}
		run, _ := order["funnel_run"].(map[string]any)
		return run, g
	}

	runs := map[*models.Order]frRun{}
	for _, c := range []struct {
		status string
		offers []string
	}{
		{models.RunRunning, []string{models.OfferAccepted, models.OfferPending}},
		{models.RunRunning, []string{models.OfferDeclined, models.OfferShown}},
		{models.RunCompleted, []string{models.OfferAccepted, models.OfferDeclined}},
		{models.RunTimedOut, []string{models.OfferUnavailable, models.OfferShown}},
		{models.RunCancelled, []string{models.OfferPending}},
	} {
		o := createOrder(t, e, s.ID, orderSpec{payment: "authorized"})
		runs[o] = frInsertRun(t, e, o, f, c.status, c.offers...)
	}
	for o, r := range runs {
		got, g := runOf(admin, o)
		if g.Body["errors"] != nil {
			t.Fatalf("order %d: %s", o.ID, g.Raw)
		}
		if want := frRunView(t, r, false, false); !reflect.DeepEqual(got, want) {
			gj, _ := json.Marshal(got)
			wj, _ := json.Marshal(want)
			t.Fatalf("run of order %d (%s):\n got %s\nwant %s", o.ID, r.run.Status, gj, wj)
		}
	}

	// The funnel counts its runs; a funnel without any, 0.
	idle := frMakeFunnel(t, e, s.ID, admin, "Idle", 1)
	g := e.GraphQL(admin, `query($a: Int!, $b: Int!) { a: upsellFunnel(id: $a) { runs_count } b: upsellFunnel(id: $b) { runs_count } }`,
		map[string]any{"a": f.id, "b": idle.id})
	if g.Body["errors"] != nil || wholeNumber(t, g.Data()["a"].(map[string]any)["runs_count"]) != 5 ||
		wholeNumber(t, g.Data()["b"].(map[string]any)["runs_count"]) != 0 {
		t.Fatalf("runs_count: %s", g.Raw)
	}

	// An order without a run.
	none := createOrder(t, e, s.ID, orderSpec{})
	if got, g := runOf(admin, none); got != nil || g.Body["errors"] != nil {
		t.Fatalf("order without a run: %s", g.Raw)
	}

	// A key without checkout:read and products:read reads the run, with
	// the funnel, zone, steps, products and variants null and FORBIDDEN.
	var anyRun *models.Order
	for o := range runs {
		anyRun = o
	}
	ordersOnly := e.Key(s.ID, auth.RoleAdmin, "orders:read")
	got, g := runOf(ordersOnly, anyRun)
	if got == nil || got["funnel"] != nil || got["zone"] != nil || got["funnel_name"] != "Mugs" || g.ErrorCode() != "FORBIDDEN" {
		t.Fatalf("orders:read alone: %s", g.Raw)
	}
	for _, offer := range objectsOf(got["offers"]) {
		if offer["step"] != nil || offer["product"] != nil || offer["variant"] != nil || offer["status"] == nil {
			t.Fatalf("orders:read alone, offer %v", offer)
		}
	}

	// The funnel and the zone deleted: the names stay, the records go.
	e.Do(http.MethodDelete, fnPath(f.id), admin, nil).Expect(t, http.StatusOK)
	e.Do(http.MethodDelete, ckZonePath(f.zoneID), admin, nil).Expect(t, http.StatusOK)
	for o, r := range runs {
		got, g := runOf(admin, o)
		if want := frRunView(t, r, true, true); g.Body["errors"] != nil || !reflect.DeepEqual(got, want) {
			gj, _ := json.Marshal(got)
			wj, _ := json.Marshal(want)
			t.Fatalf("run of order %d after the deletes:\n got %s\nwant %s", o.ID, gj, wj)
		}
	}

	// Another store's order, and so its run, is not found.
	other := e.Store("other")
	expectGraphQLNotFound(t, e, e.Key(other.ID, auth.RoleAdmin), query, map[string]any{"id": anyRun.ID})
}

// TestOrderUpsellOnDetail: GET /store/orders/{id} answers orders.upsell,
// which the run time keeps in step with the run, as the spec's
// OrderUpsellView (entered_at, funnel_name, status), null when the
// shopper entered no funnel; GraphQL agrees.
func TestOrderUpsellOnDetail(t *testing.T) {
	e, s, admin := newAcme(t)
	with := createOrder(t, e, s.ID, orderSpec{payment: "authorized"})
	without := createOrder(t, e, s.ID, orderSpec{})
	entered := time.Date(2026, 11, 24, 18, 30, 5, 0, time.UTC)
	upsell := &models.OrderUpsell{EnteredAt: entered, FunnelName: "Mugs", Status: models.RunRunning}
	if _, err := e.DB.NewUpdate().Model(&models.Order{ID: with.ID, Upsell: upsell}).Column("upsell").WherePK().Exec(context.Background()); err != nil {
		t.Fatal(err)
	}
	r := e.Do(http.MethodGet, orderPath(with.ID), admin, nil).Expect(t, http.StatusOK)
	got := objectWithKeys(t, "upsell", r.Obj("order")["upsell"], []string{"entered_at", "funnel_name", "status"})
	if got["entered_at"] != "2026-11-24T18:30:05Z" || got["funnel_name"] != "Mugs" || got["status"] != "running" {
		t.Fatalf("upsell %v", got)
	}
	e.SameOnGraphQL(t, r, admin, "GetOrder", map[string]any{"id": with.ID})
	r = e.Do(http.MethodGet, orderPath(without.ID), admin, nil).Expect(t, http.StatusOK)
	if u, ok := r.Obj("order")["upsell"]; !ok || u != nil {
		t.Fatalf("order without a funnel: upsell %v (present %v)", u, ok)
	}
	e.SameOnGraphQL(t, r, admin, "GetOrder", map[string]any{"id": without.ID})
}

// frTwentyRuns starts a store with 20 orders whose payments running
// runs of a 5-step funnel hold, an offer in each state; it answers the
// store's admin key.
func frTwentyRuns(t *testing.T) (*apitest.Env, string) {
	t.Helper()
	e, s, admin := newAcme(t)
	f := frMakeFunnel(t, e, s.ID, admin, "Five", 5)
	states := []string{models.OfferAccepted, models.OfferDeclined, models.OfferUnavailable, models.OfferShown, models.OfferPending}
	for i := range 20 {
		o := createOrder(t, e, s.ID, orderSpec{payment: "authorized", email: fmt.Sprintf("c%d@example.com", i)})
		frInsertRun(t, e, o, f, models.RunRunning, states...)
	}
	e.Do(http.MethodGet, "/store", admin, nil).Expect(t, http.StatusOK) // records the key's last use
	return e, admin
}

// TestAwaitingCaptureFunnelStatementsDoNotGrowWithRows: the
// awaiting-capture list with its funnel fields costs as many statements
// for 20 payments held by runs of 5 offers each as for 5, on both
// surfaces: the runs are joined, not loaded per row.
func TestAwaitingCaptureFunnelStatementsDoNotGrowWithRows(t *testing.T) {
	e, admin := frTwentyRuns(t)
	count := countStatements(e)
	rest, awaiting := map[int]int64{}, map[int]int64{}
	for _, n := range []int{5, 20} {
		rest[n] = count(func() {
			r := e.Do(http.MethodGet, "/store/orders/awaiting-capture?limit="+strconv.Itoa(n), admin, nil).Expect(t, http.StatusOK)
			if rows := objectsOf(r.Body["awaiting"]); len(rows) != n || rows[n-1]["has_funnel"] != true || wholeNumber(t, rows[n-1]["offer_count"]) != 5 {
				t.Fatalf("awaiting capture: %s", r.Raw)
			}
		})
		awaiting[n] = count(func() {
			g := e.GraphQL(admin, `query($n: Int) { awaitingCapture(limit: $n) { transaction_id has_funnel funnel_id funnel_name current_position offer_count } }`,
				map[string]any{"n": n})
			if rows, _ := g.Data()["awaitingCapture"].([]any); g.Body["errors"] != nil || len(rows) != n {
				t.Fatalf("awaitingCapture: %s", g.Raw)
			}
		})
	}
	t.Logf("statements: awaiting capture REST %d, GraphQL %d, for 5 rows as for 20", rest[20], awaiting[20])
	if rest[5] != rest[20] || awaiting[5] != awaiting[20] {
		t.Fatalf("statements grow with rows: REST 5 → %d, 20 → %d; GraphQL 5 → %d, 20 → %d", rest[5], rest[20], awaiting[5], awaiting[20])
	}
}

// TestOrderFunnelRunStatementsDoNotGrowWithRows: a page of orders with
// their runs of 5 offers each, the runs' funnels and zones, the offers'
// steps, products, variants and lines costs as many statements for 20
// orders as for 5.
func TestOrderFunnelRunStatementsDoNotGrowWithRows(t *testing.T) {
	e, admin := frTwentyRuns(t)
	count := countStatements(e)
	query := `query($n: Int) { orders(limit: $n) { id funnel_run { ` + frRunFields + ` } } }`
	statements := map[int]int64{}
	for _, n := range []int{5, 20} {
		statements[n] = count(func() {
			g := e.GraphQL(admin, query, map[string]any{"n": n})
			rows, _ := g.Data()["orders"].([]any)
			if g.Body["errors"] != nil || len(rows) != n {
				t.Fatalf("listed %d, want %d: %s", len(rows), n, g.Raw)
			}
			run := rows[n-1].(map[string]any)["funnel_run"].(map[string]any)
			offers := objectsOf(run["offers"])
			if len(offers) != 5 || run["funnel"] == nil || run["zone"] == nil || offers[0]["line_item"] == nil ||
				offers[4]["step"] == nil || offers[1]["product"] == nil || offers[0]["variant"] == nil {
				t.Fatalf("run %v", run)
			}
		})
	}
	t.Logf("statements: orders with their runs and all the runs lead to: %d, for 5 rows as for 20", statements[20])
	if statements[5] != statements[20] {
		t.Fatalf("statements grow with rows: 5 orders → %d, 20 → %d", statements[5], statements[20])
	}
}

// TestFunnelRunsCountStatementsDoNotGrowWithRows: a list of funnels with
// how many runs each has had costs as many statements for 20 funnels as
// for 5.
func TestFunnelRunsCountStatementsDoNotGrowWithRows(t *testing.T) {
	e, s, admin := newAcme(t)
	want := map[int64]int64{}
	for i := range 20 {
		f := frMakeFunnel(t, e, s.ID, admin, fmt.Sprintf("F%d", i), 1)
		for range i % 3 {
			frInsertRun(t, e, createOrder(t, e, s.ID, orderSpec{payment: "authorized"}), f, models.RunCompleted, models.OfferDeclined)
		}
		want[f.id] = int64(i % 3)
	}
	count := countStatements(e)
	statements := map[int]int64{}
	for _, n := range []int{5, 20} {
		statements[n] = count(func() {
			g := e.GraphQL(admin, `query($n: Int) { upsellFunnels(limit: $n) { id runs_count } }`, map[string]any{"n": n})
			rows := objectsOf(g.Data()["upsellFunnels"])
			if g.Body["errors"] != nil || len(rows) != n {
				t.Fatalf("listed %d, want %d: %s", len(rows), n, g.Raw)
			}
			for _, f := range rows {
				if got := wholeNumber(t, f["runs_count"]); got != want[idOf(t, f)] {
					t.Fatalf("funnel %v: runs_count %d, want %d", f["id"], got, want[idOf(t, f)])
				}
			}
		})
	}
	t.Logf("statements: funnels with their runs_count %d, for 5 rows as for 20", statements[20])
	if statements[5] != statements[20] {
		t.Fatalf("statements grow with rows: 5 funnels → %d, 20 → %d", statements[5], statements[20])
	}
}
