package apitest_test

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/uptrace/bun/dialect/pgdialect"

	"storeadmin/internal/app/apitest"
	"storeadmin/internal/auth"
	"storeadmin/internal/experimentreport"
)

// xr… are the A/B test reports' fixtures: experiments, visitors, sessions,
// exposures, carts, checkouts and orders written straight into the tables
// (the lifecycle and the storefront's exposures are other areas).

// xrExperiment stores an experiment of storeID with arms of splits (keys
// a, b, …), metric, started at started (a draft when zero) and its status;
// it answers the experiment's id and its arms' ids by position.
func xrExperiment(t testing.TB, e *apitest.Env, storeID int64, key, metric string, splits []int64, started time.Time, status string, pool *string) (int64, []int64) {
	t.Helper()
	ctx := context.Background()
	var startedAt *time.Time
	if !started.IsZero() {
		startedAt = &started
	}
	var endedAt *time.Time
	if status == "ended" {
		end := started.Add(20 * 24 * time.Hour)
		endedAt = &end
	}
	var id int64
	if err := e.DB.NewRaw(`INSERT INTO experiments (store_id, key, name, kind, metric, surface, status, started_at, ended_at, pool_key)
		VALUES (?, ?, ?, 'content', ?, '{}', ?, ?, ?, ?) RETURNING id`, storeID, key, key, metric, status, startedAt, endedAt, pool).Scan(ctx, &id); err != nil {
		t.Fatal(err)
	}
	ids := make([]int64, len(splits))
	for i, s := range splits {
		k := string(rune('a' + i))
		if err := e.DB.NewRaw(`INSERT INTO experiment_variants (store_id, experiment_id, position, key, name, payload, split_pct)
			VALUES (?, ?, ?, ?, ?, '{}', ?) RETURNING id`, storeID, id, i+1, k, "Arm "+k, s).Scan(ctx, &ids[i]); err != nil {
			t.Fatal(err)
		}
	}
	return id, ids
}

// xrSim is a simulated exposed visitor: one session at the exposure, its
// arm (index), device, and whether it carted and converted (the session's
// steps as its rows would set them).
type xrSim struct {
	arm               int
	device            string
	carted, converted bool
}

// xrInsertSims stores the visitors of sims exposed to experiment at at,
// in one statement.
func xrInsertSims(t testing.TB, e *apitest.Env, storeID, experiment int64, arms []int64, at time.Time, prefix string, sims []xrSim) {
	t.Helper()
	armIdx := make([]int64, len(sims))
	devices := make([]string, len(sims))
	carted := make([]bool, len(sims))
	conv := make([]bool, len(sims))
	for i, s := range sims {
		armIdx[i], devices[i], carted[i], conv[i] = int64(s.arm+1), s.device, s.carted, s.converted
	}
	_, err := e.DB.NewRaw(`WITH d AS (SELECT * FROM unnest(?0::int[], ?1::text[], ?2::bool[], ?3::bool[]) WITH ORDINALITY AS d(arm, device, carted, conv, n)),
		vis AS (INSERT INTO visitors (store_id, anon_id, first_seen_at, last_seen_at)
			SELECT ?4, ?5 || d.n, ?6, ?6 FROM d RETURNING id, anon_id),
		ses AS (INSERT INTO storefront_sessions (store_id, session_key, visitor_id, first_seen_at, last_seen_at, device, carted, orders, page_views)
			SELECT ?4, vis.anon_id, vis.id, ?6, ?6, d.device, d.carted OR d.conv, d.conv::int, 1
			FROM vis JOIN d ON vis.anon_id = ?5 || d.n RETURNING id, visitor_id, session_key)
		INSERT INTO experiment_exposures (store_id, experiment_id, variant_id, visitor_id, session_id, exposed_at)
		SELECT ?4, ?7, (?8::bigint[])[d.arm], ses.visitor_id, ses.id, ?6 FROM ses JOIN d ON ses.session_key = ?5 || d.n`,
		pgdialect.Array(armIdx), pgdialect.Array(devices), pgdialect.Array(carted), pgdialect.Array(conv),
		storeID, prefix, at, experiment, pgdialect.Array(arms)).Exec(context.Background())
	if err != nil {
		t.Fatal(err)
	}
}

