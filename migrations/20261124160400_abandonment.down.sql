DROP INDEX IF EXISTS checkouts_unflagged_idx;
DROP INDEX IF EXISTS carts_unflagged_idx;
