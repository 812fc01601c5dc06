-- The order side of the analytics rollups (internal/analytics, README
-- "Analytics", docs/architecture.md "Analytics rollups"): the sums of the
-- orders, their lines and refunds per store and 15-minute UTC slot (and
-- dimension), and each customer's first counted order, kept exact by
-- statement triggers in the transaction of every insert, update and delete
-- of the raw rows, so a report never lags them.

-- The definitions every report shares, in one place (metrics.go names
-- these functions; SQL functions of one expression are inlined into the
-- queries that call them, so they cost nothing).

-- An order counts unless it was cancelled before any money was taken.
CREATE FUNCTION analytics_order_counts(status text, financial_status text) RETURNS boolean
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    RETURN NOT (status = 'cancelled' AND financial_status IN ('pending', 'authorized', 'voided'));
-- A refund counts when it succeeded.
CREATE FUNCTION analytics_refund_counts(status text) RETURNS boolean
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    RETURN status = 'success';
-- An order's source: its utm_source, '(direct)' when it has none.
CREATE FUNCTION analytics_order_source(attribution jsonb) RETURNS text
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    RETURN coalesce(nullif(attribution ->> 'utm_source', ''), '(direct)');
-- An order's campaign: its utm_campaign, '' when it has none.
CREATE FUNCTION analytics_order_campaign(attribution jsonb) RETURNS text
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    RETURN coalesce(attribution ->> 'utm_campaign', '');
-- A line's revenue: its total at the price charged less its share of the
-- order discount.
CREATE FUNCTION analytics_line_revenue(price_cents bigint, quantity bigint, discount_cents bigint) RETURNS bigint
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    RETURN price_cents * quantity - discount_cents;
-- The rollup slot of an instant (analytics.Slot, analytics.SlotOf).
CREATE FUNCTION analytics_slot(t timestamptz) RETURNS timestamptz
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    RETURN date_bin('15 minutes', t, timestamptz '2000-01-01 00:00:00+00');

-- The rollups. Orders count at the slot of their created_at, refunds at
-- theirs, an order is refunded at its first successful refund. No foreign
-- keys: a trigger that sees its store gone empties the store's rollups.
CREATE TABLE analytics_order_slots (
    store_id             bigint NOT NULL,
    slot                 timestamptz NOT NULL,
    gross_cents          bigint NOT NULL,
    discount_cents       bigint NOT NULL,
    shipping_cents       bigint NOT NULL,
    tax_cents            bigint NOT NULL,
    tip_cents            bigint NOT NULL,
    order_count          bigint NOT NULL,
    units                bigint NOT NULL,
    refund_cents         bigint NOT NULL,
    refunded_order_count bigint NOT NULL,
    PRIMARY KEY (store_id, slot)
);
-- Per source and campaign ('' for the orders of a source without one):
-- by source is the sum over its campaigns.
CREATE TABLE analytics_source_slots (
    store_id    bigint NOT NULL,
    slot        timestamptz NOT NULL,
    source      text NOT NULL,
    campaign    text NOT NULL,
    order_count bigint NOT NULL,
    gross_cents bigint NOT NULL,
    PRIMARY KEY (store_id, slot, source, campaign)
);
CREATE TABLE analytics_discount_slots (
    store_id       bigint NOT NULL,
    slot           timestamptz NOT NULL,
    code           text NOT NULL,
    order_count    bigint NOT NULL,
    discount_cents bigint NOT NULL,
    PRIMARY KEY (store_id, slot, code)
);
CREATE TABLE analytics_product_slots (
    store_id      bigint NOT NULL,
    slot          timestamptz NOT NULL,
    product_id    bigint NOT NULL,
    units         bigint NOT NULL,
    revenue_cents bigint NOT NULL,
    PRIMARY KEY (store_id, slot, product_id)
);
-- Each customer's first counted order: the new customers of a window are
-- those whose first order is in it (an index range count), the returning
-- ones the other distinct buyers of the window.
CREATE TABLE analytics_first_orders (
    store_id    bigint NOT NULL,
    customer_id bigint NOT NULL,
    first_at    timestamptz NOT NULL,
    PRIMARY KEY (store_id, customer_id)
);
CREATE INDEX analytics_first_orders_store_first_idx ON analytics_first_orders (store_id, first_at);
-- The distinct buyers of a window, read from this index alone; the raw
-- edges of a window read refunds by time.
CREATE INDEX orders_store_created_customer_idx ON orders (store_id, created_at)
    INCLUDE (customer_id, status, financial_status) WHERE customer_id IS NOT NULL;
