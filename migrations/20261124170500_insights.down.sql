DROP INDEX IF EXISTS checkout_payment_attempts_store_created_idx;
DROP TABLE IF EXISTS insights;
DROP TABLE IF EXISTS insight_runs;
