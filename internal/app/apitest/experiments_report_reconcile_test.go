package apitest_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"storeadmin/internal/app/apitest"
	"storeadmin/internal/auth"
)

// xrOrder is an order of a fixture session.
type xrOrder struct {
	currency            string
	cents               int64
	cancelled, refunded bool
}

// xrFixture writes sessions, carts, checkouts and orders with SQL as the
// storefront leaves them (the triggers set the sessions' steps).
type xrFixture struct {
	t       testing.TB
	e       *apitest.Env
	store   int64
	orderNo int64
}

func (f *xrFixture) scan(q string, args ...any) int64 {
	f.t.Helper()
	var id int64
	if err := f.e.DB.NewRaw(q, args...).Scan(context.Background(), &id); err != nil {
		f.t.Fatalf("%s: %v", q, err)
	}
	return id
}

func (f *xrFixture) visitor(anon string, at time.Time) int64 {
	return f.scan(`INSERT INTO visitors (store_id, anon_id, first_seen_at, last_seen_at) VALUES (?, ?, ?, ?) RETURNING id`, f.store, anon, at, at)
}

// session stores a session of visitor at at, with a cart (items), a
// checkout and orders as asked.
func (f *xrFixture) session(visitor int64, at time.Time, bot bool, consent *bool, cart, checkout bool, orders ...xrOrder) int64 {
	s := f.scan(`INSERT INTO storefront_sessions (store_id, session_key, visitor_id, first_seen_at, last_seen_at, is_bot, analytics_consent, page_views, device, country)
		VALUES (?, md5(random()::text), ?, ?, ?, ?, ?, 1, 'desktop', 'FR') RETURNING id`, f.store, visitor, at, at.Add(time.Minute), bot, consent)
	if cart {
		f.scan(`INSERT INTO carts (store_id, token, visitor_id, session_id, currency, item_count, created_at) VALUES (?, md5(random()::text), ?, ?, 'USD', 1, ?) RETURNING id`,
			f.store, visitor, s, at)
	}
	if checkout {
		f.scan(`INSERT INTO checkouts (store_id, token, visitor_id, session_id, currency, expires_at) VALUES (?, md5(random()::text), ?, ?, 'USD', ?) RETURNING id`,
			f.store, visitor, s, at.Add(24*time.Hour))
	}
	for _, o := range orders {
		f.orderNo++
		status, financial := "open", "paid"
		if o.cancelled {
			status = "cancelled"
		}
		if o.refunded {
			financial = "refunded"
		}
		f.scan(`INSERT INTO orders (store_id, order_number, order_number_display, token, currency, total_cents, status, financial_status, paid_at, created_at, session_id)
			VALUES (?, ?, ?, md5(random()::text), ?, ?, ?, ?, ?, ?, ?) RETURNING id`,
			f.store, f.orderNo, fmt.Sprint("#", f.orderNo), o.currency, o.cents, status, financial, at.Add(time.Minute), at.Add(time.Minute), s)
	}
	return s
}

// xrTruthArm is the brute force's figures of an arm.
type xrTruthArm struct {
	exposed, sessions, added, checkout, converted, returned int64
	money                                                   map[string]*[5]int64 // orders, revenue, largest, cancelled, refunded
}

