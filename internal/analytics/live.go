package analytics

import (
	"context"
	"database/sql"
	"time"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/pgdialect"
)

// The live view's bounds.
const (
	// LiveWindow is how far back "now" reaches: a visitor is on the
	// storefront now when a session of theirs was seen in it.
	LiveWindow = 5 * time.Minute
	// LiveTopProducts is how many of today's best sellers it shows.
	LiveTopProducts = 5
	// LiveLocations is how many of today's places it shows.
	LiveLocations = 20
	// LivePins bounds each list of pins (visitors now, today's orders),
	// the busiest places first, so a map's answer stays small on any store.
	LivePins = 500
)

// LiveOptions are what the live view needs besides the store.
type LiveOptions struct {
	// Now is the instant the view is of.
	Now time.Time
	// Loc is the store's time zone: today is its day of Now.
	Loc *time.Location
	// GeoEnabled says the server's geo database gives coordinates
	// (geoip.DB.Locates). Without one the pins are empty: coordinates a
	// session kept from an earlier database are not shown as if current.
	GeoEnabled bool
}

// Live is the store at now: who is on the storefront in the last
// LiveWindow and what they are doing, and today so far (from the store's
// midnight) against yesterday up to the same wall-clock time. Today's
// sales, orders, customers and best sellers are the shared definitions
// (OrderMetrics, Customers, TopProducts); every statement reads minutes or
// two days through an index that starts with the store, so its cost does
// not grow with the store's history. They run in one read-only snapshot,
// so the figures agree with each other.
func Live(ctx context.Context, db bun.IDB, storeID int64, o LiveOptions) (*LiveviewView, error) {
	loc := o.Loc
	if loc == nil {
		loc = time.UTC
	}
	now := o.Now.In(loc)
	days := liveDaysOf(now)
	v := &LiveviewView{
		Now:        now.Format(time.RFC3339),
		Timezone:   loc.String(),
		GeoEnabled: o.GeoEnabled,
		Presence: LiveviewPresence{
			WindowSeconds: int64(LiveWindow / time.Second),
			Behavior:      LiveviewBehavior{WindowSeconds: int64(LiveWindow / time.Second)},
			Pins:          []LiveviewPin{},
		},
		Today: LiveviewToday{
			From:      days.today.From.Format(time.RFC3339),
			To:        now.Format(time.RFC3339),
			OrderPins: []LiveviewPin{},
		},
	}
	opts := &sql.TxOptions{Isolation: sql.LevelRepeatableRead, ReadOnly: true}
	err := db.RunInTx(ctx, opts, func(ctx context.Context, tx bun.Tx) error {
		if err := livePresence(ctx, tx, storeID, now, v); err != nil {
			return err
		}
		if err := liveSales(ctx, tx, storeID, days, &v.Today); err != nil {
			return err
		}
		if err := liveSessions(ctx, tx, storeID, days, &v.Today.Sessions); err != nil {
			return err
		}
		var err error
		if v.Today.Customers, err = Customers(ctx, tx, storeID, days.today); err != nil {
			return err
		}
		if v.Today.TopProducts, err = TopProducts(ctx, tx, storeID, days.today, LiveTopProducts); err != nil {
			return err
		}
		if v.Today.Locations, err = liveLocations(ctx, tx, storeID, days.today); err != nil {
			return err
		}
		if !o.GeoEnabled {
			return nil
		}
		if v.Presence.Pins, err = liveVisitorPins(ctx, tx, storeID, now.Add(-LiveWindow)); err != nil {
			return err
		}
		v.Today.OrderPins, err = liveOrderPins(ctx, tx, storeID, days.today)
		return err
	})
	if err != nil {
		return nil, err
	}
	return v, nil
}

// liveDays are the spans the live view compares.
type liveDays struct {
	// today is from today's midnight to now; yesterday from yesterday's
	// midnight to the same wall-clock time yesterday (a DST change
	// between makes them differ in length: yesterday may have had an hour
	// more or less before that time).
	today, yesterday Span
	// hours are today's local hours so far, the last one cut at now: the
	// sparklines' points (a day clocks fall back on has two 01:00 hours,
	// and one clocks spring forward on has no 02:00).
	hours []Bucket
}

