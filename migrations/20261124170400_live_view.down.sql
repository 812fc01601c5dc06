DROP INDEX storefront_sessions_store_last_seen_idx;
ALTER TABLE storefront_sessions DROP COLUMN latitude, DROP COLUMN longitude;
