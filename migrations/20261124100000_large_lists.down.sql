DROP TRIGGER IF EXISTS products_min_price_insert ON product_variants;
DROP TRIGGER IF EXISTS products_min_price_update ON product_variants;
DROP TRIGGER IF EXISTS products_min_price_delete ON product_variants;
DROP FUNCTION IF EXISTS products_min_price();
ALTER TABLE products DROP COLUMN IF EXISTS min_price_cents;
DROP TRIGGER IF EXISTS order_counts_insert ON orders;
DROP TRIGGER IF EXISTS order_counts_update ON orders;
DROP TRIGGER IF EXISTS order_counts_delete ON orders;
DROP FUNCTION IF EXISTS order_counts_add();
DROP FUNCTION IF EXISTS order_counts_apply(order_delta[]);
DROP TABLE IF EXISTS order_counts, order_day_counts;
DROP TYPE IF EXISTS order_delta;
DROP INDEX IF EXISTS orders_store_created_statuses_idx, orders_store_total_idx, orders_store_updated_idx,
    orders_store_state_idx, orders_store_financial_idx, orders_store_fulfillment_idx,
    orders_email_trgm_idx, orders_number_display_trgm_idx, order_line_items_sku_trgm_idx,
    order_transactions_parent_idx, order_transactions_open_auth_idx, products_store_title_idx, products_store_created_idx,
    products_store_vendor_idx, products_store_updated_status_idx, products_store_type_idx,
    products_handle_trgm_idx, product_variants_sku_trgm_idx, products_store_price_idx, products_store_price_desc_idx;
CREATE INDEX IF NOT EXISTS orders_store_created_idx ON orders (store_id, created_at DESC, id DESC);
CREATE INDEX IF NOT EXISTS orders_store_status_idx ON orders (store_id, status, financial_status, fulfillment_status);
CREATE INDEX IF NOT EXISTS products_store_updated_idx ON products (store_id, updated_at DESC, id DESC);
CREATE INDEX IF NOT EXISTS order_transactions_authorizations_idx ON order_transactions (store_id, created_at DESC)
    WHERE kind = 'authorization' AND status = 'success';
