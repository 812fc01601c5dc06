package analytics

import (
	"context"
	"fmt"
	"net/url"
	"strconv"
	"time"

	"github.com/uptrace/bun"
)

// The finders: one statement each over the raw rows of the store, read
// through indexes that start with store_id (sessions by first_seen_at,
// events by occurred_at, payment attempts and orders by created_at).

// insightsFind runs every finder for day (a local midnight: the windows
// are local days ending with it).
func insightsFind(ctx context.Context, db bun.IDB, storeID int64, day time.Time) ([]insightsRow, error) {
	var out []insightsRow
	for _, find := range []func(context.Context, bun.IDB, int64, time.Time) ([]insightsRow, error){
		insightsLandingPages, insightsProducts, insightsPaymentMethods, insightsDiscounts,
	} {
		rows, err := find(ctx, db, storeID, day)
		if err != nil {
			return nil, err
		}
		out = append(out, rows...)
	}
	return out, nil
}

// insightsDays are the local days from day+first to day+last, both
// included, as instants, with their first and last dates.
func insightsDays(day time.Time, first, last int) (span Span, from, to string) {
	a, b := day.AddDate(0, 0, first), day.AddDate(0, 0, last)
	return Span{From: a, To: day.AddDate(0, 0, last+1)}, a.Format(time.DateOnly), b.Format(time.DateOnly)
}

// insightsEvidence is the API path that lists a finding's evidence.
func insightsEvidence(path string, query url.Values) *string {
	s := "/api/v1" + path + "?" + query.Encode()
	return &s
}

func insightsText(s string) *string { return &s }

// insightsLandingPages: landing pages whose conversion (sessions that
// placed an order, bots left out: the sessions list's definitions) fell
// from the previous 7 days to the last 7.
func insightsLandingPages(ctx context.Context, db bun.IDB, storeID int64, day time.Time) ([]insightsRow, error) {
	cur, curFrom, curTo := insightsDays(day, 1-insightsWeekDays, 0)
	prev, prevFrom, prevTo := insightsDays(day, 1-2*insightsWeekDays, -insightsWeekDays)
	var pages []struct {
		Path                                             string
		Sessions, Converted, PrevSessions, PrevConverted int64
	}
	err := db.NewRaw(`SELECT s.landing_path AS path,
			count(*) FILTER (WHERE s.first_seen_at >= ?2) AS sessions,
			count(*) FILTER (WHERE s.first_seen_at >= ?2 AND ord.converted) AS converted,
			count(*) FILTER (WHERE s.first_seen_at < ?2) AS prev_sessions,
			count(*) FILTER (WHERE s.first_seen_at < ?2 AND ord.converted) AS prev_converted
		FROM storefront_sessions AS s
		CROSS JOIN LATERAL (SELECT EXISTS (SELECT 1 FROM orders AS o WHERE o.store_id = s.store_id AND o.session_id = s.id) AS converted) AS ord
		WHERE s.store_id = ?0 AND s.first_seen_at >= ?1 AND s.first_seen_at < ?3 AND NOT s.is_bot AND s.landing_path IS NOT NULL
		GROUP BY s.landing_path
		HAVING count(*) FILTER (WHERE s.first_seen_at >= ?2) >= ?4 AND count(*) FILTER (WHERE s.first_seen_at < ?2) >= ?4
		ORDER BY s.landing_path`,
		storeID, prev.From, cur.From, cur.To, InsightsMinSessions).Scan(ctx, &pages)
	if err != nil {
		return nil, err
	}
	var out []insightsRow
	for _, pg := range pages {
		t, ok := insightsSignificant(pg.Converted, pg.Sessions, pg.PrevConverted, pg.PrevSessions, InsightsMinSessions, false)
		if !ok {
			continue
		}
		m := t.figures("sessions", "converted_sessions", "conversion_rate", "previous")
		m["window"] = map[string]any{"from": curFrom, "to": curTo}
		m["previous_window"] = map[string]any{"from": prevFrom, "to": prevTo}
		out = append(out, insightsRow{
			Kind: InsightLandingPageConversionDrop, SubjectKey: pg.Path,
			SubjectType: insightsText("landing_page"), SubjectLabel: insightsText(pg.Path),
			Headline: fmt.Sprintf("Conversion of visits landing on %s fell from %s to %s week over week",
				pg.Path, insightsPct(pg.PrevConverted, pg.PrevSessions), insightsPct(pg.Converted, pg.Sessions)),
			Detail: insightsText(fmt.Sprintf("%d of the %d visits that landed on %s from %s to %s placed an order (%s), against %d of %d from %s to %s (%s); %s.",
				pg.Converted, pg.Sessions, pg.Path, curFrom, curTo, insightsPct(pg.Converted, pg.Sessions),
				pg.PrevConverted, pg.PrevSessions, prevFrom, prevTo, insightsPct(pg.PrevConverted, pg.PrevSessions), t.stat())),
			Action: insightsText("Open the page as a shopper would and check what changed this week: its content, prices, stock, speed on phones, " +
				"and the campaigns and sources that send visitors to it."),
			Metrics: m, SampleSize: pg.Sessions + pg.PrevSessions, Z: t.z,
			EvidenceURL: insightsEvidence("/store/sessions", url.Values{"landing_path": {pg.Path}, "from": {prevFrom}, "to": {curTo}}),
		})
	}
	return out, nil
}

