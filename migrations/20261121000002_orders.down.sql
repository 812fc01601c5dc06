DROP TABLE IF EXISTS order_events, fulfillment_items, fulfillments, order_transactions,
    refund_line_items, refunds, order_line_items, orders, customers;
ALTER TABLE stores DROP COLUMN IF EXISTS last_order_number;
