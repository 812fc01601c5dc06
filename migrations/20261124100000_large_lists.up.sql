-- Lists of a large store (a million orders, 100,000 products): the indexes
-- their filters and sorts need, and exact order totals kept by triggers.
-- The plans behind each index are in docs/architecture.md ("Lists at a
-- million orders"). Every index is a plain CREATE INDEX: a migration is one
-- transaction, and CREATE INDEX CONCURRENTLY cannot run inside one. On a
-- store that is already large the migration holds off writes to orders,
-- products and variants while it builds (about a minute for a million
-- orders; README "Performance", "A large store").

-- Orders: one index per sort, each ending with the three statuses (and the
-- creation time), so that a page past the first rows finds its ids in the
-- index alone (models Paging.Apply reads the rows it skips as ids, an
-- index-only scan), and a status or creation-time filter is checked in the
-- index without reading the row.
CREATE INDEX orders_store_created_statuses_idx ON orders (store_id, created_at, id, status, financial_status, fulfillment_status);
CREATE INDEX orders_store_total_idx ON orders (store_id, total_cents, id, status, financial_status, fulfillment_status, created_at);
CREATE INDEX orders_store_updated_idx ON orders (store_id, updated_at, id, status, financial_status, fulfillment_status, created_at);
-- A status that few orders have (cancelled, voided, partial) is found by
-- its own index, which carries every sort key, so its page is sorted from
-- the index alone.
CREATE INDEX orders_store_state_idx ON orders (store_id, status)
    INCLUDE (id, created_at, order_number, total_cents, updated_at, financial_status, fulfillment_status);
CREATE INDEX orders_store_financial_idx ON orders (store_id, financial_status)
    INCLUDE (id, created_at, order_number, total_cents, updated_at, status, fulfillment_status);
CREATE INDEX orders_store_fulfillment_idx ON orders (store_id, fulfillment_status)
    INCLUDE (id, created_at, order_number, total_cents, updated_at, status, financial_status);
-- Replaced by the indexes above.
DROP INDEX orders_store_created_idx;
DROP INDEX orders_store_status_idx;
-- The search text q: each thing it matches has a trigram index, so the
-- search is a union of index scans (models OrderFilter).
CREATE INDEX orders_email_trgm_idx ON orders USING gin (lower(email) gin_trgm_ops);
CREATE INDEX orders_number_display_trgm_idx ON orders USING gin (lower(order_number_display) gin_trgm_ops);
CREATE INDEX order_line_items_sku_trgm_idx ON order_line_items USING gin (lower(sku) gin_trgm_ops);

-- Payments awaiting capture read each authorization's captures and voids:
-- without this every authorization scanned all of the store's
-- transactions.
CREATE INDEX order_transactions_parent_idx ON order_transactions (parent_id) WHERE parent_id IS NOT NULL;
-- Their list and counts read the open authorizations from the index alone.
CREATE INDEX order_transactions_open_auth_idx ON order_transactions (store_id, created_at, id) INCLUDE (order_id, expires_at)
    WHERE kind = 'authorization' AND status = 'success';
DROP INDEX order_transactions_authorizations_idx;

-- Products: one index per sort, ending with the status.
CREATE INDEX products_store_title_idx ON products (store_id, lower(title), id, status);
CREATE INDEX products_store_created_idx ON products (store_id, created_at, id, status);
CREATE INDEX products_store_vendor_idx ON products (store_id, lower(vendor), id, status);
CREATE INDEX products_store_updated_status_idx ON products (store_id, updated_at, id, status);
CREATE INDEX products_store_type_idx ON products (store_id, lower(product_type));
DROP INDEX products_store_updated_idx;
CREATE INDEX products_handle_trgm_idx ON products USING gin (handle gin_trgm_ops);
CREATE INDEX product_variants_sku_trgm_idx ON product_variants USING gin (lower(sku) gin_trgm_ops);
-- The price sort orders products by their lowest variant price, which
-- computed per product read every product's variants (0.8 s for 100,000).
-- It is kept on the product instead, by a statement trigger on variants in
-- the transaction of every change to them, and sorted by indexes: one per
-- direction, since a product without variants comes last in both.
ALTER TABLE products ADD COLUMN min_price_cents bigint;
CREATE FUNCTION products_min_price() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'INSERT' THEN
        UPDATE products p SET min_price_cents = (SELECT min(v.price_cents) FROM product_variants v WHERE v.product_id = p.id)
        WHERE p.id IN (SELECT product_id FROM new_rows);
    ELSIF TG_OP = 'DELETE' THEN
        UPDATE products p SET min_price_cents = (SELECT min(v.price_cents) FROM product_variants v WHERE v.product_id = p.id)
        WHERE p.id IN (SELECT product_id FROM old_rows);
    ELSE
        UPDATE products p SET min_price_cents = (SELECT min(v.price_cents) FROM product_variants v WHERE v.product_id = p.id)
        WHERE p.id IN (SELECT n.product_id FROM new_rows n JOIN old_rows o ON o.id = n.id
                       WHERE n.price_cents IS DISTINCT FROM o.price_cents OR n.product_id <> o.product_id
                       UNION SELECT o.product_id FROM new_rows n JOIN old_rows o ON o.id = n.id WHERE n.product_id <> o.product_id);
    END IF;
    RETURN NULL;
END
$$;
LOCK TABLE product_variants IN SHARE ROW EXCLUSIVE MODE;
CREATE TRIGGER products_min_price_insert AFTER INSERT ON product_variants
    REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION products_min_price();
CREATE TRIGGER products_min_price_update AFTER UPDATE ON product_variants
    REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION products_min_price();
CREATE TRIGGER products_min_price_delete AFTER DELETE ON product_variants
    REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION products_min_price();
UPDATE products p SET min_price_cents = v.price FROM (SELECT product_id, min(price_cents) AS price FROM product_variants GROUP BY 1) v
WHERE v.product_id = p.id;
CREATE INDEX products_store_price_idx ON products (store_id, coalesce(min_price_cents, 9223372036854775807), id, status);
CREATE INDEX products_store_price_desc_idx ON products (store_id, coalesce(min_price_cents, -1), id, status);

-- Exact order totals. count(*) over a million orders takes longer than a
-- list may (100-270 ms), so the number of a store's orders is kept by
-- statement triggers in the transaction of every insert, update and delete
-- of orders: in order_counts per combination of the three statuses (the
-- total of a list filtered by statuses only, or not at all, is a sum over
-- at most 84 rows), and in order_day_counts also per day of creation (UTC),
-- so a created_at range is the sum of its whole days plus a count of the
-- orders of its two partial days (models CountOrders).
CREATE TABLE order_counts (
    store_id           bigint NOT NULL,
    status             text NOT NULL,
    financial_status   text NOT NULL,
    fulfillment_status text NOT NULL,
    n                  bigint NOT NULL,
    PRIMARY KEY (store_id, status, financial_status, fulfillment_status)
);
CREATE TABLE order_day_counts (
    store_id           bigint NOT NULL,
    day                date NOT NULL,
    status             text NOT NULL,
    financial_status   text NOT NULL,
    fulfillment_status text NOT NULL,
    n                  bigint NOT NULL,
    PRIMARY KEY (store_id, day, status, financial_status, fulfillment_status)
);
-- No foreign keys to stores: deleting a store deletes its orders, whose
-- trigger then empties the store's counts; a foreign key's cascade could
-- run first and the trigger would write counts for a store that is gone.

-- An order_delta is a change of the counts: n orders more (or fewer) of a
-- store, day and statuses.
CREATE TYPE order_delta AS (store_id bigint, day date, status text, financial_status text, fulfillment_status text, n bigint);

-- order_counts_apply adds deltas to both tables, in key order so that
-- concurrent statements take the count rows' locks in one order, and drops
-- counts that reach zero.
CREATE FUNCTION order_counts_apply(deltas order_delta[]) RETURNS void LANGUAGE sql AS $$
    INSERT INTO order_counts AS c
    SELECT store_id, status, financial_status, fulfillment_status, sum(n) FROM unnest(deltas)
    GROUP BY 1, 2, 3, 4 HAVING sum(n) <> 0 ORDER BY 1, 2, 3, 4
    ON CONFLICT (store_id, status, financial_status, fulfillment_status) DO UPDATE SET n = c.n + excluded.n;
    INSERT INTO order_day_counts AS c
    SELECT store_id, day, status, financial_status, fulfillment_status, sum(n) FROM unnest(deltas)
    GROUP BY 1, 2, 3, 4, 5 HAVING sum(n) <> 0 ORDER BY 1, 2, 3, 4, 5
    ON CONFLICT (store_id, day, status, financial_status, fulfillment_status) DO UPDATE SET n = c.n + excluded.n;
    DELETE FROM order_counts WHERE n = 0 AND store_id IN (SELECT store_id FROM unnest(deltas) WHERE n < 0);
    DELETE FROM order_day_counts WHERE n = 0 AND store_id IN (SELECT store_id FROM unnest(deltas) WHERE n < 0);
$$;

-- order_counts_add turns one statement's changed rows into deltas, grouped.
CREATE FUNCTION order_counts_add() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    deltas order_delta[];
BEGIN
    IF TG_OP = 'INSERT' THEN
        deltas := ARRAY(SELECT ROW(store_id, day, status, financial_status, fulfillment_status, n)::order_delta
                        FROM (SELECT store_id, (created_at AT TIME ZONE 'UTC')::date AS day, status, financial_status, fulfillment_status, count(*) AS n
                              FROM new_rows GROUP BY 1, 2, 3, 4, 5) g);
    ELSIF TG_OP = 'DELETE' THEN
        deltas := ARRAY(SELECT ROW(store_id, day, status, financial_status, fulfillment_status, -n)::order_delta
                        FROM (SELECT store_id, (created_at AT TIME ZONE 'UTC')::date AS day, status, financial_status, fulfillment_status, count(*) AS n
                              FROM old_rows GROUP BY 1, 2, 3, 4, 5) g);
    ELSE
        deltas := ARRAY(SELECT ROW(store_id, day, status, financial_status, fulfillment_status, n)::order_delta
                        FROM (SELECT store_id, day, status, financial_status, fulfillment_status, sum(d) AS n
                              FROM (SELECT store_id, (created_at AT TIME ZONE 'UTC')::date AS day, status, financial_status, fulfillment_status, 1 AS d FROM new_rows
                                    UNION ALL
                                    SELECT store_id, (created_at AT TIME ZONE 'UTC')::date, status, financial_status, fulfillment_status, -1 FROM old_rows) changes
                              GROUP BY 1, 2, 3, 4, 5 HAVING sum(d) <> 0) g);
    END IF;
    IF cardinality(deltas) > 0 THEN
        PERFORM order_counts_apply(deltas);
    END IF;
    RETURN NULL;
END
$$;

-- Writes to orders wait while the counts are filled, so none is missed.
LOCK TABLE orders IN SHARE ROW EXCLUSIVE MODE;
CREATE TRIGGER order_counts_insert AFTER INSERT ON orders
    REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION order_counts_add();
CREATE TRIGGER order_counts_update AFTER UPDATE ON orders
    REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION order_counts_add();
CREATE TRIGGER order_counts_delete AFTER DELETE ON orders
    REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION order_counts_add();
INSERT INTO order_day_counts
SELECT store_id, (created_at AT TIME ZONE 'UTC')::date, status, financial_status, fulfillment_status, count(*)
FROM orders GROUP BY 1, 2, 3, 4, 5;
INSERT INTO order_counts
SELECT store_id, status, financial_status, fulfillment_status, sum(n)
FROM order_day_counts GROUP BY 1, 2, 3, 4;

-- The counts and the lowest prices are derived data that must stay exact
-- whoever writes: these triggers fire in every session_replication_role,
-- including the replica role a bulk fill takes to skip foreign-key checks
-- (bench-data, as pg_restore --disable-triggers does).
ALTER TABLE orders ENABLE ALWAYS TRIGGER order_counts_insert;
ALTER TABLE orders ENABLE ALWAYS TRIGGER order_counts_update;
ALTER TABLE orders ENABLE ALWAYS TRIGGER order_counts_delete;
ALTER TABLE product_variants ENABLE ALWAYS TRIGGER products_min_price_insert;
ALTER TABLE product_variants ENABLE ALWAYS TRIGGER products_min_price_update;
ALTER TABLE product_variants ENABLE ALWAYS TRIGGER products_min_price_delete;
