-- The live view (internal/analytics, live.go): a session's coordinates, as
-- the geo database gave them for its first event's address (NULL: no
-- database, or one without coordinates), so visitors and orders can be put
-- on the map; and the index that finds the sessions active in the last
-- minutes without reading the store's history.
ALTER TABLE storefront_sessions
    ADD COLUMN latitude  double precision,
    ADD COLUMN longitude double precision,
    ADD CONSTRAINT storefront_sessions_coordinates_check CHECK ((latitude IS NULL) = (longitude IS NULL)
        AND latitude BETWEEN -90 AND 90 AND longitude BETWEEN -180 AND 180);
CREATE INDEX storefront_sessions_store_last_seen_idx ON storefront_sessions (store_id, last_seen_at);
