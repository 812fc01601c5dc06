DROP INDEX orders_store_paid_idx;
DROP TABLE billing_charges;
DROP TABLE billing_invoice_lines;
DROP TABLE billing_invoices;
DROP TABLE billing_cards;
DROP TRIGGER stores_billing_subscription ON stores;
DROP FUNCTION billing_subscribe_store();
DROP TABLE billing_subscriptions;
DROP TABLE billing_plans;
