-- Back to 20261124170300's steps: recomputed from the events left.
CREATE OR REPLACE FUNCTION storefront_sessions_steps_of(ids bigint[])
RETURNS TABLE (id bigint, viewed_product boolean, carted boolean, reached_checkout boolean,
               checkout_attempts int, orders int, revenue_cents bigint)
LANGUAGE sql STABLE AS $$
    SELECT s.id, ev.viewed_product, ev.add_to_cart OR ca.items, chk.n > 0 OR ev.checkout_step, chk.n, ord.n, ord.revenue
    FROM storefront_sessions s
    CROSS JOIN LATERAL (SELECT coalesce(bool_or(e.name = 'product_view'), false) AS viewed_product,
                               coalesce(bool_or(e.name = 'add_to_cart'), false) AS add_to_cart,
                               coalesce(bool_or(e.name = 'checkout_step'), false) AS checkout_step
                        FROM storefront_events e
                        WHERE e.session_id = s.id AND e.name IN ('product_view', 'add_to_cart', 'checkout_step')) ev
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
    ELSIF TG_OP = 'DELETE' THEN
        PERFORM storefront_sessions_steps(ARRAY(SELECT DISTINCT session_id FROM old_rows
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

CREATE TRIGGER storefront_sessions_steps_delete AFTER DELETE ON storefront_events
    REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION storefront_sessions_steps_events();
ALTER TABLE storefront_events ENABLE ALWAYS TRIGGER storefront_sessions_steps_delete;
