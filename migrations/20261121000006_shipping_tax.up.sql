-- Shipping zones (countries a store ships to) with their rates, and tax
-- rates by country and province. region_warning, on zones and tax rates, is
-- computed by the reads (models/shipping.go, models/tax.go), not stored.

CREATE TABLE shipping_zones (
    id              bigserial PRIMARY KEY,
    store_id        bigint NOT NULL REFERENCES stores (id) ON DELETE CASCADE,
    name            text NOT NULL CHECK (name <> ''),
    -- ISO 3166-1 alpha-2 codes, upper case; '*' is the rest of the world.
    countries       text[] NOT NULL CHECK (cardinality(countries) >= 1),
    position        bigint NOT NULL DEFAULT 0 CHECK (position >= 0),
    -- A rate of this zone; the foreign key is added below, once
    -- shipping_rates exists.
    default_rate_id bigint,
    created_at      timestamptz NOT NULL DEFAULT now(),
    updated_at      timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX shipping_zones_store_idx ON shipping_zones (store_id, position, id);

CREATE TABLE shipping_rates (
    id                 bigserial PRIMARY KEY,
    store_id           bigint NOT NULL REFERENCES stores (id) ON DELETE CASCADE,
    zone_id            bigint NOT NULL REFERENCES shipping_zones (id) ON DELETE CASCADE,
    name               text NOT NULL CHECK (name <> ''),
    price_cents        bigint NOT NULL CHECK (price_cents >= 0),
    position           bigint NOT NULL DEFAULT 0 CHECK (position >= 0),
    -- Inclusive bounds on the order's weight and subtotal; NULL: unbounded.
    min_weight_grams   bigint CHECK (min_weight_grams >= 0),
    max_weight_grams   bigint CHECK (max_weight_grams >= 0),
    min_subtotal_cents bigint CHECK (min_subtotal_cents >= 0),
    max_subtotal_cents bigint CHECK (max_subtotal_cents >= 0),
    created_at         timestamptz NOT NULL DEFAULT now(),
    updated_at         timestamptz NOT NULL DEFAULT now(),
    CONSTRAINT shipping_rates_weight_bounds CHECK (min_weight_grams <= max_weight_grams),
    CONSTRAINT shipping_rates_subtotal_bounds CHECK (min_subtotal_cents <= max_subtotal_cents)
);
CREATE INDEX shipping_rates_zone_idx ON shipping_rates (zone_id, position, id);
CREATE INDEX shipping_rates_store_idx ON shipping_rates (store_id);

-- Zones and rates refer to each other: the zone's default rate goes back to
-- "none" when that rate is deleted.
ALTER TABLE shipping_zones ADD CONSTRAINT shipping_zones_default_rate_fk
    FOREIGN KEY (default_rate_id) REFERENCES shipping_rates (id) ON DELETE SET NULL;

CREATE TABLE tax_rates (
    id         bigserial PRIMARY KEY,
    store_id   bigint NOT NULL REFERENCES stores (id) ON DELETE CASCADE,
    name       text NOT NULL CHECK (name <> ''),
    -- ISO 3166-1 alpha-2, upper case.
    country    text NOT NULL CHECK (country ~ '^[A-Z]{2}$'),
    -- A subdivision of the country (ON, CA, BY), upper case; '': the whole
    -- country.
    province   text NOT NULL DEFAULT '' CHECK (province ~ '^[A-Z0-9]{0,10}$'),
    -- Basis points: 825 = 8.25%, at most 10000 = 100%.
    rate_bps   bigint NOT NULL CHECK (rate_bps BETWEEN 0 AND 10000),
    position   bigint NOT NULL DEFAULT 0 CHECK (position >= 0),
    created_at timestamptz NOT NULL DEFAULT now(),
    updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX tax_rates_region_idx ON tax_rates (store_id, country, province, position, id);
