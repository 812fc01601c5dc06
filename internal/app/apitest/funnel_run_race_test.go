package apitest_test

import (
	"context"
	"log/slog"
	"net/http"
	"slices"
	"sync"
	"testing"
	"time"

	"storeadmin/internal/app/apitest"
	"storeadmin/internal/funnelruns"
)

// TestFunnelRunRaces: the same offer accepted twice at once adds one line,
// emits upsell.accepted once and, at the run's end, captures once; a run
// completed by the shopper's last answer while the timeout job ends it
// captures once too. Each race is run 20 times, on fresh orders.
func TestFunnelRunRaces(t *testing.T) {
	clock := newFRClock()
	e := apitest.New(t, apitest.WithClock(clock.Now))
	f := frStore(t, e, "Shop")
	frZone(t, e, f, [2]int64{f.socksFunnel, 1})
	ctx := context.Background()
	at := func(n int, run func(i int)) {
		var wg sync.WaitGroup
		start := make(chan struct{})
		for i := range n {
			wg.Go(func() {
				<-start
				run(i)
			})
		}
		close(start)
		wg.Wait()
	}
	for round := range 20 {
		co := frCheckout(t, e, f, 1, nil)
		token := co["token"].(string)
		orderID := wholeNumber(t, frComplete(t, e, f, co, "card").Obj("order")["id"])

		// Two accepts of the socks at once: both answer 200, one adds.
		var accepts [2]*apitest.Response
		at(2, func(i int) {
			accepts[i] = frAnswer(e, f, token, "1", "accept", map[string]any{"variant_id": f.socksVariants[1]})
		})
		changed := 0
		for _, r := range accepts {
			r.Expect(t, http.StatusOK)
			if r.Obj("answer")["changed"] == true {
				changed++
			}
			if r.Obj("upsell")["order"].(map[string]any)["total_cents"] != float64(3500+960+192) {
				t.Fatalf("round %d: an accept answered %s", round, r.Raw)
			}
		}
		if n := frCount(t, e, `SELECT count(*) FROM order_line_items WHERE order_id = ? AND source = 'upsell'`, orderID); n != 1 || changed != 1 {
			t.Fatalf("round %d: %d upsell lines, %d accepts that changed something; want 1 and 1", round, n, changed)
		}

		// The last answer and the timeout job on two servers at once: one
		// of them ends the run.
		var decline *apitest.Response
		at(3, func(i int) {
			if i == 0 {
				decline = frAnswer(e, f, token, "2", "decline", nil)
				return
			}
			if _, err := funnelruns.TimeOut(ctx, e.DB, clock.After(time.Hour)); err != nil {
				t.Errorf("round %d: timeout: %v", round, err)
			}
		})
		if decline.Status != http.StatusOK && decline.Status != http.StatusConflict {
			t.Fatalf("round %d: the decline answered %s", round, decline.Raw)
		}
		money, status, _ := frMoney(t, e, f, orderID)
		if len(money) != 2 || money[1] != "capture:4652" || status != "paid" {
			t.Fatalf("round %d: the order's money %v, %s; want one capture of 4,652", round, money, status)
		}
	}
	if n := frCount(t, e, `SELECT count(*) FROM events WHERE topic = 'upsell.accepted'`); n != 20 {
		t.Fatalf("%d upsell.accepted events for 20 accepted offers", n)
	}
	if n := frCount(t, e, `SELECT count(*) FROM funnel_runs WHERE status IN ('completed', 'timed_out')`); n != 20 {
		t.Fatalf("%d runs ended of 20", n)
	}
}

// TestFunnelRunTimeoutJob: the River job serve runs (funnelruns.Work, on
// the machine's clock) ends a run past its timeout and captures. The
// harness does not run it (tests end runs with funnelruns.TimeOut on
// their own clock); here an engine runs it, on a run that entered an hour
// ago. The job runs when an engine becomes River's leader: the service's
// stays idle, so that this one is.
func TestFunnelRunTimeoutJob(t *testing.T) {
	hourAgo := time.Now().Add(-time.Hour)
	e := apitest.New(t, apitest.WithClock(func() time.Time { return hourAgo }), apitest.WithoutEventWorkers())
	f := frStore(t, e, "Shop")
	frZone(t, e, f, [2]int64{f.mugFunnel, 1})
	co := frCheckout(t, e, f, 1, nil)
	orderID := wholeNumber(t, frComplete(t, e, f, co, "card").Obj("order")["id"])

	e.StartEventWorkers(funnelruns.Work(e.DB, time.Now, slog.New(slog.DiscardHandler)))
	// Wait for the job; the bound only turns a job that never runs into a
	// failure instead of a hang.
	for deadline := time.Now().Add(2 * time.Minute); frCount(t, e, `SELECT count(*) FROM funnel_runs WHERE status = 'timed_out'`) == 0; time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the timeout job did not run")
		}
	}
	if money, status, _ := frMoney(t, e, f, orderID); !slices.Equal(money, []string{"authorization:3500", "capture:3500"}) || status != "paid" {
		t.Fatalf("the timed-out run's order: %v, %s", money, status)
	}
}
