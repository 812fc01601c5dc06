-- The abandonment job's search (models.StoresWithIdleCarts and the flags):
-- carts and checkouts it could flag, by when they last changed, across
-- every store. Flagged ones (and those without lines or an email, until
-- they get them) are not in the indexes, which stay the size of the carts
-- and checkouts in flight.
CREATE INDEX carts_unflagged_idx ON carts (updated_at, store_id)
    WHERE abandoned_at IS NULL AND email <> '' AND item_count > 0;
CREATE INDEX checkouts_unflagged_idx ON checkouts (updated_at, store_id)
    WHERE abandoned_at IS NULL AND state = 'open' AND email <> '' AND item_count > 0;
