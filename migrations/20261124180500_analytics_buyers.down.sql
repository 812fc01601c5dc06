-- Back to analytics_first_orders (20261124170100).
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
CREATE INDEX orders_store_created_customer_idx ON orders (store_id, created_at)
    INCLUDE (customer_id, status, financial_status) WHERE customer_id IS NOT NULL;
CREATE FUNCTION analytics_first_orders_raw(p_store bigint)
    RETURNS SETOF analytics_first_orders LANGUAGE sql STABLE AS $$
    SELECT o.store_id, o.customer_id, min(o.created_at)
    FROM orders AS o
    WHERE o.store_id = p_store AND o.customer_id IS NOT NULL AND analytics_order_counts(o.status, o.financial_status)
    GROUP BY 1, 2
$$;

CREATE OR REPLACE FUNCTION analytics_orders_changed() RETURNS trigger LANGUAGE plpgsql AS $$
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

CREATE OR REPLACE FUNCTION analytics_order_rollups_rebuild(p_store bigint) RETURNS void LANGUAGE sql AS $$
    DELETE FROM analytics_order_slots WHERE store_id = p_store;
    DELETE FROM analytics_source_slots WHERE store_id = p_store;
    DELETE FROM analytics_discount_slots WHERE store_id = p_store;
    DELETE FROM analytics_product_slots WHERE store_id = p_store;
    DELETE FROM analytics_product_months WHERE store_id = p_store;
    DELETE FROM analytics_first_orders WHERE store_id = p_store;
    INSERT INTO analytics_order_slots SELECT * FROM analytics_order_slots_raw(p_store, '-infinity', 'infinity');
    INSERT INTO analytics_source_slots SELECT * FROM analytics_source_slots_raw(p_store, '-infinity', 'infinity');
    INSERT INTO analytics_discount_slots SELECT * FROM analytics_discount_slots_raw(p_store, '-infinity', 'infinity');
    INSERT INTO analytics_product_slots SELECT * FROM analytics_product_slots_raw(p_store, '-infinity', 'infinity');
    INSERT INTO analytics_product_months SELECT * FROM analytics_product_months_of_slots(p_store);
    INSERT INTO analytics_first_orders SELECT * FROM analytics_first_orders_raw(p_store);
$$;

CREATE OR REPLACE FUNCTION analytics_order_rollups_forget(stores bigint[]) RETURNS void LANGUAGE sql AS $$
    DELETE FROM analytics_order_slots WHERE store_id = ANY (stores);
    DELETE FROM analytics_source_slots WHERE store_id = ANY (stores);
    DELETE FROM analytics_discount_slots WHERE store_id = ANY (stores);
    DELETE FROM analytics_product_slots WHERE store_id = ANY (stores);
    DELETE FROM analytics_product_months WHERE store_id = ANY (stores);
    DELETE FROM analytics_first_orders WHERE store_id = ANY (stores);
$$;

INSERT INTO analytics_first_orders
SELECT o.store_id, o.customer_id, min(o.created_at) FROM orders AS o
WHERE o.customer_id IS NOT NULL AND analytics_order_counts(o.status, o.financial_status) GROUP BY 1, 2;

DROP FUNCTION analytics_customer_orders_raw(bigint);
DROP TABLE analytics_customer_orders;
