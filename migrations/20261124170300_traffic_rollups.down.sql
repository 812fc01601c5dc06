DROP TRIGGER storefront_sessions_steps_insert ON storefront_events;
DROP TRIGGER storefront_sessions_steps_update ON storefront_events;
DROP TRIGGER storefront_sessions_steps_delete ON storefront_events;
DROP TRIGGER storefront_sessions_steps_insert ON carts;
DROP TRIGGER storefront_sessions_steps_update ON carts;
DROP TRIGGER storefront_sessions_steps_delete ON carts;
DROP TRIGGER storefront_sessions_steps_insert ON checkouts;
DROP TRIGGER storefront_sessions_steps_update ON checkouts;
DROP TRIGGER storefront_sessions_steps_delete ON checkouts;
DROP TRIGGER storefront_sessions_steps_insert ON orders;
DROP TRIGGER storefront_sessions_steps_update ON orders;
DROP TRIGGER storefront_sessions_steps_delete ON orders;
DROP TRIGGER traffic_rollups_insert ON storefront_sessions;
DROP TRIGGER traffic_rollups_update ON storefront_sessions;
DROP TRIGGER traffic_rollups_delete ON storefront_sessions;
DROP FUNCTION traffic_rollups_add();
DROP FUNCTION traffic_rollups_apply(traffic_delta[]);
DROP TYPE traffic_delta;
DROP TABLE traffic_slots, traffic_landing_slots;
DROP FUNCTION storefront_sessions_prev(bigint[]);
DROP FUNCTION storefront_sessions_steps_events();
DROP FUNCTION storefront_sessions_steps_carts();
DROP FUNCTION storefront_sessions_steps_checkouts();
DROP FUNCTION storefront_sessions_steps_orders();
DROP FUNCTION storefront_sessions_steps(bigint[]);
DROP INDEX storefront_sessions_traffic_idx, storefront_sessions_landing_idx;
ALTER TABLE storefront_sessions
    DROP COLUMN viewed_product, DROP COLUMN carted, DROP COLUMN reached_checkout, DROP COLUMN checkout_attempts,
    DROP COLUMN orders, DROP COLUMN revenue_cents, DROP COLUMN prev_seen_at, DROP COLUMN prev_landing_seen_at;