// xrSimulate draws n visitors split by shares, each converting at its
// arm's rate.
func xrSimulate(rng *rand.Rand, n int, shares, rates []float64) []xrSim {
	out := make([]xrSim, n)
	for i := range out {
		u, arm := rng.Float64(), 0
		for arm < len(shares)-1 && u >= shares[arm] {
			u -= shares[arm]
			arm++
		}
		out[i] = xrSim{arm: arm, device: "desktop", converted: rng.Float64() < rates[arm]}
	}
	return out
}

// xrReport is GET /store/experiments/{id}/report, the same on GraphQL.
func xrReport(t testing.TB, e *apitest.Env, key string, id int64) map[string]any {
	t.Helper()
	r := e.Do(http.MethodGet, "/store/experiments/"+strconv.FormatInt(id, 10)+"/report", key, nil).Expect(t, 200)
	e.SameOnGraphQL(t, r, key, "GetExperimentReport", map[string]any{"id": id})
	return r.Obj("report")
}

func xrArms(t testing.TB, report map[string]any) []map[string]any {
	return objectsOf(report["arms"])
}

func TestExperimentReportAccess(t *testing.T) {
	clock := apitest.NewClock(time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC))
	e := apitest.New(t, apitest.WithClock(clock.Now))
	acme, other := e.Store("Acme"), e.Store("Other")
	admin := e.Key(acme.ID, auth.RoleAdmin)
	id, _ := xrExperiment(t, e, acme.ID, "hero", "conversion", []int64{50, 50}, clock.After(-24*time.Hour), "running", nil)
	draft, _ := xrExperiment(t, e, acme.ID, "draft", "conversion", []int64{50, 50}, time.Time{}, "draft", nil)
	foreign, _ := xrExperiment(t, e, other.ID, "theirs", "conversion", []int64{50, 50}, clock.After(-24*time.Hour), "running", nil)
	path := func(id int64, tail string) string { return "/store/experiments/" + strconv.FormatInt(id, 10) + tail }

	reads := []apitest.Call{{Method: http.MethodGet, Path: path(id, "/report")}, {Method: http.MethodGet, Path: "/store/experiments/power"}}
	checkAccess(t, e, acme.ID, "experiments", map[string]string{"other scope": e.Key(acme.ID, auth.RoleAdmin, "themes:read")}, reads, nil)

	e.Do(http.MethodGet, path(foreign, "/report"), admin, nil).Expect(t, 404)
	e.Do(http.MethodGet, path(foreign, "/pooled"), admin, nil).Expect(t, 404)
	e.Do(http.MethodGet, path(9999999, "/report"), admin, nil).Expect(t, 404)
	if rep := xrReport(t, e, admin, draft); rep["verdict"] != "insufficient_data" || len(objectsOf(rep["timeline"])) != 0 || rep["from"] != rep["to"] {
		t.Fatalf("a draft's report: %v", rep)
	}
	if m := e.Do(http.MethodGet, path(id, "/pooled"), admin, nil).Expect(t, 404).Message(); m == "" {
		t.Fatal("the pooled report of an experiment of no pool: no message")
	}
	for _, days := range []string{"0", "6", "91", "-3"} {
		if m := e.Do(http.MethodGet, "/store/experiments/power?days="+days, admin, nil).Expect(t, 400).Message(); m == "" {
			t.Fatalf("days=%s: no message", days)
		}
	}
	e.Do(http.MethodGet, "/store/experiments/power?days=abc", admin, nil).Expect(t, 400)

	// An empty running experiment: every figure 0, no verdict, the shapes.
	rep := xrReport(t, e, admin, id)
	expectKeys(t, "report", rep, "arms", "broken", "comparisons", "from", "guardrails", "metric", "min_exposed_per_arm",
		"segment_floor", "segments", "srm", "timeline", "to", "verdict", "winner_position")
	if rep["verdict"] != "insufficient_data" || len(xrArms(t, rep)) != 2 {
		t.Fatalf("empty report: %v", rep)
	}
	expectKeys(t, "arm", xrArms(t, rep)[0], "add_rate", "added", "checkout", "checkout_rate", "conversion_rate", "converted",
		"exposed", "key", "metric_events", "metric_rate", "money", "name", "position", "return_share", "sessions", "split_pct")
	expectKeys(t, "guardrails", rep["guardrails"].(map[string]any), "banner", "cart_session_differs", "consent_coverage",
		"excluded_in_pauses", "matched_orders", "matched_share", "paid_orders")
}

// expectKeys fails unless m has exactly keys.
func expectKeys(t testing.TB, what string, m map[string]any, keys ...string) {
	t.Helper()
	objectWithKeys(t.(*testing.T), what, m, keys)
}

