package benchdata

import (
	"context"
	"fmt"
	"log/slog"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"time"

	"storeadmin/models"
)

// Storefront traffic: visitors and their sessions over Span, denser as now
// nears. Some visitors return (one to five sessions); a share of the
// sessions are bots'; they land on every kind of page (products most),
// some with UTM parameters. A session's steps are written as the rows
// that say them, so the triggers' columns and the check agree: an
// add_to_cart event for a carted session, a checkout_step event for one
// that reached checkout, and orders.session_id for one that converted.
// With --orders, a fifth of the orders are each bought in a session that
// began up to half an hour before them (carted and checked out too).
// Page views are counted on the session, not copied as events.

// batchSessions is how many sessions are generated and copied at a time.
const batchSessions = 50_000

var (
	sessionColumns = []string{"id", "store_id", "session_key", "visitor_id", "first_seen_at", "last_seen_at", "landing_path",
		"referrer", "utm", "browser", "os", "device", "is_bot", "country", "page_views", "events",
		"carted", "reached_checkout", "orders", "revenue_cents", "prev_seen_at", "prev_landing_seen_at"}
	visitorColumns      = []string{"id", "store_id", "anon_id", "first_seen_at", "last_seen_at"}
	sessionEventColumns = []string{"store_id", "session_id", "visitor_id", "client_event_id", "name", "occurred_at", "path"}
	// Landing pages: home, a product, a collection, a page, an article,
	// search, another page, none (not set).
	landingWeights = []float64{22, 45, 10, 3, 5, 4, 3, 8}
	returnWeights  = []float64{65, 20, 8, 4, 3} // one to five sessions
	utmSources     = []string{"google", "facebook", "instagram", "newsletter", "tiktok"}
	sessionDevices = []struct{ device, browser, os string }{{"desktop", "Chrome", "Windows"}, {"mobile", "Safari", "iOS"},
		{"mobile", "Chrome", "Android"}, {"desktop", "Safari", "macOS"}, {"tablet", "Safari", "iPadOS"}}
	sessionCountries = []string{"US", "US", "US", "CA", "GB", "DE", "FR", "AU"}
)

// visit is one session as the generator plans it.
type visit struct {
	at      time.Time
	landing *string
	bot     bool
	carted  bool
	checked bool
	order   int64 // the order it placed (0: none) and its total
	total   int64
}

// sessions copies n sessions of about n/1.6 visitors.
func (w *writer) sessions(ctx context.Context, rng *rand.Rand, n int, now time.Time, log *slog.Logger) error {
	handles, err := w.handles(ctx)
	if err != nil {
		return err
	}
	// The orders bought in a session: a fifth of the store's, at random.
	var bought []struct {
		id, total int64
		at        time.Time
	}
	rows, err := w.tx.Query(ctx, "SELECT id, total_cents, created_at FROM orders WHERE store_id = $1 AND session_id IS NULL AND id % 5 = 0 ORDER BY id", w.storeID)
	if err != nil {
		return err
	}
	for rows.Next() {
		var b struct {
			id, total int64
			at        time.Time
		}
		if err := rows.Scan(&b.id, &b.total, &b.at); err != nil {
			return err
		}
		bought = append(bought, b)
	}
	if err := rows.Err(); err != nil {
		return err
	}
	bought = bought[:min(len(bought), n/2)]
	buyRate := 1.7 * float64(len(bought)) / float64(n)
	start := now.Add(-Span)
	when := func() time.Time { // denser as now nears, as the orders
		return start.Add(time.Duration(math.Sqrt(rng.Float64()) * float64(Span-time.Hour))).Truncate(time.Microsecond)
	}
	landing := func() *string {
		var p string
		switch weighted(rng, landingWeights) {
		case 0:
			p = "/"
		case 1:
			p = models.ProductPath(handles[min(len(handles)-1, int(float64(len(handles))*math.Pow(rng.Float64(), 2)))])
		case 2:
			p = models.CollectionPath("collection-" + strconv.Itoa(rng.IntN(40)))
		case 3:
			p = models.PagePath(pick(rng, []string{"about", "contact", "shipping", "faq"}))
		case 4:
			p = models.ArticlePath("article-" + strconv.Itoa(rng.IntN(200)))
		case 5:
			p = models.PathSearch
		case 6:
			p = pick(rng, []string{"/cart", "/account", "/blog"})
		default:
			return nil
		}
		return &p
	}
	made, visitorNo := 0, 0
	for made < n {
		var visitors [][]visit
		size := 0
		for size < batchSessions && made+size < n {
			k := min(weighted(rng, returnWeights)+1, n-made-size)
			first := when()
			vs := make([]visit, k)
			bot := rng.IntN(25) == 0
			until := first.Add(60 * 24 * time.Hour) // a returning visitor comes back within two months
			if until.After(now) {
				until = now
			}
			for i := range vs {
				vs[i] = visit{at: between(rng, first, until).Truncate(time.Microsecond), landing: landing(), bot: bot}
				if i == 0 {
					vs[i].at = first
				}
				if !bot {
					vs[i].carted = rng.IntN(10) == 0
					vs[i].checked = vs[i].carted && rng.IntN(3) == 0
				}
			}
			// Most bought orders find a visitor (1.6 sessions each),
			// at random, so converted sessions spread over the two years.
			if !bot && len(bought) > 0 && rng.Float64() < buyRate {
				i := rng.IntN(len(bought))
				b := bought[i]
				bought[i] = bought[len(bought)-1]
				bought = bought[:len(bought)-1]
				last := &vs[k-1]
				last.at = b.at.Add(-time.Duration(1+rng.IntN(30)) * time.Minute)
				last.carted, last.checked, last.order, last.total = true, true, b.id, b.total
			}
			slices.SortFunc(vs, func(a, b visit) int { return a.at.Compare(b.at) })
			visitors = append(visitors, vs)
			size += k
		}
		if err := w.copySessions(ctx, rng, visitors, size, visitorNo); err != nil {
			return err
		}
		if made == 0 {
			// Statistics of the first batch, so the triggers' reads of the
			// sessions and events are planned by index as they grow.
			if _, err := w.tx.Exec(ctx, "ANALYZE storefront_sessions, storefront_events, visitors, orders"); err != nil {
				return err
			}
		}
		made += size
		visitorNo += len(visitors)
		log.Info("sessions", "copied", made, "of", n)
	}
	return nil
}

