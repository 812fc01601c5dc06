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

// The reads of funnel runs: the awaiting-capture funnel fields. The run time writes runs; these tests write
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

// frRun is a run as the test wrote it: the run, its offers and the lines
// accepted offers added.
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

// TestAwaitingCaptureFunnelStatementsDoNotGrowWithRows: the
// awaiting-capture list with its funnel fields costs as many statements
// for 20 payments held by runs of 5 offers each as for 5, on both
// surfaces: the runs are joined, not loaded per row.
func TestAwaitingCaptureFunnelStatementsDoNotGrowWithRows(t *testing.T) {
	e, s, admin := newAcme(t)
	f := frMakeFunnel(t, e, s.ID, admin, "Five", 5)
	states := []string{models.OfferAccepted, models.OfferDeclined, models.OfferUnavailable, models.OfferShown, models.OfferPending}
	for i := range 20 {
		o := createOrder(t, e, s.ID, orderSpec{payment: "authorized", email: fmt.Sprintf("c%d@example.com", i)})
		frInsertRun(t, e, o, f, models.RunRunning, states...)
	}
	e.Do(http.MethodGet, "/store", admin, nil).Expect(t, http.StatusOK) // records the key's last use
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
