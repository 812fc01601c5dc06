ALTER TABLE orders DROP COLUMN IF EXISTS session_id, DROP COLUMN IF EXISTS checkout_id;
DROP TABLE IF EXISTS checkout_payment_attempts;
DROP TABLE IF EXISTS checkout_lines;
DROP TABLE IF EXISTS checkouts;
DROP TABLE IF EXISTS cart_lines;
DROP TABLE IF EXISTS carts;
DROP TABLE IF EXISTS storefront_events;
DROP TABLE IF EXISTS storefront_sessions;
DROP TABLE IF EXISTS visitors;
