ALTER TABLE draft_order_lines DROP COLUMN properties;
