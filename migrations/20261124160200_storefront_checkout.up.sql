-- What storefront checkout needs beyond the shared tables: finding, at
-- every order placement, the abandoned carts and checkouts of the order's
-- email that are not recovered yet (models.MarkRecovered), without reading
-- a store's other carts.
CREATE INDEX carts_unrecovered_email_idx ON carts (store_id, lower(email))
    WHERE abandoned_at IS NOT NULL AND recovered_at IS NULL AND email <> '';
CREATE INDEX checkouts_unrecovered_email_idx ON checkouts (store_id, lower(email))
    WHERE abandoned_at IS NOT NULL AND recovered_at IS NULL AND email <> '';

-- An attempt's status and capture model are among the storefront's values.
ALTER TABLE checkout_payment_attempts
    ADD CONSTRAINT checkout_payment_attempts_status_check CHECK (status IN ('success', 'failure', 'error', 'pending')),
    ADD CONSTRAINT checkout_payment_attempts_capture_check CHECK (capture_model IS NULL OR capture_model IN ('automatic', 'manual'));
