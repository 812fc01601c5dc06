-- Plan and billing: the platform's plans, and per store its subscription,
-- saved cards, invoices with their lines and charges. README "Plan and
-- billing" has the rules; docs/architecture.md ("Billing periods are
-- derived") says why a subscription stores its anchor, not its period.

-- Plans are the platform's, shared by every store (no store_id). Exactly
-- one is the default a new store starts on.
CREATE TABLE billing_plans (
    id                          bigserial PRIMARY KEY,
    key                         text NOT NULL UNIQUE,
    name                        text NOT NULL,
    description                 text NOT NULL DEFAULT '',
    price_cents                 bigint NOT NULL CHECK (price_cents >= 0),
    currency                    text NOT NULL DEFAULT 'USD',
    billing_interval            text NOT NULL DEFAULT 'month' CHECK (billing_interval IN ('month', 'year')),
    features                    text[] NOT NULL DEFAULT '{}',
    transaction_fee_bps         bigint NOT NULL CHECK (transaction_fee_bps BETWEEN 0 AND 10000),
    transaction_fee_fixed_cents bigint NOT NULL CHECK (transaction_fee_fixed_cents >= 0),
    trial_days                  bigint NOT NULL DEFAULT 0 CHECK (trial_days >= 0),
    is_default                  boolean NOT NULL DEFAULT false,
    sort                        bigint NOT NULL DEFAULT 0,
    -- retired: kept for the stores on it, offered to no one new.
    status                      text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'retired')),
    created_at                  timestamptz NOT NULL DEFAULT now(),
    updated_at                  timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX billing_plans_one_default_idx ON billing_plans ((true)) WHERE is_default;

INSERT INTO billing_plans (key, name, description, price_cents, features, transaction_fee_bps, transaction_fee_fixed_cents, trial_days, is_default, sort) VALUES
    ('basic', 'Basic', 'Everything a new store needs to start selling.', 2900,
     ARRAY['Online store and blog', 'Unlimited products', '2 staff accounts', 'Discount codes', 'Abandoned cart recovery'],
     200, 30, 14, true, 1),
    ('growth', 'Growth', 'For a store with a team and a steady flow of orders.', 7900,
     ARRAY['Everything in Basic', '5 staff accounts', 'Professional reports', 'Volume bundles', 'Product reviews import'],
     100, 20, 14, false, 2),
    ('pro', 'Pro', 'Lower fees and more hands for a store at scale.', 29900,
     ARRAY['Everything in Growth', '15 staff accounts', 'Advanced reports', 'A/B tests', 'Priority support'],
     50, 10, 14, false, 3);