// insightsProducts: products whose viewers added them to a cart less than
// the viewers of the store's other products did theirs, over the last 7
// days. A trial is a session that viewed the product (a visitor reloading
// a page is one trial, not three), a success one that also added that
// product to a cart; bots are left out.
func insightsProducts(ctx context.Context, db bun.IDB, storeID int64, day time.Time) ([]insightsRow, error) {
	cur, curFrom, curTo := insightsDays(day, 1-insightsWeekDays, 0)
	var products []struct {
		ProductID      int64
		Title          string
		Viewed, Carted int64
	}
	err := db.NewRaw(`SELECT pv.product_id, coalesce(p.title, max(pv.title), '#' || pv.product_id) AS title,
			count(*) AS viewed, count(*) FILTER (WHERE pv.carted) AS carted
		FROM (SELECT e.session_id, e.product_id, max(e.product_title) AS title, bool_or(e.name = 'add_to_cart') AS carted
			FROM storefront_events AS e JOIN storefront_sessions AS s ON s.id = e.session_id
			WHERE e.store_id = ?0 AND e.occurred_at >= ?1 AND e.occurred_at < ?2 AND e.name IN ('product_view', 'add_to_cart')
				AND e.product_id IS NOT NULL AND NOT s.is_bot
			GROUP BY e.session_id, e.product_id
			HAVING bool_or(e.name = 'product_view')) AS pv
		LEFT JOIN products AS p ON p.id = pv.product_id AND p.store_id = ?0
		GROUP BY pv.product_id, p.title
		ORDER BY pv.product_id`, storeID, cur.From, cur.To).Scan(ctx, &products)
	if err != nil {
		return nil, err
	}
	var viewed, carted int64
	for _, p := range products {
		viewed, carted = viewed+p.Viewed, carted+p.Carted
	}
	var out []insightsRow
	for _, p := range products {
		t, ok := insightsSignificant(p.Carted, p.Viewed, carted-p.Carted, viewed-p.Viewed, InsightsMinViews, false)
		if !ok {
			continue
		}
		m := t.figures("viewing_sessions", "carting_sessions", "view_to_cart_rate", "other_products")
		m["window"] = map[string]any{"from": curFrom, "to": curTo}
		out = append(out, insightsRow{
			Kind: InsightProductViewsWithoutCarts, SubjectKey: strconv.FormatInt(p.ProductID, 10),
			SubjectType: insightsText("product"), SubjectID: &p.ProductID, SubjectLabel: insightsText(p.Title),
			Headline: fmt.Sprintf("%s is viewed often but rarely added to a cart: %s of its viewers, against %s for the store's other products",
				p.Title, insightsPct(p.Carted, p.Viewed), insightsPct(carted-p.Carted, viewed-p.Viewed)),
			Detail: insightsText(fmt.Sprintf("%d visits viewed %s from %s to %s and %d of them added it to a cart (%s); visits that viewed the store's other products added those in %d of %d views (%s); %s.",
				p.Viewed, p.Title, curFrom, curTo, p.Carted, insightsPct(p.Carted, p.Viewed),
				carted-p.Carted, viewed-p.Viewed, insightsPct(carted-p.Carted, viewed-p.Viewed), t.stat())),
			Action: insightsText("Review what its page tells a shopper: the price against similar products, the photos, the description, " +
				"the sizes or variants in stock, and the shipping cost shown."),
			Metrics: m, SampleSize: p.Viewed, Z: t.z,
			EvidenceURL: insightsEvidence("/store/sessions", url.Values{"group_by": {"product"}, "from": {curFrom}, "to": {curTo}}),
		})
	}
	return out, nil
}