CREATE INDEX refunds_store_created_idx ON refunds (store_id, created_at);

-- The raw rows' sums per slot of [p_from, p_to): what the rollups must
-- hold. The rebuild fills the rollups from them and the check compares.
CREATE FUNCTION analytics_order_slots_raw(p_store bigint, p_from timestamptz, p_to timestamptz)
    RETURNS SETOF analytics_order_slots LANGUAGE sql STABLE AS $$
    SELECT store_id, slot, sum(gross)::bigint, sum(discount)::bigint, sum(shipping)::bigint, sum(tax)::bigint, sum(tip)::bigint,
           sum(orders)::bigint, sum(units)::bigint, sum(refund)::bigint, sum(refunded)::bigint
    FROM (SELECT o.store_id, analytics_slot(o.created_at) AS slot, o.subtotal_cents AS gross, o.discount_cents AS discount,
                 o.shipping_cents AS shipping, o.tax_cents AS tax, o.tip_cents AS tip, 1 AS orders,
                 coalesce((SELECT sum(l.quantity) FROM order_line_items AS l WHERE l.order_id = o.id), 0) AS units, 0 AS refund, 0 AS refunded
          FROM orders AS o
          WHERE o.store_id = p_store AND o.created_at >= p_from AND o.created_at < p_to AND analytics_order_counts(o.status, o.financial_status)
          UNION ALL
          SELECT rf.store_id, analytics_slot(rf.created_at), 0, 0, 0, 0, 0, 0, 0, rf.amount_cents, 0
          FROM refunds AS rf
          WHERE rf.store_id = p_store AND rf.created_at >= p_from AND rf.created_at < p_to AND analytics_refund_counts(rf.status)
          UNION ALL
          SELECT f.store_id, analytics_slot(f.first_at), 0, 0, 0, 0, 0, 0, 0, 0, 1
          FROM (SELECT rf.store_id, rf.order_id, min(rf.created_at) AS first_at FROM refunds AS rf
                WHERE rf.store_id = p_store AND analytics_refund_counts(rf.status) GROUP BY 1, 2) AS f
          WHERE f.first_at >= p_from AND f.first_at < p_to) AS raw
    GROUP BY 1, 2
    HAVING sum(gross) <> 0 OR sum(discount) <> 0 OR sum(shipping) <> 0 OR sum(tax) <> 0 OR sum(tip) <> 0
        OR sum(orders) <> 0 OR sum(units) <> 0 OR sum(refund) <> 0 OR sum(refunded) <> 0
$$;
CREATE FUNCTION analytics_source_slots_raw(p_store bigint, p_from timestamptz, p_to timestamptz)
    RETURNS SETOF analytics_source_slots LANGUAGE sql STABLE AS $$
    SELECT o.store_id, analytics_slot(o.created_at), analytics_order_source(o.attribution), analytics_order_campaign(o.attribution),
           count(*), sum(o.subtotal_cents)::bigint
    FROM orders AS o
    WHERE o.store_id = p_store AND o.created_at >= p_from AND o.created_at < p_to AND analytics_order_counts(o.status, o.financial_status)
    GROUP BY 1, 2, 3, 4
$$;
CREATE FUNCTION analytics_discount_slots_raw(p_store bigint, p_from timestamptz, p_to timestamptz)
    RETURNS SETOF analytics_discount_slots LANGUAGE sql STABLE AS $$
    SELECT o.store_id, analytics_slot(o.created_at), o.discount_code, count(*), sum(o.discount_cents)::bigint
    FROM orders AS o
    WHERE o.store_id = p_store AND o.created_at >= p_from AND o.created_at < p_to AND o.discount_code <> ''
        AND analytics_order_counts(o.status, o.financial_status)
    GROUP BY 1, 2, 3
$$;
CREATE FUNCTION analytics_product_slots_raw(p_store bigint, p_from timestamptz, p_to timestamptz)
    RETURNS SETOF analytics_product_slots LANGUAGE sql STABLE AS $$
    SELECT o.store_id, analytics_slot(o.created_at), l.product_id, sum(l.quantity)::bigint,
           sum(analytics_line_revenue(l.price_cents, l.quantity, l.discount_cents))::bigint
    FROM orders AS o JOIN order_line_items AS l ON l.order_id = o.id
    WHERE o.store_id = p_store AND o.created_at >= p_from AND o.created_at < p_to AND l.product_id IS NOT NULL
        AND analytics_order_counts(o.status, o.financial_status)
    GROUP BY 1, 2, 3
    HAVING sum(l.quantity) <> 0 OR sum(analytics_line_revenue(l.price_cents, l.quantity, l.discount_cents)) <> 0
