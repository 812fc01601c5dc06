ALTER TABLE orders DROP CONSTRAINT IF EXISTS orders_draft_order_fk;
DROP TABLE IF EXISTS draft_order_lines, draft_orders;
ALTER TABLE stores DROP COLUMN IF EXISTS last_draft_number;
