DROP TABLE theme_live_changes;
DROP TABLE store_live_themes;
DROP TABLE theme_versions;
DROP TABLE themes;
DROP TABLE store_templates;
DROP TABLE market_template_versions;
DROP TABLE market_templates;
DROP FUNCTION refuse_version_change();
