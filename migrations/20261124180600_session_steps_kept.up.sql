-- A session keeps the steps its events showed when the retention job
-- purges them (serve --events-retention, 400 days by default). Before, the
-- purge's DELETE recomputed the steps of the sessions it touched from the
-- events left, none: sessions older than the horizon lost their product
-- views, add-to-carts and checkout steps, so the traffic reports of an old
-- window changed, and every purge rewrote a page of sessions (127,000 rows
-- on a store of 5,000,000, whose index-only reads then went to the heap
-- until the next vacuum: the 90-day traffic report 125 ms -> 1.1 s).
--
-- Events are deleted only by the purge (and with their store); a session
-- always begins with an event, so a session without events had them
-- purged: its steps from events are what its row says, and a change of
-- its carts, checkouts or orders still counts.
DROP TRIGGER storefront_sessions_steps_delete ON storefront_events;

CREATE OR REPLACE FUNCTION storefront_sessions_steps_of(ids bigint[])
RETURNS TABLE (id bigint, viewed_product boolean, carted boolean, reached_checkout boolean,
               checkout_attempts int, orders int, revenue_cents bigint)
LANGUAGE sql STABLE AS $$
    SELECT s.id,
           CASE WHEN ev.kept THEN ev.viewed_product ELSE s.viewed_product END,
           CASE WHEN ev.kept THEN ev.add_to_cart ELSE s.carted END OR ca.items,
           chk.n > 0 OR CASE WHEN ev.kept THEN ev.checkout_step ELSE s.reached_checkout END,
           chk.n, ord.n, ord.revenue
    FROM storefront_sessions s
    CROSS JOIN LATERAL (SELECT count(*) > 0 AS kept,
                               coalesce(bool_or(e.name = 'product_view'), false) AS viewed_product,
                               coalesce(bool_or(e.name = 'add_to_cart'), false) AS add_to_cart,
                               coalesce(bool_or(e.name = 'checkout_step'), false) AS checkout_step
                        FROM storefront_events e
                        WHERE e.session_id = s.id) ev
    CROSS JOIN LATERAL (SELECT count(*) > 0 AS items FROM carts c WHERE c.session_id = s.id AND c.item_count > 0) ca
    CROSS JOIN LATERAL (SELECT count(*)::int AS n FROM checkouts c WHERE c.session_id = s.id) chk
    CROSS JOIN LATERAL (SELECT count(*)::int AS n, coalesce(sum(o.total_cents), 0)::bigint AS revenue
                        FROM orders o WHERE o.store_id = s.store_id AND o.session_id = s.id) ord
    WHERE s.id = ANY (ids)
$$;

CREATE OR REPLACE FUNCTION storefront_sessions_steps_events() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'INSERT' THEN
        PERFORM storefront_sessions_steps(ARRAY(SELECT DISTINCT session_id FROM new_rows
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
