DROP TABLE funnel_offers;
DROP TABLE funnel_runs;
DROP INDEX checkouts_store_funnel_created_idx;
ALTER TABLE checkouts DROP COLUMN upsell_funnel_id;
ALTER TABLE checkouts DROP COLUMN checkout_zone_id;