// insightsPaymentMethods: payment methods whose failure rate (attempts
// that failed or errored, of all attempts: checkout_payment_attempts) rose
// from the previous 7 days to the last 7.
func insightsPaymentMethods(ctx context.Context, db bun.IDB, storeID int64, day time.Time) ([]insightsRow, error) {
	cur, curFrom, curTo := insightsDays(day, 1-insightsWeekDays, 0)
	prev, prevFrom, prevTo := insightsDays(day, 1-2*insightsWeekDays, -insightsWeekDays)
	var methods []struct {
		Method                                     string
		Attempts, Failed, PrevAttempts, PrevFailed int64
	}
	err := db.NewRaw(`SELECT a.payment_method AS method,
			count(*) FILTER (WHERE a.created_at >= ?2) AS attempts,
			count(*) FILTER (WHERE a.created_at >= ?2 AND a.status IN ('failure', 'error')) AS failed,
			count(*) FILTER (WHERE a.created_at < ?2) AS prev_attempts,
			count(*) FILTER (WHERE a.created_at < ?2 AND a.status IN ('failure', 'error')) AS prev_failed
		FROM checkout_payment_attempts AS a
		WHERE a.store_id = ?0 AND a.created_at >= ?1 AND a.created_at < ?3 AND a.payment_method <> ''
		GROUP BY a.payment_method
		HAVING count(*) FILTER (WHERE a.created_at >= ?2) >= ?4 AND count(*) FILTER (WHERE a.created_at < ?2) >= ?4
		ORDER BY a.payment_method`,
		storeID, prev.From, cur.From, cur.To, InsightsMinAttempts).Scan(ctx, &methods)
	if err != nil {
		return nil, err
	}
	var out []insightsRow
	for _, pm := range methods {
		t, ok := insightsSignificant(pm.Failed, pm.Attempts, pm.PrevFailed, pm.PrevAttempts, InsightsMinAttempts, true)
		if !ok {
			continue
		}
		m := t.figures("attempts", "failed_attempts", "failure_rate", "previous")
		m["window"] = map[string]any{"from": curFrom, "to": curTo}
		m["previous_window"] = map[string]any{"from": prevFrom, "to": prevTo}
		out = append(out, insightsRow{
			Kind: InsightPaymentMethodFailureRising, SubjectKey: pm.Method,
			SubjectType: insightsText("payment_method"), SubjectLabel: insightsText(pm.Method),
			Headline: fmt.Sprintf("Failed %s payments rose from %s to %s of attempts week over week",
				pm.Method, insightsPct(pm.PrevFailed, pm.PrevAttempts), insightsPct(pm.Failed, pm.Attempts)),
			Detail: insightsText(fmt.Sprintf("%d of %d %s payment attempts failed from %s to %s (%s), against %d of %d from %s to %s (%s); %s.",
				pm.Failed, pm.Attempts, pm.Method, curFrom, curTo, insightsPct(pm.Failed, pm.Attempts),
				pm.PrevFailed, pm.PrevAttempts, prevFrom, prevTo, insightsPct(pm.PrevFailed, pm.PrevAttempts), t.stat())),
			Action: insightsText("Read the error codes of the failed attempts and the payment provider's dashboard: a changed setting, " +
				"a stricter risk rule or 3-D Secure step, or an outage at the provider."),
			Metrics: m, SampleSize: pm.Attempts + pm.PrevAttempts, Z: t.z,
			EvidenceURL: insightsEvidence("/store/abandoned-checkouts", url.Values{"state": {"payment_failed"}, "from": {curFrom},
				"to": {day.AddDate(0, 0, 1).Format(time.DateOnly)}}),
		})
	}
	return out, nil
}

