-- The overview's customers over a long window without a distinct count of
-- its buyers (internal/analytics, Customers): each counted order of a
-- customer, with the time of the customer's counted order before it (by
-- time, then id). A customer bought in a window once per order of it whose
-- previous order is before the window or none, and was new in it when one
-- of its orders has none: two counts of one index range, where the
-- distinct count of a 90-day window of a million orders hashed 221,000
-- orders into 113,000 customers. It takes the place of
-- analytics_first_orders (the orders without a previous one), kept by the
-- same trigger for the customers whose orders changed.
CREATE TABLE analytics_customer_orders (
    store_id    bigint NOT NULL,
    customer_id bigint NOT NULL,
    order_id    bigint NOT NULL,
    at          timestamptz NOT NULL,
    prev_at     timestamptz,
    PRIMARY KEY (store_id, customer_id, order_id)
);
CREATE INDEX analytics_customer_orders_at_idx ON analytics_customer_orders (store_id, at) INCLUDE (prev_at);

-- What analytics_customer_orders must hold.
CREATE FUNCTION analytics_customer_orders_raw(p_store bigint)
    RETURNS SETOF analytics_customer_orders LANGUAGE sql STABLE AS $$
    SELECT o.store_id, o.customer_id, o.id, o.created_at,
           lag(o.created_at) OVER (PARTITION BY o.customer_id ORDER BY o.created_at, o.id)
    FROM orders AS o
    WHERE o.store_id = p_store AND o.customer_id IS NOT NULL AND analytics_order_counts(o.status, o.financial_status)
$$;

CREATE OR REPLACE FUNCTION analytics_orders_changed() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    changes analytics_order_change[];
    chains analytics_customer_orders[];
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

    -- The order chains of the customers whose orders changed, recomputed
    -- from their counted orders: upserted, then the links of orders no
    -- longer counted (or no longer theirs) dropped, so that concurrent
    -- statements for one customer meet on the same rows.
    chains := ARRAY(
        SELECT ROW(o.store_id, o.customer_id, o.id, o.created_at,
                   lag(o.created_at) OVER (PARTITION BY o.customer_id ORDER BY o.created_at, o.id))::analytics_customer_orders
        FROM orders AS o
        WHERE o.customer_id IN (SELECT c.customer_id FROM unnest(changes) AS c) AND analytics_order_counts(o.status, o.financial_status));
    INSERT INTO analytics_customer_orders AS a
    SELECT * FROM unnest(chains) ORDER BY 1, 2, 3
    ON CONFLICT (store_id, customer_id, order_id) DO UPDATE SET at = excluded.at, prev_at = excluded.prev_at
        WHERE (a.at, a.prev_at) IS DISTINCT FROM (excluded.at, excluded.prev_at);
    DELETE FROM analytics_customer_orders AS a
    USING (SELECT DISTINCT c.store_id, c.customer_id FROM unnest(changes) AS c WHERE c.customer_id IS NOT NULL) AS k
    WHERE a.store_id = k.store_id AND a.customer_id = k.customer_id
      AND a.order_id NOT IN (SELECT k2.order_id FROM unnest(chains) AS k2);
    RETURN NULL;
END
$$;

CREATE OR REPLACE FUNCTION analytics_order_rollups_rebuild(p_store bigint) RETURNS void LANGUAGE sql AS $$
    DELETE FROM analytics_order_slots WHERE store_id = p_store;
    DELETE FROM analytics_source_slots WHERE store_id = p_store;
    DELETE FROM analytics_discount_slots WHERE store_id = p_store;
    DELETE FROM analytics_product_slots WHERE store_id = p_store;
    DELETE FROM analytics_product_months WHERE store_id = p_store;
    DELETE FROM analytics_customer_orders WHERE store_id = p_store;
    INSERT INTO analytics_order_slots SELECT * FROM analytics_order_slots_raw(p_store, '-infinity', 'infinity');
    INSERT INTO analytics_source_slots SELECT * FROM analytics_source_slots_raw(p_store, '-infinity', 'infinity');
    INSERT INTO analytics_discount_slots SELECT * FROM analytics_discount_slots_raw(p_store, '-infinity', 'infinity');
    INSERT INTO analytics_product_slots SELECT * FROM analytics_product_slots_raw(p_store, '-infinity', 'infinity');
    INSERT INTO analytics_product_months SELECT * FROM analytics_product_months_of_slots(p_store);
    INSERT INTO analytics_customer_orders SELECT * FROM analytics_customer_orders_raw(p_store);
$$;

CREATE OR REPLACE FUNCTION analytics_order_rollups_forget(stores bigint[]) RETURNS void LANGUAGE sql AS $$
    DELETE FROM analytics_order_slots WHERE store_id = ANY (stores);
    DELETE FROM analytics_source_slots WHERE store_id = ANY (stores);
    DELETE FROM analytics_discount_slots WHERE store_id = ANY (stores);
    DELETE FROM analytics_product_slots WHERE store_id = ANY (stores);
    DELETE FROM analytics_product_months WHERE store_id = ANY (stores);
    DELETE FROM analytics_customer_orders WHERE store_id = ANY (stores);
$$;

INSERT INTO analytics_customer_orders
SELECT o.store_id, o.customer_id, o.id, o.created_at,
       lag(o.created_at) OVER (PARTITION BY o.customer_id ORDER BY o.created_at, o.id)
FROM orders AS o
WHERE o.customer_id IS NOT NULL AND analytics_order_counts(o.status, o.financial_status);

DROP FUNCTION analytics_first_orders_raw(bigint);
DROP TABLE analytics_first_orders;
-- The distinct buyers' index: nothing reads it now.
DROP INDEX orders_store_created_customer_idx;
