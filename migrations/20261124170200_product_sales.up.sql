-- Sales by product (internal/analytics/sales.go): each store's sales and
-- refunds per 15-minute UTC slot and product variant, kept by statement
-- triggers in the transaction of every change to orders, their lines,
-- refunds and refund lines, so the report never lags and a 90-day window
-- over a million orders sums slots instead of reading every line.
--
-- A row's key is the line's product (0 for a custom line, one without a
-- product) and variant (0 when the line has none, and for custom lines).
-- Sales count at the order's created_at when the order counts (not
-- cancelled before money was taken, analytics.CountedOrder); refunds count
-- at the refund's created_at when it succeeded, whatever the order.
CREATE TABLE product_sales_slots (
    store_id            bigint NOT NULL,
    slot                timestamptz NOT NULL,
    product_id          bigint NOT NULL,
    variant_id          bigint NOT NULL,
    -- Orders with a line of the variant.
    variant_orders      bigint NOT NULL,
    -- Orders in which this is the product's lowest variant key: summed over
    -- a product's variants, the orders with the product, each once.
    product_orders      bigint NOT NULL,
    items               bigint NOT NULL,
    gross_cents         bigint NOT NULL,
    line_discount_cents bigint NOT NULL,
    sales_cents         bigint NOT NULL,
    discount_cents      bigint NOT NULL,
    tax_cents           bigint NOT NULL,
    refunded_items      bigint NOT NULL,
    refunded_cents      bigint NOT NULL,
    PRIMARY KEY (store_id, slot, product_id, variant_id)
);
-- No foreign key to stores, as order_counts: the triggers empty a deleted
-- store's rows themselves.

CREATE TYPE product_sales_delta AS (
    store_id bigint, slot timestamptz, product_id bigint, variant_id bigint,
    variant_orders bigint, product_orders bigint, items bigint, gross_cents bigint, line_discount_cents bigint,
    sales_cents bigint, discount_cents bigint, tax_cents bigint, refunded_items bigint, refunded_cents bigint);

-- The rollup slot of an instant (analytics.SlotOf).
CREATE FUNCTION product_sales_slot(t timestamptz) RETURNS timestamptz LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT date_bin('15 minutes', t, timestamptz '2000-01-01 00:00:00+00')
$$;

-- product_sales_of_lines is what the lines ls of the orders os add to the
-- rollups, times sign. A line's gross is its original price (never below
-- the price) times its quantity, its markdown the difference, its sales
-- the price times the quantity; its discount and tax the shares the
-- pricing engine gave it (migration 20261124170000).
CREATE FUNCTION product_sales_of_lines(os orders[], ls order_line_items[], sign bigint)
RETURNS SETOF product_sales_delta LANGUAGE sql STABLE AS $$
    SELECT o.store_id, product_sales_slot(o.created_at), g.product_id, g.variant_id,
           sign, sign * (g.variant_id = min(g.variant_id) OVER (PARTITION BY g.order_id, g.product_id))::int,
           sign * g.items, sign * g.gross, sign * (g.gross - g.sales), sign * g.sales, sign * g.discount, sign * g.tax, 0, 0
    FROM (SELECT l.order_id, coalesce(l.product_id, 0) AS product_id,
                 CASE WHEN l.product_id IS NULL THEN 0 ELSE coalesce(l.variant_id, 0) END AS variant_id,
                 sum(l.quantity) AS items,
                 sum(greatest(coalesce(l.original_price_cents, l.price_cents), l.price_cents) * l.quantity) AS gross,
                 sum(l.price_cents * l.quantity) AS sales,
                 sum(l.discount_cents) AS discount, sum(l.tax_cents) AS tax
          FROM unnest(ls) AS l GROUP BY 1, 2, 3) AS g
    JOIN unnest(os) AS o ON o.id = g.order_id
    WHERE NOT (o.status = 'cancelled' AND o.financial_status IN ('pending', 'authorized', 'voided'))
$$;