// insightsDiscounts: discount codes whose customers come back less than
// the store's other customers. Each customer who placed a counted order in
// the last 90 days is placed by the first of them: won with the code that
// order used (or none); they came back when they ordered again in the
// window after it. A code's customers are tested against all the others.
func insightsDiscounts(ctx context.Context, db bun.IDB, storeID int64, day time.Time) ([]insightsRow, error) {
	win, from, to := insightsDays(day, 1-insightsDiscountDays, 0)
	var codes []struct {
		Code, Label         string
		DiscountID          *int64
		Customers, Returned int64
	}
	err := db.NewRaw(`SELECT c.code, coalesce(min(d.code), min(c.written)) AS label, min(d.id) AS discount_id,
			count(*) AS customers, count(*) FILTER (WHERE c.orders > 1) AS returned
		FROM (SELECT lower(f.code) AS code, f.code AS written, f.orders
			FROM (SELECT o.customer_id, (array_agg(o.discount_code ORDER BY o.created_at, o.id))[1] AS code, count(*) AS orders
				FROM orders AS o
				WHERE o.store_id = ?0 AND o.created_at >= ?1 AND o.created_at < ?2 AND o.customer_id IS NOT NULL AND `+CountedOrder+`
				GROUP BY o.customer_id) AS f) AS c
		LEFT JOIN discounts AS d ON d.store_id = ?0 AND lower(d.code) = c.code AND c.code <> ''
		GROUP BY c.code
		ORDER BY c.code`, storeID, win.From, win.To).Scan(ctx, &codes)
	if err != nil {
		return nil, err
	}
	var customers, returned int64
	for _, c := range codes {
		customers, returned = customers+c.Customers, returned+c.Returned
	}
	var out []insightsRow
	for _, c := range codes {
		if c.Code == "" {
			continue
		}
		t, ok := insightsSignificant(c.Returned, c.Customers, returned-c.Returned, customers-c.Customers, InsightsMinCustomers, false)
		if !ok {
			continue
		}
		m := t.figures("customers", "returning_customers", "return_rate", "other")
		m["window"] = map[string]any{"from": from, "to": to}
		out = append(out, insightsRow{
			Kind: InsightDiscountOneTimeBuyers, SubjectKey: c.Code,
			SubjectType: insightsText("discount"), SubjectID: c.DiscountID, SubjectLabel: insightsText(c.Label),
			Headline: fmt.Sprintf("Customers won with code %s rarely order again: %s did, against %s of the store's other customers",
				c.Label, insightsPct(c.Returned, c.Customers), insightsPct(returned-c.Returned, customers-c.Customers)),
			Detail: insightsText(fmt.Sprintf("Of the %d customers whose first order from %s to %s used %s, %d ordered again afterwards (%s); of the store's %d other customers of those days, %d did (%s); %s.",
				c.Customers, from, to, c.Label, c.Returned, insightsPct(c.Returned, c.Customers),
				customers-c.Customers, returned-c.Returned, insightsPct(returned-c.Returned, customers-c.Customers), t.stat())),
			Action: insightsText("The code buys one-time orders: limit it to first orders above a minimum, shorten it, or follow its " +
				"buyers up with an offer on their second order."),
			Metrics: m, SampleSize: c.Customers, Z: t.z,
			EvidenceURL: insightsEvidence("/store/analytics", url.Values{"from": {from}, "to": {to}}),
		})
	}
	return out, nil
}
