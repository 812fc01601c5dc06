ALTER TABLE shipping_zones DROP CONSTRAINT IF EXISTS shipping_zones_default_rate_fk;
DROP TABLE IF EXISTS tax_rates, shipping_rates, shipping_zones;