-- product_sales_of_refunds is what the refunds rs (with their lines rls, of
-- the lines ls of the orders os) add to the rollups, times sign. A refund's
-- money for its lines is what models.planRefund asks for them — their
-- price × quantity's share of what the shopper paid for the goods
-- (subtotal − discount + tax), rounded half up — or the refund's amount
-- when that is less; the rest (shipping, goodwill) is in no row. That money
-- is shared among the refund's lines by price × quantity with the pricing
-- engine's largest-remainder rule (pricing.Allocate; the lower line id on
-- a tie).
CREATE FUNCTION product_sales_of_refunds(os orders[], ls order_line_items[], rs refunds[], rls refund_line_items[], sign bigint)
RETURNS SETOF product_sales_delta LANGUAGE sql STABLE AS $$
    WITH parts AS (
        SELECT r.id AS refund_id, r.store_id, r.created_at, rl.line_item_id, rl.quantity,
               coalesce(l.product_id, 0) AS product_id,
               CASE WHEN l.product_id IS NULL THEN 0 ELSE coalesce(l.variant_id, 0) END AS variant_id,
               (l.price_cents * rl.quantity)::numeric AS w,
               sum(l.price_cents * rl.quantity) OVER (PARTITION BY r.id)::numeric AS total,
               CASE WHEN o.subtotal_cents > 0 THEN least(r.amount_cents,
                   div(sum(l.price_cents * rl.quantity) OVER (PARTITION BY r.id)::numeric
                       * (o.subtotal_cents - o.discount_cents + o.tax_cents) + o.subtotal_cents / 2, o.subtotal_cents))
               ELSE 0 END AS money
        FROM unnest(rs) AS r
        JOIN unnest(os) AS o ON o.id = r.order_id
        JOIN unnest(rls) AS rl ON rl.refund_id = r.id
        JOIN unnest(ls) AS l ON l.id = rl.line_item_id
        WHERE r.status = 'success'
    ), floors AS (
        SELECT p.*, CASE WHEN total > 0 THEN div(money * w, total) ELSE 0 END AS share,
               CASE WHEN total > 0 THEN mod(money * w, total) ELSE 0 END AS remainder
        FROM parts AS p
    ), ranked AS (
        SELECT f.*, money - sum(share) OVER (PARTITION BY refund_id) AS left_over,
               row_number() OVER (PARTITION BY refund_id ORDER BY remainder DESC, line_item_id) AS rank
        FROM floors AS f
    )
    SELECT store_id, product_sales_slot(created_at), product_id, variant_id, 0, 0, 0, 0, 0, 0, 0, 0,
           sign * sum(quantity), sign * sum(share + CASE WHEN remainder > 0 AND rank <= left_over THEN 1 ELSE 0 END)::bigint
    FROM ranked GROUP BY 1, 2, 3, 4
$$;

