-- Idempotency keys: the answer to a POST sent with an Idempotency-Key
-- header, kept so that a retry of the same request gets the same answer
-- instead of running again (internal/idempotency).
--
-- A key is scoped to the store and to the credential that sent it
-- (actor_type is api_key or mcp_key, whose ids come from different tables).
-- status_code 0 is a reservation: the first request is still running, under
-- the random lock_token only its own process knows. fingerprint is the
-- SHA-256 of the request (method, path, query, Content-Type, body).

CREATE TABLE idempotency_keys (
    store_id     bigint NOT NULL REFERENCES stores (id) ON DELETE CASCADE,
    actor_type   text NOT NULL,
    api_key_id   bigint NOT NULL,
    key          text NOT NULL,
    fingerprint  bytea NOT NULL,
    lock_token   bytea NOT NULL,
    status_code  integer NOT NULL DEFAULT 0,
    content_type text NOT NULL DEFAULT '',
    body         bytea,
    created_at   timestamptz NOT NULL,
    expires_at   timestamptz NOT NULL,
    PRIMARY KEY (store_id, actor_type, api_key_id, key)
);
CREATE INDEX idempotency_keys_expires_idx ON idempotency_keys (expires_at);