-- One subscription per store, made with the store (the trigger below) on
-- the default plan. Its price and fees are copied from the plan when it is
-- chosen, so a later price change of a plan does not reach stores already
-- on it. Its periods run from started_at, one billing interval each; the
-- current one is computed when read. cancel_at is the end of the period in
-- which cancellation was asked (the subscription ends then); NULL: it runs on.
CREATE TABLE billing_subscriptions (
    id                          bigserial PRIMARY KEY,
    store_id                    bigint NOT NULL UNIQUE REFERENCES stores (id) ON DELETE CASCADE,
    plan_id                     bigint NOT NULL REFERENCES billing_plans (id),
    price_cents                 bigint NOT NULL CHECK (price_cents >= 0),
    currency                    text NOT NULL,
    billing_interval            text NOT NULL CHECK (billing_interval IN ('month', 'year')),
    transaction_fee_bps         bigint NOT NULL CHECK (transaction_fee_bps BETWEEN 0 AND 10000),
    transaction_fee_fixed_cents bigint NOT NULL CHECK (transaction_fee_fixed_cents >= 0),
    started_at                  timestamptz NOT NULL,
    trial_ends_at               timestamptz,
    cancel_at                   timestamptz,
    created_at                  timestamptz NOT NULL DEFAULT now(),
    updated_at                  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX billing_subscriptions_plan_idx ON billing_subscriptions (plan_id);

-- Every store has a subscription from the moment it exists, however it was
-- created (the API, the command line, the seed, a test), in the same
-- transaction.
CREATE FUNCTION billing_subscribe_store() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO billing_subscriptions (store_id, plan_id, price_cents, currency, billing_interval,
        transaction_fee_bps, transaction_fee_fixed_cents, started_at, trial_ends_at)
    SELECT NEW.id, p.id, p.price_cents, p.currency, p.billing_interval, p.transaction_fee_bps,
        p.transaction_fee_fixed_cents, NEW.created_at,
        CASE WHEN p.trial_days > 0 THEN NEW.created_at + p.trial_days * interval '1 day' END
    FROM billing_plans AS p WHERE p.is_default;
    RETURN NULL;
END $$;
CREATE TRIGGER stores_billing_subscription AFTER INSERT ON stores FOR EACH ROW
    EXECUTE FUNCTION billing_subscribe_store();

-- The stores that exist already start on the default plan now, no trial.
INSERT INTO billing_subscriptions (store_id, plan_id, price_cents, currency, billing_interval,
    transaction_fee_bps, transaction_fee_fixed_cents, started_at)
SELECT s.id, p.id, p.price_cents, p.currency, p.billing_interval, p.transaction_fee_bps,
    p.transaction_fee_fixed_cents, now()
FROM stores AS s CROSS JOIN billing_plans AS p WHERE p.is_default;

-- Saved cards: what the billing provider tells of a card, never its number.
-- provider_ref is the provider's payment method id, which charges it.
CREATE TABLE billing_cards (
    id           bigserial PRIMARY KEY,
    store_id     bigint NOT NULL REFERENCES stores (id) ON DELETE CASCADE,
    brand        text NOT NULL,
    last4        text NOT NULL CHECK (last4 ~ '^[0-9]{4}$'),
    exp_month    bigint NOT NULL CHECK (exp_month BETWEEN 1 AND 12),
    exp_year     bigint NOT NULL CHECK (exp_year BETWEEN 2000 AND 9999),
    is_default   boolean NOT NULL DEFAULT false,
    provider_ref text NOT NULL,
    created_at   timestamptz NOT NULL DEFAULT now(),
    UNIQUE (store_id, provider_ref)
);
CREATE INDEX billing_cards_store_idx ON billing_cards (store_id, id);
CREATE UNIQUE INDEX billing_cards_store_default_idx ON billing_cards (store_id) WHERE is_default;

CREATE TABLE billing_invoices (
    id                bigserial PRIMARY KEY,
    store_id          bigint NOT NULL REFERENCES stores (id) ON DELETE CASCADE,
    number            text NOT NULL,
    status            text NOT NULL CHECK (status IN ('draft', 'open', 'paid', 'void', 'uncollectible')),
    currency          text NOT NULL,
    subtotal_cents    bigint NOT NULL CHECK (subtotal_cents >= 0),
    total_cents       bigint NOT NULL CHECK (total_cents >= 0),
    amount_paid_cents bigint NOT NULL DEFAULT 0 CHECK (amount_paid_cents >= 0),
    attempt_count     bigint NOT NULL DEFAULT 0 CHECK (attempt_count >= 0),
    external_id       text NOT NULL DEFAULT '',
    last_error        text NOT NULL DEFAULT '',
    note              text NOT NULL DEFAULT '',
    paid_via          text NOT NULL DEFAULT '',
    period_start      timestamptz NOT NULL,
    period_end        timestamptz NOT NULL,
    issued_at         timestamptz NOT NULL,
    due_at            timestamptz,
    paid_at           timestamptz,
    created_at        timestamptz NOT NULL DEFAULT now(),
    UNIQUE (store_id, number)
);
CREATE INDEX billing_invoices_store_issued_idx ON billing_invoices (store_id, issued_at DESC, id DESC);

-- What an invoice bills: the plan for a period, the transaction fees of the
-- period's paid orders, adjustments.
CREATE TABLE billing_invoice_lines (
    id                bigserial PRIMARY KEY,
    store_id          bigint NOT NULL REFERENCES stores (id) ON DELETE CASCADE,
    invoice_id        bigint NOT NULL REFERENCES billing_invoices (id) ON DELETE CASCADE,
    kind              text NOT NULL CHECK (kind IN ('subscription', 'transaction_fees', 'adjustment')),
    description       text NOT NULL,
    quantity          bigint NOT NULL DEFAULT 1 CHECK (quantity >= 0),
    unit_amount_cents bigint NOT NULL,
    amount_cents      bigint NOT NULL,
    period_start      timestamptz,
    period_end        timestamptz
);
CREATE INDEX billing_invoice_lines_invoice_idx ON billing_invoice_lines (store_id, invoice_id, id);

-- Each attempt to collect an invoice from a card.
CREATE TABLE billing_charges (
    id             bigserial PRIMARY KEY,
    store_id       bigint NOT NULL REFERENCES stores (id) ON DELETE CASCADE,
    invoice_id     bigint NOT NULL REFERENCES billing_invoices (id) ON DELETE CASCADE,
    amount_cents   bigint NOT NULL CHECK (amount_cents >= 0),
    status         text NOT NULL CHECK (status IN ('succeeded', 'failed')),
    card_brand     text NOT NULL DEFAULT '',
    card_last4     text NOT NULL DEFAULT '',
    failure_message text NOT NULL DEFAULT '',
    external_id    text NOT NULL DEFAULT '',
    created_at     timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX billing_charges_invoice_idx ON billing_charges (store_id, invoice_id, id);

-- The accrued transaction fees sum a period's paid orders of a store: this
-- index answers them from its entries alone.
CREATE INDEX orders_store_paid_idx ON orders (store_id, paid_at) INCLUDE (total_cents) WHERE paid_at IS NOT NULL;
