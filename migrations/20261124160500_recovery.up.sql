-- Recovery: the reminder sequence's bookkeeping on recovery_messages, and
-- the mail outbox (internal/mail) that holds mail when no SMTP server is
-- configured.

-- sequence_at is the abandoned_at of the abandonment a scheduled reminder
-- belongs to: a cart restored through its link and abandoned again starts
-- its sequence afresh, and a step of one abandonment is stored once
-- (the unique indexes below are the sequence's exactly-once guarantee
-- across replicas). Resends (step 0) have none. clicked_at is when the
-- shopper first followed the reminder's recovery link.
ALTER TABLE recovery_messages
    ADD COLUMN sequence_at timestamptz,
    ADD COLUMN clicked_at  timestamptz,
    ADD CONSTRAINT recovery_messages_sequence_check CHECK ((step = 0) = (sequence_at IS NULL));
CREATE UNIQUE INDEX recovery_messages_cart_step_idx ON recovery_messages (cart_id, sequence_at, step) WHERE cart_id IS NOT NULL AND step > 0;
CREATE UNIQUE INDEX recovery_messages_checkout_step_idx ON recovery_messages (checkout_id, sequence_at, step) WHERE checkout_id IS NOT NULL AND step > 0;
CREATE INDEX recovery_messages_store_idx ON recovery_messages (store_id, created_at DESC);
ALTER TABLE recovery_messages ADD CONSTRAINT recovery_messages_status_check
    CHECK (status IN ('sent', 'outboxed', 'failed', 'skipped'));

-- Mail the service would have sent had it an SMTP server (--smtp-url):
-- the whole message as it would have gone, for an operator to read or
-- replay.
CREATE TABLE mail_outbox (
    id         bigserial PRIMARY KEY,
    store_id   bigint NOT NULL REFERENCES stores (id) ON DELETE CASCADE,
    from_addr  text NOT NULL,
    to_addr    text NOT NULL,
    subject    text NOT NULL,
    message    bytea NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX mail_outbox_store_idx ON mail_outbox (store_id, created_at DESC, id DESC);

-- The sequence's due-finder (models.DueRecoveryReminders) reads the
-- abandoned, unrecovered carts and checkouts of every store.
CREATE INDEX carts_recovery_due_idx ON carts (abandoned_at, id) WHERE abandoned_at IS NOT NULL AND recovered_at IS NULL;
CREATE INDEX checkouts_recovery_due_idx ON checkouts (abandoned_at, id) WHERE abandoned_at IS NOT NULL AND recovered_at IS NULL;
