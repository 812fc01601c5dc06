package models

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/schema"
)

// StagedEvent is one browsing event on its way into storefront_events,
// with what the service learnt of the browser that sent it (user agent,
// address, place). Both ways in stage their events in this shape, and one
// statement (sessionise) turns a staging relation of them into visitors,
// sessions and events: the HTTP batch as a JSON recordset, the import as a
// temporary table filled by COPY.
//
// Nil fields are what the event did not say. UTM, ClickIDs and Detail are
// JSON objects as text.
type StagedEvent struct {
	Ord             int       `json:"ord"` // its place in the batch or file: the first of two copies wins
	ClientEventID   string    `json:"client_event_id"`
	AnonID          string    `json:"anon_id"`
	ClientSessionID string    `json:"client_session_id"`
	Name            string    `json:"name"`
	OccurredAt      time.Time `json:"occurred_at"`
	Path            *string   `json:"path,omitempty"`
	Referrer        *string   `json:"referrer,omitempty"`
	UTM             *string   `json:"utm,omitempty"`
	ClickIDs        *string   `json:"click_ids,omitempty"`
	ProductID       *int64    `json:"product_id,omitempty"`
	VariantID       *int64    `json:"variant_id,omitempty"`
	ProductTitle    *string   `json:"product_title,omitempty"`
	SearchQuery     *string   `json:"search_query,omitempty"`
	ResultCount     *int64    `json:"result_count,omitempty"`
	ElSelector      *string   `json:"el_selector,omitempty"`
	ElText          *string   `json:"el_text,omitempty"`
	DwellMS         *int64    `json:"dwell_ms,omitempty"`
	ScrollPct       *int64    `json:"scroll_pct,omitempty"`
	ValueCents      *int64    `json:"value_cents,omitempty"`
	Currency        *string   `json:"currency,omitempty"`
	Quantity        *int64    `json:"quantity,omitempty"`
	Step            *string   `json:"step,omitempty"`
	CartToken       *string   `json:"cart_token,omitempty"`
	CheckoutToken   *string   `json:"checkout_token,omitempty"`
	Detail          *string   `json:"detail,omitempty"`
	UserAgent       *string   `json:"user_agent,omitempty"`
	Browser         *string   `json:"browser,omitempty"`
	BrowserVersion  *string   `json:"browser_version,omitempty"`
	OS              *string   `json:"os,omitempty"`
	OSVersion       *string   `json:"os_version,omitempty"`
	Device          *string   `json:"device,omitempty"`
	IsBot           bool      `json:"is_bot"`
	IP              *string   `json:"ip,omitempty"`
	Country         *string   `json:"country,omitempty"`
	Region          *string   `json:"region,omitempty"`
	City            *string   `json:"city,omitempty"`
	Latitude        *float64  `json:"latitude,omitempty"` // with Longitude, or neither
	Longitude       *float64  `json:"longitude,omitempty"`
	Language        *string   `json:"language,omitempty"`
	Timezone        *string   `json:"timezone,omitempty"`
	ScreenW         *int64    `json:"screen_w,omitempty"`
	ScreenH         *int64    `json:"screen_h,omitempty"`
	ViewportW       *int64    `json:"viewport_w,omitempty"`
	ViewportH       *int64    `json:"viewport_h,omitempty"`

	// What the events of POST /events say beyond what is stored with
	// them (internal/storefront: experiments_exposures.go): the A/B test an
	// experiment_view saw, whether the browser holds an arm's preview
	// token, the shopper's analytics consent. Never staged.
	Experiment string `json:"-"`
	Preview    bool   `json:"-"`
	Consent    *bool  `json:"-"`
}

// StagingColumns are the staging relation's columns, in StagedEvent's
// order (StagedEvent.Row). The JSON objects and the address are text
// here, cast where they are stored.
var StagingColumns = []string{"ord", "client_event_id", "anon_id", "client_session_id", "name", "occurred_at",
	"path", "referrer", "utm", "click_ids", "product_id", "variant_id", "product_title", "search_query",
	"result_count", "el_selector", "el_text", "dwell_ms", "scroll_pct", "value_cents", "currency", "quantity",
	"step", "cart_token", "checkout_token", "detail", "user_agent", "browser", "browser_version", "os",
	"os_version", "device", "is_bot", "ip", "country", "region", "city", "latitude", "longitude", "language",
	"timezone", "screen_w", "screen_h", "viewport_w", "viewport_h"}

var stagingTypes = map[string]string{"ord": "int", "occurred_at": "timestamptz", "product_id": "bigint",
	"variant_id": "bigint", "result_count": "int", "dwell_ms": "int", "scroll_pct": "smallint",
	"value_cents": "bigint", "quantity": "int", "is_bot": "boolean", "screen_w": "int", "screen_h": "int",
	"viewport_w": "int", "viewport_h": "int", "latitude": "double precision", "longitude": "double precision"}

