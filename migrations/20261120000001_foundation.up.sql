-- The foundation: stores, their people and keys, settings, the audit log and
-- webhook subscriptions with the deliveries table the events engine fills.

CREATE TABLE stores (
    id                  bigserial PRIMARY KEY,
    handle              text NOT NULL UNIQUE,
    name                text NOT NULL,
    status              text NOT NULL DEFAULT 'active',
    storefront_enabled  boolean NOT NULL DEFAULT true,
    contact_email       text NOT NULL DEFAULT '',
    contact_phone       text NOT NULL DEFAULT '',
    currency            text NOT NULL DEFAULT 'USD',
    locale              text NOT NULL DEFAULT 'en',
    timezone            text NOT NULL DEFAULT 'UTC',
    weight_unit         text NOT NULL DEFAULT 'kg',
    order_number_prefix text NOT NULL DEFAULT '#',
    order_number_suffix text NOT NULL DEFAULT '',
    address             jsonb NOT NULL DEFAULT '{}',
    closed_at           timestamptz,
    created_at          timestamptz NOT NULL DEFAULT now(),
    updated_at          timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE users (
    id         bigserial PRIMARY KEY,
    email      text NOT NULL,
    name       text NOT NULL DEFAULT '',
    created_at timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX users_email_key ON users (lower(email));

CREATE TABLE store_members (
    store_id   bigint NOT NULL REFERENCES stores (id) ON DELETE CASCADE,
    user_id    bigint NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    role       text NOT NULL,
    status     text NOT NULL DEFAULT 'active',
    created_at timestamptz NOT NULL DEFAULT now(),
    updated_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (store_id, user_id)
);

-- created_by is the member who made the key; 0 means the command line.
CREATE TABLE api_keys (
    id           bigserial PRIMARY KEY,
    store_id     bigint NOT NULL REFERENCES stores (id) ON DELETE CASCADE,
    name         text NOT NULL,
    role         text NOT NULL,
    scopes       text[] NOT NULL DEFAULT '{}',
    secret_hash  bytea NOT NULL UNIQUE,
    hint         text NOT NULL,
    created_by   bigint NOT NULL DEFAULT 0,
    created_at   timestamptz NOT NULL DEFAULT now(),
    expires_at   timestamptz,
    revoked_at   timestamptz,
    last_used_at timestamptz
);
CREATE INDEX api_keys_store_idx ON api_keys (store_id, id);

-- Keys held by AI assistants (the MCP connector), listed and disconnected by
-- the dashboard; their calls are recorded in mcp_activity.
CREATE TABLE mcp_keys (
    id           bigserial PRIMARY KEY,
    store_id     bigint NOT NULL REFERENCES stores (id) ON DELETE CASCADE,
    name         text NOT NULL,
    kind         text NOT NULL DEFAULT 'mcp',
    preset       text NOT NULL,
    role         text NOT NULL,
    scopes       text[] NOT NULL DEFAULT '{}',
    secret_hash  bytea NOT NULL UNIQUE,
    hint         text NOT NULL,
    created_by   bigint NOT NULL DEFAULT 0,
    created_at   timestamptz NOT NULL DEFAULT now(),
    expires_at   timestamptz,
    revoked_at   timestamptz,
    last_used_at timestamptz
);
CREATE INDEX mcp_keys_store_idx ON mcp_keys (store_id, id);

CREATE TABLE mcp_activity (
    id          bigserial PRIMARY KEY,
    store_id    bigint NOT NULL REFERENCES stores (id) ON DELETE CASCADE,
    key_id      bigint NOT NULL REFERENCES mcp_keys (id) ON DELETE CASCADE,
    tool        text NOT NULL,
    subject     text,
    requested   jsonb,
    before      jsonb,
    after       jsonb,
    adjusted    jsonb,
    result      text NOT NULL,
    status_code integer NOT NULL,
    error       text,
    country     text,
    at          timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX mcp_activity_store_idx ON mcp_activity (store_id, at DESC, id DESC);

CREATE TABLE store_settings (
    store_id   bigint NOT NULL REFERENCES stores (id) ON DELETE CASCADE,
    namespace  text NOT NULL,
    key        text NOT NULL,
    value      jsonb NOT NULL,
    updated_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (store_id, namespace, key)
);

-- store_id and actor_id are null for writes that no store can be named for.
CREATE TABLE audit_logs (
    id          bigserial PRIMARY KEY,
    store_id    bigint REFERENCES stores (id) ON DELETE CASCADE,
    actor_type  text NOT NULL,
    actor_id    bigint,
    action      text NOT NULL,
    method      text NOT NULL,
    path        text NOT NULL,
    status_code integer NOT NULL,
    ip          text NOT NULL DEFAULT '',
    user_agent  text NOT NULL DEFAULT '',
    country     text NOT NULL DEFAULT '',
    metadata    jsonb NOT NULL DEFAULT '{}',
    created_at  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX audit_logs_store_idx ON audit_logs (store_id, created_at DESC, id DESC);
CREATE INDEX audit_logs_actor_idx ON audit_logs (store_id, actor_type, actor_id, created_at DESC);
CREATE INDEX audit_logs_action_idx ON audit_logs (store_id, action, created_at DESC);

-- The signing secret is kept as written: HMAC needs it, and it is shown to
-- the subscriber once, when the subscription is created.
CREATE TABLE webhook_subscriptions (
    id         bigserial PRIMARY KEY,
    store_id   bigint NOT NULL REFERENCES stores (id) ON DELETE CASCADE,
    url        text NOT NULL,
    topics     text[] NOT NULL,
    active     boolean NOT NULL DEFAULT true,
    secret     text NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now(),
    updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX webhook_subscriptions_store_idx ON webhook_subscriptions (store_id, id);

CREATE TABLE webhook_deliveries (
    id               bigserial PRIMARY KEY,
    store_id         bigint NOT NULL REFERENCES stores (id) ON DELETE CASCADE,
    subscription_id  bigint NOT NULL REFERENCES webhook_subscriptions (id) ON DELETE CASCADE,
    event_id         bigint NOT NULL,
    topic            text NOT NULL,
    status           text NOT NULL DEFAULT 'pending',
    attempts         integer NOT NULL DEFAULT 0,
    last_status_code integer NOT NULL DEFAULT 0,
    last_error       text NOT NULL DEFAULT '',
    created_at       timestamptz NOT NULL DEFAULT now(),
    updated_at       timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX webhook_deliveries_subscription_idx ON webhook_deliveries (subscription_id, created_at DESC, id DESC);