// TestExperimentReportSimulation is the simulation through the
// report's SQL and HTTP: 20 seeded A/A experiments, a 20% true lift on
// 20,000 visitors per arm, a 60/40 split configured as 50/50; and the
// segments' floor.
func TestExperimentReportSimulation(t *testing.T) {
	clock := apitest.NewClock(time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC))
	e := apitest.New(t, apitest.WithClock(clock.Now))
	s := e.Store("Acme")
	key := e.Key(s.ID, auth.RoleAdmin)
	rng := rand.New(rand.NewPCG(20, 2026))
	start, at := clock.After(-10*24*time.Hour), clock.After(-5*24*time.Hour)

	noDifference := 0
	for i := range 20 {
		id, arms := xrExperiment(t, e, s.ID, fmt.Sprintf("aa-%d", i), "conversion", []int64{50, 50}, start, "running", nil)
		xrInsertSims(t, e, s.ID, id, arms, at, fmt.Sprintf("aa%d-", i), xrSimulate(rng, 1000, []float64{0.5, 0.5}, []float64{0.05, 0.05}))
		if v := xrReport(t, e, key, id)["verdict"]; v == "no_difference" {
			noDifference++
		} else if v != "winner" && v != "loser" {
			t.Fatalf("A/A %d: verdict %v", i, v)
		}
	}
	if noDifference < 18 {
		t.Fatalf("A/A: %d of 20 report no difference, want at least 18", noDifference)
	}

	// A 20% lift on a 5% rate, 20,000 visitors per arm; a few tablets and
	// phones (below the segment floor) besides desktops.
	id, arms := xrExperiment(t, e, s.ID, "lift", "conversion", []int64{50, 50}, start, "running", nil)
	sims := xrSimulate(rng, 40000, []float64{0.5, 0.5}, []float64{0.05, 0.06})
	for i := range sims {
		switch {
		case i%1000 == 0:
			sims[i].device = "tablet"
		case i%1000 == 1:
			sims[i].device = "tv"
		case i%2 == 0:
			sims[i].device = "mobile"
		}
	}
	xrInsertSims(t, e, s.ID, id, arms, at, "lift-", sims)
	rep := xrReport(t, e, key, id)
	cmp := objectsOf(rep["comparisons"])
	if rep["verdict"] != "winner" || wholeNumber(t, rep["winner_position"]) != 2 || len(cmp) != 1 || cmp[0]["significant"] != true {
		t.Fatalf("20%% lift: verdict %v, winner %v, comparisons %v", rep["verdict"], rep["winner_position"], cmp)
	}
	// Ending it without naming a winner records the report's; an A/A test
	// with no difference ends without one.
	ended := e.Do(http.MethodPost, "/store/experiments/"+strconv.FormatInt(id, 10)+"/end", key, nil).Expect(t, 200).Obj("experiment")
	if wholeNumber(t, ended["winner_variant_id"]) != arms[1] {
		t.Fatalf("ended without a named winner: winner_variant_id %v, want the report's arm %d", ended["winner_variant_id"], arms[1])
	}
	plain, _ := xrExperiment(t, e, s.ID, "plain", "conversion", []int64{50, 50}, start, "running", nil)
	if ended := e.Do(http.MethodPost, "/store/experiments/"+strconv.FormatInt(plain, 10)+"/end", key, nil).Expect(t, 200).Obj("experiment"); ended["winner_variant_id"] != nil {
		t.Fatalf("an experiment without data ended with a winner: %v", ended)
	}
	var want [2]struct{ exposed, conv int64 }
	dev := map[string][2]int64{}
	for _, sim := range sims {
		want[sim.arm].exposed++
		d := dev[sim.device]
		d[sim.arm]++
		dev[sim.device] = d
		if sim.converted {
			want[sim.arm].conv++
		}
	}
	for i, a := range xrArms(t, rep) {
		if wholeNumber(t, a["exposed"]) != want[i].exposed || wholeNumber(t, a["converted"]) != want[i].conv ||
			!xrClose(a["conversion_rate"].(float64), float64(want[i].conv)/float64(want[i].exposed)) {
			t.Fatalf("arm %d: %v, want %+v", i+1, a, want[i])
		}
	}
	// Segments: tablet and tv (about 20 visitors an arm) are folded into
	// "other", which, below the floor, takes in the smaller of desktop and
	// mobile so that it cannot be read off as the arms' totals less the
	// rows shown: the larger is shown, "other" holds the rest.
	larger, smaller := "desktop", "mobile"
	if dev["mobile"][0]+dev["mobile"][1] > dev["desktop"][0]+dev["desktop"][1] {
		larger, smaller = smaller, larger
	}
	var devices []string
	for _, row := range objectsOf(rep["segments"]) {
		if row["dimension"] != "device" {
			continue
		}
		value := row["value"].(string)
		devices = append(devices, value)
		for i, sa := range objectsOf(row["arms"]) {
			want := dev[value][i]
			if value == "other" {
				want = dev[smaller][i] + dev["tablet"][i] + dev["tv"][i]
				if row["hidden"] != false || wholeNumber(t, row["folded"]) != 3 {
					t.Fatalf("other: %v", row)
				}
			} else if row["hidden"] != false || row["folded"] != nil {
				t.Fatalf("%s: %v", value, row)
			}
			if wholeNumber(t, sa["exposed"]) != want {
				t.Fatalf("%s arm %d: %v, want %d", value, i+1, sa, want)
			}
		}
	}
	if fmt.Sprint(devices) != "["+larger+" other]" {
		t.Fatalf("device segments: %v, want %s and other", devices, larger)
	}

	// A visitor identified after its exposure as one of the store's staff
	// leaves the report: its exposure stays recorded, it counts nowhere.
	staffed, staffedArms := xrExperiment(t, e, s.ID, "staffed", "conversion", []int64{50, 50}, start, "running", nil)
	xrInsertSims(t, e, s.ID, staffed, staffedArms, at, "staffed-", xrSimulate(rng, 10, []float64{0.5, 0.5}, []float64{0.05, 0.05}))
	exposedOf := func() (n int64) {
		for _, a := range xrArms(t, xrReport(t, e, key, staffed)) {
			n += wholeNumber(t, a["exposed"])
		}
		return n
	}
	if n := exposedOf(); n != 10 {
		t.Fatalf("10 visitors exposed, the report says %d", n)
	}
	ctx := context.Background()
	var userID int64
	if err := e.DB.NewRaw(`INSERT INTO users (email) VALUES ('Clerk@Acme.example') RETURNING id`).Scan(ctx, &userID); err != nil {
		t.Fatal(err)
	}
	if _, err := e.DB.NewRaw(`INSERT INTO store_members (store_id, user_id, role) VALUES (?, ?, 'staff')`, s.ID, userID).Exec(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := e.DB.NewRaw(`UPDATE visitors SET email = 'clerk@acme.example', identified_at = now() WHERE store_id = ? AND anon_id = 'staffed-3'`, s.ID).Exec(ctx); err != nil {
		t.Fatal(err)
	}
	if n := exposedOf(); n != 9 {
		t.Fatalf("a staff member's exposure: the report counts %d of 10", n)
	}

	// An experiment whose every segment is below the floor: the one
	// device folded into "other", hidden.
	small, smallArms := xrExperiment(t, e, s.ID, "small", "conversion", []int64{50, 50}, start, "running", nil)
	xrInsertSims(t, e, s.ID, small, smallArms, at, "small-", xrSimulate(rng, 40, []float64{0.5, 0.5}, []float64{0.05, 0.05}))
	for _, row := range objectsOf(xrReport(t, e, key, small)["segments"]) {
		if row["dimension"] == "device" && (row["value"] != "other" || row["hidden"] != true || wholeNumber(t, row["folded"]) != 1 ||
			wholeNumber(t, objectsOf(row["arms"])[0]["exposed"]) != 0) {
			t.Fatalf("a device segment of 40 visitors: %v", row)
		}
	}

	// 60/40 traffic configured as 50/50.
	id, arms = xrExperiment(t, e, s.ID, "srm", "conversion", []int64{50, 50}, start, "running", nil)
	xrInsertSims(t, e, s.ID, id, arms, at, "srm-", xrSimulate(rng, 2000, []float64{0.6, 0.4}, []float64{0.05, 0.05}))
	rep = xrReport(t, e, key, id)
	if srm := rep["srm"].(map[string]any); srm["failed"] != true || rep["verdict"] != "srm_failed" {
		t.Fatalf("60/40: srm %v, verdict %v", srm, rep["verdict"])
	}
}

func xrClose(a, b float64) bool { return math.Abs(a-b) <= 1e-9*math.Max(1, math.Abs(b)) }

var _ = experimentreport.SegmentFloor