// stagingDefinition is the column list of the staging relation:
// "ord int, client_event_id text, ...".
var stagingDefinition = func() string {
	defs := make([]string, len(StagingColumns))
	for i, c := range StagingColumns {
		t := stagingTypes[c]
		if t == "" {
			t = "text"
		}
		defs[i] = c + " " + t
	}
	return strings.Join(defs, ", ")
}()

// Row is e's values in StagingColumns' order, for COPY.
func (e *StagedEvent) Row() []any {
	return []any{e.Ord, e.ClientEventID, e.AnonID, e.ClientSessionID, e.Name, e.OccurredAt,
		e.Path, e.Referrer, e.UTM, e.ClickIDs, e.ProductID, e.VariantID, e.ProductTitle, e.SearchQuery,
		e.ResultCount, e.ElSelector, e.ElText, e.DwellMS, e.ScrollPct, e.ValueCents, e.Currency, e.Quantity,
		e.Step, e.CartToken, e.CheckoutToken, e.Detail, e.UserAgent, e.Browser, e.BrowserVersion, e.OS,
		e.OSVersion, e.Device, e.IsBot, e.IP, e.Country, e.Region, e.City, e.Latitude, e.Longitude, e.Language, e.Timezone,
		e.ScreenW, e.ScreenH, e.ViewportW, e.ViewportH}
}

// StagingTable is the temporary table the import COPYs its events into.
const StagingTable = "storefront_staging"

// CreateStagingTable creates StagingTable in tx, dropped at its end.
func CreateStagingTable(ctx context.Context, tx bun.IDB) error {
	_, err := tx.NewRaw("CREATE TEMP TABLE " + StagingTable + " (" + stagingDefinition + ") ON COMMIT DROP").Exec(ctx)
	return err
}

// PrepareBulkIngest sets tx up for sessionising tens of thousands of
// events at once (the import, the seed): the statement's sorts get the
// memory to run in it, and the foreign-key triggers are skipped when tx's
// user is a superuser (as bench-data and pg_restore --disable-triggers
// do), since every reference the statement writes is to a row it wrote or
// looked up in the store a moment before; anyone else's rows are checked.
func PrepareBulkIngest(ctx context.Context, tx bun.Tx) error {
	if _, err := tx.ExecContext(ctx, "SET LOCAL work_mem = '128MB'"); err != nil {
		return err
	}
	var superuser string
	if err := tx.QueryRowContext(ctx, "SHOW is_superuser").Scan(&superuser); err != nil {
		return err
	}
	if superuser == "on" {
		if _, err := tx.ExecContext(ctx, "SET LOCAL session_replication_role = replica"); err != nil {
			return err
		}
	}
	return nil
}

// EndBulkIngest ends what PrepareBulkIngest began, for the rest of tx:
// foreign keys are checked again (a seed that goes on to place orders in
// the same transaction).
func EndBulkIngest(ctx context.Context, tx bun.Tx) error {
	var superuser string
	if err := tx.QueryRowContext(ctx, "SHOW is_superuser").Scan(&superuser); err != nil || superuser != "on" {
		return err
	}
	_, err := tx.ExecContext(ctx, "SET LOCAL session_replication_role = origin")
	return err
}

// Ingested is what one sessionise did.
type Ingested struct {
	// Stored events: new ones. The others were duplicates, of an event
	// already stored or of one earlier in the same batch.
	Stored int `bun:"stored"`
	// NewSessions the stored events started.
	NewSessions int `bun:"new_sessions"`
}

// IngestEvents stores events (an HTTP batch) for the store, in tx: see
// sessionise. The events travel as one JSON parameter, read as a
// recordset.
func IngestEvents(ctx context.Context, tx bun.Tx, storeID int64, events []StagedEvent, idle time.Duration) (Ingested, error) {
	batch, err := json.Marshal(events)
	if err != nil {
		return Ingested{}, err
	}
	source := bun.SafeQuery("jsonb_to_recordset(?::jsonb) AS staged ("+stagingDefinition+")", string(batch))
	return sessionise(ctx, tx, storeID, source, idle)
}

// IngestStaged stores the events of StagingTable, which tx created and
// filled: see sessionise.
func IngestStaged(ctx context.Context, tx bun.Tx, storeID int64, idle time.Duration) (Ingested, error) {
	return sessionise(ctx, tx, storeID, bun.Safe(StagingTable+" AS staged"), idle)
}

