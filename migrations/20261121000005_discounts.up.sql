-- Discounts: codes shoppers type (class code) and discounts that apply by
-- themselves (class automatic), with the orders that redeemed them.
--
-- Targets are id lists on the row (no foreign keys: a deleted product or
-- collection simply stops matching). used_count is exact: it only grows
-- through models.RedeemDiscount, one conditional UPDATE that never passes
-- usage_limit, in the transaction that places the order, which also adds
-- the redemption row (per-customer limits count those rows by email).

CREATE TABLE discounts (
    id                     bigserial PRIMARY KEY,
    store_id               bigint NOT NULL REFERENCES stores (id) ON DELETE CASCADE,
    class                  text NOT NULL DEFAULT 'code' CHECK (class IN ('code', 'automatic')),
    code                   text NOT NULL CHECK (code <> ''),
    type                   text NOT NULL
        CHECK (type IN ('percentage', 'fixed_amount', 'free_shipping', 'buy_x_get_y')),
    value                  bigint NOT NULL DEFAULT 0 CHECK (value >= 0),
    value_type             text NOT NULL DEFAULT 'percentage' CHECK (value_type IN ('percentage', 'fixed_amount')),
    applies_to             text NOT NULL DEFAULT 'all' CHECK (applies_to IN ('all', 'products', 'collections')),
    minimum_subtotal_cents bigint NOT NULL DEFAULT 0 CHECK (minimum_subtotal_cents >= 0),
    starts_at              timestamptz,
    ends_at                timestamptz,
    enabled                boolean NOT NULL DEFAULT true,
    usage_limit            bigint CHECK (usage_limit >= 1),
    used_count             bigint NOT NULL DEFAULT 0 CHECK (used_count >= 0),
    once_per_customer      boolean NOT NULL DEFAULT false,
    per_customer_limit     bigint CHECK (per_customer_limit >= 1),
    buy_quantity           bigint NOT NULL DEFAULT 0 CHECK (buy_quantity >= 0),
    get_quantity           bigint NOT NULL DEFAULT 0 CHECK (get_quantity >= 0),
    get_value              bigint NOT NULL DEFAULT 0 CHECK (get_value >= 0),
    get_value_type         text NOT NULL DEFAULT 'percentage' CHECK (get_value_type IN ('percentage', 'fixed_amount')),
    product_ids            bigint[] NOT NULL DEFAULT '{}',
    collection_ids         bigint[] NOT NULL DEFAULT '{}',
    buy_product_ids        bigint[] NOT NULL DEFAULT '{}',
    buy_collection_ids     bigint[] NOT NULL DEFAULT '{}',
    get_product_ids        bigint[] NOT NULL DEFAULT '{}',
    get_collection_ids     bigint[] NOT NULL DEFAULT '{}',
    created_at             timestamptz NOT NULL DEFAULT now(),
    updated_at             timestamptz NOT NULL DEFAULT now(),
    CHECK (value_type <> 'percentage' OR value <= 100),
    CHECK (get_value_type <> 'percentage' OR get_value <= 100),
    CHECK (starts_at IS NULL OR ends_at IS NULL OR ends_at > starts_at)
);
-- Codes are unique per store in any case: SUMMER and summer are one code.
CREATE UNIQUE INDEX discounts_code_key ON discounts (store_id, lower(code));
CREATE INDEX discounts_store_idx ON discounts (store_id, created_at DESC, id DESC);
CREATE INDEX discounts_automatic_idx ON discounts (store_id) WHERE class = 'automatic' AND enabled;

CREATE TABLE discount_redemptions (
    id          bigserial PRIMARY KEY,
    discount_id bigint NOT NULL REFERENCES discounts (id) ON DELETE CASCADE,
    store_id    bigint NOT NULL REFERENCES stores (id) ON DELETE CASCADE,
    order_id    bigint REFERENCES orders (id) ON DELETE CASCADE,
    email       text NOT NULL DEFAULT '',
    created_at  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX discount_redemptions_email_idx ON discount_redemptions (discount_id, lower(email));
CREATE INDEX discount_redemptions_order_idx ON discount_redemptions (order_id);
