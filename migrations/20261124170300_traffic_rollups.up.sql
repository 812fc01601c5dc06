-- Traffic and landing pages (internal/analytics/traffic.go): what a
-- storefront session did becomes facts of its row, kept by triggers on the
-- rows that say it (events, carts, checkouts, orders), and the sessions are
-- summed per store and 15-minute slot (analytics.Slot) of their start, and
-- per landing path, by triggers on the sessions, in the transaction of
-- every change. Bot sessions are in no sum. docs/architecture.md
-- ("Session steps are facts of the session's row") says why.

-- A session's steps, as models.sessionFacts defines them:
--   viewed_product    a product_view event;
--   carted            an add_to_cart event, or a cart of the session with items;
--   reached_checkout  a checkout opened in the session, or a checkout_step event;
--   checkout_attempts the checkouts opened in it;
--   orders, revenue_cents  the orders linked to it (orders.session_id) and their total.
-- prev_seen_at is the start of the visitor's previous human session (NULL
-- for its first and for a bot's), prev_landing_seen_at the same among the
-- visitor's sessions with the same landing path: a window's distinct
-- visitors are its human sessions whose previous one began before it (the
-- visitor's first session in the window), a count rather than a DISTINCT.
ALTER TABLE storefront_sessions
    ADD COLUMN viewed_product       boolean NOT NULL DEFAULT false,
    ADD COLUMN carted               boolean NOT NULL DEFAULT false,
    ADD COLUMN reached_checkout     boolean NOT NULL DEFAULT false,
    ADD COLUMN checkout_attempts    int NOT NULL DEFAULT 0,
    ADD COLUMN orders               int NOT NULL DEFAULT 0,
    ADD COLUMN revenue_cents        bigint NOT NULL DEFAULT 0,
    ADD COLUMN prev_seen_at         timestamptz,
    ADD COLUMN prev_landing_seen_at timestamptz;

-- storefront_sessions_steps_of is the steps of the sessions ids as the
-- rows that say them tell: the one definition, which the triggers write
-- and the check (analytics.CheckTrafficRollups) compares with. Each step
-- is one lateral read of the session's rows by index: an EXISTS here may
-- be planned as a hash of the whole events table, which on a large store
-- (or in a bulk fill, before statistics) costs a scan of every event per
-- statement.
CREATE FUNCTION storefront_sessions_steps_of(ids bigint[])
RETURNS TABLE (id bigint, viewed_product boolean, carted boolean, reached_checkout boolean,
               checkout_attempts int, orders int, revenue_cents bigint)
LANGUAGE sql STABLE AS $$
    SELECT s.id, ev.viewed_product, ev.add_to_cart OR ca.items, chk.n > 0 OR ev.checkout_step, chk.n, ord.n, ord.revenue
    FROM storefront_sessions s
    CROSS JOIN LATERAL (SELECT coalesce(bool_or(e.name = 'product_view'), false) AS viewed_product,
                               coalesce(bool_or(e.name = 'add_to_cart'), false) AS add_to_cart,
                               coalesce(bool_or(e.name = 'checkout_step'), false) AS checkout_step
                        FROM storefront_events e
                        WHERE e.session_id = s.id AND e.name IN ('product_view', 'add_to_cart', 'checkout_step')) ev
    CROSS JOIN LATERAL (SELECT count(*) > 0 AS items FROM carts c WHERE c.session_id = s.id AND c.item_count > 0) ca
    CROSS JOIN LATERAL (SELECT count(*)::int AS n FROM checkouts c WHERE c.session_id = s.id) chk
    CROSS JOIN LATERAL (SELECT count(*)::int AS n, coalesce(sum(o.total_cents), 0)::bigint AS revenue
                        FROM orders o WHERE o.store_id = s.store_id AND o.session_id = s.id) ord
    WHERE s.id = ANY (ids)
$$;

-- storefront_sessions_steps writes the steps of the sessions ids, only
-- those that changed; the rows are locked in id order first, so concurrent
-- writers wait in one order. No ids, no statement: an UPDATE of no rows
-- still fires the sessions' statement triggers, which would call back here
-- without end.
CREATE FUNCTION storefront_sessions_steps(ids bigint[]) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
    IF coalesce(cardinality(ids), 0) = 0 THEN
        RETURN;
    END IF;
    PERFORM 1 FROM storefront_sessions WHERE id = ANY (ids) ORDER BY id FOR UPDATE;
    UPDATE storefront_sessions s
    SET viewed_product = f.viewed_product, carted = f.carted, reached_checkout = f.reached_checkout,
        checkout_attempts = f.checkout_attempts, orders = f.orders, revenue_cents = f.revenue_cents
    FROM storefront_sessions_steps_of(ids) f
    WHERE s.id = f.id
      AND (s.viewed_product, s.carted, s.reached_checkout, s.checkout_attempts, s.orders, s.revenue_cents)
          IS DISTINCT FROM (f.viewed_product, f.carted, f.reached_checkout, f.checkout_attempts, f.orders, f.revenue_cents);
END
$$;

-- The triggers that call it: each passes the sessions its statement's rows
-- name, and only when a row changed what a step reads.
CREATE FUNCTION storefront_sessions_steps_events() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'INSERT' THEN
        PERFORM storefront_sessions_steps(ARRAY(SELECT DISTINCT session_id FROM new_rows
            WHERE name IN ('product_view', 'add_to_cart', 'checkout_step')));
    ELSIF TG_OP = 'DELETE' THEN
        PERFORM storefront_sessions_steps(ARRAY(SELECT DISTINCT session_id FROM old_rows
            WHERE name IN ('product_view', 'add_to_cart', 'checkout_step')));
    ELSE
        PERFORM storefront_sessions_steps(ARRAY(
            SELECT n.session_id FROM new_rows n JOIN old_rows o ON o.id = n.id
            WHERE (n.session_id, n.name) IS DISTINCT FROM (o.session_id, o.name)
            UNION SELECT o.session_id FROM new_rows n JOIN old_rows o ON o.id = n.id
            WHERE (n.session_id, n.name) IS DISTINCT FROM (o.session_id, o.name)));
    END IF;
    RETURN NULL;
END
$$;

CREATE FUNCTION storefront_sessions_steps_carts() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'INSERT' THEN
        PERFORM storefront_sessions_steps(ARRAY(SELECT DISTINCT session_id FROM new_rows WHERE session_id IS NOT NULL));
    ELSIF TG_OP = 'DELETE' THEN
        PERFORM storefront_sessions_steps(ARRAY(SELECT DISTINCT session_id FROM old_rows WHERE session_id IS NOT NULL));
    ELSE
        PERFORM storefront_sessions_steps(ARRAY(
            SELECT n.session_id FROM new_rows n JOIN old_rows o ON o.id = n.id
            WHERE n.session_id IS NOT NULL AND (n.session_id, n.item_count > 0) IS DISTINCT FROM (o.session_id, o.item_count > 0)
            UNION SELECT o.session_id FROM new_rows n JOIN old_rows o ON o.id = n.id
            WHERE o.session_id IS NOT NULL AND (n.session_id, n.item_count > 0) IS DISTINCT FROM (o.session_id, o.item_count > 0)));
    END IF;
    RETURN NULL;
END
$$;

CREATE FUNCTION storefront_sessions_steps_checkouts() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'INSERT' THEN
        PERFORM storefront_sessions_steps(ARRAY(SELECT DISTINCT session_id FROM new_rows WHERE session_id IS NOT NULL));
    ELSIF TG_OP = 'DELETE' THEN
        PERFORM storefront_sessions_steps(ARRAY(SELECT DISTINCT session_id FROM old_rows WHERE session_id IS NOT NULL));
    ELSE
        PERFORM storefront_sessions_steps(ARRAY(
            SELECT n.session_id FROM new_rows n JOIN old_rows o ON o.id = n.id
            WHERE n.session_id IS NOT NULL AND n.session_id IS DISTINCT FROM o.session_id
            UNION SELECT o.session_id FROM new_rows n JOIN old_rows o ON o.id = n.id
            WHERE o.session_id IS NOT NULL AND n.session_id IS DISTINCT FROM o.session_id));
    END IF;
    RETURN NULL;
END
$$;

CREATE FUNCTION storefront_sessions_steps_orders() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'INSERT' THEN
        PERFORM storefront_sessions_steps(ARRAY(SELECT DISTINCT session_id FROM new_rows WHERE session_id IS NOT NULL));
    ELSIF TG_OP = 'DELETE' THEN
        PERFORM storefront_sessions_steps(ARRAY(SELECT DISTINCT session_id FROM old_rows WHERE session_id IS NOT NULL));
    ELSE
        PERFORM storefront_sessions_steps(ARRAY(
            SELECT n.session_id FROM new_rows n JOIN old_rows o ON o.id = n.id
            WHERE n.session_id IS NOT NULL AND (n.session_id, n.store_id, n.total_cents) IS DISTINCT FROM (o.session_id, o.store_id, o.total_cents)
            UNION SELECT o.session_id FROM new_rows n JOIN old_rows o ON o.id = n.id
            WHERE o.session_id IS NOT NULL AND (n.session_id, n.store_id, n.total_cents) IS DISTINCT FROM (o.session_id, o.store_id, o.total_cents)));
    END IF;
    RETURN NULL;
END
$$;

-- storefront_sessions_prev_of is prev_seen_at and prev_landing_seen_at of
-- every session of the visitors given, as their sessions tell.
CREATE FUNCTION storefront_sessions_prev_of(visitor_ids bigint[])
RETURNS TABLE (id bigint, prev_seen_at timestamptz, prev_landing_seen_at timestamptz)
LANGUAGE sql STABLE AS $$
    SELECT s.id,
           CASE WHEN NOT s.is_bot THEN max(s.first_seen_at) FILTER (WHERE NOT s.is_bot)
               OVER (PARTITION BY s.visitor_id ORDER BY s.first_seen_at, s.id ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) END,
           CASE WHEN NOT s.is_bot THEN max(s.first_seen_at) FILTER (WHERE NOT s.is_bot)
               OVER (PARTITION BY s.visitor_id, coalesce(s.landing_path, '') ORDER BY s.first_seen_at, s.id ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) END
    FROM storefront_sessions s WHERE s.visitor_id = ANY (visitor_ids)
$$;

-- storefront_sessions_prev writes them where they changed (a session
-- inserted, deleted or moved changes its visitor's later ones). No
-- visitors, no statement (as storefront_sessions_steps).
CREATE FUNCTION storefront_sessions_prev(visitor_ids bigint[]) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
    IF coalesce(cardinality(visitor_ids), 0) = 0 THEN
        RETURN;
    END IF;
    UPDATE storefront_sessions s SET prev_seen_at = p.prev_seen_at, prev_landing_seen_at = p.prev_landing_seen_at
    FROM storefront_sessions_prev_of(visitor_ids) p
    WHERE s.id = p.id AND (s.prev_seen_at, s.prev_landing_seen_at) IS DISTINCT FROM (p.prev_seen_at, p.prev_landing_seen_at);
END
$$;

-- The sums. traffic_slots: a store's human sessions per slot of their
-- start, with their steps; traffic_landing_slots: the same per landing path
-- ('' for sessions without one, the "(not set)" row).
CREATE TABLE traffic_slots (
    store_id          bigint NOT NULL,
    slot              timestamptz NOT NULL,
    sessions          bigint NOT NULL,
    carted_sessions   bigint NOT NULL,
    checkout_sessions bigint NOT NULL,
    converted_sessions bigint NOT NULL,
    not_set_sessions  bigint NOT NULL,
    revenue_cents     bigint NOT NULL,
    -- Sessions that are their visitor's first (prev_seen_at NULL).
    first_sessions    bigint NOT NULL,
    PRIMARY KEY (store_id, slot)
);
CREATE TABLE traffic_landing_slots (
    store_id          bigint NOT NULL,
    slot              timestamptz NOT NULL,
    landing_path      text NOT NULL,
    sessions          bigint NOT NULL,
    carted_sessions   bigint NOT NULL,
    checkout_sessions bigint NOT NULL,
    converted_sessions bigint NOT NULL,
    revenue_cents     bigint NOT NULL,
    -- Sessions that are their visitor's first on the page (prev_landing_seen_at NULL).
    first_sessions    bigint NOT NULL,
    PRIMARY KEY (store_id, slot, landing_path)
);

-- A report sums a window's slots from these indexes alone (index-only: a
-- 90-day window of a large store's landing pages is some 200,000 rows;
-- the primary keys serve the triggers' upserts).
CREATE INDEX traffic_slots_report_idx ON traffic_slots (store_id, slot)
    INCLUDE (sessions, carted_sessions, checkout_sessions, converted_sessions, not_set_sessions, revenue_cents, first_sessions);
CREATE INDEX traffic_landing_slots_report_idx ON traffic_landing_slots (store_id, slot)
    INCLUDE (landing_path, sessions, carted_sessions, checkout_sessions, converted_sessions, revenue_cents, first_sessions);

-- A traffic_delta is a change of the sums of one store, slot and landing path.
CREATE TYPE traffic_delta AS (store_id bigint, slot timestamptz, landing_path text, sessions bigint,
    carted bigint, checkout bigint, converted bigint, revenue_cents bigint, firsts bigint, landing_firsts bigint);

-- traffic_rollups_apply adds deltas to both tables in key order and drops
-- the rows that reach no session.
CREATE FUNCTION traffic_rollups_apply(deltas traffic_delta[]) RETURNS void LANGUAGE sql AS $$
    INSERT INTO traffic_slots AS t
    SELECT store_id, slot, sum(sessions), sum(carted), sum(checkout), sum(converted),
           coalesce(sum(sessions) FILTER (WHERE landing_path = ''), 0), sum(revenue_cents), sum(firsts)
    FROM unnest(deltas) GROUP BY 1, 2
    HAVING (sum(sessions), sum(carted), sum(checkout), sum(converted), coalesce(sum(sessions) FILTER (WHERE landing_path = ''), 0), sum(revenue_cents), sum(firsts))
        IS DISTINCT FROM (0, 0, 0, 0, 0, 0, 0)
    ORDER BY 1, 2
    ON CONFLICT (store_id, slot) DO UPDATE SET sessions = t.sessions + excluded.sessions,
        carted_sessions = t.carted_sessions + excluded.carted_sessions, checkout_sessions = t.checkout_sessions + excluded.checkout_sessions,
        converted_sessions = t.converted_sessions + excluded.converted_sessions,
        not_set_sessions = t.not_set_sessions + excluded.not_set_sessions, revenue_cents = t.revenue_cents + excluded.revenue_cents,
        first_sessions = t.first_sessions + excluded.first_sessions;
    INSERT INTO traffic_landing_slots AS t
    SELECT store_id, slot, landing_path, sum(sessions), sum(carted), sum(checkout), sum(converted), sum(revenue_cents), sum(landing_firsts)
    FROM unnest(deltas) GROUP BY 1, 2, 3
    HAVING (sum(sessions), sum(carted), sum(checkout), sum(converted), sum(revenue_cents), sum(landing_firsts)) IS DISTINCT FROM (0, 0, 0, 0, 0, 0)
    ORDER BY 1, 2, 3
    ON CONFLICT (store_id, slot, landing_path) DO UPDATE SET sessions = t.sessions + excluded.sessions,
        carted_sessions = t.carted_sessions + excluded.carted_sessions, checkout_sessions = t.checkout_sessions + excluded.checkout_sessions,
        converted_sessions = t.converted_sessions + excluded.converted_sessions, revenue_cents = t.revenue_cents + excluded.revenue_cents,
        first_sessions = t.first_sessions + excluded.first_sessions;
    DELETE FROM traffic_slots WHERE sessions = 0 AND (store_id, slot) IN (SELECT store_id, slot FROM unnest(deltas) WHERE sessions < 0);
    DELETE FROM traffic_landing_slots WHERE sessions = 0
        AND (store_id, slot, landing_path) IN (SELECT store_id, slot, landing_path FROM unnest(deltas) WHERE sessions < 0);
$$;

-- traffic_rollups_add turns one statement's changed sessions into deltas
-- (grouped: a COPY of a million sessions is one call) and keeps the
-- visitors' prev_* columns when a session comes, goes or moves.
CREATE FUNCTION traffic_rollups_add() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    deltas traffic_delta[];
BEGIN
    IF TG_OP = 'INSERT' THEN
        PERFORM storefront_sessions_prev(ARRAY(SELECT DISTINCT visitor_id FROM new_rows WHERE NOT is_bot));
        deltas := ARRAY(SELECT ROW(g.*)::traffic_delta FROM (SELECT store_id, date_bin('15 minutes', first_seen_at, timestamptz '2000-01-01 00:00:00+00'), coalesce(landing_path, ''),
                                   count(*), count(*) FILTER (WHERE carted), count(*) FILTER (WHERE reached_checkout),
                                   count(*) FILTER (WHERE orders > 0), sum(revenue_cents),
                                   count(*) FILTER (WHERE prev_seen_at IS NULL), count(*) FILTER (WHERE prev_landing_seen_at IS NULL)
                        FROM new_rows WHERE NOT is_bot GROUP BY 1, 2, 3) g);
    ELSIF TG_OP = 'DELETE' THEN
        PERFORM storefront_sessions_prev(ARRAY(SELECT DISTINCT visitor_id FROM old_rows WHERE NOT is_bot));
        deltas := ARRAY(SELECT ROW(g.*)::traffic_delta FROM (SELECT store_id, date_bin('15 minutes', first_seen_at, timestamptz '2000-01-01 00:00:00+00'), coalesce(landing_path, ''),
                                   -count(*), -count(*) FILTER (WHERE carted), -count(*) FILTER (WHERE reached_checkout),
                                   -count(*) FILTER (WHERE orders > 0), -sum(revenue_cents),
                                   -count(*) FILTER (WHERE prev_seen_at IS NULL), -count(*) FILTER (WHERE prev_landing_seen_at IS NULL)
                        FROM old_rows WHERE NOT is_bot GROUP BY 1, 2, 3) g);
    ELSE
        PERFORM storefront_sessions_prev(ARRAY(
            SELECT n.visitor_id FROM new_rows n JOIN old_rows o ON o.id = n.id
            WHERE (n.visitor_id, n.first_seen_at, n.is_bot, coalesce(n.landing_path, '')) IS DISTINCT FROM (o.visitor_id, o.first_seen_at, o.is_bot, coalesce(o.landing_path, ''))
            UNION SELECT o.visitor_id FROM new_rows n JOIN old_rows o ON o.id = n.id
            WHERE (n.visitor_id, n.first_seen_at, n.is_bot, coalesce(n.landing_path, '')) IS DISTINCT FROM (o.visitor_id, o.first_seen_at, o.is_bot, coalesce(o.landing_path, ''))));
        deltas := ARRAY(SELECT ROW(store_id, slot, landing_path, sum(d), sum(d * carted), sum(d * checkout), sum(d * converted), sum(d * revenue_cents),
                                   sum(d * first), sum(d * landing_first))::traffic_delta
                        FROM (SELECT store_id, date_bin('15 minutes', first_seen_at, timestamptz '2000-01-01 00:00:00+00') AS slot, coalesce(landing_path, '') AS landing_path,
                                     1 AS d, carted::int AS carted, reached_checkout::int AS checkout, (orders > 0)::int AS converted, revenue_cents,
                                     (prev_seen_at IS NULL)::int AS first, (prev_landing_seen_at IS NULL)::int AS landing_first
                              FROM new_rows WHERE NOT is_bot
                              UNION ALL
                              SELECT store_id, date_bin('15 minutes', first_seen_at, timestamptz '2000-01-01 00:00:00+00'), coalesce(landing_path, ''),
                                     -1, carted::int, reached_checkout::int, (orders > 0)::int, revenue_cents,
                                     (prev_seen_at IS NULL)::int, (prev_landing_seen_at IS NULL)::int
                              FROM old_rows WHERE NOT is_bot) changes
                        GROUP BY store_id, slot, landing_path
                        HAVING (sum(d), sum(d * carted), sum(d * checkout), sum(d * converted), sum(d * revenue_cents), sum(d * first), sum(d * landing_first))
                            IS DISTINCT FROM (0, 0, 0, 0, 0, 0, 0));
    END IF;
    IF cardinality(deltas) > 0 THEN
        PERFORM traffic_rollups_apply(deltas);
    END IF;
    RETURN NULL;
END
$$;

-- Writes to the tables wait while the columns and sums are filled, so none
-- is missed.
LOCK TABLE storefront_sessions, storefront_events, carts, checkouts, orders IN SHARE ROW EXCLUSIVE MODE;
-- The steps and prev_* columns of the sessions there are, before the
-- triggers that would sum the change.
SELECT storefront_sessions_steps(ARRAY(SELECT id FROM storefront_sessions));
SELECT storefront_sessions_prev(ARRAY(SELECT DISTINCT visitor_id FROM storefront_sessions));

CREATE TRIGGER storefront_sessions_steps_insert AFTER INSERT ON storefront_events
    REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION storefront_sessions_steps_events();
CREATE TRIGGER storefront_sessions_steps_update AFTER UPDATE ON storefront_events
    REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION storefront_sessions_steps_events();
CREATE TRIGGER storefront_sessions_steps_delete AFTER DELETE ON storefront_events
    REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION storefront_sessions_steps_events();
CREATE TRIGGER storefront_sessions_steps_insert AFTER INSERT ON carts
    REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION storefront_sessions_steps_carts();
CREATE TRIGGER storefront_sessions_steps_update AFTER UPDATE ON carts
    REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION storefront_sessions_steps_carts();
CREATE TRIGGER storefront_sessions_steps_delete AFTER DELETE ON carts
    REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION storefront_sessions_steps_carts();
CREATE TRIGGER storefront_sessions_steps_insert AFTER INSERT ON checkouts
    REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION storefront_sessions_steps_checkouts();
CREATE TRIGGER storefront_sessions_steps_update AFTER UPDATE ON checkouts
    REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION storefront_sessions_steps_checkouts();
CREATE TRIGGER storefront_sessions_steps_delete AFTER DELETE ON checkouts
    REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION storefront_sessions_steps_checkouts();
CREATE TRIGGER storefront_sessions_steps_insert AFTER INSERT ON orders
    REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION storefront_sessions_steps_orders();
CREATE TRIGGER storefront_sessions_steps_update AFTER UPDATE ON orders
    REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION storefront_sessions_steps_orders();
CREATE TRIGGER storefront_sessions_steps_delete AFTER DELETE ON orders
    REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION storefront_sessions_steps_orders();
CREATE TRIGGER traffic_rollups_insert AFTER INSERT ON storefront_sessions
    REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION traffic_rollups_add();
CREATE TRIGGER traffic_rollups_update AFTER UPDATE ON storefront_sessions
    REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION traffic_rollups_add();
CREATE TRIGGER traffic_rollups_delete AFTER DELETE ON storefront_sessions
    REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION traffic_rollups_add();

-- The sums of the sessions there are (the triggers keep them from here on).
SELECT traffic_rollups_apply(ARRAY(
    SELECT ROW(g.*)::traffic_delta FROM (SELECT store_id, date_bin('15 minutes', first_seen_at, timestamptz '2000-01-01 00:00:00+00'), coalesce(landing_path, ''),
               count(*), count(*) FILTER (WHERE carted), count(*) FILTER (WHERE reached_checkout),
               count(*) FILTER (WHERE orders > 0), sum(revenue_cents),
               count(*) FILTER (WHERE prev_seen_at IS NULL), count(*) FILTER (WHERE prev_landing_seen_at IS NULL)
    FROM storefront_sessions WHERE NOT is_bot GROUP BY 1, 2, 3) g));

-- The reports' reads of visitors: a window's returning human sessions
-- (the first ones are summed in the rollups) with their visitor's previous
-- start, in time order, and per landing path; index-only counts.
CREATE INDEX storefront_sessions_returning_idx ON storefront_sessions (store_id, first_seen_at) INCLUDE (prev_seen_at)
    WHERE NOT is_bot AND prev_seen_at IS NOT NULL;
-- (landing_path is included too: an index-only scan of an expression
-- needs the columns under it.)
CREATE INDEX storefront_sessions_landing_returning_idx ON storefront_sessions (store_id, coalesce(landing_path, ''), first_seen_at)
    INCLUDE (prev_landing_seen_at, landing_path)
    WHERE NOT is_bot AND prev_landing_seen_at IS NOT NULL;

-- Derived data that must stay exact whoever writes, bulk fills in the
-- replica role included (bench-data).
ALTER TABLE storefront_events ENABLE ALWAYS TRIGGER storefront_sessions_steps_insert;
ALTER TABLE storefront_events ENABLE ALWAYS TRIGGER storefront_sessions_steps_update;
ALTER TABLE storefront_events ENABLE ALWAYS TRIGGER storefront_sessions_steps_delete;
ALTER TABLE carts ENABLE ALWAYS TRIGGER storefront_sessions_steps_insert;
ALTER TABLE carts ENABLE ALWAYS TRIGGER storefront_sessions_steps_update;
ALTER TABLE carts ENABLE ALWAYS TRIGGER storefront_sessions_steps_delete;
ALTER TABLE checkouts ENABLE ALWAYS TRIGGER storefront_sessions_steps_insert;
ALTER TABLE checkouts ENABLE ALWAYS TRIGGER storefront_sessions_steps_update;
ALTER TABLE checkouts ENABLE ALWAYS TRIGGER storefront_sessions_steps_delete;
ALTER TABLE orders ENABLE ALWAYS TRIGGER storefront_sessions_steps_insert;
ALTER TABLE orders ENABLE ALWAYS TRIGGER storefront_sessions_steps_update;
ALTER TABLE orders ENABLE ALWAYS TRIGGER storefront_sessions_steps_delete;
ALTER TABLE storefront_sessions ENABLE ALWAYS TRIGGER traffic_rollups_insert;
ALTER TABLE storefront_sessions ENABLE ALWAYS TRIGGER traffic_rollups_update;
ALTER TABLE storefront_sessions ENABLE ALWAYS TRIGGER traffic_rollups_delete;
