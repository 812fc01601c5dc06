-- What a product list shows of a product beyond its own row: its lowest
-- variant price (min_price_cents, which a trigger on the variants keeps) and
-- its first image. A view, so that a page of products can join it
-- (models.ProductSummaryJoin) and a loader can read it (ProductSummaries)
-- with one definition.
CREATE VIEW product_summaries AS
SELECT p.id AS product_id,
       p.store_id,
       p.min_price_cents AS lowest_price_cents,
       (SELECT i.src FROM product_images i
         WHERE i.product_id = p.id
         ORDER BY i.position, i.id
         LIMIT 1) AS image_src
FROM products p;