$$;
CREATE FUNCTION analytics_first_orders_raw(p_store bigint)
    RETURNS SETOF analytics_first_orders LANGUAGE sql STABLE AS $$
    SELECT o.store_id, o.customer_id, min(o.created_at)
    FROM orders AS o
    WHERE o.store_id = p_store AND o.customer_id IS NOT NULL AND analytics_order_counts(o.status, o.financial_status)
    GROUP BY 1, 2
$$;

-- analytics_order_rollups_rebuild recomputes a store's rollups from the raw
-- rows (storeadmin analytics rebuild; and this migration, for the orders
-- already placed).
CREATE FUNCTION analytics_order_rollups_rebuild(p_store bigint) RETURNS void LANGUAGE sql AS $$
    DELETE FROM analytics_order_slots WHERE store_id = p_store;
    DELETE FROM analytics_source_slots WHERE store_id = p_store;
    DELETE FROM analytics_discount_slots WHERE store_id = p_store;
    DELETE FROM analytics_product_slots WHERE store_id = p_store;
    DELETE FROM analytics_first_orders WHERE store_id = p_store;
    INSERT INTO analytics_order_slots SELECT * FROM analytics_order_slots_raw(p_store, '-infinity', 'infinity');
    INSERT INTO analytics_source_slots SELECT * FROM analytics_source_slots_raw(p_store, '-infinity', 'infinity');
    INSERT INTO analytics_discount_slots SELECT * FROM analytics_discount_slots_raw(p_store, '-infinity', 'infinity');
    INSERT INTO analytics_product_slots SELECT * FROM analytics_product_slots_raw(p_store, '-infinity', 'infinity');
    INSERT INTO analytics_first_orders SELECT * FROM analytics_first_orders_raw(p_store);
$$;

-- analytics_order_rollups_forget empties the rollups of stores that are
-- gone: deleting a store cascades to its orders, lines and refunds in an
-- order of PostgreSQL's choosing, and each trigger that sees the store
-- gone drops what is left of it instead of subtracting row by row.
CREATE FUNCTION analytics_order_rollups_forget(stores bigint[]) RETURNS void LANGUAGE sql AS $$
    DELETE FROM analytics_order_slots WHERE store_id = ANY (stores);
    DELETE FROM analytics_source_slots WHERE store_id = ANY (stores);
    DELETE FROM analytics_discount_slots WHERE store_id = ANY (stores);
    DELETE FROM analytics_product_slots WHERE store_id = ANY (stores);
    DELETE FROM analytics_first_orders WHERE store_id = ANY (stores);
$$;

-- Deltas: what one statement adds to (or, negative, takes from) a rollup
-- row. The apply functions sum them per key, apply them in key order (so
-- concurrent statements lock rollup rows in one order) and drop the rows
-- that reach zero; a statement that changes nothing they hold costs no
-- statement of theirs (plpgsql, which also keeps their plans).
CREATE TYPE analytics_order_delta AS (store_id bigint, slot timestamptz, gross_cents bigint, discount_cents bigint,
    shipping_cents bigint, tax_cents bigint, tip_cents bigint, order_count bigint, units bigint, refund_cents bigint,
    refunded_order_count bigint);
CREATE TYPE analytics_source_delta AS (store_id bigint, slot timestamptz, source text, campaign text, order_count bigint, gross_cents bigint);
CREATE TYPE analytics_discount_delta AS (store_id bigint, slot timestamptz, code text, order_count bigint, discount_cents bigint);
CREATE TYPE analytics_product_delta AS (store_id bigint, slot timestamptz, product_id bigint, units bigint, revenue_cents bigint);

