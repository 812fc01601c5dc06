-- Draft orders: orders the merchant builds. Money fields are the pricing
-- engine's (internal/pricing), stored after every change; marking a draft
-- paid copies them onto the order it becomes.

ALTER TABLE stores ADD COLUMN last_draft_number bigint NOT NULL DEFAULT 0;

CREATE TABLE draft_orders (
    id                bigserial PRIMARY KEY,
    store_id          bigint NOT NULL REFERENCES stores (id) ON DELETE CASCADE,
    number            bigint NOT NULL,
    name              text NOT NULL,
    status            text NOT NULL DEFAULT 'open' CHECK (status IN ('open', 'invoice_sent', 'completed')),
    email             text NOT NULL DEFAULT '',
    currency          text NOT NULL,
    note              text NOT NULL DEFAULT '',
    tags              text[] NOT NULL DEFAULT '{}',
    token             text NOT NULL UNIQUE,
    billing_address   jsonb,
    shipping_address  jsonb,
    requires_shipping boolean NOT NULL DEFAULT false,
    -- No foreign key: a deleted rate simply stops matching, and the next
    -- pricing drops it.
    shipping_rate_id  bigint NOT NULL DEFAULT 0,
    shipping_title    text NOT NULL DEFAULT '',
    shipping_cents    bigint NOT NULL DEFAULT 0 CHECK (shipping_cents >= 0),
    subtotal_cents    bigint NOT NULL DEFAULT 0 CHECK (subtotal_cents >= 0),
    discount_cents    bigint NOT NULL DEFAULT 0 CHECK (discount_cents >= 0),
    tax_cents         bigint NOT NULL DEFAULT 0 CHECK (tax_cents >= 0),
    total_cents       bigint NOT NULL DEFAULT 0 CHECK (total_cents >= 0),
    discount_code     text NOT NULL DEFAULT '',
    discount_id       bigint REFERENCES discounts (id) ON DELETE SET NULL,
    weight_grams      bigint NOT NULL DEFAULT 0,
    invoice_sent_at   timestamptz,
    order_id          bigint REFERENCES orders (id) ON DELETE SET NULL,
    completed_at      timestamptz,
    created_at        timestamptz NOT NULL DEFAULT now(),
    updated_at        timestamptz NOT NULL DEFAULT now(),
    UNIQUE (store_id, number)
);
CREATE INDEX draft_orders_store_idx ON draft_orders (store_id, created_at DESC, id DESC);

CREATE TABLE draft_order_lines (
    id                bigserial PRIMARY KEY,
    store_id          bigint NOT NULL REFERENCES stores (id) ON DELETE CASCADE,
    draft_order_id    bigint NOT NULL REFERENCES draft_orders (id) ON DELETE CASCADE,
    position          int NOT NULL DEFAULT 0,
    custom            boolean NOT NULL DEFAULT false,
    variant_id        bigint REFERENCES product_variants (id) ON DELETE SET NULL,
    product_id        bigint REFERENCES products (id) ON DELETE SET NULL,
    title             text NOT NULL,
    variant_title     text NOT NULL DEFAULT '',
    sku               text NOT NULL DEFAULT '',
    price_cents       bigint NOT NULL CHECK (price_cents >= 0),
    quantity          bigint NOT NULL CHECK (quantity > 0),
    line_total_cents  bigint NOT NULL DEFAULT 0,
    discount_cents    bigint NOT NULL DEFAULT 0,
    requires_shipping boolean NOT NULL DEFAULT true,
    taxable           boolean NOT NULL DEFAULT true,
    weight_grams      bigint NOT NULL DEFAULT 0 CHECK (weight_grams >= 0)
);
CREATE INDEX draft_order_lines_draft_idx ON draft_order_lines (draft_order_id, position, id);

ALTER TABLE orders ADD CONSTRAINT orders_draft_order_fk
    FOREIGN KEY (draft_order_id) REFERENCES draft_orders (id) ON DELETE SET NULL;
