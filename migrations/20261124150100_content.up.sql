-- Navigation menus: a store's named trees of storefront links (README
-- "Navigation menus"). items is the tree as stored: each item is
-- {title, type, url, resource_id, items}, a reference kept by id so that a
-- renamed target is read with its current handle and a deleted one is
-- flagged, not lost.
CREATE TABLE menus (
    id         bigserial PRIMARY KEY,
    store_id   bigint NOT NULL REFERENCES stores (id) ON DELETE CASCADE,
    handle     text NOT NULL,
    title      text NOT NULL,
    items      jsonb NOT NULL DEFAULT '[]',
    created_at timestamptz NOT NULL DEFAULT now(),
    updated_at timestamptz NOT NULL DEFAULT now(),
    UNIQUE (store_id, handle)
);

-- Every store has the two menus a storefront theme renders, main-menu and
-- footer, from the moment it exists: a trigger adds them with the store, in
-- its statement, whoever inserts it (the CLI, the tests, a future signup),
-- so no reader has to create them and none finds them missing.
CREATE FUNCTION add_default_menus() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO menus (store_id, handle, title)
    SELECT s.id, d.handle, d.title
    FROM new_stores AS s
    CROSS JOIN (VALUES ('main-menu', 'Main menu'), ('footer', 'Footer menu')) AS d (handle, title);
    RETURN NULL;
END
$$;

CREATE TRIGGER stores_default_menus AFTER INSERT ON stores
    REFERENCING NEW TABLE AS new_stores
    FOR EACH STATEMENT EXECUTE FUNCTION add_default_menus();
-- A fill with session_replication_role = replica (bench-data) adds stores'
-- rows too.
ALTER TABLE stores ENABLE ALWAYS TRIGGER stores_default_menus;

INSERT INTO menus (store_id, handle, title)
SELECT s.id, d.handle, d.title
FROM stores AS s
CROSS JOIN (VALUES ('main-menu', 'Main menu'), ('footer', 'Footer menu')) AS d (handle, title);
