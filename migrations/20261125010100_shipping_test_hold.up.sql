-- A shipping rate is held by one running or paused shipping test of its
-- store at most, as a product is by one price test
-- (experiment_price_products_held_idx): two on one rate would each show
-- their own price while the checkout charges one. The unique index decides,
-- so of two concurrent starts one wins; a start it refuses is a 409 naming
-- the rate and the test holding it (models.StartExperiment). The key is the
-- surface's jsonb value, so 7 and 7.0 are one rate and nothing is cast.
--
-- Tests that already share a rate cannot all keep it: the newest keeps it
-- (the one whose arms the checkout charged), the older ones end here with
-- no winner, their open pause closed, as an end would. Their results were
-- never what their arms showed.
WITH ranked AS (
    SELECT id, row_number() OVER (PARTITION BY store_id, surface -> 'shipping_rate_id' ORDER BY id DESC) AS rank
    FROM experiments
    WHERE kind = 'shipping' AND status IN ('running', 'paused')
), overlapped AS (
    SELECT id FROM ranked WHERE rank > 1
), closed AS (
    UPDATE experiment_pauses SET resumed_at = now()
    WHERE resumed_at IS NULL AND experiment_id IN (SELECT id FROM overlapped)
)
UPDATE experiments SET status = 'ended', ended_at = now(), paused_at = NULL, paused_reason = '', updated_at = now()
WHERE id IN (SELECT id FROM overlapped);

CREATE UNIQUE INDEX experiments_shipping_rate_held_idx ON experiments (store_id, (surface -> 'shipping_rate_id'))
    WHERE kind = 'shipping' AND status IN ('running', 'paused');