CREATE FUNCTION analytics_order_apply(deltas analytics_order_delta[]) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
    IF cardinality(deltas) = 0 THEN
        RETURN;
    END IF;
    INSERT INTO analytics_order_slots AS t
    SELECT store_id, slot, sum(gross_cents), sum(discount_cents), sum(shipping_cents), sum(tax_cents), sum(tip_cents),
           sum(order_count), sum(units), sum(refund_cents), sum(refunded_order_count)
    FROM unnest(deltas) GROUP BY 1, 2
    HAVING sum(gross_cents) <> 0 OR sum(discount_cents) <> 0 OR sum(shipping_cents) <> 0 OR sum(tax_cents) <> 0 OR sum(tip_cents) <> 0
        OR sum(order_count) <> 0 OR sum(units) <> 0 OR sum(refund_cents) <> 0 OR sum(refunded_order_count) <> 0
    ORDER BY 1, 2
    ON CONFLICT (store_id, slot) DO UPDATE SET gross_cents = t.gross_cents + excluded.gross_cents,
        discount_cents = t.discount_cents + excluded.discount_cents, shipping_cents = t.shipping_cents + excluded.shipping_cents,
        tax_cents = t.tax_cents + excluded.tax_cents, tip_cents = t.tip_cents + excluded.tip_cents,
        order_count = t.order_count + excluded.order_count, units = t.units + excluded.units,
        refund_cents = t.refund_cents + excluded.refund_cents, refunded_order_count = t.refunded_order_count + excluded.refunded_order_count;
    DELETE FROM analytics_order_slots AS t USING (SELECT DISTINCT store_id, slot FROM unnest(deltas)) AS k
    WHERE t.store_id = k.store_id AND t.slot = k.slot AND t.gross_cents = 0 AND t.discount_cents = 0 AND t.shipping_cents = 0
        AND t.tax_cents = 0 AND t.tip_cents = 0 AND t.order_count = 0 AND t.units = 0 AND t.refund_cents = 0 AND t.refunded_order_count = 0;
END
$$;
CREATE FUNCTION analytics_source_apply(deltas analytics_source_delta[]) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
    IF cardinality(deltas) = 0 THEN
        RETURN;
    END IF;
    INSERT INTO analytics_source_slots AS t
    SELECT store_id, slot, source, campaign, sum(order_count), sum(gross_cents) FROM unnest(deltas) GROUP BY 1, 2, 3, 4
    HAVING sum(order_count) <> 0 OR sum(gross_cents) <> 0 ORDER BY 1, 2, 3, 4
    ON CONFLICT (store_id, slot, source, campaign) DO UPDATE SET order_count = t.order_count + excluded.order_count,
        gross_cents = t.gross_cents + excluded.gross_cents;
    DELETE FROM analytics_source_slots AS t USING (SELECT DISTINCT store_id, slot, source, campaign FROM unnest(deltas)) AS k
    WHERE (t.store_id, t.slot, t.source, t.campaign) = (k.store_id, k.slot, k.source, k.campaign) AND t.order_count = 0 AND t.gross_cents = 0;
END
$$;
CREATE FUNCTION analytics_discount_apply(deltas analytics_discount_delta[]) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
    IF cardinality(deltas) = 0 THEN
        RETURN;
    END IF;
    INSERT INTO analytics_discount_slots AS t
    SELECT store_id, slot, code, sum(order_count), sum(discount_cents) FROM unnest(deltas) GROUP BY 1, 2, 3
    HAVING sum(order_count) <> 0 OR sum(discount_cents) <> 0 ORDER BY 1, 2, 3
    ON CONFLICT (store_id, slot, code) DO UPDATE SET order_count = t.order_count + excluded.order_count,
        discount_cents = t.discount_cents + excluded.discount_cents;
    DELETE FROM analytics_discount_slots AS t USING (SELECT DISTINCT store_id, slot, code FROM unnest(deltas)) AS k
    WHERE (t.store_id, t.slot, t.code) = (k.store_id, k.slot, k.code) AND t.order_count = 0 AND t.discount_cents = 0;
END
$$;
CREATE FUNCTION analytics_product_apply(deltas analytics_product_delta[]) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
    IF cardinality(deltas) = 0 THEN
        RETURN;
    END IF;
    INSERT INTO analytics_product_slots AS t
    SELECT store_id, slot, product_id, sum(units), sum(revenue_cents) FROM unnest(deltas) GROUP BY 1, 2, 3
    HAVING sum(units) <> 0 OR sum(revenue_cents) <> 0 ORDER BY 1, 2, 3
    ON CONFLICT (store_id, slot, product_id) DO UPDATE SET units = t.units + excluded.units,
        revenue_cents = t.revenue_cents + excluded.revenue_cents;
    DELETE FROM analytics_product_slots AS t USING (SELECT DISTINCT store_id, slot, product_id FROM unnest(deltas)) AS k
    WHERE (t.store_id, t.slot, t.product_id) = (k.store_id, k.slot, k.product_id) AND t.units = 0 AND t.revenue_cents = 0;
END
$$;

-- An order change: one row of a statement's old (-1) or new (+1) rows, with
-- what the rollups read of it.
CREATE TYPE analytics_order_change AS (sign bigint, id bigint, store_id bigint, customer_id bigint, created_at timestamptz,
    counts boolean, subtotal_cents bigint, discount_cents bigint, discount_code text, shipping_cents bigint, tax_cents bigint,
    tip_cents bigint, source text, campaign text);

