-- The tables the storefront areas share: visitors, their sessions and
-- browsing events (written by the storefront surface's ingestion), carts,
-- checkouts and payment attempts (written by its cart and checkout calls),
-- and the links from an order to the checkout and session it came from.
-- Sessions, abandonment, recovery and analytics read them. Each area's own
-- migration adds what only it needs.

-- A browser the storefront knows by the visitor id it keeps (anon_id); a
-- customer once the shopper identifies.
CREATE TABLE visitors (
    id            bigserial PRIMARY KEY,
    store_id      bigint NOT NULL REFERENCES stores (id) ON DELETE CASCADE,
    anon_id       text NOT NULL,
    customer_id   bigint REFERENCES customers (id) ON DELETE SET NULL,
    email         text NOT NULL DEFAULT '',
    identified_at timestamptz,
    first_seen_at timestamptz NOT NULL,
    last_seen_at  timestamptz NOT NULL,
    UNIQUE (store_id, anon_id)
);
CREATE INDEX visitors_customer_idx ON visitors (customer_id) WHERE customer_id IS NOT NULL;
CREATE INDEX visitors_email_idx ON visitors (store_id, lower(email)) WHERE email <> '';

-- A visit: a visitor's events with no idle gap over 30 minutes. session_key
-- is the public id (the API's session_id), made by the service; the id the
-- browser sent is kept in client_session_id.
CREATE TABLE storefront_sessions (
    id                bigserial PRIMARY KEY,
    store_id          bigint NOT NULL REFERENCES stores (id) ON DELETE CASCADE,
    session_key       text NOT NULL,
    visitor_id        bigint NOT NULL REFERENCES visitors (id) ON DELETE CASCADE,
    client_session_id text NOT NULL DEFAULT '',
    first_seen_at     timestamptz NOT NULL,
    last_seen_at      timestamptz NOT NULL,
    landing_path      text,
    referrer          text,
    -- utm_source, utm_medium, utm_campaign, utm_term, utm_content, ... and
    -- click ids (gclid, fbclid, ttclid, ...), as the landing URL carried them.
    utm               jsonb,
    click_ids         jsonb,
    user_agent        text,
    browser           text,
    browser_version   text,
    os                text,
    os_version        text,
    device            text,
    is_bot            boolean NOT NULL DEFAULT false,
    ip                inet,
    country           text,
    region            text,
    city              text,
    language          text,
    timezone          text,
    currency          text,
    screen_w          int,
    screen_h          int,
    viewport_w        int,
    viewport_h        int,
    page_views        int NOT NULL DEFAULT 0,
    events            int NOT NULL DEFAULT 0,
    UNIQUE (store_id, session_key)
);
CREATE INDEX storefront_sessions_store_seen_idx ON storefront_sessions (store_id, first_seen_at DESC, id DESC);
CREATE INDEX storefront_sessions_visitor_idx ON storefront_sessions (visitor_id, last_seen_at DESC);

-- One browsing event. client_event_id is the browser's id for it: a
-- retried batch is stored once.
CREATE TABLE storefront_events (
    id              bigserial PRIMARY KEY,
    store_id        bigint NOT NULL REFERENCES stores (id) ON DELETE CASCADE,
    session_id      bigint NOT NULL REFERENCES storefront_sessions (id) ON DELETE CASCADE,
    visitor_id      bigint NOT NULL REFERENCES visitors (id) ON DELETE CASCADE,
    client_event_id text NOT NULL,
    -- page_view, product_view, search, click, add_to_cart,
    -- remove_from_cart, checkout_step, ...
    name            text NOT NULL,
    occurred_at     timestamptz NOT NULL,
    received_at     timestamptz NOT NULL DEFAULT now(),
    path            text,
    referrer        text,
    -- No foreign keys: a deleted product keeps its history.
    product_id      bigint,
    variant_id      bigint,
    product_title   text,
    search_query    text,
    result_count    int,
    el_selector     text,
    el_text         text,
    dwell_ms        int,
    scroll_pct      smallint,
    value_cents     bigint,
    currency        text,
    quantity        int,
    step            text,
    cart_token      text,
    checkout_token  text,
    detail          jsonb,
    UNIQUE (store_id, client_event_id)
);
CREATE INDEX storefront_events_session_idx ON storefront_events (session_id, occurred_at, id);
CREATE INDEX storefront_events_store_time_idx ON storefront_events (store_id, occurred_at);

-- A storefront cart, known to the browser by its token. Prices are the
-- pricing engine's, never the client's.
CREATE TABLE carts (
    id                bigserial PRIMARY KEY,
    store_id          bigint NOT NULL REFERENCES stores (id) ON DELETE CASCADE,
    token             text NOT NULL,
    visitor_id        bigint REFERENCES visitors (id) ON DELETE SET NULL,
    session_id        bigint REFERENCES storefront_sessions (id) ON DELETE SET NULL,
    customer_id       bigint REFERENCES customers (id) ON DELETE SET NULL,
    currency          text NOT NULL,
    email             text NOT NULL DEFAULT '',
    phone             text NOT NULL DEFAULT '',
    first_name        text NOT NULL DEFAULT '',
    last_name         text NOT NULL DEFAULT '',
    marketing_consent boolean NOT NULL DEFAULT false,
    -- The shopper asked for no recovery reminders: always wins.
    recovery_opt_out  boolean NOT NULL DEFAULT false,
    item_count        bigint NOT NULL DEFAULT 0,
    subtotal_cents    bigint NOT NULL DEFAULT 0 CHECK (subtotal_cents >= 0),
    -- Abandonment and recovery (the abandonment job and the recovery area).
    abandoned_at      timestamptz,
    recovered_at      timestamptz,
    recovered_order_id bigint REFERENCES orders (id) ON DELETE SET NULL,
    recovery_emails   int NOT NULL DEFAULT 0,
    created_at        timestamptz NOT NULL DEFAULT now(),
    updated_at        timestamptz NOT NULL DEFAULT now(),
    UNIQUE (store_id, token)
);
CREATE INDEX carts_store_updated_idx ON carts (store_id, updated_at DESC, id DESC);
CREATE INDEX carts_store_abandoned_idx ON carts (store_id, abandoned_at DESC, id DESC) WHERE abandoned_at IS NOT NULL;
CREATE INDEX carts_session_idx ON carts (session_id) WHERE session_id IS NOT NULL;

CREATE TABLE cart_lines (
    id             bigserial PRIMARY KEY,
    store_id       bigint NOT NULL REFERENCES stores (id) ON DELETE CASCADE,
    cart_id        bigint NOT NULL REFERENCES carts (id) ON DELETE CASCADE,
    position       int NOT NULL DEFAULT 0,
    variant_id     bigint REFERENCES product_variants (id) ON DELETE SET NULL,
    product_id     bigint REFERENCES products (id) ON DELETE SET NULL,
    title          text NOT NULL,
    variant_title  text NOT NULL DEFAULT '',
    handle         text NOT NULL DEFAULT '',
    sku            text NOT NULL DEFAULT '',
    image_src      text NOT NULL DEFAULT '',
    price_cents    bigint NOT NULL CHECK (price_cents >= 0),
    quantity       bigint NOT NULL CHECK (quantity > 0),
    properties     jsonb
);
CREATE INDEX cart_lines_cart_idx ON cart_lines (cart_id, position, id);

-- A checkout, known to the browser by its token; completing it places an
-- order (order_id).
CREATE TABLE checkouts (
    id                bigserial PRIMARY KEY,
    store_id          bigint NOT NULL REFERENCES stores (id) ON DELETE CASCADE,
    token             text NOT NULL,
    cart_id           bigint REFERENCES carts (id) ON DELETE SET NULL,
    visitor_id        bigint REFERENCES visitors (id) ON DELETE SET NULL,
    session_id        bigint REFERENCES storefront_sessions (id) ON DELETE SET NULL,
    customer_id       bigint REFERENCES customers (id) ON DELETE SET NULL,
    -- open, completed, expired (the state machine is the checkout area's).
    state             text NOT NULL DEFAULT 'open',
    currency          text NOT NULL,
    email             text NOT NULL DEFAULT '',
    phone             text NOT NULL DEFAULT '',
    first_name        text NOT NULL DEFAULT '',
    last_name         text NOT NULL DEFAULT '',
    marketing_consent boolean NOT NULL DEFAULT false,
    recovery_opt_out  boolean NOT NULL DEFAULT false,
    shipping_address  jsonb,
    billing_address   jsonb,
    shipping_line     jsonb,
    discount_code     text NOT NULL DEFAULT '',
    item_count        bigint NOT NULL DEFAULT 0,
    subtotal_cents    bigint NOT NULL DEFAULT 0 CHECK (subtotal_cents >= 0),
    discount_cents    bigint NOT NULL DEFAULT 0 CHECK (discount_cents >= 0),
    shipping_cents    bigint NOT NULL DEFAULT 0 CHECK (shipping_cents >= 0),
    tax_cents         bigint NOT NULL DEFAULT 0 CHECK (tax_cents >= 0),
    tip_cents         bigint NOT NULL DEFAULT 0 CHECK (tip_cents >= 0),
    surcharge_cents   bigint NOT NULL DEFAULT 0 CHECK (surcharge_cents >= 0),
    total_cents       bigint NOT NULL DEFAULT 0 CHECK (total_cents >= 0),
    -- The last checkout step the shopper reached (contact, shipping, payment).
    step              text NOT NULL DEFAULT '',
    -- Attribution: utm_* and click ids; tracking the server-side conversion
    -- context (AbandonedcartTrackingContext: fbp, fbc, ttclid, client_ip, ...).
    utm               jsonb,
    tracking          jsonb,
    order_id          bigint REFERENCES orders (id) ON DELETE SET NULL,
    completed_at      timestamptz,
    expires_at        timestamptz NOT NULL,
    abandoned_at      timestamptz,
    recovered_at      timestamptz,
    recovered_order_id bigint REFERENCES orders (id) ON DELETE SET NULL,
    recovery_emails   int NOT NULL DEFAULT 0,
    created_at        timestamptz NOT NULL DEFAULT now(),
    updated_at        timestamptz NOT NULL DEFAULT now(),
    UNIQUE (store_id, token)
);
CREATE INDEX checkouts_store_updated_idx ON checkouts (store_id, updated_at DESC, id DESC);
CREATE INDEX checkouts_store_abandoned_idx ON checkouts (store_id, abandoned_at DESC, id DESC) WHERE abandoned_at IS NOT NULL;
CREATE INDEX checkouts_session_idx ON checkouts (session_id) WHERE session_id IS NOT NULL;
CREATE INDEX checkouts_cart_idx ON checkouts (cart_id) WHERE cart_id IS NOT NULL;
CREATE INDEX checkouts_order_idx ON checkouts (order_id) WHERE order_id IS NOT NULL;
CREATE INDEX checkouts_email_idx ON checkouts (store_id, lower(email)) WHERE email <> '';

CREATE TABLE checkout_lines (
    id             bigserial PRIMARY KEY,
    store_id       bigint NOT NULL REFERENCES stores (id) ON DELETE CASCADE,
    checkout_id    bigint NOT NULL REFERENCES checkouts (id) ON DELETE CASCADE,
    position       int NOT NULL DEFAULT 0,
    variant_id     bigint REFERENCES product_variants (id) ON DELETE SET NULL,
    product_id     bigint REFERENCES products (id) ON DELETE SET NULL,
    title          text NOT NULL,
    variant_title  text NOT NULL DEFAULT '',
    handle         text NOT NULL DEFAULT '',
    sku            text NOT NULL DEFAULT '',
    image_src      text NOT NULL DEFAULT '',
    price_cents    bigint NOT NULL CHECK (price_cents >= 0),
    quantity       bigint NOT NULL CHECK (quantity > 0),
    properties     jsonb
);
CREATE INDEX checkout_lines_checkout_idx ON checkout_lines (checkout_id, position, id);

-- What the shopper's payment provider said of each attempt to pay a
-- checkout, as the storefront reports it.
CREATE TABLE checkout_payment_attempts (
    id             bigserial PRIMARY KEY,
    store_id       bigint NOT NULL REFERENCES stores (id) ON DELETE CASCADE,
    checkout_id    bigint NOT NULL REFERENCES checkouts (id) ON DELETE CASCADE,
    provider       text NOT NULL,
    payment_method text,
    capture_model  text,
    amount_cents   bigint NOT NULL CHECK (amount_cents >= 0),
    currency       text NOT NULL,
    -- success, failure, error, pending
    status         text NOT NULL,
    error_code     text,
    error_message  text,
    -- The order transaction the attempt became, once the order is placed.
    transaction_id bigint REFERENCES order_transactions (id) ON DELETE SET NULL,
    created_at     timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX checkout_payment_attempts_checkout_idx ON checkout_payment_attempts (checkout_id, created_at, id);

-- The order a checkout placed, and the visit that led to it.
ALTER TABLE orders
    ADD COLUMN checkout_id bigint REFERENCES checkouts (id) ON DELETE SET NULL,
    ADD COLUMN session_id  bigint REFERENCES storefront_sessions (id) ON DELETE SET NULL;
CREATE INDEX orders_session_idx ON orders (session_id) WHERE session_id IS NOT NULL;
CREATE INDEX orders_checkout_idx ON orders (checkout_id) WHERE checkout_id IS NOT NULL;

-- A store's abandonment and recovery policy (AbandonedcartPolicy, as JSON):
-- when a cart or checkout counts as abandoned and which reminders follow.
-- A store without a row has models.DefaultRecoveryPolicy.
CREATE TABLE recovery_settings (
    store_id   bigint PRIMARY KEY REFERENCES stores (id) ON DELETE CASCADE,
    policy     jsonb NOT NULL,
    updated_at timestamptz NOT NULL DEFAULT now()
);

-- Every recovery reminder: scheduled by the policy's sequence or sent now
-- by resend, for a cart or a checkout. Activity logs and timelines read
-- them; recovery_emails on carts and checkouts counts the sent ones.
CREATE TABLE recovery_messages (
    id            bigserial PRIMARY KEY,
    store_id      bigint NOT NULL REFERENCES stores (id) ON DELETE CASCADE,
    cart_id       bigint REFERENCES carts (id) ON DELETE CASCADE,
    checkout_id   bigint REFERENCES checkouts (id) ON DELETE CASCADE,
    -- 1, 2, ... the step of the policy's sequence; 0 for a resend.
    step          int NOT NULL,
    -- sent (by SMTP), outboxed (no SMTP server configured: kept in the
    -- outbox), failed, skipped (opt-out, no email, already recovered).
    status        text NOT NULL,
    to_email      text NOT NULL DEFAULT '',
    subject       text NOT NULL DEFAULT '',
    discount_code text NOT NULL DEFAULT '',
    error         text NOT NULL DEFAULT '',
    created_at    timestamptz NOT NULL DEFAULT now(),
    sent_at       timestamptz,
    CHECK ((cart_id IS NULL) <> (checkout_id IS NULL))
);
CREATE INDEX recovery_messages_cart_idx ON recovery_messages (cart_id, created_at) WHERE cart_id IS NOT NULL;
CREATE INDEX recovery_messages_checkout_idx ON recovery_messages (checkout_id, created_at) WHERE checkout_id IS NOT NULL;
