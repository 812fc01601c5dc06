DROP TABLE IF EXISTS checkout_settings, checkout_zone_funnels, checkout_zones, funnel_steps, upsell_funnels, checkout_pages;