-- analytics_orders_changed: an order's own figures, its source, campaign
-- and code, and (through its current lines) its units and products, taken
-- from the slot of its old row and added to the slot of its new one; its
-- customer's first order recomputed. Updates that change nothing the
-- rollups read (a fulfillment, a note) cost one comparison.
CREATE FUNCTION analytics_orders_changed() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    changes analytics_order_change[];
    firsts analytics_first_orders[];
    gone bigint[];
BEGIN
    IF TG_OP = 'INSERT' THEN
        changes := ARRAY(SELECT ROW(1, n.id, n.store_id, n.customer_id, n.created_at, analytics_order_counts(n.status, n.financial_status),
                n.subtotal_cents, n.discount_cents, n.discount_code, n.shipping_cents, n.tax_cents, n.tip_cents,
                analytics_order_source(n.attribution), analytics_order_campaign(n.attribution))::analytics_order_change
            FROM new_rows AS n);
    ELSIF TG_OP = 'DELETE' THEN
        changes := ARRAY(SELECT ROW(-1, o.id, o.store_id, o.customer_id, o.created_at, analytics_order_counts(o.status, o.financial_status),
                o.subtotal_cents, o.discount_cents, o.discount_code, o.shipping_cents, o.tax_cents, o.tip_cents,
                analytics_order_source(o.attribution), analytics_order_campaign(o.attribution))::analytics_order_change
            FROM old_rows AS o);
    ELSE
        changes := ARRAY(
            WITH moved AS (
                SELECT n.id FROM new_rows AS n JOIN old_rows AS o ON o.id = n.id
                WHERE (n.store_id, n.customer_id, n.created_at, analytics_order_counts(n.status, n.financial_status), n.subtotal_cents,
                       n.discount_cents, n.discount_code, n.shipping_cents, n.tax_cents, n.tip_cents,
                       analytics_order_source(n.attribution), analytics_order_campaign(n.attribution))
                   IS DISTINCT FROM
                      (o.store_id, o.customer_id, o.created_at, analytics_order_counts(o.status, o.financial_status), o.subtotal_cents,
                       o.discount_cents, o.discount_code, o.shipping_cents, o.tax_cents, o.tip_cents,
                       analytics_order_source(o.attribution), analytics_order_campaign(o.attribution)))
            SELECT ROW(1, n.id, n.store_id, n.customer_id, n.created_at, analytics_order_counts(n.status, n.financial_status),
                    n.subtotal_cents, n.discount_cents, n.discount_code, n.shipping_cents, n.tax_cents, n.tip_cents,
                    analytics_order_source(n.attribution), analytics_order_campaign(n.attribution))::analytics_order_change
            FROM new_rows AS n WHERE n.id IN (SELECT id FROM moved)
            UNION ALL
            SELECT ROW(-1, o.id, o.store_id, o.customer_id, o.created_at, analytics_order_counts(o.status, o.financial_status),
                    o.subtotal_cents, o.discount_cents, o.discount_code, o.shipping_cents, o.tax_cents, o.tip_cents,
                    analytics_order_source(o.attribution), analytics_order_campaign(o.attribution))::analytics_order_change
            FROM old_rows AS o WHERE o.id IN (SELECT id FROM moved));
    END IF;
    IF cardinality(changes) = 0 THEN
        RETURN NULL;
    END IF;
    gone := ARRAY(SELECT DISTINCT c.store_id FROM unnest(changes) AS c WHERE NOT EXISTS (SELECT 1 FROM stores AS s WHERE s.id = c.store_id));
    IF cardinality(gone) > 0 THEN
        PERFORM analytics_order_rollups_forget(gone);
        changes := ARRAY(SELECT c FROM unnest(changes) AS c WHERE c.store_id <> ALL (gone));
    END IF;

    PERFORM analytics_order_apply(ARRAY(
        SELECT ROW(c.store_id, analytics_slot(c.created_at), c.sign * c.subtotal_cents, c.sign * c.discount_cents, c.sign * c.shipping_cents,
                c.sign * c.tax_cents, c.sign * c.tip_cents, c.sign, c.sign * coalesce(u.units, 0), 0, 0)::analytics_order_delta
        FROM unnest(changes) AS c
        LEFT JOIN LATERAL (SELECT sum(l.quantity)::bigint AS units FROM order_line_items AS l WHERE l.order_id = c.id) AS u ON true
        WHERE c.counts));
    PERFORM analytics_source_apply(ARRAY(
        SELECT ROW(c.store_id, analytics_slot(c.created_at), c.source, c.campaign, c.sign, c.sign * c.subtotal_cents)::analytics_source_delta
        FROM unnest(changes) AS c WHERE c.counts));
    PERFORM analytics_discount_apply(ARRAY(
        SELECT ROW(c.store_id, analytics_slot(c.created_at), c.discount_code, c.sign, c.sign * c.discount_cents)::analytics_discount_delta
        FROM unnest(changes) AS c WHERE c.counts AND c.discount_code <> ''));
    -- Lines come after their order and go before it (the row trigger
    -- below), so this moves them on an update and finds none otherwise.
    PERFORM analytics_product_apply(ARRAY(
        SELECT ROW(c.store_id, analytics_slot(c.created_at), l.product_id, c.sign * l.quantity,
                c.sign * analytics_line_revenue(l.price_cents, l.quantity, l.discount_cents))::analytics_product_delta
        FROM unnest(changes) AS c JOIN order_line_items AS l ON l.order_id = c.id
        WHERE c.counts AND l.product_id IS NOT NULL));

    -- The first orders of the customers whose orders changed, recomputed
    -- from their counted orders (none: the customer is no longer in).
    firsts := ARRAY(
        SELECT ROW(k.store_id, k.customer_id, f.first_at)::analytics_first_orders
        FROM (SELECT DISTINCT c.store_id, c.customer_id FROM unnest(changes) AS c WHERE c.customer_id IS NOT NULL) AS k
        LEFT JOIN (SELECT o.customer_id, min(o.created_at) AS first_at FROM orders AS o
                   WHERE o.customer_id IN (SELECT c.customer_id FROM unnest(changes) AS c) AND analytics_order_counts(o.status, o.financial_status)
                   GROUP BY 1) AS f ON f.customer_id = k.customer_id);
    INSERT INTO analytics_first_orders AS f
    SELECT k.store_id, k.customer_id, k.first_at FROM unnest(firsts) AS k WHERE k.first_at IS NOT NULL ORDER BY 1, 2
    ON CONFLICT (store_id, customer_id) DO UPDATE SET first_at = excluded.first_at WHERE f.first_at <> excluded.first_at;
    DELETE FROM analytics_first_orders AS f USING unnest(firsts) AS k
    WHERE f.store_id = k.store_id AND f.customer_id = k.customer_id AND k.first_at IS NULL;
    RETURN NULL;
