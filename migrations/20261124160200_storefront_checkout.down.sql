ALTER TABLE checkout_payment_attempts
    DROP CONSTRAINT checkout_payment_attempts_capture_check,
    DROP CONSTRAINT checkout_payment_attempts_status_check;
DROP INDEX checkouts_unrecovered_email_idx;
DROP INDEX carts_unrecovered_email_idx;
