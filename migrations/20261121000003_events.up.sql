-- Events and their webhook deliveries (internal/events). A state change
-- inserts one events row and, in the same transaction, one pending
-- webhook_deliveries row and one River job per active subscription of its
-- topic: the transactional outbox, so a change and its event commit together
-- or not at all.
--
-- payload is the whole body POSTed to subscribers, built once when the event
-- is recorded, so that every attempt and every subscriber receives (and has
-- signed) identical bytes.
CREATE TABLE events (
    id          bigserial PRIMARY KEY,
    store_id    bigint NOT NULL REFERENCES stores (id) ON DELETE CASCADE,
    topic       text NOT NULL,
    resource    text NOT NULL,
    resource_id bigint NOT NULL,
    payload     jsonb NOT NULL,
    created_at  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX events_store_idx ON events (store_id, created_at);

-- A delivery belongs to its event: pruning old events takes their deliveries
-- with them (hence the index, which the cascade needs).
ALTER TABLE webhook_deliveries
    ADD CONSTRAINT webhook_deliveries_event_fk FOREIGN KEY (event_id) REFERENCES events (id) ON DELETE CASCADE;
CREATE INDEX webhook_deliveries_event_idx ON webhook_deliveries (event_id);

-- failing_since: the first failed attempt not followed by a success (NULL
-- while the subscription's last attempt succeeded). paused_at: when the
-- engine turned the subscription off for failing (active is false then); a
-- subscription its owner turned off has active false and paused_at NULL.
ALTER TABLE webhook_subscriptions
    ADD COLUMN failing_since timestamptz,
    ADD COLUMN paused_at     timestamptz;
