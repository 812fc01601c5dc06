DROP TRIGGER stores_default_menus ON stores;
DROP FUNCTION add_default_menus();
DROP TABLE menus;