END
$$;

-- analytics_order_lines_first: an order's refunds, then its lines, are
-- deleted before it, so that their triggers still see the order and take
-- their figures from its slot (after the order is gone, nothing says where
-- they were); refunds first, so that sales by product's triggers still see
-- the lines each refund gave back. Orders are deleted only with their
-- store, and then nothing is subtracted: the store's rollups are dropped
-- whole.
CREATE FUNCTION analytics_order_lines_first() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF EXISTS (SELECT 1 FROM stores WHERE id = OLD.store_id) THEN
        DELETE FROM refunds WHERE order_id = OLD.id;
        DELETE FROM order_line_items WHERE order_id = OLD.id;
    END IF;
    RETURN OLD;
END
$$;

CREATE TYPE analytics_line_change AS (sign bigint, order_id bigint, product_id bigint, quantity bigint, revenue_cents bigint);

-- analytics_lines_changed: a line's units and product revenue, at its
-- order's slot when its order counts. Updates of what the rollups do not
-- read (fulfilled and refunded quantities) cost one comparison.
CREATE FUNCTION analytics_lines_changed() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    changes analytics_line_change[];
    gone bigint[];
BEGIN
    IF TG_OP = 'INSERT' THEN
        changes := ARRAY(SELECT ROW(1, n.order_id, n.product_id, n.quantity,
                analytics_line_revenue(n.price_cents, n.quantity, n.discount_cents))::analytics_line_change FROM new_rows AS n);
    ELSIF TG_OP = 'DELETE' THEN
        changes := ARRAY(SELECT ROW(-1, o.order_id, o.product_id, o.quantity,
                analytics_line_revenue(o.price_cents, o.quantity, o.discount_cents))::analytics_line_change FROM old_rows AS o);
    ELSE
        changes := ARRAY(
            WITH moved AS (
                SELECT n.id FROM new_rows AS n JOIN old_rows AS o ON o.id = n.id
                WHERE (n.order_id, n.product_id, n.quantity, n.price_cents, n.discount_cents)
                    IS DISTINCT FROM (o.order_id, o.product_id, o.quantity, o.price_cents, o.discount_cents))
            SELECT ROW(1, n.order_id, n.product_id, n.quantity,
                    analytics_line_revenue(n.price_cents, n.quantity, n.discount_cents))::analytics_line_change
            FROM new_rows AS n WHERE n.id IN (SELECT id FROM moved)
            UNION ALL
            SELECT ROW(-1, o.order_id, o.product_id, o.quantity,
                    analytics_line_revenue(o.price_cents, o.quantity, o.discount_cents))::analytics_line_change
            FROM old_rows AS o WHERE o.id IN (SELECT id FROM moved));
    END IF;
    IF cardinality(changes) = 0 THEN
        RETURN NULL;
    END IF;
    IF TG_OP = 'DELETE' THEN
        gone := ARRAY(SELECT DISTINCT o.store_id FROM old_rows AS o WHERE NOT EXISTS (SELECT 1 FROM stores AS s WHERE s.id = o.store_id));
        IF cardinality(gone) > 0 THEN
            PERFORM analytics_order_rollups_forget(gone);
        END IF;
    END IF;
    -- A line whose order is gone or does not count adds nothing; nor does
    -- one of a store being deleted (its orders' store is gone).
    PERFORM analytics_order_apply(ARRAY(
        SELECT ROW(o.store_id, analytics_slot(o.created_at), 0, 0, 0, 0, 0, 0, c.sign * c.quantity, 0, 0)::analytics_order_delta
        FROM unnest(changes) AS c JOIN orders AS o ON o.id = c.order_id
        WHERE analytics_order_counts(o.status, o.financial_status) AND EXISTS (SELECT 1 FROM stores AS s WHERE s.id = o.store_id)));
    PERFORM analytics_product_apply(ARRAY(
        SELECT ROW(o.store_id, analytics_slot(o.created_at), c.product_id, c.sign * c.quantity, c.sign * c.revenue_cents)::analytics_product_delta
        FROM unnest(changes) AS c JOIN orders AS o ON o.id = c.order_id
        WHERE c.product_id IS NOT NULL AND analytics_order_counts(o.status, o.financial_status)
            AND EXISTS (SELECT 1 FROM stores AS s WHERE s.id = o.store_id)));
    RETURN NULL;
END
$$;

CREATE TYPE analytics_refund_change AS (sign bigint, id bigint, store_id bigint, order_id bigint, created_at timestamptz, counts boolean, amount_cents bigint);

-- analytics_refunds_changed: a refund's amount at its own slot; the
-- refunded order moved from the slot of its first successful refund before
-- the statement to the slot of the one after.
CREATE FUNCTION analytics_refunds_changed() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    changes analytics_refund_change[];
    gone bigint[];
BEGIN
    IF TG_OP = 'INSERT' THEN
        changes := ARRAY(SELECT ROW(1, n.id, n.store_id, n.order_id, n.created_at, analytics_refund_counts(n.status), n.amount_cents)::analytics_refund_change
            FROM new_rows AS n);
    ELSIF TG_OP = 'DELETE' THEN
        changes := ARRAY(SELECT ROW(-1, o.id, o.store_id, o.order_id, o.created_at, analytics_refund_counts(o.status), o.amount_cents)::analytics_refund_change
            FROM old_rows AS o);
    ELSE
        changes := ARRAY(
            WITH moved AS (
                SELECT n.id FROM new_rows AS n JOIN old_rows AS o ON o.id = n.id
                WHERE (n.store_id, n.order_id, n.created_at, analytics_refund_counts(n.status), n.amount_cents)
                    IS DISTINCT FROM (o.store_id, o.order_id, o.created_at, analytics_refund_counts(o.status), o.amount_cents))
            SELECT ROW(1, n.id, n.store_id, n.order_id, n.created_at, analytics_refund_counts(n.status), n.amount_cents)::analytics_refund_change
            FROM new_rows AS n WHERE n.id IN (SELECT id FROM moved)
            UNION ALL
            SELECT ROW(-1, o.id, o.store_id, o.order_id, o.created_at, analytics_refund_counts(o.status), o.amount_cents)::analytics_refund_change
            FROM old_rows AS o WHERE o.id IN (SELECT id FROM moved));
    END IF;
    IF cardinality(changes) = 0 THEN
        RETURN NULL;
    END IF;
    gone := ARRAY(SELECT DISTINCT c.store_id FROM unnest(changes) AS c WHERE NOT EXISTS (SELECT 1 FROM stores AS s WHERE s.id = c.store_id));
    IF cardinality(gone) > 0 THEN
        PERFORM analytics_order_rollups_forget(gone);
        changes := ARRAY(SELECT c FROM unnest(changes) AS c WHERE c.store_id <> ALL (gone));
    END IF;
    PERFORM analytics_order_apply(ARRAY(
        SELECT ROW(c.store_id, analytics_slot(c.created_at), 0, 0, 0, 0, 0, 0, 0, c.sign * c.amount_cents, 0)::analytics_order_delta
        FROM unnest(changes) AS c WHERE c.counts
        UNION ALL
        -- Each affected order's first successful refund after the
        -- statement (the table now) and before it (the table without the
        -- new rows, with the old ones).
        SELECT ROW(f.store_id, analytics_slot(f.at), 0, 0, 0, 0, 0, 0, 0, 0, f.sign)::analytics_order_delta
        FROM (WITH keys AS (SELECT DISTINCT c.store_id, c.order_id FROM unnest(changes) AS c),
                   kept AS (SELECT rf.order_id, min(rf.created_at) AS at FROM refunds AS rf JOIN keys AS k ON k.order_id = rf.order_id
                            WHERE analytics_refund_counts(rf.status) AND rf.id NOT IN (SELECT c.id FROM unnest(changes) AS c WHERE c.sign = 1)
                            GROUP BY 1),
                   removed AS (SELECT c.order_id, min(c.created_at) AS at FROM unnest(changes) AS c WHERE c.sign = -1 AND c.counts GROUP BY 1)
              SELECT k.store_id, 1 AS sign,
                     (SELECT min(rf.created_at) FROM refunds AS rf WHERE rf.order_id = k.order_id AND analytics_refund_counts(rf.status)) AS at
              FROM keys AS k
              UNION ALL
              SELECT k.store_id, -1, least(kept.at, removed.at)
              FROM keys AS k LEFT JOIN kept ON kept.order_id = k.order_id LEFT JOIN removed ON removed.order_id = k.order_id) AS f
        WHERE f.at IS NOT NULL));
    RETURN NULL;
END
$$;

-- Writes wait while the rollups are filled, so none is missed.
LOCK TABLE orders, order_line_items, refunds IN SHARE ROW EXCLUSIVE MODE;
CREATE TRIGGER analytics_orders_insert AFTER INSERT ON orders
    REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION analytics_orders_changed();
CREATE TRIGGER analytics_orders_update AFTER UPDATE ON orders
    REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION analytics_orders_changed();
CREATE TRIGGER analytics_orders_delete AFTER DELETE ON orders
    REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION analytics_orders_changed();
CREATE TRIGGER analytics_orders_lines_first BEFORE DELETE ON orders
    FOR EACH ROW EXECUTE FUNCTION analytics_order_lines_first();
CREATE TRIGGER analytics_lines_insert AFTER INSERT ON order_line_items
    REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION analytics_lines_changed();
CREATE TRIGGER analytics_lines_update AFTER UPDATE ON order_line_items
    REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION analytics_lines_changed();
CREATE TRIGGER analytics_lines_delete AFTER DELETE ON order_line_items
    REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION analytics_lines_changed();
CREATE TRIGGER analytics_refunds_insert AFTER INSERT ON refunds
    REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION analytics_refunds_changed();
CREATE TRIGGER analytics_refunds_update AFTER UPDATE ON refunds
    REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION analytics_refunds_changed();
CREATE TRIGGER analytics_refunds_delete AFTER DELETE ON refunds
    REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION analytics_refunds_changed();
SELECT analytics_order_rollups_rebuild(id) FROM stores;

-- Derived data that must stay exact whoever writes, the bulk fill's
-- replica role included (as the order counts of 20261124100000).
ALTER TABLE orders ENABLE ALWAYS TRIGGER analytics_orders_insert;
ALTER TABLE orders ENABLE ALWAYS TRIGGER analytics_orders_update;
ALTER TABLE orders ENABLE ALWAYS TRIGGER analytics_orders_delete;
ALTER TABLE orders ENABLE ALWAYS TRIGGER analytics_orders_lines_first;
ALTER TABLE order_line_items ENABLE ALWAYS TRIGGER analytics_lines_insert;
ALTER TABLE order_line_items ENABLE ALWAYS TRIGGER analytics_lines_update;
ALTER TABLE order_line_items ENABLE ALWAYS TRIGGER analytics_lines_delete;
ALTER TABLE refunds ENABLE ALWAYS TRIGGER analytics_refunds_insert;
ALTER TABLE refunds ENABLE ALWAYS TRIGGER analytics_refunds_update;
ALTER TABLE refunds ENABLE ALWAYS TRIGGER analytics_refunds_delete;
