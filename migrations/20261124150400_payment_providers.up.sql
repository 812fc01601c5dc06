-- Payment providers: the gateways a store takes payments through, one of
-- each kind (models.PaymentKinds) per store. Credentials and the webhook
-- signing secret are stored sealed (AES-256-GCM under the key of
-- --secrets-key, sealed by internal/base/secretbox); NULL: none saved. The
-- service never reads them back out to a client.

CREATE TABLE payment_providers (
    id                    bigserial PRIMARY KEY,
    store_id              bigint NOT NULL REFERENCES stores (id) ON DELETE CASCADE,
    provider              text NOT NULL CHECK (provider <> ''),
    display_name          text NOT NULL CHECK (display_name <> ''),
    mode                  text NOT NULL DEFAULT 'test' CHECK (mode IN ('live', 'test')),
    enabled               boolean NOT NULL DEFAULT false,
    public_id             text NOT NULL DEFAULT '',
    public_config         jsonb NOT NULL DEFAULT '{}',
    credentials_sealed    bytea,
    webhook_secret_sealed bytea,
    -- The path under the service's public URL the provider sends events
    -- to: random, so that it cannot be guessed; empty for a kind that
    -- sends none.
    webhook_path          text NOT NULL DEFAULT '',
    webhook_registered    boolean NOT NULL DEFAULT false,
    card_fields_enabled   boolean NOT NULL DEFAULT false,
    card_fields_eligible  boolean NOT NULL DEFAULT false,
    card_fields_probed_at timestamptz,
    created_at            timestamptz NOT NULL DEFAULT now(),
    updated_at            timestamptz NOT NULL DEFAULT now(),
    UNIQUE (store_id, provider)
);
CREATE UNIQUE INDEX payment_providers_webhook_path_idx ON payment_providers (webhook_path) WHERE webhook_path <> '';

-- The store domains a provider has registered for wallet payments (Apple
-- Pay and the like serve a page only on a domain registered with them). A
-- domain deleted, or a provider, takes its registrations with it.
CREATE TABLE payment_wallet_domains (
    store_id      bigint NOT NULL REFERENCES stores (id) ON DELETE CASCADE,
    provider_id   bigint NOT NULL REFERENCES payment_providers (id) ON DELETE CASCADE,
    domain_id     bigint NOT NULL REFERENCES domains (id) ON DELETE CASCADE,
    registered_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (provider_id, domain_id)
);
CREATE INDEX payment_wallet_domains_store_idx ON payment_wallet_domains (store_id, provider_id);
CREATE INDEX payment_wallet_domains_domain_idx ON payment_wallet_domains (domain_id);