// handles are the store's product handles, the landing pages of product
// views (made up when it has none).
func (w *writer) handles(ctx context.Context) ([]string, error) {
	rows, err := w.tx.Query(ctx, "SELECT handle FROM products WHERE store_id = $1 ORDER BY id LIMIT 5000", w.storeID)
	if err != nil {
		return nil, err
	}
	var out []string
	for rows.Next() {
		var h string
		if err := rows.Scan(&h); err != nil {
			return nil, err
		}
		out = append(out, h)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	for i := 0; len(out) == 0 && i < 500; i++ {
		out = append(out, "product-"+strconv.Itoa(i))
	}
	if len(out) == 0 {
		out = []string{"product-0"}
	}
	return out, nil
}

// copySessions copies a batch of visitors with their sessions (size in
// all), the step events, and links the orders they placed.
func (w *writer) copySessions(ctx context.Context, rng *rand.Rand, visitors [][]visit, size, visitorNo int) error {
	visitorIDs, err := w.ids(ctx, "visitors", len(visitors))
	if err != nil {
		return err
	}
	sessionIDs, err := w.ids(ctx, "storefront_sessions", size)
	if err != nil {
		return err
	}
	vrows := make([][]any, 0, len(visitors))
	srows := make([][]any, 0, size)
	var erows, links [][]any
	for i, vs := range visitors {
		vid := visitorIDs[i]
		vrows = append(vrows, []any{vid, w.storeID, fmt.Sprintf("bench-%d-%d", w.storeID, visitorNo+i), vs[0].at, vs[len(vs)-1].at.Add(10 * time.Minute)})
		var prev *time.Time
		prevLanding := map[string]*time.Time{}
		for _, v := range vs {
			sid := sessionIDs[0]
			sessionIDs = sessionIDs[1:]
			path := ""
			if v.landing != nil {
				path = *v.landing
			}
			var utm map[string]string
			if rng.IntN(3) == 0 {
				utm = map[string]string{"utm_source": pick(rng, utmSources), "utm_medium": "cpc"}
			}
			d := pick(rng, sessionDevices)
			views := 1 + rng.IntN(8)
			events := 0
			if v.carted {
				events++
				erows = append(erows, []any{w.storeID, sid, vid, "bench-" + strconv.FormatInt(sid, 10) + "-cart", "add_to_cart", v.at.Add(3 * time.Minute), v.landing})
			}
			if v.checked {
				events++
				erows = append(erows, []any{w.storeID, sid, vid, "bench-" + strconv.FormatInt(sid, 10) + "-checkout", "checkout_step", v.at.Add(6 * time.Minute), "/checkout"})
			}
			orders := 0
			if v.order != 0 {
				orders = 1
				links = append(links, []any{v.order, sid})
			}
			var pSeen, pLanding *time.Time
			if !v.bot {
				pSeen, pLanding = prev, prevLanding[path]
			}
			srows = append(srows, []any{sid, w.storeID, "bs_" + strconv.FormatInt(sid, 10), vid, v.at, v.at.Add(time.Duration(views) * time.Minute), v.landing,
				"https://www.google.com/", utm, d.browser, d.os, d.device, v.bot, pick(rng, sessionCountries), views, views + events,
				v.carted, v.checked, orders, v.total, pSeen, pLanding})
			if !v.bot {
				at := v.at
				prev, prevLanding[path] = &at, &at
			}
		}
	}
	// Each step's trigger recomputes the steps of the sessions it touches
	// from the rows there are: the step events go before their sessions
	// (which the triggers then find already as they say) when the foreign
	// keys allow it, else after, and the orders' links last.
	tables := []struct {
		name    string
		columns []string
		rows    [][]any
	}{{"visitors", visitorColumns, vrows}, {"storefront_events", sessionEventColumns, erows}, {"storefront_sessions", sessionColumns, srows}}
	if !w.unchecked {
		tables[1], tables[2] = tables[2], tables[1]
	}
	for _, t := range tables {
		if err := w.copy(ctx, t.name, t.columns, t.rows); err != nil {
			return err
		}
	}
	if len(links) == 0 {
		return nil
	}
	// The orders' links, in one statement: the orders' trigger finds the
	// sessions' steps already as they say.
	if _, err := w.tx.Exec(ctx, "CREATE TEMP TABLE IF NOT EXISTS bench_order_sessions (order_id bigint, session_id bigint) ON COMMIT DROP"); err != nil {
		return err
	}
	if _, err := w.tx.Exec(ctx, "TRUNCATE bench_order_sessions"); err != nil {
		return err
	}
	if err := w.copy(ctx, "bench_order_sessions", []string{"order_id", "session_id"}, links); err != nil {
		return err
	}
	_, err = w.tx.Exec(ctx, "UPDATE orders o SET session_id = b.session_id FROM bench_order_sessions b WHERE o.id = b.order_id")
	return err
}
