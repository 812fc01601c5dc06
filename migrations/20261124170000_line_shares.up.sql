-- Each order line's share of its order's discount and tax, as the pricing
-- engine allocated them (models.OrderPlacement), so sales by product
-- reconciles to the orders. Orders placed before this migration get the
-- engine's rule applied to their stored totals: the discount shared among
-- the lines in proportion to their totals, the tax in proportion to what
-- is left of them, each by the largest-remainder method (the earlier line
-- on a tie), so the shares sum to the order's figures exactly.
ALTER TABLE order_line_items
    ADD COLUMN discount_cents bigint NOT NULL DEFAULT 0 CHECK (discount_cents >= 0),
    ADD COLUMN tax_cents      bigint NOT NULL DEFAULT 0 CHECK (tax_cents >= 0);

WITH weights AS (
    SELECT l.id, o.discount_cents AS amount, l.price_cents * l.quantity AS w,
           sum(l.price_cents * l.quantity) OVER (PARTITION BY l.order_id) AS total,
           l.order_id, l.position
    FROM order_line_items AS l JOIN orders AS o ON o.id = l.order_id
    WHERE o.discount_cents > 0
), floors AS (
    SELECT id, order_id, position, amount,
           CASE WHEN total > 0 THEN (amount::numeric * w / total)::numeric ELSE 0 END AS exact
    FROM weights
), ranked AS (
    SELECT id, floor(exact)::bigint AS share,
           amount - sum(floor(exact)) OVER (PARTITION BY order_id) AS left_over,
           row_number() OVER (PARTITION BY order_id ORDER BY exact - floor(exact) DESC, position, id) AS rank,
           exact - floor(exact) AS remainder
    FROM floors
)
UPDATE order_line_items AS l
SET discount_cents = r.share + CASE WHEN r.remainder > 0 AND r.rank <= r.left_over THEN 1 ELSE 0 END
FROM ranked AS r WHERE r.id = l.id;

WITH weights AS (
    SELECT l.id, o.tax_cents AS amount, l.price_cents * l.quantity - l.discount_cents AS w,
           sum(l.price_cents * l.quantity - l.discount_cents) OVER (PARTITION BY l.order_id) AS total,
           l.order_id, l.position
    FROM order_line_items AS l JOIN orders AS o ON o.id = l.order_id
    WHERE o.tax_cents > 0
), floors AS (
    SELECT id, order_id, position, amount,
           CASE WHEN total > 0 THEN (amount::numeric * w / total)::numeric ELSE 0 END AS exact
    FROM weights
), ranked AS (
    SELECT id, floor(exact)::bigint AS share,
           amount - sum(floor(exact)) OVER (PARTITION BY order_id) AS left_over,
           row_number() OVER (PARTITION BY order_id ORDER BY exact - floor(exact) DESC, position, id) AS rank,
           exact - floor(exact) AS remainder
    FROM floors
)
UPDATE order_line_items AS l
SET tax_cents = r.share + CASE WHEN r.remainder > 0 AND r.rank <= r.left_over THEN 1 ELSE 0 END
FROM ranked AS r WHERE r.id = l.id;
