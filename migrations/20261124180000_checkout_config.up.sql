-- Checkout and post-purchase configuration (README "Checkout and
-- post-purchase"): checkout pages, upsell funnels with their steps,
-- checkout zones routing countries to weighted funnels, and the store's
-- handling surcharge (pp15) and tipping. What happens at run time (funnel
-- runs, offers) has migrations of its own.

-- A checkout page: the design of the checkout a funnel's shoppers see.
-- sections is the documented JSON structure the API validates (null: the
-- platform's standard checkout). One page of a store is its default.
CREATE TABLE checkout_pages (
    id         bigserial PRIMARY KEY,
    store_id   bigint NOT NULL REFERENCES stores (id) ON DELETE CASCADE,
    name       text NOT NULL CHECK (name <> ''),
    is_default boolean NOT NULL DEFAULT false,
    sections   jsonb,
    created_at timestamptz NOT NULL DEFAULT now(),
    updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX checkout_pages_store_idx ON checkout_pages (store_id, id);
CREATE UNIQUE INDEX checkout_pages_default_idx ON checkout_pages (store_id) WHERE is_default;

-- An upsell funnel: post-purchase offers shown between a payment's
-- authorization and its capture. pp15 and tipping override the store's
-- (checkout_settings) when not null; upsell_page is the design every step
-- shows unless it has its own.
CREATE TABLE upsell_funnels (
    id               bigserial PRIMARY KEY,
    store_id         bigint NOT NULL REFERENCES stores (id) ON DELETE CASCADE,
    name             text NOT NULL CHECK (name <> ''),
    enabled          boolean NOT NULL DEFAULT true,
    timeout_seconds  bigint NOT NULL CHECK (timeout_seconds > 0),
    -- A page a funnel uses cannot be deleted (the API answers 409 naming
    -- the funnels).
    checkout_page_id bigint REFERENCES checkout_pages (id) ON DELETE RESTRICT,
    upsell_page      jsonb NOT NULL DEFAULT '{}',
    pp15             jsonb,
    tipping          jsonb,
    created_at       timestamptz NOT NULL DEFAULT now(),
    updated_at       timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX upsell_funnels_store_idx ON upsell_funnels (store_id, id);
CREATE INDEX upsell_funnels_page_idx ON upsell_funnels (checkout_page_id) WHERE checkout_page_id IS NOT NULL;

-- A funnel's steps, in position order from 1. A step branches to the
-- position after it the shopper goes to on accept or decline (null: the
-- funnel ends there). config holds the offer (product or variant and its
-- discount); upsell_page the step's own design (null: the funnel's).
CREATE TABLE funnel_steps (
    id                    bigserial PRIMARY KEY,
    store_id              bigint NOT NULL REFERENCES stores (id) ON DELETE CASCADE,
    funnel_id             bigint NOT NULL REFERENCES upsell_funnels (id) ON DELETE CASCADE,
    position              bigint NOT NULL CHECK (position >= 1),
    name                  text NOT NULL,
    type                  text NOT NULL,
    config                jsonb NOT NULL DEFAULT '{}',
    accept_next_position  bigint,
    decline_next_position bigint,
    upsell_page           jsonb,
    UNIQUE (funnel_id, position)
);

-- A checkout zone: countries routed to funnels. Zones are tried in
-- position order and the first that lists the country wins, as in
-- shipping; the catch-all zone (at most one a store) takes the countries
-- no zone lists.
CREATE TABLE checkout_zones (
    id         bigserial PRIMARY KEY,
    store_id   bigint NOT NULL REFERENCES stores (id) ON DELETE CASCADE,
    name       text NOT NULL CHECK (name <> ''),
    position   bigint NOT NULL DEFAULT 0 CHECK (position >= 0),
    -- ISO 3166-1 alpha-2 codes, upper case; empty for the catch-all.
    countries  text[] NOT NULL DEFAULT '{}',
    catch_all  boolean NOT NULL DEFAULT false,
    created_at timestamptz NOT NULL DEFAULT now(),
    updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX checkout_zones_store_idx ON checkout_zones (store_id, position, id);
CREATE UNIQUE INDEX checkout_zones_catch_all_idx ON checkout_zones (store_id) WHERE catch_all;

-- The funnels a zone routes to, each with its weight among the zone's
-- enabled ones and its place in the zone's list.
CREATE TABLE checkout_zone_funnels (
    store_id  bigint NOT NULL REFERENCES stores (id) ON DELETE CASCADE,
    zone_id   bigint NOT NULL REFERENCES checkout_zones (id) ON DELETE CASCADE,
    funnel_id bigint NOT NULL REFERENCES upsell_funnels (id) ON DELETE CASCADE,
    enabled   boolean NOT NULL DEFAULT true,
    weight    bigint NOT NULL CHECK (weight >= 0),
    position  bigint NOT NULL CHECK (position >= 0),
    PRIMARY KEY (zone_id, funnel_id)
);
CREATE INDEX checkout_zone_funnels_funnel_idx ON checkout_zone_funnels (funnel_id);

-- The store's handling surcharge (pp15) and tipping; a store without a
-- row has the defaults (models.DefaultPP15, models.DefaultTipping).
CREATE TABLE checkout_settings (
    store_id   bigint PRIMARY KEY REFERENCES stores (id) ON DELETE CASCADE,
    pp15       jsonb NOT NULL,
    tipping    jsonb NOT NULL,
    updated_at timestamptz NOT NULL DEFAULT now()
);
