-- Versions first: they refuse updates, not deletes.
DELETE FROM market_template_versions WHERE template_key IN ('atelier-classic', 'atelier-noir', 'atelier-bloom', 'harbor', 'harbor-market');
DELETE FROM market_templates WHERE key IN ('atelier-classic', 'atelier-noir', 'atelier-bloom', 'harbor', 'harbor-market');
