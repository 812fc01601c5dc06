-- Orders: customers, orders with their line items, payment transactions,
-- refunds, fulfilments, and each order's timeline. Money is integer minor
-- units; the order's financial and fulfilment statuses are stored (lists
-- filter on them) and recomputed from transactions and fulfilments in the
-- transaction of every change (models/order_state.go).

-- The last order number handed out; the next order takes the one after.
ALTER TABLE stores ADD COLUMN last_order_number bigint NOT NULL DEFAULT 1000;

CREATE TABLE customers (
    id                bigserial PRIMARY KEY,
    store_id          bigint NOT NULL REFERENCES stores (id) ON DELETE CASCADE,
    email             text NOT NULL,
    first_name        text NOT NULL DEFAULT '',
    last_name         text NOT NULL DEFAULT '',
    phone             text NOT NULL DEFAULT '',
    accepts_marketing boolean NOT NULL DEFAULT false,
    created_at        timestamptz NOT NULL DEFAULT now(),
    updated_at        timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX customers_email_key ON customers (store_id, lower(email));

CREATE TABLE orders (
    id                   bigserial PRIMARY KEY,
    store_id             bigint NOT NULL REFERENCES stores (id) ON DELETE CASCADE,
    order_number         bigint NOT NULL,
    order_number_display text NOT NULL,
    token                text NOT NULL UNIQUE,
    customer_id          bigint REFERENCES customers (id) ON DELETE SET NULL,
    email                text NOT NULL DEFAULT '',
    currency             text NOT NULL,
    status               text NOT NULL DEFAULT 'open'
        CHECK (status IN ('open', 'archived', 'cancelled')),
    financial_status     text NOT NULL DEFAULT 'pending'
        CHECK (financial_status IN ('pending', 'authorized', 'paid', 'partially_paid', 'partially_refunded', 'refunded', 'voided')),
    fulfillment_status   text NOT NULL DEFAULT 'unfulfilled'
        CHECK (fulfillment_status IN ('unfulfilled', 'partial', 'fulfilled', 'restocked')),
    subtotal_cents       bigint NOT NULL DEFAULT 0 CHECK (subtotal_cents >= 0),
    discount_cents       bigint NOT NULL DEFAULT 0 CHECK (discount_cents >= 0),
    discount_code        text NOT NULL DEFAULT '',
    shipping_cents       bigint NOT NULL DEFAULT 0 CHECK (shipping_cents >= 0),
    tax_cents            bigint NOT NULL DEFAULT 0 CHECK (tax_cents >= 0),
    tip_cents            bigint NOT NULL DEFAULT 0 CHECK (tip_cents >= 0),
    total_cents          bigint NOT NULL DEFAULT 0 CHECK (total_cents >= 0),
    shipping_line        jsonb,
    shipping_address     jsonb,
    billing_address      jsonb,
    attribution          jsonb,
    upsell               jsonb,
    note                 text NOT NULL DEFAULT '',
    tags                 text[] NOT NULL DEFAULT '{}',
    system_tags          text[] NOT NULL DEFAULT '{}',
    source               text NOT NULL DEFAULT 'web',
    draft_order_id       bigint,
    cancel_reason        text NOT NULL DEFAULT '',
    cancelled_at         timestamptz,
    archived_at          timestamptz,
    paid_at              timestamptz,
    checkout_started_at  timestamptz,
    created_at           timestamptz NOT NULL DEFAULT now(),
    updated_at           timestamptz NOT NULL DEFAULT now(),
    UNIQUE (store_id, order_number)
);
CREATE INDEX orders_store_created_idx ON orders (store_id, created_at DESC, id DESC);
CREATE INDEX orders_store_status_idx ON orders (store_id, status, financial_status, fulfillment_status);
CREATE INDEX orders_customer_idx ON orders (customer_id, created_at DESC);
CREATE INDEX orders_email_idx ON orders (store_id, lower(email));
CREATE INDEX orders_tags_idx ON orders USING gin (tags);

CREATE TABLE order_line_items (
    id                   bigserial PRIMARY KEY,
    store_id             bigint NOT NULL REFERENCES stores (id) ON DELETE CASCADE,
    order_id             bigint NOT NULL REFERENCES orders (id) ON DELETE CASCADE,
    position             int NOT NULL DEFAULT 0,
    variant_id           bigint REFERENCES product_variants (id) ON DELETE SET NULL,
    product_id           bigint REFERENCES products (id) ON DELETE SET NULL,
    title                text NOT NULL,
    variant_title        text NOT NULL DEFAULT '',
    sku                  text NOT NULL DEFAULT '',
    price_cents          bigint NOT NULL CHECK (price_cents >= 0),
    original_price_cents bigint CHECK (original_price_cents >= 0),
    quantity             bigint NOT NULL CHECK (quantity > 0),
    refunded_quantity    bigint NOT NULL DEFAULT 0,
    fulfilled_quantity   bigint NOT NULL DEFAULT 0,
    requires_shipping    boolean NOT NULL DEFAULT true,
    properties           jsonb,
    image_src            text NOT NULL DEFAULT '',
    image_thumbhash      text NOT NULL DEFAULT '',
    bundle_group         text,
    bundle_title         text,
    source               text NOT NULL DEFAULT 'checkout',
    CHECK (refunded_quantity BETWEEN 0 AND quantity),
    CHECK (fulfilled_quantity BETWEEN 0 AND quantity)
);
CREATE INDEX order_line_items_order_idx ON order_line_items (order_id, position, id);
CREATE INDEX order_line_items_sku_idx ON order_line_items (store_id, lower(sku));

-- Refunds, with the quantities of each line they gave back.
CREATE TABLE refunds (
    id           bigserial PRIMARY KEY,
    store_id     bigint NOT NULL REFERENCES stores (id) ON DELETE CASCADE,
    order_id     bigint NOT NULL REFERENCES orders (id) ON DELETE CASCADE,
    amount_cents bigint NOT NULL CHECK (amount_cents >= 0),
    currency     text NOT NULL,
    status       text NOT NULL DEFAULT 'success',
    reason       text NOT NULL DEFAULT '',
    restock      boolean NOT NULL DEFAULT false,
    created_at   timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX refunds_order_idx ON refunds (order_id, id);

CREATE TABLE refund_line_items (
    refund_id    bigint NOT NULL REFERENCES refunds (id) ON DELETE CASCADE,
    line_item_id bigint NOT NULL REFERENCES order_line_items (id) ON DELETE CASCADE,
    quantity     bigint NOT NULL CHECK (quantity > 0),
    PRIMARY KEY (refund_id, line_item_id)
);

-- Payment transactions. A capture, void or refund points at the
-- transaction it acts on (parent_id).
CREATE TABLE order_transactions (
    id             bigserial PRIMARY KEY,
    store_id       bigint NOT NULL REFERENCES stores (id) ON DELETE CASCADE,
    order_id       bigint NOT NULL REFERENCES orders (id) ON DELETE CASCADE,
    parent_id      bigint REFERENCES order_transactions (id) ON DELETE SET NULL,
    refund_id      bigint REFERENCES refunds (id) ON DELETE SET NULL,
    kind           text NOT NULL CHECK (kind IN ('authorization', 'capture', 'sale', 'refund', 'void')),
    status         text NOT NULL CHECK (status IN ('pending', 'success', 'failure', 'error')),
    amount_cents   bigint NOT NULL CHECK (amount_cents >= 0),
    currency       text NOT NULL,
    provider       text NOT NULL DEFAULT '',
    external_id    text NOT NULL DEFAULT '',
    payment_method text,
    error          text,
    -- When an authorization lapses if it is not captured.
    expires_at     timestamptz,
    created_at     timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX order_transactions_order_idx ON order_transactions (order_id, created_at, id);
CREATE INDEX order_transactions_authorizations_idx ON order_transactions (store_id, created_at DESC)
    WHERE kind = 'authorization' AND status = 'success';

CREATE TABLE fulfillments (
    id              bigserial PRIMARY KEY,
    store_id        bigint NOT NULL REFERENCES stores (id) ON DELETE CASCADE,
    order_id        bigint NOT NULL REFERENCES orders (id) ON DELETE CASCADE,
    status          text NOT NULL DEFAULT 'success' CHECK (status IN ('success', 'cancelled')),
    carrier         text NOT NULL DEFAULT '',
    tracking_number text NOT NULL DEFAULT '',
    tracking_url    text NOT NULL DEFAULT '',
    note            text NOT NULL DEFAULT '',
    cancelled_at    timestamptz,
    created_at      timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX fulfillments_order_idx ON fulfillments (order_id, id);

CREATE TABLE fulfillment_items (
    fulfillment_id bigint NOT NULL REFERENCES fulfillments (id) ON DELETE CASCADE,
    line_item_id   bigint NOT NULL REFERENCES order_line_items (id) ON DELETE CASCADE,
    quantity       bigint NOT NULL CHECK (quantity > 0),
    PRIMARY KEY (fulfillment_id, line_item_id)
);

-- The order's own timeline, written in the transaction of each change.
CREATE TABLE order_events (
    id             bigserial PRIMARY KEY,
    store_id       bigint NOT NULL REFERENCES stores (id) ON DELETE CASCADE,
    order_id       bigint NOT NULL REFERENCES orders (id) ON DELETE CASCADE,
    name           text NOT NULL,
    source         text NOT NULL DEFAULT 'admin',
    amount_cents   bigint,
    transaction_id bigint,
    detail         jsonb,
    at             timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX order_events_order_idx ON order_events (order_id, at, id);
