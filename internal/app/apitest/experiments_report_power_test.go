package apitest_test

import (
	"context"
	"net/http"
	"reflect"
	"strconv"
	"testing"
	"time"

	"storeadmin/internal/app/apitest"
	"storeadmin/internal/auth"
)

// TestExperimentPower reads the power report of a store with traffic and
// of one without.
func TestExperimentPower(t *testing.T) {
	clock := apitest.NewClock(time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC))
	e := apitest.New(t, apitest.WithClock(clock.Now))
	s, quiet := e.Store("Acme"), e.Store("Quiet")
	key := e.Key(s.ID, auth.RoleAdmin)
	// 20 days of 300 sessions a day, one visitor each, 1 in 20 converting
	// and 1 in 5 carting; a bot session a day in no figure.
	_, err := e.DB.ExecContext(context.Background(), `WITH g AS (SELECT n FROM generate_series(0, 5999) AS n),
		v AS (INSERT INTO visitors (store_id, anon_id, first_seen_at, last_seen_at)
			SELECT ?0, 'p' || n, ?1::timestamptz - (n / 300) * interval '1 day', ?1::timestamptz FROM g RETURNING id, anon_id)
		INSERT INTO storefront_sessions (store_id, session_key, visitor_id, first_seen_at, last_seen_at, carted, orders, revenue_cents, page_views, is_bot)
		SELECT ?0, v.anon_id, v.id, ?1::timestamptz - (n / 300) * interval '1 day' - interval '1 hour', ?1::timestamptz,
			n % 5 = 0, (n % 20 = 0)::int, CASE WHEN n % 20 = 0 THEN 4000 ELSE 0 END, 1, n % 300 = 7
		FROM v JOIN g ON v.anon_id = 'p' || g.n`, s.ID, clock.Now())
	if err != nil {
		t.Fatal(err)
	}
	r := e.Do(http.MethodGet, "/store/experiments/power", key, nil).Expect(t, 200)
	e.SameOnGraphQL(t, r, key, "GetExperimentPower", nil)
	p := r.Obj("power")
	traffic, window := p["traffic"].(map[string]any), p["window"].(map[string]any)
	if wholeNumber(t, traffic["sessions"]) != 5980 || wholeNumber(t, traffic["visitors"]) != 5980 ||
		window["requested_days"] != 28.0 || window["days_with_data"] != 20.0 || p["refusal"] != nil {
		t.Fatalf("power: traffic %v window %v refusal %v", traffic, window, p["refusal"])
	}
	// An experiment's power is the store's.
	id, _ := xrExperiment(t, e, s.ID, "pw", "conversion", []int64{50, 50}, time.Time{}, "draft", nil)
	g := e.GraphQL(key, `query($id: Int!) { experiment(id: $id) { power { traffic { sessions visitors } } } }`, map[string]any{"id": id})
	if got := g.Data()["experiment"].(map[string]any)["power"].(map[string]any)["traffic"]; !reflect.DeepEqual(got, map[string]any{"sessions": traffic["sessions"], "visitors": traffic["visitors"]}) {
		t.Fatalf("the experiment's power: %s", g.Raw)
	}
	// The store's power is read once for a list, however many
	// experiments ask it.
	count := countStatements(e)
	list := func() {
		g := e.GraphQL(key, `{ experiments { id power { verdict: refusal } } }`, nil)
		if g.Status != http.StatusOK || g.ErrorCode() != "" || len(g.Data()["experiments"].([]any)) == 0 {
			t.Fatalf("experiments with their power: %s", g.Raw)
		}
	}
	one := count(list)
	for i := range 3 {
		xrExperiment(t, e, s.ID, "pw-"+strconv.Itoa(i), "conversion", []int64{50, 50}, time.Time{}, "draft", nil)
	}
	if four := count(list); four != one {
		t.Fatalf("experiments with their power: %d statements for 1, %d for 4", one, four)
	}
	steps := objectsOf(p["steps"])
	if len(steps) != 4 || steps[0]["metric"] != "conversion" || wholeNumber(t, steps[0]["events"]) != 300 ||
		!xrClose(steps[0]["base_rate"].(float64), 300.0/5980) || len(objectsOf(steps[0]["horizons"])) != 4 ||
		len(objectsOf(steps[0]["lifts"])) != 3 {
		t.Fatalf("conversion step: %v", steps[0])
	}
	if steps[1]["metric"] != "add_to_cart" || wholeNumber(t, steps[1]["events"]) != 1200 {
		t.Fatalf("add to cart step: %v", steps[1])
	}
	// A shorter window reads fewer days.
	r = e.Do(http.MethodGet, "/store/experiments/power?days=7", key, nil).Expect(t, 200)
	e.SameOnGraphQL(t, r, key, "GetExperimentPower", map[string]any{"days": 7})
	if w := r.Obj("power")["window"].(map[string]any); w["requested_days"] != 7.0 || w["days_with_data"] != 7.0 {
		t.Fatalf("7 days: %v", w)
	}
	// No traffic: a refusal, no horizons.
	qk := e.Key(quiet.ID, auth.RoleAdmin)
	q := e.Do(http.MethodGet, "/store/experiments/power?days="+strconv.Itoa(14), qk, nil).Expect(t, 200).Obj("power")
	if q["refusal"] == nil || q["consent"] != nil || q["matched_orders"] != nil || len(objectsOf(objectsOf(q["steps"])[0]["horizons"])) != 0 {
		t.Fatalf("quiet store: %v", q)
	}
}