// liveDaysOf is the live view's spans at now (in the store's time zone).
// A wall-clock time yesterday that is ambiguous (the repeated hour of a
// night clocks fall back) is the first of the two instants; one that did
// not exist (the skipped hour) is time.Date's normalisation.
func liveDaysOf(now time.Time) liveDays {
	today := Span{From: midnight(now), To: now}
	y, m, d := now.Date()
	sameTime := time.Date(y, m, d-1, now.Hour(), now.Minute(), now.Second(), now.Nanosecond(), now.Location())
	yesterday := Span{From: midnight(today.From.Add(-time.Nanosecond)), To: minTime(sameTime, today.From)}
	hours := Window{Span: today, Interval: Hour, Loc: now.Location()}.Buckets()
	if len(hours) == 0 { // now is midnight itself: the day's first hour has begun
		hours = []Bucket{{Span: today, Label: today.From.Format(time.RFC3339)}}
	}
	return liveDays{today: today, yesterday: yesterday, hours: hours}
}

// liveHourStarts are the hours' starts, the thresholds width_bucket sorts
// instants of today into (1 is the first hour).
func liveHourStarts(hours []Bucket) []time.Time {
	starts := make([]time.Time, len(hours))
	for i, h := range hours {
		starts[i] = h.From
	}
	return starts
}

// livePresence reads the store's currency and who is on the storefront
// now (bots left out), in one statement: visitors, their sessions with a
// cart holding items or an open checkout, and the orders placed in the
// window (whoever placed them).
func livePresence(ctx context.Context, db bun.IDB, storeID int64, now time.Time, v *LiveviewView) error {
	b := &v.Presence.Behavior
	return db.NewRaw(`WITH present AS (
			SELECT s.id, s.visitor_id FROM storefront_sessions AS s
			WHERE s.store_id = ?0 AND s.last_seen_at >= ?1 AND NOT s.is_bot)
		SELECT (SELECT st.currency FROM stores AS st WHERE st.id = ?0) AS currency,
			(SELECT count(DISTINCT p.visitor_id) FROM present AS p) AS visitors_now,
			(SELECT count(*) FROM present AS p WHERE EXISTS (SELECT 1 FROM carts AS c
				WHERE c.session_id = p.id AND c.store_id = ?0 AND c.item_count > 0)) AS active_carts,
			(SELECT count(*) FROM present AS p WHERE EXISTS (SELECT 1 FROM checkouts AS k
				WHERE k.session_id = p.id AND k.store_id = ?0 AND k.state = 'open')) AS checking_out,
			(SELECT count(*) FROM orders AS o
				WHERE o.store_id = ?0 AND o.created_at >= ?1 AND o.created_at < ?2 AND `+CountedOrder+`) AS purchased`,
		storeID, now.Add(-LiveWindow), now).Scan(ctx, &v.Currency, &v.Presence.VisitorsNow, &b.ActiveCarts, &b.CheckingOut, &b.Purchased)
}

// liveSales fills today's sales (gross) and orders: the figures and
// yesterday's are OrderMetrics'; the sparklines are the same orders per
// hour, in one statement (gross is the orders' subtotal, as OrderMetrics
// sums it; the hours add up to the figure).
func liveSales(ctx context.Context, db bun.IDB, storeID int64, days liveDays, today *LiveviewToday) error {
	cur, err := OrderMetrics(ctx, db, storeID, days.today)
	if err != nil {
		return err
	}
	prev, err := OrderMetrics(ctx, db, storeID, days.yesterday)
	if err != nil {
		return err
	}
	var rows []struct {
		Hour       int
		GrossCents int64
		OrderCount int64
	}
	err = db.NewRaw(`SELECT width_bucket(o.created_at, ?1) AS hour, sum(o.subtotal_cents) AS gross_cents, count(*) AS order_count
		FROM orders AS o
		WHERE o.store_id = ?0 AND o.created_at >= ?2 AND o.created_at < ?3 AND `+CountedOrder+`
		GROUP BY 1`,
		storeID, pgdialect.Array(liveHourStarts(days.hours)), days.today.From, days.today.To).Scan(ctx, &rows)
	if err != nil {
		return err
	}
	sales, orders := make([]int64, len(days.hours)), make([]int64, len(days.hours))
	for _, r := range rows {
		sales[r.Hour-1], orders[r.Hour-1] = r.GrossCents, r.OrderCount
	}
	today.Sales = liveMetric(cur.GrossCents, prev.GrossCents, sales)
	today.Orders = liveMetric(cur.OrderCount, prev.OrderCount, orders)
	return nil
}

