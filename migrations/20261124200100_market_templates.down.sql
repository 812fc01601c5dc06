DROP TRIGGER stores_default_theme ON stores;
DROP FUNCTION stores_default_theme();
DROP FUNCTION install_default_theme(bigint);
-- The stores' themes go with the templates they follow.
DELETE FROM store_live_themes;
DELETE FROM themes;
DELETE FROM store_templates;
-- Versions first: they refuse updates, not deletes.
DELETE FROM market_template_versions WHERE template_key IN ('atelier-classic', 'atelier-noir', 'atelier-bloom', 'harbor', 'harbor-market');
DELETE FROM market_templates WHERE key IN ('atelier-classic', 'atelier-noir', 'atelier-bloom', 'harbor', 'harbor-market');