-- product_sales_apply adds deltas, in key order so that concurrent
-- statements lock the rollup rows in one order, and drops rows that reach
-- zero.
CREATE FUNCTION product_sales_apply(deltas product_sales_delta[]) RETURNS void LANGUAGE sql AS $$
    INSERT INTO product_sales_slots AS s
    SELECT store_id, slot, product_id, variant_id, sum(variant_orders), sum(product_orders), sum(items), sum(gross_cents),
           sum(line_discount_cents), sum(sales_cents), sum(discount_cents), sum(tax_cents), sum(refunded_items), sum(refunded_cents)
    FROM unnest(deltas) GROUP BY 1, 2, 3, 4
    HAVING ROW(sum(variant_orders), sum(product_orders), sum(items), sum(gross_cents), sum(line_discount_cents), sum(sales_cents),
               sum(discount_cents), sum(tax_cents), sum(refunded_items), sum(refunded_cents)) <> ROW(0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
    ORDER BY 1, 2, 3, 4
    ON CONFLICT (store_id, slot, product_id, variant_id) DO UPDATE SET
        variant_orders = s.variant_orders + excluded.variant_orders, product_orders = s.product_orders + excluded.product_orders,
        items = s.items + excluded.items, gross_cents = s.gross_cents + excluded.gross_cents,
        line_discount_cents = s.line_discount_cents + excluded.line_discount_cents, sales_cents = s.sales_cents + excluded.sales_cents,
        discount_cents = s.discount_cents + excluded.discount_cents, tax_cents = s.tax_cents + excluded.tax_cents,
        refunded_items = s.refunded_items + excluded.refunded_items, refunded_cents = s.refunded_cents + excluded.refunded_cents;
    DELETE FROM product_sales_slots AS s
    WHERE (s.store_id, s.slot, s.product_id, s.variant_id) IN (SELECT store_id, slot, product_id, variant_id FROM unnest(deltas))
      AND ROW(s.variant_orders, s.product_orders, s.items, s.gross_cents, s.line_discount_cents, s.sales_cents, s.discount_cents,
              s.tax_cents, s.refunded_items, s.refunded_cents) = ROW(0, 0, 0, 0, 0, 0, 0, 0, 0, 0);
$$;

-- Each trigger works out the rows its statement touched before and after
-- it, and adds after − before. A deleted order or refund is taken out by a
-- row trigger before it goes, while its lines are still there: the
-- deletions its foreign keys cascade to find no order or refund afterwards
-- and add nothing.

-- Orders: a new order's lines (when they came first, as in a bulk fill), a
-- change of what makes it count, its time or its figures (a refund's money
-- for its lines depends on them).
CREATE FUNCTION product_sales_orders() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    before_orders orders[];
    after_orders  orders[];
    ls order_line_items[];
    rs refunds[];
    rls refund_line_items[];
BEGIN
    IF TG_OP = 'DELETE' THEN
        before_orders := ARRAY[OLD];
        after_orders := '{}';
    ELSIF TG_OP = 'INSERT' THEN
        before_orders := '{}';
        after_orders := ARRAY(SELECT n FROM new_rows AS n);
    ELSE
        before_orders := ARRAY(SELECT o FROM old_rows AS o JOIN new_rows AS n ON n.id = o.id
            WHERE (o.store_id, o.created_at, o.status, o.financial_status, o.subtotal_cents, o.discount_cents, o.tax_cents)
                  IS DISTINCT FROM (n.store_id, n.created_at, n.status, n.financial_status, n.subtotal_cents, n.discount_cents, n.tax_cents));
        after_orders := ARRAY(SELECT n FROM old_rows AS o JOIN new_rows AS n ON n.id = o.id
            WHERE (o.store_id, o.created_at, o.status, o.financial_status, o.subtotal_cents, o.discount_cents, o.tax_cents)
                  IS DISTINCT FROM (n.store_id, n.created_at, n.status, n.financial_status, n.subtotal_cents, n.discount_cents, n.tax_cents));
    END IF;
    IF cardinality(before_orders) + cardinality(after_orders) > 0 THEN
        ls := ARRAY(SELECT l FROM order_line_items AS l
                    WHERE l.order_id IN (SELECT id FROM unnest(before_orders) UNION SELECT id FROM unnest(after_orders)));
        rs := ARRAY(SELECT r FROM refunds AS r
                    WHERE r.order_id IN (SELECT id FROM unnest(before_orders) UNION SELECT id FROM unnest(after_orders)));
        rls := ARRAY(SELECT rl FROM refund_line_items AS rl WHERE rl.refund_id IN (SELECT id FROM unnest(rs)));
        PERFORM product_sales_apply(ARRAY(
            SELECT d FROM product_sales_of_lines(after_orders, ls, 1) AS d
            UNION ALL SELECT d FROM product_sales_of_lines(before_orders, ls, -1) AS d
            UNION ALL SELECT d FROM product_sales_of_refunds(after_orders, ls, rs, rls, 1) AS d
            UNION ALL SELECT d FROM product_sales_of_refunds(before_orders, ls, rs, rls, -1) AS d));
    END IF;
    IF TG_OP = 'DELETE' THEN
        RETURN OLD;
    END IF;
    RETURN NULL;
END
$$;

-- Order lines: the lines of the orders touched, as they are now and as
-- they were (now, less the statement's new rows, plus its old ones).
CREATE FUNCTION product_sales_lines() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    touched bigint[];
    os orders[];
    after_lines  order_line_items[];
    before_lines order_line_items[];
    rs refunds[];
    rls refund_line_items[];
BEGIN
    IF TG_OP = 'INSERT' THEN
        touched := ARRAY(SELECT DISTINCT order_id FROM new_rows);
        before_lines := '{}';
    ELSIF TG_OP = 'DELETE' THEN
        touched := ARRAY(SELECT DISTINCT order_id FROM old_rows);
        before_lines := ARRAY(SELECT o FROM old_rows AS o);
    ELSE
        touched := ARRAY(SELECT n.order_id FROM new_rows AS n JOIN old_rows AS o ON o.id = n.id
                         WHERE (o.order_id, o.product_id, o.variant_id, o.price_cents, o.original_price_cents, o.quantity, o.discount_cents, o.tax_cents)
                               IS DISTINCT FROM (n.order_id, n.product_id, n.variant_id, n.price_cents, n.original_price_cents, n.quantity, n.discount_cents, n.tax_cents)
                         UNION SELECT o.order_id FROM new_rows AS n JOIN old_rows AS o ON o.id = n.id WHERE o.order_id <> n.order_id);
        before_lines := ARRAY(SELECT o FROM old_rows AS o WHERE o.order_id = ANY (touched));
    END IF;
    IF cardinality(touched) = 0 THEN
        RETURN NULL;
    END IF;
    os := ARRAY(SELECT o FROM orders AS o WHERE o.id = ANY (touched));
    IF cardinality(os) = 0 THEN
        RETURN NULL; -- the orders' deletion took their lines out
    END IF;
    after_lines := ARRAY(SELECT l FROM order_line_items AS l WHERE l.order_id = ANY (touched));
    IF TG_OP <> 'DELETE' THEN
        before_lines := before_lines || ARRAY(SELECT l FROM unnest(after_lines) AS l WHERE l.id NOT IN (SELECT id FROM new_rows));
    ELSE
        before_lines := before_lines || after_lines;
    END IF;
    rs := ARRAY(SELECT r FROM refunds AS r WHERE r.order_id = ANY (touched));
    IF cardinality(rs) > 0 THEN
        rls := ARRAY(SELECT rl FROM refund_line_items AS rl WHERE rl.refund_id IN (SELECT id FROM unnest(rs)));
    ELSE
        rls := '{}';
    END IF;
    PERFORM product_sales_apply(ARRAY(
        SELECT d FROM product_sales_of_lines(os, after_lines, 1) AS d
        UNION ALL SELECT d FROM product_sales_of_lines(os, before_lines, -1) AS d
        UNION ALL SELECT d FROM product_sales_of_refunds(os, after_lines, rs, rls, 1) AS d
        UNION ALL SELECT d FROM product_sales_of_refunds(os, before_lines, rs, rls, -1) AS d));
    RETURN NULL;
END
$$;

-- Refunds: a new or changed refund's money (its lines usually come after
-- it, in their own statement).
CREATE FUNCTION product_sales_refunds() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    before_refunds refunds[];
    after_refunds  refunds[];
    os orders[];
    ls order_line_items[];
    rls refund_line_items[];
BEGIN
    IF TG_OP = 'DELETE' THEN
        before_refunds := ARRAY[OLD];
        after_refunds := '{}';
    ELSIF TG_OP = 'INSERT' THEN
        before_refunds := '{}';
        after_refunds := ARRAY(SELECT n FROM new_rows AS n);
    ELSE
        before_refunds := ARRAY(SELECT o FROM old_rows AS o JOIN new_rows AS n ON n.id = o.id
            WHERE (o.store_id, o.order_id, o.amount_cents, o.status, o.created_at) IS DISTINCT FROM (n.store_id, n.order_id, n.amount_cents, n.status, n.created_at));
        after_refunds := ARRAY(SELECT n FROM old_rows AS o JOIN new_rows AS n ON n.id = o.id
            WHERE (o.store_id, o.order_id, o.amount_cents, o.status, o.created_at) IS DISTINCT FROM (n.store_id, n.order_id, n.amount_cents, n.status, n.created_at));
    END IF;
    rls := ARRAY(SELECT rl FROM refund_line_items AS rl
                 WHERE rl.refund_id IN (SELECT id FROM unnest(before_refunds) UNION SELECT id FROM unnest(after_refunds)));
    IF cardinality(rls) > 0 THEN
        os := ARRAY(SELECT o FROM orders AS o
                    WHERE o.id IN (SELECT order_id FROM unnest(before_refunds) UNION SELECT order_id FROM unnest(after_refunds)));
        ls := ARRAY(SELECT l FROM order_line_items AS l WHERE l.id IN (SELECT line_item_id FROM unnest(rls)));
        PERFORM product_sales_apply(ARRAY(
            SELECT d FROM product_sales_of_refunds(os, ls, after_refunds, rls, 1) AS d
            UNION ALL SELECT d FROM product_sales_of_refunds(os, ls, before_refunds, rls, -1) AS d));
    END IF;
    IF TG_OP = 'DELETE' THEN
        RETURN OLD;
    END IF;
    RETURN NULL;
END
$$;

-- Refund lines: the lines of the refunds touched, now and before.
CREATE FUNCTION product_sales_refund_lines() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    touched bigint[];
    rs refunds[];
    os orders[];
    ls order_line_items[];
    after_rls  refund_line_items[];
    before_rls refund_line_items[];
BEGIN
    IF TG_OP = 'INSERT' THEN
        touched := ARRAY(SELECT DISTINCT refund_id FROM new_rows);
        before_rls := '{}';
    ELSIF TG_OP = 'DELETE' THEN
        touched := ARRAY(SELECT DISTINCT refund_id FROM old_rows);
        before_rls := ARRAY(SELECT o FROM old_rows AS o);
    ELSE
        touched := ARRAY(SELECT refund_id FROM new_rows UNION SELECT refund_id FROM old_rows);
        before_rls := ARRAY(SELECT o FROM old_rows AS o);
    END IF;
    rs := ARRAY(SELECT r FROM refunds AS r WHERE r.id = ANY (touched));
    IF cardinality(rs) = 0 THEN
        RETURN NULL; -- the refunds' deletion took their lines out
    END IF;
    after_rls := ARRAY(SELECT rl FROM refund_line_items AS rl WHERE rl.refund_id = ANY (touched));
    IF TG_OP = 'DELETE' THEN
        before_rls := before_rls || after_rls;
    ELSE
        before_rls := before_rls || ARRAY(SELECT rl FROM unnest(after_rls) AS rl
            WHERE (rl.refund_id, rl.line_item_id) NOT IN (SELECT refund_id, line_item_id FROM new_rows));
    END IF;
    os := ARRAY(SELECT o FROM orders AS o WHERE o.id IN (SELECT order_id FROM unnest(rs)));
    ls := ARRAY(SELECT l FROM order_line_items AS l
                WHERE l.id IN (SELECT line_item_id FROM unnest(after_rls) UNION SELECT line_item_id FROM unnest(before_rls)));
    PERFORM product_sales_apply(ARRAY(
        SELECT d FROM product_sales_of_refunds(os, ls, rs, after_rls, 1) AS d
        UNION ALL SELECT d FROM product_sales_of_refunds(os, ls, rs, before_rls, -1) AS d));
    RETURN NULL;
END
$$;

-- product_sales_fill writes a store's rollups (every store's when store is
-- null) from the raw rows: the migration's first fill and
-- analytics.RebuildSalesRollups, after deleting what was there.
CREATE FUNCTION product_sales_fill(store bigint) RETURNS void LANGUAGE sql AS $$
    INSERT INTO product_sales_slots
    SELECT store_id, slot, product_id, variant_id, sum(variant_orders), sum(product_orders), sum(items), sum(gross_cents),
           sum(line_discount_cents), sum(sales_cents), sum(discount_cents), sum(tax_cents), sum(refunded_items), sum(refunded_cents)
    FROM (
        SELECT d.* FROM orders AS o0
        CROSS JOIN LATERAL product_sales_of_lines(ARRAY[o0], ARRAY(SELECT l FROM order_line_items AS l WHERE l.order_id = o0.id), 1) AS d
        WHERE store IS NULL OR o0.store_id = store
        UNION ALL
        SELECT d.* FROM refunds AS r0
        JOIN orders AS o0 ON o0.id = r0.order_id
        CROSS JOIN LATERAL (SELECT ARRAY(SELECT rl FROM refund_line_items AS rl WHERE rl.refund_id = r0.id) AS rls) AS x
        CROSS JOIN LATERAL product_sales_of_refunds(ARRAY[o0],
            ARRAY(SELECT l FROM order_line_items AS l WHERE l.id IN (SELECT line_item_id FROM unnest(x.rls))), ARRAY[r0], x.rls, 1) AS d
        WHERE (store IS NULL OR r0.store_id = store) AND cardinality(x.rls) > 0
    ) AS deltas
    GROUP BY 1, 2, 3, 4
    HAVING ROW(sum(variant_orders), sum(product_orders), sum(items), sum(gross_cents), sum(line_discount_cents), sum(sales_cents),
               sum(discount_cents), sum(tax_cents), sum(refunded_items), sum(refunded_cents)) <> ROW(0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
$$;

-- Writes wait while the rollups are filled, so none is missed.
LOCK TABLE orders, order_line_items, refunds, refund_line_items IN SHARE ROW EXCLUSIVE MODE;
CREATE TRIGGER product_sales_orders_insert AFTER INSERT ON orders
    REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION product_sales_orders();
CREATE TRIGGER product_sales_orders_update AFTER UPDATE ON orders
    REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION product_sales_orders();
CREATE TRIGGER product_sales_orders_delete BEFORE DELETE ON orders
    FOR EACH ROW EXECUTE FUNCTION product_sales_orders();
CREATE TRIGGER product_sales_lines_insert AFTER INSERT ON order_line_items
    REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION product_sales_lines();
CREATE TRIGGER product_sales_lines_update AFTER UPDATE ON order_line_items
    REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION product_sales_lines();
CREATE TRIGGER product_sales_lines_delete AFTER DELETE ON order_line_items
    REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION product_sales_lines();
CREATE TRIGGER product_sales_refunds_insert AFTER INSERT ON refunds
    REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION product_sales_refunds();
CREATE TRIGGER product_sales_refunds_update AFTER UPDATE ON refunds
    REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION product_sales_refunds();
CREATE TRIGGER product_sales_refunds_delete BEFORE DELETE ON refunds
    FOR EACH ROW EXECUTE FUNCTION product_sales_refunds();
CREATE TRIGGER product_sales_refund_lines_insert AFTER INSERT ON refund_line_items
    REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION product_sales_refund_lines();
CREATE TRIGGER product_sales_refund_lines_update AFTER UPDATE ON refund_line_items
    REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION product_sales_refund_lines();
CREATE TRIGGER product_sales_refund_lines_delete AFTER DELETE ON refund_line_items
    REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION product_sales_refund_lines();
SELECT product_sales_fill(NULL);

-- Derived data that must stay exact whoever writes, bulk fills in the
-- replica role included (as order_counts).
ALTER TABLE orders ENABLE ALWAYS TRIGGER product_sales_orders_insert;
ALTER TABLE orders ENABLE ALWAYS TRIGGER product_sales_orders_update;
ALTER TABLE orders ENABLE ALWAYS TRIGGER product_sales_orders_delete;
ALTER TABLE order_line_items ENABLE ALWAYS TRIGGER product_sales_lines_insert;
ALTER TABLE order_line_items ENABLE ALWAYS TRIGGER product_sales_lines_update;
ALTER TABLE order_line_items ENABLE ALWAYS TRIGGER product_sales_lines_delete;
ALTER TABLE refunds ENABLE ALWAYS TRIGGER product_sales_refunds_insert;
ALTER TABLE refunds ENABLE ALWAYS TRIGGER product_sales_refunds_update;
ALTER TABLE refunds ENABLE ALWAYS TRIGGER product_sales_refunds_delete;
ALTER TABLE refund_line_items ENABLE ALWAYS TRIGGER product_sales_refund_lines_insert;
ALTER TABLE refund_line_items ENABLE ALWAYS TRIGGER product_sales_refund_lines_update;
ALTER TABLE refund_line_items ENABLE ALWAYS TRIGGER product_sales_refund_lines_delete;