// sessionise turns the staged events of source (a relation named staged)
// into visitors, sessions and events of the store, in tx, in two
// statements.
//
// The first creates the visitors first seen here and locks every visitor
// of the batch until tx ends: a concurrent batch of the same visitor waits,
// then sees this one's sessions and events, so that two tabs never open
// two visits, and a retried batch is stored once.
//
// The second places every new event (one not stored yet, by client event
// id; of two copies in the batch the first) in a session. Per visitor it
// cuts the new events wherever nothing happened for idle: each burst is
// part of one visit. A burst within idle of a stored session of the
// visitor extends it (the earliest one, if it reaches two: stored sessions
// are never merged, their ids are already known); otherwise it is a new
// session, whose client session id, user agent, address, place (with its
// coordinates when the geo database gave them) and device are its first
// event's. So events may arrive in any order and late: an hour-late retry
// of a batch joins the visit it belongs to, or starts its own if that
// visit had none of its events yet. A session's landing path, referrer,
// UTM and click ids are its earliest page view's, replaced when a late one
// comes before it.
//
// The statement is window functions over the new events and no joins
// between its steps: nothing in it grows with the square of a batch,
// whatever the planner thinks of tables written a moment ago. New
// sessions take their ids from the sequence before they are written, so
// the events name them directly.
func sessionise(ctx context.Context, tx bun.Tx, storeID int64, source schema.QueryAppender, idle time.Duration) (Ingested, error) {
	_, err := tx.NewRaw(`
INSERT INTO visitors (store_id, anon_id, first_seen_at, last_seen_at)
SELECT ?0, anon_id, min(occurred_at), max(occurred_at) FROM ?1 GROUP BY anon_id ORDER BY anon_id
ON CONFLICT (store_id, anon_id) DO UPDATE
SET first_seen_at = least(visitors.first_seen_at, excluded.first_seen_at),
    last_seen_at = greatest(visitors.last_seen_at, excluded.last_seen_at)`, storeID, source).Exec(ctx)
	if err != nil {
		return Ingested{}, fmt.Errorf("visitors: %w", err)
	}
	var out Ingested
	err = tx.NewRaw(sessioniseSQL, storeID, source, fmt.Sprintf("%d seconds", int(idle.Seconds()))).Scan(ctx, &out)
	if err != nil {
		return Ingested{}, fmt.Errorf("sessionise: %w", err)
	}
	return out, nil
}

// earlierLanding: the new events of a stored session hold a page view
// before its first event, or it had none.
const earlierLanding = `(r.l_at IS NOT NULL AND (s.landing_path IS NULL OR r.l_at < s.first_seen_at))`