// TestExperimentReportReconciles checks a report against a brute force
// over the same synthetic rows: sessions in a pause and bots left out,
// money per currency, guardrails, the timeline; and that its statements
// do not grow with the rows.
func TestExperimentReportReconciles(t *testing.T) {
	clock := apitest.NewClock(time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC))
	e := apitest.New(t, apitest.WithClock(clock.Now))
	s := e.Store("Acme")
	key := e.Key(s.ID, auth.RoleAdmin)
	ctx := context.Background()
	start := clock.After(-10 * 24 * time.Hour)
	pauseFrom, pauseTo := start.Add(3*24*time.Hour), start.Add(4*24*time.Hour)
	id, arms := xrExperiment(t, e, s.ID, "hero", "revenue_per_session", []int64{50, 50}, start, "running", nil)
	if _, err := e.DB.ExecContext(ctx, `INSERT INTO experiment_pauses (store_id, experiment_id, paused_at, resumed_at, reason) VALUES (?, ?, ?, ?, 'holiday')`,
		s.ID, id, pauseFrom, pauseTo); err != nil {
		t.Fatal(err)
	}
	f := &xrFixture{t: t, e: e, store: s.ID}
	rng := rand.New(rand.NewPCG(7, 11))
	truth := [2]*xrTruthArm{{money: map[string]*[5]int64{}}, {money: map[string]*[5]int64{}}}
	var excluded, counted, consented, paid, matched, carts, differs int64
	addOrders := func(a *xrTruthArm, orders []xrOrder) {
		for _, o := range orders {
			m := a.money[o.currency]
			if m == nil {
				m = &[5]int64{}
				a.money[o.currency] = m
			}
			if o.cancelled {
				m[3]++
			} else {
				m[0]++
				m[1] += o.cents
				m[2] = max(m[2], o.cents)
			}
			if o.refunded {
				m[4]++
			}
		}
	}
	randomOrders := func() []xrOrder {
		if rng.IntN(3) != 0 {
			return nil
		}
		o := xrOrder{currency: []string{"USD", "USD", "EUR"}[rng.IntN(3)], cents: int64(1000 + rng.IntN(9000)),
			cancelled: rng.IntN(6) == 0, refunded: rng.IntN(6) == 0}
		return []xrOrder{o}
	}
	addVisitors := func(n int, prefix string) {
		for i := range n {
			arm := rng.IntN(2)
			a := truth[arm]
			at := start.Add(time.Duration(rng.IntN(60)) * time.Hour)
			v := f.visitor(fmt.Sprint(prefix, i), at)
			consent := rng.IntN(2) == 0
			cart, chk, orders := rng.IntN(2) == 0, rng.IntN(3) == 0, randomOrders()
			exposure := f.session(v, at, false, &consent, cart, chk, orders...)
			if _, err := e.DB.ExecContext(ctx, `INSERT INTO experiment_exposures (store_id, experiment_id, variant_id, visitor_id, session_id, exposed_at)
				VALUES (?, ?, ?, ?, ?, ?)`, s.ID, id, arms[arm], v, exposure, at); err != nil {
				t.Fatal(err)
			}
			a.exposed++
			a.sessions++
			counted++
			if consent {
				consented++
			}
			added, reached, converted, returned := cart, chk, len(orders) > 0, false
			addOrders(a, orders)
			paid += int64(len(orders))
			matched += int64(len(orders))
			if cart {
				carts++
			}
			// A session in the pause: left out but for excluded_in_pauses
			// and its cart.
			if rng.IntN(2) == 0 {
				o := randomOrders()
				f.session(v, pauseFrom.Add(time.Duration(rng.IntN(20))*time.Hour), false, nil, true, false, o...)
				excluded++
				carts++
				differs++
				paid += int64(len(o))
				matched += int64(len(o))
			}
			// A later session.
			if rng.IntN(2) == 0 {
				o := randomOrders()
				later := pauseTo.Add(time.Duration(rng.IntN(100)) * time.Hour)
				c := rng.IntN(2) == 0
				f.session(v, later, false, nil, c, false, o...)
				a.sessions++
				counted++
				added, returned, converted = added || c, true, converted || len(o) > 0
				addOrders(a, o)
				paid += int64(len(o))
				matched += int64(len(o))
				if c {
					carts++
					differs++
				}
			}
			// A bot session: in no figure (its order is not a storefront
			// order of a human, but paid orders count it).
			if rng.IntN(4) == 0 {
				o := []xrOrder{{currency: "USD", cents: 5000}}
				f.session(v, pauseTo.Add(time.Hour), true, nil, false, true, o...)
				paid++
				matched++
			}
			if added {
				a.added++
			}
			if reached {
				a.checkout++
			}
			if converted {
				a.converted++
			}
			if returned {
				a.returned++
			}
		}
	}
	addVisitors(60, "v")
	// A visitor never exposed, with a paid order: paid, not matched.
	f.session(f.visitor("stranger", start), start.Add(time.Hour), false, nil, false, false, xrOrder{currency: "USD", cents: 700})
	paid++

	rep := xrReport(t, e, key, id)
	count := countStatements(e)
	statements := count(func() { xrReport(t, e, key, id) })
	for i, a := range xrArms(t, rep) {
		w := truth[i]
		got := [6]int64{wholeNumber(t, a["exposed"]), wholeNumber(t, a["sessions"]), wholeNumber(t, a["added"]),
			wholeNumber(t, a["checkout"]), wholeNumber(t, a["converted"]), 0}
		want := [6]int64{w.exposed, w.sessions, w.added, w.checkout, w.converted, 0}
		if got != want || !xrClose(a["return_share"].(float64), float64(w.returned)/float64(w.exposed)) {
			t.Fatalf("arm %d: got %v return_share %v, want %v returned %d", i+1, got, a["return_share"], want, w.returned)
		}
		money := objectsOf(a["money"])
		if len(money) != len(w.money) {
			t.Fatalf("arm %d money: %v, want %d currencies", i+1, money, len(w.money))
		}
		for _, m := range money {
			c := w.money[m["currency"].(string)]
			g := [5]int64{wholeNumber(t, m["orders"]), wholeNumber(t, m["revenue_cents"]), wholeNumber(t, m["largest_order_cents"]),
				wholeNumber(t, m["cancelled_orders"]), wholeNumber(t, m["refunded_orders"])}
			if c == nil || g != *c || !xrClose(m["revenue_per_session_cents"].(float64), float64(c[1])/float64(w.sessions)) ||
				!xrClose(m["revenue_per_session_without_largest_cents"].(float64), float64(c[1]-c[2])/float64(w.sessions)) {
				t.Fatalf("arm %d %v: %v, want %v", i+1, m["currency"], m, c)
			}
			if m["currency"] == "USD" && !xrClose(a["metric_rate"].(float64), float64(c[1])/float64(w.sessions)) {
				t.Fatalf("arm %d metric_rate %v, want USD revenue per session", i+1, a["metric_rate"])
			}
		}
	}
	g := rep["guardrails"].(map[string]any)
	if wholeNumber(t, g["excluded_in_pauses"]) != excluded || g["banner"] != true ||
		!xrClose(g["consent_coverage"].(float64), float64(consented)/float64(counted)) ||
		wholeNumber(t, g["paid_orders"]) != paid || wholeNumber(t, g["matched_orders"]) != matched ||
		!xrClose(g["cart_session_differs"].(float64), float64(differs)/float64(carts)) {
		t.Fatalf("guardrails %v, want excluded %d consent %d/%d paid %d matched %d carts %d/%d", g, excluded, consented, counted, paid, matched, differs, carts)
	}
	var kinds []string
	for _, m := range objectsOf(rep["timeline"]) {
		kinds = append(kinds, m["kind"].(string))
	}
	if fmt.Sprint(kinds) != "[started paused resumed]" || len(objectsOf(rep["comparisons"])) != 1 {
		t.Fatalf("timeline %v, comparisons %v", kinds, rep["comparisons"])
	}

	// Twice the rows, the same statements.
	addVisitors(60, "w")
	if again := count(func() { xrReport(t, e, key, id) }); again != statements {
		t.Fatalf("statements grew with rows: %d, then %d", statements, again)
	}
}
