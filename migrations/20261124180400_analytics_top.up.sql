-- analytics_sum is sum(bigint) with a bigint state. The built-in sum of a
-- bigint keeps a 128-bit (or numeric) state allocated per group, which made
-- the reports' per-product hash aggregates (156,000 groups of 412,000
-- rollup rows, ten sums each) spend most of their time allocating; a
-- by-value state costs nothing per group. An overflow is an error rather
-- than a numeric result: a bigint of cents is 92 quadrillion dollars.
-- No rows: NULL, as sum.
CREATE AGGREGATE analytics_sum(bigint) (
    SFUNC = int8pl,
    STYPE = bigint,
    COMBINEFUNC = int8pl,
    PARALLEL = SAFE
);

-- The overview's top products over a long window without summing every
-- product of it (internal/analytics, TopProducts): each store's product
-- sales per UTC month, ranked by an index. A product outside a month's n
-- best sold at most the n-th's in that month, so a product outside every
-- touched month's n best sold at most the sum of their n-th values over
-- the window: once the limit-th best of the candidates beats that bound,
-- no other product can enter the list. Kept from analytics_product_slots'
-- deltas by the same apply function, in the same transaction.
CREATE TABLE analytics_product_months (
    store_id      bigint NOT NULL,
    month         timestamptz NOT NULL,
    product_id    bigint NOT NULL,
    units         bigint NOT NULL,
    revenue_cents bigint NOT NULL,
    PRIMARY KEY (store_id, month, product_id)
);
CREATE INDEX analytics_product_months_rank_idx ON analytics_product_months (store_id, month, revenue_cents DESC, product_id);
-- The candidates' sales in the months a window covers in part.
CREATE INDEX analytics_product_slots_product_idx ON analytics_product_slots (store_id, product_id, slot) INCLUDE (units, revenue_cents);

-- The UTC month of a slot.
CREATE FUNCTION analytics_month(t timestamptz) RETURNS timestamptz LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT date_trunc('month', t AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'
$$;

CREATE OR REPLACE FUNCTION analytics_product_apply(deltas analytics_product_delta[]) RETURNS void LANGUAGE plpgsql AS $$
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
    INSERT INTO analytics_product_months AS t
    SELECT store_id, analytics_month(slot), product_id, sum(units), sum(revenue_cents) FROM unnest(deltas) GROUP BY 1, 2, 3
    HAVING sum(units) <> 0 OR sum(revenue_cents) <> 0 ORDER BY 1, 2, 3
    ON CONFLICT (store_id, month, product_id) DO UPDATE SET units = t.units + excluded.units,
        revenue_cents = t.revenue_cents + excluded.revenue_cents;
    DELETE FROM analytics_product_months AS t
    USING (SELECT DISTINCT store_id, analytics_month(slot) AS month, product_id FROM unnest(deltas)) AS k
    WHERE (t.store_id, t.month, t.product_id) = (k.store_id, k.month, k.product_id) AND t.units = 0 AND t.revenue_cents = 0;
END
$$;

-- What analytics_product_months must hold: the sums of the slots.
CREATE FUNCTION analytics_product_months_of_slots(p_store bigint)
    RETURNS SETOF analytics_product_months LANGUAGE sql STABLE AS $$
    SELECT store_id, analytics_month(slot), product_id, sum(units)::bigint, sum(revenue_cents)::bigint
    FROM analytics_product_slots WHERE store_id = p_store
    GROUP BY 1, 2, 3
    HAVING sum(units) <> 0 OR sum(revenue_cents) <> 0
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

INSERT INTO analytics_product_months
SELECT store_id, analytics_month(slot), product_id, sum(units)::bigint, sum(revenue_cents)::bigint
FROM analytics_product_slots GROUP BY 1, 2, 3 HAVING sum(units) <> 0 OR sum(revenue_cents) <> 0;