// sessioniseSQL: ?0 the store, ?1 the staging relation, ?2 the idle gap.
const sessioniseSQL = `
WITH fresh AS (
    SELECT DISTINCT ON (staged.client_event_id) staged.*, v.id AS visitor_id
    FROM ?1
    JOIN visitors v ON v.store_id = ?0 AND v.anon_id = staged.anon_id
    WHERE NOT EXISTS (SELECT 1 FROM storefront_events e WHERE e.store_id = ?0 AND e.client_event_id = staged.client_event_id)
    ORDER BY staged.client_event_id, staged.ord
),
cuts AS (
    SELECT f.*, CASE WHEN f.occurred_at > lag(f.occurred_at) OVER (PARTITION BY f.visitor_id ORDER BY f.occurred_at, f.ord) + ?2::interval
                THEN 1 ELSE 0 END AS cut
    FROM fresh f
),
bursts AS (
    SELECT c.*, sum(c.cut) OVER (PARTITION BY c.visitor_id ORDER BY c.occurred_at, c.ord ROWS UNBOUNDED PRECEDING) AS burst
    FROM cuts c
),
shaped AS (
    SELECT b.*,
        row_number() OVER (PARTITION BY b.visitor_id, b.burst ORDER BY b.occurred_at, b.ord) AS rn,
        count(*) OVER w AS n,
        count(*) FILTER (WHERE b.name = 'page_view') OVER w AS pv,
        min(b.occurred_at) OVER w AS lo,
        max(b.occurred_at) OVER w AS hi,
        first_value(b.occurred_at) OVER l AS l_at,
        first_value(b.path) OVER l AS l_path,
        first_value(b.referrer) OVER l AS l_referrer,
        first_value(b.utm) OVER l AS l_utm,
        first_value(b.click_ids) OVER l AS l_click_ids
    FROM bursts b
    WINDOW w AS (PARTITION BY b.visitor_id, b.burst),
           l AS (PARTITION BY b.visitor_id, b.burst ORDER BY b.name <> 'page_view', b.occurred_at, b.ord)
),
headed AS MATERIALIZED (
    SELECT x.*, s.stored_id,
        CASE WHEN x.rn = 1 AND s.stored_id IS NULL THEN nextval(pg_get_serial_sequence('storefront_sessions', 'id')) END AS new_id
    FROM shaped x
    LEFT JOIN LATERAL (
        SELECT min(s.id) AS stored_id FROM storefront_sessions s
        WHERE x.rn = 1 AND s.visitor_id = x.visitor_id AND s.store_id = ?0
          AND s.last_seen_at >= x.lo - ?2::interval AND s.first_seen_at <= x.hi + ?2::interval
    ) s ON true
),
placed AS (
    SELECT h.*, max(coalesce(h.stored_id, h.new_id)) OVER (PARTITION BY h.visitor_id, h.burst) AS sid
    FROM headed h
),
created AS (
    INSERT INTO storefront_sessions (id, store_id, session_key, visitor_id, client_session_id, first_seen_at, last_seen_at,
        landing_path, referrer, utm, click_ids, user_agent, browser, browser_version, os, os_version, device, is_bot,
        ip, country, region, city, latitude, longitude, language, timezone, screen_w, screen_h, viewport_w, viewport_h, page_views, events)
    SELECT h.new_id, ?0, 'ss_' || replace(gen_random_uuid()::text, '-', ''), h.visitor_id, h.client_session_id, h.lo, h.hi,
        CASE WHEN h.pv > 0 THEN h.l_path END, CASE WHEN h.pv > 0 THEN h.l_referrer END,
        CASE WHEN h.pv > 0 THEN h.l_utm::jsonb END, CASE WHEN h.pv > 0 THEN h.l_click_ids::jsonb END,
        h.user_agent, h.browser, h.browser_version, h.os, h.os_version, h.device, h.is_bot,
        h.ip::inet, h.country, h.region, h.city, h.latitude, h.longitude, h.language, h.timezone, h.screen_w, h.screen_h, h.viewport_w, h.viewport_h,
        h.pv, h.n
    FROM headed h
    WHERE h.new_id IS NOT NULL
    RETURNING 1
),
extended AS (
    UPDATE storefront_sessions s
    SET first_seen_at = least(s.first_seen_at, r.lo),
        last_seen_at = greatest(s.last_seen_at, r.hi),
        page_views = s.page_views + r.pv,
        events = s.events + r.n,
        landing_path = CASE WHEN ` + earlierLanding + ` THEN r.l_path ELSE s.landing_path END,
        referrer = CASE WHEN ` + earlierLanding + ` THEN r.l_referrer ELSE s.referrer END,
        utm = CASE WHEN ` + earlierLanding + ` THEN r.l_utm::jsonb ELSE s.utm END,
        click_ids = CASE WHEN ` + earlierLanding + ` THEN r.l_click_ids::jsonb ELSE s.click_ids END
    FROM (
        -- Two bursts may reach the same stored session: one row each.
        SELECT h.stored_id, min(h.lo) AS lo, max(h.hi) AS hi, sum(h.pv) AS pv, sum(h.n) AS n,
            min(h.l_at) FILTER (WHERE h.pv > 0) AS l_at,
            (array_agg(h.l_path ORDER BY h.l_at) FILTER (WHERE h.pv > 0))[1] AS l_path,
            (array_agg(h.l_referrer ORDER BY h.l_at) FILTER (WHERE h.pv > 0))[1] AS l_referrer,
            (array_agg(h.l_utm ORDER BY h.l_at) FILTER (WHERE h.pv > 0))[1] AS l_utm,
            (array_agg(h.l_click_ids ORDER BY h.l_at) FILTER (WHERE h.pv > 0))[1] AS l_click_ids
        FROM headed h
        WHERE h.stored_id IS NOT NULL
        GROUP BY h.stored_id
    ) r
    WHERE s.id = r.stored_id
    RETURNING 1
),
stored AS (
    INSERT INTO storefront_events (store_id, session_id, visitor_id, client_event_id, name, occurred_at, path, referrer,
        product_id, variant_id, product_title, search_query, result_count, el_selector, el_text, dwell_ms, scroll_pct,
        value_cents, currency, quantity, step, cart_token, checkout_token, detail)
    SELECT ?0, p.sid, p.visitor_id, p.client_event_id, p.name, p.occurred_at, p.path, p.referrer,
        p.product_id, p.variant_id, p.product_title, p.search_query, p.result_count, p.el_selector, p.el_text, p.dwell_ms,
        p.scroll_pct, p.value_cents, p.currency, p.quantity, p.step, p.cart_token, p.checkout_token,
        CASE WHEN p.utm IS NULL AND p.click_ids IS NULL THEN p.detail::jsonb
             ELSE coalesce(p.detail::jsonb, '{}') || jsonb_strip_nulls(jsonb_build_object('utm', p.utm::jsonb, 'click_ids', p.click_ids::jsonb)) END
    FROM placed p
    ON CONFLICT (store_id, client_event_id) DO NOTHING
    RETURNING 1
)
SELECT (SELECT count(*) FROM stored) AS stored, (SELECT count(*) FROM created) AS new_sessions`
