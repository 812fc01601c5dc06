ALTER TABLE order_line_items DROP COLUMN tax_cents, DROP COLUMN discount_cents;
