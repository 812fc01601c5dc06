package apitest_test

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"net/http"
	"reflect"
	"strconv"
	"testing"
	"time"

	"storeadmin/internal/app/apitest"
	"storeadmin/internal/auth"
)

// TestExperimentPooledReport combines member stores: one below the store
// floor left out, one capped at max_share, min_stores before a verdict;
// every member reads the same report, which names no store.
func TestExperimentPooledReport(t *testing.T) {
	clock := apitest.NewClock(time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC))
	e := apitest.New(t, apitest.WithClock(clock.Now))
	ctx := context.Background()
	start, at := clock.After(-10*24*time.Hour), clock.After(-5*24*time.Hour)
	if _, err := e.DB.ExecContext(ctx, `INSERT INTO experiment_pools (key, name, kind, metric, store_floor, max_share, min_stores, started_at)
		VALUES ('hero-pool', 'Hero', 'content', 'conversion', 100, 0.4, 3, ?)`, start); err != nil {
		t.Fatal(err)
	}
	if _, err := e.DB.ExecContext(ctx, `INSERT INTO experiment_pool_variants (pool_key, position, key, name, payload, split_pct)
		VALUES ('hero-pool', 1, 'a', 'Control', '{}', 50), ('hero-pool', 2, 'b', 'Bold', '{}', 50)`); err != nil {
		t.Fatal(err)
	}
	pool := "hero-pool"
	rng := rand.New(rand.NewPCG(3, 5))
	sizes := []int{1000, 1000, 4000, 60}
	ids, keys := make([]int64, len(sizes)), make([]string, len(sizes))
	var counts [][2][2]int64 // per store, per arm: exposed, converted
	for i, n := range sizes {
		s := e.Store(fmt.Sprint("Member ", i))
		keys[i] = e.Key(s.ID, auth.RoleAdmin)
		var arms []int64
		ids[i], arms = xrExperiment(t, e, s.ID, "hero-pool", "conversion", []int64{50, 50}, start, "running", &pool)
		sims := xrSimulate(rng, n, []float64{0.5, 0.5}, []float64{0.05, 0.07})
		xrInsertSims(t, e, s.ID, ids[i], arms, at, fmt.Sprint("m", i, "-"), sims)
		var c [2][2]int64
		for _, sim := range sims {
			c[sim.arm][0]++
			if sim.converted {
				c[sim.arm][1]++
			}
		}
		counts = append(counts, c)
	}
	// The brute force: stores 0..2 count (3 is below 100 per arm); store 2
	// (4,000 of 6,000) is scaled to 0.4 of the weighted total: c =
	// 0.4·2000/(1 − 0.4).
	w := (0.4 * float64(sizes[0]+sizes[1]) / 0.6) / float64(sizes[2])
	var want [2][2]int64
	for arm := range 2 {
		for k := range 2 {
			want[arm][k] = counts[0][arm][k] + counts[1][arm][k] + int64(math.Round(float64(counts[2][arm][k])*w))
		}
	}
	path := func(id int64) string { return "/store/experiments/" + strconv.FormatInt(id, 10) + "/pooled" }
	r := e.Do(http.MethodGet, path(ids[0]), keys[0], nil).Expect(t, 200)
	e.SameOnGraphQL(t, r, keys[0], "GetExperimentPooledReport", map[string]any{"id": ids[0]})
	p := r.Obj("pooled")
	expectKeys(t, "pooled", p, "arms", "comparisons", "from", "key", "max_share", "metric", "min_exposed_per_arm", "min_stores",
		"name", "srm", "status", "store_floor", "stores", "to", "verdict", "winner_position")
	if wholeNumber(t, p["stores"]) != 3 || p["key"] != "hero-pool" || p["verdict"] == "insufficient_data" {
		t.Fatalf("pooled: %v", p)
	}
	for i, a := range objectsOf(p["arms"]) {
		if got := [2]int64{wholeNumber(t, a["exposed"]), wholeNumber(t, a["metric_events"])}; got != want[i] {
			t.Fatalf("arm %d: %v, want %v", i+1, a, want[i])
		}
	}
	// Every member reads the same report, the one below the floor too.
	for i := 1; i < len(ids); i++ {
		other := e.Do(http.MethodGet, path(ids[i]), keys[i], nil).Expect(t, 200).Obj("pooled")
		if !reflect.DeepEqual(other, p) {
			t.Fatalf("member %d reads %v, member 0 %v", i, other, p)
		}
	}
	// Another store's experiment is not found.
	e.Do(http.MethodGet, path(ids[1]), keys[0], nil).Expect(t, 404)
	// Below min_stores: no verdict.
	if _, err := e.DB.ExecContext(ctx, `UPDATE experiment_pools SET min_stores = 4`); err != nil {
		t.Fatal(err)
	}
	// Below min_stores: no figures either (a member could otherwise read
	// one store's, or subtract its own from two stores' sums).
	below := e.Do(http.MethodGet, path(ids[0]), keys[0], nil).Expect(t, 200).Obj("pooled")
	if below["verdict"] != "insufficient_data" || len(objectsOf(below["comparisons"])) != 0 || below["srm"].(map[string]any)["p_value"] != 1.0 {
		t.Fatalf("3 stores of 4 needed: %v", below)
	}
	for _, a := range objectsOf(below["arms"]) {
		if wholeNumber(t, a["exposed"]) != 0 || wholeNumber(t, a["metric_events"]) != 0 || a["metric_rate"] != 0.0 || a["name"] == "" {
			t.Fatalf("3 stores of 4 needed: arm %v", a)
		}
	}
	// A pool that says 1 (written before the CLI refused it) is held to 3
	// all the same: its one counted store's figures stay hidden.
	if _, err := e.DB.ExecContext(ctx, `UPDATE experiment_pools SET min_stores = 1, store_floor = 1000`); err != nil {
		t.Fatal(err)
	}
	if p := e.Do(http.MethodGet, path(ids[0]), keys[0], nil).Expect(t, 200).Obj("pooled"); wholeNumber(t, p["stores"]) != 1 ||
		wholeNumber(t, objectsOf(p["arms"])[0]["exposed"]) != 0 {
		t.Fatalf("1 store counted: %v", p)
	}
}