// liveSessions fills today's sessions (begun today, bots left out) per
// hour and yesterday's, in one statement: width_bucket sorts a session
// into 1 (yesterday up to the same time), 2 (the rest of yesterday, which
// the statement does not read) or 2 + today's hour.
func liveSessions(ctx context.Context, db bun.IDB, storeID int64, days liveDays, m *LiveviewMetric) error {
	thresholds := append([]time.Time{days.yesterday.From, days.yesterday.To}, liveHourStarts(days.hours)...)
	var rows []struct {
		Bucket   int
		Sessions int64
	}
	err := db.NewRaw(`SELECT width_bucket(s.first_seen_at, ?1) AS bucket, count(*) AS sessions
		FROM storefront_sessions AS s
		WHERE s.store_id = ?0 AND NOT s.is_bot
			AND ((s.first_seen_at >= ?2 AND s.first_seen_at < ?3) OR (s.first_seen_at >= ?4 AND s.first_seen_at < ?5))
		GROUP BY 1`,
		storeID, pgdialect.Array(thresholds), days.yesterday.From, days.yesterday.To, days.today.From, days.today.To).Scan(ctx, &rows)
	if err != nil {
		return err
	}
	var value, yesterday int64
	hours := make([]int64, len(days.hours))
	for _, r := range rows {
		switch {
		case r.Bucket == 1:
			yesterday = r.Sessions
		case r.Bucket > 2:
			hours[r.Bucket-3] = r.Sessions
			value += r.Sessions
		}
	}
	*m = liveMetric(value, yesterday, hours)
	return nil
}

func liveMetric(value, yesterday int64, sparkline []int64) LiveviewMetric {
	return LiveviewMetric{Value: value, Yesterday: yesterday, DeltaPct: DeltaPct(float64(value), float64(yesterday)), Sparkline: sparkline}
}

// liveLocations are today's sessions (bots left out) by country, region
// and city, the most first, at most LiveLocations; sessions of no known
// country are in none.
func liveLocations(ctx context.Context, db bun.IDB, storeID int64, today Span) ([]LiveviewLocationStat, error) {
	out := []LiveviewLocationStat{}
	err := db.NewRaw(`SELECT s.country, s.region, s.city, count(*) AS sessions
		FROM storefront_sessions AS s
		WHERE s.store_id = ?0 AND s.first_seen_at >= ?1 AND s.first_seen_at < ?2 AND NOT s.is_bot AND s.country IS NOT NULL
		GROUP BY s.country, s.region, s.city
		ORDER BY sessions DESC, s.country, s.region NULLS FIRST, s.city NULLS FIRST LIMIT ?3`,
		storeID, today.From, today.To, LiveLocations).Scan(ctx, &out)
	return out, err
}

// liveVisitorPins are the visitors seen since since (bots left out) by
// the place of their latest session, for those the geo database placed.
func liveVisitorPins(ctx context.Context, db bun.IDB, storeID int64, since time.Time) ([]LiveviewPin, error) {
	out := []LiveviewPin{}
	err := db.NewRaw(`SELECT 'visitor' AS kind, v.latitude AS lat, v.longitude AS lon, v.country, v.region, v.city, count(*) AS count
		FROM (SELECT DISTINCT ON (s.visitor_id) s.latitude, s.longitude, s.country, s.region, s.city
			FROM storefront_sessions AS s
			WHERE s.store_id = ?0 AND s.last_seen_at >= ?1 AND NOT s.is_bot
			ORDER BY s.visitor_id, s.last_seen_at DESC, s.id DESC) AS v
		WHERE v.latitude IS NOT NULL
		GROUP BY v.latitude, v.longitude, v.country, v.region, v.city
		ORDER BY count DESC, lat, lon, v.country, v.region, v.city LIMIT ?2`,
		storeID, since, LivePins).Scan(ctx, &out)
	return out, err
}

// liveOrderPins are today's orders (counted as OrderMetrics counts them)
// by the place of the session they came from, for those the geo database
// placed: how many and their total (what the shoppers paid).
func liveOrderPins(ctx context.Context, db bun.IDB, storeID int64, today Span) ([]LiveviewPin, error) {
	out := []LiveviewPin{}
	err := db.NewRaw(`SELECT 'order' AS kind, s.latitude AS lat, s.longitude AS lon, s.country, s.region, s.city,
			count(*) AS count, sum(o.total_cents) AS total_cents
		FROM orders AS o JOIN storefront_sessions AS s ON s.id = o.session_id
		WHERE o.store_id = ?0 AND o.created_at >= ?1 AND o.created_at < ?2 AND `+CountedOrder+` AND s.latitude IS NOT NULL
		GROUP BY s.latitude, s.longitude, s.country, s.region, s.city
		ORDER BY count DESC, total_cents DESC, lat, lon, s.country, s.region, s.city LIMIT ?3`,
		storeID, today.From, today.To, LivePins).Scan(ctx, &out)
	return out, err
}
