DROP TRIGGER IF EXISTS analytics_orders_insert ON orders;
DROP TRIGGER IF EXISTS analytics_orders_update ON orders;
DROP TRIGGER IF EXISTS analytics_orders_delete ON orders;
DROP TRIGGER IF EXISTS analytics_orders_lines_first ON orders;
DROP TRIGGER IF EXISTS analytics_lines_insert ON order_line_items;
DROP TRIGGER IF EXISTS analytics_lines_update ON order_line_items;
DROP TRIGGER IF EXISTS analytics_lines_delete ON order_line_items;
DROP TRIGGER IF EXISTS analytics_refunds_insert ON refunds;
DROP TRIGGER IF EXISTS analytics_refunds_update ON refunds;
DROP TRIGGER IF EXISTS analytics_refunds_delete ON refunds;
DROP FUNCTION IF EXISTS analytics_orders_changed(), analytics_order_lines_first(), analytics_lines_changed(), analytics_refunds_changed(),
    analytics_order_apply(analytics_order_delta[]), analytics_source_apply(analytics_source_delta[]),
    analytics_discount_apply(analytics_discount_delta[]), analytics_product_apply(analytics_product_delta[]),
    analytics_order_rollups_forget(bigint[]), analytics_order_rollups_rebuild(bigint),
    analytics_order_slots_raw(bigint, timestamptz, timestamptz), analytics_source_slots_raw(bigint, timestamptz, timestamptz),
    analytics_discount_slots_raw(bigint, timestamptz, timestamptz), analytics_product_slots_raw(bigint, timestamptz, timestamptz),
    analytics_first_orders_raw(bigint);
DROP TYPE IF EXISTS analytics_order_change, analytics_line_change, analytics_refund_change,
    analytics_order_delta, analytics_source_delta, analytics_discount_delta, analytics_product_delta;
DROP TABLE IF EXISTS analytics_order_slots, analytics_source_slots, analytics_discount_slots, analytics_product_slots, analytics_first_orders;
DROP INDEX IF EXISTS orders_store_created_customer_idx, refunds_store_created_idx;
DROP FUNCTION IF EXISTS analytics_order_counts(text, text), analytics_refund_counts(text), analytics_order_source(jsonb),
    analytics_order_campaign(jsonb), analytics_line_revenue(bigint, bigint, bigint), analytics_slot(timestamptz);
