-- Post-purchase funnels at run time (README "Checkout and post-purchase"):
-- a run is one shopper's pass through a funnel between the authorization
-- of a checkout's payment and its capture; an offer is one step the run
-- reached and what the shopper did with it. The upsell reports read these,
-- the checkouts' routes and the order lines accepted offers added.

-- The route a checkout's pricing last used: the zone of its shipping
-- country and the funnel its token picked there by weight (null: none),
-- whose surcharge and tipping overrides priced it. The reports' carts and
-- order conversion by zone and funnel count these.
ALTER TABLE checkouts ADD COLUMN checkout_zone_id bigint REFERENCES checkout_zones (id) ON DELETE SET NULL;
ALTER TABLE checkouts ADD COLUMN upsell_funnel_id bigint REFERENCES upsell_funnels (id) ON DELETE SET NULL;
CREATE INDEX checkouts_store_funnel_created_idx ON checkouts (store_id, created_at) WHERE upsell_funnel_id IS NOT NULL;

CREATE TABLE funnel_runs (
    id               bigserial PRIMARY KEY,
    store_id         bigint NOT NULL REFERENCES stores (id) ON DELETE CASCADE,
    order_id         bigint NOT NULL UNIQUE REFERENCES orders (id) ON DELETE CASCADE,
    checkout_id      bigint REFERENCES checkouts (id) ON DELETE SET NULL,
    -- The authorization the run holds open until it is captured.
    transaction_id   bigint NOT NULL REFERENCES order_transactions (id) ON DELETE CASCADE,
    -- The funnel and zone as they were: their names stay when they go.
    funnel_id        bigint REFERENCES upsell_funnels (id) ON DELETE SET NULL,
    funnel_name      text NOT NULL,
    zone_id          bigint REFERENCES checkout_zones (id) ON DELETE SET NULL,
    zone_name        text NOT NULL,
    -- running, then completed (the shopper reached the end), timed_out (no
    -- answer within the funnel's timeout) or cancelled (the order was).
    status           text NOT NULL CHECK (status IN ('running', 'completed', 'timed_out', 'cancelled')),
    -- The step the shopper is at; null once the run ended.
    current_position bigint,
    entered_at       timestamptz NOT NULL,
    -- When the run times out unless the shopper answers: each answer moves
    -- it to now + the funnel's timeout_seconds.
    expires_at       timestamptz NOT NULL,
    ended_at         timestamptz,
    -- The order's handling surcharge as the run last priced it.
    surcharge_cents  bigint NOT NULL DEFAULT 0 CHECK (surcharge_cents >= 0)
);
CREATE INDEX funnel_runs_store_entered_idx ON funnel_runs (store_id, entered_at);
CREATE INDEX funnel_runs_transaction_idx ON funnel_runs (transaction_id);
CREATE INDEX funnel_runs_funnel_idx ON funnel_runs (funnel_id) WHERE funnel_id IS NOT NULL;
CREATE INDEX funnel_runs_running_idx ON funnel_runs (expires_at) WHERE status = 'running';

-- Each step a run reached, one row a position: pending (reached, not yet
-- reported shown), shown, accepted, declined, or unavailable (its product
-- could not be sold when reached: the run went on as on a decline). Shown
-- and never answered is what the reports call undecided.
CREATE TABLE funnel_offers (
    id           bigserial PRIMARY KEY,
    store_id     bigint NOT NULL REFERENCES stores (id) ON DELETE CASCADE,
    run_id       bigint NOT NULL REFERENCES funnel_runs (id) ON DELETE CASCADE,
    step_id      bigint REFERENCES funnel_steps (id) ON DELETE SET NULL,
    position     bigint NOT NULL CHECK (position >= 1),
    step_name    text NOT NULL,
    product_id   bigint,
    variant_id   bigint,
    status       text NOT NULL CHECK (status IN ('pending', 'shown', 'accepted', 'declined', 'unavailable')),
    reached_at   timestamptz NOT NULL,
    shown_at     timestamptz,
    decided_at   timestamptz,
    -- The line an accepted offer added to the order, its units and what
    -- it charged (after the offer's discount, before tax).
    line_item_id bigint REFERENCES order_line_items (id) ON DELETE SET NULL,
    quantity     bigint NOT NULL DEFAULT 0 CHECK (quantity >= 0),
    amount_cents bigint NOT NULL DEFAULT 0 CHECK (amount_cents >= 0),
    -- When the money of an accepted offer was taken (the run's capture, or
    -- the second charge of a provider that cannot capture more than it
    -- authorized); null until then.
    charged_at   timestamptz,
    UNIQUE (run_id, position)
);
CREATE INDEX funnel_offers_store_reached_idx ON funnel_offers (store_id, reached_at);
